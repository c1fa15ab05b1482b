//! The statement tables' rows: `events_statements_*` (and `events_stages_*`, which share the
//! row type), `events_statements_summary_by_digest` and `prepared_statements_instances`.

use serde::Serialize;

use super::{concat_headers, CellValue, EventColumns, Row, SummaryStats};

table_row! {
    /// `events_stages_*` and `events_statements_*` (`current`, `history`, `history_long`).
    #[derive(Eq)]
    pub struct StatementEventRow {
        first ..
        /// THREAD_ID to TIMER_WAIT.
        event: EventColumns,
        /// LOCK_TIME (ps): from the statement's start to the end of the last metadata-lock
        /// wait nested in it, 0 when it waited for none (or is in progress, or a stage).
        /// MySQL's is the time to `THD::set_time_after_lock`, at microsecond resolution; this
        /// one has the statement timer's.
        "LOCK_TIME" => lock_time: u64,
        /// SQL_TEXT: the text given with [`crate::PendingStatement::set_sql_text`] (at most
        /// [`crate::MAX_SQL_TEXT`] bytes, cut at a character boundary), else the digest's text
        /// (a prepared statement's digest is the text it was prepared from); NULL for a stage.
        "SQL_TEXT" => sql_text: Option<String>,
        /// DIGEST: the digest's hash, as in `events_statements_summary_by_digest`.
        "DIGEST" => digest: Option<String>,
        /// DIGEST_TEXT (statements with a registered digest only).
        "DIGEST_TEXT" => digest_text: Option<String>,
        /// CURRENT_SCHEMA: the schema the digest was registered in
        /// ([`crate::register_digest_in`]).
        "CURRENT_SCHEMA" => current_schema: Option<String>,
        /// MYSQL_ERRNO: the error of a failed statement, else 0
        /// ([`crate::StatementOutcome`], given at its end).
        "MYSQL_ERRNO" => mysql_errno: u32,
        /// RETURNED_SQLSTATE of a failed statement.
        "RETURNED_SQLSTATE" => returned_sqlstate: Option<String>,
        /// MESSAGE_TEXT of a failed statement (at most 128 bytes).
        "MESSAGE_TEXT" => message_text: Option<String>,
        /// ERRORS: 1 for a failed statement, else 0.
        "ERRORS" => errors: u64,
        /// WARNINGS.
        "WARNINGS" => warnings: u64,
        /// ROWS_AFFECTED.
        "ROWS_AFFECTED" => rows_affected: u64,
        /// ROWS_SENT.
        "ROWS_SENT" => rows_sent: u64,
        /// SELECT_SCAN: 1 for a SELECT whose engine scanned a table in full (see
        /// [`crate::StatementOutcome::engine`]).
        "SELECT_SCAN" => select_scan: u64,
        /// SORT_SCAN: the sorts the engine made.
        "SORT_SCAN" => sort_scan: u64,
        /// NO_INDEX_USED: 1 when the engine scanned a table in full.
        "NO_INDEX_USED" => no_index_used: u64,
        /// NESTING_EVENT_ID: the enclosing statement (a stage's), or the transaction in
        /// progress when the statement began ([`crate::transaction_start`]).
        "NESTING_EVENT_ID" => nesting_event_id: Option<u64>,
        /// NESTING_EVENT_TYPE: `STATEMENT` or `TRANSACTION`; NULL without a nesting event.
        "NESTING_EVENT_TYPE" => nesting_event_type: Option<String>,
    }
}

table_row! {
    /// `events_statements_summary_by_digest` (the subset of columns this crate keeps). The sums
    /// come from the statements that ended with [`crate::PendingStatement::end_with`].
    #[derive(Eq)]
    pub struct SummaryByDigestRow {
        /// SCHEMA_NAME: the schema the digest was registered in ([`crate::register_digest_in`]);
        /// rows are keyed by (SCHEMA_NAME, DIGEST), as MySQL's.
        "SCHEMA_NAME" => schema_name: Option<String>,
        /// DIGEST: a stable hash of the text, hex.
        "DIGEST" => digest: String,
        /// DIGEST_TEXT.
        "DIGEST_TEXT" => digest_text: String,
        ..
        /// The summary columns.
        stats: SummaryStats,
        /// SUM_LOCK_TIME (ps): the statements' LOCK_TIME.
        "SUM_LOCK_TIME" => sum_lock_time: u64,
        /// SUM_ERRORS.
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
        /// FIRST_SEEN: the start of the digest's first statement, UTC
        /// (`2026-11-27 09:30:00.123456`).
        "FIRST_SEEN" => first_seen: String,
        /// LAST_SEEN: the start of its last statement, UTC.
        "LAST_SEEN" => last_seen: String,
        /// QUANTILE_95 (ps): the high bound of the histogram bucket of the digest's 95th
        /// percentile statement latency ([`crate::statement_quantiles`]); 0 when none was timed.
        "QUANTILE_95" => quantile_95: u64,
        /// QUANTILE_99 (ps), the same for the 99th percentile.
        "QUANTILE_99" => quantile_99: u64,
        /// QUANTILE_999 (ps), the same for the 99.9th percentile.
        "QUANTILE_999" => quantile_999: u64,
    }
}

table_row! {
    /// `prepared_statements_instances` (MySQL's `table_prepared_stmt_instances.cc`): one row
    /// per live prepared statement ([`crate::SessionThread::prepared_statement`]), with the
    /// execution statistics the statement summaries here keep.
    #[derive(Eq)]
    pub struct PreparedStatementRow {
        /// OBJECT_INSTANCE_BEGIN: the row's identity (its slot's address).
        "OBJECT_INSTANCE_BEGIN" => object_instance_begin: u64,
        /// STATEMENT_ID: the id the server gave the statement (`COM_STMT_PREPARE`'s reply).
        "STATEMENT_ID" => statement_id: u64,
        /// STATEMENT_NAME: `PREPARE name FROM ...`'s name; NULL for the binary protocol's.
        "STATEMENT_NAME" => statement_name: Option<String>,
        /// SQL_TEXT: the prepared text.
        "SQL_TEXT" => sql_text: String,
        /// OWNER_THREAD_ID: the session that prepared it.
        "OWNER_THREAD_ID" => owner_thread_id: u64,
        /// OWNER_EVENT_ID: the preparing statement's event on that thread (a fresh id when
        /// it had no record).
        "OWNER_EVENT_ID" => owner_event_id: Option<u64>,
        /// OWNER_OBJECT_TYPE: NULL (no stored programs).
        "OWNER_OBJECT_TYPE" => owner_object_type: Option<String>,
        /// OWNER_OBJECT_SCHEMA: NULL.
        "OWNER_OBJECT_SCHEMA" => owner_object_schema: Option<String>,
        /// OWNER_OBJECT_NAME: NULL.
        "OWNER_OBJECT_NAME" => owner_object_name: Option<String>,
        /// TIMER_PREPARE (ps).
        "TIMER_PREPARE" => timer_prepare: u64,
        /// COUNT_REPREPARE: 0 (nothing here makes a statement reprepare).
        "COUNT_REPREPARE" => count_reprepare: u64,
        /// COUNT_EXECUTE.
        "COUNT_EXECUTE" => count_execute: u64,
        /// SUM_TIMER_EXECUTE (ps).
        "SUM_TIMER_EXECUTE" => sum_timer_execute: u64,
        /// MIN_TIMER_EXECUTE (ps).
        "MIN_TIMER_EXECUTE" => min_timer_execute: u64,
        /// AVG_TIMER_EXECUTE (ps).
        "AVG_TIMER_EXECUTE" => avg_timer_execute: u64,
        /// MAX_TIMER_EXECUTE (ps).
        "MAX_TIMER_EXECUTE" => max_timer_execute: u64,
        /// SUM_LOCK_TIME (ps).
        "SUM_LOCK_TIME" => sum_lock_time: u64,
        /// SUM_ERRORS.
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
