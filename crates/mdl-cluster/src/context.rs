//! [`ClusterContext`]: a connection's context on one node. Locks that never conflict with one
//! another go straight to the local lock manager; the others *travel*.
//!
//! # A travelling request
//!
//! 1. Register the request (so the session task can hand it its turn), then write the intent
//!    `i/<node>/<seq>` under the node's lease. etcd orders it: its creation revision `R`.
//! 2. Wait for the turn: the session task reaches `R` in the watch, after every intent before
//!    `R` got its stand-in here. Once the earlier travelling requests on the object that it
//!    waits for were granted here (`chain.rs`: all of them, unless it upgrades a lock this
//!    context holds), queue the request in this context, locally, and tell the session task it
//!    is queued (so intents after `R` queue behind it).
//! 3. Wait for the local grant (like any local request: timeouts, kills and local deadlocks
//!    as usual).
//! 4. Wait until every live node other than this one has acknowledged `R` (its stand-in for
//!    `R` was granted there). Nodes that die stop counting when their lease expires.
//! 5. Granted. Releasing the ticket releases the local lock and deletes the intent with its
//!    acknowledgements (in the background); every node then releases its stand-in.
//!
//! A request that fails or is dropped at any step releases what it got (a local grant too) and
//! deletes its intent; if this node cannot reach etcd to delete it, its lease does.
//!
//! Taking a lock again that the context holds already (an equal or stronger type) makes no
//! request: mdl-core answers with the held ticket or, for another duration, a clone of it. A
//! clone shares the intent of the lock that covers it, and an intent is deleted once the last
//! ticket that shares it is released.

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use etcd_client::PutOptions;
use mdl_core::matrix::{is_stronger_or_equal, is_unobtrusive};
use mdl_core::{ContextId, LockDuration, LockType, MdlContext, MdlKey, MdlRequest, Ticket};
use tokio::sync::oneshot;
use tokio::time::{sleep_until, timeout_at, Instant};

use crate::error::{ClusterError, Result};
use crate::keys::{Intent, StoredKey};
use crate::node::{lock, Cancel, Inner, Requester, Running};

/// Whether a request of this type travels (waits for every node) or stays local: the
/// unobtrusive types (S, SH, SR, SW, SWLP on objects, IX on scopes) conflict only with the
/// others, so a local grant of one is safe as long as every other type travels.
pub fn travels(req: &MdlRequest) -> bool {
    !is_unobtrusive(req.key.strategy(), req.lock_type)
}

/// A connection's context on a cluster node ([`ClusterManager::new_context`](crate::ClusterManager::new_context)).
pub struct ClusterContext {
    inner: Arc<Inner>,
    ctx: MdlContext,
    /// Granted travelling locks, by ticket.
    travelling: HashMap<Ticket, Held>,
    /// Keeps the node in the cluster while the context lives (dropped after `Drop` has
    /// deleted the context's intents).
    _running: Arc<Running>,
}

/// A granted travelling lock of a context.
struct Held {
    /// Its intent's id: shared by the clones of the lock (module docs).
    intent: Arc<str>,
    duration: LockDuration,
    key: MdlKey,
    lock_type: LockType,
}

impl Held {
    /// Forgets the ticket; deletes the intent if no other ticket shares it.
    fn forget(self, inner: &Arc<Inner>) {
        if Arc::strong_count(&self.intent) == 1 {
            inner.delete_intent(self.intent.to_string());
        }
    }
}

/// Releases a travelling request's local grant unless the request completes (an error, or the
/// future dropped while it waits for the acknowledgements).
struct LocalGrant<'a> {
    ctx: &'a mut MdlContext,
    ticket: Option<Ticket>,
}

impl LocalGrant<'_> {
    fn keep(mut self) -> Ticket {
        self.ticket.take().expect("kept once")
    }
}

impl Drop for LocalGrant<'_> {
    fn drop(&mut self) {
        if let Some(t) = self.ticket.take() {
            let _ = self.ctx.release(t);
        }
    }
}

/// Deletes the intent of a travelling request that did not complete, and unregisters it.
struct InFlight<'a> {
    inner: &'a Arc<Inner>,
    id: String,
    written: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        lock(&self.inner.requesters).remove(&self.id);
        if self.written {
            self.inner.delete_intent(self.id.clone());
        }
    }
}

impl ClusterContext {
    pub(crate) fn new(inner: Arc<Inner>, running: Arc<Running>, ctx: MdlContext) -> ClusterContext {
        ClusterContext {
            inner,
            ctx,
            travelling: HashMap::new(),
            _running: running,
        }
    }

    /// The context's id on this node.
    pub fn id(&self) -> ContextId {
        self.ctx.id()
    }

    /// The local context (read-only: every lock goes through this type).
    pub fn local(&self) -> &MdlContext {
        &self.ctx
    }

    /// Sets the context's label (shown by every node's who-blocks-whom, with this node's id).
    pub fn set_label(&mut self, label: impl Into<Arc<str>>) {
        self.ctx.set_label(label);
    }

    /// Acquires a lock, blocking the thread. A local type costs what a local lock costs (one
    /// test more); a travelling one waits for the cluster (see the module docs). Call it
    /// outside the node's runtime, or on a multi-threaded runtime's worker.
    ///
    /// # Errors
    /// As [`ClusterContext::acquire_async`].
    #[inline]
    pub fn acquire(&mut self, req: &MdlRequest, timeout: Duration) -> Result<Ticket> {
        if !travels(req) {
            return match self.ctx.acquire(req, timeout) {
                Ok(ticket) => Ok(ticket),
                Err(e) => Err(local_error(e)),
            };
        }
        self.acquire_travelling_blocking(req, timeout)
    }

    /// The travelling path of [`ClusterContext::acquire`], out of line: its future is large,
    /// and a caller's stack frame that held it would cost every local lock a stack probe.
    #[cold]
    #[inline(never)]
    fn acquire_travelling_blocking(
        &mut self,
        req: &MdlRequest,
        timeout: Duration,
    ) -> Result<Ticket> {
        let handle = self.inner.handle.clone();
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::task::block_in_place(|| handle.block_on(self.acquire_travelling(req, timeout)))
        } else {
            handle.block_on(self.acquire_travelling(req, timeout))
        }
    }

    /// Acquires a lock without blocking a thread.
    ///
    /// # Errors
    /// [`ClusterError::Local`] for the local lock manager's errors (bad input, a local timeout,
    /// kill or deadlock); for travelling locks also [`ClusterError::Timeout`] (naming the nodes
    /// and contexts that held it up), [`ClusterError::Deadlock`] (a cycle across nodes, this
    /// request the victim), [`ClusterError::Killed`], [`ClusterError::NotServing`] and
    /// [`ClusterError::Etcd`].
    pub async fn acquire_async(&mut self, req: &MdlRequest, timeout: Duration) -> Result<Ticket> {
        if !travels(req) {
            return Ok(self.ctx.acquire_async(req, timeout).await?);
        }
        self.acquire_travelling(req, timeout).await
    }

    /// The types this context holds on `key`, locally or across the cluster: each type whose
    /// lock it owns, or a stronger one (what conflicts with one of them conflicts with a lock
    /// the context holds).
    fn held_on(&self, key: &MdlKey) -> u16 {
        LockType::ALL
            .into_iter()
            .filter(|&t| self.ctx.owns_equal_or_stronger_lock(key, t))
            .fold(0, |bits, t| bits | t.bit())
    }

    async fn acquire_travelling(&mut self, req: &MdlRequest, timeout: Duration) -> Result<Ticket> {
        if self
            .ctx
            .owns_equal_or_stronger_lock(&req.key, req.lock_type)
        {
            // Held already through the cluster: the local ticket (or a clone) is the answer.
            let ticket = self.ctx.acquire_async(req, timeout).await?;
            self.share_intent(ticket, req);
            return Ok(ticket);
        }
        let deadline = Instant::now() + timeout;
        let inner = self.inner.clone();
        let me = inner.me();
        let (session, lease) = {
            let v = inner.view();
            if !v.serving {
                return Err(ClusterError::NotServing);
            }
            (v.session, v.lease)
        };
        let seq = inner
            .next_seq
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let id = format!("{me}/{seq:016x}");
        let (turn_tx, turn_rx) = oneshot::channel();
        let (cancel_tx, mut cancel_rx) = oneshot::channel();
        let context = self.ctx.id().as_u64();
        lock(&inner.requesters).insert(
            id.clone(),
            Requester {
                context,
                rev: None,
                turn: Some(turn_tx),
                cancel: Some(cancel_tx),
            },
        );
        let mut flight = InFlight {
            inner: &inner,
            id: id.clone(),
            written: false,
        };
        let what = format!("{} on {}", req.lock_type, req.key);
        let intent = Intent {
            node: me,
            context,
            label: self.ctx.label().map(|l| l.to_string()),
            key: StoredKey::from_key(&req.key),
            lock_type: req.lock_type.id(),
            duration: LockDuration::ALL
                .iter()
                .position(|d| *d == req.duration)
                .unwrap_or(0) as u8,
            held: self.held_on(&req.key),
        };
        let value = serde_json::to_string(&intent)
            .map_err(|e| ClusterError::Corrupt(e.to_string().into()))?;
        flight.written = true; // a put that fails may still have been written
        let rev = loop {
            // An etcd member that restarts fails the requests it had: try again (a second put
            // of the same key keeps its creation revision, which is its place in the order).
            // A kill or a fence ends the tries.
            let mut c = inner.client();
            let put = c.put(
                inner.layout.intent(&id),
                value.clone(),
                Some(PutOptions::new().with_lease(lease)),
            );
            let answer = tokio::select! {
                r = timeout_at(deadline, put) => r,
                c = &mut cancel_rx => return Err(cancelled(c, &what)),
            };
            match answer {
                Ok(Ok(r)) => break r.header().map_or(0, |h| h.revision()),
                Ok(Err(e)) if Instant::now() + Duration::from_millis(50) >= deadline => {
                    inner.etcd_failed();
                    return Err(e.into());
                }
                Ok(Err(_)) => {
                    inner.etcd_failed();
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(50)) => {}
                        c = &mut cancel_rx => return Err(cancelled(c, &what)),
                    }
                }
                Err(_) => return Err(timed_out(&inner, &what, context)),
            }
        };
        if let Some(r) = lock(&inner.requesters).get_mut(&id) {
            r.rev = Some(rev);
        }
        // Our turn, in revision order, after the travelling requests on the object that ours
        // waits for (`chain.rs`).
        let mut turn = tokio::select! {
            t = turn_rx => t.map_err(|_| ClusterError::NotServing)?,
            c = &mut cancel_rx => return Err(cancelled(c, &what)),
            _ = sleep_until(deadline) => return Err(timed_out(&inner, &what, context)),
        };
        let mut queued = turn.queued.take();
        if !turn.after.is_empty() {
            if let Some(q) = queued.take() {
                let _ = q.send(());
            }
            tokio::select! {
                _ = turn.wait_for_previous() => {}
                c = &mut cancel_rx => return Err(cancelled(c, &what)),
                _ = sleep_until(deadline) => return Err(timed_out(&inner, &what, context)),
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let ticket = {
            let mut fut = pin!(self.ctx.acquire_async(req, left));
            let first = std::future::poll_fn(|cx| Poll::Ready(fut.as_mut().poll(cx))).await;
            if let Some(q) = queued.take() {
                let _ = q.send(());
            }
            match first {
                Poll::Ready(r) => r?,
                Poll::Pending => tokio::select! {
                    r = &mut fut => r?,
                    c = &mut cancel_rx => return Err(cancelled(c, &what)),
                },
            }
        };
        // Dropped before `flight`: the local lock goes before the intent.
        let grant = LocalGrant {
            ctx: &mut self.ctx,
            ticket: Some(ticket),
        };
        let _ = turn.granted.send(true);
        // Every live node's acknowledgement.
        let mut changed = inner.changed.subscribe();
        loop {
            {
                let v = inner.view();
                if v.session != session || !v.serving {
                    return Err(ClusterError::NotServing);
                }
                if v.acknowledged_by_all(&id, me) {
                    break;
                }
            }
            tokio::select! {
                _ = changed.changed() => {}
                c = &mut cancel_rx => return Err(cancelled(c, &what)),
                _ = sleep_until(deadline) => return Err(timed_out(&inner, &what, context)),
            }
        }
        let ticket = grant.keep();
        flight.written = false;
        drop(flight);
        self.travelling.insert(
            ticket,
            Held {
                intent: id.into(),
                duration: req.duration,
                key: req.key.clone(),
                lock_type: req.lock_type,
            },
        );
        Ok(ticket)
    }

    /// Records a clone of a held travelling lock (the lock taken again with another duration)
    /// as sharing the intent of the held lock that covers it.
    fn share_intent(&mut self, ticket: Ticket, req: &MdlRequest) {
        if self.travelling.contains_key(&ticket) {
            return; // the held ticket itself
        }
        let strategy = req.key.strategy();
        let covering = self.travelling.values().find(|h| {
            h.key == req.key && is_stronger_or_equal(strategy, h.lock_type, req.lock_type)
        });
        if let Some(h) = covering {
            let intent = h.intent.clone();
            self.travelling.insert(
                ticket,
                Held {
                    intent,
                    duration: req.duration,
                    key: req.key.clone(),
                    lock_type: req.lock_type,
                },
            );
        }
    }

    /// Releases one lock (a travelling lock's intent is deleted in the background).
    ///
    /// # Errors
    /// `MdlError::InvalidTicket` (as [`ClusterError::Local`]) for a ticket that is not this
    /// context's.
    #[inline]
    pub fn release(&mut self, ticket: Ticket) -> Result<()> {
        self.ctx.release(ticket)?;
        if !self.travelling.is_empty() {
            if let Some(held) = self.travelling.remove(&ticket) {
                held.forget(&self.inner);
            }
        }
        Ok(())
    }

    /// Releases the locks of STATEMENT duration (the end of a statement).
    #[inline]
    pub fn release_statement_locks(&mut self) {
        self.ctx.release_statement_locks();
        if !self.travelling.is_empty() {
            self.forget(|d| d == LockDuration::Statement);
        }
    }

    /// Releases the locks of STATEMENT and TRANSACTION duration (the end of a transaction).
    #[inline]
    pub fn release_transactional_locks(&mut self) {
        self.ctx.release_transactional_locks();
        if !self.travelling.is_empty() {
            self.forget(|d| d != LockDuration::Explicit);
        }
    }

    fn forget(&mut self, released: impl Fn(LockDuration) -> bool) {
        let gone: Vec<Ticket> = (self.travelling.iter())
            .filter(|(_, h)| released(h.duration))
            .map(|(t, _)| *t)
            .collect();
        for t in gone {
            if let Some(held) = self.travelling.remove(&t) {
                held.forget(&self.inner);
            }
        }
    }

    /// The kill pending on this context, if any (a fence kills every context of its node).
    pub fn pending_kill(&self) -> Option<mdl_core::KillScope> {
        self.ctx.pending_kill()
    }

    /// Clears a connection kill (`KILL`), as a server does when the connection is reused.
    pub fn reset_kill(&mut self) {
        self.ctx.reset_kill();
    }
}

impl Drop for ClusterContext {
    fn drop(&mut self) {
        // The local locks go first, then their intents.
        for (ticket, held) in std::mem::take(&mut self.travelling) {
            let _ = self.ctx.release(ticket);
            held.forget(&self.inner);
        }
        lock(&self.inner.contexts).remove(&self.ctx.id().as_u64());
    }
}

/// A local error as the cluster's, out of line: kept off the statement path, the compiler
/// builds a local grant's ticket where the caller's result goes (no rewrite of the result on
/// every grant; measured with callgrind, BENCHMARKS.md).
#[cold]
#[inline(never)]
fn local_error(e: mdl_core::MdlError) -> ClusterError {
    ClusterError::Local(e)
}

/// The timeout error of a travelling request: the cluster's waits of `context`.
fn timed_out(inner: &Inner, what: &str, context: u64) -> ClusterError {
    let blockers = crate::observe::waits_of(inner, inner.me(), context);
    ClusterError::Timeout(Box::new(crate::error::TimeoutError {
        what: what.to_owned(),
        blockers,
    }))
}

fn cancelled(
    c: std::result::Result<Cancel, oneshot::error::RecvError>,
    what: &str,
) -> ClusterError {
    match c {
        Ok(Cancel::Killed) => ClusterError::Killed(what.into()),
        Ok(Cancel::Deadlock(cycle)) => {
            ClusterError::Deadlock(Box::new(crate::error::DeadlockError {
                what: what.to_owned(),
                cycle,
            }))
        }
        Ok(Cancel::NotServing) | Err(_) => ClusterError::NotServing,
    }
}
