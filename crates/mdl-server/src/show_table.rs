//! What a DBA asks about a table's definition: `SHOW CREATE TABLE`, `DESCRIBE` / `SHOW
//! COLUMNS`, `SHOW INDEX`, answered from SQLite's catalog (`sqlite_master`; the columns and
//! indexes as `catalog.rs` reads them, the same rows `information_schema` shows).

use rusqlite::types::Value;
use sqlparser::ast::{Ident, Statement};

use crate::catalog;

use crate::error::ServerError;
use crate::wire::{Cell, Output, ResultSet};

/// `DESCRIBE t` / `SHOW COLUMNS FROM t`: MySQL's columns `Field`, `Type`, `Null`, `Key`,
/// `Default`, `Extra`, from SQLite's catalog (`catalog.rs`: the type as declared, MySQL's
/// `PRI`/`UNI`/`MUL`, `auto_increment`). 1146 for a table that does not exist.
pub(crate) fn columns(
    db: &mut crate::engine::EngineConn,
    name: &sqlparser::ast::ObjectName,
    current: Option<String>,
) -> Result<Output, ServerError> {
    let (schema, table) = crate::rewrite::table_name(name, current.as_deref())?;
    let (cols, parts) = described(db, &schema, &table)?;
    let rows = (cols.iter())
        .map(|c| {
            vec![
                Cell::Text(c.name.clone()),
                Cell::Text(c.column_type()),
                Cell::Text(c.nullable().into()),
                Cell::Text(catalog::column_key(c, &parts).into()),
                c.default.clone().map_or(Cell::Null, Cell::Text),
                Cell::Text(c.extra().into()),
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

/// The columns and indexes of `schema.table`: 1049 for a schema that does not exist, 1146
/// for a table.
fn described(
    db: &mut crate::engine::EngineConn,
    schema: &str,
    table: &str,
) -> Result<(Vec<catalog::Column>, Vec<catalog::IndexPart>), ServerError> {
    if !db.engine().has_schema(schema) {
        return Err(ServerError::unknown_database(schema));
    }
    let cols = catalog::columns(db, schema, table)?;
    if cols.is_empty() {
        return Err(ServerError::new(
            1146,
            "42S02",
            format!("Table '{schema}.{table}' doesn't exist"),
        ));
    }
    let parts = catalog::indexes(db, schema, table, &cols)?;
    Ok((cols, parts))
}

/// `SHOW {INDEX | INDEXES | KEYS} {FROM | IN} t [{FROM | IN} db]`, which sqlparser reads as
/// `SHOW <words>` (`variable`: its words, dots dropped, so `db.t` is two words): MySQL 8.0's
/// columns, the rows of `information_schema.STATISTICS` (`catalog.rs`). `None`: not one.
pub(crate) fn show_index(
    db: &mut crate::engine::EngineConn,
    variable: &[Ident],
    current: Option<String>,
) -> Option<Result<Output, ServerError>> {
    let keyword = |i: &Ident, words: &[&str]| {
        i.quote_style.is_none() && words.iter().any(|w| i.value.eq_ignore_ascii_case(w))
    };
    let from = |i: &Ident| keyword(i, &["FROM", "IN"]);
    let (first, rest) = variable.split_first()?;
    if !keyword(first, &["INDEX", "INDEXES", "KEYS"]) {
        return None;
    }
    let bad = || Some(Err(ServerError::parse("SHOW INDEX")));
    let Some((_, rest)) = rest.split_first().filter(|(f, _)| from(f)) else {
        return bad();
    };
    let (name, db_clause) = match rest.iter().position(from) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (mut schema, table) = match name {
        [t] => (current, t.value.clone()),
        [s, t] => (Some(s.value.clone()), t.value.clone()),
        _ => return bad(),
    };
    match db_clause {
        Some([d]) => schema = Some(d.value.clone()),
        Some(_) => return bad(),
        None => {}
    }
    let Some(schema) = schema.map(|s| s.to_ascii_lowercase()) else {
        return Some(Err(ServerError::new(1046, "3D000", "No database selected")));
    };
    let parts = match described(db, &schema, &table) {
        Ok((_, parts)) => parts,
        Err(e) => return Some(Err(e)),
    };
    // `Table` is the name as the table was made (SQLite found it without regard to case).
    let made = catalog::tables(db, &schema).ok().and_then(|ts| {
        (ts.into_iter())
            .map(|(n, _)| n)
            .find(|n| n.eq_ignore_ascii_case(&table))
    });
    let table = made.unwrap_or(table);
    let rows = (parts.iter())
        .map(|p| {
            let mut r = vec![Cell::Text(table.clone())];
            r.extend(p.cells());
            r
        })
        .collect();
    Some(Ok(Output::Rows(ResultSet {
        columns: (catalog::SHOW_INDEX_COLUMNS.iter())
            .map(|c| c.to_string())
            .collect(),
        rows,
    })))
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
