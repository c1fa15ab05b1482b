//! Feature `tracing`: timed events at least as long as a run-time threshold are also emitted as
//! `tracing::warn!` events (target `pfs::wait`). The threshold is one global atomic, written by
//! `set_tracing_threshold` and read relaxed after each timed event.

use std::sync::atomic::{AtomicU64, Ordering};

use super::classes::ClassInfo;

/// Threshold in picoseconds; 0 = off.
static THRESHOLD_PS: AtomicU64 = AtomicU64::new(0);

pub(crate) fn set_threshold(ps: u64) {
    THRESHOLD_PS.store(ps, Ordering::Relaxed);
}

#[inline]
pub(crate) fn slow(class: &ClassInfo, wait: u64) {
    let thr = THRESHOLD_PS.load(Ordering::Relaxed);
    if thr != 0 {
        slow_cold(class, wait, thr);
    }
}

#[cold]
fn slow_cold(class: &ClassInfo, wait: u64, thr_ps: u64) {
    let ps = super::timer::ticks_to_ps(wait, class.clock());
    if ps >= thr_ps {
        tracing::warn!(
            target: "pfs::wait",
            event_name = class.name(),
            wait_ns = ps / 1000,
            thread_id = crate::thread_id::current(),
            "long wait"
        );
    }
}
