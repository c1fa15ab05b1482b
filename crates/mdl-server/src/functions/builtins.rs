//! SQLite's own functions of MySQL's names that mean the same but read a number argument as
//! SQLite writes it (`1000.0` for the double 1e3, where MySQL's `val_str` gives `1000`:
//! `number_text.rs`), or quote otherwise; overridden with MySQL's reading:
//!
//! * `INSTR(str, substr)` (`Item_func_instr`, `sql/item_strfunc.cc`): `LOCATE(substr, str)`.
//!   `INSTR(1.5e0 * 2, '.')` is 0 (`'3'`), SQLite's 2 (`'3.0'`).
//! * `TRIM(str)`, `LTRIM(str)`, `RTRIM(str)` (`Item_func_trim` and kin: spaces only, as
//!   SQLite's one-argument forms): `TRIM(1e3)` is `'1000'`. A binary string stays one.
//!   `TRIM(remstr FROM str)` is `MYSQL_TRIM` (`splice.rs`); SQLite's two-argument `trim` is
//!   no MySQL syntax and stays SQLite's.
//! * `OCTET_LENGTH(str)`: `LENGTH` (`string.rs`), bytes of MySQL's text.
//! * `QUOTE(str)` (`Item_func_quote::val_str`): the text between `'`, with `\`, `'`, NUL
//!   (`\0`) and Ctrl-Z (`\Z`) escaped by a backslash, `NULL` for NULL; SQLite's doubles a
//!   `'` and leaves a number unquoted (`QUOTE(12)` is `'12'` in MySQL, `12` there).
//!
//! Cost: a call of these, in a statement that has one, is Rust's rather than SQLite's C.

use rusqlite::types::{Value, ValueRef};

use super::{bytes, flags, text};

/// Registers the functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    db.create_scalar_function("INSTR", 2, f, |ctx| {
        Ok(match (text(ctx, 0), text(ctx, 1)) {
            (Some(s), Some(sub)) => Value::Integer(super::string::locate(&sub, &s, 1)),
            _ => Value::Null,
        })
    })?;
    for (name, left, right) in [
        ("TRIM", true, true),
        ("LTRIM", true, false),
        ("RTRIM", false, true),
    ] {
        db.create_scalar_function(name, 1, f, move |ctx| {
            let Some(b) = bytes(ctx, 0) else {
                return Ok(Value::Null);
            };
            let t = trim_spaces(&b, left, right);
            Ok(match ctx.get_raw(0) {
                ValueRef::Blob(_) => Value::Blob(t.to_vec()),
                _ => Value::Text(String::from_utf8_lossy(t).into_owned()),
            })
        })?;
    }
    db.create_scalar_function("OCTET_LENGTH", 1, f, |ctx| {
        Ok(bytes(ctx, 0).map_or(Value::Null, |b| Value::Integer(b.len() as i64)))
    })?;
    db.create_scalar_function("QUOTE", 1, f, |ctx| {
        Ok(Value::Text(match text(ctx, 0) {
            Some(s) => quote(&s),
            None => "NULL".into(),
        }))
    })
}

/// `b` without the spaces at its start (`left`) and end (`right`).
fn trim_spaces(mut b: &[u8], left: bool, right: bool) -> &[u8] {
    while left && b.first() == Some(&b' ') {
        b = &b[1..];
    }
    while right && b.last() == Some(&b' ') {
        b = &b[..b.len() - 1];
    }
    b
}

/// `Item_func_quote`'s text of `s`.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\0' => out.push_str("\\0"),
            '\u{1a}' => out.push_str("\\Z"),
            '\'' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn numbers_are_read_as_mysqls_text() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        let cases = [
            ("TRIM(1e3)", t("1000")),
            ("LTRIM('  a ')", t("a ")),
            ("RTRIM('  a ')", t("  a")),
            ("TRIM(' \ta ')", t("\ta")),
            ("TRIM(x'2061')", Value::Blob(b"a".to_vec())),
            ("TRIM(NULL)", Value::Null),
            ("INSTR(1.5e0 * 2, '.')", Value::Integer(0)),
            ("INSTR(1e3, 0)", Value::Integer(2)),
            ("INSTR('foobar', 'bar')", Value::Integer(4)),
            ("INSTR(NULL, 'a')", Value::Null),
            ("OCTET_LENGTH(1e3)", Value::Integer(4)),
            ("OCTET_LENGTH('é')", Value::Integer(2)),
            ("QUOTE(1e3)", t("'1000'")),
            ("QUOTE(12)", t("'12'")),
            ("QUOTE('it''s \\ ok')", t("'it\\'s \\\\ ok'")),
            ("QUOTE(NULL)", t("NULL")),
        ];
        for (sql, want) in cases {
            assert_eq!(eval(&db, sql), want, "{sql}");
        }
    }
}
