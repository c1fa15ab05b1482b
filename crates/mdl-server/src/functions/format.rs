//! `DATE_FORMAT`, `TIME_FORMAT` and `STR_TO_DATE` (manual, 14.7; source
//! `sql/item_timefunc.cc`: `make_date_time`, `extract_date_time`,
//! `Item_func_str_to_date::fix_from_format`), with English names (`lc_time_names` =
//! `en_US`).
//!
//! Specifiers: `%a %b %c %D %d %e %f %H %h %I %i %j %k %l %M %m %p %r %S %s %T %U %u %V %v
//! %W %w %X %x %Y %y %%`; any other `%c` formats as `c`. As in MySQL, a date with zero parts
//! formats (`'2024-00-00'`), except that a month name needs a month, and what counts days
//! (`%a %W %w %j %U %u %V %v %X %x`) needs a date of the calendar (MySQL computes those from
//! the zero parts; here they make the result NULL); `TIME_FORMAT` has no date.
//!
//! `STR_TO_DATE` gives a DATE, a TIME or a DATETIME as its format has date parts, time parts
//! or both (six fraction digits with `%f`); as in MySQL it checks the parts' ranges (month up
//! to 12, day up to 31) but not the day against the month, and takes zero parts.

use std::sync::Arc;

use rusqlite::functions::Context;
use rusqlite::types::Value;

use super::calendar::{
    calc_week, daynr, from_daynr, two_digit_year, weekday, MAX_DAY_NUMBER, WEEK_FIRST_WEEKDAY,
    WEEK_MONDAY_FIRST, WEEK_YEAR,
};
use super::clock::StatementClock;
use super::parts::{DAY_NAMES, MONTH_NAMES};
use super::temporal::{date_arg, time_arg, Dates, Kind, Temporal};
use super::{bounded, flags, text};

/// Registers the functions on `db`. `DATE_FORMAT` reads a TIME on the statement's date, so
/// it is not deterministic.
pub(super) fn register(
    db: &rusqlite::Connection,
    clock: &Arc<StatementClock>,
) -> rusqlite::Result<()> {
    let c = clock.clone();
    db.create_scalar_function("DATE_FORMAT", 2, flags(false), move |ctx| {
        let t = date_arg(ctx, 0, Dates::Fuzzy, &c);
        Ok(formatted(ctx, t, false))
    })?;
    db.create_scalar_function("TIME_FORMAT", 2, flags(true), |ctx| {
        let t = time_arg(ctx, 0).map(|t| Temporal {
            year: 0,
            month: 0,
            day: 0,
            ..t
        });
        Ok(formatted(ctx, t, true))
    })?;
    db.create_scalar_function("STR_TO_DATE", 2, flags(true), |ctx| {
        Ok(match (text(ctx, 0), text(ctx, 1)) {
            (Some(s), Some(f)) => str_to_date(&s, &f).map_or(Value::Null, Value::Text),
            _ => Value::Null,
        })
    })
}

/// `t` formatted by argument 1; NULL for no value, no or an empty format.
fn formatted(ctx: &Context<'_>, t: Option<Temporal>, time_only: bool) -> Value {
    match (t, text(ctx, 1)) {
        (Some(t), Some(f)) if !f.is_empty() => {
            format_temporal(&t, &f, time_only).map_or(Value::Null, bounded)
        }
        _ => Value::Null,
    }
}

/// `make_date_time`: `t` by `format`; None where a specifier has nothing to show.
fn format_temporal(t: &Temporal, format: &str, time_only: bool) -> Option<String> {
    use std::fmt::Write;
    let mut out = String::with_capacity(format.len() + 16);
    if t.neg {
        out.push('-');
    }
    let date_nr = || if time_only { None } else { t.daynr() };
    let week = |flags| calc_week(t.year, t.month, t.day, flags).filter(|_| !time_only);
    let twelve = (t.hour % 24 + 11) % 12 + 1;
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        let Some(spec) = (c == '%').then(|| chars.next()).flatten() else {
            out.push(c);
            continue;
        };
        // Writing to a String cannot fail.
        let _ = match spec {
            'M' => write!(
                out,
                "{}",
                MONTH_NAMES.get(t.month.checked_sub(1)? as usize)?
            ),
            'b' => write!(
                out,
                "{}",
                &MONTH_NAMES.get(t.month.checked_sub(1)? as usize)?[..3]
            ),
            'W' => write!(out, "{}", DAY_NAMES[weekday(date_nr()?, false) as usize]),
            'a' => write!(
                out,
                "{}",
                &DAY_NAMES[weekday(date_nr()?, false) as usize][..3]
            ),
            'w' => write!(out, "{}", weekday(date_nr()?, true)),
            'D' if time_only => return None,
            'D' => write!(out, "{}{}", t.day, ordinal_suffix(t.day)),
            'Y' => write!(out, "{:04}", t.year),
            'y' => write!(out, "{:02}", t.year % 100),
            'm' => write!(out, "{:02}", t.month),
            'c' => write!(out, "{}", t.month),
            'd' => write!(out, "{:02}", t.day),
            'e' => write!(out, "{}", t.day),
            'f' => write!(out, "{:06}", t.micro),
            'H' => write!(out, "{:02}", t.hour),
            'k' => write!(out, "{}", t.hour),
            'h' | 'I' => write!(out, "{twelve:02}"),
            'l' => write!(out, "{twelve}"),
            'i' => write!(out, "{:02}", t.minute),
            'S' | 's' => write!(out, "{:02}", t.second),
            'j' => write!(out, "{:03}", date_nr()? - daynr(t.year, 1, 1)? + 1),
            'p' => write!(out, "{}", am_pm(t.hour)),
            'r' => write!(
                out,
                "{twelve:02}:{:02}:{:02} {}",
                t.minute,
                t.second,
                am_pm(t.hour)
            ),
            'T' => write!(out, "{:02}:{:02}:{:02}", t.hour, t.minute, t.second),
            'U' => write!(out, "{:02}", week(WEEK_FIRST_WEEKDAY)?.0),
            'u' => write!(out, "{:02}", week(WEEK_MONDAY_FIRST)?.0),
            'V' => write!(out, "{:02}", week(WEEK_YEAR | WEEK_FIRST_WEEKDAY)?.0),
            'v' => write!(out, "{:02}", week(WEEK_YEAR | WEEK_MONDAY_FIRST)?.0),
            'X' => write!(out, "{:04}", week(WEEK_YEAR | WEEK_FIRST_WEEKDAY)?.1),
            'x' => write!(out, "{:04}", week(WEEK_YEAR | WEEK_MONDAY_FIRST)?.1),
            other => write!(out, "{other}"),
        };
    }
    Some(out)
}

fn am_pm(hour: u32) -> &'static str {
    if hour % 24 < 12 {
        "AM"
    } else {
        "PM"
    }
}

/// English ordinal suffix of a day: 1st, 2nd, 3rd, 4th, 11th-13th, 21st...
fn ordinal_suffix(day: u32) -> &'static str {
    match (day % 100, day % 10) {
        (10..=19, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    }
}

/// The parts `extract_date_time` fills, signed as MySQL's `int`s are.
#[derive(Debug, Default)]
struct Parts {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    micro: i64,
}

/// `STR_TO_DATE(s, format)`: the value's text, or None where `s` does not match.
fn str_to_date(s: &str, format: &str) -> Option<String> {
    let mut p = Parts::default();
    extract(format.as_bytes(), s.as_bytes(), &mut p, false)?;
    let (kind, fsp) = result_type(format.as_bytes());
    let part = |v: i64| u32::try_from(v).ok();
    let mut t = Temporal {
        kind,
        neg: false,
        year: part(p.year)?,
        month: part(p.month)?,
        day: part(p.day)?,
        hour: part(p.hour)?,
        minute: part(p.minute)?,
        second: part(p.second)?,
        micro: part(p.micro)?,
    };
    if kind == Kind::Time {
        // A TIME keeps its days in its hours.
        t.hour += t.day * 24;
        (t.year, t.month, t.day) = (0, 0, 0);
    }
    Some(t.text(fsp))
}

/// `fix_from_format`: what `format` yields, and its fraction digits. The day specifiers
/// `%d %e %D` count for no type: a day belongs to all.
fn result_type(format: &[u8]) -> (Kind, u32) {
    let (mut date, mut time, mut frac) = (false, false, false);
    let mut specs = format.split(|&c| c == b'%').skip(1);
    while let Some(after) = specs.next() {
        match after.first() {
            Some(b'f') => (frac, time) = (true, true),
            Some(c) if b"HISThiklrs".contains(c) => time = true,
            Some(c) if b"MVUXYWabcjmvuxyw".contains(c) => date = true,
            None => {
                specs.next(); // "%%": the second % is no specifier
            }
            _ => {}
        }
    }
    match (date, time) {
        (true, true) => (Kind::DateTime, if frac { 6 } else { 0 }),
        (false, true) => (Kind::Time, if frac { 6 } else { 0 }),
        _ => (Kind::Date, 0),
    }
}

/// `my_strtoll10` over at most `width` bytes of `v`: an optionally signed number and the
/// bytes it took; None where no digit is.
fn number(v: &[u8], width: usize) -> Option<(i64, usize)> {
    let v = &v[..width.min(v.len())];
    let sign = usize::from(matches!(v.first(), Some(b'-' | b'+')));
    let digits = v[sign..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut n: i64 = 0;
    for c in &v[sign..sign + digits] {
        n = n.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
    }
    Some((if v[0] == b'-' { -n } else { n }, sign + digits))
}

/// `check_word`: the name a word starts with (case-insensitive; a unique prefix will do),
/// 1-based, and the word's length; names cut to `len` characters when given.
fn name(v: &[u8], names: &[&str], len: Option<usize>) -> Option<(i64, usize)> {
    let word = v.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    let w = &v[..word];
    let exact = names
        .iter()
        .position(|n| cut(n, len).eq_ignore_ascii_case(w));
    let found = match exact {
        Some(i) => i,
        None => {
            let prefix_of = |n: &str| {
                let n = cut(n, len);
                n.len() >= w.len() && n[..w.len()].eq_ignore_ascii_case(w)
            };
            let mut matches = names.iter().enumerate().filter(|(_, n)| prefix_of(n));
            match (matches.next(), matches.next()) {
                (Some((i, _)), None) if word > 0 => i,
                _ => return None,
            }
        }
    };
    Some((found as i64 + 1, word))
}

/// The first `len` bytes of a name (all of it for None).
fn cut(name: &str, len: Option<usize>) -> &[u8] {
    let b = name.as_bytes();
    &b[..len.unwrap_or(b.len()).min(b.len())]
}

/// Stores a parsed number in `slot`; how much it took.
fn set(slot: &mut i64, parsed: Option<(i64, usize)>) -> Option<usize> {
    let (n, took) = parsed?;
    *slot = n;
    Some(took)
}

/// `extract_date_time`: matches `v` against `format`, filling `p`; None where it does not
/// match. `sub` parses the time of `%r` / `%T` and returns how much of `v` it took.
fn extract(format: &[u8], v: &[u8], p: &mut Parts, sub: bool) -> Option<usize> {
    let (mut weekday_in, mut yearday, mut daypart) = (0i64, 0i64, 0i64);
    let (mut week_number, mut strict_year) = (-1i64, -1i64);
    let (mut usa_time, mut sunday_first, mut strict_week, mut strict_year_sunday) =
        (false, false, false, false);
    let (mut f, mut at) = (0, 0);
    while f < format.len() && at < v.len() {
        while at < v.len() && v[at].is_ascii_whitespace() {
            at += 1;
        }
        if at >= v.len() {
            break;
        }
        if format[f] == b'%' && f + 1 < format.len() {
            f += 1;
            let rest = &v[at..];
            let took = match format[f] {
                b'Y' => {
                    let took = set(&mut p.year, number(rest, 4))?;
                    if took <= 2 {
                        p.year = i64::from(two_digit_year(u32::try_from(p.year).ok()?));
                    }
                    took
                }
                b'y' => {
                    let took = set(&mut p.year, number(rest, 2))?;
                    p.year = i64::from(two_digit_year(u32::try_from(p.year).ok()?));
                    took
                }
                b'm' | b'c' => set(&mut p.month, number(rest, 2))?,
                b'M' => set(&mut p.month, name(rest, &MONTH_NAMES, None))?,
                b'b' => set(&mut p.month, name(rest, &MONTH_NAMES, Some(3)))?,
                b'd' | b'e' => set(&mut p.day, number(rest, 2))?,
                // The day, then two characters more: "st", "nd", "th".
                b'D' => (set(&mut p.day, number(rest, 2))? + 2).min(rest.len()),
                b'h' | b'I' | b'l' | b'k' | b'H' => {
                    usa_time |= matches!(format[f], b'h' | b'I' | b'l');
                    set(&mut p.hour, number(rest, 2))?
                }
                b'i' => set(&mut p.minute, number(rest, 2))?,
                b's' | b'S' => set(&mut p.second, number(rest, 2))?,
                b'f' => {
                    let took = set(&mut p.micro, number(rest, 6))?;
                    p.micro *= 10i64.pow(6u32.saturating_sub(took as u32));
                    took
                }
                b'p' => {
                    if rest.len() < 2 || !usa_time {
                        return None;
                    }
                    match &rest[..2] {
                        pm if pm.eq_ignore_ascii_case(b"PM") => daypart = 12,
                        am if am.eq_ignore_ascii_case(b"AM") => {}
                        _ => return None,
                    }
                    2
                }
                b'W' => set(&mut weekday_in, name(rest, &DAY_NAMES, None))?,
                b'a' => set(&mut weekday_in, name(rest, &DAY_NAMES, Some(3)))?,
                b'w' => {
                    let took = set(&mut weekday_in, number(rest, 1))?;
                    if !(0..7).contains(&weekday_in) {
                        return None;
                    }
                    if weekday_in == 0 {
                        weekday_in = 7; // %W's scale: 1 (Monday) to 7
                    }
                    took
                }
                b'j' => set(&mut yearday, number(rest, 3))?,
                b'U' | b'u' | b'V' | b'v' => {
                    sunday_first = matches!(format[f], b'U' | b'V');
                    strict_week = matches!(format[f], b'V' | b'v');
                    let took = set(&mut week_number, number(rest, 2))?;
                    if week_number < 0 || (strict_week && week_number == 0) || week_number > 53 {
                        return None;
                    }
                    took
                }
                b'X' | b'x' => {
                    strict_year_sunday = format[f] == b'X';
                    set(&mut strict_year, number(rest, 4))?
                }
                b'r' => extract(b"%I:%i:%S %p", rest, p, true)?,
                b'T' => extract(b"%H:%i:%S", rest, p, true)?,
                b'.' => rest.iter().take_while(|c| c.is_ascii_punctuation()).count(),
                b'@' => rest.iter().take_while(|c| c.is_ascii_alphabetic()).count(),
                b'#' => rest.iter().take_while(|c| c.is_ascii_digit()).count(),
                _ => return None,
            };
            at += took;
        } else if !format[f].is_ascii_whitespace() {
            if v[at] != format[f] {
                return None;
            }
            at += 1;
        }
        f += 1;
    }
    if usa_time {
        if !(1..=12).contains(&p.hour) {
            return None;
        }
        p.hour = p.hour % 12 + daypart;
    }
    if sub {
        return Some(at);
    }
    let set_date = |p: &mut Parts, days: i64| {
        if days <= 0 || days > MAX_DAY_NUMBER {
            return None;
        }
        let (y, m, d) = from_daynr(days);
        (p.year, p.month, p.day) = (y.into(), m.into(), d.into());
        Some(())
    };
    if yearday > 0 {
        let days = daynr(u32::try_from(p.year).ok()?, 1, 1)? + yearday - 1;
        set_date(p, days)?;
    }
    if week_number >= 0 && weekday_in != 0 {
        // %V / %v need %X / %x of the same kind; %U / %u need %Y, not %X / %x.
        if (strict_week && (strict_year < 0 || strict_year_sunday != sunday_first))
            || (!strict_week && strict_year >= 0)
        {
            return None;
        }
        let year = if strict_week { strict_year } else { p.year };
        let first = daynr(u32::try_from(year).ok()?, 1, 1)?;
        let first_weekday = i64::from(weekday(first, sunday_first));
        let days = if sunday_first {
            first + if first_weekday == 0 { 0 } else { 7 } - first_weekday
                + (week_number - 1) * 7
                + weekday_in % 7
        } else {
            first + if first_weekday <= 3 { 0 } else { 7 } - first_weekday
                + (week_number - 1) * 7
                + (weekday_in - 1)
        };
        set_date(p, days)?;
    }
    let in_range = (0..=12).contains(&p.month)
        && (0..=31).contains(&p.day)
        && (0..=23).contains(&p.hour)
        && (0..=59).contains(&p.minute)
        && (0..=59).contains(&p.second);
    // What follows the match is only a warning in MySQL.
    in_range.then_some(at)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn date_format_as_mysqls() {
        let db = db();
        let cases = [
            // The manual's examples.
            ("DATE_FORMAT('2009-10-04 22:23:00', '%W %M %Y')", t("Sunday October 2009")),
            ("DATE_FORMAT('2007-10-04 22:23:00', '%H:%i:%s')", t("22:23:00")),
            ("DATE_FORMAT('1900-10-04 22:23:00', '%D %y %a %d %m %b %j')", t("4th 00 Thu 04 10 Oct 277")),
            ("DATE_FORMAT('1997-10-04 22:23:00', '%H %k %I %r %T %S %w')", t("22 22 10 10:23:00 PM 22:23:00 00 6")),
            ("DATE_FORMAT('1999-01-01', '%X %V')", t("1998 52")),
            ("DATE_FORMAT('2006-06-00', '%d')", t("00")),
            // Every specifier.
            ("DATE_FORMAT('2024-01-02 03:04:05.000678', '%a|%b|%c|%D|%d|%e|%f|%H|%h|%I|%i|%j|%k|%l|%M|%m|%p|%r|%S|%s|%T')",
             t("Tue|Jan|1|2nd|02|2|000678|03|03|03|04|002|3|3|January|01|AM|03:04:05 AM|05|05|03:04:05")),
            ("DATE_FORMAT('2024-12-30', '%U|%u|%V|%v|%W|%w|%X|%x|%Y|%y|%%|%Q')",
             t("52|53|52|01|Monday|1|2024|2025|2024|24|%|Q")),
            ("DATE_FORMAT('2024-01-01 12:00:00', '%h %p %l')", t("12 PM 12")),
            ("DATE_FORMAT('2024-01-01 00:00:00', '%h %p %r')", t("12 AM 12:00:00 AM")),
            ("DATE_FORMAT('2024-01-21', '%D %D')", t("21st 21st")),
            ("DATE_FORMAT('2024-01-13', '%D')", t("13th")),
            ("DATE_FORMAT(20240102, '%Y')", t("2024")),
            ("DATE_FORMAT('0000-00-00', '%Y-%m-%d %D')", t("0000-00-00 0th")),
            ("DATE_FORMAT('2024-00-00', '%M')", Value::Null),
            ("DATE_FORMAT('2024-00-00', '%W')", Value::Null),
            ("DATE_FORMAT('2024-02-30', '%Y')", Value::Null),
            ("DATE_FORMAT('2024-01-01', '')", Value::Null),
            ("DATE_FORMAT(NULL, '%Y')", Value::Null),
            ("DATE_FORMAT('2024-01-01', NULL)", Value::Null),
            ("DATE_FORMAT('2024-01-01', 'trailing %')", t("trailing %")),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }

    #[test]
    fn time_format_as_mysqls() {
        let db = db();
        let cases = [
            (
                "TIME_FORMAT('100:00:00', '%H %k %h %I %l')",
                t("100 100 04 04 4"),
            ),
            ("TIME_FORMAT('-01:02:03', '%H:%i:%s')", t("-01:02:03")),
            (
                "TIME_FORMAT('2024-01-01 13:14:15', '%r %Y')",
                t("01:14:15 PM 0000"),
            ),
            ("TIME_FORMAT('10:00:00', '%W')", Value::Null),
            ("TIME_FORMAT('10:00:00', '%M')", Value::Null),
            ("TIME_FORMAT(NULL, '%H')", Value::Null),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }

    #[test]
    fn str_to_date_as_mysqls() {
        let db = db();
        let cases = [
            // The manual's examples.
            ("STR_TO_DATE('01,5,2013', '%d,%m,%Y')", t("2013-05-01")),
            ("STR_TO_DATE('May 1, 2013', '%M %d,%Y')", t("2013-05-01")),
            ("STR_TO_DATE('a09:30:17', 'a%h:%i:%s')", t("09:30:17")),
            ("STR_TO_DATE('a09:30:17', '%h:%i:%s')", Value::Null),
            ("STR_TO_DATE('09:30:17a', '%h:%i:%s')", t("09:30:17")),
            ("STR_TO_DATE('abc', 'abc')", t("0000-00-00")),
            ("STR_TO_DATE('9', '%m')", t("0000-09-00")),
            ("STR_TO_DATE('9', '%s')", t("00:00:09")),
            ("STR_TO_DATE('00/00/0000', '%m/%d/%Y')", t("0000-00-00")),
            ("STR_TO_DATE('04/31/2004', '%m/%d/%Y')", t("2004-04-31")),
            ("STR_TO_DATE('200442 Monday', '%X%V %W')", t("2004-10-18")),
            // More.
            (
                "STR_TO_DATE('2024-01-02 03:04:05.5', '%Y-%m-%d %H:%i:%s.%f')",
                t("2024-01-02 03:04:05.500000"),
            ),
            ("STR_TO_DATE('10.5', '%s.%f')", t("00:00:10.500000")),
            ("STR_TO_DATE('2nd Jan 24', '%D %b %y')", t("2024-01-02")),
            ("STR_TO_DATE('12:30:00 PM', '%r')", t("12:30:00")),
            ("STR_TO_DATE('12:30:00 am', '%r')", t("00:30:00")),
            ("STR_TO_DATE('2024 60', '%Y %j')", t("2024-02-29")),
            (
                "STR_TO_DATE('2024-01-02 13:00', '%Y-%m-%d %h:%i')",
                Value::Null,
            ),
            ("STR_TO_DATE('2024-13-02', '%Y-%m-%d')", Value::Null),
            ("STR_TO_DATE('Ju 2024', '%M %Y')", Value::Null),
            ("STR_TO_DATE('Jun 2024', '%M %Y')", t("2024-06-00")),
            ("STR_TO_DATE('2024', '%Y %%')", t("2024-00-00")),
            ("STR_TO_DATE(NULL, '%Y')", Value::Null),
            ("STR_TO_DATE('2024', NULL)", Value::Null),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }
}
