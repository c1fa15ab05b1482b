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
//! applies the thread's switches, acquires, then writes the instance stats *while holding the
//! lock it just acquired* (so the cell has a single writer), and the (thread, class) stats into
//! the thread's own slot, and names the thread the lock's owner (or counts a reader:
//! `mutex_instances`, `rwlock_instances`). The guard (`instance::Guard`, one type for all
//! three guards) of such an acquisition carries the instance; before it releases it clears the
//! owner and, when hold stats are on, records the hold time. A guard of a disabled acquisition
//! carries nothing and does nothing.
//! For the read side of an rwlock, concurrent readers may race on the instance cell (a lost
//! increment, never a torn value); the per-thread stats stay exact. Condition-variable stats
//! are written after the wait returns, under the associated mutex. The mutex, the rwlock and
//! the condition variable share this code (module `instance`).

mod ext;
pub use ext::{CondvarExt, MutexExt, RwLockExt};

pub use parking_lot::WaitTimeoutResult;

#[cfg(any(feature = "mutex", feature = "rwlock", feature = "cond"))]
mod instance;
#[cfg(any(feature = "mutex", feature = "rwlock"))]
pub use instance::Guard;

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
