//! Transactions, LOCK TABLES, the global read lock, the backup lock, and the session statements
//! that take no lock.
//!
//! | statement | plan | MySQL 8.0 |
//! |---|---|---|
//! | `BEGIN`, `START TRANSACTION [READ ONLY \| READ WRITE]` | commits an open transaction first, leaves LOCK TABLES | `sql/transaction.cc`, `trans_begin`: `unlock_locked_tables`, `ha_commit_trans`, `release_transactional_locks` |
//! | `COMMIT [AND CHAIN]` | COMMIT IX (EXPLICIT) for a read-write transaction, the commit, its release, then every STATEMENT and TRANSACTION lock | `sql/handler.cc`, `ha_commit_trans` (`rw_trans`: `MDL_key::COMMIT`, `MDL_INTENTION_EXCLUSIVE`, `MDL_EXPLICIT`); `sql/sql_parse.cc` `SQLCOM_COMMIT`: `release_transactional_locks` |
//! | `ROLLBACK [AND CHAIN]` | every STATEMENT and TRANSACTION lock released | `SQLCOM_ROLLBACK`: `trans_rollback`, `release_transactional_locks` |
//! | `SAVEPOINT s`, `ROLLBACK TO s`, `RELEASE SAVEPOINT s` | ROLLBACK TO releases the locks taken after `s` | `sql/transaction.cc`, `trans_savepoint` (`mdl_savepoint`), `trans_rollback_to_savepoint` (`rollback_to_savepoint` when the engines allow it, as InnoDB does) |
//! | `SET autocommit = 1` (from 0) | commits when the statement ends | `sql/sys_vars.cc`, `fix_autocommit` ("activating autocommit") and `mysql_execute_command`'s end of statement |
//! | `LOCK TABLES` | commits first, leaves LOCK TABLES; READ: SRO, READ LOCAL: SR, \[LOW_PRIORITY\] WRITE: SNRW (TRANSACTION, made EXPLICIT on entering LOCK TABLES mode); for WRITE tables GLOBAL IX (STATEMENT) and SCHEMA IX (TRANSACTION), also made EXPLICIT; no BACKUP_LOCK; WRITE with the global read lock is 1223 | `sql_yacc.yy` `table_lock`; `sql/sql_parse.cc` `SQLCOM_LOCK_TABLES`; `sql/sql_base.cc` `lock_table_names` (`sql_command != SQLCOM_LOCK_TABLES` for the backup lock, none for SRO); `THD::enter_locked_tables_mode` (`set_explicit_duration_for_all_locks`) |
//! | `UNLOCK TABLES` | under LOCK TABLES: commit, release the tables' locks; then the global read lock's | `SQLCOM_UNLOCK_TABLES`: `trans_commit_implicit`, `unlock_locked_tables`, `release_transactional_locks`, `unlock_global_read_lock` (no commit outside LOCK TABLES: "critical for mysqldump") |
//! | `FLUSH TABLES WITH READ LOCK` | commits first; GLOBAL S then COMMIT S, EXPLICIT; 1192 under LOCK TABLES; nothing if already held | `sql/sql_reload.cc`, `handle_reload_request`; `sql/lock.cc`, `Global_read_lock::lock_global_read_lock`, `make_global_read_lock_block_commit`; FLUSH is `CF_AUTO_COMMIT_TRANS` |
//! | `FLUSH TABLES t, ... WITH READ LOCK` | commits first; each table SNW, no scoped lock; enters LOCK TABLES mode with the tables READ | `sql/sql_reload.cc`, `flush_tables_with_read_lock` (`MYSQL_OPEN_SKIP_SCOPED_MDL_LOCK`; `sql_yacc.yy` sets `MDL_SHARED_NO_WRITE`) |
//! | `FLUSH TABLES [t, ...]` | commits first; no lock | `sql/sql_reload.cc`, `handle_reload_request` (`close_cached_tables`: a table-cache wait, no metadata lock) |
//! | `FLUSH TABLES t, ... FOR EXPORT` | as `FLUSH TABLES t, ... WITH READ LOCK` | `sql/sql_reload.cc`, `flush_tables_for_export` (`MYSQL_OPEN_SKIP_SCOPED_MDL_LOCK`, tables `MDL_SHARED_NO_WRITE`) |
//! | `FLUSH PRIVILEGES`, `FLUSH [BINARY \| ENGINE \| ERROR \| GENERAL \| SLOW \| RELAY] LOGS`, `FLUSH STATUS \| HOSTS \| OPTIMIZER_COSTS \| USER_RESOURCES` | commits first; no lock | `handle_reload_request` (`CF_AUTO_COMMIT_TRANS`) |
//! | `LOCK INSTANCE FOR BACKUP` | BACKUP_LOCK S, EXPLICIT: blocks DDL (BACKUP_LOCK IX), not DML | `sql/sql_backup_lock.cc`, `Sql_cmd_lock_instance::execute`, `acquire_exclusive_backup_lock` |
//! | `UNLOCK INSTANCE` | releases every BACKUP_LOCK lock the session took explicitly | `Sql_cmd_unlock_instance::execute`, `release_backup_lock` |
//! | `SHOW CREATE TABLE t` | t SH, for the statement (none for a temporary t: `plan/temporary.rs`) | `sql/sql_show.cc`, `mysqld_show_create` (`MYSQL_OPEN_FORCE_SHARED_HIGH_PRIO_MDL`) |
//! | `USE d` | SCHEMA d IX for the statement (waits for CREATE / DROP DATABASE d) | `sql/sql_db.cc`, `mysql_change_db` (`dd::Schema_MDL_locker`, `mdl_lock_schema` in `sql/dd/dd_schema.cc`) |
//! | `SET`, `SHOW PROCESSLIST / VARIABLES / STATUS / WARNINGS / ERRORS / DATABASES / TABLES / CHARSET / COLLATION`, `KILL` | no lock (user-level lock calls in SET are evaluated) | - |
//! | `KILL [CONNECTION \| QUERY] expr` | no lock; a subquery in `expr` is 1235; its user-level lock calls are evaluated | `sql/sql_parse.cc`, `SQLCOM_KILL`: `lex->table_or_sp_used()` -> `ER_NOT_SUPPORTED_YET` ("Usage of subqueries or stored function calls as part of this statement") |
//! | `DESCRIBE t`, `SHOW COLUMNS FROM t` | no lock: an INFORMATION_SCHEMA query over the data dictionary | `dd::info_schema::build_show_columns_query` (`sql/dd/info_schema/show.cc`) |
//!
//! Not modelled: FLUSH TABLES WITH READ LOCK also waits in MySQL until every table in use is
//! closed (`close_cached_tables`, a table-cache wait, not a metadata lock), so a long SELECT
//! delays it there; here only the metadata locks wait.

use std::time::Duration;

use sqlparser::ast::{
    ContextModifier, Expr, FlushType, Set, Statement, TransactionAccessMode, TransactionMode,
    UnaryOperator, Use, Value,
};

use mdl_core::{LockDuration, LockType, Namespace, LONG_TIMEOUT};

use super::ddl::statement_name;
use super::{Assigned, Effect, LockedTable, Plan, SessionState, StatementKind};
use crate::error::SqlError;
use crate::names::{resolve_in, resolve_object, schema_request, schema_to_use, scoped};
use crate::recognize::{TableLock, TableLockMode};
use crate::user_lock::user_lock_calls;

pub(super) fn control(s: &Statement, state: &SessionState) -> Result<Plan, SqlError> {
    use StatementKind as K;
    Ok(match s {
        Statement::StartTransaction {
            modes,
            begin: _,
            transaction: _,
            modifier: None,
            statements,
            exception: None,
            has_end_keyword: false,
        } if statements.is_empty() => {
            let read_only = modes.iter().any(|m| {
                matches!(
                    m,
                    TransactionMode::AccessMode(TransactionAccessMode::ReadOnly)
                )
            });
            let mut p = Plan::new(K::Begin);
            p.commits_before = true;
            p.effect = Effect::Begin { read_only };
            p
        }
        Statement::Commit {
            chain, end: false, ..
        } => {
            let mut p = Plan::new(K::Commit);
            p.effect = Effect::Commit { chain: *chain };
            p
        }
        Statement::Rollback {
            chain,
            savepoint: None,
        } => {
            let mut p = Plan::new(K::Rollback);
            p.effect = Effect::Rollback { chain: *chain };
            p
        }
        Statement::Rollback {
            savepoint: Some(name),
            ..
        } => {
            let mut p = Plan::new(K::RollbackToSavepoint);
            p.effect = Effect::RollbackToSavepoint(name.value.clone());
            p
        }
        Statement::Savepoint { name } => {
            let mut p = Plan::new(K::Savepoint);
            p.effect = Effect::Savepoint(name.value.clone());
            p
        }
        Statement::ReleaseSavepoint { name } => {
            let mut p = Plan::new(K::ReleaseSavepoint);
            p.effect = Effect::ReleaseSavepoint(name.value.clone());
            p
        }
        Statement::Set(set) => set_statement(set, state)?,
        Statement::Use(Use::Object(name) | Use::Database(name) | Use::Schema(name)) => {
            // sql/sql_db.cc, mysql_change_db: SCHEMA IX while it checks the schema
            // (dd::Schema_MDL_locker::ensure_locked -> mdl_lock_schema, released when it
            // returns): a statement lock here. It waits for CREATE / DROP DATABASE.
            let mut p = Plan::new(K::Use);
            let schema = schema_to_use(name, state)?;
            if !crate::names::is_lock_free_schema(&schema) {
                p.requests
                    .push(schema_request(&schema, LockType::IX, LockDuration::Statement)?);
            }
            p.effect = Effect::Use(schema);
            p
        }
        Statement::ShowProcessList { .. }
        | Statement::ShowVariable { .. }
        | Statement::ShowCharset(_)
        | Statement::ShowCollation { .. }
        | Statement::ShowVariables { .. }
        | Statement::ShowStatus { .. }
        | Statement::ShowDatabases { .. }
        | Statement::ShowSchemas { .. }
        | Statement::ShowTables { .. }
        // MySQL 8.0 answers these from the data dictionary through an INFORMATION_SCHEMA
        // system view, not from the table (`sql/parse_tree_nodes.cc`, `PT_show_table_base::make_table_base_cmd`
        // -> `dd::info_schema::build_show_columns_query`).
        | Statement::ExplainTable { .. }
        | Statement::ShowColumns { .. } => Plan::new(K::Show),
        Statement::Kill { .. } => Plan::new(K::Kill),
        // `NO_WRITE_TO_BINLOG` / `LOCAL` only keep the statement out of the binary log.
        Statement::Flush {
            object_type: FlushType::Tables,
            channel: None,
            read_lock: true,
            export: false,
            tables,
            ..
        } => flush_tables_with_read_lock(tables, state)?,
        // `opt_flush_lock` is one of WITH READ LOCK and FOR EXPORT (sql_yacc.yy).
        Statement::Flush {
            read_lock: true,
            export: true,
            ..
        } => return Err(SqlError::parse("FOR EXPORT", 1)),
        Statement::Flush {
            object_type,
            channel,
            read_lock: false,
            export,
            tables,
            ..
        } => flush(object_type, channel.is_some(), *export, tables, state)?,
        other => return Err(SqlError::not_supported(&statement_name(other))),
    })
}

/// `KILL [CONNECTION | QUERY] expr` (the expression's value is the server's to find).
///
/// # Errors
/// 1235 for a subquery in `expr`, as MySQL's; the user-level lock calls' errors.
pub(super) fn kill_expr(id: &Expr) -> Result<Plan, SqlError> {
    // sql_parse.cc, SQLCOM_KILL: `lex->table_or_sp_used()` refuses a subquery (no stored
    // function exists here).
    struct Query(bool);
    impl sqlparser::ast::Visitor for Query {
        type Break = ();
        fn pre_visit_query(&mut self, _: &sqlparser::ast::Query) -> std::ops::ControlFlow<()> {
            self.0 = true;
            std::ops::ControlFlow::Break(())
        }
    }
    let mut q = Query(false);
    let _ = sqlparser::ast::Visit::visit(id, &mut q);
    if q.0 {
        return Err(SqlError::not_supported(
            "Usage of subqueries or stored function calls as part of this statement",
        ));
    }
    let mut p = Plan::new(StatementKind::Kill);
    p.user_locks = user_lock_calls(id)?;
    Ok(p)
}

/// `SET`: `autocommit` and `lock_wait_timeout` of the session, and `lock_wait_timeout` of the
/// server (`GLOBAL`); everything else is the server's business. User-level lock calls in the
/// values are evaluated.
fn set_statement(set: &Set, state: &SessionState) -> Result<Plan, SqlError> {
    let mut p = Plan::new(StatementKind::Set);
    let assignments: Vec<(Option<(Scope, String)>, &Expr)> = match set {
        Set::SingleAssignment {
            scope,
            variable,
            values,
            ..
        } if values.len() == 1 => vec![(system_variable(scope, &variable.to_string()), &values[0])],
        Set::MultipleAssignments { assignments } => assignments
            .iter()
            .map(|a| (system_variable(&a.scope, &a.name.to_string()), &a.value))
            .collect(),
        _ => Vec::new(),
    };
    let (mut autocommit, mut timeout, mut global_timeout) = (None, None, None);
    for (var, value) in assignments {
        match var.as_ref().map(|(scope, name)| (scope, name.as_str())) {
            Some((Scope::Session, name @ "autocommit")) => {
                autocommit = Some(is_default(value) || bool_value(name, value)?);
            }
            Some((Scope::Session, name @ "lock_wait_timeout")) => {
                timeout = Some(match is_default(value) {
                    true => Assigned::Default,
                    false => Assigned::Value(timeout_value(name, value)?),
                });
            }
            Some((Scope::Global, name @ "lock_wait_timeout")) => {
                global_timeout = Some(match is_default(value) {
                    true => LONG_TIMEOUT,
                    false => timeout_value(name, value)?,
                });
            }
            _ => {}
        }
        p.user_locks.extend(user_lock_calls(value)?);
    }
    if autocommit == Some(true) && !state.autocommit {
        p.commits_after = true;
    }
    p.effect = Effect::Set {
        autocommit,
        lock_wait_timeout: timeout,
        global_lock_wait_timeout: global_timeout,
    };
    Ok(p)
}

/// Whose variable an assignment sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Session,
    Global,
}

/// The system variable an assignment sets, lowercased, with its scope; `None` for `@user`
/// variables (values, not settings) and structured names.
fn system_variable(modifier: &Option<ContextModifier>, raw: &str) -> Option<(Scope, String)> {
    let lower = raw.to_ascii_lowercase();
    let by_modifier = match modifier {
        Some(ContextModifier::Global) => Scope::Global,
        _ => Scope::Session,
    };
    let (scope, name) = if let Some(n) = lower.strip_prefix("@@global.") {
        (Scope::Global, n)
    } else if let Some(n) =
        (lower.strip_prefix("@@session.")).or_else(|| lower.strip_prefix("@@local."))
    {
        (Scope::Session, n)
    } else if let Some(n) = lower.strip_prefix("@@") {
        (by_modifier, n)
    } else {
        (by_modifier, lower.as_str())
    };
    (!name.starts_with('@') && !name.contains('.')).then(|| (scope, name.to_string()))
}

/// `SET x = DEFAULT`.
fn is_default(v: &Expr) -> bool {
    matches!(v, Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT"))
}

fn bool_value(name: &str, v: &Expr) -> Result<bool, SqlError> {
    let text = match v {
        Expr::Value(v) => match &v.value {
            Value::Boolean(b) => return Ok(*b),
            Value::Number(n, _) => n.clone(),
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        Expr::Identifier(i) => i.value.clone(),
        other => other.to_string(),
    };
    match text.to_ascii_uppercase().as_str() {
        "1" | "ON" | "TRUE" => Ok(true),
        "0" | "OFF" | "FALSE" => Ok(false),
        _ => Err(SqlError::wrong_value_for_var(name, &text)),
    }
}

/// `lock_wait_timeout`: an integer, clamped to 1 .. 31536000 seconds (`sql/sys_vars.cc`,
/// `Sys_lock_wait_timeout`; MySQL warns that it truncated a value out of range); a decimal or a
/// string is 1232 (`sys_var::check_update_type`: an integer variable takes `INT_RESULT` only).
fn timeout_value(name: &str, v: &Expr) -> Result<Duration, SqlError> {
    let wrong_type = || {
        SqlError::new(
            1232,
            "42000",
            format!("Incorrect argument type to variable '{name}'"),
        )
    };
    let (negative, val) = match v {
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => (true, &**expr),
        Expr::UnaryOp {
            op: UnaryOperator::Plus,
            expr,
        } => (false, &**expr),
        other => (false, other),
    };
    let Expr::Value(val) = val else {
        return Err(SqlError::wrong_value_for_var(name, &v.to_string()));
    };
    let Value::Number(n, _) = &val.value else {
        return Err(wrong_type());
    };
    if !n.bytes().all(|b| b.is_ascii_digit()) {
        return Err(wrong_type());
    }
    // Digits only: a value too long for u64 is above the range, and clamps to its top.
    let secs = match negative {
        true => 0,
        false => n.parse::<u64>().unwrap_or(u64::MAX),
    };
    Ok(Duration::from_secs(secs.clamp(1, LONG_TIMEOUT.as_secs())))
}

/// `SHOW CREATE TABLE t`: SH on the table (`sql/sql_show.cc`, `mysqld_show_create` opens it with
/// `MYSQL_OPEN_FORCE_SHARED_HIGH_PRIO_MDL`, which `open_table_get_mdl_lock` in
/// `sql/sql_base.cc` turns into `MDL_SHARED_HIGH_PRIO`). MySQL asks it for the transaction and
/// gives it back when the statement ends (a rollback to the savepoint taken before: "Metadata
/// locks taken during SHOW CREATE should be released when the statement completes"): here that
/// is a STATEMENT lock. Under LOCK TABLES the table must be locked (1100).
pub(super) fn show_create_table(
    name: &sqlparser::ast::ObjectName,
    state: &SessionState,
) -> Result<Plan, SqlError> {
    let mut p = Plan::new(StatementKind::Show);
    let t = resolve_object(name, state)?;
    // A temporary table: no lock, under LOCK TABLES too (`plan/temporary.rs`).
    if t.is_lock_free() || state.is_temporary(&t) {
        return Ok(p);
    }
    match &state.locked_tables {
        Some(l) if !l.iter().any(|l| l.table == t) => {
            return Err(SqlError::table_not_locked(&t.name))
        }
        Some(_) => {}
        None => p
            .requests
            .push(t.request(LockType::SH, LockDuration::Statement)?),
    }
    Ok(p)
}

/// `LOCK TABLES`.
pub(super) fn lock_tables(items: &[TableLock], state: &SessionState) -> Result<Plan, SqlError> {
    let mut p = Plan::new(StatementKind::LockTables);
    p.commits_before = true;
    let mut locked = Vec::new();
    let mut write_schemas: Vec<String> = Vec::new();
    for it in items {
        let t = resolve_in(it.schema.as_deref(), &it.table, state)?;
        if state.is_temporary(&t) {
            continue; // permitted, but ignored (`plan/temporary.rs`)
        }
        if !t.is_lock_free() {
            let ty = match it.mode {
                TableLockMode::Read => LockType::SRO,
                TableLockMode::ReadLocal => LockType::SR,
                TableLockMode::Write | TableLockMode::LowPriorityWrite => LockType::SNRW,
            };
            p.requests.push(t.request(ty, LockDuration::Transaction)?);
            if it.mode.is_write() && !write_schemas.contains(&t.schema) {
                write_schemas.push(t.schema.clone());
            }
        }
        locked.push(LockedTable {
            alias: it.alias.clone().unwrap_or_else(|| t.name.clone()),
            table: t,
            mode: it.mode,
        });
    }
    if !write_schemas.is_empty() {
        if state.global_read_lock {
            return Err(SqlError::cant_update_with_readlock());
        }
        for s in &write_schemas {
            p.requests
                .push(schema_request(s, LockType::IX, LockDuration::Transaction)?);
        }
        p.requests.push(scoped(
            Namespace::Global,
            LockType::IX,
            LockDuration::Statement,
        ));
    }
    p.effect = Effect::LockTables(locked);
    Ok(p)
}

/// `UNLOCK TABLES`.
pub(super) fn unlock_tables(state: &SessionState) -> Plan {
    let mut p = Plan::new(StatementKind::UnlockTables);
    p.commits_before = state.locked_tables.is_some();
    p.effect = Effect::UnlockTables;
    p
}

/// `FLUSH TABLES [t, ...] WITH READ LOCK`.
fn flush_tables_with_read_lock(
    tables: &[sqlparser::ast::ObjectName],
    state: &SessionState,
) -> Result<Plan, SqlError> {
    if state.locked_tables.is_some() {
        return Err(SqlError::lock_or_active_transaction());
    }
    let mut p = Plan::new(StatementKind::FlushTablesWithReadLock);
    p.commits_before = true;
    p.commits_after = true;
    if tables.is_empty() {
        if !state.global_read_lock {
            p.requests.push(scoped(
                Namespace::Global,
                LockType::S,
                LockDuration::Explicit,
            ));
            p.requests.push(scoped(
                Namespace::Commit,
                LockType::S,
                LockDuration::Explicit,
            ));
        }
        p.effect = Effect::GlobalReadLock;
        return Ok(p);
    }
    let mut locked = Vec::new();
    for n in tables {
        let t = resolve_object(n, state)?;
        if !t.is_lock_free() {
            p.requests
                .push(t.request(LockType::SNW, LockDuration::Transaction)?);
        }
        locked.push(LockedTable {
            alias: t.name.clone(),
            table: t,
            mode: TableLockMode::Read,
        });
    }
    p.effect = Effect::LockTables(locked);
    Ok(p)
}

/// Every `FLUSH` but `FLUSH TABLES [t, ...] WITH READ LOCK`: `CF_AUTO_COMMIT_TRANS`
/// (`init_sql_command_flags`, `sql/sql_parse.cc`), so it commits an open transaction first.
///
/// * `FLUSH TABLES [t, ...]`: no metadata lock (`sql/sql_reload.cc`, `handle_reload_request`
///   calls `close_cached_tables`, which only waits for old versions of the tables in the table
///   cache to be closed).
/// * `FLUSH TABLES t, ... FOR EXPORT`: locked as `FLUSH TABLES t, ... WITH READ LOCK` (each
///   table SNW, no scoped lock, LOCK TABLES mode until UNLOCK TABLES; 1192 under LOCK TABLES):
///   `flush_tables_for_export` (`MYSQL_OPEN_SKIP_SCOPED_MDL_LOCK`); without tables it is a
///   syntax error in MySQL's grammar (`flush_options_list`: `opt_flush_lock` needs a
///   `table_list` for `FOR EXPORT`).
/// * `PRIVILEGES`, `[BINARY | ENGINE | ERROR | GENERAL | SLOW | RELAY] LOGS`, `STATUS`,
///   `HOSTS`, `OPTIMIZER_COSTS`, `USER_RESOURCES`: no metadata lock (`handle_reload_request`
///   reloads grant tables, rotates logs, resets counters: none of them a table's MDL).
fn flush(
    object_type: &FlushType,
    channel: bool,
    export: bool,
    tables: &[sqlparser::ast::ObjectName],
    state: &SessionState,
) -> Result<Plan, SqlError> {
    let mut p = Plan::new(StatementKind::Flush);
    p.commits_before = true;
    p.commits_after = true;
    match object_type {
        FlushType::Tables if export => {
            if tables.is_empty() {
                return Err(SqlError::parse("FOR EXPORT", 1));
            }
            let mut p = flush_tables_with_read_lock(tables, state)?;
            p.kind = StatementKind::Flush;
            Ok(p)
        }
        FlushType::Tables => {
            for n in tables {
                resolve_object(n, state)?; // 1046 without a current schema, as MySQL's
            }
            Ok(p)
        }
        FlushType::RelayLogs => Ok(p),
        _ if channel => Err(SqlError::parse("FOR CHANNEL", 1)),
        FlushType::Privileges
        | FlushType::Logs
        | FlushType::BinaryLogs
        | FlushType::EngineLogs
        | FlushType::ErrorLogs
        | FlushType::GeneralLogs
        | FlushType::SlowLogs
        | FlushType::Status
        | FlushType::Hosts
        | FlushType::OptimizerCosts
        | FlushType::UserResources => Ok(p),
    }
}

/// `LOCK INSTANCE FOR BACKUP`.
pub(super) fn lock_instance() -> Plan {
    let mut p = Plan::new(StatementKind::LockInstanceForBackup);
    p.requests.push(scoped(
        Namespace::BackupLock,
        LockType::S,
        LockDuration::Explicit,
    ));
    p.effect = Effect::LockInstance;
    p
}

/// `UNLOCK INSTANCE`.
pub(super) fn unlock_instance() -> Plan {
    let mut p = Plan::new(StatementKind::UnlockInstance);
    p.effect = Effect::UnlockInstance;
    p
}
