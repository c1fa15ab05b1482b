//! Instrumented `Mutex`, `RwLock` and `Condvar` over parking_lot 0.12, with parking_lot's method
//! names.
//!
//! * `new(v)` makes an uninstrumented lock (and is `const`, so it works in statics).
//! * `with_class(class, v)` makes an instance of `class` with its own stats
//!   (`events_waits_summary_by_instance`); if the instance buffer is full the lock runs
//!   uninstrumented and the kind's `*_instances_lost` counter is bumped.
//! * `with_class_identity(class, id, v)` also sets `OBJECT_INSTANCE_BEGIN` (e.g. a partition
//!   number).
//!
//! With a class feature (`mutex`, `rwlock`, `cond`) off, the name is parking_lot's own type,
//! and `with_class` / `with_class_identity` come from the [`MutexExt`], [`RwLockExt`] and
//! [`CondvarExt`] traits (which ignore the class) — so `use pfs::sync::*;` code compiles the
//! same either way.
//!
//! # Protocol
//!
//! An instrumented lock holds a pointer to its instance slot. `lock()` loads the slot's derived
//! flags (one relaxed load); disabled → plain parking_lot. Enabled → the out-of-line path
//! acquires, then writes the instance stats *while holding the lock it just acquired* (so the
//! cell has a single writer), and the (thread, class) stats into the thread's own slot. The
//! guard carries the hold start timestamp when hold stats are on and records the hold time
//! before it releases. For the read side of an rwlock, concurrent readers may race on the
//! instance cell (a lost increment, never a torn value); the per-thread stats stay exact.
//! Condition-variable stats are written after the wait returns, under the associated mutex.

mod ext;
pub use ext::{CondvarExt, MutexExt, RwLockExt};

pub use parking_lot::WaitTimeoutResult;

#[cfg(feature = "mutex")]
mod mutex;
#[cfg(feature = "mutex")]
pub use mutex::{Mutex, MutexGuard};
#[cfg(not(feature = "mutex"))]
pub use parking_lot::{Mutex, MutexGuard};

#[cfg(feature = "rwlock")]
mod rwlock;
#[cfg(not(feature = "rwlock"))]
pub use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
#[cfg(feature = "rwlock")]
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};

#[cfg(feature = "cond")]
mod cond;
#[cfg(feature = "cond")]
pub use cond::Condvar;
#[cfg(not(feature = "cond"))]
pub use parking_lot::Condvar;

/// Owns an instance slot; frees it (folding its stats into the class) when dropped.
#[cfg(any(feature = "mutex", feature = "rwlock", feature = "cond"))]
pub(crate) struct InstanceHandle(pub(crate) &'static crate::imp::Instance);

#[cfg(any(feature = "mutex", feature = "rwlock", feature = "cond"))]
impl InstanceHandle {
    pub(crate) fn create(class: crate::ClassRef, identity: Option<u64>) -> Option<InstanceHandle> {
        crate::imp::create_instance(class.0, identity).map(InstanceHandle)
    }

    #[inline]
    pub(crate) fn flags(&self) -> u32 {
        self.0.flags.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn identity(&self) -> u64 {
        self.0.identity.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[cfg(any(feature = "mutex", feature = "rwlock", feature = "cond"))]
impl Drop for InstanceHandle {
    fn drop(&mut self) {
        crate::imp::destroy_instance(self.0);
    }
}

/// Hold bookkeeping carried by a guard: instance, flags snapshot, hold start.
#[cfg(any(feature = "mutex", feature = "rwlock"))]
pub(crate) type Hold = Option<(&'static crate::imp::Instance, u32, u64)>;

#[cfg(any(feature = "mutex", feature = "rwlock"))]
#[inline]
pub(crate) fn hold_of(h: &InstanceHandle, f: u32, start: u64) -> Hold {
    if f & crate::imp::F_HOLD != 0 {
        Some((h.0, f, start))
    } else {
        None
    }
}
