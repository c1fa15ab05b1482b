//! `performance_schema.prepared_statements_instances`: a DBA on connection A sees connection
//! B's live prepared statements, from the binary protocol (`mysql_async`'s `prep` / `exec`,
//! sysbench's default mode) and from SQL `PREPARE` / `EXECUTE`, with their executions counted;
//! a row goes at `COM_STMT_CLOSE`, `DEALLOCATE PREPARE` and B's disconnect, and `TRUNCATE
//! TABLE` resets the counts, as with MySQL 8.0.

mod common;

use std::time::{Duration, Instant};

use common::clients::{run, tools_or_skip};
use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// A row as the tests read it: `STATEMENT_ID`, `STATEMENT_NAME`, `SQL_TEXT`,
/// `COUNT_EXECUTE`, `SUM_ROWS_SENT`, `SUM_ERRORS`.
type Instance = (u64, Option<String>, String, u64, u64, u64);

/// Connection `id`'s pfs `THREAD_ID`, as `threads` shows it.
async fn thread_of(c: &mut Conn, id: u64) -> u64 {
    c.query_first(format!(
        "SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = {id}"
    ))
    .await
    .unwrap()
    .expect("a thread")
}

/// The prepared statements of pfs thread `thread`, by `STATEMENT_ID`, as `c` reads them.
async fn instances(c: &mut Conn, thread: u64) -> Vec<Instance> {
    c.query(format!(
        "SELECT STATEMENT_ID, STATEMENT_NAME, SQL_TEXT, COUNT_EXECUTE, SUM_ROWS_SENT, SUM_ERRORS \
         FROM performance_schema.prepared_statements_instances \
         WHERE OWNER_THREAD_ID = {thread} ORDER BY STATEMENT_ID"
    ))
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_protocol_statements_have_rows_until_closed() {
    let (mut a, mut b) = (conn().await, conn().await);
    let tid = thread_of(&mut a, id(&mut b).await).await;
    fresh(&mut b, "pfs_prep_bin", "id INT PRIMARY KEY, c TEXT").await;
    b.query_drop("INSERT INTO pfs_prep_bin VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        .await
        .unwrap();
    let text = "SELECT c FROM pfs_prep_bin WHERE id = ?";
    let stmt = b.prep(text).await.unwrap();
    assert_eq!(
        instances(&mut a, tid).await,
        [(stmt.id().into(), None, text.into(), 0, 0, 0)]
    );
    for id in [1, 2, 7] {
        let _: Vec<String> = b.exec(&stmt, (id,)).await.unwrap();
    }
    // Three executions, two rows sent; timed, and the owner is B's thread, with an event id.
    assert_eq!(
        instances(&mut a, tid).await,
        [(stmt.id().into(), None, text.into(), 3, 2, 0)]
    );
    let (timed, event, object): (u64, u64, Option<String>) = a
        .query_first(format!(
            "SELECT SUM_TIMER_EXECUTE > 0 AND MIN_TIMER_EXECUTE <= AVG_TIMER_EXECUTE \
               AND AVG_TIMER_EXECUTE <= MAX_TIMER_EXECUTE, OWNER_EVENT_ID, OWNER_OBJECT_TYPE \
             FROM performance_schema.prepared_statements_instances WHERE OWNER_THREAD_ID = {tid}"
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((timed, object), (1, None));
    assert!(event > 0);

    // TRUNCATE resets the statistics and keeps the row; executions count again from 0.
    a.query_drop("TRUNCATE TABLE performance_schema.prepared_statements_instances")
        .await
        .unwrap();
    assert_eq!(instances(&mut a, tid).await[0].3, 0);
    let _: Vec<String> = b.exec(&stmt, (3,)).await.unwrap();
    let row = &instances(&mut a, tid).await[0];
    assert_eq!((row.3, row.4), (1, 1));

    // A failed execution counts as one, with its error.
    fresh(&mut b, "pfs_prep_bin2", "id INT PRIMARY KEY").await;
    let insert = b
        .prep("INSERT INTO pfs_prep_bin2 VALUES (?)")
        .await
        .unwrap();
    b.exec_drop(&insert, (1,)).await.unwrap();
    assert!(b.exec_drop(&insert, (1,)).await.is_err());
    let rows = instances(&mut a, tid).await;
    assert_eq!(rows[1].2, "INSERT INTO pfs_prep_bin2 VALUES (?)");
    assert_eq!((rows[1].3, rows[1].5), (2, 1));

    // COM_STMT_CLOSE takes the row away (it has no reply: a ping after it is answered once
    // the server has done it).
    b.close(stmt).await.unwrap();
    b.close(insert).await.unwrap();
    b.ping().await.unwrap();
    assert_eq!(instances(&mut a, tid).await, []);
}

/// `COM_STMT_PREPARE` and `COM_STMT_CLOSE` are statement events of their commands' classes, as
/// `dispatch_command` makes them: no text, no digest, a failed prepare's error; the prepare's
/// event owns the statement's row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_protocol_commands_are_statement_events() {
    let (mut a, mut b) = (conn().await, conn().await);
    let tid = thread_of(&mut a, id(&mut b).await).await;
    fresh(&mut b, "pfs_prep_cmd", "id INT PRIMARY KEY").await;
    let stmt = b
        .prep("SELECT id FROM pfs_prep_cmd WHERE id = ?")
        .await
        .unwrap();
    let owner: u64 = a
        .query_first(format!(
            "SELECT OWNER_EVENT_ID FROM performance_schema.prepared_statements_instances \
             WHERE OWNER_THREAD_ID = {tid}"
        ))
        .await
        .unwrap()
        .expect("a row");
    let _: Vec<i64> = b.exec(&stmt, (1,)).await.unwrap();
    b.close(stmt).await.unwrap();
    let failed = b
        .prep("SELECT id FROM pfs_prep_cmd_gone WHERE id = ?")
        .await;
    assert!(failed.is_err());
    b.ping().await.unwrap();

    type Event = (u64, String, Option<String>, Option<String>, u64, u32);
    let events: Vec<Event> = a
        .query(format!(
            "SELECT EVENT_ID, EVENT_NAME, SQL_TEXT, DIGEST, ERRORS, MYSQL_ERRNO \
             FROM performance_schema.events_statements_history \
             WHERE THREAD_ID = {tid} AND EVENT_NAME LIKE 'statement/com/%' ORDER BY EVENT_ID"
        ))
        .await
        .unwrap();
    let shown: Vec<String> = (events.iter())
        .map(|e| format!("{} {:?} {:?} {} {}", e.1, e.2, e.3, e.4, e.5))
        .collect();
    assert_eq!(
        shown,
        [
            "statement/com/Prepare None None 0 0",
            "statement/com/Execute None None 0 0",
            "statement/com/Close stmt None None 0 0",
            "statement/com/Prepare None None 1 1146",
        ]
    );
    assert_eq!(owner, events[0].0, "the row's owner is the prepare's event");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_prepare_rows_go_at_deallocate_and_disconnect() {
    let (mut a, mut b) = (conn().await, conn().await);
    let bid = id(&mut b).await;
    let tid = thread_of(&mut a, bid).await;
    b.query_drop("SET @x = 4").await.unwrap();
    b.query_drop("PREPARE Plus FROM 'SELECT ? + 1'")
        .await
        .unwrap();
    b.query_drop("PREPARE two FROM 'SELECT 2'").await.unwrap();
    for _ in 0..2 {
        let five: i64 = b
            .query_first("EXECUTE plus USING @x")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(five, 5);
    }
    let rows = instances(&mut a, tid).await;
    let named: Vec<(Option<&str>, &str, u64, u64)> = (rows.iter())
        .map(|r| (r.1.as_deref(), r.2.as_str(), r.3, r.4))
        .collect();
    assert_eq!(
        named,
        [
            (Some("plus"), "SELECT ? + 1", 2, 2),
            (Some("two"), "SELECT 2", 0, 0)
        ]
    );
    // Preparing a name again replaces its statement: a new row.
    b.query_drop("PREPARE two FROM 'SELECT 22'").await.unwrap();
    let rows = instances(&mut a, tid).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].2, "SELECT 22");

    b.query_drop("DEALLOCATE PREPARE plus").await.unwrap();
    let rows = instances(&mut a, tid).await;
    assert_eq!(
        rows.iter().map(|r| r.1.as_deref()).collect::<Vec<_>>(),
        [Some("two")]
    );

    // With `statement/sql/prepare_sql` disabled, a PREPARE makes no row (MySQL makes one only
    // for a PREPARE it instruments); its executions are not counted anywhere then.
    let switch = "UPDATE performance_schema.setup_instruments SET ENABLED = '{}' \
                  WHERE NAME = 'statement/sql/prepare_sql'";
    a.query_drop(switch.replace("{}", "NO")).await.unwrap();
    b.query_drop("PREPARE unseen FROM 'SELECT 3'")
        .await
        .unwrap();
    a.query_drop(switch.replace("{}", "YES")).await.unwrap();
    b.query_drop("EXECUTE unseen").await.unwrap();
    let rows = instances(&mut a, tid).await;
    assert_eq!(
        rows.iter().map(|r| r.1.as_deref()).collect::<Vec<_>>(),
        [Some("two")]
    );
    let lost: Option<(String, String)> = a
        .query_first("SHOW GLOBAL STATUS LIKE 'Performance_schema_prepared_statements_lost'")
        .await
        .unwrap();
    assert_eq!(lost.map(|l| l.1).as_deref(), Some("0"));

    // The session's end takes the rest away.
    drop(b);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !instances(&mut a, tid).await.is_empty() {
        assert!(
            Instant::now() < deadline,
            "rows stayed after the disconnect"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// sysbench's `oltp_point_select` in its default (prepared) mode, one thread for `secs`
/// seconds, against the shared server's `test`, its one table `sbtest1` prepared first.
fn point_select(sysbench: &str, port: u16, command: &str, secs: u32) -> String {
    let args: Vec<String> = [
        "oltp_point_select",
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        &format!("--mysql-port={port}"),
        "--mysql-user=root",
        "--mysql-db=test",
        "--tables=1",
        "--table-size=100",
        "--threads=1",
        &format!("--time={secs}"),
        command,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    run(sysbench, &args, None)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sysbench_point_selects_count_in_their_prepared_statement() {
    let Some([sysbench]) = tools_or_skip(
        "sysbench_point_selects_count_in_their_prepared_statement",
        [&["sysbench"]],
    ) else {
        return;
    };
    let port = server().port();
    let mut a = conn().await;
    a.query_drop("DROP TABLE IF EXISTS sbtest1").await.unwrap();
    let sb = sysbench.clone();
    tokio::task::spawn_blocking(move || point_select(&sb, port, "prepare", 0))
        .await
        .unwrap();
    let running = tokio::task::spawn_blocking(move || point_select(&sysbench, port, "run", 2));
    // Read from A while sysbench runs: its point select is a prepared statement whose
    // executions count up.
    let query = "SELECT MAX(COUNT_EXECUTE) FROM performance_schema.prepared_statements_instances \
                 WHERE SQL_TEXT = 'SELECT c FROM sbtest1 WHERE id=?' AND STATEMENT_NAME IS NULL";
    let mut seen = 0u64;
    while !running.is_finished() {
        let n: Option<u64> = a.query_first(query).await.unwrap().flatten();
        seen = seen.max(n.unwrap_or(0));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let out = running.await.unwrap();
    assert!(out.contains("queries performed"), "{out}");
    assert!(seen > 10, "saw {seen} executions");
    // sysbench closes its statements, or leaves, at its end: the rows go.
    let deadline = Instant::now() + Duration::from_secs(10);
    while a
        .query_first::<Option<u64>, _>(query)
        .await
        .unwrap()
        .flatten()
        .is_some()
    {
        assert!(Instant::now() < deadline, "sysbench's statements stayed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    a.query_drop("DROP TABLE sbtest1").await.unwrap();
}
