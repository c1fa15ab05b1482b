//! The INSERT values whose meaning depends on the table, read under the statement's locks.
//!
//! * MySQL's `AUTO_INCREMENT` column counts on NULL and on 0 alike: a row that gives it 0 gets
//!   the next value (`handler::update_auto_increment`, `sql/handler.cc`), unless the session's
//!   `sql_mode` has `NO_AUTO_VALUE_ON_ZERO` (`sql_mode.rs`, as dumps set it), and so does one
//!   that gives it `DEFAULT`. sysbench's `oltp_insert` inserts 0 into `id` for each row. SQLite counts on NULL
//!   only and stores a 0 as given (the column is the table's rowid: `catalog.rs`), so such a
//!   value becomes NULL: a literal 0 (or `'0'`) at once, any other expression (a `?`, a
//!   function) `NULLIF(expr, 0)`.
//! * `DEFAULT` for any other column is the column's default in MySQL; SQLite has no `DEFAULT`
//!   in `VALUES`, and gives a column its default when the column list leaves it out: a column
//!   whose value is `DEFAULT` in every row leaves the list (and a row of defaults, `VALUES ()`,
//!   is a NULL rowid, which SQLite counts). A `DEFAULT` for a column in some rows only, in
//!   `ON DUPLICATE KEY UPDATE`, and a `DEFAULT(c)` call are the column's default spelt out
//!   (`default_values.rs`).
//! * A fractional number literal is spelt as its column stores it (`insert_literals.rs`): a
//!   `DECIMAL(p,s)` column's rounded to `s` digits, a string column's as MySQL's text of it.
//!
//! `INSERT ... SELECT` counts its query's NULLs and 0s in that column the same way, and sets
//! the statement's first generated id as `LAST_INSERT_ID()` (`insert_select.rs`).
//!
//! The rewrite (`rewrite.rs`) is a function of the statement alone, made before the locks, so
//! these values are changed on the statement's MySQL form after the locks are taken (the table
//! cannot change then), and only then is it rewritten again; a statement with no such value is
//! not rewritten again, and a prepared one keeps what it found while its schema is unchanged.

use std::sync::Arc;

use sqlparser::ast::{
    AssignmentTarget, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList,
    FunctionArguments, Ident, Insert, ObjectName, ObjectNamePart, OnInsert, SetExpr, Statement,
    TableObject, Value,
};

use mdl_sql::SessionState;

use crate::catalog::{self, Column};
use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::memo::Memo;
use crate::rewrite::Rewritten;
use crate::sql_mode::SqlMode;

use super::{default_values, insert_literals};

/// The rewrite to run for `s` in `db` (`state`, `mode`: the session's state, its schema and
/// temporary tables, and `sql_mode`; `base`: the rewrite made before the locks): one made by `write` with its
/// table-dependent values spelt for SQLite
/// (see the module docs), or `base` if it has none or is not an INSERT of a table of this
/// server's schemas (the engine reports a table that does not exist). A prepared statement's
/// `memo` keeps it for the next execution while the schema is unchanged: reading the table
/// costs more than the INSERT. An INSERT ... SELECT is `insert_select.rs`'s.
///
/// # Errors
/// 1235 for `DEFAULT` in some rows only; SQLite errors reading the catalog; `write`'s.
pub(super) fn rewrite(
    (db, s, state, mode): (&mut EngineConn, &Statement, &SessionState, SqlMode),
    base: Option<Arc<Rewritten>>,
    memo: Option<&mut Memo>,
    write: &dyn Fn(&Statement) -> Result<Rewritten, ServerError>,
) -> Result<Option<Arc<Rewritten>>, ServerError> {
    let Some((ins, schema, table)) = target(db, s, state.current_schema.as_deref()) else {
        return Ok(base);
    };
    // Only a kept rewrite needs the schema's version: a text statement reads the table anyway.
    // An INSERT ... SELECT's is the server's DDL epoch (`insert_select.rs`), read without SQLite.
    let kept_by = match (memo, &base) {
        (Some(m), Some(b)) if super::insert_select::applies(ins) => {
            Some((m, b, (super::insert_select::epoch(), mode)))
        }
        (Some(m), Some(b)) => Some((m, b, (schema_version(db, &schema)?, mode))),
        _ => None,
    };
    let kept = (kept_by.as_ref()).and_then(|(m, b, version)| m.resolved(b, *version));
    let resolved = match (kept, &base) {
        (Some(kept), _) => kept,
        // Made from `base`'s text, not rewritten again (`insert_select.rs`).
        (None, Some(b)) if super::insert_select::applies(ins) => {
            let into = (schema.as_str(), table.as_str(), state);
            let counts_zero = !mode.no_auto_value_on_zero;
            super::insert_select::resolve(db, b, ins, into, counts_zero)?.map(Arc::new)
        }
        (None, _) => match resolve(db, ins, (&schema, &table), mode)? {
            Some(s) => Some(Arc::new(write(&s)?)),
            None => None,
        },
    };
    if let Some((m, b, version)) = kept_by {
        m.keep_resolved(b, version, resolved.clone());
    }
    Ok(resolved.or(base))
}

/// The INSERT `s`, and its table's `(schema, table)`, if it is one of a schema of this server
/// with values that may depend on the table.
fn target<'a>(
    db: &EngineConn,
    s: &'a Statement,
    current: Option<&str>,
) -> Option<(&'a Insert, String, String)> {
    let Statement::Insert(ins) = s else {
        return None;
    };
    let TableObject::TableName(name) = &ins.table else {
        return None;
    };
    if !mentions_table_values(ins) && !super::insert_select::applies(ins) {
        return None;
    }
    let (schema, table) = crate::rewrite::table_name(name, current).ok()?;
    let schema = schema.to_ascii_lowercase();
    db.engine()
        .has_schema(&schema)
        .then_some((ins, schema, table))
}

/// SQLite's schema version of `schema`: any change of its tables moves it.
fn schema_version(db: &mut EngineConn, schema: &str) -> Result<i64, ServerError> {
    let sql = format!("PRAGMA {}.schema_version", crate::engine::quote(schema));
    let engine_err = |e: rusqlite::Error| ServerError::from_engine(&e, None);
    let mut st = db.db().prepare_cached(&sql).map_err(engine_err)?;
    st.query_row([], |r| r.get(0)).map_err(engine_err)
}

/// `ins` with its table-dependent values spelt for SQLite, `None` if it has none (see
/// [`rewrite`]).
fn resolve(
    db: &mut EngineConn,
    ins: &Insert,
    (schema, table): (&str, &str),
    mode: SqlMode,
) -> Result<Option<Statement>, ServerError> {
    let counts_zero = !mode.no_auto_value_on_zero;
    let cols = catalog::columns(db, schema, table)?;
    if cols.is_empty() {
        // No such table: its `DEFAULT`s would reach the engine as SQLite cannot read them.
        return Err(ServerError::no_such_table(schema, table));
    }
    let mut ins = ins.clone();
    let tables = [(table.to_string(), cols)];
    let cols = &tables[0].1;
    let mut changed = if ins.assignments.is_empty() {
        values(&mut ins, cols, counts_zero)?
    } else {
        assignments(&mut ins, cols, counts_zero)
    };
    for e in value_exprs(&mut ins) {
        changed |= default_values::calls(e, &tables)?;
    }
    if let Some(OnInsert::DuplicateKeyUpdate(a)) = &mut ins.on {
        changed |= default_values::assignments(a, &tables)?;
    }
    Ok(changed.then_some(Statement::Insert(ins)))
}

/// Whether a value of `ins` may need the table: any `?` or expression in a VALUES row or SET
/// list, a 0, a fractional number or `DEFAULT` (a statement of other literals only skips the
/// catalog).
fn mentions_table_values(ins: &Insert) -> bool {
    // A fractional number depends on its column too (`insert_literals.rs`).
    let literal = |v: &Value| !is_zero(v) && !insert_literals::is_fractional(v);
    let plain = |e: &Expr| match e {
        Expr::Value(v) => !matches!(&v.value, Value::Placeholder(_)) && literal(&v.value),
        Expr::UnaryOp { expr, .. } => matches!(expr.as_ref(), Expr::Value(v) if literal(&v.value)),
        _ => false,
    };
    if let Some(OnInsert::DuplicateKeyUpdate(a)) = &ins.on {
        if default_values::any_in(a.iter().map(|a| &a.value)) {
            return true;
        }
    }
    if !ins.assignments.is_empty() {
        return ins.assignments.iter().any(|a| !plain(&a.value));
    }
    match ins.source.as_deref().map(|q| q.body.as_ref()) {
        Some(SetExpr::Values(v)) => v
            .rows
            .iter()
            .any(|r| r.is_empty() || r.iter().any(|e| !plain(e))),
        _ => false,
    }
}

/// The VALUES rows of `ins`: the counted column's values and the `DEFAULT`s (see the module
/// docs). Whether anything changed.
fn values(ins: &mut Insert, cols: &[Column], counts_zero: bool) -> Result<bool, ServerError> {
    let Some(SetExpr::Values(v)) = ins.source.as_deref_mut().map(|q| q.body.as_mut()) else {
        return Ok(false);
    };
    if ins.columns.is_empty() && v.rows.iter().all(|r| r.is_empty()) {
        // `INSERT INTO t () VALUES (), ()`: rows of defaults, which SQLite makes from a NULL
        // rowid (the counted column, where the table has one).
        ins.columns = vec![ObjectName(vec![ObjectNamePart::Identifier(Ident::new(
            crate::engine::ROWID,
        ))])];
        v.rows.iter_mut().for_each(|r| r.push(null()));
        return Ok(true);
    }
    // The columns the rows give, in order: the list's, or the table's.
    let names: Vec<String> = if ins.columns.is_empty() {
        cols.iter().map(|c| c.name.clone()).collect()
    } else {
        ins.columns.iter().map(column_name).collect()
    };
    let counted = cols.iter().find(|c| c.auto_increment);
    let counted_at = counted.and_then(|c| position(&names, &c.name));
    let mut changed = false;
    let decls: Vec<Option<&str>> = (names.iter())
        .map(|n| (cols.iter().find(|c| c.name.eq_ignore_ascii_case(n))).map(|c| &*c.decl_type))
        .collect();
    for row in &mut v.rows {
        if let Some(e) = counted_at.and_then(|k| row.get_mut(k)) {
            changed |= count(e, counts_zero);
        }
        for (e, decl) in row.iter_mut().zip(&decls) {
            changed |= decl.is_some_and(|d| insert_literals::spell(e, d));
        }
    }
    // Columns whose value is `DEFAULT` leave the list, and their values the rows.
    let width = names.len();
    let rows_of_width = v.rows.iter().all(|r| r.len() == width);
    let defaults: Vec<usize> = (0..width)
        .filter(|&k| v.rows.iter().any(|r| r.get(k).is_some_and(is_default)))
        .collect();
    if defaults.is_empty() || !rows_of_width {
        return Ok(changed);
    }
    // A column `DEFAULT` in some rows only gets its default spelt out in those.
    let (some, defaults): (Vec<usize>, Vec<usize>) =
        (defaults.into_iter()).partition(|&k| !v.rows.iter().all(|r| is_default(&r[k])));
    for k in some {
        let Some(c) = cols.iter().find(|c| c.name.eq_ignore_ascii_case(&names[k])) else {
            continue; // the engine reports the column
        };
        let value = default_values::value_of(c)?;
        for e in v
            .rows
            .iter_mut()
            .map(|r| &mut r[k])
            .filter(|e| is_default(e))
        {
            *e = value.clone();
        }
        changed = true;
    }
    if defaults.is_empty() {
        return Ok(changed);
    }
    for r in &mut v.rows {
        let mut k = 0;
        r.retain(|_| {
            k += 1;
            !defaults.contains(&(k - 1))
        });
    }
    let kept: Vec<ObjectName> = (names.iter().enumerate())
        .filter(|(k, _)| !defaults.contains(k))
        .map(|(_, n)| ObjectName(vec![ObjectNamePart::Identifier(Ident::new(n))]))
        .collect();
    ins.columns = kept;
    if ins.columns.is_empty() {
        return values(ins, cols, counts_zero); // rows of defaults, as `VALUES ()`
    }
    Ok(true)
}

/// `INSERT ... SET col = value, ...`: the counted column's value, and `DEFAULT`s, which leave.
fn assignments(ins: &mut Insert, cols: &[Column], counts_zero: bool) -> bool {
    let counted = cols.iter().find(|c| c.auto_increment);
    let mut changed = false;
    ins.assignments.retain_mut(|a| {
        let AssignmentTarget::ColumnName(n) = &a.target else {
            return true;
        };
        let name = column_name(n);
        if let Some(c) = cols.iter().find(|c| c.name.eq_ignore_ascii_case(&name)) {
            changed |= insert_literals::spell(&mut a.value, &c.decl_type);
        }
        if counted.is_some_and(|c| c.name.eq_ignore_ascii_case(&name)) {
            changed |= count(&mut a.value, counts_zero);
            true
        } else if is_default(&a.value) {
            changed = true;
            false
        } else {
            true
        }
    });
    changed
}

/// The counted column's value `e` made to count where MySQL's would (on 0 too if
/// `counts_zero`); whether it changed.
fn count(e: &mut Expr, counts_zero: bool) -> bool {
    match e {
        _ if is_default(e) => {
            *e = null();
            true
        }
        _ if !counts_zero => false,
        Expr::Value(v) if matches!(v.value, Value::Null) => false,
        Expr::Value(v) if is_zero(&v.value) => {
            *e = null();
            true
        }
        Expr::Value(v) if !matches!(v.value, Value::Placeholder(_)) => false,
        _ => {
            let value = std::mem::replace(e, null());
            *e = nullif_zero(value);
            true
        }
    }
}

/// A literal MySQL reads as 0 here: `0`, `0.0`, `'0'`.
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Number(n, _) => n.parse::<f64>().is_ok_and(|x| x == 0.0),
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
            s.trim().parse::<f64>().is_ok_and(|x| x == 0.0)
        }
        _ => false,
    }
}

use default_values::is_keyword as is_default;

/// The values of `ins`'s VALUES rows or SET list.
fn value_exprs(ins: &mut Insert) -> Box<dyn Iterator<Item = &mut Expr> + '_> {
    if !ins.assignments.is_empty() {
        return Box::new(ins.assignments.iter_mut().map(|a| &mut a.value));
    }
    match ins.source.as_deref_mut().map(|q| q.body.as_mut()) {
        Some(SetExpr::Values(v)) => Box::new(v.rows.iter_mut().flat_map(|r| r.content.iter_mut())),
        _ => Box::new(std::iter::empty()),
    }
}

fn null() -> Expr {
    Expr::Value(Value::Null.into())
}

/// `NULLIF(e, 0)`.
fn nullif_zero(e: Expr) -> Expr {
    let arg = |e: Expr| FunctionArg::Unnamed(FunctionArgExpr::Expr(e));
    Expr::Function(Function {
        name: ObjectName(vec![ObjectNamePart::Identifier(Ident::new("NULLIF"))]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![
                arg(e),
                arg(Expr::Value(Value::Number("0".into(), false).into())),
            ],
            clauses: Vec::new(),
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    })
}

/// A column list entry's name (its last part: `t.col` is `col`).
fn column_name(n: &ObjectName) -> String {
    match n.0.last() {
        Some(ObjectNamePart::Identifier(i)) => i.value.clone(),
        _ => n.to_string(),
    }
}

fn position(names: &[String], name: &str) -> Option<usize> {
    names.iter().position(|n| n.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insert(sql: &str) -> Insert {
        match mdl_sql::parse_prepared(sql).unwrap().remove(0).statement {
            mdl_sql::Statement::Sql { statement, .. } => match *statement {
                Statement::Insert(i) => i,
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    fn cols() -> Vec<Column> {
        let col = |name: &str, position, auto_increment| Column {
            name: name.into(),
            position,
            decl_type: if auto_increment { "INTEGER" } else { "int" }.into(),
            not_null: auto_increment,
            default: None,
            pk: i64::from(auto_increment),
            auto_increment,
            on_update: None,
        };
        vec![col("id", 1, true), col("v", 2, false), col("w", 3, false)]
    }

    fn resolved(sql: &str) -> Result<String, ServerError> {
        let mut ins = insert(sql);
        if ins.assignments.is_empty() {
            values(&mut ins, &cols(), true)?;
        } else {
            assignments(&mut ins, &cols(), true);
        }
        Ok(Statement::Insert(ins).to_string())
    }

    #[test]
    fn zero_and_default_in_the_counted_column_count() {
        assert_eq!(
            resolved("INSERT INTO t VALUES (0, 1, 2), ('0', 3, 4), (5, 6, 7)").unwrap(),
            "INSERT INTO t VALUES (NULL, 1, 2), (NULL, 3, 4), (5, 6, 7)"
        );
        assert_eq!(
            resolved("INSERT INTO t (v, ID) VALUES (1, ?), (2, DEFAULT)").unwrap(),
            "INSERT INTO t (v, ID) VALUES (1, NULLIF(?, 0)), (2, NULL)"
        );
        assert_eq!(
            resolved("INSERT INTO t SET v = 1, id = 0").unwrap(),
            "INSERT INTO t SET v = 1, id = NULL"
        );
    }

    #[test]
    fn default_elsewhere_leaves_the_column_list() {
        assert_eq!(
            resolved("INSERT INTO t VALUES (1, DEFAULT, 3), (2, DEFAULT, 4)").unwrap(),
            "INSERT INTO t (id, w) VALUES (1, 3), (2, 4)"
        );
        assert_eq!(
            resolved("INSERT INTO t (v, w) VALUES (DEFAULT, DEFAULT), (DEFAULT, DEFAULT)").unwrap(),
            "INSERT INTO t (_rowid_) VALUES (NULL), (NULL)"
        );
        assert_eq!(
            resolved("INSERT INTO t () VALUES ()").unwrap(),
            "INSERT INTO t (_rowid_) VALUES (NULL)"
        );
        assert_eq!(
            resolved("INSERT INTO t SET v = DEFAULT, w = 2").unwrap(),
            "INSERT INTO t SET w = 2"
        );
        // In some rows only: the column's default (none here) spelt out.
        assert_eq!(
            resolved("INSERT INTO t (v, w) VALUES (DEFAULT, 1), (2, DEFAULT)").unwrap(),
            "INSERT INTO t (v, w) VALUES (NULL, 1), (2, NULL)"
        );
    }

    #[test]
    fn other_values_are_left_alone() {
        let sql = "INSERT INTO t (v, w) VALUES (0, ?)";
        assert_eq!(resolved(sql).unwrap(), sql);
        assert!(!mentions_table_values(&insert(
            "INSERT INTO t VALUES (1, 'a', -2)"
        )));
        assert!(mentions_table_values(&insert(
            "INSERT INTO t VALUES (1, ?)"
        )));
    }
}
