//! The arguments of `GET_LOCK`, `RELEASE_LOCK`, `IS_FREE_LOCK`, `IS_USED_LOCK` bound before the
//! statement is planned: a prepared statement's `?` (sqlx's migrator takes its lock with
//! `SELECT GET_LOCK(?, -1)`), and expressions that read no row (`GET_LOCK(@name, 0)`,
//! `GET_LOCK(CONCAT('migrate:', DATABASE()), 10)`).
//!
//! `mdl-sql` plans a statement's user-level lock calls from constant arguments: the locks are
//! taken before the engine runs the statement (`user_lock.rs` there), as MySQL evaluates them
//! (`Item_func_get_lock::val_int`, `sql/item_func.cc`). So their arguments become literals in
//! a copy of the statement first, which is planned for that execution alone (a prepared
//! statement's plan and rewrite are otherwise kept, `memo.rs`):
//!
//! * [`bind`]: an execution's `?` inside those calls take their values; the engine gets the
//!   other values, in order. The prepared statement reports every `?` of its text, as MySQL's
//!   does.
//! * [`bind_evaluated`]: the arguments `mdl_sql::lock_argument` says are to be evaluated
//!   take the values the engine gives them (`execute/evaluate.rs`: one `SELECT` of them,
//!   rewritten as any statement, so `@name`, `DATABASE()` and the functions mean what they
//!   mean elsewhere). That is done only when planning refused the statement (1235) and
//!   [`to_evaluate`] finds such arguments and none that depends on rows: a statement without
//!   such a call, every sysbench statement, pays nothing. The rewrite still reads the
//!   statement as written (the calls become their values whatever their arguments), so its
//!   columns keep MySQL's names.

use std::ops::ControlFlow;

use mdl_sql::{LockArgument, Parsed, UserLockFunction};
use rusqlite::types::Value;
use sqlparser::ast::{Expr, Value as V, ValueWithSpan, Visit, VisitMut, Visitor, VisitorMut};

use crate::error::ServerError;
use crate::wire::Cell;

/// How many of the statement's `?` are arguments of user-level lock calls (0: an execution
/// binds nothing before it is planned).
pub fn count(p: &Parsed) -> usize {
    let mut copy = p.statement.clone();
    let mut b = Bind::new(&[]);
    visit(&mut copy, &mut b);
    b.bound.len()
}

/// The statement with the `?` of its user-level lock calls replaced by their values from
/// `params` (the statement's values in text order), and the values left for the engine.
pub fn bind(p: &Parsed, params: &[Value]) -> (Parsed, Vec<Value>) {
    let mut bound = p.clone();
    let mut b = Bind::new(params);
    visit(&mut bound.statement, &mut b);
    let rest = (params.iter().enumerate())
        .filter(|(i, _)| !b.bound.contains(i))
        .map(|(_, v)| v.clone())
        .collect();
    (bound, rest)
}

fn visit<B: VisitorMut>(s: &mut mdl_sql::Statement, b: &mut B) {
    match s {
        mdl_sql::Statement::Sql { statement, .. } => {
            let _ = statement.visit(b);
        }
        mdl_sql::Statement::Do(exprs) => {
            let _ = exprs.visit(b);
        }
        mdl_sql::Statement::KillExpr { id, .. } => {
            let _ = id.visit(b);
        }
        _ => {}
    }
}

/// Whether the statement's user-level lock calls have arguments to evaluate before it is
/// planned, and none that depends on rows (which stays refused, 1235).
pub fn to_evaluate(p: &Parsed) -> bool {
    struct Kinds {
        evaluated: bool,
        rows: bool,
    }
    impl Visitor for Kinds {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            let Some(args) = mdl_sql::lock_call_arguments(e) else {
                return ControlFlow::Continue(());
            };
            for a in args {
                match mdl_sql::lock_argument(a) {
                    LockArgument::Constant => {}
                    LockArgument::Evaluated => self.evaluated = true,
                    LockArgument::RowDependent => self.rows = true,
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut k = Kinds {
        evaluated: false,
        rows: false,
    };
    let _ = match &p.statement {
        mdl_sql::Statement::Sql { statement, .. } => statement.visit(&mut k),
        mdl_sql::Statement::Do(exprs) => exprs.visit(&mut k),
        mdl_sql::Statement::KillExpr { id, .. } => id.visit(&mut k),
        _ => ControlFlow::Continue(()),
    };
    k.evaluated && !k.rows
}

/// The statement with the arguments [`to_evaluate`] found replaced by their values, which
/// `eval` gives for them all at once (in text order).
///
/// # Errors
/// `eval`'s.
pub fn bind_evaluated(
    p: &Parsed,
    eval: impl FnOnce(Vec<Expr>) -> Result<Vec<Cell>, ServerError>,
) -> Result<Parsed, ServerError> {
    let mut bound = p.clone();
    let mut found = Evaluated::Collect(Vec::new());
    visit(&mut bound.statement, &mut found);
    let Evaluated::Collect(args) = found else {
        unreachable!("collected above")
    };
    let values = eval(args)?.into_iter();
    visit(&mut bound.statement, &mut Evaluated::Replace(values));
    Ok(bound)
}

/// The arguments to evaluate, collected, then replaced by their values.
enum Evaluated {
    Collect(Vec<Expr>),
    Replace(std::vec::IntoIter<Cell>),
}

impl VisitorMut for Evaluated {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let Some(args) = mdl_sql::lock_call_arguments_mut(e) else {
            return ControlFlow::Continue(());
        };
        for a in args {
            if mdl_sql::lock_argument(a) != LockArgument::Evaluated {
                continue;
            }
            match self {
                Evaluated::Collect(v) => v.push(a.clone()),
                Evaluated::Replace(values) => {
                    *a = crate::rewrite::cell_expr(values.next().unwrap_or(Cell::Null))
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// Counts the `?` in text order (the order the values come in) and replaces those inside a
/// user-level lock call's arguments.
struct Bind<'a> {
    values: &'a [Value],
    /// `?` seen so far.
    seen: usize,
    /// User-level lock calls the visit is inside.
    inside: usize,
    /// The positions of the `?` replaced.
    bound: Vec<usize>,
}

impl Bind<'_> {
    fn new(values: &[Value]) -> Bind<'_> {
        Bind {
            values,
            seen: 0,
            inside: 0,
            bound: Vec::new(),
        }
    }
}

fn is_user_lock_call(e: &Expr) -> bool {
    matches!(e, Expr::Function(f) if UserLockFunction::from_name(&f.name.to_string()).is_some())
}

impl VisitorMut for Bind<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        self.inside += usize::from(is_user_lock_call(e));
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        self.inside -= usize::from(is_user_lock_call(e));
        ControlFlow::Continue(())
    }

    fn pre_visit_value(&mut self, v: &mut ValueWithSpan) -> ControlFlow<()> {
        if matches!(v.value, V::Placeholder(_)) {
            if self.inside > 0 {
                if let Some(x) = self.values.get(self.seen) {
                    v.value = literal(x);
                }
                self.bound.push(self.seen);
            }
            self.seen += 1;
        }
        ControlFlow::Continue(())
    }
}

/// A bound value as the literal MySQL would have read in its place.
fn literal(v: &Value) -> V {
    match v {
        Value::Null => V::Null,
        Value::Integer(i) => V::Number(i.to_string(), false),
        Value::Real(r) => V::Number(r.to_string(), false),
        Value::Text(t) => V::SingleQuotedString(t.clone()),
        Value::Blob(b) => V::SingleQuotedString(String::from_utf8_lossy(b).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(sql: &str) -> Parsed {
        mdl_sql::parse_prepared(sql).unwrap().remove(0)
    }

    #[test]
    fn the_lock_calls_take_their_values_and_the_rest_go_on() {
        let p = parsed("SELECT ? + 1, GET_LOCK(?, ?), RELEASE_LOCK(?) FROM t WHERE id = ?");
        assert_eq!(count(&p), 3);
        let values = [1, 2, 3, 4, 5].map(Value::Integer);
        let mut values = values.to_vec();
        values[1] = Value::Text("it's".into());
        let (bound, rest) = bind(&p, &values);
        let mdl_sql::Statement::Sql { statement, .. } = &bound.statement else {
            panic!()
        };
        assert_eq!(
            statement.to_string(),
            "SELECT ? + 1, GET_LOCK('it''s', 3), RELEASE_LOCK(4) FROM t WHERE id = ?"
        );
        assert_eq!(rest, [Value::Integer(1), Value::Integer(5)]);
        let d = parsed("DO GET_LOCK(?, -1)");
        assert_eq!(count(&d), 1);
        assert_eq!(count(&parsed("SELECT ?, GET_LOCK('a', 1)")), 0);
    }
}
