//! [`ClusterManager`]: one node of the cluster, wrapping a local [`MdlManager`].
//!
//! `join` connects to etcd, closes the local grant gate, and starts the node's session task
//! (`session.rs`), which registers the node under a lease, takes stand-ins for the intents that
//! exist, opens the gate and then follows etcd's changes; `join` returns once the node serves.
//! The state shared by the session task, the requesters (`context.rs`) and the stand-in tasks
//! (`standin.rs`) is [`Inner`]. The node leaves (`leave`, or once the application has dropped
//! every manager clone and context: [`Running`]): its session ends with a fence, and its lease is
//! revoked once its holders are gone.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use etcd_client::{Client, DeleteOptions, PutOptions, Txn, TxnOp};
use mdl_core::{ContextId, KillScope, MdlContext, MdlManager, Namespace};
use tokio::runtime::Handle;
use tokio::sync::{oneshot, watch};

use crate::config::ClusterConfig;
use crate::context::ClusterContext;
use crate::error::{ClusterError, Result};
use crate::keys::{KillRequest, Layout, NodeId, Party};
use crate::route::Route;
use crate::standin::StandInContext;
use crate::view::View;

/// Why a travelling request was ended from outside.
#[derive(Debug)]
pub(crate) enum Cancel {
    Killed,
    Deadlock(Vec<Party>),
    NotServing,
}

/// A travelling request's place in the local order of travelling requests on its object: it
/// queues locally only once the earlier ones it waits for (`after`, see `chain.rs`) were granted
/// here or ended, answers `queued` once queued (or waiting on `after`), and says on `granted`
/// when it is granted here.
pub(crate) struct Turn {
    pub(crate) queued: Option<oneshot::Sender<()>>,
    pub(crate) after: Vec<watch::Receiver<bool>>,
    pub(crate) granted: watch::Sender<bool>,
}

impl Turn {
    /// Waits until the travelling requests this one waits for were granted here (or ended).
    pub(crate) async fn wait_for_previous(&mut self) {
        for a in &mut self.after {
            let _ = a.wait_for(|granted| *granted).await;
        }
    }
}

/// A travelling request in progress on this node.
pub(crate) struct Requester {
    pub(crate) context: u64,
    pub(crate) rev: Option<i64>,
    /// The session task hands the requester its turn (in revision order) through this.
    pub(crate) turn: Option<oneshot::Sender<Turn>>,
    pub(crate) cancel: Option<oneshot::Sender<Cancel>>,
}

/// What a stand-in context stands in for.
#[derive(Debug, Clone)]
pub(crate) struct StandInOf {
    pub(crate) party: Party,
    pub(crate) rev: i64,
    pub(crate) label: Option<String>,
}

/// Counters of a node's life ([`ClusterManager::status`]).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) sessions: AtomicU64,
    pub(crate) fences: AtomicU64,
    pub(crate) late_fences: AtomicU64,
    pub(crate) stand_ins: AtomicUsize,
    pub(crate) deadlock_victims: AtomicU64,
}

/// A node's state, shared by its tasks.
pub(crate) struct Inner {
    pub(crate) cfg: ClusterConfig,
    pub(crate) layout: Layout,
    pub(crate) mgr: Arc<MdlManager>,
    /// The etcd clients (`route.rs`).
    pub(crate) route: Route,
    pub(crate) handle: Handle,
    pub(crate) view: Mutex<View>,
    pub(crate) changed: watch::Sender<u64>,
    pub(crate) requesters: Mutex<HashMap<String, Requester>>,
    /// What each stand-in context stands in for, by context id.
    pub(crate) stand_ins: Mutex<HashMap<u64, StandInOf>>,
    /// The context of each requester's stand-ins (`standin.rs`), while one lives.
    pub(crate) stand_in_contexts: Mutex<HashMap<Party, Weak<StandInContext>>>,
    /// The contexts made by [`ClusterManager::new_context`] (killed when the node fences).
    pub(crate) contexts: Mutex<HashSet<u64>>,
    pub(crate) next_seq: AtomicU64,
    pub(crate) next_stand_in: AtomicU64,
    pub(crate) shutdown: watch::Sender<bool>,
    /// Set once the node has left: its holders drained and its lease revoked (`session.rs`).
    pub(crate) left: watch::Sender<bool>,
    pub(crate) counters: Counters,
}

/// Stand-in contexts take ids from here up, apart from a server's connection ids.
pub(crate) const STAND_IN_IDS: u64 = 1 << 62;

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Inner {
    pub(crate) fn me(&self) -> NodeId {
        self.cfg.node
    }

    /// The etcd client for the next request (cheap to clone).
    pub(crate) fn client(&self) -> Client {
        self.route.client()
    }

    /// Says that an etcd request failed (the next ones go to any member until the leader is
    /// found again).
    pub(crate) fn etcd_failed(&self) {
        self.route.failed();
    }

    /// Connects to etcd again (a node that was cut off may hold a channel that gave up).
    pub(crate) async fn reconnect(&self) -> Result<()> {
        self.route.reconnect(&self.cfg).await
    }

    pub(crate) fn view(&self) -> MutexGuard<'_, View> {
        lock(&self.view)
    }

    /// Tells the waiters that the view changed.
    pub(crate) fn bump(&self) {
        self.changed.send_modify(|v| *v += 1);
    }

    /// Deletes a travelling lock's intent and its acknowledgements, in the background
    /// ([`Inner::commit_while_leased`]).
    pub(crate) fn delete_intent(self: &Arc<Self>, id: String) {
        let txn = Txn::new().and_then(vec![
            TxnOp::delete(self.layout.intent(&id), None),
            TxnOp::delete(
                self.layout.acks_of(&id),
                Some(DeleteOptions::new().with_prefix()),
            ),
        ]);
        let (inner, lease) = (self.clone(), self.view().lease);
        self.handle
            .spawn(async move { inner.commit_while_leased(txn, lease).await });
    }

    /// Commits `txn`, which deletes keys written under `lease`, trying again (every 100 ms,
    /// then less often, up to every second) until it succeeds or the keys go another way: the
    /// node's lease is no longer `lease` (its session ended: the lease expires or was revoked,
    /// and takes the keys with it) or the node left (its lease is revoked).
    pub(crate) async fn commit_while_leased(&self, txn: Txn, lease: i64) {
        let mut pause = Duration::from_millis(100);
        loop {
            let mut c = self.client();
            if let Ok(Ok(_)) =
                tokio::time::timeout(self.cfg.request_timeout, c.txn(txn.clone())).await
            {
                return;
            }
            self.etcd_failed();
            if self.view().lease != lease || *self.shutdown.borrow() {
                return;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
        }
    }

    /// Ends a travelling request of `context` on this node, if one is in progress.
    pub(crate) fn cancel_requester(&self, context: u64, why: impl Fn() -> Cancel) -> bool {
        let mut reqs = lock(&self.requesters);
        let mut found = false;
        for r in reqs.values_mut().filter(|r| r.context == context) {
            if let Some(c) = r.cancel.take() {
                let _ = c.send(why());
                found = true;
            }
        }
        found
    }

    /// Revokes a lease of the node (its intents, acknowledgements and registration go at
    /// once), if etcd answers within the request timeout.
    pub(crate) async fn revoke_lease(&self, lease: i64) {
        if lease != 0 {
            let mut c = self.client();
            let _ = tokio::time::timeout(self.cfg.request_timeout, c.lease_revoke(lease)).await;
        }
    }

    /// Every namespace: the gate closes them all when the node fences.
    pub(crate) fn all_namespaces() -> &'static [Namespace] {
        &Namespace::ALL
    }
}

/// Keeps the node in the cluster while the application holds it: every [`ClusterManager`]
/// clone and every [`ClusterContext`] has one, the node's own tasks none. When the last goes,
/// the node leaves as [`ClusterManager::leave`] does, in the background (on a runtime that is
/// shutting down the session task is dropped: the lease then expires).
pub(crate) struct Running(Arc<Inner>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.shutdown.send_replace(true);
    }
}

/// One node of a cluster: a local [`MdlManager`] whose non-conflicting locks stay local and
/// whose other locks are granted only once every live node has granted them too
/// (`docs/cluster.md`). Cheap to clone. The node leaves the cluster when
/// [`ClusterManager::leave`] is called, or once every clone and every context made by it is
/// dropped.
#[derive(Clone)]
pub struct ClusterManager {
    pub(crate) inner: Arc<Inner>,
    running: Arc<Running>,
}

/// A node's state ([`ClusterManager::status`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeStatus {
    /// This node.
    pub node: NodeId,
    /// Whether it serves locks now.
    pub serving: bool,
    /// Sessions started (1 + times it joined again after fencing itself).
    pub sessions: u64,
    /// Times it fenced itself.
    pub fences: u64,
    /// Fences whose local holders were still there when the lease could have expired.
    pub late_fences: u64,
    /// Stand-in locks held or queued here for other nodes' requests.
    pub stand_ins: usize,
    /// Live nodes as this node sees them.
    pub live_nodes: Vec<NodeId>,
    /// Deadlock victims this node chose among its own requests.
    pub deadlock_victims: u64,
    /// The configured endpoint this node sends its requests to because it is etcd's leader
    /// (`ClusterConfig::prefer_leader`); `None` while requests are balanced over every
    /// endpoint.
    pub etcd_leader_endpoint: Option<String>,
    /// The configured endpoint the session's watch was opened on because it was the leader's;
    /// `None` if it was opened through the balanced client.
    pub etcd_watch_endpoint: Option<String>,
}

impl ClusterManager {
    /// Joins the cluster as `config.node` with the local lock manager `mgr`, and returns once
    /// the node serves (registered, stand-ins taken for every existing intent). Must be called
    /// within a tokio runtime; the node's tasks run on it.
    ///
    /// # Errors
    /// [`ClusterError::Config`] if the configuration cannot work
    /// ([`ClusterConfig::validate`]); [`ClusterError::Etcd`] if etcd cannot be reached within
    /// the request timeout.
    pub async fn join(config: ClusterConfig, mgr: Arc<MdlManager>) -> Result<ClusterManager> {
        config.validate()?;
        let route = Route::connect(&config).await?;
        // Nothing is granted locally until the node has caught up with the cluster.
        mgr.close_grants(Inner::all_namespaces());
        let seq0 = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let inner = Arc::new(Inner {
            layout: Layout {
                prefix: config.prefix.clone(),
            },
            cfg: config,
            mgr,
            route,
            handle: Handle::current(),
            view: Mutex::new(View::default()),
            changed: watch::channel(0).0,
            requesters: Mutex::new(HashMap::new()),
            stand_ins: Mutex::new(HashMap::new()),
            stand_in_contexts: Mutex::new(HashMap::new()),
            contexts: Mutex::new(HashSet::new()),
            next_seq: AtomicU64::new(seq0),
            next_stand_in: AtomicU64::new(STAND_IN_IDS),
            shutdown: watch::channel(false).0,
            left: watch::channel(false).0,
            counters: Counters::default(),
        });
        let mut changed = inner.changed.subscribe();
        tokio::spawn(crate::session::run(inner.clone()));
        tokio::spawn(crate::waits::run(inner.clone()));
        if inner.cfg.prefer_leader {
            tokio::spawn(crate::route::follow_leader(inner.clone()));
        }
        let deadline = tokio::time::Instant::now() + inner.cfg.lease_ttl * 4;
        loop {
            if inner.view().serving {
                let running = Arc::new(Running(inner.clone()));
                return Ok(ClusterManager { inner, running });
            }
            if tokio::time::timeout_at(deadline, changed.changed())
                .await
                .is_err()
            {
                inner.shutdown.send_replace(true);
                return Err(ClusterError::Etcd(
                    "could not join the cluster in time".into(),
                ));
            }
        }
    }

    /// This node's id.
    pub fn node(&self) -> NodeId {
        self.inner.me()
    }

    /// The local lock manager.
    pub fn local(&self) -> &Arc<MdlManager> {
        &self.inner.mgr
    }

    /// A new connection's context, with an id the lock manager picks.
    pub fn new_context(&self) -> ClusterContext {
        self.wrap(self.inner.mgr.new_context())
    }

    /// A new connection's context with the server's connection id `id`.
    ///
    /// # Errors
    /// `MdlError::ContextIdInUse` (as [`ClusterError::Local`]) if a live context has the id.
    pub fn new_context_with_id(&self, id: u64) -> Result<ClusterContext> {
        Ok(self.wrap(self.inner.mgr.new_context_with_id(id)?))
    }

    fn wrap(&self, ctx: MdlContext) -> ClusterContext {
        lock(&self.inner.contexts).insert(ctx.id().as_u64());
        ClusterContext::new(self.inner.clone(), self.running.clone(), ctx)
    }

    /// Kills context `context` on node `node` (MySQL's `KILL QUERY` or `KILL`): on this node
    /// at once; on another through etcd, applied by that node when it sees the request. Ends
    /// the context's wait for a local lock and its travelling request, if any.
    ///
    /// # Errors
    /// `MdlError::UnknownContext` for an unknown local context; [`ClusterError::Etcd`] if the
    /// kill of a remote context could not be written.
    pub async fn kill(&self, node: NodeId, context: u64, scope: KillScope) -> Result<()> {
        if node == self.node() {
            let local = self.inner.mgr.kill(ContextId::new(context), scope);
            let travelling = self.inner.cancel_requester(context, || Cancel::Killed);
            return match local {
                Err(e) if !travelling => Err(e.into()),
                _ => Ok(()),
            };
        }
        let lease = self.inner.view().lease;
        let value = serde_json::to_string(&KillRequest {
            connection: scope == KillScope::Connection,
        })
        .map_err(|e| ClusterError::Corrupt(e.to_string().into()))?;
        let mut c = self.inner.client();
        c.put(
            self.inner.layout.kill(node, context),
            value,
            Some(PutOptions::new().with_lease(lease)),
        )
        .await?;
        Ok(())
    }

    /// The node's state.
    pub fn status(&self) -> NodeStatus {
        let v = self.inner.view();
        let c = &self.inner.counters;
        NodeStatus {
            node: self.node(),
            serving: v.serving,
            sessions: c.sessions.load(Ordering::Relaxed),
            fences: c.fences.load(Ordering::Relaxed),
            late_fences: c.late_fences.load(Ordering::Relaxed),
            stand_ins: c.stand_ins.load(Ordering::Relaxed),
            live_nodes: v.nodes.iter().copied().collect(),
            deadlock_victims: c.deadlock_victims.load(Ordering::Relaxed),
            etcd_leader_endpoint: self.inner.route.leader_endpoint(),
            etcd_watch_endpoint: self.inner.route.watch_on(),
        }
    }

    /// Leaves the cluster, as a fence does: closes the local grant gate, ends the travelling
    /// requests in progress (`NotServing`), kills every context of the node (`KILL QUERY`),
    /// releases the stand-ins, waits until the node's contexts have released their locks
    /// (at most until the lease could expire: it is no longer renewed), then revokes the
    /// lease (its intents, acknowledgements and registration go at once) and returns. Other
    /// nodes stop waiting for this one only then, so no lock of this node is still held when
    /// they grant a conflicting one. The local lock manager keeps working with its gate
    /// closed. Dropping every clone and every context does the same, in the background.
    pub async fn leave(&self) {
        self.inner.shutdown.send_replace(true);
        let mut left = self.inner.left.subscribe();
        let longest = self.inner.cfg.lease_ttl + self.inner.cfg.request_timeout * 2;
        let _ = tokio::time::timeout(longest, left.wait_for(|l| *l)).await;
    }
}
