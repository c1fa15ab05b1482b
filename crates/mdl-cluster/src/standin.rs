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

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use etcd_client::{Compare, CompareOp, PutOptions, Txn, TxnOp};
use mdl_core::{LockDuration, MdlRequest, LONG_TIMEOUT};
use tokio::sync::oneshot;

use crate::keys::{Intent, Party};
use crate::node::{lock, Inner, StandInOf, Turn};

/// Decrements the stand-in count and forgets the context when the task ends.
struct Registered<'a> {
    inner: &'a Inner,
    context: u64,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        lock(&self.inner.stand_ins).remove(&self.context);
        self.inner
            .counters
            .stand_ins
            .fetch_sub(1, Ordering::Relaxed);
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
    inner.counters.stand_ins.fetch_add(1, Ordering::Relaxed);
    let context = inner.next_stand_in.fetch_add(1, Ordering::Relaxed);
    let registered = Registered {
        inner: &inner,
        context,
    };
    let (Ok(key), Ok(ty)) = (intent.key.to_key(), intent.lock_type()) else {
        return;
    };
    let Ok(mut ctx) = inner.mgr.new_context_with_id(context) else {
        return;
    };
    ctx.set_gate_exempt(true);
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
    ctx.set_label(label);
    lock(&inner.stand_ins).insert(
        context,
        StandInOf {
            party: Party {
                node: intent.node,
                context: intent.context,
            },
            rev,
            label: intent.label.clone(),
        },
    );
    let req = MdlRequest::new(key, ty, LockDuration::Explicit);
    let mut queued = turn.queued.take();
    if turn.after.is_some() {
        // Its place is fixed by the chain: the session task may go on.
        if let Some(q) = queued.take() {
            let _ = q.send(());
        }
        tokio::select! {
            _ = turn.wait_for_previous() => {}
            _ = &mut release => return,
        }
    }
    let ticket = loop {
        let outcome = {
            let mut fut = pin!(ctx.acquire_async(&req, LONG_TIMEOUT));
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
            Ok(t) => {
                let _ = turn.granted.send(true);
                break t;
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
    let _ = ctx.release(ticket);
    drop(ctx);
    drop(registered);
    if written && !deleted_with_intent {
        // The intent went another way (its requester's lease expired, or this session
        // ended): the ack, if written, is this node's to delete.
        let mut c = inner.client();
        let _ = tokio::time::timeout(inner.cfg.request_timeout, c.delete(ack, None)).await;
    }
}
