//! Date arithmetic: `DATE_ADD`, `DATE_SUB`, `TIMESTAMPADD` and `TIMESTAMPDIFF` (manual, 14.7;
//! source `sql/item_timefunc.cc`: `get_interval_value`, `Item_date_add_interval`,
//! `Item_func_timestamp_diff`; `date_add_interval`, `calc_time_diff`).
//!
//! SQLite has no `INTERVAL` syntax, so the rewrite (`rewrite.rs`) hands these functions the
//! unit as an upper-case string: `x + INTERVAL n DAY`, `DATE_ADD(x, INTERVAL n DAY)` and
//! `ADDDATE(x, n)` become `DATE_ADD(x, n, 'DAY')`; `x - INTERVAL ...`, `DATE_SUB` and
//! `SUBDATE` become `DATE_SUB(x, n, 'UNIT')`; `TIMESTAMPADD(DAY, n, x)` becomes
//! `TIMESTAMPADD('DAY', n, x)`, and so `TIMESTAMPDIFF` and `EXTRACT('UNIT', x)`.
//!
//! As in MySQL, a DATE plus days or more stays a DATE (`'2024-01-31' + INTERVAL 1 MONTH` is
//! `'2024-02-29'`: the day clamps to the month's last), anything else gives a DATETIME, with
//! six fraction digits when it has a fraction; a TIME plus a time interval is a TIME; a result
//! before year 0 or after 9999, or an argument that is no date, is NULL.

use std::sync::Arc;

use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};

use super::calendar::{days_in_month, from_daynr, is_leap, DAY_SECONDS, MAX_DAY_NUMBER};
use super::clock::StatementClock;
use super::temporal::{
    date_arg, is_time_text, str_to_time, Dates, Kind, Temporal, TIME_MAX_SECONDS,
};
use super::{flags, int, number_prefix, text};

/// MySQL's interval units (`interval_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unit {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Microsecond,
    YearMonth,
    DayHour,
    DayMinute,
    DaySecond,
    HourMinute,
    HourSecond,
    MinuteSecond,
    DayMicrosecond,
    HourMicrosecond,
    MinuteMicrosecond,
    SecondMicrosecond,
}

impl Unit {
    /// The unit named `name` (any case).
    pub(super) fn parse(name: &str) -> Option<Unit> {
        use Unit as U;
        Some(match name.to_ascii_uppercase().as_str() {
            "YEAR" => U::Year,
            "QUARTER" => U::Quarter,
            "MONTH" => U::Month,
            "WEEK" => U::Week,
            "DAY" => U::Day,
            "HOUR" => U::Hour,
            "MINUTE" => U::Minute,
            "SECOND" => U::Second,
            "MICROSECOND" => U::Microsecond,
            "YEAR_MONTH" => U::YearMonth,
            "DAY_HOUR" => U::DayHour,
            "DAY_MINUTE" => U::DayMinute,
            "DAY_SECOND" => U::DaySecond,
            "HOUR_MINUTE" => U::HourMinute,
            "HOUR_SECOND" => U::HourSecond,
            "MINUTE_SECOND" => U::MinuteSecond,
            "DAY_MICROSECOND" => U::DayMicrosecond,
            "HOUR_MICROSECOND" => U::HourMicrosecond,
            "MINUTE_MICROSECOND" => U::MinuteMicrosecond,
            "SECOND_MICROSECOND" => U::SecondMicrosecond,
            _ => return None,
        })
    }

    /// A compound unit's fields, most significant first, and whether its last is
    /// microseconds; None for a simple unit.
    fn fields(self) -> Option<(&'static [Field], bool)> {
        use Field as F;
        use Unit as U;
        Some(match self {
            U::YearMonth => (&[F::Year, F::Month], false),
            U::DayHour => (&[F::Day, F::Hour], false),
            U::DayMinute => (&[F::Day, F::Hour, F::Minute], false),
            U::DaySecond => (&[F::Day, F::Hour, F::Minute, F::Second], false),
            U::HourMinute => (&[F::Hour, F::Minute], false),
            U::HourSecond => (&[F::Hour, F::Minute, F::Second], false),
            U::MinuteSecond => (&[F::Minute, F::Second], false),
            U::DayMicrosecond => (&[F::Day, F::Hour, F::Minute, F::Second, F::Micro], true),
            U::HourMicrosecond => (&[F::Hour, F::Minute, F::Second, F::Micro], true),
            U::MinuteMicrosecond => (&[F::Minute, F::Second, F::Micro], true),
            U::SecondMicrosecond => (&[F::Second, F::Micro], true),
            _ => return None,
        })
    }
}

/// One field of an interval.
#[derive(Clone, Copy)]
enum Field {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Micro,
}

/// An interval (`Interval`): unsigned fields and a sign.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Interval {
    neg: bool,
    year: u64,
    month: u64,
    day: u64,
    hour: u64,
    minute: u64,
    second: u64,
    micro: u64,
}

impl Interval {
    fn set(&mut self, field: Field, v: u64) {
        match field {
            Field::Year => self.year = v,
            Field::Month => self.month = v,
            Field::Day => self.day = v,
            Field::Hour => self.hour = v,
            Field::Minute => self.minute = v,
            Field::Second => self.second = v,
            Field::Micro => self.micro = v,
        }
    }

    /// The signed length of its day and time fields, in microseconds.
    fn micros(&self) -> i128 {
        let secs = (i128::from(self.day) * 24 + i128::from(self.hour)) * 3600
            + i128::from(self.minute) * 60
            + i128::from(self.second);
        let m = secs * 1_000_000 + i128::from(self.micro);
        if self.neg {
            -m
        } else {
            m
        }
    }
}

/// Registers the date arithmetic on `db`; TIME arguments read the statement's date, so none
/// is deterministic.
pub(super) fn register(
    db: &rusqlite::Connection,
    clock: &Arc<StatementClock>,
) -> rusqlite::Result<()> {
    let f = flags(false);
    for (name, sub) in [("DATE_ADD", false), ("DATE_SUB", true)] {
        let c = clock.clone();
        db.create_scalar_function(name, 3, f, move |ctx| {
            let unit = unit_arg(ctx, 2, name)?;
            Ok(add(ctx, 0, 1, unit, sub, &c))
        })?;
    }
    let c = clock.clone();
    db.create_scalar_function("TIMESTAMPADD", 3, f, move |ctx| {
        let unit = unit_arg(ctx, 0, "TIMESTAMPADD")?;
        Ok(add(ctx, 2, 1, unit, false, &c))
    })?;
    let c = clock.clone();
    db.create_scalar_function("TIMESTAMPDIFF", 3, f, move |ctx| {
        let unit = unit_arg(ctx, 0, "TIMESTAMPDIFF")?;
        let a = date_arg(ctx, 1, Dates::Whole, &c);
        let b = date_arg(ctx, 2, Dates::Whole, &c);
        Ok(match (a, b) {
            (Some(a), Some(b)) => timestamp_diff(unit, &a, &b).map_or(Value::Null, Value::Integer),
            _ => Value::Null,
        })
    })
}

/// Argument `i`, a unit's name; an error for none (MySQL refuses one when parsing).
pub(super) fn unit_arg(ctx: &Context<'_>, i: usize, function: &str) -> rusqlite::Result<Unit> {
    let name = text(ctx, i).unwrap_or_default();
    Unit::parse(&name).ok_or_else(|| {
        rusqlite::Error::UserFunctionError(
            format!("Unknown interval unit '{name}' in {function}").into(),
        )
    })
}

/// `x + INTERVAL n unit` (minus when `sub`), `x` argument `at`, `n` argument `n_at`.
fn add(
    ctx: &Context<'_>,
    at: usize,
    n_at: usize,
    unit: Unit,
    sub: bool,
    clock: &StatementClock,
) -> Value {
    let Some(mut iv) = interval_arg(ctx, n_at, unit) else {
        return Value::Null;
    };
    iv.neg ^= sub;
    let sum = match ctx.get_raw(at) {
        ValueRef::Text(b) | ValueRef::Blob(b) if is_time_text(b) => {
            str_to_time(b).and_then(|t| add_to_time(&t, &iv))
        }
        _ => date_arg(ctx, at, Dates::Whole, clock).and_then(|t| add_to_date(t, unit, &iv)),
    };
    sum.map_or(Value::Null, |t| Value::Text(t.text_auto()))
}

/// `get_interval_value`: argument `i` as an interval of `unit`; None for NULL or for what is
/// no such interval.
fn interval_arg(ctx: &Context<'_>, i: usize, unit: Unit) -> Option<Interval> {
    let mut iv = Interval::default();
    if let Some((fields, micro_last)) = unit.fields() {
        let values = interval_fields(&text(ctx, i)?, fields.len(), micro_last, &mut iv.neg)?;
        for (field, v) in fields.iter().zip(values) {
            iv.set(*field, v);
        }
        return Some(iv);
    }
    // SECOND with a fraction (a real, or a string): seconds and microseconds.
    let fraction = match (unit, ctx.get_raw(i)) {
        (Unit::Second, ValueRef::Real(x)) => Some(x),
        (Unit::Second, ValueRef::Text(t)) => Some(number_prefix(&String::from_utf8_lossy(t))),
        _ => None,
    };
    if let Some(x) = fraction {
        let micros = (x.abs() * 1e6).round();
        if !micros.is_finite() || micros >= 9.2e18 {
            return None;
        }
        let micros = micros as u64;
        iv.neg = x < 0.0;
        (iv.second, iv.micro) = (micros / 1_000_000, micros % 1_000_000);
        return Some(iv);
    }
    let v = int(ctx, i)?;
    if v == i64::MIN {
        return None;
    }
    iv.neg = v < 0;
    let v = v.unsigned_abs();
    match unit {
        Unit::Year => iv.year = v,
        Unit::Quarter if v < u64::from(u32::MAX / 3) => iv.month = v * 3,
        Unit::Month => iv.month = v,
        Unit::Week if v < u64::from(u32::MAX / 7) => iv.day = v * 7,
        Unit::Day => iv.day = v,
        Unit::Hour => iv.hour = v,
        Unit::Minute => iv.minute = v,
        Unit::Second => iv.second = v,
        Unit::Microsecond => iv.micro = v,
        _ => return None,
    }
    Some(iv)
}

/// `get_interval_info`: the `count` numbers of a compound interval (`'1 2:03:04'`), any
/// non-digits between them; fewer numbers fill the least significant fields. A leading `-`
/// makes it negative; more numbers than fields make it none. With `micro_last`, a last
/// number of fewer than six digits is a fraction (`'1.5'` is 1 s 500000 µs).
fn interval_fields(s: &str, count: usize, micro_last: bool, neg: &mut bool) -> Option<Vec<u64>> {
    let b = s.as_bytes();
    let mut at = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    if b.get(at) == Some(&b'-') {
        *neg = true;
        at += 1;
    }
    let skip = |at: &mut usize| {
        while *at < b.len() && !b[*at].is_ascii_digit() {
            *at += 1;
        }
    };
    skip(&mut at);
    let mut values = vec![0u64; count];
    let mut last_digits = 0;
    for i in 0..count {
        let start = at;
        let mut v: u64 = 0;
        while at < b.len() && b[at].is_ascii_digit() {
            v = v.checked_mul(10)?.checked_add(u64::from(b[at] - b'0'))?;
            if v > i64::MAX as u64 / 10 {
                return None;
            }
            at += 1;
        }
        last_digits = at - start;
        values[i] = v;
        skip(&mut at);
        if at == b.len() && i + 1 != count {
            values.rotate_left(i + 1); // the numbers read go to the low end, zeros above
            break;
        }
    }
    if micro_last && last_digits < 6 {
        let last = values.last_mut()?;
        *last *= 10u64.pow(6 - last_digits as u32);
    }
    (at == b.len()).then_some(values)
}

/// `date_add_interval`: a date of the calendar plus an interval of `unit`.
fn add_to_date(t: Temporal, unit: Unit, iv: &Interval) -> Option<Temporal> {
    let sign: i128 = if iv.neg { -1 } else { 1 };
    match unit {
        Unit::Day | Unit::Week => {
            let period = i128::from(t.daynr()?) + sign * i128::from(iv.day);
            if !(0..=i128::from(MAX_DAY_NUMBER)).contains(&period) {
                return None;
            }
            let (year, month, day) = from_daynr(period as i64);
            Some(Temporal {
                year,
                month,
                day,
                ..t
            })
        }
        Unit::Year => {
            let year = i128::from(t.year) + sign * i128::from(iv.year);
            let year = u32::try_from(year).ok().filter(|y| *y < 10_000)?;
            let day = if t.month == 2 && t.day == 29 && !is_leap(year) {
                28
            } else {
                t.day
            };
            Some(Temporal { year, day, ..t })
        }
        Unit::YearMonth | Unit::Quarter | Unit::Month => {
            let period = i128::from(t.year) * 12 + i128::from(t.month) - 1
                + sign * (i128::from(iv.year) * 12 + i128::from(iv.month));
            if !(0..120_000).contains(&period) {
                return None;
            }
            let (year, month) = ((period / 12) as u32, (period % 12) as u32 + 1);
            let day = t.day.min(days_in_month(year, month));
            Some(Temporal {
                year,
                month,
                day,
                ..t
            })
        }
        _ => {
            // The day fields bounded as MySQL bounds them before it adds.
            let max = u64::try_from(MAX_DAY_NUMBER).ok()?;
            if iv.day > max
                || iv.hour > max * 24
                || iv.minute > max * 1440
                || iv.second > max * 86_400
            {
                return None;
            }
            let micros = i128::from(t.micros()?) + iv.micros();
            let r = Temporal::at_micros(i64::try_from(micros).ok()?)?;
            Some(Temporal {
                kind: Kind::DateTime,
                ..r
            })
        }
    }
}

/// `Item_date_add_interval::get_time_internal`: a TIME plus an interval of days or less;
/// None past ±838:59:59 or for months and years.
fn add_to_time(t: &Temporal, iv: &Interval) -> Option<Temporal> {
    if iv.year != 0 || iv.month != 0 {
        return None;
    }
    let max = i128::from(TIME_MAX_SECONDS) * 1_000_000;
    let sum = i128::from(t.micros()?) + iv.micros();
    if sum.abs() > max {
        return None;
    }
    Some(Temporal::time(sum as i64))
}

/// `Item_func_timestamp_diff`: `b - a` in whole `unit`s, months by the calendar (a month
/// is whole when `b`'s day and time of day reach `a`'s); None for a compound unit.
fn timestamp_diff(unit: Unit, a: &Temporal, b: &Temporal) -> Option<i64> {
    let diff = b.micros()? - a.micros()?;
    let sign = if diff < 0 { -1 } else { 1 };
    let (seconds, micros) = (diff.abs() / 1_000_000, diff.abs() % 1_000_000);
    let months = || {
        let (beg, end) = if diff < 0 { (b, a) } else { (a, b) };
        let mut months = (i64::from(end.year) - i64::from(beg.year)) * 12 + i64::from(end.month)
            - i64::from(beg.month);
        let later_in_month =
            (end.day, end.seconds_of_day(), end.micro) < (beg.day, beg.seconds_of_day(), beg.micro);
        if later_in_month {
            months -= 1;
        }
        months
    };
    Some(
        sign * match unit {
            Unit::Year => months() / 12,
            Unit::Quarter => months() / 3,
            Unit::Month => months(),
            Unit::Week => seconds / DAY_SECONDS / 7,
            Unit::Day => seconds / DAY_SECONDS,
            Unit::Hour => seconds / 3600,
            Unit::Minute => seconds / 60,
            Unit::Second => seconds,
            Unit::Microsecond => seconds * 1_000_000 + micros,
            _ => return None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn compound_intervals_read_as_mysql_reads_them() {
        let mut neg = false;
        assert_eq!(
            interval_fields("1 2:03:04", 4, false, &mut neg),
            Some(vec![1, 2, 3, 4])
        );
        assert_eq!(
            interval_fields("2:03", 4, false, &mut neg),
            Some(vec![0, 0, 2, 3])
        );
        assert_eq!(
            interval_fields("1.5", 2, true, &mut neg),
            Some(vec![1, 500_000])
        );
        assert_eq!(interval_fields("1:2:3", 2, false, &mut neg), None);
        assert!(!neg);
        assert_eq!(
            interval_fields(" -1:30", 2, false, &mut neg),
            Some(vec![1, 30])
        );
        assert!(neg);
    }

    #[test]
    fn dates_add_as_mysqls() {
        let db = db();
        let cases = [
            ("DATE_ADD('2024-01-31', 1, 'MONTH')", t("2024-02-29")),
            ("DATE_ADD('2023-01-31', 1, 'MONTH')", t("2023-02-28")),
            ("DATE_ADD('2024-02-29', 1, 'YEAR')", t("2025-02-28")),
            ("DATE_ADD('2024-12-31', 1, 'DAY')", t("2025-01-01")),
            ("DATE_ADD('2024-12-31', 2, 'WEEK')", t("2025-01-14")),
            ("DATE_ADD('2024-12-31', 1, 'QUARTER')", t("2025-03-31")),
            (
                "DATE_ADD('2024-12-31', '1-2', 'YEAR_MONTH')",
                t("2026-02-28"),
            ),
            (
                "DATE_ADD('2024-12-31', 1, 'HOUR')",
                t("2024-12-31 01:00:00"),
            ),
            (
                "DATE_ADD('2024-12-31 23:59:59', 1, 'SECOND')",
                t("2025-01-01 00:00:00"),
            ),
            (
                "DATE_ADD('2024-12-31 23:59:59', 1, 'DAY')",
                t("2025-01-01 23:59:59"),
            ),
            (
                "DATE_ADD('2024-01-01', 1.5, 'SECOND')",
                t("2024-01-01 00:00:01.500000"),
            ),
            (
                "DATE_ADD('2024-01-01', 1, 'MICROSECOND')",
                t("2024-01-01 00:00:00.000001"),
            ),
            (
                "DATE_ADD('2024-01-01', '1:30', 'HOUR_MINUTE')",
                t("2024-01-01 01:30:00"),
            ),
            (
                "DATE_ADD('2024-01-01', '1 2:03:04', 'DAY_SECOND')",
                t("2024-01-02 02:03:04"),
            ),
            (
                "DATE_ADD('2024-01-01', '-1 1', 'DAY_HOUR')",
                t("2023-12-30 23:00:00"),
            ),
            (
                "DATE_ADD('2024-01-01', '1.5', 'SECOND_MICROSECOND')",
                t("2024-01-01 00:00:01.500000"),
            ),
            ("DATE_SUB('2024-03-31', 1, 'MONTH')", t("2024-02-29")),
            (
                "DATE_SUB('2024-01-01', 1, 'SECOND')",
                t("2023-12-31 23:59:59"),
            ),
            ("DATE_SUB('2024-01-01', -1, 'DAY')", t("2024-01-02")),
            ("DATE_ADD(20240101, 1, 'DAY')", t("2024-01-02")),
            ("DATE_ADD('10:00:00', 90, 'MINUTE')", t("11:30:00")),
            ("DATE_SUB('00:00:01', 2, 'SECOND')", t("-00:00:01")),
            ("DATE_ADD('10:00:00', 1, 'MONTH')", Value::Null),
            ("DATE_ADD('9999-12-31', 1, 'DAY')", Value::Null),
            ("DATE_SUB('0000-01-01', 1, 'YEAR')", Value::Null),
            ("DATE_ADD('0001-01-01', -1, 'DAY')", t("0000-00-00")),
            ("DATE_ADD('2024-02-30', 1, 'DAY')", Value::Null),
            ("DATE_ADD('2024-00-10', 1, 'DAY')", Value::Null),
            ("DATE_ADD('0000-00-00', 1, 'DAY')", Value::Null),
            ("DATE_ADD(NULL, 1, 'DAY')", Value::Null),
            ("DATE_ADD('2024-01-01', NULL, 'DAY')", Value::Null),
            (
                "DATE_ADD('2024-01-01', '1:2:3', 'HOUR_MINUTE')",
                Value::Null,
            ),
            (
                "TIMESTAMPADD('MINUTE', 1, '2003-01-02')",
                t("2003-01-02 00:01:00"),
            ),
            ("TIMESTAMPADD('WEEK', 1, '2003-01-02')", t("2003-01-09")),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
        let err = db.query_row("SELECT DATE_ADD('2024-01-01', 1, 'FORTNIGHT')", [], |r| {
            r.get::<_, String>(0)
        });
        assert!(
            format!("{err:?}").contains("Unknown interval unit 'FORTNIGHT'"),
            "{err:?}"
        );
    }

    #[test]
    fn timestamps_differ_as_mysqls() {
        let db = db();
        let i = Value::Integer;
        let cases = [
            // The manual's examples.
            ("TIMESTAMPDIFF('MONTH', '2003-02-01', '2003-05-01')", i(3)),
            ("TIMESTAMPDIFF('YEAR', '2002-05-01', '2001-01-01')", i(-1)),
            (
                "TIMESTAMPDIFF('MINUTE', '2003-02-01', '2003-05-01 12:05:55')",
                i(128_885),
            ),
            // Months count whole months of the calendar.
            ("TIMESTAMPDIFF('MONTH', '2024-01-31', '2024-02-29')", i(0)),
            ("TIMESTAMPDIFF('MONTH', '2024-01-31', '2024-03-31')", i(2)),
            (
                "TIMESTAMPDIFF('MONTH', '2024-01-31 12:00:00', '2024-03-31 11:59:59')",
                i(1),
            ),
            ("TIMESTAMPDIFF('MONTH', '2024-03-31', '2024-01-31')", i(-2)),
            ("TIMESTAMPDIFF('QUARTER', '2024-01-01', '2024-12-31')", i(3)),
            ("TIMESTAMPDIFF('WEEK', '2024-01-01', '2024-01-14')", i(1)),
            (
                "TIMESTAMPDIFF('DAY', '2024-01-02', '2024-01-01 00:00:01')",
                i(0),
            ),
            ("TIMESTAMPDIFF('HOUR', '2024-01-01', '2024-01-02')", i(24)),
            (
                "TIMESTAMPDIFF('SECOND', '2024-01-01 00:00:01', '2024-01-01')",
                i(-1),
            ),
            (
                "TIMESTAMPDIFF('MICROSECOND', '2024-01-01', '2024-01-01 00:00:00.25')",
                i(250_000),
            ),
            (
                "TIMESTAMPDIFF('DAY', '2024-02-30', '2024-03-01')",
                Value::Null,
            ),
            ("TIMESTAMPDIFF('DAY', NULL, '2024-03-01')", Value::Null),
            (
                "TIMESTAMPDIFF('DAY_HOUR', '2024-01-01', '2024-03-01')",
                Value::Null,
            ),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }
}
