//! `ALTER TABLE` operations SQLite cannot do in place (`MODIFY`, `CHANGE`, `ALTER COLUMN`, a
//! column placed `FIRST` or `AFTER` another, a primary key or a foreign key added or dropped:
//! `ADD [CONSTRAINT [name]] FOREIGN KEY ...`, `DROP FOREIGN KEY name`, 1091 for a name the
//! table does not have; the key's index stays, as MySQL's), done as SQLite's
//! manual says a table is changed in general ("Making Other Kinds Of Table Schema Changes"): a
//! new table of the new definition, the rows copied, the old table dropped. Run under the
//! statement's exclusive lock and in the DDL's savepoint (`engine_step.rs`), so the change is
//! all or nothing, as MySQL's copying ALTER TABLE (`ALGORITHM=COPY`).
//!
//! The definition is the table's `SHOW CREATE TABLE` (`show_table.rs`, its foreign keys
//! included), parsed, with every
//! operation of the statement applied in order (the in-place ones too: `ADD`, `DROP` and
//! `RENAME COLUMN`, keys added and dropped), then written for SQLite as any `CREATE TABLE` is.
//! The steps: the old table renamed `<t>__mdl_rebuild` and its indexes dropped, the new table
//! and its indexes created, each row copied into the columns that existed before (under
//! their new names), the old table dropped. A row the new definition refuses (a NULL in a
//! column made `NOT NULL`, a duplicate under a new unique key) fails the statement and
//! changes nothing. SQLite's foreign-key checks are off while it runs (`fk_ddl.rs`: the rename
//! would otherwise repoint the children's keys at the old table, and its drop would run their
//! actions); an added key is checked against the rows before the savepoint is released.
//!
//! A table with a `CHECK` (or an `ENUM` column, whose values a check keeps) is not rebuilt
//! (1235): its `SHOW CREATE TABLE` does not carry the check. A JSON column's check is written
//! again from its type (`rewrite/json.rs`), so it does not stop a rebuild.
//!
//! Differs: MySQL copies under SHARED_UPGRADABLE (reads of the table go on, writes wait) and
//! takes EXCLUSIVE only to swap the tables in; here the whole copy runs under EXCLUSIVE, as the
//! server's ALTER TABLE upgrades before the engine changes anything, so reads wait for the
//! copy too. The new column types are SQLite's affinities: a value is kept, not converted as
//! MySQL converts it to the new type, except that the new type's limits are checked (an
//! integer type's range, 1264, and a `VARCHAR(n)`'s length, 1406, where MySQL says 1265: the
//! checks `rewrite/ddl.rs` writes for every `CREATE TABLE`).

use sqlparser::ast::{
    AlterColumnOperation, AlterTable, AlterTableOperation as Op, ColumnDef, ColumnOption,
    ColumnOptionDef, CreateTable, Expr, Ident, MySQLColumnPosition, ObjectName, Statement,
    TableConstraint,
};

use crate::engine::{quote, EngineConn};
use crate::error::ServerError;
use crate::rewrite::Rewritten;

/// A column of the new definition, with the name it had before (`None`: added).
struct Column {
    def: ColumnDef,
    was: Option<String>,
}

/// The SQLite statements that rebuild `schema.table` as `a` changes it (see the module docs),
/// the new definition written by `write` (the rewrite of a `CREATE TABLE`).
///
/// # Errors
/// MySQL's errors for a column or key the operations name wrongly (1054, 1060, 1068, 1091),
/// 1235 for an operation the rebuild does not take; the catalog's and SQLite's.
pub(super) fn rebuild(
    db: &mut EngineConn,
    a: &AlterTable,
    schema: &str,
    table: &str,
    write: &dyn Fn(&Statement) -> Result<Rewritten, ServerError>,
) -> Result<Vec<String>, ServerError> {
    let text = crate::show_table::create_table_text_with_keys(db, schema, table)?;
    // `SHOW CREATE TABLE` shows no checks (nor an ENUM's values, kept by one): a rebuild from
    // it would drop them without a word, so it is refused.
    let (s, old) = (quote(schema), quote(&format!("{table}__mdl_rebuild")));
    let definition: String = (db.db())
        .query_row(
            &format!("SELECT sql FROM {s}.sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE"),
            [table],
            |r| r.get(0),
        )
        .map_err(|e| ServerError::from_engine(&e, None))?;
    // A JSON column's check is written again from its type (`rewrite/json.rs`).
    if crate::rewrite::has_other_checks(&definition) {
        return Err(ServerError::not_supported(
            "this ALTER TABLE of a table with a CHECK or an ENUM column",
        ));
    }
    let parsed = sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::MySqlDialect {}, &text)
        .map_err(|_| ServerError::parse(&text))?;
    let Some(Statement::CreateTable(mut def)) = parsed.into_iter().next() else {
        return Err(ServerError::parse(&text));
    };
    let mut columns: Vec<Column> = (def.columns.drain(..))
        .map(|c| Column {
            was: Some(c.name.value.clone()),
            def: c,
        })
        .collect();
    // An unnamed new key is `<table>_ibfk_<n>`, `n` on from the largest of the table's keys
    // before the ALTER (`get_fk_max_generated_name_number`, `sql/sql_table.cc`): the names the
    // statement gives do not count.
    let mut n = (def.constraints.iter())
        .filter_map(|k| match k {
            TableConstraint::ForeignKey(f) => f.name.as_ref(),
            _ => None,
        })
        .filter_map(|name| mdl_sql::generated_fk_number(table, &name.value))
        .max()
        .unwrap_or(0);
    for op in &a.operations {
        match op {
            Op::AddConstraint {
                constraint: TableConstraint::ForeignKey(f),
                not_valid,
            } if f.name.is_none() => {
                n += 1;
                let mut f = f.clone();
                f.name = Some(Ident::with_quote('`', mdl_sql::generated_fk_name(table, n)));
                let named = Op::AddConstraint {
                    constraint: TableConstraint::ForeignKey(f),
                    not_valid: *not_valid,
                };
                apply(&named, &mut columns, &mut def, table)?;
            }
            _ => apply(op, &mut columns, &mut def, table)?,
        }
    }
    def.columns = columns.iter().map(|c| c.def.clone()).collect();
    def.name = ObjectName::from(vec![
        Ident::with_quote('`', schema),
        Ident::with_quote('`', table),
    ]);
    let created = write(&Statement::CreateTable(def))?;
    let mut sql = vec![format!("ALTER TABLE {s}.{} RENAME TO {old}", quote(table))];
    let indexes: Vec<String> = {
        let mut st = (db.db())
            .prepare(&format!(
                "SELECT name FROM {s}.sqlite_master WHERE type = 'index' AND sql IS NOT NULL \
                 AND tbl_name = ?1 COLLATE NOCASE"
            ))
            .map_err(|e| ServerError::from_engine(&e, None))?;
        let rows = st
            .query_map([table], |r| r.get::<_, String>(0))
            .map_err(|e| ServerError::from_engine(&e, None))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| ServerError::from_engine(&e, None))?
    };
    sql.extend(
        indexes
            .iter()
            .map(|i| format!("DROP INDEX {s}.{}", quote(i))),
    );
    let counted = (created.sql.first()).is_some_and(|c| c.contains(" AUTOINCREMENT"));
    sql.extend(created.sql);
    let kept: Vec<(&str, &str)> = (columns.iter())
        .filter_map(|c| c.was.as_deref().map(|was| (c.def.name.value.as_str(), was)))
        .collect();
    if !kept.is_empty() {
        let into: Vec<String> = kept.iter().map(|(new, _)| quote(new)).collect();
        let from: Vec<String> = kept.iter().map(|(_, was)| quote(was)).collect();
        sql.push(format!(
            "INSERT INTO {s}.{} ({}) SELECT {} FROM {s}.{old}",
            quote(table),
            into.join(", "),
            from.join(", ")
        ));
    }
    // The counter goes on from where it was, not from the largest value copied.
    if counted && crate::catalog::counter_name(db, schema, table)?.is_some() {
        let literal = |n: &str| format!("'{}'", n.replace('\'', "''"));
        sql.push(format!(
            "DELETE FROM {s}.sqlite_sequence WHERE name = {}",
            literal(table)
        ));
        sql.push(format!(
            "INSERT INTO {s}.sqlite_sequence (name, seq) \
             SELECT {}, seq FROM {s}.sqlite_sequence WHERE name = {}",
            literal(table),
            literal(&format!("{table}__mdl_rebuild"))
        ));
    }
    sql.push(format!("DROP TABLE {s}.{old}"));
    Ok(sql)
}

/// Applies one operation to the definition.
fn apply(
    op: &Op,
    columns: &mut Vec<Column>,
    def: &mut CreateTable,
    table: &str,
) -> Result<(), ServerError> {
    let find = |columns: &[Column], name: &str| {
        (columns.iter()).position(|c| c.def.name.value.eq_ignore_ascii_case(name))
    };
    let unknown = |name: &str| {
        ServerError::new(
            1054,
            "42S22",
            format!("Unknown column '{name}' in '{table}'"),
        )
    };
    let cant_drop = |name: &str| {
        ServerError::new(
            1091,
            "42000",
            format!("Can't DROP '{name}'; check that column/key exists"),
        )
    };
    match op {
        Op::AddColumn {
            column_def,
            column_position,
            if_not_exists,
            ..
        } => {
            if find(columns, &column_def.name.value).is_some() {
                if *if_not_exists {
                    return Ok(());
                }
                return Err(ServerError::new(
                    1060,
                    "42S21",
                    format!("Duplicate column name '{}'", column_def.name.value),
                ));
            }
            let column = Column {
                def: column_def.clone(),
                was: None,
            };
            place(columns, column, column_position.as_ref(), &unknown)?;
        }
        Op::DropColumn {
            column_names,
            if_exists,
            ..
        } => {
            for n in column_names {
                match find(columns, &n.value) {
                    Some(i) => {
                        columns.remove(i);
                        drop_from_keys(def, &n.value);
                    }
                    None if *if_exists => {}
                    None => return Err(cant_drop(&n.value)),
                }
            }
        }
        Op::RenameColumn {
            old_column_name,
            new_column_name,
        } => {
            let i = find(columns, &old_column_name.value)
                .ok_or_else(|| unknown(&old_column_name.value))?;
            columns[i].def.name = new_column_name.clone();
            rename_in_keys(def, &old_column_name.value, &new_column_name.value);
        }
        Op::ModifyColumn {
            col_name,
            data_type,
            options,
            column_position,
        }
        | Op::ChangeColumn {
            old_name: col_name,
            data_type,
            options,
            column_position,
            ..
        } => {
            let new_name = match op {
                Op::ChangeColumn { new_name, .. } => new_name.clone(),
                _ => col_name.clone(),
            };
            let i = find(columns, &col_name.value).ok_or_else(|| unknown(&col_name.value))?;
            let mut column = columns.remove(i);
            column.def = ColumnDef {
                name: new_name.clone(),
                data_type: data_type.clone(),
                options: (options.iter())
                    .map(|o| ColumnOptionDef {
                        name: None,
                        option: o.clone(),
                    })
                    .collect(),
            };
            rename_in_keys(def, &col_name.value, &new_name.value);
            match column_position {
                Some(p) => place(columns, column, Some(p), &unknown)?,
                None => columns.insert(i, column),
            }
        }
        Op::AlterColumn { column_name, op } => {
            let i = find(columns, &column_name.value).ok_or_else(|| unknown(&column_name.value))?;
            let options = &mut columns[i].def.options;
            let is_default = |o: &ColumnOptionDef| matches!(o.option, ColumnOption::Default(_));
            match op {
                AlterColumnOperation::SetDefault { value } => {
                    options.retain(|o| !is_default(o));
                    options.push(ColumnOptionDef {
                        name: None,
                        option: ColumnOption::Default(value.clone()),
                    });
                }
                AlterColumnOperation::DropDefault => options.retain(|o| !is_default(o)),
                _ => return Err(ServerError::not_supported("this ALTER COLUMN")),
            }
        }
        Op::AddConstraint { constraint, .. } => {
            let is_pk = |k: &TableConstraint| matches!(k, TableConstraint::PrimaryKey(_));
            if is_pk(constraint) && def.constraints.iter().any(is_pk) {
                return Err(ServerError::new(
                    1068,
                    "42000",
                    "Multiple primary key defined",
                ));
            }
            // A foreign key too, named and indexed as the table is written (`foreign_keys.rs`).
            def.constraints.push(constraint.clone());
        }
        Op::DropPrimaryKey { .. } => {
            let before = def.constraints.len();
            def.constraints
                .retain(|k| !matches!(k, TableConstraint::PrimaryKey(_)));
            if def.constraints.len() == before {
                return Err(cant_drop("PRIMARY"));
            }
        }
        Op::DropIndex { name } => {
            let before = def.constraints.len();
            def.constraints
                .retain(|k| key_name(k).is_none_or(|n| !n.eq_ignore_ascii_case(&name.value)));
            if def.constraints.len() == before {
                return Err(cant_drop(&name.value));
            }
        }
        // Its index stays, as MySQL's.
        Op::DropForeignKey { name, .. } => {
            let before = def.constraints.len();
            def.constraints.retain(|k| match k {
                TableConstraint::ForeignKey(f) => f
                    .name
                    .as_ref()
                    .is_none_or(|n| !n.value.eq_ignore_ascii_case(&name.value)),
                _ => true,
            });
            if def.constraints.len() == before {
                return Err(cant_drop(&name.value));
            }
        }
        Op::Algorithm { .. } | Op::Lock { .. } => {}
        other => {
            let what = other.to_string();
            let verb: Vec<&str> = what.split(' ').take(2).collect();
            return Err(ServerError::not_supported(&format!(
                "ALTER TABLE ... {}",
                verb.join(" ")
            )));
        }
    }
    Ok(())
}

/// Puts `column` where `position` says (last without one).
fn place(
    columns: &mut Vec<Column>,
    column: Column,
    position: Option<&MySQLColumnPosition>,
    unknown: &dyn Fn(&str) -> ServerError,
) -> Result<(), ServerError> {
    let at = match position {
        None => columns.len(),
        Some(MySQLColumnPosition::First) => 0,
        Some(MySQLColumnPosition::After(c)) => {
            let i = (columns.iter())
                .position(|x| x.def.name.value.eq_ignore_ascii_case(&c.value))
                .ok_or_else(|| unknown(&c.value))?;
            i + 1
        }
    };
    columns.insert(at, column);
    Ok(())
}

/// A key's name (`PRIMARY` for the primary key).
fn key_name(k: &TableConstraint) -> Option<String> {
    match k {
        TableConstraint::PrimaryKey(_) => Some("PRIMARY".into()),
        TableConstraint::Unique(u) => {
            (u.index_name.as_ref().or(u.name.as_ref())).map(|n| n.value.clone())
        }
        TableConstraint::Index(i) => i.name.as_ref().map(|n| n.value.clone()),
        _ => None,
    }
}

/// The column expressions of a key.
fn key_columns(k: &mut TableConstraint) -> Option<&mut Vec<sqlparser::ast::IndexColumn>> {
    match k {
        TableConstraint::PrimaryKey(p) => Some(&mut p.columns),
        TableConstraint::Unique(u) => Some(&mut u.columns),
        TableConstraint::Index(i) => Some(&mut i.columns),
        _ => None,
    }
}

fn names(e: &Expr, column: &str) -> bool {
    matches!(e, Expr::Identifier(i) if i.value.eq_ignore_ascii_case(column))
}

/// A dropped column leaves its keys, as in MySQL (a key left with no column goes).
fn drop_from_keys(def: &mut CreateTable, column: &str) {
    for k in &mut def.constraints {
        if let Some(cols) = key_columns(k) {
            cols.retain(|c| !names(&c.column.expr, column));
        }
    }
    def.constraints
        .retain_mut(|k| key_columns(k).is_none_or(|c| !c.is_empty()));
}

/// A renamed column keeps its keys.
fn rename_in_keys(def: &mut CreateTable, from: &str, to: &str) {
    for k in &mut def.constraints {
        for c in key_columns(k).into_iter().flatten() {
            if names(&c.column.expr, from) {
                c.column.expr = Expr::Identifier(Ident::with_quote('`', to));
            }
        }
    }
}
