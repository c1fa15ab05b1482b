//! Who holds an instrumented lock: `mutex_instances.LOCKED_BY_THREAD_ID`,
//! `rwlock_instances.WRITE_LOCKED_BY_THREAD_ID` and `READ_LOCKED_BY_COUNT`.
//!
//! As MySQL's `pfs_end_mutex_wait_v1` / `pfs_unlock_mutex_v1` (and the rwlock's): only an
//! acquisition made while the instance is enabled (for the acquiring thread) is recorded, on
//! the instrumented path `record::acquire` already takes; its guard then keeps the instance
//! and clears what it set when it releases (`sync::instance::Guard`). A lock taken while the
//! instrument is off shows no owner, as in MySQL, and costs nothing more: the disabled path
//! neither sets nor clears anything (`BENCHMARKS.md`, "Lock owners").

use std::sync::atomic::Ordering;

use super::flags::F_READ;
use super::instances::Instance;
use crate::kinds::Operation;

/// `inst` was just acquired by the current thread with `op`: names it the owner (an exclusive
/// hold) or counts a reader. Returns the flags its guard keeps (`F_READ` for a shared hold);
/// a condition wait (`Wait`, `TimedWait`) holds nothing.
#[inline]
pub(crate) fn owned(inst: &Instance, op: Operation, f: u32) -> u32 {
    match op {
        Operation::ReadLock | Operation::TryReadLock => {
            inst.readers.fetch_add(1, Ordering::Relaxed);
            f | F_READ
        }
        Operation::Lock | Operation::TryLock | Operation::WriteLock | Operation::TryWriteLock => {
            inst.owner
                .store(crate::thread_id::current(), Ordering::Relaxed);
            f
        }
        _ => f,
    }
}

/// The hold `owned` recorded with flags `f` ends.
#[inline]
pub(crate) fn released(inst: &Instance, f: u32) {
    if f & F_READ != 0 {
        inst.readers.fetch_sub(1, Ordering::Relaxed);
    } else {
        inst.owner.store(0, Ordering::Relaxed);
    }
}
