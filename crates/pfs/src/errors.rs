//! The error summaries: MySQL 8.0's `events_errors_summary_global_by_error` and
//! `events_errors_summary_by_{thread,account,user,host}_by_error` (MySQL 8.0 Reference Manual,
//! "Error Summary Tables"; `storage/perfschema/table_ees_*.cc`, `pfs_error.cc`).
//!
//! A server says which errors it knows once ([`register_errors`]: MySQL's are those of its
//! `share/messages_to_clients.txt`), and reports each error, warning or note a session raises
//! ([`crate::SessionThread::error_raised`]), as MySQL's `THD::raise_condition` calls
//! `MYSQL_LOG_ERROR` for every condition. Each table has a row per key and per known error,
//! zeros and NULL `FIRST_SEEN` / `LAST_SEEN` included, and first a row whose `ERROR_NUMBER`,
//! `ERROR_NAME` and `SQL_STATE` are NULL: the errors outside the list, together.
//!
//! Counts are per thread; a thread's go to its account when it ends (a thread without an
//! account: the NULL one), and are read into users and hosts as the other summaries by account
//! are ([`crate::summary_by_account_by_event_name`]). `TRUNCATE` is MySQL's: by thread, the
//! threads' counts go to their accounts; by account, then the accounts' to their users and
//! hosts; by user (host), then the users' (hosts') go; global, everything goes.
//!
//! `SUM_ERROR_HANDLED` counts errors a stored-program handler handled (MySQL's
//! `PSI_ERROR_OPERATION_HANDLED`): a server without stored programs leaves it 0.
//!
//! ```
//! static KNOWN: [pfs::KnownError; 1] = [pfs::KnownError::new(1205, "ER_LOCK_WAIT_TIMEOUT", "HY000")];
//! pfs::register_errors(&KNOWN);
//! let s = pfs::SessionThread::new("thread/doc/errors", 77);
//! s.set_account("doc_errors", "localhost");
//! s.error_raised(1205, 1);
//! # #[cfg(feature = "instrumentation")] {
//! let rows = pfs::events_errors_summary_by_user_by_error().rows;
//! let row = rows
//!     .iter()
//!     .find(|r| r.user.as_deref() == Some("doc_errors") && r.error.error_number == Some(1205))
//!     .unwrap();
//! assert_eq!(row.error.sum_error_raised, 1);
//! # }
//! ```

use std::sync::OnceLock;

#[cfg(feature = "instrumentation")]
use crate::imp::errors as imp;
use crate::tables::*;

/// An error a server can raise: its number, MySQL's name (`ER_LOCK_WAIT_TIMEOUT`) and its
/// SQLSTATE, as `mysqld_ername.h` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownError {
    /// ERROR_NUMBER.
    pub number: u32,
    /// ERROR_NAME.
    pub name: &'static str,
    /// SQL_STATE.
    pub sql_state: &'static str,
}

impl KnownError {
    /// An error with these columns.
    pub const fn new(number: u32, name: &'static str, sql_state: &'static str) -> KnownError {
        KnownError {
            number,
            name,
            sql_state,
        }
    }
}

static KNOWN: OnceLock<&'static [KnownError]> = OnceLock::new();

/// The errors the tables list, one row each (see the module docs), in their order. Once per
/// process: a later list is ignored (false).
pub fn register_errors(known: &'static [KnownError]) -> bool {
    KNOWN.set(known).is_ok()
}

fn known() -> &'static [KnownError] {
    KNOWN.get().copied().unwrap_or(&[])
}

/// `events_errors_summary_global_by_error`.
pub fn events_errors_summary_global_by_error() -> ErrorSummaryGlobal {
    Table::new(
        "events_errors_summary_global_by_error",
        imp::global(known()),
    )
}

/// `events_errors_summary_by_thread_by_error`: every live thread's rows.
pub fn events_errors_summary_by_thread_by_error() -> ErrorSummaryByThread {
    let rows = imp::by_thread(known());
    Table::new("events_errors_summary_by_thread_by_error", rows)
}

/// `events_errors_summary_by_account_by_error`.
pub fn events_errors_summary_by_account_by_error() -> ErrorSummaryByAccount {
    let rows = imp::by_account(known());
    Table::new("events_errors_summary_by_account_by_error", rows)
}

/// `events_errors_summary_by_user_by_error`.
pub fn events_errors_summary_by_user_by_error() -> ErrorSummaryByUser {
    Table::new(
        "events_errors_summary_by_user_by_error",
        imp::by_user(known()),
    )
}

/// `events_errors_summary_by_host_by_error`.
pub fn events_errors_summary_by_host_by_error() -> ErrorSummaryByHost {
    Table::new(
        "events_errors_summary_by_host_by_error",
        imp::by_host(known()),
    )
}

/// `TRUNCATE TABLE events_errors_summary_global_by_error`: every count goes.
pub fn truncate_events_errors_summary_global_by_error() {
    imp::truncate_global();
}

/// `TRUNCATE TABLE events_errors_summary_by_thread_by_error`: the threads' counts go to their
/// accounts (the global summary keeps them).
pub fn truncate_events_errors_summary_by_thread_by_error() {
    imp::truncate_by_thread();
}

/// `TRUNCATE TABLE events_errors_summary_by_account_by_error`: as by thread, then the
/// accounts' counts go to their users and hosts.
pub fn truncate_events_errors_summary_by_account_by_error() {
    imp::truncate_by_account();
}

/// `TRUNCATE TABLE events_errors_summary_by_user_by_error`: as by account, then the users'
/// counts go.
pub fn truncate_events_errors_summary_by_user_by_error() {
    imp::truncate_by_user();
}

/// `TRUNCATE TABLE events_errors_summary_by_host_by_error`: as by account, then the hosts'
/// counts go.
pub fn truncate_events_errors_summary_by_host_by_error() {
    imp::truncate_by_host();
}

#[cfg(not(feature = "instrumentation"))]
mod imp {
    //! Compiled out: no rows.
    use crate::errors::KnownError;
    use crate::tables::*;
    pub(crate) fn global(_k: &[KnownError]) -> Vec<ErrorSummaryRow> {
        Vec::new()
    }
    pub(crate) fn by_thread(_k: &[KnownError]) -> Vec<ErrorSummaryByThreadRow> {
        Vec::new()
    }
    pub(crate) fn by_account(_k: &[KnownError]) -> Vec<ErrorSummaryByAccountRow> {
        Vec::new()
    }
    pub(crate) fn by_user(_k: &[KnownError]) -> Vec<ErrorSummaryByUserRow> {
        Vec::new()
    }
    pub(crate) fn by_host(_k: &[KnownError]) -> Vec<ErrorSummaryByHostRow> {
        Vec::new()
    }
    pub(crate) fn truncate_global() {}
    pub(crate) fn truncate_by_thread() {}
    pub(crate) fn truncate_by_account() {}
    pub(crate) fn truncate_by_user() {}
    pub(crate) fn truncate_by_host() {}
}
