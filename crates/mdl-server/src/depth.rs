//! How deep a statement may nest: deeper ones are refused with 1436 before anything walks
//! them.
//!
//! sqlparser builds `1+1+...+1`, `a OR b OR ...` and `SELECT .. UNION SELECT ..` chains as
//! left-deep trees (its parser loops over them, so its recursion limit does not see them).
//! Its `Display` and visitors grow their stack on the heap, but `Clone` and `Drop` recurse
//! on the thread's stack, about 1.1 KiB (clone, release build) to 6 KiB (debug) per level:
//! a `SELECT` of 1,900 terms overflowed a 2 MiB stack in the statement's digest and aborted
//! the server. So:
//!
//! 1. **After parsing**, a statement whose expressions nest deeper than [`MAX_DEPTH`] levels
//!    (each expression one level, each set operation of a query one more) is refused. 1,000 is
//!    SQLite's own limit (`SQLITE_MAX_EXPR_DEPTH`): the engine would refuse a deeper
//!    expression anyway (with 1105). The check walks the tree with sqlparser's visitor, which
//!    stops at the limit, and a query's chain of set operations without recursion.
//! 2. **Before parsing**, a statement longer than [`SCAN_LIMIT`] bytes is tokenized and
//!    refused when its tokens could nest deeper than [`SCAN_LIMIT`] levels: sqlparser drops a
//!    partly built tree when a statement fails to parse, and a tree dropped after 1. is as
//!    deep as the text made it, so what the parser builds must be bounded too. The bound
//!    follows the tokens: a chain lies within one comma-separated run of tokens at one
//!    parenthesis level (set operations excepted, counted per level), and every level of
//!    nesting costs at least one token (a statement of n bytes nests at most n levels, hence
//!    no scan below the limit).
//!
//! MySQL answers a statement too deep for its thread's stack with `ER_STACK_OVERRUN_NEED_MORE`
//! (1436) and stays up; so does this server. The connection's thread has room for both
//! bounds ([`crate::server::CONNECTION_STACK`]).

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, Query, SetExpr, Statement, Visit, Visitor};
use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::error::ServerError;

/// How deep a parsed statement may nest (SQLite's `SQLITE_MAX_EXPR_DEPTH`).
pub const MAX_DEPTH: usize = 1000;

/// How deep the tokens of a statement may nest before it is parsed.
pub const SCAN_LIMIT: usize = 10_000;

/// Refuses a statement whose text could parse into a tree deeper than [`SCAN_LIMIT`].
///
/// # Errors
/// 1436; 1064 for text that does not tokenize.
pub fn check_text(sql: &str) -> Result<(), ServerError> {
    if sql.len() <= SCAN_LIMIT {
        return Ok(());
    }
    let tokens = Tokenizer::new(&MySqlDialect {}, sql)
        .tokenize()
        .map_err(|e| ServerError::parse(&e.message))?;
    match token_depth(&tokens, SCAN_LIMIT) {
        d if d > SCAN_LIMIT => Err(ServerError::stack_overrun(&format!(
            "the statement could nest more than {SCAN_LIMIT} levels deep (its terms in a row \
             without a comma, or its parentheses)"
        ))),
        _ => Ok(()),
    }
}

/// Refuses a parsed statement that nests deeper than [`MAX_DEPTH`]; `len` is its text's
/// length (a statement no longer than the limit cannot be deeper).
///
/// # Errors
/// 1436.
pub fn check_statement(s: &Statement, len: usize) -> Result<(), ServerError> {
    if len <= MAX_DEPTH {
        return Ok(());
    }
    let mut d = Depth::default();
    match s.visit(&mut d) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(ServerError::stack_overrun(&format!(
            "the statement nests more than {MAX_DEPTH} levels deep, this server's limit (and \
             SQLite's)"
        ))),
    }
}

/// The nesting of the tree being walked, stopped past [`MAX_DEPTH`].
#[derive(Default)]
struct Depth {
    level: usize,
    /// The set-operation levels each open query added.
    queries: Vec<usize>,
}

impl Depth {
    fn enter(&mut self, levels: usize) -> ControlFlow<()> {
        self.level += levels;
        if self.level > MAX_DEPTH {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

impl Visitor for Depth {
    type Break = ();

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        let levels = set_operation_depth(&q.body);
        self.queries.push(levels);
        self.enter(levels)
    }

    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.level -= self.queries.pop().unwrap_or(0);
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, _: &Expr) -> ControlFlow<()> {
        self.enter(1)
    }

    fn post_visit_expr(&mut self, _: &Expr) -> ControlFlow<()> {
        self.level -= 1;
        ControlFlow::Continue(())
    }
}

/// How deep the set operations of a query's body nest, found without recursion.
fn set_operation_depth(body: &SetExpr) -> usize {
    let mut deepest = 0;
    let mut todo = vec![(body, 0)];
    while let Some((e, d)) = todo.pop() {
        if let SetExpr::SetOperation { left, right, .. } = e {
            deepest = deepest.max(d + 1);
            todo.push((left, d + 1));
            todo.push((right, d + 1));
        }
    }
    deepest
}

/// One parenthesis level of [`token_depth`]'s walk.
#[derive(Default)]
struct Level {
    /// Tokens of the current comma-separated run.
    run: usize,
    /// The deepest parenthesized group in the current run.
    inner: usize,
    /// The deepest finished run.
    deepest: usize,
    /// Set operators at this level (a chain of them crosses commas).
    set_operations: usize,
}

impl Level {
    fn end_run(&mut self) {
        self.deepest = self.deepest.max(self.run + self.inner);
        self.run = 0;
        self.inner = 0;
    }

    fn depth(mut self) -> usize {
        self.end_run();
        self.deepest + self.set_operations
    }
}

/// A bound on the depth of any tree parsed from `tokens` (see the module docs), exact up
/// to `limit`: past it the walk stops.
fn token_depth(tokens: &[Token], limit: usize) -> usize {
    let mut levels = vec![Level::default()];
    let mut deepest = 0;
    // The runs and set operators of the open levels: the depth is at least that.
    let mut open = 0;
    // Closes the innermost level into its parent.
    let close = |levels: &mut Vec<Level>, open: &mut usize| {
        if levels.len() > 1 {
            let level = levels.pop().unwrap_or_default();
            *open -= level.run + level.set_operations;
            let inner = level.depth() + 1;
            if let Some(parent) = levels.last_mut() {
                parent.inner = parent.inner.max(inner);
            }
        }
    };
    for t in tokens {
        let level = match t {
            Token::Whitespace(_) => continue,
            Token::LParen | Token::LBracket | Token::LBrace => {
                levels.push(Level::default());
                if levels.len() > limit {
                    return limit + 1;
                }
                continue;
            }
            Token::RParen | Token::RBracket | Token::RBrace => {
                close(&mut levels, &mut open);
                continue;
            }
            Token::SemiColon => {
                while levels.len() > 1 {
                    close(&mut levels, &mut open);
                }
                deepest = deepest.max(std::mem::take(&mut levels[0]).depth());
                open = 0;
                continue;
            }
            _ => levels.last_mut().expect("level 0 stays"),
        };
        if *t == Token::Comma {
            open -= level.run;
            level.end_run();
            continue;
        }
        level.run += 1;
        open += 1;
        if let Token::Word(w) = t {
            if w.quote_style.is_none()
                && ["UNION", "EXCEPT", "INTERSECT", "MINUS"]
                    .iter()
                    .any(|k| w.value.eq_ignore_ascii_case(k))
            {
                level.set_operations += 1;
                open += 1;
            }
        }
        if open > limit {
            return limit + 1;
        }
    }
    while levels.len() > 1 {
        close(&mut levels, &mut open);
    }
    deepest.max(levels.pop().map_or(0, Level::depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(sql: &str) -> usize {
        let tokens = Tokenizer::new(&MySqlDialect {}, sql).tokenize().unwrap();
        token_depth(&tokens, 100)
    }

    #[test]
    fn runs_commas_parentheses_and_set_operations() {
        assert_eq!(depth("SELECT 1+1+1"), 6);
        // A comma ends a run; a group counts its own depth plus one.
        assert_eq!(depth("SELECT a, b+c, d"), 3);
        assert_eq!(depth("SELECT f(a, b+c+d)"), 2 + 1 + 5);
        // A chain of set operations crosses commas.
        assert_eq!(depth("SELECT a, b UNION SELECT c, d UNION SELECT e"), 4 + 2);
        // Strings and comments are one token or none; statements are apart.
        assert_eq!(depth("SELECT ',,,(((' /* ,,,( */ ; SELECT 1"), 2);
        assert_eq!(
            depth(&format!("SELECT {}1{}", "(".repeat(50), ")".repeat(50))),
            52
        );
        assert_eq!(depth(&format!("SELECT 1{}", "+1".repeat(200))), 101);
        assert_eq!(depth(&"(".repeat(200)), 101);
    }

    #[test]
    fn set_operations_nest_without_recursion() {
        let sql = format!("SELECT 1{}", " UNION SELECT 1".repeat(3000));
        let parsed = mdl_sql::parse(&sql).unwrap();
        let mdl_sql::Statement::Sql { statement, .. } = &parsed[0].statement else {
            panic!("not sql")
        };
        let Statement::Query(q) = &**statement else {
            panic!("not a query")
        };
        assert_eq!(set_operation_depth(&q.body), 3000);
        assert!(check_statement(statement, sql.len()).is_err());
    }
}
