//! The session's temporary tables in the rewrite: where a table name becomes SQLite's name of
//! the temporary table it means (see `crate::temporary` for why and where they live).
//!
//! MySQL resolves a table name of a session's statement to its temporary table of that name
//! first (`open_temporary_tables`, `sql/sql_base.cc`), in whatever schema it was created, and
//! SQLite would resolve `` `test`.`t` `` to the attached schema `test`. So every relation the
//! visitor qualifies (`Qualify::pre_visit_relation`: FROM items, the targets of INSERT,
//! UPDATE, DELETE, TRUNCATE, ALTER TABLE, CREATE INDEX) that names a temporary table of the
//! session is `` `temp`.`<schema>.<table>` `` (`crate::temporary::sqlite_name`), and a FROM
//! item without an alias gets its table's name as alias, so that `t.a` still names its
//! column (SQLite would know it as `` `test.t` ``); a column named `schema.t.a` is `t.a`. The
//! exceptions, as MySQL's: `CREATE TABLE` and `CREATE VIEW` name a base table or view (the
//! name is qualified, never mapped), `CREATE TEMPORARY TABLE` always the temporary one;
//! `RENAME TABLE` renames base tables (`rewrite.rs` names them itself). `DROP TABLE` drops the
//! temporary table of a name first, `DROP TEMPORARY TABLE` only that, skipping one that does
//! not exist under `IF EXISTS` ([`drop_tables`]).

use sqlparser::ast::{
    AlterTableOperation, Expr, Ident, ObjectName, ObjectNamePart, ObjectType, RenameTableNameKind,
    Statement, TableAlias, TableFactor,
};

use super::{last, q_ident, Env, Qualify};
use crate::error::ServerError;
use crate::temporary::{sqlite_name, SCHEMA};

/// `n` in the session (current schema, names folded as `lower_case_table_names = 1` folds
/// them); `None` without a schema to qualify it with.
fn resolved(n: &ObjectName, env: &Env<'_>) -> Option<mdl_sql::TableName> {
    let (schema, table) = super::table_name(n, env.schema).ok()?;
    mdl_sql::TableName::new(&schema.to_ascii_lowercase(), &table.to_ascii_lowercase()).ok()
}

/// The session's temporary table `n` names, if it names one.
pub(super) fn temporary_of(n: &ObjectName, env: &Env<'_>) -> Option<mdl_sql::TableName> {
    if env.temporary.is_empty() {
        return None;
    }
    resolved(n, env).filter(|t| env.temporary.contains(t))
}

/// `` `temp`.`<sqlite name of t>` ``.
fn in_temp(t: &mdl_sql::TableName) -> ObjectName {
    ObjectName(vec![
        ObjectNamePart::Identifier(Ident::with_quote('`', SCHEMA)),
        ObjectNamePart::Identifier(Ident::with_quote('`', sqlite_name(t))),
    ])
}

/// Before the visit: the name of `CREATE [TEMPORARY] TABLE` and `CREATE VIEW`, which the
/// visitor meets first, is qualified here: a temporary one's is SQLite's temporary table, a
/// base table's or view's is kept from the mapping (`Qualify::base_name`).
pub(super) fn statement(q: &mut Qualify<'_>, s: &mut Statement) {
    let name = match s {
        Statement::CreateTable(c) if c.temporary => match resolved(&c.name, q.env) {
            Some(t) => {
                c.name = in_temp(&t);
                return;
            }
            None => return, // 1046 from the visitor
        },
        Statement::CreateTable(c) => &mut c.name,
        Statement::CreateView(v) => &mut v.name,
        _ => return,
    };
    if let (1, Some(schema)) = (name.0.len(), q.env.schema) {
        name.0.insert(
            0,
            ObjectNamePart::Identifier(Ident::with_quote('`', schema)),
        );
    }
    q.base_name = Some(name.clone());
}

/// A relation the visitor met (`n` qualified already): SQLite's temporary table if it names
/// one of the session's.
pub(super) fn relation(q: &mut Qualify<'_>, n: &mut ObjectName) {
    if q.base_name.as_ref() == Some(n) {
        q.base_name = None;
    } else if let Some(t) = temporary_of(n, q.env) {
        *n = in_temp(&t);
    }
}

/// A FROM item naming a temporary table without an alias is called by its table's name.
pub(super) fn alias(q: &Qualify<'_>, f: &mut TableFactor) {
    let TableFactor::Table {
        name, alias: None, ..
    } = f
    else {
        return;
    };
    let own = last(name);
    if (name.0.len() == 1 && q.ctes.contains(&own)) || temporary_of(name, q.env).is_none() {
        return;
    }
    if let TableFactor::Table { alias, .. } = f {
        *alias = Some(TableAlias {
            explicit: true, // SQLite's UPDATE takes an alias only after AS
            name: Ident::with_quote('`', own),
            columns: Vec::new(),
            at: None,
        });
    }
}

/// `schema.t.a` of a temporary `t` is `t.a` (its FROM item is called `t`).
pub(super) fn column(q: &Qualify<'_>, e: &mut Expr) {
    let Expr::CompoundIdentifier(parts) = e else {
        return;
    };
    if parts.len() != 3 || q.env.temporary.is_empty() {
        return;
    }
    let table = ObjectName(vec![
        ObjectNamePart::Identifier(parts[0].clone()),
        ObjectNamePart::Identifier(parts[1].clone()),
    ]);
    if temporary_of(&table, q.env).is_some() {
        parts.remove(0);
    }
}

/// After the visit: `ALTER TABLE t RENAME TO u` of a temporary `t` renames it to SQLite's
/// name of the temporary `u` (the name resolved as the session resolves it).
pub(super) fn renamed(s: &mut Statement, env: &Env<'_>) {
    let Statement::AlterTable(a) = s else { return };
    if super::split(&a.name).0 != SCHEMA {
        return;
    }
    for op in &mut a.operations {
        if let AlterTableOperation::RenameTable {
            table_name: RenameTableNameKind::To(n) | RenameTableNameKind::As(n),
        } = op
        {
            if let Some(t) = resolved(n, env) {
                *n = in_temp(&t);
            }
        }
    }
}

/// `DROP [TEMPORARY] TABLE [IF EXISTS] t, ...`: one `DROP TABLE` per table (the parent
/// module's docs), a temporary table's in SQLite's `temp`; `DROP TEMPORARY TABLE IF EXISTS`
/// skips a name the session has no temporary table of (its plan refused a missing one
/// without `IF EXISTS`, 1051).
pub(super) fn drop_tables(s: &Statement, env: &Env<'_>) -> Result<Vec<String>, ServerError> {
    let Statement::Drop {
        object_type: ObjectType::Table,
        names,
        if_exists,
        temporary,
        ..
    } = s
    else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for n in names {
        let (schema, table) = match temporary_of(n, env) {
            Some(t) => (SCHEMA.to_string(), sqlite_name(&t)),
            None if *temporary => continue,
            None => super::table_name(n, env.schema)?,
        };
        out.push(format!(
            "DROP TABLE {}{}.{}",
            if *if_exists { "IF EXISTS " } else { "" },
            q_ident(&schema),
            q_ident(&table)
        ));
    }
    Ok(out)
}

/// `(schema, table)` in SQLite of the table of `DROP INDEX ... ON t`.
pub(super) fn table_of(n: &ObjectName, env: &Env<'_>) -> Result<(String, String), ServerError> {
    match temporary_of(n, env) {
        Some(t) => Ok((SCHEMA.to_string(), sqlite_name(&t))),
        None => super::table_name(n, env.schema),
    }
}
