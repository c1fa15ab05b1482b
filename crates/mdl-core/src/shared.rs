//! The part of a context that other threads reach, and the registry of live contexts.
//!
//! A context ([`crate::MdlContext`]) is used by one thread at a time; lock objects' queue
//! entries, the deadlock detector, kill handles and strong requesters that transfer fast-path
//! locks reach it through an `Arc<ContextShared>`.
//!
//! Protocol: `serial`, `id`, `tag` and `owner` never change. The wait slot has its own mutex
//! (see [`crate::wait`]). `killed` is raised by any thread ([`crate::MdlManager::kill`],
//! [`crate::KillHandle`]) and cleared by the owning thread; `force_dml_weight` and
//! `needs_thr_lock_abort` are written by the owning thread and read by others (relaxed: they are
//! hints for decisions taken under a lock object's lock). `guards` counts the context's live
//! owned guards, raised by the owning thread and lowered by whichever thread drops one, and
//! carries [`ENDED`] once the context has ended (see below).
//! `label` is written by the owning thread and read by diagnostics, under its own mutex.
//! `deadlock` is written by the deadlock search that picks this context as a victim (holding
//! the wait-for graph's mutex) before it sets the wait slot, and taken by the owning thread after
//! its wait ends.
//!
//! Two numbers name a context. `id` is the [`crate::ContextId`] users see and kill by: a server's
//! connection id or one the registry picked, unique among the manager's live contexts. `serial`
//! is unique in the process for ever, and is what tickets, savepoints, queue entries and the
//! wait-for graph compare.
//!
//! A lock can outlive its context (an owned [`crate::LockGuard`]), and diagnostics name it by
//! the context's id; so an ended context's id stays taken (*lingering*: refused to
//! `new_context_with_id`, skipped by picked ids, unknown to kills) until its last guard is
//! dropped. The handshake between the context's end and the last guard's drop is one atomic
//! word, `guards`: the ending context sets [`ENDED`] with a read-modify-write under the
//! registry's mutex, and records its id as lingering there if the count it replaced was not
//! zero; a guard's drop lowers the count with a read-modify-write, and the one that takes it
//! from `ENDED | 1` to `ENDED` takes the mutex and forgets the id. The two read-modify-writes
//! are ordered on the word: if the guard's comes second it sees `ENDED`, and its mutex
//! acquisition follows the context's critical section, which recorded the id; if it comes
//! first, the context sees a count of zero and records nothing.
//!
//! The registry's mutex guards its slab, its id index and the lingering ids; nothing else is
//! locked while it is held, except that a transferring strong requester looks owners up under a
//! lock object's write lock (lock order: lock object → registry).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};

use slab::Slab;

use crate::blocking::DeadlockRecord;
use crate::error::{MdlError, Result};
use crate::fast_path::MAX_TAG;
use crate::instrument::{ContextRows, RetiredRows};
use crate::owner::MdlOwner;
use crate::sync::{AtomicBool, AtomicU64, AtomicUsize, Mutex, Ordering};
use crate::types::ContextId;
use crate::wait::{KillFlag, WaitSlot};

/// The part of a context that other threads reach.
pub(crate) struct ContextShared {
    /// Unique in the process: what tickets, queue entries and the wait-for graph compare.
    pub(crate) serial: u64,
    /// The [`ContextId`] users see (unique among the manager's live contexts).
    pub(crate) id: u64,
    /// Index in the registry.
    key: usize,
    /// The registry index, if it fits a fast-path slot word (see `fast_path.rs`).
    pub(crate) tag: Option<u16>,
    pub(crate) wait: WaitSlot,
    pub(crate) killed: KillFlag,
    /// The async wait's scheduled alarms, by kind (`timer.rs`): a key, or 0 for none. Written
    /// by the owner, read by the manager's timer thread.
    pub(crate) alarms: [AtomicU64; 2],
    pub(crate) force_dml_weight: AtomicBool,
    /// Granted through a closed grant gate (`gate.rs`); written by the owning thread.
    pub(crate) gate_exempt: AtomicBool,
    pub(crate) needs_thr_lock_abort: AtomicBool,
    /// This context's live [`crate::LockGuard`]s, and [`ENDED`] once it has ended (see the
    /// module docs): raised by the owning thread when it makes a guard, lowered by whichever
    /// thread drops one, after its lock is released. The owning thread reads its own
    /// increments; a drop it has not seen yet only makes it count a lock it no longer holds (a
    /// deadlock search it could have skipped).
    pub(crate) guards: AtomicUsize,
    pub(crate) owner: Option<Arc<dyn MdlOwner>>,
    /// What the owner calls this context (connection id, user@host, statement).
    label: Mutex<Option<Arc<str>>>,
    /// The deadlock that made this context a victim, for the wait of that epoch.
    pub(crate) deadlock: Mutex<Option<(u64, Arc<DeadlockRecord>)>>,
    /// What the context publishes for `metadata_locks` (zero-sized without `pfs`; see
    /// `instrument.rs`).
    pub(crate) rows: ContextRows,
    /// Feature `metrics`: tickets this context created, by `deadlock::counter_row` (namespace
    /// and type), as of its last publication (`publish.rs`). Written only by the thread using
    /// the context (load and store, no read-modify-write), summed by
    /// `MdlManager::publish_metrics`.
    #[cfg(feature = "metrics")]
    pub(crate) acquired: Counts,
}

/// The bit of [`ContextShared::guards`] that says the context has ended.
pub(crate) const ENDED: usize = !(usize::MAX >> 1);

/// 256 counters on cache lines of their own (feature `metrics`; see `publish.rs`).
#[cfg(feature = "metrics")]
#[repr(align(64))]
pub(crate) struct Counts(pub(crate) [AtomicU64; 256]);

#[cfg(feature = "metrics")]
impl Counts {
    pub(crate) fn new() -> Counts {
        Counts(std::array::from_fn(|_| AtomicU64::new(0)))
    }

    /// Adds `other` (any thread).
    pub(crate) fn add(&self, other: &Counts) {
        for (a, b) in self.0.iter().zip(&other.0) {
            let v = b.load(crate::sync::Ordering::Relaxed);
            if v != 0 {
                a.fetch_add(v, crate::sync::Ordering::Relaxed);
            }
        }
    }
}

impl ContextShared {
    pub(crate) fn new(serial: u64, id: u64, key: usize, owner: Option<Arc<dyn MdlOwner>>) -> Self {
        ContextShared {
            serial,
            id,
            key,
            tag: (key <= MAX_TAG).then_some(key as u16),
            wait: WaitSlot::new(),
            killed: KillFlag::new(),
            alarms: [AtomicU64::new(0), AtomicU64::new(0)],
            force_dml_weight: AtomicBool::new(false),
            gate_exempt: AtomicBool::new(false),
            needs_thr_lock_abort: AtomicBool::new(false),
            guards: AtomicUsize::new(0),
            owner,
            label: Mutex::new(None),
            deadlock: Mutex::new(None),
            rows: ContextRows::new(),
            #[cfg(feature = "metrics")]
            acquired: Counts::new(),
        }
    }

    /// The number of the context's live guards.
    pub(crate) fn guard_count(&self) -> usize {
        self.guards.load(Ordering::Relaxed) & !ENDED
    }

    /// Counts a guard the owning thread has made.
    pub(crate) fn guard_made(&self) {
        self.guards.fetch_add(1, Ordering::Relaxed);
    }

    /// The owner's label for this context.
    pub(crate) fn label(&self) -> Option<Arc<str>> {
        self.label.lock().clone()
    }

    pub(crate) fn set_label(&self, label: Option<Arc<str>>) {
        *self.label.lock() = label;
    }

    /// The deadlock report for the wait of `epoch`, if a search chose this context as its victim.
    pub(crate) fn take_deadlock(&self, epoch: u64) -> Option<Arc<DeadlockRecord>> {
        let mut d = self.deadlock.lock();
        match d.take() {
            Some((e, r)) if e == epoch => Some(r),
            _ => None,
        }
    }
}

/// The live contexts of a manager, by tag and by id.
pub(crate) struct Registry {
    contexts: Mutex<Contexts>,
    /// `metadata_locks` rows lost by contexts that have ended (see `instrument.rs`).
    pub(crate) retired_rows: RetiredRows,
    /// Feature `metrics`: the acquisitions of contexts that have ended.
    #[cfg(feature = "metrics")]
    retired_acquired: Counts,
}

/// The registry's contents, under its mutex.
#[derive(Default)]
struct Contexts {
    /// By tag (the slab key).
    slab: Slab<Weak<ContextShared>>,
    /// Tag by id.
    by_id: HashMap<u64, usize>,
    /// The ids of ended contexts whose guards still live (see the module docs).
    lingering: HashSet<u64>,
}

impl Contexts {
    fn id_taken(&self, id: u64) -> bool {
        self.by_id.contains_key(&id) || self.lingering.contains(&id)
    }
}

impl Registry {
    pub(crate) fn new() -> Registry {
        Registry {
            contexts: Mutex::new(Contexts::default()),
            retired_rows: RetiredRows::new(),
            #[cfg(feature = "metrics")]
            retired_acquired: Counts::new(),
        }
    }

    /// Registers a new context, with id `id` or, for `None`, one nobody uses.
    ///
    /// # Errors
    /// [`MdlError::ContextIdInUse`] if a live context of this manager has id `id`, or an ended
    /// one whose guards still live.
    pub(crate) fn register(
        &self,
        id: Option<u64>,
        owner: Option<Arc<dyn MdlOwner>>,
    ) -> Result<Arc<ContextShared>> {
        // Serials are unique in the process, not just in one manager, so a ticket (which names
        // its context by serial) of another manager's context is never mistaken for one of
        // ours. (A plain std atomic: the counter is not part of any loom model.)
        static NEXT_SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let next = || NEXT_SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let serial = next();
        let mut c = self.contexts.lock();
        let id = match id {
            Some(id) if c.id_taken(id) => return Err(MdlError::ContextIdInUse(ContextId(id))),
            Some(id) => id,
            // A picked id is the serial, unless a chosen id took that number.
            None => std::iter::once(serial)
                .chain(std::iter::repeat_with(next))
                .find(|&n| !c.id_taken(n))
                .unwrap_or(serial),
        };
        let entry = c.slab.vacant_entry();
        let key = entry.key();
        let shared = Arc::new(ContextShared::new(serial, id, key, owner));
        entry.insert(Arc::downgrade(&shared));
        c.by_id.insert(id, key);
        Ok(shared)
    }

    /// Forgets a context (its tickets are already released); its id lingers while its guards
    /// live.
    pub(crate) fn unregister(&self, shared: &ContextShared) {
        let mut c = self.contexts.lock();
        if c.slab
            .get(shared.key)
            .is_some_and(|w| std::ptr::eq(w.as_ptr(), shared))
        {
            c.slab.remove(shared.key);
            c.by_id.remove(&shared.id);
            // Under the mutex: a last guard that sees ENDED finds the id recorded.
            if shared.guards.fetch_or(ENDED, Ordering::AcqRel) != 0 {
                c.lingering.insert(shared.id);
            }
            // Under the registry's lock, so each context's lost rows count once.
            self.retired_rows.retire(&shared.rows);
            #[cfg(feature = "metrics")]
            self.retired_acquired.add(&shared.acquired);
        }
    }

    /// Counts a dropped guard of `shared` (its lock already released); the last guard of an
    /// ended context frees its id.
    pub(crate) fn guard_dropped(&self, shared: &ContextShared) {
        if shared.guards.fetch_sub(1, Ordering::AcqRel) == ENDED | 1 {
            self.contexts.lock().lingering.remove(&shared.id);
        }
    }

    /// The live context with id `id`.
    pub(crate) fn by_id(&self, id: u64) -> Option<Arc<ContextShared>> {
        let c = self.contexts.lock();
        let key = *c.by_id.get(&id)?;
        c.slab.get(key).and_then(Weak::upgrade)
    }

    /// The context with tag `tag`, if it is alive.
    pub(crate) fn get(&self, tag: u16) -> Option<Arc<ContextShared>> {
        self.contexts
            .lock()
            .slab
            .get(usize::from(tag))
            .and_then(Weak::upgrade)
    }

    /// Every live context, and `f()` evaluated at the same moment, under the registry's lock
    /// (where an ending context's totals move to the registry's, so a sum of both never goes
    /// back). The `Arc`s are dropped after the lock.
    #[cfg_attr(not(any(feature = "pfs", feature = "metrics")), allow(dead_code))]
    pub(crate) fn live_and<T>(&self, f: impl FnOnce() -> T) -> (Vec<Arc<ContextShared>>, T) {
        let c = self.contexts.lock();
        let live = c.slab.iter().filter_map(|(_, w)| w.upgrade()).collect();
        (live, f())
    }

    /// Tickets created by every context, live or ended, per counter row (feature `metrics`).
    #[cfg(feature = "metrics")]
    pub(crate) fn acquired(&self) -> Vec<u64> {
        let (live, mut sum) = self.live_and(|| {
            self.retired_acquired
                .0
                .iter()
                .map(|a| a.load(crate::sync::Ordering::Relaxed))
                .collect::<Vec<u64>>()
        });
        for ctx in &live {
            for (s, a) in sum.iter_mut().zip(&ctx.acquired.0) {
                *s += a.load(crate::sync::Ordering::Relaxed);
            }
        }
        sum
    }

    /// Number of registered contexts.
    pub(crate) fn len(&self) -> usize {
        self.contexts.lock().slab.len()
    }
}

/// Model check of the handshake between a context's end and its guards' drops (the loom command
/// of `wait.rs`): however they interleave, the id stays taken while a guard lives, and is free
/// once the last one is gone.
#[cfg(all(test, loom))]
mod loom_models {
    use std::sync::Arc;

    use loom::thread;

    use super::*;

    #[test]
    fn the_last_guard_of_an_ended_context_frees_its_id() {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(3);
        b.check(|| {
            let reg = Arc::new(Registry::new());
            let ctx = reg.register(Some(7), None).unwrap();
            ctx.guard_made();
            ctx.guard_made();
            let drops: Vec<_> = (0..2)
                .map(|_| {
                    let (r, c) = (reg.clone(), ctx.clone());
                    thread::spawn(move || r.guard_dropped(&c))
                })
                .collect();
            reg.unregister(&ctx);
            {
                let c = reg.contexts.lock();
                assert!(ctx.guard_count() == 0 || c.id_taken(7), "a guard lives");
            }
            for d in drops {
                d.join().unwrap();
            }
            assert!(!reg.contexts.lock().id_taken(7), "the id lingers");
        });
    }
}
