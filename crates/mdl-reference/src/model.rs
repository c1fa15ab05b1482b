//! A sequential model of a lock manager with MySQL's grant rules: the oracle that
//! `mdl-core`'s model tests, the fuzz driver and the differential driver compare the real
//! manager with.
//!
//! What it follows (`docs/semantics.md` names each rule and its MySQL source; § below are its
//! sections):
//!
//! * a request is granted when no pending type has priority over it under the lock's current
//!   priority matrix and no *other* context holds a conflicting type; the model has no fast
//!   path, because a correct fast path cannot be observed;
//! * hog and piglet counting on every fresh grant and every grant by rescheduling, the matrix
//!   index, the rewind on a switch, and the reset rules; a lock with no holder and no waiter
//!   resets its counters;
//! * durations and ticket reuse: the context's own duration is searched first, then the
//!   following ones cyclically, newest first; the *same* ticket is returned when it has the
//!   requested non-EXPLICIT duration, else a clone; clone, upgrade and downgrade keep the
//!   handle; savepoints release the STATEMENT and TRANSACTION tickets taken after them, newest
//!   first, STATEMENT list first; release of any duration.
//!
//! Tickets are numbered globally ([`TicketId`]), so a test can hand the model tickets of other
//! contexts or released ones and expect `InvalidTicket`. Waiters are modelled too: a test that
//! parks a helper thread in `acquire` calls [`Model::enqueue`], and every release reschedules
//! waiters in FIFO order.

use std::collections::BTreeMap;

use mdl_core::{ErrorKind, LockDuration, LockType, MdlKey, Namespace};

use crate::matrix::{allowed, conflicts, has_priority, is_hog, is_scoped, stronger_or_equal};

/// Global ticket number in the model.
pub type TicketId = usize;
/// A context number in the model (an index the test chooses).
pub type Ctx = usize;

/// A ticket as the model knows it.
#[derive(Debug, Clone)]
pub struct ModelTicket {
    /// The owning context.
    pub ctx: Ctx,
    /// The lock's name.
    pub key: MdlKey,
    /// The held (or, while pending, requested) type.
    pub ty: LockType,
    /// The ticket's duration.
    pub duration: LockDuration,
    /// Creation order within the context (what savepoints compare).
    pub seq: u64,
    /// Granted and not released.
    pub live: bool,
}

/// A pending request in a lock's FIFO queue.
#[derive(Debug, Clone)]
pub struct Waiter {
    /// The waiting context.
    pub ctx: Ctx,
    /// The requested type.
    pub ty: LockType,
    /// The ticket the waiter will own once granted.
    pub ticket: TicketId,
}

#[derive(Debug, Default, Clone)]
struct LockModel {
    /// Granted tickets (ids) in any order.
    granted: Vec<TicketId>,
    /// FIFO of pending requests.
    waiting: Vec<Waiter>,
    hog: u64,
    piglet: u64,
    idx: usize,
}

/// Outcome of [`Model::try_acquire`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquired {
    /// An existing ticket of the same duration satisfies the request.
    Same(TicketId),
    /// A new ticket (fresh grant or clone).
    New(TicketId),
    /// Conflict.
    NotGranted,
}

/// A savepoint: the context and the sequence number of its next ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Savepoint {
    /// The context it belongs to.
    pub ctx: Ctx,
    /// Tickets numbered from here on are newer than the savepoint.
    pub seq: u64,
}

/// The model: every ticket ever issued and the state of every lock.
#[derive(Debug)]
pub struct Model {
    /// The hog/piglet threshold (`max_write_lock_count`).
    pub max_write_lock_count: u64,
    /// Every ticket ever issued, indexed by [`TicketId`].
    pub tickets: Vec<ModelTicket>,
    locks: BTreeMap<Vec<u8>, LockModel>,
    next_seq: Vec<u64>,
    /// Tickets granted to waiters by rescheduling since the last call of
    /// [`Model::take_granted_waiters`].
    granted_waiters: Vec<TicketId>,
    /// Coverage counters: priority-matrix switches, grants by rescheduling, reused tickets.
    pub stats: Stats,
}

/// What a run of the model exercised.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    /// Changes of a lock's priority-matrix index.
    pub matrix_switches: u64,
    /// Waiters granted by rescheduling.
    pub rescheduled_grants: u64,
    /// Requests satisfied by a ticket the context already had.
    pub same_ticket: u64,
    /// Tries refused.
    pub refused: u64,
}

impl Model {
    /// A model of `contexts` contexts (numbered from 0) with no lock held.
    pub fn new(contexts: usize, max_write_lock_count: u64) -> Model {
        Model {
            max_write_lock_count,
            tickets: Vec::new(),
            locks: BTreeMap::new(),
            next_seq: vec![1; contexts],
            granted_waiters: Vec::new(),
            stats: Stats::default(),
        }
    }

    fn lock(&mut self, key: &MdlKey) -> &mut LockModel {
        self.locks.entry(key.as_bytes().to_vec()).or_default()
    }

    fn new_ticket(&mut self, ctx: Ctx, key: &MdlKey, ty: LockType, d: LockDuration) -> TicketId {
        let seq = self.next_seq[ctx];
        self.next_seq[ctx] += 1;
        self.tickets.push(ModelTicket {
            ctx,
            key: key.clone(),
            ty,
            duration: d,
            seq,
            live: true,
        });
        self.tickets.len() - 1
    }

    /// Live tickets of `ctx`.
    pub fn live(&self, ctx: Ctx) -> Vec<TicketId> {
        (0..self.tickets.len())
            .filter(|&t| self.tickets[t].live && self.tickets[t].ctx == ctx)
            .collect()
    }

    fn check(&self, ctx: Ctx, t: TicketId) -> Result<(), ErrorKind> {
        match self.tickets.get(t) {
            Some(x) if x.live && x.ctx == ctx => Ok(()),
            _ => Err(ErrorKind::InvalidTicket),
        }
    }

    /// §7 `can_grant_lock` for `ctx` requesting `ty` on `key`.
    fn can_grant(&self, key: &MdlKey, ctx: Ctx, ty: LockType) -> bool {
        let scoped = is_scoped(key.namespace());
        let Some(l) = self.locks.get(key.as_bytes()) else {
            return true;
        };
        if l.waiting
            .iter()
            .any(|w| has_priority(scoped, l.idx, ty, w.ty))
        {
            return false;
        }
        l.granted.iter().all(|&g| {
            let g = &self.tickets[g];
            g.ctx == ctx || !conflicts(scoped, ty, g.ty)
        })
    }

    fn hog_affected(key: &MdlKey) -> bool {
        !is_scoped(key.namespace()) && key.namespace() != Namespace::AclCache
    }

    /// §6 `count_piglets_and_hogs`; returns whether the matrix index changed.
    fn count(&mut self, key: &MdlKey, ty: LockType) -> bool {
        if !Self::hog_affected(key) {
            return false;
        }
        let max = self.max_write_lock_count;
        let l = self.lock(key);
        if is_hog(ty) {
            if l.waiting.iter().any(|w| !is_hog(w.ty)) {
                l.hog += 1;
            }
        } else if ty == LockType::SharedWrite
            && l.waiting.iter().any(|w| w.ty == LockType::SharedReadOnly)
        {
            l.piglet += 1;
        }
        let idx = usize::from(l.piglet >= max) + 2 * usize::from(l.hog >= max);
        let changed = idx != l.idx;
        l.idx = idx;
        if changed {
            self.stats.matrix_switches += 1;
        }
        changed
    }

    /// §7 `reschedule_waiters` + §6 reset rules.
    fn reschedule(&mut self, key: &MdlKey) {
        let mut i = 0;
        loop {
            let n = self.lock(key).waiting.len();
            if i >= n {
                break;
            }
            let w = self.lock(key).waiting[i].clone();
            if self.can_grant(key, w.ctx, w.ty) {
                self.lock(key).waiting.remove(i);
                self.lock(key).granted.push(w.ticket);
                self.tickets[w.ticket].live = true;
                self.granted_waiters.push(w.ticket);
                self.stats.rescheduled_grants += 1;
                if self.count(key, w.ty) {
                    i = 0;
                }
            } else {
                i += 1;
            }
        }
        let l = self.lock(key);
        let pending: Vec<LockType> = l.waiting.iter().map(|w| w.ty).collect();
        let only = |allowed: &dyn Fn(LockType) -> bool| pending.iter().all(|&t| allowed(t));
        if l.idx == 3 {
            if only(&|t| {
                is_hog(t) || t == LockType::SharedWrite || t == LockType::SharedWriteLowPrio
            }) {
                l.hog = 0;
                l.piglet = 0;
                l.idx = 0;
            }
        } else {
            if only(&is_hog) {
                l.hog = 0;
                l.idx &= !2;
            }
            if !pending.contains(&LockType::SharedReadOnly) {
                l.piglet = 0;
                l.idx &= !1;
            }
        }
    }

    /// After a hold or a waiter left `key`'s lock: a lock with nobody left resets its counters
    /// (§6), any other reschedules its waiters (§7).
    fn after_leave(&mut self, key: &MdlKey) {
        let l = self.lock(key);
        if l.granted.is_empty() && l.waiting.is_empty() {
            l.hog = 0;
            l.piglet = 0;
            l.idx = 0;
        } else {
            self.reschedule(key);
        }
    }

    /// Takes a hold off its lock and reschedules (§7).
    fn drop_hold(&mut self, t: TicketId) {
        let key = self.tickets[t].key.clone();
        let l = self.lock(&key);
        let p = l.granted.iter().position(|&g| g == t).expect("held");
        l.granted.remove(p);
        self.after_leave(&key);
    }

    fn release_ticket(&mut self, t: TicketId) {
        self.tickets[t].live = false;
        self.drop_hold(t);
    }

    /// §8 `find_ticket`: own duration first, then the following ones cyclically, newest first.
    fn find(&self, ctx: Ctx, key: &MdlKey, ty: LockType, d: LockDuration) -> Option<TicketId> {
        let scoped = is_scoped(key.namespace());
        for i in 0..3 {
            let dur = LockDuration::ALL[(d as usize + i) % 3];
            let best = self
                .live(ctx)
                .into_iter()
                .filter(|&t| {
                    let x = &self.tickets[t];
                    x.duration == dur && x.key == *key && stronger_or_equal(scoped, x.ty, ty)
                })
                .max_by_key(|&t| self.tickets[t].seq);
            if best.is_some() {
                return best;
            }
        }
        None
    }

    fn add_granted(&mut self, ctx: Ctx, key: &MdlKey, ty: LockType, d: LockDuration) -> TicketId {
        let t = self.new_ticket(ctx, key, ty, d);
        self.lock(key).granted.push(t);
        t
    }

    /// §8 `try_acquire_lock`.
    pub fn try_acquire(
        &mut self,
        ctx: Ctx,
        key: &MdlKey,
        ty: LockType,
        d: LockDuration,
    ) -> Result<Acquired, ErrorKind> {
        let ns = key.namespace();
        if !allowed(ns, ty) {
            return Err(ErrorKind::InvalidLockType);
        }
        if let Some(found) = self.find(ctx, key, ty, d) {
            if self.tickets[found].duration == d && d != LockDuration::Explicit {
                self.stats.same_ticket += 1;
                return Ok(Acquired::Same(found));
            }
            return Ok(Acquired::New(self.add_granted(ctx, key, ty, d)));
        }
        if !self.can_grant(key, ctx, ty) {
            self.stats.refused += 1;
            return Ok(Acquired::NotGranted);
        }
        let t = self.add_granted(ctx, key, ty, d);
        if self.count(key, ty) {
            self.reschedule(key);
        }
        Ok(Acquired::New(t))
    }

    /// Whether a request that cannot be granted now would wait (for the helpers of a test):
    /// the same as `try_acquire` returning `NotGranted`, without side effects.
    pub fn would_grant(&self, ctx: Ctx, key: &MdlKey, ty: LockType) -> bool {
        self.can_grant(key, ctx, ty)
    }

    /// Queues a request that [`Model::would_grant`] refused (a helper blocked in `acquire`).
    /// Returns the ticket it will own.
    pub fn enqueue(&mut self, ctx: Ctx, key: &MdlKey, ty: LockType, d: LockDuration) -> TicketId {
        let t = self.new_ticket(ctx, key, ty, d);
        self.tickets[t].live = false;
        self.lock(key).waiting.push(Waiter { ctx, ty, ticket: t });
        t
    }

    /// A pending request gives up (timeout, kill): off the queue, reschedule.
    pub fn dequeue(&mut self, t: TicketId) {
        let key = self.tickets[t].key.clone();
        let l = self.lock(&key);
        let p = l
            .waiting
            .iter()
            .position(|w| w.ticket == t)
            .expect("pending");
        l.waiting.remove(p);
        self.after_leave(&key);
    }

    /// Whether ticket `t` (of a queued request) is still pending.
    pub fn is_pending(&self, t: TicketId) -> bool {
        let key = &self.tickets[t].key;
        self.locks
            .get(key.as_bytes())
            .is_some_and(|l| l.waiting.iter().any(|w| w.ticket == t))
    }

    /// The tickets granted to waiters by rescheduling since the last call.
    pub fn take_granted_waiters(&mut self) -> Vec<TicketId> {
        std::mem::take(&mut self.granted_waiters)
    }

    /// Releases one ticket of `ctx` (any duration).
    pub fn release(&mut self, ctx: Ctx, t: TicketId) -> Result<(), ErrorKind> {
        self.check(ctx, t)?;
        self.release_ticket(t);
        Ok(())
    }

    /// `release_all_locks_for_name`: every EXPLICIT ticket of `ctx` on the same key, plus `t`.
    pub fn release_all_for_name(&mut self, ctx: Ctx, t: TicketId) -> Result<(), ErrorKind> {
        self.check(ctx, t)?;
        let key = self.tickets[t].key.clone();
        let mut list: Vec<TicketId> = self
            .live(ctx)
            .into_iter()
            .filter(|&x| {
                self.tickets[x].duration == LockDuration::Explicit && self.tickets[x].key == key
            })
            .collect();
        list.sort_by_key(|&x| std::cmp::Reverse(self.tickets[x].seq));
        for x in list {
            self.release_ticket(x);
        }
        if self.tickets[t].live {
            self.release_ticket(t);
        }
        Ok(())
    }

    /// §10 clone: equal or weaker type, own duration, never waits.
    pub fn clone_ticket(
        &mut self,
        ctx: Ctx,
        t: TicketId,
        ty: LockType,
        d: LockDuration,
    ) -> Result<TicketId, ErrorKind> {
        self.check(ctx, t)?;
        let key = self.tickets[t].key.clone();
        let held = self.tickets[t].ty;
        let ns = key.namespace();
        if !allowed(ns, ty) {
            return Err(ErrorKind::InvalidLockType);
        }
        if !stronger_or_equal(is_scoped(ns), held, ty) {
            return Err(ErrorKind::InvalidLockChange);
        }
        Ok(self.add_granted(ctx, &key, ty, d))
    }

    /// §10 upgrade with a zero timeout: `Err(Timeout)` when it would have to wait. The ticket
    /// keeps its id, duration and savepoint position.
    pub fn try_upgrade(&mut self, ctx: Ctx, t: TicketId, ty: LockType) -> Result<(), ErrorKind> {
        self.check(ctx, t)?;
        let key = self.tickets[t].key.clone();
        let ns = key.namespace();
        if !allowed(ns, ty) {
            return Err(ErrorKind::InvalidLockType);
        }
        if stronger_or_equal(is_scoped(ns), self.tickets[t].ty, ty) {
            return Ok(());
        }
        // The new hold is taken as a TRANSACTION request (it may reuse another own ticket).
        let new = match self.try_acquire(ctx, &key, ty, LockDuration::Transaction)? {
            Acquired::NotGranted => return Err(ErrorKind::Timeout),
            Acquired::Same(_) => self.add_granted(ctx, &key, ty, LockDuration::Transaction),
            Acquired::New(n) => n,
        };
        self.swap_hold(t, new);
        Ok(())
    }

    /// `t` takes over `new`'s hold (and type); `t`'s old hold is released.
    fn swap_hold(&mut self, t: TicketId, new: TicketId) {
        // `new` disappears as a ticket; its hold becomes `t`'s. Model it by giving `t` the new
        // type and releasing one hold of the old type: swap the ids in the granted list.
        let key = self.tickets[t].key.clone();
        let new_ty = self.tickets[new].ty;
        let old_ty = self.tickets[t].ty;
        self.tickets[new].live = false;
        // `new` keeps the old type and is released; `t` gets the new type and `new`'s hold.
        self.tickets[new].ty = old_ty;
        self.tickets[t].ty = new_ty;
        let l = self.lock(&key);
        // Nothing to swap in the granted list: both ids are in it; release `new` (now old type).
        let _ = l;
        self.drop_hold(new);
    }

    /// §10 downgrade (this implementation: an error when `ty` is not weaker).
    pub fn downgrade(&mut self, ctx: Ctx, t: TicketId, ty: LockType) -> Result<(), ErrorKind> {
        self.check(ctx, t)?;
        let key = self.tickets[t].key.clone();
        let held = self.tickets[t].ty;
        let ns = key.namespace();
        if held == ty {
            return Ok(());
        }
        if !stronger_or_equal(is_scoped(ns), held, ty) {
            return Err(ErrorKind::InvalidLockChange);
        }
        let d = self.tickets[t].duration;
        let new = self.clone_ticket(ctx, t, ty, d)?;
        self.swap_hold(t, new);
        Ok(())
    }

    /// A savepoint of `ctx` now.
    pub fn savepoint(&self, ctx: Ctx) -> Savepoint {
        Savepoint {
            ctx,
            seq: self.next_seq[ctx],
        }
    }

    fn release_newer(&mut self, ctx: Ctx, d: LockDuration, seq: u64) {
        let mut list: Vec<TicketId> = self
            .live(ctx)
            .into_iter()
            .filter(|&t| self.tickets[t].duration == d && self.tickets[t].seq >= seq)
            .collect();
        list.sort_by_key(|&t| std::cmp::Reverse(self.tickets[t].seq));
        for t in list {
            self.release_ticket(t);
        }
    }

    /// Releases the STATEMENT, then the TRANSACTION tickets taken after `sp`, newest first.
    pub fn rollback_to_savepoint(&mut self, ctx: Ctx, sp: Savepoint) -> Result<(), ErrorKind> {
        if sp.ctx != ctx {
            return Err(ErrorKind::InvalidSavepoint);
        }
        self.release_newer(ctx, LockDuration::Statement, sp.seq);
        self.release_newer(ctx, LockDuration::Transaction, sp.seq);
        Ok(())
    }

    /// `has_lock(sp, t)`: survives a rollback to `sp`.
    pub fn has_lock(&self, ctx: Ctx, sp: Savepoint, t: TicketId) -> Result<bool, ErrorKind> {
        if sp.ctx != ctx {
            return Err(ErrorKind::InvalidSavepoint);
        }
        self.check(ctx, t)?;
        let x = &self.tickets[t];
        Ok(x.duration == LockDuration::Explicit || x.seq < sp.seq)
    }

    /// End of statement: every STATEMENT ticket of `ctx`, newest first.
    pub fn release_statement_locks(&mut self, ctx: Ctx) {
        self.release_newer(ctx, LockDuration::Statement, 0);
    }

    /// End of transaction: every STATEMENT, then every TRANSACTION ticket of `ctx`.
    pub fn release_transactional_locks(&mut self, ctx: Ctx) {
        self.release_newer(ctx, LockDuration::Statement, 0);
        self.release_newer(ctx, LockDuration::Transaction, 0);
    }

    /// `set_lock_duration`: the ticket moves to `d` and counts as the newest.
    pub fn set_lock_duration(
        &mut self,
        ctx: Ctx,
        t: TicketId,
        d: LockDuration,
    ) -> Result<(), ErrorKind> {
        self.check(ctx, t)?;
        let seq = self.next_seq[ctx];
        self.next_seq[ctx] += 1;
        self.tickets[t].duration = d;
        self.tickets[t].seq = seq;
        Ok(())
    }

    /// Whether `ctx` holds a ticket on `key` that satisfies `ty`.
    pub fn owns_equal_or_stronger(&self, ctx: Ctx, key: &MdlKey, ty: LockType) -> bool {
        self.find(ctx, key, ty, LockDuration::Transaction).is_some()
    }

    /// Drops a context: every ticket released (in ticket order; the order is irrelevant when no
    /// waiter is queued, which is how tests use it).
    pub fn drop_context(&mut self, ctx: Ctx) {
        for t in self.live(ctx) {
            self.release_ticket(t);
        }
    }

    /// Every live ticket as (ctx, key bytes, type, duration), sorted.
    pub fn held(&self) -> Vec<(Ctx, Vec<u8>, LockType, LockDuration)> {
        let mut v: Vec<_> = self
            .tickets
            .iter()
            .filter(|t| t.live)
            .map(|t| (t.ctx, t.key.as_bytes().to_vec(), t.ty, t.duration))
            .collect();
        v.sort();
        v
    }
}
