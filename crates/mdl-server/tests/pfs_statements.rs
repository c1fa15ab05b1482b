//! The statement columns a DBA reads first: `SQL_TEXT`, `LOCK_TIME` (a metadata-lock wait's),
//! `ROWS_SENT`, `ERRORS` / `MYSQL_ERRNO` / `RETURNED_SQLSTATE` of `events_statements_history`,
//! and the sums of `events_statements_summary_by_digest`, keyed by schema.

mod common;

use std::time::Duration;

use common::*;
use mysql_async::prelude::*;

/// One `events_statements_history` row: SQL_TEXT, LOCK_TIME, ROWS_SENT, ERRORS, MYSQL_ERRNO,
/// RETURNED_SQLSTATE, CURRENT_SCHEMA, TIMER_WAIT.
type Event = (
    Option<String>,
    u64,
    u64,
    u64,
    Option<i64>,
    Option<String>,
    Option<String>,
    u64,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_show_text_lock_time_rows_and_errors() {
    let (mut obs, mut holder, mut w) = (conn().await, conn().await, conn().await);
    let wid = id(&mut w).await;
    obs.query_drop("CREATE TABLE st_t (id INT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    obs.query_drop("INSERT INTO st_t VALUES (1, 10), (2, 20), (3, 30)")
        .await
        .unwrap();
    // A read that waits ~200 ms for the metadata lock LOCK TABLES ... WRITE holds.
    holder.query_drop("LOCK TABLES st_t WRITE").await.unwrap();
    let waiting = tokio::spawn(async move {
        let n: Vec<(i64, i64)> = w.query("SELECT * FROM st_t").await.unwrap();
        (w, n.len())
    });
    wait_state(&mut obs, wid, "Waiting for table metadata lock").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    holder.query_drop("UNLOCK TABLES").await.unwrap();
    let (mut w, n) = bounded("the waiting read", waiting).await.unwrap();
    assert_eq!(n, 3);
    // A failing statement, and a prepared one that waits for nothing.
    let (errno, _) = code(w.query_drop("SELECT * FROM st_missing").await);
    assert_eq!(errno, 1146);
    let v: Option<i64> = w
        .exec_first("SELECT v FROM st_t WHERE id = ?", (2,))
        .await
        .unwrap();
    assert_eq!(v, Some(20));

    let rows: Vec<mysql_async::Row> = obs
        .query(format!(
            "SELECT SQL_TEXT, LOCK_TIME, ROWS_SENT, ERRORS, MYSQL_ERRNO, RETURNED_SQLSTATE, \
                    CURRENT_SCHEMA, TIMER_WAIT \
             FROM performance_schema.events_statements_history \
             WHERE THREAD_ID = (SELECT THREAD_ID FROM performance_schema.threads \
                                WHERE PROCESSLIST_ID = {wid}) \
               AND SQL_TEXT LIKE '%st\\_%' ORDER BY EVENT_ID"
        ))
        .await
        .unwrap();
    let events: Vec<Event> = rows.into_iter().map(mysql_async::from_row).collect();
    assert_eq!(events.len(), 2, "{events:?}");
    let (waited, failed) = (&events[0], &events[1]);
    assert_eq!(waited.0.as_deref(), Some("SELECT * FROM st_t"));
    // LOCK_TIME: the ~200 ms wait, within the statement's time.
    assert!(waited.1 >= 150_000_000_000, "{waited:?}");
    assert!(waited.1 <= waited.7, "{waited:?}");
    assert_eq!((waited.2, waited.3, waited.4), (3, 0, Some(0)));
    assert_eq!(waited.6.as_deref(), Some("test"));
    assert_eq!(failed.0.as_deref(), Some("SELECT * FROM st_missing"));
    assert_eq!(
        (failed.3, failed.4, failed.5.as_deref()),
        (1, Some(1146), Some("42S02"))
    );
    // The prepared one (`COM_STMT_EXECUTE`) is `statement/com/Execute`, without text, as in
    // MySQL.
    let prepared: Vec<(Option<String>, u64, u64, u64)> = obs
        .query(format!(
            "SELECT SQL_TEXT, LOCK_TIME, ROWS_SENT, ERRORS \
             FROM performance_schema.events_statements_history \
             WHERE THREAD_ID = (SELECT THREAD_ID FROM performance_schema.threads \
                                WHERE PROCESSLIST_ID = {wid}) \
               AND EVENT_NAME = 'statement/com/Execute'"
        ))
        .await
        .unwrap();
    assert_eq!(prepared, [(None, 0, 1, 0)]);
    // The protocol commands' classes are MySQL's `statement/com/<command_name>`, none of
    // them a `statement/sql/stmt_*` MySQL does not have.
    let com: Vec<String> = obs
        .query(
            "SELECT NAME FROM performance_schema.setup_instruments \
             WHERE NAME LIKE 'statement/com/%' OR NAME LIKE 'statement/sql/stmt%' ORDER BY NAME",
        )
        .await
        .unwrap();
    assert_eq!(
        com,
        [
            "statement/com/Close stmt",
            "statement/com/Execute",
            "statement/com/Prepare"
        ]
    );

    // The digest summary's sums, keyed by (SCHEMA_NAME, DIGEST).
    type Digest = (Option<String>, String, u64, u64, u64, u64, String, String);
    let digests: Vec<Digest> = obs
        .query(
            "SELECT SCHEMA_NAME, DIGEST_TEXT, COUNT_STAR, SUM_ROWS_SENT, SUM_ERRORS, \
                    SUM_LOCK_TIME, FIRST_SEEN, LAST_SEEN \
             FROM performance_schema.events_statements_summary_by_digest \
             WHERE DIGEST_TEXT LIKE '%st\\_%' ORDER BY DIGEST_TEXT",
        )
        .await
        .unwrap();
    let of = |t: &str| digests.iter().find(|d| d.1 == t).cloned();
    let read = of("SELECT * FROM `st_t`").expect("the waiting read's digest");
    assert_eq!(read.0.as_deref(), Some("test"));
    assert_eq!((read.2, read.3, read.4), (1, 3, 0));
    assert_eq!(read.5, waited.1, "SUM_LOCK_TIME is its one statement's");
    assert!(read.6 <= read.7 && read.6.len() == 26, "{read:?}");
    let missing = of("SELECT * FROM `st_missing`").expect("the failing one's digest");
    assert_eq!((missing.2, missing.4), (1, 1));
    // The prepared one has no digest, so no row (`statement_event.rs`).
    let point = [
        "SELECT v FROM st_t WHERE id = ?",
        "SELECT `v` FROM `st_t` WHERE `id` = ?",
    ];
    assert!(
        !digests.iter().any(|d| point.contains(&d.1.as_str())),
        "{digests:?}"
    );

    // The stages keep their own columns.
    let stage: Vec<mysql_async::Row> = obs
        .query("SELECT * FROM performance_schema.events_stages_history")
        .await
        .unwrap();
    drop(stage);
    let described: Vec<(String, String, String, String, Option<String>, String)> = obs
        .query("DESC performance_schema.events_stages_current")
        .await
        .unwrap();
    assert_eq!(described.len(), 10);
    assert!(!described.iter().any(|d| d.0 == "LOCK_TIME"));
}
