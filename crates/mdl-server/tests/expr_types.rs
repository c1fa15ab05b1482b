//! MySQL 8.0's types of expression columns (`expr_type.rs`): a view's (`DESCRIBE`,
//! `information_schema.COLUMNS`) and `CREATE TABLE ... SELECT`'s, and the column types the
//! wire sends for them.

mod common;

use common::*;
use mysql_async::consts::ColumnType;
use mysql_async::prelude::*;
use mysql_async::Conn;

async fn run(c: &mut Conn, sql: &str) {
    for q in sql.split(';') {
        bounded(q, c.query_drop(q)).await.expect(q);
    }
}

/// `(Field, Type)` of each column of `DESCRIBE table`.
async fn described(c: &mut Conn, table: &str) -> Vec<(String, String)> {
    let sql = format!("DESCRIBE {table}");
    let rows: Vec<mysql_async::Row> = bounded(&sql, c.query(&sql)).await.expect(&sql);
    (rows.into_iter())
        .map(|r| (r.get("Field").unwrap(), r.get("Type").unwrap()))
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    (v.iter())
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

const TABLE: &str = "CREATE TABLE {t} (id INT AUTO_INCREMENT PRIMARY KEY, v INT, \
                     s VARCHAR(10), d DECIMAL(10,2), f DOUBLE, dt DATETIME, j JSON)";

/// The select both the view and the table are made of, and MySQL 8.0's types of its columns.
const SELECT: &str = "SELECT id, v + 1 AS w, CONCAT(s, 'x') AS c, d * 2 AS d2, v / 2 AS half, \
                      f + 1 AS f1, v > 1 AS gt, LENGTH(s) AS len, UPPER(s) AS up, \
                      1.5 AS lit, IFNULL(s, 'none') AS nn, CAST(v AS CHAR(4)) AS ch, \
                      DATE(dt) AS day, JSON_OBJECT('v', v) AS obj FROM {t}";

fn expected() -> Vec<(String, String)> {
    pairs(&[
        ("id", "int"),
        ("w", "bigint"),
        ("c", "varchar(11)"),
        ("d2", "decimal(11,2)"),
        ("half", "decimal(14,4)"),
        ("f1", "double"),
        ("gt", "int"),
        ("len", "bigint"),
        ("up", "varchar(10)"),
        ("lit", "decimal(2,1)"),
        ("nn", "varchar(10)"),
        ("ch", "varchar(4)"),
        ("day", "date"),
        ("obj", "json"),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_views_expression_columns_have_mysqls_types() {
    let mut c = conn().await;
    run(
        &mut c,
        &format!(
            "{}; CREATE VIEW et_v AS {}; \
             CREATE VIEW et_agg AS SELECT COUNT(*) AS n, SUM(v) AS total, AVG(v) AS mean, \
             MAX(v + 1) AS top, GROUP_CONCAT(s) AS names FROM et_t; \
             CREATE VIEW et_over AS SELECT w + 1 AS w2, CONCAT(c, c) AS cc FROM et_v",
            TABLE.replace("{t}", "et_t"),
            SELECT.replace("{t}", "et_t")
        ),
    )
    .await;
    assert_eq!(described(&mut c, "et_v").await, expected());
    assert_eq!(
        described(&mut c, "et_agg").await,
        pairs(&[
            ("n", "bigint"),
            ("total", "decimal(32,0)"),
            ("mean", "decimal(14,4)"),
            ("top", "bigint"),
            ("names", "text"),
        ])
    );
    // Through a view: its columns' types, in expressions too.
    assert_eq!(
        described(&mut c, "et_over").await,
        pairs(&[("w2", "bigint"), ("cc", "varchar(22)")])
    );
    let is: Vec<(String, String, String)> = c
        .query(
            "SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'et_v' ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    let want: Vec<(String, String, String)> = (expected().into_iter())
        .map(|(n, t)| {
            let data = t.split('(').next().unwrap().to_string();
            (n, t, data)
        })
        .collect();
    assert_eq!(is, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_table_select_makes_mysqls_column_types() {
    let mut c = conn().await;
    run(
        &mut c,
        &format!(
            "{}; INSERT INTO et_src (v, s, d, f, dt, j) VALUES \
             (1, 'ab', 1.25, 0.5, '2024-05-06 07:08:09', '{{\"a\": 1}}'), \
             (NULL, NULL, NULL, NULL, NULL, NULL); \
             CREATE TABLE et_copy AS {}",
            TABLE.replace("{t}", "et_src"),
            SELECT.replace("{t}", "et_src")
        ),
    )
    .await;
    assert_eq!(described(&mut c, "et_copy").await, expected());
    let (_, text): (String, String) = c
        .query_first("SHOW CREATE TABLE et_copy")
        .await
        .unwrap()
        .unwrap();
    assert!(text.contains("`w` bigint DEFAULT NULL"), "{text}");
    assert!(text.contains("`c` varchar(11) DEFAULT NULL"), "{text}");
    // The values are the select's.
    let row: (i64, i64, String, String, String, String) = c
        .query_first("SELECT id, w, c, up, day, obj FROM et_copy ORDER BY id LIMIT 1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            1,
            2,
            "abx".into(),
            "AB".into(),
            "2024-05-06".into(),
            "{\"v\": 1}".into()
        )
    );
    // A JSON value read out of a JSON column, into a `json` column (its check holds).
    run(
        &mut c,
        "CREATE TABLE et_json AS SELECT JSON_EXTRACT(j, '$.a') AS a, j -> '$' AS whole \
         FROM et_src WHERE j IS NOT NULL",
    )
    .await;
    assert_eq!(
        described(&mut c, "et_json").await,
        pairs(&[("a", "json"), ("whole", "json")])
    );
    let row: Option<(String, String)> =
        c.query_first("SELECT a, whole FROM et_json").await.unwrap();
    assert_eq!(row, Some(("1".into(), "{\"a\": 1}".into())));
    // An expression whose type is not known keeps the value untyped, as before.
    run(
        &mut c,
        "CREATE TABLE et_unknown AS SELECT @nothing AS u, v FROM et_src",
    )
    .await;
    assert_eq!(
        described(&mut c, "et_unknown").await,
        pairs(&[("u", "blob"), ("v", "int")])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wire_types_integer_and_string_expressions_as_mysql() {
    let mut c = conn().await;
    run(
        &mut c,
        &format!(
            "{}; INSERT INTO et_w (v, s) VALUES (1, 'a'); \
             CREATE VIEW et_wv AS SELECT v + 1 AS w, CONCAT(s, 'x') AS c FROM et_w",
            TABLE.replace("{t}", "et_w")
        ),
    )
    .await;
    // MYSQL_TYPE_LONGLONG for a bigint, VAR_STRING for a varchar: MySQL's own, from the values
    // (`wire.rs`); decimals, temporal and JSON columns: `decimal_values.rs`.
    for sql in [
        "SELECT v + 1, CONCAT(s, 'x') FROM et_w",
        "SELECT w, c FROM et_wv",
    ] {
        let rows: Vec<mysql_async::Row> = c.query(sql).await.unwrap();
        let cols = rows[0].columns_ref();
        let types: Vec<ColumnType> = cols.iter().map(|c| c.column_type()).collect();
        assert_eq!(
            types,
            [
                ColumnType::MYSQL_TYPE_LONGLONG,
                ColumnType::MYSQL_TYPE_VAR_STRING
            ],
            "{sql}"
        );
    }
}
