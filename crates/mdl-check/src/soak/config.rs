//! What a soak runs: threads, length, names, timeouts, the mix of operations, and the lock
//! manager's configuration.

use std::time::Duration;

use mdl_core::{MdlConfig, Namespace};

/// What to run.
#[derive(Debug, Clone)]
pub struct SoakConfig {
    /// Worker threads (one context each at a time).
    pub threads: usize,
    /// Stop after this long...
    pub duration: Option<Duration>,
    /// ... or after this many operations per thread (whichever comes first; at least one of
    /// the two must be set).
    pub ops_per_thread: Option<u64>,
    /// Seed of the per-thread random generators.
    pub seed: u64,
    /// Hot names per namespace (most operations use these).
    pub hot_names: usize,
    /// Cold names per namespace (a fifth of the operations; they make eviction happen).
    pub cold_names: usize,
    /// Longest short timeout of a wait (short waits are 1 ms ..= this).
    pub max_short_wait: Duration,
    /// Timeout of a long wait (a few percent of the waits).
    pub long_wait: Duration,
    /// How late a wait may end after its timeout before it is a violation.
    pub wait_margin: Duration,
    /// Per-operation probability (in 1/10000) of killing another thread's context.
    pub kill_per_10k: u32,
    /// Per-operation probability (in 1/10000) of dropping the own context while holding locks.
    pub drop_per_10k: u32,
    /// Namespaces to use (all 18 by default).
    pub namespaces: Vec<Namespace>,
    /// Relative weights of the operations: acquire, release, upgrade, downgrade, clone,
    /// savepoint + rollback, end of statement, end of transaction.
    pub weights: [u32; 8],
    /// The lock manager's configuration.
    pub mdl: MdlConfig,
}

impl Default for SoakConfig {
    fn default() -> Self {
        SoakConfig {
            threads: 8,
            duration: Some(Duration::from_secs(3)),
            ops_per_thread: None,
            seed: 0x5EED,
            hot_names: 3,
            cold_names: 80,
            max_short_wait: Duration::from_millis(20),
            long_wait: Duration::from_millis(1500),
            wait_margin: Duration::from_secs(2),
            kill_per_10k: 20,
            drop_per_10k: 30,
            namespaces: Namespace::ALL.to_vec(),
            weights: [45, 10, 8, 5, 5, 5, 9, 13],
            mdl: MdlConfig::default(),
        }
    }
}
