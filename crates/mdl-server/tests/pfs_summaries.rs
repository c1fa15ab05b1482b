//! The summaries by thread, account, user and host, and `sys.user_summary` /
//! `sys.host_summary`, through a real client: connections log in under their own user names
//! (the server takes any), run INSERTs, and each table counts them per thread, account, user
//! and host; a connection that ends leaves its counts in its account; `TRUNCATE TABLE` moves
//! them up as MySQL does. One test (the truncates would disturb another's counts).

mod common;

use std::time::{Duration, Instant};

use common::*;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};

/// A connection logged in as `user`.
async fn conn_as(user: &str) -> Conn {
    let addr = server();
    let url = format!("mysql://{user}@{}:{}/test", addr.ip(), addr.port());
    Conn::new(Opts::from_url(&url).unwrap()).await.unwrap()
}

const INSERT: &str = "EVENT_NAME = 'statement/sql/insert'";

/// `COUNT_STAR` of the INSERT row of `events_statements_summary_by_<by>_by_event_name` where
/// `key`; 0 without one.
async fn inserts(obs: &mut Conn, by: &str, key: &str) -> i64 {
    obs.query_first(format!(
        "SELECT COUNT_STAR FROM performance_schema.events_statements_summary_by_{by}_by_event_name \
         WHERE {key} AND {INSERT}"
    ))
    .await
    .unwrap()
    .unwrap_or(0)
}

/// The INSERTs of connection `id`'s thread (the by-thread table joined with `threads`).
async fn thread_inserts(obs: &mut Conn, id: u64) -> i64 {
    obs.query_first(format!(
        "SELECT s.COUNT_STAR \
         FROM performance_schema.events_statements_summary_by_thread_by_event_name s \
         JOIN performance_schema.threads t ON s.THREAD_ID = t.THREAD_ID \
         WHERE t.PROCESSLIST_ID = {id} AND s.{INSERT}"
    ))
    .await
    .unwrap()
    .unwrap_or(0)
}

/// The INSERTs of the global summary.
async fn global_inserts(obs: &mut Conn) -> i64 {
    obs.query_first(format!(
        "SELECT COUNT_STAR FROM performance_schema.events_statements_summary_global_by_event_name \
         WHERE {INSERT}"
    ))
    .await
    .unwrap()
    .unwrap()
}

async fn insert(c: &mut Conn, n: usize) {
    for _ in 0..n {
        c.query_drop("INSERT INTO sum_t VALUES (1)").await.unwrap();
    }
}

/// Disconnects `c` and waits until its thread is gone from `threads`.
async fn disconnect(obs: &mut Conn, mut c: Conn) {
    let cid = id(&mut c).await;
    c.disconnect().await.unwrap();
    wait_gone(obs, cid).await;
    let t0 = Instant::now();
    loop {
        let n: i64 = obs
            .query_first(format!(
                "SELECT COUNT(*) FROM performance_schema.threads WHERE PROCESSLIST_ID = {cid}"
            ))
            .await
            .unwrap()
            .unwrap();
        if n == 0 {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(10), "thread never ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

const ALICE: &str = "USER = 'sum_alice'";
const ALICE_ACCOUNT: &str = "USER = 'sum_alice' AND HOST = '127.0.0.1'";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_are_summarized_by_thread_account_user_and_host() {
    let mut obs = conn().await;
    fresh(&mut obs, "sum_t", "a INT").await;
    let mut a = conn_as("sum_alice").await;
    let mut b = conn_as("sum_bob").await;
    let a_id = id(&mut a).await;
    insert(&mut a, 3).await;
    insert(&mut b, 2).await;

    // Each thread, account and user counts its own.
    assert_eq!(thread_inserts(&mut obs, a_id).await, 3);
    assert_eq!(inserts(&mut obs, "account", ALICE_ACCOUNT).await, 3);
    assert_eq!(inserts(&mut obs, "user", ALICE).await, 3);
    assert_eq!(inserts(&mut obs, "user", "USER = 'sum_bob'").await, 2);
    assert!(inserts(&mut obs, "host", "HOST = '127.0.0.1'").await >= 5);

    // The server's threads (no account) are the NULL key's, with no INSERTs.
    for by in ["account", "user", "host"] {
        let col = if by == "host" { "HOST" } else { "USER" };
        assert_eq!(
            inserts(&mut obs, by, &format!("{col} IS NULL")).await,
            0,
            "{by}"
        );
    }
    // A row per class for each account, counted or not, as MySQL's; the waits' too.
    let (rows, classes): (i64, i64) = obs
        .query_first(format!(
            "SELECT COUNT(*), (SELECT COUNT(*) FROM \
               performance_schema.events_statements_summary_global_by_event_name) \
             FROM performance_schema.events_statements_summary_by_account_by_event_name \
             WHERE {ALICE_ACCOUNT}"
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(rows, classes);
    let waits: i64 = obs
        .query_first(format!(
            "SELECT COUNT(*) FROM performance_schema.events_waits_summary_by_account_by_event_name \
             WHERE {ALICE_ACCOUNT} AND EVENT_NAME LIKE 'wait/%'"
        ))
        .await
        .unwrap()
        .unwrap();
    assert!(waits > 0);

    // Alice disconnects: her thread's row goes, her account and user keep the counts; a new
    // connection of hers adds to them.
    disconnect(&mut obs, a).await;
    assert_eq!(thread_inserts(&mut obs, a_id).await, 0);
    assert_eq!(inserts(&mut obs, "account", ALICE_ACCOUNT).await, 3);
    let mut a2 = conn_as("sum_alice").await;
    insert(&mut a2, 1).await;
    assert_eq!(inserts(&mut obs, "account", ALICE_ACCOUNT).await, 4);
    assert_eq!(inserts(&mut obs, "user", ALICE).await, 4);

    // sys.user_summary: her statements (the INSERTs and what the client ran at connect), her
    // connections; sys.user_summary_by_statement_type: the INSERTs.
    let (stmts, latency, cur, total, hosts, ios): (i64, String, i64, i64, i64, i64) = obs
        .query_first(
            "SELECT statements, statement_latency, current_connections, total_connections, \
             unique_hosts, file_ios FROM sys.user_summary WHERE user = 'sum_alice'",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(stmts >= 4, "{stmts}");
    assert!(latency.ends_with('s'), "{latency}");
    assert_eq!((cur, total, hosts, ios), (1, 2, 1, 0));
    let raw: i64 = obs
        .query_first("SELECT statements FROM sys.x$user_summary WHERE user = 'sum_alice'")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw, stmts);
    let by_type: i64 = obs
        .query_first(
            "SELECT total FROM sys.user_summary_by_statement_type \
             WHERE user = 'sum_alice' AND statement = 'insert'",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_type, 4);
    // The server's threads' row, if any: no statements of theirs.
    let background: Option<i64> = obs
        .query_first("SELECT statements FROM sys.user_summary WHERE user = 'background'")
        .await
        .unwrap()
        .flatten();
    assert!(matches!(background, None | Some(0)), "{background:?}");
    let hosts: Vec<String> = obs
        .query("SELECT host FROM sys.host_summary")
        .await
        .unwrap();
    assert!(hosts.contains(&"127.0.0.1".to_string()) && !hosts.contains(&"background".into()));
    let users: i64 = obs
        .query_first("SELECT unique_users FROM sys.x$host_summary WHERE host = '127.0.0.1'")
        .await
        .unwrap()
        .unwrap();
    assert!(users >= 3, "{users}");

    truncates(&mut obs, a2, b).await;
}

/// `TRUNCATE TABLE` of each level moves the counts one level up, as MySQL's.
async fn truncates(obs: &mut Conn, mut a2: Conn, b: Conn) {
    let ps = "performance_schema";
    let a2_id = id(&mut a2).await;
    drop(b);
    let g0 = global_inserts(obs).await;

    // By thread: the thread's counts go to its account; the global summary keeps them.
    obs.query_drop(format!(
        "TRUNCATE TABLE {ps}.events_statements_summary_by_thread_by_event_name"
    ))
    .await
    .unwrap();
    assert_eq!(thread_inserts(obs, a2_id).await, 0);
    assert_eq!(inserts(obs, "account", ALICE_ACCOUNT).await, 4);
    assert!(global_inserts(obs).await >= g0);

    // By account: the account's go to its user and host; the account with a live connection
    // keeps its rows, at 0.
    obs.query_drop(format!(
        "TRUNCATE TABLE {ps}.events_statements_summary_by_account_by_event_name"
    ))
    .await
    .unwrap();
    let (n, count): (i64, i64) = obs
        .query_first(format!(
            "SELECT COUNT(*), SUM(COUNT_STAR) FROM \
             {ps}.events_statements_summary_by_account_by_event_name WHERE {ALICE_ACCOUNT}"
        ))
        .await
        .unwrap()
        .unwrap();
    assert!(n > 0);
    assert_eq!(count, 0);
    assert_eq!(inserts(obs, "user", ALICE).await, 4);
    assert!(inserts(obs, "host", "HOST = '127.0.0.1'").await >= 4);

    // By user: the users count their live threads only.
    obs.query_drop(format!(
        "TRUNCATE TABLE {ps}.events_statements_summary_by_user_by_event_name"
    ))
    .await
    .unwrap();
    assert_eq!(inserts(obs, "user", ALICE).await, 0);
    assert!(inserts(obs, "host", "HOST = '127.0.0.1'").await >= 4);

    // An account without connections has no rows after a truncate of what it counted (its
    // INSERTs were transactions too).
    disconnect(obs, a2).await;
    for family in ["statements", "transactions"] {
        obs.query_drop(format!(
            "TRUNCATE TABLE {ps}.events_{family}_summary_by_account_by_event_name"
        ))
        .await
        .unwrap();
    }
    let n: i64 = obs
        .query_first(format!(
            "SELECT COUNT(*) FROM {ps}.events_statements_summary_by_account_by_event_name \
             WHERE {ALICE}"
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 0);

    // The global truncate resets every level.
    obs.query_drop(format!(
        "TRUNCATE TABLE {ps}.events_statements_summary_global_by_event_name"
    ))
    .await
    .unwrap();
    assert_eq!(inserts(obs, "host", "HOST = '127.0.0.1'").await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tables_have_mysqls_columns() {
    let mut c = conn().await;
    async fn names(c: &mut Conn, table: &str) -> Vec<String> {
        let rows: Vec<mysql_async::Row> =
            c.query(format!("SHOW COLUMNS FROM {table}")).await.unwrap();
        rows.iter().map(|r| r.get(0).unwrap()).collect()
    }
    for (t, first) in [
        (
            "events_statements_summary_by_account_by_event_name",
            &["USER", "HOST", "EVENT_NAME", "COUNT_STAR"][..],
        ),
        (
            "events_statements_summary_by_user_by_event_name",
            &["USER", "EVENT_NAME", "COUNT_STAR"][..],
        ),
        (
            "events_waits_summary_by_host_by_event_name",
            &["HOST", "EVENT_NAME", "COUNT_STAR"][..],
        ),
        (
            "events_statements_summary_by_thread_by_event_name",
            &["THREAD_ID", "EVENT_NAME", "COUNT_STAR"][..],
        ),
    ] {
        let names = names(&mut c, &format!("performance_schema.{t}")).await;
        assert_eq!(&names[..first.len()], first, "{t}");
        // The statements' counters follow the timer columns, as MySQL's.
        let last = match t.starts_with("events_statements_") {
            true => "SUM_NO_INDEX_USED",
            false => "MAX_TIMER_WAIT",
        };
        assert_eq!(names.last().map(String::as_str), Some(last), "{t}");
    }
    let names = names(&mut c, "sys.user_summary").await;
    assert_eq!(names.len(), 12);
    assert_eq!(
        (names[0].as_str(), names[9].as_str()),
        ("user", "unique_hosts")
    );
}
