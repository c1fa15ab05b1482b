//! Instrumented reader-writer lock (feature `rwlock`). See the module docs of [`crate::sync`];
//! the waiting and timing code is shared with the mutex (`instance`).

use std::fmt;

use super::instance::{acquire, acquired, lock_common, Guard, InstanceHandle};
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
    /// Shared lock (parking_lot's writer-preferring `read`: blocks if a writer is waiting).
    #[inline]
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        acquire(
            &self.pfs,
            Operation::ReadLock,
            || self.raw.try_read(),
            || self.raw.read(),
        )
    }

    /// Shared lock that succeeds while any reader holds the lock, even if a writer is waiting
    /// (recursive / reader-preferring; what a deadlock detector walking the graph needs).
    #[inline]
    pub fn read_recursive(&self) -> RwLockReadGuard<'_, T> {
        acquire(
            &self.pfs,
            Operation::ReadLock,
            || self.raw.try_read_recursive(),
            || self.raw.read_recursive(),
        )
    }

    /// Exclusive lock.
    #[inline]
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        acquire(
            &self.pfs,
            Operation::WriteLock,
            || self.raw.try_write(),
            || self.raw.write(),
        )
    }

    /// Try a shared lock without blocking.
    #[inline]
    pub fn try_read(&self) -> Option<RwLockReadGuard<'_, T>> {
        Some(acquired(&self.pfs, self.raw.try_read()?))
    }

    /// Try a recursive shared lock without blocking.
    #[inline]
    pub fn try_read_recursive(&self) -> Option<RwLockReadGuard<'_, T>> {
        Some(acquired(&self.pfs, self.raw.try_read_recursive()?))
    }

    /// Try an exclusive lock without blocking.
    #[inline]
    pub fn try_write(&self) -> Option<RwLockWriteGuard<'_, T>> {
        Some(acquired(&self.pfs, self.raw.try_write()?))
    }

    /// Is the lock held exclusively?
    #[inline]
    pub fn is_locked_exclusive(&self) -> bool {
        self.raw.is_locked_exclusive()
    }
}

lock_common!(RwLock, RwLock, "rwlock");
