//! An INSERT's fractional number literals as MySQL stores them in the column they go to
//! (`insert_values.rs` finds the column).
//!
//! * Into a `DECIMAL(p, s)` column a literal with more than `s` fractional digits is rounded
//!   half away from zero (`Field_new_decimal::store_value`, `sql/field.cc`: `1.555` is
//!   `1.56`), where SQLite would keep the double as given.
//! * Into a `CHAR`, `VARCHAR` or `TEXT` column a number is stored as its text (`Field_str::
//!   store(double)` / `store_decimal`): a decimal literal as written (`2.50`, not SQLite's
//!   REAL `2.5`), a double its shortest text (`1e3` is `1000`, not SQLite's `1000.0`). A
//!   double outside `[1e-4, 1e15)`, which MySQL writes with an exponent, is left as SQLite
//!   spells it.

use sqlparser::ast::{Expr, UnaryOperator, Value};

use crate::wire::{decimal_text, Kind};

/// Whether `v` is a number literal with a point or an exponent.
pub(super) fn is_fractional(v: &Value) -> bool {
    matches!(v, Value::Number(n, _) if n.contains(['.', 'e', 'E']))
}

/// `e` spelt as column type `decl` stores it (see the module docs); whether it changed.
pub(super) fn spell(e: &mut Expr, decl: &str) -> bool {
    let Some(text) = literal_text(e) else {
        return false;
    };
    if let Some(Kind::Decimal { scale, .. }) = Kind::from_declared(decl) {
        let frac = text.split_once('.').map_or(0, |(_, f)| f.len());
        if frac <= usize::from(scale) {
            return false;
        }
        let Some(d) = decimal_text(&text, scale) else {
            return false;
        };
        *e = Expr::Value(Value::Number(d, false).into());
        return true;
    }
    if !is_text_type(decl) {
        return false;
    }
    let frac = text.split_once('.').map_or(0, |(_, f)| f.len());
    let Some(s) = decimal_text(&text, u8::try_from(frac).unwrap_or(u8::MAX)) else {
        return false;
    };
    *e = Expr::Value(Value::SingleQuotedString(s).into());
    true
}

/// The plain decimal text of fractional literal `e` (`-x` too): a decimal's digits as
/// written, a double's shortest; `None` for anything else.
fn literal_text(e: &Expr) -> Option<String> {
    let (neg, v) = match e {
        Expr::Value(v) => (false, &v.value),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            Expr::Value(v) => (true, &v.value),
            _ => return None,
        },
        _ => return None,
    };
    let Value::Number(n, _) = v else {
        return None;
    };
    if !is_fractional(v) {
        return None;
    }
    let plain = if n.contains(['e', 'E']) {
        let f: f64 = n.parse().ok()?;
        if f != 0.0 && !(1e-4..1e15).contains(&f.abs()) {
            return None;
        }
        f.to_string()
    } else {
        n.clone()
    };
    Some(if neg { format!("-{plain}") } else { plain })
}

/// `CHAR`, `VARCHAR` and the `TEXT` types (not `ENUM` or `SET`, where a number is an index).
fn is_text_type(decl: &str) -> bool {
    let d = decl.trim_start().to_ascii_lowercase();
    [
        "char",
        "varchar",
        "character",
        "nchar",
        "nvarchar",
        "national",
    ]
    .iter()
    .chain(&["text", "tinytext", "mediumtext", "longtext"])
    .any(|w| {
        d.strip_prefix(w)
            .is_some_and(|r| r.is_empty() || r.starts_with(['(', ' ']))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelt(sql_value: &str, decl: &str) -> String {
        let dialect = sqlparser::dialect::MySqlDialect {};
        let mut e = sqlparser::parser::Parser::new(&dialect)
            .try_with_sql(sql_value)
            .unwrap()
            .parse_expr()
            .unwrap();
        spell(&mut e, decl);
        e.to_string()
    }

    #[test]
    fn literals_are_spelt_as_their_column_stores_them() {
        assert_eq!(spelt("1.555", "decimal(10,2)"), "1.56");
        assert_eq!(spelt("-1.555", "DECIMAL(10,2)"), "-1.56");
        assert_eq!(spelt("1.5", "decimal(10,2)"), "1.5");
        assert_eq!(spelt("1e3", "varchar(10)"), "'1000'");
        assert_eq!(spelt("2.50", "VARCHAR(10)"), "'2.50'");
        assert_eq!(spelt("-.5", "text"), "'-0.5'");
        assert_eq!(spelt("2.50", "double"), "2.50");
        assert_eq!(spelt("2.50", "enum('a','b')"), "2.50");
        assert_eq!(spelt("3", "varchar(10)"), "3");
        assert_eq!(spelt("1e300", "varchar(10)"), "1e300");
    }
}
