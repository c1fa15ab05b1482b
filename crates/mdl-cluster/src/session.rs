//! A node's session: its lease, its registration, its stand-ins, and the watch that keeps its
//! view of the cluster; and the fence that ends a session it can no longer vouch for.
//!
//! # One session
//!
//! 1. Grant a lease (TTL `lease_ttl`), noting the time the request was sent: the lease cannot
//!    expire in etcd before that time + TTL. Start renewing it every `keep_alive`; each answer
//!    moves this *validity* to (the renewal's send time + the TTL it reports).
//! 2. Register the node (`n/<node>` under the lease).
//! 3. Read every key under the prefix at one revision (a *snapshot*), take a stand-in for every
//!    intent in revision order, and watch the prefix from the next revision.
//! 4. Open the local grant gate: the node serves.
//! 5. Follow the watch, one event at a time in revision order: a new intent gets a stand-in
//!    (or, if it is this node's own request, its turn to queue locally), a deleted intent's
//!    stand-in is released; nodes, acknowledgements, published waits and kills update the view.
//!    A broken watch (an etcd member restarted), or one on another member than the leader's
//!    endpoint that requests moved to (`route.rs`), is replaced by a new snapshot and watch,
//!    which reconciles stand-ins with the intents that exist.
//!
//! The session ends when the validity is within `fence_margin` of running out (renewals are
//! not getting through), when etcd says the lease is gone, when the node's registration
//! disappears, or at shutdown. Then the node fences itself ([`fence`]) and, unless shut down,
//! starts a new session.
//!
//! # The fence
//!
//! Close the grant gate on every namespace (nothing new is granted locally, statements get
//! `GrantsClosed`), stop serving, end every travelling request in progress (`NotServing`), kill
//! every context of the node (`KILL QUERY`), release the stand-ins, and wait until no lock is
//! granted behind the gate. All of it is local: it needs no etcd. If holders are still there
//! when the validity runs out, the fence is counted late (`NodeStatus::late_fences`).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use etcd_client::{EventType, GetOptions, KeyValue, PutOptions, WatchOptions, WatchStream};
use mdl_core::{ContextId, KillScope};
use tokio::sync::{oneshot, watch};
use tokio::time::{sleep, sleep_until, timeout, Instant};

use crate::chain::Chains;
use crate::keys::{Intent, KeyKind, KillRequest, NodeInfo, Party, PublishedWaits};
use crate::node::{lock, Cancel, Inner, Turn};

/// Why a session ended.
#[derive(Debug)]
enum End {
    Shutdown,
    Lost(&'static str),
}

/// The node's session loop: sessions one after another, a fence after each.
pub(crate) async fn run(inner: Arc<Inner>) {
    let mut shutdown = inner.shutdown.subscribe();
    loop {
        if *shutdown.borrow() {
            break;
        }
        let mut s = Session {
            inner: inner.clone(),
            valid_until: Instant::now(),
            lease: 0,
            stand_ins: HashMap::new(),
            handled: HashSet::new(),
            chains: Chains::default(),
            served: false,
        };
        inner.counters.sessions.fetch_add(1, Ordering::Relaxed);
        let end = s.run(&mut shutdown).await;
        let (valid_until, served, lease) = (s.valid_until, s.served, s.lease);
        // The gate closes before the stand-ins go: a stand-in's release hands its lock to the
        // statements queued behind it, and the lock it stood in for may still be held.
        stop_serving(&inner);
        drop(s); // releases every stand-in
        match end {
            End::Lost(why) if served => {
                inner.counters.fences.fetch_add(1, Ordering::Relaxed);
                eprintln!("mdl-cluster node {}: fencing: {why}", inner.me());
            }
            _ => {}
        }
        let shutting_down = matches!(end, End::Shutdown);
        drain(&inner, valid_until, shutting_down).await;
        if shutting_down {
            inner.revoke_lease(lease).await;
            break;
        }
        // The holders are gone: the lease need not outlive them (a session that failed
        // before it served would otherwise leave its registration for a TTL).
        let (inner2, renewed) = (inner.clone(), lease);
        inner
            .handle
            .spawn(async move { inner2.revoke_lease(renewed).await });
        tokio::select! {
            _ = sleep(Duration::from_millis(200)) => {}
            _ = shutdown.changed() => {}
        }
    }
    inner.left.send_replace(true);
}

/// The fence's first half (see the module docs): nothing is granted here any more, no request
/// goes on, and every context of the node is asked to end its statement. Needs no etcd.
fn stop_serving(inner: &Inner) {
    {
        let mut v = inner.view();
        v.serving = false;
        v.session += 1;
    }
    inner.bump();
    inner.mgr.close_grants(Inner::all_namespaces());
    for r in lock(&inner.requesters).values_mut() {
        if let Some(c) = r.cancel.take() {
            let _ = c.send(Cancel::NotServing);
        }
    }
    let contexts: Vec<u64> = lock(&inner.contexts).iter().copied().collect();
    for c in contexts {
        let _ = inner.mgr.kill(ContextId::new(c), KillScope::Query);
    }
}

/// The fence's second half: waits until no lock is granted behind the gate. A node that
/// leaves (`shutting_down`) waits at most until its lease could expire, since it will not be
/// renewed; a fenced node waits for as long as it takes, counting the fence late once the
/// lease could have expired.
async fn drain(inner: &Inner, valid_until: Instant, shutting_down: bool) {
    let all = Inner::all_namespaces();
    let mut late = false;
    while inner.mgr.granted_behind_gate(all) != 0 {
        if !late && Instant::now() >= valid_until {
            if shutting_down {
                return;
            }
            late = true;
            inner.counters.late_fences.fetch_add(1, Ordering::Relaxed);
            eprintln!(
                "mdl-cluster node {}: local holders outlived the lease",
                inner.me()
            );
        }
        sleep(Duration::from_millis(2)).await;
    }
}

struct Session {
    inner: Arc<Inner>,
    /// The lease cannot have expired in etcd before this instant.
    valid_until: Instant,
    lease: i64,
    /// Stand-ins by intent id: sending releases the stand-in and says its ack was deleted with
    /// the intent; dropping the sender releases it and leaves the ack to the stand-in.
    stand_ins: HashMap<String, oneshot::Sender<()>>,
    /// Intents that got a stand-in or their requester's turn.
    handled: HashSet<String>,
    /// Per object, the travelling requests admitted and not deleted.
    chains: Chains,
    /// The session got as far as serving (a session that failed before does not count as a
    /// fence).
    served: bool,
}

/// What the renewal task found out.
#[derive(Debug, Clone, Copy)]
enum Renewal {
    /// The lease cannot expire in etcd before this instant.
    Until(Instant),
    /// etcd says the lease is gone.
    Expired,
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Renews the lease every `keep_alive` (a renewal that fails is tried again after 100 ms): each
/// renewal opens a keep-alive stream, sends one request and waits for its answer, so a stream
/// broken by an etcd member's restart costs one attempt. It runs apart from the session loop
/// so that nothing the loop waits for delays a renewal (and the loop watches the fence's
/// deadline while it applies a watch response: [`fence_due`]).
async fn renew(inner: Arc<Inner>, lease: i64, out: watch::Sender<Renewal>) {
    let every = inner.cfg.keep_alive;
    let mut next = Instant::now() + every;
    loop {
        sleep_until(next).await;
        let sent = Instant::now();
        let attempt = async {
            let mut c = inner.client();
            let (mut keeper, mut stream) = c.lease_keep_alive(lease).await?;
            keeper.keep_alive().await?;
            Ok::<_, etcd_client::Error>(stream.message().await?.map(|r| r.ttl()))
        };
        // Short attempts: one that hangs on a member that is going away must leave time for
        // more before the fence.
        let limit = (every / 2).clamp(Duration::from_millis(200), Duration::from_secs(1));
        match timeout(limit, attempt).await {
            Ok(Ok(Some(ttl))) if ttl <= 0 => {
                let _ = out.send(Renewal::Expired);
                return;
            }
            Ok(Ok(Some(ttl))) => {
                let _ = out.send(Renewal::Until(sent + Duration::from_secs(ttl as u64)));
                next = sent + every;
            }
            _ => {
                inner.etcd_failed();
                next = Instant::now() + Duration::from_millis(100);
            }
        }
    }
}

/// Resolves when the fence is due: `fence_margin` before the validity runs out, the validity
/// being `until` or what the renewals have moved it to since.
async fn fence_due(renewed: watch::Receiver<Renewal>, mut until: Instant, margin: Duration) {
    loop {
        sleep_until(until - margin).await;
        match *renewed.borrow() {
            Renewal::Until(t) if t > until => until = t,
            _ => return,
        }
    }
}

impl Session {
    async fn run(&mut self, shutdown: &mut watch::Receiver<bool>) -> End {
        let inner = self.inner.clone();
        let rt = inner.cfg.request_timeout;
        let ttl = Duration::from_secs(inner.cfg.ttl_secs() as u64);
        if inner.counters.sessions.load(Ordering::Relaxed) > 1 && inner.reconnect().await.is_err() {
            return End::Lost("no connection");
        }
        let mut client = inner.client();
        let t0 = Instant::now();
        let Ok(Ok(grant)) = timeout(rt, client.lease_grant(inner.cfg.ttl_secs(), None)).await
        else {
            return End::Lost("no lease");
        };
        self.lease = grant.id();
        self.valid_until = t0 + ttl;
        let info = NodeInfo {
            node: inner.me(),
            session: inner.view().session,
        };
        let info = serde_json::to_string(&info).unwrap_or_default();
        let opts = PutOptions::new().with_lease(self.lease);
        if !matches!(
            timeout(
                rt,
                client.put(inner.layout.node(inner.me()), info, Some(opts))
            )
            .await,
            Ok(Ok(_))
        ) {
            return End::Lost("registration failed");
        }
        let (renewed_tx, mut renewed) = watch::channel(Renewal::Until(self.valid_until));
        let renewer = tokio::spawn(renew(inner.clone(), self.lease, renewed_tx));
        let _stop_renewing = AbortOnDrop(renewer);
        let mut moved = inner.route.moves();
        let mut watch = match timeout(rt, self.resync()).await {
            Ok(Ok(w)) => Some(w),
            _ => return End::Lost("first snapshot failed"),
        };
        inner.mgr.open_grants(Inner::all_namespaces());
        {
            let mut v = inner.view();
            v.lease = self.lease;
            v.serving = true;
        }
        self.served = true;
        inner.bump();
        loop {
            let fence_at = self.valid_until - inner.cfg.fence_margin;
            tokio::select! {
                _ = shutdown.changed() => return End::Shutdown,
                _ = sleep_until(fence_at) => return End::Lost("lease not renewed in time"),
                r = renewed.changed() => {
                    match (r, *renewed.borrow_and_update()) {
                        (Ok(()), Renewal::Until(t)) => self.valid_until = self.valid_until.max(t),
                        (_, Renewal::Expired) => return End::Lost("lease expired"),
                        (Err(_), _) => return End::Lost("renewals stopped"),
                    }
                }
                m = async { watch.as_mut().expect("guarded").message().await }, if watch.is_some() => {
                    match m {
                        Ok(Some(resp)) if !resp.canceled() => {
                            // Applying may wait (a new stand-in is given up to a second to
                            // queue): the fence's deadline is watched meanwhile.
                            let due = fence_due(renewed.clone(), self.valid_until, inner.cfg.fence_margin);
                            let applied = tokio::select! {
                                r = self.apply(resp.events()) => r,
                                _ = due => Err(End::Lost("lease not renewed in time")),
                            };
                            if let Err(e) = applied {
                                return e;
                            }
                        }
                        _ => {
                            inner.etcd_failed();
                            watch = None;
                        }
                    }
                }
                // Requests moved to the leader: so does the watch, if it is elsewhere (a new
                // snapshot and watch, as after a broken one).
                _ = moved.changed() => {
                    let now = inner.route.leader_endpoint();
                    if now.is_some() && now != inner.route.watch_on() {
                        watch = None;
                    }
                }
                _ = sleep(Duration::from_millis(50)), if watch.is_none() => {
                    let left = fence_at.saturating_duration_since(Instant::now()).min(rt);
                    match timeout(left, self.resync()).await {
                        Ok(Ok(w)) => watch = Some(w),
                        Ok(Err(Some(end))) => return end,
                        _ => {}
                    }
                }
            }
        }
    }

    /// Reads the whole prefix at one revision, rebuilds the view from it, reconciles the
    /// stand-ins with the intents in it (revision order), and watches from the next revision.
    async fn resync(&mut self) -> Result<WatchStream, Option<End>> {
        let inner = self.inner.clone();
        let (mut c, on) = inner.route.current();
        inner.route.set_watch_on(on);
        let prefix = inner.layout.prefix.clone();
        // A failed read is retried by the caller (until the lease runs out).
        let Ok(resp) = c
            .get(prefix.clone(), Some(GetOptions::new().with_prefix()))
            .await
        else {
            inner.etcd_failed();
            return Err(None);
        };
        let rev = resp.header().map_or(0, |h| h.revision());
        let mut intents = Vec::new();
        {
            let mut v = inner.view();
            v.clear_cluster_state();
            for kv in resp.kvs() {
                if let Some(i) = self.note_put(&mut v, kv) {
                    intents.push(i);
                }
            }
            if !v.nodes.contains(&inner.me()) {
                return Err(Some(End::Lost("registration gone")));
            }
        }
        intents.sort_by_key(|(r, _, _)| *r);
        let live: HashSet<&str> = intents.iter().map(|(_, id, _)| id.as_str()).collect();
        self.stand_ins.retain(|id, _| live.contains(id.as_str()));
        self.handled.retain(|id| live.contains(id.as_str()));
        self.chains.retain(&live);
        for (r, id, intent) in intents {
            if !self.handled.contains(&id) {
                self.admit(r, id, intent).await;
            }
        }
        inner.bump();
        let opts = WatchOptions::new()
            .with_prefix()
            .with_start_revision(rev + 1);
        c.watch(prefix, Some(opts)).await.map_err(|_| None)
    }

    /// Applies one watch response's events in order.
    async fn apply(&mut self, events: &[etcd_client::Event]) -> Result<(), End> {
        let inner = self.inner.clone();
        for ev in events {
            let Some(kv) = ev.kv() else { continue };
            match ev.event_type() {
                EventType::Put => {
                    let new = {
                        let mut v = inner.view();
                        self.note_put(&mut v, kv)
                    };
                    if let Some((r, id, intent)) = new {
                        self.admit(r, id, intent).await;
                    }
                }
                EventType::Delete => {
                    let kind = inner.layout.parse(kv.key());
                    let mut v = inner.view();
                    match kind {
                        KeyKind::Node(n) => {
                            v.nodes.remove(&n);
                            if n == inner.me() {
                                return Err(End::Lost("registration deleted"));
                            }
                        }
                        KeyKind::Intent(id) => {
                            if let Some((_, gone)) =
                                v.intent_rev.get(&id).and_then(|r| v.intents.get(r))
                            {
                                if let Ok(k) = gone.key.to_key() {
                                    self.chains.remove(&k, &id);
                                }
                            }
                            v.remove_intent(&id);
                            v.acks.remove(&id);
                            if let Some(release) = self.stand_ins.remove(&id) {
                                // The requester's release deletes the intent and its acks in
                                // one transaction, one revision: then this node's ack is gone
                                // and the stand-in need not delete it (dropping the sender
                                // tells it to).
                                let ack = inner.layout.ack(&id, inner.me());
                                if deleted_at(events, ack.as_bytes(), kv.mod_revision()) {
                                    let _ = release.send(());
                                }
                            }
                            self.handled.remove(&id);
                        }
                        KeyKind::Ack { intent, acker } => {
                            if let Some(a) = v.acks.get_mut(&intent) {
                                a.remove(&acker);
                            }
                        }
                        KeyKind::Waits(n) => {
                            v.waits.remove(&n);
                        }
                        KeyKind::Kill { .. } | KeyKind::Other => {}
                    }
                }
            }
        }
        inner.bump();
        Ok(())
    }

    /// Records a put in the view; returns a new intent to admit.
    fn note_put(&self, v: &mut crate::view::View, kv: &KeyValue) -> Option<(i64, String, Intent)> {
        let inner = &self.inner;
        match inner.layout.parse(kv.key()) {
            KeyKind::Node(n) => {
                v.nodes.insert(n);
            }
            KeyKind::Intent(id) => {
                if v.intent_rev.contains_key(&id) {
                    return None;
                }
                let intent: Intent = serde_json::from_slice(kv.value()).ok()?;
                v.add_intent(kv.create_revision(), id.clone(), intent.clone());
                return Some((kv.create_revision(), id, intent));
            }
            KeyKind::Ack { intent, acker } => {
                v.acks.entry(intent).or_default().insert(acker);
            }
            KeyKind::Waits(n) => {
                let w: PublishedWaits = serde_json::from_slice(kv.value()).unwrap_or_default();
                v.waits.insert(n, w.edges);
            }
            KeyKind::Kill { node, context } if node == inner.me() => {
                let k: Option<KillRequest> = serde_json::from_slice(kv.value()).ok();
                let scope = match k {
                    Some(KillRequest { connection: true }) => KillScope::Connection,
                    _ => KillScope::Query,
                };
                let _ = inner.mgr.kill(ContextId::new(context), scope);
                inner.cancel_requester(context, || Cancel::Killed);
                let (inner2, key) = (inner.clone(), kv.key().to_vec());
                inner.handle.spawn(async move {
                    let mut c = inner2.client();
                    let _ = timeout(inner2.cfg.request_timeout, c.delete(key, None)).await;
                });
            }
            KeyKind::Kill { .. } | KeyKind::Other => {}
        }
        None
    }

    /// Gives a new intent its place in the local order: the requester's turn if it is this
    /// node's request in progress, else a stand-in, queued once the earlier travelling requests
    /// on the same object that it waits for were granted here (`chain.rs`). Returns once the
    /// local request is queued or waits on its predecessors.
    async fn admit(&mut self, rev: i64, id: String, intent: Intent) {
        let inner = self.inner.clone();
        self.handled.insert(id.clone());
        let (granted, granted_rx) = watch::channel(false);
        let after = match (intent.key.to_key(), intent.lock_type()) {
            (Ok(k), Ok(ty)) => {
                let party = Party {
                    node: intent.node,
                    context: intent.context,
                };
                self.chains
                    .admit(k, id.clone(), party, ty, intent.held, granted_rx)
            }
            _ => Vec::new(),
        };
        let (queued, queued_rx) = oneshot::channel();
        let turn = Turn {
            queued: Some(queued),
            after,
            granted,
        };
        let own = if intent.node == inner.me() {
            lock(&inner.requesters)
                .get_mut(&id)
                .and_then(|r| r.turn.take())
        } else {
            None
        };
        match own {
            Some(t) => {
                if t.send(turn).is_err() {
                    return;
                }
            }
            None => {
                let (release_tx, release_rx) = oneshot::channel();
                tokio::spawn(crate::standin::run(
                    inner.clone(),
                    rev,
                    id.clone(),
                    intent,
                    self.lease,
                    turn,
                    release_rx,
                ));
                self.stand_ins.insert(id, release_tx);
            }
        }
        let _ = timeout(Duration::from_secs(1), queued_rx).await;
    }
}

/// Whether `events` delete `key` at revision `rev`.
fn deleted_at(events: &[etcd_client::Event], key: &[u8], rev: i64) -> bool {
    events.iter().any(|e| {
        e.event_type() == EventType::Delete
            && e.kv()
                .is_some_and(|kv| kv.key() == key && kv.mod_revision() == rev)
    })
}
