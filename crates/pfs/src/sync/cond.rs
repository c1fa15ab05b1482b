//! Instrumented condition variable (feature `cond`). Works with [`crate::sync::MutexGuard`]
//! (the instrumented guard with the `mutex` feature, parking_lot's without).

use std::fmt;
use std::time::{Duration, Instant};

use super::instance::{measure, InstanceHandle};
use super::{MutexGuard, WaitTimeoutResult};
use crate::imp::ClassRef;
use crate::kinds::Operation;

/// A parking_lot condition variable with optional Performance-Schema instrumentation.
/// Waits are recorded as `wait`/`timed_wait` events of its class; notifications are not
/// instrumented.
pub struct Condvar {
    pfs: Option<InstanceHandle>,
    raw: parking_lot::Condvar,
}

/// The associated mutex's guard: with the `mutex` feature the instrumented one, whose hold
/// period pauses during the wait.
#[cfg(feature = "mutex")]
mod guard {
    use super::super::instance::{end_hold, restart_hold, Hold};
    use super::MutexGuard;

    #[inline]
    pub(super) fn raw<'g, 'a, T: ?Sized>(
        g: &'g mut MutexGuard<'a, T>,
    ) -> &'g mut parking_lot::MutexGuard<'a, T> {
        &mut g.raw
    }

    pub(super) fn pause<T: ?Sized>(g: &mut MutexGuard<'_, T>) -> Hold {
        let h = g.hold.take();
        end_hold(h);
        h
    }

    pub(super) fn resume<T: ?Sized>(g: &mut MutexGuard<'_, T>, h: Hold) {
        g.hold = restart_hold(h);
    }
}

/// The associated mutex's guard: without the `mutex` feature parking_lot's own.
#[cfg(not(feature = "mutex"))]
mod guard {
    use super::MutexGuard;

    #[inline]
    pub(super) fn raw<'g, 'a, T: ?Sized>(
        g: &'g mut MutexGuard<'a, T>,
    ) -> &'g mut parking_lot::MutexGuard<'a, T> {
        g
    }

    pub(super) fn pause<T: ?Sized>(_g: &mut MutexGuard<'_, T>) {}

    pub(super) fn resume<T: ?Sized>(_g: &mut MutexGuard<'_, T>, _h: ()) {}
}

impl Condvar {
    /// An uninstrumented condition variable (`const`).
    #[inline]
    pub const fn new() -> Condvar {
        Condvar {
            pfs: None,
            raw: parking_lot::Condvar::new(),
        }
    }

    /// A condition variable that is an instance of `class`.
    pub fn with_class(class: ClassRef) -> Condvar {
        Condvar {
            pfs: InstanceHandle::create(class, None),
            raw: parking_lot::Condvar::new(),
        }
    }

    /// An instance of `class` shown with `OBJECT_INSTANCE_BEGIN = identity`.
    pub fn with_class_identity(class: ClassRef, identity: u64) -> Condvar {
        Condvar {
            pfs: InstanceHandle::create(class, Some(identity)),
            raw: parking_lot::Condvar::new(),
        }
    }

    /// Wake one waiter; returns whether one was woken.
    #[inline]
    pub fn notify_one(&self) -> bool {
        self.raw.notify_one()
    }

    /// Wake all waiters; returns how many were woken.
    #[inline]
    pub fn notify_all(&self) -> usize {
        self.raw.notify_all()
    }

    /// Block until notified (spurious wake-ups possible, as with parking_lot).
    #[inline]
    pub fn wait<T: ?Sized>(&self, guard: &mut MutexGuard<'_, T>) {
        self.instrumented(guard, Operation::Wait, |c, g| c.wait(g))
    }

    /// Block until notified or `deadline`.
    #[inline]
    pub fn wait_until<T: ?Sized>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        deadline: Instant,
    ) -> WaitTimeoutResult {
        self.instrumented(guard, Operation::TimedWait, |c, g| {
            c.wait_until(g, deadline)
        })
    }

    /// Block until notified or `timeout` has passed.
    #[inline]
    pub fn wait_for<T: ?Sized>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        timeout: Duration,
    ) -> WaitTimeoutResult {
        self.instrumented(guard, Operation::TimedWait, |c, g| c.wait_for(g, timeout))
    }

    /// Block while `condition` returns true (each wake-up is one recorded wait).
    pub fn wait_while<T: ?Sized, F: FnMut(&mut T) -> bool>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        mut condition: F,
    ) {
        while condition(&mut **guard) {
            self.wait(guard);
        }
    }

    /// Is this condition variable an instrumented instance?
    pub fn is_instrumented(&self) -> bool {
        self.pfs.is_some()
    }

    #[inline]
    fn instrumented<T: ?Sized, R>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        op: Operation,
        f: impl FnOnce(&parking_lot::Condvar, &mut parking_lot::MutexGuard<'_, T>) -> R,
    ) -> R {
        // The mutex is released while waiting: its hold period ends here and restarts after.
        let hold = guard::pause(guard);
        // Stats are recorded after the wait returns, under the associated mutex again: one
        // writer at a time.
        let (r, _) = measure(&self.pfs, op, || None, || f(&self.raw, guard::raw(guard)));
        guard::resume(guard, hold);
        r
    }
}

impl Default for Condvar {
    fn default() -> Condvar {
        Condvar::new()
    }
}

impl fmt::Debug for Condvar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Condvar")
            .field("instrumented", &self.is_instrumented())
            .finish()
    }
}
