//! `INSERT ... SELECT`, `REPLACE ... SELECT` and `INSERT ... SELECT ... ON DUPLICATE KEY UPDATE`
//! into a table with an `AUTO_INCREMENT` column: the ids its rows generate, as MySQL's.
//!
//! MySQL writes each row the select gives as it writes a `VALUES` row
//! (`Query_result_insert::send_data` calls `write_record`, `sql/sql_insert.cc`), so a row
//! whose `AUTO_INCREMENT` value is NULL, or 0 unless `sql_mode` has `NO_AUTO_VALUE_ON_ZERO`,
//! gets the next value (`handler::update_auto_increment`, `sql/handler.cc`; the manual's "Using
//! AUTO_INCREMENT" and `NO_AUTO_VALUE_ON_ZERO`), and so does every row of an INSERT whose
//! column list leaves that column out. The statement's insert id, which the OK packet sends and
//! `LAST_INSERT_ID()` gives after it, is the FIRST id it generated
//! (`THD::first_successful_insert_id_in_cur_stmt`, recorded by `write_record`; the manual's
//! `LAST_INSERT_ID()`: "the value generated for the first inserted row only"). SQLite counts on
//! NULL only (the column is the table's rowid: `catalog.rs`) and its `last_insert_rowid()` is
//! the LAST row's.
//!
//! So the select is read as a CTE with a column for each of the INSERT's columns, and the
//! statement inserts its rows with the `AUTO_INCREMENT` column's value passed through
//! `MDL_AUTO_ID(value, counts_zero, last)` (a column the list leaves out is added to it with
//! the value NULL):
//!
//! ```sql
//! INSERT INTO t (v, id) SELECT v, 0 FROM u ORDER BY v
//! -- is run as
//! INSERT INTO t (v, id) WITH mdl_insert_rows (c1, c2) AS (SELECT v, 0 FROM u ORDER BY v)
//!   SELECT c1, MDL_AUTO_ID(c2, 1, (SELECT seq FROM sqlite_sequence WHERE name = 't'))
//!   FROM mdl_insert_rows WHERE true
//! ```
//!
//! The function gives NULL for a value that counts (NULL; 0 or `'0'` if `counts_zero`), which
//! SQLite's rowid then numbers, and any other value as it is. `last` is the table's last id
//! before the statement: its counter (`sqlite_sequence`, for `INTEGER PRIMARY KEY
//! AUTOINCREMENT`, as this server makes an `AUTO_INCREMENT` column: `rewrite/ddl.rs`; SQLite
//! raises it for every row it writes, and `ALTER TABLE ... AUTO_INCREMENT` keeps it at least
//! the largest id, `counter.rs`), or for a table without one its largest id. The subquery does
//! not depend on the row: SQLite evaluates it once, before the first row is written. SQLite
//! numbers a row one past the larger of `last` and of the ids the statement's rows wrote
//! before it, and writes the rows in the order the select gives them (also when it reads the
//! whole select first, because the select reads the table it fills), the order the function
//! sees them in; so the function knows the first generated id and sets it as the statement's
//! insert id (`StatementOutcome::generates_id`, `functions.rs`), as `LAST_INSERT_ID(expr)`
//! would. `WHERE true` keeps SQLite from reading an upsert's `ON CONFLICT` as a join's `ON`.
//!
//! The select's width is the INSERT's column count: when they differ the CTE's column list
//! fails as the INSERT would (1136). The wrapped INSERT is made under the statement's locks,
//! from what was read of the table ([`counted`]: SQLite's catalog, read once per table while no
//! DDL runs in the server, see [`EPOCH`]) and from the statement's rewrite, not rewritten
//! again: that rewrite (`rewrite/insert.rs`) says where the INSERT's query is in its text, and
//! the wrapper is SQLite's text around that query. A prepared statement keeps it (`memo.rs`,
//! per epoch and `sql_mode`). What is read once is of base tables only, for every session: a
//! session's temporary table (`temporary.rs`), which shadows a base table of its name for that
//! session alone, is read each time from SQLite's `temp` of the session's connection, its
//! counter and rows there too. An INSERT ... SELECT into a table without an `AUTO_INCREMENT` column
//! is run as written. `CREATE TABLE ... SELECT` into a definition with an `AUTO_INCREMENT`
//! column goes through the same function ([`created_rows`]).
//!
//! Differs: a row with an explicit id that is not written (`INSERT IGNORE`, an upsert's update)
//! still counts for the next generated id's place, and a generated row that is not written
//! still sets the insert id (an upsert's row that updates instead: SQLite, as InnoDB, uses its
//! id up, and MySQL's insert id is then the next row's); InnoDB may reserve more ids than a
//! multi-row INSERT ... SELECT writes (`innodb_autoinc_lock_mode`), where SQLite numbers each
//! row one past the largest, so the ids after such a statement can differ.
//!
//! Cost (callgrind, one client, per statement, release build): none new for a prepared INSERT
//! ... SELECT into a table without an `AUTO_INCREMENT` column (no catalog read, no schema
//! version: the memo is checked against the epoch), one lookup for a text one; with such a
//! column, a text statement builds the wrapper's text (a copy of the statement's), and each
//! execution runs the two subqueries and a function call per row.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, Weak};

use mdl_sql::{SessionState, StatementKind, TableName};
use rusqlite::functions::FunctionFlags;
use rusqlite::types::{Value, ValueRef};
use sqlparser::ast::{ColumnDef, ColumnOption, DataType, Insert, ObjectName, ObjectNamePart};

use crate::catalog;
use crate::engine::{quote, Engine, EngineConn, ROWID};
use crate::error::ServerError;
use crate::functions::StatementOutcome;
use crate::rewrite::Rewritten;

/// The function a row's `AUTO_INCREMENT` value goes through (see the module docs).
const AUTO_ID: &str = "MDL_AUTO_ID";

/// Whether `ins` inserts the rows of a query (not `VALUES` or `SET`).
pub(super) fn applies(ins: &Insert) -> bool {
    crate::rewrite::inserts_query_rows(ins)
}

/// The rewrite `base` of `ins`, an INSERT ... SELECT into `schema.table`, made to count its
/// `AUTO_INCREMENT` values as MySQL does (see the module docs); `None` for a table without
/// such a column.
///
/// # Errors
/// SQLite errors reading the catalog.
pub(super) fn resolve(
    db: &mut EngineConn,
    base: &Rewritten,
    ins: &Insert,
    (schema, table, state): (&str, &str, &SessionState),
    counts_zero: bool,
) -> Result<Option<Rewritten>, ServerError> {
    // The INSERT's text in parts: up to its query, the query, after it (`rewrite/insert.rs`).
    let parts = (base.insert_rows.clone())
        .zip(base.sql.first())
        .and_then(|(rows, text)| {
            Some((
                text.get(..rows.start)?,
                text.get(rows.clone())?,
                text.get(rows.end..)?,
            ))
        });
    let Some((head, select, tail)) = parts else {
        return Ok(None);
    };
    let counted = match temporary(schema, table, state) {
        // The session's own table, which no other session may be served: read each time.
        Some(t) => read_counted(
            db,
            crate::temporary::SCHEMA,
            &crate::temporary::sqlite_name(&t),
        )?,
        None => counted(db, schema, table)?,
    };
    let Some(counted) = counted else {
        return Ok(None);
    };
    // The columns the select gives, in order: the list's, or the table's.
    let (width, at) = if ins.columns.is_empty() {
        (counted.width, Some(counted.at))
    } else {
        let named = |n: &ObjectName| column_name(n).eq_ignore_ascii_case(&counted.name);
        (ins.columns.len(), ins.columns.iter().position(named))
    };
    let mut sql = String::with_capacity(head.len() + select.len() + tail.len() + 200);
    match at {
        Some(_) => sql.push_str(head),
        // The column list ends the head, `(a, b) `: the column joins it.
        None => {
            let Some(list) = head.trim_end().strip_suffix(')') else {
                return Ok(None);
            };
            let _ = write!(sql, "{list}, {}) ", quote(&counted.name));
        }
    }
    sql.push_str(&rows_select(width, at, counts_zero, &counted.last, select));
    sql.push_str(tail);
    Ok(Some(Rewritten {
        sql: vec![sql],
        insert_rows: None,
        ..base.clone()
    }))
}

/// The session's temporary table `schema.table` names, if it names one: it shadows a base
/// table of its name (`temporary.rs`).
fn temporary(schema: &str, table: &str, state: &SessionState) -> Option<TableName> {
    if state.temporary_tables.is_empty() {
        return None;
    }
    let t = TableName::new(&schema.to_ascii_lowercase(), &table.to_ascii_lowercase()).ok()?;
    state.is_temporary(&t).then_some(t)
}

/// Moves on at the end of every statement that may change a table's definition, before its
/// metadata locks go (see [`after_statement`]): what [`counted`] read of a table before is
/// read again. A statement that writes into a table holds a metadata lock on it, which no DDL
/// of the table can take at once, so what was read while the epoch was unchanged is still
/// true under that lock. This costs an INSERT ... SELECT no read of SQLite's catalog (nor of
/// its schema version, `insert_values.rs`) while no DDL runs: one into a table without an
/// `AUTO_INCREMENT` column pays one lookup.
static EPOCH: AtomicU64 = AtomicU64::new(0);

/// The epoch (see [`EPOCH`]), the version a prepared INSERT ... SELECT's kept rewrite was made
/// at (`memo.rs`).
pub(super) fn epoch() -> i64 {
    EPOCH.load(Ordering::Acquire) as i64
}

/// A statement of `kind` ends, its locks still held: the epoch moves on unless `kind` is one
/// that changes no table's definition.
pub(super) fn after_statement(kind: StatementKind) {
    use StatementKind as K;
    let keeps = matches!(
        kind,
        K::Select
            | K::Insert
            | K::Update
            | K::Delete
            | K::Do
            | K::LockTables
            | K::UnlockTables
            | K::FlushTablesWithReadLock
            | K::LockInstanceForBackup
            | K::UnlockInstance
            | K::Begin
            | K::Commit
            | K::Rollback
            | K::Savepoint
            | K::RollbackToSavepoint
            | K::ReleaseSavepoint
            | K::Set
            | K::Use
            | K::Show
            | K::Kill
            | K::Explain
            | K::Check
            | K::Checksum
            | K::Flush
    );
    if !keeps {
        EPOCH.fetch_add(1, Ordering::AcqRel);
    }
}

/// What an INSERT ... SELECT needs of a table with an `AUTO_INCREMENT` column.
#[derive(Debug, Clone)]
struct Counted {
    /// The column's name, its position and the table's column count.
    name: String,
    at: usize,
    width: usize,
    /// `MDL_AUTO_ID`'s `last`: the table's counter or largest id, as a subquery (SQLite's).
    last: String,
}

/// What was read of tables at an epoch, per schema and table: the engine (kept so that no
/// other engine has its address while the entry lives) and what the table has.
type Read = HashMap<String, HashMap<String, Vec<(Weak<Engine>, Option<Counted>)>>>;

static READ: LazyLock<Mutex<(u64, Read)>> = LazyLock::new(|| Mutex::new((0, HashMap::new())));

/// What `schema.table` has for an INSERT ... SELECT: read once per epoch (see [`EPOCH`]).
///
/// # Errors
/// SQLite errors reading the catalog.
fn counted(db: &mut EngineConn, schema: &str, table: &str) -> Result<Option<Counted>, ServerError> {
    let epoch = EPOCH.load(Ordering::Acquire);
    let engine = Arc::as_ptr(db.engine());
    {
        let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
        if read.0 != epoch {
            *read = (epoch, HashMap::new());
        }
        let found = (read.1.get(schema))
            .and_then(|t| t.get(table))
            .and_then(|v| v.iter().find(|(e, _)| e.as_ptr() == engine));
        if let Some((_, c)) = found {
            return Ok(c.clone());
        }
    }
    let c = read_counted(db, schema, table)?;
    let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
    if read.0 == epoch {
        let tables = read.1.entry(schema.to_string()).or_default();
        let engines = tables.entry(table.to_string()).or_default();
        engines.push((Arc::downgrade(db.engine()), c.clone()));
    }
    Ok(c)
}

/// What the table SQLite keeps as `schema.table` has (a temporary table's SQLite names; a base
/// name is not looked for among the temporary tables), from SQLite's catalog.
fn read_counted(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Option<Counted>, ServerError> {
    let Some((kept, has_counter)) = definition(db, schema, table)? else {
        return Ok(None);
    };
    let cols = catalog::base_columns(db, schema, table)?;
    let Some(at) = cols.iter().position(|c| c.auto_increment) else {
        return Ok(None);
    };
    Ok(Some(Counted {
        name: cols[at].name.clone(),
        at,
        width: cols.len(),
        last: last((schema, table), has_counter.then_some(kept.as_str())),
    }))
}

/// What `schema.table`'s definition says before its columns are read (SQLite's
/// `sqlite_schema`, a few rows): its name as SQLite keeps it and whether it has SQLite's counter
/// (`AUTOINCREMENT`), or `None` when no column can be its rowid (none is an `INTEGER` declared
/// before a `PRIMARY KEY`), as for most tables without an `AUTO_INCREMENT` column: those are
/// not read further.
fn definition(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Option<(String, bool)>, ServerError> {
    let sql = format!(
        "SELECT name, upper(sql) GLOB '* AUTOINCREMENT*' FROM {}.sqlite_schema \
         WHERE type = 'table' AND name = ?1 COLLATE NOCASE \
         AND upper(sql) GLOB '*INTEGER*PRIMARY KEY*'",
        quote(schema)
    );
    let engine_err = |e: rusqlite::Error| ServerError::from_engine(&e, None);
    let mut st = db.db().prepare_cached(&sql).map_err(engine_err)?;
    let mut rows = st.query([table]).map_err(engine_err)?;
    match rows.next().map_err(engine_err)? {
        Some(r) => Ok(Some((
            r.get(0).map_err(engine_err)?,
            r.get(1).map_err(engine_err)?,
        ))),
        None => Ok(None),
    }
}

/// `MDL_AUTO_ID`'s `last` for the table SQLite keeps as `schema.table` (see the module docs),
/// as a subquery: its counter (`counter`: the name `sqlite_sequence` has it by), or its
/// largest id.
fn last((schema, table): (&str, &str), counter: Option<&str>) -> String {
    match counter {
        Some(name) => format!(
            "(SELECT seq FROM {}.sqlite_sequence WHERE name = '{}')",
            quote(schema),
            name.replace('\'', "''")
        ),
        None => format!(
            "(SELECT MAX({ROWID}) FROM {}.{})",
            quote(schema),
            quote(table)
        ),
    }
}

/// `CREATE TABLE ... SELECT` (`create_from.rs`): the INSERT that fills `schema.table`, made by
/// `created` (the statements that make it, in SQLite's syntax) from the definition `defined`,
/// with the rows of `select` (SQLite's text) in its columns `names`, written by `insert`
/// (`INSERT`, or `INSERT OR IGNORE` / `INSERT OR REPLACE`); an `AUTO_INCREMENT` column
/// of the definition counts as in an INSERT ... SELECT (see the module docs), as MySQL's
/// `Query_result_create` writes its rows as `Query_result_insert` does.
pub(super) fn created_rows(
    (defined, created): (&[ColumnDef], &[String]),
    (schema, table): (&str, &str),
    names: &[String],
    (select, insert): (&str, &str),
    counts_zero: bool,
) -> String {
    let mut columns: Vec<String> = names.iter().map(|n| quote(n)).collect();
    let into = format!("{insert} INTO {}.{}", quote(schema), quote(table));
    // The column is the rowid only if the rewrite made it `INTEGER PRIMARY KEY AUTOINCREMENT`
    // (`rewrite/ddl.rs`), as `catalog::counter_name` reads a table's definition.
    let autoincrement = |c: &String| c.to_ascii_uppercase().contains(" AUTOINCREMENT");
    let counted = (defined.iter().find(|d| is_auto_increment(d)))
        .filter(|_| created.first().is_some_and(autoincrement));
    let Some(counted) = counted else {
        return format!("{into} ({}) {select}", columns.join(", "));
    };
    let at = (names.iter()).position(|n| n.eq_ignore_ascii_case(&counted.name.value));
    if at.is_none() {
        columns.push(quote(&counted.name.value));
    }
    // The table is new: its counter is there only if its CREATE set one (`AUTO_INCREMENT = n`),
    // which has run when this runs.
    let last = last((schema, table), Some(table));
    let rows = rows_select(names.len(), at, counts_zero, &last, select);
    format!("{into} ({}) {rows}", columns.join(", "))
}

/// The rows `select` (SQLite's text of a select of `width` columns) gives, with the value of
/// column `at`, the `AUTO_INCREMENT` column, through `MDL_AUTO_ID` (with `last`), or such a
/// column appended (NULL) when `at` is `None`: SQLite's text.
fn rows_select(
    width: usize,
    at: Option<usize>,
    counts_zero: bool,
    last: &str,
    select: &str,
) -> String {
    let counted = |value: &str| format!("{AUTO_ID}({value}, {}, {last})", u8::from(counts_zero));
    let names: Vec<String> = (1..=width).map(|k| format!("`c{k}`")).collect();
    let mut items: Vec<String> = (names.iter().enumerate())
        .map(|(k, n)| match at {
            Some(a) if a == k => counted(n),
            _ => n.clone(),
        })
        .collect();
    if at.is_none() {
        items.push(counted("NULL"));
    }
    format!(
        "WITH `mdl_insert_rows` ({}) AS ({select}) SELECT {} FROM `mdl_insert_rows` WHERE true",
        names.join(", "),
        items.join(", ")
    )
}

/// A column MySQL counts: `AUTO_INCREMENT`, or of type `SERIAL` (`rewrite/ddl.rs`).
fn is_auto_increment(d: &ColumnDef) -> bool {
    let serial = matches!(&d.data_type, DataType::Custom(name, args)
        if args.is_empty() && name.to_string().eq_ignore_ascii_case("SERIAL"));
    serial
        || d.options.iter().any(|o| {
            matches!(&o.option, ColumnOption::DialectSpecific(toks)
                if toks.iter().any(|t| t.to_string().eq_ignore_ascii_case("AUTO_INCREMENT")))
        })
}

/// A column list entry's name (its last part: `t.col` is `col`).
fn column_name(n: &ObjectName) -> String {
    match n.0.last() {
        Some(ObjectNamePart::Identifier(i)) => i.value.clone(),
        _ => n.to_string(),
    }
}

/// Registers `MDL_AUTO_ID` on `db`, which reports to `outcome` (see the module docs).
pub(crate) fn register(
    db: &rusqlite::Connection,
    outcome: &Arc<StatementOutcome>,
) -> rusqlite::Result<()> {
    let o = outcome.clone();
    db.create_scalar_function(AUTO_ID, 3, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let counts_zero = ctx.get::<Option<i64>>(1)? == Some(1);
        let value = ctx.get_raw(0);
        if matches!(value, ValueRef::Null) || (counts_zero && is_zero(value)) {
            o.generates_id(ctx.get::<Option<i64>>(2)?.unwrap_or(0));
            return Ok(Value::Null);
        }
        if let Some(id) = as_id(value) {
            o.gives_id(id);
        }
        ctx.get::<Value>(0)
    })
}

/// A value MySQL reads as 0: `0`, `0.0`, `'0'`.
fn is_zero(v: ValueRef<'_>) -> bool {
    match v {
        ValueRef::Integer(n) => n == 0,
        ValueRef::Real(x) => x == 0.0,
        ValueRef::Text(t) => std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .is_some_and(|x| x == 0.0),
        ValueRef::Null | ValueRef::Blob(_) => false,
    }
}

/// The id a value is as SQLite's rowid (an integer, or a real or text that is one exactly).
fn as_id(v: ValueRef<'_>) -> Option<i64> {
    let exact = |x: f64| (x.fract() == 0.0 && x.abs() < 9.0e18).then_some(x as i64);
    match v {
        ValueRef::Integer(n) => Some(n),
        ValueRef::Real(x) => exact(x),
        ValueRef::Text(t) => {
            let s = std::str::from_utf8(t).ok()?.trim();
            s.parse::<i64>().ok().or_else(|| exact(s.parse().ok()?))
        }
        ValueRef::Null | ValueRef::Blob(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_table_select_wraps_sqlite_text_the_same_way() {
        let last = "(SELECT seq FROM `s`.sqlite_sequence WHERE name = 't')";
        assert_eq!(
            rows_select(3, Some(1), true, last, "SELECT a, 0, b FROM u"),
            "WITH `mdl_insert_rows` (`c1`, `c2`, `c3`) AS (SELECT a, 0, b FROM u) \
             SELECT `c1`, MDL_AUTO_ID(`c2`, 1, (SELECT seq FROM `s`.sqlite_sequence \
             WHERE name = 't')), `c3` FROM `mdl_insert_rows` WHERE true"
        );
        assert_eq!(
            rows_select(1, None, false, last, "SELECT a FROM u"),
            "WITH `mdl_insert_rows` (`c1`) AS (SELECT a FROM u) \
             SELECT `c1`, MDL_AUTO_ID(NULL, 0, (SELECT seq FROM `s`.sqlite_sequence \
             WHERE name = 't')) FROM `mdl_insert_rows` WHERE true"
        );
    }

    #[test]
    fn the_epoch_moves_for_a_statement_that_may_change_a_table() {
        let before = epoch();
        after_statement(StatementKind::Insert);
        after_statement(StatementKind::Select);
        let after_dml = epoch();
        after_statement(StatementKind::AlterTable);
        // Other tests may move it too, never back.
        assert!(after_dml >= before && epoch() > after_dml);
    }

    #[test]
    fn zeros_and_ids_are_read_as_sqlite_stores_them() {
        assert!(is_zero(ValueRef::Integer(0)));
        assert!(is_zero(ValueRef::Real(0.0)));
        assert!(is_zero(ValueRef::Text(b" 0.0")));
        assert!(!is_zero(ValueRef::Text(b"x")));
        assert!(!is_zero(ValueRef::Null));
        assert_eq!(as_id(ValueRef::Text(b"12")), Some(12));
        assert_eq!(as_id(ValueRef::Real(7.0)), Some(7));
        assert_eq!(as_id(ValueRef::Real(7.5)), None);
        assert_eq!(as_id(ValueRef::Text(b"abc")), None);
    }
}
