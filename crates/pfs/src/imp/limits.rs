//! The buffer sizes, fixed at first use, and the counters of what did not fit (the `*_lost`
//! status variables). Any thread bumps the counters with a relaxed `fetch_add`: they are only
//! touched when something is lost.

use std::sync::atomic::AtomicU64;
use std::sync::OnceLock;

use crate::config::Sizing;
use crate::error::PfsError;
use crate::kinds::ClassKind;

static SIZING: OnceLock<Sizing> = OnceLock::new();

/// The sizes in force (the defaults unless [`init`] came first).
pub(crate) fn sizing() -> &'static Sizing {
    SIZING.get_or_init(|| Sizing::default().clamped())
}

pub(crate) fn init(s: Sizing) -> Result<(), PfsError> {
    SIZING
        .set(s.clamped())
        .map_err(|_| PfsError::AlreadyInitialized)
}

/// Counters of what could not be recorded.
pub(crate) struct Lost {
    pub(crate) class: AtomicU64,
    pub(crate) instances: [AtomicU64; ClassKind::ALL.len()],
    pub(crate) thread: AtomicU64,
    pub(crate) locker: AtomicU64,
    pub(crate) digest: AtomicU64,
    /// Ended connections not counted in `accounts`, `users`, `hosts` (`connections.rs`).
    pub(crate) connections: [AtomicU64; 3],
    /// Prepared statements without a row (`prepared.rs`).
    pub(crate) prepared: AtomicU64,
}

pub(crate) static LOST: Lost = Lost {
    class: AtomicU64::new(0),
    instances: [const { AtomicU64::new(0) }; ClassKind::ALL.len()],
    thread: AtomicU64::new(0),
    locker: AtomicU64::new(0),
    digest: AtomicU64::new(0),
    connections: [const { AtomicU64::new(0) }; 3],
    prepared: AtomicU64::new(0),
};
