//! Cluster-wide MySQL metadata locks: `mdl-core` on every node, etcd for order and liveness.
//!
//! Each node wraps its local [`MdlManager`](mdl_core::MdlManager) in a [`ClusterManager`].
//! Locks that never conflict with one another (S, SH, SR, SW, SWLP on objects, IX on scopes:
//! what statements take) stay local and cost what a local lock costs. Every other lock
//! *travels*: it is written to etcd as an *intent*, ordered by etcd's revision, taken on every
//! live node by a *stand-in* queued in that order, and granted to the requester once every live
//! node has acknowledged it. A node that dies stops counting when its lease expires; a node cut
//! off from etcd fences itself (the core's grant gate) before its lease can expire elsewhere.
//! Deadlocks that run through several nodes are found from the waits every node publishes.
//! The protocol, the deadlock detection and the failure semantics are in `docs/cluster.md`.
//!
//! ```no_run
//! use std::time::Duration;
//! use mdl_cluster::{ClusterConfig, ClusterManager};
//! use mdl_core::{LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let config = ClusterConfig::new(vec!["http://127.0.0.1:2379".into()], 1);
//! let node = ClusterManager::join(config, MdlManager::new(MdlConfig::default())?).await?;
//! let mut conn = node.new_context_with_id(12)?;
//! let t1 = MdlKey::new(Namespace::Table, "test", "t1")?;
//! // ALTER TABLE test.t1: every node's statements on t1 are waited for.
//! let x = MdlRequest::new(t1, LockType::Exclusive, LockDuration::Transaction);
//! conn.acquire_async(&x, Duration::from_secs(50)).await?;
//! conn.release_transactional_locks();
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod chain;
mod config;
mod context;
mod error;
pub mod history;
mod keys;
mod node;
mod observe;
mod route;
mod session;
mod standin;
pub mod testkit;
mod view;
mod waits;

/// The etcd client this crate is built on (for tools that talk to the same etcd).
pub use etcd_client;

pub use config::ClusterConfig;
pub use context::{travels, ClusterContext};
pub use error::{ClusterError, DeadlockError, Result, TimeoutError};
pub use keys::{NodeId, Party};
pub use node::{ClusterManager, NodeStatus};
pub use observe::{ClusterLock, ClusterWait};
