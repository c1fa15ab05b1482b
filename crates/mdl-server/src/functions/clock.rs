//! The clock (manual, 14.7 "Date and Time Functions"; source `sql/item_timefunc.cc`), in the
//! session's time zone: `time_zone` is `SYSTEM` (this server's `system_time_zone`, UTC) or an
//! offset a session set (`time_zone.rs`). `NOW()`, `CURDATE()`, `CURTIME()`, their synonyms,
//! `SYSDATE()`, `FROM_UNIXTIME(n)` and the date a TIME argument is taken on are local to it;
//! `UTC_TIMESTAMP()`, `UTC_DATE()`, `UTC_TIME()` and `UNIX_TIMESTAMP()` are not, and
//! `UNIX_TIMESTAMP(dt)` reads `dt` as local (`Time_zone::TIME_to_gmt_sec`).
//!
//! As in MySQL, `NOW()`, `CURDATE()`, `CURTIME()`, `UNIX_TIMESTAMP()` and their synonyms read
//! the time the statement started (`THD::query_start`), the same for every row and every
//! call of one statement; `SYSDATE()` reads the clock at each call. The start is a
//! [`StatementClock`] per engine connection, set when a statement starts executing on it.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::functions::Context;
use rusqlite::types::Value;

use super::temporal::{date_arg, Dates, Temporal};
use super::{flags, int, number, Num};

/// The largest time `UNIX_TIMESTAMP` and `FROM_UNIXTIME` take on 64-bit platforms (MySQL
/// 8.0.28+): 3001-01-18 23:59:59.999999 UTC.
const MAX_UNIX: i64 = 32_536_771_199;

/// When the statement running on an engine connection started, in microseconds since the
/// Unix epoch, and its session's time zone (seconds east of UTC): what `NOW()` and its kin
/// read. [`StatementClock::start`] is one clock read and two relaxed stores, cheap enough for
/// every statement.
#[derive(Debug)]
pub struct StatementClock {
    micros: AtomicI64,
    offset: AtomicI64,
    /// Counts the statements started, which tells one statement's marks from another's
    /// (`on_update_marks.rs`).
    statements: std::sync::atomic::AtomicU64,
}

impl StatementClock {
    /// A clock started now.
    pub fn new() -> StatementClock {
        StatementClock {
            micros: AtomicI64::new(now_micros()),
            offset: AtomicI64::new(0),
            statements: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// A statement of a session in the time zone `offset` seconds east of UTC starts: the
    /// clock functions read now from here on.
    pub fn start(&self, offset: i64) {
        self.micros.store(now_micros(), Ordering::Relaxed);
        self.offset.store(offset, Ordering::Relaxed);
        self.statements.fetch_add(1, Ordering::Relaxed);
    }

    /// The running statement's number: another for each [`StatementClock::start`].
    pub(super) fn statement(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    /// The statement's start in the session's time zone: seconds and microseconds since the
    /// epoch of its local time.
    pub(super) fn now(&self) -> (i64, u32) {
        let (secs, micros) = self.utc_now();
        (secs + self.offset(), micros)
    }

    /// The statement's start: Unix seconds and microseconds.
    pub(super) fn utc_now(&self) -> (i64, u32) {
        split(self.micros.load(Ordering::Relaxed))
    }

    /// The session's time zone, seconds east of UTC.
    pub(super) fn offset(&self) -> i64 {
        self.offset.load(Ordering::Relaxed)
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

/// What a clock function shows of a time.
#[derive(Clone, Copy)]
enum Shows {
    DateTime,
    Date,
    Time,
}

/// Whether a clock function shows the session's local time or UTC.
#[derive(Clone, Copy)]
enum Zone {
    Local,
    Utc,
}

/// Registers the clock functions on `db`, reading `clock`; none is deterministic.
pub(super) fn register(
    db: &rusqlite::Connection,
    clock: &Arc<StatementClock>,
) -> rusqlite::Result<()> {
    let f = flags(false);
    let clock_fns = [
        ("NOW", Shows::DateTime, Zone::Local),
        ("LOCALTIME", Shows::DateTime, Zone::Local),
        ("LOCALTIMESTAMP", Shows::DateTime, Zone::Local),
        ("UTC_TIMESTAMP", Shows::DateTime, Zone::Utc),
        ("CURDATE", Shows::Date, Zone::Local),
        ("UTC_DATE", Shows::Date, Zone::Utc),
        ("CURTIME", Shows::Time, Zone::Local),
        ("UTC_TIME", Shows::Time, Zone::Utc),
    ];
    let read = |c: &StatementClock, zone| match zone {
        Zone::Local => c.now(),
        Zone::Utc => c.utc_now(),
    };
    for (name, shows, zone) in clock_fns {
        let c = clock.clone();
        db.create_scalar_function(name, 0, f, move |_| {
            Ok(clock_text(read(&c, zone), 0, shows))
        })?;
        if !matches!(shows, Shows::Date) {
            let c = clock.clone();
            db.create_scalar_function(name, 1, f, move |ctx| {
                Ok(clock_text(read(&c, zone), fsp(ctx, name)?, shows))
            })?;
        }
    }
    // SQLite compiles its keywords `CURRENT_TIMESTAMP`, `CURRENT_DATE` and `CURRENT_TIME`
    // (column defaults included) into calls of these names, which a registered function
    // overrides: they read the statement's start too, as MySQL's do.
    let keywords = [
        ("CURRENT_TIMESTAMP", Shows::DateTime),
        ("CURRENT_DATE", Shows::Date),
        ("CURRENT_TIME", Shows::Time),
    ];
    for (name, shows) in keywords {
        let c = clock.clone();
        db.create_scalar_function(name, 0, f, move |_| Ok(clock_text(c.now(), 0, shows)))?;
    }
    // SYSDATE reads the clock at each call, in the statement's time zone.
    let sysdate = |c: &StatementClock| {
        let (secs, micros) = split(now_micros());
        (secs + c.offset(), micros)
    };
    let c = clock.clone();
    db.create_scalar_function("SYSDATE", 0, f, move |_| {
        Ok(clock_text(sysdate(&c), 0, Shows::DateTime))
    })?;
    let c = clock.clone();
    db.create_scalar_function("SYSDATE", 1, f, move |ctx| {
        Ok(clock_text(
            sysdate(&c),
            fsp(ctx, "SYSDATE")?,
            Shows::DateTime,
        ))
    })?;
    let c = clock.clone();
    db.create_scalar_function("UNIX_TIMESTAMP", 0, f, move |_| Ok(c.utc_now().0))?;
    // A TIME argument is taken on the statement's date: not deterministic either.
    let c = clock.clone();
    db.create_scalar_function("UNIX_TIMESTAMP", 1, f, move |ctx| {
        Ok(unix_timestamp(ctx, &c))
    })?;
    // Not deterministic: the result is in the session's time zone.
    let c = clock.clone();
    db.create_scalar_function("FROM_UNIXTIME", 1, f, move |ctx| {
        Ok(from_unixtime(ctx, c.offset()))
    })?;
    let c = clock.clone();
    db.create_scalar_function("CONVERT_TZ", 3, flags(false), move |ctx| {
        Ok(convert_tz(ctx, &c))
    })
}

/// `CONVERT_TZ(dt, from, to)` (`Item_func_convert_tz` in `item_timefunc.cc`): `dt` read as a
/// DATETIME in zone `from`, shown in zone `to`. A zone is an offset, `'+hh:mm'` or `'-hh:mm'`
/// within MySQL's -13:59 to +14:00, or `'SYSTEM'` (this server's: UTC). A named zone
/// (`'Europe/Paris'`, `'UTC'`) needs MySQL's time zone tables, which this server has not:
/// NULL, as MySQL gives without them. As MySQL, a time whose UTC value falls outside the
/// TIMESTAMP range (1970-01-01 00:00:01 to 2038-01-19 03:14:07) is not converted.
fn convert_tz(ctx: &Context<'_>, clock: &StatementClock) -> Value {
    let zone = |i: usize| match ctx.get_raw(i) {
        rusqlite::types::ValueRef::Text(b) => zone_offset(&String::from_utf8_lossy(b)),
        _ => None,
    };
    let (Some(t), Some(from), Some(to)) = (date_arg(ctx, 0, Dates::Whole, clock), zone(1), zone(2))
    else {
        return Value::Null;
    };
    let Some((secs, micro)) = t.unix() else {
        return Value::Null;
    };
    let utc = secs - from;
    if !(1..=2_147_483_647).contains(&utc) {
        return Value::Text(t.text_auto());
    }
    Temporal::from_unix(utc + to, micro).map_or(Value::Null, |t| Value::Text(t.text_auto()))
}

/// Seconds east of UTC of a zone `CONVERT_TZ` knows (see there), `SET time_zone` too.
pub(crate) fn zone_offset(z: &str) -> Option<i64> {
    if z.eq_ignore_ascii_case("SYSTEM") {
        return Some(0);
    }
    let (sign, rest) = match z.as_bytes().first()? {
        b'+' => (1, &z[1..]),
        b'-' => (-1, &z[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let valid =
        |p: &str, max: usize| (1..=max).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit());
    if !valid(h, 2) || m.len() != 2 || !valid(m, 2) {
        return None;
    }
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    let offset = sign * (h * 3600 + m * 60);
    (m < 60 && (-(13 * 3600 + 59 * 60)..=14 * 3600).contains(&offset)).then_some(offset)
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
fn clock_text((secs, micros): (i64, u32), fsp: u32, shows: Shows) -> Value {
    let Some(t) = Temporal::from_unix(secs, micros) else {
        return Value::Null;
    };
    let full = t.text(fsp);
    Value::Text(match shows {
        Shows::DateTime => full,
        Shows::Date => full[..10].to_string(),
        Shows::Time => full[11..].to_string(),
    })
}

/// `UNIX_TIMESTAMP(dt)` (`Item_func_unix_timestamp`): seconds since the epoch of `dt` read in
/// the session's time zone, with the fraction when `dt` has one; 0 out of MySQL's range (1970
/// to 3001); NULL for no date.
fn unix_timestamp(ctx: &Context<'_>, clock: &StatementClock) -> Value {
    let utc = |(secs, micros): (i64, u32)| (secs - clock.offset(), micros);
    match date_arg(ctx, 0, Dates::Whole, clock)
        .and_then(|t| t.unix())
        .map(utc)
    {
        None => Value::Null,
        Some((secs, _)) if !(0..=MAX_UNIX).contains(&secs) => Value::Integer(0),
        Some((secs, 0)) => Value::Integer(secs),
        Some((secs, micros)) => Value::Real(secs as f64 + f64::from(micros) / 1e6),
    }
}

/// `FROM_UNIXTIME(n)` (`Item_func_from_unixtime`): the datetime `n` seconds after the epoch
/// in the session's time zone (`offset` seconds east of UTC), with six fraction digits when
/// `n` is not an integer (SQLite does not keep a literal's scale); NULL when `n` is negative
/// or past MySQL's range.
fn from_unixtime(ctx: &Context<'_>, offset: i64) -> Value {
    let t = match number(ctx, 0) {
        Some(Num::Int(secs)) if (0..=MAX_UNIX).contains(&secs) => {
            Temporal::from_unix(secs + offset, 0).map(|t| t.text(0))
        }
        Some(Num::Real(x)) if (0.0..(MAX_UNIX + 1) as f64).contains(&x) => {
            let (secs, micros) = split((x * 1e6).round() as i64);
            Temporal::from_unix(secs + offset, micros).map(|t| t.text(6))
        }
        _ => None,
    };
    t.map_or(Value::Null, Value::Text)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn the_clock_stands_still_within_a_statement() {
        let clock = Arc::new(StatementClock::new());
        let db = rusqlite::Connection::open_in_memory().unwrap();
        super::super::register(&db, &clock, &Arc::default()).unwrap();
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
        clock.start(0);
        let now: String = db.query_row("SELECT NOW()", [], |r| r.get(0)).unwrap();
        assert!(now.as_str() > "2025", "{now}");
    }

    #[test]
    fn unix_times_with_nulls() {
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
            eval(&db, "FROM_UNIXTIME(32536771199)"),
            t("3001-01-18 23:59:59")
        );
        assert_eq!(
            eval(
                &db,
                "length(NOW(6)) + length(CURDATE()) + length(CURTIME(2))"
            ),
            Value::Integer(26 + 10 + 11)
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

    #[test]
    fn convert_tz_between_offsets() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        for (expr, want) in [
            (
                "CONVERT_TZ('2004-01-01 12:00:00', '+00:00', '+10:00')",
                t("2004-01-01 22:00:00"),
            ),
            (
                "CONVERT_TZ('2004-01-01 12:00:00', '-07:30', 'SYSTEM')",
                t("2004-01-01 19:30:00"),
            ),
            (
                "CONVERT_TZ('2004-01-01 12:00:00.5', '+01:00', '+00:00')",
                t("2004-01-01 11:00:00.500000"),
            ),
            (
                "CONVERT_TZ('2004-01-01 12:00:00', 'GMT', 'MET')",
                Value::Null,
            ),
            (
                "CONVERT_TZ('2004-01-01 12:00:00', '+15:00', '+00:00')",
                Value::Null,
            ),
            ("CONVERT_TZ(NULL, '+00:00', '+01:00')", Value::Null),
            // Outside TIMESTAMP's range: not converted.
            (
                "CONVERT_TZ('1960-01-01 00:00:00', '+00:00', '+01:00')",
                t("1960-01-01 00:00:00"),
            ),
        ] {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }
}
