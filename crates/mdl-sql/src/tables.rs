//! Every table a DML statement references, and how: read (SR) or written (SW, SWLP).
//!
//! MySQL gives each table reference of a statement its own `Table_ref` with a metadata lock
//! request of MDL_TRANSACTION duration, typed by the reference's table lock type
//! (`sql/table.h`, `mdl_type_for_dml`: a write lock type gives SW, `TL_WRITE_LOW_PRIORITY`
//! gives SWLP, anything else SR). Which references are written, by statement:
//!
//! | statement | written (SW) | read (SR) | MySQL |
//! |---|---|---|---|
//! | `SELECT` | - | every table, in joins, subqueries, derived tables, CTEs | `Query_block::add_table_to_list` with the parser's default `TL_READ_DEFAULT` |
//! | `SELECT ... FROM DUAL` | - | - (no table) | `sql_yacc.yy`: `FROM DUAL_SYM` adds no table |
//! | `SELECT ... FOR UPDATE` / `FOR SHARE` | the query block's own tables (`OF` names only those) for UPDATE | FOR SHARE's tables, and the rest | `PT_query_block_locking_clause::set_lock_for_tables`, `Query_block::set_lock_for_table` (`sql/parse_tree_nodes.cc`, `sql/sql_parse.cc`): FOR UPDATE is `TL_WRITE`, FOR SHARE `TL_READ_WITH_SHARED_LOCKS` |
//! | `INSERT`/`REPLACE` | the target (SWLP with `LOW_PRIORITY`) | the `SELECT` part | `PT_insert::make_cmd`: `set_lock_for_tables(lock_option)` right after adding the target |
//! | `UPDATE` one table | the target | subqueries | `PT_update::make_cmd` |
//! | `UPDATE` several tables | every table of the join | subqueries | `PT_update::make_cmd`: "setting write lock for all tables" (`Sql_cmd_update::prepare_inner` lowers it to SR only for tables without UPDATE privilege; we have no privileges) |
//! | `DELETE` | the targets | the other tables of the join, subqueries | `PT_delete::add_table`, `multi_delete_link_tables` |
//!
//! A name that refers to a common table expression of the statement is not a table
//! (`Query_block::add_table_to_list` looks CTEs up first); the check here is by name over the
//! whole statement, not per scope. A view is locked under its own name here; the tables it
//! reads are added by `Plan::expand_views` (`plan/view.rs`), with the caller's catalog.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    Delete, FromTable, Insert, LockType as SqlLockType, ObjectName, Query, SetExpr, Statement,
    TableFactor, TableObject, TableWithJoins, Update, Visit, Visitor,
};

/// How a reference uses its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Access {
    /// SR.
    Read,
    /// SW.
    Write,
    /// SWLP.
    WriteLowPriority,
}

/// One table reference.
#[derive(Debug, Clone)]
pub(crate) struct TableRef {
    pub name: ObjectName,
    pub alias: Option<String>,
    pub access: Access,
}

/// A table of a FROM clause: its name and alias.
type Named = (ObjectName, Option<String>);

/// Collects every table factor and the names of the statement's CTEs.
#[derive(Default)]
struct Collect {
    refs: Vec<TableRef>,
    ctes: HashSet<String>,
    /// FOR UPDATE clauses: (the query's own tables, the `OF` name if any).
    for_update: Vec<(Vec<Named>, Option<ObjectName>)>,
}

impl Visitor for Collect {
    type Break = ();

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                self.ctes.insert(cte.alias.name.value.clone());
            }
        }
        for lock in &q.locks {
            if lock.lock_type == SqlLockType::Update {
                self.for_update.push((own_tables(q), lock.of.clone()));
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, f: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table { name, alias, .. } = f {
            if is_dual(name) {
                return ControlFlow::Continue(());
            }
            self.refs.push(TableRef {
                name: name.clone(),
                alias: alias.as_ref().map(|a| a.name.value.clone()),
                access: Access::Read,
            });
        }
        ControlFlow::Continue(())
    }
}

/// `FROM DUAL`: MySQL's reserved word for no table (`sql_yacc.yy`, `from_clause: FROM DUAL_SYM`),
/// which opens nothing and takes no lock. A quoted `` `dual` `` is a table.
pub fn is_dual(name: &ObjectName) -> bool {
    match name.0.as_slice() {
        [one] => one
            .as_ident()
            .is_some_and(|i| i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DUAL")),
        _ => false,
    }
}

/// The tables of a query block's own FROM clause (not those of its subqueries).
fn own_tables(q: &Query) -> Vec<Named> {
    let mut out = Vec::new();
    if let SetExpr::Select(s) = q.body.as_ref() {
        for twj in &s.from {
            join_tables(twj, &mut out);
        }
    }
    out
}

fn join_tables(twj: &TableWithJoins, out: &mut Vec<Named>) {
    for f in std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation)) {
        match f {
            TableFactor::Table { name, alias, .. } => {
                out.push((name.clone(), alias.as_ref().map(|a| a.name.value.clone())))
            }
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => join_tables(table_with_joins, out),
            _ => {}
        }
    }
}

/// Whether `r` is the reference that `target` (a name or an alias) designates.
fn designates(target: &ObjectName, name: &ObjectName, alias: Option<&str>) -> bool {
    match (target.0.as_slice(), alias) {
        ([one], Some(a)) => one.as_ident().is_some_and(|i| i.value == a),
        _ => target == name,
    }
}

/// The tables `node` (an expression, say) reads, CTE names left out.
pub(crate) fn read_refs<V: Visit>(node: &V) -> Vec<TableRef> {
    let mut c = Collect::default();
    let _ = node.visit(&mut c);
    without_ctes(c.refs, &c.ctes)
}

fn without_ctes(mut refs: Vec<TableRef>, ctes: &HashSet<String>) -> Vec<TableRef> {
    refs.retain(|r| match r.name.0.as_slice() {
        [one] => !one.as_ident().is_some_and(|i| ctes.contains(&i.value)),
        _ => true,
    });
    refs
}

/// Every table `stmt` references, with its access, CTE names left out.
pub(crate) fn table_refs(stmt: &Statement, low_priority: bool) -> Vec<TableRef> {
    let mut c = Collect::default();
    let _ = stmt.visit(&mut c);
    let write = if low_priority {
        Access::WriteLowPriority
    } else {
        Access::Write
    };
    let mut writes: Vec<Named> = Vec::new();
    match stmt {
        Statement::Insert(Insert {
            table: TableObject::TableName(name),
            priority,
            ..
        }) => {
            let low = matches!(
                priority,
                Some(sqlparser::ast::MysqlInsertPriority::LowPriority)
            );
            c.refs.push(TableRef {
                name: name.clone(),
                alias: None,
                access: if low {
                    Access::WriteLowPriority
                } else {
                    Access::Write
                },
            });
        }
        Statement::Update(Update { table, .. }) => join_tables(table, &mut writes),
        Statement::Delete(Delete {
            tables,
            from,
            using,
            ..
        }) => {
            let from = match from {
                FromTable::WithFromKeyword(v) | FromTable::WithoutKeyword(v) => v,
            };
            let mut all = Vec::new();
            for twj in from {
                join_tables(twj, &mut all);
            }
            if let Some(using) = using {
                // DELETE FROM targets USING tables: the FROM list names the targets (tables or
                // aliases of the USING tables), which are not references of their own.
                let targets = std::mem::take(&mut all);
                for twj in using {
                    join_tables(twj, &mut all);
                }
                for (n, a) in &targets {
                    if let Some(i) = c.refs.iter().position(|r| r.name == *n && r.alias == *a) {
                        c.refs.remove(i);
                    }
                    let target = n.clone();
                    if let Some(hit) = all
                        .iter()
                        .find(|(n, a)| designates(&target, n, a.as_deref()))
                    {
                        writes.push(hit.clone());
                    }
                }
            } else if tables.is_empty() {
                writes.extend(all.into_iter().take(1));
            } else {
                for t in tables {
                    if let Some(hit) = all.iter().find(|(n, a)| designates(t, n, a.as_deref())) {
                        writes.push(hit.clone());
                    }
                }
            }
        }
        _ => {}
    }
    for (tables, of) in &c.for_update {
        for (n, a) in tables {
            if of.as_ref().is_none_or(|o| designates(o, n, a.as_deref())) {
                c.refs.push(TableRef {
                    name: n.clone(),
                    alias: a.clone(),
                    access: Access::Write,
                });
            }
        }
    }
    for (n, a) in writes {
        c.refs.push(TableRef {
            name: n,
            alias: a,
            access: write,
        });
    }
    without_ctes(c.refs, &c.ctes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Statement as P};

    fn refs(sql: &str) -> Vec<(String, Access)> {
        let p = parse(sql).unwrap().remove(0);
        let P::Sql {
            statement,
            modifiers,
        } = p.statement
        else {
            panic!()
        };
        let mut v: Vec<_> = table_refs(&statement, modifiers.low_priority)
            .into_iter()
            .map(|r| (r.name.to_string(), r.access))
            .collect();
        v.sort();
        v.dedup();
        v
    }

    use Access::*;

    #[test]
    fn select_reads_everything() {
        assert_eq!(
            refs("SELECT * FROM t1 JOIN d.t2 ON t1.a = t2.a WHERE t1.b IN (SELECT x FROM t3) AND EXISTS (SELECT 1 FROM (SELECT * FROM t4) AS dt)"),
            [("d.t2".into(), Read), ("t1".into(), Read), ("t3".into(), Read), ("t4".into(), Read)]
        );
        assert_eq!(
            refs("WITH c AS (SELECT * FROM t) SELECT * FROM c"),
            [("t".into(), Read)]
        );
    }

    #[test]
    fn for_update_writes_own_tables() {
        assert_eq!(
            refs("SELECT * FROM t1, t2 WHERE t1.a IN (SELECT a FROM t3) FOR UPDATE"),
            [
                ("t1".into(), Read),
                ("t1".into(), Write),
                ("t2".into(), Read),
                ("t2".into(), Write),
                ("t3".into(), Read)
            ]
        );
        assert_eq!(
            refs("SELECT * FROM t1 AS a JOIN t2 FOR UPDATE OF a"),
            [
                ("t1".into(), Read),
                ("t1".into(), Write),
                ("t2".into(), Read)
            ]
        );
        assert_eq!(refs("SELECT * FROM t FOR SHARE"), [("t".into(), Read)]);
    }

    #[test]
    fn dml_targets() {
        assert_eq!(
            refs("INSERT INTO t SELECT * FROM u"),
            [("t".into(), Write), ("u".into(), Read)]
        );
        assert_eq!(
            refs("INSERT LOW_PRIORITY INTO t VALUES (1)"),
            [("t".into(), WriteLowPriority)]
        );
        assert_eq!(
            refs("UPDATE LOW_PRIORITY t SET a = 1"),
            [("t".into(), Read), ("t".into(), WriteLowPriority)]
        );
        assert_eq!(
            refs("UPDATE t1, t2 SET t1.a = 1 WHERE t1.b = (SELECT max(b) FROM t3)"),
            [
                ("t1".into(), Read),
                ("t1".into(), Write),
                ("t2".into(), Read),
                ("t2".into(), Write),
                ("t3".into(), Read)
            ]
        );
        assert_eq!(
            refs("DELETE a FROM t1 AS a JOIN t2 ON a.x = t2.x"),
            [
                ("t1".into(), Read),
                ("t1".into(), Write),
                ("t2".into(), Read)
            ]
        );
        assert_eq!(
            refs("DELETE FROM t WHERE id = 1"),
            [("t".into(), Read), ("t".into(), Write)]
        );
    }
}
