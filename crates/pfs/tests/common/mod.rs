//! Helpers shared by the pfs test binaries; each binary uses some of them.
#![allow(dead_code)]

use std::sync::{Mutex, MutexGuard};

use pfs::tables::{EventsWaits, SummaryGlobalByEventName, SummaryStats};
use pfs::{ClassKind, ClassRef, Preset};

/// A test's hold on the global switches: tests in one binary change them, so they run one at
/// a time, and each leaves them at [`Preset::Default`] when it ends (also when it fails).
pub struct Serial(MutexGuard<'static, ()>);

impl Drop for Serial {
    fn drop(&mut self) {
        pfs::apply_preset(Preset::Default);
    }
}

/// Waits for the other tests of this binary to end; see [`Serial`].
pub fn serial() -> Serial {
    static LOCK: Mutex<()> = Mutex::new(());
    Serial(LOCK.lock().unwrap_or_else(|e| e.into_inner()))
}

/// [`serial`], then `preset` applied.
pub fn serial_with(preset: Preset) -> Serial {
    let s = serial();
    pfs::apply_preset(preset);
    s
}

/// Switches on the waits consumers: current, history and history_long.
pub fn waits_events_on() {
    for c in [
        "events_waits_current",
        "events_waits_history",
        "events_waits_history_long",
    ] {
        pfs::set_consumer(c, true).unwrap();
    }
}

/// Registers a class of `kind` named `name` and switches it on (timed or not).
pub fn instrumented(kind: ClassKind, name: &str, timed: bool) -> ClassRef {
    let class = pfs::register_class(kind, name);
    pfs::set_instruments(name, true, timed).unwrap();
    class
}

/// `name`'s row of a `*_summary_global_by_event_name` table (which has one for every
/// registered class of its kind).
pub fn stats_of(table: SummaryGlobalByEventName, name: &str) -> SummaryStats {
    table
        .rows
        .into_iter()
        .find(|r| r.event_name == name)
        .unwrap_or_else(|| panic!("no {} row for {name}", table.name))
        .stats
}

/// `name`'s row of events_waits_summary_global_by_event_name.
pub fn global_waits(name: &str) -> SummaryStats {
    stats_of(pfs::events_waits_summary_global_by_event_name(), name)
}

/// `name`'s row of events_statements_summary_global_by_event_name.
pub fn global_statements(name: &str) -> SummaryStats {
    stats_of(pfs::events_statements_summary_global_by_event_name(), name)
}

/// The OBJECT_INSTANCE_BEGIN of each wait in `events`, of `thread` only if given, in order.
pub fn objects(events: EventsWaits, thread: Option<u64>) -> Vec<u64> {
    events
        .rows
        .iter()
        .filter(|r| thread.is_none_or(|t| r.event.thread_id == t))
        .map(|r| r.object_instance_begin)
        .collect()
}

/// The rows of events table `$table` that thread `$thread` wrote, in order.
#[allow(unused_macros)]
macro_rules! of_thread {
    ($table:expr, $thread:expr) => {
        $table
            .rows
            .into_iter()
            .filter(|r| r.event.thread_id == $thread)
            .collect::<Vec<_>>()
    };
}
#[allow(unused_imports)]
pub(crate) use of_thread;
