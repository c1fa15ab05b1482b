//! The lock object (MySQL's `MDL_lock`) and the grant protocol: one call decides whether a
//! request is granted (on a fast path or in the queue), queued or refused; one call releases.
//! The protocol in prose, for the whole crate, is in `docs/lock-manager.md`.
//!
//! # The state word
//!
//! `word` is an atomic `u64`:
//!
//! * bits 0..59: [`FastPath::SharedWord`] counters of unobtrusive locks granted without the
//!   queues (see [`crate::matrix::fast_path_increment`]); always 0 in the other modes;
//! * bit 60 `HAS_SLOW_PATH`: the queues are not empty (or someone under the write lock is about
//!   to check);
//! * bit 61 `HAS_OBTRUSIVE`: an obtrusive lock is granted or pending — no new fast-path grants;
//! * bit 62 `IS_DESTROYED`: the object is being evicted (or checked by a sweep) and must be
//!   looked up again;
//! * bit 63 `HAS_FAST_SLOTS`: [`FastPath::PerContext`] slots may hold this object. Set by the
//!   first fast-path acquirer, cleared only once no slot can hold it (after a transfer, or by an
//!   eviction sweep that found none).
//!
//! The word is 0 exactly when nobody uses the object.
//!
//! # Who changes what
//!
//! * `state` (a reader-writer lock) guards the queues, the type counts and bitmaps, the
//!   obtrusive count and the anti-starvation counters. The deadlock detector and diagnostics
//!   read it with `read_recursive`, so they never block on a queued writer.
//! * Without the write lock, the word changes only by: a [`FastPath::SharedWord`] counter
//!   compare-and-swap while `HAS_OBTRUSIVE` is clear; a per-context acquirer's `fetch_or` of
//!   `HAS_FAST_SLOTS`; and an eviction sweep's revert of `IS_DESTROYED`. Once `HAS_OBTRUSIVE` is
//!   set, counters change only under the write lock (MySQL's INV1), so an obtrusive requester
//!   holding the lock sees a stable set of fast-path locks.
//! * Granting a waiter is done by the thread that frees the lock: under the write lock it sets
//!   the waiter's wait slot to granted (first outcome wins) and moves the entry from waiting to
//!   granted. The waiter then only records the ticket in its own store.
//!
//! Lock order: map partition mutex → `state` → the context registry's mutex → a context's
//! wait-slot mutex (a leaf). Nobody holds `state` while taking a partition mutex or another
//! lock object's `state` for writing.

use std::sync::Arc;

use crate::fast_path::{self, FastPath, Slot, SlotHome, SlotTable};
use crate::key::MdlKey;
use crate::matrix::{
    fast_path_granted_bitmap, fast_path_increment, granted_incompatible, is_unobtrusive,
    waiting_incompatible, COUNTER_BITS, HOG_LIMIT, HOG_TYPES, PIGLET_LIMIT,
};
use crate::queue::{LockState, NewEntry};
use crate::request::moved_ticket_id;
use crate::shared::{ContextShared, Registry};
use crate::sync::{new_rwlock, store_load_fence, AtomicU64, Ordering, RwLock, Site};
use crate::types::{LockDuration, LockType, Strategy};
use crate::wait::{WaitEnd, Wakes};

pub(crate) const HAS_SLOW_PATH: u64 = 1 << 60;
pub(crate) const HAS_OBTRUSIVE: u64 = 1 << 61;
pub(crate) const IS_DESTROYED: u64 = 1 << 62;
pub(crate) const HAS_FAST_SLOTS: u64 = 1 << 63;
/// Bits that stop a per-context fast-path grant.
const BLOCKS_FAST: u64 = HAS_OBTRUSIVE | IS_DESTROYED;

/// The manager-wide facts and structures a grant decision needs.
pub(crate) struct Env {
    pub(crate) mode: FastPath,
    pub(crate) max_write_lock_count: u64,
    pub(crate) slots: SlotTable,
    pub(crate) registry: Registry,
    pub(crate) gate: crate::gate::Gate,
}

/// One request, as the lock object sees it.
pub(crate) struct Request<'a> {
    pub(crate) ctx: &'a Arc<ContextShared>,
    pub(crate) ty: LockType,
    pub(crate) duration: LockDuration,
    pub(crate) ticket_id: u64,
}

impl Request<'_> {
    fn entry(&self) -> NewEntry {
        NewEntry {
            ctx: self.ctx.clone(),
            ty: self.ty,
            duration: self.duration,
            ticket_id: self.ticket_id,
        }
    }
}

/// The outcome of [`LockObject::acquire`]. `first_use`: the object went from unused to used;
/// `unused`: it went back to unused (for the lock map's unused-object count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Granted {
        hold: Hold,
        first_use: bool,
    },
    Queued {
        entry: usize,
        epoch: u64,
        first_use: bool,
    },
    Refused {
        first_use: bool,
        unused: bool,
    },
    /// The object is being evicted: look it up again.
    Destroyed,
    /// The grant gate is closed on the object and the requester is not exempt (`gate.rs`).
    Gated,
}

/// Outcome of a fast-path attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FastAcquire {
    /// Granted; `first_use` if the word was 0 before.
    Granted { hold: Hold, first_use: bool },
    /// A strong requester moved our claim into the queue before we could take it back: the
    /// lock is granted there.
    Moved { entry: usize },
    /// Take the slow path.
    SlowPath,
    /// The object is being evicted: look it up again.
    Destroyed,
}

/// The object is being evicted: look it up again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Destroyed;

/// The bits of the state word that count the locks `inc` adds to (one counter per type group
/// for object locks, all three for scoped IX).
#[inline]
fn counter_mask(strategy: Strategy, inc: u64) -> u64 {
    match strategy {
        Strategy::Scoped => (1 << (3 * COUNTER_BITS)) - 1,
        Strategy::Object => inc * ((1 << COUNTER_BITS) - 1),
    }
}

/// A lock object (MySQL's `MDL_lock`). 64-byte aligned so its address fits a slot word and
/// its state word does not share a line with another object's.
#[repr(align(64))]
pub(crate) struct LockObject {
    pub(crate) key: MdlKey,
    pub(crate) strategy: Strategy,
    pub(crate) singleton: bool,
    hog_affected: bool,
    /// Feature `metrics`: the counter row (`deadlock::counter_row`) of each lock type here, so
    /// that counting an acquisition is one indexed load and one increment.
    #[cfg(feature = "metrics")]
    pub(crate) counter_rows: [u8; 11],
    pub(crate) word: AtomicU64,
    pub(crate) state: RwLock<LockState>,
}

impl LockObject {
    pub(crate) fn new(key: MdlKey) -> LockObject {
        let ns = key.namespace();
        LockObject {
            strategy: ns.strategy(),
            singleton: ns.is_singleton(),
            hog_affected: ns.is_affected_by_max_write_lock_count(),
            #[cfg(feature = "metrics")]
            counter_rows: std::array::from_fn(|t| {
                crate::deadlock::counter_row(ns, LockType::ALL[t]) as u8
            }),
            key,
            word: AtomicU64::new(0),
            state: new_rwlock(Site::LockObject, LockState::default()),
        }
    }

    /// This object's address as slot bits, if it fits (see `fast_path.rs`).
    #[inline]
    pub(crate) fn address(&self) -> Option<u64> {
        fast_path::address_bits(std::ptr::NonNull::from(self).addr())
    }

    // -----------------------------------------------------------------------------------------
    // Acquire.

    /// Decides one request: the fast path when `fast` (the type is unobtrusive, the mode is on
    /// and the context allows it), else under the write lock: grant, queue (when `enqueue`) or
    /// refuse.
    #[inline]
    pub(crate) fn acquire(
        &self,
        env: &Env,
        req: &Request<'_>,
        home: Option<&mut SlotHome>,
        fast: bool,
        enqueue: bool,
    ) -> Outcome {
        if fast {
            match self.fast_acquire(env, req.ty, req.duration, home) {
                FastAcquire::Granted { hold, first_use } => {
                    return Outcome::Granted { hold, first_use }
                }
                FastAcquire::Moved { entry } => {
                    return Outcome::Granted {
                        hold: Hold::entry(entry),
                        first_use: false,
                    }
                }
                FastAcquire::Destroyed => return Outcome::Destroyed,
                FastAcquire::SlowPath => {}
            }
        }
        self.acquire_slow(env, req, enqueue)
    }

    /// The fast path of the configured design, for a type the requester may take on it (see
    /// `MdlContext::fast_types`).
    #[inline]
    pub(crate) fn fast_acquire(
        &self,
        env: &Env,
        ty: LockType,
        duration: LockDuration,
        home: Option<&mut SlotHome>,
    ) -> FastAcquire {
        match env.mode {
            FastPath::PerContext => match home {
                Some(home) => self.claim_slot(home, ty, duration),
                None => FastAcquire::SlowPath,
            },
            FastPath::SharedWord => self.add_counter(fast_path_increment(self.strategy, ty)),
            FastPath::Off => FastAcquire::SlowPath,
        }
    }

    /// [`FastPath::SharedWord`]: one compare-and-swap adding `inc` to the state word, unless an
    /// obtrusive lock is around, the object is being destroyed, or the type's counter is full (a
    /// context can hold any number of clones of one lock; MySQL bounds the counters by
    /// connections).
    #[inline]
    pub(crate) fn add_counter(&self, inc: u64) -> FastAcquire {
        match self.add_to_counter(inc, BLOCKS_FAST) {
            Ok(old) => FastAcquire::Granted {
                hold: Hold::Counter,
                first_use: old == 0,
            },
            Err(old) if old & IS_DESTROYED != 0 => FastAcquire::Destroyed,
            Err(_) => FastAcquire::SlowPath,
        }
    }

    /// Adds `inc` to its counter unless one of the `unless` bits is set or the counter is full:
    /// the compare-and-swap loop of every shared-word grant. Returns the word before (`Err`:
    /// the word that stopped it).
    #[inline]
    pub(crate) fn add_to_counter(&self, inc: u64, unless: u64) -> Result<u64, u64> {
        let full = counter_mask(self.strategy, inc);
        self.word
            .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |old| {
                (old & unless == 0 && old & full != full).then_some(old + inc)
            })
    }

    /// [`FastPath::PerContext`]: claim a slot of the context's home group, then check the state
    /// word (see "the store-load race" in `fast_path.rs`). If a strong requester or an eviction
    /// got there first, take the claim back — unless a transfer already moved it into the
    /// queue, in which case the lock is granted there.
    #[inline(always)]
    pub(crate) fn claim_slot(
        &self,
        home: &mut SlotHome,
        ty: LockType,
        duration: LockDuration,
    ) -> FastAcquire {
        let Some(address) = self.address() else {
            return FastAcquire::SlowPath;
        };
        let word = fast_path::held(home.tag, address, ty, duration);
        let Some(slot) = home.claim(word) else {
            return FastAcquire::SlowPath;
        };
        // The claim (a `SeqCst` read-modify-write) comes before this `SeqCst` load in the total
        // order of `SeqCst` operations; see "the store-load race" in `fast_path.rs`.
        store_load_fence();
        let mut state = self.word.load(Ordering::SeqCst);
        if state & BLOCKS_FAST == 0 {
            if state & HAS_FAST_SLOTS != 0 {
                return FastAcquire::Granted {
                    hold: Hold::Slot(slot),
                    first_use: false,
                };
            }
            state = self.word.fetch_or(HAS_FAST_SLOTS, Ordering::SeqCst);
            if state & BLOCKS_FAST == 0 {
                return FastAcquire::Granted {
                    hold: Hold::Slot(slot),
                    first_use: state == 0,
                };
            }
        }
        self.unclaim(home, slot, state)
    }

    #[cold]
    fn unclaim(&self, home: &SlotHome, slot: u32, state: u64) -> FastAcquire {
        match home.release(slot) {
            Slot::Moved { entry, .. } => FastAcquire::Moved { entry },
            _ if state & IS_DESTROYED != 0 => FastAcquire::Destroyed,
            _ => FastAcquire::SlowPath,
        }
    }

    /// The slow path: under the write lock, grant if the matrices allow, else queue or refuse.
    pub(crate) fn acquire_slow(&self, env: &Env, req: &Request<'_>, enqueue: bool) -> Outcome {
        let obtrusive = !is_unobtrusive(self.strategy, req.ty);
        let mut st = self.state.write();
        let first_use = match self.begin_slow_path(&mut st, env, obtrusive) {
            Err(Destroyed) => return Outcome::Destroyed,
            Ok(first_use) => first_use,
        };
        if st.gated && !req.ctx.gate_exempt.load(Ordering::Relaxed) {
            self.abandon_slow_path(&mut st, obtrusive);
            return Outcome::Gated;
        }
        if self.can_grant(&st, req.ty, req.ctx.serial) {
            let entry = st.add_granted(req.entry());
            if self.count_piglets_and_hogs(&mut st, req.ty, env.max_write_lock_count) {
                let wakes = self.reschedule_waiters(&mut st, env.max_write_lock_count);
                drop(st);
                drop(wakes);
            }
            return Outcome::Granted {
                hold: Hold::entry(entry),
                first_use,
            };
        }
        if enqueue {
            let epoch = req.ctx.wait.reset();
            let entry = st.add_waiting(req.entry(), epoch);
            return Outcome::Queued {
                entry,
                epoch,
                first_use,
            };
        }
        let unused = self.abandon_slow_path(&mut st, obtrusive);
        Outcome::Refused { first_use, unused }
    }

    /// Under the write lock, before a slow-path request is checked: counts an obtrusive request
    /// and raises `HAS_SLOW_PATH` (and `HAS_OBTRUSIVE` for the first obtrusive one, which sends
    /// every later fast-path request and release through the lock). The first obtrusive request
    /// also transfers the per-context fast-path locks into the queue. Returns whether the object
    /// was unused before.
    pub(crate) fn begin_slow_path(
        &self,
        st: &mut LockState,
        env: &Env,
        obtrusive: bool,
    ) -> Result<bool, Destroyed> {
        let state = self.word.load(Ordering::Acquire);
        if state & IS_DESTROYED != 0 {
            return Err(Destroyed);
        }
        let first_obtrusive = obtrusive && {
            st.obtrusive_count += 1;
            st.obtrusive_count == 1
        };
        if state & HAS_SLOW_PATH == 0 || first_obtrusive {
            let flags = HAS_SLOW_PATH | if first_obtrusive { HAS_OBTRUSIVE } else { 0 };
            let old = self.word.fetch_or(flags, Ordering::SeqCst);
            if first_obtrusive && old & HAS_FAST_SLOTS != 0 {
                // Orders raising `HAS_OBTRUSIVE` before the scan (see `claim_slot`).
                store_load_fence();
                self.transfer_slots(st, env);
            }
            return Ok(old == 0);
        }
        Ok(false)
    }

    /// Moves every slot that holds this object into the granted queue (`HAS_OBTRUSIVE` is set,
    /// so no new slot can take it), then clears `HAS_FAST_SLOTS`.
    #[cold]
    fn transfer_slots(&self, st: &mut LockState, env: &Env) {
        let Some(address) = self.address() else {
            return;
        };
        env.slots.for_each_holding(address, |slot, held| {
            let pending = fast_path::pending(held);
            if !env.slots.replace(slot, held, pending) {
                return; // released meanwhile
            }
            let Slot::Held {
                tag, ty, duration, ..
            } = Slot::decode(held)
            else {
                return;
            };
            // The owner cannot have unregistered while its slot was still held by it; if it
            // released since, the final replace below fails and the entry goes again.
            let Some(ctx) = env.registry.get(tag) else {
                return;
            };
            let ticket_id = moved_ticket_id(ctx.serial, slot);
            let entry = st.add_granted(NewEntry {
                ctx,
                ty,
                duration,
                ticket_id,
            });
            let done = fast_path::moved(held, entry)
                .is_some_and(|moved| env.slots.replace(slot, pending, moved));
            if !done {
                st.remove(entry);
            }
        });
        self.word.fetch_and(!HAS_FAST_SLOTS, Ordering::AcqRel);
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
        clear != 0 && self.word.fetch_and(!clear, Ordering::AcqRel) & !clear == 0
    }

    /// MySQL's `can_grant_lock`: no pending request with priority, no conflicting
    /// [`FastPath::SharedWord`] counter, and every conflicting granted ticket belongs to the
    /// requester. (Per-context fast-path locks are in the queue by now: the first obtrusive
    /// request transferred them, and unobtrusive requests conflict with obtrusive locks only.)
    pub(crate) fn can_grant(&self, st: &LockState, ty: LockType, requester: u64) -> bool {
        if !self.grantable(st, ty, self.fast_path_types()) {
            return false;
        }
        let conflicts = granted_incompatible(self.strategy, ty);
        st.granted_bitmap & conflicts == 0
            || st
                .granted()
                .all(|e| e.ctx.serial == requester || conflicts & e.ty.bit() == 0)
    }

    /// The tests of [`LockObject::can_grant`] that do not depend on the requester: no pending
    /// type has priority over `ty`, and no fast-path lock (`fast`, see
    /// [`LockObject::fast_path_types`]) conflicts with it.
    #[inline]
    fn grantable(&self, st: &LockState, ty: LockType, fast: u16) -> bool {
        st.waiting_bitmap & waiting_incompatible(self.strategy, st.matrix_idx, ty) == 0
            && fast & granted_incompatible(self.strategy, ty) == 0
    }

    /// The types [`FastPath::SharedWord`] counters hold right now.
    #[inline]
    fn fast_path_types(&self) -> u16 {
        fast_path_granted_bitmap(self.strategy, self.word.load(Ordering::Acquire))
    }

    /// The waiting types that pass [`LockObject::grantable`].
    fn grantable_types(&self, st: &LockState) -> u16 {
        let fast = self.fast_path_types();
        let mut types = 0;
        let mut waiting = st.waiting_bitmap;
        while waiting != 0 {
            let ty = LockType::ALL[waiting.trailing_zeros() as usize % LockType::ALL.len()];
            waiting &= waiting - 1;
            if self.grantable(st, ty, fast) {
                types |= ty.bit();
            }
        }
        types
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
        let mut idx = 0;
        if st.piglet_count >= max_write_lock_count {
            idx |= PIGLET_LIMIT;
        }
        if st.hog_count >= max_write_lock_count {
            idx |= HOG_LIMIT;
        }
        let changed = idx != st.matrix_idx;
        st.matrix_idx = idx;
        changed
    }

    /// Grants every pending request that can now be granted, oldest first (MySQL's
    /// `reschedule_waiters`), then applies the anti-starvation reset rules.
    ///
    /// Each pass first works out which waiting types could be granted at all (the tests of
    /// [`LockObject::can_grant`] that do not depend on the requester) and stops once it has seen
    /// every waiter of those types: behind a pending EXCLUSIVE, each release by one of its
    /// blockers looks at the EXCLUSIVE alone, not at the hundreds of requests queued behind it.
    /// After a grant the state has changed, so a new pass starts after the granted request (or
    /// from the oldest, if the priority matrix changed).
    ///
    /// The granted waiters are decided here and woken by the returned [`Wakes`] when the caller
    /// drops it, after the write lock.
    pub(crate) fn reschedule_waiters(
        &self,
        st: &mut LockState,
        max_write_lock_count: u64,
    ) -> Wakes {
        let mut wakes = Wakes::default();
        let mut cursor: u64 = 0;
        loop {
            let candidates = self.grantable_types(st);
            let mut left = st.waiting_of(candidates);
            let mut grant = None;
            if left > 0 {
                for (seq, idx) in st.waiting_from(cursor) {
                    let e = &st.entries[idx];
                    if candidates & e.ty.bit() == 0 {
                        continue;
                    }
                    if (!st.gated || e.ctx.gate_exempt.load(Ordering::Relaxed))
                        && self.can_grant(st, e.ty, e.ctx.serial)
                    {
                        if let Some(waker) = e.ctx.wait.decide(e.epoch, WaitEnd::Granted) {
                            wakes.push(&e.ctx, waker);
                            grant = Some((seq, idx, e.ty));
                            break;
                        }
                    }
                    left -= 1;
                    if left == 0 {
                        break;
                    }
                }
            }
            let Some((seq, idx, ty)) = grant else { break };
            st.grant_waiting(idx);
            cursor = if self.count_piglets_and_hogs(st, ty, max_write_lock_count) {
                0
            } else {
                seq + 1
            };
        }
        let w = st.waiting_bitmap;
        if st.matrix_idx == PIGLET_LIMIT | HOG_LIMIT {
            if w & !(HOG_TYPES | LockType::SW.bit() | LockType::SWLP.bit()) == 0 {
                st.reset_priorities();
            }
        } else {
            if w & !HOG_TYPES == 0 {
                st.hog_count = 0;
                st.matrix_idx &= !HOG_LIMIT;
            }
            if w & LockType::SRO.bit() == 0 {
                st.piglet_count = 0;
                st.matrix_idx &= !PIGLET_LIMIT;
            }
        }
        wakes
    }
}

mod evict;
pub(crate) mod gate;
mod holds;
pub(crate) use holds::Hold;
#[cfg(all(test, loom))]
mod loom_models;
mod release;
mod report;

#[cfg(all(test, not(loom)))]
mod tests;
