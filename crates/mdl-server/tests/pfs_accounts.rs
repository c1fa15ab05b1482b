//! `performance_schema.accounts`, `users` and `hosts` through a real client: connections as
//! `root` from 127.0.0.1 (the account the tests log in as) count as current while open and
//! stay in the total when closed; the tables filter, sort and join with `threads` as
//! MySQL's; `TRUNCATE TABLE` resets them as MySQL does; they are listed with MySQL's columns.
//! One test: the counts are the process's.

mod common;

use std::time::{Duration, Instant};

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// (CURRENT_CONNECTIONS, TOTAL_CONNECTIONS) of the row of `table` whose `WHERE` is `key`.
async fn counts(obs: &mut Conn, table: &str, key: &str) -> (i64, i64) {
    obs.query_first(format!(
        "SELECT CURRENT_CONNECTIONS, TOTAL_CONNECTIONS FROM performance_schema.{table} \
         WHERE {key}"
    ))
    .await
    .unwrap()
    .unwrap_or((0, 0))
}

const ROOT: &str = "USER = 'root' AND HOST = '127.0.0.1'";

async fn root(obs: &mut Conn) -> (i64, i64) {
    counts(obs, "accounts", ROOT).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_counted_per_account_user_and_host() {
    let mut obs = conn().await;
    let (cur0, tot0) = root(&mut obs).await;
    assert!(cur0 >= 1 && tot0 >= cur0, "{cur0} {tot0}");

    // Two more connections: current and total both grow by two, in the three tables (only
    // root@127.0.0.1 connects in this test binary).
    let a = conn().await;
    let mut b = conn().await;
    let (cur, tot) = root(&mut obs).await;
    assert_eq!((cur, tot), (cur0 + 2, tot0 + 2));
    assert_eq!(counts(&mut obs, "users", "USER = 'root'").await, (cur, tot));
    assert_eq!(
        counts(&mut obs, "hosts", "HOST = '127.0.0.1'").await,
        (cur, tot)
    );

    // Each live connection of the account is one of its threads.
    let joined: (String, i64, i64) = obs
        .query_first(
            "SELECT a.USER, a.CURRENT_CONNECTIONS, COUNT(t.THREAD_ID) \
             FROM performance_schema.accounts a JOIN performance_schema.threads t \
               ON t.PROCESSLIST_USER = a.USER AND t.PROCESSLIST_HOST = a.HOST \
             WHERE a.USER = 'root' GROUP BY a.USER, a.HOST, a.CURRENT_CONNECTIONS",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(joined, ("root".to_string(), cur, cur));

    // One disconnects: current drops, total does not.
    let b_id = id(&mut b).await;
    b.disconnect().await.unwrap();
    wait_gone(&mut obs, b_id).await;
    let t0 = Instant::now();
    while root(&mut obs).await.0 != cur0 + 1 {
        assert!(t0.elapsed() < Duration::from_secs(10), "never dropped");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(root(&mut obs).await, (cur0 + 1, tot0 + 2));
    assert_eq!(
        counts(&mut obs, "users", "USER = 'root'").await,
        (cur0 + 1, tot0 + 2)
    );

    // WHERE and ORDER BY over the snapshot; at most one NULL row (the server's own threads).
    let rows: Vec<(Option<String>, Option<String>)> = obs
        .query(
            "SELECT USER, HOST FROM performance_schema.accounts \
             WHERE TOTAL_CONNECTIONS > 0 ORDER BY USER IS NULL, USER, HOST",
        )
        .await
        .unwrap();
    assert_eq!(
        rows.first(),
        Some(&(Some("root".into()), Some("127.0.0.1".into())))
    );
    assert!(rows.iter().skip(1).all(|r| *r == (None, None)), "{rows:?}");

    // TRUNCATE: the account counts its live connections only; the user keeps its total until
    // it is truncated itself (MySQL's purge_all_account, then purge_all_user).
    obs.query_drop("TRUNCATE TABLE performance_schema.accounts")
        .await
        .unwrap();
    assert_eq!(root(&mut obs).await, (cur0 + 1, cur0 + 1));
    assert_eq!(
        counts(&mut obs, "users", "USER = 'root'").await,
        (cur0 + 1, tot0 + 2)
    );
    obs.query_drop("TRUNCATE TABLE performance_schema.users")
        .await
        .unwrap();
    assert_eq!(
        counts(&mut obs, "users", "USER = 'root'").await,
        (cur0 + 1, cur0 + 1)
    );
    obs.query_drop("TRUNCATE TABLE performance_schema.hosts")
        .await
        .unwrap();
    assert_eq!(
        counts(&mut obs, "hosts", "HOST = '127.0.0.1'").await,
        (cur0 + 1, cur0 + 1)
    );
    // Other writes are refused, as MySQL's (1142).
    let denied = obs
        .query_drop("DELETE FROM performance_schema.accounts")
        .await;
    assert_eq!(code(denied).0, 1142);
    drop(a);
    listed_with_mysql_columns(&mut obs).await;
}

/// The tables are listed, their columns MySQL 8.0.31's.
async fn listed_with_mysql_columns(c: &mut Conn) {
    let tables: Vec<String> = c
        .query("SHOW TABLES FROM performance_schema")
        .await
        .unwrap();
    for t in ["accounts", "users", "hosts"] {
        assert!(tables.iter().any(|n| n == t), "{t}: {tables:?}");
    }
    let columns: Vec<(String, String, String)> = c
        .query(
            "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'performance_schema' AND TABLE_NAME = 'accounts' \
             ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    let want = [
        ("USER", "char(32)", "YES"),
        ("HOST", "char(255)", "YES"),
        ("CURRENT_CONNECTIONS", "bigint", "NO"),
        ("TOTAL_CONNECTIONS", "bigint", "NO"),
        ("MAX_SESSION_CONTROLLED_MEMORY", "bigint unsigned", "NO"),
        ("MAX_SESSION_TOTAL_MEMORY", "bigint unsigned", "NO"),
    ];
    let got: Vec<(&str, &str, &str)> = (columns.iter())
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    assert_eq!(got, want);
    let hosts: Vec<String> = c
        .query(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = \
             'performance_schema' AND TABLE_NAME = 'hosts' ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    assert_eq!(hosts.len(), 5);
    assert_eq!(hosts[0], "HOST");
}
