//! SQLite's "FOREIGN KEY constraint failed" as MySQL's 1452 (`ER_NO_REFERENCED_ROW_2`: a
//! child row without its parent) or 1451 (`ER_ROW_IS_REFERENCED_2`: a parent row with
//! children), naming the constraint as InnoDB's `row_ins_foreign_report_err` does.
//!
//! SQLite does not say which key failed. The failed statement (which SQLite has undone) runs
//! again in a savepoint with the checks deferred (`PRAGMA defer_foreign_keys`), `PRAGMA
//! foreign_key_check` of the table and of its children (theirs in turn) names the rows left
//! without a parent and their keys, and the savepoint is rolled back. A row of the
//! statement's table whose parent is another table is 1452;
//! anything else (a child of the table, or of a table a cascade changed) is 1451. A
//! `RESTRICT` key fails at once even when deferred (SQLite's rule): then the key is the
//! table's first `RESTRICT` key as a parent for a DELETE or UPDATE, its first key as a child
//! for an INSERT. Only the error path pays for this.

use rusqlite::types::Value;

use mdl_sql::{FkRule, StatementKind};

use super::ForeignKey;
use crate::engine::{quote, EngineConn};
use crate::error::ServerError;

/// Whether `e` is the engine's failed foreign-key check (`error.rs`).
pub fn is_failed_check(e: &ServerError) -> bool {
    e.code == ServerError::FOREIGN_KEY_FAILED && e.message == ServerError::FOREIGN_KEY_TEXT
}

fn child_row(k: &ForeignKey) -> ServerError {
    ServerError::new(
        1452,
        "23000",
        format!(
            "Cannot add or update a child row: a foreign key constraint fails ({})",
            k.in_message()
        ),
    )
}

fn parent_row(k: &ForeignKey) -> ServerError {
    ServerError::new(
        1451,
        "23000",
        format!(
            "Cannot delete or update a parent row: a foreign key constraint fails ({})",
            k.in_message()
        ),
    )
}

/// MySQL's error for `e`, the failure of `sql` (a write of `kind` to `target`), or `e` itself
/// when it is no failed foreign-key check (see the module docs).
pub fn explain(
    db: &mut EngineConn,
    e: ServerError,
    kind: StatementKind,
    target: Option<&(String, String)>,
    sql: &str,
    params: &[Value],
) -> ServerError {
    if !is_failed_check(&e) {
        return e;
    }
    let Some((schema, table)) = target else {
        return e;
    };
    let keys = db.engine().foreign_keys.of_schema(schema);
    let broken = rerun(db, schema, &checked(&keys, table), sql, params);
    let named = |t: &str, id: i64| keys.iter().find(|k| k.is_child(t) && k.id == id);
    let found = broken.iter().find_map(|(t, parent, id)| {
        let k = named(t, *id)?;
        let child = t.eq_ignore_ascii_case(table) && !parent.eq_ignore_ascii_case(table);
        Some(match (kind, child) {
            (StatementKind::Insert, _) | (_, true) => child_row(k),
            _ => parent_row(k),
        })
    });
    if let Some(found) = found {
        return found;
    }
    let as_parent = |k: &&ForeignKey| {
        k.is_parent(table)
            && match kind {
                StatementKind::Update => k.on_update == FkRule::Restrict,
                _ => k.on_delete == FkRule::Restrict,
            }
    };
    match kind {
        StatementKind::Insert => keys.iter().find(|k| k.is_child(table)).map(child_row),
        _ => (keys.iter().find(as_parent))
            .or_else(|| keys.iter().find(|k| k.is_parent(table)))
            .map(parent_row)
            .or_else(|| keys.iter().find(|k| k.is_child(table)).map(child_row)),
    }
    .unwrap_or(e)
}

/// The tables whose keys a write to `table` can break: `table` (a row without its parent)
/// and its children, theirs in turn (a row whose parent went, or changed by a rule). Only
/// these are checked, not the whole schema.
fn checked(keys: &[ForeignKey], table: &str) -> Vec<String> {
    let mut tables = vec![table.to_string()];
    let mut i = 0;
    while let Some(parent) = tables.get(i).cloned() {
        for k in keys.iter().filter(|k| k.is_parent(&parent)) {
            if !tables.iter().any(|t| k.is_child(t)) {
                tables.push(k.table.clone());
            }
        }
        i += 1;
    }
    tables
}

/// `sql` run again with the checks deferred, in a savepoint rolled back after: the rows
/// `foreign_key_check` finds broken then in `tables`, `(table, parent, key id)`.
fn rerun(
    db: &mut EngineConn,
    schema: &str,
    tables: &[String],
    sql: &str,
    params: &[Value],
) -> Vec<(String, String, i64)> {
    if db
        .execute_batch("SAVEPOINT mdl_fk; PRAGMA defer_foreign_keys = ON")
        .is_err()
    {
        return Vec::new();
    }
    let mut found = Vec::new();
    if db.run(sql, params, Some(schema)).is_ok() {
        for t in tables {
            let check = format!("PRAGMA {}.foreign_key_check({})", quote(schema), quote(t));
            if let Ok(mut st) = db.db().prepare(&check) {
                let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(2)?, r.get(3)?)));
                if let Ok(rows) = rows {
                    found.extend(rows.filter_map(Result::ok));
                }
            }
        }
    }
    let _ = db.execute_batch("ROLLBACK TO mdl_fk; RELEASE mdl_fk; PRAGMA defer_foreign_keys = OFF");
    found
}
