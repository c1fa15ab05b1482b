//! `COM_RESET_CONNECTION` (`mysql_async`'s `Conn::reset`, and its pool, which resets each
//! connection given back to it): the session becomes a new connection's on the same
//! connection, as MySQL's `THD::cleanup_connection`, and every lock the old session held goes.

mod common;

use std::time::Duration;

use common::*;
use mysql_async::prelude::*;
use mysql_async::{Opts, OptsBuilder, Pool, PoolConstraints, PoolOpts};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_releases_every_lock_and_keeps_the_connection() {
    let mut a = conn().await;
    let mut obs = conn().await;
    a.query_drop("CREATE TABLE reset_t (id INT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    a.query_drop("INSERT INTO reset_t VALUES (1, 1)")
        .await
        .unwrap();
    let me = id(&mut a).await;
    a.query_drop("SET @x = 5").await.unwrap();
    a.query_drop("SET SESSION lock_wait_timeout = 7")
        .await
        .unwrap();
    let got: Option<i64> = a
        .query_first("SELECT GET_LOCK('reset_ul', 0)")
        .await
        .unwrap();
    assert_eq!(got, Some(1));
    a.query_drop("BEGIN").await.unwrap();
    a.query_drop("UPDATE reset_t SET v = 2").await.unwrap();
    assert!(!locks_of(&mut obs, me).await.is_empty());

    assert!(
        a.reset().await.unwrap(),
        "the server takes COM_RESET_CONNECTION"
    );

    assert_eq!(id(&mut a).await, me, "the same connection");
    assert_eq!(locks_of(&mut obs, me).await, []);
    let free: Option<i64> = obs
        .query_first("SELECT IS_FREE_LOCK('reset_ul')")
        .await
        .unwrap();
    assert_eq!(free, Some(1));
    // The transaction was rolled back: its row is as before, and a DDL does not wait.
    let v: Option<i64> = obs.query_first("SELECT v FROM reset_t").await.unwrap();
    assert_eq!(v, Some(1));
    obs.query_drop("SET SESSION lock_wait_timeout = 2")
        .await
        .unwrap();
    obs.query_drop("ALTER TABLE reset_t ADD COLUMN w INT")
        .await
        .unwrap();
    // Session state is a new connection's; the current schema stays.
    let row: Option<(Option<i64>, i64, i64, String)> = a
        .query_first("SELECT @x, @@session.lock_wait_timeout, @@autocommit, DATABASE()")
        .await
        .unwrap();
    let global: Option<i64> = a
        .query_first("SELECT @@global.lock_wait_timeout")
        .await
        .unwrap();
    assert_eq!(row, Some((None, global.unwrap(), 1, "test".to_string())));
    // A client's own empty query is still MySQL's 1065, and the connection goes on.
    assert_eq!(code(a.query_drop("").await).0, 1065);
    a.query_drop("DROP TABLE reset_t").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_ends_lock_tables_and_the_global_read_lock() {
    let mut a = conn().await;
    let mut obs = conn().await;
    a.query_drop("CREATE TABLE reset_lt (id INT PRIMARY KEY)")
        .await
        .unwrap();
    let me = id(&mut a).await;
    for hold in [
        "LOCK TABLES reset_lt WRITE",
        "FLUSH TABLES WITH READ LOCK",
        "LOCK INSTANCE FOR BACKUP",
    ] {
        a.query_drop(hold).await.unwrap();
        assert!(!locks_of(&mut obs, me).await.is_empty(), "{hold}");
        assert!(a.reset().await.unwrap());
        assert_eq!(locks_of(&mut obs, me).await, [], "{hold}");
        obs.query_drop("SET SESSION lock_wait_timeout = 2")
            .await
            .unwrap();
        obs.query_drop("INSERT INTO reset_lt SELECT coalesce(max(id), 0) + 1 FROM reset_lt")
            .await
            .unwrap();
    }
    a.query_drop("DROP TABLE reset_lt").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pooled_connection_comes_back_without_the_last_users_locks() {
    let addr = server();
    let url = format!("mysql://root@{}:{}/test", addr.ip(), addr.port());
    let constraints = PoolConstraints::new(1, 1).expect("1..=1");
    let opts = OptsBuilder::from_opts(Opts::from_url(&url).expect("url"))
        .pool_opts(PoolOpts::default().with_constraints(constraints));
    let pool = Pool::new(opts);
    let mut obs = conn().await;
    let mut c = pool.get_conn().await.unwrap();
    let first = id(&mut c).await;
    let got: Option<i64> = c
        .query_first("SELECT GET_LOCK('reset_pooled', 0)")
        .await
        .unwrap();
    assert_eq!(got, Some(1));
    drop(c); // back to the pool, which resets it
    let mut c = tokio::time::timeout(Duration::from_secs(10), pool.get_conn())
        .await
        .expect("the pool gives the connection back")
        .unwrap();
    assert_eq!(id(&mut c).await, first, "the pool's one connection");
    let free: Option<i64> = obs
        .query_first("SELECT IS_FREE_LOCK('reset_pooled')")
        .await
        .unwrap();
    assert_eq!(free, Some(1));
    drop(c);
    pool.disconnect().await.unwrap();
}

/// `COM_CHANGE_USER` (`mysql_async`'s `change_user`, and its pool's reset where a server has no
/// `COM_RESET_CONNECTION`): a reset too, into the schema it names. This server has no
/// accounts: the login stays the handshake's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_user_resets_the_session_into_its_schema() {
    let mut a = conn().await;
    let mut obs = conn().await;
    a.query_drop("CREATE DATABASE IF NOT EXISTS reset_db")
        .await
        .unwrap();
    let me = id(&mut a).await;
    let got: Option<i64> = a
        .query_first("SELECT GET_LOCK('reset_cu', 0)")
        .await
        .unwrap();
    assert_eq!(got, Some(1));
    a.query_drop("SET @y = 1").await.unwrap();
    let opts = mysql_async::ChangeUserOpts::default().with_db_name(Some("reset_db".into()));
    tokio::time::timeout(Duration::from_secs(10), a.change_user(opts))
        .await
        .expect("change_user ends")
        .unwrap();
    assert_eq!(id(&mut a).await, me, "the same connection");
    assert_eq!(locks_of(&mut obs, me).await, []);
    let row: Option<(Option<i64>, String)> = a.query_first("SELECT @y, DATABASE()").await.unwrap();
    assert_eq!(row, Some((None, "reset_db".to_string())));
    a.query_drop("DROP DATABASE reset_db").await.unwrap();
}
