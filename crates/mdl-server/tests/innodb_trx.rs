//! `information_schema.INNODB_TRX` and `sys.innodb_lock_waits`: the open transactions and
//! who waits for whom on the engine's writer, as a DBA reads them to find the transaction
//! behind a pile-up.

mod common;

use std::time::Duration;

use common::*;
use mysql_async::prelude::*;

/// `(trx_mysql_thread_id, trx_state, trx_rows_modified, trx_query)` of every open
/// transaction, by connection id.
async fn transactions(c: &mut mysql_async::Conn) -> Vec<(u64, String, u64, Option<String>)> {
    c.query(
        "SELECT trx_mysql_thread_id, trx_state, trx_rows_modified, trx_query \
         FROM information_schema.INNODB_TRX ORDER BY trx_mysql_thread_id",
    )
    .await
    .expect("INNODB_TRX")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_transactions_are_listed_with_their_state_and_rows() {
    let mut obs = conn().await;
    let mut a = conn().await;
    let mut b = conn().await;
    let (ida, idb) = (id(&mut a).await, id(&mut b).await);
    obs.query_drop("CREATE TABLE trx_t (id INT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    obs.query_drop("INSERT INTO trx_t VALUES (1, 1), (2, 2)")
        .await
        .unwrap();
    let mine = |rows: Vec<(u64, String, u64, Option<String>)>| -> Vec<_> {
        rows.into_iter()
            .filter(|r| r.0 == ida || r.0 == idb)
            .collect()
    };

    // BEGIN alone starts nothing InnoDB would show; a statement does.
    a.query_drop("BEGIN").await.unwrap();
    assert_eq!(mine(transactions(&mut obs).await), []);
    a.query_drop("UPDATE trx_t SET v = v + 1").await.unwrap();
    a.query_drop("INSERT INTO trx_t VALUES (3, 3)")
        .await
        .unwrap();
    assert_eq!(
        mine(transactions(&mut obs).await),
        [(ida, "RUNNING".to_string(), 3, None)]
    );
    // An autocommit statement is not listed once it is done.
    b.query_drop("SELECT COUNT(*) FROM trx_t").await.unwrap();
    assert_eq!(mine(transactions(&mut obs).await).len(), 1);

    // A writer that waits for the engine's writer is in LOCK WAIT, with its statement.
    b.query_drop("BEGIN").await.unwrap();
    b.query_drop("SELECT 1").await.unwrap();
    let insert = tokio::spawn(async move {
        let r = b.query_drop("INSERT INTO trx_t VALUES (4, 4)").await;
        (b, r)
    });
    let t0 = std::time::Instant::now();
    loop {
        let rows = mine(transactions(&mut obs).await);
        let waiting = rows.iter().find(|r| r.0 == idb);
        if let Some(w) = waiting.filter(|w| w.1 == "LOCK WAIT") {
            assert_eq!(w.3.as_deref(), Some("INSERT INTO trx_t VALUES (4, 4)"));
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "never waited: {rows:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // sys.innodb_lock_waits names the writer's holder and how to end it.
    let waits: Vec<(u64, u64, String, Option<u64>)> = obs
        .query(
            "SELECT waiting_pid, blocking_pid, sql_kill_blocking_connection, blocking_trx_id \
             FROM sys.innodb_lock_waits",
        )
        .await
        .unwrap();
    let ours: Vec<_> = waits.iter().filter(|w| w.0 == idb).collect();
    assert_eq!(ours.len(), 1, "{waits:?}");
    assert_eq!(
        (ours[0].1, ours[0].2.as_str()),
        (ida, &*format!("KILL {ida}"))
    );
    assert!(ours[0].3.is_some(), "the blocker's transaction");
    // The DBA's join: the connection of the oldest transaction, to KILL.
    let oldest: Option<u64> = obs
        .query_first(format!(
            "SELECT p.ID FROM information_schema.INNODB_TRX t \
             JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id \
             WHERE p.ID IN ({ida}, {idb}) ORDER BY t.trx_started, t.trx_id LIMIT 1"
        ))
        .await
        .unwrap();
    assert_eq!(oldest, Some(ida));

    a.query_drop("COMMIT").await.unwrap();
    let (mut b, r) = tokio::time::timeout(Duration::from_secs(10), insert)
        .await
        .expect("the insert ends")
        .unwrap();
    r.unwrap();
    assert_eq!(
        mine(transactions(&mut obs).await),
        [(idb, "RUNNING".to_string(), 1, None)]
    );
    b.query_drop("ROLLBACK").await.unwrap();
    assert_eq!(mine(transactions(&mut obs).await), []);
    obs.query_drop("DROP TABLE trx_t").await.unwrap();
}
