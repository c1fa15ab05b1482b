//! `ROUND` and `TRUNCATE` of an approximate value, as MySQL rounds a double: a DOUBLE, FLOAT or
//! string argument makes `Item_func_round` a `REAL_RESULT` (`resolve_type`, `sql/item_func.cc`),
//! whose `real_op` is `my_double_round`: `rint` of the value times 10^d (ties to even, the
//! default rounding mode: `ROUND(2.5e0)` is 2, `ROUND(3.5e0)` 4, `ROUND(-2.5e0)` -2), or
//! `floor` / `ceil` of it for `TRUNCATE`. An exact argument rounds half away from zero on its
//! decimal digits (`number_text.rs`: `ROUND(2.5)` is 3).
//!
//! A value here does not say which it was, so the rewrite (`rewrite/double_round.rs`) passes
//! the argument's MySQL type as a third argument: `ROUND(x, d, type)`, `TRUNCATE(x, d, type)`,
//! `type` a column type (`double`, `DECIMAL(10,2)`, `varchar(3)`) or NULL when not known
//! (then rounded as a decimal, as before).

use rusqlite::types::{Value, ValueRef};

use super::number_text::{self, Mode};
use super::{flags, int, number};

/// Registers the three-argument `ROUND` and `TRUNCATE` on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    for (name, truncate) in [("ROUND", false), ("TRUNCATE", true)] {
        db.create_scalar_function(name, 3, flags(true), move |ctx| {
            if !is_approximate(ctx.get_raw(2)) {
                let mode = if truncate {
                    Mode::Truncate
                } else {
                    Mode::HalfUp
                };
                return Ok(number_text::rounded(ctx, true, mode));
            }
            Ok(match (number(ctx, 0), int(ctx, 1)) {
                (Some(x), Some(d)) => Value::Real(my_double_round(x.real(), d, truncate)),
                _ => Value::Null,
            })
        })?;
    }
    Ok(())
}

/// Whether column type `ty` is a double's, a float's or a string's (a `REAL_RESULT` in
/// `ROUND`); a decimal, an integer, NULL or a type not known is not.
fn is_approximate(ty: ValueRef<'_>) -> bool {
    let ValueRef::Text(t) = ty else {
        return false;
    };
    std::str::from_utf8(t)
        .ok()
        .and_then(crate::expr_type::from_declared)
        .is_some_and(|t| t.numeric() == crate::expr_type::Class::Real)
}

/// `my_double_round` (`sql/item_func.cc`): `value` rounded to `dec` decimals (left of the
/// point when negative) with `rint`, or toward zero when `truncate`.
pub(super) fn my_double_round(value: f64, dec: i64, truncate: bool) -> f64 {
    // `log_10` holds 10^0 ... 10^308.
    if dec <= -309 {
        return 0.0;
    }
    let tmp = power_of_ten(dec.unsigned_abs());
    let mul = value * tmp;
    if dec >= 0 && !mul.is_finite() {
        return value;
    }
    let div = value / tmp;
    if truncate {
        return match (value >= 0.0, dec < 0) {
            (true, true) => div.floor() * tmp,
            (true, false) => mul.floor() / tmp,
            (false, true) => div.ceil() * tmp,
            (false, false) => mul.ceil() / tmp,
        };
    }
    if dec < 0 {
        div.round_ties_even() * tmp
    } else {
        mul.round_ties_even() / tmp
    }
}

/// 10^n as the literal `1eN` is (`log_10`), `pow(10, n)` past 308 (infinity).
fn power_of_ten(n: u64) -> f64 {
    // Exact by multiplication up to 10^22; past it, read as written.
    if n <= 22 {
        10f64.powi(n as i32)
    } else if n <= 308 {
        format!("1e{n}").parse().unwrap_or(f64::INFINITY)
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn doubles_round_with_rint() {
        assert_eq!(my_double_round(2.5, 0, false), 2.0);
        assert_eq!(my_double_round(3.5, 0, false), 4.0);
        assert_eq!(my_double_round(-2.5, 0, false), -2.0);
        assert_eq!(my_double_round(1250.0, -2, false), 1200.0);
        assert_eq!(my_double_round(1350.0, -2, false), 1400.0);
        assert_eq!(my_double_round(1.999, 1, true), 1.9);
        assert_eq!(my_double_round(-1.999, 1, true), -1.9);
        assert_eq!(my_double_round(1e300, 20, false), 1e300);
        assert_eq!(my_double_round(5.0, -400, false), 0.0);
        let db = db();
        let cases = [
            ("ROUND(2.5e0, 0, 'double')", Value::Real(2.0)),
            ("ROUND('2.5', 0, 'varchar(3)')", Value::Real(2.0)),
            ("ROUND(2.5, 0, 'decimal(2,1)')", Value::Real(3.0)),
            ("ROUND(2.5, 0, NULL)", Value::Real(3.0)),
            ("ROUND(7, 0, 'FLOAT')", Value::Real(7.0)),
            ("TRUNCATE(-2.7e0, 0, 'double')", Value::Real(-2.0)),
            ("ROUND(NULL, 0, 'double')", Value::Null),
        ];
        for (sql, want) in cases {
            assert_eq!(eval(&db, sql), want, "{sql}");
        }
    }
}
