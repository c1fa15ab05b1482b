//! # mdl-core: MySQL 8.0's metadata lock manager, in Rust
//!
//! A database takes a *metadata lock* (MDL) on every table, schema, routine or other named
//! object a statement touches, so that DDL cannot change an object while statements use it.
//! This crate reimplements MySQL's MDL subsystem with its exact semantics — the 18 namespaces,
//! the 11 lock types, the granted and priority matrices, durations, savepoints, upgrade and
//! downgrade, the fast path for DML locks, waits with timeouts and kills, deadlock detection with
//! victim weights — and keeps the older design choices MySQL's published performance curves
//! depend on as configuration: the number of lock-map partitions and their hash, the fast path,
//! and the linear ticket list.
//!
//! ```
//! use std::time::Duration;
//! use mdl_core::{LockDuration, LockType, MdlConfig, MdlError, MdlKey, MdlManager, MdlRequest, Namespace};
//!
//! let mgr = MdlManager::new(MdlConfig::default())?;
//! let mut reader = mgr.new_context();
//! let mut ddl = mgr.new_context();
//!
//! // SELECT: a shared-read lock on the table until the end of the statement.
//! let t1 = MdlKey::new(Namespace::Table, "test", "t1")?;
//! reader.acquire(
//!     &MdlRequest::new(t1.clone(), LockType::SharedRead, LockDuration::Statement),
//!     Duration::from_secs(1),
//! )?;
//!
//! // DROP TABLE: an exclusive lock conflicts with the reader's lock...
//! let drop = MdlRequest::new(t1, LockType::Exclusive, LockDuration::Transaction);
//! assert_eq!(ddl.acquire(&drop, Duration::from_millis(10)), Err(MdlError::Timeout));
//!
//! // ...until the reader's statement ends.
//! reader.release_statement_locks();
//! let x = ddl.acquire(&drop, Duration::from_secs(1))?;
//! ddl.release(x)?;
//! # Ok::<(), MdlError>(())
//! ```
//!
//! ## The model
//!
//! * An [`MdlManager`] owns the lock map; each connection gets an [`MdlContext`]
//!   ([`MdlManager::new_context`]). A context is used by one thread at a time; other threads
//!   reach it only through a [`KillHandle`].
//! * A request ([`MdlRequest`]) names a key ([`MdlKey`]: namespace, schema, name), a
//!   [`LockType`] and a [`LockDuration`]. A granted request is a [`Ticket`], a small handle valid
//!   only in its context.
//! * Compatibility follows MySQL's matrices (see [`matrix`]): a request is granted when no
//!   granted lock of another context conflicts with it and no pending request has priority
//!   over it. Pending requests are granted in FIFO order within those rules, with MySQL's
//!   `max_write_lock_count` anti-starvation switch.
//! * Unobtrusive locks (S, SH, SR, SW, SWLP, and IX on scoped locks) are granted on a *fast
//!   path*: one compare-and-swap on the lock object's state word, no queue. Obtrusive requests
//!   and waits see them after the holders *materialize* them into the queue.
//! * A request that must wait searches the wait-for graph; the cheapest context on a cycle
//!   (DML < user lock < DDL) gets [`MdlError::Deadlock`].
//!
//! ## Configuration that reproduces MySQL's history
//!
//! | [`MdlConfig`] field | MySQL behaviour it reproduces |
//! |---|---|
//! | `shards: 1` | 5.5/5.6 with one `MDL_map` mutex |
//! | `shards: 8`, `partition_hash: MySqlBin` | 5.6.14: 8 partitions, but `sbtest1..8` all hash to one |
//! | `shards: 8`, `partition_hash: Murmur3` | 5.6.15+ |
//! | `fast_path: FastPath::Off` | 5.6 (no fast path; every lock goes through the queues) |
//! | `fast_path: FastPath::SharedWord` | 5.7 / 8.0 (one compare-and-swap on a shared word) |
//! | `ticket_index: LinearList` | before 8.0.4 (Bug #83143: O(N) `find_ticket`) |
//!
//! ## Cargo features
//!
//! * `pfs` (default): instruments the partition mutexes, lock-object locks, wait slots and
//!   metadata-lock waits through the `pfs` crate. Without it the crate has no instrumentation
//!   code at all.

#![warn(missing_docs)]

mod context;
mod deadlock;
mod error;
mod hash;
#[cfg(feature = "pfs")]
mod instrument;
mod key;
mod lock;
mod map;
pub mod matrix;
mod sync;
mod ticket_store;
mod types;
mod wait;

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

pub use context::{
    ContextId, EngineRefusal, HolderInfo, KillHandle, MdlContext, MdlOwner, MdlRequest,
    MdlSavepoint, Ticket, TicketInfo,
};
pub use deadlock::MAX_SEARCH_DEPTH;
pub use error::{MdlError, Result};
pub use hash::{murmur3_32, mysql_hash_sort_bin};
#[cfg(feature = "pfs")]
pub use instrument::PUBLISHED_SLOTS;
pub use key::{MdlKey, NAME_CHAR_LEN};
pub use map::PartitionHash;
pub use ticket_store::{TicketIndex, HASH_THRESHOLD};
pub use types::{LockDuration, LockType, Namespace, Strategy};

use context::ContextShared;
use map::LockMap;
use sync::{Mutex, Ordering};

/// A granted or pending slow-path ticket ([`MdlManager::slow_path_locks`]).
#[derive(Debug, Clone)]
pub struct LockEntryInfo {
    /// The locked name.
    pub key: MdlKey,
    /// The granted or requested type.
    pub lock_type: LockType,
    /// Granted (true) or pending.
    pub granted: bool,
    /// The owning context.
    pub context: ContextId,
    /// The ticket's id (unique within the manager).
    pub ticket_id: u64,
}

/// How unobtrusive locks are granted ([`MdlConfig::fast_path`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FastPath {
    /// Every lock goes through the lock object's queues under its lock (MySQL 5.6).
    Off,
    /// One compare-and-swap on the lock object's shared state word (MySQL 5.7 and 8.0,
    /// WL#7304/WL#7306).
    #[default]
    SharedWord,
}

impl FastPath {
    /// Every mode, for tests and reports that cover them all.
    pub const ALL: [FastPath; 2] = [FastPath::Off, FastPath::SharedWord];

    /// Whether unobtrusive locks can be granted without the lock object's queues.
    pub fn is_on(self) -> bool {
        self != FastPath::Off
    }

    /// A short name for reports (`off`, `shared-word`).
    pub fn name(self) -> &'static str {
        match self {
            FastPath::Off => "off",
            FastPath::SharedWord => "shared-word",
        }
    }
}

/// `lock_wait_timeout`'s default: one year (MySQL's `LONG_TIMEOUT`).
pub const LONG_TIMEOUT: Duration = Duration::from_secs(3600 * 24 * 365);

/// Configuration of a lock manager. The defaults are MySQL's.
#[derive(Debug, Clone)]
pub struct MdlConfig {
    /// Number of lock-map partitions, each behind its own mutex (MySQL 5.6's
    /// `metadata_locks_hash_instances`, default 8). 1..=1024.
    pub shards: usize,
    /// How a key picks its partition.
    pub partition_hash: PartitionHash,
    /// How unobtrusive locks (S, SH, SR, SW, SWLP; IX on scoped locks) are granted.
    pub fast_path: FastPath,
    /// How a context finds its own tickets.
    pub ticket_index: TicketIndex,
    /// After this many hog (SNW, SNRW, X) or piglet (SW over SRO) grants in a row while others
    /// wait, let the others go first (MySQL's `max_write_lock_count`; default `u64::MAX`).
    pub max_write_lock_count: u64,
    /// Lock objects each context remembers (direct-mapped by key hash, rounded up to a power of
    /// two; 0 disables): a statement on a recently used table finds its lock object without the
    /// partition mutex. `0` reproduces MySQL, where every lookup goes to the lock map.
    /// Evicted objects are detected and looked up again.
    pub lock_cache: usize,
    /// The default wait timeout for callers that want MySQL's (`lock_wait_timeout`, one year).
    pub lock_wait_timeout: Duration,
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
            fast_path: FastPath::SharedWord,
            ticket_index: TicketIndex::Hashed,
            lock_cache: 16,
            max_write_lock_count: u64::MAX,
            lock_wait_timeout: LONG_TIMEOUT,
            unused_locks_low_water: 1000,
            unused_locks_min_ratio: 0.25,
        }
    }
}

impl MdlConfig {
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

/// The lock manager: the lock map and the registry of live contexts.
pub struct MdlManager {
    config: MdlConfig,
    map: LockMap,
    contexts: Mutex<HashMap<u64, Weak<ContextShared>>>,
    /// Serializes deadlock searches (taken only by contexts about to wait).
    deadlock_search: Mutex<()>,
}

impl MdlManager {
    /// A lock manager with `config`.
    ///
    /// # Errors
    /// [`MdlError::InvalidConfig`] if a field is out of range.
    pub fn new(config: MdlConfig) -> Result<Arc<MdlManager>> {
        config.validate()?;
        Ok(Arc::new(MdlManager {
            map: LockMap::new(
                config.shards,
                config.partition_hash,
                config.unused_locks_low_water,
                config.unused_locks_min_ratio,
            ),
            config,
            contexts: Mutex::new(HashMap::new()),
            deadlock_search: Mutex::new(()),
        }))
    }

    /// The configuration.
    pub fn config(&self) -> &MdlConfig {
        &self.config
    }

    /// A new context (one per connection).
    pub fn new_context(self: &Arc<Self>) -> MdlContext {
        self.context_with(None)
    }

    /// A new context whose owner receives the notifications of [`MdlOwner`].
    pub fn new_context_with_owner(self: &Arc<Self>, owner: Arc<dyn MdlOwner>) -> MdlContext {
        self.context_with(Some(owner))
    }

    fn context_with(self: &Arc<Self>, owner: Option<Arc<dyn MdlOwner>>) -> MdlContext {
        // Ids are unique in the process, not just in this manager, so a ticket (which names its
        // context by id) of another manager's context is never mistaken for one of ours.
        // (A plain std atomic: the id counter is not part of any loom model.)
        static NEXT_CONTEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT_CONTEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let shared = Arc::new(ContextShared::new(id, owner));
        self.contexts.lock().insert(id, Arc::downgrade(&shared));
        MdlContext::new(self.clone(), shared)
    }

    pub(crate) fn unregister_context(&self, id: u64) {
        self.contexts.lock().remove(&id);
    }

    #[cfg(feature = "pfs")]
    pub(crate) fn live_contexts(&self) -> Vec<Arc<ContextShared>> {
        self.contexts
            .lock()
            .values()
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// `performance_schema.metadata_locks`: the granted tickets and pending requests of every
    /// live context, published while the `wait/lock/metadata/sql/mdl` instrument was enabled
    /// (MySQL likewise shows only tickets created while it was), rendered like the mysql client
    /// (`Display`) or as JSON. At most [`PUBLISHED_SLOTS`] tickets per context are shown.
    #[cfg(feature = "pfs")]
    pub fn metadata_locks(&self) -> pfs::tables::MetadataLocks {
        instrument::metadata_locks(self)
    }

    /// Number of live contexts.
    pub fn context_count(&self) -> usize {
        self.contexts.lock().len()
    }

    /// The context holding the first granted slow-path lock on `key`, if any (MySQL's
    /// `find_lock_owner`; locks held on the fast path are not visible to it).
    pub fn find_lock_owner(&self, key: &MdlKey) -> Option<ContextId> {
        loop {
            let lock = self.map.find(key)?;
            let st = lock.state.read_recursive();
            if lock.fast_path.load(Ordering::Acquire) & lock::IS_DESTROYED != 0 {
                continue;
            }
            return st.granted().next().map(|e| ContextId(e.ctx.id));
        }
    }

    /// Number of lock objects in the lock map (the four pre-allocated singletons excluded).
    pub fn lock_object_count(&self) -> usize {
        self.map.objects()
    }

    /// Number of lock objects nobody uses, waiting to be reused or evicted.
    pub fn unused_lock_object_count(&self) -> usize {
        self.map.unused_objects()
    }

    /// The slow-path tickets of every lock object, granted and pending: what
    /// `performance_schema.metadata_locks` shows, minus the locks held on the fast path (those
    /// are counters in the lock object, attributed to no context until materialized).
    pub fn slow_path_locks(&self) -> Vec<LockEntryInfo> {
        let mut rows = Vec::new();
        self.map.for_each(|lock| {
            let st = lock.state.read_recursive();
            for e in st.granted().chain(st.waiting()) {
                rows.push(LockEntryInfo {
                    key: lock.key.clone(),
                    lock_type: e.ty,
                    granted: e.granted,
                    context: ContextId(e.ctx.id),
                    ticket_id: e.ticket_id,
                });
            }
        });
        rows
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
