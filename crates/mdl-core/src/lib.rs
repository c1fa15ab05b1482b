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
//! use mdl_core::{
//!     ErrorKind, LockDuration, LockType, MdlConfig, MdlError, MdlKey, MdlManager, MdlRequest,
//!     Namespace,
//! };
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
//! let err = ddl.acquire(&drop, Duration::from_millis(10)).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Timeout);
//! // The error names what blocked the request: the reader's SHARED_READ.
//! let MdlError::Timeout(wait) = &err else { unreachable!() };
//! assert_eq!(wait.blockers[0].context, Some(reader.id()));
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
//!   path* (see [`FastPath`]): by default recorded in a slot that only the locking context
//!   writes, so statements on one hot table on several cores do not share a cache line. The
//!   first obtrusive request on an object transfers those slots into the object's queue.
//! * A request that must wait searches the wait-for graph (by default only if another request
//!   already waits for its context: see [`DeadlockSearch`]); the cheapest context on a cycle
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
//! | `fast_path: FastPath::PerContext` (default) | not MySQL: PostgreSQL-style per-context slots |
//! | `ticket_index: LinearList` | before 8.0.4 (Bug #83143: O(N) `find_ticket`) |
//! | `deadlock_search: DeadlockSearch::EveryWait` | every MySQL version: each wait searches from its requester |
//! | `deadlock_search: DeadlockSearch::WhenWaitedFor` (default) | not MySQL: a wait nobody waits for skips its search |
//!
//! ## Cargo features
//!
//! * `pfs` (default): instruments the partition mutexes, lock-object locks, wait slots and
//!   metadata-lock waits (blocking and async, on a bound session thread:
//!   `MdlContext::bind_pfs_thread`) through the `pfs` crate. Without it the crate has no
//!   instrumentation code at all.
//! * `tracing`: a `tracing` span per wait (`mdl_wait`, DEBUG, target `mdl_core::wait`: object,
//!   lock type and duration, context, blockers at the start, outcome, `waited_us`). Disabled,
//!   it costs a level check.
//! * `metrics`: counters of acquisitions, waits, timeouts, deadlocks and kills by namespace and
//!   lock type, a wait-time histogram and gauges, kept by the lock manager and published into
//!   the `metrics` facade by `MdlManager::publish_metrics` when an exporter scrapes; the
//!   acquire path never calls the facade.
//! * `serde`: `serde::Serialize` for the diagnostics ([`LockWaits`], [`DeadlockRecord`],
//!   [`MdlError`], [`WaitCounters`], ...), with MySQL's names for namespaces, lock types and
//!   durations, as the `pfs` tables serialize.
//! * `tokio`: `AsyncTimer::Tokio` ([`MdlConfig::async_timer`]): async waits begun inside a
//!   tokio runtime take their deadlines from the runtime's timer instead of the manager's
//!   `mdl-timer` thread.
//!
//! ## Modules, lowest first
//!
//! Each module uses only modules on lines above its own (`use crate::…` and `crate::…` paths,
//! tests aside); the protocol (which lock protects which
//! field) is at the top of each, and in prose for the whole crate in `docs/lock-manager.md`.
//!
//! 1. `types`, `hash`, `sync`: names and lock types, the two hashes, the primitives
//!    (instrumented, bare or loom) and their instrument classes.
//! 2. `key`: a lock name in MySQL's byte layout; [`matrix`]: the rules; `wait`: a context's
//!    wait slot; `fast_path`: the designs and the per-context slot table.
//! 3. `blocking`: what diagnostics and errors report about blockers and deadlocks; `request`:
//!    requests and handles.
//! 4. `error`.
//! 5. `naming`: what a lock name may be, checked in [`MdlKey`]'s public constructors (which
//!    return [`MdlError`], whose payloads name keys: hence two modules); `owner`: the server's
//!    hooks.
//! 6. `instrument`: the instrumentation seam of the lock logic (a context's `metadata_locks`
//!    rows; zero-sized without `pfs`); `shared`: the part of a context other threads reach,
//!    and the registry of live contexts.
//! 7. `queue`: a lock object's queues; `timer`: the deadline thread of async waits (or, with
//!    `AsyncTimer::Tokio` ([`AsyncTimer`]), the tokio runtime's timer).
//! 8. `lock`: the lock object and the grant protocol.
//! 9. `deadlock`: the wait-for graph and its search; `map`: the lock map and eviction;
//!    `ticket_store`: a context's tickets; `telemetry`: what a wait reports (the `pfs` event,
//!    the `tracing` span), for threads and futures alike.
//! 10. `manager`: configuration and the manager.
//! 11. `diagnostics`: who holds and who waits; `metadata_tables`: `metadata_locks` and the
//!     other tables (feature `pfs`); `publish`: the counters published into the `metrics`
//!     facade (feature `metrics`).
//! 12. `context`: the per-connection API, blocking and async (its submodules, lowest first:
//!     `tickets`, `attempt`, `waiting`, `asynchronous`, `scope`).
//!
//! `metadata_tables` sits above the manager and the shared context state it reads: the
//! `metadata_*` tables are `impl MdlManager` blocks in `metadata_tables.rs`, the published rows
//! live in `instrument`'s `ContextRows` (one field of `shared`'s context part), and ticket ids
//! are numbered in `request`.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod blocking;
mod context;
mod deadlock;
mod diagnostics;
mod error;
mod fast_path;
mod gate;
mod hash;
mod instrument;
mod key;
mod lock;
mod manager;
mod map;
pub mod matrix;
#[cfg(feature = "pfs")]
mod metadata_tables;
mod naming;
mod owner;
#[cfg(feature = "metrics")]
mod publish;
mod queue;
mod request;
#[cfg(feature = "serde")]
mod serde_names;
mod shared;
mod sync;
mod telemetry;
mod ticket_store;
mod timer;
mod types;
mod wait;

pub use blocking::{
    BlockKind, Blocker, DeadlockCause, DeadlockEdge, DeadlockRecord, LockWait, LockWaits,
};
pub use context::{
    Acquire, ContextBuilder, KillHandle, LockGuard, MdlContext, StatementScope, TransactionScope,
};
pub use deadlock::{DeadlockSearch, MAX_SEARCH_DEPTH, WAIT_SECONDS_BUCKETS};
pub use diagnostics::{LockEntryInfo, WaitCounters};
pub use error::{DeadlockError, ErrorKind, KeyPart, MdlError, Result, WaitError};
pub use fast_path::FastPath;
#[doc(hidden)]
pub use fast_path::SLOTS_PER_GROUP;
#[cfg(feature = "pfs")]
#[cfg_attr(docsrs, doc(cfg(feature = "pfs")))]
pub use instrument::PUBLISHED_SLOTS;
pub use key::MdlKey;
pub use manager::{MdlConfig, MdlConfigBuilder, MdlManager, LONG_TIMEOUT};
pub use map::PartitionHash;
pub use naming::NAME_CHAR_LEN;
pub use owner::{EngineRefusal, HolderInfo, MdlOwner};
pub use request::{MdlRequest, MdlSavepoint, Ticket, TicketInfo};
pub use ticket_store::TicketIndex;
#[doc(hidden)]
pub use ticket_store::HASH_THRESHOLD;
pub use timer::AsyncTimer;
pub use types::{ContextId, KillScope, LockDuration, LockType, Namespace, Strategy};
