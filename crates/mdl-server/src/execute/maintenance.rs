//! The table maintenance statements on SQLite: `ANALYZE`, `CHECK`, `OPTIMIZE`, `REPAIR` and
//! `CHECKSUM TABLE`, run under the locks `mdl-sql` planned for them (`plan/maintenance.rs`:
//! SR for ANALYZE, CHECK and CHECKSUM; SNRW, upgraded to X before the engine runs, for
//! OPTIMIZE and REPAIR).
//!
//! The result is MySQL's (`sql/sql_admin.cc`, `mysql_admin_table`, `send_check_errmsg` and the
//! `HA_ADMIN_*` cases): one or more rows per table, `Table` (`schema.table`), `Op`,
//! `Msg_type`, `Msg_text`, what InnoDB answers:
//!
//! | statement | rows per table | here |
//! |---|---|---|
//! | ANALYZE | `status` `OK` | SQLite's `ANALYZE "schema"."table"` (its planner statistics, `sqlite_stat1`), if the engine's writer is free; else a `note` first, and the statistics stay as they were |
//! | CHECK | `status` `OK`, or `error` rows then `error` `Corrupt` (`HA_ADMIN_CORRUPT`) | SQLite's `PRAGMA "schema".quick_check("table")`: `ok`, or its messages |
//! | OPTIMIZE | `note` `Table does not support optimize, doing recreate + analyze instead`, `status` `OK` | the table recreated as `ALTER TABLE t FORCE` does (InnoDB's `admin_recreate_table`), then analyzed |
//! | REPAIR | `note` `The storage engine for the table doesn't support repair` | nothing (`HA_ADMIN_NOT_IMPLEMENTED`) |
//! | a table of `performance_schema` | `note` `The storage engine for the table doesn't support <op>` (CHECKSUM: NULL) | nothing: a view of the server's state |
//! | a table that does not exist (or whose schema does not) | `Error` `Table 'db.t' doesn't exist`, `status` `Operation failed` | the statement itself succeeds, as MySQL's |
//! | a view: CHECK | `status` `OK`; for a view whose table is gone, `Error` (1356's text), `error` `Corrupt` | nothing to check but that it runs |
//! | a view: ANALYZE, OPTIMIZE, REPAIR | `Error` `'db.v' is not BASE TABLE`, `status` `Operation failed` | nothing |
//!
//! `ALTER TABLE t FORCE` changes nothing in SQLite here (a table's pages are not InnoDB's
//! clustered index to rebuild; its lock steps are the rebuild's), so OPTIMIZE's recreate is
//! that too: SNRW, the upgrade to X, and the ANALYZE.
//!
//! `CHECKSUM TABLE` answers `Table`, `Checksum`: the sum (modulo 2^32) of each row's CRC-32
//! over its values, each with a type tag; NULL for a table that does not exist or a view (MySQL
//! adds a warning, which this server does not keep). The value is this server's: MySQL checksums
//! InnoDB's record format (`mysql_checksum_table`, `sql/sql_table.cc`), so the two never
//! agree, and it is only comparable between runs of this server; like MySQL's, it does not
//! depend on the order of the rows.

use mdl_sql::{Maintenance, NamedTable};
use rusqlite::types::ValueRef;

use crate::engine::{quote, EngineConn};
use crate::error::ServerError;
use crate::processlist::ConnInfo;
use crate::views::View;
use crate::wire::{Cell, Output, ResultSet};

/// Runs `op` on each table in turn (the module docs).
pub(super) async fn run(
    db: &mut EngineConn,
    info: &ConnInfo,
    op: Maintenance,
    tables: &[NamedTable],
    current: Option<&str>,
) -> Result<Output, ServerError> {
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    info.set_state("executing");
    for t in tables {
        // Folded as the session folds names (lower_case_table_names = 1).
        let schema = t.schema.as_deref().or(current).unwrap_or("");
        let schema = schema.to_ascii_lowercase();
        let name = t.table.to_ascii_lowercase();
        let label = format!("{schema}.{name}");
        if schema == "performance_schema" && crate::pfs_views::TABLES.contains(&name.as_str()) {
            // Views of the server's own state: as MySQL's PERFORMANCE_SCHEMA engine, which
            // implements none of the four (`HA_ADMIN_NOT_IMPLEMENTED`), and nothing to sum.
            rows.push(match op {
                Maintenance::Checksum => vec![Cell::Text(label), Cell::Null],
                _ => {
                    let msg = format!(
                        "The storage engine for the table doesn't support {}",
                        op.op()
                    );
                    row(&label, op, "note", &msg)
                }
            });
            continue;
        }
        // The session's temporary table of the name is the one (`temporary.rs`).
        let (located, temporary_name, temporary) = crate::temporary::locate(db, &schema, &name)?;
        if let Some(v) = db.engine().views.get(&schema, &name).filter(|_| !temporary) {
            rows.extend(view_rows(db, &v, op, &label));
            continue;
        }
        let stored = match db.engine().has_schema(&schema) {
            _ if temporary => Some(temporary_name),
            true => (db.tables(&schema)?.into_iter()).find(|n| n.eq_ignore_ascii_case(&name)),
            false => None,
        };
        let schema = located;
        let Some(stored) = stored else {
            match op {
                Maintenance::Checksum => rows.push(vec![Cell::Text(label), Cell::Null]),
                _ => {
                    let msg = format!("Table '{label}' doesn't exist");
                    rows.push(row(&label, op, "Error", &msg));
                    rows.push(row(&label, op, "status", "Operation failed"));
                }
            }
            continue;
        };
        let target = format!("{}.{}", quote(&schema), quote(&stored));
        match op {
            Maintenance::Analyze => {
                analyze(db, (&target, temporary), &label, op, &mut rows)?;
                rows.push(row(&label, op, "status", "OK"));
            }
            Maintenance::Optimize => {
                rows.push(row(
                    &label,
                    op,
                    "note",
                    "Table does not support optimize, doing recreate + analyze instead",
                ));
                analyze(db, (&target, temporary), &label, op, &mut rows)?;
                rows.push(row(&label, op, "status", "OK"));
            }
            Maintenance::Repair => rows.push(row(
                &label,
                op,
                "note",
                "The storage engine for the table doesn't support repair",
            )),
            Maintenance::Check => {
                let found = quick_check(db, &schema, &stored)?;
                for (kind, text) in check_result(&found) {
                    rows.push(row(&label, op, kind, text));
                }
            }
            Maintenance::Checksum => {
                let sum = checksum(db, &target)?;
                rows.push(vec![Cell::Text(label), Cell::Int(i64::from(sum))]);
            }
            _ => return Err(ServerError::not_supported(op.op())),
        }
    }
    let columns: &[&str] = match op {
        Maintenance::Checksum => &["Table", "Checksum"],
        _ => &["Table", "Op", "Msg_type", "Msg_text"],
    };
    Ok(Output::Rows(ResultSet {
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
        kinds: Vec::new(),
    }))
}

/// The rows of `op` on view `v` (`mysql_admin_table`, `sql/sql_admin.cc`). CHECK, the one
/// of them that opens a view (its `check_view`), answers `status OK`; for a view that cannot
/// run, the 1356 its open fails with, then `error Corrupt` (1356 is not one of
/// `table_not_corrupt_error`'s). ANALYZE, OPTIMIZE and REPAIR open base tables only
/// (`required_type`): `ER_WRONG_OBJECT` (1347), which is `Operation failed`. CHECKSUM TABLE
/// too (`mysql_checksum_table`, `sql/sql_table.cc`): NULL, as for a table that is not there.
fn view_rows(db: &mut EngineConn, v: &View, op: Maintenance, label: &str) -> Vec<Vec<Cell>> {
    match op {
        Maintenance::Checksum => vec![vec![Cell::Text(label.to_string()), Cell::Null]],
        Maintenance::Check => match opens(db, v) {
            true => vec![row(label, op, "status", "OK")],
            false => vec![
                row(
                    label,
                    op,
                    "Error",
                    &ServerError::view_invalid(label).message,
                ),
                row(label, op, "error", "Corrupt"),
            ],
        },
        _ => vec![
            row(label, op, "Error", &format!("'{label}' is not BASE TABLE")),
            row(label, op, "status", "Operation failed"),
        ],
    }
}

/// View `v` can run: it is no stub (`views.rs`), and SQLite prepares a read of it.
fn opens(db: &mut EngineConn, v: &View) -> bool {
    let sql = format!("SELECT * FROM {}.{}", quote(&v.schema), quote(&v.name));
    !v.invalid && db.db().prepare(&sql).is_ok()
}

/// SQLite's `ANALYZE` of one table, which writes its statistics (`sqlite_stat1`) and so needs
/// the engine's writer. If another connection's transaction holds it, the statistics are left
/// as they were and a `note` row says so: waiting would make ANALYZE wait for a transaction
/// that wrote the table, which MySQL's does not (its SR is compatible with the writer's SW,
/// and InnoDB samples the table without row locks). A temporary table's statistics are the
/// connection's own: no writer.
fn analyze(
    db: &mut EngineConn,
    (target, temporary): (&str, bool),
    label: &str,
    op: Maintenance,
    rows: &mut Vec<Vec<Cell>>,
) -> Result<(), ServerError> {
    if !temporary && db.try_take_writer().is_err() {
        let msg = "Statistics not updated: another transaction holds the engine's writer";
        rows.push(row(label, op, "note", msg));
        return Ok(());
    }
    db.execute_batch(&format!("ANALYZE {target}"))
}

fn row(table: &str, op: Maintenance, kind: &str, text: &str) -> Vec<Cell> {
    [table, op.op(), kind, text]
        .into_iter()
        .map(|s| Cell::Text(s.to_string()))
        .collect()
}

/// SQLite's `PRAGMA quick_check` of one table: `["ok"]`, or what it found wrong.
fn quick_check(db: &mut EngineConn, schema: &str, table: &str) -> Result<Vec<String>, ServerError> {
    let sql = format!("PRAGMA {}.quick_check({})", quote(schema), quote(table));
    let engine = |e: rusqlite::Error| ServerError::from_engine(&e, Some(schema));
    let mut st = db.db().prepare(&sql).map_err(engine)?;
    let found = st
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(engine)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(engine)?;
    Ok(found)
}

/// CHECK's `Msg_type`, `Msg_text` rows from what `quick_check` found: `status` `OK` for its
/// `ok`; else each message as an `error`, then `error` `Corrupt` (`mysql_admin_table`'s
/// `HA_ADMIN_CORRUPT`).
fn check_result(found: &[String]) -> Vec<(&'static str, &str)> {
    if let [ok] = found {
        if ok == "ok" {
            return vec![("status", "OK")];
        }
    }
    let mut out: Vec<(&'static str, &str)> = found.iter().map(|m| ("error", m.as_str())).collect();
    out.push(("error", "Corrupt"));
    out
}

/// The sum of the rows' CRC-32s (the module docs).
fn checksum(db: &mut EngineConn, target: &str) -> Result<u32, ServerError> {
    let engine = |e: rusqlite::Error| ServerError::from_engine(&e, None);
    let mut st = (db.db())
        .prepare(&format!("SELECT * FROM {target}"))
        .map_err(engine)?;
    let n = st.column_count();
    let mut rows = st.query([]).map_err(engine)?;
    let mut sum = 0u32;
    while let Some(r) = rows.next().map_err(engine)? {
        let mut h = crc32fast::Hasher::new();
        for i in 0..n {
            match r.get_ref(i).map_err(engine)? {
                ValueRef::Null => h.update(&[0]),
                ValueRef::Integer(v) => {
                    h.update(&[1]);
                    h.update(&v.to_le_bytes());
                }
                ValueRef::Real(v) => {
                    h.update(&[2]);
                    h.update(&v.to_le_bytes());
                }
                ValueRef::Text(b) | ValueRef::Blob(b) => {
                    h.update(&[3]);
                    h.update(&(b.len() as u64).to_le_bytes());
                    h.update(b);
                }
            }
        }
        sum = sum.wrapping_add(h.finalize());
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::check_result;

    #[test]
    fn check_answers_ok_or_corrupt() {
        assert_eq!(check_result(&["ok".to_string()]), [("status", "OK")]);
        let found = [
            "row 3 missing from index k_1".to_string(),
            "wrong # of entries in index k_1".to_string(),
        ];
        assert_eq!(
            check_result(&found),
            [
                ("error", "row 3 missing from index k_1"),
                ("error", "wrong # of entries in index k_1"),
                ("error", "Corrupt"),
            ]
        );
        // No answer at all is no proof of health either.
        assert_eq!(check_result(&[]), [("error", "Corrupt")]);
    }
}
