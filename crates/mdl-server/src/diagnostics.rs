//! A session's diagnostics area: the conditions (notes, warnings, an error) its last
//! statement raised, as MySQL 8.0 keeps them (`Diagnostics_area`, `sql/sql_error.cc`).
//!
//! * **Cleared** at the start of every statement but the diagnostic ones: `SHOW [COUNT(*)]
//!   WARNINGS | ERRORS` (`show.rs`) and `GET DIAGNOSTICS` (`get.rs`, which copies its items
//!   into user variables) leave it as it was (`DA_KEEP_DIAGNOSTICS`). A statement
//!   that reads `@@warning_count` / `@@error_count` clears it too, and reads the counts it had
//!   before ([`Area::begin`] keeps them: MySQL's `DA_KEEP_COUNTS`,
//!   `Diagnostics_area::reset_condition_info`), so `SELECT @@warning_count` after a statement
//!   with a warning says 1 and a `SHOW WARNINGS` after it lists nothing, as in MySQL.
//! * **Raised**: the statement's notes and warnings as it runs (`execute/notes.rs`: DROP ... IF
//!   EXISTS of a missing object, CREATE ... IF NOT EXISTS of an existing one, a division by a
//!   literal zero in a select list), then the error it ended with (`connection.rs`). A note is
//!   not kept while `sql_notes` is 0 (`THD::raise_condition`, `sql/sql_class.cc`).
//! * **Counted**: `@@warning_count` counts every condition (errors too), `@@error_count` the
//!   errors; at most [`MAX_ERROR_COUNT`] are listed (MySQL's `max_error_count` default),
//!   every one is counted. The OK packet (or the end of a result set) carries how many
//!   conditions the statement itself raised, 0 for a diagnostic statement
//!   (`Diagnostics_area::current_statement_cond_count`), which is what a client prints as
//!   "1 warning" (`wire/warnings.rs` puts it on the wire: the OK packet's warnings field, or
//!   both EOF packets of a result set for a client without `CLIENT_DEPRECATE_EOF`).
//! * **Prepared**: a `COM_STMT_PREPARE` clears the area too, even of a diagnostic statement,
//!   and leaves there the error it fails with (`Prepared_statement::prepare`,
//!   `sql/sql_prepare.cc`), as does a `COM_STMT_EXECUTE` of an unknown statement
//!   (`connection.rs`); an execution of a diagnostic statement keeps the area. `GET
//!   DIAGNOSTICS` is not prepared at all (1295, `get.rs`).
//!
//! * **Summarized**: every condition raised counts in the session's `pfs` error summaries
//!   (`counted.rs`), a note dropped while `sql_notes` is 0 excepted.
//!
//! Clearing an empty area is a comparison: the point select pays nothing for it.

mod counted;
pub mod get;
mod show;

pub use counted::Counted;

pub use show::{diagnostics, is_show_diagnostics};

use crate::error::ServerError;

/// Whether `p` is a diagnostic statement, which leaves the area as it was (module docs).
pub fn keeps(p: &mdl_sql::Parsed) -> bool {
    match &p.statement {
        mdl_sql::Statement::Sql { statement, .. } => is_show_diagnostics(statement, &p.text),
        _ => false,
    }
}

/// MySQL's `max_error_count` default: the most conditions an area lists.
pub const MAX_ERROR_COUNT: usize = 1024;

/// A condition's severity (`Sql_condition::enum_severity_level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `Note`.
    Note,
    /// `Warning`.
    Warning,
    /// `Error`.
    Error,
}

impl Level {
    /// The name `SHOW WARNINGS` gives it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Note => "Note",
            Level::Warning => "Warning",
            Level::Error => "Error",
        }
    }
}

/// One condition: level, MySQL's code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// Its level.
    pub level: Level,
    /// MySQL's error code.
    pub code: u16,
    /// Its SQLSTATE (`GET DIAGNOSTICS`' `RETURNED_SQLSTATE`).
    pub sqlstate: &'static str,
    /// The message.
    pub message: String,
}

impl Condition {
    /// A note of `e`'s code and message (an error that `IF [NOT] EXISTS` turns into a note,
    /// as MySQL's `push_warning_printf(thd, SL_NOTE, ER_..., ...)` do).
    pub fn note(e: ServerError) -> Condition {
        Condition {
            level: Level::Note,
            code: e.code,
            sqlstate: e.sqlstate,
            message: e.message,
        }
    }

    /// `ER_DIVISION_BY_ZERO` (1365) as a warning, as a select raises it
    /// (`Item_func::signal_divide_by_null`, `sql/item_func.cc`).
    pub fn division_by_zero() -> Condition {
        Condition {
            level: Level::Warning,
            code: 1365,
            sqlstate: "22012",
            message: "Division by 0".to_string(),
        }
    }
}

/// See the module docs.
#[derive(Debug, Clone, Default)]
pub struct Area {
    /// The conditions listed (at most [`MAX_ERROR_COUNT`]).
    list: Vec<Condition>,
    /// Every condition raised since the area was cleared.
    count: u64,
    /// The errors among them.
    errors: u64,
    /// The conditions the running (or last) statement raised.
    statement: u64,
    /// `(warning_count, error_count)` when the running statement cleared the area.
    saved: (u64, u64),
    /// The running (or last) statement is a diagnostic one, which kept the area.
    kept: bool,
    /// `sql_notes` is 0: notes are not kept.
    pub notes_off: bool,
    /// Where every condition raised is counted (`counted.rs`).
    pub counted: Counted,
}

impl Area {
    /// A statement starts: the area is cleared unless the statement is a diagnostic one
    /// (`keep`); the counts it had are kept for `@@warning_count` / `@@error_count`.
    #[inline]
    pub fn begin(&mut self, keep: bool) {
        self.statement = 0;
        self.kept = keep;
        if keep {
            return;
        }
        self.saved = (self.count, self.errors);
        if self.count != 0 {
            self.list.clear();
            self.count = 0;
            self.errors = 0;
        }
    }

    /// Whether the running statement is a diagnostic one ([`keeps`]), as [`Area::begin`] was
    /// told.
    pub fn kept(&self) -> bool {
        self.kept
    }

    /// Raises `c` (a note is dropped while `sql_notes` is 0).
    pub fn raise(&mut self, c: Condition) {
        self.raise_n(c, 1);
    }

    /// Raises `c` `n` times (a division by zero on each of `n` rows): all counted, listed as
    /// long as the area has room.
    pub fn raise_n(&mut self, c: Condition, n: u64) {
        if n == 0 || (c.level == Level::Note && self.notes_off) {
            return;
        }
        self.counted.raised(c.code, n);
        let room = MAX_ERROR_COUNT.saturating_sub(self.list.len());
        let listed = usize::try_from(n).unwrap_or(usize::MAX).min(room);
        if c.level == Level::Error {
            self.errors += n;
        }
        self.count += n;
        self.statement += n;
        self.list.extend(std::iter::repeat_n(c, listed));
    }

    /// The error a statement ended with.
    pub fn error(&mut self, e: &ServerError) {
        self.raise(Condition {
            level: Level::Error,
            code: e.code,
            sqlstate: e.sqlstate,
            message: e.message.clone(),
        });
    }

    /// What the running statement raised, for its OK packet (saturated to the field's u16).
    pub fn statement_count(&self) -> u16 {
        u16::try_from(self.statement).unwrap_or(u16::MAX)
    }

    /// `@@warning_count` and `@@error_count` as a statement reads them: the counts from before
    /// it cleared the area (module docs).
    pub fn saved_counts(&self) -> (u64, u64) {
        self.saved
    }

    /// The conditions listed, errors only if `errors`.
    pub fn conditions(&self, errors: bool) -> impl Iterator<Item = &Condition> {
        (self.list.iter()).filter(move |c| !errors || c.level == Level::Error)
    }

    /// How many conditions were raised (`errors`: errors only).
    pub fn count(&self, errors: bool) -> u64 {
        match errors {
            true => self.errors,
            false => self.count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_clears_unless_kept_and_saves_counts() {
        let mut a = Area::default();
        a.begin(false);
        a.raise(Condition::division_by_zero());
        a.error(&ServerError::parse("x"));
        assert_eq!(
            (a.count(false), a.count(true), a.statement_count()),
            (2, 1, 2)
        );
        a.begin(true); // SHOW WARNINGS
        assert_eq!((a.count(false), a.statement_count()), (2, 0));
        assert_eq!(a.conditions(true).count(), 1);
        a.begin(false); // SELECT @@warning_count
        assert_eq!((a.saved_counts(), a.count(false)), ((2, 1), 0));
        a.begin(false);
        assert_eq!(a.saved_counts(), (0, 0));
    }

    #[test]
    fn notes_follow_sql_notes_and_the_list_has_a_cap() {
        let mut a = Area {
            notes_off: true,
            ..Area::default()
        };
        a.raise(Condition::note(ServerError::parse("x")));
        assert_eq!(a.count(false), 0);
        a.raise_n(Condition::division_by_zero(), 5000);
        assert_eq!(a.count(false), 5000);
        assert_eq!(a.conditions(false).count(), MAX_ERROR_COUNT);
        assert_eq!(a.statement_count(), 5000);
    }
}
