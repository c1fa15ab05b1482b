//! Instrumented mutex (feature `mutex`). See the module docs of [`crate::sync`]; the waiting
//! and timing code is shared with the rwlock (`instance`).

use std::fmt;

use super::instance::{acquire, acquired, lock_common, Guard, InstanceHandle};
use crate::imp::ClassRef;
use crate::kinds::Operation;

/// A parking_lot mutex with optional Performance-Schema instrumentation.
pub struct Mutex<T: ?Sized> {
    pfs: Option<InstanceHandle>,
    raw: parking_lot::Mutex<T>,
}

/// Guard of [`Mutex`]; derefs to the data. Records the hold time (if on) before unlocking.
pub type MutexGuard<'a, T> = Guard<parking_lot::MutexGuard<'a, T>>;

impl<T> Mutex<T> {
    /// An uninstrumented mutex (`const`, usable in statics).
    #[inline]
    pub const fn new(value: T) -> Mutex<T> {
        Mutex {
            pfs: None,
            raw: parking_lot::Mutex::new(value),
        }
    }

    /// A mutex that is an instance of `class`.
    pub fn with_class(class: ClassRef, value: T) -> Mutex<T> {
        Mutex {
            pfs: InstanceHandle::create(class, None),
            raw: parking_lot::Mutex::new(value),
        }
    }

    /// A mutex that is an instance of `class`, shown with `OBJECT_INSTANCE_BEGIN = identity`.
    pub fn with_class_identity(class: ClassRef, identity: u64, value: T) -> Mutex<T> {
        Mutex {
            pfs: InstanceHandle::create(class, Some(identity)),
            raw: parking_lot::Mutex::new(value),
        }
    }

    /// Consume the mutex, returning the data (the instance slot is freed).
    #[inline]
    pub fn into_inner(self) -> T {
        self.raw.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Acquire the mutex, blocking.
    #[inline]
    pub fn lock(&self) -> MutexGuard<'_, T> {
        acquire(
            &self.pfs,
            Operation::Lock,
            || self.raw.try_lock(),
            || self.raw.lock(),
        )
    }

    /// Try to acquire without blocking. A success is counted (zero wait); a failure is not.
    #[inline]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        Some(acquired(&self.pfs, self.raw.try_lock()?))
    }

    /// Mutable access without locking (the borrow checker proves exclusivity).
    #[inline]
    pub fn get_mut(&mut self) -> &mut T {
        self.raw.get_mut()
    }

    /// Is the mutex locked right now?
    #[inline]
    pub fn is_locked(&self) -> bool {
        self.raw.is_locked()
    }
}

lock_common!(Mutex);
