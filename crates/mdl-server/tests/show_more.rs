//! The `SHOW`s a DBA or a tool sends that this server answers as a MySQL 8.0 server that is no
//! replica: `SHOW WARNINGS | ERRORS LIMIT ...`, checked with a real client (`mysql_async`).

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_warnings_and_errors_take_a_limit() {
    let mut c = conn().await;
    let (n, _) = code(c.query_drop("SELECT LPAD('x', 2)").await);
    assert_eq!(n, 1582);
    for (show, want) in [
        ("SHOW WARNINGS LIMIT 1", 1),
        ("SHOW WARNINGS LIMIT 0", 0),
        ("SHOW ERRORS LIMIT 0, 1", 1),
        ("SHOW ERRORS LIMIT 1, 1", 0),
        ("show warnings limit 5 offset 0", 1),
        ("SHOW WARNINGS LIMIT 1 OFFSET 1", 0),
    ] {
        let rows: Vec<(String, u16, String)> = c.query(show).await.unwrap();
        assert_eq!(rows.len(), want, "{show}: {rows:?}");
        if let Some(r) = rows.first() {
            assert_eq!((r.0.as_str(), r.1), ("Error", 1582), "{show}");
        }
    }
    // As a prepared statement too.
    let rows: Vec<(String, u16, String)> = c.exec("SHOW ERRORS LIMIT 1", ()).await.unwrap();
    assert_eq!(rows.len(), 1, "the error is still there");
    // A LIMIT MySQL's grammar refuses is a syntax error, which is then what SHOW WARNINGS shows.
    let (n, state) = code(c.query_drop("SHOW WARNINGS LIMIT 'a'").await);
    assert_eq!((n, state.as_str()), (1064, "42000"));
    let rows: Vec<(String, u16, String)> = c.query("SHOW WARNINGS LIMIT 1").await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].1, 1064);
    assert!(rows[0].2.contains("near ''a''"), "{}", rows[0].2);
    c.query_drop("SELECT 1").await.unwrap();
    let rows: Vec<(String, u16, String)> = c.query("SHOW ERRORS LIMIT 10").await.unwrap();
    assert!(rows.is_empty(), "{rows:?}");
}
