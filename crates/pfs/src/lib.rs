//! Performance-Schema-style instrumentation: switchable counters and timers, aggregated on read.
//!
//! `pfs` gives a Rust program what MySQL's Performance Schema gives the server: named instrument
//! classes (`wait/synch/mutex/mdl/MDL_map::mutex`, `statement/sql/select`, ...), each with
//! run-time ENABLED / TIMED switches; consumers that decide how much detail is kept; per-thread
//! and per-instance statistics; current-event and history tables; and a `mysql`-client style
//! rendering of every table.
//!
//! ```
//! use pfs::sync::*;
//! use pfs::ClassKind;
//!
//! // Register classes once (idempotent, cheap).
//! let mutex_class = pfs::register_class(ClassKind::Mutex, "wait/synch/mutex/doc/LOCK_example");
//! let stmt_class = pfs::register_class(ClassKind::Statement, "statement/doc/select");
//!
//! // Mutexes are disabled by default (as in MySQL); turn them on like
//! // UPDATE setup_instruments SET ENABLED='YES', TIMED='YES' WHERE NAME LIKE 'wait/synch/%'.
//! pfs::set_instruments("wait/synch/mutex/doc/%", true, true).unwrap();
//!
//! let m = Mutex::with_class(mutex_class, 0u64);
//! {
//!     let _stmt = pfs::statement_start(stmt_class, None); // timed until dropped
//!     for _ in 0..10 {
//!         *m.lock() += 1;
//!     }
//! }
//! assert_eq!(*m.lock(), 10);
//!
//! # #[cfg(feature = "mutex")] {
//! let by_instance = pfs::events_waits_summary_by_instance_like("wait/synch/mutex/doc/%").unwrap();
//! assert_eq!(by_instance.rows[0].stats.count_star, 11);
//! println!("{by_instance}"); // +------------+-----------------------+ ...
//! # }
//! println!("{}", pfs::top_waits(5));
//! println!("{}", pfs::setup_consumers().to_json());
//! ```
//!
//! # Levels
//!
//! | level | how | hot-path cost of one instrumented lock |
//! |---|---|---|
//! | compiled out | `default-features = false` (no `instrumentation`), or a class feature off | none: `pfs::sync::Mutex` *is* `parking_lot::Mutex` |
//! | master off / instrument disabled | [`set_master`]`(false)`, [`Preset::Off`], [`Preset::None`] | one relaxed load of the instance's derived flags + a branch |
//! | counted | enabled, TIMED=NO | + one load+store increment in the instance (under the lock just taken) |
//! | timed | enabled, TIMED=YES | + two timer reads *only when the lock was contended* (an uncontended acquisition is counted with a zero wait), count/sum/min/max |
//! | per thread | `thread_instrumentation` | + the (thread, class) cell, in memory owned by the thread |
//! | events | `events_waits_current` (+ `_history`, `_history_long`) | + the current-event record (seqlock, owner-written) and ring copies |
//! | beyond PFS | [`set_hold_stats`], [`set_histograms`] | + one timer read at unlock; + one log2 bucket increment |
//!
//! # Cargo features
//!
//! * `instrumentation` — the umbrella. Off: every call is a no-op, [`ClassRef`] is zero-sized and
//!   [`ClassRef::enabled`] is `const false`, every table is empty, the sync types are
//!   parking_lot's.
//! * `mutex`, `rwlock`, `cond` — instrumented [`sync::Mutex`], [`sync::RwLock`],
//!   [`sync::Condvar`]. Off: the name is a re-export of the parking_lot type and
//!   `with_class` comes from the [`sync::MutexExt`] / [`sync::RwLockExt`] / [`sync::CondvarExt`]
//!   traits, ignoring the class.
//! * `metadata` — `ClassKind::Metadata` classes can be enabled (off: never enabled).
//! * `timers` — timer reads. Off: counters only (TIMED is accepted but has no effect).
//! * `tracing` (not default) — timed waits longer than `set_tracing_threshold(..)` are also
//!   emitted as `tracing` WARN events (target `pfs::wait`). This crate never sets tracing's
//!   `max_level_*` features.
//!
//! Default: `mutex`, `rwlock`, `cond`, `metadata`, `timers`.
//!
//! # Presets
//!
//! [`apply_preset`] sets exactly the instruments and consumers of a named configuration; see
//! [`Preset`] for the table (`off`, `none`, `default`, `tables`, `statements`, `counters`,
//! `synch`). Settings (presets and [`set_instruments`] patterns) are remembered as rules and
//! also apply to classes registered later, like `--performance-schema-instrument`.
//!
//! # Hot-path protocol
//!
//! * **Derived flags.** Each class has one `AtomicU32` of derived flags, and each instance a copy,
//!   recomputed under a setup lock whenever any switch changes (instrument, consumer, master,
//!   hold, histogram). The hot path loads it once, relaxed, and knows everything: enabled, timed,
//!   which clock, per-thread stats, events, hold, histogram. A switch takes effect for the next
//!   event.
//! * **No shared read-modify-write.** Per-instance stats are written by the thread that holds the
//!   measured lock (for the read side of an rwlock, concurrent readers may lose an increment of
//!   the instance cell; the per-thread cells stay exact). Per-thread stats live in a slot owned
//!   by the thread and are updated with relaxed load + store. The one shared `fetch_add` is the
//!   `events_waits_history_long` ring index (off by default), as in PFS.
//! * **Aggregation on read.** Summaries are computed when a table is read, from live threads,
//!   live instances, and the aggregates that exited threads and dropped instances folded in.
//!   A reader copies atomics; it never blocks an instrumented lock or wait.
//! * **Bounded memory.** Classes, instances, threads and digests live in buffers allocated once
//!   ([`Sizing`], [`init`]); what does not fit runs uninstrumented and is counted in
//!   [`status`]'s `*_lost` counters. A thread's slot is allocated on its first event.
//! * **Clocks.** Waits use the cycle counter (`rdtsc`, when `/proc/cpuinfo` shows
//!   `constant_tsc` and `nonstop_tsc`; else the nanosecond clock), statements and stages the
//!   nanosecond clock (`Instant` since a process epoch). Raw ticks are stored and converted to
//!   picoseconds on read ([`performance_timers`]).
//!
//! # Deviations from PFS
//!
//! * Timed mutex/rwlock acquisitions first try the lock; an uncontended one is recorded as a
//!   zero wait without reading the clock (unless `events_waits_current` is on). So
//!   `MIN_TIMER_WAIT` is usually 0 and `SUM_TIMER_WAIT` is the contended wait time.
//! * Successful `try_lock`s are counted (with a zero wait); failed ones are not.
//! * Waits without an instance (metadata, table, statements, ...) are always summarized per
//!   thread (the thread slot is their storage); `thread_instrumentation` gates the per-thread
//!   stats of instance classes and the `events_*` consumers.
//! * `OBJECT_INSTANCE_BEGIN` is the identity given to `with_class_identity`, or the address of
//!   the instance's stats slot (stable even if the lock moves).

#![warn(missing_docs)]

mod error;
pub mod kinds;
pub mod pattern;
pub mod render;
pub mod sync;
pub mod tables;

#[cfg(feature = "instrumentation")]
pub(crate) mod imp;
#[cfg(feature = "instrumentation")]
use imp as backend;
#[cfg(not(feature = "instrumentation"))]
mod noop;
#[cfg(not(feature = "instrumentation"))]
use noop as backend;

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use backend::read::Which;
pub use error::PfsError;
pub use kinds::{default_instrument_setting, ClassKind, Clock, Consumer, Operation, Preset};
pub use pattern::Pattern;
pub use render::{cell, format_pico, yes_no, TextTable};
use tables::*;
pub use tables::{metadata_locks, MetadataLockRow, Row, Table};

/// The README's example is compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

// ---------------------------------------------------------------------------------------------
// Sizing

/// Buffer sizes, fixed when the instrumentation starts (first use, or [`init`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sizing {
    /// Instrument classes (`performance_schema_max_*_classes`). Default 256.
    pub max_classes: usize,
    /// Instrumented lock instances (`performance_schema_max_mutex_instances` etc.). Default 8192.
    pub max_instances: usize,
    /// Threads with a slot at the same time. Default 1024.
    pub max_threads: usize,
    /// Distinct statement digests. Default 256.
    pub max_digests: usize,
    /// `performance_schema_events_waits_history_size`. Default 10.
    pub waits_history_size: usize,
    /// `performance_schema_events_waits_history_long_size`. Default 10000.
    pub waits_history_long_size: usize,
    /// `performance_schema_events_stages_history_size`. Default 10.
    pub stages_history_size: usize,
    /// `performance_schema_events_statements_history_size`. Default 10.
    pub statements_history_size: usize,
}

impl Default for Sizing {
    fn default() -> Sizing {
        Sizing {
            max_classes: 256,
            max_instances: 8192,
            max_threads: 1024,
            max_digests: 256,
            waits_history_size: 10,
            waits_history_long_size: 10_000,
            stages_history_size: 10,
            statements_history_size: 10,
        }
    }
}

impl Sizing {
    /// Clamp to sane bounds (no zero-sized class table, nothing absurdly large).
    pub fn clamped(self) -> Sizing {
        Sizing {
            max_classes: self.max_classes.clamp(1, 4096),
            max_instances: self.max_instances.min(1 << 20),
            max_threads: self.max_threads.min(1 << 16),
            max_digests: self.max_digests.min(1 << 16),
            waits_history_size: self.waits_history_size.min(1 << 12),
            waits_history_long_size: self.waits_history_long_size.min(1 << 22),
            stages_history_size: self.stages_history_size.min(1 << 12),
            statements_history_size: self.statements_history_size.min(1 << 12),
        }
    }
}

/// Set the buffer sizes. Must be called before anything else touches the instrumentation
/// (registering a class, a setup call, a table read); afterwards it returns
/// [`PfsError::AlreadyInitialized`].
pub fn init(sizing: Sizing) -> Result<(), PfsError> {
    backend::init(sizing)
}

// ---------------------------------------------------------------------------------------------
// Threads

static NEXT_THREAD_ID: AtomicU64 = AtomicU64::new(1);
thread_local! {
    static THREAD_ID: Cell<u64> = const { Cell::new(0) };
}

/// The current thread's PFS `THREAD_ID`: assigned on first call, from 1, never reused.
/// Returns 0 only while the thread-local storage is being torn down.
pub fn current_thread_id() -> u64 {
    THREAD_ID
        .try_with(|c| {
            let v = c.get();
            if v != 0 {
                return v;
            }
            let v = NEXT_THREAD_ID.fetch_add(1, Ordering::Relaxed);
            c.set(v);
            v
        })
        .unwrap_or(0)
}

/// The `EVENT_ID` of the innermost event in progress on this thread — a wait, else a stage,
/// else a statement — or `None` (no event in progress, or the `events_*_current` consumers are
/// off). Useful for `metadata_locks.OWNER_EVENT_ID`.
pub fn current_event_id() -> Option<u64> {
    #[cfg(feature = "instrumentation")]
    {
        imp::thread::current_event_id()
    }
    #[cfg(not(feature = "instrumentation"))]
    {
        None
    }
}

// ---------------------------------------------------------------------------------------------
// Classes

/// A registered instrument class. `Copy`, `'static`, one pointer wide (zero-sized without the
/// `instrumentation` feature).
#[cfg(feature = "instrumentation")]
#[derive(Clone, Copy)]
pub struct ClassRef(pub(crate) &'static imp::ClassInfo);

/// A registered instrument class (no-op build: zero-sized, never enabled).
#[cfg(not(feature = "instrumentation"))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassRef;

#[cfg(feature = "instrumentation")]
impl ClassRef {
    /// Is the class enabled (class switch, master, global_instrumentation, compiled)?
    /// One relaxed load of the derived flags.
    #[inline]
    pub fn enabled(&self) -> bool {
        self.0.flags.load(Ordering::Relaxed) & imp::F_ENABLED != 0
    }

    /// Is the class enabled and timed? One relaxed load of the derived flags.
    #[inline]
    pub fn timed(&self) -> bool {
        self.0.flags.load(Ordering::Relaxed) & imp::F_TIMED != 0
    }

    /// The full instrument name (`"lost"` for the placeholder of a full class buffer).
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The class kind.
    pub fn kind(&self) -> ClassKind {
        self.0.kind()
    }

    /// Was this class lost because the class buffer was full? (It is then never enabled.)
    pub fn is_lost(&self) -> bool {
        !self.0.is_registered()
    }

    /// A placeholder class that is never enabled.
    pub fn disabled() -> ClassRef {
        ClassRef(&imp::LOST_CLASS)
    }
}

#[cfg(not(feature = "instrumentation"))]
impl ClassRef {
    /// Always `false` in the no-op build.
    #[inline(always)]
    pub const fn enabled(&self) -> bool {
        false
    }
    /// Always `false` in the no-op build.
    #[inline(always)]
    pub const fn timed(&self) -> bool {
        false
    }
    /// Empty in the no-op build.
    pub fn name(&self) -> &'static str {
        ""
    }
    /// `Idle` in the no-op build.
    pub fn kind(&self) -> ClassKind {
        ClassKind::Idle
    }
    /// Always `false` in the no-op build.
    pub fn is_lost(&self) -> bool {
        false
    }
    /// The class.
    pub const fn disabled() -> ClassRef {
        ClassRef
    }
}

#[cfg(feature = "instrumentation")]
impl PartialEq for ClassRef {
    fn eq(&self, other: &ClassRef) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
#[cfg(feature = "instrumentation")]
impl Eq for ClassRef {}

#[cfg(feature = "instrumentation")]
impl std::fmt::Debug for ClassRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassRef")
            .field("name", &self.name())
            .field("kind", &self.kind())
            .field("enabled", &self.enabled())
            .field("timed", &self.timed())
            .finish()
    }
}

/// Register (or look up) an instrument class by its full PFS name. Idempotent: the same name
/// returns the same class (the kind of the first registration wins). New classes start with
/// MySQL 8.0's defaults ([`default_instrument_setting`]) and then every remembered
/// [`set_instruments`] / [`apply_preset`] rule. When the class buffer is full the returned
/// class is a never-enabled placeholder and `class_lost` is bumped.
///
/// Cheap enough to call from a `static` `OnceLock` initializer (a hash lookup under a lock).
pub fn register_class(kind: ClassKind, name: &str) -> ClassRef {
    #[cfg(feature = "instrumentation")]
    {
        ClassRef(imp::register_class(kind, name))
    }
    #[cfg(not(feature = "instrumentation"))]
    {
        let _ = (kind, name);
        ClassRef
    }
}

/// Register a class once per call site and return it (a `static OnceLock` at the call site):
/// `let c = pfs::class!(ClassKind::Mutex, "wait/synch/mutex/mdl/MDL_map::mutex");`.
/// Works (and returns the zero-sized class) without the `instrumentation` feature too.
#[macro_export]
macro_rules! class {
    ($kind:expr, $name:expr) => {{
        static __PFS_CLASS: ::std::sync::OnceLock<$crate::ClassRef> = ::std::sync::OnceLock::new();
        *__PFS_CLASS.get_or_init(|| $crate::register_class($kind, $name))
    }};
}

/// An interned statement digest text (see [`register_digest`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DigestRef(#[cfg(feature = "instrumentation")] u32);

/// Intern a normalized statement text (e.g. `"SELECT c FROM sbtest1 WHERE id = ?"`) for
/// `events_statements_summary_by_digest`. Register once, pass the handle to
/// [`statement_start`]: the hot path then indexes an array instead of hashing text. When the
/// digest buffer is full the handle is empty and `digest_lost` is bumped.
pub fn register_digest(text: &str) -> DigestRef {
    #[cfg(feature = "instrumentation")]
    {
        DigestRef(imp::register_digest(text).map_or(0, |i| i + 1))
    }
    #[cfg(not(feature = "instrumentation"))]
    {
        let _ = text;
        DigestRef()
    }
}

// ---------------------------------------------------------------------------------------------
// Event guards

/// An event in progress (wait, statement or stage); recorded when dropped or [`end`]ed.
/// Zero-sized without the `instrumentation` feature, and inert when the class was disabled at
/// start. Not `Send`: an event starts and ends on one thread.
///
/// [`end`]: EventGuard::end
#[must_use = "the event ends when the guard is dropped"]
pub struct EventGuard {
    #[cfg(feature = "instrumentation")]
    inner: Option<imp::wait::Active>,
    _not_send: PhantomData<*const ()>,
}

/// A wait event guard ([`wait_start`]).
pub type WaitGuard = EventGuard;
/// A statement event guard ([`statement_start`]).
pub type StatementGuard = EventGuard;
/// A stage event guard ([`stage_start`]).
pub type StageGuard = EventGuard;

impl EventGuard {
    /// A guard that records nothing.
    #[inline]
    pub const fn inactive() -> EventGuard {
        EventGuard {
            #[cfg(feature = "instrumentation")]
            inner: None,
            _not_send: PhantomData,
        }
    }

    /// Will this guard record an event?
    #[inline]
    pub fn is_active(&self) -> bool {
        #[cfg(feature = "instrumentation")]
        {
            self.inner.is_some()
        }
        #[cfg(not(feature = "instrumentation"))]
        {
            false
        }
    }

    /// End the event now (same as dropping the guard).
    #[inline]
    pub fn end(self) {}
}

impl Drop for EventGuard {
    #[inline]
    fn drop(&mut self) {
        #[cfg(feature = "instrumentation")]
        if let Some(a) = self.inner.take() {
            imp::wait::end(&a, None);
        }
    }
}

impl std::fmt::Debug for EventGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventGuard")
            .field("active", &self.is_active())
            .finish()
    }
}

#[cfg(feature = "instrumentation")]
#[inline]
fn start(class: ClassRef, op: Option<Operation>, object: u64, digest: u32) -> EventGuard {
    let f = class.0.flags.load(Ordering::Relaxed);
    if f & imp::F_ENABLED == 0 {
        return EventGuard::inactive();
    }
    start_enabled(class, f, op, object, digest)
}

/// The enabled path of [`start`], out of line so the disabled path needs no stack frame.
#[cfg(feature = "instrumentation")]
#[inline(never)]
fn start_enabled(
    class: ClassRef,
    f: u32,
    op: Option<Operation>,
    object: u64,
    digest: u32,
) -> EventGuard {
    if f & (imp::F_TIMED | imp::F_CURRENT) == 0 {
        // PFS's "complete shortcut": a counted-only event is one increment, no end call.
        imp::wait::count_only(class.0, f, digest);
        return EventGuard::inactive();
    }
    let op = op.unwrap_or_else(|| class.kind().default_operation());
    EventGuard {
        inner: Some(imp::wait::begin(class.0, f, op, object, digest)),
        _not_send: PhantomData,
    }
}

/// Start a wait of `class` on the object `object` (its identity, shown as
/// `OBJECT_INSTANCE_BEGIN`), e.g. around a metadata-lock wait. When the class is disabled this
/// is one relaxed load and returns an inert guard.
#[inline]
pub fn wait_start(class: ClassRef, object: usize) -> WaitGuard {
    #[cfg(feature = "instrumentation")]
    {
        start(class, None, object as u64, 0)
    }
    #[cfg(not(feature = "instrumentation"))]
    {
        let _ = (class, object);
        EventGuard::inactive()
    }
}

/// [`wait_start`] with an explicit operation (e.g. `Operation::Insert` for table I/O).
#[inline]
pub fn wait_start_op(class: ClassRef, op: Operation, object: usize) -> WaitGuard {
    #[cfg(feature = "instrumentation")]
    {
        start(class, Some(op), object as u64, 0)
    }
    #[cfg(not(feature = "instrumentation"))]
    {
        let _ = (class, op, object);
        EventGuard::inactive()
    }
}

/// Start a statement of `class` (`statement/...`), optionally with a digest for
/// `events_statements_summary_by_digest`. Timed with the nanosecond clock.
#[inline]
pub fn statement_start(class: ClassRef, digest: Option<DigestRef>) -> StatementGuard {
    #[cfg(feature = "instrumentation")]
    {
        start(
            class,
            Some(Operation::Statement),
            0,
            digest.map_or(0, |d| d.0),
        )
    }
    #[cfg(not(feature = "instrumentation"))]
    {
        let _ = (class, digest);
        EventGuard::inactive()
    }
}

/// Start a stage of `class` (`stage/...`). Timed with the nanosecond clock.
#[inline]
pub fn stage_start(class: ClassRef) -> StageGuard {
    #[cfg(feature = "instrumentation")]
    {
        start(class, Some(Operation::Stage), 0, 0)
    }
    #[cfg(not(feature = "instrumentation"))]
    {
        let _ = class;
        EventGuard::inactive()
    }
}

/// Run `$body` inside a wait event of `$class` on `$object`. Without the `instrumentation`
/// feature this expands to `$body` alone (the class and object expressions are not evaluated).
#[cfg(feature = "instrumentation")]
#[macro_export]
macro_rules! instrument_wait {
    ($class:expr, $object:expr, $body:expr) => {{
        let __pfs_guard = $crate::wait_start($class, $object as usize);
        let __pfs_result = $body;
        ::core::mem::drop(__pfs_guard);
        __pfs_result
    }};
}

/// Run `$body` inside a wait event of `$class` on `$object`. Without the `instrumentation`
/// feature this expands to `$body` alone (the class and object expressions are not evaluated).
#[cfg(not(feature = "instrumentation"))]
#[macro_export]
macro_rules! instrument_wait {
    ($class:expr, $object:expr, $body:expr) => {{
        $body
    }};
}

/// Run `$body` inside a statement event of `$class` (optional digest as a third argument).
/// Without the `instrumentation` feature this expands to `$body` alone.
#[cfg(feature = "instrumentation")]
#[macro_export]
macro_rules! instrument_statement {
    ($class:expr, $body:expr) => {{
        let __pfs_guard = $crate::statement_start($class, None);
        let __pfs_result = $body;
        ::core::mem::drop(__pfs_guard);
        __pfs_result
    }};
    ($class:expr, $digest:expr, $body:expr) => {{
        let __pfs_guard = $crate::statement_start($class, Some($digest));
        let __pfs_result = $body;
        ::core::mem::drop(__pfs_guard);
        __pfs_result
    }};
}

/// Run `$body` inside a statement event of `$class` (optional digest as a third argument).
/// Without the `instrumentation` feature this expands to `$body` alone.
#[cfg(not(feature = "instrumentation"))]
#[macro_export]
macro_rules! instrument_statement {
    ($class:expr, $body:expr) => {{
        $body
    }};
    ($class:expr, $digest:expr, $body:expr) => {{
        $body
    }};
}

/// Run `$body` inside a stage event of `$class`. Without the `instrumentation` feature this
/// expands to `$body` alone.
#[cfg(feature = "instrumentation")]
#[macro_export]
macro_rules! instrument_stage {
    ($class:expr, $body:expr) => {{
        let __pfs_guard = $crate::stage_start($class);
        let __pfs_result = $body;
        ::core::mem::drop(__pfs_guard);
        __pfs_result
    }};
}

/// Run `$body` inside a stage event of `$class`. Without the `instrumentation` feature this
/// expands to `$body` alone.
#[cfg(not(feature = "instrumentation"))]
#[macro_export]
macro_rules! instrument_stage {
    ($class:expr, $body:expr) => {{
        $body
    }};
}

// ---------------------------------------------------------------------------------------------
// Setup

/// `UPDATE setup_instruments SET ENABLED=?, TIMED=? WHERE NAME LIKE pattern`.
///
/// Returns the number of registered classes matched. The rule is also remembered and applied
/// to classes registered later (a later rule with the same pattern replaces it). Takes effect
/// immediately (derived flags are recomputed before returning).
pub fn set_instruments(pattern: &str, enabled: bool, timed: bool) -> Result<usize, PfsError> {
    let p = Pattern::parse(pattern)?;
    backend::set_instruments(&p, enabled, timed)
}

/// `UPDATE setup_consumers SET ENABLED=? WHERE NAME = name`.
pub fn set_consumer(name: &str, enabled: bool) -> Result<(), PfsError> {
    let c = Consumer::from_name(name)?;
    backend::set_consumer(c, enabled);
    Ok(())
}

/// Typed form of [`set_consumer`].
pub fn set_consumer_enabled(consumer: Consumer, enabled: bool) {
    backend::set_consumer(consumer, enabled);
}

/// The master switch (`performance_schema=ON|OFF`). Off: nothing is collected, whatever the
/// instruments and consumers say; the settings are kept for when it is turned back on.
pub fn set_master(enabled: bool) {
    backend::set_master(enabled);
}

/// Apply a named configuration (see [`Preset`]): replaces all instrument rules and consumer
/// switches, sets the master switch (off only for [`Preset::Off`]) and turns hold-time stats
/// and histograms off.
pub fn apply_preset(preset: Preset) {
    backend::apply_preset(preset);
}

/// Beyond PFS: hold-time statistics (acquire to release) for enabled mutex and rwlock classes,
/// like Linux lockstat. Costs one timer read at acquisition and one at release. Shown by
/// [`lock_stat_by_instance`]. Needs the `timers` feature.
pub fn set_hold_stats(enabled: bool) {
    backend::set_hold_stats(enabled);
}

/// Beyond PFS: a log2 wait-time histogram per (thread, class) for timed classes, merged on
/// read by [`wait_histograms`]. Costs one bucket increment per timed event (and one small
/// allocation per thread and class on first use).
pub fn set_histograms(enabled: bool) {
    backend::set_histograms(enabled);
}

/// With the `tracing` feature: timed events at least this long are also emitted as
/// `tracing::warn!` events (target `pfs::wait`, fields `event_name`, `wait_ns`, `thread_id`).
/// `None` turns it off (the default).
#[cfg(feature = "tracing")]
pub fn set_tracing_threshold(threshold: Option<std::time::Duration>) {
    let ps = match threshold {
        None => 0,
        Some(d) => (d.as_nanos().saturating_mul(1000)).clamp(1, u64::MAX as u128) as u64,
    };
    imp::set_tracing_threshold(ps);
}

/// `(ENABLED, TIMED)` of a registered class, by exact name.
pub fn instrument_setting(name: &str) -> Option<(bool, bool)> {
    backend::read::instrument_setting(name)
}

/// `(own switch, effective)` of a consumer: effective means it and all its ancestors (and the
/// master switch) are on.
pub fn consumer_enabled(consumer: Consumer) -> (bool, bool) {
    backend::read::consumer_enabled(consumer)
}

/// The master switch (always `false` in the no-op build).
pub fn master_enabled() -> bool {
    backend::read::master()
}

// ---------------------------------------------------------------------------------------------
// Tables

/// `setup_instruments`.
pub fn setup_instruments() -> SetupInstruments {
    Table::new("setup_instruments", backend::read::setup_instruments())
}

/// `setup_consumers`.
pub fn setup_consumers() -> SetupConsumers {
    Table::new("setup_consumers", backend::read::setup_consumers())
}

/// `performance_timers`. The first call calibrates the cycle counter (about 10 ms).
pub fn performance_timers() -> PerformanceTimers {
    Table::new("performance_timers", backend::read::performance_timers())
}

/// `events_waits_current`: per live thread, the waits in progress (or the last one).
pub fn events_waits_current() -> EventsWaits {
    Table::new(
        "events_waits_current",
        backend::read::wait_events(Which::WaitsCurrent),
    )
}

/// `events_waits_history`: the last `waits_history_size` waits of each live thread.
pub fn events_waits_history() -> EventsWaits {
    Table::new(
        "events_waits_history",
        backend::read::wait_events(Which::WaitsHistory),
    )
}

/// `events_waits_history_long`: the last `waits_history_long_size` waits of all threads.
pub fn events_waits_history_long() -> EventsWaits {
    Table::new(
        "events_waits_history_long",
        backend::read::waits_history_long(),
    )
}

/// `events_stages_current`.
pub fn events_stages_current() -> EventsStatements {
    Table::new(
        "events_stages_current",
        backend::read::statement_events(Which::StagesCurrent),
    )
}

/// `events_stages_history`.
pub fn events_stages_history() -> EventsStatements {
    Table::new(
        "events_stages_history",
        backend::read::statement_events(Which::StagesHistory),
    )
}

/// `events_statements_current`.
pub fn events_statements_current() -> EventsStatements {
    Table::new(
        "events_statements_current",
        backend::read::statement_events(Which::StatementsCurrent),
    )
}

/// `events_statements_history`.
pub fn events_statements_history() -> EventsStatements {
    Table::new(
        "events_statements_history",
        backend::read::statement_events(Which::StatementsHistory),
    )
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

/// `events_waits_summary_by_thread_by_event_name`: live threads, rows with a non-zero count.
pub fn events_waits_summary_by_thread_by_event_name() -> SummaryByThreadByEventName {
    Table::new(
        "events_waits_summary_by_thread_by_event_name",
        backend::read::summary_by_thread(),
    )
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

/// `threads`: live threads with a slot (those that recorded an event), with their
/// `std::thread` names.
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
/// threads, exited threads, digests, histograms).
pub fn truncate_events_waits_summary_global_by_event_name() {
    backend::read::truncate_global();
}

/// `TRUNCATE TABLE events_waits_summary_by_instance` (also resets hold-time stats).
pub fn truncate_events_waits_summary_by_instance() {
    backend::read::truncate_by_instance();
}

/// `TRUNCATE TABLE events_waits_summary_by_thread_by_event_name`. As in PFS, the per-thread
/// stats are first folded into the global aggregate, so the global summary keeps them.
pub fn truncate_events_waits_summary_by_thread_by_event_name() {
    backend::read::truncate_by_thread();
}

/// `TRUNCATE TABLE events_waits_history` / `_history_long` (and the stages and statements
/// histories).
pub fn truncate_events_history() {
    backend::read::truncate_history();
}

/// Reset every summary and history.
pub fn truncate_all() {
    truncate_events_waits_summary_global_by_event_name();
    truncate_events_history();
}

// ---------------------------------------------------------------------------------------------
// Status

/// `SHOW STATUS LIKE 'performance_schema%'`: buffer usage and `lost` counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Status {
    /// Is the instrumentation compiled in?
    pub compiled: bool,
    /// The master switch.
    pub master: bool,
    /// Registered classes.
    pub classes: u64,
    /// Class buffer size.
    pub class_capacity: u64,
    /// Registrations refused because the class buffer was full.
    pub class_lost: u64,
    /// Instances in use.
    pub instances_used: u64,
    /// Instance buffer size.
    pub instance_capacity: u64,
    /// Mutexes that run uninstrumented because the instance buffer was full.
    pub mutex_instances_lost: u64,
    /// Same for rwlocks.
    pub rwlock_instances_lost: u64,
    /// Same for condition variables.
    pub cond_instances_lost: u64,
    /// Same for instances of other kinds.
    pub other_instances_lost: u64,
    /// Threads with a slot.
    pub threads_live: u64,
    /// Threads that run unrecorded because the thread buffer was full.
    pub thread_lost: u64,
    /// Events not recorded: wait stack full, or no thread slot.
    pub locker_lost: u64,
    /// Registered digests.
    pub digests: u64,
    /// Digests refused because the digest buffer was full.
    pub digest_lost: u64,
    /// Events ever written to `events_waits_history_long`.
    pub waits_history_long_written: u64,
}

impl Status {
    /// As a `SHOW STATUS` result.
    pub fn to_table(&self) -> Table<StatusRow> {
        let rows = [
            ("Performance_schema_class_lost", self.class_lost),
            (
                "Performance_schema_mutex_instances_lost",
                self.mutex_instances_lost,
            ),
            (
                "Performance_schema_rwlock_instances_lost",
                self.rwlock_instances_lost,
            ),
            (
                "Performance_schema_cond_instances_lost",
                self.cond_instances_lost,
            ),
            (
                "Performance_schema_other_instances_lost",
                self.other_instances_lost,
            ),
            ("Performance_schema_thread_instances_lost", self.thread_lost),
            ("Performance_schema_locker_lost", self.locker_lost),
            ("Performance_schema_digest_lost", self.digest_lost),
            ("Performance_schema_instances_used", self.instances_used),
            ("Performance_schema_threads_live", self.threads_live),
        ]
        .into_iter()
        .map(|(n, v)| StatusRow {
            variable_name: n.to_string(),
            value: v,
        })
        .collect();
        Table::new("status", rows)
    }
}

/// Buffer usage and `lost` counters.
pub fn status() -> Status {
    backend::read::status()
}
