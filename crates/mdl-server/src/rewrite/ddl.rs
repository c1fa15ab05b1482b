//! `CREATE TABLE` and `CREATE INDEX` in SQLite's dialect (see the parent module's docs): column
//! types and options SQLite keeps, inline keys as indexes, index names per schema.

use sqlparser::ast::{ColumnOption, CreateIndex, CreateTable, DataType, TableConstraint};

use super::{last, q_ident, split};
use crate::error::ServerError;

fn is_auto_increment(o: &ColumnOption) -> bool {
    matches!(o, ColumnOption::DialectSpecific(toks)
        if toks.iter().any(|t| t.to_string().eq_ignore_ascii_case("AUTO_INCREMENT")))
}

fn is_integer(t: &DataType) -> bool {
    let s = t.to_string().to_ascii_uppercase();
    [
        "INT",
        "BIGINT",
        "SMALLINT",
        "TINYINT",
        "MEDIUMINT",
        "INTEGER",
    ]
    .iter()
    .any(|k| s.starts_with(k))
}

fn index_columns(cols: &[sqlparser::ast::IndexColumn]) -> String {
    cols.iter()
        .map(|c| c.column.expr.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `CREATE TABLE` for SQLite (see the module docs).
pub(super) fn create_table(c: &CreateTable) -> Result<Vec<String>, ServerError> {
    if c.like.is_some() {
        return Err(ServerError::not_supported("CREATE TABLE ... LIKE"));
    }
    let (schema, table) = split(&c.name);
    let name = format!("{}.{}", q_ident(&schema), q_ident(&table));
    let ine = if c.if_not_exists {
        "IF NOT EXISTS "
    } else {
        ""
    };
    if let Some(q) = &c.query {
        if c.columns.is_empty() {
            return Ok(vec![format!("CREATE TABLE {ine}{name} AS {q}")]);
        }
    }
    let mut defs = Vec::new();
    let mut after = Vec::new();
    for col in &c.columns {
        let auto = col.options.iter().any(|o| is_auto_increment(&o.option));
        let ty = if auto && is_integer(&col.data_type) {
            "INTEGER".to_string()
        } else {
            col.data_type.to_string()
        };
        let mut d = format!("{} {ty}", q_ident(&col.name.value));
        for o in &col.options {
            match &o.option {
                ColumnOption::Null
                | ColumnOption::NotNull
                | ColumnOption::Default(_)
                | ColumnOption::Check(_) => d.push_str(&format!(" {}", o.option)),
                ColumnOption::PrimaryKey(_) => d.push_str(" PRIMARY KEY"),
                ColumnOption::Unique(_) => d.push_str(" UNIQUE"),
                _ => {}
            }
        }
        defs.push(d);
    }
    for k in &c.constraints {
        match k {
            TableConstraint::PrimaryKey(p) => {
                defs.push(format!("PRIMARY KEY ({})", index_columns(&p.columns)))
            }
            TableConstraint::Unique(u) => {
                defs.push(format!("UNIQUE ({})", index_columns(&u.columns)))
            }
            TableConstraint::Check(ch) => defs.push(ch.to_string()),
            TableConstraint::Index(i) => {
                let idx = i
                    .name
                    .as_ref()
                    .map_or_else(|| format!("idx{}", after.len()), |n| n.value.clone());
                after.push(format!(
                    "CREATE INDEX {ine}{}.{} ON {} ({})",
                    q_ident(&schema),
                    q_ident(&format!("{table}__{idx}")),
                    q_ident(&table),
                    index_columns(&i.columns)
                ));
            }
            _ => {} // foreign keys and full-text indexes: not kept
        }
    }
    let mut out = vec![format!("CREATE TABLE {ine}{name} ({})", defs.join(", "))];
    out.extend(after);
    Ok(out)
}

/// `CREATE INDEX i ON t (...)` -> `CREATE INDEX schema.t__i ON t (...)`.
pub(super) fn create_index(c: &CreateIndex) -> Result<String, ServerError> {
    let (schema, table) = split(&c.table_name);
    let idx = c
        .name
        .as_ref()
        .map(last)
        .ok_or_else(|| ServerError::parse("CREATE INDEX"))?;
    Ok(format!(
        "CREATE {}INDEX {}{}.{} ON {} ({})",
        if c.unique { "UNIQUE " } else { "" },
        if c.if_not_exists {
            "IF NOT EXISTS "
        } else {
            ""
        },
        q_ident(&schema),
        q_ident(&format!("{table}__{idx}")),
        q_ident(&table),
        index_columns(&c.columns)
    ))
}
