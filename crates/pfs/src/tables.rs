//! Table types: one row struct per Performance Schema table, a generic [`Table`] that renders as
//! the `mysql` client does (`Display`) and serializes to JSON (`serde::Serialize`).
//!
//! All `TIMER_*` values are picoseconds, as in PFS. Rows are plain data: they are built when a
//! table is read (see the reader functions in the crate root) and never shared with the
//! instrumented threads.

use std::fmt;

use serde::Serialize;

use crate::render::{cell, format_pico, yes_no, TextTable};

/// A row of a table: its column names and its cells as text (`None` = NULL).
pub trait Row: Serialize {
    /// Column names, in MySQL's spelling.
    const HEADERS: &'static [&'static str];
    /// The row's cells, one per header.
    fn cells(&self) -> Vec<Option<String>>;
}

/// A named result set of typed rows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Table<R> {
    /// Table name, e.g. `events_waits_summary_by_instance`.
    pub name: &'static str,
    /// The rows.
    pub rows: Vec<R>,
}

impl<R: Row> Table<R> {
    /// A table with these rows.
    pub fn new(name: &'static str, rows: Vec<R>) -> Table<R> {
        Table { name, rows }
    }

    /// The generic text form.
    pub fn to_text_table(&self) -> TextTable {
        let mut t = TextTable::new(R::HEADERS.iter().copied());
        for r in &self.rows {
            t.push_row(r.cells());
        }
        t
    }

    /// JSON: `{"name": ..., "rows": [...]}` with MySQL column names as keys.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("null"))
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// No rows?
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

impl<R: Row> fmt::Display for Table<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_text_table().fmt(f)
    }
}

/// `setup_instruments`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct SetupInstrumentRow {
    /// Instrument name.
    pub name: String,
    /// ENABLED.
    pub enabled: bool,
    /// TIMED.
    pub timed: bool,
    /// Whether this kind is compiled in (`PROPERTIES`-like; `false` = never collects).
    pub compiled: bool,
}
impl Row for SetupInstrumentRow {
    const HEADERS: &'static [&'static str] = &["NAME", "ENABLED", "TIMED", "COMPILED"];
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            cell(&self.name),
            yes_no(self.enabled),
            yes_no(self.timed),
            yes_no(self.compiled),
        ]
    }
}

/// `setup_consumers`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct SetupConsumerRow {
    /// Consumer name.
    pub name: String,
    /// ENABLED (its own switch; effective only if its ancestors are enabled too).
    pub enabled: bool,
}
impl Row for SetupConsumerRow {
    const HEADERS: &'static [&'static str] = &["NAME", "ENABLED"];
    fn cells(&self) -> Vec<Option<String>> {
        vec![cell(&self.name), yes_no(self.enabled)]
    }
}

/// `performance_timers`. NULL columns mean the timer is not available.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct PerformanceTimerRow {
    /// `CYCLE` or `NANOSECOND`.
    pub timer_name: String,
    /// Ticks per second.
    pub timer_frequency: Option<u64>,
    /// Smallest step, in ticks.
    pub timer_resolution: Option<u64>,
    /// Least cost of one reading, in ticks (min of 20 calls).
    pub timer_overhead: Option<u64>,
}
impl Row for PerformanceTimerRow {
    const HEADERS: &'static [&'static str] = &[
        "TIMER_NAME",
        "TIMER_FREQUENCY",
        "TIMER_RESOLUTION",
        "TIMER_OVERHEAD",
    ];
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            cell(&self.timer_name),
            self.timer_frequency.map(|v| v.to_string()),
            self.timer_resolution.map(|v| v.to_string()),
            self.timer_overhead.map(|v| v.to_string()),
        ]
    }
}

/// `events_waits_current` / `_history` / `_history_long`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct WaitEventRow {
    /// THREAD_ID.
    pub thread_id: u64,
    /// EVENT_ID (per thread, from 1).
    pub event_id: u64,
    /// END_EVENT_ID: NULL while the event is in progress.
    pub end_event_id: Option<u64>,
    /// EVENT_NAME.
    pub event_name: String,
    /// TIMER_START (ps since the process epoch); NULL when untimed.
    pub timer_start: Option<u64>,
    /// TIMER_END; NULL when untimed or in progress.
    pub timer_end: Option<u64>,
    /// TIMER_WAIT; NULL when untimed or in progress.
    pub timer_wait: Option<u64>,
    /// OBJECT_INSTANCE_BEGIN: the instance identity.
    pub object_instance_begin: u64,
    /// NESTING_EVENT_ID: the enclosing wait, stage or statement.
    pub nesting_event_id: Option<u64>,
    /// OPERATION.
    pub operation: String,
}
impl Row for WaitEventRow {
    const HEADERS: &'static [&'static str] = &[
        "THREAD_ID",
        "EVENT_ID",
        "END_EVENT_ID",
        "EVENT_NAME",
        "TIMER_START",
        "TIMER_END",
        "TIMER_WAIT",
        "OBJECT_INSTANCE_BEGIN",
        "NESTING_EVENT_ID",
        "OPERATION",
    ];
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            cell(self.thread_id),
            cell(self.event_id),
            self.end_event_id.map(|v| v.to_string()),
            cell(&self.event_name),
            self.timer_start.map(|v| v.to_string()),
            self.timer_end.map(|v| v.to_string()),
            self.timer_wait.map(|v| v.to_string()),
            cell(self.object_instance_begin),
            self.nesting_event_id.map(|v| v.to_string()),
            cell(&self.operation),
        ]
    }
}

/// `events_stages_current` / `_history` and `events_statements_current` / `_history`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct StatementEventRow {
    /// THREAD_ID.
    pub thread_id: u64,
    /// EVENT_ID.
    pub event_id: u64,
    /// END_EVENT_ID: NULL while in progress.
    pub end_event_id: Option<u64>,
    /// EVENT_NAME.
    pub event_name: String,
    /// TIMER_START (ps).
    pub timer_start: Option<u64>,
    /// TIMER_END (ps).
    pub timer_end: Option<u64>,
    /// TIMER_WAIT (ps).
    pub timer_wait: Option<u64>,
    /// DIGEST_TEXT (statements with a registered digest only).
    pub digest_text: Option<String>,
    /// NESTING_EVENT_ID.
    pub nesting_event_id: Option<u64>,
}
impl Row for StatementEventRow {
    const HEADERS: &'static [&'static str] = &[
        "THREAD_ID",
        "EVENT_ID",
        "END_EVENT_ID",
        "EVENT_NAME",
        "TIMER_START",
        "TIMER_END",
        "TIMER_WAIT",
        "DIGEST_TEXT",
        "NESTING_EVENT_ID",
    ];
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            cell(self.thread_id),
            cell(self.event_id),
            self.end_event_id.map(|v| v.to_string()),
            cell(&self.event_name),
            self.timer_start.map(|v| v.to_string()),
            self.timer_end.map(|v| v.to_string()),
            self.timer_wait.map(|v| v.to_string()),
            self.digest_text.clone(),
            self.nesting_event_id.map(|v| v.to_string()),
        ]
    }
}

/// Summary columns shared by the `*_summary_*` tables (all in picoseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct SummaryStats {
    /// COUNT_STAR.
    pub count_star: u64,
    /// SUM_TIMER_WAIT.
    pub sum_timer_wait: u64,
    /// MIN_TIMER_WAIT.
    pub min_timer_wait: u64,
    /// AVG_TIMER_WAIT.
    pub avg_timer_wait: u64,
    /// MAX_TIMER_WAIT.
    pub max_timer_wait: u64,
}

impl SummaryStats {
    fn cells(&self) -> [Option<String>; 5] {
        [
            cell(self.count_star),
            cell(self.sum_timer_wait),
            cell(self.min_timer_wait),
            cell(self.avg_timer_wait),
            cell(self.max_timer_wait),
        ]
    }
}

/// `events_waits_summary_global_by_event_name` (also used for the stages and statements
/// global summaries).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct SummaryByEventNameRow {
    /// EVENT_NAME.
    pub event_name: String,
    /// The summary columns.
    #[serde(flatten)]
    pub stats: SummaryStats,
}
impl Row for SummaryByEventNameRow {
    const HEADERS: &'static [&'static str] = &[
        "EVENT_NAME",
        "COUNT_STAR",
        "SUM_TIMER_WAIT",
        "MIN_TIMER_WAIT",
        "AVG_TIMER_WAIT",
        "MAX_TIMER_WAIT",
    ];
    fn cells(&self) -> Vec<Option<String>> {
        let mut v = vec![cell(&self.event_name)];
        v.extend(self.stats.cells());
        v
    }
}

/// `events_waits_summary_by_instance`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct SummaryByInstanceRow {
    /// EVENT_NAME.
    pub event_name: String,
    /// OBJECT_INSTANCE_BEGIN: the identity given at creation, or the instance slot address.
    pub object_instance_begin: u64,
    /// The summary columns.
    #[serde(flatten)]
    pub stats: SummaryStats,
}
impl Row for SummaryByInstanceRow {
    const HEADERS: &'static [&'static str] = &[
        "EVENT_NAME",
        "OBJECT_INSTANCE_BEGIN",
        "COUNT_STAR",
        "SUM_TIMER_WAIT",
        "MIN_TIMER_WAIT",
        "AVG_TIMER_WAIT",
        "MAX_TIMER_WAIT",
    ];
    fn cells(&self) -> Vec<Option<String>> {
        let mut v = vec![cell(&self.event_name), cell(self.object_instance_begin)];
        v.extend(self.stats.cells());
        v
    }
}

/// `events_waits_summary_by_thread_by_event_name`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct SummaryByThreadRow {
    /// THREAD_ID.
    pub thread_id: u64,
    /// EVENT_NAME.
    pub event_name: String,
    /// The summary columns.
    #[serde(flatten)]
    pub stats: SummaryStats,
}
impl Row for SummaryByThreadRow {
    const HEADERS: &'static [&'static str] = &[
        "THREAD_ID",
        "EVENT_NAME",
        "COUNT_STAR",
        "SUM_TIMER_WAIT",
        "MIN_TIMER_WAIT",
        "AVG_TIMER_WAIT",
        "MAX_TIMER_WAIT",
    ];
    fn cells(&self) -> Vec<Option<String>> {
        let mut v = vec![cell(self.thread_id), cell(&self.event_name)];
        v.extend(self.stats.cells());
        v
    }
}

/// `events_statements_summary_by_digest` (the subset of columns this crate keeps).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct SummaryByDigestRow {
    /// DIGEST: a stable hash of the text, hex.
    pub digest: String,
    /// DIGEST_TEXT.
    pub digest_text: String,
    /// The summary columns.
    #[serde(flatten)]
    pub stats: SummaryStats,
}
impl Row for SummaryByDigestRow {
    const HEADERS: &'static [&'static str] = &[
        "DIGEST",
        "DIGEST_TEXT",
        "COUNT_STAR",
        "SUM_TIMER_WAIT",
        "MIN_TIMER_WAIT",
        "AVG_TIMER_WAIT",
        "MAX_TIMER_WAIT",
    ];
    fn cells(&self) -> Vec<Option<String>> {
        let mut v = vec![cell(&self.digest), cell(&self.digest_text)];
        v.extend(self.stats.cells());
        v
    }
}

/// Beyond PFS: lockstat-style wait and hold times per mutex/rwlock instance
/// (`lock_stat_by_instance`; hold times need [`crate::set_hold_stats`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct LockStatRow {
    /// EVENT_NAME.
    pub event_name: String,
    /// OBJECT_INSTANCE_BEGIN.
    pub object_instance_begin: u64,
    /// Acquisitions (waits counted).
    pub acquisitions: u64,
    /// Total wait (ps).
    pub sum_timer_wait: u64,
    /// Longest wait (ps).
    pub max_timer_wait: u64,
    /// Holds measured.
    pub hold_count: u64,
    /// Total hold time (ps).
    pub sum_timer_hold: u64,
    /// Shortest hold (ps).
    pub min_timer_hold: u64,
    /// Mean hold (ps).
    pub avg_timer_hold: u64,
    /// Longest hold (ps).
    pub max_timer_hold: u64,
}
impl Row for LockStatRow {
    const HEADERS: &'static [&'static str] = &[
        "EVENT_NAME",
        "OBJECT_INSTANCE_BEGIN",
        "ACQUISITIONS",
        "SUM_TIMER_WAIT",
        "MAX_TIMER_WAIT",
        "HOLD_COUNT",
        "SUM_TIMER_HOLD",
        "MIN_TIMER_HOLD",
        "AVG_TIMER_HOLD",
        "MAX_TIMER_HOLD",
    ];
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            cell(&self.event_name),
            cell(self.object_instance_begin),
            cell(self.acquisitions),
            cell(self.sum_timer_wait),
            cell(self.max_timer_wait),
            cell(self.hold_count),
            cell(self.sum_timer_hold),
            cell(self.min_timer_hold),
            cell(self.avg_timer_hold),
            cell(self.max_timer_hold),
        ]
    }
}

/// Beyond PFS: a wait-time histogram summary per class (`wait_histogram_by_event_name`;
/// needs [`crate::set_histograms`]). Percentiles are the upper bounds of log2 buckets, so they
/// overstate by at most 2x.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct HistogramRow {
    /// EVENT_NAME.
    pub event_name: String,
    /// Timed events in the histogram.
    pub count: u64,
    /// Median (ps, bucket upper bound).
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Upper bound of the highest non-empty bucket.
    pub max: u64,
    /// `(upper bound ps, count)` for every non-empty bucket.
    pub buckets: Vec<(u64, u64)>,
}
impl Row for HistogramRow {
    const HEADERS: &'static [&'static str] =
        &["EVENT_NAME", "COUNT", "P50", "P90", "P99", "P999", "MAX"];
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            cell(&self.event_name),
            cell(self.count),
            cell(format_pico(self.p50)),
            cell(format_pico(self.p90)),
            cell(format_pico(self.p99)),
            cell(format_pico(self.p999)),
            cell(format_pico(self.max)),
        ]
    }
}

/// sys `waits_global_by_latency`: one row per timed wait class, ordered by total latency.
/// The JSON form carries raw picoseconds; the text form formats them like sys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TopWaitRow {
    /// events
    pub events: String,
    /// total (count)
    pub total: u64,
    /// total_latency (ps)
    pub total_latency: u64,
    /// avg_latency (ps)
    pub avg_latency: u64,
    /// max_latency (ps)
    pub max_latency: u64,
}
impl Row for TopWaitRow {
    const HEADERS: &'static [&'static str] = &[
        "events",
        "total",
        "total_latency",
        "avg_latency",
        "max_latency",
    ];
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            cell(&self.events),
            cell(self.total),
            cell(format_pico(self.total_latency)),
            cell(format_pico(self.avg_latency)),
            cell(format_pico(self.max_latency)),
        ]
    }
}

/// `performance_schema.metadata_locks`, MySQL 8.0's 11 columns. This crate only defines and
/// renders the row; the lock manager builds the rows by walking its live contexts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct MetadataLockRow {
    /// OBJECT_TYPE: `GLOBAL`, `SCHEMA`, `TABLE`, `FUNCTION`, `PROCEDURE`, `TRIGGER`, `EVENT`,
    /// `COMMIT`, `USER LEVEL LOCK`, `TABLESPACE`, `BACKUP LOCK`, `LOCKING SERVICE`, ...
    pub object_type: String,
    /// OBJECT_SCHEMA.
    pub object_schema: Option<String>,
    /// OBJECT_NAME.
    pub object_name: Option<String>,
    /// COLUMN_NAME (8.0).
    pub column_name: Option<String>,
    /// OBJECT_INSTANCE_BEGIN: address/identity of the ticket.
    pub object_instance_begin: u64,
    /// LOCK_TYPE: `INTENTION_EXCLUSIVE`, `SHARED`, `SHARED_HIGH_PRIO`, `SHARED_READ`,
    /// `SHARED_WRITE`, `SHARED_WRITE_LOW_PRIO`, `SHARED_UPGRADABLE`, `SHARED_READ_ONLY`,
    /// `SHARED_NO_WRITE`, `SHARED_NO_READ_WRITE`, `EXCLUSIVE`.
    pub lock_type: String,
    /// LOCK_DURATION: `STATEMENT`, `TRANSACTION`, `EXPLICIT`.
    pub lock_duration: String,
    /// LOCK_STATUS: `PENDING`, `GRANTED`, `VICTIM`, `TIMEOUT`, `KILLED`, `PRE_ACQUIRE_NOTIFY`,
    /// `POST_RELEASE_NOTIFY`.
    pub lock_status: String,
    /// SOURCE (`file:line`).
    pub source: Option<String>,
    /// OWNER_THREAD_ID.
    pub owner_thread_id: Option<u64>,
    /// OWNER_EVENT_ID.
    pub owner_event_id: Option<u64>,
}
impl Row for MetadataLockRow {
    const HEADERS: &'static [&'static str] = &[
        "OBJECT_TYPE",
        "OBJECT_SCHEMA",
        "OBJECT_NAME",
        "COLUMN_NAME",
        "OBJECT_INSTANCE_BEGIN",
        "LOCK_TYPE",
        "LOCK_DURATION",
        "LOCK_STATUS",
        "SOURCE",
        "OWNER_THREAD_ID",
        "OWNER_EVENT_ID",
    ];
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            cell(&self.object_type),
            self.object_schema.clone(),
            self.object_name.clone(),
            self.column_name.clone(),
            cell(self.object_instance_begin),
            cell(&self.lock_type),
            cell(&self.lock_duration),
            cell(&self.lock_status),
            self.source.clone(),
            self.owner_thread_id.map(|v| v.to_string()),
            self.owner_event_id.map(|v| v.to_string()),
        ]
    }
}

/// A `metadata_locks` table from rows the caller built.
pub fn metadata_locks(rows: Vec<MetadataLockRow>) -> Table<MetadataLockRow> {
    Table::new("metadata_locks", rows)
}

/// `threads`: the live threads that have a slot (have recorded something).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct ThreadRow {
    /// THREAD_ID.
    pub thread_id: u64,
    /// NAME: the `std::thread` name, if any.
    pub name: Option<String>,
}
impl Row for ThreadRow {
    const HEADERS: &'static [&'static str] = &["THREAD_ID", "NAME"];
    fn cells(&self) -> Vec<Option<String>> {
        vec![cell(self.thread_id), self.name.clone()]
    }
}

/// One `SHOW STATUS LIKE 'performance_schema%'` line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct StatusRow {
    /// Variable_name.
    pub variable_name: String,
    /// Value.
    pub value: u64,
}
impl Row for StatusRow {
    const HEADERS: &'static [&'static str] = &["Variable_name", "Value"];
    fn cells(&self) -> Vec<Option<String>> {
        vec![cell(&self.variable_name), cell(self.value)]
    }
}

/// `setup_instruments`.
pub type SetupInstruments = Table<SetupInstrumentRow>;
/// `setup_consumers`.
pub type SetupConsumers = Table<SetupConsumerRow>;
/// `performance_timers`.
pub type PerformanceTimers = Table<PerformanceTimerRow>;
/// `events_waits_current`, `events_waits_history`, `events_waits_history_long`.
pub type EventsWaits = Table<WaitEventRow>;
/// `events_statements_*` and `events_stages_*`.
pub type EventsStatements = Table<StatementEventRow>;
/// `events_waits_summary_global_by_event_name`.
pub type SummaryGlobalByEventName = Table<SummaryByEventNameRow>;
/// `events_waits_summary_by_instance`.
pub type SummaryByInstance = Table<SummaryByInstanceRow>;
/// `events_waits_summary_by_thread_by_event_name`.
pub type SummaryByThreadByEventName = Table<SummaryByThreadRow>;
/// `events_statements_summary_by_digest`.
pub type SummaryByDigest = Table<SummaryByDigestRow>;
/// sys `waits_global_by_latency`.
pub type TopWaits = Table<TopWaitRow>;
/// `threads`.
pub type Threads = Table<ThreadRow>;
/// `metadata_locks`.
pub type MetadataLocks = Table<MetadataLockRow>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_locks_render() {
        let t = metadata_locks(vec![MetadataLockRow {
            object_type: "TABLE".into(),
            object_schema: Some("sbtest".into()),
            object_name: Some("sbtest1".into()),
            column_name: None,
            object_instance_begin: 140_000,
            lock_type: "SHARED_READ".into(),
            lock_duration: "TRANSACTION".into(),
            lock_status: "GRANTED".into(),
            source: Some("sql_parse.cc:6012".into()),
            owner_thread_id: Some(48),
            owner_event_id: Some(12),
        }]);
        let s = t.to_string();
        assert!(s.contains("| OBJECT_TYPE | OBJECT_SCHEMA | OBJECT_NAME | COLUMN_NAME |"));
        assert!(s.contains("| TABLE       | sbtest        | sbtest1     | NULL        |"));
        assert!(s.ends_with("1 row in set\n"));
        let j = t.to_json();
        assert!(j.contains(r#""OBJECT_TYPE":"TABLE""#));
        assert!(j.contains(r#""COLUMN_NAME":null"#));
    }
}
