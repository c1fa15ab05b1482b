//! The column a failed type check names, by its name now.
//!
//! The checks `rewrite/ddl.rs` writes for a column (an integer type's range, 1264; a
//! `CHAR(n)` / `VARCHAR(n)`'s length, 1406; an `ENUM`'s values, 1265) are named after the
//! column when its table is made, and SQLite reports a failure by the check's name alone
//! (`error.rs` makes the MySQL error from it). SQLite's in-place `RENAME COLUMN` renames the
//! column inside the check's expression but not the check, so after a rename the name would
//! be the old one: on such an error the table's definition is read, and the column is the one
//! the check's expression names.

use sqlparser::ast::{Statement, TableFactor, TableObject};

use crate::engine::{quote, EngineConn};
use crate::error::{ServerError, COLUMN_CHECKS};

/// `e` naming the column by its current name (see the module docs); `e` itself when it is no
/// failed type check of the INSERT's or UPDATE's table `s`, or names the column rightly.
pub(super) fn current_column(
    db: &mut EngineConn,
    s: &Statement,
    current: Option<&str>,
    e: ServerError,
) -> ServerError {
    let Some(check) = COLUMN_CHECKS.iter().find(|c| c.code == e.code) else {
        return e;
    };
    let Some(named) = check.column_of(&e.message) else {
        return e;
    };
    let name = match s {
        Statement::Insert(ins) => match &ins.table {
            TableObject::TableName(n) => n,
            _ => return e,
        },
        Statement::Update(u) => match &u.table.relation {
            TableFactor::Table { name, .. } => name,
            _ => return e,
        },
        _ => return e,
    };
    let Ok((schema, table)) = crate::rewrite::table_name(name, current) else {
        return e;
    };
    let sql = format!(
        "SELECT sql FROM {}.sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
        quote(&schema.to_ascii_lowercase())
    );
    let definition: Option<String> = (db.db().query_row(&sql, [&table], |r| r.get(0))).ok();
    let column = definition.and_then(|d| checked_column(&d, &format!("{}{named}", check.prefix)));
    match column {
        Some(c) if c != named => check.error(&c),
        _ => e,
    }
}

/// The column the expression of check `check` names in table definition `sql`: the first name
/// after `CONSTRAINT <check> CHECK (` and the function, if any, that `rewrite/ddl.rs` writes
/// around it. SQLite's rename writes a new name in double quotes.
fn checked_column(sql: &str, check: &str) -> Option<String> {
    let head = format!("CONSTRAINT {} CHECK (", quote(check));
    let rest = &sql[sql.find(&head)? + head.len()..];
    let rest = ["typeof(", "substr("]
        .iter()
        .find_map(|f| rest.strip_prefix(f))
        .unwrap_or(rest);
    let close = match rest.chars().next()? {
        '`' => '`',
        '"' => '"',
        '[' => ']',
        _ => {
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'));
            return Some(rest[..end?].to_string()).filter(|n| !n.is_empty());
        }
    };
    // A closing quote in the name is doubled.
    let mut name = String::new();
    let mut chars = rest[1..].chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c == close && close != ']' && chars.peek() == Some(&close) => {
                chars.next();
                name.push(c);
            }
            c if c == close => return Some(name),
            c => name.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_column_is_the_one_its_expression_names() {
        let sql = "CREATE TABLE t (`a``b` INT CONSTRAINT `mdl_range_x` CHECK (typeof(`a``b`) \
                   NOT IN ('integer', 'real') OR `a``b` BETWEEN 0 AND 255), `s` CHAR(2) \
                   CONSTRAINT `mdl_length_s` CHECK (substr(`s`, 3) IN ('', x'')))";
        assert_eq!(checked_column(sql, "mdl_range_x").as_deref(), Some("a`b"));
        assert_eq!(checked_column(sql, "mdl_length_s").as_deref(), Some("s"));
        assert_eq!(checked_column(sql, "mdl_length_x"), None);
        // As SQLite's RENAME COLUMN writes the new name.
        let renamed = "CREATE TABLE t (\"n\"\"ew\" INT CONSTRAINT `mdl_range_old` CHECK \
                       (typeof(\"n\"\"ew\") NOT IN ('integer', 'real') OR \"n\"\"ew\" BETWEEN 0 AND 9), \
                       e TEXT CONSTRAINT `mdl_enum_e` CHECK (e IN ('a')))";
        assert_eq!(
            checked_column(renamed, "mdl_range_old").as_deref(),
            Some("n\"ew")
        );
        assert_eq!(checked_column(renamed, "mdl_enum_e").as_deref(), Some("e"));
    }
}
