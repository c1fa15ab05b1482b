//! MySQL 8.0's JSON functions that build or change documents (its manual's 12.18.2 "Functions
//! That Create JSON Values", 12.18.4 "Functions That Modify JSON Values", 12.18.5 "Functions
//! That Return JSON Value Attributes", 12.18.8 "JSON Utility Functions"; source
//! `sql/item_json_func.cc`), written in MySQL's text (`json::mysql_text`) where SQLite's own
//! (`json_object`, `json_set`, ...) write `{"a":1}`:
//!
//! * `JSON_OBJECT`, `JSON_ARRAY`, `CAST(x AS JSON)` (the rewrite's `CAST_AS_JSON(x)`);
//!   `JSON_SET`, `JSON_INSERT`, `JSON_REPLACE`, `JSON_REMOVE`, `JSON_ARRAY_APPEND`,
//!   `JSON_ARRAY_INSERT`; `JSON_MERGE_PATCH` (RFC 7396), `JSON_MERGE_PRESERVE` and its old name
//!   `JSON_MERGE`; `JSON_DEPTH`, `JSON_PRETTY`.
//! * A value argument is JSON when it is a JSON function's result (marked with SQLite's JSON
//!   subtype, `json::SUBTYPE`), a number, or NULL (JSON `null`); any other string is a JSON
//!   string, as in MySQL. SQLite keeps no subtype in a table and has no boolean: the rewrite
//!   marks a `JSON` column's value and a boolean (`TRUE`, `a = b`, ...) passed as a value, which
//!   then are JSON (`json_marks.rs`, `rewrite/json/args.rs`).
//! * Paths as `json_path.rs` reads them; where a path names one place, `*`, `**` and ranges
//!   are error 3149; `JSON_REMOVE(doc, '$')` is 3153; `JSON_ARRAY_INSERT` of a path not ending
//!   in an array cell is 3165; a NULL member name in `JSON_OBJECT` is 3158.
//! * `MDL_JSON_COLUMN(value, 'table.column')` is the check that keeps a JSON column's values
//!   JSON (`rewrite/json.rs`): error 3140 with RapidJSON's message, as MySQL's `Field_json`.

use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};
use serde_json::{Map, Value as Json};

use super::json::{doc, fail, json_flags, json_result, mysql_text, one_path, SUBTYPE, TOO_DEEP};
use super::json_path::{mysql_order, Leg};
use super::json_text::{self, Invalid};

/// A function's result: the value and its subtype.
pub(super) type Out = (Value, Option<u32>);

const NULL: Out = (Value::Null, None);

/// The check function of a JSON column (see the module docs).
pub const COLUMN_CHECK: &str = "MDL_JSON_COLUMN";

/// Registers the functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = json_flags();
    db.create_scalar_function("JSON_OBJECT", -1, f, object)?;
    db.create_scalar_function("JSON_ARRAY", -1, f, |ctx| {
        let items = (0..ctx.len()).map(|i| value(ctx, i, "json_array"));
        Ok(json_result(&Json::Array(items.collect::<Result<_, _>>()?)))
    })?;
    db.create_scalar_function("CAST_AS_JSON", 1, f, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => NULL,
            _ => json_result(&value_or_doc(ctx, 0, "cast_as_json")?),
        })
    })?;
    for (name, mode) in [
        ("JSON_SET", Mode::Set),
        ("JSON_INSERT", Mode::Insert),
        ("JSON_REPLACE", Mode::Replace),
        ("JSON_ARRAY_APPEND", Mode::Append),
        ("JSON_ARRAY_INSERT", Mode::ArrayInsert),
    ] {
        db.create_scalar_function(name, -1, f, move |ctx| modify(ctx, name, mode))?;
    }
    db.create_scalar_function("JSON_REMOVE", -1, f, remove)?;
    db.create_scalar_function("JSON_MERGE_PATCH", -1, f, merge_patch)?;
    for name in ["JSON_MERGE_PRESERVE", "JSON_MERGE"] {
        db.create_scalar_function(name, -1, f, move |ctx| merge_preserve(ctx, name))?;
    }
    db.create_scalar_function("JSON_DEPTH", 1, f, |ctx| {
        Ok(doc(ctx, 0, "json_depth")?.map_or(Value::Null, |v| Value::Integer(depth(&v))))
    })?;
    db.create_scalar_function("JSON_PRETTY", 1, f, |ctx| {
        Ok(doc(ctx, 0, "json_pretty")?.map_or(Value::Null, |v| {
            let mut out = String::new();
            pretty(&v, 0, &mut out);
            Value::Text(out)
        }))
    })?;
    db.create_scalar_function(COLUMN_CHECK, 2, f, column_check)
}

/// Argument `i` as a JSON value (see the module docs).
pub(super) fn value(ctx: &Context<'_>, i: usize, func: &str) -> rusqlite::Result<Json> {
    Ok(match ctx.get_raw(i) {
        ValueRef::Null => Json::Null,
        ValueRef::Integer(n) => Json::from(n),
        ValueRef::Real(x) => Json::from(x),
        ValueRef::Text(b) if ctx.get_subtype(i) == SUBTYPE => {
            json_text::parse(b).map_err(|e| super::json::invalid_text(i, func, e))?
        }
        ValueRef::Text(b) | ValueRef::Blob(b) => Json::String(String::from_utf8_lossy(b).into()),
    })
}

/// Argument `i` as a value when it is JSON or a number, else its text read as a document
/// (`CAST(x AS JSON)`, `JSON_CONTAINS`'s candidate, ...).
pub(super) fn value_or_doc(ctx: &Context<'_>, i: usize, func: &str) -> rusqlite::Result<Json> {
    match ctx.get_raw(i) {
        ValueRef::Text(_) | ValueRef::Blob(_) if ctx.get_subtype(i) != SUBTYPE => {
            Ok(doc(ctx, i, func)?.unwrap_or(Json::Null))
        }
        _ => value(ctx, i, func),
    }
}

/// An error for a call with a wrong number of arguments (`error.rs` makes it 1582).
fn wrong_count(name: &str) -> rusqlite::Error {
    fail(format!("wrong number of arguments to function {name}()"))
}

/// `JSON_OBJECT(key, value, ...)`: a later duplicate key wins (the manual's example).
fn object(ctx: &Context<'_>) -> rusqlite::Result<Out> {
    if !ctx.len().is_multiple_of(2) {
        return Err(wrong_count("JSON_OBJECT"));
    }
    let mut m = Map::new();
    for i in (0..ctx.len()).step_by(2) {
        let Some(key) = super::text(ctx, i) else {
            return Err(fail(
                "JSON documents may not contain NULL member names.".into(),
            ));
        };
        m.insert(key, value(ctx, i + 1, "json_object")?);
    }
    Ok(json_result(&Json::Object(m)))
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Set,
    Insert,
    Replace,
    Append,
    ArrayInsert,
}

/// `JSON_SET` and its kin: `(path, value)` pairs applied in order; a NULL document or path
/// gives NULL.
fn modify(ctx: &Context<'_>, name: &str, mode: Mode) -> rusqlite::Result<Out> {
    if ctx.len() < 3 || ctx.len().is_multiple_of(2) {
        return Err(wrong_count(name));
    }
    let func = name.to_ascii_lowercase();
    let Some(mut d) = doc(ctx, 0, &func)? else {
        return Ok(NULL);
    };
    for i in (1..ctx.len()).step_by(2) {
        let Some(legs) = one_path(ctx, i)? else {
            return Ok(NULL);
        };
        let v = value(ctx, i + 1, &func)?;
        apply(&mut d, &legs, v, mode)?;
    }
    Ok(json_result(&d))
}

/// The value at `legs` in `d`, for a change (auto-wrapping as `json_path::seek`).
fn find_mut<'a>(d: &'a mut Json, legs: &[Leg]) -> Option<&'a mut Json> {
    legs.iter().try_fold(d, |v, leg| match (leg, v) {
        (Leg::Key(k), Json::Object(m)) => m.get_mut(k),
        (Leg::Index(c), Json::Array(a)) => {
            let len = a.len();
            c.at(len).and_then(|n| a.get_mut(n))
        }
        (Leg::Index(c), other) if c.at(1) == Some(0) => Some(other),
        _ => None,
    })
}

/// One `(path, value)` pair of `JSON_SET` and its kin (the manual's 12.18.4).
fn apply(d: &mut Json, legs: &[Leg], v: Json, mode: Mode) -> rusqlite::Result<()> {
    let Some((last, parent)) = legs.split_last() else {
        match mode {
            Mode::Set | Mode::Replace => *d = v,
            Mode::Append => append(d, v),
            Mode::Insert => {}
            Mode::ArrayInsert => return Err(not_a_cell()),
        }
        return Ok(());
    };
    if mode == Mode::Append {
        if let Some(target) = find_mut(d, legs) {
            append(target, v);
        }
        return Ok(());
    }
    if mode == Mode::ArrayInsert && !matches!(last, Leg::Index(_)) {
        return Err(not_a_cell());
    }
    let Some(p) = find_mut(d, parent) else {
        return Ok(());
    };
    let (replaces, adds) = match mode {
        Mode::Set => (true, true),
        Mode::Insert => (false, true),
        _ => (true, false),
    };
    match (last, p) {
        (Leg::Key(k), Json::Object(m)) if (if m.contains_key(k) { replaces } else { adds }) => {
            m.insert(k.clone(), v);
        }
        (Leg::Index(c), Json::Array(a)) if mode == Mode::ArrayInsert => {
            let at = c.at(a.len()).unwrap_or(0).min(a.len());
            a.insert(at, v);
        }
        (Leg::Index(c), Json::Array(a)) => match c.at(a.len()).filter(|n| *n < a.len()) {
            Some(n) if replaces => a[n] = v,
            None if adds => a.push(v),
            _ => {}
        },
        // Auto-wrapping: `[0]` is the value itself, a later cell one past its end.
        (Leg::Index(c), p) if mode != Mode::ArrayInsert && c.at(1) == Some(0) && replaces => {
            *p = v;
        }
        (Leg::Index(c), _) if c.at(1) == Some(0) => {}
        (Leg::Index(_), p) if adds => {
            let old = std::mem::take(p);
            *p = Json::Array(vec![old, v]);
        }
        _ => {}
    }
    Ok(())
}

/// `JSON_ARRAY_APPEND`'s step: to an array, or a value wrapped as one.
fn append(target: &mut Json, v: Json) {
    match target {
        Json::Array(a) => a.push(v),
        other => {
            let old = std::mem::take(other);
            *other = Json::Array(vec![old, v]);
        }
    }
}

/// MySQL's error 3165.
fn not_a_cell() -> rusqlite::Error {
    fail("A path expression is not a path to a cell in an array.".into())
}

/// `JSON_REMOVE(doc, path, ...)`.
fn remove(ctx: &Context<'_>) -> rusqlite::Result<Out> {
    if ctx.len() < 2 {
        return Err(wrong_count("JSON_REMOVE"));
    }
    let Some(mut d) = doc(ctx, 0, "json_remove")? else {
        return Ok(NULL);
    };
    for i in 1..ctx.len() {
        let Some(legs) = one_path(ctx, i)? else {
            return Ok(NULL);
        };
        let Some((last, parent)) = legs.split_last() else {
            return Err(fail(
                "The path expression '$' is not allowed in this context.".into(),
            ));
        };
        match (last, find_mut(&mut d, parent)) {
            (Leg::Key(k), Some(Json::Object(m))) => {
                m.remove(k);
            }
            (Leg::Index(c), Some(Json::Array(a))) => {
                if let Some(n) = c.at(a.len()).filter(|n| *n < a.len()) {
                    a.remove(n);
                }
            }
            _ => {}
        }
    }
    Ok(json_result(&d))
}

/// `JSON_MERGE_PATCH(doc, doc, ...)` (RFC 7396). A NULL patch makes the result so far
/// unknown, until a patch that is no object replaces it (`Item_func_json_merge_patch`).
fn merge_patch(ctx: &Context<'_>) -> rusqlite::Result<Out> {
    if ctx.len() < 2 {
        return Err(wrong_count("JSON_MERGE_PATCH"));
    }
    let mut acc = doc(ctx, 0, "json_merge_patch")?;
    for i in 1..ctx.len() {
        match doc(ctx, i, "json_merge_patch")? {
            None => acc = None,
            Some(p) if !p.is_object() => acc = Some(p),
            Some(p) => {
                if let Some(a) = acc.as_mut() {
                    patch(a, p);
                }
            }
        }
    }
    Ok(acc.map_or(NULL, |v| json_result(&v)))
}

fn patch(target: &mut Json, p: Json) {
    let Json::Object(p) = p else {
        *target = p;
        return;
    };
    if !target.is_object() {
        *target = Json::Object(Map::new());
    }
    let Json::Object(t) = target else { return };
    for (k, v) in p {
        if v.is_null() {
            t.remove(&k);
        } else {
            patch(t.entry(k).or_insert(Json::Null), v);
        }
    }
}

/// `JSON_MERGE_PRESERVE(doc, doc, ...)`: NULL if any is NULL.
fn merge_preserve(ctx: &Context<'_>, name: &str) -> rusqlite::Result<Out> {
    if ctx.len() < 2 {
        return Err(wrong_count(name));
    }
    let func = name.to_ascii_lowercase();
    let mut acc: Option<Json> = None;
    for i in 0..ctx.len() {
        let Some(d) = doc(ctx, i, &func)? else {
            return Ok(NULL);
        };
        acc = Some(match acc {
            None => d,
            Some(a) => preserve(a, d),
        });
    }
    Ok(acc.map_or(NULL, |v| json_result(&v)))
}

/// Two objects merge member by member (a key in both: the merge of its values); otherwise
/// the values, each an array or wrapped as one, are concatenated.
fn preserve(a: Json, b: Json) -> Json {
    match (a, b) {
        (Json::Object(mut x), Json::Object(y)) => {
            for (k, v) in y {
                let merged = match x.remove(&k) {
                    Some(old) => preserve(old, v),
                    None => v,
                };
                x.insert(k, merged);
            }
            Json::Object(x)
        }
        (a, b) => {
            let items = |v: Json| match v {
                Json::Array(a) => a,
                other => vec![other],
            };
            let mut out = items(a);
            out.extend(items(b));
            Json::Array(out)
        }
    }
}

/// `JSON_DEPTH`: 1 for a scalar or an empty array or object.
pub(super) fn depth(v: &Json) -> i64 {
    let inner = match v {
        Json::Array(a) => a.iter().map(depth).max(),
        Json::Object(m) => m.values().map(depth).max(),
        _ => None,
    };
    1 + inner.unwrap_or(0)
}

/// `JSON_PRETTY`: two spaces a level, one member or element a line
/// (`Json_wrapper::to_pretty_string`).
fn pretty(v: &Json, level: usize, out: &mut String) {
    let pad = |n: usize| "  ".repeat(n);
    match v {
        Json::Array(a) if !a.is_empty() => {
            out.push_str("[\n");
            for (i, item) in a.iter().enumerate() {
                out.push_str(&pad(level + 1));
                pretty(item, level + 1, out);
                out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(level));
            out.push(']');
        }
        Json::Object(m) if !m.is_empty() => {
            out.push_str("{\n");
            let members = mysql_order(m);
            for (i, (k, item)) in members.iter().enumerate() {
                out.push_str(&pad(level + 1));
                out.push_str(&format!("{}: ", Json::from(k.as_str())));
                pretty(item, level + 1, out);
                out.push_str(if i + 1 < members.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(level));
            out.push('}');
        }
        other => out.push_str(&mysql_text(other)),
    }
}

/// `MDL_JSON_COLUMN(value, 'table.column')`: true for NULL, a number (SQLite's NUMERIC
/// affinity made one of the text `'5'`) and JSON text; error 3140 for other text.
fn column_check(ctx: &Context<'_>) -> rusqlite::Result<bool> {
    let column = super::text(ctx, 1).unwrap_or_default();
    match ctx.get_raw(0) {
        ValueRef::Text(b) | ValueRef::Blob(b) => match json_text::check(b) {
            Ok(()) => Ok(true),
            Err(Invalid::Syntax(msg, pos)) => Err(fail(format!(
                "Invalid JSON text: \"{msg}\" at position {pos} in value for column '{column}'."
            ))),
            Err(Invalid::TooDeep) => Err(fail(TOO_DEEP.into())),
        },
        _ => Ok(true),
    }
}

/// A JSON column's stored text as MySQL gives it back: its normal form (MySQL keeps a JSON
/// value in its binary form, `json_binary.cc`, and prints it from there). Text that is not
/// JSON (written before the column had its check) comes back as it is.
pub fn column_text(stored: &str) -> Option<String> {
    let v = json_text::parse(stored.as_bytes()).ok()?;
    let normal = mysql_text(&v);
    (normal != stored).then_some(normal)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn builders_answer_as_mysqls_manual() {
        let db = db();
        for (expr, want) in [
            // 12.18.2.
            (
                "JSON_ARRAY(1, 'abc', NULL, 1.5)",
                t(r#"[1, "abc", null, 1.5]"#),
            ),
            (
                "JSON_OBJECT('id', 87, 'name', 'carrot')",
                t(r#"{"id": 87, "name": "carrot"}"#),
            ),
            (
                "JSON_OBJECT('key1', 1, 'key2', 'abc', 'key1', 'def')",
                t(r#"{"key1": "def", "key2": "abc"}"#),
            ),
            (
                "JSON_OBJECT('a', 1, 'b', JSON_ARRAY(1, 2))",
                t(r#"{"a": 1, "b": [1, 2]}"#),
            ),
            ("JSON_ARRAY('[1]')", t(r#"["[1]"]"#)),
            ("JSON_OBJECT()", t("{}")),
            (
                r#"CAST_AS_JSON('{"x":  [1,  2], "ab": 1, "b": 2}')"#,
                t(r#"{"b": 2, "x": [1, 2], "ab": 1}"#),
            ),
            ("CAST_AS_JSON(NULL)", Value::Null),
            ("JSON_ARRAY(CAST_AS_JSON('[1]'))", t("[[1]]")),
            // 12.18.4.
            (
                r#"JSON_ARRAY_APPEND('["a", ["b", "c"], "d"]', '$[1]', 1)"#,
                t(r#"["a", ["b", "c", 1], "d"]"#),
            ),
            (
                r#"JSON_ARRAY_APPEND('["a", ["b", "c"], "d"]', '$[0]', 2)"#,
                t(r#"[["a", 2], ["b", "c"], "d"]"#),
            ),
            (
                r#"JSON_ARRAY_APPEND('{"a": 1, "b": [2, 3], "c": 4}', '$.b', 'x')"#,
                t(r#"{"a": 1, "b": [2, 3, "x"], "c": 4}"#),
            ),
            (
                r#"JSON_ARRAY_APPEND('{"a": 1}', '$', 'z')"#,
                t(r#"[{"a": 1}, "z"]"#),
            ),
            (
                r#"JSON_ARRAY_INSERT('["a", {"b": [1, 2]}, [3, 4]]', '$[1]', 'x')"#,
                t(r#"["a", "x", {"b": [1, 2]}, [3, 4]]"#),
            ),
            (
                r#"JSON_ARRAY_INSERT('["a", {"b": [1, 2]}, [3, 4]]', '$[100]', 'x')"#,
                t(r#"["a", {"b": [1, 2]}, [3, 4], "x"]"#),
            ),
            (
                r#"JSON_ARRAY_INSERT('["a", {"b": [1, 2]}, [3, 4]]', '$[1].b[0]', 'x')"#,
                t(r#"["a", {"b": ["x", 1, 2]}, [3, 4]]"#),
            ),
            (
                r#"JSON_INSERT('{ "a": 1, "b": [2, 3]}', '$.a', 10, '$.c', '[true, false]')"#,
                t(r#"{"a": 1, "b": [2, 3], "c": "[true, false]"}"#),
            ),
            (
                r#"JSON_SET('{ "a": 1, "b": [2, 3]}', '$.a', 10, '$.c', '[true, false]')"#,
                t(r#"{"a": 10, "b": [2, 3], "c": "[true, false]"}"#),
            ),
            (
                r#"JSON_REPLACE('{ "a": 1, "b": [2, 3]}', '$.a', 10, '$.c', '[true, false]')"#,
                t(r#"{"a": 10, "b": [2, 3]}"#),
            ),
            (r#"JSON_SET('"x"', '$[1]', 'y')"#, t(r#"["x", "y"]"#)),
            (r#"JSON_SET('"x"', '$[0]', 'y')"#, t(r#""y""#)),
            ("JSON_SET('[1, 2]', '$[5]', 3)", t("[1, 2, 3]")),
            ("JSON_SET('[1, 2]', '$', NULL)", t("null")),
            ("JSON_SET('[1]', NULL, 2)", Value::Null),
            (
                r#"JSON_REMOVE('["a", ["b", "c"], "d"]', '$[1]')"#,
                t(r#"["a", "d"]"#),
            ),
            (
                r#"JSON_REMOVE('{"a": 1, "b": 2}', '$.a', '$.z')"#,
                t(r#"{"b": 2}"#),
            ),
            (
                "JSON_MERGE_PATCH('[1, 2]', '[true, false]')",
                t("[true, false]"),
            ),
            (
                r#"JSON_MERGE_PATCH('{"name": "x"}', '{"id": 47}')"#,
                t(r#"{"id": 47, "name": "x"}"#),
            ),
            ("JSON_MERGE_PATCH('1', 'true')", t("true")),
            (
                r#"JSON_MERGE_PATCH('[1, 2]', '{"id": 47}')"#,
                t(r#"{"id": 47}"#),
            ),
            (
                r#"JSON_MERGE_PATCH('{ "a": 1, "b":2 }', '{ "a": 3, "c":4 }', '{ "a": 5, "d":6 }')"#,
                t(r#"{"a": 5, "b": 2, "c": 4, "d": 6}"#),
            ),
            (
                r#"JSON_MERGE_PATCH('{"a":1, "b":2}', '{"b":null}')"#,
                t(r#"{"a": 1}"#),
            ),
            (
                r#"JSON_MERGE_PATCH('{"a":{"x":1}}', '{"a":{"y":2}}')"#,
                t(r#"{"a": {"x": 1, "y": 2}}"#),
            ),
            (r#"JSON_MERGE_PATCH(NULL, '{"a": 1}')"#, Value::Null),
            ("JSON_MERGE_PATCH(NULL, '[1]')", t("[1]")),
            (
                "JSON_MERGE_PRESERVE('[1, 2]', '[true, false]')",
                t("[1, 2, true, false]"),
            ),
            ("JSON_MERGE_PRESERVE('1', 'true')", t("[1, true]")),
            (
                r#"JSON_MERGE_PRESERVE('[1, 2]', '{"id": 47}')"#,
                t(r#"[1, 2, {"id": 47}]"#),
            ),
            (
                r#"JSON_MERGE_PRESERVE('{ "a": 1, "b": 2 }', '{ "a": 3, "c": 4 }', '{ "a": 5, "d": 6 }')"#,
                t(r#"{"a": [1, 3, 5], "b": 2, "c": 4, "d": 6}"#),
            ),
            ("JSON_MERGE('[1]', NULL)", Value::Null),
            // 12.18.5.
            ("JSON_DEPTH('{}')", Value::Integer(1)),
            ("JSON_DEPTH('[10, 20]')", Value::Integer(2)),
            ("JSON_DEPTH('[[], {}]')", Value::Integer(2)),
            (r#"JSON_DEPTH('[10, {"a": 20}]')"#, Value::Integer(3)),
            // 12.18.8.
            ("JSON_PRETTY('123')", t("123")),
            ("JSON_PRETTY('[]')", t("[]")),
            ("JSON_PRETTY('[1,3,5]')", t("[\n  1,\n  3,\n  5\n]")),
            (
                r#"JSON_PRETTY('{"a":"10","b":"15","x":{"p":"hi"}}')"#,
                t("{\n  \"a\": \"10\",\n  \"b\": \"15\",\n  \"x\": {\n    \"p\": \"hi\"\n  }\n}"),
            ),
        ] {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }

    #[test]
    fn errors_are_mysqls() {
        let db = db();
        for (sql, says) in [
            ("SELECT JSON_OBJECT('a')", "wrong number of arguments"),
            (
                "SELECT JSON_OBJECT(NULL, 1)",
                "may not contain NULL member names",
            ),
            (
                "SELECT JSON_SET('[1]', '$[0]')",
                "wrong number of arguments",
            ),
            (
                "SELECT JSON_SET('[1]', '$[*]', 1)",
                "may not contain the * and **",
            ),
            (
                "SELECT JSON_SET('[1', '$[0]', 1)",
                "\"Missing a comma or ']' after an array element.\" at position 2.",
            ),
            (
                "SELECT JSON_REMOVE('[1]', '$')",
                "The path expression '$' is not allowed",
            ),
            (
                "SELECT JSON_ARRAY_INSERT('[1]', '$.a', 1)",
                "not a path to a cell",
            ),
            (
                "SELECT CAST_AS_JSON('x')",
                "argument 1 to function cast_as_json: \"Invalid value.\" at position 0.",
            ),
            (
                "SELECT MDL_JSON_COLUMN('[1,', 't.j')",
                "Invalid JSON text: \"Invalid value.\" at position 3 in value for column 't.j'.",
            ),
        ] {
            let err = db.query_row(sql, [], |r| r.get::<_, Value>(0));
            let err = err.map_or_else(|e| e.to_string(), |v| format!("{v:?}"));
            assert!(err.contains(says), "{sql}: {err}");
        }
        assert_eq!(eval(&db, "MDL_JSON_COLUMN(NULL, 't.j')"), Value::Integer(1));
        assert_eq!(eval(&db, "MDL_JSON_COLUMN(5, 't.j')"), Value::Integer(1));
    }

    #[test]
    fn column_text_is_normal() {
        assert_eq!(
            column_text(r#"{"x":  [1,  2]}"#).as_deref(),
            Some(r#"{"x": [1, 2]}"#)
        );
        assert_eq!(column_text(r#"{"x": [1, 2]}"#), None);
        assert_eq!(column_text("not json"), None);
    }
}
