//! `ROUND(x[, d])` and `TRUNCATE(x, d)` of an approximate value round the double in MySQL
//! (`Item_func_round::resolve_type` and `real_op`, `sql/item_func.cc`: `my_double_round`,
//! `rint`, so `ROUND(2.5e0)` is 2), and an exact one its decimal digits (`ROUND(2.5)` is 3).
//! SQLite's values do not say which `x` is, so its MySQL type goes with it as a third
//! argument, `ROUND(x, d, type)` (`functions/round_double.rs`), where it may be approximate:
//! a double or a string of literals (`'double'`, `'varchar(3)'`), or a column or an
//! expression over columns, typed when the statement runs (`runtime_type.rs`). An exact `x`
//! of literals (`ROUND(2.5)`) is left as it is.
//!
//! Cost: only a statement whose text says `ROUND` or `TRUNCATE` is visited again (`mentions.rs`).

use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectNamePart};

use super::json::args::{visit_columns, Scope};
use super::runtime_type::{type_of, Typed};
use crate::expr_type::Class;

/// Gives the `ROUND` and `TRUNCATE` calls of `s` their argument's type (see the module docs),
/// when its text says `ROUND` or `TRUNCATE` (`mentions`).
pub(super) fn mark(s: &mut sqlparser::ast::Statement, mentioned: bool) {
    if mentioned {
        visit_columns(s, round_call);
    }
}

/// Adds the type of `ROUND`'s or `TRUNCATE`'s first argument to call `e`.
fn round_call(e: &mut Expr, scopes: &[Scope]) {
    let Expr::Function(f) = e else {
        return;
    };
    let args = match f.name.0.as_slice() {
        [ObjectNamePart::Identifier(n)] if n.value.eq_ignore_ascii_case("ROUND") => 1..=2,
        [ObjectNamePart::Identifier(n)] if n.value.eq_ignore_ascii_case("TRUNCATE") => 2..=2,
        _ => return,
    };
    let FunctionArguments::List(list) = &mut f.args else {
        return;
    };
    if !args.contains(&list.args.len()) {
        return;
    }
    let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(x))) = list.args.first() else {
        return;
    };
    let ty = match type_of(x, scopes) {
        Some(Typed::Known(t)) if t.numeric() != Class::Real || t.class == Class::Null => return,
        Some(t) => t.sql(),
        None => return,
    };
    let arg = |e: Expr| FunctionArg::Unnamed(FunctionArgExpr::Expr(e));
    if list.args.len() == 1 {
        list.args
            .push(arg(Expr::value(sqlparser::ast::Value::Number(
                "0".into(),
                false,
            ))));
    }
    list.args.push(arg(ty));
}

#[cfg(test)]
mod tests {
    use crate::rewrite::tests::{declared_type, sqlite};

    #[test]
    fn approximate_arguments_are_typed() {
        let ty = declared_type;
        assert_eq!(
            sqlite("SELECT ROUND(2.5e0) AS a, ROUND(2.5) AS b, TRUNCATE('2.5', 0) AS c"),
            ["SELECT ROUND(2.5e0, 0, 'double') AS a, ROUND(2.5) AS b, \
              TRUNCATE('2.5', 0, 'varchar(3)') AS c"]
        );
        assert_eq!(
            sqlite("SELECT ROUND(d, 1) AS a, ROUND(d * 2) AS b FROM t"),
            [format!(
                "SELECT ROUND(d, 1, {}) AS a, ROUND(d * 2, 0, MYSQL_TYPE_OF('d * 2', 'd', {})) \
                 AS b FROM `sbtest`.t",
                ty("t", "d"),
                ty("t", "d")
            )]
        );
        // Not known: as it was.
        assert_eq!(
            sqlite("SELECT ROUND(@a) AS a, ROUND(x.v) AS b FROM (SELECT 1 AS v) AS x"),
            ["SELECT ROUND(NULL) AS a, ROUND(x.v) AS b FROM (SELECT 1 AS v) AS x"]
        );
    }
}
