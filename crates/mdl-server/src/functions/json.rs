//! `JSON_TYPE`, `JSON_EXTRACT`, `JSON_UNQUOTE`, `JSON_LENGTH` and `JSON_KEYS` (manual, 14.17 "JSON
//! Functions"; source `sql/item_json_func.cc`, `sql-common/json_path.cc`), reading the
//! documents with `serde_json`, and what the other JSON modules share: reading a document,
//! a path, MySQL's text of a value. A NULL argument gives NULL.
//!
//! * `JSON_TYPE` overrides SQLite's `json_type`, whose names are lower case and SQLite's own
//!   (`integer`, `real`, `text`, `true`): MySQL's are `OBJECT`, `ARRAY`, `STRING`, `INTEGER`,
//!   `UNSIGNED INTEGER` (past BIGINT), `DOUBLE`, `BOOLEAN`, `NULL`.
//! * A document is text (or a blob) holding JSON: invalid JSON is MySQL's error 3141, with
//!   RapidJSON's message and position (`json_text.rs`). A number is the JSON number (MySQL
//!   refuses one, 3146), because SQLite's `json_extract`, unlike MySQL's, gives a number as an
//!   SQL number.
//! * Paths as `json_path.rs` reads them. A path that selects nothing gives NULL; a malformed
//!   one is error 3143; where a path names one value (`JSON_LENGTH`, `JSON_KEYS`), `*`, `**` or
//!   a range `[m to n]` is error 3149, as in MySQL.
//! * `JSON_KEYS` lists an object's keys in MySQL's order (shorter keys first, then byte
//!   order), as MySQL writes an array (`["a", "b"]`); NULL for a value that is no object.
//! * `JSON_EXTRACT` overrides SQLite's `json_extract`, which gives a string without its quotes
//!   and writes JSON without spaces: MySQL's gives JSON (`"x"`, `{"a": 1, "bb": [1, 2]}`), with
//!   several paths, or a path with a wildcard or range, the array of the values found. The
//!   rewrite makes `a -> p` this call and `a ->> p` its `JSON_UNQUOTE` (`rewrite/expr.rs`), as
//!   MySQL defines the operators.
//! * `JSON_UNQUOTE(s)`: a string that starts and ends with `"` is read as a JSON string (its
//!   escapes undone; error 3141 when it is not one), any other comes back as it is.
//! * JSON results carry SQLite's JSON subtype ([`SUBTYPE`]).

use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};
use serde_json::Value as Json;

use super::flags;
use super::json_path::{self, Leg};
use super::json_text::{self, Invalid};

/// Registers the functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    db.create_scalar_function("JSON_TYPE", -1, f, |ctx| {
        arity(ctx, "JSON_TYPE", 1)?;
        Ok(doc(ctx, 0, "json_type")?.map_or(Value::Null, |v| Value::Text(type_name(&v).into())))
    })?;
    db.create_scalar_function("JSON_UNQUOTE", 1, f, unquote)?;
    db.create_scalar_function("JSON_EXTRACT", -1, json_flags(), extract)?;
    db.create_scalar_function("JSON_LENGTH", -1, f, |ctx| {
        arity(ctx, "JSON_LENGTH", 2)?;
        Ok(selected(ctx, "json_length")?.map_or(Value::Null, |v| {
            Value::Integer(match v {
                Json::Array(a) => a.len() as i64,
                Json::Object(m) => m.len() as i64,
                _ => 1,
            })
        }))
    })?;
    db.create_scalar_function("JSON_KEYS", -1, json_flags(), |ctx| {
        arity(ctx, "JSON_KEYS", 2)?;
        Ok(match selected(ctx, "json_keys")? {
            Some(Json::Object(m)) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort_by(|a, b| (a.len(), a.as_bytes()).cmp(&(b.len(), b.as_bytes())));
                let quoted: Vec<String> = keys
                    .iter()
                    .map(|k| Json::from(k.as_str()).to_string())
                    .collect();
                (
                    Value::Text(format!("[{}]", quoted.join(", "))),
                    Some(SUBTYPE),
                )
            }
            _ => (Value::Null, None),
        })
    })
}

/// The flags of a JSON function: deterministic, innocuous (a JSON column's check calls one:
/// `rewrite/json.rs`), reading its arguments' subtypes and marking its result's ([`SUBTYPE`]).
pub(super) fn json_flags() -> rusqlite::functions::FunctionFlags {
    use rusqlite::functions::FunctionFlags as F;
    flags(true) | F::SQLITE_INNOCUOUS | F::SQLITE_SUBTYPE | F::SQLITE_RESULT_SUBTYPE
}

/// An error unless the call has 1 to `most` arguments (SQLite's words, which `error.rs` turns
/// into MySQL's 1582).
pub(super) fn arity(ctx: &Context<'_>, name: &str, most: usize) -> rusqlite::Result<()> {
    if (1..=most).contains(&ctx.len()) {
        Ok(())
    } else {
        Err(fail(format!(
            "wrong number of arguments to function {name}()"
        )))
    }
}

pub(super) fn fail(msg: String) -> rusqlite::Error {
    rusqlite::Error::UserFunctionError(msg.into())
}

/// Argument `i` as a JSON document; None for NULL, error 3141 for text that is not JSON.
pub(super) fn doc(ctx: &Context<'_>, i: usize, func: &str) -> rusqlite::Result<Option<Json>> {
    match ctx.get_raw(i) {
        ValueRef::Null => Ok(None),
        ValueRef::Integer(n) => Ok(Some(Json::from(n))),
        ValueRef::Real(x) => Ok(Some(Json::from(x))),
        ValueRef::Text(b) | ValueRef::Blob(b) => json_text::parse(b)
            .map(Some)
            .map_err(|e| invalid_text(i, func, e)),
    }
}

/// MySQL's error 3141 for argument `i` of `func` (3157 for a document nested too deep).
pub(super) fn invalid_text(i: usize, func: &str, e: Invalid) -> rusqlite::Error {
    match e {
        Invalid::Syntax(msg, pos) => fail(format!(
            "Invalid JSON text in argument {} to function {func}: \"{msg}\" at position {pos}.",
            i + 1
        )),
        Invalid::TooDeep => fail(TOO_DEEP.into()),
    }
}

/// MySQL's error 3157.
pub(super) const TOO_DEEP: &str = "The JSON document exceeds the maximum depth.";

/// MySQL's name of a JSON value's type.
fn type_name(v: &Json) -> &'static str {
    match v {
        Json::Null => "NULL",
        Json::Bool(_) => "BOOLEAN",
        Json::Number(n) if n.is_i64() => "INTEGER",
        Json::Number(n) if n.is_u64() => "UNSIGNED INTEGER",
        Json::Number(_) => "DOUBLE",
        Json::String(_) => "STRING",
        Json::Array(_) => "ARRAY",
        Json::Object(_) => "OBJECT",
    }
}

/// The value the document (argument 0) has at the path (argument 1, `$` without one); None
/// when either is NULL or the path selects nothing.
fn selected(ctx: &Context<'_>, func: &str) -> rusqlite::Result<Option<Json>> {
    let Some(v) = doc(ctx, 0, func)? else {
        return Ok(None);
    };
    if ctx.len() < 2 {
        return Ok(Some(v));
    }
    at_path(ctx, 1, &v)
}

/// `JSON_EXTRACT(doc, path, ...)`: the value at the path, or with several paths the array of
/// the values found, as MySQL writes JSON; NULL when nothing is found or an argument is NULL.
fn extract(ctx: &Context<'_>) -> rusqlite::Result<(Value, Option<u32>)> {
    if ctx.len() < 2 {
        return Err(fail(
            "wrong number of arguments to function JSON_EXTRACT()".into(),
        ));
    }
    let Some(v) = doc(ctx, 0, "json_extract")? else {
        return Ok((Value::Null, None));
    };
    let mut found = Vec::new();
    let mut wild = ctx.len() > 2;
    for i in 1..ctx.len() {
        let Some(legs) = path(ctx, i)? else {
            return Ok((Value::Null, None));
        };
        wild |= legs.iter().any(Leg::is_wild);
        found.extend(
            json_path::seek(&v, &legs)
                .into_iter()
                .map(|(_, v)| v.clone()),
        );
    }
    // Several paths, or one that may select several values: the array of what they found
    // (`Item_func_json_extract::val_json`).
    Ok(match (wild, found.len()) {
        (_, 0) => (Value::Null, None),
        (false, _) => json_result(&found[0]),
        (true, _) => json_result(&Json::Array(found)),
    })
}

/// The subtype SQLite's JSON functions mark their JSON results with (`JSON_SUBTYPE`, 'J', in
/// SQLite's `json.c`): this server's JSON results carry it too, so a JSON argument is told
/// from a string (`JSON_ARRAY(JSON_ARRAY(1))` nests an array, `JSON_ARRAY('[1]')` a string).
pub(super) const SUBTYPE: u32 = b'J' as u32;

/// A JSON result: MySQL's text, marked JSON.
pub(super) fn json_result(v: &Json) -> (Value, Option<u32>) {
    (Value::Text(mysql_text(v)), Some(SUBTYPE))
}

/// A JSON value as MySQL prints one (`Json_wrapper::to_string`, `sql-common/json_dom.cc`):
/// `", "` and `": "` between items, an object's members in MySQL's order (shorter keys first,
/// then byte order, as `json_binary.cc` stores them).
pub(super) fn mysql_text(v: &Json) -> String {
    match v {
        Json::Array(a) => {
            let items: Vec<String> = a.iter().map(mysql_text).collect();
            format!("[{}]", items.join(", "))
        }
        Json::Object(m) => {
            let items: Vec<String> = json_path::mysql_order(m)
                .iter()
                .map(|(k, v)| format!("{}: {}", Json::from(k.as_str()), mysql_text(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        scalar => scalar.to_string(),
    }
}

/// The value `v` has at the path of argument `i`; None for a NULL path or one that selects
/// nothing. A path that may select several values is refused (3149).
fn at_path(ctx: &Context<'_>, i: usize, v: &Json) -> rusqlite::Result<Option<Json>> {
    Ok(one_path(ctx, i)?.and_then(|legs| json_path::select(v, &legs).cloned()))
}

/// The path of argument `i`; None for NULL; error 3143 when malformed.
pub(super) fn path(ctx: &Context<'_>, i: usize) -> rusqlite::Result<Option<Vec<Leg>>> {
    let Some(p) = super::text(ctx, i) else {
        return Ok(None);
    };
    json_path::parse(&p)
        .map(Some)
        .map_err(|json_path::PathError(pos)| {
            fail(format!(
                "Invalid JSON path expression. The error is around character position {pos}."
            ))
        })
}

/// [`path`], refusing `*`, `**` and ranges (3149), as MySQL does where a path names one value.
pub(super) fn one_path(ctx: &Context<'_>, i: usize) -> rusqlite::Result<Option<Vec<Leg>>> {
    let legs = path(ctx, i)?;
    if legs.iter().flatten().any(Leg::is_wild) {
        return Err(fail(
            "In this situation, path expressions may not contain the * and ** tokens or an \
             array range."
                .into(),
        ));
    }
    Ok(legs)
}

/// `JSON_UNQUOTE(s)`.
fn unquote(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    Ok(match ctx.get_raw(0) {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => Value::Text(n.to_string()),
        ValueRef::Real(x) => Value::Text(x.to_string()),
        ValueRef::Text(b) | ValueRef::Blob(b) => {
            if b.len() >= 2 && b.starts_with(b"\"") && b.ends_with(b"\"") {
                match json_text::parse(b).map_err(|e| invalid_text(0, "json_unquote", e))? {
                    Json::String(s) => Value::Text(s),
                    other => Value::Text(other.to_string()),
                }
            } else {
                Value::Text(String::from_utf8_lossy(b).into_owned())
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn json_functions_as_mysqls() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        let i = Value::Integer;
        let cases = [
            // The manual's examples.
            (r#"JSON_TYPE('{"a": [10, true]}')"#, t("OBJECT")),
            (r#"JSON_TYPE('[10, true]')"#, t("ARRAY")),
            ("JSON_TYPE('true')", t("BOOLEAN")),
            ("JSON_TYPE('null')", t("NULL")),
            ("JSON_TYPE('1')", t("INTEGER")),
            ("JSON_TYPE('-1')", t("INTEGER")),
            ("JSON_TYPE('18446744073709551615')", t("UNSIGNED INTEGER")),
            ("JSON_TYPE('1.5')", t("DOUBLE")),
            ("JSON_TYPE('1e2')", t("DOUBLE")),
            ("JSON_TYPE('99999999999999999999999')", t("DOUBLE")),
            (r#"JSON_TYPE('"x"')"#, t("STRING")),
            ("JSON_TYPE(1)", t("INTEGER")),
            ("JSON_TYPE(2.5)", t("DOUBLE")),
            ("JSON_TYPE(json_array(1))", t("ARRAY")),
            ("JSON_TYPE(NULL)", Value::Null),
            (r#"JSON_UNQUOTE('"abc"')"#, t("abc")),
            (r#"JSON_UNQUOTE('"\t\u0032\"x"')"#, t("\t2\"x")),
            ("JSON_UNQUOTE('abc')", t("abc")),
            (r#"JSON_UNQUOTE('"abc')"#, t("\"abc")),
            (r#"JSON_UNQUOTE('"')"#, t("\"")),
            ("JSON_UNQUOTE('[1, 2]')", t("[1, 2]")),
            (
                "JSON_UNQUOTE(json_extract('{\"a\": \"x\"}', '$.a'))",
                t("x"),
            ),
            ("JSON_UNQUOTE(12)", t("12")),
            ("JSON_UNQUOTE(NULL)", Value::Null),
            ("JSON_LENGTH('[1, 2, {\"a\": 3}]')", i(3)),
            (r#"JSON_LENGTH('{"a": 1, "b": {"c": 30}}')"#, i(2)),
            (r#"JSON_LENGTH('{"a": 1, "b": {"c": 30}}', '$.b')"#, i(1)),
            (r#"JSON_LENGTH('{"a": 1, "b": {"c": 30}}', '$.a')"#, i(1)),
            (r#"JSON_LENGTH('{"a": 1}', '$.z')"#, Value::Null),
            ("JSON_LENGTH('[[1, 2, 3], 4]', '$[0]')", i(3)),
            ("JSON_LENGTH('[[1, 2, 3], [4]]', '$[last]')", i(1)),
            ("JSON_LENGTH('[[1, 2, 3], [4]]', '$[last - 1]')", i(3)),
            (
                "JSON_LENGTH('[[1, 2, 3], [4]]', '$[last - 2]')",
                Value::Null,
            ),
            ("JSON_LENGTH('[1]', '$[5]')", Value::Null),
            (r#"JSON_LENGTH('{"a": [1, 2]}', '$[0].a')"#, i(2)),
            (r#"JSON_LENGTH('{"a": [1, 2]}', '$[1]')"#, Value::Null),
            ("JSON_LENGTH('\"abc\"')", i(1)),
            ("JSON_LENGTH('[]')", i(0)),
            ("JSON_LENGTH(NULL)", Value::Null),
            ("JSON_LENGTH('[1]', NULL)", Value::Null),
            (
                r#"JSON_KEYS('{"a": 1, "b": {"c": 30}}')"#,
                t(r#"["a", "b"]"#),
            ),
            (
                r#"JSON_KEYS('{"a": 1, "b": {"c": 30}}', '$.b')"#,
                t(r#"["c"]"#),
            ),
            (
                r#"JSON_KEYS('{"bb": 1, "a": 2, "c": 3}')"#,
                t(r#"["a", "c", "bb"]"#),
            ),
            (r#"JSON_KEYS('{"a\"b": 1}')"#, t(r#"["a\"b"]"#)),
            (r#"JSON_KEYS('{"a": 1, "a": 2}')"#, t(r#"["a"]"#)),
            ("JSON_KEYS('{}')", t("[]")),
            ("JSON_KEYS('[1]')", Value::Null),
            (r#"JSON_KEYS('{"a": 1}', '$.a')"#, Value::Null),
            ("JSON_KEYS(NULL)", Value::Null),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
        for (sql, says) in [
            ("SELECT JSON_TYPE('abc')", "Invalid JSON text in argument 1"),
            ("SELECT JSON_TYPE('')", "Invalid JSON text"),
            ("SELECT JSON_TYPE(X'FF')", "Invalid JSON text"),
            ("SELECT JSON_UNQUOTE('\"a\"b\"')", "Invalid JSON text"),
            ("SELECT JSON_LENGTH('[1', '$')", "Invalid JSON text"),
            (
                "SELECT JSON_LENGTH('[1]', 'x')",
                "Invalid JSON path expression",
            ),
            (
                "SELECT JSON_KEYS('{}', '$.*')",
                "may not contain the * and **",
            ),
            ("SELECT JSON_TYPE('1', '$')", "wrong number of arguments"),
            ("SELECT JSON_KEYS()", "wrong number of arguments"),
        ] {
            let err = db.query_row(sql, [], |r| r.get::<_, Value>(0));
            assert!(format!("{err:?}").contains(says), "{sql}: {err:?}");
        }
    }
}
