//! A dump and a restore by the real tools: `mariadb-dump` (or `mysqldump`) dumps a schema of
//! this server, the `mariadb` (or `mysql`) client loads the dump into another schema, and the
//! tables, their definitions and a second dump are the same. Skipped, loudly, without the
//! clients (Debian's `mariadb-client`); `MDL_SERVER_REQUIRE_CLIENTS=1` (CI) makes that a
//! failure. Every client call is bounded in time.

mod common;

use std::time::Duration;

use common::clients::{run, tools_or_skip};
use common::*;
use mysql_async::prelude::*;
use mysql_async::Row;

/// Every row of every table of `schema`, and each table's definition, in name order.
async fn contents(c: &mut mysql_async::Conn, schema: &str) -> Vec<(String, String, Vec<Row>)> {
    let tables: Vec<String> = c.query(format!("SHOW TABLES FROM {schema}")).await.unwrap();
    let mut out = Vec::new();
    for t in tables {
        let (_, create): (String, String) = c
            .query_first(format!("SHOW CREATE TABLE {schema}.{t}"))
            .await
            .unwrap()
            .unwrap();
        let rows: Vec<Row> = c
            .query(format!("SELECT * FROM {schema}.{t} ORDER BY 1"))
            .await
            .unwrap();
        out.push((t, create, rows));
    }
    out
}
/// The client tools' arguments for `schema` of the server at `addr`.
fn schema_args(addr: std::net::SocketAddr, schema: &str) -> Vec<String> {
    let port = format!("-P{}", addr.port());
    vec!["-h127.0.0.1".into(), port, "-uroot".into(), schema.into()]
}

/// `dump` loaded by `client` into `schema`, within 90 s.
async fn restore(client: &str, addr: std::net::SocketAddr, schema: &str, dump: &str) {
    tokio::time::timeout(Duration::from_secs(90), async {
        tokio::task::block_in_place(|| run(client, &schema_args(addr, schema), Some(dump)))
    })
    .await
    .expect("the restore ends");
}

/// The dump without the lines that name the time or the schema.
fn stable(dump: &str) -> String {
    (dump.lines())
        .filter(|l| !l.starts_with("-- Dump completed") && !l.starts_with("-- Host:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dump_restores_to_the_same_tables() {
    let Some([dump_tool, client]) = tools_or_skip(
        "a_dump_restores_to_the_same_tables",
        [&["mariadb-dump", "mysqldump"], &["mariadb", "mysql"]],
    ) else {
        return;
    };
    let addr = server();
    let mut c = conn().await;
    c.query_drop("CREATE DATABASE dumped").await.unwrap();
    c.query_drop("CREATE DATABASE restored").await.unwrap();
    c.query_drop(
        "CREATE TABLE dumped.items (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(40) NOT NULL \
         DEFAULT '', price DECIMAL(10,2), note TEXT, made DATETIME, KEY name_k (name), \
         UNIQUE KEY name_price (name, price))",
    )
    .await
    .unwrap();
    c.query_drop("CREATE TABLE dumped.empty (k INT, v INT, PRIMARY KEY (k, v))")
        .await
        .unwrap();
    c.query_drop(
        "INSERT INTO dumped.items (name, price, note, made) VALUES \
         ('plain', 1.5, NULL, '2024-02-29 10:00:00'), \
         ('it''s \"quoted\"', NULL, 'back\\\\slash', NULL), \
         ('ünïcödé ✓', 0, 'tab\\there', '1999-12-31 23:59:59')",
    )
    .await
    .unwrap();
    // A row whose AUTO_INCREMENT id is 0, which only NO_AUTO_VALUE_ON_ZERO keeps: the dump sets
    // it around its rows, so the row comes back as 0.
    c.query_drop(
        "SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'; \
         INSERT INTO dumped.items (id, name) VALUES (0, 'zero'); SET sql_mode = ''",
    )
    .await
    .unwrap();

    let conn_args = |schema: &str| schema_args(addr, schema);
    let dump = tokio::task::block_in_place(|| run(&dump_tool, &conn_args("dumped"), None));
    assert!(dump.contains("CREATE TABLE `items`"), "{dump}");
    assert!(dump.contains("INSERT INTO `items` VALUES"), "{dump}");
    restore(&client, addr, "restored", &dump).await;

    let (before, after) = (
        contents(&mut c, "dumped").await,
        contents(&mut c, "restored").await,
    );
    assert_eq!(before.len(), 2);
    for ((t1, create1, rows1), (t2, create2, rows2)) in before.iter().zip(&after) {
        assert_eq!((t1, create1), (t2, create2));
        let (a, b): (Vec<_>, Vec<_>) = (
            rows1.iter().map(|r| r.clone().unwrap()).collect(),
            rows2.iter().map(|r| r.clone().unwrap()).collect(),
        );
        assert_eq!(a, b, "{t1}");
    }
    let again = tokio::task::block_in_place(|| run(&dump_tool, &conn_args("restored"), None));
    assert_eq!(stable(&dump), stable(&again));
    c.query_drop("DROP DATABASE dumped").await.unwrap();
    c.query_drop("DROP DATABASE restored").await.unwrap();
}

/// Views in a dump: `mariadb-dump` writes a placeholder view per view, then each view's
/// definition (`SHOW CREATE VIEW`, `information_schema.VIEWS`) in versioned comments; the
/// restore makes the same views, which answer the same, and a second dump is the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dump_of_views_restores_them() {
    let Some([dump_tool, client]) = tools_or_skip(
        "a_dump_of_views_restores_them",
        [&["mariadb-dump", "mysqldump"], &["mariadb", "mysql"]],
    ) else {
        return;
    };
    let addr = server();
    let mut c = conn().await;
    c.query_drop(
        "CREATE DATABASE dumped_v; CREATE DATABASE restored_v; USE dumped_v; \
         CREATE TABLE t (id INT PRIMARY KEY, n VARCHAR(10)); INSERT INTO t VALUES (1, 'x'), (2, 'y'); \
         CREATE VIEW v_all AS SELECT id, n FROM t; \
         CREATE VIEW v_top (k) AS SELECT MAX(id) FROM v_all WITH CHECK OPTION; USE test",
    )
    .await
    .unwrap();
    let args = |schema: &str| schema_args(addr, schema);
    let dump = tokio::task::block_in_place(|| run(&dump_tool, &args("dumped_v"), None));
    assert!(
        dump.contains("VIEW `v_top` (`k`) AS SELECT MAX(id) FROM v_all"),
        "{dump}"
    );
    restore(&client, addr, "restored_v", &dump).await;
    for schema in ["dumped_v", "restored_v"] {
        let k: Option<i64> = c
            .query_first(format!("SELECT k FROM {schema}.v_top"))
            .await
            .unwrap();
        assert_eq!(k, Some(2), "{schema}");
    }
    let again = tokio::task::block_in_place(|| run(&dump_tool, &args("restored_v"), None));
    assert_eq!(stable(&dump), stable(&again));
    c.query_drop("DROP DATABASE dumped_v; DROP DATABASE restored_v")
        .await
        .unwrap();
}

/// A schema whose tables a foreign key relates, the child first in the dump's (name) order:
/// the dump turns `FOREIGN_KEY_CHECKS` off around its load, so the child's key to a parent not
/// yet made and its rows load, and the restore has the same keys, which are checked after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dump_with_foreign_keys_restores_them() {
    let Some([dump_tool, client]) = tools_or_skip(
        "a_dump_with_foreign_keys_restores_them",
        [&["mariadb-dump", "mysqldump"], &["mariadb", "mysql"]],
    ) else {
        return;
    };
    let addr = server();
    let mut c = conn().await;
    c.query_drop(
        "CREATE DATABASE dumped_f; CREATE DATABASE restored_f; USE dumped_f; \
         CREATE TABLE b_parent (id INT PRIMARY KEY, n VARCHAR(10)); \
         CREATE TABLE a_child (id INT PRIMARY KEY, pid INT, \
           CONSTRAINT a_child_ibfk_1 FOREIGN KEY (pid) REFERENCES b_parent (id) ON DELETE CASCADE); \
         INSERT INTO b_parent VALUES (1, 'x'), (2, 'y'); INSERT INTO a_child VALUES (1, 1), (2, 2); \
         USE test",
    )
    .await
    .unwrap();
    let args = |schema: &str| schema_args(addr, schema);
    let dump = tokio::task::block_in_place(|| run(&dump_tool, &args("dumped_f"), None));
    assert!(dump.contains("FOREIGN_KEY_CHECKS=0"), "{dump}");
    assert!(
        dump.contains("CONSTRAINT `a_child_ibfk_1` FOREIGN KEY"),
        "{dump}"
    );
    restore(&client, addr, "restored_f", &dump).await;
    assert_eq!(
        contents(&mut c, "dumped_f").await.len(),
        contents(&mut c, "restored_f").await.len()
    );
    let again = tokio::task::block_in_place(|| run(&dump_tool, &args("restored_f"), None));
    assert_eq!(stable(&dump), stable(&again));
    // The restored key is enforced.
    let e = c
        .query_drop("INSERT INTO restored_f.a_child VALUES (3, 9)")
        .await;
    assert_eq!(code(e).0, 1452);
    c.query_drop("DELETE FROM restored_f.b_parent WHERE id = 1")
        .await
        .unwrap();
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM restored_f.a_child")
        .await
        .unwrap();
    assert_eq!(n, Some(1));
    c.query_drop("DROP DATABASE dumped_f; DROP DATABASE restored_f")
        .await
        .unwrap();
}

/// A table whose columns MySQL fills and stamps (`DEFAULT CURRENT_TIMESTAMP(3)`, `ON UPDATE
/// CURRENT_TIMESTAMP(6)`): the dump's `CREATE TABLE` loads with the same definition, the rows
/// keep their stamps, and the restored table goes on stamping its updated rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dump_of_auto_updated_columns_restores_them() {
    let Some([dump_tool, client]) = tools_or_skip(
        "a_dump_of_auto_updated_columns_restores_them",
        [&["mariadb-dump", "mysqldump"], &["mariadb", "mysql"]],
    ) else {
        return;
    };
    let addr = server();
    let mut c = conn().await;
    c.query_drop(
        "CREATE DATABASE dumped_t; CREATE DATABASE restored_t; \
         CREATE TABLE dumped_t.stamped (id INT PRIMARY KEY, v INT, \
           made DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), \
           touched TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)); \
         INSERT INTO dumped_t.stamped (id, v) VALUES (1, 1), (2, 2); \
         UPDATE dumped_t.stamped SET touched = '2000-01-01 00:00:00'",
    )
    .await
    .unwrap();
    let args = |schema: &str| schema_args(addr, schema);
    let dump = tokio::task::block_in_place(|| run(&dump_tool, &args("dumped_t"), None));
    assert!(
        dump.contains(
            "`touched` timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)"
        ),
        "{dump}"
    );
    restore(&client, addr, "restored_t", &dump).await;
    let (before, after) = (
        contents(&mut c, "dumped_t").await,
        contents(&mut c, "restored_t").await,
    );
    assert_eq!(before[0].1, after[0].1);
    let rows = |r: &[Row]| -> Vec<Vec<mysql_async::Value>> {
        r.iter().map(|r| r.clone().unwrap()).collect()
    };
    assert_eq!(rows(&before[0].2), rows(&after[0].2));
    let again = tokio::task::block_in_place(|| run(&dump_tool, &args("restored_t"), None));
    assert_eq!(stable(&dump), stable(&again));
    c.query_drop("UPDATE restored_t.stamped SET v = 5 WHERE id = 1")
        .await
        .unwrap();
    let touched: Vec<String> = c
        .query("SELECT CAST(touched AS CHAR) FROM restored_t.stamped ORDER BY id")
        .await
        .unwrap();
    assert!(
        touched[0].as_str() > "2020" && touched[1].starts_with("2000-01-01"),
        "{touched:?}"
    );
    c.query_drop("DROP DATABASE dumped_t; DROP DATABASE restored_t")
        .await
        .unwrap();
}
