//! The MySQL type of an expression, for a call that needs it when the statement runs: a
//! number's text (`decimal_strings.rs`) and its rounding (`double_round.rs`) depend on it,
//! and SQLite's values do not say it (a `DECIMAL(10,2)` 1.5 and a `DOUBLE` 1.5 are the same
//! double there). The rewrite knows no column types (it is a function of the statement and
//! the schema), so:
//!
//! * an expression of literals is typed here (`expr_type.rs`: `0.1 + 0.2` is `decimal(3,1)`,
//!   `1 / 4` `decimal(5,4)`, `2.5e0` `double`);
//! * a column of the query's tables is its declared type, read when the statement runs:
//!   `(SELECT type FROM pragma_table_info('t', 's') WHERE lower(name) = lower('c') LIMIT 1)`,
//!   which SQLite runs once (the subquery is constant: `json/args.rs`);
//! * an expression over such columns is `MYSQL_TYPE_OF('expr', 'c', (SELECT type ...), ...)`
//!   (`functions/type_of.rs`), which types `expr` as `expr_type.rs` does with those types.
//!
//! The expression is typed as MySQL wrote it: this module sees it after the rewrite, whose
//! `a / b` is `CAST(a AS REAL) / b` (`expr.rs`), and which `expr_type.rs` reads as the division
//! it was. Not known (no type): an expression with a subquery, a user variable, a column of a
//! derived table or of a common table expression, or a function `expr_type.rs` does not know.

use std::ops::ControlFlow;

use sqlparser::ast::{BinaryOperator, Expr, Value, Visit, VisitMut, Visitor, VisitorMut};

use super::expr::call;
use super::json::args::{parse_expr, pragma_selects, Scope};
use crate::expr_type::Ty;
use crate::functions::MYSQL_TYPE_OF;

/// An expression's type, known now or when the statement runs.
pub(in crate::rewrite) enum Typed {
    /// An expression of literals.
    Known(Ty),
    /// The SQL that gives the column type (a column's declared type, `MYSQL_TYPE_OF(...)`).
    Runtime(Box<Expr>),
}

impl Typed {
    /// The SQL of the column type.
    pub(in crate::rewrite) fn sql(self) -> Expr {
        match self {
            Typed::Known(t) => Expr::value(Value::SingleQuotedString(t.column_type())),
            Typed::Runtime(e) => *e,
        }
    }
}

/// The type of `e`, an expression of the query level whose tables are `scopes` (see the
/// module docs); `None` if it cannot be known.
pub(in crate::rewrite) fn type_of(e: &Expr, scopes: &[Scope]) -> Option<Typed> {
    if let Some(t) = declared(e, scopes) {
        return Some(Typed::Runtime(Box::new(t)));
    }
    if let Some(t) = crate::expr_type::infer(e, &Literals) {
        return Some(Typed::Known(t));
    }
    let mut leaves = Columns::default();
    if e.visit(&mut leaves).is_break() || leaves.0.is_empty() {
        return None;
    }
    let lit = |s: String| Expr::value(Value::SingleQuotedString(s));
    let mut args = vec![lit(as_written(e).to_string())];
    let mut seen: Vec<String> = Vec::new();
    for c in &leaves.0 {
        let name = name_of(c)?;
        if seen.contains(&name) {
            continue;
        }
        args.push(lit(name.clone()));
        args.push(declared(c, scopes)?);
        seen.push(name);
    }
    Some(Typed::Runtime(Box::new(call(MYSQL_TYPE_OF, args))))
}

/// `e` with the rewrite's divisions as MySQL wrote them (`CAST(a AS REAL) / b` is `a / b`),
/// for `MYSQL_TYPE_OF` to parse.
fn as_written(e: &Expr) -> Expr {
    struct Divisions;
    impl VisitorMut for Divisions {
        type Break = ();
        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
            if let Expr::BinaryOp { left, op, .. } = e {
                let custom = matches!(op, BinaryOperator::Custom(o) if o == "/");
                if let Some(a) = crate::expr_type::divided(left).filter(|_| custom).cloned() {
                    **left = a;
                    *op = BinaryOperator::Divide;
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut e = e.clone();
    let _ = VisitMut::visit(&mut e, &mut Divisions);
    e
}

/// For column `c` of the query's tables, the SQL of its declared type.
fn declared(c: &Expr, scopes: &[Scope]) -> Option<Expr> {
    let each = pragma_selects(c, scopes, "type", "")?;
    parse_expr(&format!("({} LIMIT 1)", each.join(" UNION ALL ")))
}

/// Column reference `c` as `MYSQL_TYPE_OF` names it: `c`, or `t.c` (the table and the column of
/// a longer name).
fn name_of(c: &Expr) -> Option<String> {
    match c {
        Expr::Identifier(i) => Some(i.value.clone()),
        Expr::CompoundIdentifier(p) => match p.as_slice() {
            [.., t, c] => Some(format!("{}.{}", t.value, c.value)),
            [c] => Some(c.value.clone()),
            [] => None,
        },
        _ => None,
    }
}

/// The column references of an expression; stops at a subquery or a variable.
#[derive(Default)]
struct Columns(Vec<Expr>);

impl Visitor for Columns {
    type Break = ();

    fn pre_visit_query(&mut self, _: &sqlparser::ast::Query) -> ControlFlow<()> {
        ControlFlow::Break(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        match e {
            Expr::Identifier(i) if i.value.starts_with('@') => return ControlFlow::Break(()),
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => self.0.push(e.clone()),
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// A scope without columns: only expressions of literals have a type in it.
pub(in crate::rewrite) struct Literals;

impl crate::expr_type::Scope for Literals {
    fn column(&self, _: Option<&str>, _: &str) -> Option<String> {
        None
    }
}
