//! The instrumentation seam of the lock logic: what a context publishes for `metadata_locks`
//! ([`ContextRows`], one field of the context's shared part, and [`RetiredRows`], the
//! registry's), called unconditionally by the ticket code; without the feature `pfs` both are
//! zero-sized and every call is an empty inline function. The readers of the tables
//! `metadata_locks`, `metadata_lock_waits` and `metadata_deadlocks` are in `metadata_tables.rs`
//! (feature `pfs`). (The instrument classes of the lock manager's primitives are in `sync.rs`; the
//! metadata-lock wait event, `wait/lock/metadata/sql/mdl`, and the session a context's waits are
//! recorded on are a wait's telemetry, in `telemetry.rs`.)
//!
//! # `metadata_locks` from the lock manager's own structures
//!
//! MySQL creates a Performance Schema row for every ticket, fast path included, in a global
//! buffer. Here the rows are read from what the lock manager keeps anyway: the granted and
//! pending entries of every lock object's queues (under its read lock) and, in
//! [`crate::FastPath::PerContext`] mode, the slots of the slot table (one scan). Nothing is
//! written for them on the acquire or release path, so with the `wait/lock/metadata/sql/mdl`
//! instrument enabled a per-context fast-path statement costs what it costs with it disabled.
//!
//! Only MySQL's shared-word fast path ([`crate::FastPath::SharedWord`]) keeps locks as counters
//! that name no owner. In that mode each context *publishes* its counter-held tickets in its own
//! small table of atomic words (in place in the context's shared part, on cache lines of their
//! own) that only it writes: while the instrument is enabled, granting or changing such a ticket
//! stores one word into the slot of the same index as the ticket — the lock object's address
//! with the duration and the lock type in its low six bits, which are free because lock objects
//! are 64-byte aligned — and releasing it stores zero. The cost on a left-out or instrumented
//! session alike is the instrument check `off` pays too, then a few register operations and one
//! store on acquire, and one store on release (which `off` makes too: it clears the slot's word
//! unconditionally rather than test whether it was written). Plain stores, no read-modify-write,
//! no lock, nothing to initialize or look up; one word per row, so a reader never sees half a
//! row and needs no seqlock. The row's ticket id is the context's and the slot's (as every
//! ticket id is). Lock objects are identified by address: the reader first takes `Arc`s of
//! every object in the lock map, so an address it finds there is that object (it cannot be
//! freed and reused while held), and a published address it does not find belongs to a ticket
//! already gone. Tickets beyond `PUBLISHED_SLOTS` in one context are
//! not shown and are counted as lost, per context (a `#[cold]` increment); the counts of ended
//! contexts move to the registry, and `MdlManager::metadata_locks_lost` adds them up
//! (`Performance_schema_metadata_lock_lost`).
//!
//! As in MySQL (`pfs_create_metadata_lock_v1` checks the instrument, not the thread's
//! `INSTRUMENTED` switch), a session left out by `setup_threads` / `setup_actors` has its rows
//! too, in every fast-path mode. Rows are shown while the instrument is enabled when the table
//! is read (MySQL shows the tickets created while it was enabled). The views are not one
//! snapshot: a lock moved between a slot and its queue during the read can show twice or not at
//! all.
//!
//! Invariant: a context's published word of slot `i` is non-zero only while ticket slot `i`
//! holds its lock as a shared-word counter (`context/tickets.rs` clears it when that hold is
//! released, replaced or moved to a queue, and rewrites it when the duration changes). Only the
//! thread using the context writes its words.

#[cfg(not(feature = "pfs"))]
pub(crate) use off::{ContextRows, RetiredRows};
#[cfg(feature = "pfs")]
pub use on::PUBLISHED_SLOTS;
#[cfg(feature = "pfs")]
pub(crate) use on::{ContextRows, RetiredRows};
#[cfg(feature = "pfs")]
pub(crate) use on::{ROW_DURATION_SHIFT, ROW_LOW};

/// With `pfs`: the published rows and the owner thread.
#[cfg(feature = "pfs")]
mod on {
    use crate::sync::{class_of, AtomicU64, Ordering, Site};
    use crate::types::{LockDuration, LockType};

    /// Shared-word tickets per context shown in `metadata_locks` (ticket slots
    /// `0..PUBLISHED_SLOTS`).
    pub const PUBLISHED_SLOTS: usize = 64;

    /// Bits of a row word below the lock object's address: the duration in bits 4–5, the type
    /// in bits 0–3.
    pub(crate) const ROW_LOW: u64 = 63;
    pub(crate) const ROW_DURATION_SHIFT: u32 = 4;

    /// A context's instrumentation state that other threads read (see the module docs).
    pub(crate) struct ContextRows {
        /// The `pfs` thread that created the context, last waited in it, or that it is bound
        /// to (`metadata_locks.OWNER_THREAD_ID`).
        thread: AtomicU64,
        /// `wait/lock/metadata/sql/mdl`, kept here so the hot path needs no lookup.
        metadata: pfs::ClassRef,
        /// Rows not shown: tickets beyond [`PUBLISHED_SLOTS`].
        lost: AtomicU64,
        /// The rows, in place, on lines of their own, so publishing is one store with no
        /// pointer to follow and nothing to initialize.
        published: Published,
    }

    /// A context's published shared-word tickets: per ticket slot, 0 or the row word of a held
    /// lock. Written only by the thread using the context, read by `metadata_locks`. 64-byte
    /// aligned: the words share no cache line with the fields other threads write.
    #[repr(align(64))]
    struct Published {
        words: [AtomicU64; PUBLISHED_SLOTS],
    }

    impl ContextRows {
        pub(crate) fn new() -> ContextRows {
            ContextRows {
                thread: AtomicU64::new(pfs::current_thread_id()),
                metadata: class_of(Site::Metadata),
                lost: AtomicU64::new(0),
                published: Published {
                    words: std::array::from_fn(|_| AtomicU64::new(0)),
                },
            }
        }

        /// The row of a ticket on the lock object at `lock` (its address), held as a
        /// shared-word counter or not: the address with the duration and the type in its low
        /// bits (free: lock objects are 64-byte aligned, checked in `metadata_tables.rs`), for a
        /// counter-held ticket while the instrument is enabled (for any thread: one relaxed
        /// load); else 0. The hold is checked first, then the instrument.
        #[inline(always)]
        pub(crate) fn row_of(
            &self,
            counter_held: bool,
            lock: usize,
            ty: LockType,
            duration: LockDuration,
        ) -> u64 {
            if counter_held && self.metadata.instrument_enabled() {
                lock as u64 | (duration as u64) << ROW_DURATION_SHIFT | ty as u64
            } else {
                0
            }
        }

        /// Publishes `row` ([`ContextRows::row_of`]) of the new ticket in slot `slot` (whose
        /// word is 0): one store, none for 0.
        #[inline(always)]
        pub(crate) fn publish_new(&self, slot: u32, row: u64) {
            if row != 0 {
                self.publish(slot, row);
            }
        }

        /// Rewrites the row of ticket slot `slot` after its hold or duration changed: `row()`
        /// ([`ContextRows::row_of`]), or cleared for 0.
        #[inline]
        pub(crate) fn rewrite(&self, slot: u32, row: impl FnOnce() -> u64) {
            match row() {
                0 => self.unpublish(slot),
                row => self.publish(slot, row),
            }
        }

        /// One store, or a count of lost rows beyond [`PUBLISHED_SLOTS`].
        #[inline(always)]
        fn publish(&self, slot: u32, row: u64) {
            match self.published.words.get(slot as usize) {
                Some(w) => w.store(row, Ordering::Relaxed),
                None => self.row_lost(),
            }
        }

        #[cold]
        #[inline(never)]
        fn row_lost(&self) {
            self.lost.fetch_add(1, Ordering::Relaxed);
        }

        /// Clears the row of ticket slot `slot`: one store, whether or not a row was published
        /// (also after the instrument was disabled, so no stale row survives its ticket).
        #[inline(always)]
        pub(crate) fn unpublish(&self, slot: u32) {
            if let Some(w) = self.published.words.get(slot as usize) {
                w.store(0, Ordering::Relaxed);
            }
        }

        /// The owner thread's id (0: none).
        pub(crate) fn thread(&self) -> u64 {
            self.thread.load(Ordering::Relaxed)
        }

        pub(crate) fn set_thread(&self, id: u64) {
            self.thread.store(id, Ordering::Relaxed);
        }

        /// The published words, by ticket slot.
        pub(crate) fn published(&self) -> &[AtomicU64] {
            &self.published.words
        }

        /// Rows this context could not show.
        pub(crate) fn lost(&self) -> u64 {
            self.lost.load(Ordering::Relaxed)
        }
    }

    /// The lost rows of contexts that have ended (the registry's).
    pub(crate) struct RetiredRows(AtomicU64);

    impl RetiredRows {
        pub(crate) fn new() -> RetiredRows {
            RetiredRows(AtomicU64::new(0))
        }

        /// Adds an ending context's lost rows (under the registry's lock, so each context
        /// counts once).
        pub(crate) fn retire(&self, rows: &ContextRows) {
            self.0.fetch_add(rows.lost(), Ordering::Relaxed);
        }

        pub(crate) fn total(&self) -> u64 {
            self.0.load(Ordering::Relaxed)
        }
    }
}

/// Without `pfs`: the same calls on zero-sized types, doing nothing.
#[cfg(not(feature = "pfs"))]
mod off {
    use crate::types::{LockDuration, LockType};

    pub(crate) struct ContextRows;

    impl ContextRows {
        pub(crate) fn new() -> ContextRows {
            ContextRows
        }

        #[inline(always)]
        pub(crate) fn row_of(&self, _: bool, _: usize, _: LockType, _: LockDuration) -> u64 {
            0
        }

        #[inline(always)]
        pub(crate) fn publish_new(&self, _: u32, _: u64) {}

        #[inline(always)]
        pub(crate) fn rewrite(&self, _: u32, _: impl FnOnce() -> u64) {}

        #[inline(always)]
        pub(crate) fn unpublish(&self, _: u32) {}
    }

    pub(crate) struct RetiredRows;

    impl RetiredRows {
        pub(crate) fn new() -> RetiredRows {
            RetiredRows
        }

        #[inline(always)]
        pub(crate) fn retire(&self, _: &ContextRows) {}
    }
}
