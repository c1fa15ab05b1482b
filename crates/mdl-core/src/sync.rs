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
pub(crate) use std::sync::atomic::{
    AtomicBool, AtomicI64, AtomicU64, AtomicU8, AtomicUsize, Ordering,
};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    AtomicBool, AtomicI64, AtomicU64, AtomicU8, AtomicUsize, Ordering,
};

/// Orders a `SeqCst` read-modify-write before a later `SeqCst` load of another location, for
/// loom only. In the Rust (C++20) memory model the two already appear in that order in the
/// single total order of `SeqCst` operations, which is all the store-load races of
/// `fast_path.rs` need; loom does not model that order for read-modify-writes and loads
/// (tokio-rs/loom#180: it reports a Dekker-style violation that the model forbids) but does for
/// fences. So the models check the protocol with a fence in this place, and the real build has
/// none (on x86-64 the read-modify-write is a locked instruction, a full barrier already).
#[inline(always)]
pub(crate) fn store_load_fence() {
    #[cfg(loom)]
    loom::sync::atomic::fence(Ordering::SeqCst);
}
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
    use std::sync::OnceLock;

    use pfs::{ClassKind, ClassRef};

    use super::*;

    /// The lock manager's instrument classes.
    pub(crate) struct Classes {
        map_mutex: ClassRef,
        lock_rwlock: ClassRef,
        wait_status: ClassRef,
        wait_cond: ClassRef,
        pub(crate) metadata: ClassRef,
    }

    pub(crate) fn classes() -> &'static Classes {
        static CLASSES: OnceLock<Classes> = OnceLock::new();
        CLASSES.get_or_init(|| Classes {
            map_mutex: pfs::register_class(ClassKind::Mutex, "wait/synch/mutex/mdl/MDL_map::mutex"),
            lock_rwlock: pfs::register_class(
                ClassKind::RwLock,
                "wait/synch/prlock/sql/MDL_lock::rwlock",
            ),
            wait_status: pfs::register_class(
                ClassKind::Mutex,
                "wait/synch/mutex/sql/MDL_wait::LOCK_wait_status",
            ),
            wait_cond: pfs::register_class(
                ClassKind::Cond,
                "wait/synch/cond/sql/MDL_context::COND_wait_status",
            ),
            metadata: pfs::register_class(ClassKind::Metadata, "wait/lock/metadata/sql/mdl"),
        })
    }

    fn class_of(site: Site) -> ClassRef {
        let c = classes();
        match site {
            Site::MapPartition => c.map_mutex,
            Site::LockObject => c.lock_rwlock,
            Site::WaitStatus => c.wait_status,
            Site::WaitCond => c.wait_cond,
        }
    }

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

#[cfg(all(not(loom), feature = "pfs"))]
pub(crate) use make::classes;
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
