//! Date and time functions' types, as `sql/item_timefunc.cc` resolves them.

use super::ty::{Class, Ty};

/// `DATE_FORMAT(d, fmt)` / `TIME_FORMAT` (`Item_func_date_format::resolve_type`): a string as
/// long as the literal format can print (`format_length`), else ten times the format.
pub(crate) fn date_format(fmt: Option<&str>, fmt_ty: &Ty) -> Ty {
    match fmt {
        Some(f) => Ty::string(format_length(f)),
        None => Ty::string(fmt_ty.chars.saturating_mul(10)),
    }
}

/// `Item_func_date_format::format_length`: the characters each `%` specifier can print (64
/// for a month's or a day's name, for locales with long ones).
pub(crate) fn format_length(f: &str) -> u64 {
    let mut size = 0;
    let mut chars = f.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' || chars.peek().is_none() {
            size += 1;
            continue;
        }
        size += match chars.next() {
            Some('M' | 'W') => 64,
            Some('D' | 'Y' | 'x' | 'X') => 4,
            Some('a' | 'b') => 32,
            Some('j') => 3,
            Some(
                'U' | 'u' | 'V' | 'v' | 'y' | 'm' | 'd' | 'h' | 'I' | 'i' | 'l' | 'p' | 'S' | 's'
                | 'c' | 'e',
            ) => 2,
            Some('k' | 'H') => 7,
            Some('r') => 11,
            Some('T') => 8,
            Some('f') => 6,
            _ => 1,
        };
    }
    size
}

/// Whether `unit` counts days or longer (`INTERVAL 1 DAY`), so that a `DATE` plus it stays a
/// `DATE`.
fn date_unit(unit: &str) -> bool {
    matches!(
        unit,
        "YEAR" | "QUARTER" | "MONTH" | "WEEK" | "DAY" | "YEAR_MONTH"
    )
}

/// Whether `unit` has microseconds.
fn micro_unit(unit: &str) -> bool {
    unit.ends_with("MICROSECOND")
}

/// `DATE_ADD(d, INTERVAL n unit)`, `d + INTERVAL ...`, `DATE_SUB`
/// (`Item_date_add_interval::resolve_type`): a `DATE` plus days or longer is a `DATE`; a
/// `DATE` plus a time, or a `DATETIME` / `TIMESTAMP`, a `DATETIME` (microseconds for a
/// microsecond unit); a `TIME` plus a time a `TIME`; anything else a string of
/// `MAX_DATETIME_FULL_WIDTH` (29) characters.
/// `unit`: the interval's unit, upper case (`DAY`, `DAY_SECOND`), if known.
pub(crate) fn add_interval(d: &Ty, unit: Option<&str>) -> Ty {
    let fsp = match unit {
        Some(u) if micro_unit(u) => 6,
        _ => d.decimals,
    };
    match (&d.class, unit) {
        (Class::Date, Some(u)) if date_unit(u) => Ty::temporal(Class::Date, 0),
        (Class::Date | Class::Datetime | Class::Timestamp, Some(_)) => {
            Ty::temporal(Class::Datetime, fsp)
        }
        (Class::Time, Some(u)) if !date_unit(u) => Ty::temporal(Class::Time, fsp),
        _ => Ty::string(29),
    }
}

/// `STR_TO_DATE(s, fmt)` with a literal format (`Item_func_str_to_date::fix_from_format`): a
/// `DATE` if it has only date parts, a `TIME` if only time parts, else a `DATETIME`;
/// microseconds with `%f`.
pub(crate) fn str_to_date(fmt: &str) -> Ty {
    let (mut date, mut time, mut frac) = (false, false, false);
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        match chars.next() {
            Some('f') => {
                time = true;
                frac = true;
            }
            Some('H' | 'h' | 'I' | 'i' | 'k' | 'l' | 'p' | 'r' | 'S' | 's' | 'T') => time = true,
            Some(_) => date = true,
            None => {}
        }
    }
    let fsp = if frac { 6 } else { 0 };
    match (date, time) {
        (true, false) => Ty::temporal(Class::Date, 0),
        (false, true) => Ty::temporal(Class::Time, fsp),
        _ => Ty::temporal(Class::Datetime, fsp),
    }
}

/// `EXTRACT(unit FROM d)` (`Item_extract::resolve_type`): an integer as long as the unit's
/// largest value.
pub(crate) fn extract(unit: &str) -> Ty {
    let chars = match unit {
        "YEAR" => 4,
        "YEAR_MONTH" => 6,
        "DAY_HOUR" | "HOUR_MINUTE" | "MINUTE_SECOND" => 4,
        "DAY_MINUTE" | "HOUR_SECOND" | "MICROSECOND" => 6,
        "DAY_SECOND" | "SECOND_MICROSECOND" => 8,
        "MINUTE_MICROSECOND" => 10,
        "HOUR_MICROSECOND" => 12,
        "DAY_MICROSECOND" => 14,
        _ => 2,
    };
    Ty::int(chars + 1)
}

/// The fractional seconds a function gives for an optional literal argument (`NOW(3)`).
pub(crate) fn fsp_arg(n: Option<i64>) -> u32 {
    n.and_then(|n| u32::try_from(n).ok()).unwrap_or(0).min(6)
}
