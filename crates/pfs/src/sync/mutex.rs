//! Instrumented mutex (feature `mutex`). See the module docs of [`crate::sync`]; the waiting
//! and timing code is shared with the rwlock (`instance`).

use std::fmt;

use super::instance::{acquire_methods, acquired, lock_common, measure, Guard, InstanceHandle};
use crate::imp::ClassRef;
use crate::kinds::Operation;

/// A parking_lot mutex with optional Performance-Schema instrumentation.
pub struct Mutex<T: ?Sized> {
    pfs: Option<InstanceHandle>,
    raw: parking_lot::Mutex<T>,
}

/// Guard of [`Mutex`]; derefs to the data. Records the hold time (if on) before unlocking.
pub type MutexGuard<'a, T> = Guard<parking_lot::MutexGuard<'a, T>>;

impl<T: ?Sized> Mutex<T> {
    acquire_methods! {
        /// Acquire the mutex, blocking.
        lock, Lock -> MutexGuard,
        /// Try to acquire without blocking. A success is counted (zero wait); a failure is not.
        try_lock, TryLock;
    }
}

lock_common!(Mutex, Mutex, "mutex");
