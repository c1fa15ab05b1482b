//! More of MySQL's scalar functions through the wire: the answers SQLite's own gave wrong
//! (`HEX` of a number, `FORMAT`, `JSON_TYPE`), the conversions (`BIN`, `OCT`, `CONV`, `INET_*`,
//! base64), trigonometry, the string functions added beside them, `INSERT(...)` and
//! `ISNULL(...)` renamed for SQLite, the JSON functions, and their errors in MySQL's codes;
//! text queries and prepared statements agree.

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hex_format_and_json_type_answer_as_mysql() {
    let mut c = conn().await;
    let row: (String, String, String, String, String, String) = c
        .query_first(
            "SELECT HEX(255), HEX(-1), HEX('abc'), FORMAT(1234567.891, 2), \
             FORMAT(12332.2, 0), FORMAT(-1234.5, 3, 'en_US')",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            "FF".into(),
            "FFFFFFFFFFFFFFFF".into(),
            "616263".into(),
            "1,234,567.89".into(),
            "12,332".into(),
            "-1,234.500".into()
        )
    );
    let row: (String, String, String, String, String, Option<String>) = c
        .query_first(
            "SELECT JSON_TYPE('1'), JSON_TYPE('{\"a\": 1}'), JSON_TYPE('[1]'), \
             JSON_TYPE('\"s\"'), JSON_TYPE('1.5'), JSON_TYPE(NULL)",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            "INTEGER".into(),
            "OBJECT".into(),
            "ARRAY".into(),
            "STRING".into(),
            "DOUBLE".into(),
            None
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conversions_answer_as_mysql() {
    let mut c = conn().await;
    let row: (String, String, String, String, String, i64) = c
        .query_first(
            "SELECT BIN(12), OCT(12), CONV('a', 16, 2), CONV(-17, 10, -18), \
             CONV(6E1, 10, 36), BIT_COUNT(29)",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            "1100".into(),
            "14".into(),
            "1010".into(),
            "-H".into(),
            "1O".into(),
            4
        )
    );
    let row: (i64, String, Option<i64>, Option<String>, String, String) = c
        .query_first(
            "SELECT INET_ATON('10.0.5.9'), INET_NTOA(167773449), INET_ATON('1.2.3.256'), \
             INET_NTOA(-1), TO_BASE64('abc'), FROM_BASE64('YWJj')",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            167_773_449,
            "10.0.5.9".into(),
            None,
            None,
            "YWJj".into(),
            "abc".into()
        )
    );
    let (wrapped, back, bad): (String, i64, Option<String>) = c
        .query_first(
            "SELECT TO_BASE64(REPEAT('a', 100)), \
             FROM_BASE64(TO_BASE64(REPEAT('a', 100))) = REPEAT('a', 100), FROM_BASE64('YQ')",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        wrapped.split('\n').map(str::len).collect::<Vec<_>>(),
        [76, 60]
    );
    assert_eq!((back, bad), (1, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strings_insert_and_isnull_answer_as_mysql() {
    let mut c = conn().await;
    let row: (String, i64, i64, String, i64, String) = c
        .query_first(
            "SELECT ELT(2, 'Aa', 'Bb', 'Cc'), ORD('é'), STRCMP('text', 'text2'), \
             MID('Quadratically', 5, 6), BIT_LENGTH('text'), SUBSTRING('Sakila', -5, 3)",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        ("Bb".into(), 50_089, -1, "ratica".into(), 32, "aki".into())
    );
    // The edges where SQLite's substr differs.
    let row: (String, String, Option<String>) = c
        .query_first("SELECT SUBSTRING('abc', 0), SUBSTRING('abc', 2, -1), ELT(4, 'a', 'b')")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row, ("".into(), "".into(), None));
    // `INSERT(...)` and `ISNULL(...)`: SQLite keywords, renamed by the rewrite.
    let rows: Vec<mysql_async::Row> = c
        .query(
            "SELECT INSERT('Quadratic', 3, 4, 'What'), INSERT('Quadratic', -1, 4, 'What'), \
             ISNULL(1 / 0), ISNULL(1)",
        )
        .await
        .unwrap();
    let names: Vec<String> = rows[0]
        .columns_ref()
        .iter()
        .map(|col| col.name_str().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "INSERT('Quadratic', 3, 4, 'What')",
            "INSERT('Quadratic', -1, 4, 'What')",
            "ISNULL(1 / 0)",
            "ISNULL(1)"
        ]
    );
    let row: (String, String, i64, i64) = mysql_async::from_row(rows[0].clone());
    assert_eq!(row, ("QuWhattic".into(), "Quadratic".into(), 1, 0));
    // Over a table: ISNULL in WHERE, ANY_VALUE outside GROUP BY.
    c.query_drop("CREATE TABLE fn_more (id INT PRIMARY KEY, g INT, v VARCHAR(10))")
        .await
        .unwrap();
    c.query_drop("INSERT INTO fn_more VALUES (1, 1, 'a'), (2, 1, NULL), (3, 2, 'c')")
        .await
        .unwrap();
    let ids: Vec<i64> = c
        .query("SELECT id FROM fn_more WHERE ISNULL(v) ORDER BY id")
        .await
        .unwrap();
    assert_eq!(ids, [2]);
    let groups: Vec<(i64, i64)> = c
        .query("SELECT g, ANY_VALUE(g) * 10 FROM fn_more GROUP BY g ORDER BY g")
        .await
        .unwrap();
    assert_eq!(groups, [(1, 10), (2, 20)]);
    c.query_drop("DROP TABLE fn_more").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trigonometry_answers_as_mysql() {
    let mut c = conn().await;
    let row: (f64, f64, f64, f64, f64, f64) = c
        .query_first(
            "SELECT DEGREES(PI()), RADIANS(180), COS(PI()), ATAN(-2, 2), ATAN2(1, 1), ASIN(1)",
        )
        .await
        .unwrap()
        .unwrap();
    let pi = std::f64::consts::PI;
    let want = [180.0, pi, -1.0, -pi / 4.0, pi / 4.0, pi / 2.0];
    let got = [row.0, row.1, row.2, row.3, row.4, row.5];
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "{got:?}");
    }
    let (sin, tan, atan, cot): (f64, f64, f64, f64) = c
        .query_first("SELECT SIN(0), TAN(0), ATAN(0), COT(1)")
        .await
        .unwrap()
        .unwrap();
    assert_eq!((sin, tan, atan), (0.0, 0.0, 0.0));
    assert!((cot - 0.642_092_615_934_330_7).abs() < 1e-12, "{cot}");
    let nulls: (Option<f64>, Option<f64>, Option<f64>) = c
        .query_first("SELECT COT(0), ACOS(2), SIN(NULL)")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(nulls, (None, None, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_functions_and_uuid_short_answer_as_mysql() {
    let mut c = conn().await;
    let row: (String, i64, i64, String, Option<String>, Option<i64>) = c
        .query_first(
            "SELECT JSON_UNQUOTE('\"abc\"'), JSON_LENGTH('[1, 2, {\"a\": 3}]'), \
             JSON_LENGTH('{\"a\": 1, \"b\": {\"c\": 30}}', '$.b'), \
             JSON_KEYS('{\"b\": 1, \"a\": {\"c\": 30}}'), JSON_KEYS('[1]'), \
             JSON_LENGTH('{\"a\": 1}', '$.z')",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        ("abc".into(), 3, 1, "[\"a\", \"b\"]".into(), None, None)
    );
    let (a, b): (u64, u64) = c
        .query_first("SELECT UUID_SHORT(), UUID_SHORT()")
        .await
        .unwrap()
        .unwrap();
    assert!(b > a && a >> 56 == 1, "{a:x} {b:x}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_and_prepared_agree() {
    let mut c = conn().await;
    type Row = (String, String, String, String, i64, String);
    let text: Row = c
        .query_first(
            "SELECT HEX(255), FORMAT(1234567.891, 2), CONV('ff', 16, 10), \
             INSERT('Quadratic', 3, 4, 'What'), ISNULL(NULL), MYSQL_TRIM('LEADING', 'xy', 'xyxyAxy')",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        text,
        (
            "FF".into(),
            "1,234,567.89".into(),
            "255".into(),
            "QuWhattic".into(),
            1,
            "Axy".into()
        )
    );
    let stmt = c
        .prep(
            "SELECT HEX(?), FORMAT(?, ?), CONV(?, 16, 10), INSERT(?, ?, 4, 'What'), ISNULL(?), \
             MYSQL_TRIM(?, ?, ?)",
        )
        .await
        .unwrap();
    let prepared: Row = c
        .exec_first(
            &stmt,
            (
                255,
                1_234_567.891,
                2,
                "ff",
                "Quadratic",
                3,
                None::<i64>,
                "LEADING",
                "xy",
                "xyxyAxy",
            ),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(prepared, text);
    let hex: String = c
        .exec_first("SELECT HEX(?)", ("abc",))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(hex, "616263", "a string parameter is hexed as bytes");
    let nulls: (Option<String>, Option<String>) = c
        .exec_first("SELECT BIN(?), TO_BASE64(?)", (None::<i64>, None::<String>))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(nulls, (None, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_mysqls() {
    let mut c = conn().await;
    let (json, state) = code(c.query_drop("SELECT JSON_TYPE('abc')").await);
    assert_eq!((json, state.as_str()), (3141, "22032"));
    let (path, _) = code(c.query_drop("SELECT JSON_LENGTH('[1]', 'x')").await);
    assert_eq!(path, 3143);
    let (wild, _) = code(c.query_drop("SELECT JSON_KEYS('{}', '$.*')").await);
    assert_eq!(wild, 3149);
    let (range, _) = code(c.query_drop("SELECT DEGREES(1e308)").await);
    assert_eq!(range, 1690);
    let (count, _) = code(c.query_drop("SELECT ELT(1)").await);
    assert_eq!(count, 1582);
    let one: i64 = c.query_first("SELECT 1").await.unwrap().unwrap();
    assert_eq!(one, 1, "the connection goes on");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_extract_and_its_operators_write_mysqls_json() {
    let mut c = conn().await;
    let doc = r#"'{"s": "x", "n": 1.5, "o": {"bb": [1, 2], "a": null}}'"#;
    let row: (String, String, String, Option<String>, String) = c
        .query_first(format!(
            "SELECT JSON_EXTRACT({doc}, '$.s'), JSON_EXTRACT({doc}, '$.o'), \
             JSON_EXTRACT({doc}, '$.s', '$.n', '$.none'), JSON_EXTRACT({doc}, '$.none'), \
             JSON_EXTRACT({doc}, '$.o.bb[1]')"
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            r#""x""#.into(),
            r#"{"a": null, "bb": [1, 2]}"#.into(),
            r#"["x", 1.5]"#.into(),
            None,
            "2".into()
        )
    );
    c.query_drop("CREATE TABLE fm_json (j JSON)").await.unwrap();
    c.query_drop(format!("INSERT INTO fm_json VALUES ({doc})"))
        .await
        .unwrap();
    let ops: (String, String, String) = c
        .query_first("SELECT j -> '$.s', j ->> '$.s', j -> '$.o' FROM fm_json")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        ops,
        (
            r#""x""#.into(),
            "x".into(),
            r#"{"a": null, "bb": [1, 2]}"#.into()
        )
    );
    c.query_drop("DROP TABLE fm_json").await.unwrap();
}
