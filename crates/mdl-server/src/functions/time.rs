//! MySQL's date and time functions (manual, 14.7 "Date and Time Functions"; source
//! `sql/item_timefunc.cc`), in UTC: this server's `time_zone` is `SYSTEM` and its
//! `system_time_zone` UTC (`admin.rs`), so the local and the UTC functions agree. Values are
//! MySQL's text forms, `'YYYY-MM-DD HH:MM:SS[.ffffff]'`. Civil dates come from Unix time by
//! Howard Hinnant's `days_from_civil` / `civil_from_days` (no date crate in the workspace).
//!
//! As in MySQL, `NOW()`, `CURDATE()`, `CURTIME()`, `UNIX_TIMESTAMP()` and their synonyms read
//! the time the statement started (`THD::query_start`), the same for every row and every
//! call of one statement; `SYSDATE()` reads the clock at each call. The start is a
//! [`StatementClock`] per engine connection, set when a statement starts executing on it.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};

use super::{flags, int, number, text};

/// The largest time `UNIX_TIMESTAMP` and `FROM_UNIXTIME` take on 64-bit platforms (MySQL
/// 8.0.28+): 3001-01-18 23:59:59.999999 UTC.
const MAX_UNIX: i64 = 32_536_771_199;

/// When the statement running on an engine connection started, in microseconds since the
/// Unix epoch: what `NOW()` and its kin read. [`StatementClock::start`] is one clock read and
/// one relaxed store, cheap enough for every statement.
#[derive(Debug)]
pub struct StatementClock {
    micros: AtomicI64,
}

impl StatementClock {
    /// A clock started now.
    pub fn new() -> StatementClock {
        StatementClock {
            micros: AtomicI64::new(now_micros()),
        }
    }

    /// A statement starts: the clock functions read now from here on.
    pub fn start(&self) {
        self.micros.store(now_micros(), Ordering::Relaxed);
    }

    /// The statement's start: Unix seconds and microseconds.
    fn now(&self) -> (i64, u32) {
        split(self.micros.load(Ordering::Relaxed))
    }
}

impl Default for StatementClock {
    fn default() -> StatementClock {
        StatementClock::new()
    }
}

/// The system clock in microseconds since the Unix epoch.
fn now_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

fn split(micros: i64) -> (i64, u32) {
    (
        micros.div_euclid(1_000_000),
        micros.rem_euclid(1_000_000) as u32,
    )
}

/// Registers the date and time functions on `db`, the clock's reading `clock`; those of the
/// clock are not deterministic.
pub(super) fn register(
    db: &rusqlite::Connection,
    clock: &Arc<StatementClock>,
) -> rusqlite::Result<()> {
    let f = flags(false);
    // SQLite compiles its keywords `CURRENT_TIMESTAMP`, `CURRENT_DATE` and `CURRENT_TIME`
    // (column defaults included) into calls of these names, which a registered function
    // overrides: they read the statement's start too, as MySQL's do.
    let clock_fns = [
        ("NOW", true, true),
        ("LOCALTIME", true, true),
        ("LOCALTIMESTAMP", true, true),
        ("UTC_TIMESTAMP", true, true),
        ("CURRENT_TIMESTAMP", true, true),
        ("CURDATE", true, false),
        ("UTC_DATE", true, false),
        ("CURRENT_DATE", true, false),
        ("CURTIME", false, true),
        ("UTC_TIME", false, true),
        ("CURRENT_TIME", false, true),
    ];
    for (name, date, time) in clock_fns {
        let c = clock.clone();
        db.create_scalar_function(name, 0, f, move |_| Ok(now_text(c.now(), 0, date, time)))?;
        if time && !name.starts_with("CURRENT_") {
            let c = clock.clone();
            db.create_scalar_function(name, 1, f, move |ctx| {
                Ok(now_text(c.now(), fsp(ctx, name)?, date, time))
            })?;
        }
    }
    db.create_scalar_function("SYSDATE", 0, f, |_| {
        Ok(now_text(split(now_micros()), 0, true, true))
    })?;
    db.create_scalar_function("SYSDATE", 1, f, |ctx| {
        Ok(now_text(
            split(now_micros()),
            fsp(ctx, "SYSDATE")?,
            true,
            true,
        ))
    })?;
    let c = clock.clone();
    db.create_scalar_function("UNIX_TIMESTAMP", 0, f, move |_| Ok(c.now().0))?;
    db.create_scalar_function("UNIX_TIMESTAMP", 1, flags(true), |ctx| {
        Ok(unix_timestamp(ctx))
    })?;
    db.create_scalar_function("FROM_UNIXTIME", 1, flags(true), |ctx| {
        Ok(from_unixtime(ctx))
    })
}

/// The fractional-seconds precision argument: 0 to 6, as MySQL's error 1426 bounds it.
fn fsp(ctx: &Context<'_>, name: &str) -> rusqlite::Result<u32> {
    match int(ctx, 0) {
        Some(n @ 0..=6) => Ok(n as u32),
        n => Err(rusqlite::Error::UserFunctionError(
            format!(
                "Too-big precision {} specified for '{}'. Maximum is 6.",
                n.map_or("NULL".to_string(), |n| n.to_string()),
                name.to_ascii_lowercase()
            )
            .into(),
        )),
    }
}

/// A time as a clock function shows it; microseconds truncated to `fsp` digits, as MySQL's
/// `query_start_timeval_trunc`.
fn now_text((secs, micros): (i64, u32), fsp: u32, date: bool, time: bool) -> String {
    let full = format_datetime(secs, micros, fsp);
    match (date, time) {
        (true, true) => full,
        (true, false) => full[..10].to_string(),
        _ => full[11..].to_string(),
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's `days_from_civil`).
pub(super) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
pub(super) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `'YYYY-MM-DD HH:MM:SS'`, with `fsp` digits of `micros` after a point when `fsp` > 0.
pub(super) fn format_datetime(secs: i64, micros: u32, fsp: u32) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    let mut out = format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    );
    if fsp > 0 {
        let frac = format!("{micros:06}");
        out.push('.');
        out.push_str(&frac[..fsp as usize]);
    }
    out
}

/// A MySQL datetime or date (`'YYYY-MM-DD[ HH:MM:SS[.ffffff]]'`, `T` for the space, or the
/// numbers `YYYYMMDD[HHMMSS]`, `YYMMDD[HHMMSS]`) as Unix seconds, microseconds, and whether
/// it had a fraction; None when it is no valid date.
pub(super) fn parse_datetime(s: &str) -> Option<(i64, u32, bool)> {
    let s = s.trim();
    let (y, mo, d, rest) = if s.len() >= 10 && s.as_bytes()[4] == b'-' {
        let y: i64 = s.get(..4)?.parse().ok()?;
        let mo: u32 = s.get(5..7)?.parse().ok()?;
        let d: u32 = s.get(8..10)?.parse().ok()?;
        (y, mo, d, s.get(10..)?)
    } else if s.bytes().all(|b| b.is_ascii_digit()) {
        return parse_number_datetime(s);
    } else {
        return None;
    };
    let (mut h, mut mi, mut sec, mut micros, mut frac) = (0, 0, 0, 0, false);
    if !rest.is_empty() {
        let t = rest.strip_prefix([' ', 'T'])?;
        let (hms, f) = t.split_once('.').unwrap_or((t, ""));
        let mut parts = hms.split(':').map(|p| p.parse::<u32>().ok());
        (h, mi, sec) = (parts.next()??, parts.next()??, parts.next()??);
        if parts.next().is_some() || f.len() > 6 || !f.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if !f.is_empty() {
            micros = format!("{f:0<6}").parse().ok()?;
            frac = true;
        }
    }
    to_unix(y, mo, d, h, mi, sec).map(|secs| (secs, micros, frac))
}

/// `YYYYMMDD[HHMMSS]` or `YYMMDD[HHMMSS]` (years 70-99 are 19xx, 00-69 20xx).
fn parse_number_datetime(s: &str) -> Option<(i64, u32, bool)> {
    let n = |r: std::ops::Range<usize>| s.get(r)?.parse::<u32>().ok();
    let (y, at) = match s.len() {
        8 | 14 => (i64::from(n(0..4)?), 4),
        6 | 12 => {
            let yy = i64::from(n(0..2)?);
            (if yy < 70 { 2000 + yy } else { 1900 + yy }, 2)
        }
        _ => return None,
    };
    let (mo, d) = (n(at..at + 2)?, n(at + 2..at + 4)?);
    let (h, mi, sec) = if s.len() > at + 4 {
        (n(at + 4..at + 6)?, n(at + 6..at + 8)?, n(at + 8..at + 10)?)
    } else {
        (0, 0, 0)
    };
    to_unix(y, mo, d, h, mi, sec).map(|secs| (secs, 0, false))
}

/// Unix seconds of a valid civil date and time.
fn to_unix(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> Option<i64> {
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [
        31,
        28 + u32::from(leap),
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let valid = (1..=12).contains(&mo)
        && d >= 1
        && d <= month_days[mo as usize - 1]
        && h < 24
        && mi < 60
        && s < 60;
    valid.then(|| days_from_civil(y, mo, d) * 86_400 + i64::from(h * 3600 + mi * 60 + s))
}

/// `UNIX_TIMESTAMP(dt)` (`Item_func_unix_timestamp`): seconds since the epoch, with the
/// fraction when `dt` has one; 0 out of MySQL's range (1970 to 3001); NULL for no date.
fn unix_timestamp(ctx: &Context<'_>) -> Value {
    let parsed = match ctx.get_raw(0) {
        ValueRef::Null => return Value::Null,
        ValueRef::Integer(n) => parse_number_datetime(&n.to_string()),
        _ => text(ctx, 0).and_then(|s| parse_datetime(&s)),
    };
    match parsed {
        None => Value::Null,
        Some((secs, _, _)) if !(0..=MAX_UNIX).contains(&secs) => Value::Integer(0),
        Some((secs, micros, true)) => Value::Real(secs as f64 + f64::from(micros) / 1e6),
        Some((secs, _, false)) => Value::Integer(secs),
    }
}

/// `FROM_UNIXTIME(n)` (`Item_func_from_unixtime`): the UTC datetime `n` seconds after the
/// epoch, with six fraction digits when `n` is not an integer (SQLite does not keep a
/// literal's scale); NULL when `n` is negative or past MySQL's range.
fn from_unixtime(ctx: &Context<'_>) -> Value {
    let Some(n) = number(ctx, 0) else {
        return Value::Null;
    };
    match n {
        super::Num::Int(secs) if (0..=MAX_UNIX).contains(&secs) => {
            Value::Text(format_datetime(secs, 0, 0))
        }
        super::Num::Real(x) if (0.0..(MAX_UNIX + 1) as f64).contains(&x) => {
            let micros = (x * 1e6).round() as i64;
            let (secs, micros) = (micros / 1_000_000, (micros % 1_000_000) as u32);
            Value::Text(format_datetime(secs, micros, 6))
        }
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn civil_dates_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        for z in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z, "{y}-{m}-{d}");
        }
    }

    #[test]
    fn datetimes_format_and_parse() {
        assert_eq!(format_datetime(0, 0, 0), "1970-01-01 00:00:00");
        assert_eq!(
            format_datetime(1_709_164_800, 123_456, 3),
            "2024-02-29 00:00:00.123"
        );
        assert_eq!(format_datetime(MAX_UNIX, 0, 0), "3001-01-18 23:59:59");
        assert_eq!(
            parse_datetime("2024-02-29 00:00:00.5"),
            Some((1_709_164_800, 500_000, true))
        );
        assert_eq!(
            parse_datetime("2024-02-29"),
            Some((1_709_164_800, 0, false))
        );
        assert_eq!(parse_datetime("20240229"), Some((1_709_164_800, 0, false)));
        assert_eq!(
            parse_datetime("240229000001"),
            Some((1_709_164_801, 0, false))
        );
        assert_eq!(parse_datetime("2023-02-29"), None);
        assert_eq!(parse_datetime("2023-01-01 24:00:00"), None);
        assert_eq!(parse_datetime("soon"), None);
    }

    #[test]
    fn the_clock_stands_still_within_a_statement() {
        let clock = Arc::new(StatementClock::new());
        let db = rusqlite::Connection::open_in_memory().unwrap();
        super::super::register(&db, &clock).unwrap();
        clock.micros.store(1_709_164_800_123_456, Ordering::Relaxed);
        let row: (String, String, String, String, i64) = db
            .query_row(
                "SELECT NOW(), NOW(6), CURDATE(), CURTIME(3), UNIX_TIMESTAMP()",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        assert_eq!(
            row,
            (
                "2024-02-29 00:00:00".into(),
                "2024-02-29 00:00:00.123456".into(),
                "2024-02-29".into(),
                "00:00:00.123".into(),
                1_709_164_800
            )
        );
        // SQLite's keywords, in a column default too.
        db.execute_batch(
            "CREATE TABLE t (a INT, ts TEXT DEFAULT CURRENT_TIMESTAMP);
             INSERT INTO t (a) VALUES (1);",
        )
        .unwrap();
        let row: (String, String, String, String) = db
            .query_row(
                "SELECT CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME, ts FROM t",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(
            row,
            (
                "2024-02-29 00:00:00".into(),
                "2024-02-29".into(),
                "00:00:00".into(),
                "2024-02-29 00:00:00".into()
            )
        );
        // SYSDATE() reads the clock: not 2024 any more.
        let sys: String = db.query_row("SELECT SYSDATE()", [], |r| r.get(0)).unwrap();
        assert!(sys.as_str() > "2025", "{sys}");
        clock.start();
        let now: String = db.query_row("SELECT NOW()", [], |r| r.get(0)).unwrap();
        assert!(now.as_str() > "2025", "{now}");
    }

    #[test]
    fn through_sqlite_with_nulls() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        assert_eq!(
            eval(&db, "UNIX_TIMESTAMP('2015-11-13 10:20:19')"),
            Value::Integer(1_447_410_019)
        );
        assert_eq!(
            eval(&db, "UNIX_TIMESTAMP(20151113)"),
            Value::Integer(1_447_372_800)
        );
        assert_eq!(
            eval(&db, "UNIX_TIMESTAMP('2015-11-13 10:20:19.25')"),
            Value::Real(1_447_410_019.25)
        );
        assert_eq!(
            eval(&db, "UNIX_TIMESTAMP('1969-12-31 23:59:59')"),
            Value::Integer(0)
        );
        assert_eq!(eval(&db, "UNIX_TIMESTAMP('nope')"), Value::Null);
        assert_eq!(eval(&db, "UNIX_TIMESTAMP(NULL)"), Value::Null);
        assert_eq!(
            eval(&db, "FROM_UNIXTIME(1447430881)"),
            t("2015-11-13 16:08:01")
        );
        assert_eq!(
            eval(&db, "FROM_UNIXTIME(1.5)"),
            t("1970-01-01 00:00:01.500000")
        );
        assert_eq!(eval(&db, "FROM_UNIXTIME(-1)"), Value::Null);
        assert_eq!(eval(&db, "FROM_UNIXTIME(NULL)"), Value::Null);
        assert_eq!(
            eval(
                &db,
                "length(NOW(6)) + length(CURDATE()) + length(CURTIME(2))"
            ),
            Value::Integer(26 + 10 + 11)
        );
        assert_eq!(
            eval(&db, "substr(SYSDATE(), 1, 10) = CURDATE() OR 1"),
            Value::Integer(1)
        );
        let now: i64 = db
            .query_row("SELECT UNIX_TIMESTAMP()", [], |r| r.get(0))
            .unwrap();
        assert!((now - split(now_micros()).0).abs() <= 1);
        assert_eq!(
            eval(&db, "UNIX_TIMESTAMP(FROM_UNIXTIME(12345))"),
            Value::Integer(12345)
        );
        let err = db.query_row("SELECT NOW(7)", [], |r| r.get::<_, String>(0));
        assert!(format!("{err:?}").contains("Too-big precision 7"));
    }
}
