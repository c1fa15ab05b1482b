//! As many schemas as the server promises (27: SQLite attaches 30 databases as the workspace
//! builds it, three of them the view schemas), each usable from a new connection, and a clear
//! 1235 past them. In a test binary of its own: it fills the server's schemas.

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_seven_schemas_then_1235() {
    let mut c = conn().await;
    // `test` is the first; 26 more.
    for i in 1..27 {
        c.query_drop(format!("CREATE DATABASE sc_{i}"))
            .await
            .unwrap();
        c.query_drop(format!("CREATE TABLE sc_{i}.t (x INT)"))
            .await
            .unwrap();
        c.query_drop(format!("INSERT INTO sc_{i}.t VALUES ({i})"))
            .await
            .unwrap();
    }
    let (n, _) = code(c.query_drop("CREATE DATABASE sc_27").await);
    assert_eq!(n, 1235, "past the last schema SQLite can attach");
    // A new connection attaches every one of them.
    let mut fresh = conn().await;
    let sum: i64 = fresh
        .query_first("SELECT (SELECT x FROM sc_1.t) + (SELECT x FROM sc_26.t)")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sum, 27);
    let dbs: Vec<String> = fresh.query("SHOW DATABASES").await.unwrap();
    assert_eq!(dbs.iter().filter(|d| d.starts_with("sc_")).count(), 26);
}
