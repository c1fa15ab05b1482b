//! Valid MySQL 8.0 statements this server cannot run answer `ER_NOT_SUPPORTED_YET` (1235,
//! 42000) naming the feature, not a syntax error (1064), which stays for text that is not
//! MySQL; either way the statement takes nothing with it, and the connection goes on. And
//! `DESCRIBE SELECT`, valid MySQL that was such a 1064, explains.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// The error of `sql` on `c`: code, SQLSTATE and message.
async fn error(c: &mut Conn, sql: &str) -> (u16, String, String) {
    match c.query_drop(sql).await {
        Err(mysql_async::Error::Server(e)) => (e.code, e.state, e.message),
        other => panic!("{sql}: expected a server error, got {other:?}"),
    }
}

fn not_supported(what: &str) -> String {
    format!("This version of MySQL doesn't yet support '{what}'")
}

/// A few statements of each class, refused by `mdl-sql`'s parser (its table of classes), by
/// its planner, or by the server after parsing (`src/unsupported.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_class_answers_1235_and_leaves_nothing_behind() {
    let mut c = conn().await;
    let mut obs = conn().await;
    let me = id(&mut c).await;
    c.query_drop("CREATE TABLE un_t (a INT PRIMARY KEY, b VARCHAR(10))")
        .await
        .unwrap();
    let cases = [
        // Stored programs.
        (
            "CREATE TRIGGER un_tr BEFORE INSERT ON un_t FOR EACH ROW SET NEW.b = 'z'",
            "CREATE TRIGGER",
        ),
        (
            "CREATE DEFINER = CURRENT_USER TRIGGER un_tr AFTER DELETE ON un_t FOR EACH ROW SET @x = 1",
            "CREATE TRIGGER",
        ),
        ("DROP TRIGGER IF EXISTS un_tr", "DROP TRIGGER"),
        ("CREATE PROCEDURE un_p() SELECT 1", "stored procedures"),
        ("CALL un_p()", "stored procedures"),
        ("DROP PROCEDURE IF EXISTS un_p", "stored procedures"),
        (
            "CREATE FUNCTION un_f() RETURNS INT DETERMINISTIC RETURN 1",
            "CREATE FUNCTION",
        ),
        ("DROP FUNCTION un_f", "DROP FUNCTION"),
        (
            "CREATE EVENT un_e ON SCHEDULE EVERY 1 HOUR DO DELETE FROM un_t",
            "CREATE EVENT",
        ),
        ("DROP EVENT IF EXISTS un_e", "DROP EVENT"),
        // XA and HANDLER.
        ("XA START 'un_x'", "XA transactions"),
        ("XA RECOVER", "XA transactions"),
        ("HANDLER un_t OPEN", "HANDLER"),
        ("HANDLER un_t READ FIRST", "HANDLER"),
        // Files of the server's host.
        (
            "SELECT * FROM un_t INTO OUTFILE '/tmp/un_x.csv'",
            "SELECT ... INTO OUTFILE",
        ),
        (
            "SELECT b FROM un_t INTO DUMPFILE '/tmp/un_x.bin'",
            "SELECT ... INTO DUMPFILE",
        ),
        ("CLONE LOCAL DATA DIRECTORY = '/tmp/un_c'", "CLONE"),
        // Accounts (this server has none).
        ("CREATE USER 'un_u'@'%' IDENTIFIED BY 'p'", "CREATE USER"),
        ("GRANT SELECT ON test.* TO un_u", "GRANT"),
        ("REVOKE ALL PRIVILEGES, GRANT OPTION FROM un_u", "REVOKE"),
        ("SET PASSWORD = 'x'", "SET PASSWORD"),
        ("SHOW CREATE USER root", "SHOW CREATE USER"),
        // The server, storage, replication.
        ("INSTALL PLUGIN un_p SONAME 'un_p.so'", "INSTALL PLUGIN"),
        ("SHUTDOWN", "SHUTDOWN"),
        ("CREATE TABLESPACE un_ts ADD DATAFILE 'un_ts.ibd'", "CREATE TABLESPACE"),
        ("CACHE INDEX un_t IN hot", "CACHE INDEX"),
        ("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'", "CHANGE REPLICATION SOURCE"),
        ("START REPLICA", "START REPLICA"),
        ("PURGE BINARY LOGS BEFORE NOW()", "PURGE BINARY LOGS"),
        // What SQLite cannot run.
        ("EXPLAIN ANALYZE SELECT * FROM un_t", "EXPLAIN ANALYZE"),
        ("EXPLAIN FORMAT=TREE SELECT * FROM un_t", "EXPLAIN FORMAT=TREE"),
        ("EXPLAIN FORMAT=JSON SELECT * FROM un_t", "EXPLAIN FORMAT=JSON"),
    ];
    for (sql, what) in cases {
        assert_eq!(
            error(&mut c, sql).await,
            (1235, "42000".into(), not_supported(what)),
            "{sql}"
        );
        assert_eq!(
            locks_of(&mut obs, me).await,
            vec![],
            "no lock left by {sql}"
        );
        let one: Option<i64> = c.query_first("SELECT 1").await.unwrap();
        assert_eq!(one, Some(1), "the connection goes on after {sql}");
    }
    // Text that is not MySQL, or a class's keywords without what must follow: still 1064.
    for sql in [
        "SELEC 1",
        "XA",
        "HANDLER un_t",
        "CREATE PROCEDURE",
        "this is not sql",
    ] {
        let (code, state, _) = error(&mut c, sql).await;
        assert_eq!((code, state.as_str()), (1064, "42000"), "{sql}");
        assert_eq!(
            locks_of(&mut obs, me).await,
            vec![],
            "no lock left by {sql}"
        );
    }
    c.query_drop("DROP TABLE un_t").await.unwrap();
}

/// A refused statement inside a transaction fails alone: no implicit commit, the
/// transaction's locks stay until its COMMIT; refused as a prepared statement, and as one of
/// several statements, it ends what follows as any error does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_statement_keeps_the_transaction_and_the_connection() {
    let mut c = conn().await;
    let mut obs = conn().await;
    let me = id(&mut c).await;
    c.query_drop("CREATE TABLE un_trx (a INT)").await.unwrap();
    c.query_drop("BEGIN").await.unwrap();
    c.query_drop("INSERT INTO un_trx VALUES (1)").await.unwrap();
    let held = locks_of(&mut obs, me).await;
    assert!(!held.is_empty());
    for sql in [
        "XA END 'un_x'",
        "CREATE TRIGGER un_tr2 BEFORE INSERT ON un_trx FOR EACH ROW SET @a = 1",
    ] {
        assert_eq!(error(&mut c, sql).await.0, 1235, "{sql}");
        assert_eq!(locks_of(&mut obs, me).await, held, "{sql}");
    }
    c.query_drop("ROLLBACK").await.unwrap();
    let n: Option<i64> = c.query_first("SELECT COUNT(*) FROM un_trx").await.unwrap();
    assert_eq!(n, Some(0), "the refusals committed nothing");
    assert_eq!(locks_of(&mut obs, me).await, vec![]);

    match c.prep("HANDLER un_trx OPEN").await {
        Err(mysql_async::Error::Server(e)) => assert_eq!(e.code, 1235),
        other => panic!("prepared HANDLER: {other:?}"),
    }
    // Several statements (mysql_async sets CLIENT_MULTI_STATEMENTS): the first runs, the
    // refused one ends the text.
    let (code, _, message) = error(
        &mut c,
        "INSERT INTO un_trx VALUES (2); XA START 'un_y'; INSERT INTO un_trx VALUES (3)",
    )
    .await;
    assert_eq!((code, message), (1235, not_supported("XA transactions")));
    let rows: Vec<i64> = c.query("SELECT a FROM un_trx ORDER BY a").await.unwrap();
    assert_eq!(rows, [2]);
    assert_eq!(locks_of(&mut obs, me).await, vec![]);
    c.query_drop("DROP TABLE un_trx").await.unwrap();
}

/// `DESCRIBE` and `DESC` are `EXPLAIN` (MySQL's `describe_command`): answered, not the
/// engine's syntax error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explains_synonyms_explain() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE un_ex (a INT PRIMARY KEY)")
        .await
        .unwrap();
    for sql in [
        "EXPLAIN SELECT * FROM un_ex WHERE a = 1",
        "DESCRIBE SELECT * FROM un_ex WHERE a = 1",
        "DESC SELECT * FROM un_ex WHERE a = 1",
    ] {
        let rows: Vec<mysql_async::Row> =
            c.query(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(rows.len(), 1, "{sql}");
        let (table, ty): (Option<String>, Option<String>) =
            (rows[0].get(2).unwrap(), rows[0].get(4).unwrap());
        assert_eq!(
            (table.as_deref(), ty.as_deref()),
            (Some("un_ex"), Some("const")),
            "{sql}"
        );
    }
    c.query_drop("DROP TABLE un_ex").await.unwrap();
}
