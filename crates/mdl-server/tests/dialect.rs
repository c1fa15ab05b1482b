//! MySQL's dialect where SQLite's differs, through the wire: statements' forms. `FROM DUAL`,
//! `INSERT ... SET`, `INSERT IGNORE`, `ON DUPLICATE KEY UPDATE ... VALUES(col)`, MySQL 8.0's
//! atomic `DROP TABLE` of several tables, `UPDATE` / `DELETE` with `ORDER BY` and `LIMIT`
//! (`rewrite/limited.rs`), `WITH ROLLUP` (`rewrite/rollup.rs`), multi-table `DELETE` and
//! `UPDATE` (`rewrite/multi_table.rs`), `SELECT ... INTO @var`, `STRAIGHT_JOIN`, a `LIMIT` past
//! `BIGINT`, and MySQL's affected rows. Expression syntax is `dialect_expr.rs`.

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

/// `UPDATE` and `DELETE` with `ORDER BY` and `LIMIT` change the rows MySQL changes, with
/// parameters too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_and_delete_with_order_by_and_limit() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE dl_t (id INT PRIMARY KEY, v INT, n INT DEFAULT 0)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO dl_t (id, v) VALUES (1, 1), (2, 1), (3, 1), (4, 2)")
        .await
        .unwrap();
    c.query_drop("UPDATE dl_t SET n = 9 WHERE v = 1 ORDER BY id DESC LIMIT 2")
        .await
        .unwrap();
    assert_eq!(c.affected_rows(), 2);
    let changed: Vec<i64> = c
        .query("SELECT id FROM dl_t WHERE n = 9 ORDER BY id")
        .await
        .unwrap();
    assert_eq!(changed, [2, 3]);
    c.exec_drop("DELETE FROM dl_t WHERE v = ? ORDER BY id LIMIT ?", (1, 1))
        .await
        .unwrap();
    let left: Vec<i64> = c.query("SELECT id FROM dl_t ORDER BY id").await.unwrap();
    assert_eq!(left, [2, 3, 4]);
    c.query_drop("DROP TABLE dl_t").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_rollup_adds_mysqls_super_aggregate_rows() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE di_roll (g1 VARCHAR(5), g2 VARCHAR(5), v INT)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO di_roll VALUES ('b', 'x', 3), ('a', 'y', 2), ('a', 'x', 1)")
        .await
        .unwrap();
    type Row = (Option<String>, Option<String>, i64);
    let rows: Vec<Row> = c
        .query("SELECT g1, g2, SUM(v) FROM di_roll GROUP BY g1, g2 WITH ROLLUP")
        .await
        .unwrap();
    let s = |v: &str| Some(v.to_string());
    assert_eq!(
        rows,
        [
            (s("a"), s("x"), 1),
            (s("a"), s("y"), 2),
            (s("a"), None, 3),
            (s("b"), s("x"), 3),
            (s("b"), None, 3),
            (None, None, 6),
        ]
    );
    let grouping: Vec<(Option<String>, i64, i64)> = c
        .query("SELECT g1 AS k, GROUPING(g1), COUNT(*) FROM di_roll GROUP BY 1 WITH ROLLUP")
        .await
        .unwrap();
    assert_eq!(grouping, [(s("a"), 0, 2), (s("b"), 0, 1), (None, 1, 3)]);
    let ordered: Vec<(Option<String>, i64)> = c
        .query(
            "SELECT g1, SUM(v) FROM di_roll GROUP BY g1 WITH ROLLUP \
             HAVING SUM(v) > 2 ORDER BY SUM(v) DESC LIMIT 2",
        )
        .await
        .unwrap();
    assert_eq!(ordered, [(None, 6), (s("a"), 3)]);
    let none: Vec<(Option<String>, i64)> = c
        .query("SELECT g1, COUNT(*) FROM di_roll WHERE v > 10 GROUP BY g1 WITH ROLLUP")
        .await
        .unwrap();
    assert!(
        none.is_empty(),
        "no group, no super-aggregate row: {none:?}"
    );
    let (n, _) = code(
        c.query_drop("SELECT * FROM (SELECT g1, COUNT(*) FROM di_roll GROUP BY g1 WITH ROLLUP) x")
            .await,
    );
    assert_eq!(n, 1235);
    c.query_drop("DROP TABLE di_roll").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_table_delete_and_update() {
    let mut c = conn().await;
    for sql in [
        "CREATE TABLE di_o (id INT PRIMARY KEY, cid INT, total INT)",
        "CREATE TABLE di_c (id INT PRIMARY KEY, country VARCHAR(2), bonus INT)",
        "INSERT INTO di_c VALUES (1, 'US', 5), (2, 'FR', 7)",
        "INSERT INTO di_o VALUES (10, 1, 100), (11, 2, 200), (12, 3, 300)",
    ] {
        c.query_drop(sql).await.unwrap();
    }
    // UPDATE ... JOIN with a value from the other table, and placeholders in ON, SET and WHERE.
    let stmt = c
        .prep(
            "UPDATE di_o o JOIN di_c c ON o.cid = c.id AND c.country <> ? \
             SET o.total = o.total + c.bonus * ? WHERE o.total < ?",
        )
        .await
        .unwrap();
    c.exec_drop(&stmt, ("XX", 2, 250)).await.unwrap();
    assert_eq!(totals(&mut c).await, [(10, 110), (11, 214), (12, 300)]);
    c.query_drop(
        "UPDATE di_o, di_c SET di_o.total = 0 WHERE di_o.cid = di_c.id AND di_c.country = 'FR'",
    )
    .await
    .unwrap();
    assert_eq!(totals(&mut c).await, [(10, 110), (11, 0), (12, 300)]);
    // DELETE ... LEFT JOIN ... IS NULL: the orders of no customer.
    c.query_drop("DELETE o FROM di_o o LEFT JOIN di_c c ON o.cid = c.id WHERE c.id IS NULL")
        .await
        .unwrap();
    assert_eq!(totals(&mut c).await, [(10, 110), (11, 0)]);
    c.query_drop(
        "DELETE FROM di_o USING di_o JOIN di_c ON di_o.cid = di_c.id WHERE di_c.country = 'US'",
    )
    .await
    .unwrap();
    assert_eq!(totals(&mut c).await, [(11, 0)]);
    for refused in [
        "DELETE o, c FROM di_o o JOIN di_c c ON o.cid = c.id",
        "UPDATE di_o o JOIN di_c c ON o.cid = c.id SET o.total = 1, c.bonus = 2",
        "UPDATE di_o o LEFT JOIN di_c c ON o.cid = c.id SET o.total = 1",
    ] {
        assert_eq!(code(c.query_drop(refused).await).0, 1235, "{refused}");
    }
    c.query_drop("DROP TABLE di_o, di_c").await.unwrap();
}

async fn totals(c: &mut mysql_async::Conn) -> Vec<(i64, i64)> {
    c.query("SELECT id, total FROM di_o ORDER BY id")
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_into_straight_join_and_limit_past_bigint() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE di_into (id INT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO di_into VALUES (1, 10), (2, 20), (3, 30)")
        .await
        .unwrap();
    c.query_drop("SELECT COUNT(*), MAX(v) INTO @n, @m FROM di_into")
        .await
        .unwrap();
    let kept: (i64, i64) = c.query_first("SELECT @n, @m").await.unwrap().unwrap();
    assert_eq!(kept, (3, 30));
    // No row leaves the variables as they were; several rows, or a column count other than
    // the variables', are MySQL's errors.
    c.query_drop("SELECT v INTO @m FROM di_into WHERE id > 9")
        .await
        .unwrap();
    let m: i64 = c.query_first("SELECT @m").await.unwrap().unwrap();
    assert_eq!(m, 30);
    assert_eq!(
        code(c.query_drop("SELECT v INTO @m FROM di_into").await).0,
        1172
    );
    assert_eq!(
        code(c.query_drop("SELECT id, v INTO @m FROM di_into").await).0,
        1222
    );
    let joined: Vec<(i64, i64)> = c
        .query("SELECT a.id, b.v FROM di_into a STRAIGHT_JOIN di_into b ON a.id = b.id ORDER BY 1")
        .await
        .unwrap();
    assert_eq!(joined, [(1, 10), (2, 20), (3, 30)]);
    let rest: Vec<i64> = c
        .query("SELECT v FROM di_into ORDER BY v LIMIT 18446744073709551615 OFFSET 1")
        .await
        .unwrap();
    assert_eq!(rest, [20, 30]);
    let rest: Vec<i64> = c
        .query("SELECT v FROM di_into ORDER BY v LIMIT 2, 18446744073709551615")
        .await
        .unwrap();
    assert_eq!(rest, [30]);
    c.query_drop("DROP TABLE di_into").await.unwrap();
}

/// The affected rows of `sql` (the OK packet's, which `ROW_COUNT()` must repeat).
async fn affected(c: &mut mysql_async::Conn, sql: &str) -> u64 {
    c.query_drop(sql).await.unwrap();
    let n = c.affected_rows();
    let row_count: Option<i64> = c.query_first("SELECT ROW_COUNT()").await.unwrap();
    assert_eq!(row_count, Some(n as i64), "{sql}");
    n
}

/// Affected rows as MySQL counts them: an UPDATE's changed rows, an upsert's 1 per row inserted, 2 per row updated, 0 per row left as it
/// was; `ROW_COUNT()` follows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn affected_rows_are_the_changed_rows() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE dia_aff (id INT PRIMARY KEY, v INT, w INT)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO dia_aff VALUES (1, 1, 0), (2, 2, 0), (3, 3, 0)")
        .await
        .unwrap();
    assert_eq!(affected(&mut c, "UPDATE dia_aff SET v = v").await, 0);
    assert_eq!(
        affected(&mut c, "UPDATE dia_aff SET w = 1 WHERE id >= 2").await,
        2
    );
    // One of the two assignments changes row 1; none changes row 2 (2, 1 already).
    assert_eq!(
        affected(&mut c, "UPDATE dia_aff SET v = 2, w = 1 WHERE id <= 2").await,
        1
    );
    assert_eq!(
        affected(
            &mut c,
            "INSERT INTO dia_aff VALUES (4, 4, 0) ON DUPLICATE KEY UPDATE v = 40"
        )
        .await,
        1
    );
    assert_eq!(
        affected(
            &mut c,
            "INSERT INTO dia_aff VALUES (4, 4, 0) ON DUPLICATE KEY UPDATE v = 40"
        )
        .await,
        2
    );
    assert_eq!(
        affected(
            &mut c,
            "INSERT INTO dia_aff VALUES (4, 4, 0) ON DUPLICATE KEY UPDATE v = 40"
        )
        .await,
        0
    );
    assert_eq!(
        affected(
            &mut c,
            "INSERT INTO dia_aff VALUES (3, 3, 0), (5, 5, 0) \
             ON DUPLICATE KEY UPDATE v = VALUES(v) + 100"
        )
        .await,
        3
    );
    // With parameters (prepared), each read where its expression is written.
    c.exec_drop("UPDATE dia_aff SET v = ?, w = ? WHERE id = ?", (6, 7, 5))
        .await
        .unwrap();
    assert_eq!(c.affected_rows(), 1);
    c.exec_drop("UPDATE dia_aff SET v = ?, w = ? WHERE id = ?", (6, 7, 5))
        .await
        .unwrap();
    assert_eq!(c.affected_rows(), 0);
    let stmt = "INSERT INTO dia_aff VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE v = ?, w = ?";
    c.exec_drop(stmt, (5, 0, 0, 5, 0)).await.unwrap();
    assert_eq!(c.affected_rows(), 2);
    let v: Vec<(i64, i64)> = c
        .query("SELECT id, v FROM dia_aff ORDER BY id")
        .await
        .unwrap();
    assert_eq!(v, [(1, 2), (2, 2), (3, 103), (4, 40), (5, 5)]);
    c.query_drop("DROP TABLE dia_aff").await.unwrap();
}

/// A column named `rowid` (a name MySQL allows) is the user's: SQLite gives it that alias, so
/// the server's own SQL names the row by `_rowid_` (`engine::ROWID`): `DELETE ... LIMIT`, a
/// multi-table DELETE, the `ON UPDATE` triggers, `INSERT () VALUES ()` and `TABLE_ROWS` touch
/// the rows MySQL would.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_column_named_rowid_is_the_users() {
    let mut c = conn().await;
    c.query_drop("DROP TABLE IF EXISTS di_rowid, di_rowid_o, di_rowid_d")
        .await
        .unwrap();
    c.query_drop(
        "CREATE TABLE di_rowid (id INT PRIMARY KEY, rowid INT DEFAULT 4, v INT DEFAULT 0, \
         ts TIMESTAMP NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP)",
    )
    .await
    .unwrap();
    c.query_drop("INSERT INTO di_rowid (id, rowid, v) VALUES (1, 7, 1), (2, 7, 2), (3, 9, 3)")
        .await
        .unwrap();
    // One row, the one ORDER BY picks, though its `rowid` column equals another row's.
    c.query_drop("DELETE FROM di_rowid ORDER BY id LIMIT 1")
        .await
        .unwrap();
    assert_eq!(
        rowid_rows(&mut c).await,
        [(2, 7, 2, false), (3, 9, 3, false)]
    );
    c.query_drop("UPDATE di_rowid SET v = v + 10 ORDER BY id DESC LIMIT 1")
        .await
        .unwrap();
    // The trigger stamps the updated row only (its `rowid` column is 9, another row's id).
    c.query_drop("UPDATE di_rowid SET v = 5 WHERE id = 2")
        .await
        .unwrap();
    assert_eq!(
        rowid_rows(&mut c).await,
        [(2, 7, 5, true), (3, 9, 13, true)]
    );
    c.query_drop("CREATE TABLE di_rowid_o (id INT PRIMARY KEY)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO di_rowid_o VALUES (3)")
        .await
        .unwrap();
    c.query_drop("DELETE di_rowid FROM di_rowid JOIN di_rowid_o ON di_rowid.id = di_rowid_o.id")
        .await
        .unwrap();
    c.query_drop("INSERT INTO di_rowid (id) VALUES (8)")
        .await
        .unwrap();
    assert_eq!(
        rowid_rows(&mut c).await,
        [(2, 7, 5, true), (8, 4, 0, false)]
    );
    // `INSERT () VALUES ()`: the column's default, not a NULL meant for the rowid.
    c.query_drop("CREATE TABLE di_rowid_d (a INT AUTO_INCREMENT PRIMARY KEY, rowid INT DEFAULT 4)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO di_rowid_d () VALUES (), ()")
        .await
        .unwrap();
    let d: Vec<(i64, i64)> = c.query("SELECT * FROM di_rowid_d").await.unwrap();
    assert_eq!(d, [(1, 4), (2, 4)]);
    let n: u64 = c
        .query_first(
            "SELECT TABLE_ROWS FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'di_rowid'",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(
        n <= 5,
        "an estimate from the table's rowids, not its `rowid` column: {n}"
    );
    c.query_drop("DROP TABLE di_rowid, di_rowid_o, di_rowid_d")
        .await
        .unwrap();
}

async fn rowid_rows(c: &mut mysql_async::Conn) -> Vec<(i64, i64, i64, bool)> {
    let q = "SELECT id, rowid, v, ts IS NOT NULL FROM di_rowid ORDER BY id";
    c.query(q).await.unwrap()
}
