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
