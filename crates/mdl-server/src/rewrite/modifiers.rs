//! Select modifiers and `LIMIT`s that SQLite spells otherwise (the parent module's docs).

use sqlparser::ast::{Expr, Query, Value};

/// MySQL's select modifiers go from every SELECT of a query body (module docs), and a
/// `STRAIGHT_JOIN` between tables (which fixes MySQL's join order, not the rows) is a plain
/// `JOIN`. Returns how many of the SELECTs had `SQL_CALC_FOUND_ROWS`.
pub(super) fn drop_select_modifiers(body: &mut sqlparser::ast::SetExpr) -> usize {
    use sqlparser::ast::{JoinOperator, SetExpr};
    match body {
        SetExpr::Select(sel) => {
            let modifiers = sel.select_modifiers.take();
            for join in sel.from.iter_mut().flat_map(|t| t.joins.iter_mut()) {
                if let JoinOperator::StraightJoin(c) = &join.join_operator {
                    join.join_operator = JoinOperator::Join(c.clone());
                }
            }
            usize::from(modifiers.is_some_and(|m| m.sql_calc_found_rows))
        }
        SetExpr::SetOperation { left, right, .. } => {
            drop_select_modifiers(left) + drop_select_modifiers(right)
        }
        _ => 0,
    }
}

/// `LIMIT 18446744073709551615`, MySQL's idiom for "all rows" (with an offset), is past
/// SQLite's integers: a row count past BIGINT is SQLite's `-1`, no limit.
pub(super) fn no_limit_past_bigint(q: &mut Query) {
    use sqlparser::ast::LimitClause;
    let limit = match &mut q.limit_clause {
        Some(LimitClause::LimitOffset { limit: Some(l), .. }) => l,
        Some(LimitClause::OffsetCommaLimit { limit, .. }) => limit,
        _ => return,
    };
    if let Expr::Value(v) = limit {
        if let Value::Number(n, _) = &mut v.value {
            if n.parse::<i64>().is_err() && n.bytes().all(|b| b.is_ascii_digit()) {
                *n = "-1".into();
            }
        }
    }
}
