//! The values a session's statements read that live in the session rather than the engine:
//! `CONNECTION_ID()`, `USER()`, `CURRENT_USER()`, `LAST_INSERT_ID()`, `ROW_COUNT()`,
//! `FOUND_ROWS()` and `@user` variables. The rewrite (`rewrite.rs`) puts them into a statement
//! as literals; each statement's end updates them as MySQL does.
//!
//! * `ROW_COUNT()`: the rows the previous statement changed, -1 after one that returned rows or
//!   failed, 0 after DDL (`THD::get_row_count_func`, set by `my_ok` / `my_eof` / `my_error` in
//!   `sql/sql_class.cc`, `sql/sql_parse.cc`).
//! * `LAST_INSERT_ID()`: the rowid of the last row an INSERT stored, kept until the next INSERT
//!   (SQLite's `last_insert_rowid()`: an `INTEGER PRIMARY KEY` is the table's rowid, which is how
//!   `AUTO_INCREMENT` columns are stored here; MySQL changes it only when it generated the value,
//!   here an explicit id counts too), or the value of the statement's last `LAST_INSERT_ID(expr)`
//!   (`functions.rs`), which is also the statement's insert id; after an `INSERT ... SELECT` that
//!   numbered rows, as in MySQL, the first id it numbered (`execute/insert_select.rs`).
//! * `FOUND_ROWS()`: MySQL 8.0 sets it at the end of a statement that succeeded from what the
//!   statement counted (`THD::update_previous_found_rows` from `THD::current_found_rows`, called
//!   by `Sql_cmd_dml::execute` in `sql/sql_select.cc`, and by `handle_query` for the SHOW
//!   statements `execute_show` answers as queries, `sql/sql_parse.cc`). So it is: after a
//!   SELECT its rows (`rewrite/found_rows.rs`: with `SQL_CALC_FOUND_ROWS`, those without its
//!   LIMIT; without, also those its OFFSET skipped), `DO`'s one row, a single-table UPDATE's
//!   matched rows (`Sql_cmd_update::update_single_table`, `sql/sql_update.cc`), the rows of
//!   `SHOW TABLES`, `DATABASES`, `COLUMNS` / `DESCRIBE`, `INDEX`, `VARIABLES`, `STATUS`, `TABLE
//!   STATUS`, `OPEN TABLES`, `TRIGGERS`, `EVENTS`, `{FUNCTION | PROCEDURE} STATUS`, `ENGINES`,
//!   `CHARSET`, `COLLATION`, `PLUGINS`. Any other statement (INSERT, DELETE, DDL, SET, EXPLAIN,
//!   `SHOW CREATE`, `SHOW PROCESSLIST`, `SHOW WARNINGS`, `SHOW REPLICA STATUS`) and a failed one
//!   leave it as it was. Differs: `INSERT ... SELECT` and a multi-table UPDATE or DELETE, whose
//!   SELECT or join MySQL counts, leave it here (the engine does not say how many rows their
//!   SELECT gave).
//! * `@name`: set by `SET @name = expr` (the engine evaluates `expr`), read as a literal, NULL
//!   when never set; names without case, as MySQL's (`Item_func_set_user_var`, `sql/item_func.cc`).
//! * `SHOW WARNINGS` / `SHOW ERRORS` `[LIMIT [offset,] row_count]`: the error the previous
//!   statement ended with, if any (this server raises no warnings), within the `LIMIT`; they do
//!   not clear it themselves, as in MySQL (`Diagnostics_area`, `mysqld_show_warnings` in
//!   `sql/sql_error.cc`).

use std::collections::HashMap;

use sqlparser::ast::Statement;

use crate::error::ServerError;
use crate::status::Com;
use crate::wire::{Cell, Output, ResultSet};

/// See the module docs.
#[derive(Debug, Clone, Default)]
pub struct SessionValues {
    /// `CONNECTION_ID()`.
    pub connection_id: u64,
    /// The login (`USER()` is `user@host`, `CURRENT_USER()` `user@%`: this server has no accounts
    /// and takes every login).
    pub user: String,
    /// The client's host, without its port.
    pub host: String,
    /// `LAST_INSERT_ID()`.
    pub last_insert_id: u64,
    /// `ROW_COUNT()`.
    pub row_count: i64,
    /// `FOUND_ROWS()`.
    pub found_rows: u64,
    /// What the running statement counted for `FOUND_ROWS()` where it ran
    /// (`execute/engine_step.rs`), taken at its end.
    pub counted: Option<u64>,
    /// `@name`, by lowercased name.
    pub user_vars: HashMap<String, Cell>,
    /// The error the previous statement ended with (`SHOW WARNINGS`).
    pub last_error: Option<ServerError>,
    /// `@@time_zone` (`time_zone.rs`).
    pub time_zone: crate::time_zone::TimeZone,
    /// `@@sql_mode` (`sql_mode.rs`).
    pub sql_mode: crate::sql_mode::SqlMode,
    /// `@@foreign_key_checks` is 0 (`foreign_keys.rs`).
    pub foreign_key_checks_off: bool,
}

/// What a `SET` gives the session's own variables (`time_zone`, `sql_mode`), set once the whole
/// statement succeeded: MySQL checks every assignment, and reads every value, before it sets any
/// (`sql_set_variables`, `sql/set_var.cc`).
#[derive(Debug, Default)]
pub struct Assigned {
    time_zone: Option<crate::time_zone::TimeZone>,
    sql_mode: Option<crate::sql_mode::SqlMode>,
    foreign_key_checks: Option<bool>,
}

impl SessionValues {
    /// The values of a new connection.
    pub fn new(connection_id: u64, user: &str, host_port: &str) -> SessionValues {
        SessionValues {
            connection_id,
            user: user.to_string(),
            host: host_of(host_port).to_string(),
            last_insert_id: 0,
            row_count: -1,
            found_rows: 0,
            counted: None,
            user_vars: HashMap::new(),
            last_error: None,
            time_zone: Default::default(),
            sql_mode: Default::default(),
            foreign_key_checks_off: false,
        }
    }

    /// What `set` gives this session's own variables (see [`Assigned`]).
    ///
    /// # Errors
    /// `time_zone`'s (`time_zone.rs`).
    pub fn assigned(&self, set: &sqlparser::ast::Set) -> Result<Assigned, ServerError> {
        Ok(Assigned {
            time_zone: crate::time_zone::assigned(set, self)?,
            sql_mode: crate::sql_mode::assigned(set, self),
            foreign_key_checks: crate::foreign_keys::assigned_checks(set, self)?,
        })
    }

    /// Sets what a `SET` that succeeded assigned.
    pub fn apply(&mut self, a: Assigned) {
        self.time_zone = a.time_zone.unwrap_or(self.time_zone);
        self.sql_mode = a.sql_mode.unwrap_or(self.sql_mode);
        if let Some(on) = a.foreign_key_checks {
            self.foreign_key_checks_off = !on;
        }
    }

    /// `@name`'s value (NULL if never set).
    pub fn user_var(&self, name: &str) -> Cell {
        let key = name.trim_start_matches('@').to_lowercase();
        self.user_vars.get(&key).cloned().unwrap_or(Cell::Null)
    }

    /// `SET @name = value`.
    pub fn set_user_var(&mut self, name: &str, value: Cell) {
        let key = name.trim_start_matches('@').to_lowercase();
        self.user_vars.insert(key, value);
    }

    /// Updates `ROW_COUNT()` and `LAST_INSERT_ID()` after a statement; `insert` says whether it
    /// was an INSERT (or REPLACE). Returns the OK packet's last insert id for the statement: the
    /// new id after an INSERT, 0 otherwise (MySQL's `my_ok` sends the id the statement generated).
    pub fn after_statement(&mut self, insert: bool, out: &mut Result<Output, ServerError>) {
        self.last_error = out.as_ref().err().cloned();
        match out {
            Ok(Output::Done {
                affected,
                last_insert_id,
            }) => {
                self.row_count = i64::try_from(*affected).unwrap_or(i64::MAX);
                if insert && *affected > 0 {
                    self.last_insert_id = *last_insert_id;
                } else {
                    *last_insert_id = 0;
                }
            }
            Ok(Output::Rows(_)) | Err(_) => self.row_count = -1,
        }
    }
}

impl SessionValues {
    /// Updates `FOUND_ROWS()` after a statement of MySQL's command `com` (module docs).
    pub fn after_found_rows(&mut self, com: Option<Com>, out: &Result<Output, ServerError>) {
        let counted = self.counted.take();
        let (Some(com), Ok(out)) = (com, out) else {
            return;
        };
        let rows = || match out {
            Output::Rows(r) => Some(r.rows.len() as u64),
            Output::Done { .. } => None,
        };
        let found = match com {
            // EXPLAIN is `Com::Select` too, and counts nothing.
            Com::Select | Com::Update => counted,
            Com::Do => Some(1),
            Com::ShowTables
            | Com::ShowDatabases
            | Com::ShowFields
            | Com::ShowKeys
            | Com::ShowVariables
            | Com::ShowStatus
            | Com::ShowTableStatus
            | Com::ShowOpenTables
            | Com::ShowTriggers
            | Com::ShowEvents
            | Com::ShowFunctionStatus
            | Com::ShowProcedureStatus
            | Com::ShowStorageEngines
            | Com::ShowCharsets
            | Com::ShowCollations
            | Com::ShowPlugins => counted.or_else(rows),
            _ => None,
        };
        if let Some(n) = found {
            self.found_rows = n;
        }
    }
}

/// The host of a client's `host:port` (an IPv6 address without its brackets).
pub fn host_of(host_port: &str) -> &str {
    let host = match host_port.rsplit_once(':') {
        Some((h, p)) if p.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host_port,
    };
    host.trim_matches(['[', ']'])
}

impl SessionValues {
    /// `LAST_INSERT_ID(expr)` ran in the statement: its value is the session's
    /// `LAST_INSERT_ID()` and the statement's insert id, as in MySQL.
    pub fn set_last_insert_id(&mut self, id: i64, out: &mut Result<Output, ServerError>) {
        // MySQL's value is unsigned: -1 is 2^64 - 1 there too.
        self.last_insert_id = id as u64;
        if let Ok(Output::Done { last_insert_id, .. }) = out {
            *last_insert_id = id as u64;
        }
    }
}

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

impl SessionValues {
    /// `SHOW WARNINGS` / `SHOW ERRORS`: MySQL's columns, the previous statement's error, within
    /// `LIMIT` (`mysqld_show_warnings` in `sql/sql_error.cc` skips the offset's conditions of
    /// the levels shown, then stops after the row count). `SHOW COUNT(*) ...`: how many, under
    /// MySQL's column name (`@@session.warning_count` counts errors too; the server records no
    /// warnings).
    pub fn show_diagnostics(&self, d: Diagnostics) -> Output {
        if d.count {
            let name = match d.errors {
                true => "@@session.error_count",
                false => "@@session.warning_count",
            };
            let count = Some(self.last_error.iter().count().to_string());
            return Output::Rows(ResultSet::text(&[name], vec![vec![count]]));
        }
        let limit = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        // Every condition kept is an error: `ERRORS` and `WARNINGS` list the same ones.
        let rows = (self.last_error.iter())
            .skip(limit(d.offset))
            .take(limit(d.rows))
            .map(|e| {
                vec![
                    Some("Error".to_string()),
                    Some(e.code.to_string()),
                    Some(e.message.clone()),
                ]
            })
            .collect();
        Output::Rows(ResultSet::text(&["Level", "Code", "Message"], rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_count_and_last_insert_id_follow_mysql() {
        let mut v = SessionValues::new(7, "root", "127.0.0.1:5000");
        assert_eq!((v.host.as_str(), v.row_count), ("127.0.0.1", -1));
        let mut ins = Ok(Output::Done {
            affected: 2,
            last_insert_id: 12,
        });
        v.after_statement(true, &mut ins);
        assert_eq!((v.row_count, v.last_insert_id), (2, 12));
        let mut upd = Ok(Output::Done {
            affected: 1,
            last_insert_id: 12,
        });
        v.after_statement(false, &mut upd);
        assert_eq!((v.row_count, v.last_insert_id), (1, 12));
        assert!(matches!(
            upd,
            Ok(Output::Done {
                last_insert_id: 0,
                ..
            })
        ));
        let mut rows = Ok(Output::Rows(crate::wire::ResultSet::text(&[], Vec::new())));
        v.after_statement(false, &mut rows);
        assert_eq!(v.row_count, -1);
        let mut ddl = Ok(Output::OK);
        v.after_statement(false, &mut ddl);
        assert_eq!(v.row_count, 0);
    }

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
        let mut v = SessionValues::new(1, "u", "h:1");
        let rows = |v: &SessionValues, text: &str| {
            let dialect = sqlparser::dialect::MySqlDialect {};
            let s = sqlparser::parser::Parser::parse_sql(&dialect, text).unwrap();
            match v.show_diagnostics(diagnostics(&s[0], text).unwrap().unwrap()) {
                Output::Rows(r) => r.rows.len(),
                _ => panic!("rows"),
            }
        };
        v.last_error = Some(ServerError::parse("x"));
        assert_eq!(rows(&v, "SHOW WARNINGS"), 1);
        assert_eq!(rows(&v, "SHOW ERRORS LIMIT 1"), 1);
        assert_eq!(rows(&v, "SHOW WARNINGS LIMIT 0"), 0);
        assert_eq!(rows(&v, "SHOW WARNINGS LIMIT 1, 1"), 0);
        assert_eq!(rows(&v, "SHOW COUNT(*) WARNINGS"), 1);
    }

    #[test]
    fn found_rows_follows_the_statements_that_set_it() {
        let mut v = SessionValues::new(7, "root", "127.0.0.1:5000");
        assert_eq!(v.found_rows, 0);
        let rows = |n| Ok(Output::Rows(ResultSet::text(&["a"], vec![vec![None]; n])));
        v.counted = Some(25);
        v.after_found_rows(Some(Com::Select), &rows(10));
        assert_eq!((v.found_rows, v.counted), (25, None));
        // EXPLAIN counts nothing; a failed statement and an INSERT leave it.
        v.after_found_rows(Some(Com::Select), &rows(3));
        v.counted = Some(4);
        v.after_found_rows(Some(Com::Select), &Err(ServerError::parse("x")));
        v.after_found_rows(Some(Com::Insert), &Ok(Output::OK));
        assert_eq!((v.found_rows, v.counted), (25, None));
        // SHOW TABLES: its rows; SHOW PROCESSLIST: not; DO: one.
        v.after_found_rows(Some(Com::ShowTables), &rows(2));
        assert_eq!(v.found_rows, 2);
        v.after_found_rows(Some(Com::ShowProcesslist), &rows(5));
        v.after_found_rows(Some(Com::ShowReplicaStatus), &rows(0));
        assert_eq!(v.found_rows, 2);
        v.after_found_rows(Some(Com::ShowPlugins), &rows(3));
        assert_eq!(v.found_rows, 3);
        v.after_found_rows(Some(Com::Do), &Ok(Output::OK));
        assert_eq!(v.found_rows, 1);
    }

    #[test]
    fn user_variables_ignore_case_and_start_null() {
        let mut v = SessionValues::new(1, "u", "[::1]:4000");
        assert_eq!(v.host, "::1");
        assert_eq!(v.user_var("@X"), Cell::Null);
        v.set_user_var("@X", Cell::Int(5));
        assert_eq!(v.user_var("@x"), Cell::Int(5));
    }
}
