//! `THREAD_ID`s: one per OS thread, from 1, never reused. Shared by both builds (a lock manager
//! records the owner thread of its tickets even when the instrumentation is compiled out).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_THREAD_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    // Written by its own thread only; a plain `Cell` with no destructor, so reading it is one
    // thread-local load.
    static THREAD_ID: Cell<u64> = const { Cell::new(0) };
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
            let v = NEXT_THREAD_ID.fetch_add(1, Ordering::Relaxed);
            c.set(v);
            v
        })
        .unwrap_or(0)
}
