//! The one place that picks the synchronization primitives.
//!
//! Every lock and atomic of the lock manager is created here, so the instrumented (`pfs`
//! feature) and bare builds differ in this file only.

pub(crate) use parking_lot::{Condvar, Mutex, RwLock};
pub(crate) use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};

/// Which instrumented primitive a lock is, for `pfs` naming.
#[derive(Clone, Copy)]
pub(crate) enum Site {
    /// `wait/synch/mutex/mdl/MDL_map::mutex`: one instance per partition.
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

#[inline]
pub(crate) fn new_mutex<T>(_site: Site, value: T) -> Mutex<T> {
    Mutex::new(value)
}

#[inline]
pub(crate) fn new_rwlock<T>(_site: Site, value: T) -> RwLock<T> {
    RwLock::new(value)
}

#[inline]
pub(crate) fn new_condvar(_site: Site) -> Condvar {
    Condvar::new()
}
