//! A result column's MySQL type where its values alone do not say it: the wire type MySQL
//! sends for it and the text of its values (`Protocol_classic::send_field_metadata` takes the
//! type from the field, `sql/protocol_classic.cc`).
//!
//! SQLite's values are integers, reals, text and bytes; `ResultSet::column_types` types a
//! column by them. A column whose declared type is `DECIMAL`, `DATE`, `DATETIME`,
//! `TIMESTAMP`, `TIME` or `JSON` (SQLite's declared type of a column reference, read by the
//! engine; an expression's from `expr_type.rs`, `execute/engine_step.rs`) is sent as MySQL
//! sends it: `NEWDECIMAL` (246), `DATE` (10), `DATETIME` (12), `TIMESTAMP` (7), `TIME` (11),
//! `JSON` (245).
//!
//! A decimal's value is shown with exactly its scale's digits after the point, as MySQL's
//! `my_decimal2string` writes it (`1.5` of a `DECIMAL(10,2)` is `1.50`, `3` is `3.00`). SQLite
//! keeps a `DECIMAL` column's value as an integer or a double (`NUMERIC` affinity), so what is
//! exact is what a double holds: up to 15 significant digits, and sums and averages of a few
//! such values, whose double error lies far below the scale and goes in the rounding. The
//! double's shortest text is rounded half away from zero (`ROUND_HALF_UP` of
//! `decimal_round`, `strings/decimal.cc`, the rule of `functions/number_text.rs`): a stored
//! `1.555` shows `1.56`. More digits than a double holds (a `DECIMAL(30,10)` of 20 integer
//! digits) are not exact. An INSERT's literal is stored rounded to the scale
//! (`execute/insert_literals.rs`), and `CAST(x AS DECIMAL(5,2))` rounds the same way; a value
//! computed in SQLite (an UPDATE's `d = d / 3`) is stored as the double it is and only shown
//! rounded. A decimal turned into a string inside SQLite (`CONCAT(d)`, `CAST(d AS CHAR)`) is
//! given its scale by the rewrite, which passes its type (`rewrite/decimal_strings.rs`).
//!
//! A double of fixed decimals (`double(8,6)`: `PI()`'s type from `expr_type.rs`, or a column
//! declared so) is a `DOUBLE` (5) whose values are written with those decimals, as
//! `Protocol_text::store_double` writes one with `decimals < DECIMAL_NOT_SPECIFIED` (`my_fcvt`,
//! `sql/protocol_classic.cc`): `PI()` is `3.141593`, `ROUND(PI(), 2)` `3.14`. The column
//! definition's decimals byte is those decimals. A double of no fixed decimals (`double`)
//! has no kind: its values type it.
//!
//! In the binary protocol a decimal and JSON are strings, as in MySQL; a temporal value is
//! MySQL's `MYSQL_TIME` packing (`Protocol_binary::store_date` and kin), read from its text.

use std::io::{self, Write};

use opensrv_mysql::{Column, ColumnFlags, ColumnType, ToMysqlValue};

/// A column's type where it changes the wire (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `DECIMAL(precision, scale)`.
    Decimal {
        /// Digits in all.
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// `DATE`.
    Date,
    /// `DATETIME(fsp)`.
    Datetime(u8),
    /// `TIMESTAMP(fsp)`.
    Timestamp(u8),
    /// `TIME(fsp)`.
    Time(u8),
    /// `JSON`.
    Json,
    /// `DOUBLE(length, decimals)`: a double written with fixed decimals.
    FixedDouble {
        /// The column's length in characters.
        length: u8,
        /// Digits after the point.
        decimals: u8,
    },
}

impl Kind {
    /// The kind of a column declared `decl` (MySQL's type as written, or `expr_type.rs`'s
    /// `COLUMN_TYPE`); `None` for a type the values already say (an integer, a string).
    pub fn from_declared(decl: &str) -> Option<Kind> {
        let d = decl.trim_start().as_bytes();
        // Most declared types (`INT`, `CHAR(120)`) are none of these: one look.
        if !matches!(
            d.first().map(u8::to_ascii_lowercase),
            Some(b'd' | b'n' | b'f' | b't' | b'j' | b'r')
        ) {
            return None;
        }
        let word_end = d.iter().position(|b| !b.is_ascii_alphabetic());
        let word = &d[..word_end.unwrap_or(d.len())];
        let is = |w: &str| word.eq_ignore_ascii_case(w.as_bytes());
        let double = is("double") || is("real");
        if !(is("decimal") || is("dec") || is("numeric") || is("fixed"))
            && !(is("date") || is("datetime") || is("timestamp") || is("time") || is("json"))
            && !double
        {
            return None;
        }
        let (first, second) = args(decl);
        if double {
            // Fixed decimals only where both are given (`Field_double`: `double(8,6)`); at
            // most 30 (`DECIMAL_MAX_SCALE`, `NOT_FIXED_DEC` is 31).
            let decimals = second.filter(|&d| d <= 30)?;
            return Some(Kind::FixedDouble {
                length: first?,
                decimals,
            });
        }
        let fsp = first.unwrap_or(0).min(6);
        Some(match () {
            _ if is("date") => Kind::Date,
            _ if is("datetime") => Kind::Datetime(fsp),
            _ if is("timestamp") => Kind::Timestamp(fsp),
            _ if is("time") => Kind::Time(fsp),
            _ if is("json") => Kind::Json,
            // `DECIMAL` is `DECIMAL(10,0)`; at most `DECIMAL_MAX_PRECISION` (65) digits,
            // `DECIMAL_MAX_SCALE` (30) after the point.
            _ => Kind::Decimal {
                precision: first.unwrap_or(10).clamp(1, 65),
                scale: second.unwrap_or(0).min(30),
            },
        })
    }

    /// What the column definition says beside the type (`Protocol_classic::
    /// send_field_metadata`): the length in characters, the decimals, the character set
    /// (`binary`, 63, for a number and a temporal value; JSON's text is `utf8mb4_bin`
    /// (`Field_json::charset`), sent in the results' character set as a string is).
    pub fn metadata(self) -> (u32, u8, u16) {
        let frac = |fsp: u8| if fsp > 0 { u32::from(fsp) + 1 } else { 0 };
        match self {
            // `my_decimal_precision_to_length_no_truncation`: the digits, the point, a sign.
            Kind::Decimal { precision, scale } => {
                let len = u32::from(precision) + u32::from(scale > 0) + 1;
                (len, scale, BINARY)
            }
            Kind::Date => (10, 0, BINARY),
            Kind::Datetime(fsp) | Kind::Timestamp(fsp) => (19 + frac(fsp), fsp, BINARY),
            Kind::Time(fsp) => (10 + frac(fsp), fsp, BINARY),
            // `MAX_BLOB_WIDTH`.
            Kind::Json => (u32::MAX, 0, RESULTS),
            Kind::FixedDouble { length, decimals } => (length.into(), decimals, BINARY),
        }
    }

    /// The flags MySQL's definition has beside nullability and keys (`Field::all_flags`): a
    /// decimal's `NUM_FLAG`, which clients read as "a number" (`IS_NUM_FIELD`: `mysqldump`
    /// writes it unquoted), `BINARY_FLAG` where the character set is `binary`, JSON's
    /// `BLOB_FLAG` (`Field_json` is a `Field_blob`).
    pub fn flags(self) -> ColumnFlags {
        match self {
            Kind::Decimal { .. } | Kind::FixedDouble { .. } => {
                ColumnFlags::NUM_FLAG | ColumnFlags::BINARY_FLAG
            }
            Kind::Json => ColumnFlags::BLOB_FLAG,
            _ => ColumnFlags::BINARY_FLAG,
        }
    }

    /// The wire type MySQL sends.
    pub fn column_type(self) -> ColumnType {
        match self {
            Kind::Decimal { .. } => ColumnType::MYSQL_TYPE_NEWDECIMAL,
            Kind::Date => ColumnType::MYSQL_TYPE_DATE,
            Kind::Datetime(_) => ColumnType::MYSQL_TYPE_DATETIME,
            Kind::Timestamp(_) => ColumnType::MYSQL_TYPE_TIMESTAMP,
            Kind::Time(_) => ColumnType::MYSQL_TYPE_TIME,
            Kind::Json => ColumnType::MYSQL_TYPE_JSON,
            Kind::FixedDouble { .. } => ColumnType::MYSQL_TYPE_DOUBLE,
        }
    }
}

/// The character set `binary`'s number.
const BINARY: u16 = 63;
/// What opensrv-mysql sends for every text column: `utf8_general_ci`.
const RESULTS: u16 = 33;

/// The first two numbers of a type's parentheses (`DECIMAL(10,2)`: 10 and 2).
fn args(decl: &str) -> (Option<u8>, Option<u8>) {
    let inner = decl.split_once('(').and_then(|(_, r)| r.split_once(')'));
    let mut n = inner
        .map(|(a, _)| a)
        .unwrap_or("")
        .split(',')
        .map(|a| a.trim().parse::<u8>().ok());
    (n.next().flatten(), n.next().flatten())
}

/// The bytes a column's table name has when it carries its definition's metadata (see
/// [`definition_marker`]).
pub(super) const DEFINITION_MARKER_LEN: usize = 16;

/// The table name of a column of kind `k`: `\x01`, then the length (10 digits), decimals (2)
/// and character set (3) that opensrv-mysql 0.7 cannot write (it writes 1024, 0 and
/// `utf8_general_ci` for every column). The connection's stream moves them into the
/// definition and drops the name ([`patch_definition`]); MySQL's table name of an expression
/// column is empty, and so is this server's of every column.
pub(super) fn definition_marker(k: Kind) -> String {
    let (len, dec, cs) = k.metadata();
    format!("\u{1}{len:010}{dec:02}{cs:03}")
}

/// Whether payload `p` is a column definition whose table name is a [`definition_marker`]:
/// catalog `def`, an empty schema, a table name of the marker's length starting with `\x01`.
pub(super) fn is_marked_definition(p: &[u8]) -> bool {
    // Every packet of a result is looked at: the rarest byte first, one byte at a time.
    p.len() > 6 + DEFINITION_MARKER_LEN
        && p[6] == 1
        && p[5] == DEFINITION_MARKER_LEN as u8
        && p[0] == 3
        && p[1..5] == *b"def\0"
}

/// Writes the marker's metadata of definition `p` ([`is_marked_definition`]) into its fields
/// (character set, length, decimals); `false`, and nothing written, if `p` is not of that
/// shape. The marker itself is then dropped by the caller.
pub(super) fn patch_definition(p: &mut [u8]) -> bool {
    let m = &p[7..6 + DEFINITION_MARKER_LEN];
    let num = |r: std::ops::Range<usize>| std::str::from_utf8(&m[r]).ok()?.parse::<u64>().ok();
    let (Some(len), Some(dec), Some(cs)) = (num(0..10), num(10..12), num(12..15)) else {
        return false;
    };
    // After the table name: the original table's, the column's and the original column's
    // names (length-encoded), then 0x0C and the fixed fields.
    let mut i = 6 + DEFINITION_MARKER_LEN;
    for _ in 0..3 {
        let Some((n, width)) = lenenc(&p[i.min(p.len())..]) else {
            return false;
        };
        i += width + n;
    }
    if p.len() < i + 12 || p[i] != 0x0C {
        return false;
    }
    p[i + 1..i + 3].copy_from_slice(&(cs as u16).to_le_bytes());
    p[i + 3..i + 7].copy_from_slice(&(len as u32).to_le_bytes());
    p[i + 10] = dec as u8;
    true
}

/// A length-encoded integer at the start of `b`: its value and its bytes.
fn lenenc(b: &[u8]) -> Option<(usize, usize)> {
    let le = |n: usize| -> Option<usize> {
        let bytes = b.get(1..1 + n)?;
        Some(bytes.iter().rev().fold(0, |a, &x| a << 8 | usize::from(x)))
    };
    match *b.first()? {
        x @ 0..=0xFA => Some((usize::from(x), 1)),
        0xFC => Some((le(2)?, 3)),
        0xFD => Some((le(3)?, 4)),
        0xFE => Some((le(8)?, 9)),
        _ => None,
    }
}

/// The text of a value of a `DECIMAL(_, scale)` column given as `text` (an integer's, a
/// double's shortest, or text SQLite kept): `scale` digits after the point, rounded half away
/// from zero; `None` if `text` is no plain decimal number (kept as it is).
pub fn decimal_text(text: &str, scale: u8) -> Option<String> {
    // The one rule of decimal rounding (`functions/number_text.rs`).
    use crate::functions::{round_decimal, RoundMode};
    round_decimal(text, i64::from(scale), RoundMode::HalfUp)
}

/// A temporal value's text, sent as MySQL sends its type: as text in the text protocol, packed
/// in the binary one (see the module docs).
pub struct Temporal<'a>(pub &'a str);

impl ToMysqlValue for Temporal<'_> {
    fn to_mysql_text<W: Write>(&self, w: &mut W) -> io::Result<()> {
        self.0.to_mysql_text(w)
    }

    fn to_mysql_bin<W: Write>(&self, w: &mut W, c: &Column) -> io::Result<()> {
        let packed = match c.coltype {
            ColumnType::MYSQL_TYPE_TIME => pack_time(self.0),
            _ => pack_datetime(self.0),
        };
        // What does not read as a date or time is sent as a zero one (length 0).
        let packed = packed.unwrap_or_default();
        w.write_all(&[packed.len() as u8])?;
        w.write_all(&packed)
    }
}

/// A double, sent as MySQL sends one: in the text protocol MySQL's text of it
/// (`Protocol_text::store_double`, `my_gcvt`: `1e20`, `0.30000000000000004`; opensrv-mysql
/// would write Rust's `100000000000000000000`), in the binary one its 8 bytes.
pub struct Double(pub f64);

impl ToMysqlValue for Double {
    fn to_mysql_text<W: Write>(&self, w: &mut W) -> io::Result<()> {
        crate::functions::real_text(self.0).to_mysql_text(w)
    }

    fn to_mysql_bin<W: Write>(&self, w: &mut W, c: &Column) -> io::Result<()> {
        self.0.to_mysql_bin(w, c)
    }
}

/// A double of fixed decimals (`Kind::FixedDouble`), sent as MySQL sends one: in the text
/// protocol with those decimals (`my_fcvt`: `3.141593`), in the binary one its 8 bytes.
pub struct FixedDouble(pub f64, pub u8);

impl FixedDouble {
    /// The value of `cell` in a column of `decimals` fixed decimals; `None` for what is no
    /// number (NULL, text SQLite kept), which is written as it is.
    pub(super) fn of(cell: &super::Cell, decimals: u8) -> Option<FixedDouble> {
        match *cell {
            super::Cell::Real(x) if x.is_finite() => Some(FixedDouble(x, decimals)),
            super::Cell::Int(n) => Some(FixedDouble(n as f64, decimals)),
            _ => None,
        }
    }
}

impl ToMysqlValue for FixedDouble {
    fn to_mysql_text<W: Write>(&self, w: &mut W) -> io::Result<()> {
        format!("{:.*}", usize::from(self.1), self.0).to_mysql_text(w)
    }

    fn to_mysql_bin<W: Write>(&self, w: &mut W, c: &Column) -> io::Result<()> {
        self.0.to_mysql_bin(w, c)
    }
}

/// `YYYY-MM-DD[ hh:mm:ss[.ffffff]]` as `Protocol_binary::store_date` / `store_datetime` pack
/// it: 4 bytes for a date, 7 with a time, 11 with microseconds; none for a zero one.
fn pack_datetime(s: &str) -> Option<Vec<u8>> {
    let (date, time) = s.trim().split_once([' ', 'T']).unwrap_or((s.trim(), ""));
    let mut d = date.splitn(3, '-').map(|p| p.parse::<u32>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let (h, mi, sec, us) = if time.is_empty() {
        (0, 0, 0, 0)
    } else {
        clock(time)?
    };
    let mut out = Vec::with_capacity(11);
    out.extend_from_slice(&u16::try_from(y).ok()?.to_le_bytes());
    out.extend([m, day].map(|v| v as u8));
    if (y, m, day, h, mi, sec, us) == (0, 0, 0, 0, 0, 0, 0) {
        return Some(Vec::new());
    }
    if (h, mi, sec, us) != (0, 0, 0, 0) {
        out.extend([h, mi, sec].map(|v| v as u8));
    }
    if us != 0 {
        out.extend_from_slice(&us.to_le_bytes());
    }
    Some(out)
}

/// `[-]hhh:mm:ss[.ffffff]` as `Protocol_binary::store_time` packs it: sign, days, hours,
/// minutes, seconds (8 bytes), microseconds (12); none for zero.
fn pack_time(s: &str) -> Option<Vec<u8>> {
    let s = s.trim();
    let (neg, t) = match s.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, s),
    };
    let (h, m, sec, us) = clock(t)?;
    if (h, m, sec, us) == (0, 0, 0, 0) {
        return Some(Vec::new());
    }
    let mut out = vec![u8::from(neg)];
    out.extend_from_slice(&(h / 24).to_le_bytes());
    out.extend([h % 24, m, sec].map(|v| v as u8));
    if us != 0 {
        out.extend_from_slice(&us.to_le_bytes());
    }
    Some(out)
}

/// `h:mm:ss[.ffffff]`: hours, minutes, seconds, microseconds.
fn clock(t: &str) -> Option<(u32, u32, u32, u32)> {
    let (hms, frac) = t.split_once('.').unwrap_or((t, ""));
    let mut p = hms.splitn(3, ':').map(|p| p.parse::<u32>().ok());
    let (h, m, s) = (p.next()??, p.next()??, p.next()??);
    let digits: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
    let us = if frac.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    Some((h, m, s, us))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_show_their_scale_rounded_half_away_from_zero() {
        let cases = [
            ("1.5", 2, "1.50"),
            ("3", 2, "3.00"),
            ("1.555", 2, "1.56"),
            ("-1.555", 2, "-1.56"),
            ("9.995", 2, "10.00"),
            ("-0.001", 2, "0.00"),
            ("0.30000000000000004", 2, "0.30"),
            ("2.5", 0, "3"),
            ("12", 0, "12"),
            (".5", 1, "0.5"),
            ("007.1", 1, "7.1"),
        ];
        for (text, scale, want) in cases {
            assert_eq!(decimal_text(text, scale).as_deref(), Some(want), "{text}");
        }
        assert_eq!(decimal_text("abc", 2), None);
        assert_eq!(decimal_text("1e5", 2), None);
    }

    #[test]
    fn kinds_come_from_declared_types() {
        assert_eq!(
            Kind::from_declared("DECIMAL(10,2)"),
            Some(Kind::Decimal {
                precision: 10,
                scale: 2
            })
        );
        assert_eq!(
            Kind::from_declared("decimal(14,4) unsigned"),
            Some(Kind::Decimal {
                precision: 14,
                scale: 4
            })
        );
        assert_eq!(
            Kind::from_declared("numeric"),
            Some(Kind::Decimal {
                precision: 10,
                scale: 0
            })
        );
        assert_eq!(Kind::from_declared("datetime(3)"), Some(Kind::Datetime(3)));
        assert_eq!(Kind::Datetime(3).metadata(), (23, 3, 63));
        assert_eq!(
            Kind::from_declared("DECIMAL(10,2)").map(Kind::metadata),
            Some((12, 2, 63))
        );
        assert_eq!(Kind::from_declared("DATE"), Some(Kind::Date));
        assert_eq!(Kind::from_declared("json"), Some(Kind::Json));
        assert_eq!(Kind::from_declared("INT"), None);
        assert_eq!(Kind::from_declared("char(120)"), None);
        assert_eq!(Kind::from_declared("tinytext"), None);
        assert_eq!(
            Kind::from_declared("double(8,6)"),
            Some(Kind::FixedDouble {
                length: 8,
                decimals: 6
            })
        );
        assert_eq!(
            Kind::from_declared("double(8,6)").map(Kind::metadata),
            Some((8, 6, 63))
        );
        assert_eq!(Kind::from_declared("double"), None);
        assert_eq!(Kind::from_declared("real"), None);
    }

    #[test]
    fn fixed_doubles_show_their_decimals() {
        let text = |x: f64, d: u8| {
            let mut out = Vec::new();
            FixedDouble(x, d).to_mysql_text(&mut out).unwrap();
            out
        };
        assert_eq!(text(std::f64::consts::PI, 6), b"\x083.141593");
        assert_eq!(text(std::f64::consts::PI, 2), b"\x043.14");
        assert_eq!(text(2.0, 3), b"\x052.000");
    }

    #[test]
    fn temporals_pack_as_mysql_time() {
        assert_eq!(pack_datetime("2024-05-06"), Some(vec![0xE8, 7, 5, 6]));
        assert_eq!(
            pack_datetime("2024-05-06 07:08:09"),
            Some(vec![0xE8, 7, 5, 6, 7, 8, 9])
        );
        assert_eq!(
            pack_datetime("2024-05-06 07:08:09.5"),
            Some(vec![0xE8, 7, 5, 6, 7, 8, 9, 0x20, 0xA1, 7, 0])
        );
        assert_eq!(pack_datetime("0000-00-00 00:00:00"), Some(vec![]));
        assert_eq!(pack_time("-25:01:02"), Some(vec![1, 1, 0, 0, 0, 1, 1, 2]));
        assert_eq!(pack_datetime("nonsense"), None);
    }
}
