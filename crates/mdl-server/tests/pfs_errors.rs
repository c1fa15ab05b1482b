//! The error summaries (`performance_schema.events_errors_summary_*_by_error`) through a real
//! client: connections log in under their own user names, raise a lock wait timeout (1205), a
//! syntax error (1064), a warning and a note; each table counts them per thread, account, user
//! and host, with MySQL's names and a row, zeros included, for every error the server knows; a
//! connection that ends leaves its counts in its account; `TRUNCATE TABLE` moves them up as
//! MySQL does. One test: the truncates would disturb another's counts.

mod common;

use std::time::{Duration, Instant};

use common::*;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};

/// A connection logged in as `user`.
async fn login(user: &str) -> Conn {
    let addr = server();
    let url = format!("mysql://{user}@{}:{}/test", addr.ip(), addr.port());
    Conn::new(Opts::from_url(&url).unwrap()).await.unwrap()
}

/// `SUM_ERROR_RAISED` of error `errno` in `events_errors_summary_<table>` where `key`; `None`
/// without a row.
async fn raised(obs: &mut Conn, table: &str, key: &str, errno: u32) -> Option<u64> {
    obs.query_first(format!(
        "SELECT SUM_ERROR_RAISED FROM performance_schema.events_errors_summary_{table} \
         WHERE {key} AND ERROR_NUMBER = {errno}"
    ))
    .await
    .unwrap()
}

/// [`raised`] of connection `id`'s thread (the by-thread table joined with `threads`).
async fn thread_raised(obs: &mut Conn, id: u64, errno: u32) -> Option<u64> {
    obs.query_first(format!(
        "SELECT e.SUM_ERROR_RAISED \
         FROM performance_schema.events_errors_summary_by_thread_by_error e \
         JOIN performance_schema.threads t ON t.THREAD_ID = e.THREAD_ID \
         WHERE t.PROCESSLIST_ID = {id} AND e.ERROR_NUMBER = {errno}"
    ))
    .await
    .unwrap()
}

fn user(u: &str) -> String {
    format!("USER = '{u}'")
}

fn account(u: &str) -> String {
    format!("USER = '{u}' AND HOST = '127.0.0.1'")
}

/// `ERROR_NUMBER`, `ERROR_NAME`, `SQL_STATE`, `SUM_ERROR_RAISED`, `SUM_ERROR_HANDLED`,
/// `FIRST_SEEN`.
type ErrorRow = (
    Option<u32>,
    Option<String>,
    Option<String>,
    u64,
    u64,
    Option<String>,
);

const HOST: &str = "HOST = '127.0.0.1'";
const GLOBAL: &str = "1 = 1";

/// Waits until connection `id` (gone from the process list) has no rows by thread: its pfs
/// thread ended and carried its counts.
async fn thread_ended(obs: &mut Conn, id: u64) {
    let t0 = Instant::now();
    while thread_raised(obs, id, 1205).await.is_some() {
        assert!(t0.elapsed() < Duration::from_secs(10), "thread never ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_counted_by_thread_account_user_and_host() {
    let mut obs = conn().await;

    // Every known error has a row, zeros and NULL times included, and the NULL row comes
    // first; the lock manager's errors carry MySQL's names.
    let rows: Vec<ErrorRow> = obs
        .query(
            "SELECT ERROR_NUMBER, ERROR_NAME, SQL_STATE, SUM_ERROR_RAISED, SUM_ERROR_HANDLED, \
             FIRST_SEEN FROM performance_schema.events_errors_summary_global_by_error",
        )
        .await
        .unwrap();
    assert!(rows.len() > 100, "{}", rows.len());
    assert_eq!(rows[0].0, None, "the NULL row first");
    assert_eq!(rows.iter().filter(|r| r.0.is_none()).count(), 1);
    for (n, name, state) in [
        (1205, "ER_LOCK_WAIT_TIMEOUT", "HY000"),
        (1213, "ER_LOCK_DEADLOCK", "40001"),
        (1317, "ER_QUERY_INTERRUPTED", "70100"),
        (3058, "ER_USER_LOCK_DEADLOCK", "HY000"),
        (1223, "ER_CANT_UPDATE_WITH_READLOCK", "HY000"),
        (1064, "ER_PARSE_ERROR", "42000"),
    ] {
        let r = rows.iter().find(|r| r.0 == Some(n)).expect("a row");
        assert_eq!((r.1.as_deref(), r.2.as_deref()), (Some(name), Some(state)));
        assert_eq!((r.3, r.4, r.5.as_deref()), (0, 0, None), "{n} never raised");
    }

    // A lock wait timeout: the waiter waits on a table the holder's transaction uses.
    let mut holder = login("err_holder").await;
    fresh(&mut holder, "errs_t", "a INT").await;
    holder.query_drop("BEGIN").await.unwrap();
    holder.query_drop("SELECT * FROM errs_t").await.unwrap();
    let mut waiter = login("err_waiter").await;
    let wid = id(&mut waiter).await;
    waiter
        .query_drop("SET SESSION lock_wait_timeout = 1")
        .await
        .unwrap();
    let r = waiter.query_drop("TRUNCATE TABLE errs_t").await;
    assert_eq!(code(r).0, 1205);
    holder.query_drop("COMMIT").await.unwrap();
    // A syntax error, twice; a warning (1365) and a note (1051) count too, as MySQL's.
    for _ in 0..2 {
        assert_eq!(code(waiter.query_drop("SELEC 1").await).0, 1064);
    }
    waiter.query_drop("SELECT 1/0").await.unwrap();
    (waiter.query_drop("DROP TABLE IF EXISTS errs_none").await).unwrap();

    let waiter_acct = account("err_waiter");
    for (table, key) in [
        ("global_by_error", GLOBAL),
        ("by_account_by_error", waiter_acct.as_str()),
        ("by_user_by_error", user("err_waiter").as_str()),
        ("by_host_by_error", HOST),
    ] {
        assert_eq!(raised(&mut obs, table, key, 1205).await, Some(1), "{table}");
    }
    assert_eq!(thread_raised(&mut obs, wid, 1205).await, Some(1));
    assert_eq!(thread_raised(&mut obs, wid, 1064).await, Some(2));
    assert_eq!(thread_raised(&mut obs, wid, 1365).await, Some(1));
    assert_eq!(thread_raised(&mut obs, wid, 1051).await, Some(1));
    assert_eq!(thread_raised(&mut obs, wid, 1213).await, Some(0));
    let k = &waiter_acct;
    assert_eq!(
        raised(&mut obs, "by_account_by_error", k, 1064).await,
        Some(2)
    );
    // FIRST_SEEN and LAST_SEEN are set once raised.
    let seen: (Option<String>, Option<String>) = obs
        .query_first(
            "SELECT FIRST_SEEN, LAST_SEEN \
             FROM performance_schema.events_errors_summary_global_by_error \
             WHERE ERROR_NUMBER = 1205",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(seen.0.is_some() && seen.0 <= seen.1, "{seen:?}");
    // The holder raised no 1205.
    let holder_acct = account("err_holder");
    assert_eq!(
        raised(&mut obs, "by_account_by_error", &holder_acct, 1205).await,
        Some(0)
    );

    // The waiter disconnects: its thread's rows go, its account, user and host keep its counts.
    waiter.disconnect().await.unwrap();
    wait_gone(&mut obs, wid).await;
    thread_ended(&mut obs, wid).await;
    assert_eq!(
        raised(&mut obs, "by_account_by_error", k, 1205).await,
        Some(1)
    );
    assert_eq!(
        raised(&mut obs, "by_user_by_error", &user("err_waiter"), 1064).await,
        Some(2)
    );
    assert_eq!(
        raised(&mut obs, "by_host_by_error", HOST, 1205).await,
        Some(1)
    );
    assert_eq!(
        raised(&mut obs, "global_by_error", GLOBAL, 1205).await,
        Some(1)
    );

    // TRUNCATE by thread: a live thread's counts go to its account.
    let hid = id(&mut holder).await;
    assert_eq!(code(holder.query_drop("SELEC 2").await).0, 1064);
    assert_eq!(thread_raised(&mut obs, hid, 1064).await, Some(1));
    (obs.query_drop("TRUNCATE TABLE performance_schema.events_errors_summary_by_thread_by_error"))
        .await
        .unwrap();
    assert_eq!(thread_raised(&mut obs, hid, 1064).await, Some(0));
    let holder_1064 = raised(&mut obs, "by_account_by_error", &holder_acct, 1064).await;
    assert_eq!(holder_1064, Some(1));

    // By account: the accounts' counts go to their users and hosts; an account without
    // connections has no rows left.
    (obs.query_drop("TRUNCATE TABLE performance_schema.events_errors_summary_by_account_by_error"))
        .await
        .unwrap();
    assert_eq!(raised(&mut obs, "by_account_by_error", k, 1205).await, None);
    assert_eq!(
        raised(&mut obs, "by_account_by_error", &holder_acct, 1064).await,
        Some(0)
    );
    assert_eq!(
        raised(&mut obs, "by_user_by_error", &user("err_waiter"), 1205).await,
        Some(1)
    );
    assert_eq!(
        raised(&mut obs, "by_user_by_error", &user("err_holder"), 1064).await,
        Some(1)
    );

    // By user: the users' counts go (the hosts' stay).
    (obs.query_drop("TRUNCATE TABLE performance_schema.events_errors_summary_by_user_by_error"))
        .await
        .unwrap();
    assert_eq!(
        raised(&mut obs, "by_user_by_error", &user("err_waiter"), 1205).await,
        None
    );
    assert_eq!(
        raised(&mut obs, "by_user_by_error", &user("err_holder"), 1064).await,
        Some(0)
    );
    assert_eq!(
        raised(&mut obs, "by_host_by_error", HOST, 1205).await,
        Some(1)
    );

    // By host: the hosts' go; the global summary keeps everything until its own truncate.
    (obs.query_drop("TRUNCATE TABLE performance_schema.events_errors_summary_by_host_by_error"))
        .await
        .unwrap();
    assert_eq!(
        raised(&mut obs, "by_host_by_error", HOST, 1205).await,
        Some(0)
    );
    assert_eq!(
        raised(&mut obs, "global_by_error", GLOBAL, 1205).await,
        Some(1)
    );
    assert_eq!(
        raised(&mut obs, "global_by_error", GLOBAL, 1064).await,
        Some(3)
    );
    (obs.query_drop("TRUNCATE TABLE performance_schema.events_errors_summary_global_by_error"))
        .await
        .unwrap();
    let after: (u64, Option<String>) = obs
        .query_first(
            "SELECT SUM_ERROR_RAISED, FIRST_SEEN \
             FROM performance_schema.events_errors_summary_global_by_error \
             WHERE ERROR_NUMBER = 1205",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after, (0, None));
    holder.disconnect().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tables_have_mysqls_columns() {
    let mut c = conn().await;
    let cols: Vec<(String, String)> = c
        .query(
            "SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'performance_schema' \
               AND TABLE_NAME = 'events_errors_summary_by_account_by_error' \
             ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    let names: Vec<&str> = cols.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "USER",
            "HOST",
            "ERROR_NUMBER",
            "ERROR_NAME",
            "SQL_STATE",
            "SUM_ERROR_RAISED",
            "SUM_ERROR_HANDLED",
            "FIRST_SEEN",
            "LAST_SEEN"
        ]
    );
    assert_eq!(cols[2].1, "int");
    assert_eq!(cols[7].1, "timestamp");
    let tables: Vec<String> = c
        .query("SHOW TABLES FROM performance_schema LIKE 'events_errors%'")
        .await
        .unwrap();
    assert_eq!(tables.len(), 5, "{tables:?}");
}
