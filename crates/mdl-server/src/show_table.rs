//! What a DBA asks about a table's definition: `SHOW CREATE TABLE`, `DESCRIBE` / `SHOW
//! COLUMNS`, answered from SQLite's catalog (`sqlite_master`, `table_info`).

use rusqlite::types::Value;
use sqlparser::ast::Statement;

use crate::error::ServerError;
use crate::wire::{Cell, Output, ResultSet};

/// `DESCRIBE t` / `SHOW COLUMNS FROM t`: MySQL's columns `Field`, `Type`, `Null`, `Key`,
/// `Default`, `Extra`, from SQLite's `table_info` (the type as declared; `PRI` for the primary
/// key's columns). 1146 for a table that does not exist.
pub(crate) fn columns(
    db: &mut crate::engine::EngineConn,
    name: &sqlparser::ast::ObjectName,
    current: Option<String>,
) -> Result<Output, ServerError> {
    let (schema, table) = crate::rewrite::table_name(name, current.as_deref())?;
    if !db.engine().has_schema(&schema) {
        return Err(ServerError::unknown_database(&schema));
    }
    const SQL: &str = "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?, ?)";
    let info = db.run(
        SQL,
        &[Value::Text(table.clone()), Value::Text(schema.clone())],
        None,
    )?;
    let rows = match info {
        Output::Rows(rs) if !rs.rows.is_empty() => rs.rows,
        _ => {
            return Err(ServerError::new(
                1146,
                "42S02",
                format!("Table '{schema}.{table}' doesn't exist"),
            ))
        }
    };
    let text = |c: &Cell| match c {
        Cell::Text(t) => t.clone(),
        Cell::Int(i) => i.to_string(),
        _ => String::new(),
    };
    let rows = (rows.iter())
        .map(|r| {
            let not_null = matches!(r.get(2), Some(Cell::Int(1)));
            let pk = !matches!(r.get(4), Some(Cell::Int(0)) | None);
            vec![
                Cell::Text(r.first().map(text).unwrap_or_default()),
                Cell::Text(r.get(1).map(text).unwrap_or_default().to_ascii_lowercase()),
                Cell::Text(if not_null || pk { "NO" } else { "YES" }.into()),
                Cell::Text(if pk { "PRI" } else { "" }.into()),
                r.get(3).cloned().unwrap_or(Cell::Null),
                Cell::Text(String::new()),
            ]
        })
        .collect();
    Ok(Output::Rows(ResultSet {
        columns: ["Field", "Type", "Null", "Key", "Default", "Extra"]
            .iter()
            .map(|c| c.to_string())
            .collect(),
        rows,
    }))
}

/// `SHOW CREATE TABLE`: the engine's definition of the table.
pub(crate) fn show_create(
    db: &mut crate::engine::EngineConn,
    s: Option<&Statement>,
    current: Option<String>,
) -> Result<Output, ServerError> {
    let Some(Statement::ShowCreate { obj_name, .. }) = s else {
        return Ok(Output::OK);
    };
    let parts: Vec<String> = obj_name
        .0
        .iter()
        .map(|p| p.to_string().trim_matches('`').to_string())
        .collect();
    let (schema, table) = match parts.as_slice() {
        [s, t] => (s.clone(), t.clone()),
        [t] => (current.unwrap_or_default(), t.clone()),
        _ => return Err(ServerError::parse(&obj_name.to_string())),
    };
    let sql = format!(
        "SELECT name, sql FROM {}.sqlite_master WHERE type = 'table' AND name = ?",
        crate::engine::quote(&schema)
    );
    match db.run(&sql, &[Value::Text(table.clone())], None)? {
        Output::Rows(rs) if !rs.rows.is_empty() => Ok(Output::Rows(ResultSet {
            columns: vec!["Table".into(), "Create Table".into()],
            rows: rs.rows,
        })),
        _ => Err(ServerError::new(
            1146,
            "42S02",
            format!("Table '{schema}.{table}' doesn't exist"),
        )),
    }
    .map(|o| match o {
        Output::Rows(mut rs) => {
            for r in &mut rs.rows {
                r.truncate(2);
                if r.len() < 2 {
                    r.push(Cell::Null);
                }
            }
            Output::Rows(rs)
        }
        o => o,
    })
}
