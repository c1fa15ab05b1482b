//! `CREATE TABLE ... LIKE`: a new table whose definition comes from what the engine holds, so
//! it is written under the statement's locks (X on the new table, SR on what it reads:
//! `mdl-sql`), after the upgrade, as the statements SQLite runs in the DDL's savepoint
//! (`engine_step.rs`): all of them or none, as MySQL 8.0's atomic DDL.

use sqlparser::ast::{CreateTable, CreateTableLikeKind as Like, Ident, ObjectName, Statement};

use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::rewrite::Rewritten;

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
    write(&Statement::CreateTable(copy))
}
