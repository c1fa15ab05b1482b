//! The derived flags (`F_*`): what a class's (or instance's) one `AtomicU32` says about its
//! events, recomputed by `setup` whenever a switch changes and masked by the thread's switches.

/// Instrument enabled (class switch && master && global_instrumentation && compiled).
pub(crate) const F_ENABLED: u32 = 1;
/// Timer read (class TIMED && `timers` feature).
pub(crate) const F_TIMED: u32 = 1 << 1;
/// The family's timer is the cycle counter (and the TSC is usable).
pub(crate) const F_CYCLES: u32 = 1 << 2;
/// thread_instrumentation: per-(thread, class) stats for instance classes.
pub(crate) const F_THREAD: u32 = 1 << 3;
/// events_*_current of the class's family.
pub(crate) const F_CURRENT: u32 = 1 << 4;
/// events_*_history of the class's family.
pub(crate) const F_HISTORY: u32 = 1 << 5;
/// events_*_history_long of the class's family.
pub(crate) const F_HISTORY_LONG: u32 = 1 << 6;
/// Hold-time stats (mutex and rwlock classes).
pub(crate) const F_HOLD: u32 = 1 << 7;
/// Wait-time histogram.
pub(crate) const F_HIST: u32 = 1 << 8;
/// statements_digest.
pub(crate) const F_DIGEST: u32 = 1 << 9;
/// The class is a stage (family bit; waits have neither family bit).
pub(crate) const F_STAGE: u32 = 1 << 10;
/// The class is a statement (family bit).
pub(crate) const F_STATEMENT: u32 = 1 << 11;

/// The class is a metadata lock wait (`ClassKind::Metadata`), timed: its end time is kept for
/// the `LOCK_TIME` of the statement it is in (`statement.rs`), on the events' out-of-line end
/// (`record::end_event_other`), so the other events' ends do not test it.
pub(crate) const F_LOCK_WAIT: u32 = 1 << 12;

/// Kept in a lock guard's flags only, never a class's: the guard holds a shared (read) lock,
/// counted in its instance's `readers` rather than named its `owner` (`record::owned`).
pub(crate) const F_READ: u32 = 1 << 13;

/// The event logs of a thread (`ThreadSlot::logs`): waits (and idle), stages, statements.
pub(crate) const WAITS_LOG: usize = 0;
pub(crate) const STAGES_LOG: usize = 1;
pub(crate) const STATEMENTS_LOG: usize = 2;

/// The event log a class's events go to: [`WAITS_LOG`], [`STAGES_LOG`] or [`STATEMENTS_LOG`]
/// (the family bits read as a number).
#[inline]
pub(crate) const fn log_of(flags: u32) -> usize {
    ((flags >> 10) & 3) as usize
}
const _: () = assert!(log_of(F_STAGE) == STAGES_LOG && log_of(F_STATEMENT) == STATEMENTS_LOG);

/// Wait stack depth per thread (PFS: 5 logical levels); also the nesting depth of stages and
/// statements.
pub(crate) const STACK: usize = 5;
