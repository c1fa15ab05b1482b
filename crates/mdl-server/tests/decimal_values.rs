//! DECIMAL values and the wire types of result columns as MySQL 8.0 sends them
//! (`wire/kind.rs`, `execute/result_kinds.rs`, `execute/insert_literals.rs`): a decimal with
//! its scale, `NEWDECIMAL`, `DATE`, `DATETIME`, `JSON`; a number stored in a string column as
//! MySQL's text of it.

mod common;

use common::*;
use mysql_async::consts::ColumnType as T;
use mysql_async::prelude::*;
use mysql_async::{Conn, Row, Value};

async fn setup(c: &mut Conn, t: &str) {
    fresh(
        c,
        t,
        "id INT PRIMARY KEY, d DECIMAL(10,2), v INT, s VARCHAR(20), dt DATETIME, j JSON",
    )
    .await;
    let sql = format!(
        "INSERT INTO {t} VALUES (1, 1.5, 1, 1e3, '2024-05-06 07:08:09', '{{\"a\": 1}}'), \
         (2, 3, 3, 2.50, NULL, NULL), (3, 1.555, NULL, -.5, NULL, NULL)"
    );
    bounded(&sql, c.query_drop(&sql)).await.unwrap();
}

/// The text of each value of the first row of `rows`, and its columns' types.
fn first(rows: &[Row]) -> (Vec<Option<String>>, Vec<T>) {
    let r = &rows[0];
    let values = (0..r.len())
        .map(|i| match &r[i] {
            Value::NULL => None,
            Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
            other => Some(other.as_sql(true)),
        })
        .collect();
    let types = r.columns_ref().iter().map(|c| c.column_type()).collect();
    (values, types)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decimals_show_their_scale_and_travel_as_newdecimal() {
    let mut c = conn().await;
    setup(&mut c, "dv_text").await;
    let ds: Vec<(String, String)> = c
        .query("SELECT d, s FROM dv_text ORDER BY id")
        .await
        .unwrap();
    let want = [("1.50", "1000"), ("3.00", "2.50"), ("1.56", "-0.5")];
    let want: Vec<(String, String)> = (want.iter())
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(ds, want);
    // The value stored is the rounded one, as MySQL's: sums and comparisons see it.
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM dv_text WHERE d = 1.56")
        .await
        .unwrap();
    assert_eq!(n, Some(1));
    // Through a view: `*` of a view's expression column is typed as the expression.
    let sql = "CREATE OR REPLACE VIEW dv_view AS SELECT d, d * 2 AS d2 FROM dv_text";
    c.query_drop(sql).await.unwrap();
    let view: Vec<(String, String)> = c
        .query("SELECT * FROM dv_view WHERE d < 2 ORDER BY d")
        .await
        .unwrap();
    let view_want = [("1.50", "3.00"), ("1.56", "3.12")];
    let view_want: Vec<(String, String)> = (view_want.iter())
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(view, view_want);
    for (sql, values, types) in [
        (
            "SELECT d, SUM(d), AVG(v), 1.5 + 1, d * 2 FROM dv_text",
            ["1.50", "6.06", "2.0000", "2.5", "3.00"],
            [T::MYSQL_TYPE_NEWDECIMAL; 5],
        ),
        (
            "SELECT id, v, s, v + 1, CONCAT(s, 'x') FROM dv_text WHERE id = 1",
            ["1", "1", "1000", "2", "1000x"],
            [
                T::MYSQL_TYPE_LONGLONG,
                T::MYSQL_TYPE_LONGLONG,
                T::MYSQL_TYPE_VAR_STRING,
                T::MYSQL_TYPE_LONGLONG,
                T::MYSQL_TYPE_VAR_STRING,
            ],
        ),
    ] {
        let rows: Vec<Row> = c.query(sql).await.unwrap();
        let (got, got_types) = first(&rows);
        let values: Vec<Option<String>> = values.iter().map(|v| Some(v.to_string())).collect();
        assert_eq!(got, values, "{sql}");
        assert_eq!(got_types, types, "{sql}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn temporal_and_json_columns_have_mysqls_wire_types() {
    let mut c = conn().await;
    setup(&mut c, "dv_types").await;
    let sql = "SELECT dt, DATE(dt), CURDATE(), NOW(), j, JSON_OBJECT('a', v) \
               FROM dv_types WHERE id = 1";
    let rows: Vec<Row> = c.query(sql).await.unwrap();
    let (got, types) = first(&rows);
    assert_eq!(
        types,
        [
            T::MYSQL_TYPE_DATETIME,
            T::MYSQL_TYPE_DATE,
            T::MYSQL_TYPE_DATE,
            T::MYSQL_TYPE_DATETIME,
            T::MYSQL_TYPE_JSON,
            T::MYSQL_TYPE_JSON,
        ]
    );
    assert_eq!(got[0].as_deref(), Some("2024-05-06 07:08:09"));
    assert_eq!(got[1].as_deref(), Some("2024-05-06"));
    assert_eq!(got[4].as_deref(), Some("{\"a\": 1}"));
    // No rows: the types are still the columns'.
    let rows: Vec<Row> = c
        .query("SELECT d, dt FROM dv_types WHERE id = 0")
        .await
        .unwrap();
    assert!(rows.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_protocol_sends_decimals_as_text_and_temporals_packed() {
    let mut c = conn().await;
    setup(&mut c, "dv_bin").await;
    let sql = "SELECT d, dt, DATE(dt), AVG(v), j FROM dv_bin WHERE id = ?";
    let row: Row = c.exec_first(sql, (1,)).await.unwrap().unwrap();
    let types: Vec<T> = row.columns_ref().iter().map(|c| c.column_type()).collect();
    assert_eq!(
        types,
        [
            T::MYSQL_TYPE_NEWDECIMAL,
            T::MYSQL_TYPE_DATETIME,
            T::MYSQL_TYPE_DATE,
            T::MYSQL_TYPE_NEWDECIMAL,
            T::MYSQL_TYPE_JSON,
        ]
    );
    assert_eq!(row[0], Value::Bytes(b"1.50".to_vec()));
    assert_eq!(row[1], Value::Date(2024, 5, 6, 7, 8, 9, 0));
    assert_eq!(row[2], Value::Date(2024, 5, 6, 0, 0, 0, 0));
    assert_eq!(row[3], Value::Bytes(b"1.0000".to_vec()));
    assert_eq!(row[4], Value::Bytes(b"{\"a\": 1}".to_vec()));
}
