//! What a node knows of the cluster: its picture of the keys under the prefix, kept by the
//! session's watch (`session.rs`) in etcd's revision order, and read by requesters and the
//! diagnostics. Guarded by one mutex; every change bumps a `watch` channel so waiters look
//! again.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::keys::{Intent, NodeId, WaitEdge};

/// The node's picture of the cluster.
#[derive(Debug, Default)]
pub(crate) struct View {
    /// The current session (0 before the first); a requester started in another session
    /// fails.
    pub(crate) session: u64,
    /// Whether the node serves: joined, stand-ins taken, gate open.
    pub(crate) serving: bool,
    /// The session's lease.
    pub(crate) lease: i64,
    /// Live nodes (their keys exist).
    pub(crate) nodes: BTreeSet<NodeId>,
    /// Intents by creation revision.
    pub(crate) intents: BTreeMap<i64, (String, Intent)>,
    /// Intent id -> creation revision.
    pub(crate) intent_rev: HashMap<String, i64>,
    /// Intent id -> nodes that acknowledged it.
    pub(crate) acks: HashMap<String, BTreeSet<NodeId>>,
    /// Published waits per node.
    pub(crate) waits: HashMap<NodeId, Vec<WaitEdge>>,
}

impl View {
    /// Forgets everything etcd said (a new snapshot follows).
    pub(crate) fn clear_cluster_state(&mut self) {
        self.nodes.clear();
        self.intents.clear();
        self.intent_rev.clear();
        self.acks.clear();
        self.waits.clear();
    }

    pub(crate) fn add_intent(&mut self, rev: i64, id: String, intent: Intent) {
        self.intent_rev.insert(id.clone(), rev);
        self.intents.insert(rev, (id, intent));
    }

    pub(crate) fn remove_intent(&mut self, id: &str) -> Option<i64> {
        let rev = self.intent_rev.remove(id)?;
        self.intents.remove(&rev);
        Some(rev)
    }

    /// Whether every live node other than `me` has acknowledged intent `id`.
    pub(crate) fn acknowledged_by_all(&self, id: &str, me: NodeId) -> bool {
        if !self.intent_rev.contains_key(id) {
            return false;
        }
        let acks = self.acks.get(id);
        self.nodes
            .iter()
            .filter(|&&n| n != me)
            .all(|n| acks.is_some_and(|a| a.contains(n)))
    }

    /// The live nodes other than `me` that have not acknowledged intent `id`.
    pub(crate) fn missing_acks(&self, id: &str, me: NodeId) -> Vec<NodeId> {
        let acks = self.acks.get(id);
        self.nodes
            .iter()
            .copied()
            .filter(|&n| n != me && !acks.is_some_and(|a| a.contains(&n)))
            .collect()
    }
}
