//! What a DBA types that is not a table's business: `SHOW [FULL] PROCESSLIST`, `KILL`,
//! `SHOW VARIABLES | STATUS | DATABASES | TABLES`, and the system variables `@@name` reads.

use std::sync::atomic::Ordering;

use mdl_core::KillScope;
use sqlparser::ast::{ContextModifier, Expr, KillType, Set, ShowStatementFilter, Statement};

use crate::error::ServerError;
use crate::server::Shared;
use crate::status::{Com, Counts, SessionStatus};
use crate::wire::{Cell, Output, ResultSet};

/// The server version clients see (MySQL 8.0's wire behaviour; `mdl-sql` resolves versioned
/// comments as 8.0.45).
pub const VERSION: &str = "8.0.45-mdl";

/// What a session knows of its variables.
#[derive(Debug, Clone, Copy)]
pub struct SessionVars {
    /// `autocommit`.
    pub autocommit: bool,
    /// `lock_wait_timeout` in seconds.
    pub lock_wait_timeout: u64,
    /// `warning_count` and `error_count`: the previous statement's conditions
    /// (`diagnostics.rs`).
    pub diagnostics: (u64, u64),
    /// `sql_notes`.
    pub sql_notes: bool,
    /// `time_zone`.
    pub time_zone: crate::time_zone::TimeZone,
    /// `sql_mode` (`sql_mode.rs`).
    pub sql_mode: crate::sql_mode::SqlMode,
    /// `foreign_key_checks` (`foreign_keys.rs`).
    pub foreign_key_checks: bool,
}

/// A system variable's value, or `None` if this server has no such variable. `global.name` is
/// the global value where it differs from the session's (`lock_wait_timeout`, `time_zone`).
pub fn variable(shared: &Shared, s: &SessionVars, name: &str) -> Option<Cell> {
    let text = |t: &str| Some(Cell::Text(t.to_string()));
    match name {
        "global.lock_wait_timeout" => Some(Cell::Int(
            shared.global_lock_wait_timeout.load(Ordering::Relaxed) as i64,
        )),
        "global.time_zone" => text("SYSTEM"),
        _ if name.starts_with("global.") => variable(shared, s, &name["global.".len()..]),
        "version" => text(VERSION),
        "version_comment" => text("mdl-server (mdl metadata locks, pfs, SQLite)"),
        "autocommit" => Some(Cell::Int(i64::from(s.autocommit))),
        "warning_count" => Some(Cell::Int(s.diagnostics.0 as i64)),
        "error_count" => Some(Cell::Int(s.diagnostics.1 as i64)),
        "sql_notes" => Some(Cell::Int(i64::from(s.sql_notes))),
        // `SHOW WARNINGS` lists this many (`diagnostics.rs`); SET is accepted, not kept.
        "max_error_count" => Some(Cell::Int(crate::diagnostics::MAX_ERROR_COUNT as i64)),
        "lock_wait_timeout" => Some(Cell::Int(s.lock_wait_timeout as i64)),
        "innodb_lock_wait_timeout" => Some(Cell::Int(shared.cfg.engine_lock_wait_timeout as i64)),
        "max_allowed_packet" => Some(Cell::Int(67_108_864)),
        "port" => Some(Cell::Int(i64::from(shared.port))),
        "performance_schema" => Some(Cell::Int(i64::from(pfs::master_enabled()))),
        "transaction_isolation" | "tx_isolation" => text("READ-COMMITTED"),
        "transaction_read_only" | "tx_read_only" => Some(Cell::Int(0)),
        "sql_mode" => text(&s.sql_mode.to_string()),
        "character_set_client"
        | "character_set_connection"
        | "character_set_results"
        | "character_set_server"
        | "character_set_database" => text(crate::catalog::CHARSET),
        "collation_connection" | "collation_server" | "collation_database" => {
            text(crate::catalog::COLLATION)
        }
        "time_zone" => text(&s.time_zone.to_string()),
        "system_time_zone" => text("UTC"),
        // Names are folded (`connection.rs`), as SQLite compares them.
        "lower_case_table_names" => Some(Cell::Int(1)),
        "wait_timeout" | "interactive_timeout" => Some(Cell::Int(28_800)),
        "net_write_timeout" => Some(Cell::Int(60)),
        "net_read_timeout" => Some(Cell::Int(30)),
        "max_execution_time" => Some(Cell::Int(0)),
        "sql_select_limit" => text("18446744073709551615"),
        "max_connections" => Some(Cell::Int(100_000)),
        "datadir" => text(&shared.cfg.data_dir.to_string_lossy()),
        "have_ssl" | "have_openssl" => text("DISABLED"),
        "license" => text("MIT OR Apache-2.0"),
        "init_connect" => text(""),
        "socket" => Some(Cell::Null),
        "hostname" => text("localhost"),
        "foreign_key_checks" => Some(Cell::Int(i64::from(s.foreign_key_checks))),
        // Accepted by SET and without effect here (SQLite checks unique keys always): their
        // defaults, which dump tools save and restore around a load.
        "unique_checks" | "sql_quote_show_create" => Some(Cell::Int(1)),
        "auto_increment_increment" | "auto_increment_offset" => Some(Cell::Int(1)),
        "sql_safe_updates" | "sql_auto_is_null" => Some(Cell::Int(0)),
        "version_compile_os" => text(std::env::consts::OS),
        "version_compile_machine" => text(std::env::consts::ARCH),
        _ => None,
    }
}

const VARIABLE_NAMES: [&str; 41] = [
    "auto_increment_increment",
    "auto_increment_offset",
    "autocommit",
    "character_set_client",
    "character_set_connection",
    "character_set_database",
    "character_set_results",
    "character_set_server",
    "collation_connection",
    "collation_database",
    "collation_server",
    "datadir",
    "error_count",
    "foreign_key_checks",
    "have_ssl",
    "init_connect",
    "innodb_lock_wait_timeout",
    "interactive_timeout",
    "lock_wait_timeout",
    "lower_case_table_names",
    "max_allowed_packet",
    "max_connections",
    "max_error_count",
    "max_execution_time",
    "net_read_timeout",
    "net_write_timeout",
    "performance_schema",
    "port",
    "sql_auto_is_null",
    "sql_mode",
    "sql_notes",
    "sql_quote_show_create",
    "sql_safe_updates",
    "sql_select_limit",
    "system_time_zone",
    "time_zone",
    "transaction_isolation",
    "unique_checks",
    "version",
    "version_comment",
    "warning_count",
];

/// `SET` of system variables: one the server does not have is 1193, as MySQL's
/// (`ER_UNKNOWN_SYSTEM_VARIABLE`, before anything is set), where it used to be accepted without
/// a word. Those it has are accepted; one whose value is the server's fixed behaviour
/// (`transaction_isolation`, ...) keeps reading what the server does, whatever was set.
/// `time_zone` is the session's (`time_zone.rs`), and so is the one flag of `sql_mode` the
/// server honours (`sql_mode.rs`).
///
/// # Errors
/// 1193 naming the first unknown variable.
pub fn check_set(shared: &Shared, s: &SessionVars, set: &Set) -> Result<(), ServerError> {
    for (name, _, _) in set_items(set) {
        if variable(shared, s, &name).is_none() {
            return Err(ServerError::new(
                1193,
                "HY000",
                format!("Unknown system variable '{name}'"),
            ));
        }
    }
    Ok(())
}

/// The system variable a `SET` item names (`name`, `@@name`, `@@session.name`,
/// `@@global.name`, ...), lowercased and without its scope, and whether the item sets the
/// global value (`global` is the item's `GLOBAL` keyword); `None` for a `@user` variable.
pub fn system_variable(raw: &str, global: bool) -> Option<(String, bool)> {
    let lower = raw.to_ascii_lowercase();
    if lower.starts_with('@') && !lower.starts_with("@@") {
        return None;
    }
    let bare = lower.trim_start_matches("@@");
    Some(match bare.split_once('.') {
        Some(("global" | "persist" | "persist_only", rest)) => (rest.to_string(), true),
        Some(("session" | "local", rest)) => (rest.to_string(), global),
        _ => (bare.to_string(), global),
    })
}

/// The items of a `SET` that name system variables: each one's name (as
/// [`system_variable`] gives it), whether it sets the global value, and its value.
pub fn set_items(set: &Set) -> Vec<(String, bool, &Expr)> {
    let items: Vec<(String, bool, &Expr)> = match set {
        Set::SingleAssignment {
            scope,
            variable,
            values,
            ..
        } => (values.first().into_iter())
            .map(|v| {
                let global = matches!(scope, Some(ContextModifier::Global));
                (variable.to_string(), global, v)
            })
            .collect(),
        Set::MultipleAssignments { assignments } => (assignments.iter())
            .map(|a| {
                let global = matches!(a.scope, Some(ContextModifier::Global));
                (a.name.to_string(), global, &a.value)
            })
            .collect(),
        _ => Vec::new(),
    };
    (items.into_iter())
        .filter_map(|(raw, global, value)| {
            let (name, global) = system_variable(&raw, global)?;
            Some((name, global, value))
        })
        .collect()
}

/// `SHOW [GLOBAL | SESSION] VARIABLES`' rows, by name: each variable the server lists, its value
/// as text (`global`: the global values, else the session's). `performance_schema`'s
/// `global_variables` and `session_variables` are these rows (`pfs_views/variables.rs`).
pub fn variables(shared: &Shared, s: &SessionVars, global: bool) -> Vec<(String, String)> {
    (VARIABLE_NAMES.iter())
        .filter_map(|n| {
            let v = match global {
                true => variable(shared, s, &format!("global.{n}"))?,
                false => variable(shared, s, n)?,
            };
            let v = match v {
                Cell::Int(i) => i.to_string(),
                Cell::Text(t) => t,
                _ => String::new(),
            };
            Some((n.to_string(), v))
        })
        .collect()
}

/// `SHOW [GLOBAL | SESSION] STATUS`' rows, by name: the statement counters (`Com_*`,
/// `Questions`, `Queries`) of `session`, or the server's with `None` (`status.rs`); the rest
/// are the server's in both scopes, as in MySQL. `performance_schema`'s `global_status` and
/// `session_status` are these rows (`pfs_views/variables.rs`).
pub fn status(shared: &Shared, session: Option<&SessionStatus>) -> Vec<(String, String)> {
    let c = &shared.engine.counters;
    let load = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed).to_string();
    let procs = shared.procs.rows(&shared.mgr);
    let running = procs.iter().filter(|p| p.command != "Sleep").count();
    let total;
    let counts = match session {
        Some(s) => s.counts(),
        None => {
            total = shared.procs.status_total();
            &total
        }
    };
    let mut rows = vec![
        ("Threads_connected".to_string(), procs.len().to_string()),
        ("Threads_running".into(), running.to_string()),
        ("Connections".into(), shared.connections().to_string()),
        (
            "Uptime".into(),
            shared.started.elapsed().as_secs().to_string(),
        ),
        ("Engine_writer_timeouts".into(), load(&c.writer_timeouts)),
        ("Engine_busy_deadlocks".into(), load(&c.busy)),
        (
            "Statements_failed_1213".into(),
            load(&shared.counters.deadlocks),
        ),
        (
            "Statements_failed_1205".into(),
            load(&shared.counters.timeouts),
        ),
    ];
    rows.extend(session_scope(counts));
    #[cfg(feature = "pfs")]
    rows.push((
        "Performance_schema_metadata_lock_lost".into(),
        shared.mgr.metadata_locks_lost().to_string(),
    ));
    #[cfg(feature = "pfs")]
    rows.push((
        "Performance_schema_prepared_statements_lost".into(),
        pfs::status().prepared_statements_lost.to_string(),
    ));
    rows.sort();
    rows
}

/// The status rows a session has of its own, MySQL's `SHOW_SCOPE_ALL` variables of the
/// counters `counts` (`Queries`, `Questions`, `Com_*`: `status_vars` in `sql/mysqld.cc`),
/// sorted by name; the others of [`status`] are the server's alone (`SHOW_SCOPE_GLOBAL`).
/// `performance_schema.status_by_thread` has these rows of each connection, as MySQL's
/// (`PFS_status_variable_cache::match_scope`, `storage/perfschema/pfs_variable.cc`: a
/// by-thread table leaves the global-only ones out).
pub fn session_scope(counts: &Counts) -> Vec<(String, String)> {
    let questions = counts.questions().to_string();
    // No stored programs: every statement came from a client.
    let mut rows = vec![("Queries".to_string(), questions.clone())];
    rows.push(("Questions".into(), questions));
    rows.extend(
        (Com::ALL.iter()).map(|&k| (format!("Com_{}", k.name()), counts.com(k).to_string())),
    );
    // The names of before 8.0.22 stay, counting the same statements (MySQL 8.0 manual,
    // "Replication and Binary Logging Option and Variable Reference").
    for (old, k) in [
        ("show_slave_hosts", Com::ShowReplicas),
        ("show_slave_status", Com::ShowReplicaStatus),
    ] {
        rows.push((format!("Com_{old}"), counts.com(k).to_string()));
    }
    rows.sort();
    rows
}

/// `COM_STATISTICS`'s reply (`mysql_stat()`, `mariadb-admin status`), in MySQL's words
/// (`dispatch_command`, `sql/sql_parse.cc`), from the values of [`status`]. No slow query log,
/// no table cache: those counts are 0, and flush tables 1, a server that never flushed.
pub fn statistics(shared: &Shared) -> String {
    let rows = status(shared, None);
    let value = |name: &str| -> u64 {
        (rows.iter().find(|(n, _)| n == name)).map_or(0, |(_, v)| v.parse().unwrap_or(0))
    };
    let (uptime, questions) = (value("Uptime"), value("Questions"));
    let qps1000 = (questions * 1000).checked_div(uptime).unwrap_or(0);
    format!(
        "Uptime: {uptime}  Threads: {}  Questions: {questions}  Slow queries: 0  Opens: 0  \
         Flush tables: 1  Open tables: 0  Queries per second avg: {}.{:03}",
        value("Threads_connected"),
        qps1000 / 1000,
        qps1000 % 1000
    )
}

fn like(filter: &Option<ShowStatementFilter>, name: &str) -> bool {
    match filter {
        Some(ShowStatementFilter::Like(p)) => pfs::Pattern::parse(p)
            .map(|p| p.matches(name))
            .unwrap_or(false),
        _ => true,
    }
}

/// `SHOW [FULL] PROCESSLIST`: MySQL's columns; `Info` cut at 100 characters without `FULL`.
pub fn show_processlist(shared: &Shared, full: bool) -> Output {
    let rows = shared
        .procs
        .rows(&shared.mgr)
        .into_iter()
        .map(|p| {
            let info = p.info.map(|i| {
                if full {
                    i
                } else {
                    i.chars().take(100).collect()
                }
            });
            vec![
                Cell::Int(p.id as i64),
                Cell::Text(p.user),
                Cell::Text(p.host),
                p.db.map_or(Cell::Null, Cell::Text),
                Cell::Text(p.command.to_string()),
                Cell::Int(p.time as i64),
                Cell::Text(p.state),
                info.map_or(Cell::Null, Cell::Text),
            ]
        })
        .collect();
    Output::Rows(ResultSet {
        columns: [
            "Id", "User", "Host", "db", "Command", "Time", "State", "Info",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
        kinds: Vec::new(),
    })
}

/// `KILL [CONNECTION | QUERY] id`.
///
/// # Errors
/// 1094 for an unknown id.
pub fn kill(shared: &Shared, modifier: Option<KillType>, id: u64) -> Result<Output, ServerError> {
    let scope = match modifier {
        Some(KillType::Query) => KillScope::Query,
        _ => KillScope::Connection,
    };
    shared.procs.kill(&shared.mgr, id, scope)?;
    Ok(Output::OK)
}

/// The statements answered here (`None`: not one of them).
pub fn show(
    shared: &Shared,
    vars: &SessionVars,
    s: &Statement,
    tables_of: &mut dyn FnMut(&str) -> Result<Vec<String>, ServerError>,
    current: Option<&str>,
    session: &SessionStatus,
) -> Option<Result<Output, ServerError>> {
    let text1 = |col: &str, v: Vec<String>| {
        Output::Rows(ResultSet::text(
            &[col],
            v.into_iter().map(|x| vec![Some(x)]).collect(),
        ))
    };
    Some(match s {
        Statement::ShowProcessList { full } => Ok(show_processlist(shared, *full)),
        Statement::Kill { modifier, id } => kill(shared, *modifier, *id),
        Statement::ShowVariables { filter, global, .. } => {
            let rows = (variables(shared, vars, *global).into_iter())
                .filter(|(n, _)| like(filter, n))
                .map(|(n, v)| vec![Some(n), Some(v)])
                .collect();
            Ok(Output::Rows(ResultSet::text(
                &["Variable_name", "Value"],
                rows,
            )))
        }
        Statement::ShowStatus { filter, global, .. } => {
            // Without GLOBAL, MySQL's SHOW STATUS is the session's.
            let rows = (status(shared, (!*global).then_some(session)).into_iter())
                .filter(|(n, _)| like(filter, n))
                .map(|(n, v)| vec![Some(n), Some(v)])
                .collect();
            Ok(Output::Rows(ResultSet::text(
                &["Variable_name", "Value"],
                rows,
            )))
        }
        Statement::ShowDatabases { .. } | Statement::ShowSchemas { .. } => {
            Ok(text1("Database", shared.engine.schemas()))
        }
        Statement::ShowTables { show_options, .. } => {
            let schema = show_options
                .show_in
                .as_ref()
                .and_then(|i| i.parent_name.as_ref())
                .map(|n| n.to_string().trim_matches('`').to_string())
                .or_else(|| current.map(str::to_string));
            let Some(schema) = schema else {
                return Some(Err(ServerError::new(1046, "3D000", "No database selected")));
            };
            // Names fold to lowercase (`lower_case_table_names = 1`), and the list is by name,
            // as MySQL's (a query over the data dictionary, ordered by table name).
            let schema = schema.to_lowercase();
            let sorted = |names: Vec<String>| {
                let mut names = names;
                names.sort();
                names
            };
            if schema == "performance_schema" {
                let v = crate::pfs_views::TABLES
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                return Some(Ok(text1("Tables_in_performance_schema", sorted(v))));
            }
            if schema == "sys" {
                let v = (crate::pfs_views::SYS_TABLES.iter())
                    .map(|s| s.to_string())
                    .collect();
                return Some(Ok(text1("Tables_in_sys", sorted(v))));
            }
            if schema == crate::info_schema::SCHEMA {
                let v = (crate::info_schema::TABLES.iter())
                    .map(|(t, _)| t.to_string())
                    .collect();
                return Some(Ok(text1("Tables_in_information_schema", sorted(v))));
            }
            if !shared.engine.has_schema(&schema) {
                return Some(Err(ServerError::unknown_database(&schema)));
            }
            tables_of(&schema).map(|v| text1(&format!("Tables_in_{schema}"), v))
        }
        _ => return None,
    })
}
