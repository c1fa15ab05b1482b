//! The error summaries: `events_errors_summary_global_by_error` and
//! `events_errors_summary_by_{thread,account,user,host}_by_error`, as `pfs` counts them
//! (`pfs::events_errors_summary_global_by_error`: a row per error the server knows,
//! `error::KNOWN_ERRORS`, zeros included, after the NULL row of the errors outside that list).
//!
//! What counts: every condition a session raises in its diagnostics area (`diagnostics.rs`):
//! the error a statement (or a prepare, or an execute of an unknown statement) ends with, and
//! the warnings and notes it raised, as MySQL counts every condition `THD::raise_condition`
//! raises (`MYSQL_LOG_ERROR`, `sql/sql_class.cc`); a note while `sql_notes` is 0 is not raised
//! there, nor counted. Errors the protocol layer answers without a statement (a failed
//! `COM_INIT_DB`) do not count. `SUM_ERROR_HANDLED` is 0: the server has no stored programs,
//! so no handler ever handles an error.
//!
//! The columns are MySQL 8.0's (`storage/perfschema/table_ees_global_by_error.cc` and its
//! siblings; `FIRST_SEEN` and `LAST_SEEN` UTC here, where MySQL shows a `TIMESTAMP` in the
//! session's time zone). `TRUNCATE TABLE` resets as MySQL's `delete_all_rows`: by thread, the
//! threads' counts go to their accounts; by account, then the accounts' to their users and
//! hosts; by user (host), then the users' (hosts') go; global, everything goes.

use super::columns::Def;
use super::summaries::{HOST, USER};
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The tables.
pub(super) const TABLES: [&str; 5] = [
    "events_errors_summary_global_by_error",
    "events_errors_summary_by_thread_by_error",
    "events_errors_summary_by_account_by_error",
    "events_errors_summary_by_user_by_error",
    "events_errors_summary_by_host_by_error",
];

/// An error's columns after `$first` grouping columns.
macro_rules! by {
    ($($first:expr),*) => {
        [
            $($first,)*
            ("ERROR_NUMBER", "int"),
            ("ERROR_NAME", "varchar(64)"),
            ("SQL_STATE", "varchar(5)"),
            ("SUM_ERROR_RAISED", "bigint unsigned NOT NULL"),
            ("SUM_ERROR_HANDLED", "bigint unsigned NOT NULL"),
            ("FIRST_SEEN", "timestamp"),
            ("LAST_SEEN", "timestamp"),
        ]
    };
}

const GLOBAL: [Def; 7] = by!();
const BY_THREAD: [Def; 8] = by!(("THREAD_ID", "bigint unsigned NOT NULL"));
const BY_ACCOUNT: [Def; 9] = by!(USER, HOST);
const BY_USER: [Def; 8] = by!(USER);
const BY_HOST: [Def; 8] = by!(HOST);

/// The columns of `name`, one of [`TABLES`].
pub(super) fn defs(name: &str) -> &'static [Def] {
    match name {
        "events_errors_summary_by_thread_by_error" => &BY_THREAD,
        "events_errors_summary_by_account_by_error" => &BY_ACCOUNT,
        "events_errors_summary_by_user_by_error" => &BY_USER,
        "events_errors_summary_by_host_by_error" => &BY_HOST,
        _ => &GLOBAL,
    }
}

/// The columns `pfs`' rows of `name` give, in order (`columns.rs`' test).
#[cfg(test)]
pub(super) fn headers(name: &str) -> &'static [&'static str] {
    use pfs::tables::*;
    match name {
        "events_errors_summary_by_thread_by_error" => ErrorSummaryByThreadRow::HEADERS,
        "events_errors_summary_by_account_by_error" => ErrorSummaryByAccountRow::HEADERS,
        "events_errors_summary_by_user_by_error" => ErrorSummaryByUserRow::HEADERS,
        "events_errors_summary_by_host_by_error" => ErrorSummaryByHostRow::HEADERS,
        _ => ErrorSummaryRow::HEADERS,
    }
}

/// Fills `performance_schema.<name>`, one of [`TABLES`].
pub(super) fn fill(db: &mut EngineConn, name: &str) -> Result<(), ServerError> {
    match name {
        "events_errors_summary_by_thread_by_error" => {
            super::load(db, name, &pfs::events_errors_summary_by_thread_by_error())
        }
        "events_errors_summary_by_account_by_error" => {
            super::load(db, name, &pfs::events_errors_summary_by_account_by_error())
        }
        "events_errors_summary_by_user_by_error" => {
            super::load(db, name, &pfs::events_errors_summary_by_user_by_error())
        }
        "events_errors_summary_by_host_by_error" => {
            super::load(db, name, &pfs::events_errors_summary_by_host_by_error())
        }
        _ => super::load(db, name, &pfs::events_errors_summary_global_by_error()),
    }
}

/// `TRUNCATE TABLE performance_schema.<name>`, one of [`TABLES`] (see the module docs).
pub(super) fn truncate(name: &str) {
    match name {
        "events_errors_summary_by_thread_by_error" => {
            pfs::truncate_events_errors_summary_by_thread_by_error()
        }
        "events_errors_summary_by_account_by_error" => {
            pfs::truncate_events_errors_summary_by_account_by_error()
        }
        "events_errors_summary_by_user_by_error" => {
            pfs::truncate_events_errors_summary_by_user_by_error()
        }
        "events_errors_summary_by_host_by_error" => {
            pfs::truncate_events_errors_summary_by_host_by_error()
        }
        _ => pfs::truncate_events_errors_summary_global_by_error(),
    }
}
