//! The values a session's statements read that live in the session rather than the engine:
//! `CONNECTION_ID()`, `USER()`, `CURRENT_USER()`, `LAST_INSERT_ID()`, `ROW_COUNT()` and `@user`
//! variables. The rewrite (`rewrite.rs`) puts them into a statement as literals; each statement's
//! end updates them as MySQL does.
//!
//! * `ROW_COUNT()`: the rows the previous statement changed, -1 after one that returned rows or
//!   failed, 0 after DDL (`THD::get_row_count_func`, set by `my_ok` / `my_eof` / `my_error` in
//!   `sql/sql_class.cc`, `sql/sql_parse.cc`).
//! * `LAST_INSERT_ID()`: the rowid of the last row an INSERT stored, kept until the next INSERT
//!   (SQLite's `last_insert_rowid()`: an `INTEGER PRIMARY KEY` is the table's rowid, which is how
//!   `AUTO_INCREMENT` columns are stored here; MySQL changes it only when it generated the value,
//!   here an explicit id counts too), or the value of the statement's last `LAST_INSERT_ID(expr)`
//!   (`functions.rs`), which is also the statement's insert id.
//! * `@name`: set by `SET @name = expr` (the engine evaluates `expr`), read as a literal, NULL
//!   when never set; names without case, as MySQL's (`Item_func_set_user_var`, `sql/item_func.cc`).
//! * `SHOW WARNINGS` / `SHOW ERRORS`: the error the previous statement ended with, if any (this
//!   server raises no warnings); they do not clear it themselves, as in MySQL
//!   (`Diagnostics_area`, `mysqld_show_warnings` in `sql/sql_error.cc`).

use std::collections::HashMap;

use sqlparser::ast::Statement;

use crate::error::ServerError;
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
    /// `@name`, by lowercased name.
    pub user_vars: HashMap<String, Cell>,
    /// The error the previous statement ended with (`SHOW WARNINGS`).
    pub last_error: Option<ServerError>,
    /// `@@time_zone` (`time_zone.rs`).
    pub time_zone: crate::time_zone::TimeZone,
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
            user_vars: HashMap::new(),
            last_error: None,
            time_zone: Default::default(),
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

/// Whether `s` is `SHOW WARNINGS` or `SHOW ERRORS`, or `SHOW COUNT(*) WARNINGS | ERRORS`
/// (which `sqlparser` reads as `SHOW COUNT WARNINGS`).
pub fn is_show_diagnostics(s: &Statement) -> bool {
    diagnostics_shown(s).is_some()
}

/// For `SHOW [COUNT(*)] {WARNINGS | ERRORS}`: whether it asks for the count.
fn diagnostics_shown(s: &Statement) -> Option<bool> {
    let Statement::ShowVariable { variable } = s else {
        return None;
    };
    let is = |i: usize, w: &str| {
        variable
            .get(i)
            .is_some_and(|v| v.value.eq_ignore_ascii_case(w))
    };
    let last = |i: usize| variable.len() == i + 1 && (is(i, "WARNINGS") || is(i, "ERRORS"));
    match () {
        _ if last(0) => Some(false),
        _ if is(0, "COUNT") && last(1) => Some(true),
        _ => None,
    }
}

impl SessionValues {
    /// `SHOW WARNINGS` / `SHOW ERRORS`: MySQL's columns, the previous statement's error.
    /// `SHOW COUNT(*) ...`: how many, under MySQL's column name (`@@session.warning_count`
    /// counts errors too; the server records no warnings).
    pub fn show_diagnostics(&self, s: &Statement) -> Output {
        if diagnostics_shown(s) == Some(true) {
            let errors = matches!(s, Statement::ShowVariable { variable }
                if variable[1].value.eq_ignore_ascii_case("ERRORS"));
            let name = match errors {
                true => "@@session.error_count",
                false => "@@session.warning_count",
            };
            let count = Some(self.last_error.iter().count().to_string());
            return Output::Rows(ResultSet::text(&[name], vec![vec![count]]));
        }
        let rows = (self.last_error.iter())
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

    #[test]
    fn user_variables_ignore_case_and_start_null() {
        let mut v = SessionValues::new(1, "u", "[::1]:4000");
        assert_eq!(v.host, "::1");
        assert_eq!(v.user_var("@X"), Cell::Null);
        v.set_user_var("@X", Cell::Int(5));
        assert_eq!(v.user_var("@x"), Cell::Int(5));
    }
}
