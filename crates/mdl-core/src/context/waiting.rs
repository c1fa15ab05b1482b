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
use crate::deadlock::{DeadlockSearch, Edge};
use crate::error::{DeadlockError, MdlError, Result, WaitError};
use crate::fast_path::FastPath;
use crate::key::MdlKey;
use crate::lock::{Hold, LockObject};
use crate::manager::MdlManager;
use crate::matrix::waiting_incompatible;
use crate::owner::HolderInfo;
use crate::request::Ticket;
use crate::shared::ContextShared;
use crate::sync::Ordering;
use crate::telemetry::{WaitSite, WaitTelemetry};
use crate::ticket_store::TicketData;
use crate::types::{ContextId, LockDuration, LockType, Namespace, Strategy};
use crate::wait::WaitEnd;

/// A queued request being waited for, by a thread or a future.
pub(super) struct Wait {
    pub(super) p: Pending,
    pub(super) key: MdlKey,
    pub(super) duration: LockDuration,
    pub(super) since: Instant,
    pub(super) deadline: Option<Instant>,
    /// Work to do about once a second while waiting.
    pub(super) needs_notification: bool,
    pub(super) connection_check: bool,
    pub(super) delayed_detection: bool,
    /// A blocked thread's wait, not a future's.
    pub(super) blocking: bool,
    /// Its pfs event and tracing span (`telemetry.rs`), from `begin_wait` to its end.
    pub(super) telemetry: WaitTelemetry,
}

impl Wait {
    /// The wait of queued request `p` for `key`, started at `since`, by a blocked thread
    /// (`blocking`) or a future; [`MdlContext::begin_wait`] finds out what periodic work it
    /// has.
    pub(super) fn new(
        p: Pending,
        key: &MdlKey,
        duration: LockDuration,
        since: Instant,
        deadline: Option<Instant>,
        blocking: bool,
    ) -> Wait {
        Wait {
            p,
            key: key.clone(),
            duration,
            since,
            deadline,
            needs_notification: false,
            connection_check: false,
            delayed_detection: false,
            blocking,
            telemetry: WaitTelemetry::default(),
        }
    }

    pub(super) fn has_periodic_work(&self) -> bool {
        self.needs_notification || self.connection_check || self.delayed_detection
    }
}

/// How often an owner is notified and a connection checked while waiting (MySQL: 1 s).
pub(super) const TICK: Duration = Duration::from_secs(1);

impl MdlContext {
    /// A thread's wait: sleeps on the wait slot, in one-second slices while there is periodic
    /// work, until the outcome is decided or the deadline passes.
    pub(super) fn wait_for_grant(&mut self, mut w: Wait) -> Result<Ticket> {
        // If an owner hook panics from here on, the guard takes the request off the queue.
        let mut guard = PendingGuard {
            mgr: self.mgr.clone(),
            shared: self.shared.clone(),
            lock: w.p.lock.clone(),
            entry: w.p.entry,
            epoch: w.p.epoch,
            ns: w.key.namespace(),
            ty: w.p.ty,
            armed: true,
        };
        self.begin_wait(&mut w);
        let deadline = w.deadline;
        let shared = self.shared.clone();
        let killed = &shared.killed;
        let mut status = None;
        while w.has_periodic_work() {
            let slice_end = Instant::now() + TICK;
            if deadline.is_some_and(|d| slice_end > d) {
                break;
            }
            status = shared.wait.timed_wait(Some(slice_end), killed, false);
            if status.is_some() {
                break;
            }
            status = self.periodic(&mut w);
            if status.is_some() {
                break;
            }
        }
        if status.is_none() {
            status = shared.wait.timed_wait(deadline, killed, true);
        }
        guard.armed = false;
        self.end_wait(w, status)
    }

    /// Starts waiting for a queued request: its telemetry (the pfs event, the tracing span), the
    /// owner's first notifications, the wait-for edge, a deadlock search from this context (or
    /// a delayed one).
    pub(super) fn begin_wait(&mut self, w: &mut Wait) {
        w.telemetry = WaitTelemetry::begin(WaitSite {
            lock: &w.p.lock,
            ty: w.p.ty,
            duration: w.duration,
            context: self.shared.id,
            serial: self.shared.serial,
            session: &self.session,
            blocking: w.blocking,
        });
        #[cfg(feature = "metrics")]
        self.counted.publish_if_asked(&self.mgr, &self.shared);
        let (p, ns) = (&w.p, w.key.namespace());
        self.session.note_wait(&self.shared.rows);
        let needs_notification = ns.strategy() == Strategy::Object && p.ty == LockType::Exclusive;
        if needs_notification {
            self.notify_conflicting_holders(&p.lock);
        }
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
            duration: w.duration,
            epoch: p.epoch,
            since: w.since,
        });
        let owner = self.shared.owner.as_ref();
        let skip_detection = ns == Namespace::AclCache
            && p.ty == LockType::Shared
            && owner.is_some_and(|o| !o.might_have_commit_order_waiters());
        w.needs_notification = needs_notification;
        w.connection_check = ns.needs_connection_check() && owner.is_some();
        w.delayed_detection = skip_detection && self.has_locks();
        let search = match self.mgr.config.deadlock_search {
            DeadlockSearch::EveryWait => true,
            DeadlockSearch::WhenWaitedFor => self.may_close_cycle(&w.p),
        };
        if !skip_detection && search {
            self.mgr.graph.find_deadlock(&self.shared);
        }
    }

    /// Whether a deadlock search from this context, which has just published its edge, could
    /// find a cycle ([`DeadlockSearch::WhenWaitedFor`]): only if another request already waits
    /// for it, on a lock it holds or behind its pending request. A request that queues later
    /// sees this context's edge in its own search. The edge is published before the queues are
    /// read here, so no waiter falls between the two. A context holding many tickets searches
    /// without checking them, and so does one holding a [`crate::LockGuard`]: a guard's lock is
    /// not in the ticket store, and the lock objects' queues do not say whose they are without
    /// their locks.
    fn may_close_cycle(&self, p: &Pending) -> bool {
        const CHECKED_TICKETS: usize = 16;
        if self.store.len() > CHECKED_TICKETS || self.guard_count() != 0 {
            return true;
        }
        {
            let st = p.lock.state.read_recursive();
            let mut pending = st.waiting_bitmap;
            while pending != 0 {
                let t = LockType::ALL[pending.trailing_zeros() as usize];
                pending &= pending - 1;
                if waiting_incompatible(p.lock.strategy, st.matrix_idx, t) & p.ty.bit() != 0 {
                    return true;
                }
            }
        }
        self.store
            .iter()
            .any(|t| t.lock.state.read_recursive().waiting_bitmap != 0)
    }

    /// The once-a-second work of a wait: a disconnected owner ends it (killed); holders of S
    /// or SH are notified again; a delayed deadlock search runs. Returns the wait's status.
    pub(super) fn periodic(&mut self, w: &mut Wait) -> Option<WaitEnd> {
        let wait = &self.shared.wait;
        if w.connection_check && !self.shared.owner.as_ref().is_some_and(|o| o.is_connected()) {
            wait.set(w.p.epoch, WaitEnd::Killed);
            return wait.status();
        }
        if w.needs_notification {
            self.notify_conflicting_holders(&w.p.lock);
        }
        if w.delayed_detection {
            w.delayed_detection = false;
            self.mgr.graph.find_deadlock(&self.shared);
        }
        wait.status()
    }

    /// Ends a wait with its outcome: the edge goes (and is counted); granted, the ticket;
    /// otherwise the request leaves the queue and the error says why.
    pub(super) fn end_wait(&mut self, w: Wait, status: Option<WaitEnd>) -> Result<Ticket> {
        let end = status.unwrap_or(WaitEnd::Timeout);
        let Wait {
            p,
            key,
            duration,
            since,
            telemetry,
            ..
        } = w;
        let waited = since.elapsed();
        telemetry.end(end, waited);
        self.mgr
            .graph
            .remove(self.shared.serial, key.namespace(), p.ty, end, Some(waited));
        if end == WaitEnd::Granted {
            return Ok(self.insert(TicketData {
                lock: p.lock,
                hold: Hold::entry(p.entry),
                ty: p.ty,
                duration,
                hton_notified: p.hton_notified,
            }));
        }
        let err = if end == WaitEnd::Deadlock {
            let d = match self.shared.take_deadlock(p.epoch) {
                Some(r) => DeadlockError::from_record(&r, &key, p.ty),
                None => DeadlockError::from_record(
                    &DeadlockRecord {
                        id: 0,
                        at: std::time::SystemTime::now(),
                        victim: self.id(),
                        cause: DeadlockCause::Cycle,
                        cycle: Vec::new(),
                    },
                    &key,
                    p.ty,
                ),
            };
            MdlError::Deadlock(Box::new(d))
        } else {
            let mut e = WaitError::new(&key, p.ty, duration);
            e.waited = since.elapsed();
            e.blockers = {
                let st = p.lock.state.read_recursive();
                p.lock.blockers(&st, self.id, p.ty)
            };
            if end == WaitEnd::Killed {
                MdlError::killed(e)
            } else {
                MdlError::timeout(e)
            }
        };
        self.withdraw(p);
        Err(err)
    }

    /// A wait given up before its outcome (its future was dropped): the request leaves the
    /// queue — even if it was granted meanwhile — and the waiters it held back are rescheduled.
    pub(super) fn cancel_wait(&mut self, w: Wait) {
        let waited = w.since.elapsed();
        w.telemetry.end(WaitEnd::Cancelled, waited);
        let (ns, ty) = (w.key.namespace(), w.p.ty);
        self.mgr
            .graph
            .remove(self.shared.serial, ns, ty, WaitEnd::Cancelled, Some(waited));
        self.withdraw(w.p);
    }

    /// Takes a queued request that will not become a ticket back off its lock (a failed wait,
    /// or a try that was queued), undoing the engine notification.
    pub(super) fn withdraw(&mut self, p: Pending) {
        // Whether or not it was granted meanwhile, the entry goes (a failed wait already has
        // its outcome, so this `set` changes nothing there).
        self.shared.wait.set(p.epoch, WaitEnd::Timeout);
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
                    e.ctx.serial != self.shared.serial
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
    ty: LockType,
    armed: bool,
}

impl Drop for PendingGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        self.shared.wait.set(self.epoch, WaitEnd::Killed);
        self.mgr
            .graph
            .remove(self.shared.serial, self.ns, self.ty, WaitEnd::Killed, None);
        if self
            .lock
            .remove_entry(self.entry, self.mgr.env.max_write_lock_count)
            && !self.lock.singleton
        {
            let mut rand = self.shared.serial | 1;
            self.mgr.map.object_unused(&mut rand);
        }
    }
}
