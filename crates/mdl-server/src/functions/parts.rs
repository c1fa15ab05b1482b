//! The parts of dates and times, and day counts (manual, 14.7; source
//! `sql/item_timefunc.cc`): `YEAR`, `QUARTER`, `MONTH`, `MONTHNAME`, `DAY`/`DAYOFMONTH`,
//! `DAYOFWEEK`, `WEEKDAY`, `DAYNAME`, `DAYOFYEAR`, `WEEK`, `YEARWEEK`, `HOUR`, `MINUTE`,
//! `SECOND`, `MICROSECOND`, `EXTRACT`, `TO_DAYS`, `FROM_DAYS`, `MAKEDATE`, `LAST_DAY`,
//! `DATEDIFF`, `TIMEDIFF`, `TIME_TO_SEC`, `SEC_TO_TIME`.
//!
//! As in MySQL, the parts a date has need no more than that (`MONTH('2024-00-00')` is 0:
//! zero parts are allowed with this server's empty `sql_mode`), while what counts days
//! (`DAYOFWEEK`, `WEEK`, `TO_DAYS`, `DATEDIFF`, ...) wants a date of the calendar; NULL
//! otherwise, and for NULL. Names are English (`lc_time_names` = `en_US`).

use std::sync::Arc;

use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};

use super::calendar::{
    calc_week, daynr, days_in_month, from_daynr, two_digit_year, week_mode, weekday,
    MAX_DAY_NUMBER, WEEK_YEAR,
};
use super::clock::StatementClock;
use super::interval::{unit_arg, Unit};
use super::temporal::{date_arg, time_arg, Dates, Kind, Temporal};
use super::{flags, int, number, Num};

/// Month names, January first.
pub(super) const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// Day names, Monday first (MySQL's `calc_weekday` order).
pub(super) const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// A function of one date argument read under `dates`.
type OfDate = fn(&Temporal) -> Option<Value>;
/// A function of one time argument.
type OfTime = fn(&Temporal) -> i64;

/// Registers the functions on `db`. Those reading a date are not deterministic: a TIME
/// argument is taken on the statement's date.
pub(super) fn register(
    db: &rusqlite::Connection,
    clock: &Arc<StatementClock>,
) -> rusqlite::Result<()> {
    let of_date: [(&str, Dates, OfDate); 13] = [
        ("YEAR", Dates::Fuzzy, |t| count(t.year)),
        ("MONTH", Dates::Fuzzy, |t| count(t.month)),
        ("DAY", Dates::Fuzzy, |t| count(t.day)),
        ("DAYOFMONTH", Dates::Fuzzy, |t| count(t.day)),
        ("QUARTER", Dates::Fuzzy, |t| count(t.month.div_ceil(3))),
        ("MONTHNAME", Dates::Fuzzy, |t| {
            let name = MONTH_NAMES.get(t.month.checked_sub(1)? as usize)?;
            Some(Value::Text(name.to_string()))
        }),
        ("LAST_DAY", Dates::Fuzzy, |t| {
            let day = days_in_month(t.year, t.month);
            (day > 0).then(|| Value::Text(Temporal { day, ..date_of(t) }.text(0)))
        }),
        ("DAYOFWEEK", Dates::Whole, |t| {
            count(weekday(t.daynr()?, true) + 1)
        }),
        ("WEEKDAY", Dates::Whole, |t| {
            count(weekday(t.daynr()?, false))
        }),
        ("DAYNAME", Dates::Whole, |t| {
            Some(Value::Text(
                DAY_NAMES[weekday(t.daynr()?, false) as usize].to_string(),
            ))
        }),
        ("DAYOFYEAR", Dates::Whole, |t| {
            Some(Value::Integer(t.daynr()? - daynr(t.year, 1, 1)? + 1))
        }),
        ("TO_DAYS", Dates::Whole, |t| {
            Some(Value::Integer(t.daynr()?))
        }),
        ("WEEK", Dates::Whole, |t| week(t, 0)),
    ];
    for (name, dates, f) in of_date {
        let c = clock.clone();
        db.create_scalar_function(name, 1, flags(false), move |ctx| {
            Ok(date_arg(ctx, 0, dates, &c)
                .and_then(|t| f(&t))
                .unwrap_or(Value::Null))
        })?;
    }
    let c = clock.clone();
    db.create_scalar_function("WEEK", 2, flags(false), move |ctx| {
        Ok(with_mode(ctx, &c, week).unwrap_or(Value::Null))
    })?;
    for n_args in [1, 2] {
        let c = clock.clone();
        db.create_scalar_function("YEARWEEK", n_args, flags(false), move |ctx| {
            Ok(with_mode(ctx, &c, yearweek).unwrap_or(Value::Null))
        })?;
    }
    let c = clock.clone();
    db.create_scalar_function("DATEDIFF", 2, flags(false), move |ctx| {
        let day = |i| date_arg(ctx, i, Dates::Whole, &c).and_then(|t| t.daynr());
        Ok(match (day(0), day(1)) {
            (Some(a), Some(b)) => Value::Integer(a - b),
            _ => Value::Null,
        })
    })?;
    let c = clock.clone();
    db.create_scalar_function("EXTRACT", 2, flags(false), move |ctx| {
        let unit = unit_arg(ctx, 0, "EXTRACT")?;
        Ok(extract(ctx, unit, &c).map_or(Value::Null, Value::Integer))
    })?;
    register_times(db)
}

/// The functions of times and of numbers alone: deterministic.
fn register_times(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    let of_time: [(&str, OfTime); 5] = [
        ("HOUR", |t| t.hour.into()),
        ("MINUTE", |t| t.minute.into()),
        ("SECOND", |t| t.second.into()),
        ("MICROSECOND", |t| t.micro.into()),
        ("TIME_TO_SEC", |t| {
            if t.neg {
                -t.seconds_of_day()
            } else {
                t.seconds_of_day()
            }
        }),
    ];
    for (name, part) in of_time {
        db.create_scalar_function(name, 1, f, move |ctx| {
            Ok(time_arg(ctx, 0).map_or(Value::Null, |t| Value::Integer(part(&t))))
        })?;
    }
    db.create_scalar_function("TIMEDIFF", 2, f, |ctx| Ok(timediff(ctx)))?;
    db.create_scalar_function("SEC_TO_TIME", 1, f, |ctx| Ok(sec_to_time(ctx)))?;
    db.create_scalar_function("FROM_DAYS", 1, f, |ctx| {
        Ok(int(ctx, 0).map_or(Value::Null, |n| {
            Value::Text(Temporal::date(Kind::Date, from_daynr(n)).text(0))
        }))
    })?;
    db.create_scalar_function("MAKEDATE", 2, f, |ctx| {
        Ok(match (int(ctx, 0), int(ctx, 1)) {
            (Some(y), Some(d)) => makedate(y, d).map_or(Value::Null, |t| Value::Text(t.text(0))),
            _ => Value::Null,
        })
    })
}

/// A count as a value.
fn count(n: u32) -> Option<Value> {
    Some(Value::Integer(n.into()))
}

/// The DATE part of `t`.
fn date_of(t: &Temporal) -> Temporal {
    Temporal::date(Kind::Date, (t.year, t.month, t.day))
}

/// `f(date, mode)` of the arguments `(date[, mode])`; mode 0 when absent
/// (`default_week_format`).
fn with_mode(
    ctx: &Context<'_>,
    clock: &StatementClock,
    f: fn(&Temporal, i64) -> Option<Value>,
) -> Option<Value> {
    let mode = if ctx.len() > 1 { int(ctx, 1)? } else { 0 };
    f(&date_arg(ctx, 0, Dates::Whole, clock)?, mode)
}

/// `WEEK(date, mode)` (`Item_func_week`).
fn week(t: &Temporal, mode: i64) -> Option<Value> {
    let (week, _) = calc_week(t.year, t.month, t.day, week_mode(mode))?;
    Some(Value::Integer(week.into()))
}

/// `YEARWEEK(date, mode)` (`Item_func_yearweek`): the year the week belongs to, and the week.
fn yearweek(t: &Temporal, mode: i64) -> Option<Value> {
    let (week, year) = calc_week(t.year, t.month, t.day, week_mode(mode) | WEEK_YEAR)?;
    Some(Value::Integer(i64::from(year) * 100 + i64::from(week)))
}

/// `EXTRACT(unit FROM x)` (`Item_extract::val_int`): a date unit reads a date, any other a
/// time (signed; a DATETIME string keeps its day for the `DAY_*` units).
fn extract(ctx: &Context<'_>, unit: Unit, clock: &StatementClock) -> Option<i64> {
    use Unit as U;
    if let U::Year | U::YearMonth | U::Quarter | U::Month | U::Week | U::Day = unit {
        let t = date_arg(ctx, 1, Dates::Fuzzy, clock)?;
        let (y, m) = (i64::from(t.year), i64::from(t.month));
        return Some(match unit {
            U::Year => y,
            U::YearMonth => y * 100 + m,
            U::Quarter => (m + 2) / 3,
            U::Month => m,
            U::Week => i64::from(calc_week(t.year, t.month, t.day, week_mode(0))?.0),
            _ => i64::from(t.day),
        });
    }
    let t = time_arg(ctx, 1)?;
    let day = if t.kind == Kind::DateTime {
        i64::from(t.day)
    } else {
        0
    };
    let (h, mi, s, us) = (
        i64::from(t.hour),
        i64::from(t.minute),
        i64::from(t.second),
        i64::from(t.micro),
    );
    let value = match unit {
        U::DayHour => day * 100 + h,
        U::DayMinute => (day * 100 + h) * 100 + mi,
        U::DaySecond => ((day * 100 + h) * 100 + mi) * 100 + s,
        U::Hour => h,
        U::HourMinute => h * 100 + mi,
        U::HourSecond => (h * 100 + mi) * 100 + s,
        U::Minute => mi,
        U::MinuteSecond => mi * 100 + s,
        U::Second => s,
        U::Microsecond => us,
        U::DayMicrosecond => (((day * 100 + h) * 100 + mi) * 100 + s) * 1_000_000 + us,
        U::HourMicrosecond => ((h * 100 + mi) * 100 + s) * 1_000_000 + us,
        U::MinuteMicrosecond => (mi * 100 + s) * 1_000_000 + us,
        _ => s * 1_000_000 + us, // SECOND_MICROSECOND
    };
    Some(if t.neg { -value } else { value })
}

/// `TIMEDIFF(a, b)` (`Item_func_timediff`): `a - b` as a TIME (clipped to ±838:59:59), of
/// two TIMEs or two datetimes alike; NULL for a mix. Six fraction digits when either has a
/// fraction.
fn timediff(ctx: &Context<'_>) -> Value {
    let (Some(a), Some(b)) = (time_arg(ctx, 0), time_arg(ctx, 1)) else {
        return Value::Null;
    };
    if a.kind != b.kind {
        return Value::Null;
    }
    let (Some(ma), Some(mb)) = (a.micros(), b.micros()) else {
        return Value::Null;
    };
    let fsp = if a.micro != 0 || b.micro != 0 { 6 } else { 0 };
    Value::Text(Temporal::time(ma - mb).text(fsp))
}

/// `SEC_TO_TIME(n)` (`Item_func_sec_to_time`): a TIME of `n` seconds, clipped to
/// ±838:59:59; six fraction digits for a number that is not an integer (or a string).
fn sec_to_time(ctx: &Context<'_>) -> Value {
    let (micros, fsp) = match (ctx.get_raw(0), number(ctx, 0)) {
        (_, None) => return Value::Null,
        (ValueRef::Integer(_), Some(Num::Int(n))) => (n.saturating_mul(1_000_000), 0),
        (_, Some(n)) => ((n.real() * 1e6).round() as i64, 6),
    };
    Value::Text(Temporal::time(micros).text(fsp))
}

/// `MAKEDATE(year, dayofyear)` (`Item_func_makedate`): years below 100 are two-digit years.
fn makedate(year: i64, day_of_year: i64) -> Option<Temporal> {
    if !(0..=9999).contains(&year) || !(1..=MAX_DAY_NUMBER).contains(&day_of_year) {
        return None;
    }
    let year = if year < 100 {
        two_digit_year(year as u32)
    } else {
        year as u32
    };
    let days = daynr(year, 1, 1)? + day_of_year - 1;
    (days <= MAX_DAY_NUMBER).then(|| Temporal::date(Kind::Date, from_daynr(days)))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn parts_of_dates() {
        let db = db();
        let (i, t) = (Value::Integer, |s: &str| Value::Text(s.into()));
        let cases = [
            ("YEAR('2024-02-29 10:11:12')", i(2024)),
            ("YEAR('24-02-29')", i(2024)),
            ("YEAR(20240229)", i(2024)),
            ("YEAR('0000-00-00')", i(0)),
            ("MONTH('2024-00-00')", i(0)),
            ("DAY('2024-02-00')", i(0)),
            ("DAYOFMONTH('2024-02-29')", i(29)),
            ("QUARTER('2024-11-01')", i(4)),
            ("QUARTER('2024-00-01')", i(0)),
            ("MONTHNAME('2024-02-29')", t("February")),
            ("MONTHNAME('2024-00-29')", Value::Null),
            ("YEAR('2024-02-30')", Value::Null),
            ("YEAR('nope')", Value::Null),
            ("YEAR(NULL)", Value::Null),
            // The manual's examples.
            ("DAYOFWEEK('2007-02-03')", i(7)),
            ("WEEKDAY('2008-02-03 22:23:00')", i(6)),
            ("WEEKDAY('2007-11-06')", i(1)),
            ("DAYNAME('2007-02-03')", t("Saturday")),
            ("DAYOFYEAR('2007-02-03')", i(34)),
            ("TO_DAYS(950501)", i(728_779)),
            ("TO_DAYS('2007-10-07')", i(733_321)),
            ("FROM_DAYS(730669)", t("2000-07-03")),
            ("FROM_DAYS(365)", t("0000-00-00")),
            ("MAKEDATE(2011, 31)", t("2011-01-31")),
            ("MAKEDATE(2011, 32)", t("2011-02-01")),
            ("MAKEDATE(2011, 365)", t("2011-12-31")),
            ("MAKEDATE(2014, 365)", t("2014-12-31")),
            ("MAKEDATE(11, 1)", t("2011-01-01")),
            ("MAKEDATE(2011, 0)", Value::Null),
            ("LAST_DAY('2003-02-05')", t("2003-02-28")),
            ("LAST_DAY('2004-02-05')", t("2004-02-29")),
            ("LAST_DAY('2004-01-01 01:01:01')", t("2004-01-31")),
            ("LAST_DAY('2003-03-32')", Value::Null),
            ("LAST_DAY('2004-00-01')", Value::Null),
            ("DATEDIFF('2007-12-31 23:59:59', '2007-12-30')", i(1)),
            ("DATEDIFF('2010-11-30 23:59:59', '2010-12-31')", i(-31)),
            ("DATEDIFF('2010-11-30', NULL)", Value::Null),
            ("DATEDIFF('2010-11-00', '2010-11-01')", Value::Null),
            ("DAYOFWEEK('0000-00-00')", Value::Null),
            ("WEEK('2008-02-20')", i(7)),
            ("WEEK('2008-02-20', 1)", i(8)),
            ("WEEK('2008-12-31', 1)", i(53)),
            ("WEEK('2008-02-20', NULL)", Value::Null),
            ("YEARWEEK('1987-01-01')", i(198_652)),
            ("YEARWEEK('2024-12-30', 3)", i(202_501)),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }

    #[test]
    fn parts_of_times() {
        let db = db();
        let (i, t) = (Value::Integer, |s: &str| Value::Text(s.into()));
        let cases = [
            ("HOUR('10:05:03')", i(10)),
            ("HOUR('272:59:59')", i(272)),
            ("HOUR('2024-01-15 10:05:03')", i(10)),
            ("HOUR('2024-01-15')", i(0)),
            ("MINUTE('2008-02-03 10:05:03')", i(5)),
            ("SECOND('10:05:03')", i(3)),
            ("MICROSECOND('12:00:00.123456')", i(123_456)),
            ("MICROSECOND('2019-12-31 23:59:59.000010')", i(10)),
            ("HOUR(101112)", i(10)),
            ("HOUR('10:61:00')", Value::Null),
            ("HOUR(NULL)", Value::Null),
            ("TIME_TO_SEC('22:23:00')", i(80_580)),
            ("TIME_TO_SEC('00:39:38')", i(2_378)),
            ("TIME_TO_SEC('-01:00:00')", i(-3_600)),
            ("SEC_TO_TIME(2378)", t("00:39:38")),
            ("SEC_TO_TIME(-1)", t("-00:00:01")),
            ("SEC_TO_TIME(1.5)", t("00:00:01.500000")),
            ("SEC_TO_TIME(99999999)", t("838:59:59")),
            ("SEC_TO_TIME(NULL)", Value::Null),
            (
                "TIMEDIFF('2000-01-01 00:00:00', '2000-01-01 00:00:00.000001')",
                t("-00:00:00.000001"),
            ),
            (
                "TIMEDIFF('2008-12-31 23:59:59.000001', '2008-12-30 01:01:01.000002')",
                t("46:58:57.999999"),
            ),
            ("TIMEDIFF('10:00:00', '-02:00:00')", t("12:00:00")),
            ("TIMEDIFF('2024-01-02', '2024-01-01')", t("24:00:00")),
            ("TIMEDIFF('2024-01-02 00:00:00', '10:00:00')", Value::Null),
            ("TIMEDIFF('2024-01-02', '2024-01-01 00:00:00')", Value::Null),
            ("TIMEDIFF('2000-01-01', '1900-01-01')", t("838:59:59")),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }

    #[test]
    fn extract_reads_date_and_time_units() {
        let db = db();
        let i = Value::Integer;
        let cases = [
            // The manual's examples.
            ("EXTRACT('YEAR', '2019-07-02')", i(2019)),
            ("EXTRACT('YEAR_MONTH', '2019-07-02 01:02:03')", i(201_907)),
            ("EXTRACT('DAY_MINUTE', '2019-07-02 01:02:03')", i(20_102)),
            (
                "EXTRACT('MICROSECOND', '2003-01-02 10:30:00.000123')",
                i(123),
            ),
            ("EXTRACT('QUARTER', '2019-07-02')", i(3)),
            ("EXTRACT('WEEK', '2008-02-20')", i(7)),
            ("EXTRACT('DAY', '2024-02-29')", i(29)),
            ("EXTRACT('HOUR_SECOND', '-10:11:12')", i(-101_112)),
            ("EXTRACT('DAY_HOUR', '30:00:00')", i(30)),
            ("EXTRACT('SECOND_MICROSECOND', '10:11:12.5')", i(12_500_000)),
            ("EXTRACT('HOUR', NULL)", Value::Null),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }

    #[test]
    fn times_read_on_the_statements_date() {
        let db = db();
        // A TIME in a date context: today at that time, as a TIME column in MySQL.
        let same: i64 = db
            .query_row("SELECT TO_DAYS('10:00:00') = TO_DAYS(CURDATE())", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(same, 1);
        let next: i64 = db
            .query_row("SELECT DATEDIFF('25:00:00', CURDATE())", [], |r| r.get(0))
            .unwrap();
        assert_eq!(next, 1);
    }
}
