//! Strings cut and spliced by position, or by a string removed from their ends:
//! `SUBSTRING` / `SUBSTR` / `MID`, `INSERT` (registered as `MYSQL_INSERT`) and the
//! `TRIM(... remstr FROM str)` forms (`MYSQL_TRIM`) (manual, 14.8 "String Functions"; source
//! `sql/item_strfunc.cc`: `Item_func_substr`, `Item_func_insert`, `Item_func_trim`,
//! `Item_func_ltrim`, `Item_func_rtrim`). Text counts characters and gives text; a blob (a
//! binary string) counts bytes and gives a blob. A NULL argument gives NULL.
//!
//! * `SUBSTRING` and `SUBSTR` override SQLite's, which differ at the edges: position 0 is ''
//!   in MySQL (SQLite's starts before the first character), a position before the start is
//!   '' (SQLite's keeps what overlaps), and a negative length is '' (SQLite's counts back).
//!   `MID` is their other name, as in MySQL.
//! * `INSERT(...)` is an SQLite syntax error (a keyword): the rewrite calls it `MYSQL_INSERT`
//!   (`sqlite_name`). `MYSQL_TRIM(mode, remstr, str)`, mode 'BOTH', 'LEADING' or 'TRAILING',
//!   is what the rewrite makes of `TRIM(mode remstr FROM str)`: it removes the whole `remstr`
//!   as often as it repeats at the start and/or the end (SQLite's `trim(s, chars)` removes a
//!   set of characters); an empty `remstr` removes nothing.

use std::borrow::Cow;

use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};

use super::{flags, int};

/// Registers the functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    for name in ["SUBSTRING", "SUBSTR", "MID"] {
        for n_arg in [2, 3] {
            db.create_scalar_function(name, n_arg, f, move |ctx| {
                let len = if n_arg == 3 {
                    int(ctx, 2)
                } else {
                    Some(i64::MAX)
                };
                Ok(match (arg(ctx, 0), int(ctx, 1), len) {
                    (Some(s), Some(pos), Some(len)) => substring(&s, pos, len),
                    _ => Value::Null,
                })
            })?;
        }
    }
    db.create_scalar_function("MYSQL_INSERT", 4, f, |ctx| {
        Ok(match (arg(ctx, 0), int(ctx, 1), int(ctx, 2), arg(ctx, 3)) {
            (Some(s), Some(pos), Some(len), Some(new)) => insert(&s, pos, len, &new),
            _ => Value::Null,
        })
    })?;
    db.create_scalar_function("MYSQL_TRIM", 3, f, |ctx| {
        let (Some(mode), Some(rem), Some(s)) = (arg(ctx, 0), arg(ctx, 1), arg(ctx, 2)) else {
            return Ok(Value::Null);
        };
        let (leading, trailing) = match mode.bytes().to_ascii_uppercase().as_slice() {
            b"BOTH" => (true, true),
            b"LEADING" => (true, false),
            b"TRAILING" => (false, true),
            _ => {
                return Err(rusqlite::Error::UserFunctionError(
                    "Incorrect arguments to MYSQL_TRIM: the mode is BOTH, LEADING or TRAILING"
                        .into(),
                ))
            }
        };
        let kept = trim(s.bytes(), rem.bytes(), leading, trailing);
        Ok(s.with_bytes(kept))
    })
}

/// A string argument: text (characters) or a blob (bytes); a number is its text.
#[derive(Debug)]
enum Str<'a> {
    Text(Cow<'a, str>),
    Blob(&'a [u8]),
}

impl Str<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Str::Text(s) => s.as_bytes(),
            Str::Blob(b) => b,
        }
    }

    /// A result of this kind of string made of `b` (whole characters when this is text).
    fn with_bytes(&self, b: &[u8]) -> Value {
        match self {
            Str::Text(_) => Value::Text(String::from_utf8_lossy(b).into_owned()),
            Str::Blob(_) => Value::Blob(b.to_vec()),
        }
    }

    /// The byte offset of each unit (character or byte), and the length: `units()[k]` is
    /// where unit `k` starts, `units().len() - 1` the count.
    fn units(&self) -> Units<'_> {
        match self {
            Str::Text(s) if !s.is_ascii() => Units::Chars(s),
            _ => Units::Bytes(self.bytes().len()),
        }
    }
}

/// Where a string's units start: its characters', or its bytes' (ASCII text too).
enum Units<'a> {
    Chars(&'a str),
    Bytes(usize),
}

impl Units<'_> {
    fn count(&self) -> usize {
        match self {
            Units::Chars(s) => s.chars().count(),
            Units::Bytes(n) => *n,
        }
    }

    /// The byte offset of unit `k` (the end for `k` = the count).
    fn offset(&self, k: usize) -> usize {
        match self {
            Units::Chars(s) => s.char_indices().nth(k).map_or(s.len(), |(b, _)| b),
            Units::Bytes(n) => k.min(*n),
        }
    }
}

/// Argument `i` as a string; None for NULL.
fn arg<'a>(ctx: &'a Context<'_>, i: usize) -> Option<Str<'a>> {
    match ctx.get_raw(i) {
        ValueRef::Null => None,
        ValueRef::Blob(b) => Some(Str::Blob(b)),
        ValueRef::Text(t) => Some(Str::Text(String::from_utf8_lossy(t))),
        ValueRef::Integer(n) => Some(Str::Text(Cow::Owned(n.to_string()))),
        ValueRef::Real(x) => Some(Str::Text(Cow::Owned(x.to_string()))),
    }
}

/// The units `SUBSTRING` takes of a string of `n`: from the 1-based `pos` (counted from the
/// end when negative), at most `len`; None (empty) for position 0, a position outside the
/// string, or a length below 1.
fn substring_span(n: usize, pos: i64, len: i64) -> Option<(usize, usize)> {
    let n = i64::try_from(n).ok()?;
    let start = match pos {
        0 => return None,
        p if p < 0 => n + p,
        p => p - 1,
    };
    if len < 1 || start < 0 || start >= n {
        return None;
    }
    Some((start as usize, len.min(n - start) as usize))
}

/// `SUBSTRING(s, pos, len)`.
fn substring(s: &Str<'_>, pos: i64, len: i64) -> Value {
    let units = s.units();
    match substring_span(units.count(), pos, len) {
        None => s.with_bytes(&[]),
        Some((start, count)) => {
            let (a, b) = (units.offset(start), units.offset(start + count));
            s.with_bytes(&s.bytes()[a..b])
        }
    }
}

/// `INSERT(s, pos, len, new)`: `s` with the `len` units from `pos` (1-based; all the rest for
/// a negative `len` or one past the end) replaced by `new`; `s` itself when `pos` is outside
/// it. Counts bytes and gives a blob when either string is one.
fn insert(s: &Str<'_>, pos: i64, len: i64, new: &Str<'_>) -> Value {
    let binary = matches!(s, Str::Blob(_)) || matches!(new, Str::Blob(_));
    let with = |b: &[u8]| {
        if binary {
            Value::Blob(b.to_vec())
        } else {
            s.with_bytes(b)
        }
    };
    let units = if binary {
        Units::Bytes(s.bytes().len())
    } else {
        s.units()
    };
    let n = units.count() as u64;
    let Some(start) = u64::try_from(pos).ok().filter(|p| (1..=n).contains(p)) else {
        return with(s.bytes());
    };
    let start = start - 1;
    let count = u64::try_from(len).map_or(n - start, |l| l.min(n - start));
    let (a, b) = (
        units.offset(start as usize),
        units.offset((start + count) as usize),
    );
    let bytes = s.bytes();
    if bytes.len() - (b - a) + new.bytes().len() > super::MAX_RESULT {
        return Value::Null;
    }
    with(&[&bytes[..a], new.bytes(), &bytes[b..]].concat())
}

/// `s` without the copies of `rem` that repeat at its start (`leading`) and then at its end
/// (`trailing`); `s` for an empty `rem`. Byte-wise, which for UTF-8 text cuts only between
/// characters (a UTF-8 `rem` matches only where a character starts).
fn trim<'a>(s: &'a [u8], rem: &[u8], leading: bool, trailing: bool) -> &'a [u8] {
    let mut s = s;
    if rem.is_empty() {
        return s;
    }
    if leading {
        while let Some(rest) = s.strip_prefix(rem) {
            s = rest;
        }
    }
    if trailing {
        while let Some(rest) = s.strip_suffix(rem) {
            s = rest;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn substring_spans_as_mysql() {
        // 'Quadratically' (13): the manual's examples.
        assert_eq!(substring_span(13, 5, i64::MAX), Some((4, 9)));
        assert_eq!(substring_span(13, 5, 6), Some((4, 6)));
        assert_eq!(substring_span(7, -3, i64::MAX), Some((4, 3)));
        assert_eq!(substring_span(7, -5, 3), Some((2, 3)));
        assert_eq!(substring_span(3, 0, 2), None);
        assert_eq!(substring_span(3, -4, 2), None);
        assert_eq!(substring_span(3, 4, 2), None);
        assert_eq!(substring_span(3, 2, -1), None);
        assert_eq!(substring_span(3, 2, 0), None);
        assert_eq!(substring_span(3, i64::MIN, 1), None);
        assert_eq!(substring_span(3, i64::MAX, 1), None);
        assert_eq!(substring_span(0, 1, 1), None);
    }

    #[test]
    fn trim_removes_whole_strings() {
        assert_eq!(trim(b"xyxyAxy", b"xy", true, false), b"Axy");
        assert_eq!(trim(b"xxAxx", b"x", true, true), b"A");
        assert_eq!(trim(b"barxxyz", b"xyz", false, true), b"barx");
        assert_eq!(trim(b"xxx", b"xx", true, true), b"x");
        assert_eq!(trim(b"abab", b"ab", true, true), b"");
        assert_eq!(trim(b"  a  ", b"", true, true), b"  a  ");
        assert_eq!(trim(b"", b"x", true, true), b"");
        assert_eq!(trim("ééaé".as_bytes(), "é".as_bytes(), true, true), b"a");
    }

    #[test]
    fn through_sqlite_with_nulls() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        let b = |s: &[u8]| Value::Blob(s.to_vec());
        let cases = [
            // The manual's examples.
            ("SUBSTRING('Quadratically', 5)", t("ratically")),
            ("SUBSTRING('foobarbar', 4)", t("barbar")),
            ("SUBSTRING('Quadratically', 5, 6)", t("ratica")),
            ("SUBSTRING('Sakila', -3)", t("ila")),
            ("SUBSTRING('Sakila', -5, 3)", t("aki")),
            ("MID('Quadratically', 5, 6)", t("ratica")),
            ("SUBSTR('Sakila', -3)", t("ila")),
            // The edges where SQLite's own differ.
            ("SUBSTRING('abc', 0)", t("")),
            ("SUBSTRING('abc', 0, 2)", t("")),
            ("SUBSTRING('abc', -5, 3)", t("")),
            ("SUBSTRING('abc', 3, -1)", t("")),
            ("SUBSTRING('abc', 4)", t("")),
            // Characters, bytes of a blob, a number's text.
            ("SUBSTRING('héllo', 2, 3)", t("éll")),
            ("MID('日本語', -2)", t("本語")),
            ("SUBSTRING(X'00FF10', 2, 1)", b(&[0xFF])),
            ("SUBSTRING(CAST('héllo' AS BLOB), 2, 2)", b("é".as_bytes())),
            ("SUBSTRING(12345, 2, 2)", t("23")),
            ("SUBSTRING('abc', 1.6)", t("bc")),
            ("SUBSTRING(NULL, 1)", Value::Null),
            ("SUBSTRING('abc', NULL)", Value::Null),
            ("MID('abc', 1, NULL)", Value::Null),
            // INSERT, the manual's examples and more.
            ("MYSQL_INSERT('Quadratic', 3, 4, 'What')", t("QuWhattic")),
            ("MYSQL_INSERT('Quadratic', -1, 4, 'What')", t("Quadratic")),
            ("MYSQL_INSERT('Quadratic', 3, 100, 'What')", t("QuWhat")),
            ("MYSQL_INSERT('Quadratic', 3, -1, 'What')", t("QuWhat")),
            ("MYSQL_INSERT('Quadratic', 10, 1, 'What')", t("Quadratic")),
            ("MYSQL_INSERT('Quadratic', 9, 1, 'What')", t("QuadratiWhat")),
            ("MYSQL_INSERT('Quadratic', 1, 0, 'x')", t("xQuadratic")),
            ("MYSQL_INSERT('héllo', 2, 1, 'e')", t("hello")),
            ("MYSQL_INSERT(X'010203', 2, 1, X'FF')", b(&[1, 0xFF, 3])),
            ("MYSQL_INSERT('abc', 2, 1, X'7A')", b(b"azc")),
            ("MYSQL_INSERT('', 1, 1, 'x')", t("")),
            ("MYSQL_INSERT('abc', 9223372036854775807, 1, 'x')", t("abc")),
            ("MYSQL_INSERT('abc', 2, -9223372036854775808, 'x')", t("ax")),
            ("MYSQL_INSERT(NULL, 1, 1, 'x')", Value::Null),
            ("MYSQL_INSERT('abc', 9, 1, NULL)", Value::Null),
            ("MYSQL_INSERT('abc', NULL, 1, 'x')", Value::Null),
            // TRIM(mode remstr FROM str).
            ("MYSQL_TRIM('LEADING', 'xy', 'xyxyAxy')", t("Axy")),
            ("MYSQL_TRIM('BOTH', 'x', 'xxAxx')", t("A")),
            ("MYSQL_TRIM('TRAILING', 'xyz', 'barxxyz')", t("barx")),
            ("MYSQL_TRIM('both', '', 'xAx')", t("xAx")),
            ("MYSQL_TRIM('BOTH', 1, 121)", t("2")),
            ("MYSQL_TRIM('BOTH', X'00', X'0001000000')", b(&[1])),
            ("MYSQL_TRIM('BOTH', 'x', NULL)", Value::Null),
            ("MYSQL_TRIM('BOTH', NULL, 'x')", Value::Null),
            ("MYSQL_TRIM(NULL, 'x', 'x')", Value::Null),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
        let err = db.query_row("SELECT MYSQL_TRIM('MIDDLE', 'x', 'x')", [], |r| {
            r.get::<_, String>(0)
        });
        assert!(
            format!("{err:?}").contains("Incorrect arguments"),
            "{err:?}"
        );
    }
}
