//! The session's `time_zone`: an offset a session sets moves its clock functions and no
//! other session's; a named zone is 1298, as in a MySQL without time zone tables.

mod common;

use common::*;
use mysql_async::prelude::*;

/// `(@@time_zone, NOW() - UTC_TIMESTAMP() in minutes)` of a connection.
async fn zone(c: &mut mysql_async::Conn) -> (String, i64) {
    c.query_first("SELECT @@time_zone, TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW())")
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offset_moves_the_sessions_clock() {
    let mut c = conn().await;
    let mut other = conn().await;
    assert_eq!(zone(&mut c).await, ("SYSTEM".into(), 0));
    c.query_drop("SET time_zone = '+2:00'").await.unwrap();
    assert_eq!(zone(&mut c).await, ("+02:00".into(), 120));
    assert_eq!(zone(&mut other).await, ("SYSTEM".into(), 0));
    // The epoch in the session's zone, both ways; a prepared statement reads it too.
    let epoch: (String, i64) = c
        .query_first("SELECT FROM_UNIXTIME(0), UNIX_TIMESTAMP('1970-01-01 03:00:00')")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(epoch, ("1970-01-01 02:00:00".into(), 3600));
    let minutes: i64 = c
        .exec_first(
            "SELECT TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW()) + ?",
            (0,),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(minutes, 120);
    // sqlx's connect sets it in a list.
    c.query_drop("SET sql_mode = '', time_zone = '-05:30', NAMES utf8mb4")
        .await
        .unwrap();
    assert_eq!(zone(&mut c).await, ("-05:30".into(), -330));
    c.query_drop("SET time_zone = DEFAULT").await.unwrap();
    assert_eq!(zone(&mut c).await, ("SYSTEM".into(), 0));
    // A connection reset (a pool taking the connection back) starts from SYSTEM again.
    c.query_drop("SET @@session.time_zone = '+01:00'")
        .await
        .unwrap();
    c.reset().await.unwrap();
    assert_eq!(zone(&mut c).await, ("SYSTEM".into(), 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zones_the_server_cannot_take_are_refused() {
    let mut c = conn().await;
    for (stmt, want) in [
        ("SET time_zone = 'Europe/Paris'", 1298),
        ("SET time_zone = '+14:01'", 1298),
        ("SET GLOBAL time_zone = '+01:00'", 1235),
    ] {
        assert_eq!(code(c.query_drop(stmt).await).0, want, "{stmt}");
    }
    assert_eq!(zone(&mut c).await, ("SYSTEM".into(), 0));
    // A SET that fails sets nothing; the values are read before any is set.
    let set = "SET time_zone = '+01:00', lock_wait_timeout = 'x'";
    assert_eq!(code(c.query_drop(set).await).0, 1232);
    assert_eq!(zone(&mut c).await, ("SYSTEM".into(), 0));
    c.query_drop("SET time_zone = '+01:00', @tz_before = @@time_zone")
        .await
        .unwrap();
    let before: String = c.query_first("SELECT @tz_before").await.unwrap().unwrap();
    assert_eq!((before.as_str(), zone(&mut c).await.1), ("SYSTEM", 60));
    c.query_drop("SET time_zone = DEFAULT").await.unwrap();
    let global: String = c
        .query_first("SELECT @@global.time_zone")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(global, "SYSTEM");
}
