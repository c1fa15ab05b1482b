//! The statement summaries' counters by event name (`SUM_LOCK_TIME`, `SUM_ERRORS`,
//! `SUM_WARNINGS`, `SUM_ROWS_AFFECTED`, `SUM_ROWS_SENT`) through a real client: a connection
//! logged in under its own user runs SELECTs, an UPDATE and failing statements; the global,
//! by-thread, by-account, by-user and by-host tables and the sys `_by_statement_type` views
//! show them; its end carries them into its account; `TRUNCATE TABLE` resets them with the
//! timer columns. Her transactions count in `events_transactions_summary_by_{account,user,host}_by_event_name`
//! likewise. One test (the truncates would disturb another's counts).

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};

/// A connection logged in as `user`.
async fn conn_as(user: &str) -> Conn {
    let addr = server();
    let url = format!("mysql://{user}@{}:{}/test", addr.ip(), addr.port());
    Conn::new(Opts::from_url(&url).unwrap()).await.unwrap()
}

const PS: &str = "performance_schema";
const CAROL: &str = "USER = 'ss_carol'";

/// `(COUNT_STAR, SUM_ERRORS, SUM_ROWS_SENT, SUM_ROWS_AFFECTED)` of `class` in
/// `events_statements_summary_<table>` where `key`; zeros without a row.
async fn sums(obs: &mut Conn, table: &str, key: &str, class: &str) -> (u64, u64, u64, u64) {
    obs.query_first(format!(
        "SELECT COUNT_STAR, SUM_ERRORS, SUM_ROWS_SENT, SUM_ROWS_AFFECTED \
         FROM {PS}.events_statements_summary_{table} \
         WHERE {key} AND EVENT_NAME = 'statement/sql/{class}'"
    ))
    .await
    .unwrap()
    .unwrap_or((0, 0, 0, 0))
}

async fn carol(obs: &mut Conn, class: &str) -> (u64, u64, u64, u64) {
    sums(obs, "by_user_by_event_name", CAROL, class).await
}

/// Subtracts `b` from `a`, field by field.
fn less(a: (u64, u64, u64, u64), b: (u64, u64, u64, u64)) -> (u64, u64, u64, u64) {
    (a.0 - b.0, a.1 - b.1, a.2 - b.2, a.3 - b.3)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_counters_are_summarized_by_event_name() {
    let mut obs = conn().await;
    fresh(&mut obs, "ss_t", "a INT").await;
    obs.query_drop("INSERT INTO ss_t VALUES (1), (2), (3), (4), (5)")
        .await
        .unwrap();
    let mut c = conn_as("ss_carol").await;
    let cid = id(&mut c).await;
    let select0 = carol(&mut obs, "select").await;
    let update0 = carol(&mut obs, "update").await;

    for _ in 0..2 {
        let rows: Vec<i64> = c.query("SELECT a FROM ss_t").await.unwrap();
        assert_eq!(rows.len(), 5);
    }
    c.query_drop("UPDATE ss_t SET a = a + 1").await.unwrap();
    for _ in 0..3 {
        assert!(c
            .query_drop("SELECT * FROM ss_no_such_table")
            .await
            .is_err());
    }

    // Her user's rows: 10 rows sent by 5 SELECTs, 3 of them failed; 5 rows updated.
    let select = less(carol(&mut obs, "select").await, select0);
    assert_eq!(select, (5, 3, 10, 0));
    let update = less(carol(&mut obs, "update").await, update0);
    assert_eq!(update, (1, 0, 0, 5));

    // Her thread's, her account's, her host's and the global rows have them too.
    let thread =
        format!("THREAD_ID = (SELECT THREAD_ID FROM {PS}.threads WHERE PROCESSLIST_ID = {cid})");
    let t = sums(&mut obs, "by_thread_by_event_name", &thread, "select").await;
    assert_eq!((t.1, t.2), (select0.1 + 3, select0.2 + 10));
    let account = format!("{CAROL} AND HOST = '127.0.0.1'");
    let a = sums(&mut obs, "by_account_by_event_name", &account, "update").await;
    assert_eq!(a.3, update0.3 + 5);
    let h = sums(
        &mut obs,
        "by_host_by_event_name",
        "HOST = '127.0.0.1'",
        "select",
    )
    .await;
    assert!(h.1 >= 3 && h.2 >= 10, "{h:?}");
    let g = sums(&mut obs, "global_by_event_name", "1", "select").await;
    assert!(g.1 >= 3 && g.2 >= 10, "{g:?}");

    // The query of the brief: the classes with errors.
    let failing: Vec<(String, u64)> = obs
        .query(format!(
            "SELECT EVENT_NAME, SUM_ERRORS FROM {PS}.events_statements_summary_global_by_event_name \
             WHERE SUM_ERRORS > 0"
        ))
        .await
        .unwrap();
    assert!(failing
        .iter()
        .any(|(n, e)| n == "statement/sql/select" && *e >= 3));
    // Every column of the summaries is there, lock time and warnings too (none here).
    let (lock, warnings): (u64, u64) = obs
        .query_first(format!(
            "SELECT SUM_LOCK_TIME, SUM_WARNINGS FROM {PS}.events_statements_summary_by_user_by_event_name \
             WHERE {CAROL} AND EVENT_NAME = 'statement/sql/update'"
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(warnings, 0);
    assert!(lock < 60_000_000_000_000, "{lock}");

    // sys: the by-statement-type views fill lock_latency, rows_sent and rows_affected.
    let x: (u64, u64, Option<u64>, Option<u64>) = obs
        .query_first(
            "SELECT total, rows_sent, rows_affected, lock_latency \
             FROM sys.x$user_summary_by_statement_type WHERE user = 'ss_carol' AND statement = 'select'",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!((x.1, x.2), (select0.2 + 10, Some(0)), "{x:?}");
    assert!(x.3.is_some());
    let f: (Option<String>, Option<u64>, Option<u64>) = obs
        .query_first(
            "SELECT lock_latency, rows_affected, rows_examined \
             FROM sys.user_summary_by_statement_type WHERE user = 'ss_carol' AND statement = 'update'",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(f.0.is_some(), "{f:?}");
    assert_eq!((f.1, f.2), (Some(update0.3 + 5), None));
    let host: Option<u64> = obs
        .query_first(
            "SELECT rows_sent FROM sys.x$host_summary_by_statement_type \
             WHERE host = '127.0.0.1' AND statement = 'select'",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(host.unwrap_or(0) >= 10);

    // Her UPDATE (autocommit) was a read-write transaction of hers.
    let trx = |by: &str, key: &str| {
        format!(
            "SELECT COUNT_STAR, COUNT_READ_WRITE FROM {PS}.events_transactions_summary_by_{by}_by_event_name \
             WHERE {key} AND EVENT_NAME = 'transaction'"
        )
    };
    let (n, rw): (u64, u64) = obs.query_first(trx("user", CAROL)).await.unwrap().unwrap();
    assert!(n >= 1 && rw >= 1, "{n} {rw}");
    let (n, _): (u64, u64) = obs
        .query_first(trx("account", &account))
        .await
        .unwrap()
        .unwrap();
    assert!(n >= 1);
    let (n, _): (u64, u64) = obs
        .query_first(trx("host", "HOST = '127.0.0.1'"))
        .await
        .unwrap()
        .unwrap();
    assert!(n >= 1);

    // Her connection ends: her account and user keep her sums.
    let before = carol(&mut obs, "select").await;
    c.disconnect().await.unwrap();
    wait_gone(&mut obs, cid).await;
    let mut after = carol(&mut obs, "select").await;
    for _ in 0..200 {
        if after == before {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        after = carol(&mut obs, "select").await;
    }
    assert_eq!(after, before);
    let a = sums(&mut obs, "by_account_by_event_name", &account, "update").await;
    assert_eq!(a.3, update0.3 + 5);

    // Truncates reset the sums with the timer columns, one level at a time.
    obs.query_drop(format!(
        "TRUNCATE TABLE {PS}.events_statements_summary_by_user_by_event_name"
    ))
    .await
    .unwrap();
    assert_eq!(carol(&mut obs, "select").await, (0, 0, 0, 0));
    let kept: (u64, u64) = obs.query_first(trx("user", CAROL)).await.unwrap().unwrap();
    assert!(kept.0 >= 1, "a statements' truncate keeps the transactions");
    obs.query_drop(format!(
        "TRUNCATE TABLE {PS}.events_transactions_summary_by_user_by_event_name"
    ))
    .await
    .unwrap();
    // Her user has nothing left, and no row (as MySQL's, without connections).
    let gone: Option<(u64, u64)> = obs.query_first(trx("user", CAROL)).await.unwrap();
    assert_eq!(gone.unwrap_or_default(), (0, 0));
    assert_eq!(carol(&mut obs, "update").await, (0, 0, 0, 0));
    let g = sums(&mut obs, "global_by_event_name", "1", "select").await;
    assert!(g.1 >= 3, "the global summary keeps them: {g:?}");
    obs.query_drop(format!(
        "TRUNCATE TABLE {PS}.events_statements_summary_global_by_event_name"
    ))
    .await
    .unwrap();
    let g = sums(&mut obs, "global_by_event_name", "1", "select").await;
    assert_eq!((g.1, g.3), (0, 0), "{g:?}");
    let u = sums(&mut obs, "global_by_event_name", "1", "update").await;
    assert_eq!(u, (0, 0, 0, 0));
}
