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

/// The bits of the state word that count the locks `inc` adds to (20 bits per type group for
/// object locks, 60 bits for scoped IX).
#[inline]
fn fast_path_field_mask(strategy: Strategy, inc: u64) -> u64 {
    match strategy {
        Strategy::Scoped => (1 << 60) - 1,
        Strategy::Object => inc * ((1 << 20) - 1),
    }
}

/// Outcome of a fast-path attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FastAcquire {
    /// Counted in the state word; `first_use` if the word was 0 before.
    Granted { first_use: bool },
    /// Take the slow path: an obtrusive lock is granted or pending, or this type's counter in
    /// the state word is full.
    SlowPath,
    /// The object is being evicted: look it up again.
    Destroyed,
}

/// The object is being evicted: look it up again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Destroyed;

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

    /// The fast path: one compare-and-swap adding `inc` to the state word, unless an obtrusive
    /// lock is around, the object is being destroyed, or the type's counter is full (a context
    /// can hold any number of clones of one lock; MySQL bounds the counters by connections).
    #[inline]
    pub(crate) fn fast_acquire(&self, inc: u64) -> FastAcquire {
        let full = fast_path_field_mask(self.strategy, inc);
        let mut old = self.fast_path.load(Ordering::Relaxed);
        loop {
            if old & IS_DESTROYED != 0 {
                return FastAcquire::Destroyed;
            }
            if old & HAS_OBTRUSIVE != 0 || old & full == full {
                return FastAcquire::SlowPath;
            }
            match self.fast_path.compare_exchange_weak(
                old,
                old + inc,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    return FastAcquire::Granted {
                        first_use: old == 0,
                    }
                }
                Err(cur) => old = cur,
            }
        }
    }

    /// Gives back a fast-path lock. Once an obtrusive lock is around the word changes only
    /// under the write lock, and the release may let a waiter in. Returns whether the object
    /// became unused.
    #[inline]
    pub(crate) fn fast_release(&self, inc: u64, max_write_lock_count: u64) -> bool {
        let mut old = self.fast_path.load(Ordering::Relaxed);
        loop {
            if old & HAS_OBTRUSIVE != 0 {
                let mut st = self.state.write();
                let prev = self.fast_path.fetch_sub(inc, Ordering::AcqRel);
                if st.obtrusive_count != 0 {
                    self.reschedule_waiters(&mut st, max_write_lock_count);
                }
                return prev == inc;
            }
            match self.fast_path.compare_exchange_weak(
                old,
                old - inc,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return old == inc,
                Err(cur) => old = cur,
            }
        }
    }

    /// Under the write lock, before a slow-path request is checked: counts an obtrusive request
    /// and raises `HAS_SLOW_PATH` (and `HAS_OBTRUSIVE` for the first obtrusive one), which sends
    /// every later fast-path request and release through the lock. Returns whether the object
    /// was unused before.
    pub(crate) fn begin_slow_path(
        &self,
        st: &mut LockState,
        obtrusive: bool,
    ) -> Result<bool, Destroyed> {
        let state = self.fast_path.load(Ordering::Acquire);
        if state & IS_DESTROYED != 0 {
            return Err(Destroyed);
        }
        let first_obtrusive = obtrusive && {
            st.obtrusive_count += 1;
            st.obtrusive_count == 1
        };
        if state & HAS_SLOW_PATH == 0 || first_obtrusive {
            let flags = HAS_SLOW_PATH | if first_obtrusive { HAS_OBTRUSIVE } else { 0 };
            let old = self.fast_path.fetch_or(flags, Ordering::AcqRel);
            return Ok(old == 0);
        }
        Ok(false)
    }

    /// Under the write lock, undoes [`LockObject::begin_slow_path`] for a request that was
    /// neither granted nor queued. Returns whether the object became unused.
    pub(crate) fn abandon_slow_path(&self, st: &mut LockState, obtrusive: bool) -> bool {
        let mut clear = 0;
        if obtrusive {
            st.obtrusive_count -= 1;
            if st.obtrusive_count == 0 {
                clear |= HAS_OBTRUSIVE;
            }
        }
        if st.is_empty() {
            clear |= HAS_SLOW_PATH;
        }
        clear != 0 && self.fast_path.fetch_and(!clear, Ordering::AcqRel) & !clear == 0
    }

    /// Adds a lock held through a clone of one of the context's tickets on this object (so the
    /// object is in use): on the fast path if the source is, else as a granted entry. Returns
    /// the entry index for a slow-path clone.
    pub(crate) fn add_clone(
        &self,
        ctx: &Arc<ContextShared>,
        ty: LockType,
        source_fast: bool,
        ticket_id: u64,
    ) -> Option<usize> {
        let inc = crate::matrix::fast_path_increment(self.strategy, ty);
        let mut st = self.state.write();
        if source_fast && inc != 0 {
            // The counter is changed only under the write lock here, but fast-path requests may
            // add to it concurrently: reserve a unit with a CAS that checks the field is not full.
            let full = fast_path_field_mask(self.strategy, inc);
            let mut old = self.fast_path.load(Ordering::Relaxed);
            while old & full != full {
                match self.fast_path.compare_exchange_weak(
                    old,
                    old + inc,
                    Ordering::AcqRel,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => return None,
                    Err(cur) => old = cur,
                }
            }
        }
        let mut flags = HAS_SLOW_PATH;
        if inc == 0 {
            st.obtrusive_count += 1;
            flags |= HAS_OBTRUSIVE;
        }
        self.fast_path.fetch_or(flags, Ordering::AcqRel);
        Some(st.add_granted(ctx.clone(), ty, ticket_id))
    }

    /// Eviction: marks an unused object destroyed (state word exactly 0 → `IS_DESTROYED`) under
    /// the write lock, so no slow-path user is mid-way. Returns whether it was marked.
    pub(crate) fn try_destroy(&self) -> bool {
        if self.fast_path.load(Ordering::Relaxed) != 0 {
            return false;
        }
        let _st = self.state.write();
        self.fast_path
            .compare_exchange(0, IS_DESTROYED, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
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

/// Model checks of the fast-path state word under every interleaving loom explores
/// (`RUSTFLAGS="--cfg loom" cargo test -p mdl-core --lib --release loom`).
#[cfg(all(test, loom))]
mod loom_models {
    use std::sync::Arc;

    use loom::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use loom::thread;

    use super::*;
    use crate::key::MdlKey;
    use crate::matrix::fast_path_increment;
    use crate::types::Namespace;

    const MAX: u64 = u64::MAX;

    fn new_lock() -> Arc<LockObject> {
        Arc::new(LockObject::new(
            MdlKey::new(Namespace::Table, "s", "t").expect("valid key"),
        ))
    }

    fn model(f: impl Fn() + Sync + Send + 'static) {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(3);
        b.check(f);
    }

    /// A DML lock (fast path, or slow path once an obtrusive lock is around), a try of an
    /// exclusive lock, and eviction: the two locks are never held together, eviction never
    /// destroys a used object, and the word ends at 0 (or destroyed).
    #[test]
    fn fast_path_vs_obtrusive_vs_eviction() {
        model(|| {
            let lock = new_lock();
            let sr_in = Arc::new(AtomicBool::new(false));
            let x_in = Arc::new(AtomicBool::new(false));
            let inc = fast_path_increment(Strategy::Object, LockType::SR);

            let (l, s, x) = (lock.clone(), sr_in.clone(), x_in.clone());
            let dml = thread::spawn(move || {
                let ctx = Arc::new(ContextShared::new(1, None));
                let hold = |s: &AtomicBool, x: &AtomicBool| {
                    s.store(true, SeqCst);
                    assert!(!x.load(SeqCst), "SR and X granted together");
                    s.store(false, SeqCst);
                };
                match l.fast_acquire(inc) {
                    FastAcquire::Granted { .. } => {
                        hold(&s, &x);
                        l.fast_release(inc, MAX);
                    }
                    FastAcquire::SlowPath => {
                        let mut st = l.state.write();
                        if l.begin_slow_path(&mut st, false).is_err() {
                            return;
                        }
                        if l.can_grant(&st, LockType::SR, 1) {
                            let e = st.add_granted(ctx, LockType::SR, 1);
                            drop(st);
                            hold(&s, &x);
                            l.remove_entry(e, MAX);
                        } else {
                            l.abandon_slow_path(&mut st, false);
                        }
                    }
                    FastAcquire::Destroyed => {}
                }
            });

            let (l, s, x) = (lock.clone(), sr_in.clone(), x_in.clone());
            let ddl = thread::spawn(move || {
                let ctx = Arc::new(ContextShared::new(2, None));
                let mut st = l.state.write();
                if l.begin_slow_path(&mut st, true).is_err() {
                    return;
                }
                if l.can_grant(&st, LockType::X, 2) {
                    let e = st.add_granted(ctx, LockType::X, 2);
                    drop(st);
                    x.store(true, SeqCst);
                    assert!(!s.load(SeqCst), "X and SR granted together");
                    x.store(false, SeqCst);
                    l.remove_entry(e, MAX);
                } else {
                    l.abandon_slow_path(&mut st, true);
                }
            });

            let (l, s, x) = (lock.clone(), sr_in.clone(), x_in.clone());
            let evict = thread::spawn(move || {
                if l.try_destroy() {
                    assert!(!s.load(SeqCst) && !x.load(SeqCst), "evicted a used object");
                }
            });

            dml.join().expect("dml");
            ddl.join().expect("ddl");
            evict.join().expect("evict");
            let state = lock.fast_path.load(SeqCst);
            assert!(
                state == 0 || state == IS_DESTROYED,
                "state word left at {state:#x}"
            );
        });
    }

    /// An exclusive request that queues behind a fast-path SR is granted when the SR goes:
    /// the release either happens before the request looks (immediate grant) or sees
    /// `HAS_OBTRUSIVE` and reschedules under the lock. A lost wake-up would leave the waiter
    /// blocked forever, which loom reports.
    #[test]
    fn fast_release_wakes_obtrusive_waiter() {
        model(|| {
            let lock = new_lock();
            let inc = fast_path_increment(Strategy::Object, LockType::SR);
            assert_eq!(
                lock.fast_acquire(inc),
                FastAcquire::Granted { first_use: true }
            );

            let l = lock.clone();
            let dml = thread::spawn(move || {
                l.fast_release(inc, MAX);
            });

            let ctx = Arc::new(ContextShared::new(2, None));
            let never_killed = AtomicBool::new(false);
            let mut st = lock.state.write();
            lock.begin_slow_path(&mut st, true).expect("not destroyed");
            let entry = if lock.can_grant(&st, LockType::X, 2) {
                let e = st.add_granted(ctx.clone(), LockType::X, 2);
                drop(st);
                e
            } else {
                let epoch = ctx.wait.reset();
                let e = st.add_waiting(ctx.clone(), LockType::X, epoch, 2);
                drop(st);
                let status = ctx.wait.timed_wait(None, &never_killed, true);
                assert_eq!(status, WaitStatus::Granted);
                e
            };
            dml.join().expect("dml");
            assert!(lock.state.read_recursive().entries[entry].granted);
            assert!(
                lock.remove_entry(entry, MAX),
                "last user leaves the word at 0"
            );
        });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::key::MdlKey;
    use crate::matrix::fast_path_increment;
    use crate::types::Namespace;

    /// A full counter sends further requests of its group to the slow path instead of carrying
    /// into the next field or the flag bits.
    #[test]
    fn full_fast_path_counter_takes_the_slow_path() {
        let lock = LockObject::new(MdlKey::new(Namespace::Table, "s", "t").expect("valid"));
        for ty in [LockType::S, LockType::SR, LockType::SW] {
            let inc = fast_path_increment(Strategy::Object, ty);
            let full = inc * ((1 << 20) - 1);
            lock.fast_path.store(full, Ordering::Relaxed);
            assert_eq!(lock.fast_acquire(inc), FastAcquire::SlowPath, "{ty:?}");
            lock.fast_path.store(full - inc, Ordering::Relaxed);
            assert_eq!(
                lock.fast_acquire(inc),
                FastAcquire::Granted { first_use: false }
            );
            assert_eq!(lock.fast_path.load(Ordering::Relaxed), full);
        }
        lock.fast_path.store(0, Ordering::Relaxed);
    }
}
