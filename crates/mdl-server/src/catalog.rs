//! What SQLite's catalog says of a schema's tables, in MySQL's terms: one place that reads
//! `sqlite_schema`, `pragma_table_info`, `pragma_index_list` and `pragma_index_info`, for
//! `DESCRIBE` / `SHOW COLUMNS` / `SHOW INDEX` (`show_table.rs`) and `information_schema`
//! (`info_schema.rs`) alike.
//!
//! How MySQL's definitions come back out of SQLite's (the rewrite, `rewrite.rs`, put them in):
//! * An `AUTO_INCREMENT` integer column was stored as `INTEGER`: as the table's only primary
//!   key column it is SQLite's rowid, which counts by itself (with `AUTOINCREMENT`, from the
//!   counter in `sqlite_sequence`); such a column is MySQL's `auto_increment` (`EXTRA`), and its
//!   type is shown as `int`.
//! * The primary key is index `PRIMARY`: SQLite's `pk` autoindex, or, for a rowid primary key,
//!   which has no index of its own, the table's `pk` columns.
//! * An inline `UNIQUE` is SQLite's `u` autoindex, which has no name: it is named after its
//!   first column, as MySQL names an unnamed key (`_2`, `_3` after a name taken).
//! * Index `k` of table `t` is SQLite's `t__k` (index names are per schema in SQLite): the
//!   prefix goes (after `RENAME TABLE` it names the table's old name; everything to the
//!   first `__` goes then).
//! * `COLUMN_KEY` is MySQL's: `PRI` for a primary key column, `UNI` for the column of a
//!   one-column unique index, `MUL` for the first column of any other index, in that order.
//!
//! * A default `NOW(3)` (`CURRENT_TIMESTAMP(3)` as the rewrite wrote it) is shown as
//!   `CURRENT_TIMESTAMP(3)`; a `TIMESTAMP` / `DATETIME` column its table's `ON UPDATE` triggers
//!   mark auto-updates (`on_update.rs`; only a table with such a column reads its triggers).
//!
//! SQLite keeps no statistics here: `CARDINALITY` is NULL ("not known", as MySQL allows).
//!
//! A table name means the session's temporary table of that name first, as MySQL's
//! statements resolve it (`temporary.rs`): [`columns`], [`existing_columns`], [`indexes`],
//! [`counter_name`] and [`next_auto_increment`] read it where SQLite keeps it, so DESCRIBE,
//! SHOW CREATE TABLE, an INSERT's values and ALTER TABLE see it. `information_schema` lists
//! base tables only (MySQL 8.0's does not show temporary tables): it reads them with the
//! `base_` functions, which take SQLite's names as they are.

use rusqlite::types::Value;

/// The engine every table of this server is in (`ENGINE` in `information_schema.TABLES` and
/// `SHOW CREATE TABLE`).
pub const ENGINE: &str = "SQLite";
/// The character set of every schema, table and text column: SQLite keeps text as UTF-8.
pub const CHARSET: &str = "utf8mb4";
/// Their collation: `=` and `ORDER BY` compare byte for byte (SQLite's `BINARY`; its `LIKE`
/// folds ASCII case), as MySQL's `utf8mb4_bin` does, not its default `utf8mb4_0900_ai_ci`.
pub const COLLATION: &str = "utf8mb4_bin";

use crate::engine::{quote, EngineConn, ROWID};
use crate::error::ServerError;
use crate::wire::Cell;

/// A table's column.
#[derive(Debug, Clone)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its position, from 1.
    pub position: i64,
    /// The type as SQLite keeps it (as declared, `INTEGER` for an `AUTO_INCREMENT` one).
    pub decl_type: String,
    /// `NOT NULL` (or part of the primary key).
    pub not_null: bool,
    /// Its default as MySQL shows it (a string literal without its quotes).
    pub default: Option<String>,
    /// Its position in the primary key, from 1; 0 if not in it.
    pub pk: i64,
    /// It is the table's rowid (see the module docs).
    pub auto_increment: bool,
    /// Its `ON UPDATE` as MySQL shows it (`CURRENT_TIMESTAMP(3)`), if it auto-updates
    /// (`on_update.rs`).
    pub on_update: Option<String>,
}

impl Column {
    /// MySQL's `DATA_TYPE`: the type's name, lower case, without its length (`varchar`).
    pub fn data_type(&self) -> String {
        let t = self.column_type();
        let base = t.split(['(', ' ']).next().unwrap_or("");
        base.to_string()
    }

    /// MySQL's `COLUMN_TYPE`: the type as declared, lower case (`varchar(20)`).
    pub fn column_type(&self) -> String {
        // Lower case but for quoted text: an `ENUM`'s values are shown as declared (only
        // `performance_schema`'s columns have one: SQLite keeps other enums as `text`).
        let mut quoted = false;
        let t: String = (self.decl_type.trim().chars())
            .map(|ch| {
                quoted ^= ch == '\'';
                if quoted {
                    ch
                } else {
                    ch.to_ascii_lowercase()
                }
            })
            .collect();
        match t.as_str() {
            "integer" => "int".into(),
            "" => "blob".into(),
            _ => t,
        }
    }

    /// MySQL's `IS_NULLABLE` / `Null`.
    pub fn nullable(&self) -> &'static str {
        if self.not_null || self.pk > 0 {
            "NO"
        } else {
            "YES"
        }
    }

    /// MySQL's `EXTRA` / `Extra`.
    pub fn extra(&self) -> String {
        if self.auto_increment {
            "auto_increment".to_string()
        } else {
            crate::on_update::extra(self.default.as_deref(), self.on_update.as_deref())
        }
    }

    /// The numbers inside the type's parentheses (`decimal(10,2)` -> `[10, 2]`).
    pub fn type_args(&self) -> Vec<i64> {
        let t = self.decl_type.as_str();
        match (t.find('('), t.find(')')) {
            (Some(a), Some(b)) if a < b => (t[a + 1..b].split(','))
                .filter_map(|n| n.trim().parse().ok())
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// What the DDL rewrite puts before a binary string type (`BINARY(n)`, `VARBINARY(n)`,
/// `BLOB` and its kin) in SQLite's declaration. SQLite derives a column's affinity from words
/// in its declared type ("Determination Of Column Affinity"): `VARBINARY(10)` names none of
/// them, so it would be NUMERIC and store a string of digits as a number (`'0123'` as 123),
/// and `BLOB` keeps a number as a number. With `TEXT` first, a column keeps a string as
/// written, a byte string as bytes, and a number as its text, as MySQL stores a value in a
/// binary string column.
pub const STRING_AFFINITY: &str = "TEXT ";

/// MySQL's type in SQLite's declared type `decl` (without [`STRING_AFFINITY`]).
pub fn mysql_type(decl: &str) -> &str {
    let prefix = STRING_AFFINITY.len();
    match decl.get(..prefix) {
        Some(p) if p.eq_ignore_ascii_case(STRING_AFFINITY) && decl.len() > prefix => {
            &decl[prefix..]
        }
        _ => decl,
    }
}

/// One column of one index: a row of `information_schema.STATISTICS` and of `SHOW INDEX`.
#[derive(Debug, Clone)]
pub struct IndexPart {
    /// MySQL's name of the index (`PRIMARY`, see the module docs).
    pub index: String,
    /// A unique index (or the primary key).
    pub unique: bool,
    /// The column's position in the index, from 1.
    pub seq: i64,
    /// The column (`None` for an expression).
    pub column: Option<String>,
    /// The column may be NULL.
    pub nullable: bool,
}

impl IndexPart {
    /// The values both `STATISTICS` and `SHOW INDEX` show, in their order: `NON_UNIQUE`,
    /// `INDEX_NAME`, `SEQ_IN_INDEX`, `COLUMN_NAME`, `COLLATION`, `CARDINALITY`, `SUB_PART`,
    /// `PACKED`, `NULLABLE`, `INDEX_TYPE`, `COMMENT`, `INDEX_COMMENT`, `IS_VISIBLE`,
    /// `EXPRESSION`.
    pub fn cells(&self) -> Vec<Cell> {
        let text = |s: &str| Cell::Text(s.to_string());
        vec![
            Cell::Int(i64::from(!self.unique)),
            text(&self.index),
            Cell::Int(self.seq),
            self.column.clone().map_or(Cell::Null, Cell::Text),
            text("A"),
            Cell::Null,
            Cell::Null,
            Cell::Null,
            text(if self.nullable { "YES" } else { "" }),
            text("BTREE"),
            text(""),
            text(""),
            text("YES"),
            Cell::Null,
        ]
    }
}

/// `SHOW INDEX`'s column names, in [`IndexPart::cells`]'s order after `Table`.
pub const SHOW_INDEX_COLUMNS: [&str; 15] = [
    "Table",
    "Non_unique",
    "Key_name",
    "Seq_in_index",
    "Column_name",
    "Collation",
    "Cardinality",
    "Sub_part",
    "Packed",
    "Null",
    "Index_type",
    "Comment",
    "Index_comment",
    "Visible",
    "Expression",
];

fn engine_err(e: rusqlite::Error) -> ServerError {
    ServerError::from_engine(&e, None)
}

/// The tables and views of `schema` (not SQLite's own), sorted: `(name, is_view)`.
///
/// # Errors
/// SQLite errors.
pub fn tables(db: &mut EngineConn, schema: &str) -> Result<Vec<(String, bool)>, ServerError> {
    let sql = format!(
        "SELECT name, type = 'view' FROM {}.sqlite_schema \
         WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
         ORDER BY name",
        quote(schema)
    );
    let mut st = db.db().prepare(&sql).map_err(engine_err)?;
    let rows = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(engine_err)?;
    rows.collect::<Result<_, _>>().map_err(engine_err)
}

/// The columns of `schema.table`, which must exist: 1049 for a schema the server does not
/// have, 1146 for a table it does not have, as MySQL's open of the table fails.
///
/// # Errors
/// 1049, 1146, SQLite errors.
pub fn existing_columns(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Vec<Column>, ServerError> {
    let (s, t, temporary) = crate::temporary::locate(db, schema, table)?;
    if !temporary && !db.engine().has_schema(schema) {
        return Err(ServerError::unknown_database(schema));
    }
    let cols = base_columns(db, &s, &t)?;
    if cols.is_empty() {
        return Err(ServerError::no_such_table(schema, table));
    }
    Ok(cols)
}

/// The columns of `schema.table` (the session's temporary table of the name first), in order;
/// empty if there is no such table. A view's say what MySQL says of them (`view_columns.rs`).
///
/// # Errors
/// SQLite errors.
pub fn columns(db: &mut EngineConn, schema: &str, table: &str) -> Result<Vec<Column>, ServerError> {
    let (s, t, _) = crate::temporary::locate(db, schema, table)?;
    base_columns(db, &s, &t)
}

/// [`columns`] of the table SQLite keeps as `schema.table` (no temporary table's name is
/// looked for).
///
/// # Errors
/// SQLite errors.
pub fn base_columns(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Vec<Column>, ServerError> {
    let mut cols = sqlite_columns(db, schema, table)?;
    if let Some(v) = db.engine().views.get(schema, table) {
        crate::view_columns::refine(db, &v, &mut cols, 0);
    }
    Ok(cols)
}

/// The columns of `schema.table` as SQLite's `pragma_table_info` has them (a view's are all
/// nullable, and without a default).
///
/// # Errors
/// SQLite errors.
pub fn sqlite_columns(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Vec<Column>, ServerError> {
    // The pragma's table-valued form drops the message of its inner statement when that
    // statement fails (`pragmaVtabNext` in SQLite's `pragma.c`): a view whose table another
    // connection drops between the inner statement's prepare and its step fails with a bare
    // "SQL logic error". Read again, and the error is the one that says what happened
    // (`no such table`, 1146) or there is none.
    let mut cols = match pragma_columns(db, schema, table) {
        Err(rusqlite::Error::SqliteFailure(f, Some(m)))
            if f.extended_code == rusqlite::ffi::SQLITE_ERROR && m == "SQL logic error" =>
        {
            pragma_columns(db, schema, table)
        }
        r => r,
    }
    .map_err(engine_err)?;
    // Only a `TIMESTAMP` or `DATETIME` column auto-updates: other tables read no triggers.
    let temporal = |c: &Column| {
        let t = c.decl_type.to_ascii_lowercase();
        t.starts_with("datetime") || t.starts_with("timestamp")
    };
    if cols.iter().any(temporal) {
        let marked = crate::on_update::columns(db, schema, table)?;
        for c in cols.iter_mut().filter(|c| temporal(c)) {
            if marked.iter().any(|m| m.eq_ignore_ascii_case(&c.name)) {
                c.on_update = Some(current_timestamp(c.type_args().first().copied()));
            }
        }
    }
    let pks = cols.iter().filter(|c| c.pk > 0).count();
    for c in &mut cols {
        c.auto_increment = pks == 1 && c.pk == 1 && c.decl_type.eq_ignore_ascii_case("INTEGER");
    }
    Ok(cols)
}

/// `pragma_table_info`'s rows of `schema.table`, before `sqlite_columns` marks the counter and
/// the auto-updated columns.
fn pragma_columns(db: &mut EngineConn, schema: &str, table: &str) -> rusqlite::Result<Vec<Column>> {
    const SQL: &str =
        "SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1, ?2)";
    let mut st = db.db().prepare_cached(SQL)?;
    let rows = st.query_map([table, schema], |r| {
        Ok(Column {
            position: r.get::<_, i64>(0)? + 1,
            name: r.get(1)?,
            decl_type: mysql_type(&r.get::<_, String>(2)?).to_string(),
            not_null: r.get::<_, i64>(3)? != 0,
            default: r.get::<_, Option<String>>(4)?.and_then(|d| unquote(&d)),
            pk: r.get(5)?,
            auto_increment: false,
            on_update: None,
        })
    })?;
    rows.collect()
}

/// The name SQLite keeps for `schema.table` if its counted column has SQLite's counter
/// (`INTEGER PRIMARY KEY AUTOINCREMENT`, as this server creates an `AUTO_INCREMENT` primary
/// key: `rewrite/ddl.rs`); `None` for a table without one (a file made elsewhere, or by an
/// earlier version of this server, counts from the largest rowid).
///
/// # Errors
/// SQLite errors.
pub fn counter_name(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Option<String>, ServerError> {
    let (schema, table, _) = crate::temporary::locate(db, schema, table)?;
    counter_name_at(db, &schema, &table)
}

/// [`counter_name`] of the table SQLite keeps as `schema.table`.
fn counter_name_at(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Option<String>, ServerError> {
    let sql = format!(
        "SELECT name, sql FROM {}.sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
        quote(schema)
    );
    let mut st = db.db().prepare_cached(&sql).map_err(engine_err)?;
    let mut rows = st.query([table]).map_err(engine_err)?;
    let Some(row) = rows.next().map_err(engine_err)? else {
        return Ok(None);
    };
    let (name, definition): (String, String) = (
        row.get(0).map_err(engine_err)?,
        row.get(1).map_err(engine_err)?,
    );
    Ok(definition
        .to_ascii_uppercase()
        .contains(" AUTOINCREMENT")
        .then_some(name))
}

/// The value the next row of `schema.table` gets in its `AUTO_INCREMENT` column (MySQL's
/// `AUTO_INCREMENT` of `SHOW CREATE TABLE` and `information_schema.TABLES`): one past the
/// larger of the counter and the largest rowid; `None` for a table without such a column.
///
/// # Errors
/// SQLite errors.
pub fn next_auto_increment(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Option<i64>, ServerError> {
    let (s, t, _) = crate::temporary::locate(db, schema, table)?;
    base_next_auto_increment(db, &s, &t)
}

/// [`next_auto_increment`] of the table SQLite keeps as `schema.table`.
///
/// # Errors
/// SQLite errors.
pub fn base_next_auto_increment(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Option<i64>, ServerError> {
    if !base_columns(db, schema, table)?
        .iter()
        .any(|c| c.auto_increment)
    {
        return Ok(None);
    }
    let s = quote(schema);
    let counter = match counter_name_at(db, schema, table)? {
        Some(name) => {
            let sql =
                format!("SELECT coalesce(max(seq), 0) FROM {s}.sqlite_sequence WHERE name = ?1");
            (db.db().query_row(&sql, [name], |r| r.get::<_, i64>(0))).map_err(engine_err)?
        }
        None => 0,
    };
    let sql = format!("SELECT coalesce(max({ROWID}), 0) FROM {s}.{}", quote(table));
    let last: i64 = (db.db().query_row(&sql, [], |r| r.get(0))).map_err(engine_err)?;
    Ok(Some(counter.max(last).saturating_add(1)))
}

/// `CURRENT_TIMESTAMP` of precision `fsp`, as MySQL shows it.
fn current_timestamp(fsp: Option<i64>) -> String {
    match fsp {
        Some(n) if n > 0 => format!("CURRENT_TIMESTAMP({n})"),
        _ => "CURRENT_TIMESTAMP".to_string(),
    }
}

/// A default as SQLite keeps it as MySQL shows it: a string without its quotes (`'abc'`,
/// `abc`; a blob's bytes too), a number or a time keyword as it is (`-7`,
/// `current_timestamp`), a boolean as its number, none for `NULL`, and any other expression
/// in parentheses (SQLite keeps `DEFAULT (2 + 3)` as `2 + 3`; MySQL shows `(2 + 3)`, and a
/// table rebuilt from `SHOW CREATE TABLE`'s text must not take it for the string `'2 + 3'`).
///
/// `NOW(3)`, as the rewrite writes `DEFAULT CURRENT_TIMESTAMP(3)` (`on_update.rs`), is
/// `CURRENT_TIMESTAMP(3)` as MySQL shows it.
fn unquote(d: &str) -> Option<String> {
    if d.eq_ignore_ascii_case("NULL") {
        return None;
    }
    let now = (d.get(..4)).filter(|p| p.eq_ignore_ascii_case("NOW("));
    if let Some(fsp) = now.and_then(|_| d[4..].strip_suffix(')')) {
        match fsp.trim() {
            "" => return Some(current_timestamp(None)),
            n => {
                if let Ok(n) = n.parse::<i64>() {
                    return Some(current_timestamp(Some(n)));
                }
            }
        }
    }
    let hex_text = |hex: &str| {
        let bytes: Option<Vec<u8>> = (0..hex.len())
            .step_by(2)
            .map(|i| {
                hex.get(i..i + 2)
                    .and_then(|b| u8::from_str_radix(b, 16).ok())
            })
            .collect();
        bytes.map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    // A string with a NUL, as the rewrite spells it for SQLite (`rewrite/literals.rs`), and a
    // blob.
    let hex = (d.strip_prefix("CAST(X'")).and_then(|d| d.strip_suffix("' AS TEXT)"));
    let hex = hex.or_else(|| (d.strip_prefix(['X', 'x'])?.strip_prefix('\'')?).strip_suffix('\''));
    if let Some(text) = hex.and_then(hex_text) {
        return Some(text);
    }
    if let Some(inner) = d.strip_prefix('\'').and_then(|d| d.strip_suffix('\'')) {
        return Some(inner.replace("''", "'"));
    }
    let number = d
        .bytes()
        .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
        && d.parse::<f64>().is_ok();
    let upper = d.to_ascii_uppercase();
    match upper.as_str() {
        "TRUE" => Some("1".into()),
        "FALSE" => Some("0".into()),
        "CURRENT_TIMESTAMP" | "CURRENT_DATE" | "CURRENT_TIME" => Some(d.to_string()),
        _ if number || d.starts_with('(') => Some(d.to_string()),
        _ => Some(format!("({d})")),
    }
}

/// The indexes of `schema.table` (whose columns are `cols`), column by column: the primary
/// key first, then unique indexes, then the others, each in the order they were made.
///
/// # Errors
/// SQLite errors.
pub fn indexes(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
    cols: &[Column],
) -> Result<Vec<IndexPart>, ServerError> {
    let (s, t, _) = crate::temporary::locate(db, schema, table)?;
    base_indexes(db, &s, &t, cols)
}

/// [`indexes`] of the table SQLite keeps as `schema.table`.
///
/// # Errors
/// SQLite errors.
pub fn base_indexes(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
    cols: &[Column],
) -> Result<Vec<IndexPart>, ServerError> {
    const LIST: &str = "SELECT seq, name, \"unique\", origin FROM pragma_index_list(?1, ?2)";
    const INFO: &str = "SELECT seqno, name FROM pragma_index_info(?1, ?2) ORDER BY seqno";
    let nullable = |name: &Option<String>| {
        (cols.iter())
            .find(|c| Some(&c.name) == name.as_ref())
            .is_some_and(|c| c.nullable() == "YES")
    };
    let list: Vec<(i64, String, bool, String)> = {
        let mut st = db.db().prepare_cached(LIST).map_err(engine_err)?;
        let rows = st
            .query_map([table, schema], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? != 0, r.get(3)?))
            })
            .map_err(engine_err)?;
        rows.collect::<Result<_, _>>().map_err(engine_err)?
    };
    // (rank, made, parts): rank 0 the primary key, 1 unique, 2 the others.
    let mut found: Vec<(u8, i64, Vec<IndexPart>)> = Vec::new();
    if !list.iter().any(|(.., origin)| origin == "pk") {
        let mut pk: Vec<&Column> = cols.iter().filter(|c| c.pk > 0).collect();
        pk.sort_by_key(|c| c.pk);
        let parts: Vec<IndexPart> = (pk.iter())
            .map(|c| IndexPart {
                index: "PRIMARY".into(),
                unique: true,
                seq: c.pk,
                column: Some(c.name.clone()),
                nullable: false,
            })
            .collect();
        if !parts.is_empty() {
            found.push((0, 0, parts));
        }
    }
    let mut taken: Vec<String> = vec!["PRIMARY".into()];
    // SQLite numbers the newest index first: oldest first here, so unnamed keys are named
    // in the order MySQL would have named them.
    for (seq, sqlite_name, unique, origin) in list.iter().rev() {
        let info: Vec<(i64, Option<String>)> = {
            let mut st = db.db().prepare_cached(INFO).map_err(engine_err)?;
            let rows = st
                .query_map([sqlite_name.as_str(), schema], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .map_err(engine_err)?;
            rows.collect::<Result<_, _>>().map_err(engine_err)?
        };
        let (rank, name) = match origin.as_str() {
            "pk" => (0, "PRIMARY".to_string()),
            "u" => {
                let first = info
                    .first()
                    .and_then(|(_, c)| c.clone())
                    .unwrap_or_default();
                (1, free_name(&first, &taken))
            }
            _ => (
                if *unique { 1 } else { 2 },
                mysql_index_name(sqlite_name, table),
            ),
        };
        taken.push(name.clone());
        let parts = (info.into_iter())
            .map(|(seqno, column)| IndexPart {
                index: name.clone(),
                unique: *unique,
                seq: seqno + 1,
                nullable: nullable(&column),
                column,
            })
            .collect();
        found.push((rank, -seq, parts));
    }
    found.sort_by_key(|(rank, made, _)| (*rank, *made));
    Ok(found.into_iter().flat_map(|(.., p)| p).collect())
}

/// `base`, or `base_2`, `base_3`, ... if taken (MySQL's names for unnamed keys).
fn free_name(base: &str, taken: &[String]) -> String {
    let is_taken = |n: &str| taken.iter().any(|t| t.eq_ignore_ascii_case(n));
    if !is_taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|i| format!("{base}_{i}"))
        .find(|n| !is_taken(n))
        .unwrap_or_default()
}

/// MySQL's name of SQLite's index `sqlite_name` of `table` (see the module docs).
pub fn mysql_index_name(sqlite_name: &str, table: &str) -> String {
    let prefix = format!("{table}__");
    let n = sqlite_name;
    if n.len() > prefix.len() && n[..prefix.len()].eq_ignore_ascii_case(&prefix) {
        return n[prefix.len()..].to_string();
    }
    match n.split_once("__") {
        Some((_, rest)) if !rest.is_empty() => rest.to_string(),
        _ => n.to_string(),
    }
}

/// MySQL's `COLUMN_KEY` / `Key` of `col` (see the module docs).
pub fn column_key(col: &Column, parts: &[IndexPart]) -> &'static str {
    if col.pk > 0 {
        return "PRI";
    }
    let is_col = |p: &IndexPart| p.column.as_deref() == Some(col.name.as_str());
    let single = |p: &IndexPart| parts.iter().filter(|q| q.index == p.index).count() == 1;
    if parts.iter().any(|p| is_col(p) && p.unique && single(p)) {
        return "UNI";
    }
    if parts.iter().any(|p| is_col(p) && p.seq == 1) {
        return "MUL";
    }
    ""
}

/// A cell as a SQLite value (to copy rows into a snapshot table).
pub fn value(c: Cell) -> Value {
    match c {
        Cell::Null => Value::Null,
        Cell::Int(i) => Value::Integer(i),
        Cell::Real(r) => Value::Real(r),
        Cell::Text(t) => Value::Text(t),
        Cell::Blob(b) => Value::Blob(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_names_lose_their_table_prefix() {
        assert_eq!(mysql_index_name("t__k", "t"), "k");
        assert_eq!(mysql_index_name("T__k__x", "t"), "k__x");
        assert_eq!(mysql_index_name("old__k", "new"), "k");
        assert_eq!(mysql_index_name("plain", "t"), "plain");
        assert_eq!(free_name("e", &["PRIMARY".into()]), "e");
        assert_eq!(free_name("e", &["e".into(), "e_2".into()]), "e_3");
    }

    #[test]
    fn defaults_lose_their_quotes() {
        assert_eq!(unquote("'it''s'").as_deref(), Some("it's"));
        assert_eq!(unquote("7").as_deref(), Some("7"));
        assert_eq!(unquote("NULL"), None);
        assert_eq!(unquote("-1.5e3").as_deref(), Some("-1.5e3"));
        assert_eq!(unquote("true").as_deref(), Some("1"));
        assert_eq!(unquote("X'4142'").as_deref(), Some("AB"));
        assert_eq!(unquote("CAST(X'610062' AS TEXT)").as_deref(), Some("a\0b"));
        assert_eq!(
            unquote("current_timestamp").as_deref(),
            Some("current_timestamp")
        );
        // An expression, which SQLite keeps without its parentheses.
        assert_eq!(unquote("2 + 3").as_deref(), Some("(2 + 3)"));
        assert_eq!(unquote("uuid()").as_deref(), Some("(uuid())"));
    }
}
