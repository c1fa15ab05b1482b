//! The lock manager: configuration, the lock map, the fast-path slots, the registry of live
//! contexts and the wait-for graph, and the diagnostics that read them.
//!
//! Contexts are created in `context.rs` ([`MdlManager::new_context`]); everything here is
//! shared by all of them and only read or changed under the locks of the parts (see each
//! module's protocol).

use std::sync::Arc;
use std::time::Duration;

use crate::deadlock::{DeadlockSearch, WaitForGraph};
use crate::error::{MdlError, Result};
use crate::fast_path::{FastPath, SlotTable};
use crate::key::MdlKey;
use crate::lock::Env;
use crate::map::{LockMap, PartitionHash};
use crate::shared::Registry;
use crate::ticket_store::TicketIndex;
use crate::timer::{AsyncTimer, Timer};

/// `lock_wait_timeout`'s default: one year (MySQL's `LONG_TIMEOUT`).
pub const LONG_TIMEOUT: Duration = Duration::from_secs(3600 * 24 * 365);

/// Configuration of a lock manager. The defaults are MySQL 8.0's, except the fast path
/// ([`FastPath::PerContext`]; MySQL's is [`FastPath::SharedWord`]), the lock-object cache and
/// when a wait searches for deadlocks ([`DeadlockSearch::WhenWaitedFor`]; MySQL's is
/// [`DeadlockSearch::EveryWait`]).
///
/// Non-exhaustive, so new options are not breaking changes: build one with
/// [`MdlConfig::builder`] (which checks the ranges), or change the fields of
/// [`MdlConfig::default()`].
///
/// ```
/// use mdl_core::{FastPath, MdlConfig, MdlManager, PartitionHash};
/// // MySQL 5.6.14: 8 partitions with the old hash, no fast path, no lock cache.
/// let config = MdlConfig::builder()
///     .shards(8)
///     .partition_hash(PartitionHash::MySqlBin)
///     .fast_path(FastPath::Off)
///     .lock_cache(0)
///     .build()?;
/// let mgr = MdlManager::new(config)?;
/// # Ok::<(), mdl_core::MdlError>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct MdlConfig {
    /// Number of lock-map partitions, each behind its own mutex (MySQL 5.6's
    /// `metadata_locks_hash_instances`, default 8). 1..=1024.
    pub shards: usize,
    /// How a key picks its partition.
    pub partition_hash: PartitionHash,
    /// How unobtrusive locks (S, SH, SR, SW, SWLP; IX on scoped locks) are granted.
    pub fast_path: FastPath,
    /// [`FastPath::PerContext`]: slots in the manager's slot table (rounded up to whole groups
    /// of 16; 0..=1,048,576, default 4096). A strong request on an object that slots hold scans
    /// the whole table once; a context whose home group is full takes the slow path.
    pub fast_path_slots: usize,
    /// How a context finds its own tickets.
    pub ticket_index: TicketIndex,
    /// After this many hog (SNW, SNRW, X) or piglet (SW over SRO) grants in a row while others
    /// wait, let the others go first (MySQL's `max_write_lock_count`; default `u64::MAX`).
    pub max_write_lock_count: u64,
    /// Lock objects each context remembers (direct-mapped by key hash, rounded up to a power of
    /// two; 0 disables): a statement on a recently used table finds its lock object without the
    /// partition mutex. `0` reproduces MySQL, where every lookup goes to the lock map.
    /// Evicted objects are detected and looked up again. Default 64 (512 bytes per context):
    /// with 16, eight hot tables collided in the direct-mapped cache in most draws and sent
    /// statements to the shared partition mutex (2 sessions on 8 tables scaled 1.60x instead of
    /// 2.0x, `mdl-bench peers`). A cached object stays allocated until its entry is
    /// overwritten, even after eviction from the map.
    pub lock_cache: usize,
    /// Every new context's [`MdlContext::lock_wait_timeout`](crate::MdlContext::lock_wait_timeout),
    /// the timeout of `acquire_default` and `acquire_default_async` (MySQL's
    /// `lock_wait_timeout`; default one year).
    pub lock_wait_timeout: Duration,
    /// Which waits run a deadlock search from their requester.
    pub deadlock_search: DeadlockSearch,
    /// Which timer ends async waits at their deadlines (default: the manager's own thread).
    pub async_timer: AsyncTimer,
    /// Deadlocks kept for [`MdlManager::deadlocks`] (0 keeps none).
    pub deadlock_history: usize,
    /// Unused lock objects are freed only once more than this many exist (MySQL: 1000).
    pub unused_locks_low_water: usize,
    /// ... and once more than this fraction of all lock objects is unused (MySQL: 0.25).
    pub unused_locks_min_ratio: f64,
}

impl Default for MdlConfig {
    fn default() -> Self {
        MdlConfig {
            shards: 8,
            partition_hash: PartitionHash::Murmur3,
            fast_path: FastPath::default(),
            fast_path_slots: 4096,
            ticket_index: TicketIndex::Hashed,
            lock_cache: 64,
            max_write_lock_count: u64::MAX,
            lock_wait_timeout: LONG_TIMEOUT,
            deadlock_search: DeadlockSearch::default(),
            async_timer: AsyncTimer::default(),
            deadlock_history: 100,
            unused_locks_low_water: 1000,
            unused_locks_min_ratio: 0.25,
        }
    }
}

/// Declares [`MdlConfigBuilder`]'s setters, one per [`MdlConfig`] field.
macro_rules! config_setters {
    ($($field:ident: $ty:ty),* $(,)?) => {
        impl MdlConfigBuilder {
            $(
                #[doc = concat!("Sets [`MdlConfig::", stringify!($field), "`].")]
                pub fn $field(mut self, $field: $ty) -> MdlConfigBuilder {
                    self.config.$field = $field;
                    self
                }
            )*
        }
    };
}

/// Builds an [`MdlConfig`] from the defaults ([`MdlConfig::builder`]).
#[derive(Debug, Clone, Default)]
#[must_use = "a builder does nothing until `build`"]
pub struct MdlConfigBuilder {
    config: MdlConfig,
}

config_setters! {
    shards: usize,
    partition_hash: PartitionHash,
    fast_path: FastPath,
    fast_path_slots: usize,
    ticket_index: TicketIndex,
    max_write_lock_count: u64,
    lock_cache: usize,
    lock_wait_timeout: Duration,
    deadlock_search: DeadlockSearch,
    async_timer: AsyncTimer,
    deadlock_history: usize,
    unused_locks_low_water: usize,
    unused_locks_min_ratio: f64,
}

impl MdlConfigBuilder {
    /// The configuration, with its ranges checked ([`MdlConfig::validate`]).
    ///
    /// # Errors
    /// [`MdlError::InvalidConfig`] naming the first field out of range.
    pub fn build(self) -> Result<MdlConfig> {
        self.config.validate()?;
        Ok(self.config)
    }
}

impl MdlConfig {
    /// A builder starting from the defaults.
    pub fn builder() -> MdlConfigBuilder {
        MdlConfigBuilder::default()
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// [`MdlError::InvalidConfig`] naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        if !(1..=1024).contains(&self.shards) {
            return Err(MdlError::InvalidConfig(format!(
                "shards must be in 1..=1024, got {}",
                self.shards
            )));
        }
        if self.fast_path_slots > 1 << 20 {
            return Err(MdlError::InvalidConfig(format!(
                "fast_path_slots must be at most 1048576, got {}",
                self.fast_path_slots
            )));
        }
        if self.lock_cache > 4096 {
            return Err(MdlError::InvalidConfig(format!(
                "lock_cache must be at most 4096, got {}",
                self.lock_cache
            )));
        }
        if self.max_write_lock_count == 0 {
            return Err(MdlError::InvalidConfig(
                "max_write_lock_count must be at least 1".into(),
            ));
        }
        if !(0.0..=1.0).contains(&self.unused_locks_min_ratio) {
            return Err(MdlError::InvalidConfig(format!(
                "unused_locks_min_ratio must be in 0..=1, got {}",
                self.unused_locks_min_ratio
            )));
        }
        Ok(())
    }
}

/// The lock manager: the lock map, the fast-path slots, the live contexts and the wait-for
/// graph. One per server; contexts ([`MdlManager::new_context`]) hold an `Arc` to it.
pub struct MdlManager {
    pub(crate) config: MdlConfig,
    pub(crate) map: LockMap,
    pub(crate) env: Env,
    pub(crate) graph: WaitForGraph,
    /// Deadlines of this manager's async waits (its own thread, started by the first).
    pub(crate) timer: Timer,
    /// Feature `metrics`: bumped by each `publish_metrics`, which asks the contexts to publish
    /// their counts (`publish.rs`).
    #[cfg(feature = "metrics")]
    pub(crate) metrics_epoch: crate::sync::AtomicU64,
}

impl MdlManager {
    /// A lock manager with `config`.
    ///
    /// # Errors
    /// [`MdlError::InvalidConfig`] if a field is out of range.
    pub fn new(config: MdlConfig) -> Result<Arc<MdlManager>> {
        config.validate()?;
        let slots = if config.fast_path == FastPath::PerContext {
            config.fast_path_slots
        } else {
            0
        };
        Ok(Arc::new(MdlManager {
            map: LockMap::new(
                config.shards,
                config.partition_hash,
                config.unused_locks_low_water,
                config.unused_locks_min_ratio,
            ),
            env: Env {
                mode: config.fast_path,
                max_write_lock_count: config.max_write_lock_count,
                slots: SlotTable::new(slots),
                registry: Registry::new(),
                gate: Default::default(),
            },
            graph: WaitForGraph::new(config.deadlock_history),
            timer: Timer::new(),
            #[cfg(feature = "metrics")]
            metrics_epoch: crate::sync::AtomicU64::new(0),
            config,
        }))
    }

    /// The configuration.
    pub fn config(&self) -> &MdlConfig {
        &self.config
    }

    /// Number of live contexts.
    pub fn context_count(&self) -> usize {
        self.env.registry.len()
    }

    /// Number of lock objects in the lock map (the four pre-allocated singletons excluded).
    pub fn lock_object_count(&self) -> usize {
        self.map.objects()
    }

    /// Number of lock objects nobody uses, waiting to be reused or evicted.
    pub fn unused_lock_object_count(&self) -> usize {
        self.map.unused_objects(&self.env)
    }

    /// The partition `key` belongs to, under the configured hash and shard count.
    pub fn partition_of(&self, key: &MdlKey) -> usize {
        self.map.partition_of(key)
    }

    /// Number of partitions.
    pub fn partitions(&self) -> usize {
        self.map.partitions()
    }
}

impl std::fmt::Debug for MdlManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MdlManager")
            .field("config", &self.config)
            .finish()
    }
}
