//! The part of a context that other threads reach, and the registry of live contexts.
//!
//! A context ([`crate::MdlContext`]) is used by one thread at a time; lock objects' queue
//! entries, the deadlock detector, kill handles and strong requesters that transfer fast-path
//! locks reach it through an `Arc<ContextShared>`.
//!
//! Protocol: `serial`, `id`, `tag` and `owner` never change. The wait slot has its own mutex
//! (see [`crate::wait`]). `killed` is raised by any thread ([`crate::MdlManager::kill`],
//! [`crate::KillHandle`]) and cleared by the owning thread; `force_dml_weight` and `needs_thr_lock_abort` are written by the owning thread
//! and read by others (relaxed: they are hints for decisions taken under a lock object's lock).
//! `label` is written by the owning thread and read by diagnostics, under its own mutex.
//! `deadlock` is written by the deadlock search that picks this context as a victim (holding
//! the wait-for graph's mutex) before it sets the wait slot, and taken by the owning thread after
//! its wait ends.
//!
//! Two numbers name a context. `id` is the [`crate::ContextId`] users see and kill by: a server's
//! connection id or one the registry picked, unique among the manager's live contexts. `serial`
//! is unique in the process for ever, and is what tickets, savepoints, queue entries and the
//! wait-for graph compare: a lock can outlive its context (an owned [`crate::LockGuard`]), and a
//! new context may then reuse the old one's id, but never its serial.
//!
//! The registry's mutex guards its slab and its id index; nothing else is locked while it is
//! held, except
//! that a transferring strong requester looks owners up under a lock object's write lock (lock
//! order: lock object → registry).

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use slab::Slab;

use crate::blocking::DeadlockRecord;
use crate::error::{MdlError, Result};
use crate::fast_path::MAX_TAG;
use crate::owner::MdlOwner;
use crate::sync::{AtomicBool, AtomicU64, Mutex};
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
    pub(crate) owner: Option<Arc<dyn MdlOwner>>,
    /// What the owner calls this context (connection id, user@host, statement).
    label: Mutex<Option<Arc<str>>>,
    /// The deadlock that made this context a victim, for the wait of that epoch.
    pub(crate) deadlock: Mutex<Option<(u64, Arc<DeadlockRecord>)>>,
    /// The `pfs` thread that created the context or last waited in it (`metadata_locks`'
    /// `OWNER_THREAD_ID`).
    #[cfg(feature = "pfs")]
    pub(crate) pfs_thread: crate::sync::AtomicU64,
    /// `wait/lock/metadata/sql/mdl`, kept here so the hot path needs no lookup.
    #[cfg(feature = "pfs")]
    pub(crate) metadata_class: pfs::ClassRef,
    #[cfg(feature = "pfs")]
    pub(crate) published_lost: crate::sync::AtomicU64,
    /// This context's rows of `metadata_locks` (see `instrument.rs`): in place, on lines of
    /// their own, so publishing is one store with no pointer to follow and nothing to
    /// initialize.
    #[cfg(feature = "pfs")]
    pub(crate) published: Published,
    /// Feature `metrics`: tickets this context created, by `deadlock::counter_row` (namespace
    /// and type), as of its last publication (`publish.rs`). Written only by the thread using
    /// the context (load and store, no read-modify-write), summed by
    /// `MdlManager::publish_metrics`.
    #[cfg(feature = "metrics")]
    pub(crate) acquired: Counts,
}

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

/// Shared-word tickets per context shown in `metadata_locks` (ticket slots
/// `0..PUBLISHED_SLOTS`).
#[cfg(feature = "pfs")]
pub const PUBLISHED_SLOTS: usize = 64;

/// A context's published shared-word tickets: per ticket slot, 0 or the row word of a held
/// lock (`instrument::row_word`: the lock object's address, the duration, the type). Written
/// only by the thread using the context, read by `metadata_locks` (`instrument.rs`). 64-byte
/// aligned: the words share no cache line with the fields other threads write.
#[cfg(feature = "pfs")]
#[repr(align(64))]
pub(crate) struct Published {
    pub(crate) words: [crate::sync::AtomicU64; PUBLISHED_SLOTS],
}

#[cfg(feature = "pfs")]
impl Published {
    fn new() -> Published {
        Published {
            words: std::array::from_fn(|_| crate::sync::AtomicU64::new(0)),
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
            owner,
            label: Mutex::new(None),
            deadlock: Mutex::new(None),
            #[cfg(feature = "pfs")]
            pfs_thread: crate::sync::AtomicU64::new(pfs::current_thread_id()),
            #[cfg(feature = "pfs")]
            metadata_class: crate::sync::class_of(crate::sync::Site::Metadata),
            #[cfg(feature = "pfs")]
            published_lost: crate::sync::AtomicU64::new(0),
            #[cfg(feature = "pfs")]
            published: Published::new(),
            #[cfg(feature = "metrics")]
            acquired: Counts::new(),
        }
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
    #[cfg(feature = "pfs")]
    retired_lost: crate::sync::AtomicU64,
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
}

impl Registry {
    pub(crate) fn new() -> Registry {
        Registry {
            contexts: Mutex::new(Contexts::default()),
            #[cfg(feature = "pfs")]
            retired_lost: crate::sync::AtomicU64::new(0),
            #[cfg(feature = "metrics")]
            retired_acquired: Counts::new(),
        }
    }

    /// Registers a new context, with id `id` or, for `None`, one nobody uses.
    ///
    /// # Errors
    /// [`MdlError::ContextIdInUse`] if a live context of this manager has id `id`.
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
            Some(id) if c.by_id.contains_key(&id) => {
                return Err(MdlError::ContextIdInUse(ContextId(id)))
            }
            Some(id) => id,
            // A picked id is the serial, unless a chosen id took that number.
            None => std::iter::once(serial)
                .chain(std::iter::repeat_with(next))
                .find(|n| !c.by_id.contains_key(n))
                .unwrap_or(serial),
        };
        let entry = c.slab.vacant_entry();
        let key = entry.key();
        let shared = Arc::new(ContextShared::new(serial, id, key, owner));
        entry.insert(Arc::downgrade(&shared));
        c.by_id.insert(id, key);
        Ok(shared)
    }

    /// Forgets a context (its locks are already released).
    pub(crate) fn unregister(&self, shared: &ContextShared) {
        let mut c = self.contexts.lock();
        if c.slab
            .get(shared.key)
            .is_some_and(|w| std::ptr::eq(w.as_ptr(), shared))
        {
            c.slab.remove(shared.key);
            c.by_id.remove(&shared.id);
            // Under the registry's lock, so `lost_rows` counts each context once.
            #[cfg(feature = "pfs")]
            self.retired_lost.fetch_add(
                shared.published_lost.load(crate::sync::Ordering::Relaxed),
                crate::sync::Ordering::Relaxed,
            );
            #[cfg(feature = "metrics")]
            self.retired_acquired.add(&shared.acquired);
        }
    }

    /// The live context with id `id`.
    pub(crate) fn by_id(&self, id: u64) -> Option<Arc<ContextShared>> {
        let c = self.contexts.lock();
        let key = *c.by_id.get(&id)?;
        c.slab.get(key).and_then(Weak::upgrade)
    }

    /// `metadata_locks` rows lost by every context, live or ended (see `instrument.rs`).
    #[cfg(feature = "pfs")]
    pub(crate) fn lost_rows(&self) -> u64 {
        // The live set and the ended contexts' total from one moment (a context's count moves
        // to the total under the same lock); the `Arc`s are dropped after the lock.
        let (live, retired) = {
            let c = self.contexts.lock();
            let live: Vec<Arc<ContextShared>> =
                c.slab.iter().filter_map(|(_, w)| w.upgrade()).collect();
            (live, self.retired_lost.load(crate::sync::Ordering::Relaxed))
        };
        let live_lost: u64 = live
            .iter()
            .map(|c| c.published_lost.load(crate::sync::Ordering::Relaxed))
            .sum();
        live_lost + retired
    }

    /// The context with tag `tag`, if it is alive.
    pub(crate) fn get(&self, tag: u16) -> Option<Arc<ContextShared>> {
        self.contexts
            .lock()
            .slab
            .get(usize::from(tag))
            .and_then(Weak::upgrade)
    }

    /// Every live context.
    #[cfg(feature = "pfs")]
    pub(crate) fn live(&self) -> Vec<Arc<ContextShared>> {
        self.contexts
            .lock()
            .slab
            .iter()
            .filter_map(|(_, w)| w.upgrade())
            .collect()
    }

    /// Tickets created by every context, live or ended, per counter row (feature `metrics`):
    /// the live set and the ended contexts' total from one moment (a context's counts move to
    /// the total under the registry's lock), so the sum never goes back.
    #[cfg(feature = "metrics")]
    pub(crate) fn acquired(&self) -> Vec<u64> {
        let (live, mut sum) = {
            let c = self.contexts.lock();
            let live: Vec<Arc<ContextShared>> =
                c.slab.iter().filter_map(|(_, w)| w.upgrade()).collect();
            let retired: Vec<u64> = self
                .retired_acquired
                .0
                .iter()
                .map(|a| a.load(crate::sync::Ordering::Relaxed))
                .collect();
            (live, retired)
        };
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
