//! The lock object's half of the grant gate (`gate.rs`): closing and opening it on one object,
//! and counting the locks still granted there.

use super::*;
use crate::matrix::fast_path_granted_bitmap;

/// What closing the gate on an object did.
pub(crate) enum Closed {
    /// Closed now; `first_use`: the object was unused before (the map's unused count).
    Now { first_use: bool },
    /// It was closed already.
    Already,
    /// The object is being evicted or checked by a sweep: ask the map again.
    Destroyed,
}

impl LockObject {
    /// Closes the gate on this object, under its write lock: it counts as one obtrusive
    /// request (so new fast-path grants are impossible and per-context fast-path locks move
    /// into the granted queue, exactly as for a strong request) until it is opened again.
    pub(crate) fn close_gate(&self, env: &Env) -> Closed {
        let mut st = self.state.write();
        if st.gated {
            return Closed::Already;
        }
        match self.begin_slow_path(&mut st, env, true) {
            Err(Destroyed) => Closed::Destroyed,
            Ok(first_use) => {
                st.gated = true;
                Closed::Now { first_use }
            }
        }
    }

    /// Opens the gate on this object and grants the waiters that can now go. Returns whether
    /// the object became unused.
    pub(crate) fn open_gate(&self, env: &Env) -> bool {
        let mut st = self.state.write();
        if !st.gated {
            return false;
        }
        st.gated = false;
        let unused = self.abandon_slow_path(&mut st, true);
        if !unused {
            let wakes = self.reschedule_waiters(&mut st, env.max_write_lock_count);
            drop(st);
            drop(wakes);
        }
        unused
    }

    /// Locks granted on this object to contexts that a closed gate stops (granted-queue
    /// entries of non-exempt contexts, plus [`FastPath::SharedWord`] counters, which name no
    /// owner and so always count).
    pub(crate) fn granted_to_gated(&self) -> usize {
        let st = self.state.read_recursive();
        let queued = st
            .granted()
            .filter(|e| !e.ctx.gate_exempt.load(Ordering::Relaxed))
            .count();
        let word = self.word.load(Ordering::Acquire);
        let counters = if fast_path_granted_bitmap(self.strategy, word) == 0 {
            0
        } else {
            match self.strategy {
                Strategy::Scoped => (word & ((1 << 60) - 1)) as usize,
                Strategy::Object => (0..3)
                    .map(|i| ((word >> (20 * i)) & ((1 << 20) - 1)) as usize)
                    .sum(),
            }
        };
        queued + counters
    }
}
