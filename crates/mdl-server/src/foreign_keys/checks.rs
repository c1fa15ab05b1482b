//! `foreign_key_checks`, and what MySQL checks of foreign keys in a DDL (see the parent
//! module's docs):
//!
//! * the variable: `SET [SESSION] foreign_key_checks = 0 | 1 | ON | OFF | DEFAULT | @v` (the
//!   form dump files use); `GLOBAL` is accepted and not kept. SQLite's `PRAGMA foreign_keys`
//!   of the connection follows it before each statement run outside a transaction
//!   ([`follow`]; SQLite ignores the pragma in one, so a change made inside a transaction
//!   applies once it ends);
//! * CREATE TABLE and ALTER TABLE ... ADD FOREIGN KEY: a name another key of the schema has is
//!   1826 (`ER_FK_DUP_NAME`: MySQL's names are per schema); a parent that does not exist is 1824
//!   (`ER_FK_CANNOT_OPEN_PARENT`) with checks on, and nothing with checks off, as a dump's
//!   load needs; a parent that exists needs its columns (3734,
//!   `ER_FK_NO_COLUMN_PARENT`) and an index on them (1822, `ER_FK_NO_INDEX_PARENT`; SQLite
//!   needs the primary key or a unique index of exactly those columns, another index is
//!   1235). MySQL's `prepare_foreign_key` and `check_fk_parent_table` (`sql/sql_table.cc`);
//! * DROP TABLE of a parent whose child stays: 3730 (`ER_FK_CANNOT_DROP_PARENT`) with checks
//!   on (`mysql_rm_table_no_locks` through `check_fk_children`... `sql/sql_table.cc`);
//! * TRUNCATE TABLE of a parent of another table: 1701 (`ER_TRUNCATE_ILLEGAL_FK`) with checks on
//!   (`Sql_cmd_truncate_table::truncate_base`, `sql/sql_truncate.cc`).

use sqlparser::ast::{ForeignKeyConstraint, Set};

use crate::engine::{quote, EngineConn};
use crate::error::ServerError;
use crate::session_values::SessionValues;

/// The `foreign_key_checks` a `SET` gives the session (the last of its items with a value),
/// if any.
///
/// # Errors
/// 1231 for a literal that is no boolean (`2`, `'maybe'`), as MySQL's `Sys_var_bool` says.
pub fn assigned(set: &Set, values: &SessionValues) -> Result<Option<bool>, ServerError> {
    crate::session_values::assigned_flag(set, values, "foreign_key_checks")
}

/// Sets SQLite's `foreign_keys` of `db` to the session's `checks` when no transaction is open
/// (see the module docs). One comparison when nothing changed.
pub fn follow(db: &mut EngineConn, checks: bool) {
    db.fk_checks.0 = checks;
    if db.fk_checks.1 != checks && db.db().is_autocommit() {
        let sql = if checks {
            "PRAGMA foreign_keys = ON"
        } else {
            "PRAGMA foreign_keys = OFF"
        };
        if db.db().execute_batch(sql).is_ok() {
            db.fk_checks.1 = checks;
        }
    }
}

/// Runs `f` with SQLite's `foreign_keys` set to `on`, as it was again after; outside a
/// transaction only, as DDL is. Off for a DDL that drops or rebuilds a table (SQLite's implicit
/// `DELETE` of a dropped parent would run the children's actions, and the rebuild's rename
/// would repoint the children); on for a rename, so that SQLite renames the parent in its
/// children's keys whatever `foreign_key_checks` says, as MySQL does.
pub fn with_foreign_keys<T>(
    db: &mut EngineConn,
    on: bool,
    f: impl FnOnce(&mut EngineConn) -> T,
) -> T {
    let change = db.fk_checks.1 != on && db.db().is_autocommit();
    let set = |db: &mut EngineConn, on: bool| {
        let sql = if on {
            "PRAGMA foreign_keys = ON"
        } else {
            "PRAGMA foreign_keys = OFF"
        };
        let _ = db.db().execute_batch(sql);
    };
    if change {
        set(db, on);
    }
    let out = f(db);
    if change {
        let was = db.fk_checks.1;
        set(db, was);
    }
    out
}

/// `ER_FK_DUP_NAME`.
pub(super) fn duplicate_name(name: &str) -> ServerError {
    ServerError::new(
        1826,
        "HY000",
        format!("Duplicate foreign key constraint name '{name}'"),
    )
}

/// The checks of foreign keys a CREATE TABLE or ALTER TABLE adds to `schema.table` (see the
/// module docs).
///
/// # Errors
/// 1824, 3734, 1822, 1235.
pub fn check_create(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
    keys: &[&ForeignKeyConstraint],
) -> Result<(), ServerError> {
    let checks = db.fk_checks.0;
    // Names are the schema's (the FOREIGN_KEY metadata-lock namespace): `ER_FK_DUP_NAME`.
    let existing = db.engine().foreign_keys.of_schema(schema);
    for name in keys.iter().filter_map(|f| f.name.as_ref()) {
        if existing
            .iter()
            .any(|k| k.name.eq_ignore_ascii_case(&name.value))
        {
            return Err(duplicate_name(&name.value));
        }
    }
    // The name an unnamed key will get, for the messages (`generate_fk_name`): numbered on
    // from the table's own generated names, none for a CREATE TABLE's (`rebuild.rs`).
    let mut unnamed = (existing.iter())
        .filter(|k| k.is_child(table))
        .filter_map(|k| mdl_sql::generated_fk_number(table, &k.name))
        .max()
        .unwrap_or(0);
    for f in keys {
        let name = match &f.name {
            Some(n) => n.value.clone(),
            None => {
                unnamed += 1;
                mdl_sql::generated_fk_name(table, unnamed)
            }
        };
        let (parent_schema, parent) = crate::rewrite::object_parts(&f.foreign_table);
        // Before looking for the parent in the child's schema (`define.rs` says why).
        if !parent_schema.is_empty() && !parent_schema.eq_ignore_ascii_case(schema) {
            return Err(super::define::other_schema());
        }
        if parent.eq_ignore_ascii_case(table) {
            continue; // the table itself: SQLite checks its own definition
        }
        let exists = (db.tables(schema)?.iter()).any(|t| t.eq_ignore_ascii_case(&parent));
        if !exists {
            if !checks {
                continue;
            }
            return Err(ServerError::new(
                1824,
                "HY000",
                format!("Failed to open the referenced table '{parent}'"),
            ));
        }
        let cols = crate::catalog::base_columns(db, schema, &parent)?;
        let wanted: Vec<&str> = f
            .referred_columns
            .iter()
            .map(|c| c.value.as_str())
            .collect();
        for w in &wanted {
            if !cols.iter().any(|c| c.name.eq_ignore_ascii_case(w)) {
                return Err(ServerError::new(
                    3734,
                    "HY000",
                    format!(
                        "Failed to add the foreign key constraint. Missing column '{w}' for \
                         constraint '{name}' in the referenced table '{parent}'"
                    ),
                ));
            }
        }
        let parts = crate::catalog::base_indexes(db, schema, &parent, &cols)?;
        let mut indexes: Vec<(&str, bool, Vec<&str>)> = Vec::new();
        for p in &parts {
            let col = p.column.as_deref().unwrap_or("");
            match indexes.iter_mut().find(|(i, _, _)| *i == p.index) {
                Some((_, _, c)) => c.push(col),
                None => indexes.push((&p.index, p.unique, vec![col])),
            }
        }
        let same = |c: &[&str]| {
            c.len() == wanted.len()
                && c.iter()
                    .all(|x| wanted.iter().any(|w| w.eq_ignore_ascii_case(x)))
        };
        let starts = |c: &[&str]| {
            c.len() >= wanted.len()
                && c.iter()
                    .zip(&wanted)
                    .all(|(x, w)| x.eq_ignore_ascii_case(w))
        };
        if indexes.iter().any(|(_, unique, c)| *unique && same(c)) {
            continue;
        }
        if indexes.iter().any(|(_, _, c)| starts(c)) {
            return Err(ServerError::not_supported(
                "a FOREIGN KEY to columns that are not the parent's primary key or a unique key",
            ));
        }
        return Err(ServerError::new(
            1822,
            "HY000",
            format!(
                "Failed to add the foreign key constraint. Missing index for constraint \
                 '{name}' in the referenced table '{parent}'"
            ),
        ));
    }
    Ok(())
}

/// DROP TABLE of `dropped` (`(schema, table)`, all the statement drops): 3730 for a parent
/// whose child is not dropped too, with checks on.
///
/// # Errors
/// 3730.
pub fn check_drop(db: &EngineConn, dropped: &[(String, String)]) -> Result<(), ServerError> {
    let catalog = &db.engine().foreign_keys;
    if catalog.is_empty() || !db.fk_checks.0 {
        return Ok(());
    }
    let gone = |schema: &str, t: &str| {
        (dropped.iter()).any(|(s, d)| s.eq_ignore_ascii_case(schema) && d.eq_ignore_ascii_case(t))
    };
    for (schema, table) in dropped {
        for k in catalog.of_parent(schema, table) {
            if !gone(&k.schema, &k.table) {
                return Err(ServerError::new(
                    3730,
                    "HY000",
                    format!(
                        "Cannot drop table '{}' referenced by a foreign key constraint '{}' on \
                         table '{}'.",
                        k.parent, k.name, k.table
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// TRUNCATE TABLE of `schema.table`: 1701 if another table's key references it, with checks
/// on.
///
/// # Errors
/// 1701.
pub fn check_truncate(db: &EngineConn, schema: &str, table: &str) -> Result<(), ServerError> {
    let catalog = &db.engine().foreign_keys;
    if catalog.is_empty() || !db.fk_checks.0 {
        return Ok(());
    }
    match (catalog.of_parent(schema, table).into_iter()).find(|k| !k.is_child(table)) {
        Some(k) => Err(ServerError::new(
            1701,
            "42000",
            format!(
                "Cannot truncate a table referenced in a foreign key constraint ({}.{}, \
                 CONSTRAINT {})",
                quote(&k.schema),
                quote(&k.table),
                quote(&k.name)
            ),
        )),
        None => Ok(()),
    }
}

/// After a DDL: reads the keys of `schemas` again, when any schema has keys or the DDL's
/// statements (`sql`) make one (nothing to do on a server without foreign keys).
///
/// # Errors
/// SQLite's.
pub fn reload_after_ddl(
    db: &mut EngineConn,
    schemas: &[String],
    sql: &[String],
) -> Result<(), ServerError> {
    let engine = db.engine().clone();
    if engine.foreign_keys.is_empty() && !sql.iter().any(|q| q.contains(" FOREIGN KEY ")) {
        return Ok(());
    }
    // Only the schemas this connection has attached: one another connection made or dropped
    // meanwhile (attached before this one's next statement) has no key this DDL changed, and
    // reading it would fail.
    for s in schemas {
        if s != crate::temporary::SCHEMA && db.is_attached(s) {
            engine.foreign_keys.reload(db.db(), s)?;
        }
    }
    Ok(())
}

/// Rows of `schema.table` that break one of its keys (`PRAGMA foreign_key_check`): the first
/// key broken, for ALTER TABLE ... ADD FOREIGN KEY with checks on.
///
/// # Errors
/// SQLite's.
pub fn broken_key(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Option<i64>, ServerError> {
    let sql = format!(
        "PRAGMA {}.foreign_key_check({})",
        quote(schema),
        quote(table)
    );
    let found = db
        .db()
        .query_row(&sql, [], |r| r.get::<_, i64>(3))
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        });
    found.map_err(|e| ServerError::from_engine(&e, None))
}

/// What an ALTER TABLE (or DROP INDEX) of `schema.table` takes away: columns, indexes (by
/// MySQL's name, `PRIMARY` for the primary key) and foreign keys.
#[derive(Debug, Default)]
pub struct Dropped {
    /// Columns dropped.
    pub columns: Vec<String>,
    /// Indexes dropped.
    pub indexes: Vec<String>,
    /// Foreign keys dropped.
    pub keys: Vec<String>,
}

/// MySQL's refusals of an ALTER TABLE that takes away what a foreign key needs (whatever
/// `foreign_key_checks` says): a child's column, 1828 (`ER_FK_COLUMN_CANNOT_DROP`); a parent's
/// column, 1829 (`ER_FK_COLUMN_CANNOT_DROP_CHILD`); the last index that serves a key, the
/// child's (one starting with its columns) or the parent's (here: its primary key or a unique
/// key of exactly its columns), 1553 (`ER_DROP_INDEX_FK`). A key dropped by the same statement
/// needs nothing. MySQL's `mysql_prepare_alter_table` / `fk_check_copy_alter_table` and the
/// index checks of `prepare_fk_parent_key` (`sql/sql_table.cc`).
///
/// # Errors
/// Those; the catalog's.
pub fn check_alter(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
    dropped: &Dropped,
) -> Result<(), ServerError> {
    let catalog = &db.engine().foreign_keys;
    if catalog.is_empty() {
        return Ok(());
    }
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    let keys: Vec<_> = (catalog.of_schema(schema).iter())
        .filter(|k| k.is_child(table) || k.is_parent(table))
        .filter(|k| !dropped.keys.iter().any(|d| same(d, &k.name)))
        .cloned()
        .collect();
    for col in &dropped.columns {
        for k in &keys {
            if k.is_child(table) && k.columns.iter().any(|c| same(c, col)) {
                return Err(ServerError::new(
                    1828,
                    "HY000",
                    format!(
                        "Cannot drop column '{col}': needed in a foreign key constraint '{}'",
                        k.name
                    ),
                ));
            }
            if k.is_parent(table) && k.parent_columns.iter().any(|c| same(c, col)) {
                return Err(ServerError::new(
                    1829,
                    "HY000",
                    format!(
                        "Cannot drop column '{col}': needed in a foreign key constraint '{}' of \
                         table '{}'",
                        k.name, k.table
                    ),
                ));
            }
        }
    }
    if dropped.indexes.is_empty() || keys.is_empty() {
        return Ok(());
    }
    let cols = crate::catalog::base_columns(db, schema, table)?;
    let parts = crate::catalog::base_indexes(db, schema, table, &cols)?;
    let mut indexes: Vec<(String, bool, Vec<String>)> = Vec::new();
    for p in &parts {
        let col = p.column.clone().unwrap_or_default();
        match indexes.iter_mut().find(|(i, _, _)| *i == p.index) {
            Some((_, _, c)) => c.push(col),
            None => indexes.push((p.index.clone(), p.unique, vec![col])),
        }
    }
    let gone = |name: &str| dropped.indexes.iter().any(|d| same(d, name));
    let starts = |idx: &[String], key: &[String]| {
        idx.len() >= key.len() && idx.iter().zip(key).all(|(a, b)| same(a, b))
    };
    let exactly = |idx: &[String], key: &[String]| {
        idx.len() == key.len() && idx.iter().all(|a| key.iter().any(|b| same(a, b)))
    };
    for k in &keys {
        let serves = |(_, unique, c): &&(String, bool, Vec<String>)| {
            (k.is_child(table) && starts(c, &k.columns))
                || (k.is_parent(table) && *unique && exactly(c, &k.parent_columns))
        };
        let kept = indexes.iter().filter(|i| !gone(&i.0)).any(|i| serves(&i));
        if let Some(lost) = indexes.iter().filter(|i| gone(&i.0)).find(|i| serves(i)) {
            if !kept {
                return Err(ServerError::new(
                    1553,
                    "HY000",
                    format!(
                        "Cannot drop index '{}': needed in a foreign key constraint",
                        lost.0
                    ),
                ));
            }
        }
    }
    Ok(())
}
