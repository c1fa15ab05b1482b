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
//! * The diagnostics area (`SHOW WARNINGS`, `@@warning_count`): `diagnostics.rs`; and
//!   `sql_notes`, which says whether it keeps notes, set as the other boolean variables are
//!   ([`assigned_flag`]).

use std::collections::HashMap;

use sqlparser::ast::{Expr, Set, Value};

use crate::error::ServerError;
use crate::status::Com;
use crate::wire::{Cell, Output};

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
    /// The conditions of the previous statement (`diagnostics.rs`).
    pub diagnostics: crate::diagnostics::Area,
    /// `@@time_zone` (`time_zone.rs`).
    pub time_zone: crate::time_zone::TimeZone,
    /// `@@sql_mode` (`sql_mode.rs`).
    pub sql_mode: crate::sql_mode::SqlMode,
    /// `@@foreign_key_checks` is 0 (`foreign_keys.rs`).
    pub foreign_key_checks_off: bool,
    /// An `@` variable was set since the connection last published them (`published.rs`).
    pub user_vars_changed: bool,
}

/// What a `SET` gives the session's own variables (`time_zone`, `sql_mode`), set once the whole
/// statement succeeded: MySQL checks every assignment, and reads every value, before it sets any
/// (`sql_set_variables`, `sql/set_var.cc`).
#[derive(Debug, Default)]
pub struct Assigned {
    time_zone: Option<crate::time_zone::TimeZone>,
    sql_mode: Option<crate::sql_mode::SqlMode>,
    foreign_key_checks: Option<bool>,
    sql_notes: Option<bool>,
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
            diagnostics: Default::default(),
            time_zone: Default::default(),
            sql_mode: Default::default(),
            foreign_key_checks_off: false,
            user_vars_changed: false,
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
            sql_notes: assigned_flag(set, self, "sql_notes")?,
        })
    }

    /// Sets what a `SET` that succeeded assigned.
    pub fn apply(&mut self, a: Assigned) {
        self.time_zone = a.time_zone.unwrap_or(self.time_zone);
        self.sql_mode = a.sql_mode.unwrap_or(self.sql_mode);
        if let Some(on) = a.foreign_key_checks {
            self.foreign_key_checks_off = !on;
        }
        if let Some(on) = a.sql_notes {
            self.diagnostics.notes_off = !on;
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
        self.user_vars_changed = true;
    }

    /// Updates `ROW_COUNT()` and `LAST_INSERT_ID()` after a statement; `insert` says whether it
    /// was an INSERT (or REPLACE). Returns the OK packet's last insert id for the statement: the
    /// new id after an INSERT, 0 otherwise (MySQL's `my_ok` sends the id the statement generated).
    pub fn after_statement(&mut self, insert: bool, out: &mut Result<Output, ServerError>) {
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

/// The value a `SET` gives the boolean session variable `name` (`foreign_key_checks`,
/// `sql_notes`: the last of its items with a value), if any: `0 | 1 | ON | OFF | TRUE | FALSE
/// | DEFAULT | @v`; `GLOBAL` is accepted and not kept.
///
/// # Errors
/// 1231 for a literal that is no boolean (`2`, `'maybe'`), as MySQL's `Sys_var_bool` says.
pub fn assigned_flag(
    set: &Set,
    values: &SessionValues,
    name: &str,
) -> Result<Option<bool>, ServerError> {
    let wrong = |value: &str| {
        let message = format!("Variable '{name}' can't be set to the value of '{value}'");
        ServerError::new(1231, "42000", message)
    };
    let mut out = None;
    for (item, global, value) in crate::admin::set_items(set) {
        if global || item != name {
            continue;
        }
        let on = match value {
            Expr::Value(v) => match &v.value {
                Value::Boolean(b) => Some(*b),
                Value::Number(n, _) => Some(on_off(n).ok_or_else(|| wrong(n))?),
                Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                    Some(on_off(s).ok_or_else(|| wrong(s))?)
                }
                _ => None,
            },
            Expr::Identifier(i) if i.value.starts_with('@') && !i.value.starts_with("@@") => {
                match values.user_var(&i.value) {
                    Cell::Int(n) => Some(n != 0),
                    Cell::Text(s) => on_off(&s),
                    _ => None,
                }
            }
            Expr::Identifier(i) if i.quote_style.is_none() => match on_off(&i.value) {
                Some(b) => Some(b),
                None if i.value.eq_ignore_ascii_case("DEFAULT") => Some(true),
                None => None,
            },
            _ => None,
        };
        if on.is_some() {
            out = on;
        }
    }
    Ok(out)
}

fn on_off(s: &str) -> Option<bool> {
    match s.to_ascii_uppercase().as_str() {
        "ON" | "TRUE" | "1" => Some(true),
        "OFF" | "FALSE" | "0" => Some(false),
        _ => None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ResultSet;

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
