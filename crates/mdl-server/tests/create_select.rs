//! `CREATE TABLE ... SELECT` as MySQL's manual ("CREATE TABLE ... SELECT Statement") shows it:
//! the definition's columns, then the select's, the select's rows inserted, the definition's
//! keys applied; a failure leaves no table.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// `SHOW CREATE TABLE`'s text.
async fn create_text(c: &mut Conn, table: &str) -> String {
    let row: (String, String) = c
        .query_first(format!("SHOW CREATE TABLE {table}"))
        .await
        .unwrap()
        .unwrap();
    row.1
}

/// The columns' names, in order.
async fn column_names(c: &mut Conn, table: &str) -> Vec<String> {
    let rows: Vec<mysql_async::Row> = c.query(format!("SHOW COLUMNS FROM {table}")).await.unwrap();
    (rows.into_iter())
        .map(|r| r.get::<String, _>("Field").unwrap())
        .collect()
}

async fn exists(c: &mut Conn, table: &str) -> bool {
    let sql = format!("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = '{table}'");
    let n: i64 = c.query_first(sql).await.unwrap().unwrap();
    n == 1
}

/// Runs `sql`, giving its affected rows.
async fn affected(c: &mut Conn, sql: &str) -> u64 {
    c.query_drop(sql).await.unwrap();
    c.affected_rows()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_select_columns_are_appended_to_the_definition() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE cs_foo (n INT)").await.unwrap();
    c.query_drop("INSERT INTO cs_foo VALUES (1)").await.unwrap();
    // The manual's example: `m` first, `n` appended, each row `(NULL, n)`.
    let sql = "CREATE TABLE cs_bar (m INT) SELECT n FROM cs_foo";
    assert_eq!(affected(&mut c, sql).await, 1);
    assert_eq!(column_names(&mut c, "cs_bar").await, ["m", "n"]);
    let rows: Vec<(Option<i64>, i64)> = c.query("SELECT * FROM cs_bar").await.unwrap();
    assert_eq!(rows, [(None, 1)]);
    let text = create_text(&mut c, "cs_bar").await;
    assert!(
        text.contains("`m` int DEFAULT NULL,\n  `n` int DEFAULT NULL"),
        "{text}"
    );

    // A defined column the select names is that column, with the definition's type, after
    // the columns only the definition names; the others get their defaults.
    c.query_drop("CREATE TABLE cs_src (a INT, b VARCHAR(10))")
        .await
        .unwrap();
    c.query_drop("INSERT INTO cs_src VALUES (1, 'x'), (2, 'y')")
        .await
        .unwrap();
    let sql = "CREATE TABLE cs_both (a BIGINT, x INT DEFAULT 7) AS SELECT a, b FROM cs_src";
    assert_eq!(affected(&mut c, sql).await, 2);
    assert_eq!(column_names(&mut c, "cs_both").await, ["x", "a", "b"]);
    let text = create_text(&mut c, "cs_both").await;
    assert!(text.contains("`x` int DEFAULT '7'"), "{text}");
    assert!(text.contains("`a` bigint DEFAULT NULL"), "{text}");
    assert!(text.contains("`b` varchar(10) DEFAULT NULL"), "{text}");
    let rows: Vec<(i64, i64, String)> = c
        .query("SELECT x, a, b FROM cs_both ORDER BY a")
        .await
        .unwrap();
    assert_eq!(rows, [(7, 1, "x".into()), (7, 2, "y".into())]);

    // No definition: the select's columns, typed as what they read; an expression as MySQL
    // types its result (an `INT` times 10: `bigint`).
    let sql = "CREATE TABLE cs_plain SELECT b, a * 10 AS ten FROM cs_src WHERE a = 2";
    assert_eq!(affected(&mut c, sql).await, 1);
    let text = create_text(&mut c, "cs_plain").await;
    assert!(text.contains("`b` varchar(10) DEFAULT NULL"), "{text}");
    assert!(text.contains("`ten` bigint DEFAULT NULL"), "{text}");
    let row: Option<(String, i64)> = c.query_first("SELECT * FROM cs_plain").await.unwrap();
    assert_eq!(row, Some(("y".into(), 20)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_of_the_definition_apply_and_a_duplicate_leaves_no_table() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE cs_test2 (b INT, c VARCHAR(5))")
        .await
        .unwrap();
    c.query_drop("INSERT INTO cs_test2 VALUES (10, 'p'), (20, 'q'), (10, 'r')")
        .await
        .unwrap();
    // The manual's `CREATE TABLE test (a INT NOT NULL AUTO_INCREMENT, PRIMARY KEY (a), KEY(b))
    // ENGINE=InnoDB SELECT b,c FROM test2`: three columns, `a` counting.
    let sql = "CREATE TABLE cs_test (a INT NOT NULL AUTO_INCREMENT, PRIMARY KEY (a), KEY(b)) \
               ENGINE=InnoDB SELECT b, c FROM cs_test2 ORDER BY c";
    assert_eq!(affected(&mut c, sql).await, 3);
    assert_eq!(column_names(&mut c, "cs_test").await, ["a", "b", "c"]);
    let rows: Vec<(i64, i64, String)> = c.query("SELECT * FROM cs_test ORDER BY a").await.unwrap();
    assert_eq!(
        rows,
        [
            (1, 10, "p".into()),
            (2, 20, "q".into()),
            (3, 10, "r".into())
        ]
    );
    let text = create_text(&mut c, "cs_test").await;
    assert!(text.contains("PRIMARY KEY (`a`)"), "{text}");
    assert!(text.contains("KEY `b` (`b`)"), "{text}");

    // A primary key on a select column, the select giving a value twice: 1062, no table.
    let dup = "CREATE TABLE cs_pk (b INT PRIMARY KEY) SELECT b, c FROM cs_test2";
    assert_eq!(code(c.query_drop(dup).await).0, 1062);
    assert!(!exists(&mut c, "cs_pk").await);
    let dup = "CREATE TABLE cs_pk (PRIMARY KEY (b)) SELECT b FROM cs_test2";
    assert_eq!(code(c.query_drop(dup).await).0, 1062);
    assert!(!exists(&mut c, "cs_pk").await);
    // Without the duplicate: the key holds.
    let ok = "CREATE TABLE cs_pk (PRIMARY KEY (b)) SELECT b FROM cs_test2 WHERE c <> 'r'";
    assert_eq!(affected(&mut c, ok).await, 2);
    let text = create_text(&mut c, "cs_pk").await;
    assert!(text.contains("PRIMARY KEY (`b`)"), "{text}");
    let again = "INSERT INTO cs_pk VALUES (10)";
    assert_eq!(code(c.query_drop(again).await).0, 1062);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_leave_no_table_and_an_existing_table_is_left_alone() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE cs_have (a INT)").await.unwrap();
    c.query_drop("INSERT INTO cs_have VALUES (1), (2)")
        .await
        .unwrap();
    // A select that does not prepare: its error, no table.
    let unknown = "CREATE TABLE cs_fail (x INT) SELECT nope FROM cs_have";
    assert_eq!(code(c.query_drop(unknown).await).0, 1054);
    let missing = "CREATE TABLE cs_fail SELECT * FROM cs_missing";
    assert_eq!(code(c.query_drop(missing).await).0, 1146);
    // A column named twice, or a name MySQL refuses.
    let twice = "CREATE TABLE cs_fail SELECT a, a FROM cs_have";
    assert_eq!(code(c.query_drop(twice).await).0, 1060);
    let empty = "CREATE TABLE cs_fail SELECT a, '' FROM cs_have";
    assert_eq!(code(c.query_drop(empty).await).0, 1166);
    // A value the definition refuses.
    let null = "CREATE TABLE cs_fail (a INT NOT NULL) SELECT NULL AS a";
    assert_eq!(code(c.query_drop(null).await).0, 1048);
    assert!(!exists(&mut c, "cs_fail").await);

    // IF NOT EXISTS of a table that exists: OK, nothing inserted (MySQL 8.0).
    let sql = "CREATE TABLE IF NOT EXISTS cs_have (b INT) SELECT a FROM cs_have";
    assert_eq!(affected(&mut c, sql).await, 0);
    assert_eq!(column_names(&mut c, "cs_have").await, ["a"]);
    let n: i64 = c
        .query_first("SELECT COUNT(*) FROM cs_have")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 2);
    let sql = "CREATE TABLE cs_have SELECT a FROM cs_have";
    assert_eq!(code(c.query_drop(sql).await).0, 1050);

    // A prepared statement's parameters go to the select.
    c.exec_drop("CREATE TABLE cs_param SELECT a, ? AS p FROM cs_have", (5,))
        .await
        .unwrap();
    let rows: Vec<(i64, i64)> = c
        .query("SELECT a, p FROM cs_param ORDER BY a")
        .await
        .unwrap();
    assert_eq!(rows, [(1, 5), (2, 5)]);
}

/// `IGNORE` / `REPLACE` before the select (MySQL's `duplicate` in `opt_duplicate_as_qe`): a row
/// that duplicates an earlier one on a unique key is skipped, or replaces it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ignore_and_replace_before_the_select_settle_duplicates() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE cs_dups (k INT, v VARCHAR(5), n INT); \
         INSERT INTO cs_dups VALUES (1, 'a', 1), (2, 'b', 2), (1, 'c', 3)",
    )
    .await
    .unwrap();
    // IGNORE: the first row of each key stays.
    let sql = "CREATE TABLE cs_ign (PRIMARY KEY (k)) IGNORE SELECT k, v FROM cs_dups ORDER BY n";
    assert_eq!(affected(&mut c, sql).await, 2);
    let rows: Vec<(i64, String)> = c.query("SELECT k, v FROM cs_ign ORDER BY k").await.unwrap();
    assert_eq!(rows, [(1, "a".into()), (2, "b".into())]);
    // REPLACE (after table options, before AS): the last row of each key stays.
    let sql = "CREATE TABLE cs_rep (k INT PRIMARY KEY, v VARCHAR(5)) ENGINE=InnoDB \
               REPLACE AS SELECT k, v FROM cs_dups ORDER BY n";
    c.query_drop(sql).await.unwrap();
    let rows: Vec<(i64, String)> = c.query("SELECT k, v FROM cs_rep ORDER BY k").await.unwrap();
    assert_eq!(rows, [(1, "c".into()), (2, "b".into())]);
    // A temporary table.
    let sql = "CREATE TEMPORARY TABLE cs_tmp (UNIQUE KEY (k)) IGNORE AS SELECT k FROM cs_dups";
    assert_eq!(affected(&mut c, sql).await, 2);
    // Without either word a duplicate is still 1062, and no table is left.
    let sql = "CREATE TABLE cs_none (PRIMARY KEY (k)) SELECT k FROM cs_dups";
    assert_eq!(code(c.query_drop(sql).await).0, 1062);
    assert!(!exists(&mut c, "cs_none").await);
    // Only before a query: elsewhere the words are a syntax error, as in MySQL.
    let e = c.query_drop("CREATE TABLE cs_bad (k INT) IGNORE").await;
    assert_eq!(code(e).0, 1064);
}

/// MySQL 8.0's `as_create_query_expression` without `AS`: the query in parentheses, after the
/// name or after the definitions (and `IGNORE`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_query_may_be_in_parentheses() {
    let mut c = conn().await;
    c.query_drop("DROP TABLE IF EXISTS cs_p1, cs_p2, cs_p3")
        .await
        .unwrap();
    assert_eq!(
        affected(&mut c, "CREATE TABLE cs_p1 (SELECT 1 AS a)").await,
        1
    );
    assert_eq!(column_names(&mut c, "cs_p1").await, ["a"]);
    let sql = "CREATE TABLE cs_p2 (m INT) (SELECT 2 AS a UNION SELECT 3)";
    assert_eq!(affected(&mut c, sql).await, 2);
    assert_eq!(column_names(&mut c, "cs_p2").await, ["m", "a"]);
    let rows: Vec<(Option<i64>, i64)> = c.query("SELECT * FROM cs_p2 ORDER BY a").await.unwrap();
    assert_eq!(rows, [(None, 2), (None, 3)]);
    let sql = "CREATE TABLE cs_p3 (id INT PRIMARY KEY) IGNORE (SELECT 1 id UNION ALL SELECT 1)";
    assert_eq!(affected(&mut c, sql).await, 1);
    let sql = "CREATE TEMPORARY TABLE cs_p4 ((SELECT a FROM cs_p1))";
    assert_eq!(affected(&mut c, sql).await, 1);
    let rows: Vec<i64> = c.query("SELECT a FROM cs_p4").await.unwrap();
    assert_eq!(rows, [1]);
    c.query_drop("DROP TABLE cs_p1, cs_p2, cs_p3, cs_p4")
        .await
        .unwrap();
}

/// An expression column of a select from a temporary table has MySQL's type of it, from the
/// temporary table's columns (not blob, nor from the base table of the name it shadows).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expressions_over_a_temporary_table_have_mysqls_types() {
    let mut c = conn().await;
    c.query_drop("DROP TABLE IF EXISTS cs_tmp, cs_tmp_base")
        .await
        .unwrap();
    c.query_drop("CREATE TABLE cs_tmp (a VARCHAR(5), s INT)")
        .await
        .unwrap();
    c.query_drop("CREATE TEMPORARY TABLE cs_tmp (a INT, s VARCHAR(10))")
        .await
        .unwrap();
    c.query_drop("INSERT INTO cs_tmp VALUES (1, 'x')")
        .await
        .unwrap();
    let sql = "CREATE TEMPORARY TABLE cs_tmp2 AS SELECT a + 1 AS b, CONCAT(s, 'x') AS c, \
               cs_tmp.a * 2 AS d FROM cs_tmp";
    assert_eq!(affected(&mut c, sql).await, 1);
    let text = create_text(&mut c, "cs_tmp2").await;
    assert!(text.contains("`b` bigint"), "{text}");
    assert!(text.contains("`c` varchar(11)"), "{text}");
    assert!(text.contains("`d` bigint"), "{text}");
    // A base table made from the temporary one; a WITH query of the name is not the table.
    let sql = "CREATE TABLE cs_tmp_base SELECT a + 1 AS b FROM cs_tmp";
    assert_eq!(affected(&mut c, sql).await, 1);
    let text = create_text(&mut c, "cs_tmp_base").await;
    assert!(text.contains("`b` bigint"), "{text}");
    let sql = "CREATE TEMPORARY TABLE cs_tmp3 AS WITH cs_tmp AS (SELECT 'abc' AS a) \
               SELECT CONCAT(a, 'x') AS c FROM cs_tmp";
    assert_eq!(affected(&mut c, sql).await, 1);
    let text = create_text(&mut c, "cs_tmp3").await;
    assert!(text.contains("`c` varchar(4)"), "{text}");
    c.query_drop("DROP TEMPORARY TABLE cs_tmp, cs_tmp2, cs_tmp3")
        .await
        .unwrap();
    c.query_drop("DROP TABLE cs_tmp, cs_tmp_base")
        .await
        .unwrap();
}
