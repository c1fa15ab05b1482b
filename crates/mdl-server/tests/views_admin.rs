//! What a DBA asks of views over the wire: their columns (`DESCRIBE`, `SHOW COLUMNS`,
//! `information_schema.COLUMNS`, with MySQL's `Null`, `Default` and literal types).

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

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
        ("ap", "blob", "YES", None),
    ]);
    assert_eq!(described(&mut c, "DESCRIBE va_v").await, v);
    assert_eq!(described(&mut c, "SHOW COLUMNS FROM va_v").await, v);
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
