//! A stand-in: the local lock a node takes on behalf of another node's travelling request.
//!
//! The session task (`session.rs`) starts one per intent, in revision order, and waits until
//! its request is *queued* (or granted) before it looks at the next intent, so every node
//! queues travelling requests on an object in etcd's order. The stand-in waits for its lock
//! like any local request (statements of this node that hold the object block it; it blocks
//! later statements), is exempt from the grant gate (it re-establishes what the gate protects),
//! and once granted writes its acknowledgement under the node's lease. It holds the lock until
//! the intent is deleted or the session ends, then releases it and deletes its acknowledgement.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use etcd_client::PutOptions;
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
/// `release` fires (or is dropped) when the stand-in must go.
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
    loop {
        let mut c = inner.client();
        let put = c.put(ack.clone(), "", Some(PutOptions::new().with_lease(lease)));
        tokio::select! {
            r = tokio::time::timeout(inner.cfg.request_timeout, put) => {
                if matches!(r, Ok(Ok(_))) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            _ = &mut release => {
                let _ = ctx.release(ticket);
                return;
            }
        }
    }
    let _ = (&mut release).await;
    let _ = ctx.release(ticket);
    drop(ctx);
    drop(registered);
    let mut c = inner.client();
    let _ = tokio::time::timeout(inner.cfg.request_timeout, c.delete(ack, None)).await;
}
