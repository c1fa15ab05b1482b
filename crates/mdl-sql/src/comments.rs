//! MySQL's versioned comments, resolved before sqlparser sees the text.
//!
//! MySQL executes the content of `/*! ... */` and of `/*!NNNNN ... */` when the five digits
//! are a version not above its own, and drops the comment otherwise (`sql/sql_lex.cc`,
//! `lex_one_token`, the `/*!` branch of the comment state: "followed by exactly 1 digit
//! (major), 2 digits (minor), then 2 digits (dot)"; a later version's comment is skipped with
//! one level of nested comment allowed inside; an unclosed comment is a syntax error).
//! sysbench relies on it: `CREATE TABLE sbtest1 (...) /*! ENGINE = innodb */`.
//!
//! sqlparser's MySQL tokenizer expands every `/*!` comment whatever its version, so this pass
//! decides first, as MySQL [`MYSQL_VERSION_ID`] would: an executed comment loses its markers
//! (`/*!NNNNN` and `*/` become spaces), a skipped one becomes spaces (its newlines kept, so
//! line numbers in errors stay right). Strings, quoted identifiers and ordinary comments are
//! copied untouched.

use crate::error::SqlError;

/// The server version versioned comments are compared with: MySQL 8.0.45, whose sources the
/// rules of this crate were checked against.
pub const MYSQL_VERSION_ID: u32 = 80045;

/// `sql` with its versioned comments resolved for [`MYSQL_VERSION_ID`].
pub(crate) fn resolve_versioned_comments(sql: &str) -> Result<String, SqlError> {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    let mut in_versioned = false;
    // Copies b[from..to] (always on char boundaries: every split is at an ASCII byte).
    let copy = |out: &mut String, from: usize, to: usize| out.push_str(&sql[from..to]);
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => {
                let end = quoted_end(b, i, q);
                copy(&mut out, i, end);
                i = end;
            }
            b'#' => {
                let end = line_end(b, i);
                copy(&mut out, i, end);
                i = end;
            }
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2)
                    .is_none_or(|c| c.is_ascii_whitespace() || c.is_ascii_control()) =>
            {
                let end = line_end(b, i);
                copy(&mut out, i, end);
                i = end;
            }
            b'*' if in_versioned && b.get(i + 1) == Some(&b'/') => {
                out.push_str("  ");
                in_versioned = false;
                i += 2;
            }
            b'/' if b.get(i + 1) == Some(&b'*') && b.get(i + 2) == Some(&b'!') && !in_versioned => {
                let digits = b[i + 3..].iter().take(5).take_while(|c| c.is_ascii_digit());
                let version = if digits.count() == 5 {
                    std::str::from_utf8(&b[i + 3..i + 8])
                        .ok()
                        .and_then(|s| s.parse::<u32>().ok())
                } else {
                    None
                };
                match version {
                    Some(v) if v > MYSQL_VERSION_ID => {
                        let end = skipped_comment_end(b, i + 8).ok_or_else(|| unclosed(sql, i))?;
                        blank(&mut out, &sql[i..end]);
                        i = end;
                    }
                    Some(_) => {
                        out.push_str("        ");
                        in_versioned = true;
                        i += 8;
                    }
                    None => {
                        out.push_str("   ");
                        in_versioned = true;
                        i += 3;
                    }
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = find_close(b, i + 2).ok_or_else(|| unclosed(sql, i))?;
                if b.get(i + 2) == Some(&b'!') {
                    // A versioned comment inside an executed one is an ordinary comment.
                    blank(&mut out, &sql[i..end]);
                } else {
                    copy(&mut out, i, end);
                }
                i = end;
            }
            _ => {
                let ch = sql[i..].chars().next().unwrap_or(' ');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    if in_versioned {
        return Err(SqlError::parse("", line_of(sql, sql.len())));
    }
    Ok(out)
}

/// The end of a quoted string or identifier starting at `start` (past the closing quote, or
/// the end of the text: sqlparser reports the unterminated literal).
fn quoted_end(b: &[u8], start: usize, q: u8) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        if b[i] == b'\\' && q != b'`' {
            i += 2;
        } else if b[i] == q {
            if b.get(i + 1) == Some(&q) {
                i += 2;
            } else {
                return i + 1;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

fn line_end(b: &[u8], start: usize) -> usize {
    b[start..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| start + p)
}

/// Past the `*/` closing a comment whose body starts at `from`.
fn find_close(b: &[u8], from: usize) -> Option<usize> {
    b.get(from..)?
        .windows(2)
        .position(|w| w == b"*/")
        .map(|p| from + p + 2)
}

/// Past the end of a skipped versioned comment: one nested `/* ... */` is allowed inside
/// (`consume_comment(lip, 1)` in MySQL's lexer).
fn skipped_comment_end(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    let mut nested = 0;
    while i + 1 < b.len() {
        match (b[i], b[i + 1]) {
            (b'/', b'*') if nested == 0 => {
                nested = 1;
                i += 2;
            }
            (b'*', b'/') if nested == 1 => {
                nested = 0;
                i += 2;
            }
            (b'*', b'/') => return Some(i + 2),
            _ => i += 1,
        }
    }
    None
}

/// Spaces in place of `text`, keeping its newlines.
fn blank(out: &mut String, text: &str) {
    out.extend(text.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
}

fn line_of(sql: &str, at: usize) -> u64 {
    1 + sql[..at].bytes().filter(|&c| c == b'\n').count() as u64
}

fn unclosed(sql: &str, at: usize) -> SqlError {
    SqlError::parse(&sql[at..], line_of(sql, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        resolve_versioned_comments(s).unwrap()
    }

    /// sql/sql_lex.cc, `lex_one_token`: `/*!` with no version and with a version not above
    /// ours is executed; a later version's comment is dropped.
    #[test]
    fn versions() {
        assert_eq!(
            r("a /*! ENGINE = innodb */")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["a", "ENGINE", "=", "innodb"]
        );
        assert_eq!(
            r("a /*!50100 X=1 */ b")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["a", "X=1", "b"]
        );
        assert_eq!(r("a /*!80045 Y */").trim(), "a          Y".trim());
        assert_eq!(
            r("a /*!80046 Z */ b")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(
            r("a /*!90000 Z /* n */ z */ b")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        // Fewer than five digits: not a version, the digits are content.
        assert_eq!(r("/*!1 */").trim(), "1");
    }

    #[test]
    fn strings_and_comments_are_copied() {
        let s = "SELECT '/*!90000 x */', `/*!`, \"a\\\"/*!\" -- /*! c\n# /*!\n/* plain */ 1";
        assert_eq!(r(s), s);
    }

    #[test]
    fn unclosed_comments_are_parse_errors() {
        for s in ["SELECT 1 /*! x", "SELECT /*!90000 x", "SELECT /* x"] {
            assert_eq!(
                resolve_versioned_comments(s).unwrap_err().code(),
                1064,
                "{s}"
            );
        }
    }

    #[test]
    fn newlines_survive_a_skipped_comment() {
        assert_eq!(r("/*!90000 a\nb */x"), "          \n    x");
    }
}
