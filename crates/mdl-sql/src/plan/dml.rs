//! DML: SELECT, INSERT, REPLACE, UPDATE, DELETE, DO.
//!
//! | rule | MySQL 8.0 |
//! |---|---|
//! | each table: SR, SW or SWLP (see `tables.rs`), TRANSACTION | `Table_ref` requests (`sql/table.h`, `MDL_REQUEST_INIT(... mdl_type_for_dml(...), MDL_TRANSACTION)`) |
//! | a statement with a write lock request also takes GLOBAL IX, STATEMENT (FTWRL waits for it) | `sql/sql_base.cc`, `open_table`: `is_write_lock_request()` -> `MDL_key::GLOBAL`, `MDL_INTENTION_EXCLUSIVE`, `MDL_STATEMENT` |
//! | ... unless this session holds the global read lock: 1223 before any lock | `open_table` -> `Global_read_lock::can_acquire_protection` (`sql/sql_class.h`): `ER_CANT_UPDATE_WITH_READLOCK` |
//! | a write in a READ ONLY transaction: 1792 | `open_table`: `is_write_lock_request() && thd->tx_read_only` -> `ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION` |
//! | no SCHEMA or BACKUP_LOCK locks for DML (LOCK INSTANCE FOR BACKUP does not block DML) | `lock_table_names` runs only for DDL / LOCK TABLES requests (`open_tables`) |
//! | under LOCK TABLES: no new lock; a table not locked (by its name or alias) is 1100; a write to a READ-locked table is 1099 | `open_table`, locked-tables branch (`ER_TABLE_NOT_LOCKED`); `check_lock_and_start_stmt` (`ER_TABLE_NOT_LOCKED_FOR_WRITE`) |
//! | tables of `performance_schema`, `information_schema`, `sys`: no lock, and allowed under LOCK TABLES | our server (see `names.rs`); MySQL's `open_table` exempts P_S and system views from the LOCK TABLES check |
//! | a session's temporary tables: no lock, no LOCK TABLES check, not a write for the rules above | `open_temporary_tables` (`plan/temporary.rs`) |
//! | the statement's transaction becomes read-write (COMMIT IX at commit) for INSERT, UPDATE, DELETE of a table outside the lock-free schemas | `ha_commit_trans` (`sql/handler.cc`) takes COMMIT IX for `rw_trans`; MySQL marks a transaction read-write at its first changed row (`handler::mark_trx_read_write`), we at the first data-changing statement |

use sqlparser::ast::{Statement, Visit};

use mdl_core::{LockDuration, LockType, Namespace};

use super::{Plan, SessionState, StatementKind};
use crate::error::SqlError;
use crate::names::{resolve_object, scoped, TableName};
use crate::parse::Modifiers;
use crate::tables::{read_refs, table_refs, Access, TableRef};
use crate::user_lock::user_lock_calls;

pub(super) fn dml(s: &Statement, m: Modifiers, state: &SessionState) -> Result<Plan, SqlError> {
    let kind = match s {
        Statement::Query(_) => StatementKind::Select,
        Statement::Insert(_) => StatementKind::Insert,
        Statement::Update(_) => StatementKind::Update,
        _ => StatementKind::Delete,
    };
    let mut p = Plan::new(kind);
    let refs = table_refs(s, m.low_priority);
    let insert = kind == StatementKind::Insert;
    super::temporary::reopened(&super::temporary::opened(&refs, insert), state)?;
    let writes_a_table = table_locks(&mut p, &refs, state)?;
    p.writes = kind != StatementKind::Select && writes_a_table;
    // `DML_prelocking_strategy::handle_table`: "When FOREIGN_KEY_CHECKS is 0 we are not going
    // to do any foreign key checks so we don't need to add child and parent tables to the
    // prelocking list" (for the statement's own tables; LOCK TABLES disregards it).
    if state.foreign_key_checks {
        p.fk_events = super::foreign_keys::events(s);
    }
    p.user_locks = user_lock_calls(s)?;
    Ok(p)
}

/// `EXPLAIN [ANALYZE]` of a DML statement: the statement's table locks (`Sql_cmd_dml::prepare` opens its
/// tables whether or not `lex->is_explain()`); only EXPLAIN ANALYZE runs it, so only then do
/// its user-level lock calls run and its writes count.
pub(super) fn explain(
    s: &Statement,
    analyze: bool,
    m: Modifiers,
    state: &SessionState,
) -> Result<Plan, SqlError> {
    let mut p = dml(s, m, state)?;
    p.kind = StatementKind::Explain;
    if !analyze {
        p.writes = false;
        p.user_locks.clear();
    }
    Ok(p)
}

/// `DO expr, ...`: the tables of the expressions' subqueries are read.
pub(super) fn do_exprs<V: Visit>(exprs: &V, state: &SessionState) -> Result<Plan, SqlError> {
    let mut p = Plan::new(StatementKind::Do);
    let refs = read_refs(exprs);
    super::temporary::reopened(&refs, state)?;
    table_locks(&mut p, &refs, state)?;
    p.user_locks = user_lock_calls(exprs)?;
    Ok(p)
}

/// The table locks of `refs`, or the LOCK TABLES checks; whether a table (other than the
/// lock-free schemas' and the session's temporary tables, which take no lock and need no
/// LOCK TABLES: `plan/temporary.rs`) is written.
pub(super) fn table_locks(
    p: &mut Plan,
    refs: &[TableRef],
    state: &SessionState,
) -> Result<bool, SqlError> {
    let mut any_write = false;
    for r in refs {
        let name = resolve_object(&r.name, state)?;
        if name.is_lock_free() || state.is_temporary(&name) {
            continue;
        }
        let write = r.access != Access::Read;
        if let Some(locked) = &state.locked_tables {
            check_locked(locked, &name, r.alias.as_deref(), write)?;
            any_write |= write;
            continue;
        }
        let ty = match r.access {
            Access::Read => LockType::SR,
            Access::Write => LockType::SW,
            Access::WriteLowPriority => LockType::SWLP,
        };
        any_write |= write;
        p.requests
            .push(name.request(ty, LockDuration::Transaction)?);
    }
    if any_write && state.locked_tables.is_none() {
        if state.global_read_lock {
            return Err(SqlError::cant_update_with_readlock());
        }
        if state.in_transaction && state.read_only {
            return Err(SqlError::read_only_transaction());
        }
        p.requests.push(scoped(
            Namespace::Global,
            LockType::IX,
            LockDuration::Statement,
        ));
    }
    Ok(any_write)
}

/// The LOCK TABLES check of one reference: locked under this name (or alias), and for write if
/// written.
fn check_locked(
    locked: &[super::LockedTable],
    name: &TableName,
    alias: Option<&str>,
    write: bool,
) -> Result<(), SqlError> {
    let alias = alias.unwrap_or(&name.name);
    let mut found = false;
    for l in locked {
        if l.table == *name && l.alias.eq_ignore_ascii_case(alias) {
            if !write || l.mode.is_write() {
                return Ok(());
            }
            found = true;
        }
    }
    Err(if found {
        SqlError::table_not_locked_for_write(alias)
    } else {
        SqlError::table_not_locked(alias)
    })
}
