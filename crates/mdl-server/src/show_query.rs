//! `SHOW TABLE STATUS` and `SHOW OPEN TABLES`, answered as queries over tables this server
//! has, as MySQL 8.0 answers the first (`sql/dd/info_schema/show.cc`,
//! `build_show_tables_query`: the `SHOW` becomes a `SELECT` of the view's columns under the
//! `SHOW` column names, filtered by the schema and by the statement's `LIKE` or `WHERE`,
//! ordered by name). The text becomes that `SELECT` before it is parsed, so it takes the locks
//! and runs over the snapshot of any `information_schema` or `performance_schema` query
//! (`info_schema.rs`, `pfs_views.rs`); the process list still shows the `SHOW`. `sqlparser`
//! has neither statement, hence the text: its tokenizer splits it, so quotes and comments are
//! read as SQL.
//!
//! * `SHOW TABLE STATUS [{FROM | IN} db] [LIKE 'pattern' | WHERE expr]` reads
//!   `information_schema.TABLES`: without a schema, the current one (1046 without one).
//! * `SHOW OPEN TABLES [{FROM | IN} db] [LIKE 'pattern' | WHERE expr]`: MySQL lists the tables
//!   of its table cache with `In_use`, "the number of table locks or lock requests there are
//!   for the table" (its manual; `list_open_tables()` in `sql/sql_base.cc` counts the table's
//!   instances in use by statements) and `Name_locked`, always 0 in 8.0. This server has no
//!   table cache, and its table locks are metadata locks: a table is listed while it has one,
//!   granted or pending, and `In_use` counts them (`performance_schema.metadata_locks`' rows
//!   for the table). So `SHOW OPEN TABLES WHERE In_use > 0`, a DBA's first look at a pile-up,
//!   names the tables involved. Differs: a table without metadata locks is not listed (MySQL
//!   lists it with `In_use` 0 while it stays cached), and with the `metadata_locks` instrument
//!   off (or `pfs` compiled out) nothing is listed. Without a schema, every schema's tables.
//!
//! An unknown schema is 1049.

use sqlparser::dialect::MySqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::error::ServerError;

/// `SHOW TABLE STATUS`'s columns, from `information_schema.TABLES`'s (MySQL 8.0's order).
const COLUMNS: [(&str, &str); 18] = [
    ("TABLE_NAME", "Name"),
    ("ENGINE", "Engine"),
    ("VERSION", "Version"),
    ("ROW_FORMAT", "Row_format"),
    ("TABLE_ROWS", "Rows"),
    ("AVG_ROW_LENGTH", "Avg_row_length"),
    ("DATA_LENGTH", "Data_length"),
    ("MAX_DATA_LENGTH", "Max_data_length"),
    ("INDEX_LENGTH", "Index_length"),
    ("DATA_FREE", "Data_free"),
    ("AUTO_INCREMENT", "Auto_increment"),
    ("CREATE_TIME", "Create_time"),
    ("UPDATE_TIME", "Update_time"),
    ("CHECK_TIME", "Check_time"),
    ("TABLE_COLLATION", "Collation"),
    ("CHECKSUM", "Checksum"),
    ("CREATE_OPTIONS", "Create_options"),
    ("TABLE_COMMENT", "Comment"),
];

/// The `SHOW` statements of the module docs.
#[derive(Clone, Copy, PartialEq)]
enum Show {
    TableStatus,
    OpenTables,
}

/// The `SELECT` that answers `text` if it is one of the module docs' `SHOW`s (`None`
/// otherwise, at the cost of a look at its first word). `current`: the session's schema;
/// `has_schema`: whether the server has a schema (its name lowercase, as this server folds
/// names).
pub fn rewrite(
    text: &str,
    current: Option<&str>,
    has_schema: &dyn Fn(&str) -> bool,
) -> Option<Result<String, ServerError>> {
    let head = text.trim_start().get(..4)?;
    if !head.eq_ignore_ascii_case("SHOW") {
        return None;
    }
    let tokens = Tokenizer::new(&MySqlDialect {}, text).tokenize().ok()?;
    let mut rest = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .peekable();
    rest.next(); // SHOW
    let mut word = || match rest.next() {
        Some(Token::Word(w)) => w.keyword,
        _ => Keyword::NoKeyword,
    };
    let show = match (word(), word()) {
        (Keyword::TABLE, Keyword::STATUS) => Show::TableStatus,
        (Keyword::OPEN, Keyword::TABLES) => Show::OpenTables,
        _ => return None,
    };
    let schema = match rest.peek() {
        Some(Token::Word(w)) if matches!(w.keyword, Keyword::FROM | Keyword::IN) => {
            rest.next();
            match rest.next() {
                Some(Token::Word(db)) => Some(db.value.to_ascii_lowercase()),
                other => return Some(Err(near(other))),
            }
        }
        _ if show == Show::OpenTables => None,
        _ => match current {
            Some(c) => Some(c.to_ascii_lowercase()),
            None => return Some(Err(ServerError::new(1046, "3D000", "No database selected"))),
        },
    };
    if let Some(schema) = schema.as_deref().filter(|s| !has_schema(s)) {
        return Some(Err(ServerError::unknown_database(schema)));
    }
    let name = match show {
        Show::TableStatus => "Name",
        Show::OpenTables => "Table",
    };
    let filter = match rest.next() {
        None | Some(Token::SemiColon) => String::new(),
        Some(Token::Word(w)) if w.keyword == Keyword::LIKE => {
            format!("WHERE `{name}` LIKE {}", tail(&mut rest))
        }
        Some(Token::Word(w)) if w.keyword == Keyword::WHERE => {
            format!("WHERE {}", tail(&mut rest))
        }
        other => return Some(Err(near(other))),
    };
    let literal = |s: &str| format!("'{}'", s.replace('\'', "''"));
    Some(Ok(match show {
        Show::TableStatus => {
            let columns: Vec<String> = COLUMNS
                .iter()
                .map(|(from, to)| format!("{from} AS `{to}`"))
                .collect();
            format!(
                "SELECT * FROM (SELECT {} FROM information_schema.TABLES WHERE TABLE_SCHEMA = {}) \
                 AS show_table_status {filter} ORDER BY `Name`",
                columns.join(", "),
                literal(schema.as_deref().unwrap_or_default()),
            )
        }
        Show::OpenTables => {
            let in_schema = schema.map_or(String::new(), |s| {
                format!(" AND OBJECT_SCHEMA = {}", literal(&s))
            });
            format!(
                "SELECT * FROM (SELECT OBJECT_SCHEMA AS `Database`, OBJECT_NAME AS `Table`, \
                 COUNT(*) AS `In_use`, 0 AS `Name_locked` FROM performance_schema.metadata_locks \
                 WHERE OBJECT_TYPE = 'TABLE'{in_schema} GROUP BY OBJECT_SCHEMA, OBJECT_NAME) \
                 AS show_open_tables {filter} ORDER BY `Database`, `Table`"
            )
        }
    }))
}

/// The rest of the statement's tokens as text (a trailing `;` left out).
fn tail<'a>(rest: &mut impl Iterator<Item = &'a Token>) -> String {
    let words: Vec<String> = rest
        .filter(|t| !matches!(t, Token::SemiColon))
        .map(|t| t.to_string())
        .collect();
    words.join(" ")
}

/// 1064 near the token the statement went wrong at.
fn near(token: Option<&Token>) -> ServerError {
    ServerError::parse(&token.map_or(String::new(), |t| t.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<Result<String, ServerError>> {
        rewrite(text, Some("test"), &|s| s == "test" || s == "other")
    }

    #[test]
    fn other_statements_are_left_alone() {
        assert!(run("SELECT 1").is_none());
        assert!(run("SHOW TABLES").is_none());
        assert!(run("SHOW STATUS").is_none());
        assert!(run("sh").is_none());
    }

    #[test]
    fn the_forms_become_one_query() {
        let q = run("show table status").unwrap().unwrap();
        assert!(q.starts_with("SELECT * FROM (SELECT TABLE_NAME AS `Name`, ENGINE AS `Engine`"));
        assert!(q.ends_with("WHERE TABLE_SCHEMA = 'test') AS show_table_status  ORDER BY `Name`"));
        let q = run("SHOW TABLE STATUS FROM `Other` LIKE 'sb%';")
            .unwrap()
            .unwrap();
        assert!(
            q.ends_with(
                "TABLE_SCHEMA = 'other') AS show_table_status WHERE `Name` LIKE 'sb%' \
                 ORDER BY `Name`"
            ),
            "{q}"
        );
        let q = run("SHOW TABLE STATUS IN test WHERE Rows > 0")
            .unwrap()
            .unwrap();
        assert!(
            q.contains("AS show_table_status WHERE Rows > 0 ORDER BY"),
            "{q}"
        );
    }

    #[test]
    fn open_tables_count_the_metadata_locks() {
        let q = run("SHOW OPEN TABLES").unwrap().unwrap();
        assert!(q.contains("COUNT(*) AS `In_use`"), "{q}");
        assert!(
            q.contains("WHERE OBJECT_TYPE = 'TABLE' GROUP BY"),
            "every schema: {q}"
        );
        let q = run("show open tables in Test where In_use > 1")
            .unwrap()
            .unwrap();
        assert!(
            q.contains("WHERE OBJECT_TYPE = 'TABLE' AND OBJECT_SCHEMA = 'test' GROUP BY"),
            "{q}"
        );
        assert!(q.ends_with("AS show_open_tables WHERE In_use > 1 ORDER BY `Database`, `Table`"));
        let q = run("SHOW OPEN TABLES LIKE 'sb%'").unwrap().unwrap();
        assert!(q.contains("WHERE `Table` LIKE 'sb%'"), "{q}");
        assert!(run("SHOW OPEN").is_none());
        assert_eq!(
            run("SHOW OPEN TABLES FROM nosuch")
                .unwrap()
                .unwrap_err()
                .code,
            1049
        );
    }

    #[test]
    fn mistakes_get_mysql_errors() {
        let code = |r: Option<Result<String, ServerError>>| r.unwrap().unwrap_err().code;
        assert_eq!(code(run("SHOW TABLE STATUS FROM nosuch")), 1049);
        assert_eq!(code(run("SHOW TABLE STATUS FROM")), 1064);
        assert_eq!(code(run("SHOW TABLE STATUS LIMIT 1")), 1064);
        let none = rewrite("SHOW TABLE STATUS", None, &|_| true);
        assert_eq!(none.unwrap().unwrap_err().code, 1046);
    }
}
