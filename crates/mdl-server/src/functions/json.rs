//! `JSON_TYPE`, `JSON_EXTRACT`, `JSON_UNQUOTE`, `JSON_LENGTH` and `JSON_KEYS` (manual, 14.17 "JSON
//! Functions"; source `sql/item_json_func.cc`, `sql-common/json_path.cc`), reading the
//! documents with `serde_json`. A NULL argument gives NULL.
//!
//! * `JSON_TYPE` overrides SQLite's `json_type`, whose names are lower case and SQLite's own
//!   (`integer`, `real`, `text`, `true`): MySQL's are `OBJECT`, `ARRAY`, `STRING`, `INTEGER`,
//!   `UNSIGNED INTEGER` (past BIGINT), `DOUBLE`, `BOOLEAN`, `NULL`.
//! * A document is text (or a blob) holding JSON: invalid JSON is MySQL's error 3141. A
//!   number is the JSON number (MySQL refuses one, 3146), because SQLite's `json_extract`,
//!   unlike MySQL's, gives a number as an SQL number.
//! * Paths: `$`, then `.key`, `."quoted key"`, `[n]`, `[last]`, `[last - n]`, spaces
//!   between; `[0]` and `[last]` of a value that is no array select the value itself (MySQL's
//!   auto-wrapping). A path that selects nothing gives NULL; a malformed one is error 3143,
//!   and `*`, `**` or a range `[m to n]` error 3149, as in MySQL.
//! * `JSON_KEYS` lists an object's keys in MySQL's order (shorter keys first, then byte
//!   order), as MySQL writes an array (`["a", "b"]`); NULL for a value that is no object.
//! * `JSON_EXTRACT` overrides SQLite's `json_extract`, which gives a string without its quotes
//!   and writes JSON without spaces: MySQL's gives JSON (`"x"`, `{"a": 1, "bb": [1, 2]}`), with
//!   several paths the array of the values found (paths as above: MySQL's `JSON_EXTRACT` also
//!   takes wildcards, 3149 here). The rewrite makes `a -> p` this call and
//!   `a ->> p` its `JSON_UNQUOTE` (`rewrite/expr.rs`), as MySQL defines the operators.
//! * `JSON_UNQUOTE(s)`: a string that starts and ends with `"` is read as a JSON string (its
//!   escapes undone; error 3141 when it is not one), any other comes back as it is.

use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};
use serde_json::Value as Json;

use super::flags;

/// Registers the functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    db.create_scalar_function("JSON_TYPE", -1, f, |ctx| {
        arity(ctx, "JSON_TYPE", 1)?;
        Ok(doc(ctx, 0, "json_type")?.map_or(Value::Null, |v| Value::Text(type_name(&v).into())))
    })?;
    db.create_scalar_function("JSON_UNQUOTE", 1, f, unquote)?;
    db.create_scalar_function("JSON_EXTRACT", -1, f, extract)?;
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
    db.create_scalar_function("JSON_KEYS", -1, f, |ctx| {
        arity(ctx, "JSON_KEYS", 2)?;
        Ok(match selected(ctx, "json_keys")? {
            Some(Json::Object(m)) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort_by(|a, b| (a.len(), a.as_bytes()).cmp(&(b.len(), b.as_bytes())));
                let quoted: Vec<String> = keys
                    .iter()
                    .map(|k| Json::from(k.as_str()).to_string())
                    .collect();
                Value::Text(format!("[{}]", quoted.join(", ")))
            }
            _ => Value::Null,
        })
    })
}

/// An error unless the call has 1 to `most` arguments (SQLite's words, which `error.rs` turns
/// into MySQL's 1582).
fn arity(ctx: &Context<'_>, name: &str, most: usize) -> rusqlite::Result<()> {
    if (1..=most).contains(&ctx.len()) {
        Ok(())
    } else {
        Err(fail(format!(
            "wrong number of arguments to function {name}()"
        )))
    }
}

fn fail(msg: String) -> rusqlite::Error {
    rusqlite::Error::UserFunctionError(msg.into())
}

/// Argument `i` as a JSON document; None for NULL, error 3141 for text that is not JSON.
fn doc(ctx: &Context<'_>, i: usize, func: &str) -> rusqlite::Result<Option<Json>> {
    match ctx.get_raw(i) {
        ValueRef::Null => Ok(None),
        ValueRef::Integer(n) => Ok(Some(Json::from(n))),
        ValueRef::Real(x) => Ok(Some(Json::from(x))),
        ValueRef::Text(b) | ValueRef::Blob(b) => serde_json::from_slice(b)
            .map(Some)
            .map_err(|e| invalid_text(i, func, &e)),
    }
}

/// MySQL's error 3141 for argument `i` of `func`.
fn invalid_text(i: usize, func: &str, e: &serde_json::Error) -> rusqlite::Error {
    fail(format!(
        "Invalid JSON text in argument {} to function {func}: \"{e}\".",
        i + 1
    ))
}

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
fn extract(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    if ctx.len() < 2 {
        return Err(fail(
            "wrong number of arguments to function JSON_EXTRACT()".into(),
        ));
    }
    let Some(v) = doc(ctx, 0, "json_extract")? else {
        return Ok(Value::Null);
    };
    let mut found = Vec::new();
    for i in 1..ctx.len() {
        if ctx.get_raw(i) == ValueRef::Null {
            return Ok(Value::Null);
        }
        found.extend(at_path(ctx, i, &v)?);
    }
    Ok(match (ctx.len(), found.len()) {
        (_, 0) => Value::Null,
        (2, _) => Value::Text(mysql_text(&found[0])),
        _ => Value::Text(mysql_text(&Json::Array(found))),
    })
}

/// A JSON value as MySQL prints one: `", "` and `": "` between items, an object's members in
/// MySQL's order (shorter keys first, then byte order).
fn mysql_text(v: &Json) -> String {
    match v {
        Json::Array(a) => {
            let items: Vec<String> = a.iter().map(mysql_text).collect();
            format!("[{}]", items.join(", "))
        }
        Json::Object(m) => {
            let mut members: Vec<(&String, &Json)> = m.iter().collect();
            members.sort_by(|a, b| (a.0.len(), a.0.as_bytes()).cmp(&(b.0.len(), b.0.as_bytes())));
            let items: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{}: {}", Json::from(k.as_str()), mysql_text(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        scalar => scalar.to_string(),
    }
}

/// The value `v` has at the path of argument `i`; None for a NULL path or one that selects
/// nothing.
fn at_path(ctx: &Context<'_>, i: usize, v: &Json) -> rusqlite::Result<Option<Json>> {
    let path = match ctx.get_raw(i) {
        ValueRef::Null => return Ok(None),
        ValueRef::Text(b) | ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
        ValueRef::Integer(n) => n.to_string(),
        ValueRef::Real(x) => x.to_string(),
    };
    let legs = parse_path(&path).map_err(|e| match e {
        PathError::At(pos) => fail(format!(
            "Invalid JSON path expression. The error is around character position {pos}."
        )),
        PathError::Wildcard => fail(
            "In this situation, path expressions may not contain the * and ** tokens or an \
             array range."
                .into(),
        ),
    })?;
    Ok(select(v, &legs).cloned())
}

/// `JSON_UNQUOTE(s)`.
fn unquote(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    Ok(match ctx.get_raw(0) {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => Value::Text(n.to_string()),
        ValueRef::Real(x) => Value::Text(x.to_string()),
        ValueRef::Text(b) | ValueRef::Blob(b) => {
            if b.len() >= 2 && b.starts_with(b"\"") && b.ends_with(b"\"") {
                let s: String =
                    serde_json::from_slice(b).map_err(|e| invalid_text(0, "json_unquote", &e))?;
                Value::Text(s)
            } else {
                Value::Text(String::from_utf8_lossy(b).into_owned())
            }
        }
    })
}

/// One step of a path.
#[derive(Debug, PartialEq)]
enum Leg {
    /// An object's member.
    Key(String),
    /// An array's element: the `n`-th from the start, or from the end (`last - n`).
    Index { from_last: bool, n: u64 },
}

/// Why a path is refused.
#[derive(Debug, PartialEq)]
enum PathError {
    /// Malformed around this byte position.
    At(usize),
    /// A wildcard or a range, which these functions refuse.
    Wildcard,
}

/// The legs of path `p`.
fn parse_path(p: &str) -> Result<Vec<Leg>, PathError> {
    let b = p.as_bytes();
    let space = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut i = space(0);
    if b.get(i) != Some(&b'$') {
        return Err(PathError::At(i));
    }
    let mut legs = Vec::new();
    loop {
        i = space(i + 1);
        match b.get(i) {
            None => return Ok(legs),
            Some(b'.') => {
                i = space(i + 1);
                let (key, end) = match b.get(i) {
                    Some(b'*') => return Err(PathError::Wildcard),
                    Some(b'"') => quoted_key(b, i)?,
                    _ => {
                        let rest = &p[i..];
                        let n = rest
                            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                            .unwrap_or(rest.len());
                        if n == 0 || rest.starts_with(|c: char| c.is_ascii_digit()) {
                            return Err(PathError::At(i));
                        }
                        (rest[..n].to_string(), i + n)
                    }
                };
                legs.push(Leg::Key(key));
                i = end - 1;
            }
            Some(b'[') => {
                i = space(i + 1);
                if b.get(i) == Some(&b'*') {
                    return Err(PathError::Wildcard);
                }
                let from_last = b[i..].starts_with(b"last");
                if from_last {
                    i = space(i + 4);
                }
                let mut n = 0;
                if !from_last || b.get(i) == Some(&b'-') {
                    if from_last {
                        i = space(i + 1);
                    }
                    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                    n = p[i..i + digits].parse().map_err(|_| PathError::At(i))?;
                    i = space(i + digits);
                }
                match b.get(i) {
                    Some(b']') => legs.push(Leg::Index { from_last, n }),
                    Some(b't') if b[i..].starts_with(b"to") => return Err(PathError::Wildcard),
                    _ => return Err(PathError::At(i)),
                }
            }
            Some(b'*') if b.get(i + 1) == Some(&b'*') => return Err(PathError::Wildcard),
            Some(_) => return Err(PathError::At(i)),
        }
    }
}

/// The key of a `."quoted key"` leg starting at `b[i]` (a `"`), and the end of the leg.
fn quoted_key(b: &[u8], i: usize) -> Result<(String, usize), PathError> {
    let mut j = i + 1;
    loop {
        match b.get(j) {
            None => return Err(PathError::At(i)),
            Some(b'\\') => j += 2,
            Some(b'"') => break,
            Some(_) => j += 1,
        }
    }
    let key = serde_json::from_slice(&b[i..=j]).map_err(|_| PathError::At(i))?;
    Ok((key, j + 1))
}

/// The value at `legs` in `v`.
fn select<'a>(v: &'a Json, legs: &[Leg]) -> Option<&'a Json> {
    legs.iter().try_fold(v, |v, leg| match (leg, v) {
        (Leg::Key(k), Json::Object(m)) => m.get(k),
        (Leg::Key(_), _) => None,
        (&Leg::Index { from_last, n }, Json::Array(a)) => {
            let len = a.len() as u64;
            let at = if from_last {
                len.checked_sub(n)?.checked_sub(1)?
            } else {
                n
            };
            a.get(usize::try_from(at).ok()?)
        }
        // Auto-wrapping: a value that is no array is an array of itself.
        (&Leg::Index { n, .. }, other) => (n == 0).then_some(other),
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn paths_parse_as_mysqls() {
        let key = |k: &str| Leg::Key(k.into());
        let idx = |n| Leg::Index {
            from_last: false,
            n,
        };
        let last = |n| Leg::Index { from_last: true, n };
        assert_eq!(parse_path("$"), Ok(vec![]));
        assert_eq!(parse_path(" $ "), Ok(vec![]));
        assert_eq!(parse_path("$.a.b"), Ok(vec![key("a"), key("b")]));
        assert_eq!(parse_path("$.a[1]"), Ok(vec![key("a"), idx(1)]));
        assert_eq!(parse_path("$ . a [ 2 ]"), Ok(vec![key("a"), idx(2)]));
        assert_eq!(parse_path(r#"$."a b".c"#), Ok(vec![key("a b"), key("c")]));
        assert_eq!(parse_path(r#"$."a\"b""#), Ok(vec![key("a\"b")]));
        assert_eq!(parse_path("$.é_$1"), Ok(vec![key("é_$1")]));
        assert_eq!(parse_path("$[last]"), Ok(vec![last(0)]));
        assert_eq!(parse_path("$[last - 2]"), Ok(vec![last(2)]));
        assert_eq!(parse_path("$[last-1][0]"), Ok(vec![last(1), idx(0)]));
        assert_eq!(parse_path(""), Err(PathError::At(0)));
        assert_eq!(parse_path("a"), Err(PathError::At(0)));
        assert_eq!(parse_path("$."), Err(PathError::At(2)));
        assert_eq!(parse_path("$.1a"), Err(PathError::At(2)));
        assert_eq!(parse_path("$.a-b"), Err(PathError::At(3)));
        assert_eq!(parse_path("$[-1]"), Err(PathError::At(2)));
        assert_eq!(parse_path("$[1"), Err(PathError::At(3)));
        assert_eq!(
            parse_path("$[99999999999999999999999]"),
            Err(PathError::At(2))
        );
        assert_eq!(parse_path(r#"$."a"#), Err(PathError::At(2)));
        assert_eq!(parse_path(r#"$."a\"#), Err(PathError::At(2)));
        assert_eq!(parse_path("$.*"), Err(PathError::Wildcard));
        assert_eq!(parse_path("$[*]"), Err(PathError::Wildcard));
        assert_eq!(parse_path("$**.a"), Err(PathError::Wildcard));
        assert_eq!(parse_path("$[1 to 2]"), Err(PathError::Wildcard));
    }

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
