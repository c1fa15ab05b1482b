//! `MdlContext`: the per-connection API (MySQL's `MDL_context`).
//!
//! A context is owned by one thread or task at a time (it is `Send`, not `Sync`; every method
//! takes `&mut self`). Its tickets live in its own [`TicketStore`]; the part other threads need
//! to reach — the wait slot, the kill flag, the owner hooks — is its [`ContextShared`]. Asking a
//! lock object for a lock is one call ([`LockObject::acquire`]); around it:
//!
//! * this module: the public API, each method a few lines over the ones below;
//! * `tickets.rs`: ticket bookkeeping (handles, clones, upgrade's hold swap, releases, engine
//!   notifications, the cache of lock objects);
//! * `attempt.rs`: the fast path and the general attempt;
//! * `waiting.rs`: a queued request's wait (edge, deadlock search, periodic work, withdrawal),
//!   shared by the blocking and the async API;
//! * `asynchronous.rs`: the futures ([`Acquire`]) and their cancel safety;
//! * `scope.rs`: statement and transaction guards;
//! * `guard.rs`: owned locks ([`LockGuard`]), released by whoever drops them;
//! * `control.rs`: creating contexts (with a chosen id) and killing them from anywhere.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{MdlError, Result};
use crate::fast_path::FastPath;
use crate::fast_path::SlotHome;
use crate::key::MdlKey;
use crate::lock::LockObject;
use crate::manager::MdlManager;
use crate::matrix::{is_stronger_or_equal, UNOBTRUSIVE};
use crate::request::{MdlRequest, MdlSavepoint, Ticket, TicketInfo};
use crate::shared::ContextShared;
use crate::sync::Ordering;
use crate::ticket_store::TicketStore;
use crate::types::{ContextId, LockDuration, LockType};

mod asynchronous;
mod attempt;
mod control;
mod guard;
mod scope;
mod tickets;
mod waiting;

pub use asynchronous::Acquire;
pub use control::{ContextBuilder, KillHandle};
pub use guard::LockGuard;
pub use scope::{StatementScope, TransactionScope};

use attempt::{Attempt, Pending};
use waiting::Wait;

/// A connection's lock context (MySQL's `MDL_context`).
///
/// Dropping a context releases every lock it holds and wakes whoever waited for them.
pub struct MdlContext {
    mgr: Arc<MdlManager>,
    /// `shared.serial`, kept here for the hot path (tickets name their context by it).
    id: u64,
    shared: Arc<ContextShared>,
    store: TicketStore,
    /// [`FastPath::PerContext`]: where this context claims slots.
    home: Option<SlotHome>,
    /// Per strategy, the types this context may take on the fast path ([`fast_types`]): whether
    /// a request tries the fast path is this one bit test, made in `attempt.rs`.
    fast_types: [u16; 2],
    /// Recently used lock objects, direct-mapped by key hash (see
    /// [`crate::MdlConfig::lock_cache`]).
    cache: Vec<Option<Arc<LockObject>>>,
    rand: u64,
    /// The timeout of [`MdlContext::acquire_default`] (MySQL's session `lock_wait_timeout`).
    lock_wait_timeout: Duration,
    /// The wait of this context's queued [`Acquire`] future, if one is queued.
    async_wait: Option<asynchronous::Waiting>,
    /// Guards made so far ([`MdlContext::into_guard`]), numbering their ticket ids.
    guards_made: u32,
    /// The session thread this context's waits are recorded on
    /// (`MdlContext::bind_pfs_thread`; zero-sized without `pfs`).
    session: crate::telemetry::Session,
    /// Feature `metrics`: the tickets created since the last publication (`publish.rs`).
    #[cfg(feature = "metrics")]
    counted: crate::publish::LocalCounts,
}

impl MdlContext {
    fn new(mgr: Arc<MdlManager>, shared: Arc<ContextShared>) -> MdlContext {
        let mode = mgr.env.mode;
        let store = TicketStore::new(mgr.config.ticket_index);
        let rand = shared.serial.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let lock_cache = mgr.config.lock_cache;
        let cache = vec![None; lock_cache.next_power_of_two() * usize::from(lock_cache > 0)];
        let home = match (mgr.env.mode, shared.tag) {
            (FastPath::PerContext, Some(tag)) => mgr.env.slots.home(tag),
            _ => None,
        };
        let lock_wait_timeout = mgr.config.lock_wait_timeout;
        MdlContext {
            mgr,
            id: shared.serial,
            shared,
            store,
            home,
            fast_types: fast_types(mode, false),
            cache,
            rand,
            lock_wait_timeout,
            async_wait: None,
            guards_made: 0,
            session: crate::telemetry::Session::default(),
            #[cfg(feature = "metrics")]
            counted: crate::publish::LocalCounts::new(),
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

    /// [`MdlContext::acquire`] with this context's lock wait timeout
    /// ([`MdlContext::lock_wait_timeout`]).
    ///
    /// # Errors
    /// As [`MdlContext::acquire`].
    #[inline]
    pub fn acquire_default(&mut self, req: &MdlRequest) -> Result<Ticket> {
        self.acquire(req, self.lock_wait_timeout)
    }

    /// The timeout of [`MdlContext::acquire_default`] and
    /// [`MdlContext::acquire_default_async`] (MySQL's session variable `lock_wait_timeout`).
    /// Starts as [`MdlConfig::lock_wait_timeout`](crate::MdlConfig::lock_wait_timeout).
    pub fn lock_wait_timeout(&self) -> Duration {
        self.lock_wait_timeout
    }

    /// Sets this context's lock wait timeout (`SET SESSION lock_wait_timeout`).
    pub fn set_lock_wait_timeout(&mut self, timeout: Duration) {
        self.lock_wait_timeout = timeout;
    }

    #[inline(never)]
    fn acquire_general(&mut self, req: &MdlRequest, timeout: Duration) -> Result<Ticket> {
        // A zero timeout never queues (a try): `Pending` cannot come back.
        match self.attempt(req, !timeout.is_zero())? {
            Attempt::Granted(t) => Ok(t),
            Attempt::NotGranted(lock) => Err(self.refused(req, lock)),
            Attempt::Pending(p) => {
                // The clock is read only when a wait is needed: the attempt took nanoseconds.
                let start = Instant::now();
                self.wait_for_grant(Wait::new(
                    p,
                    &req.key,
                    req.duration,
                    start,
                    start.checked_add(timeout),
                    true,
                ))
            }
        }
    }

    /// Takes several locks, all or nothing, and returns their tickets in the order of `reqs`.
    /// The requests are taken in MySQL's order (by key, and for the same key the stronger type
    /// first), which avoids deadlocks between contexts that lock the same set.
    ///
    /// # Errors
    /// The first error of [`MdlContext::acquire`]; every lock taken by this call is then released
    /// (including EXPLICIT ones).
    pub fn acquire_many(&mut self, reqs: &[MdlRequest], timeout: Duration) -> Result<Vec<Ticket>> {
        let start = self.store.next_seq();
        let mut tickets = vec![None; reqs.len()];
        for i in acquisition_order(reqs) {
            match self.acquire(&reqs[i], timeout) {
                Ok(t) => tickets[i] = Some(t),
                Err(e) => {
                    self.release_newer_than(start, true);
                    return Err(e);
                }
            }
        }
        Ok(tickets.into_iter().flatten().collect())
    }

    /// Upgrades a held lock to a stronger type (for example SU to X), waiting up to `timeout`.
    /// The ticket keeps its handle and duration. Asking for a type the ticket already satisfies
    /// does nothing.
    ///
    /// # Errors
    /// As [`MdlContext::acquire`]; on error the original lock is left intact.
    pub fn upgrade(&mut self, ticket: Ticket, new_type: LockType, timeout: Duration) -> Result<()> {
        let Some((slot, req, start)) = self.begin_upgrade(ticket, new_type)? else {
            return Ok(());
        };
        let got = self.acquire(&req, timeout)?;
        self.finish_upgrade(slot, got, start, new_type)
    }

    /// Checks an upgrade: `None` if the ticket already satisfies `new_type`, else its slot, the
    /// request to acquire, and the sequence number before it (to tell a new ticket from an old
    /// one that covers the request).
    fn begin_upgrade(
        &mut self,
        ticket: Ticket,
        new_type: LockType,
    ) -> Result<Option<(u32, MdlRequest, u64)>> {
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
            return Ok(None);
        }
        let req = MdlRequest::new(key, new_type, LockDuration::Transaction);
        Ok(Some((slot, req, self.store.next_seq())))
    }

    /// Gives the upgraded ticket (`slot`) the stronger lock `got`, and releases its old one.
    fn finish_upgrade(
        &mut self,
        slot: u32,
        got: Ticket,
        start: u64,
        new_type: LockType,
    ) -> Result<()> {
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
    // Inlined, as the fast path of `acquire` is: a statement's release is a handful of
    // instructions, and a call frame would be a large share of them.
    #[inline(always)]
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

    /// Releases every STATEMENT lock (end of statement), and clears a query kill
    /// ([`KillScope::Query`](crate::KillScope::Query)): the killed statement is over.
    pub fn release_statement_locks(&mut self) {
        self.release_list(LockDuration::Statement, 0);
        self.shared.killed.clear_query();
        #[cfg(feature = "metrics")]
        self.counted.publish_if_asked(&self.mgr, &self.shared);
    }

    /// Releases every STATEMENT and TRANSACTION lock (COMMIT / ROLLBACK), and clears a query
    /// kill as [`MdlContext::release_statement_locks`] does.
    pub fn release_transactional_locks(&mut self) {
        // MySQL releases the STATEMENT list, then the TRANSACTION list, newest first; a single
        // lock has no order to keep, and an autocommit statement's commit finds one (callgrind,
        // sysbench's prepared point select in `mdl-server`: `mdl-core` 353 -> 225 instructions).
        match self.store.sole_transactional() {
            Some(slot) => self.release_slot(slot),
            None => {
                self.release_list(LockDuration::Statement, 0);
                self.release_list(LockDuration::Transaction, 0);
            }
        }
        self.shared.killed.clear_query();
        #[cfg(feature = "metrics")]
        self.counted.publish_if_asked(&self.mgr, &self.shared);
    }

    /// A savepoint: [`MdlContext::rollback_to_savepoint`] releases the STATEMENT and TRANSACTION
    /// locks taken after it.
    pub fn savepoint(&self) -> MdlSavepoint {
        MdlSavepoint {
            ctx: self.shared.serial,
            seq: self.store.next_seq(),
        }
    }

    /// Releases the STATEMENT and TRANSACTION locks taken after `sp` (EXPLICIT locks stay).
    ///
    /// # Errors
    /// [`MdlError::InvalidSavepoint`] for a savepoint of another context.
    pub fn rollback_to_savepoint(&mut self, sp: MdlSavepoint) -> Result<()> {
        if sp.ctx != self.shared.serial {
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
        if sp.ctx != self.shared.serial {
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

    /// Whether this context holds any lock: a ticket, or a lock through a live [`LockGuard`].
    pub fn has_locks(&self) -> bool {
        !self.store.is_empty() || self.guard_count() != 0
    }

    /// Number of locks this context holds: its tickets, in all durations, and its live
    /// [`LockGuard`]s ([`MdlContext::guard_count`]).
    pub fn lock_count(&self) -> usize {
        self.store.len() + self.guard_count()
    }

    /// Number of this context's live [`LockGuard`]s, wherever they are: made by
    /// [`MdlContext::into_guard`] (or `acquire_guard`), not yet dropped or attached back, even
    /// if another thread holds them. A guard counts until its drop has released its lock.
    pub fn guard_count(&self) -> usize {
        self.shared.guard_count()
    }

    /// Number of tickets held with `duration` (a guard's lock is not counted: the guard, not
    /// a duration, decides when it is released).
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

    /// Lets this context's requests through a closed grant gate
    /// ([`MdlManager::close_grants`](crate::MdlManager::close_grants)): for the contexts that
    /// re-establish what the gate protects (a cluster's stand-in locks, a recovery), while
    /// everyone else is refused. Its locks are not counted by
    /// [`MdlManager::granted_behind_gate`](crate::MdlManager::granted_behind_gate).
    pub fn set_gate_exempt(&mut self, exempt: bool) {
        self.shared.gate_exempt.store(exempt, Ordering::Relaxed);
    }

    /// Makes this context's waits weigh as DML in deadlock resolution, whatever they request
    /// (MySQL uses it for replication appliers).
    pub fn set_force_dml_deadlock_weight(&mut self, force: bool) {
        self.shared.force_dml_weight.store(force, Ordering::Relaxed);
    }

    /// Takes every lock on the slow path, visible to [`MdlOwner::notify_shared_lock`](crate::MdlOwner::notify_shared_lock) of
    /// exclusive requesters (MySQL sets it for connections with open HANDLERs).
    pub fn set_needs_thr_lock_abort(&mut self, needs: bool) {
        self.shared
            .needs_thr_lock_abort
            .store(needs, Ordering::Relaxed);
        self.fast_types = fast_types(self.mgr.env.mode, needs);
        if needs {
            self.materialize_fast_path_locks();
        }
    }
}

impl Drop for MdlContext {
    fn drop(&mut self) {
        self.cancel_async_wait();
        let slots = self.store.all_slots();
        for s in slots {
            self.release_slot(s);
        }
        #[cfg(feature = "metrics")]
        self.counted.publish(&self.mgr, &self.shared);
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

/// The order [`MdlContext::acquire_many`] takes `reqs` in (indices): by key in MySQL's order,
/// and for the same key the stronger type first.
pub(crate) fn acquisition_order(reqs: &[MdlRequest]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..reqs.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&reqs[a], &reqs[b]);
        a.key.mysql_cmp(&b.key).then(b.lock_type.cmp(&a.lock_type))
    });
    order
}

/// The types a context may take on the fast path, per strategy (the one eligibility rule, as
/// PostgreSQL's `EligibleForRelationFastPath`): the unobtrusive ones when the manager has a fast
/// path and the context did not ask for every lock on the slow path
/// ([`MdlContext::set_needs_thr_lock_abort`]); none otherwise.
fn fast_types(mode: FastPath, needs_thr_lock_abort: bool) -> [u16; 2] {
    if mode.is_on() && !needs_thr_lock_abort {
        UNOBTRUSIVE
    } else {
        [0; 2]
    }
}
