//! Writes to `performance_schema`: `UPDATE setup_instruments | setup_consumers` sets the live
//! switches, `TRUNCATE TABLE` resets summaries, histories and the connection tables, and every
//! other write is refused with 1142 (see the parent module's docs).

use sqlparser::ast::{Assignment, AssignmentTarget, Expr, Statement, Value};

use super::{connections, errors, fill, histograms, prepared, summaries, Sources};
use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::wire::{Cell, Output};

/// Whether `s` writes one of these schemas' tables, and so is handled here.
pub fn is_write(s: &Statement) -> bool {
    matches!(
        s,
        Statement::Update(_) | Statement::Insert(_) | Statement::Delete(_) | Statement::Truncate(_)
    )
}

/// `UPDATE setup_instruments | setup_consumers ...` and `TRUNCATE TABLE` of summaries,
/// histories and the connection tables (see the module docs); `tables` are the statement's `(schema, table)`.
///
/// # Errors
/// 1142 for any other write; SQLite's errors in the `WHERE`.
pub fn write(
    db: &mut EngineConn,
    s: &Statement,
    sqlite_where: Option<String>,
    tables: &[(String, String)],
    src: &Sources<'_>,
) -> Result<Output, ServerError> {
    let table = tables
        .first()
        .map(|(_, t)| t.to_ascii_lowercase())
        .unwrap_or_default();
    match s {
        Statement::Truncate(_) if summaries::truncates(&table) => {
            summaries::truncate(&table);
            Ok(Output::OK)
        }
        Statement::Truncate(_) if errors::TABLES.contains(&table.as_str()) => {
            errors::truncate(&table);
            Ok(Output::OK)
        }
        // Before the `events_` arm: a histogram is neither a summary nor a history.
        Statement::Truncate(_) if histograms::TABLES.contains(&table.as_str()) => {
            histograms::truncate(&table);
            Ok(Output::OK)
        }
        Statement::Truncate(_) if table.starts_with("events_") => {
            if table.contains("summary") {
                pfs::truncate_events_waits_summary_global_by_event_name();
            } else {
                pfs::truncate_events_history();
            }
            Ok(Output::OK)
        }
        Statement::Truncate(_) if table == prepared::TABLE => {
            pfs::truncate_prepared_statements_instances();
            Ok(Output::OK)
        }
        Statement::Truncate(_) if connections::TABLES.contains(&table.as_str()) => {
            connections::truncate(&table);
            Ok(Output::OK)
        }
        Statement::Update(u) if table == "setup_instruments" || table == "setup_consumers" => {
            let (enabled, timed) = switches(&u.assignments)?;
            fill(db, &table, src)?;
            let sql = format!(
                "SELECT NAME, ENABLED{} FROM performance_schema.{table}{}",
                if table == "setup_instruments" {
                    ", TIMED"
                } else {
                    ""
                },
                sqlite_where.map_or(String::new(), |w| format!(" WHERE {w}"))
            );
            let Output::Rows(rs) = db.run(&sql, &[], None)? else {
                return Ok(Output::OK);
            };
            let mut changed = 0;
            for r in &rs.rows {
                let name = match r.first() {
                    Some(Cell::Text(n)) => n.clone(),
                    _ => continue,
                };
                let yes = |c: Option<&Cell>| matches!(c, Some(Cell::Text(t)) if t == "YES");
                let (e0, t0) = (yes(r.get(1)), yes(r.get(2)));
                let (e1, t1) = (enabled.unwrap_or(e0), timed.unwrap_or(t0));
                if table == "setup_consumers" {
                    if e1 != e0 {
                        pfs::set_consumer(&name, e1).map_err(pfs_error)?;
                        changed += 1;
                    }
                } else if (e1, t1) != (e0, t0) {
                    pfs::set_instruments(&name, e1, t1).map_err(pfs_error)?;
                    changed += 1;
                }
            }
            Ok(Output::Done {
                affected: changed,
                last_insert_id: 0,
            })
        }
        _ => {
            let cmd = match s {
                Statement::Update(_) => "UPDATE",
                Statement::Insert(_) => "INSERT",
                Statement::Delete(_) => "DELETE",
                _ => "DROP",
            };
            Err(ServerError::access_denied(cmd, &table))
        }
    }
}

fn pfs_error(e: pfs::PfsError) -> ServerError {
    ServerError::new(1105, "HY000", e.to_string())
}

/// `ENABLED` and `TIMED` of `SET ENABLED = 'YES', TIMED = 'NO'`.
fn switches(a: &[Assignment]) -> Result<(Option<bool>, Option<bool>), ServerError> {
    let (mut enabled, mut timed) = (None, None);
    for x in a {
        let col = match &x.target {
            AssignmentTarget::ColumnName(n) => n.to_string().to_ascii_uppercase(),
            other => other.to_string(),
        };
        let v = match &x.value {
            Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                    s.eq_ignore_ascii_case("YES")
                }
                Value::Boolean(b) => *b,
                Value::Number(n, _) => n != "0",
                _ => return Err(bad_value(&col, &x.value.to_string())),
            },
            Expr::Identifier(i) => i.value.eq_ignore_ascii_case("YES"),
            other => return Err(bad_value(&col, &other.to_string())),
        };
        match col.as_str() {
            "ENABLED" => enabled = Some(v),
            "TIMED" => timed = Some(v),
            other => return Err(ServerError::access_denied("UPDATE", other)),
        }
    }
    Ok((enabled, timed))
}

fn bad_value(col: &str, v: &str) -> ServerError {
    ServerError::new(
        1366,
        "HY000",
        format!("Incorrect value {v} for column '{col}'"),
    )
}
