//! MySQL's single-table `UPDATE ... [ORDER BY ...] LIMIT n` and `DELETE ... [ORDER BY ...]
//! LIMIT n` in SQLite's dialect (see the parent module's docs). The bundled SQLite is built
//! without `SQLITE_ENABLE_UPDATE_DELETE_LIMIT` (an amalgamation cannot have it), so the rows are
//! chosen by a subquery over the same table, by rowid (every table here has one):
//!
//! `UPDATE t SET a = 1 WHERE w ORDER BY o LIMIT n` becomes
//! `UPDATE t SET a = 1 WHERE rowid IN (SELECT rowid FROM t WHERE w ORDER BY o LIMIT n)`,
//!
//! the same rows MySQL changes (`ORDER BY` decides which; without it, any `n` matching rows, as
//! in MySQL), and in the same order of the statement's placeholders (the `WHERE`, `ORDER BY`
//! and `LIMIT` stay in that order, after the `SET`).

use sqlparser::ast::{Delete, Expr, FromTable, OrderByExpr, TableFactor, TableWithJoins, Update};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;

use crate::engine::ROWID;
use crate::error::ServerError;

/// Rewrites an `UPDATE` with `ORDER BY` or `LIMIT` in place.
pub(super) fn update(u: &mut Update) -> Result<(), ServerError> {
    if u.order_by.is_empty() && u.limit.is_none() {
        return Ok(());
    }
    let selection = by_rowid(&u.table, u.selection.take(), &u.order_by, u.limit.take())?;
    u.order_by.clear();
    u.selection = Some(selection);
    Ok(())
}

/// Rewrites a `DELETE` with `ORDER BY` or `LIMIT` in place.
pub(super) fn delete(d: &mut Delete) -> Result<(), ServerError> {
    if d.order_by.is_empty() && d.limit.is_none() {
        return Ok(());
    }
    let from = match &d.from {
        FromTable::WithFromKeyword(t) | FromTable::WithoutKeyword(t) => t,
    };
    let [table] = from.as_slice() else {
        // MySQL refuses ORDER BY / LIMIT in a multi-table DELETE too.
        return Err(ServerError::parse("LIMIT"));
    };
    let selection = by_rowid(table, d.selection.take(), &d.order_by, d.limit.take())?;
    d.order_by.clear();
    d.selection = Some(selection);
    Ok(())
}

/// `rowid IN (SELECT rowid FROM <table> [WHERE ...] [ORDER BY ...] [LIMIT ...])`.
fn by_rowid(
    table: &TableWithJoins,
    selection: Option<Expr>,
    order_by: &[OrderByExpr],
    limit: Option<Expr>,
) -> Result<Expr, ServerError> {
    if !table.joins.is_empty() || !matches!(table.relation, TableFactor::Table { .. }) {
        return Err(ServerError::parse("LIMIT"));
    }
    let mut sub = format!("{ROWID} IN (SELECT {ROWID} FROM {}", table.relation);
    if let Some(w) = selection {
        sub.push_str(&format!(" WHERE {w}"));
    }
    if !order_by.is_empty() {
        let keys: Vec<String> = order_by.iter().map(ToString::to_string).collect();
        sub.push_str(&format!(" ORDER BY {}", keys.join(", ")));
    }
    if let Some(n) = limit {
        sub.push_str(&format!(" LIMIT {n}"));
    }
    sub.push(')');
    Parser::new(&MySqlDialect {})
        .try_with_sql(&sub)
        .and_then(|mut p| p.parse_expr())
        .map_err(|_| ServerError::parse(&sub))
}
