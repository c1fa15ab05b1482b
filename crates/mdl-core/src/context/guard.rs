//! Owned locks: a [`LockGuard`] holds one lock apart from its context's tickets and releases it
//! when dropped, from whichever thread or task drops it.
//!
//! A [`Ticket`] is a handle into its context's ticket store, so releasing it needs `&mut` the
//! context. A guard needs no context: it owns its lock the way tokio's owned guards own theirs.
//! Detaching a ticket ([`MdlContext::into_guard`]) takes it out of the store and makes its lock
//! an entry of the lock object's granted queue, named by the context's shared part:
//!
//! * a fast-path hold cannot stay one, because a per-context slot is found through its context's
//!   tag, which a new context may reuse once this one ends, and a shared-word counter names no
//!   owner at all. In the queue the lock keeps its owner for the deadlock detector, the
//!   diagnostics and `metadata_locks`, however long the guard lives;
//! * releasing a queue entry is the lock object's own operation (its write lock, a reschedule of
//!   the waiters), which any thread may perform, as a cancelled wait already does.
//!
//! So a statement can hold several guards, move them between tasks, and keep them across
//! `.await` points while the context takes other locks. Nothing that releases by duration
//! (statement or transaction end, savepoints, dropping the context) touches a guard's lock; a
//! guard may outlive its context. [`MdlContext::attach`] turns a guard back into a ticket (to
//! upgrade it, for instance).
//!
//! A guard's lock is still its context's lock: the context counts its live guards
//! ([`MdlContext::guard_count`], in [`MdlContext::has_locks`]), which is how a wait of the
//! context knows that someone may be waiting for it and searches for a deadlock. The count
//! lives in the shared part, so a guard dropped on any thread, even after its context ended,
//! lowers it. Diagnostics name a guard's lock by its context's id, so an ended context's id
//! stays taken until its last guard is dropped (`shared.rs`).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::MdlContext;
use crate::error::Result;
use crate::key::MdlKey;
use crate::lock::{Hold, LockObject, Request};
use crate::manager::MdlManager;
use crate::request::{guard_ticket_id, MdlRequest, Ticket};
use crate::shared::ContextShared;
use crate::ticket_store::TicketData;
use crate::types::{ContextId, LockDuration, LockType};

/// One lock, owned: released when dropped (or by [`LockGuard::release`]), by whoever drops it.
/// Holds no borrow of its context; `Send` and `Sync`. See [`MdlContext::into_guard`].
///
/// A guard may outlive its context. Its lock keeps the context's id in diagnostics, and that id
/// stays taken ([`MdlManager::new_context_with_id`] refuses it) until the context's last guard
/// is dropped; [`MdlManager::kill`] no longer finds it once the context has ended: whoever
/// holds the guard releases the lock.
#[must_use = "the lock is released when the guard drops"]
pub struct LockGuard {
    mgr: Arc<MdlManager>,
    ctx: Arc<ContextShared>,
    lock: Arc<LockObject>,
    /// The lock's entry in the object's granted queue.
    entry: usize,
    ty: LockType,
    duration: LockDuration,
    /// The owner's storage-engine hook was told of this exclusive lock.
    hton_notified: bool,
    /// Given back to the context ([`MdlContext::attach`]): the drop releases nothing.
    attached: bool,
}

impl LockGuard {
    /// The locked name.
    pub fn key(&self) -> &MdlKey {
        &self.lock.key
    }

    /// The held type.
    pub fn lock_type(&self) -> LockType {
        self.ty
    }

    /// The duration the lock was requested with (shown in `metadata_locks`; a guard's lock
    /// is released by the guard, whatever its duration).
    pub fn duration(&self) -> LockDuration {
        self.duration
    }

    /// The context that took the lock.
    pub fn context_id(&self) -> ContextId {
        ContextId(self.ctx.id)
    }

    /// Releases the lock now (the same as dropping the guard).
    pub fn release(self) {}
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        if !self.attached {
            let unused = self
                .lock
                .remove_entry(self.entry, self.mgr.env.max_write_lock_count);
            if unused && !self.lock.singleton {
                let mut rand = self.ctx.serial.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                self.mgr.map.object_unused(&mut rand);
            }
        }
        // After the release (while the count includes this guard, its context counts the
        // lock), before the owner's hook, which may panic.
        self.mgr.env.registry.guard_dropped(&self.ctx);
        if !self.attached && self.hton_notified {
            if let Some(owner) = &self.ctx.owner {
                owner.notify_hton_post_release_exclusive(&self.lock.key);
            }
        }
    }
}

impl fmt::Debug for LockGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LockGuard")
            .field("key", &self.lock.key)
            .field("lock_type", &self.ty)
            .field("duration", &self.duration)
            .field("context", &self.ctx.id)
            .finish()
    }
}

impl MdlContext {
    /// Detaches a granted lock from this context into an owned [`LockGuard`]: the ticket becomes
    /// invalid, and the lock is released when the guard drops, by whichever thread or task drops
    /// it. A lock held on a fast path moves into its lock object's queue first (see the module
    /// docs), so a guard costs what a slow-path lock costs.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mdl_core::*;
    ///
    /// let mgr = MdlManager::new(MdlConfig::default())?;
    /// let mut ctx = mgr.new_context();
    /// let t1 = MdlKey::new(Namespace::Table, "test", "t1")?;
    /// let t2 = MdlKey::new(Namespace::Table, "test", "t2")?;
    /// let sr = |k: &MdlKey| MdlRequest::new(k.clone(), LockType::SharedRead, LockDuration::Statement);
    /// // Two guards at once: neither borrows the context.
    /// let g1 = ctx.acquire_guard(&sr(&t1), Duration::from_secs(1))?;
    /// let g2 = ctx.acquire_guard(&sr(&t2), Duration::from_secs(1))?;
    /// ctx.release_statement_locks();            // a guard's lock is not the statement's
    /// let mut ddl = mgr.new_context();
    /// let x = MdlRequest::new(t1, LockType::Exclusive, LockDuration::Transaction);
    /// assert!(ddl.try_acquire(&x)?.is_none());
    /// std::thread::spawn(move || drop(g1)).join().unwrap(); // released by another thread
    /// assert!(ddl.try_acquire(&x)?.is_some());
    /// drop(g2);
    /// # Ok::<(), MdlError>(())
    /// ```
    ///
    /// # Errors
    /// [`MdlError::InvalidTicket`](crate::MdlError::InvalidTicket) for a ticket of another context or one already released.
    pub fn into_guard(&mut self, ticket: Ticket) -> Result<LockGuard> {
        let slot = self.check(ticket)?;
        let (hold, ty, duration) = {
            let t = self.store.data(slot);
            (t.hold, t.ty, t.duration)
        };
        if hold == Hold::Counter {
            self.unpublish(slot);
        }
        self.guards_made = self.guards_made.wrapping_add(1);
        let request = Request {
            ctx: &self.shared,
            ty,
            duration,
            ticket_id: guard_ticket_id(self.id, self.guards_made),
        };
        let entry = self
            .store
            .data(slot)
            .lock
            .detach(&self.mgr.env, &request, hold);
        let t = self.store.remove(slot);
        self.shared.guard_made();
        Ok(LockGuard {
            mgr: self.mgr.clone(),
            ctx: self.shared.clone(),
            lock: t.lock,
            entry,
            ty,
            duration,
            hton_notified: t.hton_notified,
            attached: false,
        })
    }

    /// [`MdlContext::acquire`], detached into a [`LockGuard`] ([`MdlContext::into_guard`]).
    ///
    /// # Errors
    /// As [`MdlContext::acquire`]. If the context already held a ticket that satisfies the
    /// request with the same duration, that ticket is detached.
    pub fn acquire_guard(&mut self, req: &MdlRequest, timeout: Duration) -> Result<LockGuard> {
        let t = self.acquire(req, timeout)?;
        self.into_guard(t)
    }

    /// [`MdlContext::acquire_async`], detached into a [`LockGuard`]. Cancel safe, as
    /// [`MdlContext::acquire_async`] is.
    ///
    /// # Errors
    /// As [`MdlContext::acquire_guard`].
    pub async fn acquire_guard_async(
        &mut self,
        req: &MdlRequest,
        timeout: Duration,
    ) -> Result<LockGuard> {
        let t = self.acquire_async(req, timeout).await?;
        self.into_guard(t)
    }

    /// Gives a guard's lock back to this context as a ticket of the guard's duration (the
    /// newest ticket, for savepoints), for instance to upgrade it.
    ///
    /// # Errors
    /// The guard back, unchanged, if it belongs to another context.
    pub fn attach(&mut self, mut guard: LockGuard) -> std::result::Result<Ticket, LockGuard> {
        if guard.ctx.serial != self.shared.serial {
            return Err(guard);
        }
        // The ticket owns the lock from here: the guard's drop must not release it.
        guard.attached = true;
        Ok(self.insert(TicketData {
            lock: guard.lock.clone(),
            hold: Hold::entry(guard.entry),
            ty: guard.ty,
            duration: guard.duration,
            hton_notified: guard.hton_notified,
        }))
    }
}
