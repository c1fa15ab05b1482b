//! `DEFAULT` as a value where SQLite has none, as MySQL reads it: `UPDATE ... SET c = DEFAULT`,
//! `ON DUPLICATE KEY UPDATE c = DEFAULT`, `DEFAULT` in some rows of an INSERT only, and
//! `DEFAULT(c)`; text and prepared. And the single-table UPDATE forms SQLite spells otherwise
//! (an alias without `AS`, qualified columns in `SET`), and INSERT's priority keywords; an
//! expression default stays one through a table rebuild.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

type Row = (i64, Option<i64>, Option<String>);

async fn rows(c: &mut Conn, table: &str) -> Vec<Row> {
    c.query(format!("SELECT id, a, b FROM {table} ORDER BY id"))
        .await
        .unwrap()
}

fn row(id: i64, a: Option<i64>, b: Option<&str>) -> Row {
    (id, a, b.map(str::to_string))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_is_the_column_default_in_updates_and_upserts() {
    let mut c = conn().await;
    let columns =
        "id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT 7, b VARCHAR(10) DEFAULT 'it''s', n INT";
    fresh(&mut c, "dv_update", columns).await;
    c.query_drop("INSERT INTO dv_update (a, b) VALUES (1, 'x'), (2, 'y'), (3, 'z'), (4, 'w')")
        .await
        .unwrap();
    c.query_drop("UPDATE dv_update SET a = DEFAULT, b = DEFAULT WHERE id = 1")
        .await
        .unwrap();
    // A column without a default: NULL.
    c.query_drop("UPDATE dv_update SET a = DEFAULT(n) WHERE id = 2")
        .await
        .unwrap();
    c.query_drop("UPDATE dv_update SET a = DEFAULT(a) * 2 + 1 WHERE id = 3")
        .await
        .unwrap();
    c.query_drop("INSERT INTO dv_update (id, a, b) VALUES (4, 0, 'v') ON DUPLICATE KEY UPDATE b = DEFAULT, a = DEFAULT(a) + 1")
        .await
        .unwrap();
    // Prepared: the same, with a bound value beside it.
    let st = c
        .prep("UPDATE dv_update SET b = DEFAULT, a = ? WHERE id = ?")
        .await
        .unwrap();
    c.exec_drop(&st, (40, 4)).await.unwrap();
    assert_eq!(c.affected_rows(), 1);
    c.exec_drop(&st, (50, 3)).await.unwrap();
    assert_eq!(
        rows(&mut c, "dv_update").await,
        [
            row(1, Some(7), Some("it's")),
            row(2, None, Some("y")),
            row(3, Some(50), Some("it's")),
            row(4, Some(40), Some("it's")),
        ]
    );
    // MySQL's errors for a column the table lacks.
    let r = c.query_drop("UPDATE dv_update SET nosuch = DEFAULT").await;
    assert_eq!(code(r), (1054, "42S22".into()));
    let r = c
        .query_drop("UPDATE dv_update SET a = DEFAULT(nosuch)")
        .await;
    assert_eq!(code(r).0, 1054);
    let r = c
        .query_drop("INSERT INTO dv_nosuch VALUES (DEFAULT), (1)")
        .await;
    assert_eq!(code(r), (1146, "42S02".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_in_some_rows_and_a_time_default() {
    let mut c = conn().await;
    let columns = "id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT 5, b VARCHAR(10), \
                   t DATETIME DEFAULT CURRENT_TIMESTAMP";
    fresh(&mut c, "dv_rows", columns).await;
    c.query_drop("INSERT INTO dv_rows (a, b, t) VALUES (1, DEFAULT, DEFAULT), (DEFAULT, 'q', '2000-01-01 00:00:00')")
        .await
        .unwrap();
    assert_eq!(
        rows(&mut c, "dv_rows").await,
        [row(1, Some(1), None), row(2, Some(5), Some("q"))]
    );
    let recent: Vec<i64> = c
        .query("SELECT id FROM dv_rows WHERE t > NOW() - INTERVAL 1 HOUR")
        .await
        .unwrap();
    assert_eq!(recent, [1]);
    c.query_drop("UPDATE dv_rows SET t = DEFAULT WHERE id = 2")
        .await
        .unwrap();
    let fresh_rows: i64 = c
        .query_first("SELECT COUNT(*) FROM dv_rows WHERE t > NOW() - INTERVAL 1 HOUR")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(fresh_rows, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_table_update_forms_and_insert_priorities() {
    let mut c = conn().await;
    fresh(
        &mut c,
        "dv_forms",
        "id INT PRIMARY KEY, a INT, b VARCHAR(10)",
    )
    .await;
    for sql in [
        "INSERT LOW_PRIORITY INTO dv_forms VALUES (1, 1, 'a')",
        "INSERT HIGH_PRIORITY INTO dv_forms VALUES (2, 2, 'b')",
        "INSERT DELAYED INTO dv_forms VALUES (3, 3, 'c')",
        "INSERT LOW_PRIORITY IGNORE INTO dv_forms VALUES (3, 9, 'x')",
        "REPLACE LOW_PRIORITY INTO dv_forms VALUES (4, 4, 'd')",
        "UPDATE dv_forms x SET x.a = 10 WHERE x.id = 1",
        "UPDATE dv_forms AS x SET b = 'bb', x.a = x.a + 10 WHERE id = 2",
        "UPDATE dv_forms SET dv_forms.b = 'cc' WHERE dv_forms.id = 3",
        "UPDATE test.dv_forms SET test.dv_forms.a = 40 WHERE id = 4",
    ] {
        c.query_drop(sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    assert_eq!(
        rows(&mut c, "dv_forms").await,
        [
            row(1, Some(10), Some("a")),
            row(2, Some(12), Some("bb")),
            row(3, Some(3), Some("cc")),
            row(4, Some(40), Some("d")),
        ]
    );
    let r = c.query_drop("UPDATE dv_forms SET other.a = 1").await;
    assert_eq!(code(r), (1054, "42S22".into()));
    // The connection goes on.
    let n: i64 = c
        .query_first("SELECT COUNT(*) FROM dv_forms")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expression_default_stays_an_expression() {
    let mut c = conn().await;
    let columns = "id INT PRIMARY KEY, a INT DEFAULT (2 + 3), u VARCHAR(40) DEFAULT (UUID()), \
                   e VARBINARY(4) DEFAULT x'4142', f TINYINT(1) DEFAULT TRUE, b INT";
    fresh(&mut c, "dv_expr", columns).await;
    // A rebuild reads the table's definition back from SHOW CREATE TABLE's text.
    c.query_drop("ALTER TABLE dv_expr MODIFY b BIGINT")
        .await
        .unwrap();
    let (_, create): (String, String) = c
        .query_first("SHOW CREATE TABLE dv_expr")
        .await
        .unwrap()
        .unwrap();
    for line in [
        "`a` int DEFAULT (2 + 3),",
        "`e` varbinary(4) DEFAULT 'AB',",
        "`f` tinyint(1) DEFAULT '1',",
    ] {
        assert!(create.contains(line), "{line} in {create}");
    }
    c.query_drop("INSERT INTO dv_expr (id) VALUES (1), (2)")
        .await
        .unwrap();
    c.query_drop("UPDATE dv_expr SET a = 0, u = 'x' WHERE id = 2")
        .await
        .unwrap();
    c.query_drop("UPDATE dv_expr SET a = DEFAULT, u = DEFAULT WHERE id = 2")
        .await
        .unwrap();
    let rows: Vec<(i64, i64, i64, String, i64)> = c
        .query("SELECT id, a, LENGTH(u), e, f FROM dv_expr ORDER BY id")
        .await
        .unwrap();
    let ab = "AB".to_string();
    assert_eq!(rows, [(1, 5, 36, ab.clone(), 1), (2, 5, 36, ab, 1)]);
}

/// A NOT NULL column without a default that a statement gives no value of its own is 1364
/// (MySQL's strict mode), an explicit NULL 1048; nothing is written either way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_column_given_no_value_has_no_default() {
    let mut c = conn().await;
    fresh(
        &mut c,
        "dv_nodef",
        "id INT PRIMARY KEY, a INT NOT NULL, b INT",
    )
    .await;
    let no_default = (1364, "HY000".to_string());
    assert_eq!(
        code_and_message(c.query_drop("INSERT INTO dv_nodef (id) VALUES (1)").await),
        (1364, "Field 'a' doesn't have a default value".to_string())
    );
    for left_out in [
        "INSERT INTO dv_nodef (id, b) VALUES (1, 2)",
        "INSERT INTO dv_nodef (id) VALUES (1), (2)",
        "INSERT INTO dv_nodef SET id = 1, b = 2",
        "INSERT INTO dv_nodef (id, a) VALUES (1, DEFAULT)",
        "REPLACE INTO dv_nodef (id, b) VALUES (1, 2)",
        "INSERT INTO dv_nodef (id, b) SELECT 5, 6",
    ] {
        assert_eq!(
            code(c.query_drop(left_out).await),
            no_default.clone(),
            "{left_out}"
        );
    }
    for null in [
        "INSERT INTO dv_nodef VALUES (1, NULL, 2)",
        "INSERT INTO dv_nodef (id, a) VALUES (1, NULL)",
        "INSERT INTO dv_nodef SET id = 1, a = NULL",
    ] {
        assert_eq!(code(c.query_drop(null).await).0, 1048, "{null}");
    }
    // Prepared, with the column left out.
    let st = c
        .prep("INSERT INTO dv_nodef (id, b) VALUES (?, ?)")
        .await
        .unwrap();
    assert_eq!(code(c.exec_drop(&st, (1, 2)).await), no_default.clone());
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM dv_nodef")
        .await
        .unwrap();
    assert_eq!(n, Some(0));
    // UPDATE's `SET a = DEFAULT` has no default to give; `SET a = NULL` is 1048.
    c.query_drop("INSERT INTO dv_nodef VALUES (1, 1, 1)")
        .await
        .unwrap();
    let update = "UPDATE dv_nodef SET a = DEFAULT WHERE id = 1";
    assert_eq!(code(c.query_drop(update).await), no_default.clone());
    let update = "UPDATE dv_nodef SET a = NULL WHERE id = 1";
    assert_eq!(code(c.query_drop(update).await).0, 1048);
    let a: Option<i64> = c.query_first("SELECT a FROM dv_nodef").await.unwrap();
    assert_eq!(a, Some(1));
}
