//! Parsing what MySQL clients send: sqlparser's `MySqlDialect`, plus what it lacks.
//!
//! [`parse`] runs in four steps:
//!
//! 1. Versioned comments `/*! ... */`, `/*!NNNNN ... */` are resolved as MySQL 8.0.45 would
//!    (`comments.rs`).
//! 2. The text is tokenized with sqlparser's MySQL tokenizer and split at `;` into statements.
//! 3. A small recognizer ([`crate::recognize`]) takes the statements sqlparser 0.64 cannot
//!    parse, each listed in [`Statement`] with the reason.
//! 4. The rest goes to sqlparser, after token rewrites for MySQL syntax it lacks (the
//!    rewritten statement means the same to MySQL; the flags removed are kept in
//!    [`Modifiers`]): the expression spellings of `spelling.rs` (`a MOD b`, compound interval
//!    units, `UNSIGNED INT`, a cast's character set), and
//!    * `... LOCK IN SHARE MODE` becomes `... FOR SHARE` (MySQL's `sql_yacc.yy`, `locking_clause`:
//!      both are `PT_query_block_locking_clause(Lock_strength::SHARE)`);
//!    * `UPDATE`/`DELETE` modifiers `LOW_PRIORITY`, `QUICK`, `IGNORE` are removed (sqlparser
//!      reads `UPDATE LOW_PRIORITY t` as a table named `LOW_PRIORITY` aliased `t`);
//!      multi-table `UPDATE t1, t2 SET ...` becomes `UPDATE t1 CROSS JOIN t2 SET ...` (a comma
//!      join is an inner join without a condition; the comma binds looser than JOIN in MySQL,
//!      which changes which ON clause may name which table, not which tables are referenced);
//!    * `FLUSH TABLE` becomes `FLUSH TABLES` (`table_or_tables` in MySQL's `flush_options`);
//!    * `START TRANSACTION WITH CONSISTENT SNAPSHOT` loses the option (it starts an InnoDB read
//!      view, nothing a metadata lock depends on).
//!    * in a `SET` of several items, `NAMES cs [COLLATE co]` and `CHARACTER SET cs` become the
//!      assignments of the variables MySQL sets for them (sqlparser reads them only as a
//!      whole `SET`; sqlx sends such a list at every connect).

use sqlparser::ast;
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, Whitespace};

use crate::comments::resolve_versioned_comments;
use crate::error::SqlError;
use crate::recognize::{recognize, Maintenance, NamedTable, TableLock};
use crate::unsupported::feature_of_text as unsupported;

/// One statement of a client's text.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Parsed {
    /// The statement's own text (versioned comments resolved, without the `;`), for the engine
    /// that runs it and for messages.
    pub text: String,
    /// Where `text` starts in the client's text (line and column, from 1): the spans in
    /// `statement` count from the client's text, so a span at this location is `text`'s start.
    pub start: Location,
    /// What it is.
    pub statement: Statement,
}

/// A parsed statement: sqlparser's AST, or one of the statements sqlparser 0.64 cannot parse.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Statement {
    /// A statement sqlparser parsed (after the rewrites listed on [`parse`]).
    Sql {
        /// The AST.
        statement: Box<ast::Statement>,
        /// MySQL modifiers the rewrites removed.
        modifiers: Modifiers,
    },
    /// `DO expr, ...` (sqlparser has no `DO`): the expressions, evaluated for their effects
    /// (typically `DO GET_LOCK('name', 10)`).
    Do(Vec<ast::Expr>),
    /// `LOCK TABLE[S] t [AS a] READ [LOCAL] | [LOW_PRIORITY] WRITE, ...`: sqlparser takes no
    /// qualified name (`db.t`) and no `LOCK TABLE`.
    LockTables(Vec<TableLock>),
    /// `UNLOCK TABLE[S]` (sqlparser knows only `UNLOCK TABLES`; kept here with its sibling).
    UnlockTables,
    /// `ALTER TABLE t {DISABLE | ENABLE} KEYS` (not in sqlparser; mysqldump writes it around
    /// its INSERTs).
    AlterTableKeys {
        /// The schema, if the name was qualified.
        schema: Option<String>,
        /// The table.
        table: String,
        /// ENABLE (true) or DISABLE.
        enable: bool,
    },
    /// `ALTER TABLE t ENGINE [=] name` or `ALTER TABLE t FORCE`, optionally with `, ALGORITHM
    /// [=] a` and `, LOCK [=] l`: a rebuild of the table (MySQL's "null" ALTER TABLE, which DBAs
    /// run to defragment a table; not in sqlparser). It locks as any ALTER TABLE.
    AlterTableRebuild {
        /// The schema, if the name was qualified.
        schema: Option<String>,
        /// The table.
        table: String,
    },
    /// `ALTER TABLE t RENAME {INDEX | KEY} a TO b`, optionally with `ALGORITHM [=] a` and
    /// `LOCK [=] l` (not in sqlparser; MySQL 5.7+, which InnoDB does in place). It locks as
    /// any ALTER TABLE. With other operations it is refused (1235).
    AlterTableRenameIndex {
        /// The schema, if the name was qualified.
        schema: Option<String>,
        /// The table.
        table: String,
        /// The index's name.
        from: String,
        /// Its new name.
        to: String,
    },
    /// `ALTER TABLE t` with table options only (`COMMENT`, `ROW_FORMAT`, `[DEFAULT] CHARSET`,
    /// `COLLATE`, `KEY_BLOCK_SIZE`, `STATS_*`, `PACK_KEYS`, `CHECKSUM`, `DELAY_KEY_WRITE`,
    /// `MAX_ROWS`, `MIN_ROWS`, `AVG_ROW_LENGTH`, `ENGINE`) and `CONVERT TO CHARACTER SET`,
    /// optionally with `ALGORITHM` and `LOCK` (not in sqlparser). It locks as any ALTER TABLE.
    /// A character set MySQL does not know is 1115 when parsed.
    AlterTableOptions {
        /// The schema, if the name was qualified.
        schema: Option<String>,
        /// The table.
        table: String,
        /// `CONVERT TO CHARACTER SET x`: `x`, lower case (`utf8` as `utf8mb3`; `default`).
        convert_to: Option<String>,
    },
    /// `ANALYZE | CHECK | OPTIMIZE | REPAIR | CHECKSUM TABLE t, ...` (sqlparser has none of
    /// them but Hive's one-table `ANALYZE TABLE`); the maintenance options are dropped
    /// (`recognize.rs`).
    TableMaintenance {
        /// Which statement.
        op: Maintenance,
        /// The tables, in statement order.
        tables: Vec<NamedTable>,
    },
    /// `KILL [CONNECTION | QUERY] expr` whose `expr` is not an unsigned integer literal
    /// (sqlparser's `KILL` takes only that; `KILL 5` stays sqlparser's `Kill`): MySQL's
    /// `kill: KILL_SYM kill_option expr` (`sql/sql_yacc.yy`), evaluated by the server.
    KillExpr {
        /// `KILL QUERY`: the statement only, not the connection.
        query: bool,
        /// The connection id's expression.
        id: Box<ast::Expr>,
    },
    /// `LOCK INSTANCE FOR BACKUP` (not in sqlparser).
    LockInstanceForBackup,
    /// `UNLOCK INSTANCE` (not in sqlparser).
    UnlockInstance,
}

/// MySQL statement modifiers that sqlparser cannot hold and the rewrites removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Modifiers {
    /// `UPDATE LOW_PRIORITY` / `DELETE LOW_PRIORITY` (INSERT's is in sqlparser's AST).
    pub low_priority: bool,
    /// `UPDATE IGNORE` / `DELETE IGNORE`; `CREATE TABLE ... IGNORE SELECT`
    /// (`create_select.rs`).
    pub ignore: bool,
    /// `CREATE TABLE ... REPLACE SELECT` (`create_select.rs`).
    pub replace: bool,
    /// `DELETE QUICK`.
    pub quick: bool,
    /// `START TRANSACTION WITH CONSISTENT SNAPSHOT`.
    pub consistent_snapshot: bool,
    /// `ALTER ... VIEW`, read as `CREATE ... VIEW` (`view_syntax.rs`).
    pub alter_view: bool,
    /// A view's `WITH [CASCADED | LOCAL] CHECK OPTION` (`view_syntax.rs`).
    pub view_check: Option<crate::ViewCheckOption>,
}

/// Parses a client's text (one or more statements separated by `;`) as MySQL 8.0 would.
///
/// On top of sqlparser 0.64's `MySqlDialect`: versioned comments are resolved for MySQL
/// 8.0.45 (`/*! ... */` and `/*!NNNNN ... */` up to 80045 are executed, later ones dropped;
/// sqlparser would execute all of them); `LOCK INSTANCE FOR BACKUP`, `UNLOCK INSTANCE`,
/// `LOCK TABLE[S]` (with `db.t` names), `UNLOCK TABLE`, `DO`, `ALTER TABLE t {DISABLE |
/// ENABLE} KEYS`, `ALTER TABLE t RENAME INDEX a TO b`, `ALTER TABLE t` with table options
/// only, `ANALYZE`, `CHECK`, `OPTIMIZE`, `REPAIR` and `CHECKSUM TABLE` are
/// recognized here (sqlparser rejects them, see [`Statement`]); `LOCK IN SHARE MODE`, the
/// `UPDATE`/`DELETE` modifiers `LOW_PRIORITY`, `QUICK`, `IGNORE`, multi-table `UPDATE a, b
/// SET`, `START TRANSACTION WITH CONSISTENT SNAPSHOT`, `CREATE TABLE ... {IGNORE | REPLACE}
/// SELECT` and `FLUSH TABLE` (as `TABLES`) are
/// rewritten into what sqlparser parses, the modifiers kept in [`Modifiers`], and so are `a
/// MOD b` (as `a % b`), compound interval units (`INTERVAL '1:30' HOUR_MINUTE` as `HOUR TO
/// MINUTE`), `CAST(x AS UNSIGNED INT)` and a cast's `CHARACTER SET` (dropped). `KILL`, `SHOW
/// [FULL] PROCESSLIST` and the other `FLUSH` statements are sqlparser's own.
///
/// ```
/// use mdl_sql::{parse, Statement};
/// let stmts = parse("CREATE TABLE t (id INT) /*! ENGINE = innodb */; LOCK INSTANCE FOR BACKUP")?;
/// assert_eq!(stmts.len(), 2);
/// assert!(matches!(stmts[0].statement, Statement::Sql { .. }));
/// assert_eq!(stmts[1].statement, Statement::LockInstanceForBackup);
/// # Ok::<(), mdl_sql::SqlError>(())
/// ```
///
/// # Errors
/// `ER_NOT_SUPPORTED_YET` (1235) naming the feature for a statement of a class this crate cannot
/// read (`unsupported.rs`); `ER_PARSE_ERROR` (1064, `42000`), worded as MySQL's ("... near '...'
/// at line N"), for other text neither sqlparser nor the recognizer accepts and for a `?` marker,
/// which only text to prepare may have ([`parse_prepared`]); `ER_EMPTY_QUERY` (1065) for none.
pub fn parse(sql: &str) -> Result<Vec<Parsed>, SqlError> {
    parse_in(sql, false)
}

/// Parses the text of a statement to prepare (`COM_STMT_PREPARE`, `PREPARE s FROM '...'`): as
/// [`parse`], except that a `?` is a parameter marker, as MySQL's lexer reads it only in that
/// mode (`Lex_input_stream::stmt_prepare_mode`, `sql/sql_lex.cc`).
///
/// ```
/// use mdl_sql::{parse, parse_prepared};
/// assert_eq!(parse("SELECT ?").unwrap_err().code(), 1064);
/// assert_eq!(parse_prepared("SELECT GET_LOCK(?, 1)")?.len(), 1);
/// # Ok::<(), mdl_sql::SqlError>(())
/// ```
///
/// # Errors
/// As [`parse`]'s, without the one for `?`.
pub fn parse_prepared(sql: &str) -> Result<Vec<Parsed>, SqlError> {
    parse_in(sql, true)
}

fn parse_in(sql: &str, prepare: bool) -> Result<Vec<Parsed>, SqlError> {
    let text = resolve_versioned_comments(sql)?;
    let lines = LineIndex::new(&text);
    let tokens = Tokenizer::new(&MySqlDialect {}, &text)
        .tokenize_with_location()
        .map_err(|e| lines.error_at(&text, e.location))?;
    // `?1` too: MySQL's lexer reads no number after the marker.
    let marker =
        |t: &&TokenWithSpan| matches!(&t.token, Token::Placeholder(p) if p.starts_with('?'));
    if let Some(t) = (!prepare).then(|| tokens.iter().find(marker)).flatten() {
        return Err(lines.error_at(&text, t.span.start));
    }
    let mut out = Vec::new();
    for stmt in split_statements(tokens) {
        let (Some(first), Some(last)) = (stmt.first(), stmt.last()) else {
            continue;
        };
        let text_at = first.span.start;
        let start = lines.offset(&text, text_at);
        let end = lines.offset(&text, last.span.end);
        let own_text = text[start..end].to_string();
        let failed = |e| match (e, unsupported(&own_text)) {
            (_, Some(what)) => SqlError::not_supported(&what),
            (ParseFailure::At(at), None) => lines.error_at(&text, at),
            (ParseFailure::Other(msg), None) => SqlError::parse(&msg, 1),
        };
        let statement = match (recognize(&stmt), crate::recognize::alter::recognize(&stmt)) {
            (Some(r), _) => r.map_err(|at| lines.error_at(&text, at))?,
            (None, Some(r)) => r?,
            (None, None) => parse_with_sqlparser(stmt).map_err(failed)?,
        };
        out.push(Parsed {
            text: own_text,
            start: text_at,
            statement,
        });
    }
    if out.is_empty() {
        return Err(SqlError::empty_query());
    }
    Ok(out)
}

/// The statements' tokens, split at `;`, each without whitespace and comments except
/// optimizer hints (`/*+ ... */`, which sqlparser reads from comment tokens).
fn split_statements(tokens: Vec<TokenWithSpan>) -> Vec<Vec<TokenWithSpan>> {
    let mut out = vec![Vec::new()];
    for t in tokens {
        match &t.token {
            Token::SemiColon => out.push(Vec::new()),
            Token::Whitespace(Whitespace::MultiLineComment(c)) if c.starts_with('+') => {
                out.last_mut().expect("never empty").push(t)
            }
            Token::Whitespace(_) | Token::EOF => {}
            _ => out.last_mut().expect("never empty").push(t),
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

enum ParseFailure {
    At(Location),
    Other(String),
}

fn parse_with_sqlparser(tokens: Vec<TokenWithSpan>) -> Result<Statement, ParseFailure> {
    let mut modifiers = Modifiers::default();
    let tokens = rewrite(tokens, &mut modifiers);
    let end = tokens
        .last()
        .map(|t| t.span.end)
        .unwrap_or(Location::new(1, 1));
    let mut parser = Parser::new(&MySqlDialect {}).with_tokens_with_locations(tokens);
    let statement = parser
        .parse_statement()
        .map_err(|e| failure(e, &parser, end))?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(ParseFailure::At(next.span.start));
    }
    Ok(Statement::Sql {
        statement: Box::new(statement),
        modifiers,
    })
}

fn failure(e: ParserError, parser: &Parser<'_>, end: Location) -> ParseFailure {
    match e {
        ParserError::RecursionLimitExceeded => {
            ParseFailure::Other("statement nested too deeply".into())
        }
        _ => {
            let at = parser.peek_token().span.start;
            // At the end of the tokens the span is empty (line 0): report the end.
            ParseFailure::At(if at.line == 0 { end } else { at })
        }
    }
}

/// Whether `t` is the unquoted word `kw` (any case).
pub(crate) fn is_kw(t: &TokenWithSpan, kw: &str) -> bool {
    matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw))
}

fn keyword_token(word: &str, at: &TokenWithSpan) -> TokenWithSpan {
    TokenWithSpan::new(Token::make_keyword(word), at.span)
}

/// The token rewrites of the module docs.
fn rewrite(mut t: Vec<TokenWithSpan>, m: &mut Modifiers) -> Vec<TokenWithSpan> {
    crate::spelling::respell(&mut t);
    // LOCK IN SHARE MODE -> FOR SHARE, anywhere (it is only valid as a locking clause).
    let mut i = 0;
    while i + 3 < t.len() {
        if is_kw(&t[i], "LOCK")
            && is_kw(&t[i + 1], "IN")
            && is_kw(&t[i + 2], "SHARE")
            && is_kw(&t[i + 3], "MODE")
        {
            let (f, s) = (
                keyword_token("FOR", &t[i]),
                keyword_token("SHARE", &t[i + 2]),
            );
            t.splice(i..i + 4, [f, s]);
        }
        i += 1;
    }
    match t.first() {
        Some(f) if is_kw(f, "UPDATE") || is_kw(f, "DELETE") => {
            let update = is_kw(f, "UPDATE");
            while t.len() > 1 {
                if is_kw(&t[1], "LOW_PRIORITY") {
                    m.low_priority = true;
                } else if is_kw(&t[1], "IGNORE") {
                    m.ignore = true;
                } else if !update && is_kw(&t[1], "QUICK") {
                    m.quick = true;
                } else {
                    break;
                }
                t.remove(1);
            }
            if update {
                commas_to_cross_joins(&mut t);
            }
        }
        Some(f) if is_kw(f, "FLUSH") => {
            // `FLUSH [NO_WRITE_TO_BINLOG | LOCAL] TABLE ...` -> `TABLES` (MySQL's
            // `table_or_tables` in `flush_options`; sqlparser knows only `TABLES`).
            let i = match t.get(1) {
                Some(x) if is_kw(x, "NO_WRITE_TO_BINLOG") || is_kw(x, "LOCAL") => 2,
                _ => 1,
            };
            if t.get(i).is_some_and(|x| is_kw(x, "TABLE")) {
                t[i] = keyword_token("TABLES", &t[i]);
            }
        }
        Some(f) if is_kw(f, "SET") => names_in_a_list(&mut t),
        Some(f) if is_kw(f, "START") => {
            let mut i = 0;
            while i + 2 < t.len() {
                if is_kw(&t[i], "WITH")
                    && is_kw(&t[i + 1], "CONSISTENT")
                    && is_kw(&t[i + 2], "SNAPSHOT")
                {
                    m.consistent_snapshot = true;
                    let mut to = i + 3;
                    if t.get(to).is_some_and(|c| c.token == Token::Comma) {
                        to += 1;
                    } else if i > 0 && t[i - 1].token == Token::Comma {
                        i -= 1;
                    }
                    t.drain(i..to);
                } else {
                    i += 1;
                }
            }
        }
        Some(f) if is_kw(f, "CREATE") => {
            crate::view_syntax::respell(&mut t, m);
            crate::create_select::respell(&mut t, m);
        }
        _ => crate::view_syntax::respell(&mut t, m),
    }
    t
}

/// `SET a = 1, NAMES cs [COLLATE co]` -> `SET a = 1, character_set_client = cs,
/// character_set_connection = cs, character_set_results = cs [, collation_connection = co]`,
/// and `CHARACTER SET cs` / `CHARSET cs` in a list -> `character_set_client = cs,
/// character_set_results = cs`: the variables MySQL sets for them (`sql/sql_yacc.yy`,
/// `option_value_no_option_type`: `NAMES` and `character_set` items, `set_var_collation_client`);
/// sqlparser reads either only as a whole `SET`, and sqlx sends `SET sql_mode=(...),
/// time_zone='+00:00',NAMES utf8mb4 COLLATE utf8mb4_unicode_ci` at every connect. A `SET` of
/// one item is left to sqlparser.
fn names_in_a_list(t: &mut Vec<TokenWithSpan>) {
    // Where each item starts: after `SET`, after each comma at depth 0.
    let mut starts = vec![1];
    let mut depth = 0i32;
    for (i, x) in t.iter().enumerate() {
        match x.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => starts.push(i + 1),
            _ => {}
        }
    }
    if starts.len() < 2 {
        return;
    }
    // Back to front, so that the starts before stay where they are.
    for (k, &at) in starts.iter().enumerate().rev() {
        let end = starts.get(k + 1).map_or(t.len(), |&next| next - 1);
        let item = &t[at.min(end)..end];
        let (vars, value_at): (&[&str], usize) = match item {
            [n, ..] if is_kw(n, "NAMES") => (
                &[
                    "character_set_client",
                    "character_set_connection",
                    "character_set_results",
                ],
                1,
            ),
            [c, s, ..] if is_kw(c, "CHARACTER") && is_kw(s, "SET") => {
                (&["character_set_client", "character_set_results"], 2)
            }
            [c, ..] if is_kw(c, "CHARSET") => {
                (&["character_set_client", "character_set_results"], 1)
            }
            _ => continue,
        };
        let Some(value) = item.get(value_at).cloned() else {
            continue;
        };
        let collation = match item.get(value_at + 1..) {
            Some([c, co]) if is_kw(c, "COLLATE") => Some(co.clone()),
            Some([]) => None,
            _ => continue, // not MySQL's form: sqlparser reports it
        };
        let at_span = |tok: Token| TokenWithSpan::new(tok, value.span);
        let mut out = Vec::new();
        let assigned = vars.iter().map(|v| (*v, value.clone()));
        let assigned = assigned.chain(collation.map(|co| ("collation_connection", co)));
        for (n, (var, v)) in assigned.enumerate() {
            if n > 0 {
                out.push(at_span(Token::Comma));
            }
            out.extend([at_span(Token::make_word(var, None)), at_span(Token::Eq), v]);
        }
        t.splice(at..end, out);
    }
}

/// `UPDATE a, b SET` -> `UPDATE a CROSS JOIN b SET`: the commas at parenthesis depth 0 before
/// `SET`.
fn commas_to_cross_joins(t: &mut Vec<TokenWithSpan>) {
    let mut depth = 0i32;
    let mut i = 1;
    while i < t.len() {
        match &t[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => {
                let (c, j) = (keyword_token("CROSS", &t[i]), keyword_token("JOIN", &t[i]));
                t.splice(i..=i, [c, j]);
                i += 1;
            }
            _ if depth == 0 && is_kw(&t[i], "SET") => return,
            _ => {}
        }
        i += 1;
    }
}

/// Byte offsets of line starts, to turn sqlparser's (line, column) into text positions.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The byte offset of a location (columns count characters from 1).
    pub(crate) fn offset(&self, text: &str, at: Location) -> usize {
        let Some(&start) = self.starts.get((at.line.max(1) - 1) as usize) else {
            return text.len();
        };
        text[start..]
            .char_indices()
            .nth(at.column.saturating_sub(1) as usize)
            .map_or(text.len(), |(i, _)| start + i)
    }

    /// MySQL's syntax error `near '<text from here>' at line N`.
    fn error_at(&self, text: &str, at: Location) -> SqlError {
        let from = self.offset(text, at);
        SqlError::parse(text[from..].trim_end(), at.line.max(1))
    }
}

#[cfg(test)]
mod tests;
