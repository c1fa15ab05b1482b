//! What a table DDL does about foreign keys, under its locks (`foreign_keys.rs` has the
//! rules): MySQL's checks before SQLite changes anything, SQLite's own checks off while a table
//! is dropped or rebuilt, ALTER TABLE ... ADD FOREIGN KEY's check of the rows already there,
//! and the shared catalog of keys read again after.

use sqlparser::ast::{AlterTableOperation, ObjectType, Statement, TableConstraint};

use mdl_sql::StatementKind;

use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::foreign_keys as fk;

/// MySQL's checks of a DDL's foreign keys (1824, 1822, 3734, 3730, 1701), before it runs.
///
/// # Errors
/// Those.
pub(super) fn before(
    db: &mut EngineConn,
    kind: StatementKind,
    s: Option<&Statement>,
    current: Option<&str>,
) -> Result<(), ServerError> {
    match s {
        Some(Statement::CreateTable(c)) if !c.temporary && c.like.is_none() => {
            let keys: Vec<_> = (c.constraints.iter())
                .filter_map(|k| match k {
                    TableConstraint::ForeignKey(f) => Some(f),
                    _ => None,
                })
                .collect();
            if keys.is_empty() {
                return Ok(());
            }
            let (schema, table) = crate::rewrite::table_name(&c.name, current)?;
            fk::check_create(db, &schema, &table, &keys)
        }
        Some(Statement::AlterTable(a)) => {
            let (schema, table) = crate::rewrite::table_name(&a.name, current)?;
            fk::check_alter(db, &schema, &table, &dropped(a))?;
            let keys: Vec<_> = (a.operations.iter())
                .filter_map(|op| match op {
                    AlterTableOperation::AddConstraint {
                        constraint: TableConstraint::ForeignKey(f),
                        ..
                    } => Some(f),
                    _ => None,
                })
                .collect();
            if keys.is_empty() {
                return Ok(());
            }
            fk::check_create(db, &schema, &table, &keys)
        }
        Some(Statement::Drop {
            object_type: ObjectType::Index,
            names,
            table: Some(t),
            ..
        }) if !db.engine().foreign_keys.is_empty() => {
            let (schema, table) = crate::rewrite::table_name(t, current)?;
            let indexes = names
                .iter()
                .map(|n| crate::rewrite::object_parts(n).1)
                .collect();
            let dropped = fk::Dropped {
                indexes,
                ..Default::default()
            };
            fk::check_alter(db, &schema, &table, &dropped)
        }
        Some(Statement::Drop {
            object_type: ObjectType::Table,
            names,
            temporary: false,
            ..
        }) if !db.engine().foreign_keys.is_empty() => {
            let dropped = (names.iter())
                .map(|n| crate::rewrite::table_name(n, current))
                .collect::<Result<Vec<_>, _>>()?;
            fk::check_drop(db, &dropped)
        }
        Some(Statement::Truncate(t)) if kind == StatementKind::TruncateTable => {
            if db.engine().foreign_keys.is_empty() {
                return Ok(());
            }
            for target in &t.table_names {
                let (schema, table) = crate::rewrite::table_name(&target.name, current)?;
                fk::check_truncate(db, &schema, &table)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// What `a` takes away (`foreign_keys::check_alter`).
fn dropped(a: &sqlparser::ast::AlterTable) -> fk::Dropped {
    let mut d = fk::Dropped::default();
    for op in &a.operations {
        match op {
            AlterTableOperation::DropColumn { column_names, .. } => d
                .columns
                .extend(column_names.iter().map(|c| c.value.clone())),
            AlterTableOperation::DropIndex { name } => d.indexes.push(name.value.clone()),
            AlterTableOperation::DropPrimaryKey { .. } => d.indexes.push("PRIMARY".into()),
            AlterTableOperation::DropForeignKey { name, .. } => d.keys.push(name.value.clone()),
            _ => {}
        }
    }
    d
}

/// SQLite's `foreign_keys` while the DDL runs (`foreign_keys::with_foreign_keys`), if it
/// matters: off for DROP TABLE and an ALTER TABLE that rebuilds the table; on for RENAME TABLE
/// and ALTER TABLE ... RENAME, which rename the parent in the children's keys, as MySQL's.
pub(super) fn foreign_keys_while(kind: StatementKind, s: Option<&Statement>) -> Option<bool> {
    match s {
        Some(Statement::AlterTable(a)) if crate::rewrite::needs_rebuild(a) => Some(false),
        Some(Statement::AlterTable(a))
            if (a.operations.iter())
                .any(|op| matches!(op, AlterTableOperation::RenameTable { .. })) =>
        {
            Some(true)
        }
        _ if kind == StatementKind::DropTable => Some(false),
        _ if kind == StatementKind::RenameTable => Some(true),
        _ => None,
    }
}

/// ALTER TABLE ... ADD FOREIGN KEY with checks on: 1452 if a row already there has no parent
/// (MySQL's copy checks each row it copies), run before the DDL's savepoint is released.
///
/// # Errors
/// 1452; SQLite's.
pub(super) fn verify(
    db: &mut EngineConn,
    s: Option<&Statement>,
    current: Option<&str>,
) -> Result<(), ServerError> {
    let Some(Statement::AlterTable(a)) = s else {
        return Ok(());
    };
    let adds = (a.operations.iter()).any(|op| {
        matches!(
            op,
            AlterTableOperation::AddConstraint {
                constraint: TableConstraint::ForeignKey(_),
                ..
            }
        )
    });
    if !adds || !db.fk_checks.0 {
        return Ok(());
    }
    let (schema, table) = crate::rewrite::table_name(&a.name, current)?;
    let Some(id) = fk::broken_key(db, &schema, &table)? else {
        return Ok(());
    };
    // The new definition's keys, read from SQLite (the catalog has the old ones).
    let engine = db.engine().clone();
    engine.foreign_keys.reload(db.db(), &schema)?;
    let keys = engine.foreign_keys.of_child(&schema, &table);
    let named = keys.iter().find(|k| k.id == id);
    Err(ServerError::new(
        1452,
        "23000",
        format!(
            "Cannot add or update a child row: a foreign key constraint fails ({})",
            named.map_or_else(String::new, |k| k.in_message())
        ),
    ))
}

/// After a DDL (failed or not): the catalog of keys read again (`foreign_keys.rs`).
///
/// # Errors
/// SQLite's.
pub(super) fn after(db: &mut EngineConn, sql: &[String]) -> Result<(), ServerError> {
    let schemas = db.engine().schemas();
    fk::reload_after_ddl(db, &schemas, sql)
}
