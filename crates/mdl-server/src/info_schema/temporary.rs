//! `SHOW [FULL] COLUMNS` and `SHOW INDEX` with `FULL`, `LIKE` or `WHERE` of a session's
//! temporary table: `information_schema` does not list temporary tables (MySQL 8.0's does
//! not), so MySQL reads them from the hidden `TMP_TABLE_COLUMNS` and `TMP_TABLE_KEYS`
//! (`sql/parse_tree_nodes.cc`, `PT_show_fields_and_keys`: `find_temporary_table`, then
//! `SCH_TMP_TABLE_COLUMNS` / `SCH_TMP_TABLE_KEYS`, filled by `sql/sql_show.cc`,
//! `show_temporary_tables`). Here the rows `COLUMNS` or `STATISTICS` would have for the table
//! are a `SELECT` of literals under that table's column names, which the `SHOW`'s query
//! (`show_query/table_forms.rs`) reads in its place.

use rusqlite::types::Value;

use super::{columns_rows, statistics_rows, TABLES};
use crate::catalog;
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The rows `of` (`COLUMNS` or `STATISTICS`) would have for the session's temporary table
/// `schema.table`, as a `SELECT` of them (with `rowid`, their order); `None` if the session has
/// no temporary table of the name.
///
/// # Errors
/// SQLite errors.
pub fn rows_of(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
    of: &str,
) -> Result<Option<String>, ServerError> {
    let (s, name, temporary) = crate::temporary::locate(db, schema, table)?;
    let Some((_, columns)) = TABLES.iter().find(|(n, _)| *n == of).filter(|_| temporary) else {
        return Ok(None);
    };
    let cols = catalog::base_columns(db, &s, &name)?;
    let parts = catalog::base_indexes(db, &s, &name, &cols)?;
    let (schema, table) = (schema.to_ascii_lowercase(), table.to_ascii_lowercase());
    let mut rows = Vec::new();
    match of {
        "COLUMNS" => columns_rows(&schema, &table, &cols, &parts, &mut rows)?,
        _ => statistics_rows(&schema, &table, &cols, &parts, &mut rows)?,
    }
    let names: Vec<&str> = (columns.iter())
        .map(|c| c.split(' ').next().unwrap_or(c))
        .collect();
    let select = |row: &[Value], n: usize| {
        let items: Vec<String> = (row.iter().zip(&names))
            .map(|(v, c)| format!("{} AS `{c}`", literal(v)))
            .chain([format!("{n} AS rowid")])
            .collect();
        format!("SELECT {}", items.join(", "))
    };
    let none = vec![Value::Null; names.len()];
    let selects: Vec<String> = match rows.is_empty() {
        true => vec![format!("{} WHERE 0", select(&none, 0))],
        false => (rows.iter().enumerate())
            .map(|(i, r)| select(r, i + 1))
            .collect(),
    };
    Ok(Some(format!(
        "({}) AS tmp_table_rows",
        selects.join(" UNION ALL ")
    )))
}

/// A value as a literal of the `SHOW`'s query, which `mdl-sql` parses as MySQL (a backslash
/// escapes there).
fn literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => r.to_string(),
        Value::Text(t) => format!("'{}'", t.replace('\\', "\\\\").replace('\'', "''")),
        Value::Blob(b) => {
            let hex: String = b.iter().map(|x| format!("{x:02X}")).collect();
            format!("X'{hex}'")
        }
    }
}
