//! INSERT values whose meaning depends on the table, as MySQL reads them: 0 and `DEFAULT` in an
//! `AUTO_INCREMENT` column count (sysbench's `oltp_insert` inserts 0 into `id`), `DEFAULT`
//! elsewhere is the column's default (`default_values.rs` for the rest of its places), `VALUES ()` a row of defaults; text and prepared; with
//! `sql_mode` `NO_AUTO_VALUE_ON_ZERO` (as dumps set it), a 0 is stored as given.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

async fn rows(c: &mut Conn, table: &str) -> Vec<(i64, Option<i64>)> {
    c.query(format!("SELECT id, v FROM {table} ORDER BY id"))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zero_and_default_count_in_an_auto_increment_column() {
    let mut c = conn().await;
    fresh(
        &mut c,
        "iv_count",
        "id INT AUTO_INCREMENT PRIMARY KEY, v INT",
    )
    .await;
    let statements = [
        ("INSERT INTO iv_count (id, v) VALUES (0, 1)", 1),
        ("INSERT INTO iv_count VALUES ('0', 2)", 2),
        ("INSERT INTO iv_count VALUES (DEFAULT, 3)", 3),
        ("INSERT INTO iv_count SET id = 0, v = 4", 4),
        ("INSERT INTO iv_count VALUES (10, 5)", 10),
        ("INSERT INTO iv_count (v, id) VALUES (6, 0 + 0)", 11),
        ("REPLACE INTO iv_count VALUES (0, 7)", 12),
    ];
    for (sql, id) in statements {
        c.query_drop(sql).await.unwrap();
        assert_eq!(c.last_insert_id(), Some(id), "{sql}");
        let last: u64 = c
            .query_first("SELECT LAST_INSERT_ID()")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(last, id, "{sql}");
    }
    c.query_drop("INSERT INTO iv_count VALUES (0, 8), (0, 9), (NULL, 10)")
        .await
        .unwrap();
    let ids: Vec<i64> = rows(&mut c, "iv_count").await.iter().map(|r| r.0).collect();
    assert_eq!(ids, [1, 2, 3, 4, 10, 11, 12, 13, 14, 15]);
    // A 0 elsewhere stays 0.
    c.query_drop("INSERT INTO iv_count (v) VALUES (0)")
        .await
        .unwrap();
    assert_eq!(rows(&mut c, "iv_count").await.last(), Some(&(16, Some(0))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_insert_counts_on_a_bound_zero_and_follows_its_table() {
    let mut c = conn().await;
    fresh(
        &mut c,
        "iv_prepared",
        "id INT AUTO_INCREMENT PRIMARY KEY, v INT",
    )
    .await;
    let st = c
        .prep("INSERT INTO iv_prepared (id, v) VALUES (?, ?)")
        .await
        .unwrap();
    for (id, v) in [(0, 1), (0, 2), (50, 3), (0, 4)] {
        c.exec_drop(&st, (id, v)).await.unwrap();
    }
    assert_eq!(
        rows(&mut c, "iv_prepared").await,
        [(1, Some(1)), (2, Some(2)), (50, Some(3)), (51, Some(4))]
    );
    // The same statement after the table changed under it (kept per schema version): `id` is
    // no longer counted, and a 0 is stored as given.
    fresh(&mut c, "iv_prepared", "id INT PRIMARY KEY, v INT").await;
    c.exec_drop(&st, (0, 5)).await.unwrap();
    assert_eq!(rows(&mut c, "iv_prepared").await, [(0, Some(5))]);
    fresh(
        &mut c,
        "iv_prepared",
        "id INT AUTO_INCREMENT PRIMARY KEY, v INT",
    )
    .await;
    c.exec_drop(&st, (0, 6)).await.unwrap();
    assert_eq!(rows(&mut c, "iv_prepared").await, [(1, Some(6))]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_is_the_column_default_and_empty_rows_are_defaults() {
    let mut c = conn().await;
    fresh(
        &mut c,
        "iv_default",
        "id INT AUTO_INCREMENT PRIMARY KEY, v INT DEFAULT 7",
    )
    .await;
    for sql in [
        "INSERT INTO iv_default VALUES (DEFAULT, DEFAULT)",
        "INSERT INTO iv_default (v) VALUES (DEFAULT), (DEFAULT)",
        "INSERT INTO iv_default SET v = DEFAULT",
        "INSERT INTO iv_default () VALUES (), ()",
        "INSERT INTO iv_default VALUES (0, 1)",
    ] {
        c.query_drop(sql).await.unwrap();
    }
    let seven = Some(7);
    assert_eq!(
        rows(&mut c, "iv_default").await,
        [
            (1, seven),
            (2, seven),
            (3, seven),
            (4, seven),
            (5, seven),
            (6, seven),
            (7, Some(1))
        ]
    );
    // DEFAULT in some rows only: the column's default in those (as Rails' `insert_all`
    // writes rows that lack a key).
    c.query_drop("INSERT INTO iv_default (v) VALUES (DEFAULT), (2)")
        .await
        .unwrap();
    let last: Vec<(i64, Option<i64>)> = rows(&mut c, "iv_default").await.split_off(7);
    assert_eq!(last, [(8, seven), (9, Some(2))]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_auto_value_on_zero_keeps_a_zero_as_dumps_ask() {
    let mut c = conn().await;
    fresh(
        &mut c,
        "iv_zero",
        "id INT AUTO_INCREMENT PRIMARY KEY, v INT",
    )
    .await;
    let st = c.prep("INSERT INTO iv_zero VALUES (?, ?)").await.unwrap();
    // mysqldump's and mariadb-dump's own lines around a dump's rows.
    c.query_drop("SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO'")
        .await
        .unwrap();
    let mode: String = c.query_first("SELECT @@sql_mode").await.unwrap().unwrap();
    assert_eq!(mode, "NO_AUTO_VALUE_ON_ZERO");
    c.query_drop("INSERT INTO iv_zero VALUES (0, 1), (DEFAULT, 2)")
        .await
        .unwrap();
    c.exec_drop(&st, (0, 3)).await.unwrap_err(); // the 0 is taken
    c.query_drop("SET SQL_MODE=@OLD_SQL_MODE").await.unwrap();
    let mode: String = c.query_first("SELECT @@sql_mode").await.unwrap().unwrap();
    assert_eq!(mode, "");
    // The same prepared statement counts on 0 again.
    c.exec_drop(&st, (0, 4)).await.unwrap();
    assert_eq!(
        rows(&mut c, "iv_zero").await,
        [(0, Some(1)), (1, Some(2)), (2, Some(4))]
    );
    // Flags this server does not keep are accepted and not kept.
    c.query_drop("SET sql_mode = 'STRICT_TRANS_TABLES,NO_AUTO_VALUE_ON_ZERO,ANSI_QUOTES'")
        .await
        .unwrap();
    let mode: String = c.query_first("SELECT @@sql_mode").await.unwrap().unwrap();
    assert_eq!(mode, "NO_AUTO_VALUE_ON_ZERO");
}

/// MySQL's strict mode keeps a value within its column's type: an integer outside the type's
/// range is 1264, a string longer than `CHAR(n)` / `VARCHAR(n)` 1406, in INSERT, UPDATE and a
/// prepared statement alike, and nothing is written; the limits themselves go in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_outside_their_types_are_refused() {
    let mut c = conn().await;
    let columns = "id INT PRIMARY KEY, t TINYINT, u INT UNSIGNED, s VARCHAR(3), b BIGINT UNSIGNED";
    fresh(&mut c, "iv_limits", columns).await;
    let range = (1264, "22003".to_string());
    let long = (1406, "22001".to_string());
    for (sql, want) in [
        ("INSERT INTO iv_limits (id, t) VALUES (1, 128)", &range),
        ("INSERT INTO iv_limits (id, t) VALUES (1, -129)", &range),
        ("INSERT INTO iv_limits (id, u) VALUES (1, -1)", &range),
        (
            "INSERT INTO iv_limits (id, u) VALUES (1, 4294967296)",
            &range,
        ),
        ("INSERT INTO iv_limits (id, b) VALUES (1, -1)", &range),
        ("INSERT INTO iv_limits (id, s) VALUES (1, 'abcd')", &long),
        ("INSERT INTO iv_limits (id, t) VALUES (1, '300')", &range),
    ] {
        assert_eq!(&code(c.query_drop(sql).await), want, "{sql}");
    }
    assert_eq!(
        code_and_message(
            c.query_drop("INSERT INTO iv_limits (id, t) VALUES (1, 200)")
                .await
        ),
        (
            1264,
            "Out of range value for column 't' at row 1".to_string()
        )
    );
    let limits = "INSERT INTO iv_limits VALUES (1, -128, 4294967295, 'äöü', 18446744073709551615)";
    c.query_drop(limits).await.unwrap();
    c.query_drop("INSERT INTO iv_limits (id, t) VALUES (2, 127)")
        .await
        .unwrap();
    let update = "UPDATE iv_limits SET t = t + 1 WHERE id = 2";
    assert_eq!(code(c.query_drop(update).await), range);
    let update = "UPDATE iv_limits SET s = CONCAT(s, 'x') WHERE id = 1";
    assert_eq!(code(c.query_drop(update).await), long);
    let st = c
        .prep("INSERT INTO iv_limits (id, t, s) VALUES (?, ?, ?)")
        .await
        .unwrap();
    assert_eq!(code(c.exec_drop(&st, (3, 1000, "a")).await), range);
    assert_eq!(code(c.exec_drop(&st, (3, 1, "abcdef")).await), long);
    c.exec_drop(&st, (3, 1, "abc")).await.unwrap();
    let got: Vec<(i64, Option<i64>, Option<String>)> = c
        .query("SELECT id, t, s FROM iv_limits ORDER BY id")
        .await
        .unwrap();
    assert_eq!(
        got,
        [
            (1, Some(-128), Some("äöü".to_string())),
            (2, Some(127), None),
            (3, Some(1), Some("abc".to_string())),
        ]
    );
    // A rebuild writes the limits again: a narrower type refuses what no longer fits.
    let narrower = "ALTER TABLE iv_limits MODIFY s VARCHAR(2)";
    assert_eq!(code(c.query_drop(narrower).await), long);
    c.query_drop("ALTER TABLE iv_limits MODIFY s VARCHAR(5)")
        .await
        .unwrap();
    c.query_drop("UPDATE iv_limits SET s = 'abcde' WHERE id = 3")
        .await
        .unwrap();
    let show: (String, String) = c
        .query_first("SHOW CREATE TABLE iv_limits")
        .await
        .unwrap()
        .unwrap();
    assert!(!show.1.contains("mdl_"), "{}", show.1);
    // Renamed in place, the column is named by its new name.
    c.query_drop("ALTER TABLE iv_limits RENAME COLUMN t TO tiny")
        .await
        .unwrap();
    assert_eq!(
        code_and_message(c.query_drop("UPDATE iv_limits SET tiny = 500").await),
        (
            1264,
            "Out of range value for column 'tiny' at row 1".to_string()
        )
    );
}
