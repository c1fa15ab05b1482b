//! What a caller asks for ([`MdlRequest`]) and the handles the API gives back ([`Ticket`],
//! [`MdlSavepoint`], [`TicketInfo`]).

use crate::key::MdlKey;
use crate::types::{LockDuration, LockType};

/// A lock request: what to lock, how, and for how long.
///
/// ```
/// use mdl_core::{LockDuration, LockType, MdlKey, MdlRequest, Namespace};
/// let key = MdlKey::new(Namespace::Table, "test", "t1")?;
/// let req = MdlRequest::new(key, LockType::SharedRead, LockDuration::Statement);
/// assert_eq!(req.lock_type, LockType::SharedRead);
/// # Ok::<(), mdl_core::MdlError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MdlRequest {
    /// The name to lock.
    pub key: MdlKey,
    /// The requested type.
    pub lock_type: LockType,
    /// How long the lock is held.
    pub duration: LockDuration,
}

impl MdlRequest {
    /// A request for `lock_type` on `key` for `duration`.
    pub fn new(key: MdlKey, lock_type: LockType, duration: LockDuration) -> MdlRequest {
        MdlRequest {
            key,
            lock_type,
            duration,
        }
    }
}

/// A handle to a granted lock. It is a small `Copy` value, valid only in the context that
/// created it and only until the lock is released; using it elsewhere or later gives
/// [`crate::MdlError::InvalidTicket`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ticket {
    pub(crate) ctx: u64,
    pub(crate) slot: u32,
    pub(crate) generation: u32,
}

/// What a ticket holds ([`crate::MdlContext::ticket_info`]).
#[derive(Debug, Clone)]
pub struct TicketInfo {
    /// The locked name.
    pub key: MdlKey,
    /// The held type.
    pub lock_type: LockType,
    /// The ticket's duration.
    pub duration: LockDuration,
    /// Whether the lock is held on a fast path (a counter or a slot) rather than as an entry in
    /// the lock object's granted queue.
    pub fast_path: bool,
}

/// A point to roll statement and transaction locks back to
/// ([`crate::MdlContext::savepoint`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MdlSavepoint {
    pub(crate) ctx: u64,
    pub(crate) seq: u64,
}

/// A ticket's id, as `metadata_locks` and the queues show it: the context id and the ticket's
/// slot in its store, so unique among live tickets.
pub(crate) fn ticket_id(ctx: u64, slot: u32) -> u64 {
    (ctx << 32) | u64::from(slot)
}

/// The ticket id a transferred lock shows in the queue (its owner's ticket id is not in the
/// slot): unique among live tickets, as ticket ids of `metadata_locks` need to be.
pub(crate) fn moved_ticket_id(ctx_id: u64, slot: u32) -> u64 {
    (ctx_id << 32) | (1 << 31) | u64::from(slot)
}

/// The ticket id of an owned lock ([`crate::LockGuard`]): the `n`th guard of its context,
/// apart from the ids of tickets in the store and of transferred slots.
pub(crate) fn guard_ticket_id(ctx_id: u64, n: u32) -> u64 {
    (ctx_id << 32) | (1 << 30) | u64::from(n & ((1 << 30) - 1))
}
