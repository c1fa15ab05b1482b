//! Step 4 of the statement's execution (see the parent module): what the engine does with a
//! statement whose metadata locks are held, and the existence checks MySQL makes under them.

use rusqlite::types::Value;
use sqlparser::ast::Statement;

use mdl_sql::StatementKind;

use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::rewrite::{LockingRead, Rewritten};
use crate::show_table;
use crate::wire::Output;

/// CREATE TABLE of a table that exists, decided under the shared lock the statement holds
/// before it asks for the exclusive one (MySQL's `open_table()` for `OPEN_FOR_CREATE`,
/// `sql/sql_base.cc`): 1050 at once, or with IF NOT EXISTS nothing to do but that 1050 as
/// a note (`Some`, `notes.rs`), instead of waiting for the exclusive lock behind the table's
/// users. 1049 if the schema does not exist. `None`: the table does not exist (the statement
/// goes on to its upgrade). A temporary one is the session's business only
/// (`temporary::existing`).
pub(super) fn existing_table(
    db: &mut EngineConn,
    c: &sqlparser::ast::CreateTable,
    state: &mdl_sql::SessionState,
) -> Result<Option<ServerError>, ServerError> {
    if c.temporary {
        return crate::temporary::existing(db, c, state);
    }
    let current = state.current_schema.as_deref();
    let Ok((schema, table)) = crate::rewrite::table_name(&c.name, current) else {
        return Ok(None); // 1046, from the rewrite
    };
    if !db.engine().has_schema(&schema) {
        return Err(ServerError::unknown_database(&schema));
    }
    // SQLite's names are case-insensitive: so is this test.
    if !(db.tables(&schema)?.iter()).any(|t| t.eq_ignore_ascii_case(&table)) {
        return Ok(None);
    }
    let exists = ServerError::new(1050, "42S01", format!("Table '{table}' already exists"));
    match c.if_not_exists {
        true => Ok(Some(exists)),
        false => Err(exists),
    }
}

/// Step 4: what the engine does for a statement of `kind` whose locks are held; `found` gets
/// what a query or UPDATE counts for `FOUND_ROWS()` (`session_values.rs`).
#[allow(clippy::too_many_arguments)] // the parts of one statement, borrowed apart
pub(super) async fn run(
    db: &mut EngineConn,
    info: &crate::processlist::ConnInfo,
    plan: &mdl_sql::Plan,
    s: Option<&Statement>,
    rw: Option<&Rewritten>,
    params: &[Value],
    (multi, found_rows): (bool, bool),
    schema: Option<String>,
    found: &mut Option<u64>,
) -> Result<Output, ServerError> {
    use StatementKind as K;
    let kind = plan.kind;
    let sql: &[String] = rw.map_or(&[], |r| r.sql.as_slice());
    let first = || sql.first().map(String::as_str).unwrap_or("");
    match kind {
        K::Select if rw.is_some_and(|r| r.locking_read.is_some()) => {
            // A locking read takes the writer as a write does (`rewrite.rs`).
            match rw.and_then(|r| r.locking_read) {
                Some(LockingRead::NoWait) => db.try_take_writer()?,
                _ => {
                    info.set_state(crate::processlist::WAITING_FOR_WRITER);
                    db.take_writer(&info.kill).await?;
                    info.set_state("executing");
                }
            }
            if multi {
                db.begin()?;
            }
            let mut out = select(db, first(), rw, params, schema.as_deref(), found)?;
            super::result_kinds::add(db, s, schema.as_deref(), &mut out);
            Ok(out)
        }
        K::Explain => match crate::explain::explained(first()) {
            Some(statement) => crate::explain::explain(db, statement, params, schema.as_deref()),
            None => db.run(first(), params, schema.as_deref()),
        },
        K::Select => {
            let mut out = select(db, first(), rw, params, schema.as_deref(), found)?;
            super::result_kinds::add(db, s, schema.as_deref(), &mut out);
            Ok(out)
        }
        // `SET @a = x`: the values, which the caller keeps.
        K::Set if rw.is_some_and(|r| !r.user_vars.is_empty()) => {
            db.run(first(), params, schema.as_deref())
        }
        K::Show => match s {
            Some(Statement::ExplainTable { table_name, .. }) => {
                show_table::columns(db, table_name, schema)
            }
            Some(Statement::ShowColumns { show_options, .. }) => {
                match show_options
                    .show_in
                    .as_ref()
                    .and_then(|i| i.parent_name.as_ref())
                {
                    Some(name) => show_table::columns(db, name, schema),
                    None => Err(ServerError::parse("SHOW COLUMNS")),
                }
            }
            // `SHOW <words>` that is neither `SHOW INDEX` nor a form of `show_query.rs`: said
            // so, rather than an empty answer a client would take for MySQL's.
            Some(Statement::ShowVariable { variable }) => {
                show_table::show_index(db, variable, schema).unwrap_or_else(|| {
                    Err(ServerError::not_supported(
                        &s.map_or(String::new(), |s| s.to_string()),
                    ))
                })
            }
            Some(Statement::ShowCreate { .. }) => show_table::show_create(db, s, schema),
            Some(other) => Err(ServerError::not_supported(&other.to_string())),
            None => Ok(Output::OK),
        },
        K::Insert | K::Update | K::Delete => {
            // A write to temporary tables only (which leaves the transaction read-only) touches
            // nothing of another connection's: outside a transaction it needs no writer; in
            // one it takes it, so that ROLLBACK undoes it (`temporary.rs`).
            if plan.writes || multi {
                info.set_state(crate::processlist::WAITING_FOR_WRITER);
                db.take_writer(&info.kill).await?;
            }
            info.set_state("updating");
            if multi {
                db.begin()?;
            }
            let out = match s {
                Some(Statement::Insert(ins)) if ins.replace_into => {
                    crate::replace_rows::run(db, ins, first(), params, schema.as_deref())
                }
                _ => db.run(first(), params, schema.as_deref()),
            };
            // SQLite's failed foreign-key check as MySQL's 1452 / 1451 (`foreign_keys.rs`).
            let target = rw.and_then(|r| r.tables.first());
            let out = out
                .map_err(|e| crate::foreign_keys::explain(db, e, kind, target, first(), params))?;
            if let (K::Update, Output::Done { affected, .. }) = (kind, &out) {
                *found = Some(*affected); // SQLite's count: the rows matched
            }
            Ok(mysql_counts(db, kind, out, found_rows))
        }
        K::CreateTable
        | K::AlterTable
        | K::DropTable
        | K::TruncateTable
        | K::RenameTable
        | K::CreateIndex
        | K::DropIndex => {
            // The DDL of temporary tables only changes the connection's own `temp` database.
            if plan.writes {
                db.take_writer(&info.kill).await?;
            }
            if kind == K::DropTable {
                missing_tables(db, s, schema.as_deref())?;
            }
            super::fk_ddl::before(db, kind, s, schema.as_deref())?;
            // A DDL of several SQLite statements (an ALTER TABLE of several operations, a
            // CREATE TABLE with its indexes, RENAME or DROP of several tables) applies all or
            // none, as MySQL 8.0's atomic DDL: SQLite's DDL is transactional.
            let several = sql.len() > 1;
            // A CREATE TABLE ... SELECT's rows are its last statement's, which alone takes
            // the parameters (`create_from.rs`); its affected rows are those, as MySQL's.
            let mut rows = 0;
            let mut apply = |db: &mut EngineConn| -> Result<(), ServerError> {
                if several {
                    db.execute_batch("SAVEPOINT mdl_ddl")?;
                }
                let done = (sql.iter()).enumerate().try_for_each(|(i, q)| {
                    let last = i + 1 == sql.len();
                    let params = if last || !copies(s) { params } else { &[] };
                    let out = db.run(q, params, schema.as_deref());
                    if let Ok(Output::Done { affected, .. }) = out {
                        rows = affected;
                    }
                    out.map(drop).map_err(|e| crate::error::ddl_error(q, e))
                });
                let done = done.and_then(|()| super::fk_ddl::verify(db, s, schema.as_deref()));
                if several {
                    let end = match done {
                        Ok(()) => "RELEASE mdl_ddl",
                        Err(_) => "ROLLBACK TO mdl_ddl; RELEASE mdl_ddl",
                    };
                    db.execute_batch(end)?;
                }
                done
            };
            let done = {
                // The statement's stage, around the engine's work only (`stage_event.rs`).
                let _stage = crate::stage_event::stage(kind, s).map(pfs::stage_start);
                // SQLite's checks off while a table is dropped or rebuilt, on while one is
                // renamed (`fk_ddl.rs`).
                match super::fk_ddl::foreign_keys_while(kind, s) {
                    Some(on) => crate::foreign_keys::with_foreign_keys(db, on, apply),
                    None => apply(db),
                }
            };
            let reloaded = super::fk_ddl::after(db, sql);
            done?;
            reloaded?;
            if kind == K::RenameTable {
                // A renamed view (`view_ddl::rename_views`) is known under its new name.
                let engine = db.engine().clone();
                for schema in engine.views.schemas() {
                    engine.views.reload(db.db(), &schema)?;
                }
            }
            let followed = super::view_ddl::follow_tables(db);
            db.release_writer();
            let affected = if copies(s) { rows } else { 0 };
            followed.map(|()| Output::Done {
                affected,
                last_insert_id: 0,
            })
        }
        K::CreateSchema | K::DropSchema => schema_ddl(db, s),
        // FLUSH (but WITH READ LOCK and FOR EXPORT, whose locks are the statement): MySQL's
        // `handle_reload_request` (`sql/sql_reload.cc`) has nothing to do here. FLUSH TABLES
        // closes cached table handles, and this server caches none (every statement sees
        // SQLite's current schema), so OK at once is MySQL's answer on an idle table cache;
        // there are no grant tables (PRIVILEGES, USER_RESOURCES), logs (LOGS, BINARY LOGS,
        // ...), host cache (HOSTS) or cost tables (OPTIMIZER_COSTS) to reload. FLUSH STATUS
        // moves the session's counters to the server's once it succeeded (`execute.rs`).
        K::Flush => Ok(Output::OK),
        K::Commit => db.end(true).map(|()| Output::OK),
        K::Rollback => db.end(false).map(|()| Output::OK),
        K::Savepoint | K::ReleaseSavepoint | K::RollbackToSavepoint if db.in_transaction() => {
            let Some(q) = s.map(|s| s.to_string()) else {
                return Ok(Output::OK);
            };
            if db.execute_batch(&q).is_err() && kind == K::RollbackToSavepoint {
                // Taken before the first write: everything the engine did goes.
                db.end(false)?;
            } else {
                crate::temporary::savepoint(db, &plan.effect);
            }
            Ok(Output::OK)
        }
        K::Use => {
            if let Some(Statement::Use(u)) = s {
                let name = u.to_string();
                let name = name.rsplit(' ').next().unwrap_or("").trim_matches('`');
                let name = name.to_ascii_lowercase(); // lower_case_table_names = 1
                let name = name.as_str();
                if !db.engine().has_schema(name) {
                    return Err(ServerError::unknown_database(name));
                }
            }
            Ok(Output::OK)
        }
        _ => Ok(Output::OK),
    }
}

/// Whether `s` is a CREATE TABLE ... SELECT, which inserts the select's rows.
fn copies(s: Option<&Statement>) -> bool {
    matches!(s, Some(Statement::CreateTable(c)) if c.query.is_some())
}

/// A query, and what it counts for `FOUND_ROWS()` into `found` (`rewrite/found_rows.rs`). The
/// count of `SQL_CALC_FOUND_ROWS` runs after the query in one read transaction of SQLite's with
/// it (unless one is open), so both read the same rows; any other query counts the rows it gave.
fn select(
    db: &mut EngineConn,
    sql: &str,
    rw: Option<&Rewritten>,
    params: &[Value],
    schema: Option<&str>,
    found: &mut Option<u64>,
) -> Result<Output, ServerError> {
    let plan = rw.map(|r| &r.found_rows);
    let count = plan.and_then(|p| p.count.as_deref());
    let snapshot = count.is_some() && db.db().is_autocommit();
    if snapshot {
        db.execute_batch("BEGIN")?;
    }
    // A kept query known never to scan or sort reads no counter (`plan_scans.rs`).
    let paused = db.status.watched() && rw.is_some_and(|r| never_scans(db, r, sql));
    if paused {
        db.status.pause();
    }
    let out = db.run(sql, params, schema);
    if paused {
        db.status.resume();
    }
    let out = out.and_then(|out| {
        *found = Some(match (count, &out) {
            (Some(count), _) => count_rows(db, count, params, schema)?,
            // MySQL adds the rows the OFFSET skipped (`rewrite/found_rows.rs`).
            (None, Output::Rows(r)) => {
                let sent = r.rows.len() as u64;
                match plan.and_then(|p| p.offset) {
                    Some(offset) if sent > 0 => sent + offset.rows(params),
                    _ => sent,
                }
            }
            (None, Output::Done { .. }) => 0,
        });
        Ok(out)
    });
    if snapshot {
        let end = if out.is_ok() { "COMMIT" } else { "ROLLBACK" };
        if db.execute_batch(end).is_err() {
            let _ = db.execute_batch("ROLLBACK");
        }
    }
    out
}

/// Whether `sql`, `rw`'s query, is known never to scan or sort at the current DDL epoch.
fn never_scans(db: &mut EngineConn, rw: &Rewritten, sql: &str) -> bool {
    let epoch = super::insert_select::epoch() as u64;
    rw.scans.never(epoch, db.db(), sql)
}

/// The one number `sql` (a `SELECT COUNT(*)`) gives, with as many of `params` as it takes.
fn count_rows(
    db: &mut EngineConn,
    sql: &str,
    params: &[Value],
    schema: Option<&str>,
) -> Result<u64, ServerError> {
    let taken = (db.db().prepare_cached(sql).map(|s| s.parameter_count()))
        .map_err(|e| ServerError::from_engine(&e, schema))?;
    let out = db.run(sql, &params[..taken.min(params.len())], schema)?;
    Ok(match out {
        Output::Rows(r) => match r.rows.first().and_then(|row| row.first()) {
            Some(crate::wire::Cell::Int(n)) => u64::try_from(*n).unwrap_or(0),
            _ => 0,
        },
        Output::Done { .. } => 0,
    })
}

/// MySQL's affected rows of a write whose rows SQLite counted (`rewrite/changed.rs`): an
/// UPDATE's changed rows, not its matched ones; an upsert's 1 per row inserted, 2 per row
/// updated, 0 per row left as it was; a REPLACE's rows written and the rows it deleted for
/// them (`replace_rows.rs`). For a client with `CLIENT_FOUND_ROWS` (`found_rows`), an
/// UPDATE's matched rows, and an upsert's row left as it was counts 1 (`sql/sql_update.cc`:
/// `thd->get_protocol()->has_client_capability(CLIENT_FOUND_ROWS) ? found : updated`;
/// `sql/sql_insert.cc`, `write_record`, `info->stats.touched`).
///
/// MySQL's OK packet also says an UPDATE's matched rows in its info ("Rows matched: ...
/// Changed: ..."): not sent, as opensrv-mysql 0.7 writes the info as a string to the packet's
/// end when the client has no `CLIENT_SESSION_TRACK`, where MySQL writes a length-prefixed
/// string (`net_send_ok`, `sql/protocol_classic.cc`), which clients such as mysql_async read.
fn mysql_counts(db: &EngineConn, kind: StatementKind, out: Output, found_rows: bool) -> Output {
    let Output::Done {
        affected,
        last_insert_id,
    } = out
    else {
        return out;
    };
    let (updated, unchanged) = db.take_updated_rows();
    let deleted = db.replaced().take_deleted();
    // A row left as it was: not counted, or (found rows) counted as matched.
    let unchanged_weight = if found_rows { 1 } else { 2 };
    let affected = match kind {
        StatementKind::Update if found_rows => affected,
        StatementKind::Update => affected.saturating_sub(unchanged),
        StatementKind::Insert => {
            (affected + updated + deleted).saturating_sub(unchanged_weight * unchanged)
        }
        _ => affected,
    };
    Output::Done {
        affected,
        last_insert_id,
    }
}

/// `DROP TABLE` (without `IF EXISTS`) of tables of which some do not exist: 1051 naming them
/// all, and nothing dropped, as MySQL 8.0's atomic DROP TABLE (`mysql_rm_table_no_locks`,
/// `sql/sql_table.cc`: `ER_BAD_TABLE_ERROR` before any table goes). The statement holds X on
/// every name, so no table can appear or go between this check and the drops.
fn missing_tables(
    db: &mut EngineConn,
    s: Option<&Statement>,
    current: Option<&str>,
) -> Result<(), ServerError> {
    let Some(Statement::Drop {
        names,
        if_exists: false,
        ..
    }) = s
    else {
        return Ok(());
    };
    let missing = super::notes::missing_tables(db, names, false, current)?;
    match missing.is_empty() {
        true => Ok(()),
        false => Err(super::notes::unknown_table(&missing.join(","))),
    }
}

/// `CREATE DATABASE` / `DROP DATABASE` in the engine.
fn schema_ddl(db: &mut EngineConn, s: Option<&Statement>) -> Result<Output, ServerError> {
    // Folded as the session folds names (lower_case_table_names = 1).
    let unquote =
        |n: &sqlparser::ast::ObjectName| n.to_string().trim_matches('`').to_ascii_lowercase();
    match s {
        Some(Statement::CreateDatabase {
            db_name,
            if_not_exists,
            ..
        }) => db
            .engine()
            .create_schema(&unquote(db_name), *if_not_exists)?,
        Some(Statement::CreateSchema {
            schema_name: sqlparser::ast::SchemaName::Simple(n),
            if_not_exists,
            ..
        }) => db.engine().create_schema(&unquote(n), *if_not_exists)?,
        Some(Statement::Drop {
            names, if_exists, ..
        }) => {
            for n in names {
                db.engine().drop_schema(&unquote(n), *if_exists)?;
            }
        }
        _ => {}
    }
    db.refresh();
    Ok(Output::OK)
}
