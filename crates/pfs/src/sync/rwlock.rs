//! Instrumented reader-writer lock (feature `rwlock`). See the module docs of [`crate::sync`];
//! the waiting and timing code is shared with the mutex (`instance`).

use std::fmt;

use super::instance::{acquire_methods, acquired, lock_common, measure, Guard, InstanceHandle};
use crate::imp::ClassRef;
use crate::kinds::Operation;

/// A parking_lot rwlock with optional Performance-Schema instrumentation.
pub struct RwLock<T: ?Sized> {
    pfs: Option<InstanceHandle>,
    raw: parking_lot::RwLock<T>,
}

/// Shared guard of [`RwLock`].
pub type RwLockReadGuard<'a, T> = Guard<parking_lot::RwLockReadGuard<'a, T>>;

/// Exclusive guard of [`RwLock`].
pub type RwLockWriteGuard<'a, T> = Guard<parking_lot::RwLockWriteGuard<'a, T>>;

impl<T: ?Sized> RwLock<T> {
    acquire_methods! {
        /// Shared lock (parking_lot's writer-preferring `read`: blocks if a writer is waiting).
        read, ReadLock -> RwLockReadGuard,
        /// Try a shared lock without blocking.
        try_read, TryReadLock;

        /// Shared lock that succeeds while any reader holds the lock, even if a writer is waiting
        /// (recursive / reader-preferring; what a deadlock detector walking the graph needs).
        read_recursive, ReadLock -> RwLockReadGuard,
        /// Try a recursive shared lock without blocking.
        try_read_recursive, TryReadLock;

        /// Exclusive lock.
        write, WriteLock -> RwLockWriteGuard,
        /// Try an exclusive lock without blocking.
        try_write, TryWriteLock;
    }

    /// Is the lock held exclusively?
    #[inline]
    pub fn is_locked_exclusive(&self) -> bool {
        self.raw.is_locked_exclusive()
    }
}

lock_common!(RwLock, RwLock, "rwlock");
