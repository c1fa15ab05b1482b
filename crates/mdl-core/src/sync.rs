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

/// Defines the lock manager's `pfs` instruments from one table: the [`Site`] enum (one variant
/// per instrument) and, with `pfs`, each site's class kind and name. Adding an instrument is
/// one line of the table.
macro_rules! instruments {
    ($($(#[$doc:meta])* $site:ident: $kind:ident, $name:literal;)*) => {
        /// Which instrumented primitive (or event) a lock manager object is, for `pfs` naming.
        #[derive(Clone, Copy)]
        #[cfg_attr(any(loom, not(feature = "pfs")), allow(dead_code))]
        pub(crate) enum Site {
            $($(#[$doc])* $site,)*
        }

        impl Site {
            /// Every site, in declaration order (index = discriminant).
            #[cfg(all(not(loom), feature = "pfs"))]
            const ALL: &'static [Site] = &[$(Site::$site),*];

            /// The site's instrument class: kind and name.
            #[cfg(all(not(loom), feature = "pfs"))]
            fn instrument(self) -> (pfs::ClassKind, &'static str) {
                match self {
                    $(Site::$site => (pfs::ClassKind::$kind, $name),)*
                }
            }
        }
    };
}

instruments! {
    /// One instance per partition of the lock map.
    MapPartition: Mutex, "wait/synch/mutex/mdl/MDL_map::mutex";
    /// One instance per lock object.
    LockObject: RwLock, "wait/synch/prlock/sql/MDL_lock::rwlock";
    /// A context's wait slot.
    WaitSlot: Mutex, "wait/synch/mutex/sql/MDL_wait::LOCK_wait_status";
    /// The condvar a blocked context sleeps on.
    WaitCond: Cond, "wait/synch/cond/sql/MDL_context::COND_wait_status";
    /// The metadata-lock wait event (and the `metadata_locks` rows' instrument).
    Metadata: Metadata, "wait/lock/metadata/sql/mdl";
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

    use pfs::ClassRef;

    use super::*;

    /// The instrument class of `site`, registered (all of them) at first use.
    pub(crate) fn class_of(site: Site) -> ClassRef {
        static CLASSES: OnceLock<Vec<ClassRef>> = OnceLock::new();
        let classes = CLASSES.get_or_init(|| {
            Site::ALL
                .iter()
                .map(|s| {
                    let (kind, name) = s.instrument();
                    pfs::register_class(kind, name)
                })
                .collect()
        });
        classes[site as usize]
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
pub(crate) use make::class_of;
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
