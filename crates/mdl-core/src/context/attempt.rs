//! Asking for a lock: the fast path in few instructions, the general attempt (held already,
//! engine notification, the lock object's grant decision), and the error of a refusal. Uses
//! `tickets.rs` to record what it gets.

use std::sync::Arc;

use super::MdlContext;
use crate::error::{MdlError, Result, WaitError};
use crate::fast_path::FastPath;
use crate::key::MdlKey;
use crate::lock::{FastAcquire, Hold, LockObject, Outcome, Request};
use crate::matrix::{fast_path_increment, is_unobtrusive};
use crate::request::{ticket_id, MdlRequest, Ticket};
use crate::ticket_store::TicketData;
use crate::types::{LockDuration, LockType};

/// The outcome of one grant attempt.
pub(super) enum Attempt {
    Granted(Ticket),
    /// Refused without queueing: the lock object, to name the blockers.
    NotGranted(Arc<LockObject>),
    Pending(Pending),
}

/// A request queued on a lock object, not yet granted.
pub(super) struct Pending {
    pub(super) lock: Arc<LockObject>,
    pub(super) entry: usize,
    pub(super) epoch: u64,
    pub(super) ty: LockType,
    pub(super) hton_notified: bool,
}

impl MdlContext {
    /// The common case in few instructions: an unobtrusive lock whose lock object is in this
    /// context's cache and that the context does not hold yet, granted on the fast path. Any
    /// other case returns `None` having changed nothing, and goes through
    /// [`MdlContext::attempt`].
    #[inline(always)]
    pub(super) fn fast_acquire(&mut self, req: &MdlRequest) -> Option<Ticket> {
        let key = &req.key;
        let ty = req.lock_type;
        if self.fast_types[key.strategy() as usize] & ty.bit() == 0 {
            return None;
        }
        let i = key.murmur3() as usize & self.cache.len().wrapping_sub(1);
        let cached = self.cache.get_mut(i)?;
        if cached.as_ref().is_none_or(|l| l.key != *key) {
            return None;
        }
        let lock = cached.take()?;
        if !self.store.is_empty() && self.store.find(&lock, ty, req.duration).is_some() {
            self.cache[i] = Some(lock);
            return None;
        }
        // `LockObject::fast_acquire`'s choice of design, written out here (a context has a slot
        // home exactly in `PerContext` mode): through that call an acquire and release took 194
        // instructions instead of 191 (callgrind, `acquire_loop`; as a method of the context
        // too).
        let env = &self.mgr.env;
        let fast = match (&mut self.home, env.mode) {
            (Some(home), _) => lock.claim_slot(home, ty, req.duration),
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
            FastAcquire::Moved { entry } => Hold::entry(entry),
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

    pub(super) fn attempt(&mut self, req: &MdlRequest, enqueue: bool) -> Result<Attempt> {
        let key = &req.key;
        let ty = req.lock_type;
        let ns = key.namespace();
        if !ns.allows(ty) {
            return Err(MdlError::InvalidLockType {
                namespace: ns,
                lock_type: ty,
            });
        }
        let obtrusive = !is_unobtrusive(ns.strategy(), ty);
        let mode = self.mgr.env.mode;
        let fast = self.fast_types[ns.strategy() as usize] & ty.bit() != 0;
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
                Outcome::Gated => {
                    if hton {
                        self.post_release_notify(&lock.key);
                    }
                    self.cache_lock(lock);
                    return Err(MdlError::GrantsClosed(Box::new(WaitError::new(
                        key,
                        ty,
                        req.duration,
                    ))));
                }
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

    /// Moves every fast-path lock of this context into its lock's granted queue.
    pub(super) fn materialize_fast_path_locks(&mut self) {
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
    pub(super) fn find_lock(&mut self, key: &MdlKey) -> Arc<LockObject> {
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

    /// The error for a request refused without waiting (a zero timeout, or a try): a timeout
    /// naming what blocked it.
    pub(super) fn refused(&mut self, req: &MdlRequest, lock: Arc<LockObject>) -> MdlError {
        let mut w = WaitError::new(&req.key, req.lock_type, req.duration);
        w.blockers = {
            let st = lock.state.read_recursive();
            lock.blockers(&st, self.id, req.lock_type)
        };
        self.cache_lock(lock);
        MdlError::timeout(w)
    }
}
