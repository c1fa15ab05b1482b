//! Table types: one row struct per Performance Schema table, a generic [`Table`] that renders as
//! the `mysql` client does (`Display`) and serializes to JSON (`serde::Serialize`).
//!
//! Each row type is declared once with the `table_row!` macro of this module: the column names given
//! there are the struct's JSON keys, the text header and the order of the text cells, so adding
//! a column is one line. A column's text cell comes from [`CellValue`] (numbers as digits, `bool`
//! as `YES`/`NO`, `None` as `NULL`), or from `[pico]` (picoseconds formatted like sys'
//! `format_time()`).
//!
//! All `TIMER_*` values are picoseconds, as in PFS. Rows are plain data: they are built when a
//! table is read and never shared with the instrumented threads.

use std::fmt;

use serde::Serialize;

use crate::render::TextTable;

/// A row of a table: its column names and its cells as text (`None` = NULL).
pub trait Row: Serialize {
    /// Column names, in MySQL's spelling.
    const HEADERS: &'static [&'static str];
    /// The row's cells, one per header.
    fn cells(&self) -> Vec<Option<String>>;
}

/// A value that can be one text cell of a table.
pub trait CellValue {
    /// The cell's text; `None` renders as `NULL`.
    fn cell(&self) -> Option<String>;
}

macro_rules! display_cells {
    ($($t:ty),*) => {$(
        impl CellValue for $t {
            fn cell(&self) -> Option<String> {
                Some(self.to_string())
            }
        }
    )*};
}
display_cells!(String, &'static str, u64, u32, usize, i64);

impl CellValue for bool {
    fn cell(&self) -> Option<String> {
        Some(if *self { "YES" } else { "NO" }.to_string())
    }
}

impl<T: CellValue> CellValue for Option<T> {
    fn cell(&self) -> Option<String> {
        self.as_ref().and_then(CellValue::cell)
    }
}

/// `parts` concatenated (the headers of a row with a flattened column group).
#[doc(hidden)]
pub const fn concat_headers<const N: usize>(parts: &[&[&'static str]]) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut k) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(k == N, "header count");
    out
}

// Declares a table's row type once: its columns (name, field, type, text format), a flattened
// column group (`..field: Type`, a row type whose columns are spliced in) before them
// (`first ..field: Type`) or after them (then more columns may follow the group), and
// JSON-only fields (`json "KEY" => field: Type`).
// Generates the struct (with serde keys equal to the column names) and its `Row`
// implementation.
macro_rules! table_row {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                first .. $(#[$hmeta:meta])*
                $hfield:ident : $hty:ty,
            )?
            $(
                $(#[$fmeta:meta])*
                $col:literal $([$fmt:ident])? => $field:ident : $ty:ty,
            )*
            $(
                .. $(#[$smeta:meta])*
                $sfield:ident : $sty:ty,
                $(
                    $(#[$tmeta:meta])*
                    $tcol:literal $([$tfmt:ident])? => $tfield:ident : $tty:ty,
                )*
            )?
            $(
                json $(#[$jmeta:meta])*
                $jcol:literal => $jfield:ident : $jty:ty,
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Serialize)]
        pub struct $name {
            $( $(#[$hmeta])* #[serde(flatten)] pub $hfield: $hty, )?
            $( $(#[$fmeta])* #[serde(rename = $col)] pub $field: $ty, )*
            $(
                $(#[$smeta])* #[serde(flatten)] pub $sfield: $sty,
                $( $(#[$tmeta])* #[serde(rename = $tcol)] pub $tfield: $tty, )*
            )?
            $( $(#[$jmeta])* #[serde(rename = $jcol)] pub $jfield: $jty, )*
        }

        impl Row for $name {
            const HEADERS: &'static [&'static str] = &concat_headers::<
                {
                    $(<$hty as Row>::HEADERS.len() +)?
                    [$($col),*].len()
                    $(
                        + <$sty as Row>::HEADERS.len()
                        + { let after: &[&str] = &[$($tcol),*]; after.len() }
                    )?
                },
            >(&[
                $(<$hty as Row>::HEADERS,)?
                &[$($col),*]
                $(, <$sty as Row>::HEADERS, &[$($tcol),*])?
            ]);

            fn cells(&self) -> Vec<Option<String>> {
                let mut v = Vec::with_capacity(<Self as Row>::HEADERS.len());
                $( v.extend(Row::cells(&self.$hfield)); )?
                $( v.push(table_row!(@cell self.$field $(, $fmt)?)); )*
                $(
                    v.extend(Row::cells(&self.$sfield));
                    $( v.push(table_row!(@cell self.$tfield $(, $tfmt)?)); )*
                )?
                v
            }
        }
    };
    (@cell $e:expr) => {
        CellValue::cell(&$e)
    };
    (@cell $e:expr, pico) => {
        Some(crate::render::format_pico($e))
    };
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

mod connections;
pub use connections::*;
mod errors;
pub use errors::*;
mod histograms;
pub use histograms::*;
mod locks;
pub use locks::*;
mod statements;
pub use statements::*;
mod summaries;
pub use summaries::*;
mod transactions;
pub use transactions::*;

table_row! {
    /// `setup_instruments`.
    #[derive(Eq)]
    pub struct SetupInstrumentRow {
        /// Instrument name.
        "NAME" => name: String,
        /// ENABLED.
        "ENABLED" => enabled: bool,
        /// TIMED.
        "TIMED" => timed: bool,
        /// Whether this kind is compiled in (`PROPERTIES`-like; `false` = never collects).
        "COMPILED" => compiled: bool,
    }
}

table_row! {
    /// `setup_consumers`.
    #[derive(Eq)]
    pub struct SetupConsumerRow {
        /// Consumer name.
        "NAME" => name: String,
        /// ENABLED (its own switch; effective only if its ancestors are enabled too).
        "ENABLED" => enabled: bool,
    }
}

table_row! {
    /// `performance_timers`, with what one reading costs. NULL columns mean the timer is not
    /// available.
    #[derive(Eq)]
    pub struct PerformanceTimerRow {
        /// `CYCLE` or `NANOSECOND`.
        "TIMER_NAME" => timer_name: String,
        /// Ticks per second.
        "TIMER_FREQUENCY" => timer_frequency: Option<u64>,
        /// Smallest step, in ticks.
        "TIMER_RESOLUTION" => timer_resolution: Option<u64>,
        /// Least cost of one reading, in ticks (min of 20 back-to-back pairs).
        "TIMER_OVERHEAD" => timer_overhead: Option<u64>,
        /// Beyond PFS: the mean cost of one reading in picoseconds (the fastest of 5 loops of
        /// 2000 reads, measured at the first read of a table).
        "READ_COST_PS" => read_cost_ps: Option<u64>,
        /// Beyond PFS: the event families timed with this clock (`setup_timers`).
        "USED_BY" => used_by: String,
    }
}

table_row! {
    /// `setup_timers` (MySQL 5.7): the clock each event family is timed with.
    #[derive(Eq)]
    pub struct SetupTimerRow {
        /// `idle`, `wait`, `stage` or `statement`.
        "NAME" => name: String,
        /// `CYCLE` or `NANOSECOND`.
        "TIMER_NAME" => timer_name: String,
    }
}

table_row! {
    /// The columns every `events_*` table starts with.
    #[derive(Eq)]
    pub struct EventColumns {
        /// THREAD_ID.
        "THREAD_ID" => thread_id: u64,
        /// EVENT_ID (per thread, from 1).
        "EVENT_ID" => event_id: u64,
        /// END_EVENT_ID: NULL while the event is in progress.
        "END_EVENT_ID" => end_event_id: Option<u64>,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        /// TIMER_START (ps since the process epoch); NULL when untimed.
        "TIMER_START" => timer_start: Option<u64>,
        /// TIMER_END; NULL when untimed; now while in progress.
        "TIMER_END" => timer_end: Option<u64>,
        /// TIMER_WAIT; NULL when untimed; the time so far while in progress.
        "TIMER_WAIT" => timer_wait: Option<u64>,
    }
}

table_row! {
    /// `events_waits_current` / `_history` / `_history_long`.
    #[derive(Eq)]
    pub struct WaitEventRow {
        first ..
        /// THREAD_ID to TIMER_WAIT.
        event: EventColumns,
        /// OBJECT_INSTANCE_BEGIN: the instance identity.
        "OBJECT_INSTANCE_BEGIN" => object_instance_begin: u64,
        /// NESTING_EVENT_ID: the enclosing wait, stage or statement.
        "NESTING_EVENT_ID" => nesting_event_id: Option<u64>,
        /// OPERATION.
        "OPERATION" => operation: String,
    }
}

table_row! {
    /// Summary columns shared by the `*_summary_*` tables (all in picoseconds).
    #[derive(Copy, Default, Eq)]
    pub struct SummaryStats {
        /// COUNT_STAR.
        "COUNT_STAR" => count_star: u64,
        /// SUM_TIMER_WAIT.
        "SUM_TIMER_WAIT" => sum_timer_wait: u64,
        /// MIN_TIMER_WAIT.
        "MIN_TIMER_WAIT" => min_timer_wait: u64,
        /// AVG_TIMER_WAIT.
        "AVG_TIMER_WAIT" => avg_timer_wait: u64,
        /// MAX_TIMER_WAIT.
        "MAX_TIMER_WAIT" => max_timer_wait: u64,
    }
}

table_row! {
    /// `events_waits_summary_global_by_event_name` (also used for the stages and statements
    /// global summaries).
    #[derive(Eq)]
    pub struct SummaryByEventNameRow {
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: SummaryStats,
    }
}

table_row! {
    /// `events_waits_summary_by_instance`.
    #[derive(Eq)]
    pub struct SummaryByInstanceRow {
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        /// OBJECT_INSTANCE_BEGIN: the identity given at creation, or the instance slot address.
        "OBJECT_INSTANCE_BEGIN" => object_instance_begin: u64,
        ..
        /// The summary columns.
        stats: SummaryStats,
    }
}

table_row! {
    /// `events_waits_summary_by_thread_by_event_name`.
    #[derive(Eq)]
    pub struct SummaryByThreadRow {
        /// THREAD_ID.
        "THREAD_ID" => thread_id: u64,
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        ..
        /// The summary columns.
        stats: SummaryStats,
    }
}

table_row! {
    /// Beyond PFS: lockstat-style wait and hold times per mutex/rwlock instance
    /// (`lock_stat_by_instance`; hold times need [`crate::set_hold_stats`]).
    #[derive(Eq)]
    pub struct LockStatRow {
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        /// OBJECT_INSTANCE_BEGIN.
        "OBJECT_INSTANCE_BEGIN" => object_instance_begin: u64,
        /// Acquisitions (waits counted).
        "ACQUISITIONS" => acquisitions: u64,
        /// Total wait (ps).
        "SUM_TIMER_WAIT" => sum_timer_wait: u64,
        /// Longest wait (ps).
        "MAX_TIMER_WAIT" => max_timer_wait: u64,
        /// Holds measured.
        "HOLD_COUNT" => hold_count: u64,
        /// Total hold time (ps).
        "SUM_TIMER_HOLD" => sum_timer_hold: u64,
        /// Shortest hold (ps).
        "MIN_TIMER_HOLD" => min_timer_hold: u64,
        /// Mean hold (ps).
        "AVG_TIMER_HOLD" => avg_timer_hold: u64,
        /// Longest hold (ps).
        "MAX_TIMER_HOLD" => max_timer_hold: u64,
    }
}

table_row! {
    /// Beyond PFS: a wait-time histogram summary per class (`wait_histogram_by_event_name`;
    /// needs [`crate::set_histograms`]). Percentiles are the upper bounds of log2 buckets, so
    /// they overstate by at most 2x. The JSON form carries raw picoseconds and the buckets.
    #[derive(Eq)]
    pub struct HistogramRow {
        /// EVENT_NAME.
        "EVENT_NAME" => event_name: String,
        /// Timed events in the histogram.
        "COUNT" => count: u64,
        /// Median (ps, bucket upper bound).
        "P50" [pico] => p50: u64,
        /// 90th percentile.
        "P90" [pico] => p90: u64,
        /// 99th percentile.
        "P99" [pico] => p99: u64,
        /// 99.9th percentile.
        "P999" [pico] => p999: u64,
        /// Upper bound of the highest non-empty bucket.
        "MAX" [pico] => max: u64,
        json
        /// `(upper bound ps, count)` for every non-empty bucket.
        "BUCKETS" => buckets: Vec<(u64, u64)>,
    }
}

table_row! {
    /// sys `waits_global_by_latency`: one row per timed wait class, ordered by total latency.
    /// The JSON form carries raw picoseconds; the text form formats them like sys.
    #[derive(Eq)]
    pub struct TopWaitRow {
        /// events
        "events" => events: String,
        /// total (count)
        "total" => total: u64,
        /// total_latency (ps)
        "total_latency" [pico] => total_latency: u64,
        /// avg_latency (ps)
        "avg_latency" [pico] => avg_latency: u64,
        /// max_latency (ps)
        "max_latency" [pico] => max_latency: u64,
    }
}

table_row! {
    /// `threads`: the live threads that have a slot (have recorded something, or set their
    /// switches).
    #[derive(Eq)]
    pub struct ThreadRow {
        /// THREAD_ID.
        "THREAD_ID" => thread_id: u64,
        /// NAME: the `std::thread` name, if any, or a session thread's name.
        "NAME" => name: Option<String>,
        /// TYPE: `FOREGROUND` for a session (a [`crate::SessionThread`], or a thread that gave
        /// its account with [`crate::set_thread_account`]), else `BACKGROUND`.
        "TYPE" => thread_type: String,
        /// PROCESSLIST_ID: a session thread's connection id.
        "PROCESSLIST_ID" => processlist_id: Option<u64>,
        /// PROCESSLIST_USER: the account given to [`crate::set_thread_account`], if any.
        "PROCESSLIST_USER" => user: Option<String>,
        /// PROCESSLIST_HOST.
        "PROCESSLIST_HOST" => host: Option<String>,
        /// INSTRUMENTED: are the thread's events recorded?
        "INSTRUMENTED" => instrumented: bool,
        /// HISTORY: do its events reach the history tables?
        "HISTORY" => history: bool,
    }
}

table_row! {
    /// `setup_actors`: which accounts' sessions are instrumented, matched when a session gives
    /// its account with [`crate::set_thread_account`] (the most specific row wins).
    #[derive(Eq)]
    pub struct SetupActorRow {
        /// HOST (`%` matches any).
        "HOST" => host: String,
        /// USER (`%` matches any).
        "USER" => user: String,
        /// ROLE (always `%` here).
        "ROLE" => role: String,
        /// ENABLED: sessions of this account are instrumented.
        "ENABLED" => enabled: bool,
        /// HISTORY: their events reach the history tables.
        "HISTORY" => history: bool,
    }
}

table_row! {
    /// `setup_threads`: whether threads start instrumented, by a `LIKE` pattern on the
    /// `std::thread` name (unnamed threads are matched as `thread/unnamed`); the last matching
    /// row wins.
    #[derive(Eq)]
    pub struct SetupThreadRow {
        /// NAME pattern.
        "NAME" => name: String,
        /// ENABLED: matching threads start instrumented.
        "ENABLED" => enabled: bool,
        /// HISTORY: their events reach the history tables.
        "HISTORY" => history: bool,
    }
}

table_row! {
    /// One `SHOW STATUS LIKE 'performance_schema%'` line.
    #[derive(Eq)]
    pub struct StatusRow {
        /// Variable_name.
        "Variable_name" => variable_name: String,
        /// Value.
        "Value" => value: u64,
    }
}

/// `setup_instruments`.
pub type SetupInstruments = Table<SetupInstrumentRow>;
/// `setup_consumers`.
pub type SetupConsumers = Table<SetupConsumerRow>;
/// `performance_timers`.
pub type PerformanceTimers = Table<PerformanceTimerRow>;
/// `setup_timers`.
pub type SetupTimers = Table<SetupTimerRow>;
/// `setup_actors`.
pub type SetupActors = Table<SetupActorRow>;
/// `setup_threads`.
pub type SetupThreads = Table<SetupThreadRow>;
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
            owner_context_id: Some(7),
            owner_context_label: Some("conn 7".into()),
        }]);
        let s = t.to_string();
        assert!(s.contains("| OBJECT_TYPE | OBJECT_SCHEMA | OBJECT_NAME | COLUMN_NAME |"));
        assert!(s.contains("| TABLE       | sbtest        | sbtest1     | NULL        |"));
        assert!(s.ends_with("1 row in set\n"));
        let j = t.to_json();
        assert!(j.contains(r#""OBJECT_TYPE":"TABLE""#));
        assert!(j.contains(r#""COLUMN_NAME":null"#));
        assert!(j.contains(r#""OWNER_CONTEXT_ID":7"#));
        assert!(
            s.contains("| OWNER_CONTEXT_ID | OWNER_CONTEXT_LABEL |"),
            "{s}"
        );
    }

    #[test]
    fn flattened_and_json_only_columns() {
        assert_eq!(
            SummaryByInstanceRow::HEADERS,
            [
                "EVENT_NAME",
                "OBJECT_INSTANCE_BEGIN",
                "COUNT_STAR",
                "SUM_TIMER_WAIT",
                "MIN_TIMER_WAIT",
                "AVG_TIMER_WAIT",
                "MAX_TIMER_WAIT"
            ]
        );
        let r = SummaryByInstanceRow {
            event_name: "e".into(),
            object_instance_begin: 3,
            stats: SummaryStats {
                count_star: 1,
                ..SummaryStats::default()
            },
        };
        assert_eq!(r.cells().len(), 7);
        assert_eq!(
            WaitEventRow::HEADERS,
            [
                "THREAD_ID",
                "EVENT_ID",
                "END_EVENT_ID",
                "EVENT_NAME",
                "TIMER_START",
                "TIMER_END",
                "TIMER_WAIT",
                "OBJECT_INSTANCE_BEGIN",
                "NESTING_EVENT_ID",
                "OPERATION"
            ]
        );
        assert!(r
            .to_json_string()
            .contains(r#""OBJECT_INSTANCE_BEGIN":3,"COUNT_STAR":1"#));
        let h = HistogramRow {
            event_name: "e".into(),
            count: 1,
            p50: 1000,
            p90: 1000,
            p99: 1000,
            p999: 1000,
            max: 1000,
            buckets: vec![(1000, 1)],
        };
        assert_eq!(HistogramRow::HEADERS.len(), h.cells().len());
        assert_eq!(h.cells()[2].as_deref(), Some("1.00 ns"));
        assert!(h.to_json_string().contains(r#""BUCKETS":[[1000,1]]"#));
    }

    table_row! {
        /// One line of a demo table.
        #[derive(Eq)]
        pub struct DemoRow {
            /// The name.
            "NAME" => name: String,
            /// Total time (ps), shown formatted.
            "TOTAL" [pico] => total: u64,
            /// NULL when unknown.
            "OWNER" => owner: Option<u64>,
        }
    }

    #[test]
    fn one_declaration_gives_struct_header_cells_and_json() {
        let r = DemoRow {
            name: "x".into(),
            total: 1_500_000,
            owner: None,
        };
        assert_eq!(DemoRow::HEADERS, ["NAME", "TOTAL", "OWNER"]);
        assert_eq!(r.cells(), [Some("x".into()), Some("1.50 us".into()), None]);
        assert_eq!(
            r.to_json_string(),
            r#"{"NAME":"x","TOTAL":1500000,"OWNER":null}"#
        );
    }

    trait Json {
        fn to_json_string(&self) -> String;
    }
    impl<T: Serialize> Json for T {
        fn to_json_string(&self) -> String {
            serde_json::to_string(self).unwrap()
        }
    }
}
