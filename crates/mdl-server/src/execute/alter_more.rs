//! The ALTER TABLEs `mdl-sql` recognizes beside sqlparser (`Statement::AlterTableRenameIndex`,
//! `Statement::AlterTableOptions`): their checks under the statement's SU, before it waits for
//! X, as MySQL makes them (`mysql_prepare_alter_table`, `sql/sql_table.cc`, runs on the table
//! opened under SU), and what the engine does under X.
//!
//! * `RENAME {INDEX | KEY} a TO b`: SQLite has no index rename, so index `t__a` is dropped and
//!   `t__b` made with its definition (its `CREATE INDEX` text from `sqlite_schema`, renamed),
//!   in one savepoint: both or neither. MySQL's errors: 1176 (`ER_KEY_DOES_NOT_EXITS`) if the
//!   table has no key `a`, 1280 (`ER_WRONG_NAME_FOR_INDEX`) if `a` or `b` is `PRIMARY`, 1061
//!   (`ER_DUP_KEYNAME`) if it has a key `b` (names compared without case, as MySQL's). `a` to
//!   `a` changes nothing. An unnamed inline `UNIQUE` (SQLite's autoindex, which goes only
//!   with its table) cannot be renamed here: 1235.
//! * Table options (`COMMENT`, `ROW_FORMAT`, `[DEFAULT] CHARSET`, `COLLATE`, `STATS_*`,
//!   `KEY_BLOCK_SIZE`, ...): nothing to change. This server keeps no table comment, row
//!   format, statistics settings or per-table character set: every table is `utf8mb4` with
//!   the collation `catalog.rs` names, and `SHOW CREATE TABLE` says so whatever the ALTER
//!   said. `CONVERT TO CHARACTER SET` is nothing to do for `utf8mb4`, `utf8mb3` (`utf8`) and
//!   `DEFAULT` (text is UTF-8 here already) and refused for any other (1235, before any lock:
//!   [`refuse_convert`]).
//!
//! * `ALTER TABLE t {DISABLE | ENABLE} KEYS` and a rebuild (`ENGINE = x`, `FORCE`): nothing for
//!   SQLite to do beyond the locks (its pages are not InnoDB's clustered index to rebuild).
//!
//! Each way a table that does not exist is 1146, an unknown schema 1049.

use mdl_sql::Statement;

use crate::catalog;
use crate::engine::{quote, EngineConn};
use crate::error::ServerError;
use crate::wire::Output;

/// `CONVERT TO CHARACTER SET x` for an `x` other than UTF-8: 1235, before the locks.
pub(super) fn refuse_convert(parsed: &Statement) -> Result<(), ServerError> {
    if let Statement::AlterTableOptions {
        convert_to: Some(cs),
        ..
    } = parsed
    {
        if !["utf8mb4", "utf8mb3", "default"].contains(&cs.as_str()) {
            return Err(ServerError::not_supported(&format!(
                "CONVERT TO CHARACTER SET {cs} (text is utf8mb4 here)"
            )));
        }
    }
    Ok(())
}

/// The checks of the module docs under SU: the SQLite statements to run under X (`None`: not
/// one of these statements).
pub(super) fn prepare(
    db: &mut EngineConn,
    parsed: &Statement,
    current: Option<&str>,
) -> Result<Option<Vec<String>>, ServerError> {
    let (schema, table, rename) = match parsed {
        Statement::AlterTableRenameIndex {
            schema,
            table,
            from,
            to,
        } => (schema, table, Some((from, to))),
        Statement::AlterTableOptions { schema, table, .. }
        | Statement::AlterTableKeys { schema, table, .. }
        | Statement::AlterTableRebuild { schema, table } => (schema, table, None),
        _ => return Ok(None),
    };
    // The plan said 1046 already without a schema.
    let schema = schema
        .as_deref()
        .or(current)
        .unwrap_or("")
        .to_ascii_lowercase();
    let cols = catalog::existing_columns(db, &schema, table)?;
    // A temporary table's indexes are in SQLite's `temp`, named after its SQLite name.
    let (schema, table, _) = crate::temporary::locate(db, &schema, table)?;
    let table = table.as_str();
    let Some((from, to)) = rename else {
        return Ok(Some(Vec::new()));
    };
    let parts = catalog::indexes(db, &schema, table, &cols)?;
    let has = |name: &str| parts.iter().any(|p| p.index.eq_ignore_ascii_case(name));
    if !has(from) {
        return Err(ServerError::new(
            1176,
            "42000",
            format!("Key '{from}' doesn't exist in table '{table}'"),
        ));
    }
    for name in [from, to] {
        if name.eq_ignore_ascii_case("PRIMARY") {
            return Err(ServerError::new(
                1280,
                "42000",
                format!("Incorrect index name '{name}'"),
            ));
        }
    }
    if from == to {
        return Ok(Some(Vec::new()));
    }
    if !from.eq_ignore_ascii_case(to) && has(to) {
        return Err(ServerError::new(
            1061,
            "42000",
            format!("Duplicate key name '{to}'"),
        ));
    }
    let Some((old, sql)) = index_sql(db, &schema, table, from)? else {
        return Err(ServerError::not_supported(&format!(
            "RENAME INDEX of the unnamed UNIQUE key '{from}'"
        )));
    };
    let Some(created) = renamed(&sql, &schema, &format!("{table}__{to}")) else {
        return Err(ServerError::not_supported(&format!(
            "RENAME INDEX of '{from}'"
        )));
    };
    Ok(Some(vec![
        format!("DROP INDEX {}.{}", quote(&schema), quote(&old)),
        created,
    ]))
}

/// For an `ALTER TABLE ... DROP {INDEX | KEY}` or `DROP INDEX ... ON t` whose key SQLite did
/// not find (1091): 1146 or 1049 when the table itself is missing, as MySQL opens the table
/// first. SQLite's `DROP INDEX` names only the index, so its error cannot tell.
pub(super) fn missing_table(
    db: &mut EngineConn,
    statement: &sqlparser::ast::Statement,
    current: Option<&str>,
) -> Option<ServerError> {
    use sqlparser::ast::{ObjectType, Statement as S};
    let name = match statement {
        S::AlterTable(a) => &a.name,
        S::Drop {
            object_type: ObjectType::Index,
            table: Some(t),
            ..
        } => t,
        _ => return None,
    };
    let (schema, table) = crate::rewrite::table_name(name, current).ok()?;
    catalog::existing_columns(db, &schema.to_ascii_lowercase(), &table).err()
}

/// SQLite's name of key `key` of `table` and its `CREATE INDEX` text (`None`: an index SQLite
/// made with the table, which has no text).
fn index_sql(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
    key: &str,
) -> Result<Option<(String, String)>, ServerError> {
    let sql = format!(
        "SELECT name, sql FROM {}.sqlite_schema WHERE type = 'index' AND tbl_name = ?1 \
         COLLATE NOCASE AND sql IS NOT NULL",
        quote(schema)
    );
    let err = |e: rusqlite::Error| ServerError::from_engine(&e, None);
    let mut st = db.db().prepare(&sql).map_err(err)?;
    let rows = st
        .query_map([table], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })
        .map_err(err)?;
    for row in rows {
        let (name, text) = row.map_err(err)?;
        if catalog::mysql_index_name(&name, table).eq_ignore_ascii_case(key) {
            return Ok(Some((name, text)));
        }
    }
    Ok(None)
}

/// `sql`, SQLite's text of a `CREATE [UNIQUE] INDEX name ...` (SQLite keeps it so, without
/// the schema or `IF NOT EXISTS`), as `CREATE [UNIQUE] INDEX schema.new ...`.
fn renamed(sql: &str, schema: &str, new: &str) -> Option<String> {
    let upper = sql.get(..20).unwrap_or(sql).to_ascii_uppercase();
    let head = ["CREATE UNIQUE INDEX ", "CREATE INDEX "]
        .into_iter()
        .find(|h| upper.starts_with(h))?;
    let rest = &sql[head.len()..];
    let end = match rest.chars().next()? {
        q @ ('`' | '"' | '\'' | '[') => {
            let close = if q == '[' { ']' } else { q };
            let mut chars = rest.char_indices().skip(1).peekable();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                if c == close {
                    if close != ']' && chars.peek().is_some_and(|&(_, n)| n == close) {
                        chars.next();
                        continue;
                    }
                    end = Some(i + c.len_utf8());
                    break;
                }
            }
            end?
        }
        _ => rest.find(|c: char| c.is_whitespace() || c == '(')?,
    };
    Some(format!(
        "{}{}.{}{}",
        &sql[..head.len()],
        quote(schema),
        quote(new),
        &rest[end..]
    ))
}

/// Under X: `sql` (from [`prepare`]) in one savepoint.
pub(super) async fn run(
    db: &mut EngineConn,
    info: &crate::processlist::ConnInfo,
    sql: &[String],
) -> Result<Output, ServerError> {
    if sql.is_empty() {
        return Ok(Output::OK);
    }
    db.take_writer(&info.kill).await?;
    db.execute_batch("SAVEPOINT mdl_alter")?;
    let done = sql.iter().try_for_each(|q| db.execute_batch(q));
    let end = match done {
        Ok(()) => "RELEASE mdl_alter",
        Err(_) => "ROLLBACK TO mdl_alter; RELEASE mdl_alter",
    };
    db.execute_batch(end)?;
    done?;
    db.release_writer();
    Ok(Output::OK)
}

#[cfg(test)]
mod tests {
    use super::renamed;

    #[test]
    fn index_text_is_renamed() {
        assert_eq!(
            renamed("CREATE INDEX `t__a` ON `t` (`c`)", "test", "t__b").as_deref(),
            Some("CREATE INDEX `test`.`t__b` ON `t` (`c`)")
        );
        assert_eq!(
            renamed(
                "CREATE UNIQUE INDEX \"t__a\"\"x\" ON t(c, d DESC)",
                "s",
                "t__b`"
            )
            .as_deref(),
            Some("CREATE UNIQUE INDEX `s`.`t__b``` ON t(c, d DESC)")
        );
        assert_eq!(
            renamed("create index t__a on t (c) where c > 0", "s", "t__b").as_deref(),
            Some("create index `s`.`t__b` on t (c) where c > 0")
        );
        assert_eq!(renamed("CREATE INDEX `t__a", "s", "b"), None);
        assert_eq!(renamed("CREATE VIEW v AS SELECT 1", "s", "b"), None);
    }
}
