//! A `CREATE TABLE ... SELECT` query in parentheses, for SQLite.
//!
//! MySQL's query may be a `query_expression_parens` (`sql_yacc.yy`: `CREATE TABLE t (SELECT 1
//! a)`, `... AS ((SELECT 1 a) UNION SELECT 2)`), which SQLite's grammar has no place for, at
//! the top of a statement or as an operand of a UNION. So the select this module writes for
//! SQLite drops the parentheses around the whole query when nothing follows them, and makes
//! any other parenthesized query the derived table `SELECT * FROM (query) AS _paren` (its
//! columns, their names and declared types, and its rows, as they were: SQLite reads a
//! derived table's declared types through it). Flattening an operand instead would change
//! the query: SQLite runs `A UNION B UNION ALL C` left to right, whatever MySQL's
//! parentheses said.

use sqlparser::ast::{Query, Select, SetExpr, Statement, TableFactor};

/// `q` as SQLite reads it (the module docs).
pub(super) fn for_sqlite(q: &Query) -> Query {
    let mut q = q.clone();
    // `(query)` with nothing after it is `query`.
    loop {
        let bare = q.with.is_none()
            && q.order_by.is_none()
            && q.limit_clause.is_none()
            && q.fetch.is_none()
            && q.locks.is_empty();
        match &*q.body {
            SetExpr::Query(inner) if bare => q = (**inner).clone(),
            _ => break,
        }
    }
    derived(&mut q.body);
    q
}

/// Each parenthesized query of `body` (a select, or the operands of set operations) as a
/// derived table.
fn derived(body: &mut SetExpr) {
    match body {
        SetExpr::SetOperation { left, right, .. } => {
            derived(left);
            derived(right);
        }
        SetExpr::Query(inner) => {
            let inner = for_sqlite(inner);
            if let Some(s) = select_from(inner) {
                *body = SetExpr::Select(Box::new(s));
            }
        }
        _ => {}
    }
}

/// `SELECT * FROM (q) AS _paren`.
fn select_from(q: Query) -> Option<Select> {
    let dialect = sqlparser::dialect::MySqlDialect {};
    let template = "SELECT * FROM (SELECT 1) AS _paren";
    let parsed = sqlparser::parser::Parser::parse_sql(&dialect, template).ok()?;
    let Some(Statement::Query(t)) = parsed.into_iter().next() else {
        return None;
    };
    let SetExpr::Select(mut s) = *t.body else {
        return None;
    };
    match s.from.first_mut().map(|f| &mut f.relation) {
        Some(TableFactor::Derived { subquery, .. }) => **subquery = q,
        _ => return None,
    }
    Some(*s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(sql: &str) -> String {
        let dialect = sqlparser::dialect::MySqlDialect {};
        match sqlparser::parser::Parser::parse_sql(&dialect, sql)
            .unwrap()
            .remove(0)
        {
            Statement::Query(q) => for_sqlite(&q).to_string(),
            other => panic!("{other}"),
        }
    }

    #[test]
    fn parentheses_go_or_become_a_derived_table() {
        assert_eq!(sqlite("(SELECT 1 AS a)"), "SELECT 1 AS a");
        assert_eq!(sqlite("((SELECT 1 AS a))"), "SELECT 1 AS a");
        assert_eq!(
            sqlite("(SELECT 1 AS a UNION SELECT 2)"),
            "SELECT 1 AS a UNION SELECT 2"
        );
        assert_eq!(
            sqlite("(SELECT 1 AS a) UNION SELECT 2"),
            "SELECT * FROM (SELECT 1 AS a) AS _paren UNION SELECT 2"
        );
        assert_eq!(
            sqlite("SELECT 1 AS a UNION (SELECT 2 UNION ALL SELECT 2)"),
            "SELECT 1 AS a UNION SELECT * FROM (SELECT 2 UNION ALL SELECT 2) AS _paren"
        );
        assert_eq!(
            sqlite("(SELECT 1 AS a) ORDER BY a LIMIT 1"),
            "SELECT * FROM (SELECT 1 AS a) AS _paren ORDER BY a LIMIT 1"
        );
        // A query without parentheses is as it was.
        assert_eq!(
            sqlite("SELECT a FROM t ORDER BY a"),
            "SELECT a FROM t ORDER BY a"
        );
    }
}
