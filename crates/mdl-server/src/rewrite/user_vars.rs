//! `SET @a = x, @b = y` and `SELECT ... INTO @a, @b`: the `@user` variables a statement
//! gives values to, which the server keeps from the one row of the `SELECT` it runs instead
//! (`execute.rs`). Apart from the visitor: both are read off the statement, the `INTO` before
//! the visit (which would read `@a` as its value), the SET's pairs after it.

use sqlparser::ast::{Expr, Statement};

use crate::error::ServerError;

/// The `@user` variables a SET assigns, and their values' SQL (already rewritten).
pub(super) fn user_var_assignments(set: &sqlparser::ast::Set) -> (Vec<String>, Vec<String>) {
    use sqlparser::ast::Set as S;
    let pairs: Vec<(String, &Expr)> = match set {
        S::SingleAssignment {
            variable, values, ..
        } if values.len() == 1 => vec![(variable.to_string(), &values[0])],
        S::MultipleAssignments { assignments } => (assignments.iter())
            .map(|a| (a.name.to_string(), &a.value))
            .collect(),
        _ => Vec::new(),
    };
    pairs
        .into_iter()
        .filter(|(n, _)| n.starts_with('@') && !n.starts_with("@@"))
        .map(|(n, e)| (n, e.to_string()))
        .unzip()
}

/// `SELECT ... INTO @a, @b ...`: the clause removed from the query, the variables the one row
/// it gives is kept as (as `SET @a = x`, `execute.rs`). An `INTO` of anything else (a
/// file, a stored program's variable) is 1235.
pub(super) fn select_into_variables(s: &mut Statement) -> Result<Vec<String>, ServerError> {
    let Statement::Query(q) = s else {
        return Ok(Vec::new());
    };
    let sqlparser::ast::SetExpr::Select(select) = q.body.as_mut() else {
        return Ok(Vec::new());
    };
    let Some(into) = select.into.take() else {
        return Ok(Vec::new());
    };
    (into.targets.iter())
        .map(|t| match t {
            Expr::Identifier(i) if i.value.starts_with('@') && !i.value.starts_with("@@") => {
                Ok(i.value.clone())
            }
            _ => Err(ServerError::not_supported(
                "SELECT ... INTO other than @variables",
            )),
        })
        .collect()
}
