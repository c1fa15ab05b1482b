//! The parser's tests: MySQL's text in, the statements (and errors) MySQL reads out.

use super::*;

#[test]
fn names_and_charsets_in_a_set_list_become_their_variables() {
    let sql = "SET sql_mode=(SELECT CONCAT(@@sql_mode, ',PIPES_AS_CONCAT')),\
               time_zone='+00:00',NAMES utf8mb4 COLLATE utf8mb4_unicode_ci, \
               CHARACTER SET 'utf8mb4', @x = 1";
    let Statement::Sql { statement, .. } = one(sql).statement else {
        panic!("{sql}");
    };
    let ast::Statement::Set(ast::Set::MultipleAssignments { assignments }) = &*statement else {
        panic!("{statement:?}");
    };
    let names: Vec<String> = assignments.iter().map(|a| a.name.to_string()).collect();
    assert_eq!(
        names,
        [
            "sql_mode",
            "time_zone",
            "character_set_client",
            "character_set_connection",
            "character_set_results",
            "collation_connection",
            "character_set_client",
            "character_set_results",
            "@x"
        ]
    );
    assert_eq!(assignments[5].value.to_string(), "utf8mb4_unicode_ci");
    // Alone, NAMES is sqlparser's.
    let p = one("SET NAMES utf8mb4 COLLATE utf8mb4_bin");
    assert!(matches!(
        p.statement,
        Statement::Sql { statement, .. }
            if matches!(*statement, ast::Statement::Set(ast::Set::SetNames { .. }))
    ));
    // A NAMES item not in MySQL's form stays an error.
    assert!(parse("SET @x = 1, NAMES utf8mb4 COLLATE").is_err());
}

fn one(sql: &str) -> Parsed {
    let mut v = parse(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(v.len(), 1);
    v.remove(0)
}

fn sql_of(p: &Parsed) -> (String, Modifiers) {
    match &p.statement {
        Statement::Sql {
            statement,
            modifiers,
        } => (statement.to_string(), *modifiers),
        other => panic!("not sqlparser's: {other:?}"),
    }
}

#[test]
fn a_statement_knows_where_its_text_starts() {
    let v = parse("SELECT 1;\n  SELECT 2").unwrap();
    assert_eq!(
        (v[0].start, v[1].start),
        (Location::new(1, 1), Location::new(2, 3))
    );
    assert_eq!(v[1].text, "SELECT 2");
}

#[test]
fn sysbench_create_table() {
    let p = one("CREATE TABLE sbtest1(\n id INTEGER NOT NULL AUTO_INCREMENT,\n k INTEGER DEFAULT '0' NOT NULL,\n c CHAR(120) DEFAULT '' NOT NULL,\n pad CHAR(60) DEFAULT '' NOT NULL,\n PRIMARY KEY (id)\n) /*! ENGINE = innodb */");
    assert!(sql_of(&p).0.contains("ENGINE"), "{}", sql_of(&p).0);
}

#[test]
fn future_versioned_comment_is_dropped() {
    let p = one("CREATE TABLE t (a INT) /*!90000 BOGUS */");
    assert!(!sql_of(&p).0.contains("BOGUS"));
}

#[test]
fn rewrites() {
    let (s, _) = sql_of(&one("SELECT * FROM t WHERE a = 1 LOCK IN SHARE MODE"));
    assert!(s.ends_with("FOR SHARE"), "{s}");
    let (s, m) = sql_of(&one("UPDATE LOW_PRIORITY IGNORE t1, t2 SET t1.a = t2.a"));
    assert_eq!(s, "UPDATE t1 CROSS JOIN t2 SET t1.a = t2.a");
    assert!(m.low_priority && m.ignore);
    let (s, m) = sql_of(&one("DELETE QUICK FROM t WHERE a IN (1, 2)"));
    assert_eq!(s, "DELETE FROM t WHERE a IN (1, 2)");
    assert!(m.quick);
    let (s, m) = sql_of(&one(
        "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY",
    ));
    assert_eq!(s, "START TRANSACTION READ ONLY");
    assert!(m.consistent_snapshot);
}

#[test]
fn several_statements_and_their_text() {
    let v = parse("BEGIN; SELECT 1 ;\n\n COMMIT;").unwrap();
    let texts: Vec<&str> = v.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(texts, ["BEGIN", "SELECT 1", "COMMIT"]);
}

/// Any text gives statements or a MySQL error, never a panic (a fixed pseudo-random mix of
/// fragments that stress the comment pass, the splitter, the recognizer and the rules).
#[test]
fn no_text_panics() {
    let parts = [
        "SELECT",
        " * FROM t",
        "/*!",
        "/*!90000",
        "*/",
        "/*",
        "'",
        "\"",
        "`",
        "\\",
        ";",
        "LOCK",
        "TABLES",
        "TABLE",
        "INSTANCE",
        "FOR",
        "BACKUP",
        "UNLOCK",
        "READ",
        "WRITE",
        "LOCAL",
        ",",
        ".",
        "DO",
        "GET_LOCK('a', 1)",
        "é",
        "\n",
        "--",
        "-- x\n",
        "#",
        "(",
        ")",
        "UPDATE",
        "LOW_PRIORITY",
        "IGNORE",
        "SET",
        "DELETE",
        "QUICK",
        "START",
        "TRANSACTION",
        "WITH",
        "CONSISTENT",
        "SNAPSHOT",
        "LOCK IN SHARE MODE",
        " ",
        "a.b",
        "ALTER TABLE",
        "DISABLE",
        "KEYS",
        "ANALYZE",
        "CHECK",
        "OPTIMIZE",
        "REPAIR",
        "CHECKSUM",
        "NO_WRITE_TO_BINLOG",
        "UPDATE HISTOGRAM",
        "FOR UPGRADE",
        "FLUSH",
        "EXPORT",
    ];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let state = crate::SessionState::in_schema("test");
    for _ in 0..20_000 {
        let mut sql = String::new();
        for _ in 0..(seed % 9) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            sql.push_str(parts[(seed % parts.len() as u64) as usize]);
            sql.push(' ');
        }
        if let Ok(stmts) = parse(&sql) {
            for p in &stmts {
                let _ = crate::plan(p, &state);
            }
        }
        seed = seed.wrapping_add(1);
    }
}

#[test]
fn errors_are_mysqls() {
    let e = parse("SELECT * FORM t").unwrap_err();
    assert_eq!((e.code(), e.sqlstate()), (1064, "42000"));
    assert!(e.message().contains("near 'FORM t' at line 1"), "{e}");
    let e = parse("SELECT 1;\nSELECT * FROM").unwrap_err();
    assert!(e.message().ends_with("at line 2"), "{e}");
    assert_eq!(parse("  ;; -- nothing\n").unwrap_err().code(), 1065);
    assert_eq!(parse("SELECT 'unterminated").unwrap_err().code(), 1064);
}
