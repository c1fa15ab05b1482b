//! Constructors that take a class, for whichever type `pfs::sync::Mutex` etc. is in this build.
//! Implemented for the parking_lot types, where they ignore the class (used when a class
//! feature is off, so callers compile unchanged).

use crate::backend::ClassRef;

/// The class-taking constructors of the instrumented lock type `$what` (the trait `$ext`), for
/// `parking_lot::$raw`, where they ignore the class.
macro_rules! class_ignored {
    ($ext:ident, $raw:ident, $what:literal) => {
        #[doc = concat!("`with_class` for `parking_lot::", stringify!($raw), "`")]
        /// (the class is ignored).
        pub trait $ext<T> {
            #[doc = concat!("An (uninstrumented) ", $what, "; the class is ignored.")]
            fn with_class(class: ClassRef, value: T) -> Self;
            #[doc = concat!("An (uninstrumented) ", $what, "; the class and identity are ignored.")]
            fn with_class_identity(class: ClassRef, identity: u64, value: T) -> Self;
        }

        impl<T> $ext<T> for parking_lot::$raw<T> {
            #[inline]
            fn with_class(_class: ClassRef, value: T) -> Self {
                parking_lot::$raw::new(value)
            }
            #[inline]
            fn with_class_identity(_class: ClassRef, _identity: u64, value: T) -> Self {
                parking_lot::$raw::new(value)
            }
        }
    };
}

class_ignored!(MutexExt, Mutex, "mutex");
class_ignored!(RwLockExt, RwLock, "rwlock");

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
