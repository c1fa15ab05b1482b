//! `GET_LOCK(?, ?)`, `RELEASE_LOCK(?)`, `IS_FREE_LOCK(?)`, `IS_USED_LOCK(?)` in a prepared
//! statement (sqlx's migrator takes its lock with `SELECT GET_LOCK(?, -1)`).
//!
//! `mdl-sql` plans a statement's user-level lock calls from constant arguments: the locks are
//! taken before the engine runs the statement (`user_lock.rs` there). So an execution binds
//! those `?` first: their values become literals in a copy of the statement, which is planned
//! and rewritten for that execution alone (a prepared statement's plan and rewrite are
//! otherwise kept, `memo.rs`), and the engine gets the other values, in order. The prepared
//! statement reports every `?` of its text, as MySQL's does.

use std::ops::ControlFlow;

use mdl_sql::{Parsed, UserLockFunction};
use rusqlite::types::Value;
use sqlparser::ast::{Expr, Value as V, ValueWithSpan, VisitMut, VisitorMut};

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

fn visit(s: &mut mdl_sql::Statement, b: &mut Bind<'_>) {
    match s {
        mdl_sql::Statement::Sql { statement, .. } => {
            let _ = statement.visit(b);
        }
        mdl_sql::Statement::Do(exprs) => {
            let _ = exprs.visit(b);
        }
        _ => {}
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
