//! Constructors that take a class, for whichever type `pfs::sync::Mutex` etc. is in this build.
//! Implemented for the parking_lot types, where they ignore the class (used when a class
//! feature is off, so callers compile unchanged).

use crate::backend::ClassRef;

/// `with_class` for `parking_lot::Mutex` (the class is ignored).
pub trait MutexExt<T> {
    /// An (uninstrumented) mutex; the class is ignored.
    fn with_class(class: ClassRef, value: T) -> Self;
    /// An (uninstrumented) mutex; the class and identity are ignored.
    fn with_class_identity(class: ClassRef, identity: u64, value: T) -> Self;
}

impl<T> MutexExt<T> for parking_lot::Mutex<T> {
    #[inline]
    fn with_class(_class: ClassRef, value: T) -> Self {
        parking_lot::Mutex::new(value)
    }
    #[inline]
    fn with_class_identity(_class: ClassRef, _identity: u64, value: T) -> Self {
        parking_lot::Mutex::new(value)
    }
}

/// `with_class` for `parking_lot::RwLock` (the class is ignored).
pub trait RwLockExt<T> {
    /// An (uninstrumented) rwlock; the class is ignored.
    fn with_class(class: ClassRef, value: T) -> Self;
    /// An (uninstrumented) rwlock; the class and identity are ignored.
    fn with_class_identity(class: ClassRef, identity: u64, value: T) -> Self;
}

impl<T> RwLockExt<T> for parking_lot::RwLock<T> {
    #[inline]
    fn with_class(_class: ClassRef, value: T) -> Self {
        parking_lot::RwLock::new(value)
    }
    #[inline]
    fn with_class_identity(_class: ClassRef, _identity: u64, value: T) -> Self {
        parking_lot::RwLock::new(value)
    }
}

/// `with_class` for `parking_lot::Condvar` (the class is ignored).
pub trait CondvarExt {
    /// An (uninstrumented) condition variable; the class is ignored.
    fn with_class(class: ClassRef) -> Self;
    /// An (uninstrumented) condition variable; the class and identity are ignored.
    fn with_class_identity(class: ClassRef, identity: u64) -> Self;
}

impl CondvarExt for parking_lot::Condvar {
    #[inline]
    fn with_class(_class: ClassRef) -> Self {
        parking_lot::Condvar::new()
    }
    #[inline]
    fn with_class_identity(_class: ClassRef, _identity: u64) -> Self {
        parking_lot::Condvar::new()
    }
}
