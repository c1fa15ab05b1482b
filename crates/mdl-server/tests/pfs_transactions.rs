//! `performance_schema.events_transactions_*` and the transaction summaries, as MySQL 8.0's
//! default configuration records them: a `BEGIN` ... `COMMIT` / `ROLLBACK` transaction with
//! its statements nested in it, a statement that is its own transaction under `autocommit`,
//! `autocommit` off, savepoints, the summaries and their truncate, and the consumer and
//! instrument switches. One test: the switches and the truncate are the process's.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// THREAD_ID, EVENT_ID, END_EVENT_ID, STATE, ACCESS_MODE, ISOLATION_LEVEL, AUTOCOMMIT,
/// NUMBER_OF_SAVEPOINTS, NESTING_EVENT_ID, NESTING_EVENT_TYPE, TIMER_WAIT.
type Trx = (
    u64,
    u64,
    Option<u64>,
    String,
    String,
    String,
    String,
    u64,
    Option<u64>,
    Option<String>,
    Option<u64>,
);

const TRX_COLUMNS: &str = "THREAD_ID, EVENT_ID, END_EVENT_ID, STATE, ACCESS_MODE, \
     ISOLATION_LEVEL, AUTOCOMMIT, NUMBER_OF_SAVEPOINTS, NESTING_EVENT_ID, NESTING_EVENT_TYPE, \
     TIMER_WAIT";

async fn current(obs: &mut Conn, tid: u64) -> Vec<Trx> {
    obs.query(format!(
        "SELECT {TRX_COLUMNS} FROM performance_schema.events_transactions_current \
         WHERE THREAD_ID = {tid}"
    ))
    .await
    .unwrap()
}

async fn history(obs: &mut Conn, tid: u64) -> Vec<Trx> {
    obs.query(format!(
        "SELECT {TRX_COLUMNS} FROM performance_schema.events_transactions_history \
         WHERE THREAD_ID = {tid} ORDER BY EVENT_ID"
    ))
    .await
    .unwrap()
}

/// The last statement of `tid` whose text starts with `text`: EVENT_ID, NESTING_EVENT_ID,
/// NESTING_EVENT_TYPE.
async fn statement(obs: &mut Conn, tid: u64, text: &str) -> (u64, Option<u64>, Option<String>) {
    let rows: Vec<(u64, Option<u64>, Option<String>)> = obs
        .query(format!(
            "SELECT EVENT_ID, NESTING_EVENT_ID, NESTING_EVENT_TYPE \
             FROM performance_schema.events_statements_history \
             WHERE THREAD_ID = {tid} AND SQL_TEXT LIKE '{text}%' ORDER BY EVENT_ID"
        ))
        .await
        .unwrap();
    rows.last().cloned().expect(text)
}

/// COUNT_STAR, COUNT_READ_WRITE, COUNT_READ_ONLY, SUM_TIMER_WAIT of `tid`.
async fn counts(obs: &mut Conn, tid: u64) -> (u64, u64, u64, u64) {
    obs.query_first(format!(
        "SELECT COUNT_STAR, COUNT_READ_WRITE, COUNT_READ_ONLY, SUM_TIMER_WAIT \
         FROM performance_schema.events_transactions_summary_by_thread_by_event_name \
         WHERE THREAD_ID = {tid} AND EVENT_NAME = 'transaction'"
    ))
    .await
    .unwrap()
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transactions_are_recorded_as_mysql_records_them() {
    let (mut obs, mut c) = (conn().await, conn().await);
    // MySQL 8.0's defaults.
    let setup: Vec<(String, String, String)> = obs
        .query(
            "SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments \
             WHERE NAME = 'transaction'",
        )
        .await
        .unwrap();
    assert_eq!(setup, [("transaction".into(), "YES".into(), "YES".into())]);
    let consumers: Vec<(String, String)> = obs
        .query(
            "SELECT NAME, ENABLED FROM performance_schema.setup_consumers \
             WHERE NAME LIKE 'events_transactions%' ORDER BY NAME",
        )
        .await
        .unwrap();
    let on = |n: &str, e: &str| (n.to_string(), e.to_string());
    assert_eq!(
        consumers,
        [
            on("events_transactions_current", "YES"),
            on("events_transactions_history", "YES"),
            on("events_transactions_history_long", "NO"),
        ]
    );

    c.query_drop("CREATE TABLE tt_t (id INT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO tt_t VALUES (1, 10), (2, 20)")
        .await
        .unwrap();
    let tid: u64 = c
        .query_first(
            "SELECT THREAD_ID FROM performance_schema.threads \
             WHERE PROCESSLIST_ID = CONNECTION_ID()",
        )
        .await
        .unwrap()
        .unwrap();
    obs.query_drop(
        "TRUNCATE TABLE performance_schema.events_transactions_summary_by_thread_by_event_name",
    )
    .await
    .unwrap();

    // BEGIN begins it, nested in the BEGIN statement; the statements that follow nest in it.
    c.query_drop("BEGIN").await.unwrap();
    let cur = current(&mut obs, tid).await;
    assert_eq!(cur.len(), 1, "{cur:?}");
    let t = cur[0].clone();
    assert_eq!((t.3.as_str(), t.2), ("ACTIVE", None), "{t:?}");
    // In progress, timed to now (MySQL 8.0's "time elapsed so far").
    assert!(t.10.is_some(), "{t:?}");
    assert_eq!(
        (t.4.as_str(), t.5.as_str(), t.6.as_str()),
        ("READ WRITE", "READ COMMITTED", "NO")
    );
    let begin = statement(&mut obs, tid, "BEGIN").await;
    assert_eq!((t.8, t.9.as_deref()), (Some(begin.0), Some("STATEMENT")));
    let _: Option<i64> = c
        .query_first("SELECT v FROM tt_t WHERE id = 1")
        .await
        .unwrap();
    let sel = statement(&mut obs, tid, "SELECT v FROM tt_t").await;
    assert_eq!((sel.1, sel.2.as_deref()), (Some(t.1), Some("TRANSACTION")));
    c.query_drop("SAVEPOINT sp1").await.unwrap();
    c.query_drop("COMMIT").await.unwrap();
    let done = current(&mut obs, tid).await;
    assert_eq!(done.len(), 1);
    let d = &done[0];
    assert_eq!((d.1, d.3.as_str(), d.7), (t.1, "COMMITTED", 1), "{d:?}");
    assert!(d.2.is_some() && d.10.is_some_and(|w| w > 0), "{d:?}");
    let commit = statement(&mut obs, tid, "COMMIT").await;
    assert_eq!(
        (commit.1, commit.2.as_deref()),
        (Some(t.1), Some("TRANSACTION"))
    );

    // ROLLBACK.
    c.query_drop("BEGIN").await.unwrap();
    c.query_drop("UPDATE tt_t SET v = 11 WHERE id = 1")
        .await
        .unwrap();
    c.query_drop("ROLLBACK").await.unwrap();
    let rb = current(&mut obs, tid).await;
    assert_eq!(rb[0].3, "ROLLED BACK", "{rb:?}");

    // An autocommit statement that uses a table is one transaction, nested in it.
    let _: Option<i64> = c
        .query_first("SELECT v FROM tt_t WHERE id = 2")
        .await
        .unwrap();
    let auto = statement(&mut obs, tid, "SELECT v FROM tt_t WHERE id = 2").await;
    assert_eq!(auto.1, None, "no transaction in progress when it began");
    let a = current(&mut obs, tid).await[0].clone();
    assert_eq!((a.3.as_str(), a.6.as_str()), ("COMMITTED", "YES"), "{a:?}");
    assert_eq!((a.8, a.9.as_deref()), (Some(auto.0), Some("STATEMENT")));
    assert!(a.10.is_some(), "timed with the statement's readings");
    // One that uses none is not; a failed one is rolled back.
    let _: Option<i64> = c.query_first("SELECT 1").await.unwrap();
    assert_eq!(current(&mut obs, tid).await[0].1, a.1);
    let (errno, _) = code(c.query_drop("INSERT INTO tt_t VALUES (1, 1)").await);
    assert_eq!(errno, 1062);
    let failed = current(&mut obs, tid).await[0].clone();
    assert_eq!(
        (failed.3.as_str(), failed.6.as_str()),
        ("ROLLED BACK", "YES")
    );

    // autocommit off: the first statement that uses a table begins it.
    c.query_drop("SET autocommit = 0").await.unwrap();
    assert_eq!(current(&mut obs, tid).await[0].1, failed.1);
    c.query_drop("UPDATE tt_t SET v = 21 WHERE id = 2")
        .await
        .unwrap();
    let off = current(&mut obs, tid).await[0].clone();
    assert_eq!(
        (off.3.as_str(), off.6.as_str()),
        ("ACTIVE", "NO"),
        "{off:?}"
    );
    let update = statement(&mut obs, tid, "UPDATE tt_t SET v = 21").await;
    assert_eq!((off.8, update.1), (Some(update.0), None));
    c.query_drop("COMMIT").await.unwrap();
    c.query_drop("SET autocommit = 1").await.unwrap();
    assert_eq!(current(&mut obs, tid).await[0].3, "COMMITTED");

    // The history keeps them in order; the summaries count them all, read-write.
    let h = history(&mut obs, tid).await;
    let states: Vec<&str> = h.iter().rev().take(5).map(|r| r.3.as_str()).collect();
    assert_eq!(
        states,
        [
            "COMMITTED",
            "ROLLED BACK",
            "COMMITTED",
            "ROLLED BACK",
            "COMMITTED"
        ]
    );
    let (all, rw, ro, sum) = counts(&mut obs, tid).await;
    assert_eq!((all, rw, ro), (5, 5, 0));
    assert!(sum > 0);
    let global: u64 = obs
        .query_first(
            "SELECT COUNT_STAR FROM \
             performance_schema.events_transactions_summary_global_by_event_name",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(global >= 5);

    // The current consumer off: no new rows (nor history, below it; what was recorded stays,
    // as in PFS); the summary still counts.
    obs.query_drop(
        "UPDATE performance_schema.setup_consumers SET ENABLED = 'NO' \
         WHERE NAME = 'events_transactions_current'",
    )
    .await
    .unwrap();
    c.query_drop("BEGIN").await.unwrap();
    c.query_drop("UPDATE tt_t SET v = 22 WHERE id = 2")
        .await
        .unwrap();
    let last = current(&mut obs, tid).await;
    assert_eq!(
        (last.len(), last[0].1, last[0].3.as_str()),
        (1, off.1, "COMMITTED")
    );
    c.query_drop("COMMIT").await.unwrap();
    assert_eq!(current(&mut obs, tid).await[0].1, off.1);
    assert_eq!(history(&mut obs, tid).await.len(), h.len());
    assert_eq!(counts(&mut obs, tid).await.0, 6);
    obs.query_drop(
        "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' \
         WHERE NAME = 'events_transactions_current'",
    )
    .await
    .unwrap();
    // The instrument off: nothing at all.
    obs.query_drop(
        "UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' \
         WHERE NAME = 'transaction'",
    )
    .await
    .unwrap();
    let _: Option<i64> = c
        .query_first("SELECT v FROM tt_t WHERE id = 2")
        .await
        .unwrap();
    assert_eq!(counts(&mut obs, tid).await.0, 6);
    obs.query_drop(
        "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' \
         WHERE NAME = 'transaction'",
    )
    .await
    .unwrap();
    // TRUNCATE of a summary resets it.
    obs.query_drop(
        "TRUNCATE TABLE performance_schema.events_transactions_summary_global_by_event_name",
    )
    .await
    .unwrap();
    assert_eq!(counts(&mut obs, tid).await, (0, 0, 0, 0));

    // A DDL commits the open transaction before it runs (`trans_commit_implicit`), so one
    // that then fails leaves it COMMITTED, not rolled back.
    c.query_drop("BEGIN").await.unwrap();
    c.query_drop("UPDATE tt_t SET v = 23 WHERE id = 2")
        .await
        .unwrap();
    let (errno, _) = code(c.query_drop("CREATE TABLE tt_t (id INT)").await);
    assert_eq!(errno, 1050);
    let ddl = current(&mut obs, tid).await[0].clone();
    assert_eq!(
        (ddl.3.as_str(), ddl.6.as_str()),
        ("COMMITTED", "NO"),
        "{ddl:?}"
    );
    let v: Option<i64> = c
        .query_first("SELECT v FROM tt_t WHERE id = 2")
        .await
        .unwrap();
    assert_eq!(v, Some(23), "the update was committed");
}
