//! The session's `time_zone` (MySQL's manual, 7.1.15 "MySQL Server Time Zone Support"):
//! `SYSTEM`, the server's `system_time_zone` (UTC here), or an offset `'+hh:mm'` / `'-hh:mm'`
//! from -13:59 to +14:00, set by `SET [SESSION] time_zone = ...` and read back by
//! `@@time_zone` as MySQL prints it (`Time_zone_offset`, `sql/tztime.cc`: `+02:00`). The
//! clock functions read it (`functions/clock.rs`), given at each statement's start.
//!
//! * A named zone (`'Europe/Paris'`, `'UTC'`) needs MySQL's time zone tables, which this
//!   server has not: 1298, as MySQL refuses it without them (and as `CONVERT_TZ` gives NULL).
//! * `SET GLOBAL time_zone` is 1235: the global value stays `SYSTEM`.
//! * TIMESTAMP columns keep the text they were given: MySQL stores them in UTC and shows them
//!   in the session's zone, so a session that reads in the zone it wrote in sees what MySQL
//!   shows; one in another zone does not.

use std::fmt;

use sqlparser::ast::{Expr, Set, Value};

use crate::error::ServerError;
use crate::functions::zone_offset;
use crate::session_values::SessionValues;
use crate::wire::Cell;

/// A session's time zone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TimeZone {
    /// `SYSTEM`: the server's, UTC.
    #[default]
    System,
    /// Seconds east of UTC.
    Offset(i64),
}

impl TimeZone {
    /// Seconds east of UTC.
    pub fn offset(self) -> i64 {
        match self {
            TimeZone::System => 0,
            TimeZone::Offset(s) => s,
        }
    }

    /// The zone `name` names, as `SET time_zone` reads it.
    ///
    /// # Errors
    /// 1298 for a zone this server does not know.
    pub fn parse(name: &str) -> Result<TimeZone, ServerError> {
        if name.eq_ignore_ascii_case("SYSTEM") {
            return Ok(TimeZone::System);
        }
        zone_offset(name).map(TimeZone::Offset).ok_or_else(|| {
            ServerError::new(
                1298,
                "HY000",
                format!("Unknown or incorrect time zone: '{name}'"),
            )
        })
    }
}

impl fmt::Display for TimeZone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeZone::System => f.write_str("SYSTEM"),
            TimeZone::Offset(s) => {
                let sign = if s < 0 { '-' } else { '+' };
                let m = s.abs() / 60;
                write!(f, "{sign}{:02}:{:02}", m / 60, m % 60)
            }
        }
    }
}

/// The zone a `SET` gives the session's `time_zone`, if it assigns one: a string, `DEFAULT`
/// (the global value, `SYSTEM`), or a `@user` variable's value.
///
/// # Errors
/// 1298 for a zone this server does not know; 1235 for `SET GLOBAL time_zone` and for a value
/// of another form.
pub fn assigned(set: &Set, values: &SessionValues) -> Result<Option<TimeZone>, ServerError> {
    let mut zone = None;
    for (name, global, value) in crate::admin::set_items(set) {
        if name != "time_zone" {
            continue;
        }
        if global {
            return Err(ServerError::not_supported("SET GLOBAL time_zone"));
        }
        let text = match value {
            Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
                _ => return Err(ServerError::not_supported("this time_zone value")),
            },
            Expr::Identifier(i)
                if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT") =>
            {
                "SYSTEM".to_string()
            }
            Expr::Identifier(i) if i.value.starts_with('@') && !i.value.starts_with("@@") => {
                match values.user_var(&i.value) {
                    Cell::Text(s) => s,
                    _ => return Err(ServerError::not_supported("this time_zone value")),
                }
            }
            _ => return Err(ServerError::not_supported("this time_zone value")),
        };
        zone = Some(TimeZone::parse(&text)?);
    }
    Ok(zone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_read_and_print_as_mysql_s() {
        for (set, shown) in [
            ("+2:00", "+02:00"),
            ("-00:30", "-00:30"),
            ("+14:00", "+14:00"),
        ] {
            assert_eq!(TimeZone::parse(set).unwrap().to_string(), shown);
        }
        assert_eq!(TimeZone::parse("system").unwrap(), TimeZone::System);
        assert_eq!(
            TimeZone::parse("-13:59").unwrap().offset(),
            -(13 * 3600 + 59 * 60)
        );
        for bad in ["+14:01", "Europe/Paris", "UTC", "+1", ""] {
            assert_eq!(TimeZone::parse(bad).unwrap_err().code, 1298, "{bad}");
        }
    }
}
