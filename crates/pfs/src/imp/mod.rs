//! The instrumented build (feature `instrumentation`): the same surface as `crate::noop`, with
//! state behind it.
//!
//! # Modules, bottom to top
//!
//! Each module uses only modules above it in this list (no import circles):
//!
//! 1. `flags` (derived flags), `stats` (count/sum/min/max cells), `timer` (clocks), `limits`
//!    (sizes, `*_lost` counters), then `connections` (the connection tables' counts of ended
//!    threads)
//! 2. `events` (event records, per-thread logs, `history_long` rings), `trx_log` (the same for
//!    transactions)
//! 3. `histogram` (the statement latency histograms' counts), `classes` (derived flags,
//!    classes, digests), then `trace` (feature `tracing`), then
//!    `summary_by` (the stats of ended threads carried into their accounts)
//! 4. `instances` (instrumented lock instances), then `owner` (who holds one)
//! 5. `thread` (per-thread slots, `setup_threads` / `setup_actors`, per-thread switches)
//! 6. `setup` (instrument, consumer, timer switches; derived flags; class registration)
//! 7. `record` (the hot path) with `statement` (what a statement record carries besides: its
//!    `SQL_TEXT`, its end, the digest sums; the two call each other), then `api` (the types
//!    the crate root re-exports), then `session` (session threads, and waits that may end on
//!    another OS thread), then `transaction` (transaction events: started, ended, or recorded
//!    whole at the end of a statement that is its own transaction)
//! 8. `summary` (summary tables), then `prepared` (`prepared_statements_instances`' rows),
//!    then `read` (the other tables; re-exports `summary`), then `trx_read` (the transaction
//!    tables), `conn_read` (the connection tables), `summary_by_read` (the summaries by
//!    thread, account, user and host) and `histogram_read` (the statement histograms); `errors` (the error summaries' counts: raised, carried
//!    at a thread's end, which `thread` calls, and read)
//!
//! # Locks
//!
//! Each module owns its state, created at first use and never freed: `setup`'s switches,
//! `classes`' registry, `instances`' allocator, `thread`'s registry of live slots. Lock order:
//! setup → registry → instance allocator → threads. None of these is taken on the hot path
//! of an instrumented lock or event (a thread registers once).
//!
//! # Derived flags
//!
//! PFS checks its switches one by one on every event (instance, `thread_instrumentation`, the
//! thread's own switch, TIMED, `events_waits_current`: `pfs_start_mutex_wait_v1` in MySQL's
//! `storage/perfschema/pfs.cc`); here they are folded ahead of time.
//! Each class has one `AtomicU32` of derived flags (`F_*`), each instance a copy of its class's
//! flags and each thread a mask. Every switch change recomputes them under the setup lock, so
//! the hot path decides everything from one relaxed load of the class (or instance) flags and
//! one of the thread's mask: enabled, timed, which clock, family, per-thread stats, current /
//! history events, hold times, histograms, digests.

// Instances are only created by the sync wrappers: without them parts of this module are unused.
#![cfg_attr(
    not(all(feature = "mutex", feature = "rwlock", feature = "cond")),
    allow(dead_code)
)]

pub(crate) mod api;
pub(crate) mod classes;
pub(crate) mod conn_read;
pub(crate) mod connections;
pub(crate) mod digest_index;
pub(crate) mod errors;
pub(crate) mod events;
pub(crate) mod flags;
pub(crate) mod histogram;
pub(crate) mod histogram_read;
pub(crate) mod instances;
pub(crate) mod limits;
pub(crate) mod owner;
pub(crate) mod prepared;
pub(crate) mod read;
pub(crate) mod record;
pub(crate) mod seqlock;
pub(crate) mod session;
pub(crate) mod setup;
pub(crate) mod statement;
pub(crate) mod stats;
pub(crate) mod summary;
pub(crate) mod summary_by;
pub(crate) mod summary_by_read;
pub(crate) mod thread;
pub(crate) mod timer;
#[cfg(feature = "tracing")]
pub(crate) mod trace;
pub(crate) mod transaction;
pub(crate) mod trx_log;
pub(crate) mod trx_read;
#[cfg(not(feature = "tracing"))]
pub(crate) mod trace {
    //! Without the `tracing` feature long waits are not reported.
    #[inline(always)]
    pub(crate) fn slow(_class: &super::classes::ClassInfo, _wait: u64) {}
}

pub(crate) use api::{register_class, register_digest, start};
pub use api::{ClassRef, DigestRef, EventGuard};
pub(crate) use limits::init;
pub(crate) use setup::{
    apply_preset, set_consumer, set_histograms, set_hold_stats, set_instruments, set_master,
    set_timer,
};
pub(crate) use thread::{
    current_event_id, remove_setup_actor, set_setup_actor, set_setup_threads, set_thread_account,
    set_thread_history, set_thread_instrumented, update_thread,
};
