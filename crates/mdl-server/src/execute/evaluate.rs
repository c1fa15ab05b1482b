//! Expressions that read no row, evaluated by the engine for what needs their values before
//! (or instead of) the statement's own run: the arguments of user-level lock calls, which
//! `mdl-sql` plans from literals (`lock_args.rs`), and the connection id of `KILL expr`.
//!
//! They are one `SELECT e1, e2, ...` rewritten as any statement (`rewrite.rs`: `@name`,
//! `@@name`, `DATABASE()`, `CONNECTION_ID()` become their values, MySQL's functions SQLite's)
//! and run by the engine: no second evaluator.
//!
//! `KILL expr` (`sql/sql_parse.cc`, `SQLCOM_KILL`): a subquery is 1235 (the plan's,
//! `lex->table_or_sp_used()`); a row value is 1241 (`check_cols(1)`, whose error comes before
//! the `ER_SET_CONSTANTS_ONLY` MySQL raises after it, and is the one its client sees, as a
//! column's 1054 from `fix_fields` is); the value is `val_int()`: NULL is 0, a number rounds, a
//! string is read as `strtoll10` reads it (leading spaces, a sign, digits), with 1292
//! "Truncated incorrect INTEGER value" as a warning when more follows; it is cast to
//! `my_thread_id` (32 bits), and an id no connection has is 1094 (`sql_kill`).

use std::sync::Arc;

use sqlparser::ast::{Expr, KillType, SelectItem, SetExpr, Statement};

use super::rewrite_in;
use crate::connection::Connection;
use crate::diagnostics::{Condition, Level};
use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::server::Shared;
use crate::session_values::SessionValues;
use crate::wire::{Cell, Output};

impl Connection {
    /// The plan of `p` after its user-level lock calls' arguments that read no row were
    /// evaluated and bound (`lock_args.rs`): called when planning `p` refused it.
    pub(super) fn plan_evaluated(
        &mut self,
        p: &mdl_sql::Parsed,
    ) -> Result<Arc<mdl_sql::Plan>, mdl_sql::SqlError> {
        let Connection {
            shared,
            values,
            session,
            db,
            ..
        } = self;
        let eval = |exprs: Vec<Expr>| evaluate(shared, values, session, db, exprs, &[]);
        match crate::lock_args::bind_evaluated(p, eval) {
            Ok(bound) => session.plan(&bound).map(Arc::new),
            Err(e) => Err(mdl_sql::SqlError::new(e.code, e.sqlstate, e.message)),
        }
    }
}

/// The values of `exprs`, which read no row, in the session's state; `locks` are the
/// statement's user-level lock values (empty before its locks).
///
/// # Errors
/// The rewrite's and the engine's.
pub(super) fn evaluate(
    shared: &Arc<Shared>,
    values: &SessionValues,
    session: &mdl_sql::Session,
    db: &mut EngineConn,
    exprs: Vec<Expr>,
    locks: &[Option<i64>],
) -> Result<Vec<Cell>, ServerError> {
    let n = exprs.len();
    let select = select_of(exprs)?;
    let rw = rewrite_in(shared, values, session, &select, locks, None)?;
    let schema = session.state().current_schema.as_deref();
    let sql = rw.sql.first().map(String::as_str).unwrap_or("");
    let row = match db.run(sql, &[], schema)? {
        Output::Rows(r) => r.rows.into_iter().next(),
        Output::Done { .. } => None,
    };
    let mut row = row.unwrap_or_default();
    row.resize(n, Cell::Null);
    Ok(row)
}

/// `SELECT e1, e2, ...`: the projection of a parsed `SELECT 1`, which sqlparser's AST builds
/// with every field it has.
fn select_of(exprs: Vec<Expr>) -> Result<Statement, ServerError> {
    let mut parsed = mdl_sql::parse("SELECT 1")?;
    let mdl_sql::Statement::Sql { statement, .. } = parsed.remove(0).statement else {
        return Err(ServerError::parse("SELECT 1"));
    };
    let mut statement = *statement;
    if let Statement::Query(q) = &mut statement {
        if let SetExpr::Select(s) = q.body.as_mut() {
            s.projection = exprs.into_iter().map(SelectItem::UnnamedExpr).collect();
        }
    }
    Ok(statement)
}

/// `KILL [CONNECTION | QUERY] expr` (see the module docs), after the statement's user-level
/// lock calls (`locks`).
///
/// # Errors
/// 1241 for a row value, the evaluation's, 1094 for an id no connection has.
pub(super) fn kill(
    shared: &Arc<Shared>,
    values: &mut SessionValues,
    session: &mdl_sql::Session,
    db: &mut EngineConn,
    (query, id): (bool, &Expr),
    locks: &[Option<i64>],
) -> Result<Output, ServerError> {
    if matches!(id, Expr::Tuple(_)) {
        return Err(ServerError::new(
            1241,
            "21000",
            "Operand should contain 1 column(s)",
        ));
    }
    let value = evaluate(shared, values, session, db, vec![id.clone()], locks)?;
    let (n, truncated) = val_int(value.into_iter().next().unwrap_or(Cell::Null));
    if let Some(text) = truncated {
        values.diagnostics.raise(Condition {
            level: Level::Warning,
            code: 1292,
            sqlstate: "22007",
            message: format!("Truncated incorrect INTEGER value: '{text}'"),
        });
    }
    // `static_cast<my_thread_id>(it->val_int())`: the low 32 bits.
    let thread_id = u64::from(n as u32);
    crate::admin::kill(shared, query.then_some(KillType::Query), thread_id)
}

/// MySQL's `val_int()` of a value: NULL is 0, a real rounds half away from zero (saturating),
/// a string is its leading integer (`my_strtoll10`), with its text when more than trailing
/// spaces followed (the 1292 warning's).
fn val_int(c: Cell) -> (i64, Option<String>) {
    match c {
        Cell::Null => (0, None),
        Cell::Int(i) => (i, None),
        Cell::Real(r) => (r.round() as i64, None),
        Cell::Text(t) => string_int(&t),
        Cell::Blob(b) => string_int(&String::from_utf8_lossy(&b)),
    }
}

fn string_int(t: &str) -> (i64, Option<String>) {
    let s = t.trim_start_matches([' ', '\t', '\n', '\r']);
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    let mut n: i64 = 0;
    let mut overflow = false;
    for d in digits[..end].bytes() {
        match n
            .checked_mul(10)
            .and_then(|n| n.checked_add(i64::from(d - b'0')))
        {
            Some(v) => n = v,
            None => {
                overflow = true;
                n = i64::MAX;
            }
        }
    }
    let n = if negative { -n } else { n };
    let rest = digits[end..].trim_end_matches(' ');
    let truncated = end == 0 || overflow || !rest.is_empty();
    (n, truncated.then(|| t.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Item::val_int` of each kind of value (`longlong_from_string_with_check`,
    /// `sql/item.cc`, for strings).
    #[test]
    fn val_int_is_mysqls() {
        for (cell, n, warns) in [
            (Cell::Null, 0, false),
            (Cell::Int(7), 7, false),
            (Cell::Real(2.5), 3, false),
            (Cell::Real(-2.5), -3, false),
            (Cell::Text("12".into()), 12, false),
            (Cell::Text("  12  ".into()), 12, false),
            (Cell::Text("-3".into()), -3, false),
            (Cell::Text("12abc".into()), 12, true),
            (Cell::Text("2.5".into()), 2, true),
            (Cell::Text("abc".into()), 0, true),
            (Cell::Text(String::new()), 0, true),
        ] {
            let (got, w) = val_int(cell.clone());
            assert_eq!((got, w.is_some()), (n, warns), "{cell:?}");
        }
        assert_eq!(u64::from(-1i64 as u32), 4294967295);
    }
}
