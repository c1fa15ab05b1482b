//! A view's `*` is frozen when the view is made: MySQL stores the view's select with every `*`
//! and `t.*` replaced by the columns they stood for then (`mysql_create_view` keeps the
//! resolved query as printed, `sql/sql_view.cc`; the manual's CREATE VIEW: "if a view is
//! defined as SELECT * on a table, new columns added to the table later do not become part of
//! the view, and columns dropped from the table result in an error when selecting from the
//! view"). SQLite keeps the `*` and reads it anew at each use, so without this a view grew
//! with its table's new columns and lost dropped ones without a word.
//!
//! The outer query blocks of the view's select (each side of a `UNION`, and so on) are
//! expanded when all their sources are tables or views of the catalog joined without `USING`
//! or `NATURAL` (whose `*` merges the joined columns): `*` becomes every source's columns in
//! the order of the `FROM` clause, `t.*` the columns of `t`, each written `` `t`.`c` ``. A block
//! with another source (a derived table, a common table expression, a table function) keeps
//! its `*`, as before.

use std::collections::HashSet;

use sqlparser::ast::{
    Expr, Ident, JoinConstraint, JoinOperator, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, TableFactor, WildcardAdditionalOptions,
};

use crate::engine::EngineConn;
use crate::error::ServerError;

/// Replaces the `*`s of `query`'s outer blocks (see the module docs); `schema` is where the
/// view's unqualified names are.
///
/// # Errors
/// SQLite errors while reading the catalog.
pub(super) fn freeze(
    db: &mut EngineConn,
    schema: &str,
    query: &mut Query,
) -> Result<(), ServerError> {
    let mut ctes = HashSet::new();
    if let Some(with) = &query.with {
        ctes.extend(
            with.cte_tables
                .iter()
                .map(|c| c.alias.name.value.to_lowercase()),
        );
    }
    set_expr(db, schema, &ctes, &mut query.body)
}

fn set_expr(
    db: &mut EngineConn,
    schema: &str,
    ctes: &HashSet<String>,
    body: &mut SetExpr,
) -> Result<(), ServerError> {
    match body {
        SetExpr::Select(s) => select(db, schema, ctes, s),
        SetExpr::Query(q) => freeze(db, schema, q),
        SetExpr::SetOperation { left, right, .. } => {
            set_expr(db, schema, ctes, left)?;
            set_expr(db, schema, ctes, right)
        }
        _ => Ok(()),
    }
}

/// A source of a block: the name its columns are qualified with, and those columns.
struct Source {
    qualifier: String,
    columns: Vec<String>,
}

fn select(
    db: &mut EngineConn,
    schema: &str,
    ctes: &HashSet<String>,
    s: &mut Select,
) -> Result<(), ServerError> {
    let stars = |i: &SelectItem| {
        matches!(
            i,
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
        )
    };
    if !s.projection.iter().any(stars) {
        return Ok(());
    }
    let Some(sources) = sources(db, schema, ctes, s)? else {
        return Ok(());
    };
    let mut items = Vec::with_capacity(s.projection.len());
    for item in s.projection.drain(..) {
        let wanted: Vec<&Source> = match &item {
            SelectItem::Wildcard(o) if plain(o) => sources.iter().collect(),
            SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::ObjectName(n), o)
                if plain(o) =>
            {
                let last = n.0.last().and_then(|p| p.as_ident()).map(|i| &i.value);
                (sources.iter())
                    .filter(|src| last.is_some_and(|l| l.eq_ignore_ascii_case(&src.qualifier)))
                    .collect()
            }
            _ => Vec::new(),
        };
        if wanted.is_empty() {
            items.push(item);
            continue;
        }
        for src in wanted {
            for c in &src.columns {
                items.push(SelectItem::UnnamedExpr(Expr::CompoundIdentifier(vec![
                    Ident::with_quote('`', &src.qualifier),
                    Ident::with_quote('`', c),
                ])));
            }
        }
    }
    s.projection = items;
    Ok(())
}

/// A `*` of MySQL's: none of the other dialects' `EXCLUDE`, `EXCEPT`, `REPLACE`, ...
fn plain(o: &WildcardAdditionalOptions) -> bool {
    o.opt_ilike.is_none()
        && o.opt_exclude.is_none()
        && o.opt_except.is_none()
        && o.opt_replace.is_none()
        && o.opt_rename.is_none()
        && o.opt_alias.is_none()
}

/// The block's sources in `FROM` order, or `None` if one is not a table or view of the
/// catalog, or a join merges columns (`USING`, `NATURAL`).
fn sources(
    db: &mut EngineConn,
    schema: &str,
    ctes: &HashSet<String>,
    s: &Select,
) -> Result<Option<Vec<Source>>, ServerError> {
    let mut out = Vec::new();
    for from in &s.from {
        let joined = from
            .joins
            .iter()
            .map(|j| (&j.relation, Some(&j.join_operator)));
        for (factor, op) in std::iter::once((&from.relation, None)).chain(joined) {
            if op.is_some_and(merges_columns) {
                return Ok(None);
            }
            let TableFactor::Table {
                name, alias, args, ..
            } = factor
            else {
                return Ok(None);
            };
            if args.is_some() || alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
                return Ok(None);
            }
            let (table_schema, table) = crate::rewrite::object_parts(name);
            let in_schema = table_schema.is_empty() || table_schema.eq_ignore_ascii_case(schema);
            if !in_schema || ctes.contains(&table.to_lowercase()) {
                return Ok(None);
            }
            let columns: Vec<String> = crate::catalog::base_columns(db, schema, &table)?
                .into_iter()
                .map(|c| c.name)
                .collect();
            if columns.is_empty() {
                return Ok(None); // not there: the select's own check says so
            }
            let qualifier = alias.as_ref().map_or(table, |a| a.name.value.clone());
            out.push(Source { qualifier, columns });
        }
    }
    Ok(Some(out))
}

fn merges_columns(op: &JoinOperator) -> bool {
    use JoinOperator as J;
    let c = match op {
        J::Join(c)
        | J::Inner(c)
        | J::Left(c)
        | J::LeftOuter(c)
        | J::Right(c)
        | J::RightOuter(c)
        | J::FullOuter(c)
        | J::CrossJoin(c)
        | J::StraightJoin(c) => c,
        _ => return true, // none of MySQL's
    };
    matches!(
        c,
        JoinConstraint::Using(_) | JoinConstraint::UsingAlias(..) | JoinConstraint::Natural
    )
}
