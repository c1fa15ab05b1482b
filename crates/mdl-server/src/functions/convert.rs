//! Numbers written in other bases and bytes written as text: `HEX`, `BIN`, `OCT`, `CONV`,
//! `BIT_COUNT`, `INET_ATON`, `INET_NTOA`, `TO_BASE64` and `FROM_BASE64` (manual, 14.8 "String
//! Functions", 14.12 "Bit Functions", 14.23 "Miscellaneous Functions"; source
//! `sql/item_strfunc.cc`: `Item_func_hex`, `Item_func_conv`, `Item_func_to_base64`,
//! `Item_func_from_base64`; `sql/item_func.cc`: `Item_func_bit_count`;
//! `sql/item_inetfunc.cc`; `mysys/base64.cc`). A NULL argument gives NULL.
//!
//! * `HEX` overrides SQLite's, which writes a number's text (`HEX(255)` = `323535`): for a
//!   number MySQL writes the value as a 64-bit integer (`FF`; a negative one in two's
//!   complement; a real rounded first, `FFFFFFFFFFFFFFFF` past the range), for a string or
//!   blob its bytes, upper case.
//! * `CONV(n, from, to)` reads `n`'s text as MySQL does (`my_strntoull`, or `my_strntoll` for a
//!   negative `from`: leading spaces, a sign, the digits of the base up to the first other
//!   character, none = 0; past 64 bits the largest value), and writes it unsigned, or signed
//!   for a negative `to`; NULL for a base outside 2..36 or an empty `n`. `BIN(n)` and
//!   `OCT(n)` are `CONV(n, 10, 2)` and `CONV(n, 10, 8)`. A real `n` is read from its text as
//!   Rust writes it (`1e20` is all its digits, where MySQL's `1e20` reads as 1).
//! * `TO_BASE64` wraps lines at 76 characters with `\n`, as MySQL's does; `FROM_BASE64` skips
//!   white space anywhere, needs the padding, and is NULL for anything else that is not
//!   base64. Its result is text when the bytes are UTF-8 (so that it compares equal to the
//!   same text, as MySQL's binary string does; SQLite orders every blob after every text),
//!   a blob otherwise. The `base64` crate does the coding.

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};

use super::{bounded, bytes, flags, int};

/// Registers the functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    db.create_scalar_function("HEX", 1, f, |ctx| Ok(hex(ctx)))?;
    db.create_scalar_function("CONV", 3, f, |ctx| {
        Ok(match (bytes(ctx, 0), int(ctx, 1), int(ctx, 2)) {
            (Some(n), Some(from), Some(to)) => conv(&n, from, to).map_or(Value::Null, Value::Text),
            _ => Value::Null,
        })
    })?;
    for (name, to) in [("BIN", 2), ("OCT", 8)] {
        db.create_scalar_function(name, 1, f, move |ctx| {
            Ok(bytes(ctx, 0)
                .and_then(|n| conv(&n, 10, to))
                .map_or(Value::Null, Value::Text))
        })?;
    }
    db.create_scalar_function("BIT_COUNT", 1, f, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Blob(b) => Value::Integer(b.iter().map(|x| i64::from(x.count_ones())).sum()),
            _ => int(ctx, 0).map_or(Value::Null, |n| Value::Integer(n.count_ones().into())),
        })
    })?;
    db.create_scalar_function("INET_ATON", 1, f, |ctx| {
        Ok(bytes(ctx, 0)
            .and_then(|s| inet_aton(&s))
            .map_or(Value::Null, |n| Value::Integer(n.into())))
    })?;
    db.create_scalar_function("INET_NTOA", 1, f, |ctx| {
        Ok(int(ctx, 0)
            .and_then(|n| u32::try_from(n).ok())
            .map_or(Value::Null, |n| {
                Value::Text(std::net::Ipv4Addr::from(n).to_string())
            }))
    })?;
    db.create_scalar_function("TO_BASE64", 1, f, |ctx| {
        Ok(bytes(ctx, 0).map_or(Value::Null, |b| to_base64(&b)))
    })?;
    db.create_scalar_function("FROM_BASE64", 1, f, |ctx| {
        Ok(match bytes(ctx, 0).and_then(|b| from_base64(&b)) {
            None => Value::Null,
            Some(b) => match String::from_utf8(b) {
                Ok(s) => Value::Text(s),
                Err(e) => Value::Blob(e.into_bytes()),
            },
        })
    })
}

/// `HEX(x)`: a number as a 64-bit integer, a string's or blob's bytes; upper case.
fn hex(ctx: &Context<'_>) -> Value {
    match ctx.get_raw(0) {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => Value::Text(format!("{:X}", n as u64)),
        ValueRef::Real(x) => Value::Text(format!("{:X}", real_to_u64(x))),
        ValueRef::Text(b) | ValueRef::Blob(b) => {
            let mut out = String::with_capacity(b.len() * 2);
            for byte in b {
                out.push(char::from(DIGITS[usize::from(byte >> 4)]));
                out.push(char::from(DIGITS[usize::from(byte & 15)]));
            }
            bounded(out)
        }
    }
}

/// A real as `HEX` takes it (`Item_func_hex`): rounded half away from zero, a negative one in
/// two's complement, all ones at or past the 64-bit range (and for NaN, which MySQL never has).
fn real_to_u64(x: f64) -> u64 {
    if x.is_nan() || x <= i64::MIN as f64 || x >= u64::MAX as f64 {
        return u64::MAX;
    }
    let r = x.round();
    if r < 0.0 {
        r as i64 as u64
    } else {
        r as u64
    }
}

/// The digits of bases up to 36, upper case, as MySQL writes them.
const DIGITS: &[u8; 36] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// `CONV(n, from, to)`; None (NULL) for a base outside 2..36 (either sign) or an empty `n`.
fn conv(n: &[u8], from: i64, to: i64) -> Option<String> {
    let base_ok = |b: i64| (2..=36).contains(&b.unsigned_abs());
    if !base_ok(from) || !base_ok(to) || n.is_empty() {
        return None;
    }
    let v = read_in_base(n, from.unsigned_abs() as u32, from < 0);
    Some(write_in_base(v, to))
}

/// MySQL's white space in a number's text (`my_isspace`).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// The integer `s` starts with in `base`, as 64 bits: read unsigned as `my_strntoull` reads it
/// (a `-` negates modulo 2^64, past 2^64 - 1 it is all ones) or, when `signed`, as
/// `my_strntoll` (clipped to i64's range). No digits read as 0.
fn read_in_base(s: &[u8], base: u32, signed: bool) -> i64 {
    let mut i = s.iter().take_while(|&&b| is_space(b)).count();
    let negative = s.get(i) == Some(&b'-');
    if matches!(s.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let (mut value, mut overflow, mut any) = (0u64, false, false);
    for &b in &s[i..] {
        let Some(d) = char::from(b).to_digit(36).filter(|&d| d < base) else {
            break;
        };
        any = true;
        match value
            .checked_mul(u64::from(base))
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    if !any {
        return 0;
    }
    if signed {
        let limit = if negative {
            i64::MIN.unsigned_abs()
        } else {
            i64::MAX as u64
        };
        if overflow || value > limit {
            return if negative { i64::MIN } else { i64::MAX };
        }
    } else if overflow {
        return -1;
    }
    let v = value as i64;
    if negative {
        v.wrapping_neg()
    } else {
        v
    }
}

/// `v` in base `|to|`: unsigned (its 64 bits) for a positive `to`, signed for a negative one
/// (`ll2str`).
fn write_in_base(v: i64, to: i64) -> String {
    let radix = to.unsigned_abs();
    let (negative, mut u) = if to < 0 && v < 0 {
        (true, v.unsigned_abs())
    } else {
        (false, v as u64)
    };
    let mut digits = Vec::with_capacity(65);
    loop {
        digits.push(DIGITS[(u % radix) as usize]);
        u /= radix;
        if u == 0 {
            break;
        }
    }
    if negative {
        digits.push(b'-');
    }
    digits.iter().rev().map(|&b| char::from(b)).collect()
}

/// `INET_ATON(s)` (`Item_func_inet_aton`): dotted decimal groups of 0..255, the short forms
/// too (`127.1` is 127.0.0.1, `10` is 0.0.0.10); None (NULL) for anything else: another
/// character, a group past 255, more than four groups, a trailing dot, ''.
fn inet_aton(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.last() == Some(&b'.') {
        return None;
    }
    let mut groups = [0u32; 4];
    let mut count = 0;
    for part in s.split(|&b| b == b'.') {
        if count == 4 {
            return None;
        }
        // MySQL reads an empty group (`1..2`) as 0.
        let mut g = 0u32;
        for &b in part {
            if !b.is_ascii_digit() {
                return None;
            }
            g = g * 10 + u32::from(b - b'0');
            if g > 255 {
                return None;
            }
        }
        groups[count] = g;
        count += 1;
    }
    // The last group is the lowest byte; the others fill from the top.
    let last = groups[count - 1];
    let high = groups[..count - 1]
        .iter()
        .enumerate()
        .fold(0u32, |acc, (i, &g)| acc | (g << (24 - 8 * i)));
    Some(high | last)
}

/// `TO_BASE64(b)`: standard base64 with padding, a `\n` after each 76 characters but the last.
fn to_base64(b: &[u8]) -> Value {
    if b.len() / 3 * 4 > super::MAX_RESULT {
        return Value::Null;
    }
    let flat = STANDARD.encode(b);
    let mut out = String::with_capacity(flat.len() + flat.len() / 76);
    for (i, line) in flat.as_bytes().chunks(76).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        // Base64's alphabet is ASCII.
        out.extend(line.iter().map(|&c| char::from(c)));
    }
    bounded(out)
}

/// MySQL's decoder (`base64_decode`): padding required, the bits past the last byte not
/// checked.
const DECODER: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// `FROM_BASE64(s)`: the bytes, white space skipped; None (NULL) when `s` is not base64.
fn from_base64(s: &[u8]) -> Option<Vec<u8>> {
    let packed: Vec<u8> = s.iter().copied().filter(|&b| !is_space(b)).collect();
    DECODER.decode(packed).ok()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn conv_reads_and_writes_as_mysql() {
        // The manual's examples.
        assert_eq!(conv(b"a", 16, 2).as_deref(), Some("1010"));
        assert_eq!(conv(b"6E", 18, 8).as_deref(), Some("172"));
        assert_eq!(conv(b"-17", 10, -18).as_deref(), Some("-H"));
        assert_eq!(conv(b"60", 10, 36).as_deref(), Some("1O"));
        // Unsigned: a negative number is its 64 bits; past them, all ones.
        assert_eq!(conv(b"-1", 10, 16).as_deref(), Some("FFFFFFFFFFFFFFFF"));
        assert_eq!(
            conv(b"99999999999999999999999", 10, 16).as_deref(),
            Some("FFFFFFFFFFFFFFFF")
        );
        assert_eq!(
            conv(b"18446744073709551615", 10, -10).as_deref(),
            Some("-1")
        );
        // Signed: clipped to i64.
        assert_eq!(
            conv(b"99999999999999999999", -10, 10).as_deref(),
            Some("9223372036854775807")
        );
        assert_eq!(
            conv(b"-99999999999999999999", -10, -10).as_deref(),
            Some("-9223372036854775808")
        );
        assert_eq!(
            conv(b"-9223372036854775808", -10, -10).as_deref(),
            Some("-9223372036854775808")
        );
        // Reading stops at the first character not of the base; none read is 0.
        assert_eq!(conv(b"  12z", 10, 10).as_deref(), Some("12"));
        assert_eq!(conv(b"1.9", 10, 2).as_deref(), Some("1"));
        assert_eq!(conv(b"zz", 10, 2).as_deref(), Some("0"));
        assert_eq!(conv(b"+7", 10, 2).as_deref(), Some("111"));
        assert_eq!(conv(&[0xFF, b'1'], 10, 2).as_deref(), Some("0"));
        // Bases outside 2..36, an empty string: NULL.
        assert_eq!(conv(b"1", 1, 10), None);
        assert_eq!(conv(b"1", 10, 37), None);
        assert_eq!(conv(b"1", i64::MIN, 10), None);
        assert_eq!(conv(b"", 10, 2), None);
        assert_eq!(conv(b"Z", 36, 10).as_deref(), Some("35"));
    }

    #[test]
    fn inet_aton_as_mysql() {
        assert_eq!(inet_aton(b"10.0.5.9"), Some(167_773_449));
        assert_eq!(inet_aton(b"127.1"), Some(0x7F00_0001));
        assert_eq!(inet_aton(b"127.2.1"), Some(0x7F02_0001));
        assert_eq!(inet_aton(b"127"), Some(127));
        assert_eq!(inet_aton(b"255.255.255.255"), Some(u32::MAX));
        assert_eq!(inet_aton(b"1..2"), Some(0x0100_0002));
        assert_eq!(inet_aton(b"256.1.1.1"), None);
        assert_eq!(inet_aton(b"1.2.3.4.5"), None);
        assert_eq!(inet_aton(b"1.2.3."), None);
        assert_eq!(inet_aton(b" 1.2.3.4"), None);
        assert_eq!(inet_aton(b"a.b"), None);
        assert_eq!(inet_aton(b""), None);
        assert_eq!(inet_aton(b"99999999999999999999"), None);
    }

    #[test]
    fn base64_as_mysql() {
        let Value::Text(long) = to_base64(&[b'a'; 100]) else {
            panic!("text")
        };
        let lines: Vec<&str> = long.split('\n').collect();
        assert_eq!(lines.iter().map(|l| l.len()).collect::<Vec<_>>(), [76, 60]);
        assert_eq!(from_base64(long.as_bytes()), Some(vec![b'a'; 100]));
        assert_eq!(to_base64(b""), Value::Text(String::new()));
        assert_eq!(from_base64(b"YWJj"), Some(b"abc".to_vec()));
        assert_eq!(from_base64(b" YW\tJj\r\n"), Some(b"abc".to_vec()));
        assert_eq!(from_base64(b"YQ=="), Some(b"a".to_vec()));
        assert_eq!(from_base64(b"YR=="), Some(b"a".to_vec()), "unused bits");
        assert_eq!(from_base64(b""), Some(Vec::new()));
        assert_eq!(from_base64(b"YQ"), None, "padding required");
        assert_eq!(from_base64(b"YQ="), None);
        assert_eq!(from_base64(b"YQ==YQ=="), None);
        assert_eq!(from_base64(b"YWJj="), None);
        assert_eq!(from_base64(b"Y!Jj"), None);
        assert_eq!(from_base64(&[0xC3, 0xA9]), None);
    }

    #[test]
    fn through_sqlite_with_nulls() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        let cases = [
            // HEX: numbers as 64-bit integers, strings and blobs as bytes.
            ("HEX(255)", t("FF")),
            ("HEX(-1)", t("FFFFFFFFFFFFFFFF")),
            ("HEX(0)", t("0")),
            ("HEX(10.5)", t("B")),
            ("HEX(-1.5)", t("FFFFFFFFFFFFFFFE")),
            ("HEX(1e30)", t("FFFFFFFFFFFFFFFF")),
            ("HEX(-1e30)", t("FFFFFFFFFFFFFFFF")),
            ("HEX('abc')", t("616263")),
            ("HEX('255')", t("323535")),
            ("HEX(X'00ff')", t("00FF")),
            ("HEX('')", t("")),
            ("HEX(NULL)", Value::Null),
            // BIN, OCT, CONV.
            ("BIN(12)", t("1100")),
            ("BIN(-1)", t("1".repeat(64).as_str())),
            ("OCT(12)", t("14")),
            ("BIN('')", Value::Null),
            ("OCT(NULL)", Value::Null),
            ("CONV('a', 16, 2)", t("1010")),
            ("CONV(6E1, 10, 36)", t("1O")),
            ("CONV(10, NULL, 2)", Value::Null),
            ("CONV(10, 10, 1)", Value::Null),
            // BIT_COUNT: an integer's 64 bits, a blob's bytes.
            ("BIT_COUNT(29)", Value::Integer(4)),
            ("BIT_COUNT(29.6)", Value::Integer(4)),
            ("BIT_COUNT(X'FFFF01')", Value::Integer(17)),
            ("BIT_COUNT(-1)", Value::Integer(64)),
            ("BIT_COUNT(NULL)", Value::Null),
            // INET_ATON / INET_NTOA.
            ("INET_ATON('10.0.5.9')", Value::Integer(167_773_449)),
            ("INET_ATON('1.2.3.256')", Value::Null),
            ("INET_ATON(NULL)", Value::Null),
            ("INET_NTOA(167773449)", t("10.0.5.9")),
            ("INET_NTOA('167773449')", t("10.0.5.9")),
            ("INET_NTOA(4294967295)", t("255.255.255.255")),
            ("INET_NTOA(4294967296)", Value::Null),
            ("INET_NTOA(-1)", Value::Null),
            ("INET_NTOA(NULL)", Value::Null),
            // Base64.
            ("TO_BASE64('abc')", t("YWJj")),
            ("TO_BASE64(12)", t("MTI=")),
            ("TO_BASE64(NULL)", Value::Null),
            ("FROM_BASE64(TO_BASE64('abc'))", t("abc")),
            ("FROM_BASE64('YWJj') = 'abc'", Value::Integer(1)),
            ("FROM_BASE64('/w==')", Value::Blob(vec![0xFF])),
            ("FROM_BASE64('not base64')", Value::Null),
            ("FROM_BASE64(NULL)", Value::Null),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }
}
