//! MySQL 8.0's diagnostics area through the real server: the notes of `DROP ... IF EXISTS` and
//! `CREATE ... IF NOT EXISTS`, a select's division by zero, the warning count of the OK packet
//! and of a result's end, `SHOW WARNINGS` / `SHOW ERRORS` / `SHOW COUNT(*)`,
//! `@@warning_count`, `@@error_count`, `sql_notes`, and which statements clear the area.

mod common;

use common::{code, conn};
use mysql_async::prelude::*;
use mysql_async::Conn;

/// `SHOW WARNINGS`' rows.
async fn shown(c: &mut Conn, show: &str) -> Vec<(String, u16, String)> {
    c.query(show).await.unwrap()
}

fn note(code: u16, message: &str) -> (String, u16, String) {
    ("Note".to_string(), code, message.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_if_exists_of_what_is_not_there_is_a_note_per_name() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE w_kept (a INT)").await.unwrap();
    c.query_drop("DROP TABLE IF EXISTS w_none1, w_kept, test.w_none2")
        .await
        .unwrap();
    assert_eq!(c.get_warnings(), 2, "the OK packet counts them");
    let want = vec![
        note(1051, "Unknown table 'test.w_none1'"),
        note(1051, "Unknown table 'test.w_none2'"),
    ];
    assert_eq!(shown(&mut c, "SHOW WARNINGS").await, want);
    // SHOW WARNINGS does not clear it, nor does SHOW COUNT(*).
    assert_eq!(shown(&mut c, "show warnings").await, want);
    let n: Option<(u64,)> = c.query_first("SHOW COUNT(*) WARNINGS").await.unwrap();
    assert_eq!(n, Some((2,)));
    let n: Option<(u64,)> = c.query_first("SHOW COUNT(*) ERRORS").await.unwrap();
    assert_eq!(n, Some((0,)));
    assert!(shown(&mut c, "SHOW ERRORS").await.is_empty());
    assert_eq!(shown(&mut c, "SHOW WARNINGS LIMIT 1, 5").await, want[1..]);
    // A select of the counts reads the previous statement's, and clears the area (MySQL's
    // DA_KEEP_COUNTS).
    let n: Option<(u64, u64)> = c
        .query_first("SELECT @@warning_count, @@session.error_count")
        .await
        .unwrap();
    assert_eq!(n, Some((2, 0)));
    assert!(shown(&mut c, "SHOW WARNINGS").await.is_empty());

    c.query_drop("DROP VIEW IF EXISTS w_no_view").await.unwrap();
    assert_eq!(c.get_warnings(), 1);
    let want = vec![note(1051, "Unknown table 'test.w_no_view'")];
    assert_eq!(shown(&mut c, "SHOW WARNINGS").await, want);
    c.query_drop("CREATE TABLE w_base (a INT)").await.unwrap();
    assert_eq!(c.get_warnings(), 0, "a statement without conditions");
    c.query_drop("DROP TEMPORARY TABLE IF EXISTS w_base")
        .await
        .unwrap();
    let want = vec![note(1051, "Unknown table 'test.w_base'")];
    assert_eq!(
        shown(&mut c, "SHOW WARNINGS").await,
        want,
        "no temporary one"
    );
    c.query_drop("DROP DATABASE IF EXISTS w_no_db")
        .await
        .unwrap();
    assert_eq!(c.get_warnings(), 1);
    let want = vec![note(
        1008,
        "Can't drop database 'w_no_db'; database doesn't exist",
    )];
    assert_eq!(shown(&mut c, "SHOW WARNINGS").await, want);
    c.query_drop("DROP TABLE w_base").await.unwrap();
    assert!(shown(&mut c, "SHOW WARNINGS").await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_if_not_exists_of_what_is_there_is_a_note() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE w_there (a INT)").await.unwrap();
    c.query_drop("CREATE TABLE IF NOT EXISTS w_there (b INT)")
        .await
        .unwrap();
    assert_eq!(c.get_warnings(), 1);
    let want = vec![note(1050, "Table 'w_there' already exists")];
    assert_eq!(shown(&mut c, "SHOW WARNINGS").await, want);
    c.query_drop("CREATE TEMPORARY TABLE w_tmp (a INT)")
        .await
        .unwrap();
    c.query_drop("CREATE TEMPORARY TABLE IF NOT EXISTS w_tmp (a INT)")
        .await
        .unwrap();
    let want = vec![note(1050, "Table 'w_tmp' already exists")];
    assert_eq!(shown(&mut c, "SHOW WARNINGS").await, want);
    c.query_drop("CREATE DATABASE IF NOT EXISTS test")
        .await
        .unwrap();
    assert_eq!(c.get_warnings(), 1);
    let want = vec![note(1007, "Can't create database 'test'; database exists")];
    assert_eq!(shown(&mut c, "SHOW WARNINGS").await, want);
    // An error replaces them, and is counted as a warning too.
    let (n, _) = code(c.query_drop("CREATE TABLE w_there (a INT)").await);
    assert_eq!(n, 1050);
    let rows = shown(&mut c, "SHOW WARNINGS").await;
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].0.as_str(), rows[0].1), ("Error", 1050));
    let n: Option<(u64, u64)> = c
        .query_first("SELECT @@warning_count, @@error_count")
        .await
        .unwrap();
    assert_eq!(n, Some((1, 1)));
    c.query_drop("DROP TABLE w_there").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_notes_off_keeps_no_notes() {
    let mut c = conn().await;
    let on: Option<i64> = c.query_first("SELECT @@sql_notes").await.unwrap();
    assert_eq!(on, Some(1));
    c.query_drop("SET sql_notes = 0").await.unwrap();
    let on: Option<i64> = c.query_first("SELECT @@session.sql_notes").await.unwrap();
    assert_eq!(on, Some(0));
    c.query_drop("DROP TABLE IF EXISTS w_quiet").await.unwrap();
    assert_eq!(c.get_warnings(), 0);
    assert!(shown(&mut c, "SHOW WARNINGS").await.is_empty());
    // Warnings are still kept.
    let _: Vec<Option<f64>> = c.query("SELECT 1/0").await.unwrap();
    assert_eq!(c.get_warnings(), 1);
    c.query_drop("SET sql_notes = ON").await.unwrap();
    c.query_drop("DROP TABLE IF EXISTS w_quiet").await.unwrap();
    assert_eq!(c.get_warnings(), 1);
    let (n, _) = code(c.query_drop("SET sql_notes = 2").await);
    assert_eq!(n, 1231);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn division_by_zero_in_a_select_is_a_warning_per_row() {
    let mut c = conn().await;
    let v: Vec<Option<f64>> = c.query("SELECT 1/0").await.unwrap();
    assert_eq!(v, vec![None]);
    assert_eq!(c.get_warnings(), 1, "the result's end counts it");
    let want = vec![("Warning".to_string(), 1365, "Division by 0".to_string())];
    assert_eq!(shown(&mut c, "SHOW WARNINGS").await, want);
    c.query_drop("CREATE TABLE w_rows (a INT)").await.unwrap();
    c.query_drop("INSERT INTO w_rows VALUES (1), (2), (3)")
        .await
        .unwrap();
    let _: Vec<(Option<i64>, Option<i64>)> = c
        .query("SELECT MOD(a, 0), a DIV 0 FROM w_rows")
        .await
        .unwrap();
    assert_eq!(c.get_warnings(), 6);
    let n: Option<(u64,)> = c.query_first("SHOW COUNT(*) WARNINGS").await.unwrap();
    assert_eq!(n, Some((6,)));
    // A prepared statement's result (the binary protocol) carries the count too.
    let _: Vec<Option<f64>> = c.exec("SELECT a / 0 FROM w_rows", ()).await.unwrap();
    assert_eq!(c.get_warnings(), 3);
    let _: Vec<Option<f64>> = c.query("SELECT a / 2 FROM w_rows").await.unwrap();
    assert_eq!(c.get_warnings(), 0);
    assert!(shown(&mut c, "SHOW WARNINGS").await.is_empty());
    c.query_drop("DROP TABLE w_rows").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_that_ends_like_a_marker_is_sent_as_it_is() {
    let mut c = conn().await;
    // A row whose first column is empty and whose last ends as the warnings marker does,
    // without the process's key (`wire/warnings.rs`): a row, not an OK packet to rewrite.
    let forged = "\u{1}mdl:warnings:00001";
    let rows: Vec<(String, String)> = c.exec("SELECT '', ?", (forged,)).await.unwrap();
    assert_eq!(rows, [(String::new(), forged.to_string())]);
    let rows: Vec<(String, String)> = c
        .query("SELECT '', CONCAT(CHAR(1), 'mdl:warnings:00001')")
        .await
        .unwrap();
    assert_eq!(rows, [(String::new(), forged.to_string())]);
    assert_eq!(c.get_warnings(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_prepare_leaves_its_error_in_the_area() {
    let mut c = conn().await;
    let _: Vec<Option<f64>> = c.query("SELECT 1/0").await.unwrap();
    // COM_STMT_PREPARE of a syntax error: the area holds it alone (`mysqld_stmt_prepare`
    // clears it first).
    let (n, _) = code(c.prep("SELEC 1").await);
    assert_eq!(n, 1064);
    let rows = shown(&mut c, "SHOW WARNINGS").await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!((rows[0].0.as_str(), rows[0].1), ("Error", 1064));
    assert_eq!(shown(&mut c, "SHOW ERRORS").await, rows);
    // Of an unknown table, read by @@error_count.
    let (n, _) = code(c.prep("SELECT * FROM w_no_such_table").await);
    assert_eq!(n, 1146);
    let counts: Option<(u64, u64)> = c
        .query_first("SELECT @@warning_count, @@error_count")
        .await
        .unwrap();
    assert_eq!(counts, Some((1, 1)));
    assert!(shown(&mut c, "SHOW WARNINGS").await.is_empty());
    let (n, _) = code(c.prep("SELECT * FROM w_no_such_table").await);
    assert_eq!(n, 1146);
    let message = "Table 'test.w_no_such_table' doesn't exist".to_string();
    let rows = shown(&mut c, "SHOW WARNINGS").await;
    assert_eq!(rows, [("Error".to_string(), 1146, message)]);
    // A prepare that succeeds clears it.
    let _ = c.prep("SELECT 1").await.unwrap();
    assert!(shown(&mut c, "SHOW WARNINGS").await.is_empty());
}
