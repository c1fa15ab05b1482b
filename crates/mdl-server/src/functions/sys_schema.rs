//! The sys schema's stored functions that a DBA calls by hand (MySQL 8.0's
//! `scripts/sys_schema/functions/*.sql`; manual, "sys Schema Stored Functions"). MySQL looks a
//! schema-qualified call up as a stored function (`Create_qfunc`, `sql/item_create.cc`); this
//! server has no stored functions, so the rewrite calls these by their engine names
//! ([`engine_name`]):
//!
//! * `sys.format_time(ps)`: a latency in picoseconds in the largest unit it reaches, `w`, `d`,
//!   `h`, `m`, `s`, `ms`, `us`, `ns`, with two decimals (`'3.50 ns'`, `'3.15 m'` as the
//!   manual's examples), else as given with `' ps'`. Not `FORMAT_PICO_TIME`, which says
//!   `min`, has no weeks and pads.
//! * `sys.format_bytes(n)`: `PiB` ... `KiB` in steps of 1024 with two decimals, else whole
//!   `bytes` (`'100 bytes'`, unpadded, unlike `FORMAT_BYTES`).
//! * `sys.format_statement(s)`: a statement longer than sys's `statement_truncate_len` (64
//!   characters, the default) as its first 30 characters, `' ... '` and its last 30; line
//!   breaks as spaces. `sys.processlist` and `sys.session` show statements through it.
//! * `sys.ps_thread_id(id)`: `threads.rs`.
//! * `sys.version_major()`, `sys.version_minor()`, `sys.version_patch()`: the server version's
//!   parts (`8`, `0`, `45`).
//! * `sys.quote_identifier(s)`: `s` in backquotes, each backquote doubled.
//!
//! NULL gives NULL, as each function's `IF ... IS NULL THEN RETURN NULL` does.

use rusqlite::functions::Context;
use rusqlite::types::Value;

use super::{flags, number, text, threads};

/// sys's default `statement_truncate_len`.
const STATEMENT_TRUNCATE_LEN: usize = 64;

/// The engine's name of `sys.format_statement` (the sys views call it too).
pub(crate) const FORMAT_STATEMENT: &str = "MDL_SYS_FORMAT_STATEMENT";
const FORMAT_TIME: &str = "MDL_SYS_FORMAT_TIME";
const FORMAT_BYTES: &str = "MDL_SYS_FORMAT_BYTES";
const QUOTE_IDENTIFIER: &str = "MDL_SYS_QUOTE_IDENTIFIER";
/// `version_major`, `_minor` and `_patch`, in that order.
const VERSION_PARTS: [&str; 3] = [
    "MDL_SYS_VERSION_MAJOR",
    "MDL_SYS_VERSION_MINOR",
    "MDL_SYS_VERSION_PATCH",
];

/// The sys functions by their MySQL name, with their engine name.
const NAMES: [(&str, &str); 8] = [
    ("format_time", FORMAT_TIME),
    ("format_bytes", FORMAT_BYTES),
    ("format_statement", FORMAT_STATEMENT),
    ("quote_identifier", QUOTE_IDENTIFIER),
    ("ps_thread_id", threads::SYS_PS_THREAD_ID),
    ("version_major", VERSION_PARTS[0]),
    ("version_minor", VERSION_PARTS[1]),
    ("version_patch", VERSION_PARTS[2]),
];

/// The engine's name of the sys function `name`, if the server has it.
pub(crate) fn engine_name(name: &str) -> Option<&'static str> {
    (NAMES.iter())
        .find(|(mysql, _)| mysql.eq_ignore_ascii_case(name))
        .map(|(_, engine)| *engine)
}

/// Registers the functions on `db` (`sys.ps_thread_id` is `threads.rs`').
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let one = |name: &str, f: fn(&Context<'_>) -> Value| {
        db.create_scalar_function(name, 1, flags(true), move |ctx| Ok(f(ctx)))
    };
    one(FORMAT_TIME, |ctx| text_or_null(ctx, format_time))?;
    one(FORMAT_BYTES, |ctx| text_or_null(ctx, format_bytes))?;
    one(FORMAT_STATEMENT, |ctx| {
        text(ctx, 0).map_or(Value::Null, |s| Value::Text(format_statement(&s)))
    })?;
    one(QUOTE_IDENTIFIER, |ctx| {
        text(ctx, 0).map_or(Value::Null, |s| Value::Text(quote_identifier(&s)))
    })?;
    let parts = version_parts(crate::admin::VERSION);
    for (name, part) in VERSION_PARTS.into_iter().zip(parts) {
        db.create_scalar_function(name, 0, flags(true), move |_| Ok(part))?;
    }
    Ok(())
}

/// `f` of argument 0 (as given, and as a number), NULL for NULL.
fn text_or_null(ctx: &Context<'_>, f: fn(&str, f64) -> String) -> Value {
    match (text(ctx, 0), number(ctx, 0)) {
        (Some(t), Some(n)) => Value::Text(f(t.trim(), n.real())),
        _ => Value::Null,
    }
}

/// `sys.format_time` of `ps` (written `given`).
fn format_time(given: &str, ps: f64) -> String {
    const UNITS: [(f64, &str); 8] = [
        (604_800_000_000_000_000.0, "w"),
        (86_400_000_000_000_000.0, "d"),
        (3_600_000_000_000_000.0, "h"),
        (60_000_000_000_000.0, "m"),
        (1_000_000_000_000.0, "s"),
        (1_000_000_000.0, "ms"),
        (1_000_000.0, "us"),
        (1_000.0, "ns"),
    ];
    match UNITS.iter().find(|(one, _)| ps >= *one) {
        Some((one, unit)) => format!("{:.2} {unit}", ps / one),
        None => format!("{given} ps"),
    }
}

/// `sys.format_bytes` of `n`.
fn format_bytes(_given: &str, n: f64) -> String {
    const KIB: f64 = 1024.0;
    const UNITS: [(f64, &str); 5] = [
        (KIB * KIB * KIB * KIB * KIB, "PiB"),
        (KIB * KIB * KIB * KIB, "TiB"),
        (KIB * KIB * KIB, "GiB"),
        (KIB * KIB, "MiB"),
        (KIB, "KiB"),
    ];
    match UNITS.iter().find(|(one, _)| n >= *one) {
        Some((one, unit)) => format!("{:.2} {unit}", n / one),
        None => format!("{:.0} bytes", n.round()),
    }
}

/// `sys.format_statement` of `s`.
pub(crate) fn format_statement(s: &str) -> String {
    let keep = STATEMENT_TRUNCATE_LEN / 2 - 2;
    let chars = s.chars().count();
    let short = if chars > STATEMENT_TRUNCATE_LEN {
        let head: String = s.chars().take(keep).collect();
        let tail: String = s.chars().skip(chars - keep).collect();
        format!("{head} ... {tail}")
    } else {
        s.to_string()
    };
    short.replace('\n', " ")
}

/// `sys.quote_identifier` of `s`.
fn quote_identifier(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// The leading numbers of a version `major.minor.patch[-suffix]`.
fn version_parts(version: &str) -> Vec<i64> {
    let numbers = version.split('-').next().unwrap_or_default();
    numbers.split('.').map_while(|p| p.parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_as_the_manuals_examples() {
        assert_eq!(format_time("3501", 3501.0), "3.50 ns");
        assert_eq!(
            format_time("188732396662000", 188_732_396_662_000.0),
            "3.15 m"
        );
        assert_eq!(format_time("43", 43.0), "43 ps");
        assert_eq!(format_time("1000000000", 1e9), "1.00 ms");
        assert_eq!(format_time("x", 4.321_123_443_212_344_5e19), "71.45 w");
        assert_eq!(format_time("0", 0.0), "0 ps");
    }

    #[test]
    fn bytes_and_statements() {
        assert_eq!(format_bytes("100", 100.0), "100 bytes");
        assert_eq!(format_bytes("1500", 1500.0), "1.46 KiB");
        assert_eq!(format_bytes("23487234", 23_487_234.0), "22.40 MiB");
        let long = format!("SELECT '{}'\nFROM t", "a".repeat(100));
        let short = format_statement(&long);
        assert_eq!(short.chars().count(), 65);
        assert!(short.starts_with("SELECT 'aaa") && short.ends_with("aaa' FROM t"));
        assert!(short.contains(" ... "));
        assert_eq!(format_statement("SELECT 1\nFROM t"), "SELECT 1 FROM t");
        assert_eq!(quote_identifier("a`b"), "`a``b`");
        assert_eq!(version_parts("8.0.45-mdl"), [8, 0, 45]);
    }
}
