//! MySQL's calendar: day numbers, leap years, weekdays and week numbers (source
//! `mysys/my_time.cc`: `calc_daynr`, `get_date_from_daynr`, `calc_days_in_year`,
//! `calc_weekday`; `sql/sql_time.cc`: `calc_week`).
//!
//! A day number counts days from MySQL's year 0: `TO_DAYS('0001-01-01')` is 366. From year 1
//! on that is the proleptic Gregorian calendar, and chrono's day count plus 365; MySQL's year
//! 0 is no leap year, though (no 0000-02-29), so January and February of year 0 are shifted
//! by one day against chrono's. Day numbers up to 365 are no date: MySQL turns them into
//! `0000-00-00`.

use chrono::{Datelike, NaiveDate};

/// The day number of 9999-12-31, the last date MySQL computes with.
pub(super) const MAX_DAY_NUMBER: i64 = 3_652_424;
/// The day number of 1970-01-01.
pub(super) const UNIX_EPOCH_DAY: i64 = 719_528;
/// Seconds in a day.
pub(super) const DAY_SECONDS: i64 = 86_400;

/// `calc_days_in_year`: 366 in a leap year. Year 0 is not one, as in MySQL.
pub(super) fn is_leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || (year.is_multiple_of(400) && year != 0))
}

/// Days in `year`.
pub(super) fn days_in_year(year: u32) -> i64 {
    if is_leap(year) {
        366
    } else {
        365
    }
}

/// Days in `month` (1 to 12) of `year`.
pub(super) fn days_in_month(year: u32, month: u32) -> u32 {
    const DAYS: [u32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    match month {
        2 if is_leap(year) => 29,
        1..=12 => DAYS[month as usize - 1],
        _ => 0,
    }
}

/// Whether `year-month-day` is a date of the calendar (no zero part, a day the month has).
pub(super) fn is_valid_date(year: u32, month: u32, day: u32) -> bool {
    year <= 9999 && day >= 1 && day <= days_in_month(year, month)
}

/// `calc_daynr`: the day number of a valid date; None for none.
pub(super) fn daynr(year: u32, month: u32, day: u32) -> Option<i64> {
    if !is_valid_date(year, month, day) {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    // chrono's year 0 has a 29 February that MySQL's lacks: its first two months run a
    // day behind MySQL's.
    let year0_shift = i64::from(year == 0 && month <= 2);
    Some(i64::from(date.num_days_from_ce()) + 365 + year0_shift)
}

/// `get_date_from_daynr`: the date of a day number as `(year, month, day)`; `(0, 0, 0)`
/// (MySQL's zero date) for numbers up to 365 and from 3652500 on, as MySQL gives them.
pub(super) fn from_daynr(n: i64) -> (u32, u32, u32) {
    if !(366..3_652_500).contains(&n) {
        return (0, 0, 0);
    }
    i32::try_from(n - 365)
        .ok()
        .and_then(NaiveDate::from_num_days_from_ce_opt)
        .map_or((0, 0, 0), |d| (d.year() as u32, d.month(), d.day()))
}

/// `calc_weekday`: the weekday of a day number, 0 for Monday (or for Sunday when
/// `sunday_first`).
pub(super) fn weekday(daynr: i64, sunday_first: bool) -> u32 {
    (daynr + 5 + i64::from(sunday_first)).rem_euclid(7) as u32
}

/// `calc_week`'s flags: Monday starts the week...
pub(super) const WEEK_MONDAY_FIRST: u32 = 1;
/// ... weeks belong to the year they are counted in (1 to 53, never 0)...
pub(super) const WEEK_YEAR: u32 = 2;
/// ... week 1 is the first with the first day of the week (else: the first with 4 days).
pub(super) const WEEK_FIRST_WEEKDAY: u32 = 4;

/// `week_mode`: the `calc_week` flags of `WEEK(date, mode)`'s mode 0 to 7.
pub(super) fn week_mode(mode: i64) -> u32 {
    let mut flags = (mode & 7) as u32;
    if flags & WEEK_MONDAY_FIRST == 0 {
        flags ^= WEEK_FIRST_WEEKDAY;
    }
    flags
}

/// `calc_week`: the week of a valid date under `flags`, and the year it belongs to.
pub(super) fn calc_week(year: u32, month: u32, day: u32, flags: u32) -> Option<(u32, u32)> {
    let day_nr = daynr(year, month, day)?;
    let mut first_daynr = daynr(year, 1, 1)?;
    let monday_first = flags & WEEK_MONDAY_FIRST != 0;
    let mut week_year = flags & WEEK_YEAR != 0;
    let first_weekday = flags & WEEK_FIRST_WEEKDAY != 0;
    // Whether the week holding 1 January counts as the last of the year before.
    let late_start = |weekday: u32| {
        if first_weekday {
            weekday != 0
        } else {
            weekday >= 4
        }
    };
    let mut weekday = weekday(first_daynr, !monday_first);
    let mut week_of = year;
    if month == 1 && day <= 7 - weekday {
        if !week_year && late_start(weekday) {
            return Some((0, week_of));
        }
        week_year = true;
        week_of = week_of.checked_sub(1)?;
        let days = days_in_year(week_of);
        first_daynr -= days;
        weekday = ((i64::from(weekday) + 53 * 7 - days) % 7) as u32;
    }
    let days = if late_start(weekday) {
        day_nr - (first_daynr + 7 - i64::from(weekday))
    } else {
        day_nr - (first_daynr - i64::from(weekday))
    };
    if week_year && days >= 52 * 7 {
        let next = ((i64::from(weekday) + days_in_year(week_of)) % 7) as u32;
        if !late_start(next) {
            return Some((1, week_of + 1));
        }
    }
    Some(((days / 7 + 1) as u32, week_of))
}

/// `year_2000_handling`: a two-digit year, 70-99 in the 1900s and 00-69 in the 2000s.
pub(super) fn two_digit_year(year: u32) -> u32 {
    if year < 70 {
        2000 + year
    } else {
        1900 + year
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_numbers_are_mysqls() {
        assert_eq!(daynr(1, 1, 1), Some(366));
        assert_eq!(daynr(1970, 1, 1), Some(UNIX_EPOCH_DAY));
        assert_eq!(daynr(9999, 12, 31), Some(MAX_DAY_NUMBER));
        assert_eq!(daynr(2007, 10, 7), Some(733_321)); // the manual's TO_DAYS example
                                                       // MySQL's year 0: 1 January is day 1, 1 March day 60, no 29 February.
        assert_eq!(daynr(0, 1, 1), Some(1));
        assert_eq!(daynr(0, 2, 28), Some(59));
        assert_eq!(daynr(0, 3, 1), Some(60));
        assert_eq!(daynr(0, 2, 29), None);
        assert_eq!(daynr(2023, 2, 29), None);
        assert_eq!(daynr(2024, 0, 1), None);
        for n in (366..MAX_DAY_NUMBER).step_by(997) {
            let (y, m, d) = from_daynr(n);
            assert_eq!(daynr(y, m, d), Some(n), "{y}-{m}-{d}");
        }
        assert_eq!(from_daynr(365), (0, 0, 0));
        assert_eq!(from_daynr(-1), (0, 0, 0));
        assert_eq!(from_daynr(730_669), (2000, 7, 3)); // FROM_DAYS(730669)
    }

    #[test]
    fn weekdays_and_leap_years() {
        let d = daynr(2024, 1, 1).unwrap(); // a Monday
        assert_eq!((weekday(d, false), weekday(d, true)), (0, 1));
        assert!(is_leap(2000) && is_leap(2024) && !is_leap(1900) && !is_leap(0));
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(2023, 2), 28);
        assert_eq!(days_in_month(2023, 13), 0);
    }

    #[test]
    fn weeks_follow_mysqls_modes() {
        let week = |y, m, d, mode| calc_week(y, m, d, week_mode(mode)).map(|w| w.0);
        // The manual: WEEK('2008-02-20') = 7, mode 1 = 8; WEEK('2008-12-31', 1) = 53.
        assert_eq!(week(2008, 2, 20, 0), Some(7));
        assert_eq!(week(2008, 2, 20, 1), Some(8));
        assert_eq!(week(2008, 12, 31, 1), Some(53));
        // WEEK('2000-01-01', 0) = 0, mode 2 = 52 (the last week of 1999).
        assert_eq!(week(2000, 1, 1, 0), Some(0));
        assert_eq!(week(2000, 1, 1, 2), Some(52));
        // Mode 3 is ISO 8601: 2024-12-30 is in week 1 of 2025; 2021-01-03 in week 53 of 2020.
        assert_eq!(
            calc_week(2024, 12, 30, week_mode(3) | WEEK_YEAR),
            Some((1, 2025))
        );
        assert_eq!(
            calc_week(2021, 1, 3, week_mode(3) | WEEK_YEAR),
            Some((53, 2020))
        );
        for (mode, want) in [
            (0, 0),
            (1, 0),
            (2, 52),
            (3, 53),
            (4, 0),
            (5, 0),
            (6, 53),
            (7, 52),
        ] {
            assert_eq!(week(2021, 1, 2, mode), Some(want), "mode {mode}");
        }
        assert_eq!(week(2021, 2, 30, 0), None);
    }
}
