//! `SHOW TABLE STATUS`, answered as MySQL 8.0 answers it: as a query over
//! `information_schema.TABLES` (`sql/dd/info_schema/show.cc`, `build_show_tables_query`: the
//! `SHOW` becomes a `SELECT` of the view's columns under the `SHOW` column names, filtered by
//! the schema and by the statement's `LIKE` or `WHERE`, ordered by name). The text becomes that
//! `SELECT` before it is parsed, so it takes the locks and runs over the catalog snapshot of
//! any `information_schema` query (`info_schema.rs`); the process list still shows the `SHOW`.
//!
//! `SHOW TABLE STATUS [{FROM | IN} db] [LIKE 'pattern' | WHERE expr]`: without a schema, the
//! current one (1046 without one); an unknown schema is 1049. `sqlparser` has no such
//! statement, hence the text: its tokenizer splits it, so quotes and comments are read as SQL.

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

/// The `SELECT` that answers `text` if it is a `SHOW TABLE STATUS` (`None` otherwise, at the
/// cost of a look at its first word). `current`: the session's schema; `has_schema`: whether
/// the server has a schema (its name lowercase, as this server folds names).
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
    for kw in [Keyword::SHOW, Keyword::TABLE, Keyword::STATUS] {
        match rest.next() {
            Some(Token::Word(w)) if w.keyword == kw => {}
            _ => return None,
        }
    }
    let schema = match rest.peek() {
        Some(Token::Word(w)) if matches!(w.keyword, Keyword::FROM | Keyword::IN) => {
            rest.next();
            match rest.next() {
                Some(Token::Word(db)) => db.value.clone(),
                other => return Some(Err(near(other))),
            }
        }
        _ => match current {
            Some(c) => c.to_string(),
            None => return Some(Err(ServerError::new(1046, "3D000", "No database selected"))),
        },
    }
    .to_ascii_lowercase();
    if !has_schema(&schema) {
        return Some(Err(ServerError::unknown_database(&schema)));
    }
    let filter = match rest.next() {
        None | Some(Token::SemiColon) => String::new(),
        Some(Token::Word(w)) if w.keyword == Keyword::LIKE => {
            format!("WHERE `Name` LIKE {}", tail(&mut rest))
        }
        Some(Token::Word(w)) if w.keyword == Keyword::WHERE => {
            format!("WHERE {}", tail(&mut rest))
        }
        other => return Some(Err(near(other))),
    };
    let columns: Vec<String> = COLUMNS
        .iter()
        .map(|(from, to)| format!("{from} AS `{to}`"))
        .collect();
    Some(Ok(format!(
        "SELECT * FROM (SELECT {} FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{}') \
         AS show_table_status {filter} ORDER BY `Name`",
        columns.join(", "),
        schema.replace('\'', "''"),
    )))
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
    fn mistakes_get_mysql_errors() {
        let code = |r: Option<Result<String, ServerError>>| r.unwrap().unwrap_err().code;
        assert_eq!(code(run("SHOW TABLE STATUS FROM nosuch")), 1049);
        assert_eq!(code(run("SHOW TABLE STATUS FROM")), 1064);
        assert_eq!(code(run("SHOW TABLE STATUS LIMIT 1")), 1064);
        let none = rewrite("SHOW TABLE STATUS", None, &|_| true);
        assert_eq!(none.unwrap().unwrap_err().code, 1046);
    }
}
