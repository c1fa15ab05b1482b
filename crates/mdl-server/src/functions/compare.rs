//! `GREATEST`, `LEAST` and `ISNULL` (manual, 14.4.2 "Comparison Functions and Operators";
//! source `sql/item_func.cc`: `Item_func_min_max`, `sql/item_cmpfunc.cc`: `Item_func_isnull`).
//!
//! `GREATEST` and `LEAST`: NULL if any argument is NULL; integers compare as integers,
//! numbers with a real among them as reals; a mix with strings compares as strings, byte for
//! byte (this server's collation, see the module docs above), and gives the string.
//!
//! `ISNULL(x)`: 1 for NULL, else 0. `ISNULL(...)` is an SQLite syntax error (a keyword: SQLite's
//! `x ISNULL` is MySQL's `x IS NULL`), so the rewrite calls it `MYSQL_ISNULL` (`sqlite_name`).

use std::cmp::Ordering;

use rusqlite::functions::Context;
use rusqlite::types::{Value, ValueRef};

use super::flags;

/// Registers `GREATEST`, `LEAST` and `MYSQL_ISNULL` on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    db.create_scalar_function("MYSQL_ISNULL", 1, flags(true), |ctx| {
        Ok(i64::from(ctx.get_raw(0) == ValueRef::Null))
    })?;
    for (name, want) in [("GREATEST", Ordering::Greater), ("LEAST", Ordering::Less)] {
        db.create_scalar_function(name, -1, flags(true), move |ctx| {
            if ctx.len() < 2 {
                // SQLite's words for it, which `error.rs` turns into MySQL's 1582.
                return Err(rusqlite::Error::UserFunctionError(
                    format!("wrong number of arguments to function {name}()").into(),
                ));
            }
            Ok(extreme(ctx, want))
        })?;
    }
    Ok(())
}

/// The argument that compares `want` against all others.
fn extreme(ctx: &Context<'_>, want: Ordering) -> Value {
    let args: Vec<ValueRef<'_>> = (0..ctx.len()).map(|i| ctx.get_raw(i)).collect();
    if args.contains(&ValueRef::Null) {
        return Value::Null;
    }
    if args.iter().all(|v| matches!(v, ValueRef::Integer(_))) {
        let ints = args.iter().filter_map(|v| v.as_i64().ok());
        let best = if want == Ordering::Greater {
            ints.max()
        } else {
            ints.min()
        };
        return best.map_or(Value::Null, Value::Integer);
    }
    if args
        .iter()
        .all(|v| matches!(v, ValueRef::Integer(_) | ValueRef::Real(_)))
    {
        let reals = args.iter().map(|v| match v {
            ValueRef::Integer(n) => *n as f64,
            ValueRef::Real(x) => *x,
            _ => 0.0,
        });
        let best = reals.reduce(|a, b| if b.total_cmp(&a) == want { b } else { a });
        return best.map_or(Value::Null, Value::Real);
    }
    let as_bytes = |v: &ValueRef<'_>| -> Vec<u8> {
        match v {
            ValueRef::Text(b) | ValueRef::Blob(b) => b.to_vec(),
            ValueRef::Integer(n) => n.to_string().into_bytes(),
            ValueRef::Real(x) => x.to_string().into_bytes(),
            ValueRef::Null => Vec::new(),
        }
    };
    let all_blobs = args.iter().all(|v| matches!(v, ValueRef::Blob(_)));
    let best = args
        .iter()
        .map(as_bytes)
        .reduce(|a, b| if b.cmp(&a) == want { b } else { a })
        .unwrap_or_default();
    if all_blobs {
        Value::Blob(best)
    } else {
        Value::Text(String::from_utf8_lossy(&best).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn greatest_and_least_as_mysqls() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        let cases = [
            // The manual's examples.
            ("GREATEST(2, 0)", Value::Integer(2)),
            ("GREATEST(34.0, 3.0, 5.0, 767.0)", Value::Real(767.0)),
            ("GREATEST('B', 'A', 'C')", t("C")),
            ("LEAST(2, 0)", Value::Integer(0)),
            ("LEAST(34.0, 3.0, 5.0, 767.0)", Value::Real(3.0)),
            ("LEAST('B', 'A', 'C')", t("A")),
            ("GREATEST(1, NULL, 3)", Value::Null),
            ("LEAST(NULL, 1)", Value::Null),
            // Integers as integers, numbers as reals, a mix with strings as strings.
            (
                "GREATEST(9223372036854775807, 9223372036854775806)",
                Value::Integer(i64::MAX),
            ),
            ("GREATEST(1, 2.5)", Value::Real(2.5)),
            ("LEAST(-1, 2.5)", Value::Real(-1.0)),
            ("GREATEST('10', 9)", t("9")),
            (
                "LEAST('2024-01-02', '2023-12-31 23:59:59')",
                t("2023-12-31 23:59:59"),
            ),
            ("GREATEST('a', 'B')", t("a")),
            ("GREATEST(X'01', X'02') = X'02'", Value::Integer(1)),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
        let err = db.query_row("SELECT GREATEST(1)", [], |r| r.get::<_, i64>(0));
        assert!(
            format!("{err:?}").contains("wrong number of arguments"),
            "{err:?}"
        );
    }

    #[test]
    fn isnull_as_mysqls() {
        let db = db();
        for (expr, want) in [
            ("MYSQL_ISNULL(NULL)", 1),
            ("MYSQL_ISNULL(1 / 0)", 1),
            ("MYSQL_ISNULL(0)", 0),
            ("MYSQL_ISNULL('')", 0),
            ("MYSQL_ISNULL(X'')", 0),
        ] {
            assert_eq!(eval(&db, expr), Value::Integer(want), "{expr}");
        }
    }
}
