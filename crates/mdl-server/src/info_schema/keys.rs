//! `TABLE_CONSTRAINTS`, `KEY_COLUMN_USAGE` and `REFERENTIAL_CONSTRAINTS`: the primary, unique
//! and foreign keys of the tables, as MySQL 8.0 lists them (ORMs read them to find a table's
//! keys and relations). The primary and unique keys are the catalog's unique indexes
//! (`catalog.rs`, as `STATISTICS` has them); the foreign keys are the shared catalog's
//! (`foreign_keys.rs`): `KEY_COLUMN_USAGE` gives their columns with the parent's
//! (`REFERENCED_*`, `POSITION_IN_UNIQUE_CONSTRAINT`), `REFERENTIAL_CONSTRAINTS` their rules and
//! the parent's key they reference (`UNIQUE_CONSTRAINT_NAME`: `PRIMARY` or the unique key's
//! name), `MATCH_OPTION` `NONE`, as InnoDB stores them.

use rusqlite::types::Value;

use crate::catalog::{Column, IndexPart};
use crate::engine::EngineConn;
use crate::error::ServerError;

pub(super) const TABLE_CONSTRAINTS: [&str; 7] = [
    "CONSTRAINT_CATALOG varchar(64)",
    "CONSTRAINT_SCHEMA varchar(64)",
    "CONSTRAINT_NAME varchar(64)",
    "TABLE_SCHEMA varchar(64)",
    "TABLE_NAME varchar(64)",
    "CONSTRAINT_TYPE varchar(11)",
    "ENFORCED varchar(3)",
];

pub(super) const KEY_COLUMN_USAGE: [&str; 12] = [
    "CONSTRAINT_CATALOG varchar(64)",
    "CONSTRAINT_SCHEMA varchar(64)",
    "CONSTRAINT_NAME varchar(64)",
    "TABLE_CATALOG varchar(64)",
    "TABLE_SCHEMA varchar(64)",
    "TABLE_NAME varchar(64)",
    "COLUMN_NAME varchar(64)",
    "ORDINAL_POSITION int unsigned",
    "POSITION_IN_UNIQUE_CONSTRAINT int unsigned",
    "REFERENCED_TABLE_SCHEMA varchar(64)",
    "REFERENCED_TABLE_NAME varchar(64)",
    "REFERENCED_COLUMN_NAME varchar(64)",
];

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

/// A `TABLE_CONSTRAINTS` row per unique key of the table.
pub(super) fn constraint_rows(
    schema: &str,
    table: &str,
    _cols: &[Column],
    parts: &[IndexPart],
    rows: &mut Vec<Vec<Value>>,
) -> Result<(), ServerError> {
    for p in parts.iter().filter(|p| p.unique && p.seq == 1) {
        let kind = if p.index == "PRIMARY" {
            "PRIMARY KEY"
        } else {
            "UNIQUE"
        };
        rows.push(vec![
            text("def"),
            text(schema),
            text(&p.index),
            text(schema),
            text(table),
            text(kind),
            text("YES"),
        ]);
    }
    Ok(())
}

/// A `KEY_COLUMN_USAGE` row per column of a unique key of the table.
pub(super) fn key_column_rows(
    schema: &str,
    table: &str,
    _cols: &[Column],
    parts: &[IndexPart],
    rows: &mut Vec<Vec<Value>>,
) -> Result<(), ServerError> {
    for p in parts.iter().filter(|p| p.unique) {
        let Some(column) = &p.column else { continue };
        rows.push(vec![
            text("def"),
            text(schema),
            text(&p.index),
            text("def"),
            text(schema),
            text(table),
            text(column),
            Value::Integer(p.seq),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
        ]);
    }
    Ok(())
}

/// The rows of `table` (`TABLE_CONSTRAINTS`, `KEY_COLUMN_USAGE` or `REFERENTIAL_CONSTRAINTS`)
/// for the foreign keys of `schema`.
pub(super) fn foreign_key_rows(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
    rows: &mut Vec<Vec<Value>>,
) -> Result<(), ServerError> {
    let keys = db.engine().foreign_keys.of_schema(schema);
    for k in keys.iter() {
        match table {
            "TABLE_CONSTRAINTS" => rows.push(vec![
                text("def"),
                text(schema),
                text(&k.name),
                text(schema),
                text(&k.table),
                text("FOREIGN KEY"),
                text("YES"),
            ]),
            "KEY_COLUMN_USAGE" => {
                for (i, (c, p)) in k.columns.iter().zip(&k.parent_columns).enumerate() {
                    let at = Value::Integer(i as i64 + 1);
                    rows.push(vec![
                        text("def"),
                        text(schema),
                        text(&k.name),
                        text("def"),
                        text(schema),
                        text(&k.table),
                        text(c),
                        at.clone(),
                        at,
                        text(schema),
                        text(&k.parent),
                        text(p),
                    ]);
                }
            }
            _ => rows.push(vec![
                text("def"),
                text(schema),
                text(&k.name),
                text("def"),
                text(schema),
                parent_key(db, schema, k).map_or(Value::Null, |n| text(&n)),
                text("NONE"),
                text(crate::foreign_keys::rule_name(k.on_update)),
                text(crate::foreign_keys::rule_name(k.on_delete)),
                text(&k.table),
                text(&k.parent),
            ]),
        }
    }
    Ok(())
}

/// The parent's unique key of exactly the key's columns (`PRIMARY` for the primary key).
fn parent_key(
    db: &mut EngineConn,
    schema: &str,
    k: &crate::foreign_keys::ForeignKey,
) -> Option<String> {
    let cols = crate::catalog::base_columns(db, schema, &k.parent).ok()?;
    let parts = crate::catalog::base_indexes(db, schema, &k.parent, &cols).ok()?;
    let mut names: Vec<&str> = parts
        .iter()
        .filter(|p| p.unique)
        .map(|p| p.index.as_str())
        .collect();
    names.dedup();
    names
        .into_iter()
        .find(|name| {
            let of: Vec<&str> = (parts.iter())
                .filter(|p| p.index == *name)
                .filter_map(|p| p.column.as_deref())
                .collect();
            of.len() == k.parent_columns.len()
                && of
                    .iter()
                    .all(|c| k.parent_columns.iter().any(|p| p.eq_ignore_ascii_case(c)))
        })
        .map(str::to_string)
}
