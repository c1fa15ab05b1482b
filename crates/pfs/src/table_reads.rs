//! The table reads: one public function per table (`setup_*`, `events_*`, the summaries, the
//! beyond-PFS tables, `threads`, sys's `top_waits`), their `TRUNCATE`s and [`status`], each a
//! documented call into the backend's `read` module. Re-exported from the crate root.

use crate::tables::*;
use crate::{backend, ClassKind, EventFamily, Pattern, PfsError, Status};

// For the doc links.
#[cfg(doc)]
use crate::set_histograms;

/// `setup_instruments`.
pub fn setup_instruments() -> SetupInstruments {
    Table::new("setup_instruments", backend::read::setup_instruments())
}

/// `setup_consumers`.
pub fn setup_consumers() -> SetupConsumers {
    Table::new("setup_consumers", backend::read::setup_consumers())
}

/// `setup_timers`: the clock of each event family.
pub fn setup_timers() -> SetupTimers {
    Table::new("setup_timers", backend::read::setup_timers())
}

/// `setup_actors`.
pub fn setup_actors() -> SetupActors {
    Table::new("setup_actors", backend::read::setup_actors())
}

/// `setup_threads`.
pub fn setup_threads() -> SetupThreads {
    Table::new("setup_threads", backend::read::setup_threads())
}

/// `performance_timers`, with what one reading of each clock costs and which event families
/// use it. The first call calibrates the cycle counter (about 10 ms).
///
/// ```
/// println!("{}", pfs::performance_timers());
/// // +------------+-----------------+------------------+----------------+--------------+ ...
/// // | TIMER_NAME | TIMER_FREQUENCY | TIMER_RESOLUTION | TIMER_OVERHEAD | READ_COST_PS | ...
/// ```
pub fn performance_timers() -> PerformanceTimers {
    Table::new("performance_timers", backend::read::performance_timers())
}

/// `events_waits_current`: per live thread, the waits in progress (or the last one).
pub fn events_waits_current() -> EventsWaits {
    Table::new("events_waits_current", backend::read::wait_events(false))
}

/// `events_waits_history`: the last `waits_history_size` waits of each live thread.
pub fn events_waits_history() -> EventsWaits {
    Table::new("events_waits_history", backend::read::wait_events(true))
}

/// `events_waits_history_long`: the last `waits_history_long_size` waits of all threads.
pub fn events_waits_history_long() -> EventsWaits {
    Table::new(
        "events_waits_history_long",
        backend::read::waits_history_long(),
    )
}

fn family_events(name: &'static str, family: EventFamily, history: bool) -> EventsStatements {
    Table::new(name, backend::read::statement_events(family, history))
}

/// `events_stages_current`.
pub fn events_stages_current() -> EventsStatements {
    family_events("events_stages_current", EventFamily::Stage, false)
}

/// `events_stages_history`.
pub fn events_stages_history() -> EventsStatements {
    family_events("events_stages_history", EventFamily::Stage, true)
}

/// `events_stages_history_long`: the last `stages_history_long_size` stages of all threads.
pub fn events_stages_history_long() -> EventsStatements {
    let rows = backend::read::statement_history_long(EventFamily::Stage);
    Table::new("events_stages_history_long", rows)
}

/// `events_statements_current`.
pub fn events_statements_current() -> EventsStatements {
    family_events("events_statements_current", EventFamily::Statement, false)
}

/// `events_statements_history`.
pub fn events_statements_history() -> EventsStatements {
    family_events("events_statements_history", EventFamily::Statement, true)
}

/// `events_statements_history_long`: the last `statements_history_long_size` statements of
/// all threads.
pub fn events_statements_history_long() -> EventsStatements {
    let rows = backend::read::statement_history_long(EventFamily::Statement);
    Table::new("events_statements_history_long", rows)
}

/// `events_waits_summary_global_by_event_name`: one row per wait class (all registered wait
/// classes, including those with no events).
pub fn events_waits_summary_global_by_event_name() -> SummaryGlobalByEventName {
    Table::new(
        "events_waits_summary_global_by_event_name",
        backend::read::summary_global(|k| k.is_wait()),
    )
}

/// `events_statements_summary_global_by_event_name`.
pub fn events_statements_summary_global_by_event_name() -> SummaryGlobalByEventName {
    Table::new(
        "events_statements_summary_global_by_event_name",
        backend::read::summary_global(|k| k == ClassKind::Statement),
    )
}

/// `events_stages_summary_global_by_event_name`.
pub fn events_stages_summary_global_by_event_name() -> SummaryGlobalByEventName {
    Table::new(
        "events_stages_summary_global_by_event_name",
        backend::read::summary_global(|k| k == ClassKind::Stage),
    )
}

/// `events_waits_summary_by_instance`: one row per live instrumented lock instance, ordered by
/// event name and identity.
pub fn events_waits_summary_by_instance() -> SummaryByInstance {
    Table::new(
        "events_waits_summary_by_instance",
        backend::read::summary_by_instance(None),
    )
}

/// `events_waits_summary_by_instance WHERE EVENT_NAME LIKE pattern`.
pub fn events_waits_summary_by_instance_like(pattern: &str) -> Result<SummaryByInstance, PfsError> {
    let p = Pattern::parse(pattern)?;
    Ok(Table::new(
        "events_waits_summary_by_instance",
        backend::read::summary_by_instance(Some(&p)),
    ))
}

/// `mutex_instances`, `rwlock_instances` (prlocks too) or `cond_instances`, by `kind`
/// (`ClassKind::Mutex`, `RwLock`, `Cond`; another kind has no instances): one row per live
/// instrumented lock of that kind, ordered by name and identity.
pub fn synch_instances(kind: ClassKind) -> Table<SynchInstanceRow> {
    let name = match kind {
        ClassKind::Mutex => "mutex_instances",
        ClassKind::RwLock => "rwlock_instances",
        _ => "cond_instances",
    };
    Table::new(name, backend::read::synch_instances(kind))
}

/// `events_waits_summary_by_thread_by_event_name`: live threads, rows with a non-zero count
/// ([`crate::summary_by_thread_by_event_name`] of the waits).
pub fn events_waits_summary_by_thread_by_event_name() -> SummaryByThreadByEventName {
    crate::summary_by_thread_by_event_name(EventFamily::Wait)
}

/// `events_statements_summary_by_digest`, ordered by total time.
pub fn events_statements_summary_by_digest() -> SummaryByDigest {
    Table::new(
        "events_statements_summary_by_digest",
        backend::read::summary_by_digest(),
    )
}

/// Beyond PFS: wait and hold times per lock instance (lockstat style), optionally filtered by a
/// LIKE pattern on the event name, ordered by total hold then total wait time.
pub fn lock_stat_by_instance(pattern: Option<&str>) -> Result<Table<LockStatRow>, PfsError> {
    let p = pattern.map(Pattern::parse).transpose()?;
    Ok(Table::new(
        "lock_stat_by_instance",
        backend::read::lock_stat_by_instance(p.as_ref()),
    ))
}

/// Beyond PFS: wait-time histograms per class (see [`set_histograms`]).
pub fn wait_histograms() -> Table<HistogramRow> {
    Table::new("wait_histogram_by_event_name", backend::read::histograms())
}

/// `threads`: live threads with a slot (those that recorded an event or set their switches),
/// with their `std::thread` names, accounts and `INSTRUMENTED` / `HISTORY` switches.
pub fn threads() -> Threads {
    Table::new("threads", backend::read::threads())
}

/// sys `waits_global_by_latency` limited to `n` rows: timed wait classes (not `idle`) with a
/// non-zero total, ordered by total wait time, descending.
pub fn top_waits(n: usize) -> TopWaits {
    let mut rows: Vec<TopWaitRow> =
        backend::read::summary_global(|k| k.is_wait() && k != ClassKind::Idle)
            .into_iter()
            .filter(|r| r.stats.sum_timer_wait > 0)
            .map(|r| TopWaitRow {
                events: r.event_name,
                total: r.stats.count_star,
                total_latency: r.stats.sum_timer_wait,
                avg_latency: r.stats.avg_timer_wait,
                max_latency: r.stats.max_timer_wait,
            })
            .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.total_latency));
    rows.truncate(n);
    Table::new("waits_global_by_latency", rows)
}

/// `TRUNCATE TABLE events_waits_summary_global_by_event_name`: resets every summary (instances,
/// threads, exited threads, digests and their latency histograms, the wait histograms, the
/// summaries by account, user and host; not `events_statements_histogram_global`).
pub fn truncate_events_waits_summary_global_by_event_name() {
    backend::read::truncate_global();
}

/// `TRUNCATE TABLE events_waits_summary_by_instance` (also resets hold-time stats).
pub fn truncate_events_waits_summary_by_instance() {
    backend::read::truncate_by_instance();
}

/// `TRUNCATE TABLE events_*_summary_by_thread_by_event_name`. As in PFS, the per-thread stats
/// (of every kind) are first folded into the global aggregate and carried into the thread's
/// account (`reset_events_*_by_thread`), so the global summary and the summaries by account
/// ([`crate::summary_by_account_by_event_name`]) keep them.
pub fn truncate_events_waits_summary_by_thread_by_event_name() {
    backend::read::truncate_by_thread();
}

/// `TRUNCATE TABLE events_*_history` / `_history_long` (waits, stages and statements).
pub fn truncate_events_history() {
    backend::read::truncate_history();
}

/// Reset every summary, histogram and history.
pub fn truncate_all() {
    truncate_events_waits_summary_global_by_event_name();
    crate::truncate_events_statements_histogram_global();
    truncate_events_history();
}

/// `SHOW STATUS LIKE 'performance_schema%'`: buffer usage and `lost` counters.
pub fn status() -> Status {
    backend::read::status()
}
