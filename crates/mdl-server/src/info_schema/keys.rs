//! `TABLE_CONSTRAINTS` and `KEY_COLUMN_USAGE`: the primary and unique keys of the tables, as
//! MySQL 8.0 lists them (ORMs read them to find a table's keys). The keys are the catalog's
//! unique indexes (`catalog.rs`, as `STATISTICS` has them); the server keeps no foreign keys
//! (`CREATE TABLE` drops them), so no row references another table.

use rusqlite::types::Value;

use crate::catalog::{Column, IndexPart};
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
