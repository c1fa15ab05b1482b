//! What CREATE and DROP TEMPORARY TABLE did inside the engine's transaction, done again after
//! SQLite rolls that transaction back.
//!
//! MySQL's CREATE and DROP TEMPORARY TABLE neither commit an open transaction
//! (`stmt_causes_implicit_commit`, `sql/sql_parse.cc`) nor are undone by its ROLLBACK: they
//! change the session's list of temporary tables, which no transaction covers. SQLite's
//! transaction covers the connection's `temp` database too, so a rollback of the engine's
//! transaction (ROLLBACK, a failed COMMIT, a deadlock, a write SQLite rolled back whole,
//! ROLLBACK TO SAVEPOINT) would bring a dropped temporary table back and take a created one
//! away. The journal keeps, from the first such statement inside the engine's transaction to
//! its end, the SQL that made each table (its CREATE TABLE and indexes; a CREATE ... SELECT's
//! without its rows) and the tables dropped, in order, with the savepoints between them. After
//! a rollback, what came after the point rolled back to is done again, in order. A table made
//! again is empty: the rows written to it in the transaction are rolled back in MySQL too, as
//! InnoDB's temporary tables are transactional. The other DDL of temporary tables (ALTER,
//! TRUNCATE, DROP TABLE, the index statements) commits the transaction first, as in MySQL, so
//! it never runs inside one.

use mdl_sql::{Effect, Plan};
use sqlparser::ast::Statement;

use super::{sqlite_name, SCHEMA};
use crate::engine::{quote, EngineConn};
use crate::error::ServerError;
use crate::rewrite::Rewritten;

/// The temporary-table DDL of the engine's open transaction (see the module docs).
#[derive(Debug, Default)]
pub struct Journal {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone)]
enum Entry {
    /// The statements that made a table.
    Created(Vec<String>),
    /// A table dropped: its SQLite name.
    Dropped(String),
    /// A savepoint of the transaction.
    Savepoint(String),
}

/// After a statement that created or dropped temporary tables (`plan`) succeeded: what it did,
/// if it ran inside the engine's transaction (`rw`: its SQLite statements).
pub fn record(db: &mut EngineConn, plan: &Plan, rw: Option<&Rewritten>, s: Option<&Statement>) {
    if !db.in_transaction() {
        return;
    }
    let mut entries: Vec<Entry> = (plan.temporary_dropped.iter())
        .map(|t| Entry::Dropped(sqlite_name(t)))
        .collect();
    if let (Some(Statement::CreateTable(c)), Some(rw)) = (s, rw) {
        if c.temporary && !plan.temporary_created.is_empty() {
            let mut sql = rw.sql.clone();
            if c.query.is_some() {
                sql.pop(); // the select's rows (`execute/create_from.rs`: the last statement)
            }
            entries.push(Entry::Created(sql));
        }
    }
    db.journal().entries.extend(entries);
}

/// The engine's transaction ended: committed, the journal is done with; rolled back, what it
/// holds is done again.
pub fn transaction_ended(db: &mut EngineConn, committed: bool) {
    let entries = std::mem::take(&mut db.journal().entries);
    if !committed {
        replay(db, &entries);
    }
}

/// A SAVEPOINT, ROLLBACK TO SAVEPOINT or RELEASE SAVEPOINT the engine's transaction ran: the
/// journal follows SQLite's savepoints, and a rollback to one has what came after it done
/// again.
pub fn savepoint(db: &mut EngineConn, effect: &Effect) {
    let entries = &mut db.journal().entries;
    let at = |entries: &[Entry], name: &str| {
        (entries.iter())
            .rposition(|e| matches!(e, Entry::Savepoint(n) if n.eq_ignore_ascii_case(name)))
    };
    match effect {
        Effect::Savepoint(name) => entries.push(Entry::Savepoint(name.clone())),
        Effect::ReleaseSavepoint(name) => {
            if let Some(i) = at(entries, name) {
                let mut k = 0;
                entries.retain(|e| {
                    k += 1;
                    k <= i || !matches!(e, Entry::Savepoint(_))
                });
            }
        }
        Effect::RollbackToSavepoint(name) => {
            let Some(i) = at(entries, name) else { return };
            // SQLite forgets the savepoints after this one; the rest is done again in the
            // transaction, and stays in the journal for a later rollback of it.
            let again: Vec<Entry> = (entries.drain(i + 1..))
                .filter(|e| !matches!(e, Entry::Savepoint(_)))
                .collect();
            entries.extend(again.iter().cloned());
            replay(db, &again);
        }
        _ => {}
    }
}

/// Does `entries` again, in order; what SQLite refuses (nothing it did not take before) is
/// left.
fn replay(db: &mut EngineConn, entries: &[Entry]) {
    for e in entries {
        match e {
            Entry::Created(sql) => {
                for q in sql {
                    let _ = db.db().execute_batch(q);
                }
            }
            Entry::Dropped(name) => {
                let q = format!("DROP TABLE IF EXISTS {}.{}", quote(SCHEMA), quote(name));
                let _ = db.db().execute_batch(&q);
            }
            Entry::Savepoint(_) => {}
        }
    }
}

/// A connection reset (`COM_RESET_CONNECTION`, `COM_CHANGE_USER`), after the engine's
/// transaction was rolled back: every temporary table goes, as MySQL's `THD::cleanup` closes
/// them (`close_temporary_tables`, `sql/sql_class.cc`).
///
/// # Errors
/// SQLite errors.
pub fn drop_all(db: &mut EngineConn) -> Result<(), ServerError> {
    db.journal().entries.clear();
    let names: Vec<String> = {
        let mut st = (db.db())
            .prepare(
                "SELECT name FROM temp.sqlite_schema WHERE type = 'table' \
                 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
            )
            .map_err(|e| ServerError::from_engine(&e, None))?;
        let rows = st
            .query_map([], |r| r.get(0))
            .map_err(|e| ServerError::from_engine(&e, None))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| ServerError::from_engine(&e, None))?
    };
    for n in names {
        db.execute_batch(&format!("DROP TABLE {}.{}", quote(SCHEMA), quote(&n)))?;
    }
    Ok(())
}
