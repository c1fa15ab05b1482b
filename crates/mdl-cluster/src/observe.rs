//! Who blocks whom across the cluster, and the `cluster_locks` view.
//!
//! Every node publishes its lock manager's waits (`waits.rs`) with stand-ins replaced by the
//! requests they stand in for, so a row names the node and context on each side. A node's
//! [`ClusterManager::lock_waits`] joins its own current waits with the other nodes' published
//! ones; [`ClusterManager::cluster_locks`] lists the intents etcd holds with who has
//! acknowledged them.

use std::fmt;
use std::time::Duration;

use mdl_core::{LockType, MdlKey};

use crate::keys::{NodeId, Party, WaitEdge};
use crate::node::{ClusterManager, Inner};

/// One (waiting request, blocker) pair anywhere in the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClusterWait {
    /// The object waited for (as the lock manager prints it).
    pub object: String,
    /// The waiting context and its node (for a stand-in: the remote requester it stands for).
    pub waiting: Party,
    /// Its label.
    pub waiting_label: Option<String>,
    /// The requested type.
    pub requested: String,
    /// The blocking context and its node.
    pub blocking: Party,
    /// Its label.
    pub blocking_label: Option<String>,
    /// What the blocker holds (hard) or requests ahead (soft).
    pub held: String,
    /// Hard (granted and incompatible) or soft (queued ahead with priority).
    pub hard: bool,
    /// How long the request had waited when the row was taken.
    pub waited: Duration,
    /// The node whose lock manager has this wait.
    pub seen_on: NodeId,
}

impl ClusterWait {
    fn from_edge(e: &WaitEdge) -> ClusterWait {
        ClusterWait {
            object: e.object.clone(),
            waiting: e.waiter.clone(),
            waiting_label: e.waiter_label.clone(),
            requested: e.requested.clone(),
            blocking: e.blocker.clone(),
            blocking_label: e.blocker_label.clone(),
            held: e.held.clone(),
            hard: e.hard,
            waited: Duration::from_millis(e.waited_ms),
            seen_on: e.at,
        }
    }

    pub(crate) fn fmt_blocker(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "node {} context {}",
            self.blocking.node, self.blocking.context
        )?;
        if let Some(l) = &self.blocking_label {
            write!(f, " ({l})")?;
        }
        let verb = if self.hard { "holding" } else { "queued for" };
        write!(f, " {verb} {} on {}", self.held, self.object)
    }
}

impl fmt::Display for ClusterWait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "node {} context {}",
            self.waiting.node, self.waiting.context
        )?;
        if let Some(l) = &self.waiting_label {
            write!(f, " ({l})")?;
        }
        write!(
            f,
            " waits {:.1} s for {} (at node {}), blocked by ",
            self.waited.as_secs_f64(),
            self.requested,
            self.seen_on
        )?;
        self.fmt_blocker(f)
    }
}

/// A travelling lock in etcd: a row of [`ClusterManager::cluster_locks`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClusterLock {
    /// Its place in the cluster's order (etcd's creation revision).
    pub revision: i64,
    /// The object.
    pub key: MdlKey,
    /// The type.
    pub lock_type: LockType,
    /// The requester.
    pub requester: Party,
    /// The requester's label.
    pub label: Option<String>,
    /// Live nodes that acknowledged it (their stand-ins are granted).
    pub acknowledged_by: Vec<NodeId>,
    /// Live nodes that have not (yet).
    pub waiting_for: Vec<NodeId>,
}

impl ClusterLock {
    /// Whether every live node but the requester's has acknowledged it.
    pub fn is_acknowledged(&self) -> bool {
        self.waiting_for.is_empty()
    }
}

impl fmt::Display for ClusterLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rev {} {} on {} by node {} context {}",
            self.revision, self.lock_type, self.key, self.requester.node, self.requester.context
        )?;
        if let Some(l) = &self.label {
            write!(f, " ({l})")?;
        }
        write!(
            f,
            ": acknowledged by {:?}, waiting for {:?}",
            self.acknowledged_by, self.waiting_for
        )
    }
}

/// Every wait in the cluster: this node's current ones and the others' published ones.
pub(crate) fn all_waits(inner: &Inner) -> Vec<ClusterWait> {
    let own = crate::waits::local_edges(inner);
    let v = inner.view();
    let mut rows: Vec<ClusterWait> = own.iter().map(ClusterWait::from_edge).collect();
    let mut others: Vec<_> = v.waits.iter().filter(|(n, _)| **n != inner.me()).collect();
    others.sort_by_key(|(n, _)| **n);
    for (_, edges) in others {
        rows.extend(edges.iter().map(ClusterWait::from_edge));
    }
    rows
}

/// The cluster's waits of `context` on `node`.
pub(crate) fn waits_of(inner: &Inner, node: NodeId, context: u64) -> Vec<ClusterWait> {
    all_waits(inner)
        .into_iter()
        .filter(|w| w.waiting.node == node && w.waiting.context == context)
        .collect()
}

impl ClusterManager {
    /// Who blocks whom in the whole cluster: this node's waits now, and every other node's as
    /// it last published them (within `wait_publish_interval`). A stand-in is shown as the
    /// remote request it stands for, so a waiting ALTER names the node and context blocking it.
    pub fn lock_waits(&self) -> Vec<ClusterWait> {
        all_waits(&self.inner)
    }

    /// The `cluster_locks` view: every travelling lock in etcd (granted or not), in revision
    /// order, with the live nodes that have and have not acknowledged it.
    pub fn cluster_locks(&self) -> Vec<ClusterLock> {
        let v = self.inner.view();
        v.intents
            .iter()
            .filter_map(|(rev, (id, intent))| {
                let key = intent.key.to_key().ok()?;
                let lock_type = intent.lock_type().ok()?;
                let acks = v.acks.get(id);
                let acknowledged_by = v
                    .nodes
                    .iter()
                    .copied()
                    .filter(|n| acks.is_some_and(|a| a.contains(n)))
                    .collect();
                Some(ClusterLock {
                    revision: *rev,
                    key,
                    lock_type,
                    requester: Party {
                        node: intent.node,
                        context: intent.context,
                    },
                    label: intent.label.clone(),
                    acknowledged_by,
                    waiting_for: v.missing_acks(id, intent.node),
                })
            })
            .collect()
    }
}
