//! MySQL's temporal values as its functions see them (`MYSQL_TIME`): a DATE, a DATETIME or a
//! TIME, read from an argument the way MySQL reads a string or a number in a date or time
//! context (`str_to_datetime`, `str_to_time`, `number_to_datetime`, `number_to_time` in
//! `mysys/my_time.cc`), and written back in MySQL's text forms.
//!
//! Arguments carry no SQL type here: SQLite holds a DATE column, `CURDATE()` or a TIME
//! column as text. So text in the exact form this server writes a DATE (`'YYYY-MM-DD'`) or a
//! TIME (`'[-]HH:MM:SS[.ffffff]'`) in is taken for one, as MySQL would type the column or
//! function behind it: `HOUR('2024-01-15')` is 0 (a DATE has no time; MySQL's string rules
//! would read 00:20:24), and `DATE_FORMAT('10:11:12', '%H')` is 10 on today's date (a TIME;
//! the string rules would read the date 2010-11-12). Any other text follows MySQL's string
//! rules, zero dates and all (this server's `sql_mode` is empty).
//!
//! Digits past the sixth of a fraction are dropped (MySQL rounds them).

use rusqlite::functions::Context;
use rusqlite::types::ValueRef;

use super::calendar::{
    daynr, days_in_month, from_daynr, two_digit_year, DAY_SECONDS, MAX_DAY_NUMBER, UNIX_EPOCH_DAY,
};
use super::clock::StatementClock;

/// Which of MySQL's temporal types a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Date,
    DateTime,
    Time,
}

/// A temporal value, MySQL's `MYSQL_TIME`: a TIME keeps its days in `hour` (up to 838) and
/// may be negative; a DATE or DATETIME may have zero parts (`'2024-00-00'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Temporal {
    pub kind: Kind,
    pub neg: bool,
    pub year: u32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub micro: u32,
}

/// The largest TIME, 838:59:59, in seconds.
pub(super) const TIME_MAX_SECONDS: i64 = 838 * 3600 + 59 * 60 + 59;
const MICROS: i64 = 1_000_000;

/// How a date argument may look, as the function reading it asks MySQL to read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dates {
    /// Zero dates and zero parts allowed (`TIME_FUZZY_DATE`): `YEAR`, `DATE_FORMAT`, ...
    Fuzzy,
    /// A date of the calendar only (`TIME_NO_ZERO_DATE`): `TO_DAYS`, `DATE_ADD`, ...
    Whole,
}

impl Temporal {
    /// A DATE or DATETIME.
    pub(super) fn date(kind: Kind, (year, month, day): (u32, u32, u32)) -> Temporal {
        Temporal {
            kind,
            neg: false,
            year,
            month,
            day,
            hour: 0,
            minute: 0,
            second: 0,
            micro: 0,
        }
    }

    /// A TIME of `micros` microseconds, clipped to MySQL's range (±838:59:59) as MySQL
    /// clips one with a warning.
    pub(super) fn time(micros: i64) -> Temporal {
        // Past the range: exactly 838:59:59 (`adjust_time_range`).
        let abs = micros
            .unsigned_abs()
            .min((TIME_MAX_SECONDS * MICROS) as u64);
        let (secs, micro) = (abs / MICROS as u64, (abs % MICROS as u64) as u32);
        Temporal {
            kind: Kind::Time,
            neg: micros < 0,
            year: 0,
            month: 0,
            day: 0,
            hour: (secs / 3600) as u32,
            minute: (secs / 60 % 60) as u32,
            second: (secs % 60) as u32,
            micro,
        }
    }

    /// The DATETIME at `micros` microseconds after day number 0 (`0000-00-00` for the days
    /// MySQL has no date for); None outside 0 to 9999-12-31.
    pub(super) fn at_micros(micros: i64) -> Option<Temporal> {
        let day_micros = DAY_SECONDS * MICROS;
        let days = micros.div_euclid(day_micros);
        if !(0..=MAX_DAY_NUMBER).contains(&days) {
            return None;
        }
        let of_day = micros.rem_euclid(day_micros);
        let secs = of_day / MICROS;
        Some(Temporal {
            hour: (secs / 3600) as u32,
            minute: (secs / 60 % 60) as u32,
            second: (secs % 60) as u32,
            micro: (of_day % MICROS) as u32,
            ..Temporal::date(Kind::DateTime, from_daynr(days))
        })
    }

    /// The UTC DATETIME of a Unix time.
    pub(super) fn from_unix(secs: i64, micro: u32) -> Option<Temporal> {
        Temporal::at_micros((UNIX_EPOCH_DAY * DAY_SECONDS + secs) * MICROS + i64::from(micro))
    }

    /// Microseconds since day number 0 of a DATE or DATETIME of the calendar; for a TIME,
    /// its signed length.
    pub(super) fn micros(&self) -> Option<i64> {
        let of_day = self.seconds_of_day() * MICROS + i64::from(self.micro);
        match self.kind {
            Kind::Time if self.neg => Some(-of_day),
            Kind::Time => Some(of_day),
            _ => Some(daynr(self.year, self.month, self.day)? * DAY_SECONDS * MICROS + of_day),
        }
    }

    /// Unix seconds and microseconds of a DATE or DATETIME of the calendar.
    pub(super) fn unix(&self) -> Option<(i64, u32)> {
        let m = self.micros()? - UNIX_EPOCH_DAY * DAY_SECONDS * MICROS;
        Some((m.div_euclid(MICROS), m.rem_euclid(MICROS) as u32))
    }

    /// `hour * 3600 + minute * 60 + second`.
    pub(super) fn seconds_of_day(&self) -> i64 {
        i64::from(self.hour) * 3600 + i64::from(self.minute) * 60 + i64::from(self.second)
    }

    /// The day number of a date of the calendar.
    pub(super) fn daynr(&self) -> Option<i64> {
        daynr(self.year, self.month, self.day)
    }

    /// MySQL's text form, with `fsp` fraction digits on a DATETIME or TIME.
    pub(super) fn text(&self, fsp: u32) -> String {
        let mut out = match self.kind {
            Kind::Date => return format!("{:04}-{:02}-{:02}", self.year, self.month, self.day),
            Kind::DateTime => format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
                self.year, self.month, self.day, self.hour, self.minute, self.second
            ),
            Kind::Time => format!(
                "{}{:02}:{:02}:{:02}",
                if self.neg { "-" } else { "" },
                self.hour,
                self.minute,
                self.second
            ),
        };
        if fsp > 0 {
            let frac = format!("{:06}", self.micro);
            out.push('.');
            out.push_str(&frac[..fsp.min(6) as usize]);
        }
        out
    }

    /// The text form of a computed value of no declared precision: six fraction digits when
    /// it has a fraction, as MySQL prints a string-typed result (`Item_temporal_hybrid_func`).
    pub(super) fn text_auto(&self) -> String {
        self.text(if self.micro == 0 { 0 } else { 6 })
    }
}

/// Argument `i` read in a date context: a DATE or DATETIME allowed by `dates`; None for NULL
/// and for what is no such date. A TIME is taken on the statement's date, as MySQL does.
pub(super) fn date_arg(
    ctx: &Context<'_>,
    i: usize,
    dates: Dates,
    clock: &StatementClock,
) -> Option<Temporal> {
    let fuzzy = dates == Dates::Fuzzy;
    let t = match ctx.get_raw(i) {
        ValueRef::Null => return None,
        ValueRef::Integer(n) => number_to_datetime(n, fuzzy)?,
        // A DATE drops the fraction; a negative number is no date.
        ValueRef::Real(x) if x >= 0.0 => with_fraction(number_to_datetime(x as i64, fuzzy)?, x),
        ValueRef::Real(_) => return None,
        ValueRef::Text(b) | ValueRef::Blob(b) if is_time_text(b) => {
            let time = str_to_time(b)?;
            let (secs, micro) = clock.now();
            let today = Temporal::from_unix(secs, micro)?.daynr()?;
            Temporal::at_micros(today * DAY_SECONDS * MICROS + time.micros()?)?
        }
        ValueRef::Text(b) | ValueRef::Blob(b) => match str_to_datetime(b, fuzzy, false) {
            Parsed::Value(t) => t,
            _ => return None,
        },
    };
    (dates == Dates::Fuzzy || t.daynr().is_some()).then_some(t)
}

/// Argument `i` read in a time context: a TIME, or the DATETIME a string holds (its time part
/// is what the function reads), or a DATE (at midnight); None for NULL and for no time.
pub(super) fn time_arg(ctx: &Context<'_>, i: usize) -> Option<Temporal> {
    match ctx.get_raw(i) {
        ValueRef::Null => None,
        ValueRef::Integer(n) => number_to_time(n),
        ValueRef::Real(x) => {
            let t = with_fraction(number_to_time(x.trunc() as i64)?, x);
            Some(Temporal {
                neg: t.kind == Kind::Time && x < 0.0,
                ..t
            })
        }
        ValueRef::Text(b) | ValueRef::Blob(b) if is_date_text(b) => {
            match str_to_datetime(b, true, false) {
                Parsed::Value(t) => Some(t),
                _ => None,
            }
        }
        ValueRef::Text(b) | ValueRef::Blob(b) => str_to_time(b),
    }
}

/// `t` with the microseconds of `x`'s fraction, unless it is a DATE.
fn with_fraction(t: Temporal, x: f64) -> Temporal {
    let micro = ((x.abs().fract() * 1e6).round() as u32).min(999_999);
    match t.kind {
        Kind::Date => t,
        _ => Temporal { micro, ..t },
    }
}

/// Whether `b` is a DATE as this server writes one: `YYYY-MM-DD`.
fn is_date_text(b: &[u8]) -> bool {
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    b.len() == 10 && b[4] == b'-' && b[7] == b'-' && digits(0..4) && digits(5..7) && digits(8..10)
}

/// Whether `b` is a TIME as this server writes one: `[-]HH:MM:SS[.f]`, two or three hour
/// digits, one to six fraction digits.
pub(super) fn is_time_text(b: &[u8]) -> bool {
    let b = b.strip_prefix(b"-").unwrap_or(b);
    let (hms, frac) = match b.iter().position(|&c| c == b'.') {
        Some(p) => (&b[..p], Some(&b[p + 1..])),
        None => (b, None),
    };
    let hours = hms.len().wrapping_sub(6);
    (2..=3).contains(&hours)
        && hms[hours] == b':'
        && hms[hours + 3] == b':'
        && hms
            .iter()
            .enumerate()
            .all(|(k, c)| k == hours || k == hours + 3 || c.is_ascii_digit())
        && frac.is_none_or(|f| (1..=6).contains(&f.len()) && f.iter().all(u8::is_ascii_digit))
}

/// What `str_to_datetime` made of a string.
#[derive(Debug, PartialEq)]
pub(super) enum Parsed {
    Value(Temporal),
    /// No date and time there (`MYSQL_TIMESTAMP_NONE`).
    NotDatetime,
    /// A date with wrong values (`MYSQL_TIMESTAMP_ERROR`).
    Invalid,
}

/// `check_date`: whether a date is allowed; zero parts only when `fuzzy`, the zero date
/// (`not_zero` false) only when `fuzzy`, and never a day its month lacks.
fn check_date(t: &Temporal, not_zero: bool, fuzzy: bool) -> bool {
    if !not_zero {
        return fuzzy;
    }
    if t.month == 0 || t.day == 0 {
        return fuzzy;
    }
    t.day <= days_in_month(t.year, t.month)
}

/// `check_datetime_range`: the parts in their ranges.
fn in_range(t: &Temporal) -> bool {
    t.year <= 9999
        && t.month <= 12
        && t.day <= 31
        && t.hour <= 23
        && t.minute <= 59
        && t.second <= 59
}

/// `str_to_datetime` (with MySQL's default format positions: year, month, day, hour, minute,
/// second, fraction): `YYYY-MM-DD[ HH:MM:SS[.f]]` with any punctuation as delimiters and
/// two-digit years, or the digits alone (`YYYYMMDD[HHMMSS]`, `YYMMDD[HHMMSS]`).
/// `datetime_only` wants a time part, as `str_to_time` probes with.
pub(super) fn str_to_datetime(s: &[u8], fuzzy: bool, datetime_only: bool) -> Parsed {
    let start = s
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(s.len());
    let s = &s[start..];
    if !s.first().is_some_and(u8::is_ascii_digit) {
        return Parsed::NotDatetime;
    }
    let digits = s
        .iter()
        .take_while(|c| c.is_ascii_digit() || **c == b'T')
        .count();
    // Digits alone (up to an optional fraction): fixed-width fields.
    let internal = digits == s.len() || s[digits] == b'.';
    let year_width = if [4, 8].contains(&digits) || digits >= 14 {
        4
    } else {
        2
    };
    let mut width: usize = if internal { year_width } else { 4 };
    let mut date = [0u64; 8];
    let mut len = [0usize; 8];
    let (mut not_zero, mut found_delimiter, mut found_space) = (false, false, false);
    let mut at = 0;
    let mut i = 0;
    while i < 7 && at < s.len() && s[at].is_ascii_digit() {
        let field_start = at;
        let scan_to_delimiter = !internal && i != 6;
        let mut value = u64::from(s[at] - b'0');
        at += 1;
        while at < s.len() && s[at].is_ascii_digit() && (scan_to_delimiter || width > 1) {
            value = value * 10 + u64::from(s[at] - b'0');
            at += 1;
            width = width.saturating_sub(1);
        }
        len[i] = at - field_start;
        if value > 999_999 {
            return Parsed::NotDatetime;
        }
        date[i] = value;
        not_zero |= value != 0;
        width = 2;
        if at == s.len() {
            i += 1;
            break;
        }
        if i == 2 && s[at] == b'T' {
            at += 1;
            i += 1;
            continue;
        }
        if i == 5 {
            if s[at] == b'.' {
                at += 1;
                width = 6;
            } else if s[at].is_ascii_digit() {
                i += 1;
                break;
            }
            i += 1;
            continue;
        }
        while at < s.len() && (s[at].is_ascii_punctuation() || s[at].is_ascii_whitespace()) {
            if s[at].is_ascii_whitespace() {
                // Spaces only after the day and after the fraction.
                if i != 2 && i != 6 {
                    return Parsed::NotDatetime;
                }
                found_space = true;
            }
            at += 1;
            found_delimiter = true;
        }
        if i == 6 {
            i += 1; // the AM/PM slot MySQL's default format has none of
        }
        i += 1;
    }
    if found_delimiter && !found_space && datetime_only {
        return Parsed::NotDatetime;
    }
    let fields = i;
    let year_len = if internal { year_width } else { len[0] };
    if year_len == 0 {
        return Parsed::NotDatetime;
    }
    let frac = if len[6] < 6 {
        date[6] * 10u64.pow(6 - len[6] as u32)
    } else {
        date[6]
    };
    let part = |k: usize| u32::try_from(date[k]).unwrap_or(u32::MAX);
    let mut t = Temporal {
        kind: if fields <= 3 {
            Kind::Date
        } else {
            Kind::DateTime
        },
        neg: false,
        year: part(0),
        month: part(1),
        day: part(2),
        hour: part(3),
        minute: part(4),
        second: part(5),
        micro: frac as u32,
    };
    if year_len == 2 && not_zero {
        t.year = two_digit_year(t.year);
    }
    // What follows the value is only a warning in MySQL.
    if fields < 3 || !in_range(&t) || !check_date(&t, not_zero, fuzzy) {
        return Parsed::Invalid;
    }
    Parsed::Value(t)
}

/// `str_to_time`: `[-][D ]HH:MM:SS[.f]`, `HH:MM`, `[H]HMMSS`, `[M]MSS`, `[S]S`, or a full
/// datetime (its DATETIME); hours past 838 clip to 838:59:59. None for no time.
pub(super) fn str_to_time(s: &[u8]) -> Option<Temporal> {
    let start = s
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(s.len());
    let mut s = &s[start..];
    let neg = s.first() == Some(&b'-');
    if neg {
        s = &s[1..];
    }
    if s.is_empty() {
        return None;
    }
    if s.len() >= 12 {
        match str_to_datetime(s, true, true) {
            Parsed::Value(t) => return Some(t),
            Parsed::Invalid => return None,
            Parsed::NotDatetime => {}
        }
    }
    let number = |at: &mut usize| {
        let mut v: u64 = 0;
        while *at < s.len() && s[*at].is_ascii_digit() {
            v = v
                .saturating_mul(10)
                .saturating_add(u64::from(s[*at] - b'0'));
            *at += 1;
        }
        v
    };
    let mut at = 0;
    let value = number(&mut at);
    if value > u64::from(u32::MAX) {
        return None;
    }
    let end_of_days = at;
    while at < s.len() && s[at].is_ascii_whitespace() {
        at += 1;
    }
    let colon_next = |at: usize| s.len() - at > 1 && s[at] == b':' && s[at + 1].is_ascii_digit();
    // [days, hours, minutes, seconds]
    let mut parts = [0u64; 4];
    let found_days;
    if s.len() - at > 1 && at != end_of_days && s[at].is_ascii_digit() {
        (parts[0], found_days) = (value, true);
    } else if colon_next(at) {
        (parts[1], found_days) = (value, false);
        at += 1;
    } else {
        parts = [0, value / 10000, value / 100 % 100, value % 100];
        return finish_time(s, at, parts, neg);
    }
    // The parts after the first: "D HH:MM:SS", "HH:MM:SS"; missing ones are zero.
    let mut state = if found_days { 1 } else { 2 };
    loop {
        parts[state] = number(&mut at);
        state += 1;
        if state == 4 || !colon_next(at) {
            break;
        }
        at += 1;
    }
    finish_time(s, at, parts, neg)
}

/// The fraction after `at` and the range checks of `str_to_time`.
fn finish_time(s: &[u8], mut at: usize, parts: [u64; 4], neg: bool) -> Option<Temporal> {
    let mut micro = 0u64;
    if s.len() - at >= 2 && s[at] == b'.' && s[at + 1].is_ascii_digit() {
        at += 1;
        let digits = s[at..].iter().take_while(|c| c.is_ascii_digit()).count();
        for (k, c) in s[at..at + digits.min(6)].iter().enumerate() {
            micro += u64::from(c - b'0') * 10u64.pow(5 - k as u32);
        }
        at += digits;
    }
    if s.len() - at > 1 && matches!(s[at], b'e' | b'E') {
        return None; // an exponent: a number, not a time
    }
    let [days, hours, minutes, seconds] = parts;
    if parts.iter().any(|&p| p > u64::from(u32::MAX)) || minutes >= 60 || seconds >= 60 {
        return None;
    }
    // Trailing garbage is only a warning in MySQL, unless nothing before it was a time.
    if at == 0 && s.iter().any(|c| !c.is_ascii_whitespace()) {
        return None;
    }
    let total = ((days * 24 + hours) * 3600 + minutes * 60 + seconds) as i64;
    let micros = total.saturating_mul(MICROS).saturating_add(micro as i64);
    Some(Temporal::time(if neg { -micros } else { micros }))
}

/// `number_to_datetime`: `YYYYMMDD[HHMMSS]` or `YYMMDD[HHMMSS]` as a number; None for no
/// date (or one `fuzzy` does not allow).
pub(super) fn number_to_datetime(n: i64, fuzzy: bool) -> Option<Temporal> {
    let (nr, kind) = match n {
        0 | 10_000_101_000_000..=99_999_999_999_999 => (n, Kind::DateTime),
        101..=691_231 => ((n + 20_000_000) * 1_000_000, Kind::Date),
        700_101..=991_231 => ((n + 19_000_000) * 1_000_000, Kind::Date),
        // Years 1-999 as YYYYMMDD only where zero-ish dates are allowed, as in MySQL.
        991_232..=10_000_100 if fuzzy => (n * 1_000_000, Kind::Date),
        10_000_101..=99_991_231 => (n * 1_000_000, Kind::Date),
        101_000_000..=691_231_235_959 => (n + 20_000_000_000_000, Kind::DateTime),
        700_101_000_000..=991_231_235_959 => (n + 19_000_000_000_000, Kind::DateTime),
        991_231_235_960..=10_000_100_999_999 => (n, Kind::DateTime),
        _ => return None,
    };
    let (ymd, hms) = (nr / 1_000_000, nr % 1_000_000);
    let t = Temporal {
        kind,
        neg: false,
        year: (ymd / 10_000) as u32,
        month: (ymd / 100 % 100) as u32,
        day: (ymd % 100) as u32,
        hour: (hms / 10_000) as u32,
        minute: (hms / 100 % 100) as u32,
        second: (hms % 100) as u32,
        micro: 0,
    };
    (in_range(&t) && check_date(&t, nr != 0, fuzzy)).then_some(t)
}

/// `number_to_time`: `[H]HMMSS` as a number; a datetime-sized number is a DATETIME. None
/// beyond ±838:59:59 (MySQL's conversion fails there, where a string clips).
pub(super) fn number_to_time(n: i64) -> Option<Temporal> {
    const TIME_MAX_VALUE: i64 = 8_385_959;
    if n >= 10_000_000_000 {
        return number_to_datetime(n, false);
    }
    if !(-TIME_MAX_VALUE..=TIME_MAX_VALUE).contains(&n) {
        return None;
    }
    let abs = n.abs();
    if abs % 100 >= 60 || abs / 100 % 100 >= 60 {
        return None;
    }
    let secs = abs / 10_000 * 3600 + abs / 100 % 100 * 60 + abs % 100;
    Some(Temporal::time(secs * MICROS * n.signum()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> Option<String> {
        match str_to_datetime(s.as_bytes(), true, false) {
            Parsed::Value(t) => Some(t.text_auto()),
            _ => None,
        }
    }

    fn tm(s: &str) -> Option<String> {
        str_to_time(s.as_bytes()).map(|t| t.text_auto())
    }

    #[test]
    fn strings_read_as_mysqls_datetimes() {
        let s = |v: &str| Some(v.to_string());
        assert_eq!(dt("2024-02-29"), s("2024-02-29"));
        assert_eq!(
            dt(" 2024-02-29 10:11:12.5"),
            s("2024-02-29 10:11:12.500000")
        );
        assert_eq!(dt("2024-02-29T10:11:12"), s("2024-02-29 10:11:12"));
        assert_eq!(dt("24-2-9"), s("2024-02-09"));
        assert_eq!(dt("99/12/31 23.59.59"), s("1999-12-31 23:59:59"));
        assert_eq!(dt("20240229"), s("2024-02-29"));
        assert_eq!(dt("240229101112"), s("2024-02-29 10:11:12"));
        assert_eq!(dt("20240229T101112"), s("2024-02-29 10:11:12"));
        assert_eq!(dt("2024-01-01 10:11:12junk"), s("2024-01-01 10:11:12"));
        assert_eq!(dt("0000-00-00"), s("0000-00-00"));
        assert_eq!(dt("2024-00-10"), s("2024-00-10"));
        assert_eq!(dt("10:11:12"), s("2010-11-12"), "MySQL's string rules");
        assert_eq!(dt("2023-02-29"), None);
        assert_eq!(dt("2024-13-01"), None);
        assert_eq!(dt("2024-01-01 24:00:00"), None);
        assert_eq!(dt("2024-01"), None);
        assert_eq!(dt("soon"), None);
        assert_eq!(dt(""), None);
        let whole = |s: &str| {
            matches!(
                str_to_datetime(s.as_bytes(), false, false),
                Parsed::Value(_)
            )
        };
        assert!(whole("2024-01-01") && !whole("0000-00-00") && !whole("2024-00-10"));
    }

    #[test]
    fn strings_read_as_mysqls_times() {
        let s = |v: &str| Some(v.to_string());
        assert_eq!(tm("10:11:12"), s("10:11:12"));
        assert_eq!(tm("-10:11:12.25"), s("-10:11:12.250000"));
        assert_eq!(tm("1 02:03:04"), s("26:03:04"));
        assert_eq!(tm("2 03"), s("51:00:00"));
        assert_eq!(tm("10:11"), s("10:11:00"));
        assert_eq!(tm("101112"), s("10:11:12"));
        assert_eq!(tm("1112"), s("00:11:12"));
        assert_eq!(tm("12"), s("00:00:12"));
        assert_eq!(tm("900:00:00"), s("838:59:59"));
        assert_eq!(tm("2024-01-15"), s("00:20:24"), "MySQL's string rules");
        assert_eq!(tm("2024-01-15 10:11:12"), s("2024-01-15 10:11:12"));
        assert_eq!(tm("10:60:00"), None);
        assert_eq!(tm("1e5"), None);
        assert_eq!(tm("abc"), None);
        assert_eq!(tm(".5"), s("00:00:00.500000"));
        assert_eq!(tm(""), None);
    }

    #[test]
    fn numbers_read_as_mysqls_datetimes_and_times() {
        let d = |n| number_to_datetime(n, true).map(|t| t.text_auto());
        assert_eq!(d(20240229), Some("2024-02-29".into()));
        assert_eq!(d(240229), Some("2024-02-29".into()));
        assert_eq!(d(991231), Some("1999-12-31".into()));
        assert_eq!(d(20240229101112), Some("2024-02-29 10:11:12".into()));
        assert_eq!(d(0), Some("0000-00-00 00:00:00".into()));
        assert_eq!(d(20230229), None);
        assert_eq!(d(100), None);
        assert_eq!(number_to_datetime(0, false), None);
        let t = |n| number_to_time(n).map(|t| t.text_auto());
        assert_eq!(t(101112), Some("10:11:12".into()));
        assert_eq!(t(-1112), Some("-00:11:12".into()));
        assert_eq!(t(9_000_000), None);
        assert_eq!(t(20240229101112), Some("2024-02-29 10:11:12".into()));
        assert_eq!(t(1060), None);
    }

    #[test]
    fn typed_texts_and_conversions() {
        assert!(is_date_text(b"2024-01-15") && !is_date_text(b"2024-1-15"));
        assert!(is_time_text(b"10:11:12") && is_time_text(b"-838:59:59.5"));
        assert!(
            !is_time_text(b"1:11:12") && !is_time_text(b"10:11") && !is_time_text(b"10:11:12.")
        );
        let t = Temporal::from_unix(1_709_164_800, 123_456).unwrap();
        assert_eq!(t.text(3), "2024-02-29 00:00:00.123");
        assert_eq!(t.unix(), Some((1_709_164_800, 123_456)));
        assert_eq!(
            Temporal::from_unix(-1, 0).unwrap().text(0),
            "1969-12-31 23:59:59"
        );
        assert_eq!(Temporal::time(-1).text_auto(), "-00:00:00.000001");
        assert_eq!(Temporal::at_micros(-1), None);
    }
}
