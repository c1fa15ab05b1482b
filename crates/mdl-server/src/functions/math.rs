//! MySQL's trigonometric functions, which the bundled SQLite lacks (it is built without its
//! math functions): `SIN`, `COS`, `TAN`, `COT`, `ASIN`, `ACOS`, `ATAN` (one or two
//! arguments), `ATAN2`, `DEGREES`, `RADIANS` (manual, 14.6.2 "Mathematical Functions";
//! source `sql/item_func.cc`: `Item_func_sin` ... `Item_func_units`). Angles are in radians,
//! results doubles. A NULL argument gives NULL.
//!
//! As in MySQL, `ASIN` and `ACOS` are NULL outside [-1, 1], and a result past the doubles
//! (`DEGREES(1e308)`) is an error, "DOUBLE value is out of range" (MySQL's 1690). `COT(0)`
//! is that error in MySQL; here it is NULL.

use rusqlite::types::Value;

use super::numeric::{finite, register_partial, Partial};
use super::{flags, number};

/// Registers the functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    let unary: [(&str, Partial); 9] = [
        ("SIN", |x| Some(x.sin())),
        ("COS", |x| Some(x.cos())),
        ("TAN", |x| Some(x.tan())),
        ("COT", cot),
        ("ASIN", |x| (-1.0..=1.0).contains(&x).then(|| x.asin())),
        ("ACOS", |x| (-1.0..=1.0).contains(&x).then(|| x.acos())),
        ("ATAN", |x| Some(x.atan())),
        ("DEGREES", |x| Some(x.to_degrees())),
        ("RADIANS", |x| Some(x.to_radians())),
    ];
    register_partial(db, &unary)?;
    // ATAN(y, x) is ATAN2(y, x): the angle of the point (x, y), in (-pi, pi].
    for name in ["ATAN", "ATAN2"] {
        db.create_scalar_function(name, 2, f, move |ctx| {
            match (number(ctx, 0), number(ctx, 1)) {
                (Some(y), Some(x)) => finite(y.real().atan2(x.real()), name),
                _ => Ok(Value::Null),
            }
        })?;
    }
    Ok(())
}

/// `COT(x)`: 1 / tan(x); None (NULL) where tan(x) is 0, which MySQL refuses.
fn cot(x: f64) -> Option<f64> {
    let t = x.tan();
    (t != 0.0).then(|| 1.0 / t)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

    /// The value of `SELECT expr`, a double.
    fn real_of(db: &rusqlite::Connection, expr: &str) -> f64 {
        match eval(db, expr) {
            Value::Real(x) => x,
            other => panic!("{expr}: {other:?}"),
        }
    }

    #[test]
    fn trigonometry_as_mysql() {
        let db = db();
        let close = |expr: &str, want: f64| {
            let got = real_of(&db, expr);
            assert!((got - want).abs() < 1e-12, "{expr}: {got} != {want}");
        };
        // The manual's examples.
        close("SIN(PI())", 1.224_646_799_147_353_2e-16);
        close("COS(PI())", -1.0);
        close("TAN(PI() + 1)", 1.557_407_724_654_902);
        close("COT(12)", -1.572_673_406_397_688);
        close("ASIN(0.2)", 0.201_357_920_790_330_8);
        close("ACOS(1)", 0.0);
        close("ACOS(0)", FRAC_PI_2);
        close("ATAN(2)", 1.107_148_717_794_090_4);
        close("ATAN(-2)", -1.107_148_717_794_090_4);
        close("ATAN(-2, 2)", -FRAC_PI_4);
        close("ATAN2(PI(), 0)", FRAC_PI_2);
        close("ATAN2(0, 0)", 0.0);
        close("DEGREES(PI())", 180.0);
        close("DEGREES(PI() / 2)", 90.0);
        close("RADIANS(90)", PI / 2.0);
        // Strings read as numbers.
        close("SIN('0abc')", 0.0);
        close("RADIANS('180')", PI);
    }

    #[test]
    fn edges_and_nulls() {
        let db = db();
        for expr in [
            "SIN(NULL)",
            "ATAN(NULL, 1)",
            "ATAN2(1, NULL)",
            "ASIN(2)",
            "ASIN(-1.5)",
            "ACOS(-2)",
            "COT(0)",
            "COT(NULL)",
            "DEGREES(NULL)",
        ] {
            assert_eq!(eval(&db, expr), Value::Null, "{expr}");
        }
        let err = db.query_row("SELECT DEGREES(1e308)", [], |r| r.get::<_, f64>(0));
        assert!(format!("{err:?}").contains("out of range"), "{err:?}");
        let err = db.query_row("SELECT ATAN(1, 2, 3)", [], |r| r.get::<_, f64>(0));
        assert!(format!("{err:?}").contains("wrong number"), "{err:?}");
    }
}
