//! `CREATE TABLE ... LIKE` and `CREATE TABLE ... SELECT`: a new table whose definition comes
//! from what the engine holds, so it is written under the statement's locks (X on the new
//! table, SR on what it reads: `mdl-sql`), after the upgrade, as the statements SQLite runs in
//! the DDL's savepoint (`engine_step.rs`): all of them or none, as MySQL 8.0's atomic DDL.
//!
//! `CREATE TABLE t [(definitions)] [AS] SELECT ...` is MySQL's "CREATE TABLE ... SELECT
//! Statement" (the manual; `Query_result_create`, `create_table_from_items`,
//! `sql/sql_insert.cc`): a column for every item of the select, the rows of the select
//! inserted. The select's column names and declared types are known only to SQLite, which
//! prepares the rewritten select (a query in parentheses, `CREATE TABLE t (SELECT 1 a)`, as
//! SQLite reads it: `create_from/parens.rs`). The statements:
//!
//! 1. the `CREATE TABLE` of the definition with the select's columns (written as any `CREATE
//!    TABLE` is, `rewrite/ddl.rs`), and its indexes;
//! 2. `INSERT INTO t (<the select's columns>) <the rewritten select>`: the other columns get
//!    their defaults (`CREATE TABLE bar (m INT) SELECT n FROM foo` gives rows `(NULL, n)`), a
//!    duplicate under a key of the definition fails the statement with 1062 and leaves no
//!    table, as does any other failure of the select or the insert. With `IGNORE` before the
//!    select the duplicate row is skipped (`INSERT OR IGNORE`), with `REPLACE` it replaces
//!    the row it duplicates (`INSERT OR REPLACE`), as MySQL's manual says of them; sqlparser
//!    reads neither word, so `mdl-sql` takes it out before parsing (its `create_select.rs`).
//!
//! The columns ([`columns`]): those of the definition that the select does not name, in their
//! order, then the select's, in its order; a select item named as a defined column is that
//! column, with the definition's type and options, at the select's place (MySQL's
//! `prepare_create_field`, `sql/sql_table.cc`: the earlier definition is removed, the select's
//! field takes its type; the manual: "columns named only in the CREATE TABLE part come first.
//! Columns named in both parts or only in the SELECT part come after that"). Another select
//! column has the declared type of the table column it reads (SQLite's
//! `sqlite3_column_decltype`, through views and subqueries too); an expression has MySQL's
//! type of it ("the column types of the result": `v + 1` of an `INT` `v` is `bigint`,
//! `CONCAT(s, 'x')` of a `VARCHAR(10)` `s` `varchar(11)`; `expr_type.rs`, through
//! `view_columns::query_types`, which reads the select's names as a view's, a temporary table
//! the session's: `create_from/temporary_sources.rs`), or, where that is
//! not known (a function `expr_type` does not list), none: a column without a type (SQLite
//! keeps the value as computed, `SHOW CREATE TABLE` says `blob`), as SQLite's own `CREATE
//! TABLE ... AS SELECT` makes it.
//!
//! `IF NOT EXISTS` of a table that exists is OK and inserts nothing, as in MySQL 8.0
//! (`engine_step::existing_table`, before the upgrade), without MySQL's note 1050.
//!
//! `CREATE TEMPORARY TABLE ... LIKE` and `... SELECT` are written the same way, the new table
//! the session's temporary one (`temporary.rs`); the source may be a temporary table too.
//!
//! Differs: MySQL keeps a read column's `NOT NULL` and `DEFAULT`, and makes an expression's
//! column NOT NULL where it cannot be NULL; here an appended column is nullable and has no
//! default. A value goes into a defined column under SQLite's affinity of its type, not
//! converted as MySQL converts it. `IGNORE` skips a row SQLite's `OR IGNORE` skips (a NULL in
//! a `NOT NULL` column too, where MySQL stores the column's implicit default), with no
//! warning 1062; `REPLACE` counts the rows it writes, not MySQL's deleted rows too. The OK
//! packet has the rows inserted as affected rows, without MySQL's "Records: n  Duplicates: 0
//! Warnings: 0" (`wire.rs` sends no info). An
//! `AUTO_INCREMENT` column of the definition numbers the rows as an INSERT ... SELECT does, and
//! the first number is `LAST_INSERT_ID()` (`insert_select.rs`).

use sqlparser::ast::{
    ColumnDef, CreateTable, CreateTableLikeKind as Like, DataType, Ident, ObjectName, Statement,
};

use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::rewrite::Rewritten;

mod parens;
mod temporary_sources;

/// The rewrite of a statement for SQLite (`rewrite::rewrite` in the statement's session).
pub(super) type Write<'a> = dyn Fn(&Statement) -> Result<Rewritten, ServerError> + 'a;

/// `CREATE TABLE t LIKE src`: the `CREATE TABLE` that `SHOW CREATE TABLE src` prints, named
/// `t`, so the new table has the source's columns, defaults, `AUTO_INCREMENT` and keys and
/// none of its rows, as MySQL's (`mysql_create_like_table`, `sql/sql_table.cc`;
/// `PT_create_table_stmt::make_cmd` in `sql/parse_tree_nodes.cc` opens the source with
/// `MDL_SHARED_READ`).
///
/// # Errors
/// 1049 or 1146 for a source that does not exist; the rewrite's and SQLite's.
pub(super) fn like(
    db: &mut EngineConn,
    c: &CreateTable,
    current: Option<&str>,
    write: &Write<'_>,
) -> Result<Rewritten, ServerError> {
    let Some(Like::Plain(like) | Like::Parenthesized(like)) = &c.like else {
        return Err(ServerError::parse("LIKE"));
    };
    let (schema, table) = crate::rewrite::table_name(&c.name, current)?;
    let (src_schema, src_table) = crate::rewrite::table_name(&like.name, current)?;
    let text = crate::show_table::create_table_text(db, &src_schema, &src_table, &table)?;
    let parsed = sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::MySqlDialect {}, &text)
        .map_err(|_| ServerError::parse(&text))?;
    let Some(Statement::CreateTable(mut copy)) = parsed.into_iter().next() else {
        return Err(ServerError::parse(&text));
    };
    copy.name = ObjectName::from(vec![
        Ident::with_quote('`', schema),
        Ident::with_quote('`', table),
    ]);
    // CREATE TEMPORARY TABLE ... LIKE: a temporary table (`temporary.rs`).
    copy.temporary = c.temporary;
    write(&Statement::CreateTable(copy))
}

/// A column of a select's result: its name and the declared type of what it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Selected {
    pub name: String,
    pub decl_type: Option<String>,
}

/// `CREATE TABLE t [(definitions)] [IGNORE | REPLACE] SELECT ...` (see the module docs): the
/// statement's rewrite `rw` (the tables it names, its `SLEEP`) with the statements that create
/// `t` and fill it (a 0 in an `AUTO_INCREMENT` column counts if `counts_zero`; `IGNORE` and
/// `REPLACE` are `mdl-sql`'s `modifiers`).
///
/// # Errors
/// 1060 for a column named twice, 1166 for a name MySQL refuses as a column's; the
/// rewrite's and SQLite's (1146, 1054, ... for a select that does not prepare).
pub(super) fn select(
    db: &mut EngineConn,
    c: &CreateTable,
    current: Option<&str>,
    (rw, counts_zero, modifiers): (Option<&Rewritten>, bool, &mdl_sql::Modifiers),
    write: &Write<'_>,
) -> Result<Rewritten, ServerError> {
    let Some(query) = &c.query else {
        return Err(ServerError::parse("CREATE TABLE ... SELECT"));
    };
    // Where SQLite keeps the new table: a temporary one in `temp` (`temporary.rs`).
    let (schema, table) = crate::temporary::created_name(c, current)?;
    // A query in parentheses, as SQLite reads it (`create_from/parens.rs`).
    let rewritten = write(&Statement::Query(Box::new(parens::for_sqlite(query))))?;
    let [select] = rewritten.sql.as_slice() else {
        return Err(ServerError::not_supported("this CREATE TABLE ... SELECT"));
    };
    let mut selected = {
        let stmt = (db.db().prepare(select)).map_err(|e| ServerError::from_engine(&e, current))?;
        let cols = stmt.columns();
        (cols.iter())
            .map(|col| Selected {
                name: col.name().to_string(),
                decl_type: col
                    .decl_type()
                    .map(|t| crate::catalog::mysql_type(t).to_string()),
            })
            .collect::<Vec<_>>()
    };
    // An expression's column: MySQL's type of it, where known.
    let schema_now = current.unwrap_or_default();
    // A temporary table it reads is the one MySQL opens (`create_from/temporary_sources.rs`).
    let read = temporary_sources::in_temp(db, query, current);
    let mysql = crate::view_columns::query_types(db, schema_now, &read)
        .filter(|t| t.len() == selected.len());
    for (s, t) in selected.iter_mut().zip(mysql.unwrap_or_default()) {
        if s.decl_type.is_none() {
            s.decl_type = t;
        }
    }
    let mut def = c.clone();
    def.query = None;
    def.columns = columns(&c.columns, &selected)?;
    let mut sql = write(&Statement::CreateTable(def))?.sql;
    let names: Vec<String> = selected.iter().map(|s| s.name.clone()).collect();
    // Last: the DDL step reports its rows as the statement's affected rows.
    let made = (c.columns.as_slice(), sql.as_slice());
    let into = (schema.as_str(), table.as_str());
    // `IGNORE`: a row that duplicates a kept one on a unique key is skipped; `REPLACE`: it
    // replaces that row (`Query_result_insert` with `DUP_IGNORE` / `DUP_REPLACE`, as
    // `PT_create_table_stmt::make_cmd` in `sql/parse_tree_nodes.cc` passes them on).
    let insert = match (modifiers.ignore, modifiers.replace) {
        (_, true) => "INSERT OR REPLACE",
        (true, false) => "INSERT OR IGNORE",
        (false, false) => "INSERT",
    };
    let rows = (select.as_str(), insert);
    let fill = super::insert_select::created_rows(made, into, &names, rows, counts_zero);
    sql.push(fill);
    Ok(Rewritten {
        sql,
        ..rw.cloned().unwrap_or_default()
    })
}

/// The new table's columns: the definition's `defined` that `selected` does not name, then a
/// column for each of `selected` (see the module docs).
///
/// # Errors
/// 1060 for a name the select gives twice; 1166 for an empty name, one ending in a space or
/// one longer than 64 characters (`check_column_name`, `sql/table.cc`, in
/// `mysql_prepare_create_table`).
pub(super) fn columns(
    defined: &[ColumnDef],
    selected: &[Selected],
) -> Result<Vec<ColumnDef>, ServerError> {
    let same = |a: &str, b: &str| a.to_lowercase() == b.to_lowercase();
    for (i, s) in selected.iter().enumerate() {
        let name = s.name.as_str();
        if name.is_empty() || name.ends_with(' ') || name.chars().count() > 64 {
            let msg = format!("Incorrect column name '{name}'");
            return Err(ServerError::new(1166, "42000", msg));
        }
        if selected[..i].iter().any(|o| same(&o.name, name)) {
            let msg = format!("Duplicate column name '{name}'");
            return Err(ServerError::new(1060, "42S21", msg));
        }
    }
    let named = |d: &ColumnDef| selected.iter().any(|s| same(&s.name, &d.name.value));
    let mut out: Vec<ColumnDef> = defined.iter().filter(|d| !named(d)).cloned().collect();
    out.extend(selected.iter().map(|s| {
        let name = Ident::with_quote('`', s.name.as_str());
        match defined.iter().find(|d| same(&d.name.value, &s.name)) {
            Some(d) => ColumnDef { name, ..d.clone() },
            None => ColumnDef {
                name,
                data_type: (s.decl_type.as_deref()).map_or(DataType::Unspecified, declared),
                options: Vec::new(),
            },
        }
    }));
    Ok(out)
}

/// A declared type as sqlparser reads it (`JSON` then gets its check, `rewrite/json.rs`); as
/// written when it does not read it.
fn declared(t: &str) -> DataType {
    let dialect = sqlparser::dialect::MySqlDialect {};
    let parsed = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(t)
        .and_then(|mut p| {
            let ty = p.parse_data_type()?;
            p.expect_token(&sqlparser::tokenizer::Token::EOF)?;
            Ok(ty)
        });
    parsed.unwrap_or_else(|_| DataType::Custom(ObjectName::from(vec![Ident::new(t)]), Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(sql: &str) -> Vec<ColumnDef> {
        let dialect = sqlparser::dialect::MySqlDialect {};
        match sqlparser::parser::Parser::parse_sql(&dialect, sql)
            .unwrap()
            .remove(0)
        {
            Statement::CreateTable(c) => c.columns,
            other => panic!("{other}"),
        }
    }

    fn sel(name: &str, ty: Option<&str>) -> Selected {
        Selected {
            name: name.into(),
            decl_type: ty.map(str::to_string),
        }
    }

    fn shown(cols: &[ColumnDef]) -> Vec<String> {
        cols.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn the_select_columns_follow_the_definition_only_columns() {
        // The manual's `CREATE TABLE bar (m INT) SELECT n FROM foo`.
        let cols = columns(&defs("CREATE TABLE bar (m INT)"), &[sel("n", Some("int"))]);
        assert_eq!(shown(&cols.unwrap()), ["m INT", "`n` INT"]);
        // A defined column the select names: the definition's type, at the select's place.
        let d = defs("CREATE TABLE c (a BIGINT NOT NULL, x INT DEFAULT 7)");
        let cols = columns(&d, &[sel("B", Some("varchar(10)")), sel("A", Some("int"))]);
        assert_eq!(
            shown(&cols.unwrap()),
            ["x INT DEFAULT 7", "`B` VARCHAR(10)", "`A` BIGINT NOT NULL"]
        );
        // An expression has no declared type; one SQLite's parser would not read stays as is.
        let cols = columns(
            &[],
            &[
                sel("a+1", None),
                sel("j", Some("JSON")),
                sel("w", Some("x y z")),
            ],
        );
        assert_eq!(shown(&cols.unwrap()), ["`a+1`", "`j` JSON", "`w` x y z"]);
    }

    #[test]
    fn names_mysql_refuses_are_its_errors() {
        let code = |s: &[Selected]| columns(&[], s).unwrap_err().code;
        assert_eq!(code(&[sel("a", None), sel("A", None)]), 1060);
        assert_eq!(code(&[sel("", None)]), 1166);
        assert_eq!(code(&[sel("a ", None)]), 1166);
        assert_eq!(code(&[sel(&"x".repeat(65), None)]), 1166);
        assert!(columns(&[], &[sel(&"x".repeat(64), None)]).is_ok());
    }
}
