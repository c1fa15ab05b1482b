//! What a query counts for `FOUND_ROWS()`, planned from its rewrite; the query's execution
//! counts it (`execute/engine_step.rs`) and the session keeps it (`session_values.rs`).
//!
//! * `SQL_CALC_FOUND_ROWS` on the statement's first SELECT, when the query has a LIMIT (or an
//!   OFFSET) of its own: the rows it gives without them, counted by `SELECT COUNT(*) FROM
//!   (query)`, the query without its LIMIT, OFFSET and ORDER BY, run after it in the same
//!   read snapshot. MySQL reads on past the limit to count them (`LimitOffsetIterator` with
//!   `count_all_rows`, `sql/iterators/composite_iterators.cc`). For a UNION that is the union's
//!   own LIMIT: a branch's LIMIT stays, as in the manual's `FOUND_ROWS()` entry and
//!   mysql-test's `select_found`. Without a LIMIT, the rows the query sent.
//! * `SQL_CALC_FOUND_ROWS` on another SELECT of a query (a subquery, a later branch of a UNION)
//!   is 1234, as in MySQL (`Query_block::validate_outermost_option`, `sql/sql_lex.cc`).
//! * Without it, the rows sent and the rows the query's OFFSET skipped: MySQL's top
//!   `LimitOffsetIterator` counts both into `send_records`, which
//!   `Query_expression::ExecuteIteratorQuery` (`sql/sql_union.cc`) makes the found rows. The
//!   offset is kept here, a number or the parameter bound to it. Differs: a query that gives
//!   no row adds no skipped rows, where MySQL adds those it skipped (fewer than the offset: only
//!   a count would tell).

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, LimitClause, Query, Select, SetExpr, Statement, Value, ValueWithSpan, Visit, Visitor,
};

use crate::error::ServerError;

/// What a query's execution counts for `FOUND_ROWS()` (see the module docs); nothing for a
/// query without a LIMIT, or a statement that is no query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FoundRows {
    /// `SQL_CALC_FOUND_ROWS` with a LIMIT: the count to run after the query. Its parameters are
    /// the query's first ones (those of the LIMIT and ORDER BY, which it lacks, come last).
    pub count: Option<String>,
    /// The query's OFFSET.
    pub offset: Option<Offset>,
}

/// A query's OFFSET.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offset {
    /// A number.
    Rows(u64),
    /// The statement's parameter of this index (from 0).
    Param(usize),
}

impl Offset {
    /// The rows it skips, with the statement's parameters.
    pub fn rows(self, params: &[rusqlite::types::Value]) -> u64 {
        use rusqlite::types::Value as V;
        match self {
            Offset::Rows(n) => n,
            Offset::Param(i) => match params.get(i) {
                Some(V::Integer(n)) => u64::try_from(*n).unwrap_or(0),
                Some(V::Text(t)) => t.trim().parse().unwrap_or(0),
                _ => 0,
            },
        }
    }
}

/// Whether the first SELECT of a query asks for `SQL_CALC_FOUND_ROWS`, before the rewrite
/// drops the modifier.
pub(super) fn asked(s: &Statement) -> bool {
    let Statement::Query(q) = s else {
        return false;
    };
    let mut body = q.body.as_ref();
    let first: &Select = loop {
        match body {
            SetExpr::Select(s) => break s,
            SetExpr::SetOperation { left, .. } => body = left,
            SetExpr::Query(q) => body = q.body.as_ref(),
            _ => return false,
        }
    };
    (first.select_modifiers.as_ref()).is_some_and(|m| m.sql_calc_found_rows)
}

/// The plan of the rewritten statement `s`: `asked` is [`asked`] of it before the rewrite,
/// `calcs` the SELECTs in it that had the modifier, `rollup` whether `rollup.rs` rewrites it.
///
/// # Errors
/// 1234 for a misplaced `SQL_CALC_FOUND_ROWS`; `rollup.rs`'s.
pub(super) fn plan(
    s: &Statement,
    asked: bool,
    calcs: usize,
    rollup: bool,
) -> Result<FoundRows, ServerError> {
    let Statement::Query(q) = s else {
        return Ok(FoundRows::default());
    };
    if calcs > usize::from(asked) {
        return Err(ServerError::new(
            1234,
            "42000",
            "Incorrect usage/placement of 'SQL_CALC_FOUND_ROWS'",
        ));
    }
    let q = top(q);
    let Some(limit) = &q.limit_clause else {
        return Ok(FoundRows::default());
    };
    let count = match asked {
        true => Some(count(q, rollup)?),
        false => None,
    };
    Ok(FoundRows {
        count,
        offset: offset(q, limit),
    })
}

/// The query whose LIMIT counts: a query in parentheses alone is that query.
fn top(q: &Query) -> &Query {
    match q.body.as_ref() {
        SetExpr::Query(inner)
            if q.limit_clause.is_none() && q.order_by.is_none() && q.with.is_none() =>
        {
            top(inner)
        }
        _ => q,
    }
}

/// `SELECT COUNT(*)` of `q` without its LIMIT, OFFSET and ORDER BY (which sorts nothing the
/// count needs).
fn count(q: &Query, rollup: bool) -> Result<String, ServerError> {
    let mut all = q.clone();
    all.limit_clause = None;
    all.order_by = None;
    let sql = match rollup && super::rollup::has_rollup(&all) {
        true => super::rollup::query(&all)?,
        false => all.to_string(),
    };
    Ok(format!("SELECT COUNT(*) FROM ({sql})"))
}

/// The OFFSET of `q`'s `limit`: a number, or the parameter SQLite binds to its `?`.
fn offset(q: &Query, limit: &LimitClause) -> Option<Offset> {
    let (before, offset) = match limit {
        LimitClause::LimitOffset { limit, offset, .. } => (limit.as_ref(), &offset.as_ref()?.value),
        LimitClause::OffsetCommaLimit { offset, .. } => (None, offset),
    };
    let Expr::Value(v) = offset else {
        return None;
    };
    match &v.value {
        Value::Number(n, _) => n.parse().ok().map(Offset::Rows),
        Value::Placeholder(p) => {
            // The parameters before it: the query's, then `LIMIT n` in `LIMIT n OFFSET m`.
            let mut n = Numbering(0);
            let _ = q.with.visit(&mut n);
            let _ = q.body.visit(&mut n);
            let _ = q.order_by.visit(&mut n);
            if let Some(limit) = before {
                let _ = limit.visit(&mut n);
            }
            Some(Offset::Param(n.next(p) - 1))
        }
        _ => None,
    }
}

/// SQLite's numbering of parameters, in the order of the text: `?` is the one after the
/// highest so far, `?N` is N.
struct Numbering(usize);

impl Numbering {
    fn next(&mut self, p: &str) -> usize {
        let i = (p.strip_prefix('?').and_then(|n| n.parse().ok())).unwrap_or(self.0 + 1);
        self.0 = self.0.max(i);
        i
    }
}

impl Visitor for Numbering {
    type Break = ();

    fn pre_visit_value(&mut self, v: &ValueWithSpan) -> ControlFlow<()> {
        if let Value::Placeholder(p) = &v.value {
            self.next(p);
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::rewritten;
    use super::*;

    fn plan_of(sql: &str) -> FoundRows {
        rewritten(sql).unwrap().found_rows
    }

    #[test]
    fn calc_found_rows_counts_the_query_without_its_limit() {
        let p = plan_of("SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE k > 1 ORDER BY id LIMIT 5, 10");
        assert_eq!(
            p.count.as_deref(),
            Some("SELECT COUNT(*) FROM (SELECT id AS `id` FROM `sbtest`.t WHERE k > 1)")
        );
        assert_eq!(p.offset, Some(Offset::Rows(5)));
        // A UNION's own LIMIT goes, a branch's stays.
        let p = plan_of(
            "(SELECT SQL_CALC_FOUND_ROWS id FROM t LIMIT 3) UNION ALL (SELECT id FROM u) LIMIT 2",
        );
        assert_eq!(
            p.count.as_deref(),
            Some(
                "SELECT COUNT(*) FROM ((SELECT id AS `id` FROM `sbtest`.t LIMIT 3) UNION ALL \
                 (SELECT id AS `id` FROM `sbtest`.u))"
            )
        );
        // No LIMIT: the rows sent; no modifier: no count.
        assert_eq!(
            plan_of("SELECT SQL_CALC_FOUND_ROWS id FROM t"),
            FoundRows::default()
        );
        assert_eq!(plan_of("SELECT id FROM t LIMIT 3").count, None);
        // The modifier goes from the text SQLite runs.
        let sql = rewritten("SELECT SQL_CALC_FOUND_ROWS id FROM t LIMIT 1")
            .unwrap()
            .sql;
        assert_eq!(sql, ["SELECT id AS `id` FROM `sbtest`.t LIMIT 1"]);
    }

    #[test]
    fn the_offset_is_a_number_or_its_parameter() {
        let offset = |sql| plan_of(sql).offset;
        assert_eq!(
            offset("SELECT id FROM t LIMIT 7 OFFSET 3"),
            Some(Offset::Rows(3))
        );
        assert_eq!(offset("SELECT id FROM t LIMIT 4"), None);
        assert_eq!(
            offset("SELECT id FROM t WHERE k = ? ORDER BY ? LIMIT ?, ?"),
            Some(Offset::Param(2))
        );
        assert_eq!(
            offset("SELECT id FROM t WHERE k = ? LIMIT ? OFFSET ?"),
            Some(Offset::Param(2))
        );
        let params = [rusqlite::types::Value::Integer(9)];
        assert_eq!(Offset::Param(0).rows(&params), 9);
        assert_eq!(Offset::Param(1).rows(&params), 0);
    }

    #[test]
    fn calc_found_rows_elsewhere_than_the_first_select_is_1234() {
        for sql in [
            "SELECT id FROM t UNION SELECT SQL_CALC_FOUND_ROWS id FROM u",
            "SELECT * FROM (SELECT SQL_CALC_FOUND_ROWS id FROM t) AS d",
            "SELECT id FROM t WHERE id IN (SELECT SQL_CALC_FOUND_ROWS id FROM u)",
        ] {
            assert_eq!(rewritten(sql).unwrap_err().code, 1234, "{sql}");
        }
    }
}
