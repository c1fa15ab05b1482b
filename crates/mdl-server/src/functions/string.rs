//! MySQL's string functions (manual, 14.8 "String Functions and Operators"; source
//! `sql/item_strfunc.cc`). Lengths and positions count characters, as MySQL's do on
//! `utf8mb4`; `LENGTH` counts bytes. A NULL argument gives NULL unless said otherwise. A
//! number argument is read as MySQL's text of it (`1e3` is `1000`: `number_text.rs`).

use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};

use super::{bounded, bytes, flags, int, number, text, Num};

/// Registers the string functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    db.create_scalar_function("SUBSTRING_INDEX", 3, f, |ctx| {
        Ok(match (text(ctx, 0), text(ctx, 1), int(ctx, 2)) {
            (Some(s), Some(d), Some(n)) => Value::Text(substring_index(&s, &d, n).to_string()),
            _ => Value::Null,
        })
    })?;
    db.create_scalar_function("CONCAT", -1, f, concat)?;
    // SQLite's own read a number as its text (`1000.0`); these as MySQL writes it.
    db.create_scalar_function("CONCAT_WS", -1, f, concat_ws)?;
    db.create_scalar_function("REPLACE", 3, f, |ctx| {
        Ok(match (bytes(ctx, 0), bytes(ctx, 1), bytes(ctx, 2)) {
            (Some(s), Some(from), Some(to)) => {
                let out = replace(&s, &from, &to);
                // A blob stays one, as SQLite's `replace` keeps it.
                match (ctx.get_raw(0), String::from_utf8(out)) {
                    (ValueRef::Blob(_), r) => {
                        Value::Blob(r.map_or_else(|e| e.into_bytes(), String::into_bytes))
                    }
                    (_, Ok(t)) => bounded(t),
                    (_, Err(e)) => Value::Blob(e.into_bytes()),
                }
            }
            _ => Value::Null,
        })
    })?;
    // `CHARSET(x)`, `COLLATION(x)` (`Item_func_charset`, `Item_func_collation` in
    // `item_strfunc.cc`): a string's are the server's, anything else's `binary`, as MySQL says
    // of a number.
    for (name, text_is) in [
        ("CHARSET", crate::catalog::CHARSET),
        ("COLLATION", crate::catalog::COLLATION),
    ] {
        db.create_scalar_function(name, 1, f, move |ctx| {
            Ok(Value::Text(match ctx.get_raw(0) {
                rusqlite::types::ValueRef::Text(_) => text_is.into(),
                _ => "binary".into(),
            }))
        })?;
    }
    for (name, left) in [("LPAD", true), ("RPAD", false)] {
        db.create_scalar_function(name, 3, f, move |ctx| {
            Ok(match (text(ctx, 0), int(ctx, 1), text(ctx, 2)) {
                (Some(s), Some(n), Some(p)) => pad(&s, n, &p, left).map_or(Value::Null, bounded),
                _ => Value::Null,
            })
        })?;
    }
    for n_arg in [2, 3] {
        db.create_scalar_function("LOCATE", n_arg, f, move |ctx| {
            let pos = if n_arg == 3 { int(ctx, 2) } else { Some(1) };
            Ok(match (text(ctx, 0), text(ctx, 1), pos) {
                (Some(sub), Some(s), Some(pos)) => Value::Integer(locate(&sub, &s, pos)),
                _ => Value::Null,
            })
        })?;
    }
    db.create_scalar_function("REPEAT", 2, f, |ctx| {
        Ok(match (text(ctx, 0), int(ctx, 1)) {
            (Some(s), Some(n)) => repeat(&s, n),
            _ => Value::Null,
        })
    })?;
    db.create_scalar_function("SPACE", 1, f, |ctx| {
        Ok(int(ctx, 0).map_or(Value::Null, |n| repeat(" ", n)))
    })?;
    for (name, from_left) in [("LEFT", true), ("RIGHT", false)] {
        db.create_scalar_function(name, 2, f, move |ctx| {
            Ok(match (text(ctx, 0), int(ctx, 1)) {
                (Some(s), Some(n)) => Value::Text(left_right(&s, n, from_left).to_string()),
                _ => Value::Null,
            })
        })?;
    }
    db.create_scalar_function("REVERSE", 1, f, |ctx| {
        Ok(text(ctx, 0).map_or(Value::Null, |s| Value::Text(s.chars().rev().collect())))
    })?;
    db.create_scalar_function("FIELD", -1, f, field)?;
    db.create_scalar_function("FIND_IN_SET", 2, f, |ctx| {
        Ok(match (text(ctx, 0), text(ctx, 1)) {
            (Some(s), Some(list)) => Value::Integer(find_in_set(&s, &list)),
            _ => Value::Null,
        })
    })?;
    for name in ["LCASE", "LOWER"] {
        db.create_scalar_function(name, 1, f, |ctx| {
            Ok(text(ctx, 0).map_or(Value::Null, |s| Value::Text(s.to_lowercase())))
        })?;
    }
    for name in ["UCASE", "UPPER"] {
        db.create_scalar_function(name, 1, f, |ctx| {
            Ok(text(ctx, 0).map_or(Value::Null, |s| Value::Text(s.to_uppercase())))
        })?;
    }
    // `LENGTH` / `OCTET_LENGTH`: bytes (`Item_func_length`); `CHAR_LENGTH`: characters.
    db.create_scalar_function("LENGTH", 1, f, |ctx| {
        Ok(match ctx.get_raw(0) {
            rusqlite::types::ValueRef::Null => Value::Null,
            rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) => {
                Value::Integer(b.len() as i64)
            }
            _ => Value::Integer(text(ctx, 0).map_or(0, |s| s.len() as i64)),
        })
    })?;
    for name in ["CHAR_LENGTH", "CHARACTER_LENGTH"] {
        db.create_scalar_function(name, 1, f, |ctx| {
            Ok(text(ctx, 0).map_or(Value::Null, |s| Value::Integer(s.chars().count() as i64)))
        })?;
    }
    // `ASCII(s)`: the first byte's value, 0 for ''.
    db.create_scalar_function("ASCII", 1, f, |ctx| {
        Ok(bytes(ctx, 0).map_or(Value::Null, |b| {
            Value::Integer(b.first().map_or(0, |&c| c.into()))
        }))
    })?;
    // `ORD(s)` (`Item_func_ord`): the first character's bytes as a big-endian number (its
    // first byte alone when it is ASCII, not UTF-8, or `s` a blob), 0 for ''.
    db.create_scalar_function("ORD", 1, f, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => Value::Null,
            ValueRef::Blob(b) => Value::Integer(b.first().map_or(0, |&c| c.into())),
            _ => bytes(ctx, 0).map_or(Value::Null, |b| Value::Integer(ord(&b))),
        })
    })?;
    // `BIT_LENGTH(s)` (`Item_func_bit_length`): 8 times `LENGTH(s)`.
    db.create_scalar_function("BIT_LENGTH", 1, f, |ctx| {
        Ok(bytes(ctx, 0).map_or(Value::Null, |b| Value::Integer(b.len() as i64 * 8)))
    })?;
    // `STRCMP(a, b)` (`Item_func_strcmp`): -1, 0 or 1 as `a` sorts before, with or after `b`,
    // byte for byte as this server's strings compare.
    db.create_scalar_function("STRCMP", 2, f, |ctx| {
        Ok(match (bytes(ctx, 0), bytes(ctx, 1)) {
            (Some(a), Some(b)) => Value::Integer(a.cmp(&b) as i64),
            _ => Value::Null,
        })
    })?;
    db.create_scalar_function("ELT", -1, f, elt)
}

/// `ELT(n, s1, s2, ...)` (`Item_func_elt`): `sn`, as a string (a blob stays one); NULL when
/// `n` is NULL or not among 1, 2, ....
fn elt(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    if ctx.len() < 2 {
        // SQLite's words for it, which `error.rs` turns into MySQL's 1582.
        return Err(rusqlite::Error::UserFunctionError(
            "wrong number of arguments to function ELT()".into(),
        ));
    }
    let Some(n) = int(ctx, 0).and_then(|n| usize::try_from(n).ok()) else {
        return Ok(Value::Null);
    };
    if n == 0 || n >= ctx.len() {
        return Ok(Value::Null);
    }
    Ok(match ctx.get_raw(n) {
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        _ => text(ctx, n).map_or(Value::Null, Value::Text),
    })
}

/// `ORD`'s number for a string's bytes: its first UTF-8 character's bytes, big-endian; the
/// first byte when they do not start with one.
fn ord(b: &[u8]) -> i64 {
    let Some(&first) = b.first() else {
        return 0;
    };
    let width = match first {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 1,
    };
    match b.get(..width) {
        Some(c) if std::str::from_utf8(c).is_ok() => {
            c.iter().fold(0, |n, &byte| n << 8 | i64::from(byte))
        }
        _ => first.into(),
    }
}

/// `CONCAT(s, ...)` (`Item_func_concat`): NULL if any argument is NULL.
fn concat(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    let mut out = String::new();
    for i in 0..ctx.len() {
        match text(ctx, i) {
            Some(s) => out.push_str(&s),
            None => return Ok(Value::Null),
        }
    }
    Ok(bounded(out))
}

/// `CONCAT_WS(sep, s, ...)` (`Item_func_concat_ws`): NULL if `sep` is; NULL arguments are
/// skipped.
fn concat_ws(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    if ctx.len() < 2 {
        // SQLite's words for it, which `error.rs` turns into MySQL's 1582.
        return Err(rusqlite::Error::UserFunctionError(
            "wrong number of arguments to function CONCAT_WS()".into(),
        ));
    }
    let Some(sep) = text(ctx, 0) else {
        return Ok(Value::Null);
    };
    let parts: Vec<String> = (1..ctx.len()).filter_map(|i| text(ctx, i)).collect();
    Ok(bounded(parts.join(&sep)))
}

/// `REPLACE(s, from, to)` (`Item_func_replace`): every `from` in `s`, left to right, is `to`;
/// an empty `from` changes nothing.
fn replace(s: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() {
        return s.to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// `FIELD(s, s1, s2, ...)` (`Item_func_field`): the 1-based index of the first `sN` equal to
/// `s`, 0 when none is or `s` is NULL. Compared as numbers when every argument is one, as
/// strings otherwise.
fn field(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    if ctx.len() < 2 {
        return Err(rusqlite::Error::UserFunctionError(
            "Incorrect parameter count in the call to native function 'FIELD'".into(),
        ));
    }
    let numeric = (0..ctx.len()).all(|i| {
        matches!(
            ctx.get_raw(i),
            rusqlite::types::ValueRef::Integer(_) | rusqlite::types::ValueRef::Real(_)
        )
    });
    let at = if numeric {
        let want = number(ctx, 0).map(Num::real);
        (1..ctx.len()).find(|&i| want.is_some() && number(ctx, i).map(Num::real) == want)
    } else {
        let want = text(ctx, 0);
        (1..ctx.len()).find(|&i| want.is_some() && text(ctx, i) == want)
    };
    Ok(Value::Integer(at.map_or(0, |i| i as i64)))
}

/// MySQL's `SUBSTRING_INDEX(s, delim, count)` (`Item_func_substr_index`): the part of `s`
/// before the `count`-th occurrence of `delim` counted from the left (count > 0), or after
/// the `count`-th counted from the right (count < 0); all of `s` when it has fewer; empty
/// when `count` is 0 or `delim` is empty.
pub fn substring_index<'a>(s: &'a str, delim: &str, count: i64) -> &'a str {
    if count == 0 || delim.is_empty() {
        return "";
    }
    let n = count.unsigned_abs() as usize;
    if count > 0 {
        match s.match_indices(delim).nth(n - 1) {
            Some((at, _)) => &s[..at],
            None => s,
        }
    } else {
        match s.rmatch_indices(delim).nth(n - 1) {
            Some((at, _)) => &s[at + delim.len()..],
            None => s,
        }
    }
}

/// `LPAD` / `RPAD(s, len, pad)` (`Item_func_lpad`, `Item_func_rpad`): `s` cut or padded to
/// `len` characters; None (NULL) for a negative `len`, or an empty `pad` with room to fill.
fn pad(s: &str, len: i64, pad: &str, left: bool) -> Option<String> {
    let len = usize::try_from(len).ok()?;
    let have = s.chars().count();
    if len <= have {
        return Some(s.chars().take(len).collect());
    }
    if pad.is_empty() || len > super::MAX_RESULT {
        return None;
    }
    let fill: String = pad.chars().cycle().take(len - have).collect();
    Some(if left {
        fill + s
    } else {
        s.to_string() + &fill
    })
}

/// `LOCATE(sub, s[, pos])` (`Item_func_locate`): the 1-based character position of the first
/// `sub` in `s` at or after `pos`, 0 when none; an empty `sub` is found at `pos` when `pos`
/// is within `s` or just past it.
pub(super) fn locate(sub: &str, s: &str, pos: i64) -> i64 {
    let chars = s.chars().count() as i64;
    if pos < 1 || pos > chars + 1 {
        return 0;
    }
    let start = s
        .char_indices()
        .nth(pos as usize - 1)
        .map_or(s.len(), |(b, _)| b);
    match s[start..].find(sub) {
        Some(b) => pos + s[start..start + b].chars().count() as i64,
        None => 0,
    }
}

/// `REPEAT(s, n)` (`Item_func_repeat`): '' for `n` < 1; NULL past `MAX_RESULT`.
fn repeat(s: &str, n: i64) -> Value {
    if n < 1 || s.is_empty() {
        return Value::Text(String::new());
    }
    match (n as u64).checked_mul(s.len() as u64) {
        Some(total) if total <= super::MAX_RESULT as u64 => Value::Text(s.repeat(n as usize)),
        _ => Value::Null,
    }
}

/// `LEFT` / `RIGHT(s, n)` (`Item_func_left`, `Item_func_right`): the first or last `n`
/// characters; '' for `n` < 1.
fn left_right(s: &str, n: i64, from_left: bool) -> &str {
    let n = n.max(0) as u64;
    let chars = s.chars().count() as u64;
    if n >= chars {
        return s;
    }
    let skip = if from_left { n } else { chars - n } as usize;
    let at = s.char_indices().nth(skip).map_or(s.len(), |(b, _)| b);
    if from_left {
        &s[..at]
    } else {
        &s[at..]
    }
}

/// `FIND_IN_SET(s, list)` (`Item_func_find_in_set`): the 1-based position of `s` among the
/// comma-separated `list`, 0 when absent, when `list` is empty, or when `s` holds a comma.
fn find_in_set(s: &str, list: &str) -> i64 {
    if list.is_empty() || s.contains(',') {
        return 0;
    }
    list.split(',')
        .position(|item| item == s)
        .map_or(0, |i| i as i64 + 1)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    /// MySQL 8.0 manual's examples, and the edges.
    #[test]
    fn substring_index_as_mysql() {
        assert_eq!(substring_index("www.mysql.com", ".", 2), "www.mysql");
        assert_eq!(substring_index("www.mysql.com", ".", -2), "mysql.com");
        assert_eq!(substring_index("wait/io/file/sql/x", "/", 2), "wait/io");
        assert_eq!(substring_index("a/b", "/", 5), "a/b");
        assert_eq!(substring_index("a/b", "/", -5), "a/b");
        assert_eq!(substring_index("a/b", "/", 0), "");
        assert_eq!(substring_index("a/b", "", 1), "");
        assert_eq!(substring_index("a::b::c", "::", -1), "c");
    }

    #[test]
    fn pads_as_mysql() {
        assert_eq!(pad("hi", 4, "??", true).as_deref(), Some("??hi"));
        assert_eq!(pad("hi", 1, "??", true).as_deref(), Some("h"));
        assert_eq!(pad("hi", 5, "ab", false).as_deref(), Some("hiaba"));
        assert_eq!(pad("é", 3, "ü", true).as_deref(), Some("üüé"));
        assert_eq!(pad("hi", -1, "?", true), None);
        assert_eq!(pad("hi", 3, "", true), None);
        assert_eq!(pad("hi", 2, "", true).as_deref(), Some("hi"));
    }

    #[test]
    fn locate_as_mysql() {
        assert_eq!(locate("bar", "foobarbar", 1), 4);
        assert_eq!(locate("xbar", "foobar", 1), 0);
        assert_eq!(locate("bar", "foobarbar", 5), 7);
        assert_eq!(locate("b", "ébb", 3), 3);
        assert_eq!(locate("b", "abc", 0), 0);
        assert_eq!(locate("", "abc", 1), 1);
        assert_eq!(locate("", "abc", 4), 4);
        assert_eq!(locate("", "abc", 5), 0);
    }

    #[test]
    fn left_right_find_in_set_as_mysql() {
        assert_eq!(left_right("foobarbar", 5, true), "fooba");
        assert_eq!(left_right("foobarbar", 4, false), "rbar");
        assert_eq!(left_right("abc", -1, true), "");
        assert_eq!(left_right("abc", 0, false), "");
        assert_eq!(left_right("héllo", 2, true), "hé");
        assert_eq!(left_right("abc", 9, false), "abc");
        assert_eq!(find_in_set("b", "a,b,c,d"), 2);
        assert_eq!(find_in_set("x", "a,b"), 0);
        assert_eq!(find_in_set("", "a,,b"), 2);
        assert_eq!(find_in_set("a,b", "a,b"), 0);
        assert_eq!(find_in_set("a", ""), 0);
    }

    #[test]
    fn through_sqlite_with_nulls() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        assert_eq!(eval(&db, "LPAD('x', 3, '0')"), t("00x"));
        assert_eq!(eval(&db, "RPAD('x', 3, NULL)"), Value::Null);
        assert_eq!(eval(&db, "LOCATE('b', 'abc')"), Value::Integer(2));
        assert_eq!(eval(&db, "LOCATE(NULL, 'abc')"), Value::Null);
        assert_eq!(eval(&db, "REPEAT('ab', 3)"), t("ababab"));
        assert_eq!(eval(&db, "REPEAT('ab', -1)"), t(""));
        assert_eq!(eval(&db, "REPEAT('ab', 100000000)"), Value::Null);
        assert_eq!(eval(&db, "SPACE(2)"), t("  "));
        assert_eq!(eval(&db, "LEFT('abc', 2) || RIGHT('abc', 2)"), t("abbc"));
        assert_eq!(eval(&db, "REVERSE('abé')"), t("éba"));
        assert_eq!(eval(&db, "FIELD('b', 'a', 'b')"), Value::Integer(2));
        assert_eq!(eval(&db, "FIELD(2, 1, 2.0)"), Value::Integer(2));
        assert_eq!(eval(&db, "FIELD(NULL, 'a', NULL)"), Value::Integer(0));
        assert_eq!(eval(&db, "FIND_IN_SET('b', NULL)"), Value::Null);
        assert_eq!(eval(&db, "UCASE('aé') || LCASE('ÀB')"), t("AÉàb"));
        assert_eq!(eval(&db, "CONCAT('a', 1, 2.5)"), t("a12.5"));
        assert_eq!(eval(&db, "CONCAT('a', NULL)"), Value::Null);
        assert_eq!(eval(&db, "LENGTH('é')"), Value::Integer(2));
        assert_eq!(eval(&db, "CHAR_LENGTH('é')"), Value::Integer(1));
        assert_eq!(eval(&db, "LENGTH(12)"), Value::Integer(2));
        assert_eq!(eval(&db, "ASCII('a') + ASCII('')"), Value::Integer(97));
        assert_eq!(eval(&db, "ASCII(X'FF')"), Value::Integer(255));
        assert_eq!(eval(&db, "SUBSTRING_INDEX(NULL, '/', 2)"), Value::Null);
    }

    #[test]
    fn elt_ord_strcmp_bit_length_as_mysql() {
        assert_eq!(ord(b"2"), 50);
        assert_eq!(ord("é".as_bytes()), 0xC3A9);
        assert_eq!(ord("€x".as_bytes()), 0xE2_82AC);
        assert_eq!(ord("😀".as_bytes()), 0xF09F_9880);
        assert_eq!(ord(&[0xC3]), 0xC3);
        assert_eq!(ord(&[0xE2, 0x28, 0xA1]), 0xE2);
        assert_eq!(ord(b""), 0);
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        let cases = [
            // The manual's examples.
            ("ELT(1, 'Aa', 'Bb', 'Cc', 'Dd')", t("Aa")),
            ("ELT(4, 'Aa', 'Bb', 'Cc', 'Dd')", t("Dd")),
            ("ELT(0, 'a')", Value::Null),
            ("ELT(2, 'a')", Value::Null),
            ("ELT(-1, 'a')", Value::Null),
            ("ELT(NULL, 'a')", Value::Null),
            ("ELT(1, NULL, 'b')", Value::Null),
            ("ELT(1.6, 'a', 'b')", t("b")),
            ("ELT('2', 'a', 'b')", t("b")),
            ("ELT(1, 5)", t("5")),
            ("ELT(9223372036854775807, 'a')", Value::Null),
            ("ELT(1, X'FF')", Value::Blob(vec![0xFF])),
            ("ORD('2')", Value::Integer(50)),
            ("ORD('é')", Value::Integer(50_089)),
            ("ORD(X'C3A9')", Value::Integer(0xC3)),
            ("ORD(2)", Value::Integer(50)),
            ("ORD('')", Value::Integer(0)),
            ("ORD(NULL)", Value::Null),
            ("STRCMP('text', 'text2')", Value::Integer(-1)),
            ("STRCMP('text2', 'text')", Value::Integer(1)),
            ("STRCMP('text', 'text')", Value::Integer(0)),
            ("STRCMP('a', 'B')", Value::Integer(1)),
            ("STRCMP(10, 9)", Value::Integer(-1)),
            ("STRCMP('a', NULL)", Value::Null),
            ("BIT_LENGTH('text')", Value::Integer(32)),
            ("BIT_LENGTH('é')", Value::Integer(16)),
            ("BIT_LENGTH(X'00')", Value::Integer(8)),
            ("BIT_LENGTH(100)", Value::Integer(24)),
            ("BIT_LENGTH(NULL)", Value::Null),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
        let err = db.query_row("SELECT ELT(1)", [], |r| r.get::<_, String>(0));
        assert!(format!("{err:?}").contains("wrong number"), "{err:?}");
    }
}
