//! JSON as MySQL 8.0 has it, through the wire: a JSON column refuses text that is not JSON
//! (3140) and gives its values back in MySQL's normal form, `SHOW CREATE TABLE` and
//! `information_schema.COLUMNS` still say `json`; the JSON functions write MySQL's text, the
//! ones SQLite lacks answer as the manual's examples do, and the errors carry MySQL's codes.

mod common;

use common::*;
use mysql_async::prelude::*;

/// The code, SQLSTATE and message of a failed call.
fn error<T: std::fmt::Debug>(r: Result<T, mysql_async::Error>) -> (u16, String, String) {
    match r {
        Err(mysql_async::Error::Server(e)) => (e.code, e.state, e.message),
        other => panic!("expected a server error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_columns_refuse_text_that_is_not_json() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE js_col (id INT PRIMARY KEY, jdoc JSON)")
        .await
        .unwrap();
    c.query_drop(
        r#"INSERT INTO js_col VALUES (1, '{"x":  [1,  2], "ab": {"c": true}, "b": null}'),
           (2, NULL), (3, JSON_ARRAY(1, 'a'))"#,
    )
    .await
    .unwrap();
    // The manual's example (11.5 "The JSON Data Type").
    let (code, state, msg) = error(
        c.query_drop("INSERT INTO js_col VALUES (4, '[1, 2,')")
            .await,
    );
    assert_eq!((code, state.as_str()), (3140, "22032"));
    assert_eq!(
        msg,
        "Invalid JSON text: \"Invalid value.\" at position 6 in value for column 'js_col.jdoc'."
    );
    let (code, _, msg) = error(
        c.query_drop("UPDATE js_col SET jdoc = 'not json' WHERE id = 1")
            .await,
    );
    assert_eq!(code, 3140);
    assert!(msg.contains("\"Invalid value.\" at position 1"), "{msg}");
    // Read back in MySQL's normal form: ", " and ": ", keys by length, then bytes.
    let rows: Vec<(i64, Option<String>)> = c
        .query("SELECT id, jdoc FROM js_col ORDER BY id")
        .await
        .unwrap();
    assert_eq!(
        rows,
        [
            (
                1,
                Some(r#"{"b": null, "x": [1, 2], "ab": {"c": true}}"#.into())
            ),
            (2, None),
            (3, Some(r#"[1, "a"]"#.into()))
        ]
    );
    let (_, create): (String, String) = c
        .query_first("SHOW CREATE TABLE js_col")
        .await
        .unwrap()
        .unwrap();
    assert!(create.contains("`jdoc` json DEFAULT NULL"), "{create}");
    assert!(!create.contains("CHECK"), "{create}");
    let types: Vec<(String, String)> = c
        .query(
            "SELECT DATA_TYPE, COLUMN_TYPE FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'js_col' ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    assert_eq!(types[1], ("json".into(), "json".into()));
    c.query_drop("DROP TABLE js_col").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn altered_columns_are_checked_too() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE js_alter (id INT PRIMARY KEY, t TEXT)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO js_alter VALUES (1, '[1,2]'), (2, 'x')")
        .await
        .unwrap();
    c.query_drop("ALTER TABLE js_alter ADD COLUMN k JSON")
        .await
        .unwrap();
    let (code, ..) = error(
        c.query_drop("INSERT INTO js_alter VALUES (3, '', '{')")
            .await,
    );
    assert_eq!(code, 3140);
    // MODIFY copies the rows into the new definition: the text 'x' is refused.
    let (code, _, msg) = error(c.query_drop("ALTER TABLE js_alter MODIFY t JSON").await);
    assert_eq!(code, 3140, "{msg}");
    c.query_drop("DELETE FROM js_alter WHERE id = 2")
        .await
        .unwrap();
    c.query_drop("ALTER TABLE js_alter MODIFY t JSON")
        .await
        .unwrap();
    // A rebuild of a table with JSON columns writes their checks again.
    c.query_drop("ALTER TABLE js_alter CHANGE t t2 JSON NOT NULL, ADD COLUMN z INT FIRST")
        .await
        .unwrap();
    let (code, _, msg) = error(
        c.query_drop("INSERT INTO js_alter (id, t2) VALUES (4, 'bad')")
            .await,
    );
    assert_eq!(code, 3140);
    assert!(msg.ends_with("in value for column 'js_alter.t2'."), "{msg}");
    let row: (Option<i64>, String) = c
        .query_first("SELECT z, t2 FROM js_alter")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row, (None, "[1, 2]".into()));
    c.query_drop("DROP TABLE js_alter").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_values_print_as_mysqls() {
    let mut c = conn().await;
    let row: (String, String, String, String, String) = c
        .query_first(
            r#"SELECT JSON_OBJECT('a', 1, 'b', JSON_ARRAY(1,2)),
                      CAST('{"x":  [1,  2]}' AS JSON),
                      JSON_SET('{"a": 1}', '$.b', JSON_OBJECT('c', 'd')),
                      JSON_MERGE_PATCH('{"a": 1, "b": 2}', '{"b": null, "c": [3]}'),
                      JSON_REMOVE('[1, [2, 3]]', '$[1][0]')"#,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            r#"{"a": 1, "b": [1, 2]}"#.into(),
            r#"{"x": [1, 2]}"#.into(),
            r#"{"a": 1, "b": {"c": "d"}}"#.into(),
            r#"{"a": 1, "c": [3]}"#.into(),
            "[1, [3]]".into()
        )
    );
    // Prepared, the same.
    let row: (String, String) = c
        .exec_first(
            "SELECT JSON_ARRAY(?, ?), JSON_INSERT(?, '$.k', ?)",
            (1, "x", r#"{"a":1}"#, 2.5),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row, (r#"[1, "x"]"#.into(), r#"{"a": 1, "k": 2.5}"#.into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_sqlite_lacks_answer_as_mysqls_manual() {
    let mut c = conn().await;
    let j = r#"'{"a": 1, "b": 2, "c": {"d": 4}}'"#;
    let row: (i64, i64, i64, i64, i64, i64) = c
        .query_first(format!(
            "SELECT JSON_CONTAINS({j}, '1', '$.a'), JSON_CONTAINS({j}, '{{\"d\": 4}}', '$.c'), \
             JSON_CONTAINS_PATH({j}, 'one', '$.a', '$.e'), \
             JSON_CONTAINS_PATH({j}, 'all', '$.a', '$.e'), \
             JSON_DEPTH('[10, {{\"a\": 20}}]'), JSON_OVERLAPS('[1,3,5,7]', '[2,5,7]')"
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row, (1, 1, 1, 0, 3, 1));
    let s = r#"'["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]'"#;
    let row: (String, String, String, Option<String>) = c
        .query_first(format!(
            "SELECT JSON_SEARCH({s}, 'one', 'abc'), JSON_SEARCH({s}, 'all', 'abc'), \
             JSON_SEARCH({s}, 'all', '10', NULL, '$**.k'), JSON_SEARCH({s}, 'all', 'ghi')"
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            r#""$[0]""#.into(),
            r#"["$[0]", "$[2].x"]"#.into(),
            r#""$[1][0].k""#.into(),
            None
        )
    );
    let row: (String, String, String) = c
        .query_first(
            r#"SELECT JSON_MERGE_PRESERVE('{ "a": 1, "b": 2 }', '{ "a": 3, "c": 4 }'),
                      JSON_PRETTY('[1,3,5]'),
                      JSON_ARRAY_APPEND('["a", ["b", "c"], "d"]', '$[1]', 1)"#,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            r#"{"a": [1, 3], "b": 2, "c": 4}"#.into(),
            "[\n  1,\n  3,\n  5\n]".into(),
            r#"["a", ["b", "c", 1], "d"]"#.into()
        )
    );
    let row: (i64, i64, i64) = c
        .query_first(
            r#"SELECT 17 MEMBER OF('[23, "abc", 17, "ab", 10]'),
                      'ab' MEMBER OF('[23, "abc", 17, "ab", 10]'),
                      5 MEMBER OF('[4, "5", 6]')"#,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row, (1, 1, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregates_answer_as_mysqls_manual() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE js_agg (o_id INT, attribute VARCHAR(10), value VARCHAR(10))")
        .await
        .unwrap();
    c.query_drop(
        "INSERT INTO js_agg VALUES (2, 'color', 'red'), (2, 'fabric', 'silk'), \
         (3, 'color', 'green'), (3, 'shape', 'square')",
    )
    .await
    .unwrap();
    let rows: Vec<(i64, String, String)> = c
        .query(
            "SELECT o_id, JSON_ARRAYAGG(attribute), JSON_OBJECTAGG(attribute, value) \
             FROM js_agg GROUP BY o_id ORDER BY o_id",
        )
        .await
        .unwrap();
    assert_eq!(
        rows,
        [
            (
                2,
                r#"["color", "fabric"]"#.into(),
                r#"{"color": "red", "fabric": "silk"}"#.into()
            ),
            (
                3,
                r#"["color", "shape"]"#.into(),
                r#"{"color": "green", "shape": "square"}"#.into()
            )
        ]
    );
    c.query_drop("DROP TABLE js_agg").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_mysqls() {
    let mut c = conn().await;
    for (sql, want, state) in [
        ("SELECT JSON_DEPTH('[1')", 3141, "22032"),
        ("SELECT JSON_SET('[1]', 'x', 1)", 3143, "42000"),
        ("SELECT JSON_SET('[1]', '$[*]', 1)", 3149, "42000"),
        ("SELECT JSON_REMOVE('[1]', '$')", 3153, "42000"),
        ("SELECT JSON_SEARCH('[1]', 'some', 'a')", 3154, "42000"),
        ("SELECT JSON_OBJECT(NULL, 1)", 3158, "22032"),
        ("SELECT JSON_ARRAY_INSERT('[1]', '$.a', 1)", 3165, "42000"),
        ("SELECT JSON_OBJECT('a')", 1582, "42000"),
        ("SELECT JSON_MERGE_PATCH('{}')", 1582, "42000"),
    ] {
        let (code, got, msg) = error(c.query_drop(sql).await);
        assert_eq!((code, got.as_str()), (want, state), "{sql}: {msg}");
    }
    let (_, _, msg) = error(c.query_drop("SELECT CAST('abc' AS JSON)").await);
    assert_eq!(
        msg,
        "Invalid JSON text in argument 1 to function cast_as_json: \"Invalid value.\" at \
         position 0."
    );
}
