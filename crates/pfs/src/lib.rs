//! Performance-Schema-style instrumentation: switchable counters and timers, aggregated on read.
//!
//! `pfs` gives a Rust program what MySQL's Performance Schema gives the server: named instrument
//! classes (`wait/synch/mutex/mdl/MDL_map::mutex`, `statement/sql/select`, ...), each with
//! run-time ENABLED / TIMED switches; consumers that decide how much detail is kept; per-thread
//! switches (`setup_threads`, `setup_actors`, `threads.INSTRUMENTED`); per-thread and
//! per-instance statistics; current-event and history tables; and a `mysql`-client style
//! rendering (plus JSON) of every table. This file is the whole public API (its macros are in
//! `macros.rs`, its table reads in `table_reads.rs`).
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
//! | level | how | hot-path cost of one instrumented lock or event |
//! |---|---|---|
//! | compiled out | `default-features = false` (no `instrumentation`), or a class feature off | none: `pfs::sync::Mutex` *is* `parking_lot::Mutex`, guards are zero-sized |
//! | master off / instrument disabled | [`set_master`]`(false)`, [`Preset::Off`], [`Preset::None`] | one relaxed load of the class's (or instance's) derived flags + a branch |
//! | thread left out | [`set_thread_instrumented`]`(false)`, [`set_setup_threads`], [`set_setup_actor`] | + the thread's slot and mask (two loads), then nothing |
//! | counted | enabled, TIMED=NO | + one load+store increment in a cell the thread (or the holder of the lock) owns |
//! | timed | enabled, TIMED=YES | + two timer reads (the cycle counter by default; a lock only when it was contended), count/sum/min/max |
//! | per thread | `thread_instrumentation` | + the (thread, class) cell of instance classes |
//! | events | `events_*_current` (+ `_history`, `_history_long`) | + one event record, written once (the history keeps it in place); a copy into the shared `_history_long` ring |
//! | beyond PFS | [`set_hold_stats`], [`set_histograms`] | + one timer read at unlock; + one log2 bucket increment |
//!
//! # Cargo features
//!
//! * `instrumentation` — the umbrella. Off: every call is a no-op, [`ClassRef`] and
//!   [`EventGuard`] are zero-sized and [`ClassRef::enabled`] is `const false`, every table is
//!   empty, the sync types are parking_lot's.
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
//! * **Derived flags.** Each class has one `AtomicU32` of derived flags, each instance a copy,
//!   each thread a mask, recomputed under a setup lock whenever any switch changes. The hot
//!   path loads the flags once, relaxed, and stops there when they say "disabled"; otherwise
//!   it applies the thread's mask and knows everything: enabled, timed, which clock, per-thread
//!   stats, events, hold, histogram, digest. A switch takes effect for the next event.
//! * **No shared read-modify-write.** Per-instance stats are written by the thread that holds
//!   the measured lock (for the read side of an rwlock, concurrent readers may lose an
//!   increment of the instance cell; the per-thread cells stay exact). Per-thread stats live
//!   in a slot owned by the thread and are updated with relaxed load + store; a statement with
//!   a digest updates one cell. The one shared `fetch_add` is the index of a `*_history_long`
//!   ring (off by default), as in PFS.
//! * **Aggregation on read.** Summaries are computed when a table is read, from live threads,
//!   live instances, and the aggregates that exited threads and dropped instances folded in.
//!   A reader copies atomics; it never blocks an instrumented lock or event.
//! * **Bounded memory.** Classes, instances, threads and digests live in buffers allocated once
//!   ([`Sizing`], [`init`]); what does not fit runs uninstrumented and is counted in
//!   [`status`]'s `*_lost` counters. A thread's slot is taken on its first event and handed
//!   to a later thread when it exits.
//! * **Clocks.** Each event family has a timer ([`set_timer`], `setup_timers`): by default the
//!   cycle counter (`rdtsc`, when `/proc/cpuinfo` shows `constant_tsc` and `nonstop_tsc`; else
//!   the nanosecond clock) for waits, stages and statements, nanoseconds for idle. Raw ticks
//!   are stored and converted to picoseconds on read ([`performance_timers`] shows each
//!   clock's frequency and what one reading costs).
//!
//! # Modules, bottom to top
//!
//! Each module uses only the ones before it (no import circles):
//!
//! 1. `error`, `kinds` (enums), `pattern` (`LIKE`), `render` (text tables), `thread_id`
//! 2. [`tables`] (row types, each table's columns declared once), `config` ([`Sizing`],
//!    [`Status`])
//! 3. the backend: `imp` (feature `instrumentation`; its own layers are listed in its module
//!    docs) or `noop` (compiled out). Both define the same items: [`ClassRef`], [`DigestRef`],
//!    [`EventGuard`], the `__in_event!` macro behind the `instrument_*!` macros, the setup
//!    calls and a `read` module.
//! 4. [`sync`] (the instrumented `Mutex`, `RwLock`, `Condvar`); `session` ([`SessionThread`],
//!    [`PendingWait`], [`PendingStatement`]: pfs threads that are not OS threads, events that
//!    may end on another one), then `prepared` ([`PreparedStatement`]:
//!    `prepared_statements_instances`), `transaction` (transaction events: [`transaction_start`],
//!    [`SessionThread::end_autocommit`], the `events_transactions_*` tables), `connections`
//!    ([`accounts`], [`users`], [`hosts`]) and `summaries` (the summaries by thread, account,
//!    user and host: [`summary_by_account_by_event_name`], ...)
//! 5. this file: the public functions, each a documented call into the backend, with the
//!    table reads in `table_reads` (one function per table); `macros`: the public macros
//!    (`class!`, `instrument_*!`), each a call of those functions.
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
//! * Stages and statements are timed with the cycle counter by default (PFS 8.0: nanoseconds);
//!   `setup_timers` ([`set_timer`]) from MySQL 5.7 is kept to choose.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod config;
mod connections;
mod error;
mod errors;
mod histograms;
pub mod kinds;
mod macros;
mod outcome;
pub mod pattern;
mod prepared;
pub mod render;
mod session;
mod summaries;
pub mod sync;
mod table_reads;
pub mod tables;
mod thread_id;
mod transaction;

#[cfg(feature = "instrumentation")]
mod imp;
#[cfg(feature = "instrumentation")]
use imp as backend;
#[cfg(not(feature = "instrumentation"))]
mod noop;
#[cfg(not(feature = "instrumentation"))]
use noop as backend;

pub use backend::{ClassRef, DigestRef, EventGuard};
pub use config::{Sizing, Status};
pub use connections::*;
pub use error::PfsError;
pub use errors::*;
pub use histograms::*;
pub use kinds::{
    default_instrument_setting, ClassKind, Clock, Consumer, EventFamily, Operation, Preset,
};
pub use outcome::{StatementOutcome, MAX_MESSAGE_TEXT, MAX_SQL_TEXT};
pub use pattern::Pattern;
pub use prepared::{
    prepared_statements_instances, truncate_prepared_statements_instances, PreparedRef,
    PreparedStatement,
};
pub use render::{cell, format_pico, yes_no, TextTable};
pub use session::{
    wait_start_on, Instrumented, PendingStatement, PendingWait, SessionGuard, SessionThread, WaitOn,
};
pub use summaries::*;
pub use table_reads::*;
pub use tables::{
    metadata_locks, MetadataDeadlockRow, MetadataLockRow, MetadataLockWaitRow, Row, Table,
};
pub use transaction::{
    events_transactions_current, events_transactions_history, events_transactions_history_long,
    events_transactions_summary_by_thread_by_event_name,
    events_transactions_summary_global_by_event_name, transaction_end, transaction_savepoint,
    transaction_start, IsolationLevel, Savepoint, TransactionMode, TransactionState,
};

/// The README's example is compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Set the buffer sizes. Must be called before anything else touches the instrumentation
/// (registering a class, a setup call, a table read); afterwards it returns
/// [`PfsError::AlreadyInitialized`].
pub fn init(sizing: Sizing) -> Result<(), PfsError> {
    backend::init(sizing)
}

// ---------------------------------------------------------------------------------------------
// Threads

/// The current thread's PFS `THREAD_ID`: assigned on first call, from 1, never reused; the
/// session thread's while one is entered on this OS thread ([`SessionThread::enter`]).
/// Returns 0 only while the thread-local storage is being torn down.
#[inline]
pub fn current_thread_id() -> u64 {
    thread_id::current()
}

/// The `EVENT_ID` of the innermost event in progress on this thread — a wait, else a stage,
/// else a statement — or `None` (no event in progress, or the `events_*_current` consumers are
/// off). Useful for `metadata_locks.OWNER_EVENT_ID`.
pub fn current_event_id() -> Option<u64> {
    backend::current_event_id()
}

/// `UPDATE threads SET INSTRUMENTED = on WHERE THREAD_ID = PS_CURRENT_THREAD_ID()`: a thread
/// left out records nothing and pays about what `off` pays. Returns false if the thread has no
/// slot (thread buffer full, or compiled out).
///
/// ```
/// let c = pfs::register_class(pfs::ClassKind::TableIo, "wait/io/table/doc/left_out");
/// pfs::set_thread_instrumented(false);
/// assert!(!pfs::wait_start(c, 1).is_active());
/// pfs::set_thread_instrumented(true);
/// # #[cfg(feature = "instrumentation")]
/// assert!(pfs::wait_start(c, 1).is_active());
/// ```
pub fn set_thread_instrumented(on: bool) -> bool {
    backend::set_thread_instrumented(on)
}

/// `UPDATE threads SET HISTORY = on WHERE THREAD_ID = PS_CURRENT_THREAD_ID()`: whether this
/// thread's events reach the `*_history` and `*_history_long` tables.
pub fn set_thread_history(on: bool) -> bool {
    backend::set_thread_history(on)
}

/// `UPDATE threads SET INSTRUMENTED = ?, HISTORY = ? WHERE THREAD_ID = ?` for any live thread.
/// Returns false if no live thread has this id.
pub fn update_thread(thread_id: u64, instrumented: bool, history: bool) -> bool {
    backend::update_thread(thread_id, instrumented, history)
}

/// The session on this thread belongs to `user`@`host` (a connection's login): its
/// `INSTRUMENTED` and `HISTORY` switches are set from the most specific matching
/// `setup_actors` row, or both NO if none matches, as MySQL does for foreground threads; it
/// counts in the account's rows of [`accounts`], [`users`] and [`hosts`].
pub fn set_thread_account(user: &str, host: &str) -> bool {
    backend::set_thread_account(user, host)
}

/// `INSERT INTO setup_actors` (or update the row of the same host and user): sessions of
/// `user`@`host` (`%` for any) that call [`set_thread_account`] later are instrumented if
/// `enabled`, with history if `history`. The default table has one row, `%`/`%`, YES/YES.
pub fn set_setup_actor(
    host: &str,
    user: &str,
    enabled: bool,
    history: bool,
) -> Result<(), PfsError> {
    backend::set_setup_actor(host, user, enabled, history)
}

/// `DELETE FROM setup_actors WHERE HOST = host AND USER = user`; true if a row was removed.
pub fn remove_setup_actor(host: &str, user: &str) -> bool {
    backend::remove_setup_actor(host, user)
}

/// `setup_threads`: threads whose `std::thread` name matches the `LIKE` pattern (unnamed
/// threads: `thread/unnamed`) start with `INSTRUMENTED = enabled` and `HISTORY = history`. The
/// last matching rule wins; the default table has one rule, `%`, YES/YES. As in MySQL, it
/// applies to threads that start recording after the change.
pub fn set_setup_threads(name_pattern: &str, enabled: bool, history: bool) -> Result<(), PfsError> {
    backend::set_setup_threads(&Pattern::parse(name_pattern)?, enabled, history)
}

// ---------------------------------------------------------------------------------------------
// Classes and events

/// Register (or look up) an instrument class by its full PFS name. Idempotent: the same name
/// returns the same class (the kind of the first registration wins). New classes start with
/// MySQL 8.0's defaults ([`default_instrument_setting`]) and then every remembered
/// [`set_instruments`] / [`apply_preset`] rule. When the class buffer is full the returned
/// class is a never-enabled placeholder and `class_lost` is bumped.
///
/// Cheap enough to call from a `static` `OnceLock` initializer (a hash lookup under a lock).
pub fn register_class(kind: ClassKind, name: &str) -> ClassRef {
    backend::register_class(kind, name)
}

/// Intern a normalized statement text (e.g. `"SELECT c FROM sbtest1 WHERE id = ?"`) for
/// `events_statements_summary_by_digest`. Register once, pass the handle to
/// [`statement_start`]: the hot path then indexes an array instead of hashing text. A text
/// registered already is found without a lock (one hash of the text and a compare), so a
/// server may look up each text statement's digest; a new one takes the registry's lock. When
/// the digest buffer is full the handle is empty and `digest_lost` is bumped.
pub fn register_digest(text: &str) -> DigestRef {
    backend::register_digest(None, text)
}

/// The `DIGEST` column's value for the digest text `text`: its 64-bit FNV-1a hash in 16
/// lowercase hex digits (MySQL's is the SHA-256 of its token array, 64 hex digits; this one
/// hashes the text, the same for every build of this crate).
pub fn digest_hash(text: &str) -> String {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
        (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{h:016x}")
}

/// [`register_digest`] in a schema: the digest of `text` in `schema` is its own row of
/// `events_statements_summary_by_digest` (keyed by `(SCHEMA_NAME, DIGEST)`, as MySQL's), and
/// its statements' `CURRENT_SCHEMA`.
pub fn register_digest_in(schema: Option<&str>, text: &str) -> DigestRef {
    backend::register_digest(schema, text)
}

/// A wait event guard ([`wait_start`]).
pub type WaitGuard = EventGuard;
/// A statement event guard ([`statement_start`]).
pub type StatementGuard = EventGuard;
/// A stage event guard ([`stage_start`]).
pub type StageGuard = EventGuard;

/// Start a wait of `class` on the object `object` (its identity, shown as
/// `OBJECT_INSTANCE_BEGIN`), e.g. around a metadata-lock wait; it ends when the guard drops.
/// When the class is disabled this is one relaxed load and returns an inert guard.
///
/// ```
/// let c = pfs::register_class(pfs::ClassKind::TableIo, "wait/io/table/doc/handler");
/// {
///     let _w = pfs::wait_start(c, 42); // timed: wait/io/table/% is on by default
/// }
/// # #[cfg(feature = "instrumentation")] {
/// let row = pfs::events_waits_summary_global_by_event_name()
///     .rows
///     .into_iter()
///     .find(|r| r.event_name == "wait/io/table/doc/handler")
///     .unwrap();
/// assert_eq!(row.stats.count_star, 1);
/// # }
/// ```
#[inline(always)]
pub fn wait_start(class: ClassRef, object: usize) -> WaitGuard {
    backend::start(class, None, object as u64, DigestRef::default())
}

/// [`wait_start`] with an explicit operation (e.g. `Operation::Insert` for table I/O).
#[inline(always)]
pub fn wait_start_op(class: ClassRef, op: Operation, object: usize) -> WaitGuard {
    backend::start(class, Some(op), object as u64, DigestRef::default())
}

/// Start a statement of `class` (`statement/...`), optionally with a digest for
/// `events_statements_summary_by_digest`; it ends when the guard drops.
///
/// ```
/// let select = pfs::register_class(pfs::ClassKind::Statement, "statement/doc/select");
/// let digest = pfs::register_digest("SELECT c FROM doc WHERE id = ?");
/// for _ in 0..3 {
///     let _s = pfs::statement_start(select, Some(digest));
/// }
/// # #[cfg(feature = "instrumentation")]
/// assert!(pfs::events_statements_summary_by_digest()
///     .rows
///     .iter()
///     .any(|r| r.digest_text == "SELECT c FROM doc WHERE id = ?" && r.stats.count_star == 3));
/// ```
#[inline(always)]
pub fn statement_start(class: ClassRef, digest: Option<DigestRef>) -> StatementGuard {
    backend::start(
        class,
        Some(Operation::Statement),
        0,
        digest.unwrap_or_default(),
    )
}

/// Start a stage of `class` (`stage/...`); it ends when the guard drops.
#[inline(always)]
pub fn stage_start(class: ClassRef) -> StageGuard {
    backend::start(class, Some(Operation::Stage), 0, DigestRef::default())
}

// ---------------------------------------------------------------------------------------------
// Setup

/// `UPDATE setup_instruments SET ENABLED=?, TIMED=? WHERE NAME LIKE pattern`.
///
/// Returns the number of registered classes matched. The rule is also remembered and applied
/// to classes registered later (a later rule with the same pattern replaces it). Takes effect
/// immediately (derived flags are recomputed before returning).
pub fn set_instruments(pattern: &str, enabled: bool, timed: bool) -> Result<usize, PfsError> {
    backend::set_instruments(&Pattern::parse(pattern)?, enabled, timed)
}

/// `UPDATE setup_consumers SET ENABLED=? WHERE NAME = name`.
pub fn set_consumer(name: &str, enabled: bool) -> Result<(), PfsError> {
    backend::set_consumer(Consumer::from_name(name)?, enabled);
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
/// and histograms off. Timers and the thread switches are left as they are.
///
/// ```
/// pfs::apply_preset(pfs::Preset::Counters); // everything counted, nothing timed
/// # #[cfg(feature = "instrumentation")]
/// assert_eq!(pfs::instrument_setting("wait/io/table/doc/preset"), None); // not registered yet
/// let c = pfs::register_class(pfs::ClassKind::TableIo, "wait/io/table/doc/preset");
/// assert!(!c.timed());
/// pfs::apply_preset(pfs::Preset::Default);
/// ```
pub fn apply_preset(preset: Preset) {
    backend::apply_preset(preset);
}

/// `UPDATE setup_timers SET TIMER_NAME = clock WHERE NAME = family` (MySQL 5.7): the clock
/// events of `family` are timed with from now on. As MySQL's manual advises, truncate the
/// summaries afterwards: those already collected are kept in the old clock's ticks.
pub fn set_timer(family: EventFamily, clock: Clock) {
    backend::set_timer(family, clock);
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
#[cfg_attr(docsrs, doc(cfg(feature = "tracing")))]
pub fn set_tracing_threshold(threshold: Option<std::time::Duration>) {
    let ps = match threshold {
        None => 0,
        Some(d) => (d.as_nanos().saturating_mul(1000)).clamp(1, u64::MAX as u128) as u64,
    };
    imp::trace::set_threshold(ps);
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

/// The master switch (always `false` in the compiled-out build).
pub fn master_enabled() -> bool {
    backend::read::master()
}
