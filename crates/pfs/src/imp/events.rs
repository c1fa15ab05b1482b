//! Event records: `events_*_current`, `_history` (per thread) and `_history_long` (global).
//!
//! An [`EventRecord`] is one cache line: a seqlock (`seqlock.rs`) over seven `AtomicU64`
//! fields. A reader copies a record without blocking its writer and skips the row if a write
//! kept overlapping its copy.
//!
//! # Written once
//!
//! A thread's [`EventLog`] of one family (waits, stages or statements) is a ring of
//! `history_size + STACK` records. An event claims the next record when it begins and writes
//! its start there; when it ends, the end fields are written into the same record, which then
//! *is* the history entry: no copy. The records of the events in progress are listed in a
//! small stack (`events_*_current`); with no event in progress, the current table shows the
//! last one. Guards may drop out of order, so an end takes its level and every level above it
//! off the stack and never puts one back; a slot handed to a new thread starts with an empty
//! stack, whatever its previous thread left in progress. A record written while the history consumer was off carries no history bit and is
//! not shown as history. An event that outlives `history_size + STACK` newer events of its
//! family (a long outer wait with many short inner ones) finds its record reused and is not
//! recorded (its statistics still are).
//!
//! Writers: an `EventLog` is written only by its thread (truncate aside). A [`LongRing`] is
//! shared: its slot index is taken with one `fetch_add` per event, the crate's one shared
//! read-modify-write, paid only when a `*_history_long` consumer is on (PFS does the same), and
//! the finished event is copied into it. Two writers can only meet on one slot if the ring
//! wraps around during a single write; readers then may see a mixed row.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

use super::flags::STACK;
use super::limits::sizing;
use super::seqlock::SeqLock;

/// Record bits: the event was timed, with the cycle counter, and is part of the history.
pub(crate) const B_TIMED: u8 = 1;
pub(crate) const B_CYCLES: u8 = 2;
pub(crate) const B_HISTORY: u8 = 4;

/// A copied event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EventData {
    pub thread_id: u64,
    pub event_id: u64,
    /// 0 = in progress.
    pub end_event_id: u64,
    pub class: u32,
    pub op: u8,
    /// `B_*`.
    pub bits: u8,
    pub timer_start: u64,
    pub timer_end: u64,
    /// OBJECT_INSTANCE_BEGIN for waits; digest index + 1 for statements.
    pub object: u64,
    pub nesting: u64,
}

/// `class | op << 16 | bits << 24 | thread_id << 32` (classes are at most 4096).
#[inline]
pub(crate) fn pack(class: u32, op: u8, bits: u8, thread_id: u64) -> u64 {
    (class as u64 & 0xffff) | (op as u64) << 16 | (bits as u64) << 24 | thread_id << 32
}

#[derive(Debug, Default)]
#[repr(align(64))]
pub(crate) struct EventRecord {
    seq: SeqLock,
    event_id: AtomicU64,
    end_event_id: AtomicU64,
    packed: AtomicU64,
    timer_start: AtomicU64,
    timer_end: AtomicU64,
    object: AtomicU64,
    nesting: AtomicU64,
}

impl EventRecord {
    #[inline]
    fn write(&self, f: impl FnOnce(&EventRecord)) {
        self.seq.write(|| f(self));
    }

    /// Write a whole event.
    #[inline]
    pub(crate) fn set(&self, d: &EventData) {
        use Ordering::Relaxed;
        self.write(|r| {
            r.event_id.store(d.event_id, Relaxed);
            r.end_event_id.store(d.end_event_id, Relaxed);
            r.packed
                .store(pack(d.class, d.op, d.bits, d.thread_id), Relaxed);
            r.timer_start.store(d.timer_start, Relaxed);
            r.timer_end.store(d.timer_end, Relaxed);
            r.object.store(d.object, Relaxed);
            r.nesting.store(d.nesting, Relaxed);
        });
    }

    /// Write the start of an event: its id, packed class/op/bits/thread, start, object and
    /// nesting; the end fields are cleared (owner thread only).
    #[inline]
    fn start(&self, event_id: u64, packed: u64, timer_start: u64, object: u64, nesting: u64) {
        use Ordering::Relaxed;
        self.write(|r| {
            r.event_id.store(event_id, Relaxed);
            r.end_event_id.store(0, Relaxed);
            r.packed.store(packed, Relaxed);
            r.timer_start.store(timer_start, Relaxed);
            r.timer_end.store(0, Relaxed);
            r.object.store(object, Relaxed);
            r.nesting.store(nesting, Relaxed);
        });
    }

    /// Mark the event ended (owner thread only).
    #[inline]
    fn finish(&self, end_event_id: u64, timer_end: u64) {
        use Ordering::Relaxed;
        self.write(|r| {
            r.end_event_id.store(end_event_id, Relaxed);
            r.timer_end.store(timer_end, Relaxed);
        });
    }

    fn load(&self) -> EventData {
        use Ordering::Relaxed;
        let p = self.packed.load(Relaxed);
        EventData {
            thread_id: p >> 32,
            event_id: self.event_id.load(Relaxed),
            end_event_id: self.end_event_id.load(Relaxed),
            class: (p & 0xffff) as u32,
            op: (p >> 16) as u8,
            bits: (p >> 24) as u8,
            timer_start: self.timer_start.load(Relaxed),
            timer_end: self.timer_end.load(Relaxed),
            object: self.object.load(Relaxed),
            nesting: self.nesting.load(Relaxed),
        }
    }

    /// A consistent copy, or `None` if empty or still being written after a few tries.
    pub(crate) fn read(&self) -> Option<EventData> {
        self.seq.read(|| self.load()).filter(|d| d.event_id != 0)
    }

    /// The event id, read by the owner thread (no seqlock needed for its own writes).
    #[inline]
    pub(crate) fn own_event_id(&self) -> u64 {
        self.event_id.load(Ordering::Relaxed)
    }

    fn clear(&self) {
        self.set(&EventData::default());
    }
}

/// Where an event in progress keeps its record: the record index and its stack level, packed
/// into one non-zero word (`index + 1` in the low half, `level` in the high half). One scalar,
/// so `Option<Claim>` is 8 bytes that travel in a register: as a two-field struct the compiler
/// built it on the stack with two 4-byte stores and read it back with one 8-byte load, which
/// cannot be forwarded from those stores and stalled every event start (`perf annotate`, with
/// the clock stubbed out: 45% of `begin_event`'s samples on that load).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Claim(std::num::NonZeroU64);

impl Claim {
    /// `index` is below the log's length (at most 4,096 + `STACK` records), so `index + 1`
    /// stays in the low half and the word is never zero.
    #[inline]
    fn new(index: u32, level: u32) -> Claim {
        let word = (index as u64 + 1) | (level as u64) << 32;
        Claim(std::num::NonZeroU64::new(word).unwrap_or(std::num::NonZeroU64::MIN))
    }

    #[inline]
    pub(crate) fn index(self) -> u32 {
        (self.0.get() as u32).wrapping_sub(1)
    }

    #[inline]
    pub(crate) fn level(self) -> u32 {
        (self.0.get() >> 32) as u32
    }
}

/// One thread's events of one family (see the module docs).
#[derive(Debug)]
pub(crate) struct EventLog {
    recs: Box<[EventRecord]>,
    history: usize,
    /// The record the next event claims (owner only).
    next: AtomicU32,
    /// Events in progress, and their records (owner writes; readers take a hint).
    depth: AtomicU32,
    stack: [AtomicU32; STACK],
    /// The record of the most recent event begun; `u32::MAX` if none.
    last: AtomicU32,
}

impl EventLog {
    pub(crate) fn new(history: usize) -> EventLog {
        EventLog {
            recs: (0..history + STACK)
                .map(|_| EventRecord::default())
                .collect(),
            history,
            next: AtomicU32::new(0),
            depth: AtomicU32::new(0),
            stack: Default::default(),
            last: AtomicU32::new(u32::MAX),
        }
    }

    /// Events in progress (owner).
    #[inline]
    pub(crate) fn depth(&self) -> usize {
        self.depth.load(Ordering::Relaxed) as usize
    }

    /// The id of the innermost event in progress, 0 if none (owner).
    #[inline]
    pub(crate) fn top_event_id(&self) -> u64 {
        match self.depth() {
            0 => 0,
            d => {
                let i = self.stack[(d - 1).min(STACK - 1)].load(Ordering::Relaxed);
                self.recs[i as usize].own_event_id()
            }
        }
    }

    /// The stack level the next event begins at (owner), or `None` when `STACK` events are
    /// already in progress.
    #[inline]
    pub(crate) fn free_level(&self) -> Option<usize> {
        let level = self.depth();
        (level < STACK).then_some(level)
    }

    /// Claim a record and write the start of an event into it (owner), at stack `level` (from
    /// [`free_level`](Self::free_level)): its id, packed class/op/bits/thread ([`pack`]),
    /// start, object and nesting.
    #[inline]
    pub(crate) fn begin_packed(
        &self,
        level: usize,
        event_id: u64,
        packed: u64,
        timer_start: u64,
        object: u64,
        nesting: u64,
    ) -> Claim {
        let i = self.next.load(Ordering::Relaxed);
        let n = i + 1;
        let wrap = n as usize >= self.recs.len();
        self.next.store(if wrap { 0 } else { n }, Ordering::Relaxed);
        self.recs[i as usize].start(event_id, packed, timer_start, object, nesting);
        self.stack[level].store(i, Ordering::Relaxed);
        self.depth.store(level as u32 + 1, Ordering::Relaxed);
        self.last.store(i, Ordering::Relaxed);
        Claim::new(i, level as u32)
    }

    /// Write the end of the event that made `claim` (owner). Returns its record, unless the
    /// record was reused meanwhile.
    #[inline]
    pub(crate) fn end(
        &self,
        claim: Claim,
        event_id: u64,
        end_event_id: u64,
        timer_end: u64,
    ) -> Option<&EventRecord> {
        // An end takes its event, and every event begun after it, off the stack, and never
        // raises the depth: guards can drop out of order (a `Vec` of guards drops its first
        // first), and a later end of an inner event must not bring back levels already left.
        let level = claim.level();
        if level < self.depth.load(Ordering::Relaxed) {
            self.depth.store(level, Ordering::Relaxed);
        }
        let r = &self.recs[claim.index() as usize];
        if r.own_event_id() != event_id {
            return None;
        }
        r.finish(end_event_id, timer_end);
        Some(r)
    }

    /// A copy of an own record (owner; for the `history_long` copy).
    pub(crate) fn own_copy(r: &EventRecord) -> EventData {
        r.load()
    }

    /// `events_*_current`: the events in progress, else the last one.
    pub(crate) fn current(&self) -> Vec<EventData> {
        self.current_indexed().into_iter().map(|(_, d)| d).collect()
    }

    /// [`current`](Self::current) with each event's record index.
    pub(crate) fn current_indexed(&self) -> Vec<(usize, EventData)> {
        let depth = self.depth().min(STACK);
        let idx: Vec<u32> = if depth > 0 {
            self.stack[..depth]
                .iter()
                .map(|s| s.load(Ordering::Relaxed))
                .collect()
        } else {
            vec![self.last.load(Ordering::Relaxed)]
        };
        idx.into_iter()
            .filter_map(|i| Some((i as usize, self.recs.get(i as usize)?.read()?)))
            .collect()
    }

    /// `events_*_history`: the last `history_size` ended events recorded with history on,
    /// oldest first.
    pub(crate) fn history(&self) -> Vec<EventData> {
        self.history_indexed().into_iter().map(|(_, d)| d).collect()
    }

    /// [`history`](Self::history) with each event's record index.
    pub(crate) fn history_indexed(&self) -> Vec<(usize, EventData)> {
        let mut v: Vec<(usize, EventData)> = (self.recs.iter().enumerate())
            .filter_map(|(i, r)| Some((i, r.read()?)))
            .filter(|(_, d)| d.end_event_id != 0 && d.bits & B_HISTORY != 0)
            .collect();
        v.sort_by_key(|(_, d)| d.event_id);
        let extra = v.len().saturating_sub(self.history);
        v.drain(..extra);
        v
    }

    /// Start afresh for a new owner: no event in progress, the next record the first. The
    /// previous owner may have left events in progress (a guard leaked, or still alive when
    /// its thread exited); their levels must not be the new owner's. Called when the slot has
    /// no owner (under the `threads` lock, before it is handed over).
    pub(crate) fn restart(&self) {
        self.clear();
        self.depth.store(0, Ordering::Relaxed);
        self.next.store(0, Ordering::Relaxed);
    }

    /// Forget every record (truncate, or a slot handed to a new thread).
    pub(crate) fn clear(&self) {
        for r in self.recs.iter() {
            r.clear();
        }
        self.last.store(u32::MAX, Ordering::Relaxed);
    }
}

/// A `*_history_long` ring, shared by all threads. `next` counts records ever written.
#[derive(Debug)]
pub(crate) struct LongRing {
    recs: Box<[EventRecord]>,
    next: AtomicU64,
}

impl LongRing {
    pub(crate) fn new(n: usize) -> LongRing {
        LongRing {
            recs: (0..n).map(|_| EventRecord::default()).collect(),
            next: AtomicU64::new(0),
        }
    }

    /// Multi-writer push: one `fetch_add`, then a copy of the finished event. Returns the
    /// slot written.
    pub(crate) fn push(&self, d: &EventData) -> Option<usize> {
        if self.recs.is_empty() {
            return None;
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        let slot = (i % self.recs.len() as u64) as usize;
        self.recs[slot].set(d);
        Some(slot)
    }

    /// Its number of slots.
    pub(crate) fn len(&self) -> usize {
        self.recs.len()
    }

    /// Records, oldest first.
    pub(crate) fn read_all(&self) -> Vec<EventData> {
        self.read_all_indexed()
            .into_iter()
            .map(|(_, d)| d)
            .collect()
    }

    /// [`read_all`](Self::read_all) with each record's slot.
    pub(crate) fn read_all_indexed(&self) -> Vec<(usize, EventData)> {
        let n = self.recs.len() as u64;
        if n == 0 {
            return Vec::new();
        }
        let next = self.next.load(Ordering::Acquire);
        let start = next.saturating_sub(n);
        (start..next)
            .filter_map(|i| {
                let slot = (i % n) as usize;
                Some((slot, self.recs[slot].read()?))
            })
            .collect()
    }

    pub(crate) fn written(&self) -> u64 {
        self.next.load(Ordering::Relaxed)
    }

    pub(crate) fn clear(&self) {
        for r in self.recs.iter() {
            r.clear();
        }
    }
}

static LONG: OnceLock<[LongRing; 3]> = OnceLock::new();

/// `events_{waits,stages,statements}_history_long`, indexed like a thread's logs.
pub(crate) fn long_rings() -> &'static [LongRing; 3] {
    LONG.get_or_init(|| {
        let s = sizing();
        [
            LongRing::new(s.waits_history_long_size),
            LongRing::new(s.stages_history_long_size),
            LongRing::new(s.statements_history_long_size),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn begin(log: &EventLog, d: &EventData) -> Option<Claim> {
        let packed = pack(d.class, d.op, d.bits, d.thread_id);
        let level = log.free_level()?;
        Some(log.begin_packed(
            level,
            d.event_id,
            packed,
            d.timer_start,
            d.object,
            d.nesting,
        ))
    }

    fn ev(id: u64) -> EventData {
        EventData {
            event_id: id,
            thread_id: 9,
            class: 7,
            op: 3,
            bits: B_TIMED | B_HISTORY,
            ..Default::default()
        }
    }

    #[test]
    fn out_of_order_ends_never_raise_the_depth() {
        let log = EventLog::new(3);
        // A `Vec` of guards drops its first element first.
        let claims: Vec<Claim> = (1..=3).map(|i| begin(&log, &ev(i)).unwrap()).collect();
        assert_eq!(log.depth(), 3);
        for (c, id) in claims.into_iter().zip(1..) {
            log.end(c, id, 3, 0);
            assert_eq!(log.depth(), 0, "ending event {id} left levels on the stack");
        }
        // Nothing in progress: the current table shows the last event begun, ended.
        let cur = log.current();
        assert_eq!(cur.len(), 1);
        assert_eq!((cur[0].event_id, cur[0].end_event_id), (3, 3));
        // An event begun after an outer one ended early nests at the level left free.
        let outer = begin(&log, &ev(4)).unwrap();
        let inner = begin(&log, &ev(5)).unwrap();
        log.end(outer, 4, 5, 0);
        let next = begin(&log, &ev(6)).unwrap();
        assert_eq!(log.depth(), 1);
        log.end(inner, 5, 6, 0);
        assert_eq!(log.depth(), 1, "the late inner end must not drop event 6");
        assert_eq!(log.top_event_id(), 6);
        log.end(next, 6, 6, 0);
        assert_eq!(log.depth(), 0);
    }

    #[test]
    fn a_restarted_log_has_no_levels_of_its_previous_owner() {
        let log = EventLog::new(3);
        let _leaked = begin(&log, &ev(1)).unwrap();
        assert_eq!(log.depth(), 1);
        log.restart();
        assert_eq!((log.depth(), log.top_event_id()), (0, 0));
        let c = begin(&log, &ev(1)).unwrap();
        log.end(c, 1, 1, 0);
        assert_eq!(log.current().len(), 1);
    }

    #[test]
    fn log_keeps_the_last_n_written_once() {
        let log = EventLog::new(3);
        for i in 1..=5 {
            let c = begin(&log, &ev(i)).unwrap();
            assert_eq!(log.top_event_id(), i);
            assert!(log.end(c, i, i, 100 + i).is_some());
        }
        let ids: Vec<u64> = log.history().iter().map(|d| d.event_id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        let cur = log.current();
        assert_eq!(cur.len(), 1);
        assert_eq!((cur[0].event_id, cur[0].timer_end), (5, 105));
        assert_eq!((cur[0].thread_id, cur[0].class, cur[0].op), (9, 7, 3));
        // Nested: both in progress are current; the outer survives the inner.
        let outer = begin(&log, &ev(6)).unwrap();
        let inner = begin(&log, &ev(7)).unwrap();
        assert_eq!(log.current().len(), 2);
        log.end(inner, 7, 7, 0);
        assert_eq!(log.top_event_id(), 6);
        assert!(log.end(outer, 6, 7, 0).is_some());
        assert_eq!(log.depth(), 0);
        log.clear();
        assert!(log.history().is_empty() && log.current().is_empty());
    }

    #[test]
    fn a_reused_record_is_not_finished_twice() {
        let log = EventLog::new(1);
        let outer = begin(&log, &ev(1)).unwrap();
        for i in 2..20 {
            let c = begin(&log, &ev(i)).unwrap();
            log.end(c, i, i, 0);
        }
        assert!(log.end(outer, 1, 20, 0).is_none());
    }

    #[test]
    fn long_ring_keeps_the_last_n() {
        let r = LongRing::new(3);
        for i in 1..=5 {
            r.push(&ev(i));
        }
        let ids: Vec<u64> = r.read_all().iter().map(|d| d.event_id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        assert_eq!(r.written(), 5);
        r.clear();
        assert!(r.read_all().is_empty());
    }
}
