//! MySQL 8.0's Performance Schema thread functions: `PS_CURRENT_THREAD_ID()`,
//! `PS_THREAD_ID(id)` and the sys schema's `sys.ps_thread_id(id)`, with which a DBA finds a
//! session's rows in `performance_schema`.

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thread_ids_are_the_sessions() {
    let mut c = conn().await;
    let me = id(&mut c).await;
    let listed: u64 = c
        .query_first(format!(
            "SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = {me}"
        ))
        .await
        .unwrap()
        .expect("a threads row");
    let ids: (u64, u64, u64, u64) = c
        .query_first(
            "SELECT PS_CURRENT_THREAD_ID(), PS_THREAD_ID(CONNECTION_ID()), \
             sys.ps_thread_id(NULL), sys.ps_thread_id(CONNECTION_ID())",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ids, (listed, listed, listed, listed));
    // Another connection's, from this one; NULL for NULL and for no connection.
    let mut other = conn().await;
    let other_id = id(&mut other).await;
    let theirs: u64 = other
        .query_first("SELECT PS_CURRENT_THREAD_ID()")
        .await
        .unwrap()
        .unwrap();
    let seen: (Option<u64>, Option<u64>, Option<u64>) = c
        .query_first(format!(
            "SELECT PS_THREAD_ID({other_id}), PS_THREAD_ID(NULL), PS_THREAD_ID(4000000000)"
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(seen, (Some(theirs), None, None));
    assert_ne!(theirs, listed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn own_locks_by_current_thread_id() {
    let mut c = conn().await;
    let got: i64 = c
        .query_first("SELECT GET_LOCK('tf_own', 0)")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, 1);
    // In a prepared statement too: the id is read when the statement runs.
    let names: Vec<String> = c
        .exec(
            "SELECT OBJECT_NAME FROM performance_schema.metadata_locks \
             WHERE OWNER_THREAD_ID = PS_CURRENT_THREAD_ID() AND OBJECT_TYPE = ?",
            ("USER LEVEL LOCK",),
        )
        .await
        .unwrap();
    assert_eq!(names, ["tf_own"]);
    let mut other = conn().await;
    let theirs: Vec<String> = other
        .query(
            "SELECT OBJECT_NAME FROM performance_schema.metadata_locks \
             WHERE OWNER_THREAD_ID = PS_CURRENT_THREAD_ID() AND OBJECT_NAME = 'tf_own'",
        )
        .await
        .unwrap();
    assert!(theirs.is_empty(), "{theirs:?}");
    c.query_drop("DO RELEASE_LOCK('tf_own')").await.unwrap();
}
