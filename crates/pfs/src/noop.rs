//! The compiled-out build (umbrella feature `instrumentation` off): the same items as
//! `crate::imp`, with nothing behind them. Classes and guards are zero-sized, `enabled()` is
//! `const false`, every table is empty, and the `instrument_*!` macros expand to their body.
//! There is no state, so there is nothing for any thread to write.

use std::marker::PhantomData;

use crate::config::Sizing;
use crate::error::PfsError;
use crate::kinds::{ClassKind, Clock, Consumer, EventFamily, Operation, Preset};
use crate::pattern::Pattern;

/// A registered instrument class (compiled out: zero-sized, never enabled).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassRef;

impl ClassRef {
    /// Always `false` when the instrumentation is compiled out.
    #[inline(always)]
    pub const fn enabled(&self) -> bool {
        false
    }
    /// Always `false` when the instrumentation is compiled out.
    #[inline(always)]
    pub const fn instrument_enabled(&self) -> bool {
        false
    }
    /// Always `false` when the instrumentation is compiled out.
    #[inline(always)]
    pub const fn timed(&self) -> bool {
        false
    }
    /// Empty when the instrumentation is compiled out.
    pub fn name(&self) -> &'static str {
        ""
    }
    /// `Idle` when the instrumentation is compiled out.
    pub fn kind(&self) -> ClassKind {
        ClassKind::Idle
    }
    /// Always `false` when the instrumentation is compiled out.
    pub fn is_lost(&self) -> bool {
        false
    }
    /// The class.
    pub const fn disabled() -> ClassRef {
        ClassRef
    }
}

/// An interned statement digest text (compiled out: zero-sized).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DigestRef(());

/// An event in progress (compiled out: zero-sized, records nothing). Not `Send`.
#[must_use = "the event ends when the guard is dropped"]
#[derive(Debug)]
pub struct EventGuard {
    _not_send: PhantomData<*const ()>,
}

impl EventGuard {
    /// A guard that records nothing.
    #[inline(always)]
    pub const fn inactive() -> EventGuard {
        EventGuard {
            _not_send: PhantomData,
        }
    }
    /// Always `false` when the instrumentation is compiled out.
    #[inline(always)]
    pub fn is_active(&self) -> bool {
        false
    }
    /// End the event now (same as dropping the guard).
    #[inline(always)]
    pub fn end(self) {}
}

#[inline(always)]
pub(crate) fn start(
    _class: ClassRef,
    _op: Option<Operation>,
    _object: u64,
    _digest: DigestRef,
) -> EventGuard {
    EventGuard::inactive()
}

pub(crate) fn register_class(_kind: ClassKind, _name: &str) -> ClassRef {
    ClassRef
}
pub(crate) fn register_digest(_schema: Option<&str>, _text: &str) -> DigestRef {
    DigestRef(())
}
pub(crate) fn current_event_id() -> Option<u64> {
    None
}
pub(crate) fn init(_s: Sizing) -> Result<(), PfsError> {
    Ok(())
}
pub(crate) fn set_instruments(_p: &Pattern, _e: bool, _t: bool) -> Result<usize, PfsError> {
    Ok(0)
}
pub(crate) fn set_consumer(_c: Consumer, _e: bool) {}
pub(crate) fn set_master(_e: bool) {}
pub(crate) fn set_hold_stats(_e: bool) {}
pub(crate) fn set_histograms(_e: bool) {}
pub(crate) fn apply_preset(_p: Preset) {}
pub(crate) fn set_timer(_f: EventFamily, _c: Clock) {}
pub(crate) fn set_setup_actor(_h: &str, _u: &str, _e: bool, _hi: bool) -> Result<(), PfsError> {
    Ok(())
}
pub(crate) fn remove_setup_actor(_h: &str, _u: &str) -> bool {
    false
}
pub(crate) fn set_setup_threads(_p: &Pattern, _e: bool, _h: bool) -> Result<(), PfsError> {
    Ok(())
}
pub(crate) fn set_thread_instrumented(_on: bool) -> bool {
    false
}
pub(crate) fn set_thread_history(_on: bool) -> bool {
    false
}
pub(crate) fn set_thread_account(_user: &str, _host: &str) -> bool {
    false
}
pub(crate) fn update_thread(_id: u64, _e: bool, _h: bool) -> bool {
    false
}

/// `$body` alone: no event (`$start` is not evaluated; behind the `instrument_*!` macros).
#[doc(hidden)]
#[macro_export]
macro_rules! __in_event {
    ($start:expr, $body:expr) => {{
        $body
    }};
}

pub(crate) mod read {
    //! Every table is empty.
    use super::*;
    use crate::config::Status;
    use crate::tables::*;

    pub(crate) fn setup_instruments() -> Vec<SetupInstrumentRow> {
        Vec::new()
    }
    pub(crate) fn instrument_setting(_name: &str) -> Option<(bool, bool)> {
        None
    }
    pub(crate) fn consumer_enabled(_c: Consumer) -> (bool, bool) {
        (false, false)
    }
    pub(crate) fn master() -> bool {
        false
    }
    pub(crate) fn setup_consumers() -> Vec<SetupConsumerRow> {
        Vec::new()
    }
    pub(crate) fn setup_timers() -> Vec<SetupTimerRow> {
        Vec::new()
    }
    pub(crate) fn setup_actors() -> Vec<SetupActorRow> {
        Vec::new()
    }
    pub(crate) fn setup_threads() -> Vec<SetupThreadRow> {
        Vec::new()
    }
    pub(crate) fn performance_timers() -> Vec<PerformanceTimerRow> {
        Vec::new()
    }
    pub(crate) fn wait_events(_history: bool) -> Vec<WaitEventRow> {
        Vec::new()
    }
    pub(crate) fn waits_history_long() -> Vec<WaitEventRow> {
        Vec::new()
    }
    pub(crate) fn statement_events(_f: EventFamily, _history: bool) -> Vec<StatementEventRow> {
        Vec::new()
    }
    pub(crate) fn statement_history_long(_f: EventFamily) -> Vec<StatementEventRow> {
        Vec::new()
    }
    pub(crate) fn summary_global(_f: impl Fn(ClassKind) -> bool) -> Vec<SummaryByEventNameRow> {
        Vec::new()
    }
    pub(crate) fn summary_by_instance(_f: Option<&Pattern>) -> Vec<SummaryByInstanceRow> {
        Vec::new()
    }
    pub(crate) fn synch_instances(_k: ClassKind) -> Vec<SynchInstanceRow> {
        Vec::new()
    }
    pub(crate) fn lock_stat_by_instance(_f: Option<&Pattern>) -> Vec<LockStatRow> {
        Vec::new()
    }
    pub(crate) fn summary_by_digest() -> Vec<SummaryByDigestRow> {
        Vec::new()
    }
    pub(crate) fn histograms() -> Vec<HistogramRow> {
        Vec::new()
    }
    pub(crate) fn threads() -> Vec<ThreadRow> {
        Vec::new()
    }
    pub(crate) fn status() -> Status {
        Status::default()
    }
    pub(crate) fn truncate_by_instance() {}
    pub(crate) fn truncate_by_thread() {}
    pub(crate) fn truncate_global() {}
    pub(crate) fn truncate_history() {}
}

pub(crate) mod session {
    //! Session threads without instrumentation: a `THREAD_ID` and nothing to record.

    /// A session thread's `THREAD_ID`.
    pub(crate) struct SessionRecord {
        thread_id: u64,
    }

    impl SessionRecord {
        pub(crate) fn new(_name: &str, _processlist_id: u64) -> SessionRecord {
            SessionRecord {
                thread_id: crate::thread_id::next(),
            }
        }
        pub(crate) fn thread_id(&self) -> u64 {
            self.thread_id
        }
        pub(crate) fn set_account(&self, _user: &str, _host: &str) -> bool {
            false
        }
        pub(crate) fn error_raised(&self, _errno: u32, _count: u64) {}
        pub(crate) fn enter(&self) -> Entered {
            Entered {
                id: crate::thread_id::enter(self.thread_id),
            }
        }
    }

    /// The `THREAD_ID` entering replaced.
    pub(crate) struct Entered {
        id: u64,
    }

    pub(crate) fn leave(e: &Entered) {
        crate::thread_id::restore(e.id);
    }

    pub(crate) enum Target<'a> {
        Session(#[allow(dead_code)] &'a SessionRecord),
        Current,
        Ending,
    }

    /// Records nothing.
    pub(crate) struct Pending;

    impl Pending {
        pub(crate) fn is_active(&self) -> bool {
            false
        }
        #[inline(always)]
        pub(crate) fn set_sql_text(&self, _text: &str) {}
        #[inline(always)]
        pub(crate) fn end_with(self, _o: &crate::StatementOutcome<'_>) {}
        #[inline(always)]
        pub(crate) fn set_prepared(&mut self, _p: super::prepared::Ref) {}
    }

    #[inline(always)]
    pub(crate) fn begin(_c: super::ClassRef, _object: u64, _t: Target<'_>) -> Pending {
        Pending
    }

    #[inline(always)]
    pub(crate) fn begin_statement(
        _c: super::ClassRef,
        _digest: super::DigestRef,
        _s: &SessionRecord,
    ) -> Pending {
        Pending
    }
}

pub(crate) mod prepared {
    //! Prepared statements without instrumentation: no row, nothing to add to.

    use crate::tables::PreparedStatementRow;

    /// No row.
    pub(crate) struct Handle;

    /// Nothing to add to.
    #[derive(Clone, Copy, Default)]
    pub(crate) struct Ref;

    impl Handle {
        #[inline(always)]
        pub(crate) fn executions(&self) -> Ref {
            Ref
        }
    }

    #[inline(always)]
    pub(crate) fn create(
        _s: &super::session::SessionRecord,
        _class: Option<super::ClassRef>,
        _statement_id: u64,
        _name: Option<&str>,
        _text: &str,
        _prepare_ps: u64,
    ) -> Handle {
        Handle
    }

    pub(crate) fn rows() -> Vec<PreparedStatementRow> {
        Vec::new()
    }

    pub(crate) fn reset() {}
}
