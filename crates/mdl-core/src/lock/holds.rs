//! Where a granted lock is recorded ([`Hold`]), and what a context does with locks it already
//! holds: clone them (another ticket on the same lock, of an equal or weaker type), move its
//! fast-path locks into the queue (materialize), record a new duration, and tell whether a hold
//! is still on a fast path.

use super::*;

/// Where a granted lock is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hold {
    /// A slot of the slot table ([`FastPath::PerContext`]); may have been moved into the queue
    /// by a strong requester since (the slot says so). First, so the release of the default
    /// mode's common hold tests the discriminant against zero.
    Slot(u32),
    /// A counter in the state word ([`FastPath::SharedWord`]).
    Counter,
    /// An entry of the granted queue (made by [`Hold::entry`]).
    Entry(u32),
}

impl Hold {
    /// The hold of granted-queue entry `idx`. A queue index fits in 32 bits: 2^32 entries
    /// would take over 160 GiB, so allocation fails long before. The narrow index keeps a
    /// ticket's record at 24 bytes instead of 32, which is cheaper to move in and out of the
    /// ticket store (2 instructions per acquire+release of the fast path).
    pub(crate) fn entry(idx: usize) -> Hold {
        Hold::Entry(u32::try_from(idx).expect("a queue holds fewer than 2^32 entries"))
    }
}

impl LockObject {
    /// Adds a lock held through a clone of one of the context's tickets on this object (so the
    /// object is in use and no conflict check is needed): on the fast path if the source is
    /// and the mode allows, else as a granted entry.
    pub(crate) fn add_clone(
        &self,
        req: &Request<'_>,
        source: Hold,
        home: Option<&mut SlotHome>,
    ) -> Hold {
        let inc = fast_path_increment(self.strategy, req.ty);
        if inc != 0 {
            match (source, home) {
                (Hold::Slot(_), Some(home)) => match self.claim_slot(home, req.ty, req.duration) {
                    FastAcquire::Granted { hold, .. } => return hold,
                    FastAcquire::Moved { entry } => return Hold::entry(entry),
                    FastAcquire::SlowPath | FastAcquire::Destroyed => {}
                },
                (Hold::Counter, _) => {
                    // Under the write lock so an obtrusive requester cannot start in between;
                    // fast-path requests may add to the counter concurrently, so reserve a unit
                    // with the compare-and-swap that checks the counter is not full.
                    let _st = self.state.write();
                    if self.add_to_counter(inc, 0).is_ok() {
                        return Hold::Counter;
                    }
                }
                _ => {}
            }
        }
        let mut st = self.state.write();
        let mut flags = HAS_SLOW_PATH;
        if inc == 0 {
            st.obtrusive_count += 1;
            flags |= HAS_OBTRUSIVE;
        }
        self.word.fetch_or(flags, Ordering::AcqRel);
        Hold::entry(st.add_granted(req.entry()))
    }

    /// Moves one of a context's fast-path locks into the granted queue (before it waits, in
    /// [`FastPath::SharedWord`] mode, and for `set_needs_thr_lock_abort`). Returns the entry.
    pub(crate) fn materialize(&self, env: &Env, req: &Request<'_>, hold: Hold) -> usize {
        let mut st = self.state.write();
        match hold {
            Hold::Entry(entry) => entry as usize,
            Hold::Slot(slot) => match env.slots.release(slot) {
                // Moved by a strong requester (who held this lock, so it is complete).
                Slot::Moved { entry, .. } => entry,
                _ => {
                    self.word.fetch_or(HAS_SLOW_PATH, Ordering::AcqRel);
                    st.add_granted(req.entry())
                }
            },
            Hold::Counter => {
                let inc = fast_path_increment(self.strategy, req.ty);
                let idx = st.add_granted(req.entry());
                // One atomic step: the unit leaves the counter as the queue gets the entry.
                let _ = self
                    .word
                    .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |old| {
                        Some((old - inc) | HAS_SLOW_PATH)
                    });
                idx
            }
        }
    }

    /// Makes a hold an entry of the granted queue with ticket id `req.ticket_id`, for an owned
    /// lock (`context/guard.rs`): a fast-path hold is materialized first. Returns the entry.
    pub(crate) fn detach(&self, env: &Env, req: &Request<'_>, hold: Hold) -> usize {
        let entry = self.materialize(env, req, hold);
        if let Some(e) = self.state.write().entries.get_mut(entry) {
            e.ticket_id = req.ticket_id;
        }
        entry
    }

    /// Records a ticket's new duration where its lock is (the queue entry or the slot).
    pub(crate) fn set_duration(&self, env: &Env, hold: Hold, duration: LockDuration) {
        match hold {
            Hold::Counter => {}
            Hold::Entry(entry) => {
                if let Some(e) = self.state.write().entries.get_mut(entry as usize) {
                    e.duration = duration;
                }
            }
            Hold::Slot(slot) => {
                let w = env.slots.load(slot);
                match Slot::decode(w) {
                    Slot::Held { .. }
                        if env
                            .slots
                            .replace(slot, w, fast_path::with_duration(w, duration)) => {}
                    // Moved (or being moved): the queue entry is the record. Taking the write
                    // lock waits for a transfer under way.
                    _ => {
                        let mut st = self.state.write();
                        if let Slot::Moved { entry, .. } = Slot::decode(env.slots.load(slot)) {
                            if let Some(e) = st.entries.get_mut(entry) {
                                e.duration = duration;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Whether a hold is still on a fast path (not moved into the queue).
    pub(crate) fn is_fast(&self, env: &Env, hold: Hold) -> bool {
        match hold {
            Hold::Entry(_) => false,
            Hold::Counter => true,
            Hold::Slot(slot) => matches!(Slot::decode(env.slots.load(slot)), Slot::Held { .. }),
        }
    }
}
