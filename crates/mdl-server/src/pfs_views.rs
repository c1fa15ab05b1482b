//! `performance_schema.*` and the `sys` views (`schema_table_lock_waits`,
//! `innodb_lock_waits`, `processlist`, `session`, `statement_analysis`,
//! `statements_with_errors_or_warnings`, `user_summary`, `host_summary`,
//! `*_summary_by_statement_type` and their `x$` forms, `version`, `metrics`) as real SQLite
//! tables.
//!
//! Before a statement that names one of these tables runs, the connection copies a snapshot of
//! the rows `pfs` (and the lock manager, and the process list) give at that moment into a
//! table of the same name in its own in-memory `performance_schema` (or `sys`) database. SQLite
//! then runs the statement as written, so `WHERE`, `ORDER BY`, `GROUP BY` and joins (a
//! lock's `OWNER_CONTEXT_ID` with the process list's `ID`, its `OWNER_THREAD_ID` with
//! `threads`) work as in MySQL without an evaluator of our own. Columns keep MySQL's names;
//! numbers are integers, `YES`/`NO` switches text. `threads` also has MySQL's
//! `PROCESSLIST_DB`, `_COMMAND`, `_TIME`, `_STATE` and `_INFO`, from the process list.
//!
//! `sys.schema_table_lock_waits` is MySQL's view (sys 8.0: each pending TABLE lock joined with
//! each granted lock on the same object) computed by SQLite over the fresh snapshots, with
//! connection ids (`OWNER_CONTEXT_ID`) as the pids and `user@host` accounts without the port.
//! Like MySQL's, it lists a waiting ALTER TABLE as blocked by its own SHARED_UPGRADABLE too.
//! Its `waiting_query` is `sys.format_statement`'s; `sys.x$schema_table_lock_waits` is the
//! same view with the whole statement (`sys_lock_waits.rs`).
//!
//! `data_locks` and `data_lock_waits` list the engine's writer, InnoDB's row locks'
//! counterpart here: the connection that holds it and those that wait for it
//! (`data_locks.rs`: which values say so without naming a table or a record).
//! `sys.innodb_lock_waits` lists the same waits with the connections' transactions and
//! statements (`innodb_lock_waits.rs`).
//!
//! `sys.version` and `sys.metrics` are MySQL's views of the server: its version, and its
//! global status with the time (`sys_server.rs`: which of MySQL's rows are not there).
//!
//! `mutex_instances`, `rwlock_instances` and `cond_instances` are the live instrumented
//! synchronization objects, with their owners once `wait/synch/%` is enabled
//! (`instances.rs`). `setup_objects` has MySQL's default rows and is read-only here
//! (`setup_objects.rs`: why).
//!
//! `sys.processlist`, `sys.x$processlist`, `sys.session` and `sys.x$session` are MySQL's views
//! too, SQL over fresh snapshots of `threads`, `processlist`, `events_statements_current` and
//! `events_waits_current` (`sys_processlist.rs`: what each column shows, and which are NULL).
//!
//! `sys.statement_analysis`, `sys.statements_with_errors_or_warnings`,
//! `sys.statements_with_runtimes_in_95th_percentile`, `sys.statements_with_full_table_scans`,
//! `sys.statements_with_sorting` and their `x$` forms are MySQL's reports over the digest
//! summary (`sys_statements.rs`, `sys_scans.rs`); `sys.user_summary`,
//! `sys.host_summary`, their `_by_statement_type` forms and their `x$` forms are its reports
//! over `accounts` and the statement summaries by user and host (`sys_summaries.rs`).
//!
//! `global_variables`, `session_variables`, `global_status` and `session_status` are the rows
//! of `SHOW VARIABLES` and `SHOW STATUS`, the asking session's (`variables.rs`).
//!
//! `status_by_thread`, `variables_by_thread` and `user_variables_by_thread` are every
//! connection's counters, session variables and `@` variables, by its pfs thread
//! (`by_thread.rs`).
//!
//! `session_connect_attrs` and `session_account_connect_attrs` are the attributes clients sent
//! in their handshakes (`connect_attrs.rs`).
//!
//! `accounts`, `users` and `hosts` count the connections per account, user and host, live and
//! since the last truncate (`connections.rs`).
//!
//! `events_statements_summary_by_{thread,account,user,host}_by_event_name`,
//! `events_stages_summary_by_{thread,account,user,host}_by_event_name` and
//! `events_{waits,transactions}_summary_by_{account,user,host}_by_event_name` are the
//! statements, stages, waits and transactions of each thread, account, user and host, of
//! ended connections too (`summaries.rs`; the stages are those `stage_event.rs` records).
//!
//! `events_statements_histogram_global` and `events_statements_histogram_by_digest` are the
//! statements' latency histograms, MySQL's 450 buckets (`histograms.rs`).
//!
//! `events_errors_summary_global_by_error` and `events_errors_summary_by_{thread,account,user,
//! host}_by_error` count the errors, warnings and notes the sessions raised, by error number
//! (`errors.rs`).
//!
//! `UPDATE performance_schema.setup_instruments | setup_consumers SET ENABLED = ..., TIMED =
//! ... WHERE ...` changes the live switches: SQLite evaluates the `WHERE` over a snapshot and
//! each matching row's switch is set through `pfs`. `TRUNCATE TABLE` of the summary and
//! history tables resets them (those by thread, account, user and host as MySQL's: into their
//! parents, `summaries.rs`, `errors.rs`; the histograms their own, `histograms.rs`), of
//! `prepared_statements_instances` (every connection's live prepared statements,
//! `prepared.rs`) its rows' statistics, and of `accounts`, `users`, `hosts` their totals. Other writes are refused as in MySQL (1142) (`write.rs`).

mod by_thread;
pub(crate) mod columns;
mod connect_attrs;
mod connections;
mod data_locks;
mod errors;
mod histograms;
mod innodb_lock_waits;
mod instances;
mod prepared;
mod setup_objects;
mod summaries;
mod sys_lock_waits;
mod sys_processlist;
mod sys_scans;
mod sys_server;
mod sys_statements;
mod sys_summaries;
mod variables;
mod write;

pub(crate) use by_thread::rows as by_thread_rows;
pub(crate) use data_locks::lock_id as writer_lock_id;
use pfs::tables::{Row, Table};
use rusqlite::types::Value as SqlValue;
use serde_json::Value as Json;
use sys_lock_waits::schema_table_lock_waits;
pub use write::{is_write, write};

use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::processlist::Process;

/// What the snapshot reads besides `pfs`: the lock manager and the process list.
pub struct Sources<'a> {
    /// The lock manager.
    pub mgr: &'a mdl_core::MdlManager,
    /// The process list, already read.
    pub processes: &'a dyn Fn() -> Vec<Process>,
    /// The asking session's `SHOW VARIABLES` rows, or (`true`) `SHOW GLOBAL VARIABLES`'
    /// (`admin::variables`).
    pub variables: &'a dyn Fn(bool) -> Vec<(String, String)>,
    /// The asking session's `SHOW STATUS` rows, or (`true`) `SHOW GLOBAL STATUS`'
    /// (`admin::status`).
    pub status: &'a dyn Fn(bool) -> Vec<(String, String)>,
    /// Every connection's rows of `status_by_thread`, `variables_by_thread` or
    /// `user_variables_by_thread`, by the table's name (`by_thread::rows`).
    pub by_thread: &'a dyn Fn(&str) -> by_thread::Rows,
    /// The asking connection's id (`session_account_connect_attrs`: its account's rows).
    pub session: u64,
}

/// Each live connection's `pfs` session thread, connection id → `THREAD_ID` (`threads`'
/// `PROCESSLIST_ID` and `THREAD_ID`), from one read of `threads`: how a table of connections
/// (`data_locks`, the by-thread tables) and `PS_THREAD_ID` name a connection's thread.
pub(crate) fn thread_ids() -> std::collections::HashMap<u64, u64> {
    (pfs::threads().rows.into_iter())
        .filter_map(|t| Some((t.processlist_id?, t.thread_id)))
        .collect()
}

/// The `performance_schema` tables this server has.
pub const TABLES: [&str; 71] = [
    "metadata_locks",
    "metadata_lock_waits",
    "metadata_deadlocks",
    "data_locks",
    "data_lock_waits",
    "threads",
    "processlist",
    "accounts",
    "users",
    "hosts",
    "setup_instruments",
    "setup_consumers",
    "setup_timers",
    "setup_actors",
    "setup_threads",
    "setup_objects",
    "performance_timers",
    "events_waits_current",
    "events_waits_history",
    "events_waits_history_long",
    "events_stages_current",
    "events_stages_history",
    "events_stages_history_long",
    "events_statements_current",
    "events_statements_history",
    "events_statements_history_long",
    "events_transactions_current",
    "events_transactions_history",
    "events_transactions_history_long",
    "events_waits_summary_global_by_event_name",
    "events_statements_summary_global_by_event_name",
    "events_stages_summary_global_by_event_name",
    "events_waits_summary_by_instance",
    "events_waits_summary_by_thread_by_event_name",
    "events_statements_summary_by_digest",
    "events_statements_histogram_global",
    "events_statements_histogram_by_digest",
    "events_transactions_summary_global_by_event_name",
    "events_transactions_summary_by_thread_by_event_name",
    "events_statements_summary_by_thread_by_event_name",
    "events_statements_summary_by_account_by_event_name",
    "events_statements_summary_by_user_by_event_name",
    "events_statements_summary_by_host_by_event_name",
    "events_waits_summary_by_account_by_event_name",
    "events_waits_summary_by_user_by_event_name",
    "events_waits_summary_by_host_by_event_name",
    "events_transactions_summary_by_account_by_event_name",
    "events_transactions_summary_by_user_by_event_name",
    "events_transactions_summary_by_host_by_event_name",
    "events_errors_summary_global_by_error",
    "events_errors_summary_by_thread_by_error",
    "events_errors_summary_by_account_by_error",
    "events_errors_summary_by_user_by_error",
    "events_errors_summary_by_host_by_error",
    "events_stages_summary_by_thread_by_event_name",
    "events_stages_summary_by_account_by_event_name",
    "events_stages_summary_by_user_by_event_name",
    "events_stages_summary_by_host_by_event_name",
    "global_variables",
    "session_variables",
    "global_status",
    "session_status",
    "session_connect_attrs",
    "session_account_connect_attrs",
    "status_by_thread",
    "variables_by_thread",
    "user_variables_by_thread",
    "prepared_statements_instances",
    "mutex_instances",
    "rwlock_instances",
    "cond_instances",
];

/// The `sys` views this server has, by name (`SHOW TABLES FROM sys`).
pub const SYS_TABLES: [&str; 27] = [
    "host_summary",
    "host_summary_by_statement_type",
    "innodb_lock_waits",
    "metrics",
    "processlist",
    "schema_table_lock_waits",
    "session",
    "statement_analysis",
    "statements_with_errors_or_warnings",
    "statements_with_runtimes_in_95th_percentile",
    "statements_with_full_table_scans",
    "statements_with_sorting",
    "user_summary",
    "user_summary_by_statement_type",
    "version",
    "x$host_summary",
    "x$host_summary_by_statement_type",
    "x$processlist",
    "x$schema_table_lock_waits",
    "x$session",
    "x$statement_analysis",
    "x$statements_with_errors_or_warnings",
    "x$statements_with_runtimes_in_95th_percentile",
    "x$statements_with_full_table_scans",
    "x$statements_with_sorting",
    "x$user_summary",
    "x$user_summary_by_statement_type",
];

/// Whether `schema.name` is one of this server's `sys` views ([`SYS_TABLES`]).
pub fn is_sys_view(schema: &str, name: &str) -> bool {
    schema.eq_ignore_ascii_case("sys") && SYS_TABLES.iter().any(|t| t.eq_ignore_ascii_case(name))
}

/// Refreshes the snapshot tables `tables` (`(schema, table)`, any schema: others are
/// skipped) of this connection.
///
/// # Errors
/// 1146 for a table these schemas do not have; SQLite errors.
pub fn refresh(
    db: &mut EngineConn,
    tables: &[(String, String)],
    src: &Sources<'_>,
) -> Result<(), ServerError> {
    let mut done: Vec<(String, String)> = Vec::new();
    for (schema, table) in tables {
        let key = (schema.to_ascii_lowercase(), table.to_ascii_lowercase());
        if done.contains(&key) {
            continue;
        }
        match key.0.as_str() {
            "performance_schema" => {
                fill(db, &key.1, src)?;
                if key.1 == "threads" {
                    done.push(("performance_schema".into(), "processlist".into()));
                }
                // Both made at once, from one read (`data_locks.rs`).
                if data_locks::TABLES.contains(&key.1.as_str()) {
                    let both = data_locks::TABLES.iter();
                    done.extend(both.map(|t| ("performance_schema".to_string(), t.to_string())));
                }
            }
            "sys" if key.1.trim_start_matches("x$") == "schema_table_lock_waits" => {
                for t in ["metadata_locks", "processlist"] {
                    if !done.contains(&("performance_schema".into(), t.into())) {
                        fill(db, t, src)?;
                        done.push(("performance_schema".into(), t.into()));
                    }
                }
                schema_table_lock_waits(db, &key.1)?;
            }
            "sys" if key.1 == "innodb_lock_waits" => {
                let rows = innodb_lock_waits::rows(&(src.processes)());
                let columns = &innodb_lock_waits::COLUMNS;
                crate::info_schema::load(db, "sys", "innodb_lock_waits", columns, rows)?;
            }
            "sys" if sys_processlist::VIEWS.contains(&key.1.as_str()) => {
                sys_processlist::refresh(db, src)?;
                let filled = (sys_processlist::SOURCES.iter())
                    .map(|t| ("performance_schema", *t))
                    .chain(sys_processlist::VIEWS.iter().map(|v| ("sys", *v)));
                done.extend(filled.map(|(s, t)| (s.to_string(), t.to_string())));
            }
            "sys" if sys_summaries::VIEWS.contains(&key.1.as_str()) => {
                sys_summaries::refresh(db, src)?;
                let filled = (sys_summaries::SOURCES.iter())
                    .map(|t| ("performance_schema", *t))
                    .chain(sys_summaries::VIEWS.iter().map(|v| ("sys", *v)));
                done.extend(filled.map(|(s, t)| (s.to_string(), t.to_string())));
            }
            // Each its own (`metrics` over a fresh `global_status`, `sys_server.rs`).
            "sys" if sys_server::VIEWS.contains(&key.1.as_str()) => {
                sys_server::refresh(db, &key.1, src)?;
            }
            "sys" if sys_statements::VIEWS.contains(&key.1.as_str()) => {
                sys_statements::refresh(db, src)?;
                let filled = std::iter::once(("performance_schema", sys_statements::SOURCE))
                    .chain(sys_statements::VIEWS.iter().map(|v| ("sys", *v)));
                done.extend(filled.map(|(s, t)| (s.to_string(), t.to_string())));
            }
            "sys" => return Err(ServerError::no_such_table(&key.0, &key.1)),
            _ => {}
        }
        done.push(key);
    }
    Ok(())
}

/// One snapshot table.
fn fill(db: &mut EngineConn, name: &str, src: &Sources<'_>) -> Result<(), ServerError> {
    match name {
        #[cfg(feature = "pfs")]
        "metadata_locks" => load(db, name, &src.mgr.metadata_locks()),
        #[cfg(feature = "pfs")]
        "metadata_lock_waits" => load(db, name, &src.mgr.metadata_lock_waits()),
        #[cfg(feature = "pfs")]
        "metadata_deadlocks" => load(db, name, &src.mgr.metadata_deadlocks()),
        // Compiled out: the lock manager publishes no rows.
        #[cfg(not(feature = "pfs"))]
        "metadata_locks" | "metadata_lock_waits" | "metadata_deadlocks" => {
            let _ = src.mgr;
            match name {
                "metadata_locks" => load(db, name, &pfs::metadata_locks(Vec::new())),
                "metadata_lock_waits" => {
                    load(db, name, &empty::<pfs::tables::MetadataLockWaitRow>())
                }
                _ => load(db, name, &empty::<pfs::tables::MetadataDeadlockRow>()),
            }
        }
        "threads" => threads(db, &(src.processes)()),
        "processlist" => processlist(db, &(src.processes)()),
        "setup_instruments" => load(db, name, &pfs::setup_instruments()),
        "setup_consumers" => load(db, name, &pfs::setup_consumers()),
        "setup_timers" => load(db, name, &pfs::setup_timers()),
        "setup_actors" => load(db, name, &pfs::setup_actors()),
        "setup_threads" => load(db, name, &pfs::setup_threads()),
        "performance_timers" => load(db, name, &pfs::performance_timers()),
        "events_waits_current" => load(db, name, &pfs::events_waits_current()),
        "events_waits_history" => load(db, name, &pfs::events_waits_history()),
        "events_waits_history_long" => load(db, name, &pfs::events_waits_history_long()),
        "events_stages_current" => load_part(db, name, &pfs::events_stages_current()),
        "events_stages_history" => load_part(db, name, &pfs::events_stages_history()),
        "events_stages_history_long" => load_part(db, name, &pfs::events_stages_history_long()),
        "events_statements_current" => load(db, name, &pfs::events_statements_current()),
        "events_statements_history" => load(db, name, &pfs::events_statements_history()),
        "events_statements_history_long" => load(db, name, &pfs::events_statements_history_long()),
        "events_waits_summary_global_by_event_name" => {
            load(db, name, &pfs::events_waits_summary_global_by_event_name())
        }
        "events_statements_summary_global_by_event_name" => {
            load(db, name, &pfs::statement_summary_global_by_event_name())
        }
        "events_stages_summary_global_by_event_name" => {
            load(db, name, &pfs::events_stages_summary_global_by_event_name())
        }
        "events_waits_summary_by_instance" => {
            load(db, name, &pfs::events_waits_summary_by_instance())
        }
        "events_waits_summary_by_thread_by_event_name" => load(
            db,
            name,
            &pfs::events_waits_summary_by_thread_by_event_name(),
        ),
        "events_statements_summary_by_digest" => load(db, name, &histograms::summary_by_digest()),
        "events_transactions_current" => load(db, name, &pfs::events_transactions_current()),
        "events_transactions_history" => load(db, name, &pfs::events_transactions_history()),
        "events_transactions_history_long" => {
            load(db, name, &pfs::events_transactions_history_long())
        }
        "events_transactions_summary_global_by_event_name" => load(
            db,
            name,
            &pfs::events_transactions_summary_global_by_event_name(),
        ),
        "events_transactions_summary_by_thread_by_event_name" => load(
            db,
            name,
            &pfs::events_transactions_summary_by_thread_by_event_name(),
        ),
        prepared::TABLE => load(db, name, &pfs::prepared_statements_instances()),
        setup_objects::TABLE => setup_objects::fill(db),
        _ if instances::TABLES.contains(&name) => instances::fill(db, name),
        _ if data_locks::TABLES.contains(&name) => data_locks::fill(db, src),
        _ if variables::TABLES.contains(&name) => variables::fill(db, name, src),
        _ if connect_attrs::TABLES.contains(&name) => connect_attrs::fill(db, name, src),
        _ if connections::TABLES.contains(&name) => connections::fill(db, name),
        _ if summaries::TABLES.contains(&name) => summaries::fill(db, name),
        _ if errors::TABLES.contains(&name) => errors::fill(db, name),
        _ if histograms::TABLES.contains(&name) => histograms::fill(db, name),
        _ if by_thread::TABLES.contains(&name) => by_thread::fill(db, name, src),
        _ => Err(ServerError::no_such_table("performance_schema", name)),
    }
}

/// Copies `t` into `performance_schema.<name>`, typed as `columns.rs` says; its columns are
/// `R::HEADERS` (a unit test of `columns.rs` keeps the two the same).
fn load<R: Row>(db: &mut EngineConn, name: &str, t: &Table<R>) -> Result<(), ServerError> {
    let defs = typed(name)?;
    debug_assert!(
        defs.iter().map(|(c, _)| *c).eq(R::HEADERS.iter().copied()),
        "{name}: columns.rs and the row differ"
    );
    let rows = (t.rows.iter())
        .map(|r| {
            let v = serde_json::to_value(r).unwrap_or(Json::Null);
            (R::HEADERS.iter())
                .map(|h| value(v.get(*h).unwrap_or(&Json::Null)))
                .collect()
        })
        .collect();
    copy(db, name, defs, rows)
}

/// [`load`] of the columns of `t` that `performance_schema.<name>` has (`columns.rs`): the
/// stages' of the row type they share with the statements.
fn load_part<R: Row>(db: &mut EngineConn, name: &str, t: &Table<R>) -> Result<(), ServerError> {
    let defs = typed(name)?;
    let rows = (t.rows.iter())
        .map(|r| {
            let v = serde_json::to_value(r).unwrap_or(Json::Null);
            (defs.iter())
                .map(|(h, _)| value(v.get(*h).unwrap_or(&Json::Null)))
                .collect()
        })
        .collect();
    copy(db, name, defs, rows)
}

/// `performance_schema.<name>`'s columns (`columns.rs`): 1146 for a table it does not have.
fn typed(name: &str) -> Result<&'static [columns::Def], ServerError> {
    columns::performance_schema(name)
        .map(|(_, defs)| defs)
        .ok_or_else(|| ServerError::no_such_table("performance_schema", name))
}

/// Copies `rows` (in `defs`' order) into `performance_schema.<name>`, its columns `defs`.
fn copy(
    db: &mut EngineConn,
    name: &str,
    defs: &[columns::Def],
    rows: Vec<Vec<SqlValue>>,
) -> Result<(), ServerError> {
    let cols = columns::sqlite(defs);
    let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
    crate::info_schema::load(db, "performance_schema", name, &cols, rows)
}

/// Compiled out: a table of the lock manager without rows.
#[cfg(not(feature = "pfs"))]
fn empty<R: Row>() -> Table<R> {
    Table::new("", Vec::new())
}

fn wrap(db: &mut EngineConn, sql: &str) -> Result<(), ServerError> {
    if db.in_transaction() {
        db.execute_batch(sql)
    } else {
        db.execute_batch(&format!("BEGIN; {sql} COMMIT;"))
    }
}

/// A JSON value as a SQLite literal (switches as MySQL's `YES`/`NO`).
fn literal(v: &Json) -> String {
    match v {
        Json::Null => "NULL".into(),
        Json::Bool(b) => if *b { "'YES'" } else { "'NO'" }.into(),
        Json::Number(n) => n.to_string(),
        Json::String(s) => format!("'{}'", s.replace('\'', "''")),
        other => format!("'{}'", other.to_string().replace('\'', "''")),
    }
}

/// A JSON value as a SQLite value: switches as MySQL's `YES`/`NO`, a number past `i64` as a
/// real (as SQLite reads such a literal).
fn value(v: &Json) -> SqlValue {
    match v {
        Json::Null => SqlValue::Null,
        Json::Bool(b) => SqlValue::Text(if *b { "YES" } else { "NO" }.into()),
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => SqlValue::Integer(i),
            (None, Some(f)) => SqlValue::Real(f),
            _ => SqlValue::Null,
        },
        Json::String(s) => SqlValue::Text(s.clone()),
        other => SqlValue::Text(other.to_string()),
    }
}

/// MySQL 8.0.22's `performance_schema.processlist`: `information_schema.PROCESSLIST`'s rows.
fn processlist(db: &mut EngineConn, rows: &[Process]) -> Result<(), ServerError> {
    let rows = crate::info_schema::processlist_rows(rows);
    copy(db, "processlist", typed("processlist")?, rows)
}

/// The columns of `threads` that come from the process list (`threads`).
const FROM_PROCESSLIST: [&str; 5] = [
    "PROCESSLIST_DB",
    "PROCESSLIST_COMMAND",
    "PROCESSLIST_TIME",
    "PROCESSLIST_STATE",
    "PROCESSLIST_INFO",
];

/// `threads`: connections are session threads (`PROCESSLIST_ID` their id), the rest OS threads.
/// MySQL's table also carries a connection's process-list columns ([`FROM_PROCESSLIST`], in
/// its column order), which `pfs` does not know: they come from `procs`, whose `processlist`
/// snapshot this also makes, so a join of `metadata_locks` with `threads` alone names each
/// lock's statement, as DBAs write it for MySQL.
fn threads(db: &mut EngineConn, procs: &[Process]) -> Result<(), ServerError> {
    processlist(db, procs)?;
    let defs = typed("threads")?;
    let mut threads = pfs::threads().rows;
    threads.sort_by_key(|t| t.thread_id);
    let text = |s: Option<&str>| s.map_or(SqlValue::Null, |s| SqlValue::Text(s.into()));
    let rows = (threads.iter())
        .map(|t| {
            let v = serde_json::to_value(t).unwrap_or(Json::Null);
            let p = (t.processlist_id).and_then(|id| procs.iter().find(|p| p.id == id));
            (defs.iter())
                .map(|(c, _)| match (v.get(*c), p) {
                    (Some(j), _) => value(j),
                    (None, Some(p)) if FROM_PROCESSLIST.contains(c) => match *c {
                        "PROCESSLIST_DB" => text(p.db.as_deref()),
                        "PROCESSLIST_COMMAND" => text(Some(p.command)),
                        "PROCESSLIST_TIME" => SqlValue::Integer(p.time as i64),
                        "PROCESSLIST_STATE" => text(Some(&p.state)),
                        _ => text(p.info.as_deref()),
                    },
                    _ => SqlValue::Null,
                })
                .collect()
        })
        .collect();
    copy(db, "threads", defs, rows)
}
