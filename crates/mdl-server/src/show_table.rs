//! What a DBA asks about a table's definition: `SHOW CREATE TABLE`, `DESCRIBE` / `SHOW
//! COLUMNS`, `SHOW INDEX`, answered from SQLite's catalog (`sqlite_master`; the columns and
//! indexes as `catalog.rs` reads them, the same rows `information_schema` shows). The
//! `performance_schema` tables and the `sys` views are answered from their definitions
//! (`pfs_views/columns.rs`: MySQL's types, no keys), without a snapshot.

use sqlparser::ast::{Ident, Statement};

use crate::catalog;
use crate::pfs_views::columns as own;

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
                Cell::Text(c.extra()),
            ]
        })
        .collect();
    Ok(Output::Rows(ResultSet {
        columns: ["Field", "Type", "Null", "Key", "Default", "Extra"]
            .iter()
            .map(|c| c.to_string())
            .collect(),
        rows,
        kinds: Vec::new(),
    }))
}

/// The columns and indexes of `schema.table`: 1049 for a schema that does not exist, 1146
/// for a table.
fn described(
    db: &mut crate::engine::EngineConn,
    schema: &str,
    table: &str,
) -> Result<(Vec<catalog::Column>, Vec<catalog::IndexPart>), ServerError> {
    if let Some(defined) = own::of(schema, table) {
        return Ok((own::catalog(&defined?.1), Vec::new()));
    }
    let cols = catalog::existing_columns(db, schema, table)?;
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
    // `Table` is the name as the table was made (SQLite found it without regard to case); a
    // temporary table's is the folded name it was made under.
    let temporary = crate::temporary::locate(db, &schema, &table).is_ok_and(|l| l.2);
    let made = match own::of(&schema, &table) {
        _ if temporary => Some(table.to_ascii_lowercase()),
        Some(defined) => defined.ok().map(|(n, _)| n.to_string()),
        None => catalog::tables(db, &schema).ok().and_then(|ts| {
            (ts.into_iter())
                .map(|(n, _)| n)
                .find(|n| n.eq_ignore_ascii_case(&table))
        }),
    };
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
        kinds: Vec::new(),
    })))
}

/// `SHOW CREATE TABLE`: the table's definition as MySQL prints it (`store_create_info`,
/// `sql/sql_show.cc`), rebuilt from the catalog (`catalog.rs`): a column a line, then the keys.
/// 1146 for a table that does not exist.
pub(crate) fn show_create(
    db: &mut crate::engine::EngineConn,
    s: Option<&Statement>,
    current: Option<String>,
) -> Result<Output, ServerError> {
    let Some(Statement::ShowCreate { obj_name, obj_type }) = s else {
        return Ok(Output::OK);
    };
    let (schema, table) = crate::rewrite::table_name(obj_name, current.as_deref())?;
    // The session's temporary table of the name first (`temporary.rs`).
    let temporary = crate::temporary::locate(db, &schema, &table)?.2;
    // A view answers either form (MySQL's `mysqld_show_create`); a table is not a view (1347).
    if let Some(v) = (db.engine().views.get(&schema, &table)).filter(|_| !temporary) {
        return Ok(Output::Rows(ResultSet {
            columns: [
                "View",
                "Create View",
                "character_set_client",
                "collation_connection",
            ]
            .map(String::from)
            .to_vec(),
            rows: vec![v.show_create_row()],
            kinds: Vec::new(),
        }));
    }
    if *obj_type == sqlparser::ast::ShowCreateObject::View {
        described(db, &schema, &table)?; // 1049, 1146
        let msg = format!("'{schema}.{table}' is not VIEW");
        return Err(ServerError::new(1347, "HY000", msg));
    }
    let (cols, parts) = described(db, &schema, &table)?;
    if let Some(Ok((name, _))) = own::of(&schema, &table) {
        // MySQL's engine for `performance_schema`; a `sys` view's snapshot is SQLite's table.
        let pfs = schema.eq_ignore_ascii_case("performance_schema");
        let engine = if pfs {
            "PERFORMANCE_SCHEMA"
        } else {
            catalog::ENGINE
        };
        return Ok(create_table_output(
            name,
            create_table(name, &cols, &parts, engine),
        ));
    }
    let mut text = create_table(&table, &cols, &parts, catalog::ENGINE);
    if !temporary {
        text = with_foreign_keys(text, &db.engine().foreign_keys.of_child(&schema, &table));
    }
    if temporary {
        // `store_create_info` (`sql/sql_show.cc`): `CREATE TEMPORARY TABLE` for one.
        text = text.replacen("CREATE TABLE", "CREATE TEMPORARY TABLE", 1);
    }
    // The counter's next value once past 1, as MySQL prints it (`store_create_info`,
    // `sql/sql_show.cc`), so that a dump restores it; not part of what LIKE copies.
    if let Some(n) = catalog::next_auto_increment(db, &schema, &table)?.filter(|n| *n > 1) {
        let engine = format!(" ENGINE={}", catalog::ENGINE);
        text = text.replacen(&engine, &format!("{engine} AUTO_INCREMENT={n}"), 1);
    }
    Ok(create_table_output(&table, text))
}

/// `text` (a `CREATE TABLE`) with the table's foreign keys after its keys, a `CONSTRAINT` line
/// each, as `store_create_info` (`sql/sql_show.cc`) prints them (`foreign_keys.rs`).
fn with_foreign_keys(text: String, keys: &[crate::foreign_keys::ForeignKey]) -> String {
    if keys.is_empty() {
        return text;
    }
    let lines: String = keys
        .iter()
        .map(|k| format!(",\n  {}", k.definition()))
        .collect();
    match text.find("\n) ENGINE=") {
        Some(at) => format!("{}{lines}{}", &text[..at], &text[at..]),
        None => text,
    }
}

/// [`create_table_text`] with the table's foreign keys: the definition an ALTER TABLE rebuilds
/// (`execute/rebuild.rs`). `CREATE TABLE ... LIKE` copies no foreign key, as MySQL's.
///
/// # Errors
/// As [`create_table_text`].
pub(crate) fn create_table_text_with_keys(
    db: &mut crate::engine::EngineConn,
    schema: &str,
    table: &str,
) -> Result<String, ServerError> {
    let text = create_table_text(db, schema, table, table)?;
    Ok(with_foreign_keys(
        text,
        &db.engine().foreign_keys.of_child(schema, table),
    ))
}

/// `SHOW CREATE TABLE`'s row: the table's name and its text.
fn create_table_output(table: &str, text: String) -> Output {
    Output::Rows(ResultSet {
        columns: vec!["Table".into(), "Create Table".into()],
        rows: vec![vec![Cell::Text(table.to_string()), Cell::Text(text)]],
        kinds: Vec::new(),
    })
}

/// `SHOW CREATE TABLE`'s text of `schema.table`, naming the table `named`: what `CREATE TABLE
/// named LIKE schema.table` creates (`execute.rs`).
///
/// # Errors
/// 1049 for an unknown schema, 1146 for a table that does not exist; SQLite errors.
pub(crate) fn create_table_text(
    db: &mut crate::engine::EngineConn,
    schema: &str,
    table: &str,
    named: &str,
) -> Result<String, ServerError> {
    let (cols, parts) = described(db, schema, table)?;
    Ok(create_table(named, &cols, &parts, catalog::ENGINE))
}

/// MySQL's `CREATE TABLE` text of a table: columns with their type, `NOT NULL`, default
/// (quoted unless an expression such as `CURRENT_TIMESTAMP`; `DEFAULT NULL` for a nullable
/// column without one) and `AUTO_INCREMENT`; the primary key, unique keys and keys in the
/// catalog's order (a key part on an expression, which the catalog cannot name, is left out);
/// `engine` and the character set this server has.
fn create_table(
    table: &str,
    cols: &[catalog::Column],
    parts: &[catalog::IndexPart],
    engine: &str,
) -> String {
    let q = |n: &str| format!("`{}`", n.replace('`', "``"));
    let mut lines: Vec<String> = cols
        .iter()
        .map(|c| {
            let mut l = format!("  {} {}", q(&c.name), c.column_type());
            if c.nullable() == "NO" {
                l.push_str(" NOT NULL");
            }
            match &c.default {
                Some(d) if is_default_expression(d) => l.push_str(&format!(" DEFAULT {d}")),
                // A NUL as `\0`, which reads back as one (`append_unescaped`, `sql_show.cc`).
                Some(d) => l.push_str(&format!(
                    " DEFAULT '{}'",
                    d.replace('\'', "''").replace('\0', "\\0")
                )),
                None if c.nullable() == "YES" => l.push_str(" DEFAULT NULL"),
                None => {}
            }
            if let Some(u) = &c.on_update {
                l.push_str(&format!(" ON UPDATE {u}"));
            }
            if c.auto_increment {
                l.push_str(" AUTO_INCREMENT");
            }
            l
        })
        .collect();
    let mut keys: Vec<(&catalog::IndexPart, Vec<String>)> = Vec::new();
    for p in parts {
        let Some(col) = &p.column else { continue };
        match keys.iter_mut().find(|(k, _)| k.index == p.index) {
            Some((_, cols)) => cols.push(q(col)),
            None => keys.push((p, vec![q(col)])),
        }
    }
    for (k, cols) in keys {
        let cols = cols.join(",");
        lines.push(match (k.index.as_str(), k.unique) {
            ("PRIMARY", _) => format!("  PRIMARY KEY ({cols})"),
            (name, true) => format!("  UNIQUE KEY {} ({cols})", q(name)),
            (name, false) => format!("  KEY {} ({cols})", q(name)),
        });
    }
    format!(
        "CREATE TABLE {} (\n{}\n) ENGINE={} DEFAULT CHARSET={} COLLATE={}",
        q(table),
        lines.join(",\n"),
        engine,
        catalog::CHARSET,
        catalog::COLLATION
    )
}

/// A default MySQL prints without quotes: a time function or a parenthesized expression.
pub(crate) fn is_default_expression(d: &str) -> bool {
    let upper = d.to_ascii_uppercase();
    d.starts_with('(')
        || ["CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME", "NOW("]
            .iter()
            .any(|f| upper.starts_with(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(
        name: &str,
        ty: &str,
        not_null: bool,
        default: Option<&str>,
        pk: i64,
    ) -> catalog::Column {
        catalog::Column {
            name: name.into(),
            position: 1,
            decl_type: ty.into(),
            not_null,
            default: default.map(str::to_string),
            pk,
            auto_increment: pk == 1 && ty == "INTEGER",
            on_update: None,
        }
    }

    fn part(index: &str, unique: bool, seq: i64, column: &str) -> catalog::IndexPart {
        catalog::IndexPart {
            index: index.into(),
            unique,
            seq,
            column: Some(column.into()),
            nullable: false,
        }
    }

    #[test]
    fn create_table_is_printed_as_mysql_prints_it() {
        let cols = [
            col("id", "INTEGER", false, None, 1),
            col("k", "int", true, Some("0"), 0),
            col("c", "char(120)", true, Some("it's"), 0),
            col("at", "timestamp", false, Some("CURRENT_TIMESTAMP"), 0),
            col("n", "varchar(5)", false, None, 0),
        ];
        let parts = [
            part("PRIMARY", true, 1, "id"),
            part("u", true, 1, "c"),
            part("k_1", false, 1, "k"),
            part("k_1", false, 2, "n"),
        ];
        assert_eq!(
            create_table("sbtest1", &cols, &parts, catalog::ENGINE),
            "CREATE TABLE `sbtest1` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  \
             `k` int NOT NULL DEFAULT '0',\n  `c` char(120) NOT NULL DEFAULT 'it''s',\n  \
             `at` timestamp DEFAULT CURRENT_TIMESTAMP,\n  `n` varchar(5) DEFAULT NULL,\n  \
             PRIMARY KEY (`id`),\n  UNIQUE KEY `u` (`c`),\n  KEY `k_1` (`k`,`n`)\n) \
             ENGINE=SQLite DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
        );
    }
}
