//! The names of result columns without an alias, as MySQL 8.0 gives them.
//!
//! MySQL names a select item without an alias by the text the client wrote for it: the rule
//! `select_item: expr select_alias` (`sql/sql_yacc.yy`) hands the item's source range (`@1.cpp`,
//! the lexer's preprocessed text) to `PTI_expr_with_alias::itemize`
//! (`sql/parse_tree_items.cc`), which copies it into the item's name unless the item already
//! has one of its own. So `SELECT v+1, CONCAT(name,'x'), (v+1)` has the columns `v+1`,
//! `CONCAT(name,'x')` and `(v+1)`: from the item's first token to its last, verbatim in between
//! (spacing, newlines, comments, keyword case). The items that name themselves:
//!
//! * a column reference: its column as spelled (`t.ID` is `ID`; `Item_ident`);
//! * a string literal: its value (`Item_string::init` copies it into `item_name`), of the
//!   first of adjacent strings (`'x' 'y'` is `x`); `''` is an empty name;
//! * `NULL`, however spelled (`Item_null`'s constructor: `NAME_STRING("NULL")`);
//! * a number: its token as typed (`Item_int::init` and kin), never cut;
//! * a `?` placeholder of a prepared statement: `?` (`Item_param`);
//! * `( x )` and unary `+x` are `x` itself to MySQL's parser (`simple_expr: '(' expr ')'
//!   { $$= $2; }`, `'+' simple_expr { $$= $2; }`), so they have `x`'s own name if it has one:
//!   `(1)` is `1`, `(t.id)` is `id`, but `(v+1)` is `(v+1)`.
//!
//! A name from text or a string's value then goes through `Name_string::copy` (`sql/item.cc`):
//! its leading non-graphic bytes (ASCII whitespace and controls) go, it is converted to
//! utf8mb3 (a character outside the BMP becomes `?`) and cut to `MAX_ALIAS_NAME` (256) bytes
//! with its terminating NUL (`sql_strmake_with_convert`): 255 bytes, on a character boundary,
//! from a utf8mb4 client. The protocol sends it up to a NUL byte (a C string).
//!
//! The text is the statement's after its `/*! */` comments were resolved (`mdl_sql::Parsed`),
//! where sqlparser's spans point; MySQL's preprocessed text drops the markers where this one
//! has spaces (`1 /*!+ 2*/` is `1    + 2` here, `1 + 2` in MySQL).
//!
//! sqlparser's spans are partial (a call may end before its `)`, `(x)` may miss its
//! parentheses, `-x` its `-`), so only an item's first token is taken from them: the item
//! extends back from it over what cannot precede an item (up to its `SELECT`, a modifier or
//! a comma), and forward over its tokens at parenthesis depth 0 to a comma, a closing
//! parenthesis, a clause keyword or the end. The text found must parse back to the same
//! expression; otherwise (or without spans) the name is sqlparser's rendering, as before.

use std::cell::OnceCell;

use sqlparser::ast::{Expr, Ident, SelectItem, SetExpr, Spanned, Statement, UnaryOperator, Value};
use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer};

/// The bytes of a name from text or a string (`MAX_ALIAS_NAME` less its NUL).
const MAX_NAME: usize = 255;

/// The text of the statement whose items are named, tokenized when first needed.
pub(crate) struct Source<'a> {
    text: &'a str,
    /// Where `text` starts in the text sqlparser's spans count in.
    start: Location,
    tokens: OnceCell<Option<Vec<TokenWithSpan>>>,
}

impl<'a> Source<'a> {
    pub fn new(text: &'a str, start: Location) -> Source<'a> {
        Source {
            text,
            start,
            tokens: OnceCell::new(),
        }
    }

    fn tokens(&self) -> Option<&[TokenWithSpan]> {
        let tokens = self.tokens.get_or_init(|| {
            let mut t =
                (Tokenizer::new(&MySqlDialect {}, self.text).tokenize_with_location()).ok()?;
            t.retain(|t| t.token != Token::EOF);
            Some(t)
        });
        tokens.as_deref()
    }

    /// A location of the spans as one in `text` (both from 1).
    fn local(&self, at: Location) -> Option<Location> {
        let s = self.start;
        match at.line.cmp(&s.line) {
            std::cmp::Ordering::Less => None,
            std::cmp::Ordering::Equal if at.column < s.column => None,
            std::cmp::Ordering::Equal => Some(Location::new(1, at.column - s.column + 1)),
            std::cmp::Ordering::Greater => Some(Location::new(at.line - s.line + 1, at.column)),
        }
    }

    /// The byte offset in `text` of a location in it (columns count characters).
    fn offset(&self, at: Location) -> Option<usize> {
        let line = usize::try_from(at.line.checked_sub(1)?).ok()?;
        let col = usize::try_from(at.column.checked_sub(1)?).ok()?;
        let line_start = if line == 0 {
            0
        } else {
            self.text.match_indices('\n').nth(line - 1)?.0 + 1
        };
        let rest = self.text.get(line_start..)?;
        let i = (rest.char_indices().map(|(i, _)| i))
            .chain([rest.len()])
            .nth(col)?;
        // Within the line (or just past its end).
        (!rest[..i].contains('\n')).then_some(line_start + i)
    }

    /// The index of the token that starts at `at` (a location of the spans).
    fn token_at(&self, at: Location) -> Option<usize> {
        let at = self.local(at)?;
        let tokens = self.tokens()?;
        let i = tokens.partition_point(|t| t.span.start < at);
        (tokens.get(i)?.span.start == at).then_some(i)
    }

    /// The text the client wrote for the select item `e` (see the module docs).
    fn item_text(&self, e: &Expr) -> Option<&'a str> {
        let span = e.span();
        if span.start.line == 0 {
            return None;
        }
        let tokens = self.tokens()?;
        let first = self.token_at(span.start)?;
        let mut from = first;
        let mut depth = 0usize;
        for k in (0..first).rev() {
            match &tokens[k].token {
                Token::Whitespace(_) => continue,
                Token::RParen => depth += 1,
                Token::LParen => depth = depth.saturating_sub(1),
                t if depth == 0 && precedes_item(t) => break,
                _ => {}
            }
            from = k;
        }
        let (mut last, mut depth) = (None, 0usize);
        for (k, t) in tokens.iter().enumerate().skip(from) {
            match &t.token {
                Token::Whitespace(_) => continue,
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => break,
                Token::RParen => depth -= 1,
                Token::EOF | Token::SemiColon => break,
                Token::Comma if depth == 0 => break,
                t if depth == 0 && ends_item(t) => break,
                _ => {}
            }
            last = Some(k);
        }
        let last = last.filter(|_| depth == 0)?;
        let begin = self.offset(tokens[from].span.start)?;
        let end = self.offset(tokens[last].span.end)?;
        // The span's end, when it has one, is within the text found.
        if span.end.line != 0 && self.offset(self.local(span.end)?)? > end {
            return None;
        }
        let text = self.text.get(begin..end)?;
        same_expression(text, e).then_some(text)
    }

    /// The value of the string literal token that starts at `at`.
    fn first_string(&self, at: Location) -> Option<String> {
        match &self.tokens()?.get(self.token_at(at)?)?.token {
            Token::SingleQuotedString(s)
            | Token::DoubleQuotedString(s)
            | Token::NationalStringLiteral(s) => Some(s.clone()),
            _ => None,
        }
    }
}

/// Names the unnamed items of the SELECT that names a query's columns (the first of a UNION,
/// as in MySQL and SQLite; a parenthesized one is a query of its own) with an alias, which
/// SQLite reports as the column's name.
pub(super) fn name_columns(body: &mut SetExpr, source: Option<&Source<'_>>) {
    match body {
        SetExpr::Select(sel) => name_items(&mut sel.projection, source),
        SetExpr::SetOperation { left, .. } => name_columns(left, source),
        _ => {}
    }
}

fn name_items(projection: &mut [SelectItem], source: Option<&Source<'_>>) {
    for item in projection.iter_mut() {
        if let SelectItem::UnnamedExpr(e) = item {
            let name = name(e, source);
            *item = SelectItem::ExprWithAlias {
                expr: e.clone(),
                alias: Ident::with_quote('`', name),
            };
        }
    }
}

/// The column name of the unnamed select item `e`.
fn name(e: &Expr, source: Option<&Source<'_>>) -> String {
    let mut inner = e;
    while let Expr::Nested(x)
    | Expr::UnaryOp {
        op: UnaryOperator::Plus,
        expr: x,
    } = inner
    {
        inner = x;
    }
    match inner {
        Expr::Identifier(i) if !i.value.starts_with('@') => return i.value.clone(),
        Expr::CompoundIdentifier(p) if !p.first().is_some_and(|p| p.value.starts_with("@@")) => {
            return p.last().map_or_else(String::new, |i| i.value.clone())
        }
        Expr::Value(v) => match &v.value {
            Value::Null => return "NULL".into(),
            Value::Placeholder(p) => return p.clone(),
            Value::Number(n, _) => return n.clone(),
            Value::SingleQuotedString(s)
            | Value::DoubleQuotedString(s)
            | Value::NationalStringLiteral(s) => {
                let first = source.and_then(|src| src.first_string(v.span.start));
                return mysql_name(first.as_deref().unwrap_or(s));
            }
            _ => {}
        },
        _ => {}
    }
    match source.and_then(|s| s.item_text(e)) {
        Some(text) => mysql_name(text),
        None => mysql_name(&e.to_string()),
    }
}

/// A name as `Name_string::copy` (`sql/item.cc`) keeps it for a utf8mb4 client, and as the
/// protocol sends it (see the module docs).
fn mysql_name(s: &str) -> String {
    let s = s.trim_start_matches(|c: char| c <= ' ' || c == '\x7f');
    let mut out = String::new();
    for c in s.chars() {
        if c == '\0' {
            break;
        }
        // utf8mb3 has no character outside the BMP: its conversion writes `?`.
        let c = if u32::from(c) > 0xFFFF { '?' } else { c };
        if out.len() + c.len_utf8() > MAX_NAME {
            break;
        }
        out.push(c);
    }
    out
}

/// A word that comes before a select item, never in one at parenthesis depth 0: the `SELECT`,
/// its modifiers, the comma before the item.
fn precedes_item(t: &Token) -> bool {
    const WORDS: &[&str] = &[
        "SELECT",
        "DISTINCT",
        "DISTINCTROW",
        "ALL",
        "HIGH_PRIORITY",
        "STRAIGHT_JOIN",
        "SQL_SMALL_RESULT",
        "SQL_BIG_RESULT",
        "SQL_BUFFER_RESULT",
        "SQL_CACHE",
        "SQL_NO_CACHE",
        "SQL_CALC_FOUND_ROWS",
    ];
    matches!(t, Token::Comma | Token::SemiColon) || is_word(t, WORDS)
}

/// A word that ends the select list at parenthesis depth 0: the clause after it (`FOR` and
/// `FROM` within an item are in parentheses: `SUBSTRING(x FROM 1 FOR 2)`).
fn ends_item(t: &Token) -> bool {
    const WORDS: &[&str] = &[
        "FROM",
        "WHERE",
        "GROUP",
        "HAVING",
        "WINDOW",
        "ORDER",
        "LIMIT",
        "INTO",
        "UNION",
        "EXCEPT",
        "INTERSECT",
        "FOR",
        "LOCK",
        "PROCEDURE",
        "ON",
    ];
    is_word(t, WORDS)
}

fn is_word(t: &Token, words: &[&str]) -> bool {
    matches!(t, Token::Word(w) if w.quote_style.is_none()
        && words.iter().any(|k| w.value.eq_ignore_ascii_case(k)))
}

/// Whether `text`, as a select item, parses (as `mdl-sql` parses) to the expression `e`.
fn same_expression(text: &str, e: &Expr) -> bool {
    let Ok(mut parsed) = mdl_sql::parse_prepared(&format!("SELECT {text}")) else {
        return false;
    };
    let (Some(p), true) = (parsed.pop(), parsed.is_empty()) else {
        return false;
    };
    let mdl_sql::Statement::Sql { statement, .. } = p.statement else {
        return false;
    };
    let Statement::Query(q) = *statement else {
        return false;
    };
    match (*q.body, &q.order_by, &q.limit_clause) {
        (SetExpr::Select(s), None, None) if s.from.is_empty() => {
            matches!(s.projection.as_slice(), [SelectItem::UnnamedExpr(x)] if x.to_string() == e.to_string())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
