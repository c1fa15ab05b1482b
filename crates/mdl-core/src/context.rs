//! `MdlContext`: the per-connection API (MySQL's `MDL_context`).
//!
//! A context is owned by one thread (it is `Send`, not `Sync`; every method takes `&mut self`).
//! Its tickets live in its own [`TicketStore`]; the part other threads need to reach — the wait
//! slot, the kill flag, what it is waiting for, the owner hooks — is in [`ContextShared`], behind
//! an `Arc` that lock-object entries and the deadlock detector hold.
//!
//! `waiting_for` is written by the owning thread only (under its write lock) and read by deadlock
//! searches (`read_recursive`). The kill flag is written by any thread through a [`KillHandle`].

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::deadlock::{visit_context, Visitor};
use crate::error::{MdlError, Result};
use crate::key::MdlKey;
use crate::lock::{Destroyed, FastAcquire, LockObject};
use crate::matrix::{
    deadlock_weight, fast_path_increment, is_stronger_or_equal, DEADLOCK_WEIGHT_DML,
};
use crate::sync::{new_rwlock, AtomicBool, Ordering, RwLock, Site};
use crate::ticket_store::{TicketData, TicketStore};
use crate::types::{LockDuration, LockType, Namespace, Strategy};
use crate::wait::{WaitSlot, WaitStatus};
#[cfg(doc)]
use crate::MdlConfig;
use crate::MdlManager;

/// Identifies a context within its manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContextId(pub(crate) u64);

impl ContextId {
    /// The numeric id (unique within the process, starting at 1).
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

impl fmt::Display for ContextId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A storage engine's refusal of an exclusive lock
/// ([`MdlOwner::notify_hton_pre_acquire_exclusive`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineRefusal {
    /// Report the refusal as a deadlock ([`MdlError::Deadlock`]) instead of
    /// [`MdlError::RefusedByEngine`].
    pub victimized: bool,
}

/// A holder of a shared lock that blocks an exclusive request ([`MdlOwner::notify_shared_lock`]).
pub struct HolderInfo<'a> {
    /// The holder's context.
    pub context: ContextId,
    /// The holder's owner, if it has one.
    pub owner: Option<&'a dyn MdlOwner>,
    /// Whether the holder asked to have its table-level lock waits aborted
    /// ([`MdlContext::set_needs_thr_lock_abort`]).
    pub needs_thr_lock_abort: bool,
    /// The type the holder holds (S or SH).
    pub lock_type: LockType,
}

/// Hooks into the server that owns a context (MySQL's `MDL_context_owner`). Every method has a
/// default that does nothing, so an owner implements only what it needs.
///
/// Hooks are called without any lock-manager lock held, from the thread using the context.
pub trait MdlOwner: Send + Sync {
    /// An exclusive request of this context waits for `holder`'s S or SH lock (for instance an
    /// open HANDLER). Called when the request starts waiting and then about once a second.
    fn notify_shared_lock(&self, holder: &HolderInfo<'_>) {
        let _ = holder;
    }

    /// Called before an X lock in a namespace with storage-engine notification (TABLE, SCHEMA,
    /// ...) is requested; refusing makes the request fail.
    fn notify_hton_pre_acquire_exclusive(&self, key: &MdlKey) -> Result<(), EngineRefusal> {
        let _ = key;
        Ok(())
    }

    /// Called after an X lock that was pre-notified is released, downgraded or not granted.
    fn notify_hton_post_release_exclusive(&self, key: &MdlKey) {
        let _ = key;
    }

    /// Checked about once a second while waiting in USER_LEVEL_LOCK, LOCKING_SERVICE and
    /// ACL_CACHE; a disconnected owner's wait ends with [`MdlError::Killed`].
    fn is_connected(&self) -> bool {
        true
    }

    /// When false, an S request on ACL_CACHE skips (or delays) deadlock detection, as MySQL does.
    fn might_have_commit_order_waiters(&self) -> bool {
        true
    }
}

/// A lock request: what to lock, how, and for how long.
#[derive(Debug, Clone)]
pub struct MdlRequest {
    /// The name to lock.
    pub key: MdlKey,
    /// The requested type.
    pub lock_type: LockType,
    /// How long the lock is held.
    pub duration: LockDuration,
    /// Set by [`MdlContext::acquire_many`] to the ticket that satisfies the request.
    pub ticket: Option<Ticket>,
}

impl MdlRequest {
    /// A request for `lock_type` on `key` for `duration`.
    pub fn new(key: MdlKey, lock_type: LockType, duration: LockDuration) -> MdlRequest {
        MdlRequest {
            key,
            lock_type,
            duration,
            ticket: None,
        }
    }
}

/// A handle to a granted lock. It is a small `Copy` value, valid only in the context that
/// created it and only until the lock is released; using it elsewhere or later gives
/// [`MdlError::InvalidTicket`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ticket {
    ctx: u64,
    slot: u32,
    generation: u32,
}

/// What a ticket holds ([`MdlContext::ticket_info`]).
#[derive(Debug, Clone)]
pub struct TicketInfo {
    /// The locked name.
    pub key: MdlKey,
    /// The held type.
    pub lock_type: LockType,
    /// The ticket's duration.
    pub duration: LockDuration,
    /// Whether the lock is held on the fast path (as a counter in the lock object).
    pub fast_path: bool,
}

/// A point to roll statement and transaction locks back to ([`MdlContext::savepoint`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MdlSavepoint {
    ctx: u64,
    seq: u64,
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
        self.shared.killed.load(Ordering::Acquire)
    }

    /// The context this handle kills.
    pub fn context_id(&self) -> ContextId {
        ContextId(self.shared.id)
    }
}

/// What a waiting context waits for (its outgoing edge in the wait-for graph).
pub(crate) struct WaitingFor {
    pub(crate) lock: Arc<LockObject>,
    pub(crate) entry: usize,
    pub(crate) ty: LockType,
    pub(crate) epoch: u64,
}

/// The part of a context that other threads reach.
pub(crate) struct ContextShared {
    pub(crate) id: u64,
    pub(crate) wait: WaitSlot,
    pub(crate) killed: AtomicBool,
    pub(crate) waiting_for: RwLock<Option<WaitingFor>>,
    pub(crate) force_dml_weight: AtomicBool,
    pub(crate) needs_thr_lock_abort: AtomicBool,
    pub(crate) owner: Option<Arc<dyn MdlOwner>>,
    /// This context's rows of `metadata_locks` (see `instrument.rs`).
    #[cfg(feature = "pfs")]
    pub(crate) published: std::sync::OnceLock<crate::instrument::Published>,
    #[cfg(feature = "pfs")]
    pub(crate) published_lost: crate::sync::AtomicU64,
    /// `wait/lock/metadata/sql/mdl`, kept here so the hot path needs no lookup.
    #[cfg(feature = "pfs")]
    pub(crate) metadata_class: pfs::ClassRef,
}

impl ContextShared {
    pub(crate) fn new(id: u64, owner: Option<Arc<dyn MdlOwner>>) -> ContextShared {
        ContextShared {
            id,
            wait: WaitSlot::new(),
            killed: AtomicBool::new(false),
            waiting_for: new_rwlock(Site::WaitingFor, None),
            force_dml_weight: AtomicBool::new(false),
            needs_thr_lock_abort: AtomicBool::new(false),
            owner,
            #[cfg(feature = "pfs")]
            published: std::sync::OnceLock::new(),
            #[cfg(feature = "pfs")]
            published_lost: crate::sync::AtomicU64::new(0),
            #[cfg(feature = "pfs")]
            metadata_class: crate::instrument::classes().metadata,
        }
    }

    pub(crate) fn deadlock_weight(&self, ns: Namespace, ty: LockType) -> u32 {
        if self.force_dml_weight.load(Ordering::Relaxed) {
            DEADLOCK_WEIGHT_DML
        } else {
            deadlock_weight(ns, ty)
        }
    }
}

/// The outcome of one grant attempt.
enum Attempt {
    Granted(Ticket),
    NotGranted,
    Pending(Pending),
}

/// A request queued on a lock object, not yet granted.
struct Pending {
    lock: Arc<LockObject>,
    entry: usize,
    epoch: u64,
    ty: LockType,
    id: u64,
    hton_notified: bool,
}

/// A connection's lock context (MySQL's `MDL_context`).
///
/// Dropping a context releases every lock it holds and wakes whoever waited for them.
pub struct MdlContext {
    mgr: Arc<MdlManager>,
    shared: Arc<ContextShared>,
    store: TicketStore,
    /// Recently used lock objects, direct-mapped by key hash (see [`MdlConfig::lock_cache`]).
    cache: Vec<Option<Arc<LockObject>>>,
    next_ticket: u64,
    rand: u64,
}

impl MdlContext {
    pub(crate) fn new(mgr: Arc<MdlManager>, shared: Arc<ContextShared>) -> MdlContext {
        let store = TicketStore::new(mgr.config().ticket_index);
        let rand = shared.id.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let cache = vec![
            None;
            mgr.config().lock_cache.next_power_of_two()
                * usize::from(mgr.config().lock_cache > 0)
        ];
        MdlContext {
            mgr,
            shared,
            store,
            cache,
            next_ticket: 0,
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
        match self.attempt(req, false)? {
            Attempt::Granted(t) => Ok(Some(t)),
            Attempt::NotGranted => Ok(None),
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
    pub fn acquire(&mut self, req: &MdlRequest, timeout: Duration) -> Result<Ticket> {
        if timeout.is_zero() {
            return self.try_acquire(req)?.ok_or(MdlError::Timeout);
        }
        match self.attempt(req, true)? {
            Attempt::Granted(t) => Ok(t),
            Attempt::NotGranted => Err(MdlError::Timeout),
            Attempt::Pending(p) => {
                // The clock is read only when a wait is needed: the attempt took nanoseconds.
                let deadline = Instant::now().checked_add(timeout);
                self.wait_for_grant(&req.key, req.duration, p, deadline)
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
        if self.store.data(new_slot).seq() < start {
            // An older, stronger ticket already covered the request: take our own copy of it.
            let id = self.store.data(slot).id;
            new_slot = self
                .clone_slot(new_slot, new_type, LockDuration::Transaction, id)?
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
        let (ns, held, duration, id) = {
            let t = self.store.data(slot);
            (t.lock.key.namespace(), t.ty, t.duration, t.id)
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
        let new = self.clone_slot(slot, new_type, duration, id)?;
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
        let id = self.new_ticket_id();
        self.clone_slot(slot, lock_type, duration, id)
    }

    /// Releases one lock, of any duration.
    ///
    /// # Errors
    /// [`MdlError::InvalidTicket`] for a ticket of another context or one already released.
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
            .iter(LockDuration::Explicit)
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
        Ok(t.duration == LockDuration::Explicit || t.seq() < sp.seq)
    }

    /// Changes a ticket's duration (MySQL allows TRANSACTION to another; any change is allowed
    /// here). The ticket counts as newest for savepoints.
    ///
    /// # Errors
    /// [`MdlError::InvalidTicket`].
    pub fn set_lock_duration(&mut self, ticket: Ticket, duration: LockDuration) -> Result<()> {
        let slot = self.check(ticket)?;
        self.store.move_to(slot, duration, false);
        self.publish(slot);
        Ok(())
    }

    /// Makes every lock EXPLICIT (LOCK TABLES).
    pub fn set_explicit_duration_for_all_locks(&mut self) {
        for d in [LockDuration::Transaction, LockDuration::Statement] {
            let slots: Vec<u32> = self.store.iter(d).collect();
            for s in slots.into_iter().rev() {
                self.store.move_to(s, LockDuration::Explicit, false);
                self.publish(s);
            }
        }
    }

    /// Makes every EXPLICIT lock a TRANSACTION lock (UNLOCK TABLES); they count as older than
    /// every savepoint.
    pub fn set_transaction_duration_for_all_locks(&mut self) {
        let slots: Vec<u32> = self.store.iter(LockDuration::Explicit).collect();
        for s in slots {
            self.store.move_to(s, LockDuration::Transaction, true);
            self.publish(s);
        }
    }

    /// Whether this context holds a lock on `key` that satisfies `lock_type`.
    pub fn owns_equal_or_stronger_lock(&self, key: &MdlKey, lock_type: LockType) -> bool {
        self.store
            .find(key, lock_type, LockDuration::Transaction)
            .is_some()
    }

    /// Whether this context holds any lock.
    pub fn has_locks(&self) -> bool {
        self.store.len() > 0
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
            fast_path: t.fast_path,
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
        if needs {
            self.materialize_fast_path_locks();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Acquisition.

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
        if let Some(slot) = self.store.find(key, ty, req.duration) {
            if self.store.data(slot).duration == req.duration
                && req.duration != LockDuration::Explicit
            {
                return Ok(Attempt::Granted(self.handle(slot)));
            }
            let id = self.new_ticket_id();
            return self
                .clone_slot(slot, ty, req.duration, id)
                .map(Attempt::Granted);
        }
        let strategy = ns.strategy();
        let inc = fast_path_increment(strategy, ty);
        let obtrusive = inc == 0;
        let force_slow = obtrusive
            || !self.mgr.config().fast_path.is_on()
            || self.shared.needs_thr_lock_abort.load(Ordering::Relaxed);
        if obtrusive {
            self.materialize_fast_path_locks();
        }
        let hton_notified = self.pre_acquire_notify(key, ty)?;
        let id = self.new_ticket_id();
        loop {
            let lock = self.find_lock(key);
            if !force_slow {
                match lock.fast_acquire(inc) {
                    FastAcquire::Granted { first_use } => {
                        if first_use && !lock.singleton {
                            self.mgr.map.object_used();
                        }
                        let mut t = TicketData::new(lock, ty, req.duration);
                        t.fast_path = true;
                        t.id = id;
                        return Ok(Attempt::Granted(self.insert(t)));
                    }
                    FastAcquire::Destroyed => continue,
                    FastAcquire::SlowPath => {}
                }
            }
            let mut st = lock.state.write();
            match lock.begin_slow_path(&mut st, obtrusive) {
                Err(Destroyed) => continue,
                Ok(first_use) => {
                    if first_use && !lock.singleton {
                        self.mgr.map.object_used();
                    }
                }
            }
            let max_wlc = self.mgr.config().max_write_lock_count;
            if lock.can_grant(&st, ty, self.shared.id) {
                let entry = st.add_granted(self.shared.clone(), ty, id);
                if lock.count_piglets_and_hogs(&mut st, ty, max_wlc) {
                    lock.reschedule_waiters(&mut st, max_wlc);
                }
                drop(st);
                let mut t = TicketData::new(lock, ty, req.duration);
                t.entry = entry;
                t.hton_notified = hton_notified;
                t.id = id;
                return Ok(Attempt::Granted(self.insert(t)));
            }
            if !enqueue {
                let unused = lock.abandon_slow_path(&mut st, obtrusive);
                drop(st);
                if unused && !lock.singleton {
                    self.mgr.map.object_unused(&mut self.rand);
                }
                if hton_notified {
                    self.post_release_notify(&lock.key);
                }
                self.cache_lock(lock);
                return Ok(Attempt::NotGranted);
            }
            let epoch = self.shared.wait.reset();
            let entry = st.add_waiting(self.shared.clone(), ty, epoch, id);
            drop(st);
            return Ok(Attempt::Pending(Pending {
                lock,
                entry,
                epoch,
                ty,
                id,
                hton_notified,
            }));
        }
    }

    fn wait_for_grant(
        &mut self,
        key: &MdlKey,
        duration: LockDuration,
        p: Pending,
        deadline: Option<Instant>,
    ) -> Result<Ticket> {
        // If an owner hook panics from here on, the guard takes the request off the queue.
        let guard = PendingGuard {
            mgr: self.mgr.clone(),
            shared: self.shared.clone(),
            lock: p.lock.clone(),
            entry: p.entry,
            epoch: p.epoch,
            armed: true,
        };
        let ns = key.namespace();
        let needs_notification = ns.strategy() == Strategy::Object && p.ty == LockType::Exclusive;
        if needs_notification {
            self.notify_conflicting_holders(&p.lock);
        }
        #[cfg(feature = "pfs")]
        let pfs_wait = {
            crate::instrument::publish(
                &self.shared,
                None,
                crate::instrument::RowInfo {
                    lock: &p.lock,
                    id: p.id,
                    ty: p.ty,
                    duration,
                    status: crate::instrument::RowStatus::Pending,
                },
            );
            crate::instrument::metadata_wait_start(&p.lock)
        };
        // Make every lock we hold visible to the deadlock detector, then publish our edge.
        self.materialize_fast_path_locks();
        *self.shared.waiting_for.write() = Some(WaitingFor {
            lock: p.lock.clone(),
            entry: p.entry,
            ty: p.ty,
            epoch: p.epoch,
        });
        let owner = self.shared.owner.clone();
        let mut delayed_detection = false;
        let skip_detection = ns == Namespace::AclCache
            && p.ty == LockType::Shared
            && owner
                .as_ref()
                .is_some_and(|o| !o.might_have_commit_order_waiters());
        if skip_detection {
            delayed_detection = self.store.len() > 0;
        } else {
            self.find_deadlock();
        }
        let connection_check = ns.needs_connection_check() && owner.is_some();
        let killed = &self.shared.killed;
        let wait = &self.shared.wait;
        let mut status = WaitStatus::Empty;
        if needs_notification || connection_check || delayed_detection {
            loop {
                let slice_end = Instant::now() + Duration::from_secs(1);
                if deadline.is_some_and(|d| slice_end > d) {
                    break;
                }
                status = wait.timed_wait(Some(slice_end), killed, false);
                if status != WaitStatus::Empty {
                    break;
                }
                if connection_check && !owner.as_ref().is_some_and(|o| o.is_connected()) {
                    wait.set(p.epoch, WaitStatus::Killed);
                    status = wait.status();
                    break;
                }
                if needs_notification {
                    self.notify_conflicting_holders(&p.lock);
                }
                if delayed_detection {
                    delayed_detection = false;
                    self.find_deadlock();
                }
            }
        }
        if status == WaitStatus::Empty {
            status = self
                .shared
                .wait
                .timed_wait(deadline, &self.shared.killed, true);
        }
        *self.shared.waiting_for.write() = None;
        #[cfg(feature = "pfs")]
        drop(pfs_wait);
        self.unpublish(None);
        let mut guard = guard;
        guard.armed = false;
        if status == WaitStatus::Granted {
            let mut t = TicketData::new(p.lock, p.ty, duration);
            t.entry = p.entry;
            t.hton_notified = p.hton_notified;
            t.id = p.id;
            return Ok(self.insert(t));
        }
        self.withdraw(p);
        Err(match status {
            WaitStatus::Victim => MdlError::Deadlock,
            WaitStatus::Killed => MdlError::Killed,
            _ => MdlError::Timeout,
        })
    }

    /// Takes a queued request that will not become a ticket back off its lock (a failed wait,
    /// or a try that was queued), undoing the engine notification.
    fn withdraw(&mut self, p: Pending) {
        // Whether or not it was granted meanwhile, the entry goes (a failed wait already has
        // its outcome, so this `set` changes nothing there).
        self.shared.wait.set(p.epoch, WaitStatus::Timeout);
        if p.lock
            .remove_entry(p.entry, self.mgr.config().max_write_lock_count)
            && !p.lock.singleton
        {
            self.mgr.map.object_unused(&mut self.rand);
        }
        if p.hton_notified {
            self.post_release_notify(&p.lock.key);
        }
    }

    /// Runs deadlock searches from this context until none finds a cycle or this context is the
    /// victim.
    fn find_deadlock(&self) {
        // One search at a time: two contexts that start waiting on the same cycle at once would
        // otherwise each find it and each pick itself, breaking one deadlock with two victims.
        let _one_search = self.mgr.deadlock_search.lock();
        loop {
            let mut v = Visitor::new(self.shared.id);
            if !visit_context(&self.shared, &mut v) {
                return;
            }
            let Some(victim) = v.victim else { return };
            victim.ctx.wait.set(victim.epoch, WaitStatus::Victim);
            if victim.ctx.id == self.shared.id {
                return;
            }
        }
    }

    fn notify_conflicting_holders(&self, lock: &LockObject) {
        let Some(owner) = &self.shared.owner else {
            return;
        };
        let holders: Vec<(Arc<ContextShared>, LockType)> = {
            let st = lock.state.read_recursive();
            st.granted()
                .filter(|e| {
                    e.ctx.id != self.shared.id
                        && matches!(e.ty, LockType::Shared | LockType::SharedHighPrio)
                })
                .map(|e| (e.ctx.clone(), e.ty))
                .collect()
        };
        for (h, ty) in holders {
            owner.notify_shared_lock(&HolderInfo {
                context: ContextId(h.id),
                owner: h.owner.as_deref(),
                needs_thr_lock_abort: h.needs_thr_lock_abort.load(Ordering::Relaxed),
                lock_type: ty,
            });
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
            Err(r) if r.victimized => Err(MdlError::Deadlock),
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
        if self.store.fast_path_count == 0 {
            return;
        }
        let slots: Vec<u32> = self
            .store
            .all_slots()
            .filter(|&s| self.store.data(s).fast_path)
            .collect();
        for s in slots {
            let t = self.store.data(s);
            let entry = t.lock.materialize(&self.shared, t.ty, t.id);
            self.store.clear_fast_path(s, entry);
        }
    }

    /// The lock object for `key`: taken out of this context's small cache of recently released
    /// objects when it is there (no partition mutex, no hashing, and no reference-count traffic:
    /// the `Arc` moves into the ticket and back into the cache on release), else from the lock
    /// map. An object taken from the cache may since have been evicted; the caller finds
    /// `IS_DESTROYED` and asks again, and the cache no longer has it.
    #[inline]
    fn find_lock(&mut self, key: &MdlKey) -> Arc<LockObject> {
        if !self.cache.is_empty() && !key.namespace().is_singleton() {
            let i = key.murmur3() as usize & (self.cache.len() - 1);
            if self.cache[i].as_ref().is_some_and(|l| l.key == *key) {
                if let Some(lock) = self.cache[i].take() {
                    return lock;
                }
            }
        }
        self.mgr.map.find_or_insert(key)
    }

    /// Keeps a lock object this context stopped using for the next statement on the same key.
    #[inline]
    fn cache_lock(&mut self, lock: Arc<LockObject>) {
        if !self.cache.is_empty() && !lock.singleton {
            let i = lock.key.murmur3() as usize & (self.cache.len() - 1);
            self.cache[i] = Some(lock);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Tickets.

    /// Publishes a ticket's `metadata_locks` row (feature `pfs`, instrument enabled).
    #[inline]
    fn publish(&self, slot: u32) {
        #[cfg(feature = "pfs")]
        {
            let t = self.store.data(slot);
            crate::instrument::publish(
                &self.shared,
                Some(slot),
                crate::instrument::RowInfo {
                    lock: &t.lock,
                    id: t.id,
                    ty: t.ty,
                    duration: t.duration,
                    status: crate::instrument::RowStatus::Granted,
                },
            );
        }
        #[cfg(not(feature = "pfs"))]
        let _ = slot;
    }

    /// Withdraws a ticket's (or the pending request's) `metadata_locks` row.
    #[inline]
    fn unpublish(&self, slot: Option<u32>) {
        #[cfg(feature = "pfs")]
        crate::instrument::unpublish(&self.shared, slot);
        #[cfg(not(feature = "pfs"))]
        let _ = slot;
    }

    fn new_ticket_id(&mut self) -> u64 {
        self.next_ticket += 1;
        (self.shared.id << 32) ^ self.next_ticket
    }

    fn insert(&mut self, t: TicketData) -> Ticket {
        let (slot, generation) = self.store.insert(t);
        self.publish(slot);
        Ticket {
            ctx: self.shared.id,
            slot,
            generation,
        }
    }

    fn handle(&self, slot: u32) -> Ticket {
        Ticket {
            ctx: self.shared.id,
            slot,
            generation: self.store.generation(slot),
        }
    }

    fn check(&self, t: Ticket) -> Result<u32> {
        if t.ctx == self.shared.id && self.store.check(t.slot, t.generation) {
            Ok(t.slot)
        } else {
            Err(MdlError::InvalidTicket)
        }
    }

    /// A new ticket of `ty` (equal or weaker) and `duration` on the lock of `slot`.
    fn clone_slot(
        &mut self,
        slot: u32,
        ty: LockType,
        duration: LockDuration,
        id: u64,
    ) -> Result<Ticket> {
        let (lock, held, fast) = {
            let t = self.store.data(slot);
            (t.lock.clone(), t.ty, t.fast_path)
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
        let mut t = TicketData::new(lock.clone(), ty, duration);
        t.id = id;
        t.hton_notified = hton_notified;
        match lock.add_clone(&self.shared, ty, fast, id) {
            Some(entry) => t.entry = entry,
            None => t.fast_path = true,
        }
        Ok(self.insert(t))
    }

    /// Gives `slot` the lock hold of `new_slot` (removing `new_slot`), then releases the hold
    /// `slot` had. Used by upgrade and downgrade so the caller's ticket handle stays valid.
    fn swap_hold(&mut self, slot: u32, new_slot: u32) {
        self.unpublish(Some(new_slot));
        let new = self.store.remove(new_slot);
        let old = self.store.replace_hold(slot, new);
        self.publish(slot);
        self.release_hold(old);
    }

    fn release_slot(&mut self, slot: u32) {
        self.unpublish(Some(slot));
        let t = self.store.remove(slot);
        self.release_hold(t);
    }

    fn release_list(&mut self, d: LockDuration, newer_than: u64) {
        let slots: Vec<u32> = self
            .store
            .iter(d)
            .take_while(|&s| self.store.data(s).seq() >= newer_than)
            .collect();
        for s in slots {
            self.release_slot(s);
        }
    }

    fn release_newer_than(&mut self, seq: u64, explicit_too: bool) {
        self.release_list(LockDuration::Statement, seq);
        self.release_list(LockDuration::Transaction, seq);
        if explicit_too {
            let slots: Vec<u32> = self
                .store
                .iter(LockDuration::Explicit)
                .filter(|&s| self.store.data(s).seq() >= seq)
                .collect();
            for s in slots {
                self.release_slot(s);
            }
        }
    }

    /// Gives up the lock a ticket held (the ticket is already out of the store).
    fn release_hold(&mut self, t: TicketData) {
        let lock = &t.lock;
        let max_wlc = self.mgr.config().max_write_lock_count;
        let unused = if t.fast_path {
            lock.fast_release(fast_path_increment(lock.strategy, t.ty), max_wlc)
        } else {
            lock.remove_entry(t.entry, max_wlc)
        };
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
        let slots: Vec<u32> = self.store.all_slots().collect();
        for s in slots {
            self.release_slot(s);
        }
        self.mgr.unregister_context(self.shared.id);
    }
}

impl fmt::Debug for MdlContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MdlContext")
            .field("id", &self.shared.id)
            .field("tickets", &self.store.len())
            .finish()
    }
}

/// Takes a pending request off its lock if the waiting code unwinds (an owner hook panicked).
struct PendingGuard {
    mgr: Arc<MdlManager>,
    shared: Arc<ContextShared>,
    lock: Arc<LockObject>,
    entry: usize,
    epoch: u64,
    armed: bool,
}

impl Drop for PendingGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        self.shared.wait.set(self.epoch, WaitStatus::Killed);
        *self.shared.waiting_for.write() = None;
        #[cfg(feature = "pfs")]
        crate::instrument::unpublish(&self.shared, None);
        if self
            .lock
            .remove_entry(self.entry, self.mgr.config().max_write_lock_count)
            && !self.lock.singleton
        {
            let mut rand = self.shared.id | 1;
            self.mgr.map.object_unused(&mut rand);
        }
    }
}
