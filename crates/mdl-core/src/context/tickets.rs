//! A context's bookkeeping around its [`TicketStore`](crate::ticket_store::TicketStore):
//! handles, clones, moving holds between tickets (upgrade, downgrade), releases in MySQL's
//! order, the `metadata_locks` rows of shared-word tickets, the storage-engine notifications
//! around exclusive locks, and the small cache of lock objects kept between statements. The
//! lowest of the context's modules: it calls none of the others.

use std::sync::Arc;

use super::MdlContext;
use crate::error::{MdlError, Result};
use crate::instrument::ContextRows;
use crate::key::MdlKey;
use crate::lock::{Hold, LockObject, Request};
use crate::matrix::is_stronger_or_equal;
use crate::request::{ticket_id, Ticket};
use crate::ticket_store::TicketData;
use crate::types::{LockDuration, LockType};

/// The `metadata_locks` row of ticket `t` (see `instrument.rs`): 0 unless it is held as a
/// shared-word counter and the instrument is enabled (always 0 without the feature `pfs`).
#[inline(always)]
fn row_of(rows: &ContextRows, t: &TicketData) -> u64 {
    let counter_held = t.hold == Hold::Counter;
    rows.row_of(
        counter_held,
        Arc::as_ptr(&t.lock) as usize,
        t.ty,
        t.duration,
    )
}

impl MdlContext {
    /// Rewrites the `metadata_locks` row of ticket slot `slot` after its hold or duration
    /// changed (feature `pfs`): a shared-word ticket's counter names no owner, so it is
    /// published while the instrument is enabled; any other hold (read from the queues and the
    /// slots, see `instrument.rs`), or the instrument disabled, clears the slot's row.
    pub(super) fn publish(&self, slot: u32) {
        let rows = &self.shared.rows;
        rows.rewrite(slot, || row_of(rows, self.store.data(slot)));
    }

    /// Withdraws the `metadata_locks` row of ticket slot `slot`, if one was published.
    #[inline]
    pub(super) fn unpublish(&self, slot: u32) {
        self.shared.rows.unpublish(slot);
    }

    /// Stores a new ticket, publishing its row if it is a shared-word ticket and the instrument
    /// is enabled (its slot has no row yet): one store. The hold is checked first, then the
    /// instrument.
    // Always inlined: kept out of line, it returns the 16-byte ticket through memory in three
    // stores, and a caller that copies it whole with one load waits for them (no store-to-load
    // forwarding). Callgrind counts nothing of it; the `cluster` report measured it
    // (BENCHMARKS.md).
    #[inline(always)]
    pub(super) fn insert(&mut self, t: TicketData) -> Ticket {
        let row = row_of(&self.shared.rows, &t);
        #[cfg(feature = "metrics")]
        self.counted.bump(t.lock.counter_rows[t.ty as usize]);
        let (slot, generation) = self.store.insert(t);
        self.shared.rows.publish_new(slot, row);
        Ticket {
            ctx: self.id,
            slot,
            generation,
        }
    }

    pub(super) fn handle(&self, slot: u32) -> Ticket {
        Ticket {
            ctx: self.id,
            slot,
            generation: self.store.generation(slot),
        }
    }

    #[inline]
    pub(super) fn check(&self, t: Ticket) -> Result<u32> {
        if t.ctx == self.id && self.store.check(t.slot, t.generation) {
            Ok(t.slot)
        } else {
            Err(MdlError::InvalidTicket)
        }
    }

    pub(super) fn move_to(&mut self, slot: u32, duration: LockDuration, oldest: bool) {
        self.store.move_to(slot, duration, oldest);
        let t = self.store.data(slot);
        t.lock.set_duration(&self.mgr.env, t.hold, duration);
        self.publish(slot);
    }

    /// A new ticket of `ty` (equal or weaker) and `duration` on the lock of `slot`.
    pub(super) fn clone_slot(
        &mut self,
        slot: u32,
        ty: LockType,
        duration: LockDuration,
    ) -> Result<Ticket> {
        let (lock, held, source) = {
            let t = self.store.data(slot);
            (t.lock.clone(), t.ty, t.hold)
        };
        let ns = lock.key.namespace();
        if !ns.allows(ty) {
            return Err(MdlError::InvalidLockType {
                namespace: ns,
                lock_type: ty,
            });
        }
        if !is_stronger_or_equal(lock.strategy, held, ty) {
            return Err(MdlError::InvalidLockChange {
                held,
                requested: ty,
            });
        }
        let hton_notified = self.pre_acquire_notify(&lock.key, ty)?;
        let request = Request {
            ctx: &self.shared,
            ty,
            duration,
            ticket_id: ticket_id(self.id, self.store.next_slot()),
        };
        let hold = lock.add_clone(&request, source, self.home.as_mut());
        Ok(self.insert(TicketData {
            lock,
            hold,
            ty,
            duration,
            hton_notified,
        }))
    }

    /// Gives `slot` the lock hold of `new_slot` (removing `new_slot`), then releases the hold
    /// `slot` had. Used by upgrade and downgrade so the caller's ticket handle stays valid.
    pub(super) fn swap_hold(&mut self, slot: u32, new_slot: u32) {
        self.unpublish(new_slot);
        let new = self.store.remove(new_slot);
        let old = self.store.replace_hold(slot, new);
        // The ticket keeps its duration: record it where the new hold is.
        let t = self.store.data(slot);
        t.lock.set_duration(&self.mgr.env, t.hold, t.duration);
        self.publish(slot);
        self.release_hold(old);
    }

    /// Releases the ticket in `slot`. The record's small fields are read where they are and
    /// only its lock pointer is taken out: moving the whole record out first made the compiler
    /// copy it through the stack in pieces of other widths than it read it back with, a
    /// store-forwarding stall on every release (BENCHMARKS.md, the `stmt_loop` section).
    #[inline(always)]
    pub(super) fn release_slot(&mut self, slot: u32) {
        let t = self.store.data(slot);
        let (hold, ty, hton_notified) = (t.hold, t.ty, t.hton_notified);
        // Only a shared-word ticket has a row (see `publish`).
        if hold == Hold::Counter {
            self.unpublish(slot);
        }
        let lock = self.store.remove_lock(slot);
        self.release_lock(lock, hold, ty, hton_notified);
    }

    /// Releases every ticket of duration `d` taken at or after sequence number `newer_than`,
    /// newest first as MySQL does (each release reschedules waiters, and with
    /// `max_write_lock_count` the order of the grants matters). Every statement ends here: no
    /// allocation. Most calls find nothing to release (a statement's end in a transaction
    /// that holds only TRANSACTION locks): that check is inlined into the caller, and the loop
    /// stays out of line (callgrind, sysbench's prepared point select in `mdl-server`:
    /// `mdl-core`'s functions 398 -> 227 instructions per query).
    #[inline(always)]
    pub(super) fn release_list(&mut self, d: LockDuration, newer_than: u64) {
        if self.store.holds_any_of(d) {
            self.release_newest_of(d, newer_than);
        }
    }

    #[inline(never)]
    fn release_newest_of(&mut self, d: LockDuration, newer_than: u64) {
        while let Some(s) = self.store.newest_of(d, newer_than) {
            self.release_slot(s);
        }
    }

    pub(super) fn release_newer_than(&mut self, seq: u64, explicit_too: bool) {
        self.release_list(LockDuration::Statement, seq);
        self.release_list(LockDuration::Transaction, seq);
        if explicit_too {
            let slots: Vec<u32> = self
                .store
                .of(LockDuration::Explicit)
                .into_iter()
                .filter(|&s| self.store.seq(s) >= seq)
                .collect();
            for s in slots {
                self.release_slot(s);
            }
        }
    }

    /// Gives up the lock a ticket held (the ticket is already out of the store).
    pub(super) fn release_hold(&mut self, t: TicketData) {
        self.release_lock(t.lock, t.hold, t.ty, t.hton_notified);
    }

    /// Gives up `hold` of type `ty` on `lock` (its ticket is already out of the store).
    #[inline(always)]
    fn release_lock(&mut self, lock: Arc<LockObject>, hold: Hold, ty: LockType, hton: bool) {
        let unused = lock.release(&self.mgr.env, hold, ty, self.home.as_ref());
        if unused && !lock.singleton {
            self.mgr.map.object_unused(&mut self.rand);
        }
        if hton {
            self.post_release_notify(&lock.key);
        }
        self.cache_lock(lock);
    }

    pub(super) fn pre_acquire_notify(&self, key: &MdlKey, ty: LockType) -> Result<bool> {
        if ty != LockType::Exclusive || !key.namespace().needs_hton_notification() {
            return Ok(false);
        }
        let Some(owner) = &self.shared.owner else {
            return Ok(false);
        };
        match owner.notify_hton_pre_acquire_exclusive(key) {
            Ok(()) => Ok(true),
            Err(r) if r.victimized => Err(MdlError::engine_victim(key, ty, self.id())),
            Err(_) => Err(MdlError::RefusedByEngine),
        }
    }

    pub(super) fn post_release_notify(&self, key: &MdlKey) {
        if let Some(owner) = &self.shared.owner {
            owner.notify_hton_post_release_exclusive(key);
        }
    }

    /// Keeps a lock object this context stopped using for the next statement on the same key
    /// (singletons too: moving their `Arc` in and out of the cache spares every statement an
    /// increment and a decrement of a reference count that all contexts share).
    #[inline]
    pub(super) fn cache_lock(&mut self, lock: Arc<LockObject>) {
        let i = lock.key.murmur3() as usize & self.cache.len().wrapping_sub(1);
        if let Some(slot) = self.cache.get_mut(i) {
            *slot = Some(lock);
        }
    }
}
