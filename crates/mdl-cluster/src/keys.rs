//! The cluster's keys in etcd, and what their values say.
//!
//! Everything lives under one prefix `P` (`ClusterConfig::prefix`), so one watch sees every
//! change in etcd's revision order:
//!
//! | key | value | lease | written by |
//! |---|---|---|---|
//! | `P n/<node>` | [`NodeInfo`] | the node's | the node, when it joins |
//! | `P i/<node>/<seq>` | [`Intent`] | the requester node's | a requester of a travelling lock |
//! | `P a/<node>/<seq>/<acker>` | empty | the acker's | a node whose stand-in was granted |
//! | `P w/<node>` | [`PublishedWaits`] | the node's | the node, when its waits change |
//! | `P k/<node>/<context>` | [`KillRequest`] | the killer's | `ClusterManager::kill` for a remote context |
//!
//! An intent's *id* is `<node>/<seq>` (the requester's node and a per-node sequence number);
//! its *order* is the revision etcd created it at (`create_revision`), the same on every node.

use mdl_core::{LockType, MdlKey, Namespace};
use serde::{Deserialize, Serialize};

use crate::error::ClusterError;

/// A node's id in the cluster (unique among live nodes; a restarted node may reuse its id).
pub type NodeId = u64;

/// The key prefixes under the cluster's prefix.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub(crate) prefix: String,
}

/// What a key under the prefix is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyKind {
    Node(NodeId),
    Intent(String),
    Ack { intent: String, acker: NodeId },
    Waits(NodeId),
    Kill { node: NodeId, context: u64 },
    Other,
}

impl Layout {
    pub(crate) fn node(&self, node: NodeId) -> String {
        format!("{}n/{node}", self.prefix)
    }
    pub(crate) fn intent(&self, id: &str) -> String {
        format!("{}i/{id}", self.prefix)
    }
    pub(crate) fn ack(&self, id: &str, acker: NodeId) -> String {
        format!("{}a/{id}/{acker}", self.prefix)
    }
    pub(crate) fn acks_of(&self, id: &str) -> String {
        format!("{}a/{id}/", self.prefix)
    }
    pub(crate) fn waits(&self, node: NodeId) -> String {
        format!("{}w/{node}", self.prefix)
    }
    pub(crate) fn kill(&self, node: NodeId, context: u64) -> String {
        format!("{}k/{node}/{context}", self.prefix)
    }

    /// Parses a key read from etcd.
    pub(crate) fn parse(&self, key: &[u8]) -> KeyKind {
        let Some(rest) = std::str::from_utf8(key)
            .ok()
            .and_then(|k| k.strip_prefix(self.prefix.as_str()))
        else {
            return KeyKind::Other;
        };
        let parts: Vec<&str> = rest.split('/').collect();
        let num = |s: &str| s.parse::<u64>().ok();
        match parts.as_slice() {
            ["n", n] => num(n).map_or(KeyKind::Other, KeyKind::Node),
            ["i", n, s] if num(n).is_some() => KeyKind::Intent(format!("{n}/{s}")),
            ["a", n, s, a] => match (num(n), num(a)) {
                (Some(_), Some(acker)) => KeyKind::Ack {
                    intent: format!("{n}/{s}"),
                    acker,
                },
                _ => KeyKind::Other,
            },
            ["w", n] => num(n).map_or(KeyKind::Other, KeyKind::Waits),
            ["k", n, c] => match (num(n), num(c)) {
                (Some(node), Some(context)) => KeyKind::Kill { node, context },
                _ => KeyKind::Other,
            },
            _ => KeyKind::Other,
        }
    }
}

/// A live node's registration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct NodeInfo {
    pub(crate) node: NodeId,
    /// The session number of this registration (a node that fenced itself joins again with
    /// the next).
    pub(crate) session: u64,
}

/// A metadata lock name, as stored in etcd.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredKey {
    ns: u8,
    schema: String,
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    column: Option<String>,
}

impl StoredKey {
    pub(crate) fn from_key(key: &MdlKey) -> StoredKey {
        StoredKey {
            ns: key.namespace().id(),
            schema: key.schema().to_owned(),
            name: key.name().to_owned(),
            column: key.column().map(str::to_owned),
        }
    }

    pub(crate) fn to_key(&self) -> Result<MdlKey, ClusterError> {
        let ns = Namespace::from_id(self.ns)
            .ok_or_else(|| ClusterError::Corrupt(format!("namespace id {}", self.ns).into()))?;
        let key = match &self.column {
            Some(c) => MdlKey::column_statistics(&self.schema, &self.name, c),
            None if ns.is_singleton() => MdlKey::singleton(ns),
            None => MdlKey::new(ns, &self.schema, &self.name),
        };
        Ok(key?)
    }
}

/// A travelling lock request (an *intent*): who asks for what.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Intent {
    pub(crate) node: NodeId,
    pub(crate) context: u64,
    #[serde(default)]
    pub(crate) label: Option<String>,
    pub(crate) key: StoredKey,
    pub(crate) lock_type: u8,
    pub(crate) duration: u8,
    /// The types the requester holds on the object, as a bitmap of [`LockType::bit`]s (each
    /// type whose lock it owns or a stronger one): the request is an upgrade (`chain.rs`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) held: u16,
}

impl Intent {
    pub(crate) fn lock_type(&self) -> Result<LockType, ClusterError> {
        LockType::from_id(self.lock_type)
            .ok_or_else(|| ClusterError::Corrupt(format!("lock type id {}", self.lock_type).into()))
    }
}

fn is_zero(bits: &u16) -> bool {
    *bits == 0
}

/// One side of a wait across the cluster: a context on a node.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Party {
    /// The node.
    pub node: NodeId,
    /// The context on that node.
    pub context: u64,
}

/// One wait edge a node publishes: `waiter` waits for `blocker` on `object`. A stand-in on
/// either side is already replaced by the requester it stands in for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WaitEdge {
    pub(crate) waiter: Party,
    pub(crate) waiter_label: Option<String>,
    /// The revision of the waiter's travelling request, if it is in one.
    pub(crate) waiter_intent: Option<i64>,
    pub(crate) blocker: Party,
    pub(crate) blocker_label: Option<String>,
    pub(crate) object: String,
    pub(crate) requested: String,
    pub(crate) held: String,
    pub(crate) hard: bool,
    pub(crate) waited_ms: u64,
    /// The node whose lock manager has this wait.
    pub(crate) at: NodeId,
}

/// A node's published waits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PublishedWaits {
    pub(crate) edges: Vec<WaitEdge>,
}

/// A kill of a remote context.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) struct KillRequest {
    /// `true`: `KILL` (the connection); `false`: `KILL QUERY`.
    pub(crate) connection: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_back() {
        let l = Layout {
            prefix: "/mdl/x/".into(),
        };
        assert_eq!(l.parse(l.node(3).as_bytes()), KeyKind::Node(3));
        assert_eq!(
            l.parse(l.intent("2/00000000000000a1").as_bytes()),
            KeyKind::Intent("2/00000000000000a1".into())
        );
        assert_eq!(
            l.parse(l.ack("2/0a", 5).as_bytes()),
            KeyKind::Ack {
                intent: "2/0a".into(),
                acker: 5
            }
        );
        assert_eq!(l.parse(l.waits(4).as_bytes()), KeyKind::Waits(4));
        assert_eq!(
            l.parse(l.kill(4, 12).as_bytes()),
            KeyKind::Kill {
                node: 4,
                context: 12
            }
        );
        assert_eq!(l.parse(b"/mdl/y/n/1"), KeyKind::Other);
        assert_eq!(l.parse(b"/mdl/x/n/abc"), KeyKind::Other);
    }

    #[test]
    fn stored_keys_round_trip() {
        for key in [
            MdlKey::new(Namespace::Table, "db", "t1").unwrap(),
            MdlKey::singleton(Namespace::Global).unwrap(),
            MdlKey::column_statistics("db", "t", "c").unwrap(),
        ] {
            assert_eq!(StoredKey::from_key(&key).to_key().unwrap(), key);
        }
    }
}
