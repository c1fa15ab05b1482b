//! Views through the wire: CREATE / ALTER / DROP VIEW with MySQL's answers and errors, the
//! metadata locks a statement takes on the tables it reads through a view (the pile-up behind
//! an ALTER TABLE of a table a transaction read through a view), and views that outlive the
//! server.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

async fn err(c: &mut Conn, sql: &str) -> u16 {
    code(c.query_drop(sql).await).0
}

/// The TABLE rows of `metadata_locks` of connection `id`: `(OBJECT_NAME, LOCK_TYPE,
/// LOCK_STATUS)`, by name.
async fn table_locks(obs: &mut Conn, id: u64) -> Vec<(String, String, String)> {
    (locks_of(obs, id).await.into_iter())
        .filter(|l| l.0 == "TABLE")
        .map(|l| (l.1.unwrap_or_default(), l.2, l.3))
        .collect()
}

/// Runs `sql` on `ddl` (connection `ddl_id`), which must wait for a metadata lock; then `end`
/// on `holder` lets it go. Returns the connection once `sql` succeeded.
async fn waits_until(
    mut ddl: Conn,
    ddl_id: u64,
    sql: &'static str,
    holder: &mut Conn,
    end: &str,
) -> Conn {
    let mut obs = conn().await;
    let run = tokio::spawn(async move {
        let r = ddl.query_drop(sql).await;
        (ddl, r)
    });
    wait_state(&mut obs, ddl_id, "Waiting for table metadata lock").await;
    holder.query_drop(end).await.unwrap();
    let (ddl, r) = bounded(sql, run).await.unwrap();
    r.unwrap_or_else(|e| panic!("{sql}: {e}"));
    ddl
}

fn granted(rows: &[(&str, &str)]) -> Vec<(String, String, String)> {
    (rows.iter())
        .map(|(n, t)| (n.to_string(), t.to_string(), "GRANTED".to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_answer_as_mysqls() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE vw_t (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20)); \
         INSERT INTO vw_t (name) VALUES ('a'), ('b'), ('c')",
    )
    .await
    .unwrap();
    c.query_drop("CREATE VIEW vw_v AS SELECT id, name FROM vw_t WHERE id > 1")
        .await
        .unwrap();
    let rows: Vec<(i64, String)> = c.query("SELECT * FROM vw_v ORDER BY id").await.unwrap();
    assert_eq!(rows, [(2, "b".into()), (3, "c".into())]);
    // A view of a view, with a column list and MySQL's options.
    c.query_drop(
        "CREATE ALGORITHM=MERGE DEFINER=`app`@`localhost` SQL SECURITY INVOKER VIEW vw_w (n) AS \
         SELECT COUNT(*) FROM vw_v WITH LOCAL CHECK OPTION",
    )
    .await
    .unwrap();
    let n: Option<i64> = c.query_first("SELECT n FROM vw_w").await.unwrap();
    assert_eq!(n, Some(2));
    let (name, text, cs, coll): (String, String, String, String) = c
        .query_first("SHOW CREATE VIEW vw_w")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(name, "vw_w");
    assert_eq!(
        text,
        "CREATE ALGORITHM=MERGE DEFINER=`app`@`localhost` SQL SECURITY INVOKER VIEW `vw_w` (`n`) \
         AS SELECT COUNT(*) FROM vw_v WITH LOCAL CHECK OPTION"
    );
    assert_eq!((cs.as_str(), coll.as_str()), ("utf8mb4", "utf8mb4_bin"));
    // SHOW CREATE TABLE of a view answers as SHOW CREATE VIEW; the reverse is 1347.
    let row: Option<(String, String, String, String)> =
        c.query_first("SHOW CREATE TABLE vw_v").await.unwrap();
    assert!(row
        .unwrap()
        .1
        .starts_with("CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`%`"));
    assert_eq!(err(&mut c, "SHOW CREATE VIEW vw_t").await, 1347);
    let kinds: Vec<(String, String)> = c.query("SHOW FULL TABLES LIKE 'vw\\_%'").await.unwrap();
    assert_eq!(
        kinds,
        [
            ("vw_t".into(), "BASE TABLE".into()),
            ("vw_v".into(), "VIEW".into()),
            ("vw_w".into(), "VIEW".into())
        ]
    );
    let info: Vec<(String, String, String, String)> = c
        .query(
            "SELECT TABLE_NAME, CHECK_OPTION, DEFINER, SECURITY_TYPE FROM \
             information_schema.VIEWS WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME LIKE 'vw%' \
             ORDER BY 1",
        )
        .await
        .unwrap();
    assert_eq!(
        info,
        [
            (
                "vw_v".into(),
                "NONE".into(),
                "root@%".into(),
                "DEFINER".into()
            ),
            (
                "vw_w".into(),
                "LOCAL".into(),
                "app@localhost".into(),
                "INVOKER".into()
            )
        ]
    );

    // The checks of `mysql_create_view`, `mysql_register_view` and `mysql_drop_view`.
    assert_eq!(err(&mut c, "CREATE VIEW vw_v AS SELECT 1").await, 1050);
    assert_eq!(err(&mut c, "CREATE VIEW vw_t AS SELECT 1").await, 1050);
    assert_eq!(
        err(&mut c, "CREATE OR REPLACE VIEW vw_t AS SELECT 1").await,
        1347
    );
    assert_eq!(err(&mut c, "ALTER VIEW vw_none AS SELECT 1").await, 1146);
    assert_eq!(err(&mut c, "CREATE VIEW vw_x AS SELECT @a").await, 1351);
    assert_eq!(
        err(&mut c, "CREATE VIEW vw_x AS SELECT nope FROM vw_t").await,
        1054
    );
    assert_eq!(
        err(&mut c, "CREATE VIEW vw_x AS SELECT 1 a, 2 A").await,
        1060
    );
    assert_eq!(
        err(&mut c, "CREATE VIEW vw_x (a, b) AS SELECT 1").await,
        1353
    );
    assert_eq!(err(&mut c, "DROP VIEW vw_t").await, 1347);
    assert_eq!(err(&mut c, "DROP TABLE vw_v").await, 1051);
    assert_eq!(err(&mut c, "DROP VIEW vw_v, vw_none").await, 1051);
    assert_eq!(err(&mut c, "INSERT INTO vw_v VALUES (9, 'z')").await, 1471);
    assert_eq!(err(&mut c, "UPDATE vw_v SET name = 'z'").await, 1288);
    assert_eq!(err(&mut c, "DELETE FROM vw_v").await, 1288);
    // What this server cannot keep in a view: the session's values, another schema's tables.
    assert_eq!(
        err(&mut c, "CREATE VIEW vw_x AS SELECT CONNECTION_ID()").await,
        1235
    );
    c.query_drop("CREATE DATABASE vw_other").await.unwrap();
    c.query_drop("CREATE TABLE vw_other.t (a INT)")
        .await
        .unwrap();
    assert_eq!(
        err(&mut c, "CREATE VIEW vw_x AS SELECT * FROM vw_other.t").await,
        1235
    );
    // Nothing of the failed statements was made, and the transaction-less locks are gone.
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_NAME = 'vw_x'")
        .await
        .unwrap();
    assert_eq!(n, Some(0));
    let me = id(&mut c).await;
    assert!(locks_of(&mut c, me).await.is_empty());

    // ALTER VIEW keeps what it does not say; OR REPLACE starts over.
    c.query_drop("ALTER VIEW vw_w AS SELECT 7 AS n")
        .await
        .unwrap();
    let (_, text, _, _): (String, String, String, String) = c
        .query_first("SHOW CREATE VIEW vw_w")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        text,
        "CREATE ALGORITHM=MERGE DEFINER=`app`@`localhost` SQL SECURITY INVOKER VIEW `vw_w` AS \
         SELECT 7 AS n"
    );
    // DROP TABLE IF EXISTS leaves a view alone, as MySQL's (dump files drop every name so).
    c.query_drop("DROP TABLE IF EXISTS vw_v, vw_none")
        .await
        .unwrap();
    c.query_drop("DROP VIEW vw_v, vw_w").await.unwrap();
    c.query_drop("DROP VIEW IF EXISTS vw_v, vw_w")
        .await
        .unwrap();
    assert_eq!(err(&mut c, "SELECT * FROM vw_v").await, 1146);
    c.query_drop("DROP TABLE vw_t").await.unwrap();
    // DROP DATABASE takes its views with it (X on each, as `mysql_rm_db`).
    c.query_drop("CREATE VIEW vw_other.v AS SELECT a FROM vw_other.t")
        .await
        .unwrap();
    c.query_drop("DROP DATABASE vw_other").await.unwrap();
    let n: Option<i64> = c
        .query_first(
            "SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'vw_other'",
        )
        .await
        .unwrap();
    assert_eq!(n, Some(0));
}

/// A view turns invalid when a table it reads goes (1356, as MySQL's) and valid again when it
/// comes back; DDL of a table on a view's name is refused as MySQL refuses it; an invalid view
/// stops no DDL of other tables.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_follow_their_tables() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE vf_t (a INT, b INT); INSERT INTO vf_t VALUES (1, 2); \
         CREATE TABLE vf_u (x INT, y INT); \
         CREATE VIEW vf_v AS SELECT a FROM vf_t; CREATE VIEW vf_w AS SELECT a FROM vf_v",
    )
    .await
    .unwrap();
    let sum = "SELECT a FROM vf_w";
    c.query_drop("DROP TABLE vf_t").await.unwrap();
    assert_eq!(err(&mut c, "SELECT * FROM vf_v").await, 1356);
    assert_eq!(err(&mut c, sum).await, 1356);
    // Other tables' DDL goes on (SQLite alone would refuse it: "error in view").
    c.query_drop("ALTER TABLE vf_u RENAME COLUMN y TO z; ALTER TABLE vf_u DROP COLUMN z")
        .await
        .unwrap();
    c.query_drop("ALTER TABLE vf_u MODIFY x BIGINT")
        .await
        .unwrap();
    c.query_drop("CREATE TABLE vf_t (a INT); INSERT INTO vf_t VALUES (7)")
        .await
        .unwrap();
    let a: Option<i64> = c.query_first(sum).await.unwrap();
    assert_eq!(a, Some(7));
    // A RENAME leaves the view naming the old name, as MySQL's.
    c.query_drop("RENAME TABLE vf_t TO vf_t2").await.unwrap();
    assert_eq!(err(&mut c, sum).await, 1356);
    c.query_drop("RENAME TABLE vf_t2 TO vf_t").await.unwrap();
    let a: Option<i64> = c.query_first(sum).await.unwrap();
    assert_eq!(a, Some(7));
    for (sql, code) in [
        ("ALTER TABLE vf_v ADD COLUMN c INT", 1347),
        ("CREATE INDEX k ON vf_v (a)", 1347),
        ("TRUNCATE TABLE vf_v", 1146),
        ("CREATE TABLE vf_v (a INT)", 1050),
    ] {
        assert_eq!(err(&mut c, sql).await, code, "{sql}");
    }
    c.query_drop("CREATE TABLE IF NOT EXISTS vf_v (a INT)")
        .await
        .unwrap();
    // A view renames as MySQL's: a view that read the old name turns invalid.
    c.query_drop("RENAME TABLE vf_v TO vf_v2, vf_u TO vf_u2")
        .await
        .unwrap();
    let a: Option<i64> = c.query_first("SELECT a FROM vf_v2").await.unwrap();
    assert_eq!(a, Some(7));
    assert_eq!(err(&mut c, sum).await, 1356);
    let (_, text, _, _): (String, String, String, String) = c
        .query_first("SHOW CREATE VIEW vf_v2")
        .await
        .unwrap()
        .unwrap();
    assert!(
        text.contains("VIEW `vf_v2` AS SELECT a FROM vf_t"),
        "{text}"
    );
    c.query_drop("RENAME TABLE vf_v2 TO vf_v, vf_u2 TO vf_u")
        .await
        .unwrap();
    let a: Option<i64> = c.query_first(sum).await.unwrap();
    assert_eq!(a, Some(7));
    c.query_drop("DROP VIEW vf_w, vf_v; DROP TABLE vf_t, vf_u")
        .await
        .unwrap();
}

/// A transaction that read a table through a view holds SR on the view and on the table until
/// it ends: an ALTER TABLE of the table waits for it, as in MySQL, and so does a DROP VIEW.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transaction_that_read_a_view_holds_its_tables() {
    let mut reader = conn().await;
    let mut ddl = conn().await;
    let mut obs = conn().await;
    reader
        .query_drop(
            "CREATE TABLE vl_t (id INT PRIMARY KEY, v INT); INSERT INTO vl_t VALUES (1, 1); \
             CREATE VIEW vl_inner AS SELECT id, v FROM vl_t; \
             CREATE VIEW vl_outer AS SELECT v FROM vl_inner",
        )
        .await
        .unwrap();
    let reader_id = id(&mut reader).await;
    reader.query_drop("BEGIN").await.unwrap();
    let v: Option<i64> = reader.query_first("SELECT v FROM vl_outer").await.unwrap();
    assert_eq!(v, Some(1));
    assert_eq!(
        table_locks(&mut obs, reader_id).await,
        granted(&[
            ("vl_inner", "SHARED_READ"),
            ("vl_outer", "SHARED_READ"),
            ("vl_t", "SHARED_READ")
        ])
    );

    let ddl_id = id(&mut ddl).await;
    let alter = "ALTER TABLE vl_t ADD COLUMN w INT";
    let ddl = waits_until(ddl, ddl_id, alter, &mut reader, "COMMIT").await;

    // DROP VIEW waits for a reader of the view too.
    reader.query_drop("BEGIN").await.unwrap();
    reader.query_drop("SELECT * FROM vl_outer").await.unwrap();
    let drop = "DROP VIEW vl_outer";
    let mut ddl = waits_until(ddl, ddl_id, drop, &mut reader, "ROLLBACK").await;
    ddl.query_drop("DROP VIEW vl_inner; DROP TABLE vl_t")
        .await
        .unwrap();
}

/// LOCK TABLES of a view locks the tables it reads; a view DDL is 1192 under LOCK TABLES.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_tables_of_a_view() {
    let mut c = conn().await;
    let mut obs = conn().await;
    c.query_drop(
        "CREATE TABLE vk_t (id INT); INSERT INTO vk_t VALUES (5); \
         CREATE VIEW vk_v AS SELECT id FROM vk_t",
    )
    .await
    .unwrap();
    let me = id(&mut c).await;
    c.query_drop("LOCK TABLES vk_v READ").await.unwrap();
    let n: Option<i64> = c.query_first("SELECT id FROM vk_v").await.unwrap();
    assert_eq!(n, Some(5));
    assert_eq!(
        table_locks(&mut obs, me).await,
        granted(&[("vk_t", "SHARED_READ_ONLY"), ("vk_v", "SHARED_READ_ONLY")])
    );
    assert_eq!(err(&mut c, "CREATE VIEW vk_w AS SELECT 1").await, 1192);
    assert_eq!(err(&mut c, "DROP VIEW vk_v").await, 1192);
    c.query_drop("UNLOCK TABLES").await.unwrap();
    c.query_drop("DROP VIEW vk_v; DROP TABLE vk_t")
        .await
        .unwrap();
}

/// Views are in the schema files: a server started again on the same directory has them, with
/// their definitions and their locks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_outlive_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let connect = |addr: std::net::SocketAddr| {
        let url = format!("mysql://root@{}:{}/test", addr.ip(), addr.port());
        Conn::new(mysql_async::Opts::from_url(&url).unwrap())
    };
    let server = mdl_server::start(mdl_server::ServerConfig::for_tests(dir.path()))
        .await
        .unwrap();
    let mut c = bounded("connect", connect(server.local_addr()))
        .await
        .unwrap();
    c.query_drop(
        "CREATE TABLE t (a INT); INSERT INTO t VALUES (1), (2); \
         CREATE VIEW v (total) AS SELECT SUM(a) FROM t WITH CHECK OPTION",
    )
    .await
    .unwrap();
    c.disconnect().await.unwrap();
    server.stop();

    let server = mdl_server::start(mdl_server::ServerConfig::for_tests(dir.path()))
        .await
        .unwrap();
    let mut c = bounded("connect", connect(server.local_addr()))
        .await
        .unwrap();
    let total: Option<i64> = c.query_first("SELECT total FROM v").await.unwrap();
    assert_eq!(total, Some(3));
    let (_, text, _, _): (String, String, String, String) =
        c.query_first("SHOW CREATE VIEW v").await.unwrap().unwrap();
    assert!(text.ends_with("VIEW `v` (`total`) AS SELECT SUM(a) FROM t WITH CASCADED CHECK OPTION"));
    // The view's table is known again: a reader of the view holds it.
    let me = id(&mut c).await;
    c.query_drop("BEGIN").await.unwrap();
    c.query_drop("SELECT * FROM v").await.unwrap();
    let mut obs = bounded("connect", connect(server.local_addr()))
        .await
        .unwrap();
    assert_eq!(
        table_locks(&mut obs, me).await,
        granted(&[("t", "SHARED_READ"), ("v", "SHARED_READ")])
    );
    c.query_drop("COMMIT").await.unwrap();
    c.disconnect().await.unwrap();
    obs.disconnect().await.unwrap();
    server.stop();
}

/// A statement planned over a view's old definition that gets its locks after a CREATE OR
/// REPLACE VIEW changed it gives them back and takes those of the new definition, as MySQL's
/// reads the view's definition once it holds the view's lock: it reads the new table, never one
/// it holds no lock on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_view_changed_while_a_statement_waits() {
    let mut holder = conn().await;
    let mut ddl = conn().await;
    let mut reader = conn().await;
    let mut obs = conn().await;
    holder
        .query_drop(
            "CREATE TABLE vc_a (x INT); INSERT INTO vc_a VALUES (1); \
             CREATE TABLE vc_b (x INT); INSERT INTO vc_b VALUES (2); \
             CREATE VIEW vc_v AS SELECT x FROM vc_a",
        )
        .await
        .unwrap();
    // The holder reads the view; the CREATE OR REPLACE waits for it; the reader queues behind
    // the pending EXCLUSIVE, its plan made over the old definition.
    holder.query_drop("BEGIN").await.unwrap();
    holder.query_drop("SELECT * FROM vc_v").await.unwrap();
    let ddl_id = id(&mut ddl).await;
    let replace = tokio::spawn(async move {
        let r = ddl
            .query_drop("CREATE OR REPLACE VIEW vc_v AS SELECT x FROM vc_b")
            .await;
        (ddl, r)
    });
    wait_state(&mut obs, ddl_id, "Waiting for table metadata lock").await;
    let reader_id = id(&mut reader).await;
    let read = tokio::spawn(async move {
        let r: Result<Option<i64>, _> = reader.query_first("SELECT x FROM vc_v").await;
        (reader, r)
    });
    wait_state(&mut obs, reader_id, "Waiting for table metadata lock").await;
    holder.query_drop("COMMIT").await.unwrap();
    let (_ddl, r) = bounded("the CREATE OR REPLACE", replace).await.unwrap();
    r.unwrap();
    let (mut reader, r) = bounded("the read", read).await.unwrap();
    assert_eq!(r.unwrap(), Some(2));
    assert!(locks_of(&mut obs, reader_id).await.is_empty());
    // In a transaction it holds the new definition's table, not the old one's.
    reader.query_drop("BEGIN").await.unwrap();
    reader.query_drop("SELECT x FROM vc_v").await.unwrap();
    assert_eq!(
        table_locks(&mut obs, reader_id).await,
        granted(&[("vc_b", "SHARED_READ"), ("vc_v", "SHARED_READ")])
    );
    reader.query_drop("COMMIT").await.unwrap();
    reader
        .query_drop("DROP VIEW vc_v; DROP TABLE vc_a, vc_b")
        .await
        .unwrap();
}
