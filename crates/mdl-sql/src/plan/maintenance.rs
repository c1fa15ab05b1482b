//! The table maintenance statements: `ANALYZE`, `CHECK`, `OPTIMIZE`, `REPAIR` and `CHECKSUM
//! TABLE`.
//!
//! The first four are MySQL's "admin" statements (`sql/sql_admin.cc`, `mysql_admin_table`):
//! the parser adds each table with `MDL_SHARED_READ` (`PT_analyze_table_stmt::make_cmd`,
//! `PT_check_table_stmt::make_cmd`, `PT_optimize_table_stmt::make_cmd`,
//! `PT_repair_table_stmt::make_cmd` in `sql/parse_tree_nodes.cc`), and `mysql_admin_table`
//! sets per table `(lock_type >= TL_WRITE_ALLOW_WRITE) ? MDL_SHARED_NO_READ_WRITE :
//! MDL_SHARED_READ`. They are `CF_AUTO_COMMIT_TRANS` (`init_sql_command_flags`,
//! `sql/sql_parse.cc`): an open transaction is committed first, and their own work after.
//!
//! | statement | locks (duration) | MySQL 8.0 |
//! |---|---|---|
//! | `ANALYZE TABLE t, ...`, `CHECK TABLE t, ...` | commits first; each table SR (TRANSACTION), BACKUP_LOCK IX (TRANSACTION); no GLOBAL or SCHEMA lock | `mysql_admin_table` with `TL_READ_NO_INSERT` (`Sql_cmd_analyze_table::execute`, `Sql_cmd_check_table::execute`); `acquire_shared_backup_lock` |
//! | `OPTIMIZE TABLE t, ...`, `REPAIR TABLE t, ...` | commits first; each table SNRW (TRANSACTION), then the upgrade SNRW -> X; GLOBAL IX (STATEMENT), SCHEMA IX (TRANSACTION), BACKUP_LOCK IX (TRANSACTION); 1223 with this session's global read lock | `mysql_admin_table` with `TL_WRITE` (`Sql_cmd_optimize_table::execute`, `Sql_cmd_repair_table::execute`), whose tables `lock_table_names` (`sql/sql_base.cc`) gives the scoped locks; `wait_while_table_is_used` (the upgrade to EXCLUSIVE) |
//! | `CHECKSUM TABLE t, ...` | each table SR (TRANSACTION); no implicit commit | `sql_yacc.yy`, `checksum` (`MDL_SHARED_READ`); `sql/sql_table.cc`, `mysql_checksum_table` (`TL_READ`) |
//! | a session's temporary table | no lock on it; BACKUP_LOCK IX still (not CHECKSUM) | `mysql_admin_table`: `open_temporary_tables`, `acquire_shared_backup_lock` (`plan/temporary.rs`) |
//! | `ANALYZE TABLE t UPDATE HISTOGRAM ...`, `... DROP HISTOGRAM ...` | not supported (1235) | `Sql_cmd_analyze_table::handle_histogram_command` |
//!
//! Under LOCK TABLES (`open_tables` in LOCK TABLES mode, `sql/sql_base.cc`): every table must
//! be locked (1100); OPTIMIZE and REPAIR need it locked WRITE (1099), take only BACKUP_LOCK
//! IX and upgrade its SNRW to X, going back to SNRW when done, as DDL does (`plan/ddl.rs`).
//!
//! Simplification: MySQL takes and releases the locks table by table (`mysql_admin_table`
//! ends each table with `trans_commit_stmt`, `trans_commit_implicit` and
//! `release_transactional_locks`); here the statement takes every table's locks at once and
//! keeps them to its end. The locks on any one table are MySQL's; a statement of several
//! tables holds the earlier ones longer, and waits for all before it starts.

use mdl_core::{LockDuration, LockType, Namespace};

use super::{Plan, SessionState, StatementKind, Upgrade};
use crate::error::SqlError;
use crate::names::{resolve_in, schema_request, scoped, TableName};
use crate::recognize::{Maintenance, NamedTable};

/// The plan of a table maintenance statement (the module docs).
pub(super) fn maintenance(
    op: Maintenance,
    tables: &[NamedTable],
    state: &SessionState,
) -> Result<Plan, SqlError> {
    let kind = match op {
        Maintenance::Analyze => StatementKind::Analyze,
        Maintenance::Check => StatementKind::Check,
        Maintenance::Optimize => StatementKind::Optimize,
        Maintenance::Repair => StatementKind::Repair,
        Maintenance::Checksum => StatementKind::Checksum,
        Maintenance::Histogram => {
            return Err(SqlError::not_supported(
                "ANALYZE TABLE ... UPDATE | DROP HISTOGRAM",
            ))
        }
    };
    let mut p = Plan::new(kind);
    let write = matches!(op, Maintenance::Optimize | Maintenance::Repair);
    // init_sql_command_flags: SQLCOM_ANALYZE, CHECK, OPTIMIZE, REPAIR are
    // CF_AUTO_COMMIT_TRANS; SQLCOM_CHECKSUM is not.
    p.commits_before = op != Maintenance::Checksum;
    p.commits_after = p.commits_before;
    let resolved = (tables.iter())
        .map(|t| resolve_in(t.schema.as_deref(), &t.table, state))
        .collect::<Result<Vec<_>, _>>()?;
    // A temporary table takes no lock and needs none under LOCK TABLES; the statement still
    // takes BACKUP_LOCK IX (`plan/temporary.rs`).
    let temporary = resolved.iter().any(|t| state.is_temporary(t));
    let tables: Vec<&TableName> = (resolved.iter())
        .filter(|t| !t.is_lock_free() && !state.is_temporary(t))
        .collect();
    p.writes = write && !tables.is_empty();
    if tables.is_empty() {
        if temporary && op != Maintenance::Checksum {
            p.requests.push(scoped(
                Namespace::BackupLock,
                LockType::IX,
                LockDuration::Transaction,
            ));
        }
        return Ok(p);
    }
    if let Some(locked) = &state.locked_tables {
        for t in &tables {
            let mine: Vec<_> = locked.iter().filter(|l| l.table == **t).collect();
            if mine.is_empty() {
                return Err(SqlError::table_not_locked(&t.name));
            }
            if write {
                if !mine.iter().any(|l| l.mode.is_write()) {
                    return Err(SqlError::table_not_locked_for_write(&t.name));
                }
                p.upgrades.push(Upgrade {
                    key: t.key()?,
                    from: LockType::SNRW,
                    to: LockType::X,
                    downgrade_to: Some(LockType::SNRW),
                });
            }
        }
        if op != Maintenance::Checksum {
            p.requests.push(scoped(
                Namespace::BackupLock,
                LockType::IX,
                LockDuration::Transaction,
            ));
        }
        return Ok(p);
    }
    let ty = if write { LockType::SNRW } else { LockType::SR };
    for t in &tables {
        p.requests.push(t.request(ty, LockDuration::Transaction)?);
        if write {
            // mysql_admin_table: wait_while_table_is_used before the engine's operation.
            p.upgrades.push(Upgrade {
                key: t.key()?,
                from: LockType::SNRW,
                to: LockType::X,
                downgrade_to: None,
            });
        }
    }
    if op == Maintenance::Checksum {
        return Ok(p);
    }
    // mysql_admin_table: acquire_shared_backup_lock, for all four.
    p.requests.push(scoped(
        Namespace::BackupLock,
        LockType::IX,
        LockDuration::Transaction,
    ));
    if write {
        // lock_table_names: the scoped locks of tables locked SNRW or stronger.
        if state.global_read_lock {
            return Err(SqlError::cant_update_with_readlock());
        }
        p.requests.push(scoped(
            Namespace::Global,
            LockType::IX,
            LockDuration::Statement,
        ));
        for t in &tables {
            p.requests.push(schema_request(
                &t.schema,
                LockType::IX,
                LockDuration::Transaction,
            )?);
        }
    }
    Ok(p)
}
