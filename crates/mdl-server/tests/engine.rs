//! What a DBA met by hand, driven by a real client (`mysql_async`) over loopback: a statement
//! SQLite runs for long (other sessions go on, `KILL QUERY` and `KILL` interrupt it), deep
//! statements (an error, the server stays up), database names SQLite cannot attach (refused,
//! nothing left behind; stray files in the data directory are skipped), a stopped server closes
//! its connections in both modes. Every wait is bounded (`common::bounded`: a stuck server
//! fails the test instead of hanging it).

mod common;

use std::time::{Duration, Instant};

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// A statement SQLite runs until it is interrupted (it would count to 10^12), reading
/// `table` so that it holds a metadata lock.
fn endless(table: &str) -> String {
    format!(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c \
         WHERE x < 1000000000000) SELECT COUNT(*) FROM c, {table}"
    )
}

/// Waits (at most 10 s) until connection `id` runs `sql`.
async fn wait_running(obs: &mut Conn, id: u64, sql: &str) {
    let t0 = Instant::now();
    loop {
        let rows = processlist(obs).await;
        if rows
            .iter()
            .any(|r| r.0 == id && r.3.as_deref() == Some(sql))
        {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "{id} never ran: {rows:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_statement_holds_up_no_one_and_kills_interrupt_it() {
    let mut a = conn().await;
    let mut obs = conn().await;
    a.query_drop("CREATE TABLE long_run (id INT PRIMARY KEY)")
        .await
        .unwrap();
    a.query_drop("INSERT INTO long_run VALUES (1)")
        .await
        .unwrap();
    let a_id = id(&mut a).await;
    let sql = endless("long_run");
    // The statement arrives at a server with nothing else to do (how the DBA met it: the
    // runtime's other workers were parked, and no one came to read the other sockets).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let task = {
        let sql = sql.clone();
        tokio::spawn(async move {
            let r = a.query_drop(sql).await;
            (r, a)
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    bounded("processlist", wait_running(&mut obs, a_id, &sql)).await;

    // While SQLite runs it, an open session and a new one are answered...
    let one: Option<i64> = bounded("SELECT 1", obs.query_first("SELECT 1"))
        .await
        .unwrap();
    assert_eq!(one, Some(1));
    let mut fresh = bounded("a new connection", conn()).await;
    let two: Option<i64> = bounded("SELECT 2", fresh.query_first("SELECT 2"))
        .await
        .unwrap();
    assert_eq!(two, Some(2));
    assert!(!task.is_finished(), "the statement ended by itself");
    // ... and it holds its metadata lock.
    let held = locks_of(&mut obs, a_id).await;
    assert!(
        held.iter()
            .any(|l| l.1.as_deref() == Some("long_run") && l.2 == "SHARED_READ"),
        "{held:?}"
    );

    // KILL QUERY interrupts it with 1317; the connection stays, its locks go.
    bounded("KILL QUERY", fresh.query_drop(format!("KILL QUERY {a_id}")))
        .await
        .unwrap();
    let (r, mut a) = bounded("the killed statement", task).await.unwrap();
    assert_eq!(code(r), (1317, "70100".to_string()));
    assert_eq!(locks_of(&mut obs, a_id).await, []);
    let n: Option<i64> = a
        .query_first("SELECT COUNT(*) FROM long_run")
        .await
        .unwrap();
    assert_eq!(n, Some(1));

    // An interrupted write in a transaction: SQLite rolls the transaction back, the
    // session's ends with it (its locks and the engine's writer go).
    a.query_drop("BEGIN").await.unwrap();
    a.query_drop("INSERT INTO long_run VALUES (2)")
        .await
        .unwrap();
    let write = "INSERT INTO long_run (id) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL \
                 SELECT x + 1 FROM c WHERE x < 1000000000000) SELECT COUNT(*) FROM c";
    let task = tokio::spawn(async move {
        let r = a.query_drop(write).await;
        (r, a)
    });
    bounded("processlist", wait_running(&mut obs, a_id, write)).await;
    bounded("KILL QUERY", fresh.query_drop(format!("KILL QUERY {a_id}")))
        .await
        .unwrap();
    let (r, mut a) = bounded("the killed write", task).await.unwrap();
    assert_eq!(code(r), (1317, "70100".to_string()));
    assert_eq!(locks_of(&mut obs, a_id).await, []);
    bounded(
        "a write after",
        fresh.query_drop("INSERT INTO long_run VALUES (3)"),
    )
    .await
    .unwrap();
    let ids: Vec<i64> = a
        .query("SELECT id FROM long_run ORDER BY id")
        .await
        .unwrap();
    assert_eq!(ids, [1, 3]);

    // KILL of the connection interrupts its statement and ends the connection.
    let mut b = conn().await;
    let b_id = id(&mut b).await;
    let task = {
        let sql = sql.clone();
        tokio::spawn(async move { b.query_drop(sql).await })
    };
    bounded("processlist", wait_running(&mut obs, b_id, &sql)).await;
    bounded("KILL", fresh.query_drop(format!("KILL {b_id}")))
        .await
        .unwrap();
    assert!(bounded("the killed connection", task)
        .await
        .unwrap()
        .is_err());
    bounded("the connection's end", wait_gone(&mut obs, b_id)).await;
    assert_eq!(locks_of(&mut obs, b_id).await, []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn database_names_sqlite_cannot_attach_are_refused_before_any_file() {
    let mut c = conn().await;
    let dir: String = c.query_first("SELECT @@datadir").await.unwrap().unwrap();
    for (sql, want) in [
        ("CREATE DATABASE main", 1102),
        ("CREATE DATABASE `TEMP`", 1102),
        // Names are folded (lower_case_table_names = 1): `Test` is `test`, which exists.
        ("CREATE DATABASE Test", 1007),
        ("CREATE DATABASE SYS", 1007),
        ("CREATE DATABASE performance_schema", 1007),
        ("CREATE DATABASE information_schema", 1044),
        ("DROP DATABASE performance_schema", 1044),
        ("DROP DATABASE main", 1008),
        ("DROP DATABASE TEMP", 1008),
        ("USE main", 1049),
    ] {
        let r = bounded(sql, c.query_drop(sql)).await;
        assert_eq!(code(r).0, want, "{sql}");
    }
    c.query_drop("CREATE DATABASE IF NOT EXISTS Test")
        .await
        .unwrap();
    // Nothing was left behind: no file, and every connection works (an unattachable file
    // failed every statement and every handshake).
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".sqlite"))
        .collect();
    files.sort();
    assert_eq!(files, ["test.sqlite"]);
    let one: Option<i64> = c.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1));
    let mut other = bounded("a new connection", conn()).await;
    let one: Option<i64> = other.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1));
    // A name SQLite can attach works, and goes.
    c.query_drop("CREATE DATABASE mysql").await.unwrap();
    c.query_drop("CREATE TABLE mysql.t (id INT)").await.unwrap();
    c.query_drop("DROP DATABASE mysql").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stray_files_in_the_data_directory_are_skipped_at_start() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["main", "Temp", "Test", "test", "sys"] {
        let db = rusqlite::Connection::open(dir.path().join(format!("{name}.sqlite"))).unwrap();
        db.execute_batch("CREATE TABLE t (id INTEGER)").unwrap();
    }
    std::fs::write(dir.path().join("junk.sqlite"), [7u8; 4096]).unwrap();
    let server = mdl_server::start(mdl_server::ServerConfig::for_tests(dir.path()))
        .await
        .expect("starts");
    let addr = server.local_addr();
    let url = format!("mysql://root@{}:{}/test", addr.ip(), addr.port());
    let opts = mysql_async::Opts::from_url(&url).unwrap();
    let mut c = bounded("connect", Conn::new(opts)).await.unwrap();
    let dbs: Vec<String> = c.query("SHOW DATABASES").await.unwrap();
    assert_eq!(
        dbs,
        ["information_schema", "performance_schema", "sys", "test"]
    );
    let n: Option<i64> = c.query_first("SELECT COUNT(*) FROM t").await.unwrap();
    assert_eq!(n, Some(0));
    c.disconnect().await.unwrap();
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_server_closes_its_connections_in_both_modes() {
    for mode in [mdl_server::Mode::Engine, mdl_server::Mode::Constant] {
        let (server, _dir, mut c) = own_server(mode).await;
        c.query_drop("SELECT 1").await.unwrap();
        server.stop();
        // A query that raced the stop may still be answered; the connection then closes.
        let start = Instant::now();
        while bounded("a query after the stop", c.query_drop("SELECT 1"))
            .await
            .is_ok()
        {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{mode:?}: the connection outlived the server"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// `SELECT 1 <op> 1 <op> ... 1` with `n` terms.
fn chain(n: usize, op: &str) -> String {
    let mut s = String::from("SELECT 1");
    for _ in 1..n {
        s.push_str(op);
        s.push('1');
    }
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_statements_get_an_error_and_the_server_stays_up() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE deep (id INT PRIMARY KEY)")
        .await
        .unwrap();
    // As deep as SQLite goes: a result.
    let n: Option<i64> = c.query_first(chain(1000, "+")).await.unwrap();
    assert_eq!(n, Some(1000));
    let ors = |n: usize| {
        let terms: Vec<String> = (1..=n).map(|i| format!("id = {i}")).collect();
        format!("SELECT id FROM deep WHERE {}", terms.join(" OR "))
    };
    let parens = |n: usize| format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n));
    let mut unions = String::from("SELECT 1");
    for _ in 0..2000 {
        unions.push_str(" UNION ALL SELECT 1");
    }
    let cases = [
        (chain(2_000, "+"), 1436),
        (chain(20_000, "+"), 1436),
        (chain(200_000, "+"), 1436),
        (ors(3_000), 1436),
        (ors(30_000), 1436),
        (unions, 1436),
        (format!("{} FROM", chain(3_000, "+")), 1064),
        (format!("{} FROM", chain(200_000, "+")), 1436),
        (parens(200_000), 1436),
        (parens(60), 1064),
    ];
    for (sql, want) in cases {
        let what: String = sql.chars().take(40).collect();
        let r = bounded(&what, c.query_drop(&sql)).await;
        assert_eq!(code(r).0, want, "{what}... ({} bytes)", sql.len());
        // The connection and the server stay usable.
        let one: Option<i64> = bounded("SELECT 1", c.query_first("SELECT 1"))
            .await
            .unwrap();
        assert_eq!(one, Some(1));
    }
    // A prepared statement is checked as it is prepared.
    let r = bounded("prepare", c.prep(chain(5_000, "*"))).await;
    assert_eq!(code(r).0, 1436);
    let mut other = bounded("a new connection", conn()).await;
    let one: Option<i64> = other.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1));
}

/// MySQL names a result column by the statement's spelling (a column as written, without its
/// table; an expression by its text), not by the table's definition.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_columns_are_named_as_the_statement_spells_them() {
    use mysql_async::Row;
    let mut c = conn().await;
    c.query_drop("CREATE TABLE eng_names (id INT PRIMARY KEY, Pad TEXT)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO eng_names VALUES (1, 'x')")
        .await
        .unwrap();
    let rows: Vec<Row> = c
        .query("SELECT ID, e.pad, id AS Alias, id + 1 FROM eng_names e")
        .await
        .unwrap();
    let names: Vec<String> = (rows[0].columns_ref().iter())
        .map(|col| col.name_str().into_owned())
        .collect();
    assert_eq!(names, ["ID", "pad", "Alias", "id + 1"]);
    c.query_drop("DROP TABLE eng_names").await.unwrap();
}
