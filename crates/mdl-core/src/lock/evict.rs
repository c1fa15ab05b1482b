//! Eviction of unused lock objects (see `map.rs`): marking an unused object destroyed, and the
//! two halves of a sweep's check of an object that only per-context slots may use.

use super::*;

impl LockObject {
    /// Eviction: marks an unused object destroyed (state word exactly 0 → `IS_DESTROYED`) under
    /// the write lock, so no slow-path user is mid-way. A word of 0 also means no slot holds the
    /// object (`HAS_FAST_SLOTS` is raised before a claim counts). Returns whether it was marked.
    pub(crate) fn try_destroy(&self) -> bool {
        if self.word.load(Ordering::Relaxed) != 0 {
            return false;
        }
        let _st = self.state.write();
        self.word
            .compare_exchange(0, IS_DESTROYED, Ordering::SeqCst, Ordering::Relaxed)
            .is_ok()
    }

    /// The first half of an eviction sweep's check of an object that only per-context slots
    /// may use (state word exactly `HAS_FAST_SLOTS`): mark it destroyed, so new claims back
    /// off, before the sweep scans the slots. Returns whether it was marked.
    pub(crate) fn mark_for_sweep(&self) -> bool {
        if self.word.load(Ordering::Relaxed) != HAS_FAST_SLOTS {
            return false;
        }
        let _st = self.state.write();
        self.word
            .compare_exchange(
                HAS_FAST_SLOTS,
                IS_DESTROYED,
                Ordering::SeqCst,
                Ordering::Relaxed,
            )
            .is_ok()
    }

    /// The second half: a slot still holds the object — put `HAS_FAST_SLOTS` back and clear
    /// `IS_DESTROYED` (in that order, so the word never looks unused).
    pub(crate) fn unmark_in_use(&self) {
        self.word.fetch_or(HAS_FAST_SLOTS, Ordering::AcqRel);
        self.word.fetch_and(!IS_DESTROYED, Ordering::AcqRel);
    }

    /// The second half: no slot holds the object — it is unused (state word 0). A claim that
    /// raced with the sweep saw `IS_DESTROYED` and took itself back.
    pub(crate) fn unmark_unused(&self) {
        self.word
            .fetch_and(!(IS_DESTROYED | HAS_FAST_SLOTS), Ordering::AcqRel);
    }
}
