//! `REPLACE`'s affected rows as MySQL (InnoDB) reports them, in the OK packet and in
//! `ROW_COUNT()` alike: 1 per row written, plus 1 per old row it replaced, except a row equal
//! to the one it replaces found on the table's last unique key, updated in place
//! (`write_record()`, `sql/sql_insert.cc`); for `REPLACE ... VALUES`, `... SET`, `... SELECT`
//! and a prepared REPLACE, with the table's rows after each. A failed REPLACE leaves no lock,
//! no transaction and nothing of its counting behind.

mod common;

use std::time::Duration;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

type Row3 = (i64, Option<i64>, Option<i64>);

/// The affected rows of `sql` (the OK packet's), checked against `ROW_COUNT()`.
async fn affected(c: &mut Conn, sql: &str) -> u64 {
    c.query_drop(sql).await.expect(sql);
    let n = c.affected_rows();
    let row_count: Option<i64> = c.query_first("SELECT ROW_COUNT()").await.unwrap();
    assert_eq!(row_count, Some(n as i64), "ROW_COUNT() after {sql}");
    n
}

async fn rows3(c: &mut Conn, table: &str) -> Vec<Row3> {
    let sql = format!("SELECT * FROM {table} ORDER BY 1");
    c.query(sql).await.unwrap()
}

async fn run_all(c: &mut Conn, sql: &str) {
    for q in sql.split(';') {
        c.query_drop(q).await.expect(q);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_counts_the_rows_it_replaced() {
    let mut c = conn().await;
    run_all(
        &mut c,
        "CREATE TABLE rr_pk (id INT PRIMARY KEY, v INT); \
         CREATE TABLE rr_u (id INT PRIMARY KEY, v INT, u INT UNIQUE); \
         INSERT INTO rr_u VALUES (1, 1, 1), (2, 2, 2)",
    )
    .await;
    // Only a primary key: new, changed, then the same values (updated in place, InnoDB's
    // HA_ERR_RECORD_IS_THE_SAME: not counted as deleted).
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_pk VALUES (1, 10)").await,
        1
    );
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_pk VALUES (1, 11)").await,
        2
    );
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_pk VALUES (1, 11)").await,
        1
    );
    let pk: Vec<(i64, i64)> = c.query("SELECT * FROM rr_pk").await.unwrap();
    assert_eq!(pk, [(1, 11)]);

    // Conflicts on two unique keys: both old rows go.
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_u VALUES (1, 5, 2)").await,
        3
    );
    assert_eq!(rows3(&mut c, "rr_u").await, [(1, Some(5), Some(2))]);
    // The same values again: found on the primary key, which is not the last unique key, so
    // deleted and written again.
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_u VALUES (1, 5, 2)").await,
        2
    );
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_u VALUES (1, 10, 1)").await,
        2
    );
    assert_eq!(rows3(&mut c, "rr_u").await, [(1, Some(10), Some(1))]);
    // A NULL conflicts with nothing.
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_u VALUES (2, 2, NULL)").await,
        1
    );
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_u VALUES (3, 3, NULL)").await,
        1
    );
    assert_eq!(
        rows3(&mut c, "rr_u").await,
        [
            (1, Some(10), Some(1)),
            (2, Some(2), None),
            (3, Some(3), None)
        ]
    );
    run_all(&mut c, "DROP TABLE rr_pk; DROP TABLE rr_u").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_set_and_select_count_row_by_row() {
    let mut c = conn().await;
    run_all(
        &mut c,
        "CREATE TABLE rr_m (id INT PRIMARY KEY, v INT, u INT UNIQUE); \
         INSERT INTO rr_m VALUES (1, 1, 1), (2, 2, 2); \
         CREATE TABLE rr_src (id INT PRIMARY KEY, v INT, u INT); \
         INSERT INTO rr_src VALUES (1, 100, 9), (5, 5, 5), (6, 6, 4)",
    )
    .await;
    // Several rows: new (1), over rows 1 and 2 (3), over the statement's own first row (2).
    assert_eq!(
        affected(
            &mut c,
            "REPLACE INTO rr_m VALUES (3, 3, 3), (1, 1, 2), (3, 4, 3)"
        )
        .await,
        6
    );
    assert_eq!(
        rows3(&mut c, "rr_m").await,
        [(1, Some(1), Some(2)), (3, Some(4), Some(3))]
    );
    // SET: over row 3, then a new row.
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_m SET id = 3, v = 30, u = 3").await,
        2
    );
    assert_eq!(
        affected(&mut c, "REPLACE rr_m SET id = 4, u = 4, v = 40").await,
        1
    );
    // SELECT: (1, 100, 9) over row 1 (2), (5, 5, 5) new (1), (6, 6, 4) over row 4 (2).
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_m SELECT * FROM rr_src ORDER BY id").await,
        5
    );
    assert_eq!(
        rows3(&mut c, "rr_m").await,
        [
            (1, Some(100), Some(9)),
            (3, Some(30), Some(3)),
            (5, Some(5), Some(5)),
            (6, Some(6), Some(4))
        ]
    );
    // SELECT from the target itself: every row replaced by a changed one.
    assert_eq!(
        affected(
            &mut c,
            "REPLACE INTO rr_m (id, v, u) SELECT id, v + 1, u FROM rr_m"
        )
        .await,
        8
    );
    // Nothing selected.
    assert_eq!(
        affected(
            &mut c,
            "REPLACE INTO rr_m SELECT * FROM rr_src WHERE id > 100"
        )
        .await,
        0
    );
    assert_eq!(
        rows3(&mut c, "rr_m").await,
        [
            (1, Some(101), Some(9)),
            (3, Some(31), Some(3)),
            (5, Some(6), Some(5)),
            (6, Some(7), Some(4))
        ]
    );
    // An INSERT's counts are as before.
    assert_eq!(
        affected(&mut c, "INSERT INTO rr_m VALUES (7, 7, 7), (8, 8, 8)").await,
        2
    );
    assert_eq!(
        affected(
            &mut c,
            "INSERT INTO rr_m VALUES (7, 7, 7) ON DUPLICATE KEY UPDATE v = 70"
        )
        .await,
        2
    );
    assert_eq!(affected(&mut c, "DELETE FROM rr_m WHERE id >= 7").await, 2);
    run_all(&mut c, "DROP TABLE rr_m; DROP TABLE rr_src").await;
}

/// The key a row equal to an old row is found on: the first unique key (in MySQL's order)
/// its values fill; updated in place only if that is the table's last unique key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_equal_row_counts_once_only_on_the_last_unique_key() {
    let mut c = conn().await;
    run_all(
        &mut c,
        "CREATE TABLE rr_nn (a INT UNIQUE, b INT UNIQUE, v INT); \
         INSERT INTO rr_nn VALUES (NULL, 5, 0)",
    )
    .await;
    // `a` is NULL: found on `b`, the last unique key, and left as it was.
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_nn VALUES (NULL, 5, 0)").await,
        1
    );
    // Found on `b`, changed.
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_nn VALUES (7, 5, 0)").await,
        2
    );
    // Found on `a`, which is not the last unique key: deleted and written again.
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_nn VALUES (7, 5, 0)").await,
        2
    );
    let got: Vec<(Option<i64>, i64, i64)> = c.query("SELECT * FROM rr_nn").await.unwrap();
    assert_eq!(got, [(Some(7), 5, 0)]);

    // A NOT NULL unique key comes before a nullable one, whatever the order they were made.
    run_all(
        &mut c,
        "CREATE TABLE rr_order (a INT UNIQUE, b INT NOT NULL UNIQUE); \
         INSERT INTO rr_order VALUES (1, 1)",
    )
    .await;
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_order VALUES (1, 1)").await,
        2
    );
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_order VALUES (NULL, 1)").await,
        2
    );
    // Equal, found on `b`, the first key and not the last: 2, where the order they were
    // made in (`a` NULL, then `b`, the last) would say 1.
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_order VALUES (NULL, 1)").await,
        2
    );
    let got: Vec<(Option<i64>, i64)> = c.query("SELECT * FROM rr_order").await.unwrap();
    assert_eq!(got, [(None, 1)]);
    run_all(&mut c, "DROP TABLE rr_nn; DROP TABLE rr_order").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_increment_and_prepared_replace() {
    let mut c = conn().await;
    run_all(
        &mut c,
        "CREATE TABLE rr_ai (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10)); \
         INSERT INTO rr_ai (v) VALUES ('a'), ('b')",
    )
    .await;
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_ai (id, v) VALUES (1, 'x')").await,
        2
    );
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_ai VALUES (1, 'x')").await,
        1
    );
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_ai (v) VALUES ('c')").await,
        1
    );
    let id: Option<i64> = c.query_first("SELECT LAST_INSERT_ID()").await.unwrap();
    assert_eq!(id, Some(3));
    let got: Vec<(i64, String)> = c.query("SELECT * FROM rr_ai ORDER BY id").await.unwrap();
    assert_eq!(got, [(1, "x".into()), (2, "b".into()), (3, "c".into())]);

    // Prepared, executed again (the engine's cached statement, and triggers made anew).
    let stmt = "REPLACE INTO rr_ai VALUES (?, ?)";
    for (params, want) in [((2, "y"), 2), ((2, "y"), 1), ((4, "d"), 1), ((2, "z"), 2)] {
        c.exec_drop(stmt, params).await.unwrap();
        assert_eq!(c.affected_rows(), want, "{params:?}");
        let row_count: Option<i64> = c.query_first("SELECT ROW_COUNT()").await.unwrap();
        assert_eq!(row_count, Some(want as i64));
    }
    let got: Vec<(i64, String)> = c.query("SELECT * FROM rr_ai ORDER BY id").await.unwrap();
    assert_eq!(
        got,
        [
            (1, "x".into()),
            (2, "z".into()),
            (3, "c".into()),
            (4, "d".into())
        ]
    );
    c.query_drop("DROP TABLE rr_ai").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_replace_leaves_nothing_behind() {
    let mut c = conn().await;
    let mut other = conn().await;
    run_all(
        &mut c,
        "CREATE TABLE rr_fail (id INT PRIMARY KEY, v INT NOT NULL); \
         INSERT INTO rr_fail VALUES (1, 1), (2, 2)",
    )
    .await;
    // Fails at its second row: nothing of it stays (a statement is atomic in InnoDB).
    let (n, _) = code(
        c.query_drop("REPLACE INTO rr_fail VALUES (1, 10), (2, NULL)")
            .await,
    );
    assert_eq!(n, 1048, "Column 'v' cannot be null");
    let row_count: Option<i64> = c.query_first("SELECT ROW_COUNT()").await.unwrap();
    assert_eq!(row_count, Some(-1));
    let got: Vec<(i64, i64)> = c.query("SELECT * FROM rr_fail ORDER BY id").await.unwrap();
    assert_eq!(got, [(1, 1), (2, 2)]);
    assert_eq!(
        code(c.query_drop("REPLACE INTO rr_missing VALUES (1)").await).0,
        1146
    );
    // No transaction or writer held: another connection writes at once.
    tokio::time::timeout(
        Duration::from_secs(3),
        other.query_drop("REPLACE INTO rr_fail VALUES (3, 3)"),
    )
    .await
    .expect("not blocked")
    .unwrap();
    // No trigger left: a DELETE counts as before, and the table's columns can change.
    assert_eq!(
        affected(&mut c, "DELETE FROM rr_fail WHERE id = 3").await,
        1
    );
    run_all(
        &mut c,
        "ALTER TABLE rr_fail ADD COLUMN w INT; ALTER TABLE rr_fail DROP COLUMN w",
    )
    .await;

    // In a transaction: the failed REPLACE goes, the one before stays, COMMIT keeps it.
    run_all(&mut c, "BEGIN; REPLACE INTO rr_fail VALUES (1, 100)").await;
    assert_eq!(c.affected_rows(), 2);
    assert_eq!(
        code(
            c.query_drop("REPLACE INTO rr_fail VALUES (2, 20), (1, NULL)")
                .await
        )
        .0,
        1048
    );
    assert_eq!(
        affected(&mut c, "REPLACE INTO rr_fail VALUES (2, 20)").await,
        2
    );
    c.query_drop("COMMIT").await.unwrap();
    let got: Vec<(i64, i64)> = other
        .query("SELECT * FROM rr_fail ORDER BY id")
        .await
        .unwrap();
    assert_eq!(got, [(1, 100), (2, 20)]);
    tokio::time::timeout(
        Duration::from_secs(3),
        other.query_drop("DROP TABLE rr_fail"),
    )
    .await
    .expect("not blocked")
    .unwrap();
}
