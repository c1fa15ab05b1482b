//! The rewrites made under a statement's locks (step 4 of the parent module's docs): the
//! rewrite to SQLite's dialect is a function of the statement alone, made before its locks;
//! what depends on the tables the statement names is read here, once the locks keep them
//! still:
//!
//! * `CREATE TABLE ... LIKE` / `... SELECT`: the source's definition, the select's columns
//!   (`create_from.rs`);
//! * an `ALTER TABLE` SQLite cannot do in place: the table rebuilt (`rebuild.rs`); another
//!   `ALTER TABLE` or a `RENAME TABLE` of a table with auto-updated columns: its triggers
//!   written again (`on_update.rs`);
//! * `TRUNCATE` and `ALTER TABLE`: the `AUTO_INCREMENT` counter's statements (`counter.rs`);
//! * `DROP TABLE` of a view's name, `RENAME TABLE` of a view (`view_ddl.rs`);
//! * INSERT values whose meaning depends on the table (`insert_values.rs`), and an UPDATE's
//!   `DEFAULT` values (`default_values.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use mdl_sql::{Parsed, SessionState};
use sqlparser::ast::Statement;

use crate::connection::Prepared;
use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::rewrite::Rewritten;
use crate::sql_mode::SqlMode;

use super::{counter, create_from, default_values, insert_values, rebuild, view_ddl};

/// What the rewrites read.
pub(super) struct UnderLocks<'a> {
    pub db: &'a mut EngineConn,
    pub p: &'a Parsed,
    pub statement: Option<&'a Statement>,
    /// The session's schema.
    pub schema: Option<&'a str>,
    pub plan: &'a mdl_sql::Plan,
    pub state: &'a SessionState,
    pub sql_mode: SqlMode,
    /// The connection's prepared statements, and the one the statement runs (its memo is
    /// looked up only where a rewrite keeps something in it).
    pub prepared: (&'a mut HashMap<u32, Prepared>, Option<u32>),
    /// The rewrite of a statement made here, with the statement's user-lock values.
    pub write: &'a dyn Fn(&Statement) -> Result<Rewritten, ServerError>,
    /// The rewrite of a statement of the engine's own (a table's definition).
    pub copy: &'a dyn Fn(&Statement) -> Result<Rewritten, ServerError>,
}

/// Whether `s` is a statement [`rewrite`] may change: DDL of tables, INSERT, UPDATE.
pub(super) fn applies(s: &Statement) -> bool {
    matches!(
        s,
        Statement::CreateTable(_)
            | Statement::AlterTable(_)
            | Statement::RenameTable(_)
            | Statement::Truncate(_)
            | Statement::Drop { .. }
            | Statement::Insert(_)
            | Statement::Update(_)
    )
}

/// The rewrite to run: `rw` (made before the locks) or what replaces or extends it (see the
/// module docs).
///
/// # Errors
/// The rewrites' and the engine's.
pub(super) fn rewrite(
    u: UnderLocks<'_>,
    rw: Option<Arc<Rewritten>>,
) -> Result<Option<Arc<Rewritten>>, ServerError> {
    let UnderLocks {
        db,
        p,
        statement,
        schema,
        plan,
        state,
        sql_mode,
        prepared: (all, prepared),
        write,
        copy,
    } = u;
    let rw = match statement {
        // What the engine holds, read under the locks (`create_from.rs`).
        Some(Statement::CreateTable(c)) if c.like.is_some() => {
            Some(Arc::new(create_from::like(db, c, schema, copy)?))
        }
        Some(Statement::CreateTable(c)) if c.query.is_some() => {
            let modifiers = match &p.statement {
                mdl_sql::Statement::Sql { modifiers, .. } => *modifiers,
                _ => mdl_sql::Modifiers::default(),
            };
            let zero = !sql_mode.no_auto_value_on_zero;
            let rw = (rw.as_deref(), zero, &modifiers);
            Some(Arc::new(create_from::select(db, c, schema, rw, write)?))
        }
        Some(Statement::AlterTable(a)) if crate::rewrite::needs_rebuild(a) => {
            let (schema, table) = crate::temporary::located_name(db, &a.name, schema)?;
            let sql = rebuild::rebuild(db, a, &schema, &table, copy)?;
            Some(Arc::new(Rewritten {
                sql,
                ..rw.as_deref().cloned().unwrap_or_default()
            }))
        }
        // The auto-update triggers name every column and the table: written again.
        Some(s @ (Statement::AlterTable(_) | Statement::RenameTable(_))) => {
            crate::on_update::after_ddl(db, s, schema, rw)?
        }
        _ => rw,
    };
    Ok(match statement {
        Some(s @ (Statement::Truncate(_) | Statement::AlterTable(_))) => {
            let more = counter::statements(db, s, schema)?;
            match (rw, more.is_empty()) {
                (Some(mut rw), false) => {
                    Arc::make_mut(&mut rw).sql.extend(more);
                    Some(rw)
                }
                (rw, _) => rw,
            }
        }
        Some(s @ Statement::Drop { .. }) if plan.temporary_dropped.is_empty() => rw.map(|r| {
            let engine = db.engine();
            (view_ddl::drop_tables_not_views(engine, s, schema, &r)).map_or(r, Arc::new)
        }),
        Some(s @ Statement::RenameTable(_)) => rw.map(|r| {
            let engine = db.engine();
            (view_ddl::rename_views(engine, s, schema, &r)).map_or(r, Arc::new)
        }),
        Some(s @ Statement::Insert(_)) => {
            let memo = prepared
                .and_then(|id| all.get_mut(&id))
                .map(|pr| &mut pr.memo);
            insert_values::rewrite((db, s, state, sql_mode), rw, memo, write)?
        }
        Some(s @ Statement::Update(_)) if default_values::mentioned(&p.text) => {
            match default_values::update(db, s, schema)? {
                Some(s) => Some(Arc::new(write(&s)?)),
                None => rw,
            }
        }
        _ => rw,
    })
}
