//! `REPLACE`'s affected rows, as MySQL counts them: 1 per row written, plus 1 per old row
//! its unique keys' conflicts removed (`REPLACE INTO r VALUES (1, 5, 2)` over rows `(1, ..)`
//! and `(.., .., 2)` affects 3), for `REPLACE ... VALUES`, `... SET` and `... SELECT` alike.
//!
//! MySQL (`write_record()`, `sql/sql_insert.cc`; the manual's REPLACE page): each row is
//! written; on a duplicate of key `k` the old row is deleted (`info->stats.deleted++`) and
//! the write tried again, except that when `k` is the table's last unique key
//! (`last_uniq_key()`: no unique key after it in the table's key order) the old row is
//! updated in place instead, counted as deleted too unless InnoDB answers
//! `HA_ERR_RECORD_IS_THE_SAME` (no column differs): `if (error != HA_ERR_RECORD_IS_THE_SAME)
//! info->stats.deleted++`. The written row counts in `copied`, and the client's affected rows
//! are `copied + deleted + updated`. So a row that replaces one row equal to it, found on the
//! table's last unique key, counts 1, not 2 (`REPLACE INTO t VALUES (1, 1)` over `(1, 1)` in a
//! table whose only unique key is its primary key). The key order is MySQL's (`sort_keys()`,
//! `sql/sql_table.cc`): the primary key, the unique keys without a nullable column, then the
//! other unique keys, each in the order they were made; InnoDB finds a duplicate on the first
//! of them the row's values fill (no NULL in them: NULLs never conflict). A row equal to an
//! old row conflicts with it on every such key, and with no other row, so it is updated in
//! place iff every unique key before the table's last has a NULL among the row's values.
//!
//! SQLite's `REPLACE` deletes the conflicting rows itself and counts only the rows it writes
//! (`changes()`). The deleted rows are seen by two `TEMP` triggers made for the statement
//! and dropped after it: `AFTER DELETE` on the target passes each deleted row to
//! `MDL_REPLACE_DELETED(...)`, `AFTER INSERT` each written row to `MDL_REPLACE_INSERTED(in
//! place, ...)`; SQLite fires the deletes of a row's conflicts before the row's insert, so
//! the functions count per written row (`Replaced`), and the count goes through the
//! statement's outcome (`functions.rs`) to the executor's `mysql_counts` (as an upsert's
//! updated rows do). SQLite fires delete triggers for `REPLACE`'s deletions only with
//! `PRAGMA recursive_triggers` on, which every engine connection sets (`engine.rs`; the
//! server makes no triggers of its own, so nothing else changes).
//!
//! Why triggers: they see exactly the rows SQLite's own conflict resolution removes (its
//! affinities, collations and NULL rules, conflicts between rows of one statement, defaults
//! and generated ids), in the one statement as written. The other ways cost more or count
//! worse: counting each row's conflicts before its insert needs the statement split into
//! one write per row (its `SELECT` and expressions evaluated apart); a row count of the table
//! before and after is O(table); `changes()` and `data_version` do not see these deletions;
//! SQLite's pre-update hook would, but only in a build with `SQLITE_ENABLE_PREUPDATE_HOOK`,
//! which rusqlite offers only with build-time bindgen (libclang). Cost: two `CREATE TEMP
//! TRIGGER` and two `DROP TRIGGER` per REPLACE statement (about 30 µs in all, measured on
//! SQLite alone; in the connection's private temp schema, so no lock another connection
//! waits for; SQLite prepares the connection's cached statements again after a schema
//! change), the target's catalog read (its columns and unique keys: O(columns + keys)), then
//! O(columns) per written or deleted row, for the function calls and the copy of a row's
//! first deleted row: never a scan of the table. Other statements pay nothing (sysbench sends
//! no REPLACE).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use rusqlite::functions::FunctionFlags;
use rusqlite::types::Value;
use sqlparser::ast::{Insert, TableObject};

use crate::catalog;
use crate::engine::{quote, EngineConn};
use crate::error::ServerError;
use crate::functions::StatementOutcome;
use crate::wire::Output;

const DELETED: &str = "MDL_REPLACE_DELETED";
const INSERTED: &str = "MDL_REPLACE_INSERTED";
const DROP: &str = "DROP TRIGGER IF EXISTS temp.mdl_replace_deleted; \
                    DROP TRIGGER IF EXISTS temp.mdl_replace_inserted";
/// SQLite's most arguments of a function call (`SQLITE_MAX_FUNCTION_ARG`), less the flag:
/// a wider table's rows are not passed, and a row equal to the one it replaces counts 2.
const MAX_VALUES: usize = 999;

/// What a `REPLACE`'s triggers reported (see the module docs); part of the statement's
/// outcome.
#[derive(Debug, Default)]
pub struct Replaced {
    /// While a REPLACE runs: the rows deleted for the row being written.
    pending: Mutex<Option<Pending>>,
    /// The deleted rows MySQL counts, since the last take.
    deleted: AtomicU64,
}

/// The rows deleted for the row being written.
#[derive(Debug, Default)]
enum Pending {
    #[default]
    None,
    /// One, with its values (empty when not passed).
    One(Vec<Value>),
    Many(u64),
}

impl Replaced {
    /// The deleted rows counted since the last take; the count starts again.
    pub fn take_deleted(&self) -> u64 {
        self.deleted.swap(0, Relaxed)
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Option<Pending>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The triggers' calls count from now (until `disarm`).
    fn arm(&self) {
        *self.pending() = Some(Pending::None);
    }

    fn disarm(&self) {
        *self.pending() = None;
    }

    fn deleted_row(&self, row: Vec<Value>) {
        let mut p = self.pending();
        let Some(p) = p.as_mut() else { return };
        *p = match std::mem::take(p) {
            Pending::None => Pending::One(row),
            Pending::One(_) => Pending::Many(2),
            Pending::Many(n) => Pending::Many(n + 1),
        };
    }

    fn inserted_row(&self, in_place: bool, row: &[Value]) {
        let mut p = self.pending();
        let Some(p) = p.as_mut() else { return };
        let n = match std::mem::take(p) {
            Pending::None => 0,
            // Updated in place with the values it had: HA_ERR_RECORD_IS_THE_SAME, not counted.
            Pending::One(old) if in_place && !old.is_empty() && old == row => 0,
            Pending::One(_) => 1,
            Pending::Many(n) => n,
        };
        self.deleted.fetch_add(n, Relaxed);
    }
}

/// Registers the triggers' functions on `db`, reporting to `outcome`.
pub fn register(
    db: &rusqlite::Connection,
    outcome: &Arc<StatementOutcome>,
) -> rusqlite::Result<()> {
    let o = outcome.clone();
    db.create_scalar_function(DELETED, -1, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let row = (0..ctx.len()).map(|i| ctx.get::<Value>(i));
        o.replaced()
            .deleted_row(row.collect::<rusqlite::Result<_>>()?);
        Ok(Value::Null)
    })?;
    let o = outcome.clone();
    db.create_scalar_function(INSERTED, -1, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let in_place = !ctx.is_empty() && ctx.get::<Option<bool>>(0)? == Some(true);
        let row = (1..ctx.len()).map(|i| ctx.get::<Value>(i));
        o.replaced()
            .inserted_row(in_place, &row.collect::<rusqlite::Result<Vec<_>>>()?);
        Ok(Value::Null)
    })?;
    Ok(())
}

/// Runs `sql`, the rewrite of the REPLACE `ins`, with the triggers that count its deleted rows
/// on its target (see the module docs); the count goes to the statement's outcome. A target
/// the triggers cannot be made on (no such table, a view) runs without them, to SQLite's
/// error.
///
/// # Errors
/// The statement's; SQLite's reading the catalog or making the triggers.
pub(crate) fn run(
    db: &mut EngineConn,
    ins: &Insert,
    sql: &str,
    params: &[Value],
    current: Option<&str>,
) -> Result<Output, ServerError> {
    let TableObject::TableName(name) = &ins.table else {
        return db.run(sql, params, current);
    };
    // A temporary table's triggers are on its SQLite table (`temporary.rs`).
    let (schema, table) = crate::temporary::located_name(db, name, current)?;
    let temporary = schema == crate::temporary::SCHEMA;
    let triggers = match temporary || db.engine().has_schema(&schema) {
        true => triggers(db, &schema, &table)?,
        false => None,
    };
    let Some(triggers) = triggers else {
        return db.run(sql, params, current);
    };
    if db.execute_batch(&triggers).is_err() {
        drop_triggers(db);
        return db.run(sql, params, current);
    }
    db.replaced().arm();
    let out = db.run(sql, params, current);
    db.replaced().disarm();
    drop_triggers(db);
    out
}

/// The statements that make the triggers on `schema.table`; `None` if it has no columns (no
/// such table).
fn triggers(db: &mut EngineConn, schema: &str, table: &str) -> Result<Option<String>, ServerError> {
    let cols = catalog::columns(db, schema, table)?;
    if cols.is_empty() {
        return Ok(None);
    }
    let parts = catalog::indexes(db, schema, table, &cols)?;
    let row = |prefix: &str| -> Vec<String> {
        match cols.len() <= MAX_VALUES {
            true => (cols.iter())
                .map(|c| format!("{prefix}.{}", quote(&c.name)))
                .collect(),
            false => Vec::new(),
        }
    };
    let mut inserted = vec![in_place(&unique_keys(&parts))];
    inserted.extend(row("new"));
    let target = format!("{}.{}", quote(schema), quote(table));
    Ok(Some(format!(
        "{DROP}; \
         CREATE TEMP TRIGGER mdl_replace_deleted AFTER DELETE ON {target} \
         BEGIN SELECT {DELETED}({}); END; \
         CREATE TEMP TRIGGER mdl_replace_inserted AFTER INSERT ON {target} \
         BEGIN SELECT {INSERTED}({}); END",
        row("old").join(", "),
        inserted.join(", ")
    )))
}

/// The unique keys' columns (`None` for an expression) in MySQL's key order (see the module
/// docs): the catalog lists the primary key first, then the unique keys in the order they
/// were made; those with a nullable column go after the others, in that order.
fn unique_keys(parts: &[catalog::IndexPart]) -> Vec<Vec<Option<String>>> {
    let mut keys: Vec<(bool, &str, Vec<Option<String>>)> = Vec::new();
    for p in parts.iter().filter(|p| p.unique) {
        match keys.last_mut() {
            Some((nullable, index, cols)) if *index == p.index => {
                *nullable |= p.nullable;
                cols.push(p.column.clone());
            }
            _ => keys.push((p.nullable, &p.index, vec![p.column.clone()])),
        }
    }
    keys.sort_by_key(|(nullable, ..)| *nullable); // stable
    keys.into_iter().map(|(.., cols)| cols).collect()
}

/// Whether a row equal to the row it replaces is updated in place (see the module docs):
/// every unique key before the last has a NULL among the new row's values, as SQL on `new`.
fn in_place(keys: &[Vec<Option<String>>]) -> String {
    let Some((_, before)) = keys.split_last() else {
        return "0".into(); // no unique key: nothing to replace
    };
    if before.is_empty() {
        return "1".into();
    }
    let has_null = |key: &Vec<Option<String>>| {
        let cols: Vec<String> = (key.iter())
            .map(|c| match c {
                Some(c) => format!("new.{} IS NULL", quote(c)),
                None => "0".into(), // an expression: taken as never NULL
            })
            .collect();
        format!("({})", cols.join(" OR "))
    };
    before
        .iter()
        .map(has_null)
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// Drops the triggers; once more if that fails (an interrupt of the statement that ends as
/// the drop starts), then a warning: the functions count nothing outside a REPLACE, and the
/// next REPLACE drops them first.
fn drop_triggers(db: &mut EngineConn) {
    if db.execute_batch(DROP).is_err() {
        if let Err(e) = db.execute_batch(DROP) {
            eprintln!(
                "mdl-server: warning: cannot drop REPLACE's triggers: {}",
                e.message
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(index: &str, column: &str, nullable: bool) -> catalog::IndexPart {
        catalog::IndexPart {
            index: index.into(),
            unique: true,
            seq: 1,
            column: Some(column.into()),
            nullable,
        }
    }

    #[test]
    fn keys_in_mysql_order_and_the_in_place_rule() {
        let parts = [
            part("PRIMARY", "id", false),
            part("u", "u", true),
            part("w", "w", false),
        ];
        let keys = unique_keys(&parts);
        let names: Vec<_> = keys.iter().map(|k| k[0].clone().unwrap()).collect();
        assert_eq!(names, ["id", "w", "u"]);
        assert_eq!(in_place(&keys), "(new.`id` IS NULL) AND (new.`w` IS NULL)");
        assert_eq!(in_place(&keys[..1]), "1");
        assert_eq!(in_place(&[]), "0");
    }

    #[test]
    fn counts_per_written_row() {
        let r = Replaced::default();
        r.deleted_row(vec![Value::Integer(1)]);
        r.inserted_row(true, &[Value::Integer(1)]);
        assert_eq!(r.take_deleted(), 0, "not armed");
        r.arm();
        r.inserted_row(true, &[Value::Integer(1)]); // no conflict
        r.deleted_row(vec![Value::Integer(1)]);
        r.inserted_row(true, &[Value::Integer(1)]); // the same, in place
        r.deleted_row(vec![Value::Integer(1)]);
        r.inserted_row(false, &[Value::Integer(1)]); // the same, deleted
        r.deleted_row(vec![Value::Integer(1)]);
        r.inserted_row(true, &[Value::Integer(2)]); // changed
        r.deleted_row(vec![Value::Integer(1)]);
        r.deleted_row(vec![Value::Integer(2)]);
        r.inserted_row(true, &[Value::Integer(1)]); // two rows
        r.disarm();
        assert_eq!(r.take_deleted(), 4);
        assert_eq!(r.take_deleted(), 0);
    }
}
