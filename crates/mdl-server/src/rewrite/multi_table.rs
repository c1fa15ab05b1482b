//! MySQL's multi-table `DELETE` and `UPDATE` in SQLite's dialect (see the parent module's
//! docs); SQLite's `DELETE` takes one table and no join, its `UPDATE` joins through `FROM`.
//!
//! * `DELETE a FROM t1 a JOIN t2 b ON ... WHERE w` (also `DELETE FROM a USING t1 a JOIN ...`)
//!   becomes `DELETE FROM t1 WHERE rowid IN (SELECT a.rowid FROM t1 a JOIN t2 b ON ... WHERE
//!   w)`: the rows of the target that the join keeps, whatever the join (a `LEFT JOIN ... WHERE
//!   b.id IS NULL` deletes the rows without a match, as in MySQL). One target table: a `DELETE`
//!   of rows of several tables at once is refused (1235).
//! * `UPDATE t1 a JOIN t2 b ON c SET a.x = e WHERE w` becomes `UPDATE t1 AS a SET x = e FROM t2
//!   AS b WHERE (c) AND (w)`: SQLite's `UPDATE ... FROM`, the join's conditions with the
//!   `WHERE`. Only inner and cross joins (an outer join would lose the target's rows without a
//!   match), with `ON` conditions, and assignments to one table (qualified by its name or alias;
//!   unqualified columns are the first table's) are taken; the rest is 1235. The placeholders
//!   are numbered in the statement's order first, as the clauses move.
//! * A single-table `UPDATE t x SET x.a = e` is `UPDATE t AS x SET a = e`: SQLite takes an
//!   alias only after `AS`, and a column in `SET` unqualified (one qualified by another name is
//!   MySQL's 1054).

use sqlparser::ast::{
    AssignmentTarget, Delete, FromTable, JoinConstraint, JoinOperator, ObjectName, ObjectNamePart,
    TableFactor, TableWithJoins, Update,
};

use crate::engine::ROWID;
use crate::error::ServerError;

fn refused(what: &str) -> ServerError {
    ServerError::not_supported(what)
}

/// The SQLite text of a multi-table `DELETE`; `None` for a single-table one.
pub(super) fn delete(d: &Delete) -> Result<Option<String>, ServerError> {
    let from = match &d.from {
        FromTable::WithFromKeyword(t) | FromTable::WithoutKeyword(t) => t,
    };
    let (targets, joined): (Vec<&ObjectName>, &[TableWithJoins]) = match &d.using {
        Some(using) => (from.iter().filter_map(table_name).collect(), using),
        None if !d.tables.is_empty() => (d.tables.iter().collect(), from),
        None if from.len() == 1 && from[0].joins.is_empty() => return Ok(None),
        None => return Err(refused("DELETE FROM with a join and no target")),
    };
    let [target] = targets.as_slice() else {
        return Err(refused("DELETE of rows of several tables"));
    };
    let Some((table, name)) = relation_named(joined, target) else {
        return Err(refused("DELETE of a table the statement does not join"));
    };
    let mut sub = format!("SELECT {name}.{ROWID} FROM {}", list(joined));
    if let Some(w) = &d.selection {
        sub.push_str(&format!(" WHERE {w}"));
    }
    Ok(Some(format!(
        "DELETE FROM {table} WHERE {ROWID} IN ({sub})"
    )))
}

/// A single-table `UPDATE` in SQLite's form (see the module docs).
///
/// # Errors
/// 1054 for a column qualified by another table's name, as MySQL's.
pub(super) fn single_update(u: &mut Update) -> Result<(), ServerError> {
    let TableFactor::Table { alias, .. } = &mut u.table.relation else {
        return Ok(());
    };
    if let Some(a) = alias {
        a.explicit = true;
    }
    let called = names(&u.table.relation);
    for a in &mut u.assignments {
        let AssignmentTarget::ColumnName(n) = &mut a.target else {
            continue;
        };
        let qualifier = n.0.len().checked_sub(2).map(|i| n.0[..=i].to_vec());
        let ours = qualifier.as_ref().is_some_and(|q| {
            let q = ObjectName(q.clone());
            let last = q.0.last().map(part).unwrap_or_default();
            (called.iter())
                .any(|c| c.eq_ignore_ascii_case(&last) || c.eq_ignore_ascii_case(&q.to_string()))
        });
        match (qualifier, ours) {
            (Some(_), true) => _ = n.0.drain(..n.0.len() - 1),
            (Some(_), false) => {
                let message = format!("Unknown column '{n}' in 'field list'");
                return Err(ServerError::new(1054, "42S22", message));
            }
            (None, _) => {}
        }
    }
    Ok(())
}

/// The SQLite text of a multi-table `UPDATE`; `None` for a single-table one.
pub(super) fn update(u: &Update) -> Result<Option<String>, ServerError> {
    if u.table.joins.is_empty() || u.from.is_some() {
        return Ok(None);
    }
    let mut u = u.clone();
    // SQLite binds `?n` by its number wherever the clauses move.
    super::changed::number_parameters(&mut u);
    // SQLite's UPDATE takes an alias only after AS.
    let all = std::iter::once(&mut u.table.relation)
        .chain(u.table.joins.iter_mut().map(|j| &mut j.relation));
    for r in all {
        if let TableFactor::Table { alias: Some(a), .. } = r {
            a.explicit = true;
        }
    }
    let relations: Vec<&TableFactor> = std::iter::once(&u.table.relation)
        .chain(u.table.joins.iter().map(|j| &j.relation))
        .collect();
    let mut conditions = Vec::new();
    for j in &u.table.joins {
        match &j.join_operator {
            JoinOperator::Join(c) | JoinOperator::Inner(c) | JoinOperator::CrossJoin(c) => {
                match c {
                    JoinConstraint::On(e) => conditions.push(format!("({e})")),
                    JoinConstraint::None => {}
                    _ => return Err(refused("UPDATE with a join by USING or NATURAL")),
                }
            }
            _ => return Err(refused("UPDATE with an outer join")),
        }
    }
    // The assignments' table: its name or alias qualifies them (the first table otherwise).
    let mut target: Option<usize> = None;
    let mut sets = Vec::new();
    for a in &u.assignments {
        let AssignmentTarget::ColumnName(n) = &a.target else {
            return Err(refused("UPDATE of a tuple"));
        };
        let parts: Vec<String> = n.0.iter().map(part).collect();
        let (column, which) = match parts.as_slice() {
            [column] => (column.clone(), 0),
            [.., qualifier, column] => {
                let which = (relations.iter())
                    .position(|r| names(r).iter().any(|x| x.eq_ignore_ascii_case(qualifier)));
                match which {
                    Some(i) => (column.clone(), i),
                    None => return Err(refused("UPDATE of a column of no joined table")),
                }
            }
            [] => return Err(refused("UPDATE of no column")),
        };
        if target.is_some_and(|t| t != which) {
            return Err(refused("UPDATE of several tables"));
        }
        target = Some(which);
        sets.push(format!("`{}` = {}", column.replace('`', "``"), a.value));
    }
    let target = target.unwrap_or(0);
    let others: Vec<String> = (relations.iter().enumerate())
        .filter(|(i, _)| *i != target)
        .map(|(_, r)| r.to_string())
        .collect();
    conditions.extend(u.selection.iter().map(|w| format!("({w})")));
    let mut sql = format!(
        "UPDATE {} SET {} FROM {}",
        relations[target],
        sets.join(", "),
        others.join(", ")
    );
    if !conditions.is_empty() {
        sql.push_str(&format!(" WHERE {}", conditions.join(" AND ")));
    }
    Ok(Some(sql))
}

fn part(p: &ObjectNamePart) -> String {
    match p {
        ObjectNamePart::Identifier(i) => i.value.clone(),
        other => other.to_string(),
    }
}

/// The name a `FROM` item of a `USING` form names (its table).
fn table_name(t: &TableWithJoins) -> Option<&ObjectName> {
    match &t.relation {
        TableFactor::Table { name, .. } => Some(name),
        _ => None,
    }
}

/// What a relation is called in the statement: its alias, else its table's last name part
/// (and the whole name).
fn names(r: &TableFactor) -> Vec<String> {
    match r {
        TableFactor::Table { name, alias, .. } => match alias {
            Some(a) => vec![a.name.value.clone()],
            None => vec![
                name.0.last().map(part).unwrap_or_default(),
                name.to_string(),
            ],
        },
        _ => Vec::new(),
    }
}

/// The table a `DELETE` target (a table name or an alias) names among the joined relations,
/// and how the join calls it.
fn relation_named(joined: &[TableWithJoins], target: &ObjectName) -> Option<(String, String)> {
    let wanted = target.0.last().map(part)?;
    let all = joined
        .iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
    for r in all {
        if let TableFactor::Table { name, alias, .. } = r {
            let called = match alias {
                Some(a) => a.name.to_string(),
                None => name.to_string(),
            };
            if names(r).iter().any(|n| n.eq_ignore_ascii_case(&wanted)) {
                return Some((name.to_string(), called));
            }
        }
    }
    None
}

/// A comma list of `FROM` items.
fn list(t: &[TableWithJoins]) -> String {
    let items: Vec<String> = t.iter().map(ToString::to_string).collect();
    items.join(", ")
}

#[cfg(test)]
mod tests {
    use super::super::tests::sqlite;

    #[test]
    fn texts() {
        assert_eq!(
            sqlite("UPDATE o JOIN c ON o.cid = c.id AND c.k <> ? SET o.t = o.t + c.b * ? WHERE o.t < ?"),
            ["UPDATE `sbtest`.o SET `t` = o.t + c.b * ?2 FROM `sbtest`.c WHERE (o.cid = c.id AND c.k <> ?1) AND (o.t < ?3)"]
        );
        assert_eq!(
            sqlite("UPDATE o x JOIN c y ON x.a = y.a SET x.t = 1"),
            ["UPDATE `sbtest`.o AS x SET `t` = 1 FROM `sbtest`.c AS y WHERE (x.a = y.a)"]
        );
        assert_eq!(
            sqlite("DELETE x FROM o x LEFT JOIN c ON x.a = c.a WHERE c.a IS NULL"),
            [
                "DELETE FROM `sbtest`.o WHERE _rowid_ IN (SELECT x._rowid_ FROM `sbtest`.o x \
              LEFT JOIN `sbtest`.c ON x.a = c.a WHERE c.a IS NULL)"
            ]
        );
    }
}
