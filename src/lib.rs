//! `mysql-mdl`: MySQL's metadata lock manager in Rust, with Performance-Schema-style instrumentation.
//!
//! This facade re-exports [`mdl_core`] (the lock manager) and, with the default `pfs` feature,
//! the [`pfs`] instrumentation crate, so examples and benchmarks need one dependency.
//!
//! ```
//! use std::time::Duration;
//! use mysql_mdl::{LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace};
//!
//! let mgr = MdlManager::new(MdlConfig::default())?;
//! let mut conn = mgr.new_context();
//! let t1 = MdlKey::new(Namespace::Table, "test", "t1")?;
//! conn.acquire(&MdlRequest::new(t1, LockType::SharedRead, LockDuration::Statement), Duration::from_secs(50))?;
//! conn.release_statement_locks();
//! # Ok::<(), mysql_mdl::MdlError>(())
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
pub use mdl_core::*;

#[cfg(feature = "pfs")]
#[cfg_attr(docsrs, doc(cfg(feature = "pfs")))]
pub use pfs;

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
