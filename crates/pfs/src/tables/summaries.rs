//! The rows of the summaries by account, user and host (`events_waits_summary_by_account_by_event_name`,
//! `events_statements_summary_by_user_by_event_name`, ...): MySQL 8.0's grouping columns
//! (`storage/perfschema/table_esms_by_account_by_event_name.cc`, `table_esms_by_user_by_event_name.cc`,
//! `table_esms_by_host_by_event_name.cc` and their `table_ews_*` siblings), then `EVENT_NAME`
//! and the summary columns.

use serde::Serialize;

use super::{concat_headers, CellValue, Row, SummaryStats, Table};

table_row! {
    /// `events_*_summary_by_account_by_event_name`.
    #[derive(Eq)]
    pub struct SummaryByAccountRow {
        /// USER.
        "USER" => user: Option<String>,
        /// HOST.
        "HOST" => host: Option<String>,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: SummaryStats,
    }
}

table_row! {
    /// `events_*_summary_by_user_by_event_name`.
    #[derive(Eq)]
    pub struct SummaryByUserRow {
        /// USER.
        "USER" => user: Option<String>,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: SummaryStats,
    }
}

table_row! {
    /// `events_*_summary_by_host_by_event_name`.
    #[derive(Eq)]
    pub struct SummaryByHostRow {
        /// HOST.
        "HOST" => host: Option<String>,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: SummaryStats,
    }
}

/// `events_*_summary_by_account_by_event_name`.
pub type SummaryByAccount = Table<SummaryByAccountRow>;
/// `events_*_summary_by_user_by_event_name`.
pub type SummaryByUser = Table<SummaryByUserRow>;
/// `events_*_summary_by_host_by_event_name`.
pub type SummaryByHost = Table<SummaryByHostRow>;

table_row! {
    /// The statement summaries' columns: the timer columns, then MySQL 8.0's counters in its
    /// order (`PFS_statement_stat_row::set_field` in `storage/perfschema/table_helper.cc`) as
    /// far as they are counted here: those `events_statements_summary_by_digest` has.
    #[derive(Copy, Default, Eq)]
    pub struct StatementSummaryStats {
        first ..
        /// COUNT_STAR and the timer columns.
        timers: SummaryStats,
        /// SUM_LOCK_TIME (ps): the statements' LOCK_TIME.
        "SUM_LOCK_TIME" => sum_lock_time: u64,
        /// SUM_ERRORS: statements that failed.
        "SUM_ERRORS" => sum_errors: u64,
        /// SUM_WARNINGS.
        "SUM_WARNINGS" => sum_warnings: u64,
        /// SUM_ROWS_AFFECTED.
        "SUM_ROWS_AFFECTED" => sum_rows_affected: u64,
        /// SUM_ROWS_SENT.
        "SUM_ROWS_SENT" => sum_rows_sent: u64,
        /// SUM_SELECT_SCAN: the statements' SELECT_SCAN.
        "SUM_SELECT_SCAN" => sum_select_scan: u64,
        /// SUM_SORT_SCAN: the statements' SORT_SCAN.
        "SUM_SORT_SCAN" => sum_sort_scan: u64,
        /// SUM_NO_INDEX_USED: the statements' NO_INDEX_USED.
        "SUM_NO_INDEX_USED" => sum_no_index_used: u64,
    }
}

table_row! {
    /// `events_statements_summary_global_by_event_name` with its counters.
    #[derive(Eq)]
    pub struct StatementSummaryByEventNameRow {
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: StatementSummaryStats,
    }
}

table_row! {
    /// `events_statements_summary_by_thread_by_event_name` with its counters.
    #[derive(Eq)]
    pub struct StatementSummaryByThreadRow {
        /// THREAD_ID.
        "THREAD_ID" => thread_id: u64,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: StatementSummaryStats,
    }
}

table_row! {
    /// `events_statements_summary_by_account_by_event_name` with its counters.
    #[derive(Eq)]
    pub struct StatementSummaryByAccountRow {
        /// USER.
        "USER" => user: Option<String>,
        /// HOST.
        "HOST" => host: Option<String>,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: StatementSummaryStats,
    }
}

table_row! {
    /// `events_statements_summary_by_user_by_event_name` with its counters.
    #[derive(Eq)]
    pub struct StatementSummaryByUserRow {
        /// USER.
        "USER" => user: Option<String>,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: StatementSummaryStats,
    }
}

table_row! {
    /// `events_statements_summary_by_host_by_event_name` with its counters.
    #[derive(Eq)]
    pub struct StatementSummaryByHostRow {
        /// HOST.
        "HOST" => host: Option<String>,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: StatementSummaryStats,
    }
}

/// `events_statements_summary_global_by_event_name` with its counters.
pub type StatementSummaryGlobal = Table<StatementSummaryByEventNameRow>;
/// `events_statements_summary_by_thread_by_event_name` with its counters.
pub type StatementSummaryByThread = Table<StatementSummaryByThreadRow>;
/// `events_statements_summary_by_account_by_event_name` with its counters.
pub type StatementSummaryByAccount = Table<StatementSummaryByAccountRow>;
/// `events_statements_summary_by_user_by_event_name` with its counters.
pub type StatementSummaryByUser = Table<StatementSummaryByUserRow>;
/// `events_statements_summary_by_host_by_event_name` with its counters.
pub type StatementSummaryByHost = Table<StatementSummaryByHostRow>;
