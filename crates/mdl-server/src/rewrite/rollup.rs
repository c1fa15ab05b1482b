//! `GROUP BY g1, ..., gn WITH ROLLUP` in SQLite's terms: SQLite has no `ROLLUP`, so the query
//! becomes the `UNION ALL` of its n + 1 grouping levels, as MySQL computes it (`sql_select.cc`
//! and `item_sum.cc`: the super-aggregate rows of level j group by the first j columns, the
//! others read NULL).
//!
//! * Level j (n down to 0) is the query's `SELECT` grouped by g1 ... gj (level 0 by a constant,
//!   so that no input gives no row, as in MySQL), where a reference to a later group column
//!   outside an aggregate is NULL (in the select list and in `HAVING`), and `GROUPING(g, ...)`
//!   is its value at that level (1 for a rolled-up column, the leftmost argument the highest
//!   bit).
//! * The rows come in MySQL's order: by g1, a rolled-up g1 after the rest, then by g2, ...
//!   (each level also selects, for each group column, whether it is rolled up and its value,
//!   which the outer query sorts by and leaves out), unless the statement has its own `ORDER
//!   BY`, which (as its `LIMIT`) applies to the whole result.
//! * A group column given by position (`GROUP BY 1`) or by a select alias is that item's
//!   expression. Columns are compared by their text, without case.
//!
//! What it does not take (1235): `*` in the select list, `DISTINCT`, a `ROLLUP` in a
//! subquery or in one branch of a `UNION`.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, GroupByExpr, GroupByWithModifier, Query, Select, SelectItem, SetExpr, Value, VisitMut,
    VisitorMut,
};

use crate::error::ServerError;
// Aggregate functions: a group column inside one keeps its values in a super-aggregate row.
use mdl_sql::AGGREGATE_FUNCTIONS as AGGREGATES;

/// Whether `q` is a query of the module's form (its top `SELECT` has `WITH ROLLUP`).
pub(super) fn has_rollup(q: &Query) -> bool {
    matches!(q.body.as_ref(), SetExpr::Select(s)
        if is_rollup(&s.group_by))
}

/// Whether a `GROUP BY` has `WITH ROLLUP`.
fn is_rollup(g: &GroupByExpr) -> bool {
    matches!(g, GroupByExpr::Expressions(_, m) if m.contains(&GroupByWithModifier::Rollup))
}

/// How many `SELECT`s of `body` (its own, or the branches of its set operations) have `WITH
/// ROLLUP`.
pub(super) fn count(body: &SetExpr) -> usize {
    match body {
        SetExpr::Select(s) => usize::from(is_rollup(&s.group_by)),
        SetExpr::SetOperation { left, right, .. } => count(left) + count(right),
        _ => 0,
    }
}

/// The SQL text of `q`, a query of the module's form (see the module docs).
///
/// # Errors
/// 1235 for what the module does not take.
pub(super) fn query(q: &Query) -> Result<String, ServerError> {
    let refused = || ServerError::not_supported("this use of GROUP BY ... WITH ROLLUP");
    let SetExpr::Select(select) = q.body.as_ref() else {
        return Err(refused());
    };
    let GroupByExpr::Expressions(groups, _) = &select.group_by else {
        return Err(refused());
    };
    if select.distinct.is_some() || q.fetch.is_some() || !q.locks.is_empty() {
        return Err(refused());
    }
    let mut items = Vec::new(); // (expression, output name)
    for item in &select.projection {
        items.push(match item {
            SelectItem::ExprWithAlias { expr, alias } => (expr.clone(), alias.value.clone()),
            SelectItem::UnnamedExpr(e @ Expr::Identifier(i)) => (e.clone(), i.value.clone()),
            SelectItem::UnnamedExpr(e @ Expr::CompoundIdentifier(p)) => (
                e.clone(),
                p.last().map_or(String::new(), |i| i.value.clone()),
            ),
            _ => return Err(refused()),
        });
    }
    // The group columns as expressions: a position or a select alias names an item.
    let columns: Vec<Expr> = groups
        .iter()
        .map(|g| match g {
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => n
                    .parse::<usize>()
                    .ok()
                    .and_then(|k| items.get(k.wrapping_sub(1)))
                    .map(|(e, _)| e.clone())
                    .unwrap_or_else(|| g.clone()),
                _ => g.clone(),
            },
            Expr::Identifier(i) => (items.iter())
                .find(|(e, name)| name.eq_ignore_ascii_case(&i.value) && e != g)
                .map_or_else(|| g.clone(), |(e, _)| e.clone()),
            _ => g.clone(),
        })
        .collect();
    let n = columns.len();
    let quote = |s: &str| format!("`{}`", s.replace('`', "``"));
    let mut levels = Vec::new();
    for j in (0..=n).rev() {
        let mut level: Select = (**select).clone();
        let mut null = NullRolledUp {
            rolled_up: &columns[j..],
            all: &columns,
            inside_aggregate: 0,
        };
        level.projection = (items.iter())
            .map(|(e, name)| {
                let mut e = e.clone();
                let _ = e.visit(&mut null);
                SelectItem::ExprWithAlias {
                    expr: e,
                    alias: sqlparser::ast::Ident::with_quote('`', name),
                }
            })
            .collect();
        if let Some(h) = level.having.as_mut() {
            let _ = h.visit(&mut null);
        }
        level.group_by = GroupByExpr::Expressions(
            match j {
                0 => vec![Expr::value(Value::SingleQuotedString(String::new()))],
                _ => groups[..j].to_vec(),
            },
            Vec::new(),
        );
        // The sort keys: for each group column, whether it is rolled up, and its value.
        for (i, g) in columns.iter().enumerate() {
            let (up, value) = match i < j {
                true => ("0", g.clone()),
                false => ("1", Expr::value(Value::Null)),
            };
            let key = |expr: Expr, what: &str| SelectItem::ExprWithAlias {
                expr,
                alias: sqlparser::ast::Ident::new(format!("mdl_rollup_{what}{i}")),
            };
            level
                .projection
                .push(key(Expr::value(Value::Number(up.into(), false)), "k"));
            level.projection.push(key(value, "g"));
        }
        let text = level.to_string();
        levels.push(text);
    }
    let names: Vec<String> = items.iter().map(|(_, name)| quote(name)).collect();
    let order = match &q.order_by {
        Some(o) => {
            // Over the result: an item's expression is its output column.
            let mut o = o.clone();
            if let sqlparser::ast::OrderByKind::Expressions(exprs) = &mut o.kind {
                for x in exprs {
                    if let Some((_, name)) = items.iter().find(|(e, _)| same(e, &x.expr)) {
                        x.expr = Expr::Identifier(sqlparser::ast::Ident::with_quote('`', name));
                    }
                }
            }
            o.to_string()
        }
        None => {
            let keys: Vec<String> = (0..n)
                .map(|i| format!("mdl_rollup_k{i}, mdl_rollup_g{i}"))
                .collect();
            format!("ORDER BY {}", keys.join(", "))
        }
    };
    let with = q.with.as_ref().map_or(String::new(), |w| format!("{w} "));
    let limit = q
        .limit_clause
        .as_ref()
        .map_or(String::new(), |l| l.to_string());
    Ok(format!(
        "{with}SELECT {} FROM ({}) AS mdl_rollup {order}{limit}",
        names.join(", "),
        levels.join(" UNION ALL ")
    ))
}

/// Replaces, outside aggregates, the rolled-up group columns with NULL and `GROUPING(...)`
/// with its value.
struct NullRolledUp<'a> {
    rolled_up: &'a [Expr],
    all: &'a [Expr],
    inside_aggregate: usize,
}

fn same(a: &Expr, b: &Expr) -> bool {
    a.to_string().eq_ignore_ascii_case(&b.to_string())
}

fn function_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Function(f) => Some(f.name.to_string().to_ascii_uppercase()),
        _ => None,
    }
}

impl VisitorMut for NullRolledUp<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let name = function_name(e);
        if name.as_deref() == Some("GROUPING") {
            if let Expr::Function(f) = e {
                let args: Vec<Expr> = match &f.args {
                    sqlparser::ast::FunctionArguments::List(l) => (l.args.iter())
                        .filter_map(|a| match a {
                            sqlparser::ast::FunctionArg::Unnamed(
                                sqlparser::ast::FunctionArgExpr::Expr(x),
                            ) => Some(x.clone()),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let bits = (args.iter()).fold(0u64, |acc, a| {
                    let up = self.rolled_up.iter().any(|g| same(g, a));
                    (acc << 1) | u64::from(up)
                });
                if args.iter().all(|a| self.all.iter().any(|g| same(g, a))) {
                    *e = Expr::value(Value::Number(bits.to_string(), false));
                }
            }
            return ControlFlow::Continue(());
        }
        if name.as_deref().is_some_and(|n| AGGREGATES.contains(&n)) {
            self.inside_aggregate += 1;
        } else if self.inside_aggregate == 0 && self.rolled_up.iter().any(|g| same(g, e)) {
            *e = Expr::value(Value::Null);
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if function_name(e).is_some_and(|n| AGGREGATES.contains(&n.as_str())) {
            self.inside_aggregate -= 1;
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sqlite;

    #[test]
    fn levels_in_a_union_sorted_by_the_keys() {
        assert_eq!(
            sqlite("SELECT g, COUNT(*) FROM t GROUP BY g WITH ROLLUP"),
            ["SELECT `g`, `COUNT(*)` FROM (\
              SELECT g AS `g`, COUNT(*) AS `COUNT(*)`, 0 AS mdl_rollup_k0, g AS mdl_rollup_g0 \
              FROM `sbtest`.t GROUP BY g \
              UNION ALL \
              SELECT NULL AS `g`, COUNT(*) AS `COUNT(*)`, 1 AS mdl_rollup_k0, NULL AS mdl_rollup_g0 \
              FROM `sbtest`.t GROUP BY '') AS mdl_rollup ORDER BY mdl_rollup_k0, mdl_rollup_g0"]
        );
    }

    #[test]
    fn what_it_does_not_take_is_1235() {
        for sql in [
            "SELECT * FROM t GROUP BY g WITH ROLLUP",
            "SELECT DISTINCT g FROM t GROUP BY g WITH ROLLUP",
            "SELECT g FROM t GROUP BY g WITH ROLLUP UNION SELECT 1",
        ] {
            let e = super::super::tests::rewritten(sql).unwrap_err();
            assert_eq!(e.code, 1235, "{sql}");
        }
    }
}
