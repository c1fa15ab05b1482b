//! Recording: the code that runs once a derived flag said "enabled". Everything here is out of
//! line (`#[inline(never)]`) so the callers' disabled path stays a load and a branch.
//!
//! Tiers, each adding its own cost (performance-schema.md §9.3):
//! * counted: one load+store increment into the instance (or the thread's class cell);
//! * timed (`F_TIMED`): two timer reads, count/sum/min/max;
//! * per thread (`F_THREAD`): the (thread, class) cell too (instance classes);
//! * events (`F_CURRENT`, `F_HISTORY`, `F_HISTORY_LONG`): the current-event record and rings;
//! * beyond PFS: hold times (`F_HOLD`), log2 histograms (`F_HIST`), digests (`F_DIGEST`).

use std::sync::atomic::Ordering;

use super::events::EventData;
use super::thread::{with_slot, ThreadSlot};
use super::timer::now;
use super::*;
use crate::kinds::Operation;

/// Which event record an active event occupies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    None,
    /// Index into the wait stack.
    Wait(usize),
    Stage,
    Statement,
}

/// An event in progress.
pub(crate) struct Active {
    pub(crate) class: &'static ClassInfo,
    pub(crate) flags: u32,
    pub(crate) start: u64,
    pub(crate) slot: Slot,
    /// Digest index + 1 (statements), 0 if none.
    pub(crate) digest: u32,
}

fn family_slot(kind: ClassKind) -> Slot {
    match kind {
        ClassKind::Statement => Slot::Statement,
        ClassKind::Stage => Slot::Stage,
        _ => Slot::Wait(0),
    }
}

/// Write the current-event record at the start of an event. Returns the slot used.
fn event_begin(
    t: &ThreadSlot,
    class: &ClassInfo,
    flags: u32,
    op: Operation,
    object: u64,
    start: u64,
) -> Slot {
    let mut d = EventData {
        thread_id: t.thread_id,
        event_id: 0,
        end_event_id: 0,
        class: class.index,
        op: op as u8,
        timed: flags & F_TIMED != 0,
        timer_start: start,
        timer_end: 0,
        object,
        nesting: 0,
    };
    let stmt = t.statement_active.load(Ordering::Relaxed);
    let stage = t.stage_active.load(Ordering::Relaxed);
    match family_slot(class.kind()) {
        Slot::Wait(_) => {
            let depth = t.wait_depth.load(Ordering::Relaxed);
            if depth >= WAIT_STACK {
                global().lost.locker.fetch_add(1, Ordering::Relaxed);
                return Slot::None;
            }
            d.nesting = if depth > 0 {
                t.wait_stack[depth - 1].own_event_id()
            } else if stage != 0 {
                stage
            } else {
                stmt
            };
            d.event_id = t.next_event_id();
            t.wait_stack[depth].write(&d);
            t.wait_depth.store(depth + 1, Ordering::Relaxed);
            Slot::Wait(depth)
        }
        Slot::Stage => {
            d.nesting = stmt;
            d.event_id = t.next_event_id();
            t.stage.write(&d);
            t.stage_active.store(d.event_id, Ordering::Relaxed);
            Slot::Stage
        }
        Slot::Statement | Slot::None => {
            d.event_id = t.next_event_id();
            t.statement.write(&d);
            t.statement_active.store(d.event_id, Ordering::Relaxed);
            Slot::Statement
        }
    }
}

/// Close the current-event record and copy it into the history rings.
fn event_end(t: &ThreadSlot, slot: Slot, flags: u32, end: u64) {
    let rec = match slot {
        Slot::None => return,
        Slot::Wait(i) => &t.wait_stack[i],
        Slot::Stage => &t.stage,
        Slot::Statement => &t.statement,
    };
    // END_EVENT_ID is the id of the event itself in 8.0 for leaf events; keep it simple: the
    // last id handed out on this thread (>= EVENT_ID).
    let end_id = t.next_event_id.load(Ordering::Relaxed).saturating_sub(1);
    rec.finish(end_id.max(1), end);
    if flags & (F_HISTORY | F_HISTORY_LONG) != 0 {
        if let Some(d) = rec.read() {
            let ring = match slot {
                Slot::Stage => &t.stages_history,
                Slot::Statement => &t.statements_history,
                _ => &t.waits_history,
            };
            if flags & F_HISTORY != 0 {
                ring.push_owned(&d);
            }
            if flags & F_HISTORY_LONG != 0 {
                global().history_long.push_shared(&d);
            }
        }
    }
    match slot {
        Slot::Wait(i) => t.wait_depth.store(i, Ordering::Relaxed),
        Slot::Stage => t.stage_active.store(0, Ordering::Relaxed),
        Slot::Statement => t.statement_active.store(0, Ordering::Relaxed),
        Slot::None => {}
    }
}

/// Start an event of a class (caller checked `F_ENABLED`).
#[inline(never)]
pub(crate) fn begin(
    class: &'static ClassInfo,
    flags: u32,
    op: Operation,
    object: u64,
    digest: u32,
) -> Active {
    let start = if flags & F_TIMED != 0 { now(flags) } else { 0 };
    let slot = if flags & F_CURRENT != 0 {
        let obj = if digest != 0 { digest as u64 } else { object };
        with_slot(|t| event_begin(t, class, flags, op, obj, start)).unwrap_or(Slot::None)
    } else {
        Slot::None
    };
    Active {
        class,
        flags,
        start,
        slot,
        digest,
    }
}

/// A counted-only event without an instance (no timer, no event record): one increment into
/// the thread's class cell, recorded at start.
#[inline(never)]
pub(crate) fn count_only(class: &'static ClassInfo, flags: u32, digest: u32) {
    record(class, flags, None, false, 0, digest, |_| {});
}

/// End an event; `inst` is the instance for sync waits (recorded under the acquired lock).
/// Returns the end timestamp (0 if untimed).
#[inline(never)]
pub(crate) fn end(a: &Active, inst: Option<&Instance>) -> u64 {
    let f = a.flags;
    let timed = f & F_TIMED != 0;
    let end = if timed { now(f) } else { 0 };
    let wait = end.saturating_sub(a.start);
    record(a.class, f, inst, timed, wait, a.digest, |t| {
        event_end(t, a.slot, f, end)
    });
    end
}

/// Record one event's stats: into the instance (if any), and into the thread's cells when the
/// event has no instance or `F_THREAD` is on.
#[inline]
pub(crate) fn record(
    class: &ClassInfo,
    f: u32,
    inst: Option<&Instance>,
    timed: bool,
    wait: u64,
    digest: u32,
    events: impl FnOnce(&ThreadSlot),
) {
    if let Some(i) = inst {
        i.wait.add(timed, wait);
    }
    let per_thread = inst.is_none() || f & F_THREAD != 0;
    if per_thread || f & (F_HIST | F_CURRENT | F_DIGEST) != 0 {
        let idx = class.index as usize;
        let recorded = with_slot(|t| {
            if per_thread {
                if let Some(c) = t.stats.get(idx) {
                    c.add(timed, wait);
                }
            }
            if f & F_HIST != 0 && timed {
                if let Some(h) = t.hist(idx) {
                    h.add(wait);
                }
            }
            if f & F_DIGEST != 0 && digest != 0 {
                if let Some(c) = t.digests.get(digest as usize - 1) {
                    c.add(timed, wait);
                }
            }
            events(t);
        });
        if recorded.is_none() && inst.is_none() {
            global().lost.locker.fetch_add(1, Ordering::Relaxed);
        }
    }
    #[cfg(feature = "tracing")]
    if timed {
        trace_slow(class, wait);
    }
}

#[cfg(feature = "tracing")]
#[inline]
fn trace_slow(class: &ClassInfo, wait: u64) {
    let thr = global().trace_threshold_ps.load(Ordering::Relaxed);
    if thr != 0 {
        trace_slow_cold(class, wait, thr);
    }
}

#[cfg(feature = "tracing")]
#[cold]
fn trace_slow_cold(class: &ClassInfo, wait: u64, thr_ps: u64) {
    let ps = timer::ticks_to_ps(wait, class.clock());
    if ps >= thr_ps {
        tracing::warn!(
            target: "pfs::wait",
            event_name = class.name(),
            wait_ns = ps / 1000,
            thread_id = crate::current_thread_id(),
            "long wait"
        );
    }
}

/// The instrumented acquisition of a lock (caller checked `F_ENABLED` on the instance).
///
/// * events on: full PFS path (event record, timer around the blocking acquire);
/// * timed: `try_fast` first — an uncontended acquisition is counted with a zero wait and no
///   timer read; only a contended one reads the clock twice;
/// * counted: one increment.
///
/// Returns the guard and the hold start timestamp (0 unless `F_HOLD`).
#[inline(never)]
pub(crate) fn acquire<G>(
    inst: &'static Instance,
    f: u32,
    op: Operation,
    try_fast: impl FnOnce() -> Option<G>,
    slow: impl FnOnce() -> G,
) -> (G, u64) {
    let class = inst.class_info();
    if f & F_CURRENT != 0 {
        let a = begin(class, f, op, inst.identity.load(Ordering::Relaxed), 0);
        let g = slow();
        let e = end(&a, Some(inst));
        let hold = if f & F_HOLD != 0 {
            if e != 0 {
                e
            } else {
                now(f)
            }
        } else {
            0
        };
        return (g, hold);
    }
    let (g, wait, stamp) = if f & F_TIMED != 0 {
        match try_fast() {
            Some(g) => (g, 0, 0),
            None => {
                let s = now(f);
                let g = slow();
                let e = now(f);
                (g, e.saturating_sub(s), e)
            }
        }
    } else {
        (slow(), 0, 0)
    };
    record(class, f, Some(inst), f & F_TIMED != 0, wait, 0, |_| {});
    let hold = if f & F_HOLD != 0 {
        if stamp != 0 {
            stamp
        } else {
            now(f)
        }
    } else {
        0
    };
    (g, hold)
}

/// A successful `try_*` acquisition: counted with a zero wait.
#[inline(never)]
pub(crate) fn acquired_try(inst: &'static Instance, f: u32) -> u64 {
    let class = inst.class_info();
    record(class, f, Some(inst), f & F_TIMED != 0, 0, 0, |_| {});
    if f & F_HOLD != 0 {
        now(f)
    } else {
        0
    }
}

/// End of a hold (called by the guard before it releases the lock).
#[inline(never)]
pub(crate) fn release_hold(inst: &Instance, f: u32, start: u64) {
    let e = now(f);
    inst.hold.add_timed(e.saturating_sub(start));
}
