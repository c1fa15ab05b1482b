//! Prepared statements in SQL (`sql_prepare.cc`): `PREPARE name FROM 'text'` (or `FROM @var`),
//! `EXECUTE name [USING @a, @b, ...]`, `{DEALLOCATE | DROP} PREPARE name`. They are the
//! connection's binary-protocol prepared statements under a name: `PREPARE` parses the text
//! and keeps it as `COM_STMT_PREPARE` does (with its plan and rewrite kept between executions,
//! `memo.rs`), `EXECUTE` runs it with the variables' values as its `?` parameters, as
//! `COM_STMT_EXECUTE` does, and `DEALLOCATE` drops it. A name is case-insensitive; preparing a
//! name again replaces its statement. `sqlparser` reads MySQL's `PREPARE ... FROM` as nothing
//! it knows, hence the text, split by its tokenizer.
//!
//! An `EXECUTE`'s statement event is `statement/sql/execute_sql`, with the `EXECUTE`'s text
//! and digest, as MySQL's (`statement_event.rs`).
//!
//! Errors as MySQL's: an unknown name is 1243, a count of variables other than the statement's
//! `?` is 1210, and the text's own parse errors are the text's.

use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::connection::{Connection, Ended, Prepared};
use crate::error::ServerError;
use crate::statement_event::Origin;
use crate::status::Com;
use crate::wire::Output;

/// One of the module's statements.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// `PREPARE name FROM ...`.
    Prepare {
        /// The name, lowercase.
        name: String,
        /// The statement's text, or the `@variable` that holds it.
        source: Source,
    },
    /// `EXECUTE name USING @a, ...`: the variables, with their `@`.
    Execute { name: String, using: Vec<String> },
    /// `DEALLOCATE PREPARE name`, `DROP PREPARE name`.
    Deallocate { name: String },
}

/// Where `PREPARE` finds the statement.
#[derive(Debug, PartialEq)]
pub enum Source {
    /// A string literal.
    Text(String),
    /// A user variable (with its `@`).
    Variable(String),
}

/// The command `text` is, if it is one of the module's (`None` otherwise, at the cost of a
/// look at its first word).
pub fn recognize(text: &str) -> Option<Result<Command, ServerError>> {
    // Every text query passes here: a look at four bytes, no allocation.
    let head = text.trim_start().get(..4)?;
    if !["PREP", "EXEC", "DEAL", "DROP"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(head))
    {
        return None;
    }
    let tokens = Tokenizer::new(&MySqlDialect {}, text).tokenize().ok()?;
    let t: Vec<&Token> = (tokens.iter())
        .filter(|t| !matches!(t, Token::Whitespace(_) | Token::SemiColon))
        .collect();
    let word = |i: usize| match t.get(i) {
        Some(Token::Word(w)) => Some(w.value.as_str()),
        _ => None,
    };
    let is = |i: usize, kw: &str| word(i).is_some_and(|w| w.eq_ignore_ascii_case(kw));
    let name = |i: usize| word(i).map(str::to_ascii_lowercase);
    let near = |i: usize| ServerError::parse(&t.get(i).map_or(String::new(), |t| t.to_string()));
    if is(0, "PREPARE") {
        let Some(name) = name(1) else {
            return Some(Err(near(1)));
        };
        if !is(2, "FROM") || t.len() != 4 {
            return Some(Err(near(2)));
        }
        let source = match t[3] {
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Source::Text(s.clone()),
            Token::Word(w) if w.value.starts_with('@') => Source::Variable(w.value.clone()),
            _ => return Some(Err(near(3))),
        };
        return Some(Ok(Command::Prepare { name, source }));
    }
    if is(0, "EXECUTE") {
        let Some(name) = name(1) else {
            return Some(Err(near(1)));
        };
        let mut using = Vec::new();
        if t.len() > 2 {
            if !is(2, "USING") {
                return Some(Err(near(2)));
            }
            for (k, i) in (3..t.len()).enumerate() {
                match t[i] {
                    Token::Comma if k % 2 == 1 => {}
                    Token::Word(w) if k % 2 == 0 && w.value.starts_with('@') => {
                        using.push(w.value.clone())
                    }
                    _ => return Some(Err(near(i))),
                }
            }
            if using.is_empty() || t.len() % 2 == 1 {
                return Some(Err(near(t.len())));
            }
        }
        return Some(Ok(Command::Execute { name, using }));
    }
    if (is(0, "DEALLOCATE") || is(0, "DROP")) && is(1, "PREPARE") {
        return Some(match (name(2), t.len()) {
            (Some(name), 3) => Ok(Command::Deallocate { name }),
            _ => Err(near(2)),
        });
    }
    None
}

/// MySQL's 1243 for a name no `PREPARE` made.
fn unknown(name: &str, to: &str) -> ServerError {
    ServerError::new(
        1243,
        "HY000",
        format!("Unknown prepared statement handler ({name}) given to {to}"),
    )
}

impl Connection {
    /// Runs a command of the module (see there), sent as `query`; `Err` when the connection
    /// ended.
    pub(crate) async fn sql_prepare(
        &mut self,
        cmd: Command,
        query: &str,
    ) -> Result<Result<Output, ServerError>, Ended> {
        // MySQL counts these as their own commands; an EXECUTE's statement counts again as
        // its command (`status.rs`).
        self.info.status.count(match &cmd {
            Command::Prepare { .. } => Com::PrepareSql,
            Command::Execute { .. } => Com::ExecuteSql,
            Command::Deallocate { .. } => Com::DeallocSql,
        });
        // EXECUTE's statement has the area's rules (`diagnostics.rs`); PREPARE and
        // DEALLOCATE clear it, and so does an EXECUTE that fails before its statement runs.
        let runs = matches!(cmd, Command::Execute { .. });
        if !runs {
            self.values.diagnostics.begin(false);
        }
        let r = self.sql_command(cmd, query).await;
        if let (Ok(Err(e)), false) = (&r, runs) {
            self.values.diagnostics.error(e);
        }
        r
    }

    async fn sql_command(
        &mut self,
        cmd: Command,
        query: &str,
    ) -> Result<Result<Output, ServerError>, Ended> {
        let failed = |this: &mut Self, e: ServerError| {
            this.values.diagnostics.begin(false);
            this.values.diagnostics.error(&e);
            Ok(Err(e))
        };
        match cmd {
            Command::Prepare { name, source } => {
                let sql = match source {
                    Source::Text(t) => t,
                    // MySQL reads a NULL variable as the text `NULL` (and fails to parse it).
                    Source::Variable(v) => self.values.user_var(&v).text().unwrap_or("NULL".into()),
                };
                Ok(self.prepare_named(name, &sql))
            }
            Command::Execute { name, using } => {
                let Some(&(id, count)) = self.sql_prepared.get(&name) else {
                    return failed(self, unknown(&name, "EXECUTE"));
                };
                if using.len() != count {
                    let e = ServerError::new(1210, "HY000", "Incorrect arguments to EXECUTE");
                    return failed(self, e);
                }
                let values = (using.iter())
                    .map(|v| crate::catalog::value(self.values.user_var(v)))
                    .collect();
                let Some(p) = self.prepared.get(&id) else {
                    return failed(self, unknown(&name, "EXECUTE"));
                };
                self.executing = p.row.executions();
                let (text, parsed, values, memo) = p.execution(id, values);
                // The event is the EXECUTE's, with its text and digest (`statement_event.rs`).
                let origin = Origin::ExecuteSql(query.into());
                self.statement("Query", text, Ok(parsed), values, origin, memo)
                    .await
            }
            Command::Deallocate { name } => Ok(match self.sql_prepared.remove(&name) {
                Some((id, _)) => {
                    self.prepared.remove(&id);
                    Ok(Output::OK)
                }
                None => Err(unknown(&name, "DEALLOCATE PREPARE")),
            }),
        }
    }

    /// `PREPARE name FROM sql`: parsed and kept as a binary-protocol statement, under `name`
    /// (replacing what the name held).
    fn prepare_named(&mut self, name: String, sql: &str) -> Result<Output, ServerError> {
        let started = std::time::Instant::now();
        let parsed = crate::connection::parse_one_prepared(sql)?;
        let (count, _) = self.describe(&parsed)?;
        if let Some((old, _)) = self.sql_prepared.remove(&name) {
            self.prepared.remove(&old);
        }
        let id = self.next_statement_id();
        let by = crate::statement_event::class(Some(Com::PrepareSql));
        let row =
            crate::statement_event::prepared_row(&self.thread, by, Some(&name), id, sql, started);
        let prepared = Prepared::new(sql, parsed, row);
        let count = count + prepared.lock_params;
        self.prepared.insert(id, prepared);
        self.sql_prepared.insert(name, (id, count));
        Ok(Output::OK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(text: &str) -> Command {
        recognize(text)
            .expect("one of the module's")
            .expect("no error")
    }

    #[test]
    fn the_three_commands() {
        assert_eq!(
            cmd("PREPARE Stmt FROM 'SELECT ?'"),
            Command::Prepare {
                name: "stmt".into(),
                source: Source::Text("SELECT ?".into())
            }
        );
        assert_eq!(
            cmd("prepare s from @sql;"),
            Command::Prepare {
                name: "s".into(),
                source: Source::Variable("@sql".into())
            }
        );
        assert_eq!(
            cmd("EXECUTE s USING @a, @b"),
            Command::Execute {
                name: "s".into(),
                using: vec!["@a".into(), "@b".into()]
            }
        );
        assert_eq!(
            cmd("EXECUTE s"),
            Command::Execute {
                name: "s".into(),
                using: vec![]
            }
        );
        assert_eq!(
            cmd("DEALLOCATE PREPARE s"),
            Command::Deallocate { name: "s".into() }
        );
        assert_eq!(
            cmd("drop prepare S"),
            Command::Deallocate { name: "s".into() }
        );
        for other in ["SELECT 1", "DROP TABLE t", "EXPLAIN SELECT 1", "DO 1"] {
            assert!(recognize(other).is_none(), "{other}");
        }
        for wrong in [
            "PREPARE s 'SELECT 1'",
            "PREPARE s FROM 1",
            "EXECUTE s USING 1",
            "EXECUTE s USING @a @b",
            "EXECUTE s USING @a,",
            "DEALLOCATE PREPARE",
        ] {
            assert_eq!(recognize(wrong).unwrap().unwrap_err().code, 1064, "{wrong}");
        }
    }
}
