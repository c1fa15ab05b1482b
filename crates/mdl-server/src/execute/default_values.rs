//! `DEFAULT` where SQLite has none: a column's default as a value.
//!
//! MySQL takes the keyword `DEFAULT` as the whole value of a column in `UPDATE ... SET c =
//! DEFAULT`, in `INSERT ... ON DUPLICATE KEY UPDATE c = DEFAULT` and in any row of an INSERT's
//! `VALUES` (`expr_or_default`, `sql/sql_yacc.yy`), and `DEFAULT(c)` as an expression in the
//! INSERT's or UPDATE's values (`Item_default_value`, `sql/item.cc`). SQLite knows a default
//! only as what a column left out of an INSERT gets. So such a value becomes the column's
//! default as `SHOW CREATE TABLE` writes it (`show_table.rs`), which the rewrite then spells
//! for SQLite as it does the statement's own values: a string, an expression
//! (`CURRENT_TIMESTAMP`, `(expr)`), or NULL for a column without one (a `NOT NULL` column
//! without a default then fails: `no_default` makes the engine's 1048 MySQL's 1364).
//!
//! An INSERT whose value is `DEFAULT` in every row leaves the column out instead
//! (`insert_values.rs`), and its counted column's `DEFAULT` counts; this module serves the
//! rest. The substitution is made under the statement's locks (the table cannot change), on
//! the statement's MySQL form, as `insert_values.rs`'s are.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Assignment, AssignmentTarget, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident,
    ObjectName, ObjectNamePart, SetExpr, Statement, TableFactor, Update, Value, VisitMut,
    VisitorMut,
};

use crate::catalog::{self, Column};
use crate::engine::EngineConn;
use crate::error::ServerError;

/// Whether `text` (a statement's) may hold a `DEFAULT` value: a cheap test that keeps every
/// statement without the word from reading the catalog.
pub(super) fn mentioned(text: &str) -> bool {
    text.as_bytes()
        .windows(7)
        .any(|w| w.eq_ignore_ascii_case(b"DEFAULT"))
}

/// Column `c`'s default as a MySQL value (see the module docs).
pub(super) fn value_of(c: &Column) -> Result<Expr, ServerError> {
    match &c.default {
        None => Ok(Expr::Value(Value::Null.into())),
        Some(d) if crate::show_table::is_default_expression(d) => {
            let dialect = sqlparser::dialect::MySqlDialect {};
            (sqlparser::parser::Parser::new(&dialect).try_with_sql(d))
                .and_then(|mut p| p.parse_expr())
                .map(|e| Expr::Nested(Box::new(e)))
                .map_err(|_| ServerError::parse(d))
        }
        Some(d) => Ok(Expr::Value(Value::SingleQuotedString(d.clone()).into())),
    }
}

/// `ER_NO_DEFAULT_FOR_FIELD` (1364) in place of the engine's NOT NULL violation `e` (1048)
/// when the statement gave the column no value of its own: an INSERT's column list or `SET`
/// that leaves it out, `VALUES ()`, or `DEFAULT` as its value in every row or in an UPDATE's
/// `SET`. MySQL's strict mode checks the columns left out before it writes
/// (`check_that_all_fields_are_given_values`, `sql/sql_insert.cc`) and a `DEFAULT` of a column
/// without one as it stores it (`Item_default_value::save_in_field`, `sql/item.cc`); SQLite
/// reports both as the NULL it stored. An explicit NULL stays 1048, as in MySQL.
pub(super) fn no_default(s: &Statement, e: ServerError) -> ServerError {
    let column =
        (e.message.strip_prefix("Column '")).and_then(|m| m.strip_suffix("' cannot be null"));
    let Some(column) = column.filter(|_| e.code == 1048) else {
        return e;
    };
    let is = |n: &ObjectName| last(n).eq_ignore_ascii_case(column);
    let assigned = |a: &[Assignment], default_only: bool| {
        let value = a.iter().find_map(|a| match &a.target {
            AssignmentTarget::ColumnName(n) if is(n) => Some(&a.value),
            _ => None,
        });
        match value {
            None => !default_only,
            Some(v) => is_keyword(v),
        }
    };
    let no_value = match s {
        Statement::Insert(ins) if !ins.assignments.is_empty() => assigned(&ins.assignments, false),
        Statement::Insert(ins) => {
            let rows = match ins.source.as_deref().map(|q| q.body.as_ref()) {
                Some(SetExpr::Values(v)) => Some(&v.rows),
                _ => None,
            };
            match ins.columns.iter().position(is) {
                // Positional values name no column: only `VALUES ()` is known to give none.
                None if ins.columns.is_empty() => {
                    rows.is_some_and(|r| r.iter().all(|r| r.is_empty()))
                }
                None => true,
                Some(k) => rows.is_some_and(|r| r.iter().all(|r| r.get(k).is_some_and(is_keyword))),
            }
        }
        Statement::Update(u) => assigned(&u.assignments, true),
        _ => false,
    };
    if !no_value {
        return e;
    }
    ServerError::new(
        1364,
        "HY000",
        format!("Field '{column}' doesn't have a default value"),
    )
}

/// Whether `e` is the keyword `DEFAULT` as a value (sqlparser reads it as a name).
pub(super) fn is_keyword(e: &Expr) -> bool {
    matches!(e, Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT"))
}

/// The UPDATE `s` with its `DEFAULT` values made its columns' defaults (see the module docs),
/// `None` if it has none or names no table this server can read (the engine reports it).
///
/// # Errors
/// SQLite errors reading the catalog; [`column`]'s.
pub(super) fn update(
    db: &mut EngineConn,
    s: &Statement,
    current: Option<&str>,
) -> Result<Option<Statement>, ServerError> {
    let Statement::Update(u) = s else {
        return Ok(None);
    };
    // The tables the statement names, with their aliases.
    let mut tables: Vec<(String, Vec<Column>)> = Vec::new();
    let factors =
        std::iter::once(&u.table.relation).chain(u.table.joins.iter().map(|j| &j.relation));
    for f in factors {
        let TableFactor::Table { name, alias, .. } = f else {
            continue;
        };
        let Ok((schema, table)) = crate::temporary::located_name(db, name, current) else {
            continue;
        };
        let cols = catalog::columns(db, &schema, &table)?;
        let called = alias
            .as_ref()
            .map_or_else(|| last(name), |a| a.name.value.clone());
        tables.push((called, cols));
    }
    if tables.is_empty() {
        return Ok(None);
    }
    let mut u: Update = u.clone();
    let changed = assignments(&mut u.assignments, &tables)?;
    Ok(changed.then_some(Statement::Update(u)))
}

/// `DEFAULT(c)` calls in `e` made `c`'s default, `c` a column of `tables`; whether any was.
pub(super) fn calls(e: &mut Expr, tables: &[(String, Vec<Column>)]) -> Result<bool, ServerError> {
    let mut v = Calls {
        tables,
        changed: false,
        error: None,
    };
    let _ = e.visit(&mut v);
    match v.error {
        Some(e) => Err(e),
        None => Ok(v.changed),
    }
}

/// The `DEFAULT` values and `DEFAULT(c)` calls of `assignments` made their columns' defaults;
/// whether any was.
pub(super) fn assignments(
    assignments: &mut [Assignment],
    tables: &[(String, Vec<Column>)],
) -> Result<bool, ServerError> {
    let mut changed = false;
    for a in assignments {
        let AssignmentTarget::ColumnName(target) = &a.target else {
            continue;
        };
        if is_keyword(&a.value) {
            a.value = value_of(column(tables, target)?)?;
            changed = true;
        } else {
            changed |= calls(&mut a.value, tables)?;
        }
    }
    Ok(changed)
}

/// Whether any of `exprs` is `DEFAULT` or calls `DEFAULT(c)`.
pub(super) fn any_in<'a>(mut exprs: impl Iterator<Item = &'a Expr>) -> bool {
    exprs.any(|e| {
        is_keyword(e)
            || sqlparser::ast::visit_expressions(e, |e| match e {
                Expr::Function(f) if last(&f.name).eq_ignore_ascii_case("DEFAULT") => {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            })
            .is_break()
    })
}

/// Replaces `DEFAULT(c)` calls.
struct Calls<'a> {
    tables: &'a [(String, Vec<Column>)],
    changed: bool,
    error: Option<ServerError>,
}

impl VisitorMut for Calls<'_> {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let Expr::Function(f) = e else {
            return ControlFlow::Continue(());
        };
        if !last(&f.name).eq_ignore_ascii_case("DEFAULT") || f.name.0.len() != 1 {
            return ControlFlow::Continue(());
        }
        let FunctionArguments::List(l) = &f.args else {
            return ControlFlow::Continue(());
        };
        let name = match l.args.as_slice() {
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(i)))] => {
                ObjectName(vec![ObjectNamePart::Identifier(i.clone())])
            }
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::CompoundIdentifier(p)))] => {
                ObjectName(p.iter().cloned().map(ObjectNamePart::Identifier).collect())
            }
            _ => return ControlFlow::Continue(()),
        };
        match column(self.tables, &name).and_then(value_of) {
            Ok(v) => {
                *e = v;
                self.changed = true;
            }
            Err(err) => _ = self.error.get_or_insert(err),
        }
        ControlFlow::Continue(())
    }
}

/// The column `target` (`c`, or `t.c` with `t` a table's name or alias) of `tables`.
///
/// # Errors
/// 1054 for a column of none of them, 1052 for an unqualified column of several
/// (`find_field_in_tables`, `sql/sql_base.cc`).
pub(super) fn column<'a>(
    tables: &'a [(String, Vec<Column>)],
    target: &ObjectName,
) -> Result<&'a Column, ServerError> {
    let parts: Vec<&Ident> = (target.0.iter())
        .filter_map(|p| match p {
            ObjectNamePart::Identifier(i) => Some(i),
            _ => None,
        })
        .collect();
    let (qualifier, name) = match parts.as_slice() {
        [.., t, c] => (Some(&t.value), c.value.as_str()),
        [c] => (None, c.value.as_str()),
        [] => return Err(ServerError::parse(&target.to_string())),
    };
    let mut found = (tables.iter())
        .filter(|(called, _)| qualifier.is_none_or(|q| q.eq_ignore_ascii_case(called)))
        .filter_map(|(_, cols)| cols.iter().find(|c| c.name.eq_ignore_ascii_case(name)));
    let unknown = || {
        let message = format!("Unknown column '{target}' in 'field list'");
        ServerError::new(1054, "42S22", message)
    };
    let first = found.next().ok_or_else(unknown)?;
    match found.next() {
        None => Ok(first),
        Some(_) => Err(ServerError::new(
            1052,
            "23000",
            format!("Column '{name}' in field list is ambiguous"),
        )),
    }
}

fn last(n: &ObjectName) -> String {
    match n.0.last() {
        Some(ObjectNamePart::Identifier(i)) => i.value.clone(),
        _ => n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(name: &str, default: Option<&str>) -> Column {
        Column {
            name: name.into(),
            position: 1,
            decl_type: "int".into(),
            not_null: false,
            default: default.map(str::to_string),
            pk: 0,
            auto_increment: false,
            on_update: None,
        }
    }

    #[test]
    fn defaults_read_as_show_create_table_writes_them() {
        let text = |c: &Column| value_of(c).unwrap().to_string();
        assert_eq!(text(&col("a", None)), "NULL");
        assert_eq!(text(&col("a", Some("it's"))), "'it''s'");
        assert_eq!(text(&col("a", Some("7"))), "'7'");
        assert_eq!(
            text(&col("a", Some("CURRENT_TIMESTAMP"))),
            "(CURRENT_TIMESTAMP)"
        );
        assert_eq!(text(&col("a", Some("(1 + 2)"))), "((1 + 2))");
    }

    #[test]
    fn a_column_is_found_by_its_table_or_alone() {
        let tables = vec![
            ("t".to_string(), vec![col("a", None), col("b", None)]),
            ("u".to_string(), vec![col("a", None), col("c", None)]),
        ];
        let name = |s: &str| {
            ObjectName(
                s.split('.')
                    .map(|p| ObjectNamePart::Identifier(Ident::new(p)))
                    .collect(),
            )
        };
        let found = |n: &str| column(&tables, &name(n)).map(|c| c.name.clone());
        assert_eq!(found("b").unwrap(), "b");
        assert_eq!(found("U.c").unwrap(), "c");
        assert_eq!(found("a").unwrap_err().code, 1052);
        assert_eq!(found("t.c").unwrap_err().code, 1054);
    }

    #[test]
    fn the_word_is_looked_for_in_any_case() {
        assert!(mentioned("update t set a = Default"));
        assert!(!mentioned("UPDATE sbtest1 SET k=k+1 WHERE id=?"));
    }
}
