//! The rows of MySQL 8.0's error summaries (`events_errors_summary_global_by_error` and its
//! siblings by thread, account, user and host): the grouping columns, then the error's columns
//! of `PFS_error_stat_row::set_field` (`storage/perfschema/table_helper.cc`).

use serde::Serialize;

use super::{concat_headers, CellValue, Row, Table};

table_row! {
    /// `events_errors_summary_global_by_error`: one error's row (`ERROR_NUMBER`, `ERROR_NAME`
    /// and `SQL_STATE` NULL in the row of the errors the server does not know).
    #[derive(Eq, Default)]
    pub struct ErrorSummaryRow {
        /// ERROR_NUMBER.
        "ERROR_NUMBER" => error_number: Option<u32>,
        /// ERROR_NAME, MySQL's (`ER_LOCK_WAIT_TIMEOUT`).
        "ERROR_NAME" => error_name: Option<&'static str>,
        /// SQL_STATE.
        "SQL_STATE" => sql_state: Option<&'static str>,
        /// SUM_ERROR_RAISED: how many times it was raised.
        "SUM_ERROR_RAISED" => sum_error_raised: u64,
        /// SUM_ERROR_HANDLED: how many times a stored-program handler handled it.
        "SUM_ERROR_HANDLED" => sum_error_handled: u64,
        /// FIRST_SEEN, UTC to the second (`2026-11-28 06:30:00`); NULL if never raised.
        "FIRST_SEEN" => first_seen: Option<String>,
        /// LAST_SEEN, as FIRST_SEEN.
        "LAST_SEEN" => last_seen: Option<String>,
    }
}

table_row! {
    /// `events_errors_summary_by_thread_by_error`.
    #[derive(Eq)]
    pub struct ErrorSummaryByThreadRow {
        /// THREAD_ID.
        "THREAD_ID" => thread_id: u64,
        ..
        /// The error's columns.
        error: ErrorSummaryRow,
    }
}

table_row! {
    /// `events_errors_summary_by_account_by_error`.
    #[derive(Eq)]
    pub struct ErrorSummaryByAccountRow {
        /// USER.
        "USER" => user: Option<String>,
        /// HOST.
        "HOST" => host: Option<String>,
        ..
        /// The error's columns.
        error: ErrorSummaryRow,
    }
}

table_row! {
    /// `events_errors_summary_by_user_by_error`.
    #[derive(Eq)]
    pub struct ErrorSummaryByUserRow {
        /// USER.
        "USER" => user: Option<String>,
        ..
        /// The error's columns.
        error: ErrorSummaryRow,
    }
}

table_row! {
    /// `events_errors_summary_by_host_by_error`.
    #[derive(Eq)]
    pub struct ErrorSummaryByHostRow {
        /// HOST.
        "HOST" => host: Option<String>,
        ..
        /// The error's columns.
        error: ErrorSummaryRow,
    }
}

/// `events_errors_summary_global_by_error`.
pub type ErrorSummaryGlobal = Table<ErrorSummaryRow>;
/// `events_errors_summary_by_thread_by_error`.
pub type ErrorSummaryByThread = Table<ErrorSummaryByThreadRow>;
/// `events_errors_summary_by_account_by_error`.
pub type ErrorSummaryByAccount = Table<ErrorSummaryByAccountRow>;
/// `events_errors_summary_by_user_by_error`.
pub type ErrorSummaryByUser = Table<ErrorSummaryByUserRow>;
/// `events_errors_summary_by_host_by_error`.
pub type ErrorSummaryByHost = Table<ErrorSummaryByHostRow>;
