//! The rewrite's texts: what SQLite is given for MySQL statements.

use super::*;

fn env_vars(name: &str) -> Option<Cell> {
    (name == "version_comment").then(|| Cell::Text("mdl".into()))
}

/// The subquery the rewrite reads column `c`'s declared type of table `t` (schema `sbtest`)
/// with when the statement runs (`runtime_type.rs`).
pub(super) fn declared_type(t: &str, c: &str) -> String {
    format!(
        "(SELECT type FROM pragma_table_info('{t}', 'sbtest') WHERE lower(name) = lower('{c}') \
         LIMIT 1)"
    )
}

pub(super) fn sqlite(sql: &str) -> Vec<String> {
    rewritten(sql).unwrap().sql
}

/// The rewrite of `sql` in schema `sbtest`.
pub(super) fn rewritten(sql: &str) -> Result<Rewritten, ServerError> {
    let parsed = mdl_sql::parse_prepared(sql).unwrap();
    let mdl_sql::Statement::Sql { statement, .. } = &parsed[0].statement else {
        panic!("not sql")
    };
    let env = Env {
        schema: Some("sbtest"),
        values: &SessionValues::new(7, "root", "127.0.0.1:1"),
        user_locks: &[Some(1)],
        variable: &env_vars,
        source: Some(&parsed[0]),
        temporary: &Default::default(),
    };
    rewrite(statement, &env)
}

#[test]
fn sysbench_create_table_and_index() {
    let create = "CREATE TABLE sbtest1(\n id INTEGER NOT NULL AUTO_INCREMENT,\n k INTEGER \
                  DEFAULT '0' NOT NULL,\n c CHAR(120) DEFAULT '' NOT NULL,\n pad CHAR(60) \
                  DEFAULT '' NOT NULL,\n PRIMARY KEY (id)\n) /*! ENGINE = innodb */";
    assert_eq!(
        sqlite(create),
        [
            "CREATE TABLE `sbtest`.`sbtest1` (`id` INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \
          `k` INTEGER CONSTRAINT `mdl_range_k` CHECK (typeof(`k`) NOT IN ('integer', 'real') \
          OR `k` BETWEEN -2147483648 AND 2147483647) DEFAULT '0' NOT NULL, `c` CHAR(120) \
          CONSTRAINT `mdl_length_c` CHECK (substr(`c`, 121) IN ('', x'')) DEFAULT '' NOT NULL, \
          `pad` CHAR(60) CONSTRAINT `mdl_length_pad` CHECK (substr(`pad`, 61) IN ('', x'')) \
          DEFAULT '' NOT NULL)"
        ]
    );
    assert_eq!(
        sqlite("CREATE INDEX k_1 ON sbtest1(k)"),
        ["CREATE INDEX `sbtest`.`sbtest1__k_1` ON `sbtest1` (k)"]
    );
}

#[test]
fn serial_is_the_counted_column_without_another_primary_key() {
    // mysqlslap's table: SERIAL is BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE.
    assert_eq!(
        sqlite("CREATE TABLE t1 (id serial,intcol1 INT(32) ,charcol1 VARCHAR(128))"),
        [
            "CREATE TABLE `sbtest`.`t1` (`id` INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \
          `intcol1` INT(32) CONSTRAINT `mdl_range_intcol1` CHECK (typeof(`intcol1`) NOT IN \
          ('integer', 'real') OR `intcol1` BETWEEN -2147483648 AND 2147483647), `charcol1` \
          VARCHAR(128) CONSTRAINT `mdl_length_charcol1` CHECK (substr(`charcol1`, 129) IN \
          ('', x'')))"
        ]
    );
    // An AUTO_INCREMENT column whose unique key is the table's only key counts too.
    assert_eq!(
        sqlite("CREATE TABLE t2 (id BIGINT NOT NULL AUTO_INCREMENT, v TEXT, UNIQUE KEY (id))"),
        [
            "CREATE TABLE `sbtest`.`t2` (`id` INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \
          `v` TEXT)"
        ]
    );
    // So does one that a plain key starts with (sysbench's `--secondary`), which keeps its key.
    assert_eq!(
        sqlite("CREATE TABLE t4 (id INTEGER NOT NULL AUTO_INCREMENT, k TEXT, KEY xid (id, k))"),
        [
            "CREATE TABLE `sbtest`.`t4` (`id` INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \
          `k` TEXT)",
            "CREATE INDEX `sbtest`.`t4__xid` ON `t4` (id, k)"
        ]
    );
    // Beside another primary key, SERIAL is a unique NOT NULL BIGINT UNSIGNED.
    assert_eq!(
        sqlite("CREATE TABLE t3 (id SERIAL, k TEXT PRIMARY KEY)"),
        ["CREATE TABLE `sbtest`.`t3` (`id` BIGINT UNSIGNED NOT NULL UNIQUE, `k` TEXT PRIMARY KEY)"]
    );
}

#[test]
fn a_column_is_named_as_the_statement_spells_it() {
    assert_eq!(
        sqlite("SELECT ID, t.Pad, k + 1 FROM sbtest1 t"),
        ["SELECT ID AS `ID`, t.Pad AS `Pad`, k + 1 AS `k + 1` FROM `sbtest`.sbtest1 t"]
    );
}

#[test]
fn names_values_and_functions() {
    assert_eq!(
        sqlite("SELECT c FROM sbtest1 WHERE id=?"),
        ["SELECT c AS `c` FROM `sbtest`.sbtest1 WHERE id = ?"]
    );
    assert_eq!(
        sqlite("SELECT @@version_comment LIMIT 1"),
        ["SELECT 'mdl' AS `@@version_comment` LIMIT 1"]
    );
    assert_eq!(
        sqlite("SELECT GET_LOCK('a', 1), \"x\""),
        ["SELECT 1 AS `GET_LOCK('a', 1)`, 'x' AS `x`"]
    );
}

#[test]
fn update_and_delete_with_limit_choose_rows_by_rowid() {
    assert_eq!(
        sqlite("UPDATE t SET n = n + 1 WHERE v = 1 ORDER BY id DESC LIMIT 2"),
        [
            "UPDATE `sbtest`.t SET n = MDL_UPDATED_ROW(n + 1, (n IS NOT DISTINCT FROM n + 1)) \
          WHERE _rowid_ IN (SELECT _rowid_ FROM `sbtest`.t WHERE v = 1 ORDER BY id DESC LIMIT 2)"
        ]
    );
    assert_eq!(
        sqlite("DELETE FROM t LIMIT 1"),
        ["DELETE FROM `sbtest`.t WHERE _rowid_ IN (SELECT _rowid_ FROM `sbtest`.t LIMIT 1)"]
    );
    assert_eq!(
        sqlite("DELETE FROM t WHERE id = 3"),
        ["DELETE FROM `sbtest`.t WHERE id = 3"]
    );
}

#[test]
fn select_modifiers_go() {
    assert_eq!(
        sqlite("SELECT /*!40001 SQL_NO_CACHE */ `id` FROM t UNION SELECT HIGH_PRIORITY 1"),
        ["SELECT `id` AS `id` FROM `sbtest`.t UNION SELECT 1"]
    );
}

#[test]
fn like_escapes_with_a_backslash() {
    assert_eq!(
        sqlite(r"SELECT 1 FROM t WHERE 'c' LIKE 'a\_b%' AND 'd' NOT LIKE 'x|%' ESCAPE '|'"),
        [
            r"SELECT 1 AS `1` FROM `sbtest`.t WHERE 'c' LIKE 'a\_b%' ESCAPE '\' AND 'd' NOT LIKE 'x|%' ESCAPE '|'"
        ]
    );
}

#[test]
fn locking_reads_and_user_variables() {
    assert_eq!(
        sqlite("SELECT c FROM sbtest1 WHERE id = 1 LOCK IN SHARE MODE"),
        ["SELECT c AS `c` FROM `sbtest`.sbtest1 WHERE id = 1"]
    );
    assert_eq!(
        sqlite("SET @a = @b + 1, autocommit = 1, @c = 'x'"),
        ["SELECT NULL + 1, 'x'"]
    );
}

#[test]
fn bit_value_literals_are_numbers() {
    assert_eq!(
        sqlite("SELECT b'101', B'0', b'2' FROM t"),
        ["SELECT 5 AS `b'101'`, 0 AS `B'0'`, B'2' AS `b'2'` FROM `sbtest`.t"]
    );
}

#[test]
fn insert_and_replace_without_into_get_it() {
    assert_eq!(
        sqlite("REPLACE t SET id = 1, v = 2"),
        ["REPLACE INTO `sbtest`.t (id, v) VALUES (1, 2)"]
    );
    assert_eq!(
        sqlite("INSERT t VALUES (1)"),
        ["INSERT INTO `sbtest`.t VALUES (1)"]
    );
}

#[test]
fn an_insert_of_a_query_says_where_its_query_is() {
    let rows = |sql: &str| {
        let rw = rewritten(sql).unwrap();
        let at = rw.insert_rows.clone().map(|r| rw.sql[0][r].to_string());
        (rw.sql[0].clone(), at)
    };
    let (sql, at) = rows("INSERT INTO t SELECT a FROM u");
    assert_eq!(
        sql,
        "INSERT INTO `sbtest`.t SELECT a AS `a` FROM `sbtest`.u"
    );
    assert_eq!(at.as_deref(), Some("SELECT a AS `a` FROM `sbtest`.u"));
    let (sql, at) = rows("INSERT IGNORE t (a, b) SELECT 1, 2 UNION SELECT 3, 4");
    assert_eq!(
        sql,
        "INSERT OR IGNORE INTO `sbtest`.t (a, b) SELECT 1 AS `1`, 2 AS `2` UNION SELECT 3, 4"
    );
    assert_eq!(
        at.as_deref(),
        Some("SELECT 1 AS `1`, 2 AS `2` UNION SELECT 3, 4")
    );
    let (sql, at) = rows("INSERT INTO t (a) SELECT a FROM u ON DUPLICATE KEY UPDATE a = a + 1");
    assert!(
        sql.contains(" WHERE true ON CONFLICT DO UPDATE SET a = "),
        "{sql}"
    );
    assert_eq!(
        at.as_deref(),
        Some("SELECT a AS `a` FROM `sbtest`.u WHERE true")
    );
    let (sql, at) = rows("REPLACE INTO t WITH w AS (SELECT 1) SELECT * FROM w");
    assert!(
        sql.starts_with("REPLACE INTO `sbtest`.t WITH w AS (SELECT 1"),
        "{sql}"
    );
    assert_eq!(at.as_deref(), sql.strip_prefix("REPLACE INTO `sbtest`.t "));
    assert_eq!(rows("INSERT INTO t VALUES (1)").1, None);
    assert_eq!(rows("INSERT INTO t SET a = 1").1, None);
}

/// `sql_lex.cc`: `'\0'` is the byte 0 in a string, which SQLite's tokenizer would read as the
/// end of the statement's text: such a string goes as its bytes, cast to text.
#[test]
fn a_string_with_a_nul_goes_as_its_bytes() {
    assert_eq!(
        sqlite("SELECT 'a\\0b', 'plain' FROM t"),
        ["SELECT (CAST(X'610062' AS TEXT)) AS `a`, 'plain' AS `plain` FROM `sbtest`.t"]
    );
    assert_eq!(
        sqlite("INSERT INTO t VALUES (1, \"\\0\")"),
        ["INSERT INTO `sbtest`.t VALUES (1, (CAST(X'00' AS TEXT)))"]
    );
}
