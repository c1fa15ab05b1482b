//! The soak: a concurrent run of random operations with checks (`mdl-check soak`).
//!
//! Many threads, each with its own [`MdlContext`](mdl_core::MdlContext), run random operations over all 18 namespaces,
//! every lock type legal in each, all three durations: tries and waits with short (and some
//! long) timeouts, upgrades, downgrades, clones, savepoints and rollbacks, end of statement /
//! transaction, kills of other threads' contexts through [`KillHandle`](mdl_core::KillHandle), and contexts dropped
//! while holding locks. Names are skewed (a few hot names per namespace, many cold ones) so that
//! both contention and lock-object eviction happen.
//!
//! # What is checked while it runs
//!
//! * **No two incompatible locks granted to different contexts at once.** A shared *book* of
//!   held locks is updated right after a grant and right before a release (a downgrade updates it
//!   before the call), so the book is always a subset of what the manager really grants. Every
//!   insertion is checked against the book with the granted matrix of the reference
//!   ([`mdl_reference::matrix`], transcribed from MySQL's tables, not from `mdl_core`'s own).
//!   Any conflict is a violation.
//! * **Every wait ends within its timeout plus a margin** ([`SoakConfig::wait_margin`]), whether
//!   granted, timed out, chosen as deadlock victim or killed. The worst overshoot is reported.
//! * **No deadlock without a cycle.** Threads register what they wait for in the book before
//!   calling `acquire` and unregister right after it returns. When `acquire` returns
//!   [`MdlError::Deadlock`](mdl_core::MdlError::Deadlock), the victim still holds its locks, and every other member of a real
//!   cycle is still blocked (it can leave only by a timeout, a kill or as a victim itself), so
//!   the cycle is still in the book: the harness searches for a cycle *reachable* from the
//!   victim — MySQL's search treats a path deeper than `MAX_SEARCH_DEPTH` (32) as a deadlock,
//!   and a search that enters a cycle not through its start loops until that depth, so a
//!   context waiting *behind* a cycle may legitimately be the victim (edges: conflicting holders, and
//!   pending requests with priority under matrix W0 — the soak runs with the default
//!   `max_write_lock_count`, so W0 is the only matrix). A deadlock with a cycle counts as
//!   `deadlocks_with_cycle`. Without one, if no other wait ended unsuccessfully since this wait
//!   began, no member could have left, so it is a **violation**; otherwise it is counted as
//!   `deadlocks_unverified` (approximation: a cycle member may have timed out meanwhile). A
//!   member's wait can end inside the manager (and its removal grant another member, which
//!   then leaves the book) a moment before the member counts its failure, so before calling a
//!   deadlock unjustified the harness waits up to one second for such a count. With 32 threads
//!   or more, a path of 32 distinct waiters (also a deadlock to MySQL) could exist without a
//!   cycle; the harness does not model that, so keep `threads` below 32.
//! * **Every real deadlock is broken** (heuristic). A long wait (≥ 1 s) that times out while the
//!   book shows a cycle through it, *and* the same cycle (same members, same wait start times)
//!   is still there 100 ms later, is a missed deadlock: a violation.
//! * **After the run** every context is dropped: no ticket remains (`slow_path_locks` is empty,
//!   no context is registered), every lock object is unused
//!   (`unused_lock_object_count() == lock_object_count()`), and the object count respects the
//!   eviction policy (at most `unused_locks_low_water` objects, plus one per thread of slack for
//!   the approximate unused counter MySQL also has).
//!
//! # Modules, lowest first
//!
//! [`config`] (what to run) → [`report`] (what happened) → `book` (the held locks and waits
//! seen by the harness, and the wait-for graph over them) → `shared` (the book under a mutex,
//! grant-time checks, the violation log) → `worker` (one thread's context and its random
//! operations; `waits` checks how each wait ended, `ops` holds the multi-step operations) →
//! [`run`] here.

mod book;
pub mod config;
mod ops;
pub mod report;
mod shared;
mod waits;
mod worker;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use mdl_core::{FastPath, MdlManager};

pub use config::SoakConfig;
pub use report::SoakReport;

use book::Book;
use shared::Shared;
use worker::Worker;

/// Runs the soak described by `cfg` and reports.
///
/// # Panics
/// If `cfg.mdl` is not a valid configuration, or neither `duration` nor `ops_per_thread` is set.
pub fn run(cfg: &SoakConfig) -> SoakReport {
    assert!(
        cfg.duration.is_some() || cfg.ops_per_thread.is_some(),
        "set a duration or an operation count"
    );
    let mgr = MdlManager::new(cfg.mdl.clone()).expect("valid MdlConfig");
    let sh = Arc::new(Shared {
        cfg: cfg.clone(),
        book: Mutex::new(Book::default()),
        failed_wait_ends: AtomicU64::new(0),
        kill_handles: Mutex::new(vec![None; cfg.threads]),
        violations: AtomicU64::new(0),
        samples: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
        next_uid: AtomicU64::new(1),
    });
    let start = Instant::now();
    let deadline = cfg.duration.map(|d| start + d);
    let handles: Vec<_> = (0..cfg.threads)
        .map(|idx| {
            let sh = sh.clone();
            let mgr = mgr.clone();
            let seed = cfg.seed ^ (idx as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407);
            thread::Builder::new()
                .name(format!("soak-{idx}"))
                .spawn(move || {
                    let mut w = Worker {
                        idx,
                        sh: sh.clone(),
                        mgr,
                        ctx: None,
                        rng: fastrand::Rng::with_seed(seed),
                        mine: HashMap::new(),
                        rep: SoakReport::default(),
                    };
                    w.new_context();
                    let mut n = 0u64;
                    loop {
                        if sh.stop.load(Ordering::Relaxed)
                            || sh.cfg.ops_per_thread.is_some_and(|m| n >= m)
                            || (n.is_multiple_of(16)
                                && deadline.is_some_and(|d| Instant::now() >= d))
                        {
                            break;
                        }
                        w.step();
                        n += 1;
                    }
                    w.forget_where(|_| true);
                    sh.kill_handles.lock().unwrap()[idx] = None;
                    w.ctx = None;
                    w.rep
                })
                .expect("spawn soak thread")
        })
        .collect();
    let mut rep = SoakReport {
        threads: cfg.threads,
        ..SoakReport::default()
    };
    for h in handles {
        match h.join() {
            Ok(r) => rep.merge(&r),
            Err(_) => sh.violation("a soak thread panicked".into()),
        }
    }
    rep.elapsed = start.elapsed();
    rep.leftover_tickets = mgr.slow_path_locks().len();
    rep.leftover_contexts = mgr.context_count();
    rep.lock_objects = mgr.lock_object_count();
    rep.unused_lock_objects = mgr.unused_lock_object_count();
    if rep.leftover_tickets != 0 || rep.leftover_contexts != 0 {
        sh.violation(format!(
            "after the run {} tickets and {} contexts remain",
            rep.leftover_tickets, rep.leftover_contexts
        ));
    }
    if rep.unused_lock_objects != rep.lock_objects {
        sh.violation(format!(
            "after the run {} of {} lock objects are in use",
            rep.lock_objects - rep.unused_lock_objects,
            rep.lock_objects
        ));
    }
    // MySQL's policy evicts on the release that makes an object unused. With per-context slots a
    // release tells the map nothing; sweeps every max(low water, objects) / 4 creations find
    // those objects (docs/lock-manager.md, "Eviction"), so up to that many more may remain.
    let low_water = cfg.mdl.unused_locks_low_water;
    let slack = cfg.threads
        + if cfg.mdl.fast_path == FastPath::PerContext {
            low_water.max(rep.lock_objects) / 4
        } else {
            0
        };
    if rep.lock_objects > low_water + slack {
        sh.violation(format!(
            "after the run {} unused lock objects remain; the eviction policy allows {} (+{} slack)",
            rep.lock_objects, low_water, slack
        ));
    }
    if !sh.book.lock().unwrap().held.is_empty() {
        sh.violation("the harness's book still has held locks".into());
    }
    rep.violations = sh.violations.load(Ordering::Relaxed);
    rep.violation_samples = sh.samples.lock().unwrap().clone();
    rep
}
