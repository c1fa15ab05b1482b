//! # mdl-bench: workloads, peers and reports for the `mdl` lock manager
//!
//! * [`workload`]: a sysbench-like simulated server (sessions, statements on T tables, mixes,
//!   transactions, calibrated CPU work per statement) and the schema-dump scenario.
//! * [`peers`]: `mdl` in any configuration and its peers (a global-mutex baseline, a dashmap of
//!   RwLocks, lock-db, lockmap) behind one trait.
//! * [`bare`]: the lock manager alone (no work per statement), for the peers report's "lock
//!   manager only" mode.
//! * [`ddl`]: an EXCLUSIVE request on a hot table among many other contexts.
//! * [`async_acquire`]: the async API on a tokio runtime (no-wait cost, wake-up latency next
//!   to `tokio::sync::RwLock`, many tasks with DDL and a heartbeat).
//! * [`runner`]: warm-up, timed windows, medians of several runs, A/B interleaving, latency
//!   histograms, progress.
//! * [`reports`]: the reports of `mdl-bench` (CSV + JSON + SVG + markdown each).
//! * [`instr`]: the simulated server's instrumentation points and modes.
//!
//! Modules, lowest first; each uses only modules on lines above its own: `work`, [`output`],
//! [`peers`] → [`instr`] → [`workload`] → [`ddl`], [`runner`] → [`counters`], [`bare`] →
//! [`reports`].
//!
//! ```
//! use mdl_bench::peers::{MdlSetup, PeerSpec};
//! use mdl_bench::runner::{run_once, Case, Timing};
//! use mdl_bench::workload::Workload;
//! use std::time::Duration;
//!
//! let case = Case::new(PeerSpec::Mdl(MdlSetup::default()), Workload::default(), 2);
//! let timing = Timing { warmup: Duration::from_millis(5), window: Duration::from_millis(20), runs: 1 };
//! assert!(run_once(&case, &timing).qps > 0.0);
//! ```

#![warn(missing_docs)]

pub mod async_acquire;
pub mod bare;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod counters;
pub mod ddl;
pub mod instr;
pub mod output;
pub mod peers;
pub mod reports;
pub mod runner;
pub mod work;
pub mod workload;

/// The instrumentation crate, as this build compiled it (for benches).
pub use pfs;
