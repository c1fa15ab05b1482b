//! # mdl-check: the long checks of the `mdl` lock manager
//!
//! Runs that are too long for `cargo test`, behind one command-line tool (`mdl-check`):
//!
//! * [`soak`]: many threads run random operations on every namespace, lock type and duration
//!   (waits, upgrades, downgrades, clones, savepoints, kills, dropped contexts) while the
//!   harness checks every grant against the reference matrices, every wait's end against its
//!   timeout, and every deadlock against the wait-for graph it keeps.
//! * [`stress`]: threads replay MySQL-like statement shapes (DDL upgrades and downgrades, LOCK
//!   TABLES, FTWRL, user locks, savepoints) with kills, checked at every grant against the
//!   reference matrices, in every configuration of [`stress::configs`].
//! * [`fuzz`]: the differential driver of `mdl-reference` on seeded random bytes, the
//!   fallback where cargo-fuzz cannot run.
//!
//! Each is a library first, so that the crate's tests run it briefly, and the binary only
//! parses arguments. Layering: `fuzz`, `soak` and `stress` are independent of each other; each
//! uses `mdl-reference` as the oracle and `fastrand` for seeded randomness.
//!
//! ```
//! use std::time::Duration;
//! use mdl_check::soak::{run, SoakConfig};
//!
//! let rep = run(&SoakConfig {
//!     threads: 2,
//!     duration: Some(Duration::from_millis(200)),
//!     ..SoakConfig::default()
//! });
//! assert!(rep.ok(), "{rep}");
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod fuzz;
pub mod soak;
pub mod stress;
