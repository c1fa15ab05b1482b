//! `information_schema.SCHEMATA`, `TABLES`, `COLUMNS`, `STATISTICS`, `PROCESSLIST` (the rows
//! of `SHOW FULL PROCESSLIST`, which DBAs filter with `WHERE`), `INNODB_TRX` (the open
//! transactions, `transactions.rs`), the keys (`keys.rs`: `TABLE_CONSTRAINTS`,
//! `KEY_COLUMN_USAGE`, `REFERENTIAL_CONSTRAINTS`), `VIEWS` (`views.rs`), and the tables of
//! constants (`fixed.rs`: `ENGINES`, `PLUGINS`, `CHARACTER_SETS`, `COLLATIONS`, the empty
//! `TRIGGERS`, `ROUTINES` and `EVENTS`) as SQLite snapshots.
//!
//! As for `performance_schema` (`pfs_views.rs`): before a statement that names one of these
//! tables runs, the connection copies what the catalog says at that moment into a table of
//! that name in its own in-memory `information_schema` database, and SQLite runs the statement
//! as written (`WHERE`, `ORDER BY`, joins). Only the tables the statement names are copied.
//! The columns are MySQL 8.0's, named in upper case; SQLite finds tables and columns without
//! regard to case, as MySQL's `information_schema` does (`information_schema.tables` is
//! `INFORMATION_SCHEMA.TABLES`).
//!
//! What is in them: the schemas this server has (`SHOW DATABASES`'s list); every table and
//! view of the schema files, as `catalog.rs` reads them (the rows of `STATISTICS` are those of
//! `SHOW INDEX`); in `TABLES` also the `performance_schema` tables (`BASE TABLE`, engine
//! `PERFORMANCE_SCHEMA`, as in MySQL), the `sys` views (`VIEW`: `pfs_views::SYS_TABLES`)
//! and these (`SYSTEM VIEW`); in `COLUMNS` also the columns of the `performance_schema` tables
//! and the `sys` views, from their definitions (`pfs_views/columns.rs`: MySQL's types, no
//! snapshot made), and those of these tables, from [`TABLES`], as MySQL lists its own. `TABLE_ROWS` is an estimate, as InnoDB's is (the largest rowid: the count
//! until rows are deleted, read without a scan), `AUTO_INCREMENT` the counter's next value;
//! sizes, times and `CARDINALITY` SQLite does not keep, and are NULL. `ENGINE` is `SQLite`,
//! the collation `utf8mb4_bin` (`catalog.rs`).
//!
//! Writes to `information_schema` (DML or DDL whose target is one of its tables) are refused
//! as MySQL 8.0 refuses them: 1044 (`ER_DBACCESS_DENIED_ERROR`); a table it does not have is 1109
//! (`ER_UNKNOWN_TABLE`).

use rusqlite::types::Value;
use sqlparser::ast::{ObjectName, ObjectType, Statement};

mod fixed;
mod keys;
mod temporary;
mod transactions;

pub(crate) use temporary::rows_of as temporary_rows;
pub(crate) use transactions::datetime;

use crate::catalog::{self, Column, CHARSET, COLLATION};
use crate::engine::{quote, EngineConn, ROWID, VIEW_SCHEMAS};
use crate::error::ServerError;
use crate::processlist::Process;

/// The schema's name.
pub const SCHEMA: &str = "information_schema";

const SCHEMATA: [&str; 6] = [
    "CATALOG_NAME varchar(64)",
    "SCHEMA_NAME varchar(64)",
    "DEFAULT_CHARACTER_SET_NAME varchar(64)",
    "DEFAULT_COLLATION_NAME varchar(64)",
    "SQL_PATH binary(0)",
    "DEFAULT_ENCRYPTION varchar(3)",
];

const TABLES_COLUMNS: [&str; 21] = [
    "TABLE_CATALOG varchar(64)",
    "TABLE_SCHEMA varchar(64)",
    "TABLE_NAME varchar(64)",
    "TABLE_TYPE varchar(11)",
    "ENGINE varchar(64)",
    "VERSION int",
    "ROW_FORMAT varchar(10)",
    "TABLE_ROWS bigint unsigned",
    "AVG_ROW_LENGTH bigint unsigned",
    "DATA_LENGTH bigint unsigned",
    "MAX_DATA_LENGTH bigint unsigned",
    "INDEX_LENGTH bigint unsigned",
    "DATA_FREE bigint unsigned",
    "AUTO_INCREMENT bigint unsigned",
    "CREATE_TIME timestamp",
    "UPDATE_TIME datetime",
    "CHECK_TIME datetime",
    "TABLE_COLLATION varchar(64)",
    "CHECKSUM bigint",
    "CREATE_OPTIONS varchar(256)",
    "TABLE_COMMENT text",
];

const COLUMNS: [&str; 22] = [
    "TABLE_CATALOG varchar(64)",
    "TABLE_SCHEMA varchar(64)",
    "TABLE_NAME varchar(64)",
    "COLUMN_NAME varchar(64)",
    "ORDINAL_POSITION int unsigned",
    "COLUMN_DEFAULT text",
    "IS_NULLABLE varchar(3)",
    "DATA_TYPE longtext",
    "CHARACTER_MAXIMUM_LENGTH bigint",
    "CHARACTER_OCTET_LENGTH bigint",
    "NUMERIC_PRECISION bigint unsigned",
    "NUMERIC_SCALE bigint unsigned",
    "DATETIME_PRECISION int unsigned",
    "CHARACTER_SET_NAME varchar(64)",
    "COLLATION_NAME varchar(64)",
    "COLUMN_TYPE mediumtext",
    "COLUMN_KEY varchar(3)",
    "EXTRA varchar(256)",
    "PRIVILEGES varchar(154)",
    "COLUMN_COMMENT text",
    "GENERATION_EXPRESSION longtext",
    "SRS_ID int unsigned",
];

const STATISTICS: [&str; 18] = [
    "TABLE_CATALOG varchar(64)",
    "TABLE_SCHEMA varchar(64)",
    "TABLE_NAME varchar(64)",
    "NON_UNIQUE int",
    "INDEX_SCHEMA varchar(64)",
    "INDEX_NAME varchar(64)",
    "SEQ_IN_INDEX int unsigned",
    "COLUMN_NAME varchar(64)",
    "COLLATION varchar(1)",
    "CARDINALITY bigint",
    "SUB_PART bigint",
    "PACKED binary(0)",
    "NULLABLE varchar(3)",
    "INDEX_TYPE varchar(11)",
    "COMMENT varchar(8)",
    "INDEX_COMMENT varchar(2048)",
    "IS_VISIBLE varchar(3)",
    "EXPRESSION longtext",
];

/// The tables of `information_schema` this server has, with their columns (name and MySQL
/// 8.0's type; SQLite's affinity follows the type: numbers stay numbers, text text).
pub const TABLES: [(&str, &[&str]); 17] = [
    ("CHARACTER_SETS", &fixed::CHARACTER_SETS),
    ("COLLATIONS", &fixed::COLLATIONS),
    ("COLUMNS", &COLUMNS),
    ("ENGINES", &fixed::ENGINES),
    ("EVENTS", &fixed::EVENTS),
    ("INNODB_TRX", &transactions::INNODB_TRX),
    ("KEY_COLUMN_USAGE", &keys::KEY_COLUMN_USAGE),
    ("PLUGINS", &fixed::PLUGINS),
    ("PROCESSLIST", &PROCESSLIST),
    ("REFERENTIAL_CONSTRAINTS", &fixed::REFERENTIAL_CONSTRAINTS),
    ("ROUTINES", &fixed::ROUTINES),
    ("SCHEMATA", &SCHEMATA),
    ("STATISTICS", &STATISTICS),
    ("TABLES", &TABLES_COLUMNS),
    ("TABLE_CONSTRAINTS", &keys::TABLE_CONSTRAINTS),
    ("TRIGGERS", &fixed::TRIGGERS),
    ("VIEWS", &fixed::VIEWS),
];

/// The table of this schema named `table` (any case): its name and columns, or MySQL's 1109.
pub(crate) fn table_named(
    table: &str,
) -> Result<(&'static str, &'static [&'static str]), ServerError> {
    (TABLES.iter().copied())
        .find(|(n, _)| n.eq_ignore_ascii_case(table))
        .ok_or_else(|| {
            ServerError::new(
                1109,
                "42S02",
                format!("Unknown table '{table}' in {SCHEMA}"),
            )
        })
}

/// A table's columns (`NAME type`) as `(name, definition)` pairs.
fn own_columns(columns: &'static [&'static str]) -> Vec<crate::pfs_views::columns::Def> {
    (columns.iter())
        .map(|c| c.split_once(' ').unwrap_or((c, "")))
        .collect()
}

/// MySQL 8.0's `PROCESSLIST` (`SHOW FULL PROCESSLIST`'s rows, as
/// `performance_schema.processlist`'s).
pub(crate) const PROCESSLIST: [&str; 8] = [
    "ID bigint unsigned",
    "USER varchar(32)",
    "HOST varchar(261)",
    "DB varchar(64)",
    "COMMAND varchar(16)",
    "TIME int",
    "STATE varchar(64)",
    "INFO longtext",
];

pub(crate) fn processlist_rows(processes: &[Process]) -> Vec<Vec<Value>> {
    let opt = |s: &Option<String>| s.as_deref().map_or(Value::Null, text);
    (processes.iter())
        .map(|p| {
            vec![
                Value::Integer(p.id as i64),
                text(&p.user),
                text(&p.host),
                opt(&p.db),
                text(p.command),
                Value::Integer(p.time as i64),
                text(&p.state),
                opt(&p.info),
            ]
        })
        .collect()
}

/// Refreshes the snapshots of the `information_schema` tables among `tables` (`(schema,
/// table)`, any schema: others are skipped).
///
/// # Errors
/// 1109 for a table `information_schema` does not have; SQLite errors.
pub fn refresh(
    db: &mut EngineConn,
    tables: &[(String, String)],
    processes: &dyn Fn() -> Vec<Process>,
) -> Result<(), ServerError> {
    let mut done: Vec<&str> = Vec::new();
    for (schema, table) in tables {
        if !schema.eq_ignore_ascii_case(SCHEMA) {
            continue;
        }
        let (name, columns) = table_named(table)?;
        if done.contains(&name) {
            continue;
        }
        let rows = match name {
            "SCHEMATA" => schemata(db),
            "TABLES" => tables_rows(db)?,
            "COLUMNS" => {
                let mut rows = per_table(db, columns_rows)?;
                // `performance_schema`'s and `sys`' from their definitions, and this schema's
                // own, as MySQL lists them: no snapshot made.
                let own = TABLES.iter().map(|&(t, c)| (SCHEMA, t, own_columns(c)));
                for (schema, table, defs) in crate::pfs_views::columns::all().into_iter().chain(own)
                {
                    let cols = crate::pfs_views::columns::catalog(&defs);
                    columns_rows(schema, table, &cols, &[], &mut rows)?;
                }
                rows
            }
            "STATISTICS" => per_table(db, statistics_rows)?,
            "TABLE_CONSTRAINTS" | "KEY_COLUMN_USAGE" | "REFERENTIAL_CONSTRAINTS" => {
                let mut rows = match name {
                    "TABLE_CONSTRAINTS" => per_table(db, keys::constraint_rows)?,
                    "KEY_COLUMN_USAGE" => per_table(db, keys::key_column_rows)?,
                    _ => Vec::new(),
                };
                for schema in user_schemas(db) {
                    keys::foreign_key_rows(db, &schema, name, &mut rows)?;
                }
                rows
            }
            "PROCESSLIST" => processlist_rows(&processes()),
            "INNODB_TRX" => transactions::rows(&processes()),
            "VIEWS" => (user_schemas(db).iter())
                .flat_map(|s| db.engine().views.of_schema(s))
                .map(|v| v.info_schema_row())
                .collect(),
            _ => fixed::rows(name),
        };
        load(db, SCHEMA, name, columns, rows)?;
        done.push(name);
    }
    Ok(())
}

/// 1044 if `s` writes to `information_schema`: its target (`tables`: the tables it names
/// after qualification, the target first) is one of its tables, or it drops or truncates one
/// (`current`: the schema that qualifies their names).
///
/// # Errors
/// 1044, as MySQL.
pub fn refuse_write(
    s: &Statement,
    tables: &[(String, String)],
    current: Option<&str>,
) -> Result<(), ServerError> {
    let ours = |schema: &str| schema.eq_ignore_ascii_case(SCHEMA);
    let named = |n: &ObjectName| {
        crate::rewrite::table_name(n, current).is_ok_and(|(schema, _)| ours(&schema))
    };
    let writes = match s {
        Statement::Insert(_)
        | Statement::Update(_)
        | Statement::Delete(_)
        | Statement::CreateTable(_)
        | Statement::AlterTable(_)
        | Statement::CreateIndex(_)
        | Statement::RenameTable(_) => tables.first().is_some_and(|(schema, _)| ours(schema)),
        Statement::Drop {
            object_type: ObjectType::Table | ObjectType::View,
            names,
            ..
        } => names.iter().any(named),
        Statement::Drop {
            object_type: ObjectType::Index,
            table: Some(t),
            ..
        } => named(t),
        Statement::Truncate(t) => t.table_names.iter().any(|t| named(&t.name)),
        _ => false,
    };
    if writes {
        return Err(crate::schema_name::access_denied(SCHEMA));
    }
    Ok(())
}

/// The schema files' names (the view schemas are the server's).
fn user_schemas(db: &EngineConn) -> Vec<String> {
    let mut v = db.engine().schemas();
    v.retain(|s| !VIEW_SCHEMAS.contains(&s.as_str()));
    v
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

fn schemata(db: &EngineConn) -> Vec<Vec<Value>> {
    (db.engine().schemas().iter())
        .map(|s| {
            // MySQL 8.0's own schema is utf8mb3.
            let (charset, collation) = match s.as_str() {
                SCHEMA => (fixed::OWN_CHARSET, fixed::OWN_COLLATION),
                _ => (CHARSET, COLLATION),
            };
            vec![
                text("def"),
                text(s),
                text(charset),
                text(collation),
                Value::Null,
                text("NO"),
            ]
        })
        .collect()
}

/// A row of `TABLES`: the given values, the rest NULL or MySQL's constants.
fn table_row(schema: &str, name: &str, kind: &str, engine: Option<&str>) -> Vec<Value> {
    let mut r = vec![Value::Null; TABLES_COLUMNS.len()];
    r[0] = text("def");
    r[1] = text(schema);
    r[2] = text(name);
    r[3] = text(kind);
    r[4] = engine.map_or(Value::Null, text);
    r[19] = text("");
    r[20] = text(if kind == "BASE TABLE" { "" } else { "VIEW" });
    if engine.is_some() {
        r[5] = Value::Integer(10);
        r[17] = text(COLLATION);
    }
    r
}

fn tables_rows(db: &mut EngineConn) -> Result<Vec<Vec<Value>>, ServerError> {
    let mut rows = Vec::new();
    for schema in user_schemas(db) {
        // A schema dropped since it was listed has no rows.
        let Some(tables) = unless_gone(catalog::tables(db, &schema))? else {
            continue;
        };
        for (table, is_view) in tables {
            if is_view {
                rows.push(table_row(&schema, &table, "VIEW", None));
                continue;
            }
            let mut r = table_row(&schema, &table, "BASE TABLE", Some(catalog::ENGINE));
            let name = format!("{}.{}", quote(&schema), quote(&table));
            // The largest rowid, found in the table's b-tree without a scan: the row count
            // until rows are deleted. An estimate, as InnoDB's TABLE_ROWS is; a count would
            // read every table in full at each query that names TABLES.
            // (NULL for a table without rowid, which a file made elsewhere may have.)
            let last = format!("SELECT coalesce(max({ROWID}), 0) FROM {name}");
            let last = match count(db, &last) {
                Err(e) if e.code == 1146 => continue,
                Ok(Value::Integer(n)) => Some(n),
                _ => None,
            };
            r[7] = last.map_or(Value::Null, Value::Integer);
            match catalog::base_next_auto_increment(db, &schema, &table) {
                Ok(next) => r[13] = next.map_or(Value::Null, Value::Integer),
                Err(e) if e.code == 1146 => continue, // dropped meanwhile (below)
                Err(e) => return Err(e),
            }
            rows.push(r);
        }
    }
    for t in crate::pfs_views::TABLES {
        let engine = Some("PERFORMANCE_SCHEMA");
        rows.push(table_row("performance_schema", t, "BASE TABLE", engine));
    }
    for t in crate::pfs_views::SYS_TABLES {
        rows.push(table_row("sys", t, "VIEW", None));
    }
    for (t, _) in TABLES {
        rows.push(table_row(SCHEMA, t, "SYSTEM VIEW", None));
    }
    Ok(rows)
}

/// A table listed a moment ago and dropped since by another connection (each read of the
/// snapshot is a statement of its own), or a view that cannot be read (1356, or 1054 for one
/// whose column another connection's DDL just dropped, before that DDL made it invalid:
/// `execute/view_ddl.rs`): left out, as MySQL's INFORMATION_SCHEMA leaves out a table dropped
/// while it is read and a view it cannot open.
fn unless_gone<T>(r: Result<T, ServerError>) -> Result<Option<T>, ServerError> {
    match r {
        Err(e) if matches!(e.code, 1146 | 1356 | 1054) => Ok(None),
        r => r.map(Some),
    }
}

fn count(db: &mut EngineConn, sql: &str) -> Result<Value, ServerError> {
    db.db()
        .query_row(sql, [], |r| r.get::<_, i64>(0))
        .map(Value::Integer)
        .map_err(|e| ServerError::from_engine(&e, None))
}

type TableRows = fn(
    &str,
    &str,
    &[Column],
    &[catalog::IndexPart],
    &mut Vec<Vec<Value>>,
) -> Result<(), ServerError>;

/// The rows `each` makes of every table of every schema file, from its columns and indexes.
fn per_table(db: &mut EngineConn, each: TableRows) -> Result<Vec<Vec<Value>>, ServerError> {
    let mut rows = Vec::new();
    for schema in user_schemas(db) {
        let Some(tables) = unless_gone(catalog::tables(db, &schema))? else {
            continue;
        };
        for (table, _) in tables {
            let Some(cols) = unless_gone(catalog::base_columns(db, &schema, &table))? else {
                continue;
            };
            let Some(parts) = unless_gone(catalog::base_indexes(db, &schema, &table, &cols))?
            else {
                continue;
            };
            each(&schema, &table, &cols, &parts, &mut rows)?;
        }
    }
    Ok(rows)
}

fn columns_rows(
    schema: &str,
    table: &str,
    cols: &[Column],
    parts: &[catalog::IndexPart],
    rows: &mut Vec<Vec<Value>>,
) -> Result<(), ServerError> {
    for c in cols {
        let f = TypeFacts::of(c);
        let int = |v: Option<i64>| v.map_or(Value::Null, Value::Integer);
        let name = |v: Option<&str>| v.map_or(Value::Null, text);
        rows.push(vec![
            text("def"),
            text(schema),
            text(table),
            text(&c.name),
            Value::Integer(c.position),
            c.default.as_deref().map_or(Value::Null, text),
            text(c.nullable()),
            text(&c.data_type()),
            int(f.char_len),
            int(f.octet_len),
            int(f.precision),
            int(f.scale),
            int(f.datetime_precision),
            name(f.charset.then_some(CHARSET)),
            name(f.charset.then_some(COLLATION)),
            text(&c.column_type()),
            text(catalog::column_key(c, parts)),
            text(&c.extra()),
            text("select,insert,update,references"),
            text(""),
            text(""),
            Value::Null,
        ]);
    }
    Ok(())
}

fn statistics_rows(
    schema: &str,
    table: &str,
    _cols: &[Column],
    parts: &[catalog::IndexPart],
    rows: &mut Vec<Vec<Value>>,
) -> Result<(), ServerError> {
    for p in parts {
        let mut r = vec![text("def"), text(schema), text(table)];
        let mut cells = p.cells().into_iter().map(catalog::value);
        r.extend(cells.next()); // NON_UNIQUE
        r.push(text(schema)); // INDEX_SCHEMA
        r.extend(cells);
        rows.push(r);
    }
    Ok(())
}

/// What `COLUMNS` says of a column's type besides its name (MySQL 8.0's values).
#[derive(Default)]
struct TypeFacts {
    char_len: Option<i64>,
    octet_len: Option<i64>,
    precision: Option<i64>,
    scale: Option<i64>,
    datetime_precision: Option<i64>,
    charset: bool,
}

impl TypeFacts {
    fn of(c: &Column) -> TypeFacts {
        let args = c.type_args();
        let unsigned = c.column_type().contains("unsigned");
        let arg = |i: usize, or: i64| args.get(i).copied().unwrap_or(or);
        let chars = |n: i64, charset: bool| TypeFacts {
            char_len: Some(n),
            octet_len: Some(if charset { n * 4 } else { n }),
            charset,
            ..TypeFacts::default()
        };
        let number = |p: i64, s: Option<i64>| TypeFacts {
            precision: Some(p),
            scale: s,
            ..TypeFacts::default()
        };
        match c.data_type().as_str() {
            "char" | "varchar" => chars(arg(0, 1), true),
            "binary" | "varbinary" => chars(arg(0, 1), false),
            "tinytext" => chars(255, true),
            "text" => chars(65_535, true),
            "mediumtext" => chars(16_777_215, true),
            "longtext" => chars(4_294_967_295, true),
            "tinyblob" => chars(255, false),
            "blob" => chars(65_535, false),
            "mediumblob" => chars(16_777_215, false),
            "longblob" => chars(4_294_967_295, false),
            "tinyint" | "bool" | "boolean" => number(3, Some(0)),
            "smallint" => number(5, Some(0)),
            "mediumint" => number(if unsigned { 8 } else { 7 }, Some(0)),
            "int" => number(10, Some(0)),
            "bigint" => number(if unsigned { 20 } else { 19 }, Some(0)),
            "decimal" | "numeric" => number(arg(0, 10), Some(arg(1, 0))),
            "float" => number(12, None),
            "double" | "real" => number(22, None),
            "datetime" | "timestamp" | "time" => TypeFacts {
                datetime_precision: Some(arg(0, 0)),
                ..TypeFacts::default()
            },
            // Only `performance_schema`'s columns have one (`pfs_views/columns.rs`).
            "enum" => chars(
                crate::pfs_views::columns::enum_width(&c.decl_type).unwrap_or(1),
                true,
            ),
            _ => TypeFacts::default(),
        }
    }
}

/// Copies `rows` into `<schema>.<name>` of the connection's own view schemas
/// (`information_schema` here, `sys` for `pfs_views.rs`; `columns`: each column's name and
/// MySQL's type, which `DESCRIBE` shows), in one transaction unless the session's is open.
pub(crate) fn load(
    db: &mut EngineConn,
    schema: &str,
    name: &str,
    columns: &[&str],
    rows: Vec<Vec<Value>>,
) -> Result<(), ServerError> {
    let target = format!("{}.{}", quote(schema), quote(name));
    let own = !db.in_transaction();
    let cols: Vec<String> = (columns.iter())
        .map(|c| {
            let (name, ty) = c.split_once(' ').unwrap_or((c, ""));
            format!("{} {ty}", quote(name))
        })
        .collect();
    let mut sql = format!(
        "DROP TABLE IF EXISTS {target}; CREATE TABLE {target} ({});",
        cols.join(", ")
    );
    if own {
        sql = format!("BEGIN; {sql}");
    }
    db.execute_batch(&sql)?;
    let marks = vec!["?"; columns.len()].join(", ");
    let insert = format!("INSERT INTO {target} VALUES ({marks})");
    let r = (|| {
        let mut st = db.db().prepare(&insert)?;
        for r in &rows {
            st.execute(rusqlite::params_from_iter(r.iter()))?;
        }
        Ok(())
    })()
    .map_err(|e: rusqlite::Error| ServerError::from_engine(&e, None));
    if own {
        let end = if r.is_ok() { "COMMIT" } else { "ROLLBACK" };
        let done = db.execute_batch(end);
        r?;
        return done;
    }
    r
}
