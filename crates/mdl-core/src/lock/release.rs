//! Giving a lock up, wherever it is recorded: a per-context slot (which a strong requester may
//! have moved into the queue), a shared-word counter, or a queue entry. A release that may let a
//! waiter in reschedules the waiters under the object's write lock.

use super::*;

impl LockObject {
    /// Gives up a granted lock, wherever it is recorded. Returns whether the object became
    /// unused (state word 0).
    #[inline(always)]
    pub(crate) fn release(
        &self,
        env: &Env,
        hold: Hold,
        ty: LockType,
        home: Option<&SlotHome>,
    ) -> bool {
        match hold {
            Hold::Slot(slot) => match fast_path::moved_entry(match home {
                Some(h) => h.release_word(slot),
                None => env.slots.release_word(slot),
            }) {
                Some(entry) => self.remove_entry(entry, env.max_write_lock_count),
                // Held: nobody else knew. Pending: the transfer sees the slot empty and undoes.
                None => false,
            },
            Hold::Counter => self.remove_counter(
                fast_path_increment(self.strategy, ty),
                env.max_write_lock_count,
            ),
            Hold::Entry(entry) => self.remove_entry(entry as usize, env.max_write_lock_count),
        }
    }

    /// Gives back a [`FastPath::SharedWord`] counter. Once an obtrusive lock is around the word
    /// changes only under the write lock, and the release may let a waiter in. Returns whether
    /// the object became unused.
    #[inline]
    pub(crate) fn remove_counter(&self, inc: u64, max_write_lock_count: u64) -> bool {
        match self
            .word
            .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |old| {
                (old & HAS_OBTRUSIVE == 0).then(|| old - inc)
            }) {
            Ok(old) => old == inc,
            Err(_) => self.remove_counter_locked(inc, max_write_lock_count),
        }
    }

    /// [`LockObject::remove_counter`] once an obtrusive lock is around: under the write lock,
    /// with a reschedule (out of line: the common release is the compare-and-swap above).
    #[inline(never)]
    fn remove_counter_locked(&self, inc: u64, max_write_lock_count: u64) -> bool {
        let mut st = self.state.write();
        let prev = self.word.fetch_sub(inc, Ordering::AcqRel);
        if st.obtrusive_count != 0 {
            let wakes = self.reschedule_waiters(&mut st, max_write_lock_count);
            drop(st);
            drop(wakes);
        }
        prev == inc
    }

    /// Removes a slow-path entry (granted or pending), clears the state flags it was the last
    /// reason for, and wakes whoever can now be granted. Returns whether the object became
    /// unused (state word 0).
    pub(crate) fn remove_entry(&self, idx: usize, max_write_lock_count: u64) -> bool {
        let mut st = self.state.write();
        let e = st.remove(idx);
        let obtrusive = !is_unobtrusive(self.strategy, e.ty);
        let mut clear = 0;
        if obtrusive {
            st.obtrusive_count -= 1;
            if st.obtrusive_count == 0 {
                clear |= HAS_OBTRUSIVE;
            }
        }
        let last_slow_path = st.is_empty();
        if last_slow_path {
            clear |= HAS_SLOW_PATH;
            st.reset_priorities();
        }
        let new_state = if clear != 0 {
            self.word.fetch_and(!clear, Ordering::AcqRel) & !clear
        } else {
            self.word.load(Ordering::Acquire)
        };
        if last_slow_path {
            drop(st);
        } else {
            let wakes = self.reschedule_waiters(&mut st, max_write_lock_count);
            drop(st);
            drop(wakes);
        }
        drop(e);
        new_state == 0
    }
}
