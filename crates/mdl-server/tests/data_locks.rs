//! `performance_schema.data_locks` and `data_lock_waits`: the engine's writer, the counterpart
//! here of InnoDB's row locks, as a DBA reads them to find who blocks an `UPDATE`, joined with
//! `threads`, `INNODB_TRX` and `sys.innodb_lock_waits`.

mod common;

use std::time::Duration;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// `(THREAD_ID, LOCK_STATUS, ENGINE, LOCK_TYPE, LOCK_MODE, OBJECT_NAME, ENGINE_TRANSACTION_ID,
/// ENGINE_LOCK_ID)`.
type Lock = (
    u64,
    String,
    String,
    String,
    String,
    Option<String>,
    Option<u64>,
    String,
);

/// `(REQUESTING_ENGINE_LOCK_ID, REQUESTING_ENGINE_TRANSACTION_ID, REQUESTING_THREAD_ID,
/// BLOCKING_ENGINE_LOCK_ID, BLOCKING_ENGINE_TRANSACTION_ID, BLOCKING_THREAD_ID)`.
type Wait = (String, Option<u64>, u64, String, Option<u64>, u64);

/// The `data_locks` rows of threads `ours` (`a, b`), granted first.
async fn locks(obs: &mut Conn, ours: &str) -> Vec<Lock> {
    obs.query(format!(
        "SELECT THREAD_ID, LOCK_STATUS, ENGINE, LOCK_TYPE, LOCK_MODE, OBJECT_NAME, \
         ENGINE_TRANSACTION_ID, ENGINE_LOCK_ID FROM performance_schema.data_locks \
         WHERE THREAD_ID IN ({ours}) ORDER BY LOCK_STATUS, THREAD_ID"
    ))
    .await
    .expect("data_locks")
}

/// The `data_lock_waits` rows of threads `ours`.
async fn waits(obs: &mut Conn, ours: &str) -> Vec<Wait> {
    obs.query(format!(
        "SELECT REQUESTING_ENGINE_LOCK_ID, REQUESTING_ENGINE_TRANSACTION_ID, \
         REQUESTING_THREAD_ID, BLOCKING_ENGINE_LOCK_ID, BLOCKING_ENGINE_TRANSACTION_ID, \
         BLOCKING_THREAD_ID FROM performance_schema.data_lock_waits \
         WHERE REQUESTING_THREAD_ID IN ({ours}) OR BLOCKING_THREAD_ID IN ({ours})"
    ))
    .await
    .expect("data_lock_waits")
}

/// `INNODB_TRX.trx_id` of connection `id`.
async fn trx_id(obs: &mut Conn, id: u64) -> u64 {
    obs.query_first(format!(
        "SELECT trx_id FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = {id}"
    ))
    .await
    .unwrap()
    .expect("a transaction")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_writer_s_holder_is_granted_and_blocks_each_waiter() {
    let mut obs = conn().await;
    let mut a = conn().await;
    let mut b = conn().await;
    fresh(&mut obs, "dl_t", "id INT PRIMARY KEY, v INT").await;
    obs.query_drop("INSERT INTO dl_t VALUES (1, 1)")
        .await
        .unwrap();
    let (ida, idb) = (id(&mut a).await, id(&mut b).await);
    let thread = "SELECT PS_CURRENT_THREAD_ID()";
    let ta: u64 = a.query_first(thread).await.unwrap().unwrap();
    let tb: u64 = b.query_first(thread).await.unwrap().unwrap();
    let ours = format!("{ta}, {tb}");
    assert_eq!(locks(&mut obs, &ours).await, []);

    // A's UPDATE takes the writer and holds it to the end of its transaction.
    a.query_drop("BEGIN").await.unwrap();
    a.query_drop("UPDATE dl_t SET v = v + 1 WHERE id = 1")
        .await
        .unwrap();
    let trx_a = trx_id(&mut obs, ida).await;
    let (lock_a, lock_b) = (format!("{ida}:writer"), format!("{idb}:writer"));
    let granted = |t: u64, trx: u64, lock: &str| -> Lock {
        let s = |s: &str| s.to_string();
        let status = s("GRANTED");
        (
            t,
            status,
            s("SQLite"),
            s("TABLE"),
            s("X"),
            None,
            Some(trx),
            s(lock),
        )
    };
    assert_eq!(locks(&mut obs, &ours).await, [granted(ta, trx_a, &lock_a)]);
    assert_eq!(waits(&mut obs, &ours).await, []);

    // B's UPDATE, in a transaction of its own, waits for it.
    b.query_drop("BEGIN").await.unwrap();
    b.query_drop("SELECT 1").await.unwrap();
    let trx_b = trx_id(&mut obs, idb).await;
    let update = "UPDATE dl_t SET v = 10 WHERE id = 1";
    let blocked = tokio::spawn(async move {
        let r = b.query_drop(update).await;
        (b, r)
    });
    wait_state(&mut obs, idb, "waiting for the engine's writer").await;
    let mut waiting = granted(tb, trx_b, &lock_b);
    waiting.1 = "WAITING".into();
    assert_eq!(
        locks(&mut obs, &ours).await,
        [granted(ta, trx_a, &lock_a), waiting]
    );
    assert_eq!(
        waits(&mut obs, &ours).await,
        [(
            lock_b.clone(),
            Some(trx_b),
            tb,
            lock_a.clone(),
            Some(trx_a),
            ta
        )]
    );
    // The DBA's join: the waiting statement and who blocks it, by process-list id.
    let who: Vec<(u64, u64, Option<String>)> = obs
        .query(format!(
            "SELECT rt.PROCESSLIST_ID, bt.PROCESSLIST_ID, rt.PROCESSLIST_INFO \
             FROM performance_schema.data_lock_waits w \
             JOIN performance_schema.data_locks r ON r.ENGINE_LOCK_ID = w.REQUESTING_ENGINE_LOCK_ID \
             JOIN performance_schema.threads rt ON rt.THREAD_ID = r.THREAD_ID \
             JOIN performance_schema.threads bt ON bt.THREAD_ID = w.BLOCKING_THREAD_ID \
             WHERE rt.PROCESSLIST_ID = {idb}"
        ))
        .await
        .unwrap();
    assert_eq!(who, [(idb, ida, Some(update.to_string()))]);
    // INNODB_TRX and sys.innodb_lock_waits name the same lock requests.
    let requested: Option<Option<String>> = obs
        .query_first(format!(
            "SELECT trx_requested_lock_id FROM information_schema.INNODB_TRX \
             WHERE trx_mysql_thread_id = {idb}"
        ))
        .await
        .unwrap();
    assert_eq!(requested, Some(Some(lock_b.clone())));
    let ids: Vec<(String, String, String)> = obs
        .query(format!(
            "SELECT waiting_lock_id, blocking_lock_id, locked_type FROM sys.innodb_lock_waits \
             WHERE waiting_pid = {idb}"
        ))
        .await
        .unwrap();
    assert_eq!(ids, [(lock_b.clone(), lock_a.clone(), "TABLE".to_string())]);

    // A commits: B's UPDATE gets the writer, which its transaction then holds.
    a.query_drop("COMMIT").await.unwrap();
    let (mut b, r) = tokio::time::timeout(Duration::from_secs(10), blocked)
        .await
        .expect("the update ends")
        .unwrap();
    r.unwrap();
    assert_eq!(locks(&mut obs, &ours).await, [granted(tb, trx_b, &lock_b)]);
    assert_eq!(waits(&mut obs, &ours).await, []);
    b.query_drop("COMMIT").await.unwrap();
    assert_eq!(locks(&mut obs, &ours).await, []);
    assert_eq!(waits(&mut obs, &ours).await, []);
    obs.query_drop("DROP TABLE dl_t").await.unwrap();
}
