//! The records of transaction events (`transaction.rs` writes them): a thread's [`TrxLog`],
//! the shared [`TrxRing`] of `events_transactions_history_long`, and the layout of a record's
//! words. A record is one cache line, a seqlock over seven words, written once as the other
//! families' records are (`events.rs`).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering, Ordering::Relaxed};
use std::sync::OnceLock;

use super::flags::{F_CYCLES, F_HISTORY, F_TIMED};
use super::limits::sizing;
use super::seqlock::SeqLock;
use super::stats::StatCell;
use crate::transaction::{IsolationLevel, TransactionMode, TransactionState};

/// The bit of a `NESTING_EVENT_ID` word that says the nesting event is a transaction.
pub(crate) const NEST_TRX: u64 = 1 << 63;

/// Layout of a record's `packed` word: `thread_id << 32 | bits`.
pub(crate) const STATE_MASK: u64 = 3;
pub(crate) const READ_ONLY: u64 = 1 << 2;
pub(crate) const ISOLATION_SHIFT: u32 = 3;
pub(crate) const AUTOCOMMIT: u64 = 1 << 5;
/// The derived flags a record keeps (`F_TIMED`, `F_CYCLES`, `F_HISTORY`), at `FLAG_SHIFT`.
pub(crate) const FLAG_SHIFT: u32 = 8;
pub(crate) const KEPT_FLAGS: u32 = F_TIMED | F_CYCLES | F_HISTORY;
pub(crate) const TIMED: u64 = (F_TIMED as u64) << FLAG_SHIFT;
pub(crate) const CYCLES: u64 = (F_CYCLES as u64) << FLAG_SHIFT;
pub(crate) const HISTORY: u64 = (F_HISTORY as u64) << FLAG_SHIFT;

#[inline(always)]
pub(crate) fn state_bits(s: TransactionState) -> u64 {
    s as u64
}

/// A copied transaction event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TrxData {
    pub event_id: u64,
    /// 0 = in progress.
    pub end_event_id: u64,
    pub packed: u64,
    pub timer_start: u64,
    pub timer_end: u64,
    /// The nesting statement's EVENT_ID, 0 for none.
    pub nesting: u64,
    /// `SAVEPOINT`, `ROLLBACK TO SAVEPOINT`, `RELEASE SAVEPOINT`: 21 bits each.
    pub savepoints: u64,
}

impl TrxData {
    pub(crate) fn thread_id(&self) -> u64 {
        self.packed >> 32
    }
    pub(crate) fn state(&self) -> TransactionState {
        match self.packed & STATE_MASK {
            0 => TransactionState::Active,
            1 => TransactionState::Committed,
            _ => TransactionState::RolledBack,
        }
    }
    pub(crate) fn mode(&self) -> TransactionMode {
        TransactionMode {
            read_only: self.packed & READ_ONLY != 0,
            isolation: IsolationLevel::from_bits((self.packed >> ISOLATION_SHIFT) as u8 & 3),
            autocommit: self.packed & AUTOCOMMIT != 0,
        }
    }
    pub(crate) fn timed(&self) -> bool {
        self.packed & TIMED != 0
    }
    pub(crate) fn cycles(&self) -> bool {
        self.packed & CYCLES != 0
    }
    fn history(&self) -> bool {
        self.packed & HISTORY != 0
    }
    /// The three savepoint counters.
    pub(crate) fn savepoint_counts(&self) -> [u64; 3] {
        [0, 21, 42].map(|s| self.savepoints >> s & SAVEPOINT_MASK)
    }
}

pub(crate) const SAVEPOINT_MASK: u64 = (1 << 21) - 1;

/// One transaction event: a seqlock over its fields (`seqlock.rs`).
#[derive(Debug, Default)]
#[repr(align(64))]
pub(crate) struct TrxRecord {
    seq: SeqLock,
    event_id: AtomicU64,
    end_event_id: AtomicU64,
    packed: AtomicU64,
    timer_start: AtomicU64,
    timer_end: AtomicU64,
    nesting: AtomicU64,
    savepoints: AtomicU64,
}

impl TrxRecord {
    #[inline]
    fn write(&self, f: impl FnOnce(&TrxRecord)) {
        self.seq.write(|| f(self));
    }

    /// Write a whole event.
    #[inline(always)]
    pub(crate) fn set(&self, d: &TrxData) {
        self.write(|r| {
            r.event_id.store(d.event_id, Relaxed);
            r.end_event_id.store(d.end_event_id, Relaxed);
            r.packed.store(d.packed, Relaxed);
            r.timer_start.store(d.timer_start, Relaxed);
            r.timer_end.store(d.timer_end, Relaxed);
            r.nesting.store(d.nesting, Relaxed);
            r.savepoints.store(d.savepoints, Relaxed);
        });
    }

    /// The owner's copy (no seqlock needed for its own writes).
    pub(crate) fn own(&self) -> TrxData {
        TrxData {
            event_id: self.event_id.load(Relaxed),
            end_event_id: self.end_event_id.load(Relaxed),
            packed: self.packed.load(Relaxed),
            timer_start: self.timer_start.load(Relaxed),
            timer_end: self.timer_end.load(Relaxed),
            nesting: self.nesting.load(Relaxed),
            savepoints: self.savepoints.load(Relaxed),
        }
    }

    /// A consistent copy, or `None` if empty or being written throughout a few tries.
    pub(crate) fn read(&self) -> Option<TrxData> {
        self.seq.read(|| self.own()).filter(|d| d.event_id != 0)
    }

    fn clear(&self) {
        self.set(&TrxData::default());
    }
}

/// One thread's transactions (see the module docs). Written by its thread only.
#[derive(Debug)]
pub(crate) struct TrxLog {
    pub(crate) recs: Box<[TrxRecord]>,
    history: usize,
    next: AtomicU32,
    /// The record of the transaction in progress + 1; 0 when it has none (or none recorded).
    pub(crate) active: AtomicU32,
    /// The record of the last transaction begun; `u32::MAX` for none.
    last: AtomicU32,
    /// What a statement begun now nests in: the active transaction's `EVENT_ID | NEST_TRX`,
    /// or 0.
    pub(crate) nesting: AtomicU64,
    /// The derived flags the transaction in progress began with (0: none in progress), its
    /// start and its mode (for its statistics at the end, recorded or not).
    pub(crate) flags: AtomicU32,
    pub(crate) start: AtomicU64,
    pub(crate) read_only: AtomicU32,
    /// The statistics of read-write (0) and read-only (1) transactions; `COUNT_STAR` and the
    /// `*_TIMER_WAIT` columns are the two merged.
    pub(crate) cells: [StatCell; 2],
}

impl TrxLog {
    pub(crate) fn new(history: usize) -> TrxLog {
        TrxLog {
            recs: (0..history + 1).map(|_| TrxRecord::default()).collect(),
            history,
            next: AtomicU32::new(0),
            active: AtomicU32::new(0),
            last: AtomicU32::new(u32::MAX),
            nesting: AtomicU64::new(0),
            flags: AtomicU32::new(0),
            start: AtomicU64::new(0),
            read_only: AtomicU32::new(0),
            cells: [StatCell::new(), StatCell::new()],
        }
    }

    /// Is a transaction in progress (owner)?
    #[inline]
    pub(crate) fn in_progress(&self) -> bool {
        self.flags.load(Relaxed) != 0
    }

    /// Claim the next record (owner).
    #[inline]
    pub(crate) fn claim(&self) -> (u32, &TrxRecord) {
        let i = self.next.load(Relaxed);
        let n = i + 1;
        let wrap = n as usize >= self.recs.len();
        self.next.store(if wrap { 0 } else { n }, Relaxed);
        self.last.store(i, Relaxed);
        (i, &self.recs[i as usize])
    }

    /// `events_transactions_current`: the one in progress, else the last one.
    pub(crate) fn current(&self) -> Option<TrxData> {
        let i = match self.active.load(Relaxed) {
            0 => self.last.load(Relaxed),
            a => a - 1,
        };
        self.recs.get(i as usize)?.read()
    }

    /// `events_transactions_history`: the last `history` ended ones recorded with history on,
    /// oldest first.
    pub(crate) fn history(&self) -> Vec<TrxData> {
        let mut v: Vec<TrxData> = (self.recs.iter())
            .filter_map(TrxRecord::read)
            .filter(|d| d.end_event_id != 0 && d.history())
            .collect();
        v.sort_by_key(|d| d.event_id);
        let extra = v.len().saturating_sub(self.history);
        v.drain(..extra);
        v
    }

    /// Forget every record and any transaction in progress (truncate, a slot handed over).
    pub(crate) fn clear(&self) {
        for r in self.recs.iter() {
            r.clear();
        }
        self.last.store(u32::MAX, Relaxed);
        self.active.store(0, Relaxed);
        self.nesting.store(0, Relaxed);
    }

    /// A slot handed to a new owner: nothing in progress either.
    pub(crate) fn restart(&self) {
        self.clear();
        self.flags.store(0, Relaxed);
        self.next.store(0, Relaxed);
    }
}

/// The `history_long` ring of transactions, shared by all threads: one `fetch_add` per event
/// copied, only when `events_transactions_history_long` is on.
pub(crate) struct TrxRing {
    recs: Box<[TrxRecord]>,
    next: AtomicU64,
}

pub(crate) fn long_ring() -> &'static TrxRing {
    static RING: OnceLock<TrxRing> = OnceLock::new();
    RING.get_or_init(|| TrxRing {
        recs: (0..sizing().transactions_history_long_size)
            .map(|_| TrxRecord::default())
            .collect(),
        next: AtomicU64::new(0),
    })
}

impl TrxRing {
    #[cold]
    #[inline(never)]
    pub(crate) fn push(&self, d: &TrxData) {
        if self.recs.is_empty() {
            return;
        }
        let i = self.next.fetch_add(1, Relaxed);
        self.recs[(i % self.recs.len() as u64) as usize].set(d);
    }

    /// Records, oldest first.
    pub(crate) fn read_all(&self) -> Vec<TrxData> {
        let n = self.recs.len() as u64;
        if n == 0 {
            return Vec::new();
        }
        let next = self.next.load(Ordering::Acquire);
        (next.saturating_sub(n)..next)
            .filter_map(|i| self.recs[(i % n) as usize].read())
            .collect()
    }

    pub(crate) fn clear(&self) {
        for r in self.recs.iter() {
            r.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_history_keeps_the_last() {
        let log = TrxLog::new(2);
        assert!(log.current().is_none());
        for id in 1..=4u64 {
            let (_, r) = log.claim();
            r.set(&TrxData {
                event_id: id,
                end_event_id: id,
                packed: 1 | HISTORY | 7 << 32,
                savepoints: 2 | 1 << 21,
                ..TrxData::default()
            });
        }
        let h: Vec<u64> = log.history().iter().map(|d| d.event_id).collect();
        assert_eq!(h, [3, 4]);
        let c = log.current().unwrap();
        assert_eq!((c.event_id, c.thread_id()), (4, 7));
        assert_eq!(c.state(), TransactionState::Committed);
        assert_eq!(c.savepoint_counts(), [2, 1, 0]);
        log.clear();
        assert!(log.current().is_none() && log.history().is_empty());
    }
}
