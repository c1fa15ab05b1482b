//! The queues of one lock object: granted and pending entries, the per-type counts and bitmaps
//! the matrices are checked against, and the anti-starvation counters.
//!
//! Protocol: a [`LockState`] lives inside its lock object's `state` reader-writer lock and is
//! only touched under it (written under the write lock; read by the deadlock detector and the
//! diagnostics under `read_recursive`).

use std::collections::BTreeMap;
use std::sync::Arc;

use slab::Slab;

use crate::shared::ContextShared;
use crate::types::{LockDuration, LockType};

/// One granted or pending slow-path ticket, as the lock object sees it.
pub(crate) struct Entry {
    pub(crate) ctx: Arc<ContextShared>,
    pub(crate) ty: LockType,
    pub(crate) duration: LockDuration,
    pub(crate) granted: bool,
    /// Position in the FIFO of waiters while pending.
    wait_seq: u64,
    /// The waiter's wait epoch while pending.
    pub(crate) epoch: u64,
    /// Ticket id, for `metadata_locks`.
    pub(crate) ticket_id: u64,
}

/// The queues of a lock object.
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
    /// The grant gate is closed on this object (`gate.rs`): counted once in `obtrusive_count`,
    /// so no fast-path grant happens, and only gate-exempt contexts are granted.
    pub(crate) gated: bool,
    pub(crate) hog_count: u64,
    pub(crate) piglet_count: u64,
    /// Which priority matrix applies (0..=3, see `matrix.rs`).
    pub(crate) matrix_idx: usize,
}

/// What a new entry is.
pub(crate) struct NewEntry {
    pub(crate) ctx: Arc<ContextShared>,
    pub(crate) ty: LockType,
    pub(crate) duration: LockDuration,
    pub(crate) ticket_id: u64,
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

    pub(crate) fn add_granted(&mut self, e: NewEntry) -> usize {
        Self::count(
            &mut self.granted_count,
            &mut self.granted_bitmap,
            e.ty,
            true,
        );
        self.entries.insert(Entry {
            ctx: e.ctx,
            ty: e.ty,
            duration: e.duration,
            granted: true,
            wait_seq: 0,
            epoch: 0,
            ticket_id: e.ticket_id,
        })
    }

    pub(crate) fn add_waiting(&mut self, e: NewEntry, epoch: u64) -> usize {
        Self::count(
            &mut self.waiting_count,
            &mut self.waiting_bitmap,
            e.ty,
            true,
        );
        let seq = self.next_wait_seq;
        self.next_wait_seq += 1;
        let idx = self.entries.insert(Entry {
            ctx: e.ctx,
            ty: e.ty,
            duration: e.duration,
            granted: false,
            wait_seq: seq,
            epoch,
            ticket_id: e.ticket_id,
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

    pub(crate) fn grant_waiting(&mut self, idx: usize) {
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

    /// The pending entries from sequence number `cursor` on (inclusive), oldest first, with
    /// their sequence numbers.
    pub(crate) fn waiting_from(&self, cursor: u64) -> impl Iterator<Item = (u64, usize)> + '_ {
        self.waiting.range(cursor..).map(|(&seq, &idx)| (seq, idx))
    }

    /// How many entries of the types in `types` (a bitmap) are pending.
    pub(crate) fn waiting_of(&self, types: u16) -> u32 {
        let mut n = 0;
        let mut t = types;
        while t != 0 {
            n += self.waiting_count[t.trailing_zeros() as usize % 11];
            t &= t - 1;
        }
        n
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn reset_priorities(&mut self) {
        self.hog_count = 0;
        self.piglet_count = 0;
        self.matrix_idx = 0;
    }
}
