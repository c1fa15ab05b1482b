//! Waiting for a queued request: the wait-for edge, deadlock detection, the owner's periodic
//! notifications and connection checks, and taking a request that will not be granted back
//! off its queue.
//!
//! A queued request's outcome is decided by whoever gets to its wait slot first (see
//! `wait.rs`): the thread that frees the lock (granted), a deadlock search (victim), a kill, or
//! the waiter itself (timeout). Whatever the outcome, the waiter removes its edge from the
//! wait-for graph, and unless it was granted, its entry from the queue ([`MdlContext::withdraw`],
//! which also covers a grant that raced with the timeout).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{MdlContext, Pending};
use crate::blocking::{DeadlockCause, DeadlockRecord};
use crate::deadlock::{Edge, WaitEnd};
use crate::error::{DeadlockError, MdlError, Result, WaitError};
use crate::fast_path::FastPath;
use crate::key::MdlKey;
use crate::lock::{Hold, LockObject};
use crate::manager::MdlManager;
use crate::owner::HolderInfo;
use crate::request::Ticket;
use crate::shared::ContextShared;
use crate::sync::Ordering;
use crate::ticket_store::TicketData;
use crate::types::{ContextId, LockDuration, LockType, Namespace, Strategy};
use crate::wait::WaitStatus;

impl MdlContext {
    pub(super) fn wait_for_grant(
        &mut self,
        key: &MdlKey,
        duration: LockDuration,
        p: Pending,
        since: Instant,
        deadline: Option<Instant>,
    ) -> Result<Ticket> {
        let ns = key.namespace();
        // If an owner hook panics from here on, the guard takes the request off the queue.
        let mut guard = PendingGuard {
            mgr: self.mgr.clone(),
            shared: self.shared.clone(),
            lock: p.lock.clone(),
            entry: p.entry,
            epoch: p.epoch,
            ns,
            armed: true,
        };
        let needs_notification = ns.strategy() == Strategy::Object && p.ty == LockType::Exclusive;
        if needs_notification {
            self.notify_conflicting_holders(&p.lock);
        }
        #[cfg(feature = "pfs")]
        let pfs_wait = {
            self.shared
                .pfs_thread
                .store(pfs::current_thread_id(), Ordering::Relaxed);
            crate::instrument::metadata_wait_start(&p.lock)
        };
        if self.mgr.env.mode == FastPath::SharedWord {
            // Counters do not name their owners: make every lock we hold visible to the
            // deadlock detector. (Per-context slots are transferred by strong requesters.)
            self.materialize_fast_path_locks();
        }
        self.mgr.graph.add(Edge {
            waiter: self.shared.clone(),
            lock: p.lock.clone(),
            entry: p.entry,
            ty: p.ty,
            duration,
            epoch: p.epoch,
            since,
        });
        let owner = self.shared.owner.clone();
        let mut delayed_detection = false;
        let skip_detection = ns == Namespace::AclCache
            && p.ty == LockType::Shared
            && owner
                .as_ref()
                .is_some_and(|o| !o.might_have_commit_order_waiters());
        if skip_detection {
            delayed_detection = !self.store.is_empty();
        } else {
            self.mgr.graph.find_deadlock(&self.shared);
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
                    self.mgr.graph.find_deadlock(&self.shared);
                }
            }
        }
        if status == WaitStatus::Empty {
            status = self
                .shared
                .wait
                .timed_wait(deadline, &self.shared.killed, true);
        }
        let end = match status {
            WaitStatus::Granted => WaitEnd::Granted,
            WaitStatus::Victim => WaitEnd::Deadlock,
            WaitStatus::Killed => WaitEnd::Killed,
            _ => WaitEnd::Timeout,
        };
        self.mgr.graph.remove(self.shared.id, ns, end);
        #[cfg(feature = "pfs")]
        drop(pfs_wait);
        guard.armed = false;
        if status == WaitStatus::Granted {
            return Ok(self.insert(TicketData {
                lock: p.lock,
                hold: Hold::Entry(p.entry),
                ty: p.ty,
                duration,
                hton_notified: p.hton_notified,
            }));
        }
        let err = if end == WaitEnd::Deadlock {
            let record = self.shared.take_deadlock(p.epoch);
            let d = match &record {
                Some(r) => DeadlockError::from_record(r, key, p.ty),
                None => DeadlockError::from_record(
                    &DeadlockRecord {
                        id: 0,
                        at: std::time::SystemTime::now(),
                        victim: self.id(),
                        cause: DeadlockCause::Cycle,
                        cycle: Vec::new(),
                    },
                    key,
                    p.ty,
                ),
            };
            MdlError::Deadlock(Box::new(d))
        } else {
            let mut w = WaitError::new(key, p.ty, duration);
            w.waited = since.elapsed();
            w.blockers = {
                let st = p.lock.state.read_recursive();
                p.lock.blockers(&st, self.id, p.ty)
            };
            if end == WaitEnd::Killed {
                MdlError::killed(w)
            } else {
                MdlError::timeout(w)
            }
        };
        self.withdraw(p);
        Err(err)
    }

    /// Takes a queued request that will not become a ticket back off its lock (a failed wait,
    /// or a try that was queued), undoing the engine notification.
    pub(super) fn withdraw(&mut self, p: Pending) {
        // Whether or not it was granted meanwhile, the entry goes (a failed wait already has
        // its outcome, so this `set` changes nothing there).
        self.shared.wait.set(p.epoch, WaitStatus::Timeout);
        if p.lock
            .remove_entry(p.entry, self.mgr.env.max_write_lock_count)
            && !p.lock.singleton
        {
            self.mgr.map.object_unused(&mut self.rand);
        }
        if p.hton_notified {
            self.post_release_notify(&p.lock.key);
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
}

/// Takes a pending request off its lock if the waiting code unwinds (an owner hook panicked).
struct PendingGuard {
    mgr: Arc<MdlManager>,
    shared: Arc<ContextShared>,
    lock: Arc<LockObject>,
    entry: usize,
    epoch: u64,
    ns: Namespace,
    armed: bool,
}

impl Drop for PendingGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        self.shared.wait.set(self.epoch, WaitStatus::Killed);
        self.mgr
            .graph
            .remove(self.shared.id, self.ns, WaitEnd::Killed);
        if self
            .lock
            .remove_entry(self.entry, self.mgr.env.max_write_lock_count)
            && !self.lock.singleton
        {
            let mut rand = self.shared.id | 1;
            self.mgr.map.object_unused(&mut rand);
        }
    }
}
