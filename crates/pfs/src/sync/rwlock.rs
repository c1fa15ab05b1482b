//! Instrumented reader-writer lock (feature `rwlock`). See the module docs of [`crate::sync`].

use std::fmt;
use std::ops::{Deref, DerefMut};

use super::{hold_of, Hold, InstanceHandle};
use crate::imp::{wait, F_ENABLED};
use crate::kinds::Operation;
use crate::ClassRef;

/// A parking_lot rwlock with optional Performance-Schema instrumentation.
pub struct RwLock<T: ?Sized> {
    pfs: Option<InstanceHandle>,
    raw: parking_lot::RwLock<T>,
}

/// Shared guard of [`RwLock`].
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    raw: parking_lot::RwLockReadGuard<'a, T>,
    hold: Hold,
}

/// Exclusive guard of [`RwLock`].
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    raw: parking_lot::RwLockWriteGuard<'a, T>,
    hold: Hold,
}

impl<T> RwLock<T> {
    /// An uninstrumented rwlock (`const`, usable in statics).
    #[inline]
    pub const fn new(value: T) -> RwLock<T> {
        RwLock {
            pfs: None,
            raw: parking_lot::RwLock::new(value),
        }
    }

    /// An rwlock that is an instance of `class`.
    pub fn with_class(class: ClassRef, value: T) -> RwLock<T> {
        RwLock {
            pfs: InstanceHandle::create(class, None),
            raw: parking_lot::RwLock::new(value),
        }
    }

    /// An rwlock that is an instance of `class`, shown with `OBJECT_INSTANCE_BEGIN = identity`.
    pub fn with_class_identity(class: ClassRef, identity: u64, value: T) -> RwLock<T> {
        RwLock {
            pfs: InstanceHandle::create(class, Some(identity)),
            raw: parking_lot::RwLock::new(value),
        }
    }

    /// Consume the lock, returning the data.
    #[inline]
    pub fn into_inner(self) -> T {
        self.raw.into_inner()
    }
}

macro_rules! acquire {
    ($self:ident, $guard:ident, $op:expr, $try:ident, $block:ident) => {{
        if let Some(h) = &$self.pfs {
            let f = h.flags();
            if f & F_ENABLED != 0 {
                let (raw, start) =
                    wait::acquire(h.0, f, $op, || $self.raw.$try(), || $self.raw.$block());
                return $guard {
                    raw,
                    hold: hold_of(h, f, start),
                };
            }
        }
        $guard {
            raw: $self.raw.$block(),
            hold: None,
        }
    }};
}

macro_rules! try_acquire {
    ($self:ident, $guard:ident, $try:ident) => {{
        let raw = $self.raw.$try()?;
        let mut hold = None;
        if let Some(h) = &$self.pfs {
            let f = h.flags();
            if f & F_ENABLED != 0 {
                hold = hold_of(h, f, wait::acquired_try(h.0, f));
            }
        }
        Some($guard { raw, hold })
    }};
}

impl<T: ?Sized> RwLock<T> {
    /// Shared lock (parking_lot's writer-preferring `read`: blocks if a writer is waiting).
    #[inline]
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        acquire!(self, RwLockReadGuard, Operation::ReadLock, try_read, read)
    }

    /// Shared lock that succeeds while any reader holds the lock, even if a writer is waiting
    /// (recursive / reader-preferring; what a deadlock detector walking the graph needs).
    #[inline]
    pub fn read_recursive(&self) -> RwLockReadGuard<'_, T> {
        acquire!(
            self,
            RwLockReadGuard,
            Operation::ReadLock,
            try_read_recursive,
            read_recursive
        )
    }

    /// Exclusive lock.
    #[inline]
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        acquire!(
            self,
            RwLockWriteGuard,
            Operation::WriteLock,
            try_write,
            write
        )
    }

    /// Try a shared lock without blocking.
    #[inline]
    pub fn try_read(&self) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire!(self, RwLockReadGuard, try_read)
    }

    /// Try a recursive shared lock without blocking.
    #[inline]
    pub fn try_read_recursive(&self) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire!(self, RwLockReadGuard, try_read_recursive)
    }

    /// Try an exclusive lock without blocking.
    #[inline]
    pub fn try_write(&self) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire!(self, RwLockWriteGuard, try_write)
    }

    /// Mutable access without locking.
    #[inline]
    pub fn get_mut(&mut self) -> &mut T {
        self.raw.get_mut()
    }

    /// Is the lock held (shared or exclusive)?
    #[inline]
    pub fn is_locked(&self) -> bool {
        self.raw.is_locked()
    }

    /// Is the lock held exclusively?
    #[inline]
    pub fn is_locked_exclusive(&self) -> bool {
        self.raw.is_locked_exclusive()
    }

    /// Is this rwlock an instrumented instance?
    pub fn is_instrumented(&self) -> bool {
        self.pfs.is_some()
    }

    /// Its `OBJECT_INSTANCE_BEGIN`, if instrumented.
    pub fn instance_identity(&self) -> Option<u64> {
        self.pfs.as_ref().map(InstanceHandle::identity)
    }
}

impl<T: Default> Default for RwLock<T> {
    fn default() -> RwLock<T> {
        RwLock::new(T::default())
    }
}

impl<T> From<T> for RwLock<T> {
    fn from(v: T) -> RwLock<T> {
        RwLock::new(v)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.raw.fmt(f)
    }
}

macro_rules! guard_impls {
    ($guard:ident) => {
        impl<T: ?Sized> Drop for $guard<'_, T> {
            #[inline]
            fn drop(&mut self) {
                if let Some((inst, f, start)) = self.hold {
                    wait::release_hold(inst, f, start);
                }
            }
        }

        impl<T: ?Sized> Deref for $guard<'_, T> {
            type Target = T;
            #[inline]
            fn deref(&self) -> &T {
                &self.raw
            }
        }

        impl<T: ?Sized + fmt::Debug> fmt::Debug for $guard<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&**self, f)
            }
        }

        impl<T: ?Sized + fmt::Display> fmt::Display for $guard<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&**self, f)
            }
        }
    };
}

guard_impls!(RwLockReadGuard);
guard_impls!(RwLockWriteGuard);

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.raw
    }
}
