//! DDL on tables and schemas.
//!
//! Every statement here commits an open transaction before it runs and commits its own work
//! after (`sql/sql_parse.cc`: `CF_AUTO_COMMIT_TRANS` for SQLCOM_CREATE_TABLE, ALTER_TABLE,
//! DROP_TABLE, TRUNCATE, RENAME_TABLE, CREATE_INDEX, DROP_INDEX, CREATE_DB, DROP_DB in
//! `init_sql_command_flags`; applied by `mysql_execute_command` through
//! `stmt_causes_implicit_commit`), but CREATE and DROP TEMPORARY TABLE. A session's temporary
//! tables take no metadata locks: their rules are in `plan/temporary.rs`.
//!
//! | statement | locks | MySQL 8.0 |
//! |---|---|---|
//! | every table DDL | BACKUP_LOCK IX (TRANSACTION), GLOBAL IX (STATEMENT), SCHEMA IX (TRANSACTION) per schema of a DDL-locked table; 1223 if this session holds the global read lock | `sql/sql_base.cc`, `lock_table_names` (and `Global_read_lock::can_acquire_protection`) |
//! | `CREATE TABLE t` | t S (TRANSACTION), then the upgrade S -> X once the table is found not to exist; `LIKE s`: s SR; `AS SELECT`: its tables SR | `PT_create_table_stmt::make_cmd` (`sql/parse_tree_nodes.cc`: `TL_WRITE, MDL_SHARED`, `OPEN_FOR_CREATE`; the LIKE table `TL_READ, MDL_SHARED_READ`); `sql/sql_base.cc`, `open_table`: "If the table does not exist then upgrade the lock to the EXCLUSIVE MDL lock" |
//! | `ALTER TABLE t`, `CREATE INDEX ... ON t`, `DROP INDEX ... ON t` | t SU (TRANSACTION), then the upgrade SU -> X; `RENAME TO u`: u X | `init_alter_table_stmt`, `PT_create_index_stmt::make_cmd`, `PT_drop_index_stmt::make_cmd` (`sql/parse_tree_nodes.cc`: `TL_READ_NO_INSERT, MDL_SHARED_UPGRADABLE`); `sql/sql_table.cc`, `mysql_inplace_alter_table`: "Upgrade to EXCLUSIVE before commit" (`wait_while_table_is_used`); `mysql_alter_table`: `target_mdl_request` X on the new name |
//! | `DROP TABLE a, b` | each X (TRANSACTION) | `sql/sql_yacc.yy`, `drop_table_stmt` (`YYPS->m_mdl_type= MDL_EXCLUSIVE`), `mysql_rm_table` -> `lock_table_names` |
//! | `TRUNCATE [TABLE] t` | t X (TRANSACTION) | `PT_truncate_table_stmt::make_cmd` (`TL_WRITE, MDL_EXCLUSIVE`); `sql/sql_truncate.cc`, `Sql_cmd_truncate_table::lock_table` |
//! | `RENAME TABLE a TO b, ...` | every old and new name X (TRANSACTION) | `sql_yacc.yy` `table_to_table` (both names `MDL_EXCLUSIVE`), `sql/sql_rename.cc`, `mysql_rename_tables` -> `lock_table_names` |
//! | `CREATE DATABASE d` | GLOBAL IX (STATEMENT), SCHEMA d X (TRANSACTION), BACKUP_LOCK IX (TRANSACTION); 1192 under LOCK TABLES | `sql/lock.cc`, `lock_schema_name`; `sql/sql_db.cc`, `mysql_create_db` |
//! | `DROP DATABASE d` | the same, and X on each of its tables (listed by the caller: [`super::Plan::add_tables_of_schema`]) | `sql/sql_db.cc`, `mysql_rm_db`: `lock_schema_name`, `find_db_tables`, `lock_table_names` |
//!
//! ALTER TABLE models MySQL's INSTANT algorithm (the 8.0 default for ADD COLUMN and other
//! metadata-only changes): SU for the whole statement, so reads and writes go on, and X only
//! for the moment the definition changes. Our engine applies a change in one step, so the
//! phases of INPLACE (a brief X to prepare, SU while rebuilding, X to commit) and COPY (SNW
//! while copying) collapse into that last X; the pile-up behind a waiting ALTER is the same.
//!
//! Under LOCK TABLES (`open_tables_check_upgradable_mdl`, `find_table_for_mdl_upgrade`,
//! `acquire_backup_lock_in_lock_tables_mode` in `sql/sql_base.cc`): the tables must be locked
//! WRITE (else 1100, or 1099 for READ); the statement takes only BACKUP_LOCK IX (TRANSACTION)
//! and upgrades the table's SNRW to X; ALTER, TRUNCATE and the index statements downgrade it
//! back to SNRW when done (`mysql_alter_table`, `Sql_cmd_truncate_table`:
//! `downgrade_lock(MDL_SHARED_NO_READ_WRITE)`), DROP TABLE releases it and the table leaves the
//! locked set. A CREATE TABLE of a name not locked is 1100; RENAME TABLE under LOCK TABLES is
//! not supported here (1192).

use sqlparser::ast::{
    AlterTableOperation, CreateTableLikeKind, ObjectName, ObjectType, RenameTableNameKind,
    SchemaName, Statement,
};

use mdl_core::{LockDuration, LockType, Namespace};

use super::{temporary, Effect, Plan, SessionState, StatementKind, Upgrade};
use crate::error::SqlError;
use crate::names::{resolve_in, resolve_object, schema_name, schema_request, scoped, TableName};
use crate::tables::{read_refs, Access};

pub(super) fn ddl(s: &Statement, state: &SessionState) -> Result<Plan, SqlError> {
    let resolve = |n: &ObjectName| resolve_object(n, state);
    match s {
        Statement::CreateTable(c) if c.temporary => temporary::create(c, state),
        Statement::CreateTable(c) => {
            let t = resolve(&c.name)?;
            let mut reads = Vec::new();
            if let Some(CreateTableLikeKind::Plain(l) | CreateTableLikeKind::Parenthesized(l)) =
                &c.like
            {
                reads.push(resolve(&l.name)?);
            }
            if let Some(q) = &c.query {
                for r in read_refs(q.as_ref()) {
                    debug_assert_eq!(r.access, Access::Read);
                    reads.push(resolve(&r.name)?);
                }
            }
            let mut p = table_ddl(
                StatementKind::CreateTable,
                std::slice::from_ref(&t),
                LockType::S,
                state,
            )?;
            super::foreign_keys::create(&mut p, c, &t, state)?;
            if state.locked_tables.is_none() {
                // A temporary source takes no lock (`plan/temporary.rs`).
                let locked = |r: &&TableName| !r.is_lock_free() && !state.is_temporary(r);
                for r in reads.iter().filter(locked) {
                    p.requests
                        .push(r.request(LockType::SR, LockDuration::Transaction)?);
                }
            }
            Ok(p)
        }
        Statement::AlterTable(a) => {
            let t = resolve(&a.name)?;
            if state.is_temporary(&t) {
                let renamed = (a.operations.iter()).find_map(|op| match op {
                    AlterTableOperation::RenameTable {
                        table_name: RenameTableNameKind::To(n) | RenameTableNameKind::As(n),
                    } => Some(resolve(n)),
                    _ => None,
                });
                return temporary::alter(StatementKind::AlterTable, t, renamed.transpose()?, state);
            }
            let mut p = table_ddl(
                StatementKind::AlterTable,
                std::slice::from_ref(&t),
                LockType::SU,
                state,
            )?;
            super::foreign_keys::alter(&mut p, a, &t, state)?;
            for op in &a.operations {
                if let AlterTableOperation::RenameTable {
                    table_name: RenameTableNameKind::To(n) | RenameTableNameKind::As(n),
                } = op
                {
                    if state.locked_tables.is_some() {
                        return Err(SqlError::lock_or_active_transaction());
                    }
                    let new = resolve(n)?;
                    add_exclusive(&mut p, &new)?;
                }
            }
            Ok(p)
        }
        Statement::CreateIndex(c) => {
            alter_index(StatementKind::CreateIndex, resolve(&c.table_name)?, state)
        }
        Statement::Drop {
            object_type: ObjectType::Index,
            table: Some(t),
            ..
        } => alter_index(StatementKind::DropIndex, resolve(t)?, state),
        Statement::Drop {
            object_type: ObjectType::Table,
            names,
            temporary,
            if_exists,
            ..
        } => {
            let tables = names.iter().map(resolve).collect::<Result<Vec<_>, _>>()?;
            if *temporary {
                return temporary::drop_temporary(tables, *if_exists, state);
            }
            let (temps, tables) = temporary::split(tables, state);
            let mut p = table_ddl(StatementKind::DropTable, &tables, LockType::X, state)?;
            p.writes = !tables.is_empty();
            p.temporary_dropped = temps;
            Ok(p)
        }
        Statement::Truncate(t) => {
            let tables = t
                .table_names
                .iter()
                .map(|t| resolve(&t.name))
                .collect::<Result<Vec<_>, _>>()?;
            match temporary::split(tables, state) {
                (mut temps, tables) if tables.is_empty() && temps.len() == 1 => {
                    let t = temps.remove(0);
                    temporary::alter(StatementKind::TruncateTable, t, None, state)
                }
                (_, tables) => table_ddl(StatementKind::TruncateTable, &tables, LockType::X, state),
            }
        }
        Statement::RenameTable(pairs) => {
            if state.locked_tables.is_some() {
                return Err(SqlError::lock_or_active_transaction());
            }
            let mut tables = Vec::new();
            for r in pairs {
                tables.push(resolve(&r.old_name)?);
                tables.push(resolve(&r.new_name)?);
            }
            table_ddl(StatementKind::RenameTable, &tables, LockType::X, state)
        }
        Statement::CreateDatabase { db_name, .. }
        | Statement::CreateSchema {
            schema_name: SchemaName::Simple(db_name),
            ..
        } => schema_ddl(
            StatementKind::CreateSchema,
            &schema_name(db_name, state)?,
            state,
        ),
        Statement::Drop {
            object_type: ObjectType::Schema | ObjectType::Database,
            names,
            ..
        } => {
            let [name] = names.as_slice() else {
                return Err(SqlError::parse(&s.to_string(), 1));
            };
            let schema = schema_name(name, state)?;
            let mut p = schema_ddl(StatementKind::DropSchema, &schema, state)?;
            p.tables_of_schema = Some(schema.clone());
            p.effect = Effect::DropSchema(schema);
            Ok(p)
        }
        other => Err(SqlError::not_supported(&statement_name(other))),
    }
}

/// `ALTER TABLE t {DISABLE | ENABLE} KEYS`, a rebuild (`ENGINE = x`, `FORCE`), `RENAME INDEX`
/// and table options: an ALTER TABLE (SU, then X: `sql/sql_table.cc`,
/// `simple_rename_or_index_change` calls `wait_while_table_is_used` for a keys change; a
/// rebuild, copying or in place, upgrades to X to swap in the new table, and an index rename
/// or a table option InnoDB changes in place upgrades to X to commit the new definition,
/// `mysql_inplace_alter_table` / `mysql_alter_table`).
pub(super) fn alter_one_table(
    schema: Option<&str>,
    table: &str,
    state: &SessionState,
) -> Result<Plan, SqlError> {
    let t = resolve_in(schema, table, state)?;
    alter_index(StatementKind::AlterTable, t, state)
}

/// An ALTER TABLE without a rename, CREATE INDEX or DROP INDEX of `t`: SU then X, or none for
/// a temporary table (`plan/temporary.rs`).
fn alter_index(kind: StatementKind, t: TableName, state: &SessionState) -> Result<Plan, SqlError> {
    if state.is_temporary(&t) {
        return temporary::alter(kind, t, None, state);
    }
    table_ddl(kind, &[t], LockType::SU, state)
}

/// What a statement with no rule here is refused for ("doesn't yet support '...'"): its class
/// in `unsupported.rs` (`DROP TRIGGER`, `stored procedures`), else its first words.
pub(super) fn statement_name(s: &Statement) -> String {
    let text = s.to_string();
    crate::unsupported::feature_of_text(&text).unwrap_or_else(|| {
        text.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// A table DDL: `ty` on each table (TRANSACTION; S and SU are upgraded to X) and
/// `lock_table_names`' scoped locks, or the LOCK TABLES path.
fn table_ddl(
    kind: StatementKind,
    tables: &[TableName],
    ty: LockType,
    state: &SessionState,
) -> Result<Plan, SqlError> {
    let mut p = Plan::new(kind);
    p.commits_before = true;
    p.commits_after = true;
    p.writes = true;
    let tables: Vec<&TableName> = tables.iter().filter(|t| !t.is_lock_free()).collect();
    if let Some(locked) = &state.locked_tables {
        // find_table_for_mdl_upgrade: locked WRITE under its own name, else 1100 / 1099.
        let mut dropped = Vec::new();
        for t in &tables {
            let mine: Vec<_> = locked.iter().filter(|l| l.table == **t).collect();
            if mine.is_empty() {
                return Err(SqlError::table_not_locked(&t.name));
            }
            if !mine.iter().any(|l| l.mode.is_write()) {
                return Err(SqlError::table_not_locked_for_write(&t.name));
            }
            if kind == StatementKind::CreateTable {
                continue; // exists already: the engine reports it
            }
            p.upgrades.push(Upgrade {
                key: t.key()?,
                from: LockType::SNRW,
                to: LockType::X,
                downgrade_to: (kind != StatementKind::DropTable).then_some(LockType::SNRW),
            });
            dropped.push((*t).clone());
        }
        if kind == StatementKind::DropTable {
            p.effect = Effect::DropLockedTables(dropped);
        }
        if !tables.is_empty() {
            p.requests.push(scoped(
                Namespace::BackupLock,
                LockType::IX,
                LockDuration::Transaction,
            ));
        }
        return Ok(p);
    }
    for t in &tables {
        p.requests.push(t.request(ty, LockDuration::Transaction)?);
        // ALTER's SU and CREATE TABLE's S become X when the definition changes.
        if ty != LockType::X {
            p.upgrades.push(Upgrade {
                key: t.key()?,
                from: ty,
                to: LockType::X,
                downgrade_to: None,
            });
        }
    }
    if !tables.is_empty() {
        scoped_for_tables(&mut p, &tables, state)?;
    }
    Ok(p)
}

/// ALTER TABLE ... RENAME: X on the new name and IX on its schema.
fn add_exclusive(p: &mut Plan, t: &TableName) -> Result<(), SqlError> {
    if t.is_lock_free() {
        return Ok(());
    }
    p.requests
        .push(t.request(LockType::X, LockDuration::Transaction)?);
    p.requests.push(schema_request(
        &t.schema,
        LockType::IX,
        LockDuration::Transaction,
    )?);
    Ok(())
}

/// `lock_table_names`' scoped locks for DDL-locked tables.
pub(super) fn scoped_for_tables(
    p: &mut Plan,
    tables: &[&TableName],
    state: &SessionState,
) -> Result<(), SqlError> {
    if state.global_read_lock {
        return Err(SqlError::cant_update_with_readlock());
    }
    p.requests.push(scoped(
        Namespace::BackupLock,
        LockType::IX,
        LockDuration::Transaction,
    ));
    p.requests.push(scoped(
        Namespace::Global,
        LockType::IX,
        LockDuration::Statement,
    ));
    for t in tables {
        p.requests.push(schema_request(
            &t.schema,
            LockType::IX,
            LockDuration::Transaction,
        )?);
    }
    Ok(())
}

/// `lock_schema_name`: GLOBAL IX, SCHEMA X, BACKUP_LOCK IX; 1192 under LOCK TABLES, 1223 with
/// the global read lock.
fn schema_ddl(kind: StatementKind, schema: &str, state: &SessionState) -> Result<Plan, SqlError> {
    if state.locked_tables.is_some() {
        return Err(SqlError::lock_or_active_transaction());
    }
    if state.global_read_lock {
        return Err(SqlError::cant_update_with_readlock());
    }
    let mut p = Plan::new(kind);
    p.commits_before = true;
    p.commits_after = true;
    p.writes = true;
    if crate::names::is_lock_free_schema(schema) {
        return Ok(p);
    }
    p.requests.push(scoped(
        Namespace::Global,
        LockType::IX,
        LockDuration::Statement,
    ));
    p.requests.push(schema_request(
        schema,
        LockType::X,
        LockDuration::Transaction,
    )?);
    p.requests.push(scoped(
        Namespace::BackupLock,
        LockType::IX,
        LockDuration::Transaction,
    ));
    Ok(p)
}
