//! The parameters of a `COM_STMT_EXECUTE`, as SQLite's values.
//!
//! opensrv-mysql 0.7 decodes the packet's parameter block (`Params::next`, its `params.rs`)
//! without checking it: a NULL bitmap, types or values shorter than the statement's parameters
//! need, or a type byte MySQL does not have, panic on the connection's thread. A client's bad
//! packet is MySQL's `ER_MALFORMED_PACKET` (1835, as `mysqld_stmt_execute` answers one,
//! `sql/sql_prepare.cc`), and the connection goes on; so the decoding runs under
//! `catch_unwind`. Its state is the packet being read and the statement's bound types, which
//! the next execution sends again or the connection closes with, so nothing it leaves half
//! done is read after.
//!
//! Dates and times arrive in the binary protocol's form (MySQL's client/server protocol,
//! `MYSQL_TIME` in `COM_STMT_EXECUTE`: a length, then year, month, day, hour, minute, second,
//! microseconds as present) and go to SQLite as MySQL's text for them, `2024-05-06 07:08:09`,
//! which is how this server stores and compares them.

use std::panic::{catch_unwind, AssertUnwindSafe};

use opensrv_mysql::{ParamParser, ValueInner};
use rusqlite::types::Value;

use crate::error::ServerError;

/// The values of an execution's parameters, in order.
///
/// # Errors
/// 1835 for a malformed parameter block.
pub(crate) fn decode(params: ParamParser<'_>) -> Result<Vec<Value>, ServerError> {
    let decoded = catch_unwind(AssertUnwindSafe(|| {
        (params.into_iter())
            .map(|p| value(p.value.into_inner()))
            .collect::<Option<Vec<Value>>>()
    }));
    decoded.ok().flatten().ok_or_else(malformed)
}

/// `ER_MALFORMED_PACKET`.
fn malformed() -> ServerError {
    ServerError::new(1835, "HY000", "Malformed communication packet.")
}

/// One parameter as SQLite's value; `None` for a date or time of a length the protocol does
/// not have.
fn value(v: ValueInner<'_>) -> Option<Value> {
    Some(match v {
        ValueInner::NULL => Value::Null,
        ValueInner::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => Value::Text(s.to_string()),
            Err(_) => Value::Blob(b.to_vec()),
        },
        ValueInner::Int(i) => Value::Integer(i),
        ValueInner::UInt(u) => i64::try_from(u).map_or(Value::Real(u as f64), Value::Integer),
        ValueInner::Double(d) => Value::Real(d),
        ValueInner::Date(b) => Value::Text(date_time(b, false)?),
        ValueInner::Datetime(b) => Value::Text(date_time(b, true)?),
        ValueInner::Time(b) => Value::Text(time(b)?),
    })
}

/// A `MYSQL_TYPE_DATE` (`with_time` false) or `DATETIME` / `TIMESTAMP` value: 0, 4, 7 or 11
/// bytes (year as 2 little-endian bytes, month, day; hour, minute, second; microseconds as 4).
fn date_time(b: &[u8], with_time: bool) -> Option<String> {
    if !matches!(b.len(), 0 | 4 | 7 | 11) {
        return None;
    }
    let byte = |i: usize| b.get(i).copied().unwrap_or(0);
    let year = u16::from_le_bytes([byte(0), byte(1)]);
    let date = format!("{year:04}-{:02}-{:02}", byte(2), byte(3));
    if !with_time {
        return Some(date);
    }
    let mut out = format!("{date} {:02}:{:02}:{:02}", byte(4), byte(5), byte(6));
    push_micros(&mut out, b.get(7..11));
    Some(out)
}

/// A `MYSQL_TYPE_TIME` value: 0, 8 or 12 bytes (negative, days as 4 bytes, hour, minute,
/// second; microseconds as 4), as MySQL prints a TIME: `[-]H:MM:SS[.ffffff]`, the days counted
/// into the hours.
fn time(b: &[u8]) -> Option<String> {
    if !matches!(b.len(), 0 | 8 | 12) {
        return None;
    }
    let byte = |i: usize| b.get(i).copied().unwrap_or(0);
    let days = u32::from_le_bytes([byte(1), byte(2), byte(3), byte(4)]);
    let hours = u64::from(days) * 24 + u64::from(byte(5));
    let sign = if byte(0) == 1 { "-" } else { "" };
    let mut out = format!("{sign}{hours:02}:{:02}:{:02}", byte(6), byte(7));
    push_micros(&mut out, b.get(8..12));
    Some(out)
}

/// `.ffffff` for microseconds other than 0, as MySQL prints a value with them.
fn push_micros(out: &mut String, bytes: Option<&[u8]>) {
    let Some(&[a, b, c, d]) = bytes else { return };
    let micros = u32::from_le_bytes([a, b, c, d]);
    if micros != 0 {
        out.push_str(&format!(".{micros:06}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The protocol's lengths: a date alone, with a time, with microseconds, and zero.
    #[test]
    fn dates_and_times_as_mysql_prints_them() {
        let y = 2024u16.to_le_bytes();
        assert_eq!(date_time(&[y[0], y[1], 5, 6], false).unwrap(), "2024-05-06");
        assert_eq!(
            date_time(&[y[0], y[1], 5, 6], true).unwrap(),
            "2024-05-06 00:00:00"
        );
        assert_eq!(
            date_time(&[y[0], y[1], 5, 6, 7, 8, 9], true).unwrap(),
            "2024-05-06 07:08:09"
        );
        let us = 1500u32.to_le_bytes();
        let long = [y[0], y[1], 5, 6, 7, 8, 9, us[0], us[1], us[2], us[3]];
        assert_eq!(
            date_time(&long, true).unwrap(),
            "2024-05-06 07:08:09.001500"
        );
        assert_eq!(date_time(&[], true).unwrap(), "0000-00-00 00:00:00");
        assert_eq!(date_time(&[1, 2, 3], true), None);
        assert_eq!(time(&[]).unwrap(), "00:00:00");
        assert_eq!(time(&[1, 1, 0, 0, 0, 2, 3, 4]).unwrap(), "-26:03:04");
        assert_eq!(
            time(&[0, 0, 0, 0, 0, 2, 3, 4, 1, 0, 0, 0]).unwrap(),
            "02:03:04.000001"
        );
        assert_eq!(time(&[0; 5]), None);
    }
}
