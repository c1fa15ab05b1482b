//! A `DECIMAL` column's value as a string keeps its scale in MySQL (`Field_new_decimal::
//! val_str`, `sql/field.cc`: `my_decimal2string` with the column's `dec`): `CONCAT(d)` of a
//! `DECIMAL(10,2)` `0.10` is `'0.10'`, `LENGTH(d)` 4, `d LIKE '0.10'` true. SQLite keeps the
//! value as the double 0.1 (`NUMERIC` affinity) and writes it `0.1`, and the rewrite knows no
//! column types. So a column reference where a string is made of it is marked, as JSON
//! columns are (`json/args.rs`, whose visit and table scopes this uses):
//! `MYSQL_TEXT(d, (SELECT type FROM pragma_table_info('t', 's') WHERE lower(name) =
//! lower('d') LIMIT 1))`, which SQLite runs once (the subquery is constant), and which gives a
//! number of a column declared `DECIMAL(m, s)` with `s` decimals (`functions/number_text.rs`).
//!
//! The places: every argument of `CONCAT`, `CONCAT_WS` and `GROUP_CONCAT`; the string of `LENGTH`,
//! `CHAR_LENGTH`, `CHARACTER_LENGTH`, `OCTET_LENGTH`, `BIT_LENGTH`, `LEFT`, `RIGHT`, `LPAD`,
//! `RPAD`, `REPLACE`, `REVERSE`, `UPPER`, `LOWER`, `UCASE`, `LCASE` and `SUBSTRING`; `CAST(d AS
//! CHAR)` (already `MYSQL_TEXT(d)`: `expr/numbers.rs`); the operand of `LIKE`.
//!
//! A decimal expression is marked with its type too (`runtime_type.rs`), which keeps its scale
//! as MySQL's does: of literals (`CONCAT(0.1 + 0.2)` is `'0.3'`, not the double's
//! `0.30000000000000004`; `CONCAT(1 / 4)` `'0.2500'`, `div_precision_increment` more
//! decimals), or over columns (`CONCAT(d * 2)` of a `DECIMAL(10,2)` `1.50` is `'3.00'`:
//! `MYSQL_TYPE_OF`, typed when the statement runs). So is `PI()`, a double of 6 decimals
//! (`'3.141593'`).
//!
//! Cost: only a statement whose text says `CAST`, `CONV`, `CONC`, `LIKE` or `LENGTH` is
//! visited again (sysbench's are not), and a marked column costs a call per row (a column
//! before `LIKE` could not use an index anyway: SQLite's LIKE is not case-sensitive here); an
//! expression only where it may be a number (arithmetic, `SUM`, `ROUND`, ...: not
//! `UPPER(c)`). Differs: as for JSON, a column of a derived table, a common table expression
//! or an outer query referenced without a qualifier is not known (it keeps SQLite's text,
//! `0.1`).

use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectNamePart};

use super::expr::{call, is_text_call};
use super::json::args::{visit_columns, Scope};
use super::runtime_type::{type_of, Typed};
use crate::functions::MYSQL_TEXT;

/// The calls whose first argument is made a string.
const FIRST_ARG: [&str; 17] = [
    "LENGTH",
    "CHAR_LENGTH",
    "CHARACTER_LENGTH",
    "OCTET_LENGTH",
    "BIT_LENGTH",
    "LEFT",
    "RIGHT",
    "LPAD",
    "RPAD",
    "REPLACE",
    "REVERSE",
    "UPPER",
    "LOWER",
    "UCASE",
    "LCASE",
    "SUBSTR",
    "MID",
];

/// Marks the `DECIMAL` columns of `s` made strings (see the module docs), when its text may
/// have such a place (`mentions`: `CAST`, `CONV`, `CONC`, `LIKE` or `LENGTH`).
pub(super) fn mark(s: &mut sqlparser::ast::Statement, mentioned: bool) {
    if mentioned {
        visit_columns(s, string_of_column);
    }
}

/// Marks the column references `e` makes strings of.
fn string_of_column(e: &mut Expr, scopes: &[Scope]) {
    match e {
        Expr::Like { expr, .. } => column_text(expr, scopes),
        Expr::Substring { expr, .. } => column_text(expr, scopes),
        Expr::Function(f) => {
            let name = match f.name.0.as_slice() {
                [ObjectNamePart::Identifier(n)] => n.value.as_str(),
                _ => return,
            };
            let all = ["CONCAT", "CONCAT_WS", "GROUP_CONCAT"]
                .iter()
                .any(|n| n.eq_ignore_ascii_case(name));
            let first = FIRST_ARG.iter().any(|n| n.eq_ignore_ascii_case(name));
            let is_text = name == MYSQL_TEXT;
            let FunctionArguments::List(list) = &mut f.args else {
                return;
            };
            if is_text {
                // `CAST(d AS CHAR)`: the declared type is the call's second argument.
                if let [FunctionArg::Unnamed(FunctionArgExpr::Expr(c))] = list.args.as_slice() {
                    if let Some(ty) = declared_type(c, scopes) {
                        list.args
                            .push(FunctionArg::Unnamed(FunctionArgExpr::Expr(ty)));
                    }
                }
                return;
            }
            let take = if all {
                list.args.len()
            } else {
                usize::from(first)
            };
            for a in list.args.iter_mut().take(take) {
                if let FunctionArg::Unnamed(FunctionArgExpr::Expr(c)) = a {
                    column_text(c, scopes);
                }
            }
        }
        _ => {}
    }
}

/// `c` as `MYSQL_TEXT(c, declared type)` when it is a column of the query's tables or a
/// decimal expression of literals.
fn column_text(c: &mut Expr, scopes: &[Scope]) {
    if is_text_call(c) {
        return;
    }
    if let Some(ty) = declared_type(c, scopes) {
        let col = std::mem::replace(c, Expr::value(sqlparser::ast::Value::Null));
        *c = call(MYSQL_TEXT, vec![col, ty]);
    }
}

/// The SQL of the MySQL type of `c` where it may be a decimal: a column's declared type or
/// that of an arithmetic expression over columns, read when the statement runs
/// (`runtime_type.rs`), or the `DECIMAL` type of an expression of literals (`0.1 + 0.2`:
/// `decimal(3,1)`, whose value SQLite computes as the double 0.30000000000000004; `1 / 4`:
/// `decimal(5,4)`, shown `0.2500`); `None` otherwise.
fn declared_type(c: &Expr, scopes: &[Scope]) -> Option<Expr> {
    let column = matches!(c, Expr::Identifier(_) | Expr::CompoundIdentifier(_));
    if !column && !may_be_decimal(c) {
        return None;
    }
    match type_of(c, scopes)? {
        Typed::Known(ty) if !has_scale(&ty) => None,
        t => Some(t.sql()),
    }
}

/// Whether a value of type `ty` is written with a count of decimals: a decimal's scale, or a
/// double's fixed decimals (`PI()`: `'3.141593'`, `Item_float::val_str`).
fn has_scale(ty: &crate::expr_type::Ty) -> bool {
    use crate::expr_type::{Class, NOT_FIXED_DEC};
    ty.class == Class::Decimal || (ty.class == Class::Real && ty.decimals < NOT_FIXED_DEC)
}

/// Whether `e` may be of a decimal type: arithmetic, or a call that gives a number of its
/// arguments' type (not a string function's, which never is: `CONCAT(UPPER(c))` costs
/// nothing).
fn may_be_decimal(e: &Expr) -> bool {
    use sqlparser::ast::{BinaryOperator as B, UnaryOperator as U};
    const NUMBERS: [&str; 18] = [
        "ABS", "AVG", "CEIL", "CEILING", "COALESCE", "FLOOR", "GREATEST", "IF", "IFNULL", "LEAST",
        "MAX", "MIN", "MOD", "NULLIF", "PI", "ROUND", "SUM", "TRUNCATE",
    ];
    match e {
        Expr::Nested(x) => may_be_decimal(x),
        Expr::BinaryOp { op, .. } => matches!(
            op,
            B::Plus | B::Minus | B::Multiply | B::Divide | B::Modulo | B::Custom(_)
        ),
        Expr::UnaryOp { op, .. } => matches!(op, U::Minus | U::Plus),
        Expr::Value(_) | Expr::Case { .. } | Expr::Ceil { .. } | Expr::Floor { .. } => true,
        Expr::Function(f) => match f.name.0.as_slice() {
            [ObjectNamePart::Identifier(n)] => {
                NUMBERS.iter().any(|x| x.eq_ignore_ascii_case(&n.value))
                    || n.value == crate::functions::MYSQL_DECIMAL
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::rewrite::tests::{declared_type, sqlite};

    #[test]
    fn decimal_columns_made_strings_are_marked() {
        let ty = declared_type;
        assert_eq!(
            sqlite("SELECT CONCAT(d, 'x') AS a, LENGTH(t.d) AS b, CAST(d AS CHAR) AS c FROM t"),
            [format!(
                "SELECT CONCAT(MYSQL_TEXT(d, {}), 'x') AS a, LENGTH(MYSQL_TEXT(t.d, {})) AS b, \
                 MYSQL_TEXT(d, {}) AS c FROM `sbtest`.t",
                ty("t", "d"),
                ty("t", "d"),
                ty("t", "d")
            )]
        );
        assert_eq!(
            sqlite("SELECT 1 AS a FROM t WHERE d LIKE '0.10'"),
            [format!(
                "SELECT 1 AS a FROM `sbtest`.t WHERE MYSQL_TEXT(d, {}) LIKE '0.10' ESCAPE '\\'",
                ty("t", "d")
            )]
        );
        // A decimal expression of literals has its type; a double's has none.
        assert_eq!(
            sqlite(
                "SELECT CONCAT(0.1 + 0.2) AS a, CAST(0.5 * 3 AS CHAR) AS b, CONCAT(1e0 + 1) AS c"
            ),
            [
                "SELECT CONCAT(MYSQL_TEXT(0.1 + 0.2, 'decimal(3,1)')) AS a, \
              MYSQL_TEXT(0.5 * 3, 'decimal(3,1)') AS b, CONCAT(1e0 + 1) AS c"
            ]
        );
        // Not a column of the query's tables, or no place that makes a string: as it was.
        assert_eq!(
            sqlite("SELECT CONCAT(@a, 1) AS a, d AS b FROM t"),
            ["SELECT CONCAT(NULL, 1) AS a, d AS b FROM `sbtest`.t"]
        );
    }
}
