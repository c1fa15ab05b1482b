//! `CREATE TEMPORARY TABLE` of a name the session already has as temporary, against other
//! sessions' locks, as in MySQL 8.0: the table takes no metadata lock, so another session's
//! global read lock or `LOCK TABLES` does not delay the 1050; the schema's IX is taken first
//! (`mysql_create_table_no_lock`, `sql/sql_table.cc`, then `create_table_impl`'s
//! `check_if_table_exists`), so a schema DDL in progress does.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

async fn ok(c: &mut Conn, sql: &str) {
    c.query_drop(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

async fn err(c: &mut Conn, sql: &str) -> (u16, String) {
    code(c.query_drop(sql).await)
}

/// 1050 at once (`lock_wait_timeout = 1` would make a wait 1205) while another session holds
/// the global read lock or `LOCK TABLES ... WRITE`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_sessions_table_locks_do_not_delay_the_1050() {
    let (mut a, mut b) = (conn().await, conn().await);
    ok(&mut a, "DROP TABLE IF EXISTS tmpl_base").await;
    ok(&mut a, "CREATE TABLE tmpl_base (a INT)").await;
    ok(&mut b, "SET SESSION lock_wait_timeout = 1").await;
    ok(&mut b, "CREATE TEMPORARY TABLE tmpl_t (a INT)").await;
    let exists = (1050, "42S01".to_string());
    for lock in ["FLUSH TABLES WITH READ LOCK", "LOCK TABLES tmpl_base WRITE"] {
        ok(&mut a, lock).await;
        bounded(lock, async {
            assert_eq!(
                err(&mut b, "CREATE TEMPORARY TABLE tmpl_t (a INT)").await,
                exists,
                "{lock}"
            );
            ok(
                &mut b,
                "CREATE TEMPORARY TABLE IF NOT EXISTS tmpl_t (a INT)",
            )
            .await;
            ok(&mut b, "CREATE TEMPORARY TABLE tmpl_t2 (a INT)").await;
            ok(&mut b, "DROP TEMPORARY TABLE tmpl_t2").await;
        })
        .await;
        ok(&mut a, "UNLOCK TABLES").await;
    }
    ok(&mut a, "DROP TABLE tmpl_base").await;
}

/// A `DROP DATABASE` waiting for a reader holds the schema's X: the session's CREATE
/// TEMPORARY TABLE there waits for the schema's IX before it finds its table (1205 after
/// `lock_wait_timeout`), with or without IF NOT EXISTS. Once the schema is gone, 1049 comes
/// before the table's 1050, as `mysql_create_table_no_lock` checks them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_1050_comes_under_the_schema_lock() {
    let (mut a, mut b, mut c, mut obs) = (conn().await, conn().await, conn().await, conn().await);
    ok(&mut a, "DROP DATABASE IF EXISTS tmpl_db").await;
    ok(&mut a, "CREATE DATABASE tmpl_db").await;
    ok(&mut a, "CREATE TABLE tmpl_db.r (a INT)").await;
    ok(&mut c, "CREATE TEMPORARY TABLE tmpl_db.x (a INT)").await;
    ok(&mut c, "SET SESSION lock_wait_timeout = 1").await;
    ok(&mut a, "BEGIN").await;
    ok(&mut a, "SELECT * FROM tmpl_db.r").await;
    let b_id = id(&mut b).await;
    let dropping = tokio::spawn(async move {
        ok(&mut b, "DROP DATABASE tmpl_db").await;
    });
    wait_state(&mut obs, b_id, "Waiting for table metadata lock").await;
    let timeout = (1205, "HY000".to_string());
    for sql in [
        "CREATE TEMPORARY TABLE tmpl_db.x (a INT)",
        "CREATE TEMPORARY TABLE IF NOT EXISTS tmpl_db.x (a INT)",
    ] {
        assert_eq!(bounded(sql, err(&mut c, sql)).await, timeout, "{sql}");
    }
    ok(&mut a, "COMMIT").await;
    bounded("DROP DATABASE after COMMIT", dropping)
        .await
        .unwrap();
    assert_eq!(
        err(&mut c, "CREATE TEMPORARY TABLE tmpl_db.x (a INT)")
            .await
            .0,
        1049
    );
    ok(&mut c, "DROP TEMPORARY TABLE tmpl_db.x").await;
}
