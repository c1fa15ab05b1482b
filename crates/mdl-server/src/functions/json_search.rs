//! MySQL 8.0's JSON functions that search documents (the manual's 12.18.3 "Functions That
//! Search JSON Values"; source `sql/item_json_func.cc`, `sql-common/json_dom.cc`):
//! `JSON_CONTAINS`, `JSON_CONTAINS_PATH`, `JSON_OVERLAPS`, `JSON_SEARCH`, and `value MEMBER
//! OF (array)` (the rewrite's `JSON_MEMBER_OF(value, array)`). A NULL argument gives NULL.
//!
//! * Values compare as JSON: numbers by value (`1` is `1.0`), never a number with a string.
//! * `JSON_CONTAINS`: a scalar contains an equal scalar; an array contains a value contained
//!   in one of its elements, and an array each of whose elements it contains; an object
//!   contains an object each of whose members it has with a contained value. Its path names
//!   one value (`*`, `**`, ranges are 3149); `JSON_CONTAINS_PATH` and `JSON_SEARCH` take any
//!   path. A `oneOrAll` other than `'one'` / `'all'` is 3154.
//! * `JSON_SEARCH` matches the strings within the document (under the paths given) with
//!   LIKE's `%` and `_`, byte for byte (MySQL matches them as `utf8mb4_bin`), the escape `\`
//!   unless another character is given. `'one'`: the first match's path; `'all'`: the path,
//!   or with several the array of them, in document order (members in MySQL's key order).
//! * `MEMBER OF`: the value as the JSON functions read an argument (a string is a JSON
//!   string unless it is a JSON result), an element of the array (a value that is no array is
//!   compared with itself).

use rusqlite::functions::Context;
use rusqlite::types::Value;
use serde_json::Value as Json;

use super::json::{doc, fail, json_flags, json_result, one_path, path};
use super::json_more::{value, value_or_doc, Out};
use super::json_path::{self, mysql_order, Leg, Step};

/// Registers the functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = json_flags();
    db.create_scalar_function("JSON_CONTAINS", -1, f, contains_fn)?;
    db.create_scalar_function("JSON_CONTAINS_PATH", -1, f, contains_path)?;
    db.create_scalar_function("JSON_OVERLAPS", 2, f, |ctx| {
        let a = nullable(ctx, 0, "json_overlaps")?;
        let b = nullable(ctx, 1, "json_overlaps")?;
        Ok(a.zip(b).map(|(a, b)| overlaps(&a, &b)))
    })?;
    db.create_scalar_function("JSON_MEMBER_OF", 2, f, |ctx| {
        if ctx.get_raw(0) == rusqlite::types::ValueRef::Null {
            return Ok(None);
        }
        let v = value(ctx, 0, "member of")?;
        Ok(doc(ctx, 1, "member of")?.map(|a| match a {
            Json::Array(items) => items.iter().any(|x| same(x, &v)),
            other => same(&other, &v),
        }))
    })?;
    db.create_scalar_function("JSON_SEARCH", -1, f, search)
}

/// Argument `i` as a document, or as a value when it is a JSON result or a number; None for
/// NULL.
fn nullable(ctx: &Context<'_>, i: usize, func: &str) -> rusqlite::Result<Option<Json>> {
    if ctx.get_raw(i) == rusqlite::types::ValueRef::Null {
        return Ok(None);
    }
    value_or_doc(ctx, i, func).map(Some)
}

/// Whether two JSON values are equal, numbers by value.
pub(super) fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (a, b) => a == b,
    }
}

/// Whether `target` contains `candidate` (see the module docs).
fn contains(target: &Json, candidate: &Json) -> bool {
    match (target, candidate) {
        (Json::Array(t), Json::Array(c)) => c.iter().all(|x| t.iter().any(|y| contains(y, x))),
        (Json::Array(t), c) => t.iter().any(|y| contains(y, c)),
        (Json::Object(t), Json::Object(c)) => c
            .iter()
            .all(|(k, v)| t.get(k).is_some_and(|w| contains(w, v))),
        (t, c) => same(t, c),
    }
}

/// `JSON_CONTAINS(target, candidate[, path])`.
fn contains_fn(ctx: &Context<'_>) -> rusqlite::Result<Option<bool>> {
    if !(2..=3).contains(&ctx.len()) {
        return Err(fail(
            "wrong number of arguments to function JSON_CONTAINS()".into(),
        ));
    }
    let Some(target) = doc(ctx, 0, "json_contains")? else {
        return Ok(None);
    };
    let Some(candidate) = nullable(ctx, 1, "json_contains")? else {
        return Ok(None);
    };
    let target = if ctx.len() == 3 {
        let Some(legs) = one_path(ctx, 2)? else {
            return Ok(None);
        };
        match json_path::select(&target, &legs) {
            Some(v) => v.clone(),
            None => return Ok(None),
        }
    } else {
        target
    };
    Ok(Some(contains(&target, &candidate)))
}

/// Argument `i`, `'one'` or `'all'` (any case): whether it is `'all'`; None for NULL; 3154
/// otherwise.
fn one_or_all(ctx: &Context<'_>, i: usize, func: &str) -> rusqlite::Result<Option<bool>> {
    match super::text(ctx, i) {
        None => Ok(None),
        Some(s) if s.eq_ignore_ascii_case("one") => Ok(Some(false)),
        Some(s) if s.eq_ignore_ascii_case("all") => Ok(Some(true)),
        Some(_) => Err(fail(format!(
            "The oneOrAll argument to {func} may take these values: 'one' or 'all'."
        ))),
    }
}

/// `JSON_CONTAINS_PATH(doc, one_or_all, path, ...)`.
fn contains_path(ctx: &Context<'_>) -> rusqlite::Result<Option<bool>> {
    if ctx.len() < 3 {
        return Err(fail(
            "wrong number of arguments to function JSON_CONTAINS_PATH()".into(),
        ));
    }
    let Some(d) = doc(ctx, 0, "json_contains_path")? else {
        return Ok(None);
    };
    let Some(all) = one_or_all(ctx, 1, "json_contains_path")? else {
        return Ok(None);
    };
    for i in 2..ctx.len() {
        let Some(legs) = path(ctx, i)? else {
            return Ok(None);
        };
        let found = !json_path::seek(&d, &legs).is_empty();
        if found != all {
            return Ok(Some(found));
        }
    }
    Ok(Some(all))
}

/// Whether two values share an element (arrays), a member (objects), or are equal.
fn overlaps(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Array(x), Json::Array(y)) => x.iter().any(|i| y.iter().any(|j| same(i, j))),
        (Json::Array(x), other) | (other, Json::Array(x)) => x.iter().any(|i| same(i, other)),
        (Json::Object(x), Json::Object(y)) => {
            x.iter().any(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (a, b) => same(a, b),
    }
}

/// `JSON_SEARCH(doc, one_or_all, search_str[, escape_char[, path] ...])`.
fn search(ctx: &Context<'_>) -> rusqlite::Result<Out> {
    const NULL: Out = (Value::Null, None);
    if ctx.len() < 3 {
        return Err(fail(
            "wrong number of arguments to function JSON_SEARCH()".into(),
        ));
    }
    let Some(d) = doc(ctx, 0, "json_search")? else {
        return Ok(NULL);
    };
    let Some(all) = one_or_all(ctx, 1, "json_search")? else {
        return Ok(NULL);
    };
    let Some(pattern) = super::text(ctx, 2) else {
        return Ok(NULL);
    };
    let escape = match (ctx.len() > 3).then(|| super::text(ctx, 3)).flatten() {
        None => '\\',
        Some(e) => {
            let mut chars = e.chars();
            match (chars.next(), chars.next()) {
                (None, _) => '\\',
                (Some(c), None) => c,
                _ => return Err(fail("Incorrect arguments to ESCAPE".into())),
            }
        }
    };
    let mut scopes = Vec::new();
    for i in 4..ctx.len() {
        match path(ctx, i)? {
            Some(legs) => scopes.push(legs),
            None => return Ok(NULL),
        }
    }
    if scopes.is_empty() {
        scopes.push(Vec::<Leg>::new());
    }
    let pattern: Vec<char> = pattern.chars().collect();
    let mut hits: Vec<Vec<Step>> = Vec::new();
    for legs in &scopes {
        for (at, v) in json_path::seek(&d, legs) {
            strings(v, &mut at.clone(), &mut |p, s| {
                let s: Vec<char> = s.chars().collect();
                if like(&s, &pattern, escape) && !hits.contains(p) {
                    hits.push(p.clone());
                }
            });
        }
        if !all && !hits.is_empty() {
            break;
        }
    }
    let path_of = |p: &Vec<Step>| Json::String(json_path::text(p));
    Ok(match (all, hits.len()) {
        (_, 0) => NULL,
        (false, _) | (true, 1) => json_result(&path_of(&hits[0])),
        (true, _) => json_result(&Json::Array(hits.iter().map(path_of).collect())),
    })
}

/// Calls `f` with each string within `v` and its path, in document order.
fn strings(v: &Json, at: &mut Vec<Step>, f: &mut dyn FnMut(&Vec<Step>, &str)) {
    match v {
        Json::String(s) => f(at, s),
        Json::Array(a) => {
            for (n, item) in a.iter().enumerate() {
                at.push(Step::Index(n));
                strings(item, at, f);
                at.pop();
            }
        }
        Json::Object(m) => {
            for (k, item) in mysql_order(m) {
                at.push(Step::Key(k.clone()));
                strings(item, at, f);
                at.pop();
            }
        }
        _ => {}
    }
}

/// Whether `s` matches LIKE pattern `p` (`%` any run, `_` one character, `escape` before
/// either for itself).
fn like(s: &[char], p: &[char], escape: char) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((&c, rest)) if c == escape && !rest.is_empty() => {
            s.first() == Some(&rest[0]) && like(&s[1..], &rest[1..], escape)
        }
        Some(('%', rest)) => (0..=s.len()).any(|i| like(&s[i..], rest, escape)),
        Some(('_', rest)) => !s.is_empty() && like(&s[1..], rest, escape),
        Some((c, rest)) => s.first() == Some(c) && like(&s[1..], rest, escape),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn search_functions_answer_as_mysqls_manual() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        let (yes, no) = (Value::Integer(1), Value::Integer(0));
        let j = r#"'{"a": 1, "b": 2, "c": {"d": 4}}'"#;
        let s = r#"'["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]'"#;
        let cases = [
            (format!("JSON_CONTAINS({j}, '1', '$.a')"), yes.clone()),
            (format!("JSON_CONTAINS({j}, '1', '$.b')"), no.clone()),
            (
                format!(r#"JSON_CONTAINS({j}, '{{"d": 4}}', '$.a')"#),
                no.clone(),
            ),
            (
                format!(r#"JSON_CONTAINS({j}, '{{"d": 4}}', '$.c')"#),
                yes.clone(),
            ),
            (format!("JSON_CONTAINS({j}, '1', '$.z')"), Value::Null),
            ("JSON_CONTAINS('[1, [2, 3]]', '[3, 1]')".into(), yes.clone()),
            ("JSON_CONTAINS('[1, 2]', '1.0')".into(), yes.clone()),
            ("JSON_CONTAINS('[1, 2]', '\"1\"')".into(), no.clone()),
            (
                format!("JSON_CONTAINS_PATH({j}, 'one', '$.a', '$.e')"),
                yes.clone(),
            ),
            (
                format!("JSON_CONTAINS_PATH({j}, 'all', '$.a', '$.e')"),
                no.clone(),
            ),
            (
                format!("JSON_CONTAINS_PATH({j}, 'one', '$.c.d')"),
                yes.clone(),
            ),
            (
                format!("JSON_CONTAINS_PATH({j}, 'one', '$.a.d')"),
                no.clone(),
            ),
            (
                format!("JSON_CONTAINS_PATH({j}, 'one', '$**.d')"),
                yes.clone(),
            ),
            ("JSON_OVERLAPS('[1,3,5,7]', '[2,5,7]')".into(), yes.clone()),
            ("JSON_OVERLAPS('[1,3,5,7]', '[2,6,8]')".into(), no.clone()),
            (
                "JSON_OVERLAPS('[[1,2],[3,4],5]', '[1,[2,3],[4,5]]')".into(),
                no.clone(),
            ),
            (
                r#"JSON_OVERLAPS('{"a":1,"b":10,"d":10}', '{"c":1,"e":10,"f":1,"d":10}')"#.into(),
                yes.clone(),
            ),
            (
                r#"JSON_OVERLAPS('{"a":1,"b":10,"d":10}', '{"a":5,"e":10,"f":1,"d":20}')"#.into(),
                no.clone(),
            ),
            ("JSON_OVERLAPS('5', '5')".into(), yes.clone()),
            ("JSON_OVERLAPS('[4,5,\"6\",7]', '6')".into(), no.clone()),
            ("JSON_OVERLAPS('[4,5,6,7]', '6')".into(), yes.clone()),
            ("JSON_OVERLAPS(NULL, '6')".into(), Value::Null),
            (
                "JSON_MEMBER_OF(17, '[23, \"abc\", 17, \"ab\", 10]')".into(),
                yes.clone(),
            ),
            (
                "JSON_MEMBER_OF('ab', '[23, \"abc\", 17, \"ab\", 10]')".into(),
                yes.clone(),
            ),
            (
                "JSON_MEMBER_OF(7, '[23, \"abc\", 17, \"ab\", 10]')".into(),
                no.clone(),
            ),
            ("JSON_MEMBER_OF(5, '[4, \"5\", 6]')".into(), no.clone()),
            (
                "JSON_MEMBER_OF('[4,5]', '[[3,4],[4,5]]')".into(),
                no.clone(),
            ),
            (
                "JSON_MEMBER_OF(JSON_ARRAY(4, 5), '[[3,4],[4,5]]')".into(),
                yes.clone(),
            ),
            (
                "JSON_MEMBER_OF(CAST_AS_JSON('[4,5]'), '[[3,4],[4,5]]')".into(),
                yes.clone(),
            ),
            (format!("JSON_SEARCH({s}, 'one', 'abc')"), t(r#""$[0]""#)),
            (
                format!("JSON_SEARCH({s}, 'all', 'abc')"),
                t(r#"["$[0]", "$[2].x"]"#),
            ),
            (format!("JSON_SEARCH({s}, 'all', 'ghi')"), Value::Null),
            (
                format!("JSON_SEARCH({s}, 'all', '10')"),
                t(r#""$[1][0].k""#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '10', NULL, '$')"),
                t(r#""$[1][0].k""#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '10', NULL, '$[*]')"),
                t(r#""$[1][0].k""#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '10', NULL, '$**.k')"),
                t(r#""$[1][0].k""#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '10', NULL, '$[*][0].k')"),
                t(r#""$[1][0].k""#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '10', NULL, '$[1]')"),
                t(r#""$[1][0].k""#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '10', NULL, '$[1][0]')"),
                t(r#""$[1][0].k""#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', 'abc', NULL, '$[2]')"),
                t(r#""$[2].x""#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '%a%')"),
                t(r#"["$[0]", "$[2].x"]"#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '%b%')"),
                t(r#"["$[0]", "$[2].x", "$[3].y"]"#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '%b%', NULL, '$[0]')"),
                t(r#""$[0]""#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '%b%', NULL, '$[2]')"),
                t(r#""$[2].x""#),
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '%b%', NULL, '$[1]')"),
                Value::Null,
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '%b%', '', '$[1]')"),
                Value::Null,
            ),
            (
                format!("JSON_SEARCH({s}, 'all', '%b%', '', '$[3]')"),
                t(r#""$[3].y""#),
            ),
            (
                "JSON_SEARCH('[\"a%c\", \"abc\"]', 'all', 'a|%c', '|')".into(),
                t(r#""$[0]""#),
            ),
            (
                "JSON_SEARCH('[\"a_c\"]', 'one', 'a\\_c')".into(),
                t(r#""$[0]""#),
            ),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, &expr), want, "{expr}");
        }
        for (sql, says) in [
            (
                "SELECT JSON_CONTAINS('[1]', '1', '$[*]')",
                "may not contain the * and **",
            ),
            (
                "SELECT JSON_CONTAINS_PATH('[1]', 'any', '$')",
                "oneOrAll argument to json_contains_path",
            ),
            (
                "SELECT JSON_SEARCH('[1]', 'x', 'a')",
                "oneOrAll argument to json_search",
            ),
            ("SELECT JSON_CONTAINS('[1]')", "wrong number of arguments"),
            (
                "SELECT JSON_CONTAINS('[1]', 'x')",
                "argument 2 to function json_contains",
            ),
        ] {
            let err = db.query_row(sql, [], |r| r.get::<_, Value>(0));
            assert!(format!("{err:?}").contains(says), "{sql}: {err:?}");
        }
    }
}
