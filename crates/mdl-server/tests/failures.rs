//! Statements that fail as MySQL's fail, and take nothing with them: a GET_LOCK in a statement
//! whose table does not exist, a CREATE TABLE of a table in use, a LOCK TABLES of a table that
//! does not exist.

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_lock_in_a_failed_statement_takes_nothing() {
    let mut c = conn().await;
    let err = c
        .query_drop("SELECT GET_LOCK('fl_a', 0) FROM fl_nosuch")
        .await;
    assert_eq!(code(err).0, 1146);
    let used: Option<u64> = c
        .query_first("SELECT IS_USED_LOCK('fl_a')")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(used, None, "the failed statement kept the user lock");
    // Held before: the failed statement's reference is given back, the earlier one stays.
    let got: i64 = c
        .query_first("SELECT GET_LOCK('fl_a', 0)")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, 1);
    let err = c
        .query_drop("SELECT GET_LOCK('fl_a', 0), no_column FROM mysql_nosuch")
        .await;
    assert!(code(err).0 == 1146);
    let released: i64 = c
        .query_first("SELECT RELEASE_ALL_LOCKS()")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(released, 1, "one reference, not two");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_table_of_a_table_in_use_fails_at_once() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE fl_t (x INT)").await.unwrap();
    let mut trx = conn().await;
    trx.query_drop("BEGIN").await.unwrap();
    trx.query_drop("SELECT * FROM fl_t").await.unwrap();
    // MySQL decides under a shared lock that the table exists: no wait for the exclusive
    // one behind the transaction (lock_wait_timeout is a year by default).
    let (n, state) = code(c.query_drop("CREATE TABLE fl_t (y INT)").await);
    assert_eq!((n, state.as_str()), (1050, "42S01"));
    c.query_drop("CREATE TABLE IF NOT EXISTS fl_t (y INT)")
        .await
        .unwrap();
    assert_eq!(
        code(c.query_drop("CREATE TABLE fl_nodb.t (y INT)").await).0,
        1049
    );
    trx.query_drop("COMMIT").await.unwrap();
    c.query_drop("DROP TABLE fl_t").await.unwrap();
    // A table of no column (`mysql_prepare_create_table`), as SQLite cannot write one.
    for sql in ["CREATE TABLE fl_empty", "CREATE TEMPORARY TABLE fl_empty"] {
        assert_eq!(
            code(c.query_drop(sql).await),
            (1113, "42000".into()),
            "{sql}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_tables_of_a_missing_table_fails_and_locks_nothing() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE fl_u (x INT)").await.unwrap();
    let me = id(&mut c).await;
    for stmt in [
        "LOCK TABLES fl_nosuch READ",
        "LOCK TABLES fl_u READ, fl_nosuch WRITE",
        "LOCK TABLES fl_nodb.x WRITE",
    ] {
        assert_eq!(code(c.query_drop(stmt).await).0, 1146, "{stmt}");
        let mut obs = conn().await;
        assert_eq!(locks_of(&mut obs, me).await, vec![], "{stmt}");
        // Not in LOCK TABLES mode: another table can be read (1100 otherwise).
        c.query_drop("SELECT * FROM fl_u").await.unwrap();
    }
    c.query_drop("DROP TABLE fl_u").await.unwrap();
}

/// SQLite's DROP INDEX names no table, so a missing table was reported as a missing key (1091);
/// MySQL opens the table first: 1146.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_key_of_a_missing_table_is_1146() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE fl_k (x INT, KEY kx (x))")
        .await
        .unwrap();
    for (stmt, want) in [
        ("ALTER TABLE fl_nosuch_k DROP INDEX kx", 1146),
        ("DROP INDEX kx ON fl_nosuch_k", 1146),
        ("ALTER TABLE fl_k DROP INDEX nokey", 1091),
        ("DROP INDEX nokey ON fl_k", 1091),
    ] {
        assert_eq!(code(c.query_drop(stmt).await).0, want, "{stmt}");
    }
    c.query_drop("DROP INDEX kx ON fl_k").await.unwrap();
    c.query_drop("DROP TABLE fl_k").await.unwrap();
}

/// Faults SQLite words its own way, in MySQL's codes: a `?` outside a statement to prepare
/// (MySQL's lexer reads one only when preparing), `SELECT *` without a table, an INSERT of a
/// column the table lacks, a RENAME onto an existing table, a schema-qualified call of a
/// function that no schema has, a row where a value belongs, a foreign key over a column its
/// table lacks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_faults_have_mysql_codes() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE fl_r1 (x INT)").await.unwrap();
    c.query_drop("CREATE TABLE fl_r2 (x INT)").await.unwrap();
    for (stmt, want) in [
        ("SELECT ?", (1064, "42000")),
        ("SELECT x FROM fl_r1 WHERE x = ?", (1064, "42000")),
        ("SELECT ?1", (1064, "42000")),
        ("SELECT *", (1096, "HY000")),
        ("INSERT INTO fl_r1 (fl_nope) VALUES (1)", (1054, "42S22")),
        ("RENAME TABLE fl_r1 TO fl_r2", (1050, "42S01")),
        ("SELECT sys.fl_nosuch(1)", (1305, "42000")),
        ("SELECT test.fl_nosuch()", (1305, "42000")),
        // A row where one value belongs: `ER_OPERAND_COLUMNS`.
        ("SELECT (1, 2)", (1241, "21000")),
        ("SELECT 1 IN (SELECT 1, 2)", (1241, "21000")),
        (
            "SELECT * FROM fl_r1 JOIN fl_r2 USING (fl_nope)",
            (1054, "42S22"),
        ),
        (
            "CREATE TABLE fl_bad (x @@lock_wait_timeout)",
            (1064, "42000"),
        ),
        // A foreign key over a column the table lacks: `ER_KEY_COLUMN_DOES_NOT_EXITS`.
        (
            "ALTER TABLE fl_r1 ADD FOREIGN KEY (fl_nope) REFERENCES fl_r1 (x)",
            (1072, "42000"),
        ),
    ] {
        let (n, state) = code(c.query_drop(stmt).await);
        assert_eq!((n, state.as_str()), want, "{stmt}");
    }
    // Text to prepare has its markers, by either protocol.
    let v: Option<i64> = c.exec_first("SELECT ? + 1", (41,)).await.unwrap();
    assert_eq!(v, Some(42));
    c.query_drop("PREPARE fl_s FROM 'SELECT ? + 1'")
        .await
        .unwrap();
    c.query_drop("SET @fl_a = 1").await.unwrap();
    let v: Option<i64> = c.query_first("EXECUTE fl_s USING @fl_a").await.unwrap();
    assert_eq!(v, Some(2));
    c.query_drop("DROP TABLE fl_r1, fl_r2").await.unwrap();
}

/// A string with a NUL byte (`'a\0b'`, which `mariadb-dump` writes for one) is stored, compared
/// and read back with its three bytes, in a value, a user variable and a column's default.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strings_keep_a_nul_byte() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE fl_nul (v VARCHAR(10), w VARCHAR(5) DEFAULT 'q\\0r')")
        .await
        .unwrap();
    c.query_drop("INSERT INTO fl_nul (v) VALUES ('x\\0y')")
        .await
        .unwrap();
    let row: Option<(String, i64, String)> = c
        .query_first("SELECT HEX(v), OCTET_LENGTH(v), HEX(w) FROM fl_nul WHERE v = 'x\\0y'")
        .await
        .unwrap();
    assert_eq!(row, Some(("780079".into(), 3, "710072".into())));
    c.query_drop("SET @fl_u = 'm\\0n'").await.unwrap();
    let u: Option<String> = c.query_first("SELECT HEX(@fl_u)").await.unwrap();
    assert_eq!(u.as_deref(), Some("6D006E"));
    let shown: Option<(String, String)> = c.query_first("SHOW CREATE TABLE fl_nul").await.unwrap();
    let create = shown.unwrap().1;
    assert!(create.contains("DEFAULT 'q\\0r'"), "{create}");
    c.query_drop("DROP TABLE fl_nul").await.unwrap();
}

/// An unnamed foreign key is named in an error as it would have been: `<table>_ibfk_<n>`,
/// numbered from 1 in a CREATE TABLE and on from the table's own keys in an ALTER TABLE.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unnamed_key_is_named_in_its_error() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE fl_fp (id INT PRIMARY KEY, x INT)")
        .await
        .unwrap();
    let message = |r: Result<(), mysql_async::Error>| match r {
        Err(mysql_async::Error::Server(e)) => (e.code, e.message),
        other => panic!("expected a server error, got {other:?}"),
    };
    let create = "CREATE TABLE fl_fc (id INT, pid INT, FOREIGN KEY (pid) REFERENCES fl_fp (x))";
    let (n, m) = message(c.query_drop(create).await);
    assert_eq!(n, 1822);
    assert!(m.contains("'fl_fc_ibfk_1'"), "{m}");
    c.query_drop("CREATE TABLE fl_fc (id INT, pid INT, FOREIGN KEY (pid) REFERENCES fl_fp (id))")
        .await
        .unwrap();
    let (n, m) = message(
        c.query_drop("ALTER TABLE fl_fc ADD FOREIGN KEY (pid) REFERENCES fl_fp (x)")
            .await,
    );
    assert_eq!(n, 1822);
    assert!(m.contains("'fl_fc_ibfk_2'"), "{m}");
    c.query_drop("DROP TABLE fl_fc, fl_fp").await.unwrap();
}
