//! Numbers made strings and decimals rounded as MySQL 8.0 does, through the wire
//! (`functions/number_text.rs`, `rewrite/expr/numbers.rs`, `rewrite/decimal_strings.rs`): a
//! double's text is `my_gcvt`'s (`1000`, `1e20`, not SQLite's `1000.0`), decimal rounding is
//! on the digits (`1.555` to `1.56`), and a `DECIMAL` column's string keeps its scale.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::{Conn, Row, Value};

/// The text of each value of the one row `sql` gives, text protocol or prepared.
async fn row(c: &mut Conn, sql: &str, prepared: bool) -> Vec<Option<String>> {
    let rows: Vec<Row> = if prepared {
        c.exec(sql, ()).await
    } else {
        c.query(sql).await
    }
    .unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(rows.len(), 1, "{sql}");
    let r = &rows[0];
    (0..r.len())
        .map(|i| match &r[i] {
            Value::NULL => None,
            Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
            Value::Int(n) => Some(n.to_string()),
            other => Some(other.as_sql(true)),
        })
        .collect()
}

/// Asserts that `sql`'s one row is `want`, as a text query and prepared.
async fn both_ways(c: &mut Conn, sql: &str, want: &[Option<String>]) {
    for prepared in [false, true] {
        assert_eq!(row(c, sql, prepared).await, want, "prepared: {prepared}");
    }
}

fn texts(v: &[&str]) -> Vec<Option<String>> {
    v.iter().map(|s| Some(s.to_string())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doubles_made_strings_are_mysqls_text() {
    let mut c = conn().await;
    let sql = "SELECT CAST(1e3 AS CHAR), CONCAT(1e20, ''), CAST(0.1e0 + 0.2e0 AS CHAR), \
               CAST(123456789012345678e3 AS CHAR), CONCAT_WS(',', 1e3, 2.5e0), \
               REPLACE(1e3, '0', 'x'), LENGTH(1e3), 1e3 LIKE '1000', CAST(1e3 AS CHAR(2)), \
               UPPER(1.5e-16), CONCAT(1e-5), CONVERT(-1e15, CHAR)";
    let want = texts(&[
        "1000",
        "1e20",
        "0.30000000000000004",
        "1.2345678901234568e20",
        "1000,2.5",
        "1xxx",
        "4",
        "1",
        "10",
        "1.5E-16",
        "0.00001",
        "-1e15",
    ]);
    both_ways(&mut c, sql, &want).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decimals_round_on_their_digits() {
    let mut c = conn().await;
    fresh(&mut c, "ns_round", "id INT PRIMARY KEY, d DECIMAL(10,3)").await;
    c.query_drop("INSERT INTO ns_round VALUES (1, 1.555)")
        .await
        .unwrap();
    let sql = "SELECT CAST(1.555 AS DECIMAL(5,2)), CAST(2.675 AS DECIMAL(4,2)), \
               ROUND(1.555, 2), ROUND(2.5), ROUND(-2.5), TRUNCATE(0.29, 2), ROUND(1250, -2), \
               CAST(12345.6 AS DECIMAL(5,2)), CAST(d AS DECIMAL(4,2)), ROUND(d, 2), \
               FORMAT(2.675, 2), CAST(2.5 AS DECIMAL) FROM ns_round";
    let want = texts(&[
        "1.56", "2.68", "1.56", "3", "-3", "0.29", "1300", "999.99", "1.56", "1.56", "2.68", "3",
    ]);
    both_ways(&mut c, sql, &want).await;
    // A decimal expression of literals keeps its scale as a string; SQLite computes it as a
    // double (0.30000000000000004).
    let sql = "SELECT CAST(0.1 + 0.2 AS CHAR), CONCAT(0.1 + 0.2, '|', 1.10 * 2), \
               0.1 + 0.2 LIKE '0.3'";
    both_ways(&mut c, sql, &texts(&["0.3", "0.3|2.20", "1"])).await;
    // The cast's value is the rounded one where it is compared, not only shown.
    let n: Option<i64> = c
        .query_first("SELECT CAST(1.555 AS DECIMAL(5,2)) = 1.56")
        .await
        .unwrap();
    assert_eq!(n, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decimal_columns_keep_their_scale_as_strings() {
    let mut c = conn().await;
    fresh(&mut c, "ns_scale", "a DECIMAL(10,2), b DOUBLE").await;
    c.query_drop("INSERT INTO ns_scale VALUES (0.1, 0.1), (0.2, 0.2)")
        .await
        .unwrap();
    let sql = "SELECT CONCAT(a), CAST(a AS CHAR), LENGTH(a), a LIKE '0.10', CONCAT(b), \
               CONCAT_WS('|', t.a, t.b), a FROM ns_scale AS t WHERE a < 0.15";
    let want = texts(&["0.10", "0.10", "4", "1", "0.1", "0.10|0.1", "0.10"]);
    both_ways(&mut c, sql, &want).await;
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM ns_scale WHERE a LIKE '%0'")
        .await
        .unwrap();
    assert_eq!(n, Some(2));
    // Stored by an INSERT ... SELECT, and in a subquery.
    fresh(&mut c, "ns_scale_s", "s VARCHAR(20)").await;
    c.query_drop("INSERT INTO ns_scale_s SELECT CONCAT('x', a) FROM ns_scale WHERE a > 0.15")
        .await
        .unwrap();
    let s: Option<String> = c
        .query_first(
            "SELECT (SELECT CONCAT(s, '/', a) FROM ns_scale WHERE a > 0.15) FROM ns_scale_s",
        )
        .await
        .unwrap();
    assert_eq!(s.as_deref(), Some("x0.20/0.20"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doubles_on_the_wire_are_mysqls_text() {
    let mut c = conn().await;
    fresh(&mut c, "ns_wire", "b DOUBLE, f FLOAT").await;
    c.query_drop("INSERT INTO ns_wire VALUES (1e20, 3.4028e38)")
        .await
        .unwrap();
    // The text protocol sends MySQL's text (`my_gcvt`), where Rust's would be
    // 100000000000000000000; MariaDB 10.11, whose `my_gcvt` is MySQL's, gives the same.
    let sql = "SELECT 1e20, 1e-5, 0.1e0 + 0.2e0, 1e15, -2.5e-10, 1e0, 1234567890123456e0, b, f \
               FROM ns_wire";
    let want = texts(&[
        "1e20",
        "0.00001",
        "0.30000000000000004",
        "1e15",
        "-0.00000000025",
        "1",
        "1.234567890123456e15",
        "1e20",
        "3.4028e38",
    ]);
    assert_eq!(row(&mut c, sql, false).await, want);
    // The binary protocol sends the double itself.
    let rows: Vec<(f64, f64)> = c.exec("SELECT 1e20, b FROM ns_wire", ()).await.unwrap();
    assert_eq!(rows, [(1e20, 1e20)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doubles_round_as_doubles() {
    let mut c = conn().await;
    fresh(
        &mut c,
        "ns_dround",
        "d DOUBLE, p DECIMAL(10,1), s VARCHAR(5)",
    )
    .await;
    c.query_drop("INSERT INTO ns_dround VALUES (2.5, 2.5, '2.5')")
        .await
        .unwrap();
    // `my_double_round`'s `rint` (ties to even) for a double or a string, `decimal_round`
    // (half away from zero) for a decimal.
    let sql = "SELECT ROUND(2.5e0), ROUND(3.5e0), ROUND(-2.5e0), ROUND(2.5), ROUND(-2.5), \
               ROUND(d), ROUND(d + 1), ROUND(p), ROUND(s), ROUND('0.5'), TRUNCATE(-2.7e0, 0), \
               ROUND(1250e0, -2), ROUND(d * 10, -1), CONCAT(ROUND(t.d)), ROUND(p * 3) \
               FROM ns_dround AS t";
    let want = texts(&[
        "2", "4", "-2", "3", "-3", "2", "4", "3", "2", "0", "-2", "1200", "20", "2", "8",
    ]);
    both_ways(&mut c, sql, &want).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decimal_expressions_keep_their_scale_as_strings() {
    let mut c = conn().await;
    fresh(&mut c, "ns_dexpr", "p DECIMAL(10,2)").await;
    c.query_drop("INSERT INTO ns_dexpr VALUES (1.50)")
        .await
        .unwrap();
    // A division has the dividend's scale + `div_precision_increment` (4); `*` the sum of
    // the scales, `+` the larger: as strings too, of literals and of columns.
    let sql = "SELECT CONCAT(1/4), CONCAT(1.50*2), LENGTH(1/3), p*2, p+1, CONCAT(p*2), \
               CONCAT(t.p/3), LENGTH(p*2), CAST(p*2 AS CHAR), CONCAT(-p), p*2 LIKE '3.00', \
               CONCAT(CAST(1 AS DECIMAL(5,2))), CONCAT(UPPER(p)) FROM ns_dexpr AS t";
    let want = texts(&[
        "0.2500", "3.00", "6", "3.00", "2.50", "3.00", "0.500000", "4", "3.00", "-1.50", "1",
        "1.00", "1.50",
    ]);
    both_ways(&mut c, sql, &want).await;
    let s: Option<String> = c
        .query_first("SELECT CONCAT(SUM(p), '|', AVG(p)) FROM ns_dexpr")
        .await
        .unwrap();
    assert_eq!(s.as_deref(), Some("1.50|1.500000"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_as_a_string_has_six_decimals() {
    let mut c = conn().await;
    // `Item_func_pi`: 6 decimals where it is written, every digit where it is computed.
    let sql = "SELECT CONCAT(PI()), CONCAT(PI() + 0.0000000), LENGTH(PI()), PI() * 2 > 6.2831853, \
               CONCAT(PI() / 2), CONCAT(-PI())";
    let want = texts(&[
        "3.141593",
        "3.1415927",
        "8",
        "1",
        "1.5707963268",
        "-3.141593",
    ]);
    assert_eq!(row(&mut c, sql, false).await, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_builtins_read_numbers_as_mysql_writes_them() {
    let mut c = conn().await;
    let sql = "SELECT TRIM(1e3), LTRIM(1e3), RTRIM(2.5e0 * 2), INSTR(1.5e0 * 2, '.'), \
               INSTR(1000, 0), OCTET_LENGTH(1e3), QUOTE(1e3), QUOTE(12), QUOTE('a''b'), \
               QUOTE(NULL), TRIM(' x ')";
    let want = texts(&[
        "1000", "1000", "5", "0", "2", "4", "'1000'", "'12'", "'a\\'b'", "NULL", "x",
    ]);
    both_ways(&mut c, sql, &want).await;
}
