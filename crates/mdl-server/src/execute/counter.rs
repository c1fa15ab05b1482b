//! The `AUTO_INCREMENT` counter, which statements other than `INSERT` change: SQLite's
//! `sqlite_sequence` row of a table whose counted column is `INTEGER PRIMARY KEY
//! AUTOINCREMENT` (`rewrite/ddl.rs`), read under the statement's locks.
//!
//! * `TRUNCATE TABLE t` starts the counter again, as MySQL's does (the table is recreated:
//!   `Sql_cmd_truncate_table::truncate_table`, `sql/sql_truncate.cc`).
//! * `ALTER TABLE t AUTO_INCREMENT = n` sets the next value to `n`, or to one past the
//!   column's largest value if `n` is not above it, as InnoDB does (the value is checked
//!   against the largest in use: `ha_innobase::commit_inplace_alter_table`, and MySQL's manual,
//!   "ALTER TABLE ... AUTO_INCREMENT").
//!
//! A table without SQLite's counter (a file made elsewhere) counts from its largest rowid:
//! neither statement has a counter to change there.

use sqlparser::ast::{AlterTableOperation, RenameTableNameKind, Statement, Value};

use crate::catalog;
use crate::engine::{quote, EngineConn, ROWID};
use crate::error::ServerError;

/// The statements that change the counters `s` changes, run after its own; `current` is the
/// session's schema.
///
/// # Errors
/// 1046 without a current schema for an unqualified name; SQLite errors.
pub(super) fn statements(
    db: &mut EngineConn,
    s: &Statement,
    current: Option<&str>,
) -> Result<Vec<String>, ServerError> {
    let mut out = Vec::new();
    match s {
        Statement::Truncate(t) => {
            for target in &t.table_names {
                // A temporary table's counter is in SQLite's `temp` (`temporary.rs`).
                let (schema, table) = crate::temporary::located_name(db, &target.name, current)?;
                if let Some(name) = counter(db, &schema, &table)? {
                    out.push(format!(
                        "DELETE FROM {}.sqlite_sequence WHERE name = {}",
                        quote(&schema),
                        literal(&name)
                    ));
                }
            }
        }
        Statement::AlterTable(a) => {
            let next = a.operations.iter().rev().find_map(|op| match op {
                AlterTableOperation::AutoIncrement { value, .. } => Some(&value.value),
                _ => None,
            });
            let Some(next) = next else { return Ok(out) };
            let next = match next {
                Value::Number(n, _) => n.parse::<u64>().ok(),
                _ => None,
            }
            .ok_or_else(|| ServerError::parse("AUTO_INCREMENT"))?;
            let (schema, table) = crate::temporary::located_name(db, &a.name, current)?;
            // Run after the statement's own: under the table's new name if it renames it (a
            // temporary table's SQLite name, `temporary.rs`).
            let temporary = schema == crate::temporary::SCHEMA;
            let renamed = a.operations.iter().find_map(|op| match op {
                AlterTableOperation::RenameTable {
                    table_name: RenameTableNameKind::To(n) | RenameTableNameKind::As(n),
                } if temporary => crate::temporary::sqlite_name_of(n, current),
                AlterTableOperation::RenameTable {
                    table_name: RenameTableNameKind::To(n) | RenameTableNameKind::As(n),
                } => crate::rewrite::table_name(n, Some(&schema))
                    .ok()
                    .map(|(_, t)| t),
                _ => None,
            });
            if let Some(name) = counter(db, &schema, &table)? {
                let (s, name) = (quote(&schema), renamed.unwrap_or(name));
                out.push(format!(
                    "DELETE FROM {s}.sqlite_sequence WHERE name = {}",
                    literal(&name)
                ));
                out.push(format!(
                    "INSERT INTO {s}.sqlite_sequence (name, seq) SELECT {}, \
                     max({}, coalesce((SELECT max({ROWID}) FROM {s}.{}), 0))",
                    literal(&name),
                    next.saturating_sub(1).min(i64::MAX as u64),
                    quote(&name)
                ));
            }
        }
        _ => {}
    }
    Ok(out)
}

/// The table's name as SQLite keeps it, if it has SQLite's counter.
fn counter(db: &mut EngineConn, schema: &str, table: &str) -> Result<Option<String>, ServerError> {
    if schema != crate::temporary::SCHEMA && !db.engine().has_schema(schema) {
        return Ok(None); // the statement's own run reports 1049
    }
    catalog::counter_name(db, schema, table)
}

fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}
