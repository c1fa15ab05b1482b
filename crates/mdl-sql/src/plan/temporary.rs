//! Temporary tables: `CREATE TEMPORARY TABLE`, `DROP [TEMPORARY] TABLE`, and the other
//! statements on a session's temporary table.
//!
//! A temporary table belongs to its session alone. MySQL opens it from the session's own list
//! before it looks for a base table (`open_temporary_tables`, `sql/sql_base.cc`, for every
//! command with `CF_PREOPEN_TMP_TABLES` in `init_sql_command_flags`, `sql/sql_parse.cc`: the
//! DML, CREATE / ALTER / DROP / TRUNCATE TABLE, CREATE / DROP INDEX, the table maintenance
//! statements), so it shadows the base table of its name for that session, and it takes no
//! metadata lock: `lock_table_names` skips it (`is_temporary_table_being_opened`), and
//! `open_table`, which takes a DML statement's locks, is never reached for it. Another
//! session's DDL on the base table of that name does not wait for it.
//!
//! | statement | plan | MySQL 8.0 |
//! |---|---|---|
//! | DML on temporary tables | no lock for them; a statement that writes only temporary tables takes no GLOBAL IX, runs with the session's global read lock and in a READ ONLY transaction, and leaves the transaction read-only (no COMMIT IX at its commit) | `open_temporary_tables` before `open_tables`; `open_table`'s GLOBAL IX and its 1223 and 1792 checks are for base tables; `handler::mark_trx_read_write` (`sql/handler.cc`) marks the transaction read-write for a base table only (`tmp_table == NO_TMP_TABLE`) |
//! | a temporary table named twice by one statement (a self-join, a subquery, `INSERT INTO t SELECT ... FROM t`) | 1137, before any lock | `open_temporary_table`: a table of the session's list already used by the statement (`table->query_id`) is `ER_CANT_REOPEN_TABLE`, named by the alias it was opened under |
//! | `CREATE TEMPORARY TABLE t ...` | no implicit commit; SCHEMA IX on t's schema (STATEMENT); no lock on t, no GLOBAL IX or BACKUP_LOCK IX, so the global read lock does not refuse it; `LIKE s` and the `SELECT`'s base tables SR; if the session has a temporary t: nothing to do with `IF NOT EXISTS`, else 1050, for a plain CREATE under the SCHEMA IX (raised by the caller, after its 1049 for a missing schema), with `LIKE` or a `SELECT` here, before any lock; 1792 in a READ ONLY transaction | `stmt_causes_implicit_commit` (`sql/sql_parse.cc`): not with `HA_LEX_CREATE_TMP_TABLE`; `create_table_set_open_action_and_adjust_tables`: `OT_TEMPORARY_ONLY`, which `lock_table_names` skips; `mysql_create_table_no_lock` (`sql/sql_table.cc`): `dd::Schema_MDL_locker::ensure_locked`, SCHEMA IX until it returns, then `ER_BAD_DB_ERROR`, then `create_table_impl`'s `check_if_table_exists` (`ER_TABLE_EXISTS_ERROR`); `mysql_execute_command`: `CF_DISALLOW_IN_RO_TRANS`, checked after the implicit commits |
//! | `DROP TEMPORARY TABLE [IF EXISTS] t, ...` | no lock, no implicit commit; 1051 naming every missing table (and nothing dropped) unless `IF EXISTS`; 1792 in a READ ONLY transaction | `stmt_causes_implicit_commit`: not with `drop_temporary`; `mysql_rm_table` locks nothing with `drop_temporary`; `mysql_rm_table_no_locks`: `ER_BAD_TABLE_ERROR` before any table goes |
//! | `DROP TABLE t, ...` naming temporary tables | those take no lock (the others as in any DROP TABLE); implicit commits | `mysql_rm_table`: `lock_table_names` skips them; `rm_table_sort_into_groups` drops them as temporary |
//! | `ALTER TABLE t`, `CREATE INDEX ... ON t`, `DROP INDEX ... ON t` of a temporary t | implicit commits; SCHEMA IX (STATEMENT) on t's schema, and on the new one's of a `RENAME`; no lock on t, no GLOBAL or BACKUP_LOCK IX; a `RENAME` onto another temporary table is 1050 | `stmt_causes_implicit_commit` spares only CREATE TABLE; `mysql_alter_table`: `Schema_MDL_locker` on the old and the new schema, `find_temporary_table` for the new name |
//! | `TRUNCATE TABLE t` of a temporary t | implicit commits; no lock | `Sql_cmd_truncate_table::truncate_temporary` (`sql/sql_truncate.cc`) |
//! | `ANALYZE`, `CHECK`, `OPTIMIZE`, `REPAIR TABLE` of temporary tables | no lock on them; BACKUP_LOCK IX still | `mysql_admin_table` (`sql/sql_admin.cc`): `open_temporary_tables`, then `acquire_shared_backup_lock` |
//! | `SHOW CREATE TABLE t` of a temporary t | no lock | `mysqld_show_create` (`sql/sql_show.cc`): the table opened is the temporary one |
//! | `LOCK TABLES t ...` of a temporary t | no lock; under LOCK TABLES the session uses its temporary tables freely | the manual, "LOCK TABLES and UNLOCK TABLES Statements": "LOCK TABLES is permitted (but ignored) for a TEMPORARY table" |
//! | `CREATE VIEW` reading a temporary table | 1352 | `mysql_create_view` (`sql/sql_view.cc`): `ER_VIEW_SELECT_TMPTABLE` |
//! | `RENAME TABLE` | base tables only | `SQLCOM_RENAME_TABLE` has no `CF_PREOPEN_TMP_TABLES` |
//! | the tables a view reads | base tables only | `mysql_make_view` (`sql/sql_view.cc`) opens them `OT_BASE_ONLY` |
//!
//! Differs: the errors MySQL raises once it holds the SCHEMA IX of an ALTER TABLE (1050), or a
//! view's locks (1352), are raised here before any lock.

use sqlparser::ast::{CreateTable, CreateTableLikeKind};

use mdl_core::{LockDuration, LockType};

use super::{Plan, SessionState, StatementKind};
use crate::error::SqlError;
use crate::names::{resolve_object, schema_request, TableName};
use crate::tables::{read_refs, Access, TableRef};

/// `CREATE TEMPORARY TABLE` (the module docs).
pub(super) fn create(c: &CreateTable, state: &SessionState) -> Result<Plan, SqlError> {
    let t = resolve_object(&c.name, state)?;
    refuse_in_read_only_transaction(state)?;
    let exists = state.is_temporary(&t);
    // A plain CREATE of one that exists fails under the schema lock, in `create_table_impl`
    // (`check_if_table_exists`), after `mysql_create_table_no_lock` took it: the server's,
    // as its 1049. With a SELECT it stops when it opens its tables (below); LIKE, as before,
    // here.
    let plain = c.query.is_none() && c.like.is_none();
    if exists && !c.if_not_exists && !plain {
        return Err(SqlError::table_exists(&t.name));
    }
    let mut p = Plan::new(StatementKind::CreateTable);
    // A CREATE ... SELECT of a table that exists stops when it opens its tables
    // (`Sql_cmd_create_table::execute`), before the schema lock of the creation.
    let stops_early = exists && c.query.is_some();
    if !t.is_lock_free() && !stops_early {
        p.requests.push(schema_request(
            &t.schema,
            LockType::IX,
            LockDuration::Statement,
        )?);
    }
    let mut sources = Vec::new();
    if let Some(CreateTableLikeKind::Plain(l) | CreateTableLikeKind::Parenthesized(l)) = &c.like {
        sources.push(TableRef {
            name: l.name.clone(),
            alias: None,
            access: Access::Read,
        });
    }
    if let Some(q) = &c.query {
        sources.extend(read_refs(q.as_ref()));
    }
    reopened(&sources, state)?;
    super::dml::table_locks(&mut p, &sources, state)?;
    if !exists {
        p.temporary_created.push(t);
    }
    Ok(p)
}

/// `DROP TEMPORARY TABLE [IF EXISTS]` of `tables` (the module docs).
pub(super) fn drop_temporary(
    tables: Vec<TableName>,
    if_exists: bool,
    state: &SessionState,
) -> Result<Plan, SqlError> {
    refuse_in_read_only_transaction(state)?;
    let missing: Vec<String> = (tables.iter())
        .filter(|t| !state.is_temporary(t))
        .map(|t| t.to_string())
        .collect();
    if !missing.is_empty() && !if_exists {
        return Err(SqlError::bad_table(&missing));
    }
    let mut p = Plan::new(StatementKind::DropTable);
    p.temporary_dropped = tables
        .into_iter()
        .filter(|t| state.is_temporary(t))
        .collect();
    Ok(p)
}

/// The temporary tables of `tables`, and the others (base tables, views), each in order.
pub(super) fn split(
    tables: Vec<TableName>,
    state: &SessionState,
) -> (Vec<TableName>, Vec<TableName>) {
    tables.into_iter().partition(|t| state.is_temporary(t))
}

/// `ALTER TABLE` (renaming it `renamed`), `CREATE INDEX`, `DROP INDEX` or `TRUNCATE` (which
/// takes no schema lock) of the temporary table `t` (the module docs).
pub(super) fn alter(
    kind: StatementKind,
    t: TableName,
    renamed: Option<TableName>,
    state: &SessionState,
) -> Result<Plan, SqlError> {
    let mut p = Plan::new(kind);
    p.commits_before = true;
    p.commits_after = true;
    let renamed = renamed.filter(|n| *n != t);
    if let Some(n) = &renamed {
        if state.is_temporary(n) {
            return Err(SqlError::table_exists(&n.name));
        }
    }
    if kind != StatementKind::TruncateTable {
        for schema in std::iter::once(&t).chain(&renamed).map(|n| &n.schema) {
            if !crate::names::is_lock_free_schema(schema) {
                p.requests.push(schema_request(
                    schema,
                    LockType::IX,
                    LockDuration::Statement,
                )?);
            }
        }
    }
    if let Some(n) = renamed {
        p.temporary_dropped.push(t);
        p.temporary_created.push(n);
    }
    Ok(p)
}

/// The table references of a DML statement as MySQL opens them, one `TABLE` each: an INSERT's
/// target first (`refs` has it as its first written reference), then every table of its
/// FROM clauses and subqueries (the read references `tables.rs` collects once per table factor).
pub(super) fn opened(refs: &[TableRef], insert: bool) -> Vec<TableRef> {
    let target = refs
        .iter()
        .find(|r| r.access != Access::Read)
        .filter(|_| insert);
    (target.into_iter())
        .chain(refs.iter().filter(|r| r.access == Access::Read))
        .cloned()
        .collect()
}

/// `ER_CANT_REOPEN_TABLE` (1137) for a temporary table `opens` names twice, named by the
/// alias of its first reference (`open_temporary_table`; the `TABLE` keeps the alias it was
/// first opened under, `TABLE::init`).
pub(super) fn reopened(opens: &[TableRef], state: &SessionState) -> Result<(), SqlError> {
    if state.temporary_tables.is_empty() {
        return Ok(());
    }
    let mut seen: Vec<(TableName, String)> = Vec::new();
    for r in opens {
        let t = resolve_object(&r.name, state)?;
        if !state.is_temporary(&t) {
            continue;
        }
        if let Some((_, alias)) = seen.iter().find(|(s, _)| *s == t) {
            return Err(SqlError::cant_reopen_table(alias));
        }
        let alias = r.alias.clone().unwrap_or_else(|| t.name.clone());
        seen.push((t, alias));
    }
    Ok(())
}

/// `CREATE VIEW`: 1352 for a temporary table its select reads.
pub(super) fn refuse_in_view(refs: &[TableRef], state: &SessionState) -> Result<(), SqlError> {
    for r in refs {
        let t = resolve_object(&r.name, state)?;
        if state.is_temporary(&t) {
            let alias = r.alias.clone().unwrap_or(t.name);
            return Err(SqlError::view_select_tmptable(&alias));
        }
    }
    Ok(())
}

/// `CF_DISALLOW_IN_RO_TRANS`: CREATE and DROP TEMPORARY TABLE in a READ ONLY transaction,
/// which they do not commit, are 1792 (`mysql_execute_command`, `sql/sql_parse.cc`).
fn refuse_in_read_only_transaction(state: &SessionState) -> Result<(), SqlError> {
    if state.in_transaction && state.read_only {
        return Err(SqlError::read_only_transaction());
    }
    Ok(())
}
