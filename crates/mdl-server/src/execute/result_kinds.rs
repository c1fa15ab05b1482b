//! The wire kinds (`wire/kind.rs`) of a query's expression columns: SQLite declares a type for
//! a column reference only (the engine reads it), so an expression's comes from
//! `expr_type.rs` through `view_columns::query_types`, as MySQL types the item
//! (`Item::data_type()`): `SELECT 1.5 + 1` is a `NEWDECIMAL` shown `2.5`, `AVG(v)` of an `INT`
//! one of scale 4 (`2.0000`), `CURDATE()` a `DATE`, `JSON_OBJECT(...)` a `JSON`.
//!
//! A select of column references and `*` from tables only (sysbench's point select) is left
//! as the engine typed it: nothing is read for it. One from a view or a derived table is
//! typed, as its columns may be expressions (`SELECT * FROM v`).

use sqlparser::ast::{Expr, Query, Select, SelectItem, SetExpr, Statement, TableFactor};

use crate::engine::EngineConn;
use crate::wire::{Kind, Output};

/// Adds to `out`, the rows of query `s` run in schema `schema`, the kinds of its expression
/// columns (see the module docs).
pub(super) fn add(
    db: &mut EngineConn,
    s: Option<&Statement>,
    schema: Option<&str>,
    out: &mut Output,
) {
    let (Output::Rows(rs), Some(Statement::Query(q))) = (out, s) else {
        return;
    };
    if !has_expression(q) && reads_tables_only(db, q, schema) {
        return;
    }
    let Some(types) = crate::view_columns::query_types(db, schema.unwrap_or(""), q) else {
        return;
    };
    if types.len() != rs.columns.len() {
        return;
    }
    let found = types
        .iter()
        .map(|t| t.as_deref().and_then(Kind::from_declared));
    if rs.kinds.is_empty() {
        rs.kinds = vec![None; rs.columns.len()];
    }
    for (k, f) in rs.kinds.iter_mut().zip(found) {
        // A column's declared type, which the engine read, comes first.
        if k.is_none() {
            *k = f;
        }
    }
    if rs.kinds.iter().all(Option::is_none) {
        rs.kinds.clear();
    }
}

/// Whether a select item of `q` is more than a column reference or `*`.
fn has_expression(q: &Query) -> bool {
    let SetExpr::Select(s) = q.body.as_ref() else {
        return true;
    };
    s.projection.iter().any(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
            !matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_))
        }
        _ => false,
    })
}

/// Whether select `q` reads base tables only: no view, derived table or table function.
fn reads_tables_only(db: &EngineConn, q: &Query, schema: Option<&str>) -> bool {
    let SetExpr::Select(s) = q.body.as_ref() else {
        return false;
    };
    let views = &db.engine().views;
    let table = |f: &TableFactor| match f {
        TableFactor::Table {
            name, args: None, ..
        } => {
            views.is_empty()
                || crate::rewrite::table_name(name, schema)
                    .is_ok_and(|(s, t)| views.get(&s, &t).is_none())
        }
        _ => false,
    };
    let Select { from, .. } = s.as_ref();
    from.iter()
        .all(|t| table(&t.relation) && t.joins.iter().all(|j| table(&j.relation)))
}
