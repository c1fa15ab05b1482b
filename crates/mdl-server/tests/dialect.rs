//! MySQL's dialect where SQLite's differs, through the wire: `FROM DUAL`, `INSERT ... SET`,
//! `INSERT IGNORE`, `ON DUPLICATE KEY UPDATE ... VALUES(col)`, and MySQL 8.0's atomic
//! `DROP TABLE` of several tables.

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn from_dual_is_no_table() {
    let mut c = conn().await;
    let one: i64 = c.query_first("SELECT 1 FROM DUAL").await.unwrap().unwrap();
    assert_eq!(one, 1);
    let stmt = c.prep("SELECT ? + 1 FROM dual").await.unwrap();
    let two: i64 = c.exec_first(&stmt, (1,)).await.unwrap().unwrap();
    assert_eq!(two, 2);
    let me = id(&mut c).await;
    c.query_drop("BEGIN").await.unwrap();
    c.query_drop("SELECT 1 FROM DUAL").await.unwrap();
    let mut obs = conn().await;
    assert!(
        locks_of(&mut obs, me).await.is_empty(),
        "DUAL takes no metadata lock"
    );
    c.query_drop("COMMIT").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_insert_forms() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE di_kv (k INT PRIMARY KEY, v INT, n INT DEFAULT 0)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO di_kv SET k = 1, v = 10")
        .await
        .unwrap();
    c.query_drop("INSERT IGNORE INTO di_kv VALUES (1, 99, 0), (2, 20, 0)")
        .await
        .unwrap();
    let rows: Vec<(i64, i64, i64)> = c
        .query("SELECT k, v, n FROM di_kv ORDER BY k")
        .await
        .unwrap();
    assert_eq!(
        rows,
        [(1, 10, 0), (2, 20, 0)],
        "IGNORE skipped the duplicate"
    );
    c.query_drop(
        "INSERT INTO di_kv (k, v) VALUES (1, 11), (3, 30) \
         ON DUPLICATE KEY UPDATE v = VALUES(v) + 100, n = n + 1",
    )
    .await
    .unwrap();
    let stmt = c
        .prep("INSERT INTO di_kv (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE n = n + 1")
        .await
        .unwrap();
    c.exec_drop(&stmt, (2, 0)).await.unwrap();
    let rows: Vec<(i64, i64, i64)> = c
        .query("SELECT k, v, n FROM di_kv ORDER BY k")
        .await
        .unwrap();
    assert_eq!(rows, [(1, 111, 1), (2, 20, 1), (3, 30, 0)]);
    let (n, _) = code(c.query_drop("INSERT INTO di_kv SET k = 1, v = 1").await);
    assert_eq!(n, 1062, "a plain INSERT still refuses the duplicate");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_of_several_tables_drops_all_or_none() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE di_a (x INT)").await.unwrap();
    c.query_drop("CREATE TABLE di_b (x INT)").await.unwrap();
    let e = c
        .query_drop("DROP TABLE di_a, di_nosuch, di_b, di_nosuch2")
        .await
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("Unknown table 'test.di_nosuch,test.di_nosuch2'"),
        "{e}"
    );
    let left: Vec<String> = c.query("SHOW TABLES LIKE 'di\\_%'").await.unwrap();
    assert!(
        left.contains(&"di_a".to_string()) && left.contains(&"di_b".to_string()),
        "nothing dropped: {left:?}"
    );
    c.query_drop("DROP TABLE IF EXISTS di_a, di_nosuch")
        .await
        .unwrap();
    c.query_drop("DROP TABLE di_b").await.unwrap();
    let left: Vec<String> = c.query("SHOW TABLES LIKE 'di\\_%'").await.unwrap();
    assert!(!left.iter().any(|t| t == "di_a" || t == "di_b"), "{left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn like_escapes_with_a_backslash_as_mysql() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE di_like (c TEXT)").await.unwrap();
    c.query_drop("INSERT INTO di_like VALUES ('a_b'), ('axb'), ('a%')")
        .await
        .unwrap();
    let hits: Vec<String> = c
        .query("SELECT c FROM di_like WHERE c LIKE 'a\\_b' ORDER BY c")
        .await
        .unwrap();
    assert_eq!(hits, ["a_b"], "\\_ is a literal underscore");
    let hits: Vec<String> = c
        .query("SELECT c FROM di_like WHERE c LIKE 'a|%' ESCAPE '|'")
        .await
        .unwrap();
    assert_eq!(hits, ["a%"]);
    let all: Vec<String> = c
        .query("SELECT c FROM di_like WHERE c LIKE 'a_b' ORDER BY c")
        .await
        .unwrap();
    assert_eq!(all, ["a_b", "axb"]);
}
