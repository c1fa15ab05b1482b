//! How a node joins the cluster.

use std::time::Duration;

use crate::error::{ClusterError, Result};
use crate::keys::NodeId;

/// A node's configuration ([`ClusterManager::join`](crate::ClusterManager::join)).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClusterConfig {
    /// etcd's client URLs (`http://127.0.0.1:2379`, ...).
    pub endpoints: Vec<String>,
    /// This node's id, unique among live nodes.
    pub node: NodeId,
    /// Every key of the cluster lives under this prefix (default `/mdl/`).
    pub prefix: String,
    /// The node's etcd lease TTL: a node that stops renewing its lease (dead, or cut off) stops
    /// blocking the others this long after its last renewal (default 5 s; etcd's minimum is
    /// about 1.5 x its election timeout).
    pub lease_ttl: Duration,
    /// How often the lease is renewed (default a third of the TTL).
    pub keep_alive: Duration,
    /// A node that has not renewed its lease fences itself this long before the lease could
    /// expire (default 1.5 s, and at most half the TTL): the time it has to refuse new grants,
    /// kill its holders and wait them out.
    pub fence_margin: Duration,
    /// How often a node looks for changes in its waits to publish (and so how soon a deadlock
    /// across nodes is found; default 50 ms).
    pub wait_publish_interval: Duration,
    /// Timeout of one etcd request (default 2 s).
    pub request_timeout: Duration,
    /// Send requests to the etcd leader's endpoint when one of `endpoints` is the leader
    /// (default on): a write sent to a follower is forwarded to the leader, and a follower's
    /// watch delivers later, so a travelling lock waits less. Off, requests are balanced over
    /// every endpoint.
    pub prefer_leader: bool,
}

impl ClusterConfig {
    /// The defaults for node `node` of the etcd cluster at `endpoints`.
    pub fn new(endpoints: Vec<String>, node: NodeId) -> ClusterConfig {
        ClusterConfig {
            endpoints,
            node,
            prefix: "/mdl/".into(),
            lease_ttl: Duration::from_secs(5),
            keep_alive: Duration::from_millis(1666),
            fence_margin: Duration::from_millis(1500),
            wait_publish_interval: Duration::from_millis(50),
            request_timeout: Duration::from_secs(2),
            prefer_leader: true,
        }
    }

    /// Sets the lease TTL, the keep-alive interval (TTL / 3) and the fence margin (TTL / 3,
    /// at most 1.5 s... at least 300 ms).
    pub fn lease_ttl(mut self, ttl: Duration) -> ClusterConfig {
        self.lease_ttl = ttl;
        self.keep_alive = ttl / 3;
        self.fence_margin =
            (ttl / 3).clamp(Duration::from_millis(300), Duration::from_millis(1500));
        self
    }

    /// Sets whether requests go to the etcd leader's endpoint when it is known.
    pub fn prefer_leader(mut self, on: bool) -> ClusterConfig {
        self.prefer_leader = on;
        self
    }

    /// Sets the prefix (several clusters can share one etcd under different prefixes).
    pub fn prefix(mut self, prefix: impl Into<String>) -> ClusterConfig {
        self.prefix = prefix.into();
        self
    }

    /// Checks that the settings can work together ([`ClusterManager::join`] calls it):
    /// a lease renewed before the node would fence itself, a fence margin of at most half the
    /// TTL, and no zero interval.
    ///
    /// [`ClusterManager::join`]: crate::ClusterManager::join
    ///
    /// # Errors
    /// [`ClusterError::Config`] naming the field.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mdl_cluster::ClusterConfig;
    ///
    /// let good = ClusterConfig::new(vec!["http://127.0.0.1:2379".into()], 1);
    /// assert!(good.validate().is_ok());
    /// let mut bad = good.clone();
    /// bad.lease_ttl = Duration::from_secs(2); // keep_alive and fence_margin left as they were
    /// assert!(bad.validate().is_err());
    /// assert!(good.lease_ttl(Duration::from_secs(2)).validate().is_ok());
    /// ```
    pub fn validate(&self) -> Result<()> {
        let bad = |why: String| Err(ClusterError::Config(why.into()));
        let zero = Duration::ZERO;
        if self.endpoints.is_empty() {
            return bad("no etcd endpoint".into());
        }
        for (name, d) in [
            ("lease_ttl", self.lease_ttl),
            ("keep_alive", self.keep_alive),
            ("fence_margin", self.fence_margin),
            ("wait_publish_interval", self.wait_publish_interval),
            ("request_timeout", self.request_timeout),
        ] {
            if d == zero {
                return bad(format!("{name} is zero"));
            }
        }
        if self.fence_margin > self.lease_ttl / 2 {
            return bad(format!(
                "fence_margin {:?} is more than half of lease_ttl {:?}",
                self.fence_margin, self.lease_ttl
            ));
        }
        if self.keep_alive >= self.lease_ttl - self.fence_margin {
            return bad(format!(
                "keep_alive {:?} is not shorter than lease_ttl {:?} minus fence_margin {:?}: the \
                 node would fence itself before its first renewal",
                self.keep_alive, self.lease_ttl, self.fence_margin
            ));
        }
        Ok(())
    }

    /// The TTL in whole seconds, as etcd takes it (at least 1).
    pub(crate) fn ttl_secs(&self) -> i64 {
        (self.lease_ttl.as_secs_f64().ceil() as i64).max(1)
    }
}
