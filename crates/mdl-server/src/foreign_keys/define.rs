//! A `FOREIGN KEY` of `CREATE TABLE` (and of the definition an `ALTER TABLE` rebuilds) in
//! SQLite's words, named as MySQL names it, with the index MySQL adds to the child (see the
//! parent module's docs).

use sqlparser::ast::{ColumnOption, CreateTable, ReferentialAction, TableConstraint};

use crate::engine::quote;
use crate::error::ServerError;

/// What a `CREATE TABLE`'s foreign keys add to SQLite's definition: the constraints, and the
/// indexes the child needs (`(name, columns)`, created as any key of the table is).
#[derive(Debug, Default)]
pub struct ForeignKeyDefs {
    /// `CONSTRAINT name FOREIGN KEY ...`, one per key.
    pub constraints: Vec<String>,
    /// The indexes to add: their names and columns.
    pub indexes: Vec<(String, Vec<String>)>,
}

/// `ER_CANNOT_ADD_FOREIGN`: what InnoDB answers for a key it cannot make (a temporary table's;
/// `SET DEFAULT`, which `innobase_set_foreign_key_option` does not take).
fn cannot_add() -> ServerError {
    ServerError::new(1215, "HY000", "Cannot add foreign key constraint")
}

/// A key to a table of another schema: 1235. Each schema is a database file of its own,
/// attached to every connection (`engine.rs`), and SQLite checks a key within one database
/// only (its `REFERENCES` takes no schema: the parent is looked up in the child's database),
/// so such a key could be neither enforced nor kept.
pub(crate) fn other_schema() -> ServerError {
    ServerError::not_supported("a FOREIGN KEY to a table of another schema")
}

fn rule(a: &ReferentialAction) -> Result<&'static str, ServerError> {
    Ok(match a {
        ReferentialAction::Restrict => "RESTRICT",
        ReferentialAction::Cascade => "CASCADE",
        ReferentialAction::SetNull => "SET NULL",
        ReferentialAction::NoAction => "NO ACTION",
        ReferentialAction::SetDefault => return Err(cannot_add()),
    })
}

/// The foreign keys of `c` (in the schema `schema`, table `table`) for SQLite; none for a
/// table without. Unnamed keys get `<table>_ibfk_<n>`, `n` from 1 whatever names the others
/// have (`generate_fk_name`, `sql/sql_table.cc`); two keys of one name are 1826.
///
/// # Errors
/// 1215 for a temporary table's key or `SET DEFAULT`; 1235 for a parent in another schema;
/// 1826 for a name given twice;
/// 1064 for a `REFERENCES` without columns; 1239 for column lists of different lengths.
pub fn foreign_key_sql(
    c: &CreateTable,
    schema: &str,
    table: &str,
) -> Result<ForeignKeyDefs, ServerError> {
    let mut out = ForeignKeyDefs::default();
    let fks: Vec<_> = (c.constraints.iter())
        .filter_map(|k| match k {
            TableConstraint::ForeignKey(f) => Some(f),
            _ => None,
        })
        .collect();
    if fks.is_empty() {
        return Ok(out);
    }
    if c.temporary || schema == crate::temporary::SCHEMA {
        return Err(cannot_add());
    }
    // `generate_fk_name` counts from 0 whatever names are given (`mysql_create_table_no_lock`
    // passes no pre-existing number); an ALTER TABLE has named its new keys (`rebuild.rs`).
    let mut n = 0;
    let mut names: Vec<String> = Vec::new();
    let mut indexed = existing_index_columns(c);
    for f in fks {
        let (parent_schema, parent) = super::super::rewrite::object_parts(&f.foreign_table);
        if !parent_schema.is_empty() && !parent_schema.eq_ignore_ascii_case(schema) {
            return Err(other_schema());
        }
        if f.referred_columns.is_empty() {
            return Err(ServerError::parse(&f.to_string()));
        }
        if f.referred_columns.len() != f.columns.len() {
            return Err(ServerError::new(
                1239,
                "42000",
                format!(
                    "Incorrect foreign key definition for '{}': Key reference and table \
                     reference don't match",
                    f.name
                        .as_ref()
                        .map_or("foreign key without name", |n| &n.value)
                ),
            ));
        }
        let name = match &f.name {
            Some(name) => name.value.clone(),
            None => {
                n += 1;
                mdl_sql::generated_fk_name(table, n)
            }
        };
        // `prepare_foreign_key`: two keys of one table with one name (`ER_FK_DUP_NAME`).
        if names.iter().any(|m| m.eq_ignore_ascii_case(&name)) {
            return Err(super::checks::duplicate_name(&name));
        }
        names.push(name.clone());
        let cols: Vec<String> = f.columns.iter().map(|c| c.value.clone()).collect();
        // InnoDB's `innobase_check_fk_option`: "It is not sensible to define SET NULL if the
        // column is not allowed to be NULL!", reported as `ER_FK_COLUMN_NOT_NULL`.
        let set_null = [&f.on_delete, &f.on_update]
            .iter()
            .any(|a| matches!(a, Some(ReferentialAction::SetNull)));
        if let Some(col) = cols.iter().find(|col| set_null && not_null(c, col)) {
            return Err(ServerError::new(
                1830,
                "HY000",
                format!(
                    "Column '{col}' cannot be NOT NULL: needed in a foreign key constraint \
                     '{name}' SET NULL"
                ),
            ));
        }
        let list = |cols: &[String]| {
            let q: Vec<String> = cols.iter().map(|c| quote(c)).collect();
            q.join(", ")
        };
        let parents: Vec<String> = f.referred_columns.iter().map(|c| c.value.clone()).collect();
        let mut sql = format!(
            "CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})",
            quote(&name),
            list(&cols),
            quote(&parent),
            list(&parents)
        );
        if let Some(a) = &f.on_delete {
            sql.push_str(&format!(" ON DELETE {}", rule(a)?));
        }
        if let Some(a) = &f.on_update {
            sql.push_str(&format!(" ON UPDATE {}", rule(a)?));
        }
        out.constraints.push(sql);
        // MySQL's implicit index: unless an index starts with the key's columns; named after
        // the constraint's name, the key's index name, or its first column (the manual's
        // "FOREIGN KEY Constraints", `sql/sql_table.cc` `prepare_foreign_key`).
        let starts = |idx: &Vec<String>| {
            idx.len() >= cols.len()
                && idx
                    .iter()
                    .zip(&cols)
                    .all(|(a, b)| a.eq_ignore_ascii_case(b))
        };
        if !indexed.iter().any(starts) {
            let index = (f.name.as_ref().or(f.index_name.as_ref()))
                .map(|i| i.value.clone())
                .unwrap_or_else(|| cols.first().cloned().unwrap_or_default());
            out.indexes.push((index, cols.clone()));
            indexed.push(cols);
        }
    }
    Ok(out)
}

/// Whether column `col` of `c` is `NOT NULL` (so, or as part of the primary key).
fn not_null(c: &CreateTable, col: &str) -> bool {
    let named = |n: &str| n.trim_matches('`').eq_ignore_ascii_case(col);
    let on_column = (c.columns.iter()).any(|d| {
        named(&d.name.value)
            && (d.options.iter()).any(|o| {
                matches!(
                    o.option,
                    ColumnOption::NotNull | ColumnOption::PrimaryKey(_)
                )
            })
    });
    on_column
        || c.constraints.iter().any(|k| match k {
            TableConstraint::PrimaryKey(p) => {
                (p.columns.iter()).any(|i| named(&i.column.expr.to_string()))
            }
            _ => false,
        })
}

/// The columns of each index `c` defines (primary key, unique keys, keys; one-column keys
/// declared on a column), for the foreign keys' implicit indexes.
fn existing_index_columns(c: &CreateTable) -> Vec<Vec<String>> {
    let names = |cols: &[sqlparser::ast::IndexColumn]| -> Vec<String> {
        (cols.iter())
            .map(|i| i.column.expr.to_string().trim_matches('`').to_string())
            .collect()
    };
    let mut out: Vec<Vec<String>> = (c.constraints.iter())
        .filter_map(|k| match k {
            TableConstraint::PrimaryKey(p) => Some(names(&p.columns)),
            TableConstraint::Unique(u) => Some(names(&u.columns)),
            TableConstraint::Index(i) => Some(names(&i.columns)),
            _ => None,
        })
        .collect();
    for col in &c.columns {
        let keyed = (col.options.iter()).any(|o| {
            matches!(
                o.option,
                ColumnOption::PrimaryKey(_) | ColumnOption::Unique(_)
            )
        });
        if keyed {
            out.push(vec![col.name.value.clone()]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(sql: &str) -> Result<ForeignKeyDefs, ServerError> {
        let parsed =
            sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::MySqlDialect {}, sql)
                .unwrap();
        match &parsed[0] {
            sqlparser::ast::Statement::CreateTable(c) => foreign_key_sql(c, "test", "c"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn keys_are_named_and_indexed_as_mysql_does() {
        let d = defs(
            "CREATE TABLE c (a INT, b INT, KEY (b), FOREIGN KEY (a) REFERENCES p (id) \
             ON DELETE CASCADE, CONSTRAINT c_ibfk_4 FOREIGN KEY (b) REFERENCES p (u), \
             CONSTRAINT fk FOREIGN KEY (a, b) REFERENCES q (x, y) ON UPDATE SET NULL)",
        )
        .unwrap();
        assert_eq!(
            d.constraints,
            [
                "CONSTRAINT `c_ibfk_1` FOREIGN KEY (`a`) REFERENCES `p` (`id`) ON DELETE CASCADE",
                "CONSTRAINT `c_ibfk_4` FOREIGN KEY (`b`) REFERENCES `p` (`u`)",
                "CONSTRAINT `fk` FOREIGN KEY (`a`, `b`) REFERENCES `q` (`x`, `y`) ON UPDATE SET NULL",
            ]
        );
        // `a` gets an index (named after the column), `b` has one, `(a, b)` starts with `a`'s?
        // No: an index must start with all of the key's columns.
        assert_eq!(
            d.indexes,
            [
                ("a".to_string(), vec!["a".to_string()]),
                ("fk".to_string(), vec!["a".to_string(), "b".to_string()]),
            ]
        );
    }

    #[test]
    fn set_default_and_other_schemas_are_refused() {
        let e =
            defs("CREATE TABLE c (a INT, FOREIGN KEY (a) REFERENCES p (id) ON DELETE SET DEFAULT)");
        assert_eq!(e.unwrap_err().code, 1215);
        let e = defs("CREATE TABLE c (a INT, FOREIGN KEY (a) REFERENCES other.p (id))");
        assert_eq!(e.unwrap_err().code, 1235);
        let e = defs("CREATE TABLE c (a INT, FOREIGN KEY (a) REFERENCES p (id, x))");
        assert_eq!(e.unwrap_err().code, 1239);
        let e = defs(
            "CREATE TABLE c (a INT NOT NULL, FOREIGN KEY (a) REFERENCES p (id) ON DELETE SET NULL)",
        );
        assert_eq!(e.unwrap_err().code, 1830);
        // A column's REFERENCES is ignored, as MySQL 8.0 ignores it.
        let d = defs("CREATE TABLE c (a INT REFERENCES p (id))").unwrap();
        assert!(d.constraints.is_empty());
    }
}
