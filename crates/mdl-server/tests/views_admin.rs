//! What a DBA asks of views over the wire: their columns (`DESCRIBE`, `SHOW [FULL] COLUMNS`,
//! `information_schema.COLUMNS`, with MySQL's `Null`, `Default` and types), the table
//! maintenance statements on them (`CHECK`, `ANALYZE`, `OPTIMIZE`, `REPAIR`, `CHECKSUM TABLE`,
//! rows as `sql/sql_admin.cc` sends them), and the statements that list or copy tables.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

type Row4 = (String, String, String, String);

/// `(Field, Type, Null, Default)` of each column of `sql` (a `DESCRIBE` or `SHOW COLUMNS`).
async fn described(c: &mut Conn, sql: &str) -> Vec<(String, String, String, Option<String>)> {
    let rows: Vec<mysql_async::Row> = bounded(sql, c.query(sql)).await.expect(sql);
    (rows.into_iter())
        .map(|r| {
            (
                r.get("Field").unwrap(),
                r.get("Type").unwrap(),
                r.get("Null").unwrap(),
                r.get("Default").unwrap(),
            )
        })
        .collect()
}

fn cols(v: &[(&str, &str, &str, Option<&str>)]) -> Vec<(String, String, String, Option<String>)> {
    (v.iter())
        .map(|(f, t, n, d)| {
            (
                f.to_string(),
                t.to_string(),
                n.to_string(),
                d.map(String::from),
            )
        })
        .collect()
}

fn rows(v: &[(&str, &str, &str, &str)]) -> Vec<Row4> {
    v.iter()
        .map(|r| (r.0.into(), r.1.into(), r.2.into(), r.3.into()))
        .collect()
}

async fn admin(c: &mut Conn, sql: &str) -> Vec<Row4> {
    bounded(sql, c.query(sql)).await.expect(sql)
}

async fn run(c: &mut Conn, sql: &str) {
    for q in sql.split(';') {
        bounded(q, c.query_drop(q)).await.expect(q);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_views_columns_say_what_its_select_says() {
    let mut c = conn().await;
    run(
        &mut c,
        "CREATE TABLE va_t (id INT PRIMARY KEY AUTO_INCREMENT, a INT NOT NULL DEFAULT 5, \
         b VARCHAR(10), c VARCHAR(20) NOT NULL); \
         CREATE TABLE va_u (id INT PRIMARY KEY, x INT NOT NULL); \
         CREATE VIEW va_v AS SELECT id, a, b, c AS cc, 1 AS one, 'abc' AS s, a + 1 AS ap \
         FROM va_t; \
         CREATE VIEW va_join AS SELECT t.id, u.x, u.id AS uid FROM va_t t LEFT JOIN va_u u \
         ON u.id = t.id; \
         CREATE VIEW va_count AS SELECT COUNT(*) AS n, MAX(a) AS m FROM va_t; \
         CREATE VIEW va_star (i, j) AS SELECT * FROM va_u; \
         CREATE VIEW va_over AS SELECT * FROM va_v; \
         CREATE VIEW va_union AS SELECT id, b FROM va_t UNION SELECT x, 'z' FROM va_u",
    )
    .await;
    let v = cols(&[
        ("id", "int", "NO", None),
        ("a", "int", "NO", Some("5")),
        ("b", "varchar(10)", "YES", None),
        ("cc", "varchar(20)", "NO", None),
        ("one", "int", "NO", Some("0")),
        ("s", "varchar(3)", "NO", Some("")),
        ("ap", "bigint", "YES", None),
    ]);
    assert_eq!(described(&mut c, "DESCRIBE va_v").await, v);
    assert_eq!(described(&mut c, "SHOW COLUMNS FROM va_v").await, v);
    // The forms answered from information_schema.COLUMNS: the same rows.
    assert_eq!(described(&mut c, "SHOW FULL COLUMNS FROM va_v").await, v);
    assert_eq!(
        described(&mut c, "SHOW COLUMNS FROM va_v LIKE 'a'").await,
        v[1..2]
    );
    let is: Vec<(String, String, Option<String>, String)> = c
        .query(
            "SELECT COLUMN_NAME, IS_NULLABLE, COLUMN_DEFAULT, COLUMN_KEY \
             FROM information_schema.COLUMNS WHERE TABLE_NAME = 'va_v' ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    let from_desc: Vec<(String, String, Option<String>, String)> = (v.iter())
        .map(|(f, _, n, d)| (f.clone(), n.clone(), d.clone(), String::new()))
        .collect();
    assert_eq!(is, from_desc);

    // The inner side of an outer join may be NULL whatever its columns say.
    assert_eq!(
        described(&mut c, "DESCRIBE va_join").await,
        cols(&[
            ("id", "int", "NO", None),
            ("x", "int", "YES", None),
            ("uid", "int", "YES", None),
        ])
    );
    assert_eq!(
        described(&mut c, "DESCRIBE va_count").await,
        cols(&[("n", "bigint", "NO", Some("0")), ("m", "int", "YES", None)])
    );
    assert_eq!(
        described(&mut c, "DESCRIBE va_star").await,
        cols(&[("i", "int", "NO", None), ("j", "int", "NO", None)])
    );
    // A view over a view: the inner view's columns, literals' types too.
    assert_eq!(described(&mut c, "DESCRIBE va_over").await, v);
    // NOT NULL in every branch; the first names and types the columns.
    assert_eq!(
        described(&mut c, "DESCRIBE va_union").await,
        cols(&[("id", "int", "NO", None), ("b", "varchar(10)", "YES", None)])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maintenance_of_a_view_answers_as_mysql() {
    let mut c = conn().await;
    run(
        &mut c,
        "CREATE TABLE vm_t (id INT PRIMARY KEY, v INT); INSERT INTO vm_t VALUES (1, 2); \
         CREATE VIEW vm_v AS SELECT id FROM vm_t; \
         CREATE TABLE vm_gone (id INT); CREATE VIEW vm_bad AS SELECT id FROM vm_gone; \
         DROP TABLE vm_gone",
    )
    .await;
    assert_eq!(
        admin(&mut c, "CHECK TABLE vm_v, vm_t").await,
        rows(&[
            ("test.vm_v", "check", "status", "OK"),
            ("test.vm_t", "check", "status", "OK"),
        ])
    );
    assert_eq!(
        admin(&mut c, "CHECK TABLE vm_bad").await,
        rows(&[
            (
                "test.vm_bad",
                "check",
                "Error",
                "View 'test.vm_bad' references invalid table(s) or column(s) or function(s) \
                 or definer/invoker of view lack rights to use them"
            ),
            ("test.vm_bad", "check", "error", "Corrupt"),
        ])
    );
    for op in ["analyze", "optimize", "repair"] {
        for view in ["vm_v", "vm_bad"] {
            let sql = format!("{} TABLE {view}", op.to_uppercase());
            let label = format!("test.{view}");
            let not_base = format!("'{label}' is not BASE TABLE");
            assert_eq!(
                admin(&mut c, &sql).await,
                rows(&[
                    (&label, op, "Error", &not_base),
                    (&label, op, "status", "Operation failed"),
                ]),
                "{sql}"
            );
        }
    }
    let sums: Vec<(String, Option<i64>)> = c.query("CHECKSUM TABLE vm_v, vm_t").await.unwrap();
    assert_eq!(sums[0], ("test.vm_v".to_string(), None));
    assert!(sums[1].1.is_some(), "{sums:?}");
    // The view is still there, and reads.
    let n: Option<i64> = c.query_first("SELECT COUNT(*) FROM vm_v").await.unwrap();
    assert_eq!(n, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_are_listed_and_not_copied() {
    let mut c = conn().await;
    run(
        &mut c,
        "CREATE DATABASE vl_db; CREATE TABLE vl_db.t (id INT); \
         CREATE VIEW vl_db.v AS SELECT id FROM vl_db.t",
    )
    .await;
    let shown: Vec<String> = c.query("SHOW TABLES FROM vl_db").await.unwrap();
    assert_eq!(shown, ["t", "v"]);
    let full: Vec<(String, String)> = c.query("SHOW FULL TABLES FROM vl_db").await.unwrap();
    assert_eq!(
        full,
        [
            ("t".to_string(), "BASE TABLE".to_string()),
            ("v".to_string(), "VIEW".to_string())
        ]
    );
    // `LIKE` works only for base tables (1347), before the new name is looked at.
    assert_eq!(
        code(c.query_drop("CREATE TABLE vl_db.copy LIKE vl_db.v").await),
        (1347, "HY000".to_string())
    );
    assert_eq!(
        code(
            c.query_drop("CREATE TABLE IF NOT EXISTS vl_db.t LIKE vl_db.v")
                .await
        ),
        (1347, "HY000".to_string())
    );
    let after: Vec<String> = c.query("SHOW TABLES FROM vl_db").await.unwrap();
    assert_eq!(after, ["t", "v"]);
    // DROP TABLE of a view is 1051, and leaves it.
    assert_eq!(code(c.query_drop("DROP TABLE vl_db.v").await).0, 1051);
    let still: Vec<String> = c.query("SHOW TABLES FROM vl_db").await.unwrap();
    assert_eq!(still, ["t", "v"]);
    run(&mut c, "DROP DATABASE vl_db").await;
}

/// A view's `*` is the columns its table had when the view was made (MySQL's manual, CREATE
/// VIEW): a column added later is not the view's, one dropped makes the view invalid (1356)
/// until it is back; `t.*` and each side of a UNION alike. In a schema of its own: a column
/// dropped under a view leaves it broken until the DDL makes it invalid, a moment in which
/// another test's reads of the schema's views would meet it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_views_star_is_frozen_when_it_is_made() {
    let mut c = conn().await;
    run(
        &mut c,
        "CREATE DATABASE IF NOT EXISTS vs_db; USE vs_db; DROP VIEW IF EXISTS vs_all; \
         DROP VIEW IF EXISTS vs_join; DROP VIEW IF EXISTS vs_union; \
         DROP TABLE IF EXISTS vs_t; DROP TABLE IF EXISTS vs_u; \
         CREATE TABLE vs_t (id INT PRIMARY KEY, v INT); CREATE TABLE vs_u (id INT, w INT); \
         INSERT INTO vs_t VALUES (1, 10); INSERT INTO vs_u VALUES (1, 20); \
         CREATE VIEW vs_all AS SELECT * FROM vs_t; \
         CREATE VIEW vs_join AS SELECT a.*, vs_u.w FROM vs_t a JOIN vs_u ON a.id = vs_u.id; \
         CREATE VIEW vs_union AS SELECT * FROM vs_t UNION ALL SELECT * FROM vs_u",
    )
    .await;
    let shown: Option<(String, String, String, String)> =
        c.query_first("SHOW CREATE VIEW vs_all").await.unwrap();
    let create = shown.unwrap().1;
    assert!(
        create.ends_with("SELECT `vs_t`.`id`, `vs_t`.`v` FROM vs_t"),
        "{create}"
    );
    run(&mut c, "ALTER TABLE vs_t ADD COLUMN z INT").await;
    let all: Vec<(i64, i64)> = c.query("SELECT * FROM vs_all").await.unwrap();
    assert_eq!(all, [(1, 10)]);
    let joined: Vec<(i64, i64, i64)> = c.query("SELECT * FROM vs_join").await.unwrap();
    assert_eq!(joined, [(1, 10, 20)]);
    let union: Vec<(i64, i64)> = c.query("SELECT * FROM vs_union").await.unwrap();
    assert_eq!(union, [(1, 10), (1, 20)]);
    run(&mut c, "ALTER TABLE vs_t DROP COLUMN v").await;
    for v in ["vs_all", "vs_join", "vs_union"] {
        let e = code(c.query_drop(format!("SELECT * FROM {v}")).await);
        assert_eq!(e, (1356, "HY000".to_string()), "{v}");
    }
    run(&mut c, "ALTER TABLE vs_t ADD COLUMN v INT DEFAULT 7").await;
    let all: Vec<(i64, i64)> = c.query("SELECT * FROM vs_all").await.unwrap();
    assert_eq!(all, [(1, 7)]);
    run(
        &mut c,
        "DROP VIEW vs_all; DROP VIEW vs_join; DROP VIEW vs_union; DROP TABLE vs_t; \
         DROP TABLE vs_u; DROP DATABASE vs_db",
    )
    .await;
}
