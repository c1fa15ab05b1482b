//! The MySQL 8.0 statements this crate cannot read or plan, known by their leading keywords, so
//! that they are refused with `ER_NOT_SUPPORTED_YET` (1235, SQLSTATE 42000: "This version of
//! MySQL doesn't yet support '%s'", `share/messages_to_clients.txt`) naming what is missing,
//! rather than with `ER_PARSE_ERROR` (1064), which tells a client that its SQL is wrong when it
//! is the feature that is missing here.
//!
//! One table, [`CLASSES`], for two callers: [`crate::parse`] asks [`feature`] when sqlparser
//! fails on a statement (only then: a statement sqlparser reads keeps its AST, and a caller of
//! this crate keeps what it had), and the planner names with it a statement that sqlparser
//! reads but that has no rule here (`CALL p()`, `DROP TRIGGER t`, `GRANT ...`:
//! `plan/ddl.rs`, `statement_name`).
//!
//! The classes are statements of MySQL 8.0's grammar (`sql/sql_yacc.yy`, `simple_statement`:
//! the rule of each row is named beside it). MySQL's parser chooses a statement by its first
//! keywords, and so does this table; the rest is not checked against MySQL's grammar, so a
//! malformed statement of one of these classes is 1235 as well (MySQL would answer 1064;
//! either way it cannot run here). A class needs its keywords and, where the grammar needs
//! something after them (a name, an xid), at least as many tokens more: `XA`, `HANDLER t` or
//! `CREATE PROCEDURE` alone stay syntax errors, and so does text that is not MySQL at all.
//! `CREATE DEFINER = user ...` and `ALTER DEFINER = user EVENT` are read without the definer
//! (`definer_opt`, `event_tail`). One class is not at the start: a query with `INTO OUTFILE
//! 'file'` or `INTO DUMPFILE 'file'` (`into_clause`; `OUTFILE` is a reserved word).
//!
//! Statements of later versions are left out (they are syntax errors in 8.0): `RESET BINARY
//! LOGS AND GTIDS` (8.2), for one. `LOAD DATA` is here for this crate's other callers; the
//! server answers it before parsing as MySQL's defaults do (3948, 1290).

use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use crate::parse::is_kw;

/// A class of statement: its leading keywords (a `|` joins the words one position takes), the
/// number of tokens the grammar needs after them at least, and the name of the missing feature
/// in the message (`None`: the keywords as written, in upper case).
struct Class(&'static str, usize, Option<&'static str>);

const PROCEDURES: Option<&str> = Some("stored procedures");
const XA: Option<&str> = Some("XA transactions");

/// The statements refused with 1235, by `sql_yacc.yy` rule.
#[rustfmt::skip]
const CLASSES: &[Class] = &[
    // Stored programs: `create` (`view_or_trigger_or_sp_or_event`: `trigger_tail`, `sp_tail`,
    // `sf_tail`, `udf_tail`, `event_tail`), `alter_procedure_stmt`, `alter_function_stmt`,
    // `alter_event_stmt`, `drop_*_stmt`, `call_stmt`; the condition statements a stored program
    // uses and MySQL also takes alone (`signal_stmt`, `resignal_stmt`, `get_diagnostics`).
    Class("CREATE TRIGGER", 1, None),
    Class("DROP TRIGGER", 1, None),
    Class("CREATE PROCEDURE", 1, PROCEDURES),
    Class("ALTER PROCEDURE", 1, PROCEDURES),
    Class("DROP PROCEDURE", 1, PROCEDURES),
    Class("CALL", 1, PROCEDURES),
    Class("CREATE AGGREGATE FUNCTION", 1, Some("CREATE FUNCTION")),
    Class("CREATE|ALTER|DROP FUNCTION", 1, None),
    Class("CREATE|ALTER|DROP EVENT", 1, None),
    Class("SIGNAL", 1, None),
    Class("RESIGNAL", 0, None),
    Class("GET DIAGNOSTICS", 1, None),
    Class("GET CURRENT|STACKED DIAGNOSTICS", 1, Some("GET DIAGNOSTICS")),
    // `xa`: XA START | BEGIN | END | PREPARE | COMMIT | ROLLBACK xid, XA RECOVER.
    Class("XA START|BEGIN|END|PREPARE|COMMIT|ROLLBACK", 1, XA),
    Class("XA RECOVER", 0, XA),
    // `handler_stmt`: HANDLER t OPEN | READ ... | CLOSE.
    Class("HANDLER", 2, None),
    // Accounts and privileges: `create` (CREATE USER), `create_role_stmt`, `alter_user_stmt`,
    // `drop_user_stmt`, `drop_role_stmt`, `rename` (RENAME USER), `grant`, `revoke`, `set`
    // (SET PASSWORD), `set_role_stmt` (SET DEFAULT ROLE), `show_create_user_stmt`. This server
    // has no accounts and takes every login: none of them would be true.
    Class("CREATE|ALTER|DROP|RENAME USER", 1, None),
    Class("CREATE|DROP ROLE", 1, None),
    Class("GRANT", 1, None),
    Class("REVOKE", 1, None),
    Class("SET PASSWORD", 1, None),
    Class("SET DEFAULT ROLE", 1, None),
    Class("SHOW CREATE USER", 1, None),
    // Files of the server's host: `load_stmt`, `import_stmt`, `clone_stmt`.
    Class("LOAD DATA|XML", 1, None),
    Class("IMPORT TABLE", 1, None),
    Class("CLONE", 1, None),
    // Storage: `create_tablespace_stmt`, `create_undo_tablespace_stmt`,
    // `create_logfile_group_stmt` and their ALTER / DROP, `keycache_stmt`, `preload_stmt`.
    Class("CREATE|ALTER|DROP TABLESPACE", 1, None),
    Class("CREATE|ALTER|DROP UNDO TABLESPACE", 1, None),
    Class("CREATE|ALTER|DROP LOGFILE GROUP", 1, None),
    Class("CACHE INDEX", 1, None),
    Class("LOAD INDEX INTO CACHE", 1, None),
    // The server: `create_server_stmt`, `alter_server_stmt`, `drop_server_stmt`, `install_stmt`,
    // `uninstall`, `shutdown_stmt`, `restart_server_stmt`, `alter_instance_stmt`,
    // `alter_database_stmt`, `set` (SET PERSIST), `help`, `create_srs_stmt`, `drop_srs_stmt`,
    // `create_resource_group_stmt` and its ALTER / DROP / SET.
    Class("CREATE|ALTER|DROP SERVER", 1, None),
    Class("INSTALL|UNINSTALL PLUGIN|COMPONENT", 1, None),
    Class("SHUTDOWN", 0, None),
    Class("RESTART", 0, None),
    Class("ALTER INSTANCE", 1, None),
    Class("ALTER DATABASE|SCHEMA", 1, None),
    Class("SET PERSIST|PERSIST_ONLY", 1, None),
    Class("HELP", 1, None),
    Class("CREATE SPATIAL REFERENCE SYSTEM", 1, None),
    Class("CREATE OR REPLACE SPATIAL REFERENCE SYSTEM", 1, Some("CREATE SPATIAL REFERENCE SYSTEM")),
    Class("DROP SPATIAL REFERENCE SYSTEM", 1, None),
    Class("CREATE|ALTER|DROP|SET RESOURCE GROUP", 1, None),
    // Replication and the binary log: `change`, `start_replica_stmt`, `stop_replica_stmt`,
    // `group_replication`, `purge`, `binlog_base64_event`.
    Class("CHANGE MASTER", 1, None),
    Class("CHANGE REPLICATION SOURCE|FILTER", 1, None),
    Class("START|STOP REPLICA|SLAVE|GROUP_REPLICATION", 0, None),
    Class("PURGE BINARY|MASTER LOGS", 1, None),
    Class("BINLOG", 1, None),
    // `TABLE t` (8.0.19's `explicit_table`, a query of its own).
    Class("TABLE", 1, None),
];

/// What a statement (its tokens, without whitespace) is refused for, if it is of one of
/// [`CLASSES`]: the name for "doesn't yet support '...'".
pub(crate) fn feature(t: &[TokenWithSpan]) -> Option<String> {
    if let Some(what) = into_file(t) {
        return Some(what.to_string());
    }
    let skip = definer(t);
    // The tokens with `DEFINER = user` left out.
    let at = |i: usize| t.get(if i == 0 { 0 } else { i + skip });
    let len = t.len() - skip;
    let word = |i: usize| match at(i).map(|x| &x.token) {
        Some(Token::Word(w)) => w.value.to_ascii_uppercase(),
        _ => String::new(),
    };
    CLASSES.iter().find_map(|Class(keywords, more, name)| {
        let n = keywords.split(' ').count();
        let mut alternatives = keywords.split(' ').enumerate();
        let matched = alternatives.all(|(i, alternatives)| {
            at(i).is_some_and(|x| alternatives.split('|').any(|a| is_kw(x, a)))
        });
        (matched && len >= n + more).then(|| match name {
            Some(name) => name.to_string(),
            None => (0..n).map(word).collect::<Vec<_>>().join(" "),
        })
    })
}

/// [`feature`] of a statement's text (the planner's, from sqlparser's AST).
pub(crate) fn feature_of_text(sql: &str) -> Option<String> {
    let tokens = Tokenizer::new(&MySqlDialect {}, sql)
        .tokenize_with_location()
        .ok()?;
    let tokens: Vec<TokenWithSpan> = tokens
        .into_iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF))
        .collect();
    feature(&tokens)
}

/// How many tokens `DEFINER = user` takes after `CREATE` or `ALTER` (`definer_opt`): up to the
/// keyword of what is created, the user being `name`, `'name'@'host'`, `CURRENT_USER[()]`.
fn definer(t: &[TokenWithSpan]) -> usize {
    let kw = |i: usize, k: &str| t.get(i).is_some_and(|x| is_kw(x, k));
    if !(kw(0, "CREATE") || kw(0, "ALTER")) || !kw(1, "DEFINER") {
        return 0;
    }
    let object = |i: &usize| {
        ["TRIGGER", "PROCEDURE", "FUNCTION", "EVENT"]
            .iter()
            .any(|k| kw(*i, k))
    };
    (2..t.len().min(10)).find(object).map_or(0, |i| i - 1)
}

/// `SELECT ... INTO OUTFILE 'f'` / `INTO DUMPFILE 'f'` in a query (`into_clause`, which MySQL
/// takes before `FROM` or at the end).
fn into_file(t: &[TokenWithSpan]) -> Option<&'static str> {
    let query = t.first().is_some_and(|f| {
        f.token == Token::LParen || ["SELECT", "WITH", "TABLE"].iter().any(|k| is_kw(f, k))
    });
    if !query {
        return None;
    }
    t.windows(3).find_map(|w| {
        let file = matches!(
            w[2].token,
            Token::SingleQuotedString(_) | Token::DoubleQuotedString(_)
        );
        match () {
            _ if !is_kw(&w[0], "INTO") || !file => None,
            _ if is_kw(&w[1], "OUTFILE") => Some("SELECT ... INTO OUTFILE"),
            _ if is_kw(&w[1], "DUMPFILE") => Some("SELECT ... INTO DUMPFILE"),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse, SessionState};

    /// What `parse`, then the planner, answer: `Err` with the code and the name in 1235's
    /// message (another error's whole message), `Ok` if both accept the statement.
    fn answer(sql: &str) -> Result<(), (u16, String)> {
        let refused = |e: crate::SqlError| {
            let m = e.message();
            let name = m
                .strip_prefix("This version of MySQL doesn't yet support '")
                .and_then(|m| m.strip_suffix('\''));
            (e.code(), name.unwrap_or(m).to_string())
        };
        let p = parse(sql).map_err(refused)?;
        let state = SessionState::in_schema("test");
        crate::plan(&p[0], &state).map(|_| ()).map_err(refused)
    }

    fn refused(sql: &str) -> String {
        match answer(sql) {
            Err((1235, name)) => name,
            other => panic!("{sql}: {other:?}"),
        }
    }

    /// One statement of each class, as MySQL 8.0's manual writes it, and the name it is
    /// refused with: sqlparser reads some (the planner refuses them), not the others. A class
    /// that this crate comes to read and plan fails here and leaves the table.
    #[rustfmt::skip]
    #[test]
    fn each_class_is_refused_by_name() {
        let cases = [
            ("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.b = 'z'", "CREATE TRIGGER"),
            ("CREATE DEFINER = CURRENT_USER TRIGGER tr AFTER UPDATE ON t FOR EACH ROW DELETE FROM u", "CREATE TRIGGER"),
            ("create definer=`root`@`localhost` trigger tr before insert on t for each row set @x = 1", "CREATE TRIGGER"),
            ("CREATE DEFINER = 'u'@'%' TRIGGER IF NOT EXISTS tr BEFORE INSERT ON t FOR EACH ROW BEGIN END", "CREATE TRIGGER"),
            ("DROP TRIGGER IF EXISTS test.tr", "DROP TRIGGER"),
            ("CREATE PROCEDURE p() SELECT 1", "stored procedures"),
            ("CREATE DEFINER=root@localhost PROCEDURE p(IN a INT) BEGIN SELECT a", "stored procedures"),
            ("ALTER PROCEDURE p COMMENT 'x'", "stored procedures"),
            ("DROP PROCEDURE IF EXISTS p", "stored procedures"),
            ("CALL p()", "stored procedures"),
            ("call test.p(1, @x)", "stored procedures"),
            ("CREATE FUNCTION f() RETURNS INT DETERMINISTIC RETURN 1", "CREATE FUNCTION"),
            ("CREATE FUNCTION f RETURNS STRING SONAME 'udf.so'", "CREATE FUNCTION"),
            ("CREATE AGGREGATE FUNCTION f RETURNS REAL SONAME 'udf.so'", "CREATE FUNCTION"),
            ("ALTER FUNCTION f COMMENT 'x'", "ALTER FUNCTION"),
            ("DROP FUNCTION IF EXISTS f", "DROP FUNCTION"),
            ("CREATE EVENT e ON SCHEDULE EVERY 1 HOUR DO DELETE FROM t", "CREATE EVENT"),
            ("ALTER DEFINER = CURRENT_USER EVENT e DISABLE", "ALTER EVENT"),
            ("DROP EVENT IF EXISTS e", "DROP EVENT"),
            ("SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'x'", "SIGNAL"),
            ("RESIGNAL", "RESIGNAL"),
            ("GET DIAGNOSTICS @n = NUMBER", "GET DIAGNOSTICS"),
            ("GET STACKED DIAGNOSTICS CONDITION 1 @m = MESSAGE_TEXT", "GET DIAGNOSTICS"),
            ("XA START 'x'", "XA transactions"),
            ("XA BEGIN 'x', 'b', 1", "XA transactions"),
            ("xa end 'x'", "XA transactions"),
            ("XA PREPARE 'x'", "XA transactions"),
            ("XA COMMIT 'x' ONE PHASE", "XA transactions"),
            ("XA ROLLBACK 'x'", "XA transactions"),
            ("XA RECOVER CONVERT XID", "XA transactions"),
            ("HANDLER t OPEN", "HANDLER"),
            ("HANDLER t READ `PRIMARY` FIRST", "HANDLER"),
            ("HANDLER t CLOSE", "HANDLER"),
            ("CREATE USER IF NOT EXISTS 'u'@'%' IDENTIFIED BY 'p'", "CREATE USER"),
            ("ALTER USER u IDENTIFIED BY 'q'", "ALTER USER"),
            ("DROP USER u", "DROP USER"),
            ("RENAME USER u TO v", "RENAME USER"),
            ("CREATE ROLE r", "CREATE ROLE"),
            ("DROP ROLE r", "DROP ROLE"),
            ("GRANT SELECT ON *.* TO u", "GRANT"),
            ("GRANT r TO u", "GRANT"),
            ("REVOKE ALL PRIVILEGES, GRANT OPTION FROM u", "REVOKE"),
            ("SET PASSWORD FOR u = 'x'", "SET PASSWORD"),
            ("SET DEFAULT ROLE ALL TO u", "SET DEFAULT ROLE"),
            ("SHOW CREATE USER root", "SHOW CREATE USER"),
            ("SELECT * FROM t INTO OUTFILE '/tmp/x.csv'", "SELECT ... INTO OUTFILE"),
            ("SELECT a INTO OUTFILE '/tmp/x.csv' FIELDS TERMINATED BY ',' FROM t", "SELECT ... INTO OUTFILE"),
            ("SELECT * FROM t INTO DUMPFILE '/tmp/x.bin'", "SELECT ... INTO DUMPFILE"),
            ("WITH c AS (SELECT 1) SELECT * FROM c INTO OUTFILE \"/tmp/y\"", "SELECT ... INTO OUTFILE"),
            ("TABLE t INTO OUTFILE '/tmp/y.csv'", "SELECT ... INTO OUTFILE"),
            ("LOAD DATA LOCAL INFILE '/tmp/x.csv' INTO TABLE t", "LOAD DATA"),
            ("LOAD XML INFILE '/tmp/x.xml' INTO TABLE t", "LOAD XML"),
            ("IMPORT TABLE FROM '/tmp/t.sdi'", "IMPORT TABLE"),
            ("CLONE LOCAL DATA DIRECTORY = '/tmp/c'", "CLONE"),
            ("CREATE TABLESPACE ts ADD DATAFILE 'ts.ibd'", "CREATE TABLESPACE"),
            ("ALTER TABLESPACE ts RENAME TO ts2", "ALTER TABLESPACE"),
            ("DROP TABLESPACE ts", "DROP TABLESPACE"),
            ("CREATE UNDO TABLESPACE u ADD DATAFILE 'u.ibu'", "CREATE UNDO TABLESPACE"),
            ("CREATE LOGFILE GROUP lg ADD UNDOFILE 'u.log' ENGINE=NDB", "CREATE LOGFILE GROUP"),
            ("CACHE INDEX t IN hot", "CACHE INDEX"),
            ("LOAD INDEX INTO CACHE t IGNORE LEAVES", "LOAD INDEX INTO CACHE"),
            ("CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (HOST 'h')", "CREATE SERVER"),
            ("ALTER SERVER s OPTIONS (USER 'x')", "ALTER SERVER"),
            ("DROP SERVER IF EXISTS s", "DROP SERVER"),
            ("INSTALL PLUGIN p SONAME 'p.so'", "INSTALL PLUGIN"),
            ("UNINSTALL COMPONENT 'file://x'", "UNINSTALL COMPONENT"),
            ("SHUTDOWN", "SHUTDOWN"),
            ("RESTART", "RESTART"),
            ("ALTER INSTANCE ROTATE INNODB MASTER KEY", "ALTER INSTANCE"),
            ("ALTER DATABASE test CHARACTER SET utf8mb4", "ALTER DATABASE"),
            ("ALTER SCHEMA test READ ONLY = 0", "ALTER SCHEMA"),
            ("SET PERSIST max_connections = 10", "SET PERSIST"),
            ("HELP 'contents'", "HELP"),
            ("CREATE SPATIAL REFERENCE SYSTEM 4120 NAME 'x' DEFINITION 'y'", "CREATE SPATIAL REFERENCE SYSTEM"),
            ("CREATE OR REPLACE SPATIAL REFERENCE SYSTEM 4120 NAME 'x'", "CREATE SPATIAL REFERENCE SYSTEM"),
            ("DROP SPATIAL REFERENCE SYSTEM IF EXISTS 4120", "DROP SPATIAL REFERENCE SYSTEM"),
            ("CREATE RESOURCE GROUP rg TYPE = USER", "CREATE RESOURCE GROUP"),
            ("SET RESOURCE GROUP rg", "SET RESOURCE GROUP"),
            ("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'", "CHANGE REPLICATION SOURCE"),
            ("CHANGE MASTER TO MASTER_HOST = 'h'", "CHANGE MASTER"),
            ("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d)", "CHANGE REPLICATION FILTER"),
            ("START REPLICA", "START REPLICA"),
            ("start slave io_thread", "START SLAVE"),
            ("STOP GROUP_REPLICATION", "STOP GROUP_REPLICATION"),
            ("PURGE BINARY LOGS TO 'binlog.000002'", "PURGE BINARY LOGS"),
            ("PURGE MASTER LOGS BEFORE NOW()", "PURGE MASTER LOGS"),
            ("BINLOG 'x'", "BINLOG"),
            ("TABLE t", "TABLE"),
            // Versioned comments are resolved first.
            ("/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`%`*/ /*!50003 TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @x = 1 */", "CREATE TRIGGER"),
        ];
        for (sql, name) in cases {
            assert_eq!(refused(sql), name, "{sql}");
        }
    }

    /// Text that is not MySQL, or a class's keywords without what the grammar needs after
    /// them, is still a syntax error; the statements this crate reads are still read.
    #[test]
    fn garbage_is_still_a_syntax_error() {
        for sql in [
            "SELEC 1",
            "this is not sql",
            "XA",
            "XA FOO 'x'",
            "HANDLER",
            "HANDLER t",
            "CREATE PROCEDURE",
            "CREATE TRIGGERX tr",
            "CALL",
            "GRANT",
            "`CALL` p()",
            "RESET BINARY LOGS AND GTIDS",
            "SELECT * FROM t INTO OUTFILE",
            "CREATE DEFINER = x VIEWS v",
        ] {
            assert!(
                matches!(answer(sql), Err((1064, _))),
                "{sql}: {:?}",
                answer(sql)
            );
        }
        for sql in [
            "SELECT a INTO @v FROM t",
            "SELECT 'INTO OUTFILE' FROM t",
            "INSERT INTO dumpfile VALUES ('x')",
            "START TRANSACTION",
            "SET autocommit = 0",
            "DO 1",
            "CREATE DEFINER = CURRENT_USER SQL SECURITY INVOKER VIEW v AS SELECT 1",
            "CHECK TABLE t FOR UPGRADE",
            "LOCK TABLES t READ",
        ] {
            assert_eq!(answer(sql), Ok(()), "{sql}");
        }
    }

    /// In a text of several statements, the first error is the one reported.
    #[test]
    fn the_first_failing_statement_decides() {
        let e = parse("SELECT 1; XA START 'x'; SELEC 2").unwrap_err();
        assert_eq!(e.code(), 1235);
        assert_eq!(parse("SELEC 1; XA START 'x'").unwrap_err().code(), 1064);
        // A stored program's body, cut at its `;`: refused at its head.
        let e = parse("CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END").unwrap_err();
        assert_eq!(
            (e.code(), e.sqlstate(), e.message()),
            (
                1235,
                "42000",
                "This version of MySQL doesn't yet support 'stored procedures'"
            )
        );
    }

    #[test]
    fn the_planner_names_what_sqlparser_reads() {
        assert_eq!(
            feature_of_text("DROP TRIGGER IF EXISTS tr").as_deref(),
            Some("DROP TRIGGER")
        );
        assert_eq!(feature_of_text("SELECT 1"), None);
    }
}
