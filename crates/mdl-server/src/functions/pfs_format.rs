//! MySQL 8.0's Performance Schema formatting functions (manual, 14.21 "Performance Schema
//! Functions"; `Item_func_pfs_format_pico_time` and `Item_func_pfs_format_bytes` in
//! `sql/item_pfs_func.cc`): `FORMAT_PICO_TIME(ps)`, a latency in picoseconds as `'  0 ps'`,
//! `'1.23 s'`, `'2.50 min'`, ..., and `FORMAT_BYTES(n)`, a size as `' 512 bytes'`,
//! `'1.50 KiB'`, .... The sys schema's formatted views (`sys.processlist`, `sys.session`)
//! show their latencies and sizes through them, as MySQL 8.0's do; a DBA calls them on
//! `performance_schema`'s `TIMER_WAIT` columns.
//!
//! As MySQL's: NULL gives NULL; the unit is the largest whose one the value reaches (`ps`,
//! `ns`, `us`, `ms`, `s`, `min`, `h`, `d`; bytes, `KiB` ... `EiB` in steps of 1024), the value
//! in it with two decimals (`%4.2f`, `%4.2e` from 100000 on), picoseconds and bytes as whole
//! numbers padded to 3 and 4 places (`%3d`, `%4d`). A string argument is read as a number
//! (MySQL refuses a non-numeric type with 1690).

use rusqlite::types::Value;

use super::{flags, number};

/// Registers the functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    db.create_scalar_function("FORMAT_PICO_TIME", 1, flags(true), |ctx| {
        Ok(number(ctx, 0).map_or(Value::Null, |n| Value::Text(pico_time(n.real()))))
    })?;
    db.create_scalar_function("FORMAT_BYTES", 1, flags(true), |ctx| {
        Ok(number(ctx, 0).map_or(Value::Null, |n| Value::Text(bytes(n.real()))))
    })
}

/// `FORMAT_PICO_TIME(ps)`.
pub(crate) fn pico_time(ps: f64) -> String {
    const NS: f64 = 1e3;
    const UNITS: [(f64, &str); 7] = [
        (NS * 1e9 * 60.0 * 60.0 * 24.0, "d"),
        (NS * 1e9 * 60.0 * 60.0, "h"),
        (NS * 1e9 * 60.0, "min"),
        (NS * 1e9, "s"),
        (NS * 1e6, "ms"),
        (NS * 1e3, "us"),
        (NS, "ns"),
    ];
    scaled(ps, &UNITS, 3, "ps")
}

/// `FORMAT_BYTES(n)`.
pub(crate) fn bytes(n: f64) -> String {
    const KIB: f64 = 1024.0;
    const UNITS: [(f64, &str); 6] = [
        (KIB * KIB * KIB * KIB * KIB * KIB, "EiB"),
        (KIB * KIB * KIB * KIB * KIB, "PiB"),
        (KIB * KIB * KIB * KIB, "TiB"),
        (KIB * KIB * KIB, "GiB"),
        (KIB * KIB, "MiB"),
        (KIB, "KiB"),
    ];
    scaled(n, &UNITS, 4, "bytes")
}

/// `x` in the largest of `units` (descending) that its magnitude reaches, else as a whole
/// number of `base`, `width` wide.
fn scaled(x: f64, units: &[(f64, &str)], width: usize, base: &str) -> String {
    let Some((div, unit)) = units.iter().find(|(d, _)| x.abs() >= *d) else {
        // C's `(int)` cast: toward zero, saturating here.
        return format!("{:width$} {base}", x.trunc() as i64);
    };
    let v = x / div;
    if v.abs() >= 100_000.0 {
        // C's `%4.2e`: a sign and at least two digits in the exponent.
        let s = format!("{v:.2e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        let sign = if e < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02} {unit}", e.abs())
    } else {
        format!("{v:4.2} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn pico_time_takes_mysqls_units() {
        assert_eq!(pico_time(0.0), "  0 ps");
        assert_eq!(pico_time(999.0), "999 ps");
        assert_eq!(pico_time(3501.0), "3.50 ns");
        assert_eq!(pico_time(342_342_342.0), "342.34 us");
        assert_eq!(pico_time(1_234_000_000_000.0), "1.23 s");
        assert_eq!(pico_time(188_732_396_662_000.0), "3.15 min");
        assert_eq!(pico_time(7_200e12), "2.00 h");
        assert_eq!(pico_time(-5e9), "-5.00 ms");
        assert_eq!(pico_time(86_400e12 * 200_000.0), "2.00e+05 d");
    }

    #[test]
    fn bytes_take_binary_units() {
        assert_eq!(bytes(512.0), " 512 bytes");
        assert_eq!(bytes(1536.0), "1.50 KiB");
        assert_eq!(bytes(3.0 * 1024.0 * 1024.0 * 1024.0), "3.00 GiB");
    }

    #[test]
    fn registered_with_nulls() {
        let db = db();
        assert_eq!(
            eval(&db, "FORMAT_PICO_TIME(2500000)"),
            Value::Text("2.50 us".into())
        );
        assert_eq!(eval(&db, "format_pico_time(NULL)"), Value::Null);
        assert_eq!(
            eval(&db, "FORMAT_BYTES(2048)"),
            Value::Text("2.00 KiB".into())
        );
    }
}
