//! The one place that picks the synchronization primitives.
//!
//! Every lock and atomic of the lock manager comes from here, so the instrumented (`pfs`
//! feature), bare (parking_lot) and model-checked (`--cfg loom`) builds differ in this file only.
//! Under loom, thin wrappers give loom's primitives parking_lot's method names; loom cannot time
//! out a condvar wait, so `wait_until` there waits for a notification.

#[cfg(all(not(loom), not(feature = "pfs")))]
pub(crate) use parking_lot::{Condvar, Mutex, RwLock};
#[cfg(all(not(loom), feature = "pfs"))]
pub(crate) use pfs::sync::{Condvar, Mutex, RwLock};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
#[cfg(loom)]
pub(crate) use loom_shim::{Condvar, Mutex, RwLock};

/// Which instrumented primitive a lock is, for `pfs` naming.
#[derive(Clone, Copy)]
pub(crate) enum Site {
    /// `wait/synch/mutex/mdl/MDL_map::mutex`: one instance per partition.
    #[cfg_attr(any(loom, not(feature = "pfs")), allow(dead_code))]
    MapPartition,
    /// `wait/synch/prlock/sql/MDL_lock::rwlock`: one instance per lock object.
    LockObject,
    /// `wait/synch/prlock/sql/MDL_context::LOCK_waiting_for`.
    WaitingFor,
    /// `wait/synch/mutex/sql/MDL_wait::LOCK_wait_status`.
    WaitStatus,
    /// `wait/synch/cond/sql/MDL_context::COND_wait_status`.
    WaitCond,
}

#[cfg(any(loom, not(feature = "pfs")))]
mod make {
    use super::*;

    pub(crate) fn new_mutex<T>(_site: Site, value: T) -> Mutex<T> {
        Mutex::new(value)
    }

    pub(crate) fn new_partition_mutex<T>(_index: usize, value: T) -> Mutex<T> {
        Mutex::new(value)
    }

    pub(crate) fn new_rwlock<T>(_site: Site, value: T) -> RwLock<T> {
        RwLock::new(value)
    }

    pub(crate) fn new_condvar(_site: Site) -> Condvar {
        Condvar::new()
    }
}

/// With `pfs`, every primitive is an instance of its instrument class; partitions carry their
/// index as `OBJECT_INSTANCE_BEGIN` so `events_waits_summary_by_instance` shows which is which.
#[cfg(all(not(loom), feature = "pfs"))]
mod make {
    use super::*;
    use crate::instrument::class_of;

    pub(crate) fn new_mutex<T>(site: Site, value: T) -> Mutex<T> {
        Mutex::with_class(class_of(site), value)
    }

    pub(crate) fn new_partition_mutex<T>(index: usize, value: T) -> Mutex<T> {
        Mutex::with_class_identity(class_of(Site::MapPartition), index as u64, value)
    }

    pub(crate) fn new_rwlock<T>(site: Site, value: T) -> RwLock<T> {
        RwLock::with_class(class_of(site), value)
    }

    pub(crate) fn new_condvar(site: Site) -> Condvar {
        Condvar::with_class(class_of(site))
    }
}

pub(crate) use make::{new_condvar, new_mutex, new_partition_mutex, new_rwlock};

#[cfg(loom)]
mod loom_shim {
    use std::ops::{Deref, DerefMut};
    use std::time::Instant;

    pub(crate) struct Mutex<T>(loom::sync::Mutex<T>);
    pub(crate) struct MutexGuard<'a, T>(Option<loom::sync::MutexGuard<'a, T>>);

    impl<T> Mutex<T> {
        pub(crate) fn new(v: T) -> Self {
            Mutex(loom::sync::Mutex::new(v))
        }
        pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
            MutexGuard(Some(
                self.0.lock().expect("loom mutexes are never poisoned here"),
            ))
        }
    }

    impl<T> Deref for MutexGuard<'_, T> {
        type Target = T;
        fn deref(&self) -> &T {
            self.0.as_ref().expect("guard present")
        }
    }

    impl<T> DerefMut for MutexGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            self.0.as_mut().expect("guard present")
        }
    }

    pub(crate) struct RwLock<T>(loom::sync::RwLock<T>);

    impl<T> RwLock<T> {
        pub(crate) fn new(v: T) -> Self {
            RwLock(loom::sync::RwLock::new(v))
        }
        pub(crate) fn read_recursive(&self) -> loom::sync::RwLockReadGuard<'_, T> {
            self.0.read().expect("never poisoned")
        }
        pub(crate) fn write(&self) -> loom::sync::RwLockWriteGuard<'_, T> {
            self.0.write().expect("never poisoned")
        }
    }

    pub(crate) struct WaitTimeoutResult;

    impl WaitTimeoutResult {
        pub(crate) fn timed_out(&self) -> bool {
            false
        }
    }

    pub(crate) struct Condvar(loom::sync::Condvar);

    impl Condvar {
        pub(crate) fn new() -> Self {
            Condvar(loom::sync::Condvar::new())
        }
        pub(crate) fn wait<T>(&self, g: &mut MutexGuard<'_, T>) {
            let inner = g.0.take().expect("guard present");
            g.0 = Some(self.0.wait(inner).expect("never poisoned"));
        }
        pub(crate) fn wait_until<T>(
            &self,
            g: &mut MutexGuard<'_, T>,
            _deadline: Instant,
        ) -> WaitTimeoutResult {
            self.wait(g);
            WaitTimeoutResult
        }
        pub(crate) fn notify_all(&self) {
            self.0.notify_all();
        }
    }
}
