//! The transaction tables' rows: `events_transactions_*` and
//! `events_transactions_summary_*` (MySQL 8.0's columns, in its order:
//! `storage/perfschema/table_events_transactions.cc`, `table_ets_by_thread_by_event_name.cc`).

use serde::Serialize;

use super::{concat_headers, CellValue, Row, SummaryStats};

table_row! {
    /// `events_transactions_current`, `_history`, `_history_long`. What this crate does not
    /// know is NULL: `TRX_ID` (a storage engine's), `GTID`, the XA columns (`XID_*`,
    /// `XA_STATE`: no XA transactions), `SOURCE` (no source lines), `OBJECT_INSTANCE_BEGIN`
    /// (NULL in MySQL too).
    #[derive(Eq)]
    pub struct TransactionEventRow {
        /// THREAD_ID.
        "THREAD_ID" => thread_id: u64,
        /// EVENT_ID (per thread, shared with the thread's other events).
        "EVENT_ID" => event_id: u64,
        /// END_EVENT_ID: NULL while the transaction is in progress.
        "END_EVENT_ID" => end_event_id: Option<u64>,
        /// EVENT_NAME: `transaction`.
        "EVENT_NAME" => event_name: String,
        /// STATE: `ACTIVE`, `COMMITTED` or `ROLLED BACK`.
        "STATE" => state: String,
        /// TRX_ID: NULL.
        "TRX_ID" => trx_id: Option<u64>,
        /// GTID: NULL.
        "GTID" => gtid: Option<String>,
        /// XID_FORMAT_ID: NULL.
        "XID_FORMAT_ID" => xid_format_id: Option<i64>,
        /// XID_GTRID: NULL.
        "XID_GTRID" => xid_gtrid: Option<String>,
        /// XID_BQUAL: NULL.
        "XID_BQUAL" => xid_bqual: Option<String>,
        /// XA_STATE: NULL.
        "XA_STATE" => xa_state: Option<String>,
        /// SOURCE: NULL.
        "SOURCE" => source: Option<String>,
        /// TIMER_START (ps); NULL when untimed.
        "TIMER_START" => timer_start: Option<u64>,
        /// TIMER_END; NULL when untimed; now while in progress.
        "TIMER_END" => timer_end: Option<u64>,
        /// TIMER_WAIT; NULL when untimed; the time so far while in progress.
        "TIMER_WAIT" => timer_wait: Option<u64>,
        /// ACCESS_MODE: `READ ONLY` or `READ WRITE`.
        "ACCESS_MODE" => access_mode: String,
        /// ISOLATION_LEVEL: `READ UNCOMMITTED`, `READ COMMITTED`, `REPEATABLE READ`,
        /// `SERIALIZABLE`.
        "ISOLATION_LEVEL" => isolation_level: Option<String>,
        /// AUTOCOMMIT: YES for a statement's own transaction under autocommit.
        "AUTOCOMMIT" => autocommit: bool,
        /// NUMBER_OF_SAVEPOINTS.
        "NUMBER_OF_SAVEPOINTS" => number_of_savepoints: u64,
        /// NUMBER_OF_ROLLBACK_TO_SAVEPOINT.
        "NUMBER_OF_ROLLBACK_TO_SAVEPOINT" => number_of_rollback_to_savepoint: u64,
        /// NUMBER_OF_RELEASE_SAVEPOINT.
        "NUMBER_OF_RELEASE_SAVEPOINT" => number_of_release_savepoint: u64,
        /// OBJECT_INSTANCE_BEGIN: NULL.
        "OBJECT_INSTANCE_BEGIN" => object_instance_begin: Option<u64>,
        /// NESTING_EVENT_ID: the statement that began it, if recorded.
        "NESTING_EVENT_ID" => nesting_event_id: Option<u64>,
        /// NESTING_EVENT_TYPE: `STATEMENT` when NESTING_EVENT_ID is set.
        "NESTING_EVENT_TYPE" => nesting_event_type: Option<String>,
    }
}

table_row! {
    /// The columns of the `events_transactions_summary_*` tables (picoseconds): all, then the
    /// read-write and the read-only transactions.
    #[derive(Copy, Default, Eq)]
    pub struct TransactionSummaryStats {
        first ..
        /// COUNT_STAR to MAX_TIMER_WAIT.
        all: SummaryStats,
        /// COUNT_READ_WRITE.
        "COUNT_READ_WRITE" => count_read_write: u64,
        /// SUM_TIMER_READ_WRITE.
        "SUM_TIMER_READ_WRITE" => sum_timer_read_write: u64,
        /// MIN_TIMER_READ_WRITE.
        "MIN_TIMER_READ_WRITE" => min_timer_read_write: u64,
        /// AVG_TIMER_READ_WRITE.
        "AVG_TIMER_READ_WRITE" => avg_timer_read_write: u64,
        /// MAX_TIMER_READ_WRITE.
        "MAX_TIMER_READ_WRITE" => max_timer_read_write: u64,
        /// COUNT_READ_ONLY.
        "COUNT_READ_ONLY" => count_read_only: u64,
        /// SUM_TIMER_READ_ONLY.
        "SUM_TIMER_READ_ONLY" => sum_timer_read_only: u64,
        /// MIN_TIMER_READ_ONLY.
        "MIN_TIMER_READ_ONLY" => min_timer_read_only: u64,
        /// AVG_TIMER_READ_ONLY.
        "AVG_TIMER_READ_ONLY" => avg_timer_read_only: u64,
        /// MAX_TIMER_READ_ONLY.
        "MAX_TIMER_READ_ONLY" => max_timer_read_only: u64,
    }
}

table_row! {
    /// `events_transactions_summary_global_by_event_name`.
    #[derive(Eq)]
    pub struct TransactionSummaryByEventNameRow {
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: TransactionSummaryStats,
    }
}

table_row! {
    /// `events_transactions_summary_by_thread_by_event_name`.
    #[derive(Eq)]
    pub struct TransactionSummaryByThreadRow {
        /// THREAD_ID.
        "THREAD_ID" => thread_id: u64,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: TransactionSummaryStats,
    }
}

/// `events_transactions_current`, `_history`, `_history_long`.
pub type EventsTransactions = super::Table<TransactionEventRow>;

table_row! {
    /// `events_transactions_summary_by_account_by_event_name`.
    #[derive(Eq)]
    pub struct TransactionSummaryByAccountRow {
        /// USER.
        "USER" => user: Option<String>,
        /// HOST.
        "HOST" => host: Option<String>,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: TransactionSummaryStats,
    }
}

table_row! {
    /// `events_transactions_summary_by_user_by_event_name`.
    #[derive(Eq)]
    pub struct TransactionSummaryByUserRow {
        /// USER.
        "USER" => user: Option<String>,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: TransactionSummaryStats,
    }
}

table_row! {
    /// `events_transactions_summary_by_host_by_event_name`.
    #[derive(Eq)]
    pub struct TransactionSummaryByHostRow {
        /// HOST.
        "HOST" => host: Option<String>,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: TransactionSummaryStats,
    }
}

/// `events_transactions_summary_by_account_by_event_name`.
pub type TransactionSummaryByAccount = super::Table<TransactionSummaryByAccountRow>;
/// `events_transactions_summary_by_user_by_event_name`.
pub type TransactionSummaryByUser = super::Table<TransactionSummaryByUserRow>;
/// `events_transactions_summary_by_host_by_event_name`.
pub type TransactionSummaryByHost = super::Table<TransactionSummaryByHostRow>;
