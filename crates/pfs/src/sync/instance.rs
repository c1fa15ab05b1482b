//! What the instrumented `Mutex`, `RwLock` and `Condvar` share: the instance slot a lock owns
//! ([`InstanceHandle`]), the acquire and try-acquire paths with their waiting and timing, and
//! the [`Guard`] that records the hold time before it unlocks.
//!
//! Protocol: `lock()` loads the instance's derived flags (one relaxed load); disabled → the
//! plain parking_lot call. Enabled → the out-of-line path in `imp::record` applies the
//! thread's switches, acquires, then writes the instance stats *while holding the lock it just
//! acquired* (so the cell has a single writer) and the (thread, class) stats into the thread's
//! own slot, and names the owner (`imp::owner`). The guard of an enabled acquisition carries the
//! instance (and the hold start when hold stats are on); before it releases it clears the owner
//! and records the hold time. A disabled acquisition's guard carries nothing. For the read side of an rwlock, concurrent readers may race on the
//! instance cell (a lost increment, never a torn value); the per-thread stats stay exact.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::Ordering;

use crate::imp::classes::F_ENABLED;
use crate::imp::instances::{create_instance, destroy_instance, Instance};
use crate::imp::record;
use crate::imp::ClassRef;
use crate::kinds::Operation;

/// Owns an instance slot; frees it (folding its stats into the class) when dropped.
pub(crate) struct InstanceHandle(pub(crate) &'static Instance);

impl InstanceHandle {
    pub(crate) fn create(class: ClassRef, identity: Option<u64>) -> Option<InstanceHandle> {
        create_instance(class.0, identity).map(InstanceHandle)
    }

    /// The instance's derived flags (one relaxed load).
    #[inline]
    pub(crate) fn flags(&self) -> u32 {
        self.0.flags.load(Ordering::Relaxed)
    }

    pub(crate) fn identity(&self) -> u64 {
        self.0.identity.load(Ordering::Relaxed)
    }
}

impl Drop for InstanceHandle {
    fn drop(&mut self) {
        destroy_instance(self.0);
    }
}

/// Hold bookkeeping carried by a guard of an acquisition made while enabled: instance, flags
/// in effect, hold start (0 unless hold stats are on). Its release clears the owner
/// (`imp::owner`) and counts the hold time.
pub(crate) type Hold = Option<(&'static Instance, u32, u64)>;

fn hold_of(inst: &'static Instance, f: u32, start: u64) -> Hold {
    (f & F_ENABLED != 0).then_some((inst, f, start))
}

/// Run `slow` (a blocking acquire, or a condition wait) or `try_fast`, instrumented when
/// `pfs` is an enabled instance. Returns what it returned and the hold to carry.
#[inline]
pub(crate) fn measure<G>(
    pfs: &Option<InstanceHandle>,
    op: Operation,
    try_fast: impl FnOnce() -> Option<G>,
    slow: impl FnOnce() -> G,
) -> (G, Hold) {
    if let Some(h) = pfs {
        let f = h.flags();
        if f & F_ENABLED != 0 {
            return measure_instrumented(h.0, f, op, try_fast, slow);
        }
    }
    (slow(), None)
}

#[inline(never)]
fn measure_instrumented<G>(
    inst: &'static Instance,
    f: u32,
    op: Operation,
    try_fast: impl FnOnce() -> Option<G>,
    slow: impl FnOnce() -> G,
) -> (G, Hold) {
    let (raw, start, f) = record::acquire(inst, f, op, try_fast, slow);
    (raw, hold_of(inst, f, start))
}

/// A non-blocking acquisition that succeeded (`raw`): counted with a zero wait.
#[inline]
pub(crate) fn acquired<G>(pfs: &Option<InstanceHandle>, op: Operation, raw: G) -> Guard<G> {
    let mut hold = None;
    if let Some(h) = pfs {
        let f = h.flags();
        if f & F_ENABLED != 0 {
            let (start, f) = record::acquired_try(h.0, f, op);
            hold = hold_of(h.0, f, start);
        }
    }
    Guard { raw, hold }
}

/// Close a hold period (the guard is about to release the lock, or a condition wait releases
/// the mutex).
#[inline]
pub(crate) fn end_hold(hold: Hold) {
    if let Some((inst, f, start)) = hold {
        record::release_hold(inst, f, start);
    }
}

/// Start a hold period again (a condition wait got its mutex back).
#[cfg(all(feature = "cond", feature = "mutex"))]
pub(crate) fn restart_hold(hold: Hold) -> Hold {
    hold.map(|(inst, f, _)| (inst, f, record::rehold(inst, f)))
}

/// The guard of an instrumented [`Mutex`](super::Mutex) or [`RwLock`](super::RwLock) (see the
/// aliases [`MutexGuard`](super::MutexGuard), [`RwLockReadGuard`](super::RwLockReadGuard),
/// [`RwLockWriteGuard`](super::RwLockWriteGuard)): derefs to the data, records the hold time
/// (if hold stats are on) before it unlocks.
#[must_use = "if unused the lock will immediately unlock"]
pub struct Guard<G> {
    pub(crate) raw: G,
    pub(crate) hold: Hold,
}

impl<G> Drop for Guard<G> {
    #[inline]
    fn drop(&mut self) {
        end_hold(self.hold.take());
    }
}

impl<G: Deref> Deref for Guard<G> {
    type Target = G::Target;
    #[inline]
    fn deref(&self) -> &G::Target {
        &self.raw
    }
}

impl<G: DerefMut> DerefMut for Guard<G> {
    #[inline]
    fn deref_mut(&mut self) -> &mut G::Target {
        &mut self.raw
    }
}

impl<G: Deref<Target: fmt::Debug>> fmt::Debug for Guard<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<G: Deref<Target: fmt::Display>> fmt::Display for Guard<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

/// Blocking acquire methods and their non-blocking tries, named as parking_lot names them (`lock`
/// and `try_lock`, `read` and `try_read`, ...). The blocking one tries `raw.$try_name()` first and
/// blocks in `raw.$name()` only if that fails, measured as a wait of `$op` ([`measure`]); the
/// try counts a success with a zero wait and a failure not at all ([`acquired`]).
#[cfg(any(feature = "mutex", feature = "rwlock"))]
macro_rules! acquire_methods {
    ($(
        $(#[$doc:meta])*
        $name:ident, $op:ident -> $guard:ident,
        $(#[$try_doc:meta])*
        $try_name:ident, $try_op:ident;
    )*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name(&self) -> $guard<'_, T> {
            let (raw, hold) = measure(
                &self.pfs,
                Operation::$op,
                || self.raw.$try_name(),
                || self.raw.$name(),
            );
            Guard { raw, hold }
        }

        $(#[$try_doc])*
        #[inline]
        pub fn $try_name(&self) -> Option<$guard<'_, T>> {
            Some(acquired(&self.pfs, Operation::$try_op, self.raw.$try_name()?))
        }
    )*};
}
#[cfg(any(feature = "mutex", feature = "rwlock"))]
pub(crate) use acquire_methods;

/// What `Mutex` and `RwLock` share beyond the acquire path: the instance queries and the
/// `Default`, `From` and `Debug` impls (both have fields `pfs` and `raw`).
#[cfg(any(feature = "mutex", feature = "rwlock"))]
macro_rules! lock_common {
    ($lock:ident, $raw:ident, $what:literal) => {
        impl<T> $lock<T> {
            #[doc = concat!("An uninstrumented ", $what, " (`const`, usable in statics).")]
            #[inline]
            pub const fn new(value: T) -> $lock<T> {
                $lock {
                    pfs: None,
                    raw: parking_lot::$raw::new(value),
                }
            }

            #[doc = concat!("A ", $what, " that is an instance of `class`.")]
            pub fn with_class(class: ClassRef, value: T) -> $lock<T> {
                $lock {
                    pfs: InstanceHandle::create(class, None),
                    raw: parking_lot::$raw::new(value),
                }
            }

            #[doc = concat!("A ", $what, " that is an instance of `class`, shown with ")]
            /// `OBJECT_INSTANCE_BEGIN = identity`.
            pub fn with_class_identity(class: ClassRef, identity: u64, value: T) -> $lock<T> {
                $lock {
                    pfs: InstanceHandle::create(class, Some(identity)),
                    raw: parking_lot::$raw::new(value),
                }
            }

            #[doc = concat!("Consume the ", $what, ", returning the data (the instance slot is freed).")]
            #[inline]
            pub fn into_inner(self) -> T {
                self.raw.into_inner()
            }
        }

        impl<T: ?Sized> $lock<T> {
            /// Mutable access without locking (the borrow checker proves exclusivity).
            #[inline]
            pub fn get_mut(&mut self) -> &mut T {
                self.raw.get_mut()
            }

            #[doc = concat!("Is the ", $what, " locked right now (for an rwlock: shared or exclusive)?")]
            #[inline]
            pub fn is_locked(&self) -> bool {
                self.raw.is_locked()
            }

            /// Is this lock an instrumented instance (it got an instance slot)?
            pub fn is_instrumented(&self) -> bool {
                self.pfs.is_some()
            }

            /// Its `OBJECT_INSTANCE_BEGIN`, if instrumented.
            pub fn instance_identity(&self) -> Option<u64> {
                self.pfs.as_ref().map(InstanceHandle::identity)
            }
        }

        impl<T: Default> Default for $lock<T> {
            fn default() -> $lock<T> {
                $lock::new(T::default())
            }
        }

        impl<T> From<T> for $lock<T> {
            fn from(v: T) -> $lock<T> {
                $lock::new(v)
            }
        }

        impl<T: ?Sized + fmt::Debug> fmt::Debug for $lock<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.raw.fmt(f)
            }
        }
    };
}
#[cfg(any(feature = "mutex", feature = "rwlock"))]
pub(crate) use lock_common;
