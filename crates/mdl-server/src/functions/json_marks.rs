//! The marks the rewrite puts on a value argument of a JSON function that MySQL takes as JSON
//! where SQLite, which has no BOOLEAN or JSON type, would pass a number or a string
//! (`rewrite/json/args.rs` says which arguments and why). A marked value comes back with
//! SQLite's JSON subtype (`json::SUBTYPE`), which `json_more::value` reads as JSON:
//!
//! * `MDL_JSON_BOOLEAN(x)`: JSON `true` or `false` for a boolean expression's value (a number,
//!   true when not zero; a string is read as MySQL reads a number from it), NULL for NULL.
//! * `MDL_JSON_OF_COLUMN(x, declared_json)`: the text of a column, marked JSON when the
//!   column is declared `JSON` (the second argument, which the rewrite computes from the
//!   table's declaration); any other value, or a column of another type, as it is.

use rusqlite::types::{Value, ValueRef};
use serde_json::Value as Json;

use super::json::{json_flags, json_result, SUBTYPE};

/// The mark of a boolean.
pub const BOOLEAN: &str = "MDL_JSON_BOOLEAN";

/// The mark of a column that may be declared `JSON`.
pub const OF_COLUMN: &str = "MDL_JSON_OF_COLUMN";

/// Registers the functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = json_flags();
    db.create_scalar_function(BOOLEAN, 1, f, |ctx| {
        let truth = match ctx.get_raw(0) {
            ValueRef::Null => return Ok((Value::Null, None)),
            ValueRef::Integer(n) => n != 0,
            ValueRef::Real(x) => x != 0.0,
            ValueRef::Text(b) | ValueRef::Blob(b) => {
                super::number_prefix(&String::from_utf8_lossy(b)) != 0.0
            }
        };
        Ok(json_result(&Json::Bool(truth)))
    })?;
    db.create_scalar_function(OF_COLUMN, 2, f, |ctx| {
        let declared_json = ctx.get::<Option<i64>>(1)?.is_some_and(|n| n != 0);
        Ok(match ctx.get_raw(0) {
            ValueRef::Text(t) if declared_json => (
                Value::Text(String::from_utf8_lossy(t).into_owned()),
                Some(SUBTYPE),
            ),
            other => (other.into(), None),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use rusqlite::types::Value;

    #[test]
    fn marked_values_are_json() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        for (expr, want) in [
            (
                "JSON_ARRAY(MDL_JSON_BOOLEAN(1), MDL_JSON_BOOLEAN(0))",
                t("[true, false]"),
            ),
            ("JSON_ARRAY(MDL_JSON_BOOLEAN(NULL), 1)", t("[null, 1]")),
            (
                "JSON_ARRAY(MDL_JSON_BOOLEAN(0.5), MDL_JSON_BOOLEAN('0x'))",
                t("[true, false]"),
            ),
            ("MDL_JSON_BOOLEAN(2 > 1)", t("true")),
            (
                r#"JSON_OBJECT('d', MDL_JSON_OF_COLUMN('{"x":1}', 1))"#,
                t(r#"{"d": {"x": 1}}"#),
            ),
            (
                r#"JSON_OBJECT('d', MDL_JSON_OF_COLUMN('{"x":1}', 0))"#,
                t(r#"{"d": "{\"x\":1}"}"#),
            ),
            (
                "JSON_ARRAY(MDL_JSON_OF_COLUMN(NULL, 1), MDL_JSON_OF_COLUMN(2, 1))",
                t("[null, 2]"),
            ),
            ("MDL_JSON_OF_COLUMN('[1]', NULL)", t("[1]")),
            ("MDL_JSON_OF_COLUMN(NULL, 1)", Value::Null),
        ] {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }
}
