//! `FOUND_ROWS()` and `SQL_CALC_FOUND_ROWS` as an application paginating with them reads them
//! (WordPress's `SELECT SQL_CALC_FOUND_ROWS ... LIMIT 0, 10; SELECT FOUND_ROWS()`), in text and
//! prepared statements, each session its own.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

async fn found(c: &mut Conn) -> u64 {
    c.query_first("SELECT FOUND_ROWS()").await.unwrap().unwrap()
}

/// A table `name` of `n` rows: `id` 1..=n, `k` = `id % 5`.
async fn table(c: &mut Conn, name: &str, n: u64) {
    c.query_drop(format!("DROP TABLE IF EXISTS {name}"))
        .await
        .unwrap();
    c.query_drop(format!("CREATE TABLE {name} (id INT PRIMARY KEY, k INT)"))
        .await
        .unwrap();
    let rows: Vec<String> = (1..=n).map(|i| format!("({i}, {})", i % 5)).collect();
    c.query_drop(format!("INSERT INTO {name} VALUES {}", rows.join(", ")))
        .await
        .unwrap();
}

/// The ids a query gives, then `FOUND_ROWS()`.
async fn ids_then_found(c: &mut Conn, sql: &str) -> (Vec<i64>, u64) {
    let ids: Vec<i64> = c.query(sql).await.unwrap();
    (ids, found(c).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calc_found_rows_counts_the_rows_past_the_limit() {
    let mut c = conn().await;
    table(&mut c, "found_page", 25).await;
    let (ids, n) = ids_then_found(
        &mut c,
        "SELECT SQL_CALC_FOUND_ROWS id FROM found_page ORDER BY id LIMIT 0, 10",
    )
    .await;
    assert_eq!((ids, n), ((1..=10).collect(), 25));
    // An offset: the last page, and one past the end.
    let last = "SELECT SQL_CALC_FOUND_ROWS id FROM found_page ORDER BY id DESC LIMIT 10 OFFSET 20";
    assert_eq!(
        ids_then_found(&mut c, last).await,
        (vec![5, 4, 3, 2, 1], 25)
    );
    let past = "SELECT SQL_CALC_FOUND_ROWS id FROM found_page LIMIT 100, 10";
    assert_eq!(ids_then_found(&mut c, past).await, (vec![], 25));
    // WHERE, LIMIT 0, and no LIMIT at all (the rows sent).
    let k1 = "SELECT SQL_CALC_FOUND_ROWS id FROM found_page WHERE k = 1 ORDER BY id LIMIT 2";
    assert_eq!(ids_then_found(&mut c, k1).await, (vec![1, 6], 5));
    let none = "SELECT SQL_CALC_FOUND_ROWS id FROM found_page WHERE k = 1 LIMIT 0";
    assert_eq!(ids_then_found(&mut c, none).await, (vec![], 5));
    let all = "SELECT SQL_CALC_FOUND_ROWS id FROM found_page WHERE id > 22";
    assert_eq!(ids_then_found(&mut c, all).await.1, 3);
    // GROUP BY and DISTINCT: the groups, the distinct rows.
    let groups: Vec<(i64, i64)> = c
        .query("SELECT SQL_CALC_FOUND_ROWS k, COUNT(*) FROM found_page GROUP BY k LIMIT 2")
        .await
        .unwrap();
    assert_eq!((groups.len(), found(&mut c).await), (2, 5));
    let distinct = "SELECT SQL_CALC_FOUND_ROWS DISTINCT k FROM found_page LIMIT 1";
    assert_eq!(ids_then_found(&mut c, distinct).await.1, 5);
    // In a transaction that wrote, and in a locking read: the transaction's rows.
    c.query_drop("BEGIN").await.unwrap();
    c.query_drop("INSERT INTO found_page VALUES (26, 1)")
        .await
        .unwrap();
    assert_eq!(ids_then_found(&mut c, k1).await, (vec![1, 6], 6));
    let lock = "SELECT SQL_CALC_FOUND_ROWS id FROM found_page WHERE id > 20 LIMIT 1 FOR UPDATE";
    assert_eq!(ids_then_found(&mut c, lock).await, (vec![21], 6));
    c.query_drop("ROLLBACK").await.unwrap();
    assert_eq!(ids_then_found(&mut c, lock).await, (vec![21], 5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_calc_found_rows_it_is_the_rows_the_select_gave() {
    let mut c = conn().await;
    table(&mut c, "found_plain", 12).await;
    let sql = "SELECT id FROM found_plain WHERE k = 2 ORDER BY id";
    assert_eq!(ids_then_found(&mut c, sql).await, (vec![2, 7, 12], 3));
    let sql = "SELECT id FROM found_plain ORDER BY id LIMIT 4";
    assert_eq!(ids_then_found(&mut c, sql).await.1, 4);
    // MySQL counts the rows its OFFSET skipped too (`LimitOffsetIterator`).
    let sql = "SELECT id FROM found_plain ORDER BY id LIMIT 4, 3";
    assert_eq!(ids_then_found(&mut c, sql).await, (vec![5, 6, 7], 7));
    // SELECT FOUND_ROWS() is a SELECT of one row.
    assert_eq!(found(&mut c).await, 1);
    assert_eq!(found(&mut c).await, 1);
    // So is SELECT ... INTO.
    c.query_drop("SELECT id INTO @found_id FROM found_plain WHERE id = 3")
        .await
        .unwrap();
    assert_eq!(found(&mut c).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_union_counts_without_its_own_limit() {
    let mut c = conn().await;
    table(&mut c, "found_a", 6).await;
    table(&mut c, "found_b", 4).await;
    let sql = "SELECT SQL_CALC_FOUND_ROWS id FROM found_a UNION ALL SELECT id FROM found_b \
               ORDER BY id LIMIT 3";
    assert_eq!(ids_then_found(&mut c, sql).await, (vec![1, 1, 2], 10));
    let sql = "SELECT SQL_CALC_FOUND_ROWS id FROM found_a UNION SELECT id FROM found_b LIMIT 2";
    assert_eq!(ids_then_found(&mut c, sql).await.1, 6);
    // No LIMIT: the rows sent.
    let sql = "SELECT SQL_CALC_FOUND_ROWS id FROM found_a WHERE id > 4 UNION ALL \
               SELECT id FROM found_b WHERE FALSE";
    assert_eq!(ids_then_found(&mut c, sql).await, (vec![5, 6], 2));
    // Anywhere but the first SELECT, MySQL refuses it.
    for sql in [
        "SELECT id FROM found_a UNION SELECT SQL_CALC_FOUND_ROWS id FROM found_b",
        "SELECT * FROM (SELECT SQL_CALC_FOUND_ROWS id FROM found_a) AS d LIMIT 1",
    ] {
        assert_eq!(
            code(c.query_drop(sql).await),
            (1234, "42000".into()),
            "{sql}"
        );
    }
    assert_eq!(found(&mut c).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_statements_count_and_read_it() {
    let mut c = conn().await;
    table(&mut c, "found_prep", 30).await;
    let page = "SELECT SQL_CALC_FOUND_ROWS id FROM found_prep WHERE k = ? ORDER BY id LIMIT ?, ?";
    for (offset, want) in [(0u64, vec![3, 8]), (4, vec![23, 28]), (6, vec![])] {
        let ids: Vec<i64> = c.exec(page, (3, offset, 2u64)).await.unwrap();
        assert_eq!(ids, want);
        let n: Option<u64> = c.exec_first("SELECT FOUND_ROWS()", ()).await.unwrap();
        assert_eq!(n, Some(6), "offset {offset}");
    }
    // Without the modifier: the rows given and the parameter's offset.
    let ids: Vec<i64> = (c.exec("SELECT id FROM found_prep ORDER BY id LIMIT ?, ?", (10, 3)))
        .await
        .unwrap();
    assert_eq!((ids.len(), found(&mut c).await), (3, 13));
    // PREPARE ... FROM and EXECUTE ... USING.
    c.query_drop("PREPARE found_stmt FROM 'SELECT SQL_CALC_FOUND_ROWS id FROM found_prep LIMIT ?'")
        .await
        .unwrap();
    c.query_drop("SET @found_n = 4").await.unwrap();
    let ids: Vec<i64> = c.query("EXECUTE found_stmt USING @found_n").await.unwrap();
    assert_eq!((ids.len(), found(&mut c).await), (4, 30));
    c.query_drop("PREPARE found_read FROM 'SELECT FOUND_ROWS()'")
        .await
        .unwrap();
    let n: Option<u64> = c.query_first("EXECUTE found_read").await.unwrap();
    assert_eq!(n, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_session_reads_its_own() {
    let (mut a, mut b) = (conn().await, conn().await);
    table(&mut a, "found_two", 9).await;
    let _: Vec<i64> = (a.query("SELECT SQL_CALC_FOUND_ROWS id FROM found_two LIMIT 1"))
        .await
        .unwrap();
    let _: Vec<i64> = (b.query("SELECT id FROM found_two WHERE id < 5"))
        .await
        .unwrap();
    assert_eq!((found(&mut a).await, found(&mut b).await), (9, 4));
    let _: Vec<i64> = (b.query("SELECT id FROM found_two WHERE id < 3"))
        .await
        .unwrap();
    assert_eq!((found(&mut b).await, found(&mut a).await), (2, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_statements_set_it_as_mysql_does() {
    let mut c = conn().await;
    table(&mut c, "found_other", 10).await;
    // Left as they were: INSERT, DELETE, SET, DDL, SHOW CREATE TABLE, a failed SELECT.
    for sql in [
        "INSERT INTO found_other VALUES (11, 1)",
        "DELETE FROM found_other WHERE id = 11",
        "SET @found_x = 1",
        "CREATE TABLE IF NOT EXISTS found_other2 (a INT)",
        "SHOW CREATE TABLE found_other",
        "SELECT nope FROM found_other",
    ] {
        let seven: Vec<i64> = c.query("SELECT id FROM found_other LIMIT 7").await.unwrap();
        assert_eq!(seven.len(), 7);
        let _ = c.query_drop(sql).await;
        assert_eq!(found(&mut c).await, 7, "{sql}");
    }
    // A single-table UPDATE: the rows it matched, changed or not.
    c.query_drop("UPDATE found_other SET k = 1 WHERE id <= 4")
        .await
        .unwrap();
    assert_eq!(found(&mut c).await, 4);
    // SHOW statements MySQL answers as queries: their rows.
    let tables: Vec<String> = c.query("SHOW TABLES LIKE 'found_other%'").await.unwrap();
    assert_eq!((tables.len(), found(&mut c).await), (2, 2));
    c.query_drop("DESCRIBE found_other").await.unwrap();
    assert_eq!(found(&mut c).await, 2);
}
