//! The rows an `UPDATE` (or an `INSERT ... ON DUPLICATE KEY UPDATE`) changed, as MySQL counts
//! them: a row whose new values are its old ones is matched, not changed, and not counted in
//! the affected rows (`UPDATE t SET v = v` affects 0 rows; `sql/sql_update.cc`,
//! `Sql_cmd_update::update_single_table`: `found` vs `updated`, compared with
//! `records_are_comparable` / `compare_records`); an upsert counts 1 per row inserted, 2 per
//! row updated and 0 per row left as it was (`sql/sql_insert.cc`, `write_record`:
//! `info->stats.updated++` and `touched` only when `compare_records` differs; the client's
//! affected rows are `copied + deleted + updated`). That is MySQL's default; a client that
//! asks for `CLIENT_FOUND_ROWS` (Connector/J does by default; `command_map.rs`'s
//! `ClientFlags`) gets an UPDATE's matched rows, and 1 for an upsert's row left as it was
//! (`execute/engine_step.rs`).
//!
//! SQLite counts every row it updated. So the last assignment's value goes through
//! `MDL_UPDATED_ROW(value, unchanged)` (`functions.rs`), which counts the row, and the row as
//! unchanged when each assigned column `IS` its new value (SQLite compares under the column's
//! affinity, as MySQL compares the converted values); the executor turns the counts into
//! MySQL's (`execute/engine_step.rs`). The assigned expressions are evaluated twice per row:
//! a `RAND()` compared may differ from the one stored. A statement with parameters has them
//! numbered first (`?` becomes `?1`, `?2`, ... in the order the client binds them), so that an
//! expression written twice reads its parameter twice, not the next one.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Assignment, AssignmentTarget, BinaryOperator, Expr, Ident, Value, ValueWithSpan, VisitMut,
    VisitorMut,
};

use super::expr::call;
use crate::functions::UPDATED_ROW;

/// Wraps the last of `assignments` (see the module docs); nothing for an assignment to a
/// tuple, which MySQL has not.
pub(super) fn count_rows(assignments: &mut [Assignment]) {
    let mut unchanged: Option<Expr> = None;
    for a in assignments.iter() {
        let AssignmentTarget::ColumnName(column) = &a.target else {
            return;
        };
        let parts: Vec<Ident> = (column.0.iter())
            .map(|p| {
                p.as_ident()
                    .cloned()
                    .unwrap_or_else(|| Ident::new(p.to_string()))
            })
            .collect();
        let column = match <[Ident; 1]>::try_from(parts) {
            Ok([one]) => Expr::Identifier(one),
            Err(parts) => Expr::CompoundIdentifier(parts),
        };
        let same = Expr::IsNotDistinctFrom(Box::new(column), Box::new(a.value.clone()));
        unchanged = Some(match unchanged {
            None => same,
            Some(before) => Expr::BinaryOp {
                left: Box::new(before),
                op: BinaryOperator::And,
                right: Box::new(same),
            },
        });
    }
    let (Some(unchanged), Some(last)) = (unchanged, assignments.last_mut()) else {
        return;
    };
    let value = std::mem::replace(&mut last.value, Expr::value(sqlparser::ast::Value::Null));
    last.value = call(UPDATED_ROW, vec![value, Expr::Nested(Box::new(unchanged))]);
}

/// Numbers the `?` parameters of `s` in the order they are bound (the order the parser's
/// visitor meets them, as `execute.rs` counts them); also for a multi-table UPDATE, whose
/// clauses move (`multi_table.rs`).
pub(super) fn number_parameters<V: VisitMut>(s: &mut V) {
    struct Numbered(usize);
    impl VisitorMut for Numbered {
        type Break = ();
        fn pre_visit_value(&mut self, v: &mut ValueWithSpan) -> ControlFlow<()> {
            if let Value::Placeholder(p) = &mut v.value {
                if p == "?" {
                    self.0 += 1;
                    *p = format!("?{}", self.0);
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = s.visit(&mut Numbered(0));
}
