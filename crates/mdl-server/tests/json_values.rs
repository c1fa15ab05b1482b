//! What MySQL 8.0's JSON-building functions take as JSON, through the wire: a boolean is JSON
//! `true` / `false` (`extract_boolean` in `sql/item_json_func.cc`), a `JSON` column's value is
//! nested as JSON, not quoted as a string; a number, a text column stay what they are.

mod common;

use common::*;
use mysql_async::prelude::*;

async fn one(c: &mut mysql_async::Conn, sql: &str) -> Option<String> {
    c.query_first(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn booleans_are_json_true_and_false() {
    let mut c = conn().await;
    for (sql, want) in [
        ("SELECT JSON_OBJECT('a', TRUE)", r#"{"a": true}"#),
        (
            "SELECT JSON_ARRAY(FALSE, 1=1, 1<0, NOT 1)",
            "[false, true, false, false]",
        ),
        // A number stays one; NULL stays NULL; parentheses do not matter.
        (
            "SELECT JSON_ARRAY(1, 0, NULL = 1, (2 > 1), 1 IS NULL, NULL IS NULL)",
            "[1, 0, null, true, false, true]",
        ),
        (
            "SELECT JSON_ARRAY('ab' LIKE 'a%', 2 BETWEEN 1 AND 3, 3 IN (1, 2), 3 NOT IN (1, 2))",
            "[true, true, false, true]",
        ),
        (
            "SELECT JSON_ARRAY(EXISTS (SELECT 1), 1 AND 0, 1 OR 0, 1 XOR 1, 1 <=> NULL)",
            "[true, false, true, false, false]",
        ),
        (
            "SELECT JSON_ARRAY(1 IS TRUE, 0 IS NOT FALSE, ISNULL(1), 1 MEMBER OF('[1]'))",
            "[true, false, false, true]",
        ),
        // The keys of JSON_OBJECT are names, not values.
        ("SELECT JSON_OBJECT(1 = 1, 2 > 1)", r#"{"1": true}"#),
        ("SELECT CAST(1 = 1 AS JSON)", "true"),
        (
            r#"SELECT JSON_SET('{"a": 1}', '$.a', TRUE, '$.b', 1 > 2)"#,
            r#"{"a": true, "b": false}"#,
        ),
        (
            r#"SELECT JSON_INSERT('{"a": 1}', '$.a', TRUE, '$.b', FALSE)"#,
            r#"{"a": 1, "b": false}"#,
        ),
        (
            r#"SELECT JSON_REPLACE('{"a": 1}', '$.a', 1 = 1)"#,
            r#"{"a": true}"#,
        ),
        ("SELECT JSON_ARRAY_APPEND('[1]', '$', TRUE)", "[1, true]"),
        (
            "SELECT JSON_ARRAY_INSERT('[1]', '$[0]', FALSE)",
            "[false, 1]",
        ),
        (
            "SELECT JSON_TYPE(JSON_EXTRACT(JSON_ARRAY(TRUE), '$[0]'))",
            "BOOLEAN",
        ),
    ] {
        assert_eq!(one(&mut c, sql).await.as_deref(), Some(want), "{sql}");
    }
    c.query_drop("SET @j = JSON_OBJECT('b', 1 > 0)")
        .await
        .unwrap();
    assert_eq!(
        one(&mut c, "SELECT @j").await.as_deref(),
        Some(r#"{"b": true}"#)
    );
    // Prepared, the same; a parameter is a value, not a boolean.
    let got: Option<String> = c
        .exec_first("SELECT JSON_ARRAY(? = 1, ?)", (1, 1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got.as_deref(), Some("[true, 1]"));

    c.query_drop("CREATE TABLE jv_bool (k VARCHAR(5), n INT)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO jv_bool VALUES ('a', 1), ('b', 5), ('c', NULL)")
        .await
        .unwrap();
    for (sql, want) in [
        ("SELECT JSON_ARRAYAGG(n) FROM jv_bool", "[1, 5, null]"),
        (
            "SELECT JSON_ARRAYAGG(n > 1) FROM jv_bool",
            "[false, true, null]",
        ),
        (
            "SELECT JSON_OBJECTAGG(k, n IS NULL) FROM jv_bool",
            r#"{"a": false, "b": false, "c": true}"#,
        ),
        (
            "SELECT JSON_OBJECT('n', n, 'big', n > 2) FROM jv_bool WHERE k = 'b'",
            r#"{"n": 5, "big": true}"#,
        ),
    ] {
        assert_eq!(one(&mut c, sql).await.as_deref(), Some(want), "{sql}");
    }
    c.query_drop("DROP TABLE jv_bool").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_columns_nest_as_json() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE jv_doc (id INT PRIMARY KEY, doc JSON, txt TEXT)")
        .await
        .unwrap();
    c.query_drop(
        r#"INSERT INTO jv_doc VALUES (1, '{"x":  1}', '{"x": 1}'), (2, '[1, 2]', 'a'),
           (3, NULL, NULL)"#,
    )
    .await
    .unwrap();
    for (sql, want) in [
        (
            "SELECT JSON_OBJECT('d', doc, 't', txt) FROM jv_doc WHERE id = 1",
            r#"{"d": {"x": 1}, "t": "{\"x\": 1}"}"#,
        ),
        (
            "SELECT JSON_ARRAYAGG(doc) FROM jv_doc",
            r#"[{"x": 1}, [1, 2], null]"#,
        ),
        (
            "SELECT JSON_OBJECTAGG(id, doc) FROM jv_doc",
            r#"{"1": {"x": 1}, "2": [1, 2], "3": null}"#,
        ),
        (
            "SELECT JSON_ARRAY(d.doc, jv_doc.doc) FROM jv_doc AS d JOIN jv_doc ON d.id = jv_doc.id \
             WHERE d.id = 2",
            "[[1, 2], [1, 2]]",
        ),
        (
            "SELECT JSON_SET('{}', '$.a', doc) FROM jv_doc WHERE id = 1",
            r#"{"a": {"x": 1}}"#,
        ),
        (
            "SELECT JSON_ARRAY_APPEND('[]', '$', doc) FROM jv_doc WHERE id = 2",
            "[[1, 2]]",
        ),
        (
            "SELECT CAST(doc AS JSON) FROM jv_doc WHERE id = 1",
            r#"{"x": 1}"#,
        ),
        // A qualified column of an enclosing query.
        (
            "SELECT (SELECT JSON_ARRAY(o.doc)) FROM jv_doc AS o WHERE id = 2",
            "[[1, 2]]",
        ),
        (
            "SELECT JSON_ARRAYAGG(doc) FROM jv_doc WHERE id IN \
             (SELECT id FROM jv_doc WHERE JSON_OBJECT('t', txt) IS NOT NULL)",
            r#"[{"x": 1}, [1, 2], null]"#,
        ),
    ] {
        assert_eq!(one(&mut c, sql).await.as_deref(), Some(want), "{sql}");
    }
    // An UPDATE reads its table's JSON column as JSON too.
    c.query_drop("UPDATE jv_doc SET doc = JSON_OBJECT('old', doc, 'ok', id > 1) WHERE id < 3")
        .await
        .unwrap();
    let got: Vec<Option<String>> = c.query("SELECT doc FROM jv_doc ORDER BY id").await.unwrap();
    assert_eq!(
        got,
        [
            Some(r#"{"ok": false, "old": {"x": 1}}"#.into()),
            Some(r#"{"ok": true, "old": [1, 2]}"#.into()),
            None
        ]
    );
    c.query_drop("DROP TABLE jv_doc").await.unwrap();
}
