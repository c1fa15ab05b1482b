//! The lock object: one per locked name, with its fast-path word and its granted / waiting
//! queues.
//!
//! # Protocol
//!
//! * `fast_path` is an atomic state word. Bits 0..59 count the *unobtrusive* locks (S, SH, SR,
//!   SW, SWLP; IX on scoped locks) granted without touching the queues (see
//!   [`crate::matrix::fast_path_increment`]); bit 60 `HAS_SLOW_PATH` says the queues are not
//!   empty (or someone under the state lock is about to check); bit 61 `HAS_OBTRUSIVE` says an
//!   obtrusive lock is granted or pending; bit 62 `IS_DESTROYED` says the object is being evicted
//!   from the lock map and must be looked up again. The word is 0 exactly when nobody uses the
//!   object.
//! * An unobtrusive request is granted by one compare-and-swap that adds its increment, as long
//!   as `HAS_OBTRUSIVE` is clear. Everything else takes `state` for writing.
//! * Once `HAS_OBTRUSIVE` is set, the word changes only under the `state` write lock (MySQL's
//!   INV1), so an obtrusive requester holding the lock sees a stable set of fast-path locks.
//!   Before an obtrusive request, and before any wait, a context *materializes* its own fast-path
//!   locks into the granted queue, so the locks that conflict with it are never its own and the
//!   deadlock detector sees every lock a waiter holds.
//! * `state` (a reader-writer lock) guards the queues, the type counts and bitmaps, the
//!   obtrusive count and the anti-starvation counters. The deadlock detector takes it for reading
//!   with `read_recursive`, so concurrent searches never block on a queued writer (MySQL uses a
//!   reader-preferring prlock for the same reason).
//! * Granting a waiter is done by the thread that frees the lock: it sets the waiter's wait slot
//!   to granted (first outcome wins) and moves the entry from waiting to granted, all under the
//!   write lock. The waiter then only records the ticket in its own store.
//!
//! Lock order: map partition mutex → `state` → a context's wait-slot mutex (a leaf). Nobody holds
//! `state` while taking a partition mutex or another lock object's `state` for writing.

use std::collections::BTreeMap;
use std::sync::Arc;

use slab::Slab;

use crate::context::ContextShared;
use crate::key::MdlKey;
use crate::matrix::{
    fast_path_granted_bitmap, granted_incompatible, waiting_incompatible, HOG_TYPES,
};
use crate::sync::{new_rwlock, AtomicU64, Ordering, RwLock, Site};
use crate::types::{LockType, Strategy};
use crate::wait::WaitStatus;

pub(crate) const HAS_SLOW_PATH: u64 = 1 << 60;
pub(crate) const HAS_OBTRUSIVE: u64 = 1 << 61;
pub(crate) const IS_DESTROYED: u64 = 1 << 62;

/// One granted or pending slow-path ticket, as the lock object sees it.
pub(crate) struct Entry {
    pub(crate) ctx: Arc<ContextShared>,
    pub(crate) ty: LockType,
    pub(crate) granted: bool,
    /// Position in the FIFO of waiters while pending.
    wait_seq: u64,
    /// The waiter's wait epoch while pending.
    pub(crate) epoch: u64,
    /// Ticket id, for `metadata_locks`.
    pub(crate) ticket_id: u64,
}

#[derive(Default)]
pub(crate) struct LockState {
    pub(crate) entries: Slab<Entry>,
    waiting: BTreeMap<u64, usize>,
    next_wait_seq: u64,
    granted_count: [u32; 11],
    waiting_count: [u32; 11],
    pub(crate) granted_bitmap: u16,
    pub(crate) waiting_bitmap: u16,
    /// Obtrusive tickets granted or pending (MySQL's `m_obtrusive_locks_granted_waiting_count`).
    pub(crate) obtrusive_count: u32,
    hog_count: u64,
    piglet_count: u64,
    pub(crate) matrix_idx: usize,
}

impl LockState {
    fn count(counts: &mut [u32; 11], bitmap: &mut u16, ty: LockType, up: bool) {
        let c = &mut counts[ty as usize];
        if up {
            *c += 1;
            *bitmap |= ty.bit();
        } else {
            *c -= 1;
            if *c == 0 {
                *bitmap &= !ty.bit();
            }
        }
    }

    pub(crate) fn add_granted(
        &mut self,
        ctx: Arc<ContextShared>,
        ty: LockType,
        ticket_id: u64,
    ) -> usize {
        Self::count(&mut self.granted_count, &mut self.granted_bitmap, ty, true);
        self.entries.insert(Entry {
            ctx,
            ty,
            granted: true,
            wait_seq: 0,
            epoch: 0,
            ticket_id,
        })
    }

    pub(crate) fn add_waiting(
        &mut self,
        ctx: Arc<ContextShared>,
        ty: LockType,
        epoch: u64,
        ticket_id: u64,
    ) -> usize {
        Self::count(&mut self.waiting_count, &mut self.waiting_bitmap, ty, true);
        let seq = self.next_wait_seq;
        self.next_wait_seq += 1;
        let idx = self.entries.insert(Entry {
            ctx,
            ty,
            granted: false,
            wait_seq: seq,
            epoch,
            ticket_id,
        });
        self.waiting.insert(seq, idx);
        idx
    }

    pub(crate) fn remove(&mut self, idx: usize) -> Entry {
        let e = self.entries.remove(idx);
        if e.granted {
            Self::count(
                &mut self.granted_count,
                &mut self.granted_bitmap,
                e.ty,
                false,
            );
        } else {
            Self::count(
                &mut self.waiting_count,
                &mut self.waiting_bitmap,
                e.ty,
                false,
            );
            self.waiting.remove(&e.wait_seq);
        }
        e
    }

    fn grant_waiting(&mut self, idx: usize) {
        let e = &mut self.entries[idx];
        debug_assert!(!e.granted);
        e.granted = true;
        let (ty, seq) = (e.ty, e.wait_seq);
        self.waiting.remove(&seq);
        Self::count(&mut self.waiting_count, &mut self.waiting_bitmap, ty, false);
        Self::count(&mut self.granted_count, &mut self.granted_bitmap, ty, true);
    }

    /// Granted entries, in slab order.
    pub(crate) fn granted(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().map(|(_, e)| e).filter(|e| e.granted)
    }

    /// Pending entries, oldest first.
    pub(crate) fn waiting(&self) -> impl Iterator<Item = &Entry> {
        self.waiting.values().map(|&i| &self.entries[i])
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn reset_priorities(&mut self) {
        self.hog_count = 0;
        self.piglet_count = 0;
        self.matrix_idx = 0;
    }
}

/// A lock object (MySQL's `MDL_lock`).
pub(crate) struct LockObject {
    pub(crate) key: MdlKey,
    pub(crate) strategy: Strategy,
    pub(crate) singleton: bool,
    hog_affected: bool,
    pub(crate) fast_path: AtomicU64,
    pub(crate) state: RwLock<LockState>,
}

impl LockObject {
    pub(crate) fn new(key: MdlKey) -> LockObject {
        let ns = key.namespace();
        LockObject {
            strategy: ns.strategy(),
            singleton: ns.is_singleton(),
            hog_affected: ns.is_affected_by_max_write_lock_count(),
            key,
            fast_path: AtomicU64::new(0),
            state: new_rwlock(Site::LockObject, LockState::default()),
        }
    }

    /// MySQL's `can_grant_lock`: no pending request with priority, no conflicting fast-path
    /// lock, and every conflicting granted ticket belongs to the requester.
    pub(crate) fn can_grant(&self, st: &LockState, ty: LockType, requester: u64) -> bool {
        if st.waiting_bitmap & waiting_incompatible(self.strategy, st.matrix_idx, ty) != 0 {
            return false;
        }
        let conflicts = granted_incompatible(self.strategy, ty);
        let fast = self.fast_path.load(Ordering::Acquire);
        if fast_path_granted_bitmap(self.strategy, fast) & conflicts != 0 {
            return false;
        }
        if st.granted_bitmap & conflicts == 0 {
            return true;
        }
        st.granted()
            .all(|e| e.ctx.id == requester || conflicts & e.ty.bit() == 0)
    }

    /// Counts a slow-path grant against `max_write_lock_count`; returns whether the priority
    /// matrix changed.
    pub(crate) fn count_piglets_and_hogs(
        &self,
        st: &mut LockState,
        ty: LockType,
        max_write_lock_count: u64,
    ) -> bool {
        if !self.hog_affected {
            return false;
        }
        if HOG_TYPES & ty.bit() != 0 {
            if st.waiting_bitmap & !HOG_TYPES != 0 {
                st.hog_count += 1;
            }
        } else if ty == LockType::SharedWrite && st.waiting_bitmap & LockType::SRO.bit() != 0 {
            st.piglet_count += 1;
        }
        let idx = usize::from(st.piglet_count >= max_write_lock_count)
            + 2 * usize::from(st.hog_count >= max_write_lock_count);
        let changed = idx != st.matrix_idx;
        st.matrix_idx = idx;
        changed
    }

    /// Grants every pending request that can now be granted, oldest first (MySQL's
    /// `reschedule_waiters`), then applies the anti-starvation reset rules.
    pub(crate) fn reschedule_waiters(&self, st: &mut LockState, max_write_lock_count: u64) {
        let mut cursor: u64 = 0;
        while let Some((&seq, &idx)) = st.waiting.range(cursor..).next() {
            cursor = seq + 1;
            let (ty, ctx_id, epoch) = {
                let e = &st.entries[idx];
                (e.ty, e.ctx.id, e.epoch)
            };
            if self.can_grant(st, ty, ctx_id)
                && st.entries[idx].ctx.wait.set(epoch, WaitStatus::Granted)
            {
                st.grant_waiting(idx);
                if self.count_piglets_and_hogs(st, ty, max_write_lock_count) {
                    cursor = 0;
                }
            }
        }
        let w = st.waiting_bitmap;
        if st.matrix_idx == 3 {
            if w & !(HOG_TYPES | LockType::SW.bit() | LockType::SWLP.bit()) == 0 {
                st.reset_priorities();
            }
        } else {
            if w & !HOG_TYPES == 0 {
                st.hog_count = 0;
                st.matrix_idx &= !2;
            }
            if w & LockType::SRO.bit() == 0 {
                st.piglet_count = 0;
                st.matrix_idx &= !1;
            }
        }
    }

    /// Removes a slow-path entry (granted or pending), clears the state flags it was the last
    /// reason for, and wakes whoever can now be granted. Returns whether the object became
    /// unused (state word 0).
    pub(crate) fn remove_entry(&self, idx: usize, max_write_lock_count: u64) -> bool {
        let mut st = self.state.write();
        let e = st.remove(idx);
        let obtrusive = crate::matrix::fast_path_increment(self.strategy, e.ty) == 0;
        let mut clear = 0;
        if obtrusive {
            st.obtrusive_count -= 1;
            if st.obtrusive_count == 0 {
                clear |= HAS_OBTRUSIVE;
            }
        }
        let last_slow_path = st.is_empty();
        if last_slow_path {
            clear |= HAS_SLOW_PATH;
            st.reset_priorities();
        }
        let new_state = if clear != 0 {
            self.fast_path.fetch_and(!clear, Ordering::AcqRel) & !clear
        } else {
            self.fast_path.load(Ordering::Acquire)
        };
        if !last_slow_path {
            self.reschedule_waiters(&mut st, max_write_lock_count);
        }
        drop(st);
        drop(e);
        new_state == 0
    }

    /// Moves one of a context's fast-path locks into the granted queue.
    pub(crate) fn materialize(
        &self,
        ctx: &Arc<ContextShared>,
        ty: LockType,
        ticket_id: u64,
    ) -> usize {
        let inc = crate::matrix::fast_path_increment(self.strategy, ty);
        let mut st = self.state.write();
        let idx = st.add_granted(ctx.clone(), ty, ticket_id);
        let mut old = self.fast_path.load(Ordering::Relaxed);
        loop {
            let new = (old - inc) | HAS_SLOW_PATH;
            match self.fast_path.compare_exchange_weak(
                old,
                new,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(cur) => old = cur,
            }
        }
        idx
    }
}
