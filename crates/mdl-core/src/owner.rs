//! Hooks into the server that owns a context (MySQL's `MDL_context_owner`).
//!
//! The lock manager calls these from the thread using the context, without holding any of its
//! own locks, so a hook may block or call back into the manager.

use crate::error::Result;
use crate::key::MdlKey;
use crate::types::{ContextId, LockType};

/// A storage engine's refusal of an exclusive lock
/// ([`MdlOwner::notify_hton_pre_acquire_exclusive`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineRefusal {
    /// Report the refusal as a deadlock ([`MdlError::Deadlock`](crate::MdlError::Deadlock)) instead of
    /// [`MdlError::RefusedByEngine`](crate::MdlError::RefusedByEngine).
    pub victimized: bool,
}

/// A holder of a shared lock that blocks an exclusive request ([`MdlOwner::notify_shared_lock`]).
pub struct HolderInfo<'a> {
    /// The holder's context.
    pub context: ContextId,
    /// The holder's owner, if it has one.
    pub owner: Option<&'a dyn MdlOwner>,
    /// Whether the holder asked to have its table-level lock waits aborted
    /// ([`MdlContext::set_needs_thr_lock_abort`](crate::MdlContext::set_needs_thr_lock_abort)).
    pub needs_thr_lock_abort: bool,
    /// The type the holder holds (S or SH).
    pub lock_type: LockType,
}

/// Hooks into the server that owns a context (MySQL's `MDL_context_owner`). Every method has a
/// default that does nothing, so an owner implements only what it needs.
///
/// Hooks are called without any lock-manager lock held, from the thread using the context.
pub trait MdlOwner: Send + Sync {
    /// An exclusive request of this context waits for `holder`'s S or SH lock (for instance an
    /// open HANDLER). Called when the request starts waiting and then about once a second.
    fn notify_shared_lock(&self, holder: &HolderInfo<'_>) {
        let _ = holder;
    }

    /// Called before an X lock in a namespace with storage-engine notification (TABLE, SCHEMA,
    /// ...) is requested; refusing makes the request fail.
    fn notify_hton_pre_acquire_exclusive(&self, key: &MdlKey) -> Result<(), EngineRefusal> {
        let _ = key;
        Ok(())
    }

    /// Called after an X lock that was pre-notified is released, downgraded or not granted.
    fn notify_hton_post_release_exclusive(&self, key: &MdlKey) {
        let _ = key;
    }

    /// Checked about once a second while waiting in USER_LEVEL_LOCK, LOCKING_SERVICE and
    /// ACL_CACHE; a disconnected owner's wait ends with [`MdlError::Killed`](crate::MdlError::Killed).
    fn is_connected(&self) -> bool {
        true
    }

    /// When false, an S request on ACL_CACHE skips (or delays) deadlock detection, as MySQL does.
    fn might_have_commit_order_waiters(&self) -> bool {
        true
    }
}
