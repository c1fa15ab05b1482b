//! `THREAD_ID`s: one per OS thread and one per session thread ([`crate::SessionThread`]), from 1,
//! never reused. Shared by both builds (a lock manager records the owner thread of its tickets
//! even when the instrumentation is compiled out).
//!
//! The thread-local holds the *current* id: the OS thread's own, or that of the session thread
//! entered on it ([`crate::SessionThread::enter`] swaps it in and puts the old one back), so
//! `PS_CURRENT_THREAD_ID()` names the session a task runs for, whichever worker runs it.

#[cfg(not(feature = "instrumentation"))]
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_THREAD_ID: AtomicU64 = AtomicU64::new(1);

#[cfg(not(feature = "instrumentation"))]
thread_local! {
    // Written by its own thread only; a plain `Cell` with no destructor, so reading it is one
    // thread-local load.
    static THREAD_ID: Cell<u64> = const { Cell::new(0) };
}
// Beside the backend's current slot, so that entering a session swaps both in one function
// of one codegen unit (`imp::thread::enter`).
#[cfg(feature = "instrumentation")]
use crate::imp::thread::THREAD_ID;

/// A new id (an OS thread's on its first call of [`current`], or a session thread's).
pub(crate) fn next() -> u64 {
    NEXT_THREAD_ID.fetch_add(1, Ordering::Relaxed)
}

/// The current thread's id, assigned on first call; 0 only while thread-local storage is being
/// torn down.
#[inline]
pub(crate) fn current() -> u64 {
    THREAD_ID
        .try_with(|c| {
            let v = c.get();
            if v != 0 {
                return v;
            }
            let v = next();
            c.set(v);
            v
        })
        .unwrap_or(0)
}

/// Makes `id` the current id of this OS thread; returns the one it replaces (for [`restore`]).
#[cfg(not(feature = "instrumentation"))]
pub(crate) fn enter(id: u64) -> u64 {
    let prev = current();
    let _ = THREAD_ID.try_with(|c| c.set(id));
    prev
}

/// Puts back the id [`enter`] replaced.
#[cfg(not(feature = "instrumentation"))]
pub(crate) fn restore(prev: u64) {
    let _ = THREAD_ID.try_with(|c| c.set(prev));
}
