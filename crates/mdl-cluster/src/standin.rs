//! A stand-in: the local lock a node takes on behalf of another node's travelling request.
//!
//! The session task (`session.rs`) starts one per intent, in revision order, and waits until
//! its request is *queued* (or granted) before it looks at the next intent, so every node
//! queues travelling requests on an object in etcd's order. The stand-in waits for its lock
//! like any local request (statements of this node that hold the object block it; it blocks
//! later statements), is exempt from the grant gate (it re-establishes what the gate protects),
//! and once granted writes its acknowledgement under the node's lease, in a transaction that
//! writes it only while the intent exists (so no ack outlives its intent by being written
//! late). It holds the lock until the intent is deleted or the session ends, then releases it.
//! The requester's release deletes the acknowledgements with the intent, in one revision; when
//! the session saw this node's ack deleted there, the stand-in writes nothing more, and
//! otherwise (the requester's lease expired, the session ended) it deletes its ack itself.
//!
//! # One context per requester
//!
//! The stand-ins for one requester (a node's context) wait and hold their locks in one local
//! context, as the requester holds its own in one context on its node: its locks do not
//! conflict with each other here either. An ALTER takes SU and then X on its table; with a
//! context per stand-in, the X stand-in would wait here for the SU stand-in, which is released
//! only after the X is granted, and the ALTER would time out. Each stand-in's lock is an owned
//! guard ([`mdl_core::LockGuard`]): it waits in the shared context (a mutex serializes the
//! waits of one requester's stand-ins, of which there is rarely more than one) and is released
//! on its own, without the context. The context lives while a stand-in of the requester does.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::task::Poll;
use std::time::Duration;

use etcd_client::{Compare, CompareOp, PutOptions, Txn, TxnOp};
use mdl_core::{LockDuration, MdlContext, MdlRequest, LONG_TIMEOUT};
use tokio::sync::oneshot;

use crate::keys::{Intent, Party};
use crate::node::{lock, Inner, StandInOf, Turn};

/// This node's context for one requester's stand-ins ([`Inner::stand_in_contexts`]).
pub(crate) struct StandInContext {
    id: u64,
    ctx: tokio::sync::Mutex<MdlContext>,
}

/// A stand-in's hold on its requester's context: counts the stand-in, and forgets the context
/// when the requester's last stand-in here ends.
struct Registered<'a> {
    inner: &'a Inner,
    party: Party,
    shared: Arc<StandInContext>,
}

impl Registered<'_> {
    /// Takes (or makes) the context of `party`'s stand-ins.
    fn new(inner: &Inner, party: Party) -> Option<Registered<'_>> {
        let mut contexts = lock(&inner.stand_in_contexts);
        let shared = match contexts.get(&party).and_then(Weak::upgrade) {
            Some(s) => s,
            None => {
                let id = inner.next_stand_in.fetch_add(1, Ordering::Relaxed);
                let mut ctx = inner.mgr.new_context_with_id(id).ok()?;
                ctx.set_gate_exempt(true);
                let s = Arc::new(StandInContext {
                    id,
                    ctx: tokio::sync::Mutex::new(ctx),
                });
                contexts.insert(party.clone(), Arc::downgrade(&s));
                s
            }
        };
        inner.counters.stand_ins.fetch_add(1, Ordering::Relaxed);
        Some(Registered {
            inner,
            party,
            shared,
        })
    }
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.inner
            .counters
            .stand_ins
            .fetch_sub(1, Ordering::Relaxed);
        // Under the map's lock, where the context is handed out: nobody takes it meanwhile.
        let mut contexts = lock(&self.inner.stand_in_contexts);
        if Arc::strong_count(&self.shared) == 1 {
            contexts.remove(&self.party);
            lock(&self.inner.stand_ins).remove(&self.shared.id);
        }
    }
}

/// The stand-in's task. `queued` is answered once the local request is queued or decided;
/// `release` fires when the stand-in must go: a message if its ack was deleted with the
/// intent, the sender dropped otherwise.
pub(crate) async fn run(
    inner: Arc<Inner>,
    rev: i64,
    id: String,
    intent: Intent,
    lease: i64,
    mut turn: Turn,
    mut release: oneshot::Receiver<()>,
) {
    let (Ok(key), Ok(ty)) = (intent.key.to_key(), intent.lock_type()) else {
        return;
    };
    let party = Party {
        node: intent.node,
        context: intent.context,
    };
    let Some(registered) = Registered::new(&inner, party.clone()) else {
        return;
    };
    let label = match &intent.label {
        Some(l) => format!(
            "stand-in for node {} context {} ({l}), etcd revision {rev}",
            intent.node, intent.context
        ),
        None => format!(
            "stand-in for node {} context {}, etcd revision {rev}",
            intent.node, intent.context
        ),
    };
    let req = MdlRequest::new(key, ty, LockDuration::Explicit);
    let mut queued = turn.queued.take();
    if !turn.after.is_empty() {
        // Its place is fixed by the chain: the session task may go on.
        if let Some(q) = queued.take() {
            let _ = q.send(());
        }
        tokio::select! {
            _ = turn.wait_for_previous() => {}
            _ = &mut release => return,
        }
    }
    let held = loop {
        let outcome = {
            let mut ctx = tokio::select! {
                c = registered.shared.ctx.lock() => c,
                _ = &mut release => return,
            };
            // The context shows the stand-in that waits (its revision picks the victim of a
            // deadlock across nodes, `waits.rs`).
            ctx.set_label(label.as_str());
            lock(&inner.stand_ins).insert(
                registered.shared.id,
                StandInOf {
                    party: party.clone(),
                    rev,
                    label: intent.label.clone(),
                },
            );
            let mut fut = pin!(ctx.acquire_guard_async(&req, LONG_TIMEOUT));
            let first = std::future::poll_fn(|cx| Poll::Ready(fut.as_mut().poll(cx))).await;
            if let Some(q) = queued.take() {
                let _ = q.send(());
            }
            match first {
                Poll::Ready(r) => r,
                Poll::Pending => tokio::select! {
                    r = &mut fut => r,
                    _ = &mut release => return,
                },
            }
        };
        match outcome {
            Ok(guard) => {
                let _ = turn.granted.send(true);
                break guard;
            }
            // Killed by hand or a local deadlock victim: the requester still needs this
            // node's lock; ask again (behind whatever is queued now).
            Err(_) => tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(50)) => {}
                _ = &mut release => return,
            },
        }
    };
    let ack = inner.layout.ack(&id, inner.me());
    // Only while the intent (this very one: its creation revision) exists, so an ack is never
    // written after its intent is gone, and the requester's release, which deletes the intent
    // and its acks in one transaction, leaves none behind.
    let write_ack = Txn::new()
        .when([Compare::create_revision(
            inner.layout.intent(&id),
            CompareOp::Equal,
            rev,
        )])
        .and_then([TxnOp::put(
            ack.clone(),
            "",
            Some(PutOptions::new().with_lease(lease)),
        )]);
    // Whether the ack may have been written (an attempt that failed may have been applied).
    let mut written = false;
    let deleted_with_intent = loop {
        let mut c = inner.client();
        let txn = c.txn(write_ack.clone());
        tokio::select! {
            r = tokio::time::timeout(inner.cfg.request_timeout, txn) => match r {
                Ok(Ok(answer)) => {
                    written |= answer.succeeded();
                    break (&mut release).await.is_ok();
                }
                _ => {
                    written = true;
                    inner.etcd_failed();
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            r = &mut release => {
                written = true;
                break r.is_ok();
            }
        }
    };
    drop(held);
    drop(registered);
    if written && !deleted_with_intent {
        // The intent went another way (its requester's lease expired, or this session
        // ended): the ack, if written, is this node's to delete.
        let delete = Txn::new().and_then([TxnOp::delete(ack, None)]);
        inner.commit_while_leased(delete, lease).await;
    }
}
