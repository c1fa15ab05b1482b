//! Per-thread instrumentation state.
//!
//! Each thread that records something gets a [`ThreadSlot`] (allocated once, on its first
//! event, and registered in `Global::threads`). The slot is shared through an `Arc` with the
//! readers, but every field is written only by its owning thread, with relaxed load + store
//! (see `stats`), so recording never needs an atomic read-modify-write or a lock.
//!
//! When the thread exits, its thread-local destructor folds the slot's stats into the
//! "exited threads" aggregate and unregisters it, under the `threads` lock, so totals read
//! after the threads have been joined are exact. Thread slots are bounded by
//! `Sizing::max_threads`; a thread beyond that runs unrecorded and bumps `thread_lost`.

use std::cell::OnceCell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::events::{EventRecord, Ring};
use super::stats::{Hist, Snap, StatCell, HIST_BUCKETS};
use super::{global, WAIT_STACK};
use crate::Sizing;

pub(crate) struct ThreadSlot {
    pub(crate) thread_id: u64,
    /// `std::thread` name at registration.
    pub(crate) name: Option<String>,
    /// Per-class stats (`events_waits_summary_by_thread_by_event_name`).
    pub(crate) stats: Box<[StatCell]>,
    /// Per-class histograms, allocated on first use by the owner.
    pub(crate) hists: Box<[OnceLock<Box<Hist>>]>,
    /// Per-digest statement stats.
    pub(crate) digests: Box<[StatCell]>,
    pub(crate) next_event_id: AtomicU64,
    /// Depth of the wait stack (owner only).
    pub(crate) wait_depth: AtomicUsize,
    pub(crate) wait_stack: [EventRecord; WAIT_STACK],
    pub(crate) stage: EventRecord,
    pub(crate) statement: EventRecord,
    /// Event ids of the stage / statement in progress, 0 if none (owner only).
    pub(crate) stage_active: AtomicU64,
    pub(crate) statement_active: AtomicU64,
    pub(crate) waits_history: Ring,
    pub(crate) stages_history: Ring,
    pub(crate) statements_history: Ring,
}

impl ThreadSlot {
    fn new(thread_id: u64, sizing: &Sizing) -> ThreadSlot {
        ThreadSlot {
            thread_id,
            name: std::thread::current().name().map(str::to_string),
            stats: (0..sizing.max_classes).map(|_| StatCell::new()).collect(),
            hists: (0..sizing.max_classes).map(|_| OnceLock::new()).collect(),
            digests: (0..sizing.max_digests).map(|_| StatCell::new()).collect(),
            next_event_id: AtomicU64::new(1),
            wait_depth: AtomicUsize::new(0),
            wait_stack: Default::default(),
            stage: EventRecord::default(),
            statement: EventRecord::default(),
            stage_active: AtomicU64::new(0),
            statement_active: AtomicU64::new(0),
            waits_history: Ring::new(sizing.waits_history_size),
            stages_history: Ring::new(sizing.stages_history_size),
            statements_history: Ring::new(sizing.statements_history_size),
        }
    }

    /// Next EVENT_ID (owner only).
    #[inline]
    pub(crate) fn next_event_id(&self) -> u64 {
        let id = self.next_event_id.load(Ordering::Relaxed);
        self.next_event_id.store(id + 1, Ordering::Relaxed);
        id
    }

    #[inline]
    pub(crate) fn hist(&self, class: usize) -> Option<&Hist> {
        self.hists
            .get(class)
            .map(|h| &**h.get_or_init(|| Box::new(Hist::new())))
    }

    pub(crate) fn reset_stats(&self) {
        for s in self.stats.iter().chain(self.digests.iter()) {
            s.reset();
        }
        for h in self.hists.iter().filter_map(|h| h.get()) {
            h.reset();
        }
    }
}

/// The registry of live threads plus the fold of exited ones.
pub(crate) struct Threads {
    pub(crate) live: Vec<Arc<ThreadSlot>>,
    pub(crate) exited: Vec<Snap>,
    pub(crate) exited_hist: Vec<[u64; HIST_BUCKETS]>,
    pub(crate) exited_digests: Vec<Snap>,
}

impl Threads {
    pub(crate) fn new(sizing: &Sizing) -> Threads {
        Threads {
            live: Vec::new(),
            exited: vec![Snap::default(); sizing.max_classes],
            exited_hist: vec![[0; HIST_BUCKETS]; sizing.max_classes],
            exited_digests: vec![Snap::default(); sizing.max_digests],
        }
    }

    /// Fold a slot into the exited aggregate.
    pub(crate) fn fold(&mut self, t: &ThreadSlot) {
        for (agg, s) in self.exited.iter_mut().zip(t.stats.iter()) {
            agg.merge(&s.snapshot());
        }
        for (agg, s) in self.exited_digests.iter_mut().zip(t.digests.iter()) {
            agg.merge(&s.snapshot());
        }
        for (agg, h) in self.exited_hist.iter_mut().zip(t.hists.iter()) {
            if let Some(h) = h.get() {
                h.add_into(agg);
            }
        }
    }
}

struct Local {
    slot: OnceCell<Option<Arc<ThreadSlot>>>,
}

impl Drop for Local {
    fn drop(&mut self) {
        if let Some(Some(slot)) = self.slot.get() {
            let mut th = global().threads.lock();
            th.fold(slot);
            th.live.retain(|s| !Arc::ptr_eq(s, slot));
        }
    }
}

thread_local! {
    static LOCAL: Local = const { Local { slot: OnceCell::new() } };
}

fn register() -> Option<Arc<ThreadSlot>> {
    let g = global();
    let id = crate::current_thread_id();
    let mut th = g.threads.lock();
    if th.live.len() >= g.sizing.max_threads {
        g.lost.thread.fetch_add(1, Ordering::Relaxed);
        return None;
    }
    let slot = Arc::new(ThreadSlot::new(id, &g.sizing));
    th.live.push(slot.clone());
    Some(slot)
}

/// Run `f` on the current thread's slot; `None` if the thread has no slot (lost, or the thread
/// is exiting).
#[inline]
pub(crate) fn with_slot<R>(f: impl FnOnce(&ThreadSlot) -> R) -> Option<R> {
    LOCAL
        .try_with(|l| l.slot.get_or_init(register).as_deref().map(f))
        .ok()
        .flatten()
}

/// EVENT_ID of the innermost event in progress on this thread (wait, else stage, else
/// statement). Does not create a slot.
pub(crate) fn current_event_id() -> Option<u64> {
    LOCAL
        .try_with(|l| {
            let t = l.slot.get()?.as_deref()?;
            let depth = t.wait_depth.load(Ordering::Relaxed).min(WAIT_STACK);
            let nz = |v: u64| (v != 0).then_some(v);
            if depth > 0 {
                nz(t.wait_stack[depth - 1].own_event_id())
            } else {
                nz(t.stage_active.load(Ordering::Relaxed))
                    .or_else(|| nz(t.statement_active.load(Ordering::Relaxed)))
            }
        })
        .ok()
        .flatten()
}
