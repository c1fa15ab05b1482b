//! The names a client sees for result columns without an alias: MySQL's, the item's text as
//! the client wrote it (`rewrite/header.rs`), a column as spelled, a string by its value.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::{Conn, Row};

/// The column names of `sql`'s result (which has a row).
async fn names(c: &mut Conn, sql: &str) -> Vec<String> {
    let rows: Vec<Row> = c.query(sql).await.unwrap();
    let row = rows.first().unwrap_or_else(|| panic!("{sql}: no row"));
    (row.columns_ref().iter())
        .map(|col| col.name_str().into_owned())
        .collect()
}

async fn table(c: &mut Conn, name: &str) {
    c.query_drop(format!("DROP TABLE IF EXISTS {name}"))
        .await
        .unwrap();
    c.query_drop(format!("CREATE TABLE {name} (id INT, v INT, name TEXT)"))
        .await
        .unwrap();
    c.query_drop(format!("INSERT INTO {name} VALUES (1, 2, 'abcdef')"))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expression_is_named_by_its_text() {
    let mut c = conn().await;
    table(&mut c, "hd_expr").await;
    assert_eq!(
        names(
            &mut c,
            "SELECT v+1, v  +  1, CONCAT(name,'x'), (v+1), -v, 1/0 FROM hd_expr"
        )
        .await,
        ["v+1", "v  +  1", "CONCAT(name,'x')", "(v+1)", "-v", "1/0"]
    );
    assert_eq!(
        names(&mut c, "SELECT COUNT(*) FROM hd_expr").await,
        ["COUNT(*)"]
    );
    assert_eq!(
        names(
            &mut c,
            "SELECT CASE WHEN v > 1 THEN 'a' ELSE 'b' END, SUBSTRING(name FROM 1 FOR 2) FROM hd_expr"
        )
        .await,
        [
            "CASE WHEN v > 1 THEN 'a' ELSE 'b' END",
            "SUBSTRING(name FROM 1 FOR 2)"
        ]
    );
    assert_eq!(
        names(&mut c, "SELECT (SELECT MAX(v) FROM hd_expr)").await,
        ["(SELECT MAX(v) FROM hd_expr)"]
    );
    // A versioned comment's content is the statement's text.
    assert_eq!(
        names(&mut c, "SELECT /*! v+1 */ FROM hd_expr").await,
        ["v+1"]
    );
    c.query_drop("DROP TABLE hd_expr").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_and_characters_of_the_text_are_kept() {
    let mut c = conn().await;
    table(&mut c, "hd_text").await;
    assert_eq!(
        names(
            &mut c,
            "SELECT\n  v\n    + 1,\n  name -- the name\nFROM hd_text"
        )
        .await,
        ["v\n    + 1", "name"]
    );
    assert_eq!(
        names(
            &mut c,
            "SELECT 'ü', CONCAT(name, 'é日本') , v*2 FROM hd_text"
        )
        .await,
        ["ü", "CONCAT(name, 'é日本')", "v*2"]
    );
    c.query_drop("DROP TABLE hd_text").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn literals_and_columns_name_themselves() {
    let mut c = conn().await;
    table(&mut c, "hd_lit").await;
    assert_eq!(
        names(
            &mut c,
            "SELECT 'abc', '', NULL, 1.50, (1), t.v, ID FROM hd_lit t"
        )
        .await,
        ["abc", "", "NULL", "1.50", "1", "v", "ID"]
    );
    c.query_drop("DROP TABLE hd_lit").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_branch_of_a_union_names_the_columns() {
    let mut c = conn().await;
    table(&mut c, "hd_union").await;
    assert_eq!(
        names(
            &mut c,
            "SELECT v+1, 'x' FROM hd_union UNION ALL SELECT v * 2, 'y' FROM hd_union"
        )
        .await,
        ["v+1", "x"]
    );
    // A derived table's columns are named by its items' text, as MySQL's are.
    assert_eq!(
        names(&mut c, "SELECT `v+1` FROM (SELECT v+1 FROM hd_union) d").await,
        ["v+1"]
    );
    c.query_drop("DROP TABLE hd_union").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_statement_is_named_by_its_prepared_text() {
    let mut c = conn().await;
    table(&mut c, "hd_prep").await;
    let stmt = c
        .prep("SELECT v+?, ?, CONCAT(name,?) FROM hd_prep WHERE v = ?")
        .await
        .unwrap();
    let expected = ["v+?", "?", "CONCAT(name,?)"];
    let prepared: Vec<String> = (stmt.columns().iter())
        .map(|col| col.name_str().into_owned())
        .collect();
    assert_eq!(prepared, expected);
    for run in 0..2 {
        let rows: Vec<Row> = c.exec(&stmt, (run, "p", "q", 2)).await.unwrap();
        let got: Vec<String> = (rows[0].columns_ref().iter())
            .map(|col| col.name_str().into_owned())
            .collect();
        assert_eq!(got, expected, "execution {run}");
    }
    c.query_drop("PREPARE hd_s FROM 'SELECT v  -  1 FROM hd_prep'")
        .await
        .unwrap();
    for _ in 0..2 {
        assert_eq!(names(&mut c, "EXECUTE hd_s").await, ["v  -  1"]);
    }
    c.query_drop("DEALLOCATE PREPARE hd_s").await.unwrap();
    c.query_drop("DROP TABLE hd_prep").await.unwrap();
}
