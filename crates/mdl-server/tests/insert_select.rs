//! `INSERT ... SELECT` (and `REPLACE ... SELECT`, `... ON DUPLICATE KEY UPDATE`, `CREATE TABLE
//! ... SELECT`) into an `AUTO_INCREMENT` column as MySQL 8.0 writes it: a NULL, or a 0 unless
//! `sql_mode` has `NO_AUTO_VALUE_ON_ZERO`, gets the next id, and the statement's first generated
//! id is its insert id (the OK packet's) and `LAST_INSERT_ID()`; text and prepared. Into a
//! session's temporary table too, which shadows a base table of its name: each is read as
//! itself, whichever was read before, in this session or another.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

type Row = (i64, Option<i64>, Option<String>);

async fn rows(c: &mut Conn, table: &str) -> Vec<Row> {
    c.query(format!("SELECT id, v, s FROM {table} ORDER BY id"))
        .await
        .unwrap()
}

const COLUMNS: &str = "id INT AUTO_INCREMENT PRIMARY KEY, v INT, s VARCHAR(10)";

/// Runs `sql`; its affected rows, the OK packet's insert id and then `LAST_INSERT_ID()`.
async fn inserted(c: &mut Conn, sql: &str) -> (u64, Option<u64>, u64) {
    c.query_drop(sql).await.unwrap();
    let (affected, id) = (c.affected_rows(), c.last_insert_id());
    let last: u64 = c
        .query_first("SELECT LAST_INSERT_ID()")
        .await
        .unwrap()
        .unwrap();
    (affected, id, last)
}

fn row(id: i64, v: i64, s: Option<&str>) -> Row {
    (id, Some(v), s.map(str::to_string))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zero_and_null_from_a_select_count_and_the_first_id_is_the_last_insert_id() {
    let mut c = conn().await;
    fresh(&mut c, "is_count", COLUMNS).await;
    c.query_drop("INSERT INTO is_count (v, s) VALUES (1, 'a'), (2, 'b')")
        .await
        .unwrap();
    // The brief's statement: MySQL 8.0 inserts ids 3 and 4 (this server answered 1062).
    let sql = "INSERT INTO is_count SELECT 0, v, s FROM is_count";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(3), 3));
    let sql = "INSERT INTO is_count (id, v) SELECT NULL, v FROM is_count WHERE id <= 2";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(5), 5));
    // A column list without the counted column: every row is numbered.
    let sql = "INSERT INTO is_count (s, v) SELECT 'x', v FROM is_count WHERE id <= 2";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(7), 7));
    // A text `'0'`, and a 0 computed by the select.
    let sql = "INSERT INTO is_count SELECT '0', 9, 'q' UNION ALL SELECT v - v, 10, 'r' FROM is_count WHERE id = 1";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(9), 9));
    // The ids go on from there, for VALUES too.
    let sql = "INSERT INTO is_count VALUES (0, 11, 'v')";
    assert_eq!(inserted(&mut c, sql).await, (1, Some(11), 11));
    assert_eq!(
        rows(&mut c, "is_count").await,
        [
            row(1, 1, Some("a")),
            row(2, 2, Some("b")),
            row(3, 1, Some("a")),
            row(4, 2, Some("b")),
            row(5, 1, None),
            row(6, 2, None),
            row(7, 1, Some("x")),
            row(8, 2, Some("x")),
            row(9, 9, Some("q")),
            row(10, 10, Some("r")),
            row(11, 11, Some("v")),
        ]
    );
    // A select without rows inserts none and leaves LAST_INSERT_ID() as it was. One that fails
    // (a duplicate explicit id after a generated one) inserts none (MySQL leaves
    // LAST_INSERT_ID() undefined then), and the ids go on as before it.
    let sql = "INSERT INTO is_count SELECT 0, v, s FROM is_count WHERE id > 100";
    assert_eq!(inserted(&mut c, sql).await, (0, None, 11));
    let r = c
        .query_drop("INSERT INTO is_count (v, id) SELECT 1, 0 UNION ALL SELECT 2, 1")
        .await;
    assert_eq!(code(r).0, 1062);
    let n: i64 = (c
        .query_first("SELECT COUNT(*) FROM is_count")
        .await
        .unwrap())
    .unwrap();
    assert_eq!(n, 11);
    let sql = "INSERT INTO is_count (v) SELECT 12";
    assert_eq!(inserted(&mut c, sql).await, (1, Some(12), 12));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn columns_map_through_lists_unions_orders_and_joins() {
    let mut c = conn().await;
    fresh(&mut c, "is_map", COLUMNS).await;
    fresh(&mut c, "is_map_a", "x INT, y INT").await;
    fresh(&mut c, "is_map_b", "z VARCHAR(10)").await;
    c.query_drop("INSERT INTO is_map_a VALUES (0, 5), (0, 3), (0, 4)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO is_map_b VALUES ('j')")
        .await
        .unwrap();
    // A list in another order than the table's.
    let sql = "INSERT INTO is_map (s, id, v) SELECT 'o', 0, 1";
    assert_eq!(inserted(&mut c, sql).await, (1, Some(1), 1));
    // Explicit ids among counted ones: the first counted row's id is the insert id, one past
    // the explicit 50 before it.
    let sql =
        "INSERT INTO is_map (v, id) SELECT 2, 50 UNION ALL SELECT 3, 0 UNION ALL SELECT 4, 20";
    assert_eq!(inserted(&mut c, sql).await, (3, Some(51), 51));
    // ORDER BY and LIMIT: the ids follow the select's order.
    let sql = "INSERT INTO is_map (v, id) SELECT y, x FROM is_map_a ORDER BY y DESC LIMIT 2";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(52), 52));
    // `SELECT *` over a join fills the table's columns in order.
    let sql = "INSERT INTO is_map SELECT * FROM is_map_a JOIN is_map_b ORDER BY y";
    assert_eq!(inserted(&mut c, sql).await, (3, Some(54), 54));
    // UNION (distinct: the 0s are one row) and a WITH select.
    let sql = "INSERT INTO is_map (id, v) SELECT 0, 9 UNION SELECT 0, 9";
    assert_eq!(inserted(&mut c, sql).await, (1, Some(57), 57));
    let sql = "INSERT INTO is_map (id, v) WITH w AS (SELECT 0 AS i, 7 AS v) SELECT i, v FROM w";
    assert_eq!(inserted(&mut c, sql).await, (1, Some(58), 58));
    let got: Vec<(i64, Option<i64>)> = c
        .query("SELECT id, v FROM is_map ORDER BY id")
        .await
        .unwrap();
    let want = [
        (1, 1),
        (20, 4),
        (50, 2),
        (51, 3),
        (52, 5),
        (53, 4),
        (54, 3),
        (55, 4),
        (56, 5),
        (57, 9),
        (58, 7),
    ];
    let want: Vec<(i64, Option<i64>)> = want.iter().map(|&(i, v)| (i, Some(v))).collect();
    assert_eq!(got, want);
    let joined: Vec<(i64, String)> = c
        .query("SELECT id, s FROM is_map WHERE id BETWEEN 54 AND 56")
        .await
        .unwrap();
    assert!(joined.iter().all(|(_, s)| s == "j"), "{joined:?}");
    // A select of another width than the INSERT's columns: 1136, as before.
    for sql in [
        "INSERT INTO is_map SELECT 0, 1",
        "INSERT INTO is_map (v) SELECT 1, 2",
        "INSERT INTO is_map SELECT * FROM is_map_a",
    ] {
        assert_eq!(code(c.query_drop(sql).await).0, 1136, "{sql}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_duplicate_key_update_and_replace_count_their_new_rows() {
    let mut c = conn().await;
    fresh(&mut c, "is_upsert", &format!("{COLUMNS}, UNIQUE KEY (s)")).await;
    c.query_drop("INSERT INTO is_upsert (v, s) VALUES (1, 'a'), (2, 'b')")
        .await
        .unwrap();
    // 'a' is there (updated: 2 affected), 'c' is new (1 affected). The id the updated row was
    // given is used up, as InnoDB's is: 'c' gets 4.
    let sql = "INSERT INTO is_upsert (id, v, s) SELECT 0, v + 10, s FROM is_upsert WHERE s = 'a' \
               UNION ALL SELECT 0, 30, 'c' FROM is_upsert WHERE id = 2 \
               ON DUPLICATE KEY UPDATE v = VALUES(v)";
    assert_eq!(inserted(&mut c, sql).await.0, 3);
    // On the primary key: an explicit id updates.
    let sql = "INSERT INTO is_upsert SELECT id, v, s FROM is_upsert WHERE id = 2 \
               ON DUPLICATE KEY UPDATE v = v + 100";
    assert_eq!(inserted(&mut c, sql).await.0, 2);
    // REPLACE: 'd' is new (5), the second row replaces 'a' (6).
    let sql = "REPLACE INTO is_upsert SELECT 0, 40, 'd' UNION ALL SELECT 0, 50, 'a'";
    assert_eq!(inserted(&mut c, sql).await, (3, Some(5), 5));
    assert_eq!(
        rows(&mut c, "is_upsert").await,
        [
            row(2, 102, Some("b")),
            row(4, 30, Some("c")),
            row(5, 40, Some("d")),
            row(6, 50, Some("a")),
        ]
    );
    // A table without an AUTO_INCREMENT column: as written, and the upsert reads past its
    // FROM (SQLite would take the ON of ON CONFLICT for a join's).
    fresh(&mut c, "is_upsert_k", "k INT PRIMARY KEY, w INT").await;
    let sql = "INSERT INTO is_upsert_k SELECT v, 1 FROM is_upsert \
               ON DUPLICATE KEY UPDATE w = w + 1";
    c.query_drop(sql).await.unwrap();
    c.query_drop(sql).await.unwrap();
    let sql = "INSERT INTO is_upsert_k SELECT 0, 1 UNION SELECT v, 1 FROM is_upsert \
               ON DUPLICATE KEY UPDATE w = w + 1";
    c.query_drop(sql).await.unwrap();
    let got: Vec<(i64, i64)> = c
        .query("SELECT k, w FROM is_upsert_k ORDER BY k")
        .await
        .unwrap();
    assert_eq!(got, [(0, 1), (30, 3), (40, 3), (50, 3), (102, 3)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_auto_value_on_zero_keeps_a_zero_and_null_still_counts() {
    let mut c = conn().await;
    fresh(&mut c, "is_zero", COLUMNS).await;
    c.query_drop("SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'")
        .await
        .unwrap();
    let sql = "INSERT INTO is_zero SELECT 0, 1, 'z'";
    assert_eq!(inserted(&mut c, sql).await.0, 1);
    let sql = "INSERT INTO is_zero SELECT NULL, 2, 'n' UNION ALL SELECT NULL, 3, 'n'";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(1), 1));
    let r = c.query_drop("INSERT INTO is_zero SELECT 0, 4, 'z'").await;
    assert_eq!(code(r).0, 1062); // the 0 is taken
    c.query_drop("SET sql_mode = ''").await.unwrap();
    let sql = "INSERT INTO is_zero SELECT 0, 5, 'c'";
    assert_eq!(inserted(&mut c, sql).await, (1, Some(3), 3));
    assert_eq!(
        rows(&mut c, "is_zero").await,
        [
            row(0, 1, Some("z")),
            row(1, 2, Some("n")),
            row(2, 3, Some("n")),
            row(3, 5, Some("c")),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_insert_select_counts_a_bound_zero_and_follows_its_table() {
    let mut c = conn().await;
    fresh(&mut c, "is_prep", COLUMNS).await;
    let st = c
        .prep("INSERT INTO is_prep (v, id) SELECT ?, ? UNION ALL SELECT ?, 0")
        .await
        .unwrap();
    c.exec_drop(&st, (1, 0, 2)).await.unwrap();
    assert_eq!(c.last_insert_id(), Some(1));
    c.exec_drop(&st, (3, 10, 4)).await.unwrap();
    assert_eq!(c.last_insert_id(), Some(11));
    // The mode is part of what the statement keeps: its second row's 0 is stored, then taken.
    c.query_drop("SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'")
        .await
        .unwrap();
    c.exec_drop(&st, (5, 20, 6)).await.unwrap();
    let r = c.exec_drop(&st, (7, 21, 8)).await;
    assert_eq!(code(r).0, 1062);
    c.query_drop("SET sql_mode = ''").await.unwrap();
    c.exec_drop(&st, (9, 0, 10)).await.unwrap();
    assert_eq!(c.last_insert_id(), Some(21));
    let ids: Vec<i64> = c.query("SELECT id FROM is_prep ORDER BY id").await.unwrap();
    assert_eq!(ids, [0, 1, 2, 10, 11, 20, 21, 22]);
    // The same statement after its table changed under it (kept per schema version): without
    // an AUTO_INCREMENT column a 0 is stored as given.
    fresh(&mut c, "is_prep", "id INT PRIMARY KEY, v INT").await;
    let r = c.exec_drop(&st, (1, 0, 2)).await;
    assert_eq!(code(r).0, 1062);
    c.exec_drop(&st, (1, 7, 2)).await.unwrap();
    let got: Vec<(i64, i64)> = c
        .query("SELECT id, v FROM is_prep ORDER BY id")
        .await
        .unwrap();
    assert_eq!(got, [(0, 2), (7, 1)]);
    fresh(&mut c, "is_prep", COLUMNS).await;
    c.exec_drop(&st, (1, 0, 2)).await.unwrap();
    assert_eq!(c.last_insert_id(), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_table_select_numbers_its_auto_increment_column() {
    let mut c = conn().await;
    for t in ["is_created", "is_created_n", "is_created_src"] {
        c.query_drop(format!("DROP TABLE IF EXISTS {t}"))
            .await
            .unwrap();
    }
    fresh(&mut c, "is_created_src", "v INT").await;
    c.query_drop("INSERT INTO is_created_src VALUES (5), (6)")
        .await
        .unwrap();
    // The select fills the column with 0s: numbered, the first id is LAST_INSERT_ID().
    let sql = "CREATE TABLE is_created (id INT AUTO_INCREMENT PRIMARY KEY, s VARCHAR(10)) \
               SELECT 0 AS id, v FROM is_created_src ORDER BY v";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(1), 1));
    let got: Vec<(i64, i64)> = c
        .query("SELECT id, v FROM is_created ORDER BY id")
        .await
        .unwrap();
    assert_eq!(got, [(1, 5), (2, 6)]);
    c.query_drop("INSERT INTO is_created (v) VALUES (7)")
        .await
        .unwrap();
    assert_eq!(c.last_insert_id(), Some(3));
    // The select leaves it out, and the counter starts at 100.
    let sql = "CREATE TABLE is_created_n (id INT AUTO_INCREMENT PRIMARY KEY) AUTO_INCREMENT = 100 \
               SELECT v FROM is_created_src ORDER BY v DESC";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(100), 100));
    let got: Vec<(i64, i64)> = c
        .query("SELECT id, v FROM is_created_n ORDER BY id")
        .await
        .unwrap();
    assert_eq!(got, [(100, 6), (101, 5)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_changed_by_alter_table_is_read_again() {
    let mut c = conn().await;
    let mut other = conn().await;
    fresh(&mut c, "is_alter", "id INT NOT NULL PRIMARY KEY, v INT").await;
    let sql = "INSERT INTO is_alter SELECT 0, 1";
    c.query_drop(sql).await.unwrap(); // stored as given: no AUTO_INCREMENT column
                                      // Another session adds AUTO_INCREMENT: the same text counts its 0 now.
    other
        .query_drop("ALTER TABLE is_alter MODIFY id INT NOT NULL AUTO_INCREMENT")
        .await
        .unwrap();
    c.query_drop("INSERT INTO is_alter SELECT 0, 2")
        .await
        .unwrap();
    assert_eq!(c.last_insert_id(), Some(1));
    // And takes it away again: a 0 is stored as given, here a duplicate.
    other
        .query_drop("ALTER TABLE is_alter MODIFY id INT NOT NULL")
        .await
        .unwrap();
    let r = c
        .query_drop("INSERT INTO is_alter SELECT 5, 3 UNION ALL SELECT 0, 4")
        .await;
    assert_eq!(code(r).0, 1062);
    let got: Vec<(i64, i64)> = c
        .query("SELECT id, v FROM is_alter ORDER BY id")
        .await
        .unwrap();
    assert_eq!(got, [(0, 1), (1, 2)]);
}

/// `SELECT * FROM table` as `(a, b)` pairs, in order of `a`.
async fn pairs(c: &mut Conn, table: &str, a: &str, b: &str) -> Vec<(i64, Option<i64>)> {
    c.query(format!("SELECT {a}, {b} FROM {table} ORDER BY {a}"))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_temporary_table_and_the_base_table_it_shadows_are_each_read_as_themselves() {
    let mut c = conn().await;
    let mut other = conn().await;
    // The base table counts from 100, in its first column of three.
    fresh(&mut c, "is_tmp", COLUMNS).await;
    c.query_drop("ALTER TABLE is_tmp AUTO_INCREMENT = 100")
        .await
        .unwrap();
    let base = "INSERT INTO is_tmp (v) SELECT 1";
    assert_eq!(inserted(&mut c, base).await, (1, Some(100), 100));
    assert_eq!(inserted(&mut other, base).await, (1, Some(101), 101));
    // The session's temporary table of the name: its counted column second of two, its own
    // counter. Read after the base table was, at the same DDL epoch for the other session.
    c.query_drop("CREATE TEMPORARY TABLE is_tmp (v INT, id INT AUTO_INCREMENT PRIMARY KEY)")
        .await
        .unwrap();
    assert_eq!(inserted(&mut other, base).await, (1, Some(102), 102));
    let sql = "INSERT INTO is_tmp SELECT 7, 0 UNION ALL SELECT 8, NULL";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(1), 1));
    let sql = "INSERT INTO is_tmp (v) SELECT 17 UNION ALL SELECT 18";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(3), 3));
    // As MySQL's manual says of INSERT ... SELECT: not from the temporary table it fills.
    let r = c
        .query_drop("INSERT INTO is_tmp (v) SELECT v FROM is_tmp")
        .await;
    assert_eq!(code(r).0, 1137);
    // The other session, after the temporary table was read: still the base table.
    let sql = "INSERT INTO is_tmp SELECT 0, 2, 'o'";
    assert_eq!(inserted(&mut other, sql).await, (1, Some(103), 103));
    assert_eq!(
        pairs(&mut c, "is_tmp", "id", "v").await,
        [(1, Some(7)), (2, Some(8)), (3, Some(17)), (4, Some(18))]
    );
    // Dropped: the same statements mean the base table again, in both sessions.
    c.query_drop("DROP TEMPORARY TABLE is_tmp").await.unwrap();
    assert_eq!(inserted(&mut c, base).await, (1, Some(104), 104));
    let sql = "INSERT INTO is_tmp SELECT 0, 3, 'c'";
    assert_eq!(inserted(&mut c, sql).await, (1, Some(105), 105));
    assert_eq!(inserted(&mut other, base).await, (1, Some(106), 106));
    let ids: Vec<i64> = c.query("SELECT id FROM is_tmp ORDER BY id").await.unwrap();
    assert_eq!(ids, (100..=106).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_temporary_table_with_or_without_the_counted_column_of_its_base_table() {
    let mut c = conn().await;
    let mut other = conn().await;
    // A base table without AUTO_INCREMENT, shadowed by a temporary one with it, read by the
    // other session in between: the 0 is stored in the base table, counted in the temporary.
    fresh(&mut c, "is_tmp_plain", "id INT PRIMARY KEY, v INT").await;
    let sql = "INSERT INTO is_tmp_plain SELECT 0, 1";
    other.query_drop(sql).await.unwrap();
    c.query_drop("CREATE TEMPORARY TABLE is_tmp_plain (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    assert_eq!(inserted(&mut c, sql).await, (1, Some(1), 1));
    assert_eq!(inserted(&mut c, sql).await, (1, Some(2), 2));
    let r = other.query_drop(sql).await;
    assert_eq!(code(r).0, 1062); // the base table's 0, given twice
    assert_eq!(
        pairs(&mut c, "is_tmp_plain", "id", "v").await,
        [(1, Some(1)), (2, Some(1))]
    );
    // The other way round: a base table with AUTO_INCREMENT, a temporary one without.
    fresh(&mut c, "is_tmp_counted", COLUMNS).await;
    let sql = "INSERT INTO is_tmp_counted (id, v) SELECT 0, 5";
    assert_eq!(inserted(&mut other, sql).await, (1, Some(1), 1));
    c.query_drop("CREATE TEMPORARY TABLE is_tmp_counted (id INT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    c.query_drop(sql).await.unwrap();
    let r = c.query_drop(sql).await;
    assert_eq!(code(r).0, 1062);
    assert_eq!(
        pairs(&mut c, "is_tmp_counted", "id", "v").await,
        [(0, Some(5))]
    );
    assert_eq!(inserted(&mut other, sql).await, (1, Some(2), 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_temporary_table_select_numbers_its_own_rows() {
    let mut c = conn().await;
    // A base table of the name, its counter at 50.
    fresh(
        &mut c,
        "is_tmp_ctas",
        "id INT AUTO_INCREMENT PRIMARY KEY, v INT",
    )
    .await;
    c.query_drop("INSERT INTO is_tmp_ctas VALUES (49, 0), (0, 1)")
        .await
        .unwrap();
    let sql = "CREATE TEMPORARY TABLE is_tmp_ctas (id INT AUTO_INCREMENT PRIMARY KEY, v INT) \
               SELECT 0 AS id, v + 10 AS v FROM is_tmp_ctas ORDER BY v";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(1), 1));
    let sql = "INSERT INTO is_tmp_ctas (v) SELECT 20 UNION ALL SELECT 21";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(3), 3));
    assert_eq!(
        pairs(&mut c, "is_tmp_ctas", "id", "v").await,
        [(1, Some(10)), (2, Some(11)), (3, Some(20)), (4, Some(21))]
    );
    // With AUTO_INCREMENT = n, and a select that leaves the column out.
    let sql = "CREATE TEMPORARY TABLE is_tmp_ctas_n (id INT AUTO_INCREMENT PRIMARY KEY) \
               AUTO_INCREMENT = 7 SELECT v FROM is_tmp_ctas WHERE v > 15 ORDER BY v";
    assert_eq!(inserted(&mut c, sql).await, (2, Some(7), 7));
    assert_eq!(
        pairs(&mut c, "is_tmp_ctas_n", "id", "v").await,
        [(7, Some(20)), (8, Some(21))]
    );
    // Gone: the base table again, its counter where it was.
    c.query_drop("DROP TEMPORARY TABLE is_tmp_ctas")
        .await
        .unwrap();
    let sql = "INSERT INTO is_tmp_ctas SELECT NULL, 2";
    assert_eq!(inserted(&mut c, sql).await, (1, Some(51), 51));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_insert_select_follows_a_temporary_table_made_and_dropped() {
    let mut c = conn().await;
    fresh(&mut c, "is_tmp_prep", COLUMNS).await;
    c.query_drop("ALTER TABLE is_tmp_prep AUTO_INCREMENT = 30")
        .await
        .unwrap();
    let st = c
        .prep("INSERT INTO is_tmp_prep (v) SELECT ? UNION ALL SELECT ?")
        .await
        .unwrap();
    c.exec_drop(&st, (1, 2)).await.unwrap();
    assert_eq!(c.last_insert_id(), Some(30));
    c.query_drop("CREATE TEMPORARY TABLE is_tmp_prep (v INT, id INT AUTO_INCREMENT PRIMARY KEY)")
        .await
        .unwrap();
    c.exec_drop(&st, (3, 4)).await.unwrap();
    assert_eq!(c.last_insert_id(), Some(1));
    c.exec_drop(&st, (5, 6)).await.unwrap();
    assert_eq!(c.last_insert_id(), Some(3));
    assert_eq!(
        pairs(&mut c, "is_tmp_prep", "id", "v").await,
        [(1, Some(3)), (2, Some(4)), (3, Some(5)), (4, Some(6))]
    );
    c.query_drop("DROP TEMPORARY TABLE is_tmp_prep")
        .await
        .unwrap();
    c.exec_drop(&st, (7, 8)).await.unwrap();
    assert_eq!(c.last_insert_id(), Some(32));
    let ids: Vec<i64> = c
        .query("SELECT id FROM is_tmp_prep ORDER BY id")
        .await
        .unwrap();
    assert_eq!(ids, [30, 31, 32, 33]);
}
