//! Numbers as MySQL writes and rounds them, where SQLite's doubles would say otherwise. Two
//! rules, used wherever they apply:
//!
//! * **A double as a string** ([`real_text`]): `String::set_real` (`sql-common/sql_string.cc`,
//!   which `Item_func::val_str`, `Item_float::val_str` and `Field_double::val_str` come to)
//!   calls `my_gcvt(x, MY_GCVT_ARG_DOUBLE, width, ...)` (`strings/dtoa.cc`) with a width
//!   past any double: the shortest digits that read back as `x` (`dtoa` mode 4, at most 17),
//!   written plain when the point falls within 15 digits of them (`MAX_DECPT_FOR_F_FORMAT`,
//!   `DBL_DIG`: `1000`, `0.00001`, `0.30000000000000004`), else as `1e20`, `1.5e-16` (no `+`,
//!   no padding of the exponent). SQLite writes `1000.0` and `1.0e+20`. The argument text of
//!   this server's functions (`CONCAT`, `LENGTH`, ...: `super::text`) and `MYSQL_TEXT(x)` (what
//!   the rewrite makes of `CAST(x AS CHAR)` and of a number before `LIKE`:
//!   `rewrite/expr/numbers.rs`) are this. `MYSQL_TEXT(x, decl)` is a column's value, `decl`
//!   its declared type: a number of a `DECIMAL(m, s)` column has `s` decimals (`0.10`), as
//!   `Field_new_decimal::val_str` writes it (`rewrite/decimal_strings.rs`).
//! * **Decimal rounding** ([`round_decimal`]): `decimal_round` (`strings/decimal.cc`) rounds
//!   the decimal digits, half away from zero (`HALF_UP`) or toward zero (`TRUNCATE`). A
//!   double is rounded from its shortest text, the digits MySQL's DECIMAL literal or column had
//!   (`1.555` is `1.55499...` as a double: SQLite's `ROUND(1.555, 2)` gives `1.55`, MySQL's
//!   `1.56`). `ROUND(x[, d])` (`Item_func_round::decimal_op`, `sql/item_func.cc`),
//!   `TRUNCATE(x, d)` and `MYSQL_DECIMAL(x, m, d)` (`CAST(x AS DECIMAL(m, d))`:
//!   `Item_typecast_decimal::val_decimal`, which clips a value past `m` digits to the largest
//!   one, 999.99 for `DECIMAL(5,2)`) are this, and so is a `DECIMAL` column's text on the wire
//!   (`wire/kind.rs`).
//!
//! A `DOUBLE`, `FLOAT` or string argument is rounded as MySQL rounds a double (`rint`:
//! `ROUND(2.5e0)` is 2) where the rewrite says so (`round_double.rs`). A number of a type with
//! fixed decimals (`MYSQL_TEXT(x, 'double(8,6)')`, `PI()`'s) is written with them (`my_fcvt`:
//! `3.141593`). Differs: a text argument is read as a double first (`number_prefix`), so
//! digits past the 17th go. The result is a double again, and a whole
//! number an integer where the argument was one (or `d` <= 0 for the cast).

use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};

use super::{flags, int, number, Num};

/// The name of the call that gives a value's MySQL text.
pub const MYSQL_TEXT: &str = "MYSQL_TEXT";
/// The name of the call that casts to `DECIMAL(m, d)`.
pub const MYSQL_DECIMAL: &str = "MYSQL_DECIMAL";

/// Registers `MYSQL_TEXT`, `MYSQL_DECIMAL`, `ROUND` and `TRUNCATE` on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    for n_arg in [1, 2] {
        db.create_scalar_function(MYSQL_TEXT, n_arg, f, move |ctx| {
            let x = ctx.get_raw(0);
            let scale = match (n_arg, x) {
                (2, ValueRef::Real(_) | ValueRef::Integer(_)) => declared_scale(ctx.get_raw(1)),
                _ => None,
            };
            Ok(match (x, scale) {
                (ValueRef::Real(x), Some(Scale::Decimal(s))) if x.is_finite() => {
                    scaled(&x.to_string(), s)
                }
                (ValueRef::Integer(n), Some(Scale::Decimal(s))) => scaled(&n.to_string(), s),
                // `my_fcvt` (`String::set_real` with fixed decimals).
                (ValueRef::Real(x), Some(Scale::Double(d))) if x.is_finite() => {
                    Value::Text(format!("{x:.*}", usize::from(d)))
                }
                (ValueRef::Integer(n), Some(Scale::Double(d))) => {
                    Value::Text(format!("{:.*}", usize::from(d), n as f64))
                }
                (ValueRef::Real(x), _) => Value::Text(real_text(x)),
                (ValueRef::Integer(n), _) => Value::Text(n.to_string()),
                (other, _) => other.into(),
            })
        })?;
    }
    db.create_scalar_function(MYSQL_DECIMAL, 3, f, |ctx| {
        Ok(match (number(ctx, 0), int(ctx, 1), int(ctx, 2)) {
            (Some(x), Some(m), Some(d)) => cast_decimal(x, m, d),
            _ => Value::Null,
        })
    })?;
    for n_arg in [1, 2] {
        db.create_scalar_function("ROUND", n_arg, f, move |ctx| {
            Ok(rounded(ctx, n_arg == 2, Mode::HalfUp))
        })?;
    }
    db.create_scalar_function("TRUNCATE", 2, f, |ctx| {
        Ok(rounded(ctx, true, Mode::Truncate))
    })
}

/// The decimals a number of declared type `decl` is written with.
enum Scale {
    /// A `DECIMAL(m, s)`'s `s`.
    Decimal(u8),
    /// A double's fixed decimals (`DOUBLE(m, d)`, `PI()`'s `double(8,6)`).
    Double(u8),
}

/// The [`Scale`] of declared type `decl` (`MYSQL_TEXT`'s second argument), if it has one.
fn declared_scale(decl: ValueRef<'_>) -> Option<Scale> {
    let ValueRef::Text(t) = decl else {
        return None;
    };
    let t = std::str::from_utf8(t).ok()?;
    match crate::wire::Kind::from_declared(t) {
        Some(crate::wire::Kind::Decimal { scale, .. }) => return Some(Scale::Decimal(scale)),
        Some(crate::wire::Kind::FixedDouble { decimals, .. }) => {
            return Some(Scale::Double(decimals))
        }
        Some(_) => return None,
        None => {}
    }
    // Most types are neither: one look at the first letter.
    if !matches!(
        t.as_bytes().first().map(u8::to_ascii_lowercase),
        Some(b'd' | b'f' | b'r')
    ) {
        return None;
    }
    let ty = crate::expr_type::from_declared(t)?;
    let real = matches!(
        ty.class,
        crate::expr_type::Class::Real | crate::expr_type::Class::Float
    );
    let d = u8::try_from(ty.decimals).ok()?;
    (real && ty.decimals < crate::expr_type::NOT_FIXED_DEC).then_some(Scale::Double(d))
}

/// A `DECIMAL` column's value, as plain text, with its `scale` decimals.
fn scaled(plain: &str, scale: u8) -> Value {
    Value::Text(round_decimal(plain, scale.into(), Mode::HalfUp).unwrap_or_else(|| plain.into()))
}

/// How [`round_decimal`] drops digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Half away from zero (`HALF_UP` of `decimal_round`).
    HalfUp,
    /// Toward zero (`TRUNCATE`).
    Truncate,
}

/// `ROUND(x[, d])` / `TRUNCATE(x, d)`: NULL for a NULL argument.
pub(super) fn rounded(ctx: &Context<'_>, with_d: bool, mode: Mode) -> Value {
    let d = if with_d { int(ctx, 1) } else { Some(0) };
    match (number(ctx, 0), d) {
        (Some(x), Some(d)) => round_num(x, d, mode),
        _ => Value::Null,
    }
}

/// `x` rounded to `d` decimals; an integer stays one.
fn round_num(x: Num, d: i64, mode: Mode) -> Value {
    match x {
        Num::Int(n) if d >= 0 => Value::Integer(n),
        Num::Int(n) => {
            let t = round_decimal(&n.to_string(), d, mode).unwrap_or_default();
            t.parse()
                .map_or(Value::Real(t.parse().unwrap_or(0.0)), Value::Integer)
        }
        // Past 30 decimals (`DECIMAL_MAX_SCALE`) a double keeps its digits: `1e-40` too.
        Num::Real(x) if !x.is_finite() || d > 30 => Value::Real(x),
        Num::Real(x) => match round_decimal(&x.to_string(), d, mode) {
            Some(t) => Value::Real(t.parse().unwrap_or(x)),
            None => Value::Real(x),
        },
    }
}

/// `CAST(x AS DECIMAL(m, d))`: `x` rounded half away from zero to `d` decimals, clipped to the
/// largest value of `m` digits (see the module docs).
fn cast_decimal(x: Num, m: i64, d: i64) -> Value {
    // `DECIMAL_MAX_PRECISION`, `DECIMAL_MAX_SCALE`; MySQL refuses others when parsing.
    let m = m.clamp(1, 65);
    let d = d.clamp(0, 30.min(m));
    let text = match x {
        Num::Int(n) => n.to_string(),
        Num::Real(x) if x.is_finite() => x.to_string(),
        Num::Real(_) => return Value::Null,
    };
    let Some(mut t) = round_decimal(&text, d, Mode::HalfUp) else {
        return Value::Null;
    };
    let whole = t.trim_start_matches('-').split('.').next().unwrap_or("");
    if whole.trim_start_matches('0').len() as i64 > m - d {
        // The largest value of the type, with x's sign.
        let mut max = "9".repeat((m - d) as usize);
        if d > 0 {
            max = format!("{max}.{}", "9".repeat(d as usize));
        }
        t = if t.starts_with('-') {
            format!("-{max}")
        } else {
            max
        };
    }
    match t.parse::<i64>() {
        Ok(n) if d == 0 => Value::Integer(n),
        _ => Value::Real(t.parse().unwrap_or(0.0)),
    }
}

/// Plain decimal text `text` (`-12.345`, no exponent) rounded to `d` decimals (`d` < 0 rounds
/// left of the point: `1250` to -2 is `1300`), as `decimal_round` does: exactly `max(d, 0)`
/// digits after the point, no `-` on zero; `None` if `text` is no plain decimal number.
pub fn round_decimal(text: &str, d: i64, mode: Mode) -> Option<String> {
    let (neg, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let plain = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !plain(int) || !plain(frac) {
        return None;
    }
    // Past 30 decimals (`DECIMAL_MAX_SCALE`) or every digit of a double, nothing changes.
    let scale = d.clamp(0, 30) as usize;
    // Digits dropped left of the point, at most all of them (and one more: `0.5` to -1 is 0).
    let left = d.clamp(-(int.len() as i64) - 1, 0).unsigned_abs() as usize;
    // The digits kept, as one number (`int` then `scale` fractional digits), with a `0` in
    // front for a carry.
    let mut kept: Vec<u8> = std::iter::once(b'0').chain(int.bytes()).collect();
    kept.extend(frac.bytes().chain(std::iter::repeat(b'0')).take(scale));
    let first_dropped = if left > 0 {
        kept.get(kept.len() - left).copied()
    } else {
        frac.as_bytes().get(scale).copied()
    };
    let cut = kept.len() - left;
    kept[cut..].fill(b'0');
    if mode == Mode::HalfUp && first_dropped.is_some_and(|c| c >= b'5') {
        for c in kept[..cut].iter_mut().rev() {
            if *c == b'9' {
                *c = b'0';
            } else {
                *c += 1;
                break;
            }
        }
    }
    let int_len = kept.len() - scale;
    let lead = kept[..int_len].iter().take_while(|&&c| c == b'0').count();
    let lead = lead.min(int_len - 1);
    let mut out = String::with_capacity(kept.len() + 2);
    if neg && kept.iter().any(|&c| c != b'0') {
        out.push('-');
    }
    out.extend(kept[lead..int_len].iter().map(|&c| char::from(c)));
    if scale > 0 {
        out.push('.');
        out.extend(kept[int_len..].iter().map(|&c| char::from(c)));
    }
    Some(out)
}

/// Double `x` as MySQL writes it as a string (see the module docs): `my_gcvt` with a width
/// past any double. Infinity and NaN are `0`, as `my_gcvt` writes them.
pub fn real_text(x: f64) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    // Rust's `{:e}` is the shortest digits that read back as `x`, as `dtoa` mode 0 (and 4
    // with 17 or more digits) gives: `-1.2345e20`, `1e0`, `0e0`.
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
    let len = digits.len() as i32;
    // `decpt` of `dtoa`: where the point goes, counted from the first digit.
    let decpt = exp + 1;
    let mut out = String::with_capacity(digits.len() + 8);
    if neg {
        out.push('-');
    }
    // `MAX_DECPT_FOR_F_FORMAT`: plain from 1e-15 up to 15 integer digits (or more with a
    // fraction, which cannot be past 17 digits).
    if decpt >= -14 && (decpt <= 15 || len > decpt) {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', decpt.unsigned_abs() as usize));
            out.push_str(&digits);
        } else if decpt < len {
            out.push_str(&digits[..decpt as usize]);
            out.push('.');
            out.push_str(&digits[decpt as usize..]);
        } else {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', (decpt - len) as usize));
        }
    } else {
        out.push_str(&digits[..1]);
        if len > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push_str(&exp.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn doubles_are_written_as_my_gcvt_writes_them() {
        let cases = [
            (1e3, "1000"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e20, "1e20"),
            (1.2345678901234568e20, "1.2345678901234568e20"),
            (-1.5e-16, "-1.5e-16"),
            (1e-15, "0.000000000000001"),
            (1e-5, "0.00001"),
            (1e15, "1e15"),
            (123456789012345.0, "123456789012345"),
            (1234567890123456.7, "1234567890123456.8"),
            (0.0, "0"),
            (-2.5, "-2.5"),
            (f64::INFINITY, "0"),
        ];
        for (x, want) in cases {
            assert_eq!(real_text(x), want, "{x:e}");
        }
    }

    #[test]
    fn decimals_round_as_decimal_round() {
        let r = |t: &str, d: i64| round_decimal(t, d, Mode::HalfUp);
        let tr = |t: &str, d: i64| round_decimal(t, d, Mode::Truncate);
        assert_eq!(r("1.555", 2).as_deref(), Some("1.56"));
        assert_eq!(r("2.675", 2).as_deref(), Some("2.68"));
        assert_eq!(r("-1.555", 2).as_deref(), Some("-1.56"));
        assert_eq!(r("2.5", 0).as_deref(), Some("3"));
        assert_eq!(r("9.995", 2).as_deref(), Some("10.00"));
        assert_eq!(r("-0.001", 2).as_deref(), Some("0.00"));
        assert_eq!(r("1250", -2).as_deref(), Some("1300"));
        assert_eq!(r("1249.9", -2).as_deref(), Some("1200"));
        assert_eq!(r("950", -3).as_deref(), Some("1000"));
        assert_eq!(r("0.5", -1).as_deref(), Some("0"));
        assert_eq!(r("5", -1).as_deref(), Some("10"));
        assert_eq!(r("1.5", 3).as_deref(), Some("1.500"));
        assert_eq!(tr("0.29", 2).as_deref(), Some("0.29"));
        assert_eq!(tr("1.999", 1).as_deref(), Some("1.9"));
        assert_eq!(tr("-1.999", 1).as_deref(), Some("-1.9"));
        assert_eq!(tr("122", -2).as_deref(), Some("100"));
        assert_eq!(r("1e5", 2), None);
        assert_eq!(r("abc", 2), None);
    }

    #[test]
    fn through_sqlite() {
        let db = db();
        let cases = [
            ("MYSQL_TEXT(1e3)", Value::Text("1000".into())),
            ("MYSQL_TEXT(1e20)", Value::Text("1e20".into())),
            ("MYSQL_TEXT(12)", Value::Text("12".into())),
            ("MYSQL_TEXT('x')", Value::Text("x".into())),
            ("MYSQL_TEXT(NULL)", Value::Null),
            (
                "MYSQL_TEXT(0.1, 'decimal(10,2)')",
                Value::Text("0.10".into()),
            ),
            (
                "MYSQL_TEXT(3, 'DECIMAL(10,2) unsigned')",
                Value::Text("3.00".into()),
            ),
            ("MYSQL_TEXT(1e3, 'double')", Value::Text("1000".into())),
            ("MYSQL_TEXT('a', 'varchar(3)')", Value::Text("a".into())),
            ("MYSQL_TEXT(0.1, NULL)", Value::Text("0.1".into())),
            (
                "MYSQL_TEXT(3.141592653589793, 'double(8,6)')",
                Value::Text("3.141593".into()),
            ),
            ("MYSQL_TEXT(2, 'DOUBLE(5,2)')", Value::Text("2.00".into())),
            ("MYSQL_DECIMAL(1.555, 5, 2)", Value::Real(1.56)),
            ("MYSQL_DECIMAL(2.675, 4, 2)", Value::Real(2.68)),
            ("MYSQL_DECIMAL(12345.6, 5, 2)", Value::Real(999.99)),
            ("MYSQL_DECIMAL(-12345.6, 5, 2)", Value::Real(-999.99)),
            ("MYSQL_DECIMAL(2.5, 10, 0)", Value::Integer(3)),
            ("MYSQL_DECIMAL('1.555', 5, 2)", Value::Real(1.56)),
            ("ROUND(1.555, 2)", Value::Real(1.56)),
            ("ROUND(2.5)", Value::Real(3.0)),
            ("ROUND(-2.5)", Value::Real(-3.0)),
            ("ROUND(1250, -2)", Value::Integer(1300)),
            ("ROUND(7)", Value::Integer(7)),
            ("ROUND(NULL)", Value::Null),
            ("TRUNCATE(0.29, 2)", Value::Real(0.29)),
            ("TRUNCATE(1.999, 1)", Value::Real(1.9)),
            ("TRUNCATE(-122, -2)", Value::Integer(-100)),
            ("TRUNCATE(1.5, 500)", Value::Real(1.5)),
            ("TRUNCATE(NULL, 1)", Value::Null),
        ];
        for (sql, want) in cases {
            assert_eq!(eval(&db, sql), want, "{sql}");
        }
    }
}
