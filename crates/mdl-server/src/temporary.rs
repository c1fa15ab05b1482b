//! A session's temporary tables (`CREATE TEMPORARY TABLE`) in the engine.
//!
//! MySQL's temporary table belongs to the session that made it: no other session sees it,
//! it lives in the schema it was made in (the named or the current one), it shadows a base
//! table of its name for every statement of its session, and it is gone when the connection
//! closes or resets (`THD::cleanup`, `sql/sql_class.cc`: `close_temporary_tables`). Two
//! sessions may each have a `test.t` of their own, with other columns.
//!
//! * **Where.** In SQLite's `temp` database of the connection, which is private to it and
//!   goes with it, under the name `<schema>.<table>` ([`sqlite_name`]): SQLite would resolve
//!   `` `test`.`t` `` to the attached schema `test`, and MySQL's temporary tables are per
//!   schema. Names are folded to lowercase, as the session folds them
//!   (`lower_case_table_names = 1`). Not in `information_schema` or `performance_schema`:
//!   1044 before any lock, as MySQL ([`refuse_system_schema`]).
//! * **Locks.** `mdl-sql` knows the session's temporary tables
//!   (`SessionState::temporary_tables`, kept from the plans) and takes no metadata lock on
//!   them, as MySQL takes none; CREATE and DROP TEMPORARY TABLE do not commit
//!   (`mdl-sql`'s `plan/temporary.rs`).
//! * **Names.** The rewrite maps every name of a temporary table to its SQLite table
//!   (`rewrite/temporary.rs`). The catalog reads a temporary table first (`catalog.rs`), so
//!   `DESCRIBE`, `SHOW COLUMNS`, `SHOW INDEX`, `SHOW CREATE TABLE` (which says `CREATE
//!   TEMPORARY TABLE`), an INSERT's `DEFAULT` and `AUTO_INCREMENT` values, REPLACE's counts,
//!   ALTER TABLE's rebuild and counter work on it as on a base table. `SHOW TABLES` and
//!   `information_schema` list base tables only, as MySQL 8.0's.
//! * **Transactions.** SQLite's transaction spans its `temp` database, so a ROLLBACK would
//!   undo a CREATE or DROP TEMPORARY TABLE run inside the engine's transaction, which MySQL
//!   never undoes: their work there is kept in a [`Journal`] and done again after a rollback
//!   (`temporary/journal.rs`). The rows written to a temporary table in a transaction are
//!   rolled back with it, as InnoDB's temporary tables' are.
//! * **The writer.** A statement that writes only temporary tables (its plan does not make
//!   the transaction read-write) needs none of the engine's writer outside a transaction:
//!   nothing another connection reads or writes is touched (`execute/engine_step.rs`). In a
//!   transaction it takes the writer as any write does, so that ROLLBACK can undo it.
//!
//! Differs: a name `a.b` with table `c` and one `a` with table `b.c` would be one SQLite
//! name; the second CREATE then fails (1050).

mod journal;

pub use journal::{drop_all, record, savepoint, transaction_ended, Journal};

use mdl_sql::{SessionState, TableName};
use rusqlite::OptionalExtension;
use sqlparser::ast::{CreateTable, ObjectName, Statement};

use crate::engine::EngineConn;
use crate::error::ServerError;

/// SQLite's database of the temporary tables.
pub const SCHEMA: &str = "temp";

/// SQLite's name of the temporary table `t` (names as the session folds them).
pub fn sqlite_name(t: &TableName) -> String {
    format!("{}.{}", t.schema, t.name)
}

fn engine_err(e: rusqlite::Error) -> ServerError {
    ServerError::from_engine(&e, None)
}

/// Where SQLite keeps the table `schema.table` names for this connection: `(SCHEMA, its
/// SQLite name, true)` for a temporary table of the session, the names as given otherwise
/// (also for a name in [`SCHEMA`] already, which is SQLite's).
///
/// # Errors
/// SQLite errors.
pub fn locate(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<(String, String, bool), ServerError> {
    if schema == SCHEMA {
        return Ok((schema.to_string(), table.to_string(), true));
    }
    const SQL: &str = "SELECT name FROM temp.sqlite_schema WHERE type = 'table' \
                       AND name = ?1 COLLATE NOCASE";
    let name = format!("{schema}.{table}").to_ascii_lowercase();
    let mut st = db.db().prepare_cached(SQL).map_err(engine_err)?;
    let found: rusqlite::Result<Option<String>> = st.query_row([&name], |r| r.get(0)).optional();
    Ok(match found.map_err(engine_err)? {
        Some(n) => (SCHEMA.to_string(), n, true),
        None => (schema.to_string(), table.to_string(), false),
    })
}

/// [`locate`] of a statement's table name, qualified with `current`.
///
/// # Errors
/// 1046 without a schema to qualify it with; SQLite errors.
pub fn located_name(
    db: &mut EngineConn,
    n: &ObjectName,
    current: Option<&str>,
) -> Result<(String, String), ServerError> {
    let (schema, table) = crate::rewrite::table_name(n, current)?;
    let (schema, table, _) = locate(db, &schema, &table)?;
    Ok((schema, table))
}

/// The table `n` names, as the session folds names.
fn folded(n: &ObjectName, current: Option<&str>) -> Option<TableName> {
    let (schema, table) = crate::rewrite::table_name(n, current).ok()?;
    TableName::new(&schema.to_ascii_lowercase(), &table.to_ascii_lowercase()).ok()
}

/// SQLite's name of a temporary table named `n` in `current`.
pub fn sqlite_name_of(n: &ObjectName, current: Option<&str>) -> Option<String> {
    folded(n, current).map(|t| sqlite_name(&t))
}

/// SQLite's `(schema, table)` of the table a CREATE TABLE makes: a temporary one's in
/// [`SCHEMA`].
///
/// # Errors
/// 1046 without a schema to qualify it with.
pub fn created_name(
    c: &CreateTable,
    current: Option<&str>,
) -> Result<(String, String), ServerError> {
    let (schema, table) = crate::rewrite::table_name(&c.name, current)?;
    match sqlite_name_of(&c.name, current).filter(|_| c.temporary) {
        Some(t) => Ok((SCHEMA.to_string(), t)),
        None => Ok((schema, table)),
    }
}

/// CREATE TEMPORARY TABLE in `information_schema` or `performance_schema`: 1044, before any
/// lock, as MySQL's privilege check refuses `CREATE_TMP_ACL` there
/// (`IS_internal_schema_access::check`, `sql/sql_show.cc`;
/// `PFS_internal_schema_access::check`, `storage/perfschema/pfs_engine_table.cc`). `sys` is a
/// plain schema to MySQL: a temporary table may be made in it, as here.
///
/// # Errors
/// 1044.
pub fn refuse_system_schema(s: &Statement, current: Option<&str>) -> Result<(), ServerError> {
    let Statement::CreateTable(c) = s else {
        return Ok(());
    };
    let schema = (crate::rewrite::table_name(&c.name, current).ok()).map(|(schema, _)| schema);
    match schema {
        Some(schema)
            if c.temporary
                && (schema.eq_ignore_ascii_case("information_schema")
                    || schema.eq_ignore_ascii_case("performance_schema")) =>
        {
            Err(crate::schema_name::access_denied(
                &schema.to_ascii_lowercase(),
            ))
        }
        _ => Ok(()),
    }
}

/// CREATE TEMPORARY TABLE under its locks (the SCHEMA IX `mysql_create_table_no_lock`,
/// `sql/sql_table.cc`, takes first): 1049 for a schema the server does not have
/// (`ER_BAD_DB_ERROR`), then for a temporary table the session has (`create_table_impl`:
/// `check_if_table_exists`) nothing to do with `IF NOT EXISTS` but note 1050 (`Some`), else
/// 1050 (its plan refused one with `LIKE` or a `SELECT` already). `None`: the engine makes it.
///
/// # Errors
/// 1049, 1050.
pub fn existing(
    db: &EngineConn,
    c: &CreateTable,
    state: &SessionState,
) -> Result<Option<ServerError>, ServerError> {
    let Some(t) = folded(&c.name, state.current_schema.as_deref()) else {
        return Ok(None); // 1046, from the rewrite
    };
    if !db.engine().has_schema(&t.schema) {
        return Err(ServerError::unknown_database(&t.schema));
    }
    if !state.is_temporary(&t) {
        return Ok(None);
    }
    let exists = ServerError::new(1050, "42S01", format!("Table '{}' already exists", t.name));
    match c.if_not_exists {
        true => Ok(Some(exists)),
        false => Err(exists),
    }
}

/// Whether the table DDL `s` changes a temporary table of the session (CREATE TEMPORARY TABLE,
/// or ALTER TABLE, CREATE / DROP INDEX, TRUNCATE of one), which no view of its name concerns.
pub fn targets(state: &SessionState, s: Option<&Statement>) -> bool {
    let current = state.current_schema.as_deref();
    let temporary = |n: &ObjectName| folded(n, current).is_some_and(|t| state.is_temporary(&t));
    match s {
        Some(Statement::CreateTable(c)) => c.temporary,
        Some(Statement::AlterTable(a)) => temporary(&a.name),
        Some(Statement::CreateIndex(c)) => temporary(&c.table_name),
        Some(Statement::Drop { table: Some(t), .. }) => temporary(t),
        Some(Statement::Truncate(t)) => t.table_names.iter().any(|t| temporary(&t.name)),
        _ => false,
    }
}
