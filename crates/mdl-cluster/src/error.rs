//! The cluster's errors, with MySQL's error codes where MySQL has one.

use std::fmt;

use mdl_core::MdlError;

use crate::keys::Party;
use crate::observe::ClusterWait;

/// An error of a cluster-wide lock request or of the cluster layer.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ClusterError {
    /// The local lock manager's error (a local lock, or the requester's own node's part of a
    /// travelling one): timeouts, kills and deadlocks found on one node, bad input.
    Local(MdlError),
    /// A travelling lock was not granted by every live node within the timeout
    /// (`ER_LOCK_WAIT_TIMEOUT`, 1205). `blockers`: the waits across the cluster that held it up
    /// when the time ran out, each naming the node and context.
    Timeout(Box<TimeoutError>),
    /// The request was the victim of a deadlock that runs through more than one node
    /// (`ER_LOCK_DEADLOCK`, 1213). `cycle`: the contexts on the cycle, in order.
    Deadlock(Box<DeadlockError>),
    /// The request was killed (`ER_QUERY_INTERRUPTED`, 1317), locally or from another node.
    Killed(Box<str>),
    /// The node does not serve locks now: it is joining, or it fenced itself because it lost
    /// etcd (reported as MySQL's `ER_SERVER_OFFLINE_MODE`, 3032).
    NotServing,
    /// etcd failed or could not be reached while it mattered.
    Etcd(Box<str>),
    /// A value in etcd under the cluster's prefix could not be read.
    Corrupt(Box<str>),
    /// The node was shut down.
    Shutdown,
    /// The [`ClusterConfig`](crate::ClusterConfig) cannot work (says which field and why).
    Config(Box<str>),
}

/// The payload of [`ClusterError::Timeout`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TimeoutError {
    /// What the request waited for.
    pub what: String,
    /// The cluster's waits of this request when it ended.
    pub blockers: Vec<ClusterWait>,
}

/// The payload of [`ClusterError::Deadlock`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DeadlockError {
    /// What the victim asked for.
    pub what: String,
    /// The cycle, one party after another.
    pub cycle: Vec<Party>,
}

// Payloads are boxed so that a `Result<Ticket>` stays as small as the lock manager's own (the
// local path returns it on every statement).
const _: () = assert!(std::mem::size_of::<ClusterError>() <= 32);

impl ClusterError {
    /// MySQL's error code for this error, where one exists.
    pub fn mysql_error_code(&self) -> Option<u32> {
        match self {
            ClusterError::Local(e) => e.kind().mysql_error_code(),
            ClusterError::Timeout(_) => Some(1205),
            ClusterError::Deadlock(_) => Some(1213),
            ClusterError::Killed(_) => Some(1317),
            ClusterError::NotServing | ClusterError::Shutdown => Some(3032),
            ClusterError::Etcd(_) | ClusterError::Corrupt(_) | ClusterError::Config(_) => None,
        }
    }
}

impl From<MdlError> for ClusterError {
    fn from(e: MdlError) -> ClusterError {
        ClusterError::Local(e)
    }
}

impl From<etcd_client::Error> for ClusterError {
    fn from(e: etcd_client::Error) -> ClusterError {
        ClusterError::Etcd(e.to_string().into())
    }
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::Local(e) => write!(f, "{e}"),
            ClusterError::Timeout(t) => {
                write!(f, "Lock wait timeout exceeded; try restarting transaction ({}", t.what)?;
                for (i, b) in t.blockers.iter().enumerate() {
                    f.write_str(if i == 0 { "; blocked by " } else { "; " })?;
                    b.fmt_blocker(f)?;
                }
                f.write_str(")")
            }
            ClusterError::Deadlock(d) => {
                write!(
                    f,
                    "Deadlock found when trying to get lock; try restarting transaction ({}; cycle across nodes:",
                    d.what
                )?;
                for p in &d.cycle {
                    write!(f, " node {} context {} ->", p.node, p.context)?;
                }
                f.write_str(" ...)")
            }
            ClusterError::Killed(what) => {
                write!(f, "Query execution was interrupted ({what})")
            }
            ClusterError::NotServing => f.write_str(
                "The server is currently in offline mode: this node does not serve cluster locks now",
            ),
            ClusterError::Etcd(e) => write!(f, "etcd: {e}"),
            ClusterError::Corrupt(e) => write!(f, "unreadable cluster state in etcd: {e}"),
            ClusterError::Shutdown => f.write_str("the cluster node was shut down"),
            ClusterError::Config(why) => write!(f, "invalid cluster configuration: {why}"),
        }
    }
}

impl std::error::Error for ClusterError {}

/// Shorthand for results of the cluster layer.
pub type Result<T, E = ClusterError> = std::result::Result<T, E>;
