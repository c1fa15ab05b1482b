//! A text of several statements cut into them (a multi-statement query: [`split`]).

use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer};

use crate::comments::resolve_versioned_comments;
use crate::parse::LineIndex;

/// The statements of a text that may hold several (a `COM_QUERY` of a client that set
/// `CLIENT_MULTI_STATEMENTS`), as slices of it: split at each `;` outside strings, quoted
/// names and comments, as MySQL's lexer ends a statement where it finds one
/// (`Lex_input_stream::found_semicolon`, `sql/sql_lex.cc`), without the whitespace and plain
/// comments around them; an executed versioned comment is its content (`/*!40101 SET NAMES
/// utf8mb4 */` is `SET NAMES utf8mb4`). A piece of whitespace and comments only is no
/// statement. A text the tokenizer refuses (an unterminated string) is one piece: its parse
/// reports the error.
///
/// ```
/// assert_eq!(mdl_sql::split("SELECT ';'; SELECT 2;\n"), ["SELECT ';'", "SELECT 2"]);
/// assert_eq!(mdl_sql::split("SELECT 1"), ["SELECT 1"]);
/// ```
pub fn split(sql: &str) -> Vec<&str> {
    if !sql.contains(';') {
        return vec![sql];
    }
    // sqlparser expands versioned comments itself, with spans that do not match the text:
    // the resolved text is tokenized, whose bytes are where the text's are (markers and
    // skipped comments become as many spaces).
    let resolved = match resolve_versioned_comments(sql) {
        Ok(r) if r.len() == sql.len() => r,
        _ => return vec![sql],
    };
    let Ok(tokens) = Tokenizer::new(&MySqlDialect {}, &resolved).tokenize_with_location() else {
        return vec![sql];
    };
    let lines = LineIndex::new(&resolved);
    let mut out = Vec::new();
    let mut piece: Option<(Location, Location)> = None;
    for t in tokens
        .iter()
        .chain([&TokenWithSpan::wrap(Token::SemiColon)])
    {
        match &t.token {
            Token::SemiColon => {
                if let Some((from, to)) = piece.take() {
                    let (from, to) = (lines.offset(&resolved, from), lines.offset(&resolved, to));
                    match sql.get(from..closed(sql, from, to)) {
                        Some(text) => out.push(text),
                        None => return vec![sql],
                    }
                }
            }
            Token::Whitespace(_) | Token::EOF => {}
            _ => piece = Some((piece.map_or(t.span.start, |p| p.0), t.span.end)),
        }
    }
    if out.is_empty() {
        out.push(sql);
    }
    out
}

/// The end of the piece `sql[from..to]`: `to`, or past the `*/` of a versioned comment the
/// piece opens and its last token ends inside (`CREATE DATABASE d /*!80016 DEFAULT
/// ENCRYPTION='N' */;`, as `SHOW CREATE DATABASE` prints it), so that the piece parses alone.
fn closed(sql: &str, from: usize, to: usize) -> usize {
    let Some(piece) = sql.get(from..to) else {
        return to;
    };
    if !piece.contains("/*!") || resolve_versioned_comments(piece).is_ok() {
        return to;
    }
    match sql.get(to..).and_then(|rest| rest.find("*/")) {
        Some(at) if sql[to..to + at].trim().is_empty() => to + at + 2,
        _ => to,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_cuts_at_semicolons_outside_strings_names_and_comments() {
        let cases: [(&str, &[&str]); 10] = [
            ("SELECT 1", &["SELECT 1"]),
            ("  SELECT 1  ;  ", &["SELECT 1"]),
            ("SELECT 1; SELECT 2", &["SELECT 1", "SELECT 2"]),
            (
                "SELECT ';', \"a;b\", `c;d`; SELECT 'it''s;', 'x\\';'",
                &["SELECT ';', \"a;b\", `c;d`", "SELECT 'it''s;', 'x\\';'"],
            ),
            (
                "SELECT 1 # a; b\n; -- c; d\nSELECT 2 /* ; */",
                &["SELECT 1", "SELECT 2"],
            ),
            (
                "/*!40101 SET NAMES utf8mb4 */;\nSELECT 1 /*!99999 ; SELECT 3 */;",
                &["SET NAMES utf8mb4", "SELECT 1"],
            ),
            ("SELECT 1;;SELECT 2", &["SELECT 1", "SELECT 2"]),
            (
                "CREATE DATABASE d /*!40100 COLLATE x */ /*!80016 ENCRYPTION='N' */; DROP DATABASE d",
                &["CREATE DATABASE d /*!40100 COLLATE x */ /*!80016 ENCRYPTION='N' */", "DROP DATABASE d"],
            ),
            ("SELECT 'open; SELECT 2", &["SELECT 'open; SELECT 2"]),
            (" ; /* c */ ;", &[" ; /* c */ ;"]),
        ];
        for (text, want) in cases {
            assert_eq!(split(text), want, "{text}");
        }
    }
}
