//! `SHOW [COUNT(*)] {WARNINGS | ERRORS} [LIMIT [offset,] row_count]`: what it asks for, read
//! from its text, and its answer from the session's diagnostics area (the parent module),
//! which it leaves as it was, as in MySQL (`mysqld_show_warnings` in `sql/sql_error.cc`).

use sqlparser::ast::Statement;

use super::Area;
use crate::error::ServerError;
use crate::wire::{Output, ResultSet};

/// What `SHOW [COUNT(*)] {WARNINGS | ERRORS} [LIMIT [offset,] row_count]` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Diagnostics {
    /// `SHOW COUNT(*) ...`: how many, not which.
    count: bool,
    /// `ERRORS` (errors only) rather than `WARNINGS` (every level).
    errors: bool,
    /// `LIMIT`'s offset.
    offset: u64,
    /// `LIMIT`'s row count (every row without `LIMIT`).
    rows: u64,
}

/// Whether `s` is a well-formed `SHOW [COUNT(*)] {WARNINGS | ERRORS} [LIMIT ...]` (see
/// [`diagnostics`]), which leaves the previous statement's conditions as they were.
pub fn is_show_diagnostics(s: &Statement, text: &str) -> bool {
    matches!(diagnostics(s, text), Some(Ok(_)))
}

/// `Some` if `s` (whose text is `text`) is `SHOW [COUNT(*)] {WARNINGS | ERRORS} [LIMIT
/// [offset,] row_count | LIMIT row_count OFFSET offset]`, as MySQL's grammar has them
/// (`sql/sql_yacc.yy`: `opt_limit_clause` after `WARNINGS` or `ERRORS`, none after
/// `COUNT(*)`). `sqlparser` keeps only the words of a
/// `SHOW` (`SHOW COUNT(*) WARNINGS` is `SHOW COUNT WARNINGS`, `SHOW WARNINGS LIMIT 1, 2` is
/// `SHOW WARNINGS LIMIT`): those tell the statement, its text what it asks.
///
/// # Errors
/// 1064 near what MySQL's grammar refuses there (`SHOW WARNINGS LIMIT 'a'`, `SHOW COUNT(1)
/// ERRORS`).
pub fn diagnostics(s: &Statement, text: &str) -> Option<Result<Diagnostics, ServerError>> {
    let Statement::ShowVariable { variable } = s else {
        return None;
    };
    let is = |i: usize, w: &str| {
        variable
            .get(i)
            .is_some_and(|v| v.value.eq_ignore_ascii_case(w))
    };
    let which = |i: usize| is(i, "WARNINGS") || is(i, "ERRORS");
    if !(which(0) || (is(0, "COUNT") && which(1))) {
        return None;
    }
    Some(diagnostics_of(text))
}

/// [`diagnostics`]' reading of the text.
fn diagnostics_of(text: &str) -> Result<Diagnostics, ServerError> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let all = Tokenizer::new(&sqlparser::dialect::MySqlDialect {}, text)
        .tokenize()
        .map_err(|_| ServerError::parse(text))?;
    // Indexes of the tokens that are not space or comments (nor the ending `;`).
    let at: Vec<usize> = (0..all.len())
        .filter(|&i| !matches!(all[i], Token::Whitespace(_) | Token::SemiColon))
        .collect();
    let mut i = 1; // after SHOW
    let token = |i: usize| at.get(i).map(|&j| &all[j]);
    let word = |i: usize, w: &str| match token(i) {
        Some(Token::Word(x)) => x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w),
        _ => false,
    };
    // 1064 near the statement's rest from the `i`th token, as MySQL quotes it.
    let near = |i: usize| {
        let from = at.get(i).copied().unwrap_or(all.len());
        ServerError::parse(
            &all[from..]
                .iter()
                .map(|t| t.to_string())
                .collect::<String>(),
        )
    };
    let number = |i: usize| match token(i) {
        Some(Token::Number(n, false)) if n.bytes().all(|b| b.is_ascii_digit()) => {
            n.parse::<u64>().map_err(|_| near(i))
        }
        _ => Err(near(i)),
    };
    let count = word(i, "COUNT");
    if count {
        let star = [Token::LParen, Token::Mul, Token::RParen];
        for (k, t) in star.iter().enumerate() {
            if token(i + 1 + k) != Some(t) {
                return Err(near(i + 1 + k));
            }
        }
        i += 4;
    }
    let errors = word(i, "ERRORS");
    if !errors && !word(i, "WARNINGS") {
        return Err(near(i));
    }
    i += 1;
    let (mut offset, mut rows) = (0, u64::MAX);
    if !count && word(i, "LIMIT") {
        rows = number(i + 1)?;
        i += 2;
        if token(i) == Some(&Token::Comma) {
            (offset, rows) = (rows, number(i + 1)?);
            i += 2;
        } else if word(i, "OFFSET") {
            offset = number(i + 1)?;
            i += 2;
        }
    }
    if i < at.len() {
        return Err(near(i));
    }
    Ok(Diagnostics {
        count,
        errors,
        offset,
        rows,
    })
}

impl Area {
    /// `SHOW WARNINGS` / `SHOW ERRORS`: MySQL's columns, the conditions listed (errors only for
    /// `ERRORS`), within `LIMIT` (`mysqld_show_warnings` skips the offset's conditions of the
    /// levels shown, then stops after the row count). `SHOW COUNT(*) ...`: how many were
    /// raised, under MySQL's column name (`@@session.warning_count` counts every level).
    pub fn show(&self, d: Diagnostics) -> Output {
        if d.count {
            let name = match d.errors {
                true => "@@session.error_count",
                false => "@@session.warning_count",
            };
            let count = Some(self.count(d.errors).to_string());
            return Output::Rows(ResultSet::text(&[name], vec![vec![count]]));
        }
        let limit = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let rows = (self.conditions(d.errors))
            .skip(limit(d.offset))
            .take(limit(d.rows))
            .map(|c| {
                vec![
                    Some(c.level.name().to_string()),
                    Some(c.code.to_string()),
                    Some(c.message.clone()),
                ]
            })
            .collect();
        Output::Rows(ResultSet::text(&["Level", "Code", "Message"], rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Condition;

    /// [`diagnostics`] of `text`, parsed as the server parses it.
    fn shown(text: &str) -> Option<Result<Diagnostics, u16>> {
        let dialect = sqlparser::dialect::MySqlDialect {};
        let s = sqlparser::parser::Parser::parse_sql(&dialect, text).expect("parses");
        diagnostics(&s[0], text).map(|r| r.map_err(|e| e.code))
    }

    #[test]
    fn diagnostics_read_limit_from_the_text() {
        let d = |count, errors, offset, rows| {
            Some(Ok(Diagnostics {
                count,
                errors,
                offset,
                rows,
            }))
        };
        assert_eq!(shown("SHOW WARNINGS"), d(false, false, 0, u64::MAX));
        assert_eq!(shown("show errors limit 2;"), d(false, true, 0, 2));
        assert_eq!(shown("SHOW WARNINGS LIMIT 1, 3"), d(false, false, 1, 3));
        assert_eq!(
            shown("SHOW WARNINGS /* x */ LIMIT 3 OFFSET 1"),
            d(false, false, 1, 3)
        );
        assert_eq!(shown("SHOW COUNT(*) ERRORS"), d(true, true, 0, u64::MAX));
        for bad in [
            "SHOW WARNINGS LIMIT",
            "SHOW WARNINGS LIMIT 'a'",
            "SHOW WARNINGS LIMIT 1.5",
            "SHOW WARNINGS LIMIT 1,",
            "SHOW WARNINGS LIMIT 99999999999999999999",
            "SHOW ERRORS LIMIT 1 2",
            "SHOW COUNT(1) WARNINGS",
            "SHOW COUNT(*) WARNINGS LIMIT 1",
        ] {
            assert_eq!(shown(bad), Some(Err(1064)), "{bad}");
        }
        assert_eq!(shown("SHOW VARIABLES"), None);
        assert_eq!(shown("SHOW PROFILES"), None);
    }

    #[test]
    fn diagnostics_within_limit() {
        let mut v = Area::default();
        let rows = |v: &Area, text: &str| {
            let dialect = sqlparser::dialect::MySqlDialect {};
            let s = sqlparser::parser::Parser::parse_sql(&dialect, text).unwrap();
            match v.show(diagnostics(&s[0], text).unwrap().unwrap()) {
                Output::Rows(r) => r.rows.len(),
                _ => panic!("rows"),
            }
        };
        v.error(&ServerError::parse("x"));
        v.raise(Condition::division_by_zero());
        assert_eq!(rows(&v, "SHOW WARNINGS"), 2);
        assert_eq!(rows(&v, "SHOW ERRORS"), 1);
        assert_eq!(rows(&v, "SHOW ERRORS LIMIT 1"), 1);
        assert_eq!(rows(&v, "SHOW WARNINGS LIMIT 0"), 0);
        assert_eq!(rows(&v, "SHOW WARNINGS LIMIT 1, 1"), 1);
        assert_eq!(rows(&v, "SHOW ERRORS LIMIT 1, 1"), 0);
        assert_eq!(rows(&v, "SHOW COUNT(*) WARNINGS"), 1);
    }
}
