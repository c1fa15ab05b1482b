//! Event records (`events_*_current`, `_history`, `_history_long`).
//!
//! An [`EventRecord`] is a seqlock over plain `AtomicU64` fields: the writer bumps `seq` to an
//! odd value, writes the fields (relaxed), and bumps it to the next even value (release). A
//! reader copies the fields between two reads of `seq` and retries (a few times, then skips the
//! row) if it saw a write in progress. No `unsafe`, and a reader never blocks a writer.
//!
//! Writers: the per-thread current slots and history rings are written only by their owning
//! thread (truncate aside). `history_long` is a global ring whose slot index is taken with one
//! `fetch_add` per event — the one shared read-modify-write in the crate, paid only when the
//! `events_waits_history_long` consumer is on (PFS does the same). Two writers can only meet on
//! one slot if the ring wraps around during a single write; readers then may see a mixed row.

use std::sync::atomic::{fence, AtomicU64, Ordering};

/// A copied event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EventData {
    pub thread_id: u64,
    pub event_id: u64,
    /// 0 = in progress.
    pub end_event_id: u64,
    pub class: u32,
    pub op: u8,
    pub timed: bool,
    pub timer_start: u64,
    pub timer_end: u64,
    /// OBJECT_INSTANCE_BEGIN for waits; digest index + 1 for statements.
    pub object: u64,
    pub nesting: u64,
}

impl EventData {
    fn pack(&self) -> u64 {
        self.class as u64 | (self.op as u64) << 32 | (self.timed as u64) << 40
    }
    fn unpack(&mut self, v: u64) {
        self.class = v as u32;
        self.op = (v >> 32) as u8;
        self.timed = (v >> 40) & 1 != 0;
    }
}

#[derive(Debug, Default)]
pub(crate) struct EventRecord {
    seq: AtomicU64,
    thread_id: AtomicU64,
    event_id: AtomicU64,
    end_event_id: AtomicU64,
    packed: AtomicU64,
    timer_start: AtomicU64,
    timer_end: AtomicU64,
    object: AtomicU64,
    nesting: AtomicU64,
}

impl EventRecord {
    pub(crate) fn write(&self, d: &EventData) {
        use Ordering::Relaxed;
        let s = self.seq.load(Relaxed);
        self.seq.store(s.wrapping_add(1) | 1, Relaxed);
        fence(Ordering::Release);
        self.thread_id.store(d.thread_id, Relaxed);
        self.event_id.store(d.event_id, Relaxed);
        self.end_event_id.store(d.end_event_id, Relaxed);
        self.packed.store(d.pack(), Relaxed);
        self.timer_start.store(d.timer_start, Relaxed);
        self.timer_end.store(d.timer_end, Relaxed);
        self.object.store(d.object, Relaxed);
        self.nesting.store(d.nesting, Relaxed);
        self.seq.store((s | 1).wrapping_add(1), Ordering::Release);
    }

    /// Mark the event ended (owner thread only).
    pub(crate) fn finish(&self, end_event_id: u64, timer_end: u64) {
        use Ordering::Relaxed;
        let s = self.seq.load(Relaxed);
        self.seq.store(s.wrapping_add(1) | 1, Relaxed);
        fence(Ordering::Release);
        self.end_event_id.store(end_event_id, Relaxed);
        self.timer_end.store(timer_end, Relaxed);
        self.seq.store((s | 1).wrapping_add(1), Ordering::Release);
    }

    /// A consistent copy, or `None` if empty or still being written after a few tries.
    pub(crate) fn read(&self) -> Option<EventData> {
        use Ordering::Relaxed;
        for _ in 0..16 {
            let s1 = self.seq.load(Ordering::Acquire);
            if s1 & 1 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let mut d = EventData {
                thread_id: self.thread_id.load(Relaxed),
                event_id: self.event_id.load(Relaxed),
                end_event_id: self.end_event_id.load(Relaxed),
                timer_start: self.timer_start.load(Relaxed),
                timer_end: self.timer_end.load(Relaxed),
                object: self.object.load(Relaxed),
                nesting: self.nesting.load(Relaxed),
                ..EventData::default()
            };
            d.unpack(self.packed.load(Relaxed));
            fence(Ordering::Acquire);
            if self.seq.load(Relaxed) == s1 {
                return (d.event_id != 0).then_some(d);
            }
        }
        None
    }

    /// The event id, read by the owner thread (no seqlock needed for its own writes).
    pub(crate) fn own_event_id(&self) -> u64 {
        self.event_id.load(Ordering::Relaxed)
    }

    pub(crate) fn clear(&self) {
        self.write(&EventData::default());
    }
}

/// A ring of event records. `next` counts records ever written.
#[derive(Debug)]
pub(crate) struct Ring {
    recs: Box<[EventRecord]>,
    next: AtomicU64,
}

impl Ring {
    pub(crate) fn new(n: usize) -> Ring {
        Ring {
            recs: (0..n).map(|_| EventRecord::default()).collect(),
            next: AtomicU64::new(0),
        }
    }

    /// Single-writer push (per-thread rings): relaxed load + store of the index.
    pub(crate) fn push_owned(&self, d: &EventData) {
        if self.recs.is_empty() {
            return;
        }
        let i = self.next.load(Ordering::Relaxed);
        self.recs[(i % self.recs.len() as u64) as usize].write(d);
        self.next.store(i + 1, Ordering::Release);
    }

    /// Multi-writer push (history_long): one `fetch_add`.
    pub(crate) fn push_shared(&self, d: &EventData) {
        if self.recs.is_empty() {
            return;
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        self.recs[(i % self.recs.len() as u64) as usize].write(d);
    }

    /// Records, oldest first.
    pub(crate) fn read_all(&self) -> Vec<EventData> {
        let n = self.recs.len() as u64;
        if n == 0 {
            return Vec::new();
        }
        let next = self.next.load(Ordering::Acquire);
        let start = next.saturating_sub(n);
        (start..next)
            .filter_map(|i| self.recs[(i % n) as usize].read())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_keeps_last_n() {
        let r = Ring::new(3);
        for i in 1..=5 {
            r.push_owned(&EventData {
                event_id: i,
                ..Default::default()
            });
        }
        let ids: Vec<u64> = r.read_all().iter().map(|d| d.event_id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        r.push_shared(&EventData {
            event_id: 6,
            class: 7,
            op: 3,
            timed: true,
            ..Default::default()
        });
        let all = r.read_all();
        assert_eq!(
            all.last().map(|d| (d.event_id, d.class, d.op, d.timed)),
            Some((6, 7, 3, true))
        );
        r.clear();
        assert!(r.read_all().is_empty());
    }
}
