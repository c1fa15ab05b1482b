//! `MdlContext`: the per-connection API (MySQL's `MDL_context`).
//!
//! A context is owned by one thread at a time (it is `Send`, not `Sync`; every method takes
//! `&mut self`). Its tickets live in its own [`TicketStore`]; the part other threads need to
//! reach — the wait slot, the kill flag, the owner hooks — is its [`ContextShared`]. Asking a
//! lock object for a lock is one call ([`LockObject::acquire`]); this module keeps the ticket
//! bookkeeping around it, and `context/waiting.rs` the waiting.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{MdlError, Result, WaitError};
use crate::fast_path::FastPath;
use crate::key::MdlKey;
use crate::lock::{FastAcquire, Hold, LockObject, Outcome, Request, SlotHome};
use crate::manager::MdlManager;
use crate::matrix::{fast_path_increment, is_stronger_or_equal, is_unobtrusive};
use crate::owner::MdlOwner;
use crate::request::{MdlRequest, MdlSavepoint, Ticket, TicketInfo};
use crate::shared::ContextShared;
use crate::sync::Ordering;
use crate::ticket_store::{TicketData, TicketStore};
use crate::types::{ContextId, LockDuration, LockType};

mod waiting;

impl MdlManager {
    /// A new context (one per connection).
    pub fn new_context(self: &Arc<Self>) -> MdlContext {
        MdlContext::new(self.clone(), None)
    }

    /// A new context whose owner receives the notifications of [`MdlOwner`].
    pub fn new_context_with_owner(self: &Arc<Self>, owner: Arc<dyn MdlOwner>) -> MdlContext {
        MdlContext::new(self.clone(), Some(owner))
    }
}

/// Kills a context from another thread: its current wait, and any later one until
/// [`MdlContext::reset_kill`], ends with [`MdlError::Killed`].
#[derive(Clone)]
pub struct KillHandle {
    shared: Arc<ContextShared>,
}

impl KillHandle {
    /// Ends the context's current and future waits with [`MdlError::Killed`].
    pub fn kill(&self) {
        self.shared.killed.store(true, Ordering::Release);
        self.shared.wait.wake();
    }

    /// Whether the context is killed.
    pub fn is_killed(&self) -> bool {
        self.shared.is_killed()
    }

    /// The context this handle kills.
    pub fn context_id(&self) -> ContextId {
        ContextId(self.shared.id)
    }
}

/// The outcome of one grant attempt.
enum Attempt {
    Granted(Ticket),
    /// Refused without queueing: the lock object, to name the blockers.
    NotGranted(Arc<LockObject>),
    Pending(Pending),
}

/// A request queued on a lock object, not yet granted.
struct Pending {
    lock: Arc<LockObject>,
    entry: usize,
    epoch: u64,
    ty: LockType,
    hton_notified: bool,
}

/// A connection's lock context (MySQL's `MDL_context`).
///
/// Dropping a context releases every lock it holds and wakes whoever waited for them.
pub struct MdlContext {
    mgr: Arc<MdlManager>,
    /// `shared.id`, kept here for the hot path.
    id: u64,
    shared: Arc<ContextShared>,
    store: TicketStore,
    /// [`FastPath::PerContext`]: where this context claims slots.
    home: Option<SlotHome>,
    /// `shared.needs_thr_lock_abort` (only this context writes it), kept here for the hot path.
    thr_lock_abort: bool,
    /// Recently used lock objects, direct-mapped by key hash (see
    /// [`crate::MdlConfig::lock_cache`]).
    cache: Vec<Option<Arc<LockObject>>>,
    rand: u64,
}

impl MdlContext {
    fn new(mgr: Arc<MdlManager>, owner: Option<Arc<dyn MdlOwner>>) -> MdlContext {
        let shared = mgr.env.registry.register(owner);
        let store = TicketStore::new(mgr.config.ticket_index);
        let rand = shared.id.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let lock_cache = mgr.config.lock_cache;
        let cache = vec![None; lock_cache.next_power_of_two() * usize::from(lock_cache > 0)];
        let home = match (mgr.env.mode, shared.tag) {
            (FastPath::PerContext, Some(tag)) => mgr.env.slots.home(tag).map(|group| SlotHome {
                tag,
                group,
                hint: 0,
            }),
            _ => None,
        };
        MdlContext {
            mgr,
            id: shared.id,
            shared,
            store,
            home,
            thr_lock_abort: false,
            cache,
            rand,
        }
    }

    /// This context's id.
    pub fn id(&self) -> ContextId {
        ContextId(self.shared.id)
    }

    /// The manager this context belongs to.
    pub fn manager(&self) -> &Arc<MdlManager> {
        &self.mgr
    }

    /// Sets what diagnostics and errors call this context — a connection id, `user@host`, the
    /// current statement. Shown next to the context id in [`MdlManager::lock_waits`],
    /// [`MdlManager::blocking_contexts`], deadlock reports, errors and `metadata_locks`. Costs a
    /// mutex and an allocation; set it when it changes, not per lock.
    pub fn set_label(&mut self, label: impl Into<Arc<str>>) {
        self.shared.set_label(Some(label.into()));
    }

    /// Removes the label.
    pub fn clear_label(&mut self) {
        self.shared.set_label(None);
    }

    /// This context's label.
    pub fn label(&self) -> Option<Arc<str>> {
        self.shared.label()
    }

    /// Tries to take a lock without waiting. `Ok(None)` means it conflicts with a lock held (or,
    /// by priority, requested) by another context.
    ///
    /// If the context already holds an equal or stronger lock on the key, that ticket is
    /// returned when its duration matches (and the request is not EXPLICIT); otherwise a clone
    /// with the requested type and duration is made. Both need no waiting.
    ///
    /// # Errors
    /// [`MdlError::InvalidLockType`] for a type the namespace does not allow;
    /// [`MdlError::RefusedByEngine`] / [`MdlError::Deadlock`] if the owner's storage-engine hook
    /// refuses an exclusive lock.
    pub fn try_acquire(&mut self, req: &MdlRequest) -> Result<Option<Ticket>> {
        if let Some(t) = self.fast_acquire(req) {
            return Ok(Some(t));
        }
        match self.attempt(req, false)? {
            Attempt::Granted(t) => Ok(Some(t)),
            Attempt::NotGranted(lock) => {
                self.cache_lock(lock);
                Ok(None)
            }
            Attempt::Pending(p) => {
                self.withdraw(p);
                Ok(None)
            }
        }
    }

    /// Takes a lock, waiting up to `timeout` for conflicting locks to go away. A zero timeout
    /// only tries (no deadlock detection), as MySQL does; a timeout too large to represent waits
    /// forever.
    ///
    /// # Errors
    /// [`MdlError::Timeout`], [`MdlError::Deadlock`] (this context was chosen as the victim of a
    /// deadlock), [`MdlError::Killed`], plus the errors of [`MdlContext::try_acquire`]. On error
    /// nothing is acquired and every lock held before stays held.
    #[inline]
    pub fn acquire(&mut self, req: &MdlRequest, timeout: Duration) -> Result<Ticket> {
        if let Some(t) = self.fast_acquire(req) {
            return Ok(t);
        }
        self.acquire_general(req, timeout)
    }

    #[inline(never)]
    fn acquire_general(&mut self, req: &MdlRequest, timeout: Duration) -> Result<Ticket> {
        // A zero timeout never queues (a try): `Pending` cannot come back.
        match self.attempt(req, !timeout.is_zero())? {
            Attempt::Granted(t) => Ok(t),
            Attempt::NotGranted(lock) => {
                let mut w = WaitError::new(&req.key, req.lock_type, req.duration);
                w.blockers = {
                    let st = lock.state.read_recursive();
                    lock.blockers(&st, self.id, req.lock_type)
                };
                self.cache_lock(lock);
                Err(MdlError::timeout(w))
            }
            Attempt::Pending(p) => {
                // The clock is read only when a wait is needed: the attempt took nanoseconds.
                let start = Instant::now();
                self.wait_for_grant(&req.key, req.duration, p, start, start.checked_add(timeout))
            }
        }
    }

    /// Takes several locks, all or nothing. The requests are sorted first (by key in MySQL's
    /// order, and for the same key the stronger type first), which avoids deadlocks between
    /// contexts that lock the same set; each request's `ticket` is set.
    ///
    /// # Errors
    /// The first error of [`MdlContext::acquire`]; every lock taken by this call is then released
    /// (including EXPLICIT ones) and every `ticket` is reset to `None`.
    pub fn acquire_many(&mut self, reqs: &mut [MdlRequest], timeout: Duration) -> Result<()> {
        reqs.sort_by(|a, b| a.key.mysql_cmp(&b.key).then(b.lock_type.cmp(&a.lock_type)));
        let start = self.store.next_seq();
        for i in 0..reqs.len() {
            match self.acquire(&reqs[i], timeout) {
                Ok(t) => reqs[i].ticket = Some(t),
                Err(e) => {
                    self.release_newer_than(start, true);
                    for r in reqs.iter_mut() {
                        r.ticket = None;
                    }
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Upgrades a held lock to a stronger type (for example SU to X), waiting up to `timeout`.
    /// The ticket keeps its handle and duration. Asking for a type the ticket already satisfies
    /// does nothing.
    ///
    /// # Errors
    /// As [`MdlContext::acquire`]; on error the original lock is left intact.
    pub fn upgrade(&mut self, ticket: Ticket, new_type: LockType, timeout: Duration) -> Result<()> {
        let slot = self.check(ticket)?;
        let (key, held) = {
            let t = self.store.data(slot);
            (t.lock.key.clone(), t.ty)
        };
        let ns = key.namespace();
        if !ns.allows(new_type) {
            return Err(MdlError::InvalidLockType {
                namespace: ns,
                lock_type: new_type,
            });
        }
        if is_stronger_or_equal(ns.strategy(), held, new_type) {
            return Ok(());
        }
        let start = self.store.next_seq();
        let req = MdlRequest::new(key, new_type, LockDuration::Transaction);
        let got = self.acquire(&req, timeout)?;
        let mut new_slot = got.slot;
        if self.store.seq(new_slot) < start {
            // An older, stronger ticket already covered the request: take our own copy of it.
            new_slot = self
                .clone_slot(new_slot, new_type, LockDuration::Transaction)?
                .slot;
        }
        self.swap_hold(slot, new_slot);
        Ok(())
    }

    /// Downgrades a held lock to a weaker type (for example X to SNW after the exclusive phase of
    /// an ALTER), waking the requests that can now be granted. Same type: nothing to do.
    ///
    /// # Errors
    /// [`MdlError::InvalidLockChange`] if `new_type` is not weaker than the held type.
    pub fn downgrade(&mut self, ticket: Ticket, new_type: LockType) -> Result<()> {
        let slot = self.check(ticket)?;
        let (ns, held, duration) = {
            let t = self.store.data(slot);
            (t.lock.key.namespace(), t.ty, t.duration)
        };
        if held == new_type {
            return Ok(());
        }
        if !is_stronger_or_equal(ns.strategy(), held, new_type) {
            return Err(MdlError::InvalidLockChange {
                held,
                requested: new_type,
            });
        }
        let new = self.clone_slot(slot, new_type, duration)?;
        self.swap_hold(slot, new.slot);
        Ok(())
    }

    /// A second ticket on the same lock with an equal or weaker type and its own duration (MySQL
    /// uses it for HANDLER and to hand locks between statements). Never waits.
    ///
    /// # Errors
    /// [`MdlError::InvalidLockChange`] if `lock_type` is stronger than the held type.
    pub fn clone_ticket(
        &mut self,
        ticket: Ticket,
        lock_type: LockType,
        duration: LockDuration,
    ) -> Result<Ticket> {
        let slot = self.check(ticket)?;
        self.clone_slot(slot, lock_type, duration)
    }

    /// Releases one lock, of any duration.
    ///
    /// # Errors
    /// [`MdlError::InvalidTicket`] for a ticket of another context or one already released.
    #[inline]
    pub fn release(&mut self, ticket: Ticket) -> Result<()> {
        let slot = self.check(ticket)?;
        self.release_slot(slot);
        Ok(())
    }

    /// Releases `ticket` and every EXPLICIT ticket of this context on the same lock (MySQL's
    /// `release_all_locks_for_name`, used for user-level locks taken several times).
    ///
    /// # Errors
    /// [`MdlError::InvalidTicket`] as [`MdlContext::release`].
    pub fn release_all_locks_for_name(&mut self, ticket: Ticket) -> Result<()> {
        let slot = self.check(ticket)?;
        let lock = self.store.data(slot).lock.clone();
        let slots: Vec<u32> = self
            .store
            .of(LockDuration::Explicit)
            .into_iter()
            .filter(|&s| Arc::ptr_eq(&self.store.data(s).lock, &lock))
            .collect();
        for s in slots {
            self.release_slot(s);
        }
        if self.store.check(ticket.slot, ticket.generation) {
            // `ticket` itself was not EXPLICIT.
            self.release_slot(ticket.slot);
        }
        Ok(())
    }

    /// Releases every STATEMENT lock (end of statement).
    pub fn release_statement_locks(&mut self) {
        self.release_list(LockDuration::Statement, 0);
    }

    /// Releases every STATEMENT and TRANSACTION lock (COMMIT / ROLLBACK).
    pub fn release_transactional_locks(&mut self) {
        self.release_list(LockDuration::Statement, 0);
        self.release_list(LockDuration::Transaction, 0);
    }

    /// A savepoint: [`MdlContext::rollback_to_savepoint`] releases the STATEMENT and TRANSACTION
    /// locks taken after it.
    pub fn savepoint(&self) -> MdlSavepoint {
        MdlSavepoint {
            ctx: self.shared.id,
            seq: self.store.next_seq(),
        }
    }

    /// Releases the STATEMENT and TRANSACTION locks taken after `sp` (EXPLICIT locks stay).
    ///
    /// # Errors
    /// [`MdlError::InvalidSavepoint`] for a savepoint of another context.
    pub fn rollback_to_savepoint(&mut self, sp: MdlSavepoint) -> Result<()> {
        if sp.ctx != self.shared.id {
            return Err(MdlError::InvalidSavepoint);
        }
        self.release_newer_than(sp.seq, false);
        Ok(())
    }

    /// Whether `ticket` was taken before `sp` (or is EXPLICIT), i.e. survives a rollback to it.
    ///
    /// # Errors
    /// [`MdlError::InvalidTicket`], [`MdlError::InvalidSavepoint`].
    pub fn has_lock(&self, sp: MdlSavepoint, ticket: Ticket) -> Result<bool> {
        if sp.ctx != self.shared.id {
            return Err(MdlError::InvalidSavepoint);
        }
        let t = self.store.data(self.check(ticket)?);
        Ok(t.duration == LockDuration::Explicit || self.store.seq(ticket.slot) < sp.seq)
    }

    /// Changes a ticket's duration (MySQL allows TRANSACTION to another; any change is allowed
    /// here). The ticket counts as newest for savepoints.
    ///
    /// # Errors
    /// [`MdlError::InvalidTicket`].
    pub fn set_lock_duration(&mut self, ticket: Ticket, duration: LockDuration) -> Result<()> {
        let slot = self.check(ticket)?;
        self.move_to(slot, duration, false);
        Ok(())
    }

    /// Makes every lock EXPLICIT (LOCK TABLES).
    pub fn set_explicit_duration_for_all_locks(&mut self) {
        for d in [LockDuration::Transaction, LockDuration::Statement] {
            let slots = self.store.of(d);
            for s in slots.into_iter().rev() {
                self.move_to(s, LockDuration::Explicit, false);
            }
        }
    }

    /// Makes every EXPLICIT lock a TRANSACTION lock (UNLOCK TABLES); they count as older than
    /// every savepoint.
    pub fn set_transaction_duration_for_all_locks(&mut self) {
        let slots = self.store.of(LockDuration::Explicit);
        for s in slots {
            self.move_to(s, LockDuration::Transaction, true);
        }
    }

    /// Whether this context holds a lock on `key` that satisfies `lock_type`.
    pub fn owns_equal_or_stronger_lock(&self, key: &MdlKey, lock_type: LockType) -> bool {
        self.store
            .find_key(key, lock_type, LockDuration::Transaction)
            .is_some()
    }

    /// Whether this context holds any lock.
    pub fn has_locks(&self) -> bool {
        !self.store.is_empty()
    }

    /// Number of tickets held, in all durations.
    pub fn lock_count(&self) -> usize {
        self.store.len()
    }

    /// Number of tickets held with `duration`.
    pub fn lock_count_of(&self, duration: LockDuration) -> usize {
        self.store.len_of(duration)
    }

    /// What a ticket holds.
    ///
    /// # Errors
    /// [`MdlError::InvalidTicket`].
    pub fn ticket_info(&self, ticket: Ticket) -> Result<TicketInfo> {
        let t = self.store.data(self.check(ticket)?);
        Ok(TicketInfo {
            key: t.lock.key.clone(),
            lock_type: t.ty,
            duration: t.duration,
            fast_path: t.lock.is_fast(&self.mgr.env, t.hold),
        })
    }

    /// A handle that kills this context's waits from another thread.
    pub fn kill_handle(&self) -> KillHandle {
        KillHandle {
            shared: self.shared.clone(),
        }
    }

    /// Clears a kill, so later waits proceed.
    pub fn reset_kill(&mut self) {
        self.shared.killed.store(false, Ordering::Release);
    }

    /// Makes this context's waits weigh as DML in deadlock resolution, whatever they request
    /// (MySQL uses it for replication appliers).
    pub fn set_force_dml_deadlock_weight(&mut self, force: bool) {
        self.shared.force_dml_weight.store(force, Ordering::Relaxed);
    }

    /// Takes every lock on the slow path, visible to [`MdlOwner::notify_shared_lock`] of
    /// exclusive requesters (MySQL sets it for connections with open HANDLERs).
    pub fn set_needs_thr_lock_abort(&mut self, needs: bool) {
        self.shared
            .needs_thr_lock_abort
            .store(needs, Ordering::Relaxed);
        self.thr_lock_abort = needs;
        if needs {
            self.materialize_fast_path_locks();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Acquisition.

    /// The common case in few instructions: an unobtrusive lock whose lock object is in this
    /// context's cache and that the context does not hold yet, granted on the fast path. Any
    /// other case returns `None` having changed nothing, and goes through
    /// [`MdlContext::attempt`].
    #[inline(always)]
    fn fast_acquire(&mut self, req: &MdlRequest) -> Option<Ticket> {
        let key = &req.key;
        let ty = req.lock_type;
        if !is_unobtrusive(key.strategy(), ty) || self.thr_lock_abort {
            return None;
        }
        let i = key.murmur3() as usize & self.cache.len().wrapping_sub(1);
        let cached = self.cache.get_mut(i)?;
        if !cached.as_ref().is_some_and(|l| l.key == *key) {
            return None;
        }
        let lock = cached.take()?;
        if !self.store.is_empty() && self.store.find(&lock, ty, req.duration).is_some() {
            self.cache[i] = Some(lock);
            return None;
        }
        let env = &self.mgr.env;
        let fast = match (&mut self.home, env.mode) {
            (Some(home), _) => lock.claim_slot(&env.slots, home, ty, req.duration),
            (None, FastPath::SharedWord) => {
                lock.add_counter(fast_path_increment(lock.strategy, ty))
            }
            (None, _) => FastAcquire::SlowPath,
        };
        let hold = match fast {
            FastAcquire::Granted { hold, first_use } => {
                if first_use && !lock.singleton {
                    self.mgr.map.object_used();
                }
                hold
            }
            FastAcquire::Moved { entry } => Hold::Entry(entry),
            FastAcquire::SlowPath => {
                self.cache[i] = Some(lock);
                return None;
            }
            FastAcquire::Destroyed => return None,
        };
        Some(self.insert(TicketData {
            lock,
            hold,
            ty,
            duration: req.duration,
            hton_notified: false,
        }))
    }

    fn attempt(&mut self, req: &MdlRequest, enqueue: bool) -> Result<Attempt> {
        let key = &req.key;
        let ty = req.lock_type;
        let ns = key.namespace();
        if !ns.allows(ty) {
            return Err(MdlError::InvalidLockType {
                namespace: ns,
                lock_type: ty,
            });
        }
        let obtrusive = fast_path_increment(ns.strategy(), ty) == 0;
        let mode = self.mgr.env.mode;
        let fast = !obtrusive && mode.is_on() && !self.thr_lock_abort;
        let mut hton_notified = None;
        loop {
            let lock = self.find_lock(key);
            if let Some(slot) = self.store.find(&lock, ty, req.duration) {
                // Already held, equal or stronger: the ticket itself, or a clone.
                self.cache_lock(lock);
                if hton_notified == Some(true) {
                    self.post_release_notify(key);
                }
                if self.store.data(slot).duration == req.duration
                    && req.duration != LockDuration::Explicit
                {
                    return Ok(Attempt::Granted(self.handle(slot)));
                }
                return self
                    .clone_slot(slot, ty, req.duration)
                    .map(Attempt::Granted);
            }
            let hton = match hton_notified {
                Some(h) => h,
                None => {
                    if obtrusive && mode == FastPath::SharedWord {
                        // Counters do not say whose they are: put ours in the queue, so the
                        // conflicts the matrices find are never our own.
                        self.materialize_fast_path_locks();
                    }
                    match self.pre_acquire_notify(key, ty) {
                        Ok(h) => *hton_notified.insert(h),
                        Err(e) => {
                            self.cache_lock(lock);
                            return Err(e);
                        }
                    }
                }
            };
            let request = Request {
                ctx: &self.shared,
                ty,
                duration: req.duration,
                ticket_id: ticket_id(self.id, self.store.next_slot()),
            };
            let outcome = lock.acquire(&self.mgr.env, &request, self.home.as_mut(), fast, enqueue);
            match outcome {
                Outcome::Granted { hold, first_use } => {
                    if first_use && !lock.singleton {
                        self.mgr.map.object_used();
                    }
                    return Ok(Attempt::Granted(self.insert(TicketData {
                        lock,
                        hold,
                        ty,
                        duration: req.duration,
                        hton_notified: hton,
                    })));
                }
                Outcome::Destroyed => continue,
                Outcome::Queued {
                    entry,
                    epoch,
                    first_use,
                } => {
                    if first_use && !lock.singleton {
                        self.mgr.map.object_used();
                    }
                    return Ok(Attempt::Pending(Pending {
                        lock,
                        entry,
                        epoch,
                        ty,
                        hton_notified: hton,
                    }));
                }
                Outcome::Refused { first_use, unused } => {
                    if !lock.singleton {
                        if first_use {
                            self.mgr.map.object_used();
                        }
                        if unused {
                            self.mgr.map.object_unused(&mut self.rand);
                        }
                    }
                    if hton {
                        self.post_release_notify(&lock.key);
                    }
                    return Ok(Attempt::NotGranted(lock));
                }
            }
        }
    }

    fn pre_acquire_notify(&self, key: &MdlKey, ty: LockType) -> Result<bool> {
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

    fn post_release_notify(&self, key: &MdlKey) {
        if let Some(owner) = &self.shared.owner {
            owner.notify_hton_post_release_exclusive(key);
        }
    }

    /// Moves every fast-path lock of this context into its lock's granted queue.
    fn materialize_fast_path_locks(&mut self) {
        if !self.store.has_fast() {
            return;
        }
        let slots: Vec<u32> = self
            .store
            .all_slots()
            .into_iter()
            .filter(|&s| !matches!(self.store.data(s).hold, Hold::Entry(_)))
            .collect();
        for s in slots {
            let t = self.store.data(s);
            let request = Request {
                ctx: &self.shared,
                ty: t.ty,
                duration: t.duration,
                ticket_id: ticket_id(self.id, s),
            };
            let entry = t.lock.materialize(&self.mgr.env, &request, t.hold);
            self.store.set_entry(s, entry);
            // Its row now comes from the queue.
            self.unpublish(s);
        }
    }

    /// The lock object for `key`: taken out of this context's small cache of recently released
    /// objects when it is there (no partition mutex, no hashing, and no reference-count traffic:
    /// the `Arc` moves into the ticket and back into the cache on release), else from the lock
    /// map. An object taken from the cache may since have been evicted; the caller finds
    /// `IS_DESTROYED` and asks again, and the cache no longer has it.
    #[inline]
    fn find_lock(&mut self, key: &MdlKey) -> Arc<LockObject> {
        if !self.cache.is_empty() {
            let i = key.murmur3() as usize & (self.cache.len() - 1);
            if self.cache[i].as_ref().is_some_and(|l| l.key == *key) {
                if let Some(lock) = self.cache[i].take() {
                    return lock;
                }
            }
        }
        self.mgr.map.find_or_insert(key, &self.mgr.env)
    }

    /// Keeps a lock object this context stopped using for the next statement on the same key
    /// (singletons too: moving their `Arc` in and out of the cache spares every statement an
    /// increment and a decrement of a reference count that all contexts share).
    #[inline]
    fn cache_lock(&mut self, lock: Arc<LockObject>) {
        let i = lock.key.murmur3() as usize & self.cache.len().wrapping_sub(1);
        if let Some(slot) = self.cache.get_mut(i) {
            *slot = Some(lock);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Tickets.

    /// Publishes a shared-word ticket's `metadata_locks` row (feature `pfs`, instrument
    /// enabled): its counter names no owner. Every other lock is read from the queues and the
    /// slots (see `instrument.rs`).
    #[inline]
    fn publish(&self, slot: u32) {
        #[cfg(feature = "pfs")]
        {
            let t = self.store.data(slot);
            if t.hold == Hold::Counter {
                crate::instrument::publish(
                    &self.shared,
                    slot,
                    crate::instrument::RowInfo {
                        lock: &t.lock,
                        id: ticket_id(self.id, slot),
                        ty: t.ty,
                        duration: t.duration,
                    },
                );
            }
        }
        #[cfg(not(feature = "pfs"))]
        let _ = slot;
    }

    /// Withdraws a shared-word ticket's `metadata_locks` row, if one was published.
    #[inline]
    fn unpublish(&self, slot: u32) {
        #[cfg(feature = "pfs")]
        crate::instrument::unpublish(&self.shared, slot);
        #[cfg(not(feature = "pfs"))]
        let _ = slot;
    }

    #[inline]
    fn insert(&mut self, t: TicketData) -> Ticket {
        let (slot, generation) = self.store.insert(t);
        self.publish(slot);
        Ticket {
            ctx: self.id,
            slot,
            generation,
        }
    }

    fn handle(&self, slot: u32) -> Ticket {
        Ticket {
            ctx: self.id,
            slot,
            generation: self.store.generation(slot),
        }
    }

    #[inline]
    fn check(&self, t: Ticket) -> Result<u32> {
        if t.ctx == self.id && self.store.check(t.slot, t.generation) {
            Ok(t.slot)
        } else {
            Err(MdlError::InvalidTicket)
        }
    }

    fn move_to(&mut self, slot: u32, duration: LockDuration, oldest: bool) {
        self.store.move_to(slot, duration, oldest);
        let t = self.store.data(slot);
        t.lock.set_duration(&self.mgr.env, t.hold, duration);
        self.publish(slot);
    }

    /// A new ticket of `ty` (equal or weaker) and `duration` on the lock of `slot`.
    fn clone_slot(&mut self, slot: u32, ty: LockType, duration: LockDuration) -> Result<Ticket> {
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
        let hold = lock.add_clone(&self.mgr.env, &request, source, self.home.as_mut());
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
    fn swap_hold(&mut self, slot: u32, new_slot: u32) {
        self.unpublish(new_slot);
        let new = self.store.remove(new_slot);
        let old = self.store.replace_hold(slot, new);
        // The ticket keeps its duration: record it where the new hold is.
        let t = self.store.data(slot);
        t.lock.set_duration(&self.mgr.env, t.hold, t.duration);
        self.publish(slot);
        self.release_hold(old);
    }

    #[inline]
    fn release_slot(&mut self, slot: u32) {
        self.unpublish(slot);
        let t = self.store.remove(slot);
        self.release_hold(t);
    }

    /// Releases every ticket of duration `d` taken at or after sequence number `newer_than`,
    /// newest first as MySQL does (each release reschedules waiters, and with
    /// `max_write_lock_count` the order of the grants matters). Every statement ends here: no
    /// allocation.
    fn release_list(&mut self, d: LockDuration, newer_than: u64) {
        while let Some(s) = self.store.newest_of(d, newer_than) {
            self.release_slot(s);
        }
    }

    fn release_newer_than(&mut self, seq: u64, explicit_too: bool) {
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
    #[inline]
    fn release_hold(&mut self, t: TicketData) {
        let lock = &t.lock;
        let unused = lock.release(&self.mgr.env, t.hold, t.ty);
        if unused && !lock.singleton {
            self.mgr.map.object_unused(&mut self.rand);
        }
        if t.hton_notified {
            self.post_release_notify(&lock.key);
        }
        self.cache_lock(t.lock);
    }
}

impl Drop for MdlContext {
    fn drop(&mut self) {
        let slots = self.store.all_slots();
        for s in slots {
            self.release_slot(s);
        }
        self.mgr.env.registry.unregister(&self.shared);
    }
}

impl fmt::Debug for MdlContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MdlContext")
            .field("id", &self.id)
            .field("tickets", &self.store.len())
            .finish()
    }
}

/// A ticket's id, as `metadata_locks` and the queues show it: the context id and the ticket's
/// slot in its store, so unique among live tickets.
fn ticket_id(ctx: u64, slot: u32) -> u64 {
    (ctx << 32) | u64::from(slot)
}
