//! Recording: the code that runs once a derived flag said "enabled". The callers (`api`, the
//! sync wrappers) keep the disabled path to a load and a branch and call in here out of line.
//!
//! Tiers, each adding its own cost, as in MySQL's `pfs_start_mutex_wait_v1` and
//! `pfs_end_mutex_wait_v1` (`storage/perfschema/pfs.cc`), which read the timer only for a timed
//! instrument and touch the thread's statistics and event records only when its consumers are on:
//! * counted: one load+store increment into the instance, or the thread's class (or digest)
//!   cell — PFS's "complete shortcut", with no end call;
//! * timed (`F_TIMED`): two timer reads, count/sum/min/max;
//! * per thread (`F_THREAD`): the (thread, class) cell too (instance classes);
//! * events (`F_CURRENT`, `F_HISTORY`, `F_HISTORY_LONG`): one event record, written at the
//!   start and finished in place at the end (it is then the history entry); a copy into the
//!   shared ring for `history_long`;
//! * beyond PFS: hold times (`F_HOLD`), log2 histograms (`F_HIST`), digests (`F_DIGEST`).
//!
//! A statement with a digest updates one cell: the thread's cell of the digest, which also
//! counts for the statement class the digest is bound to (see `DigestInfo::class`), and holds
//! the digest's sums (`statement::DigestCell`). So the statistics of an event touch one
//! thread-owned cache line. A statement that says how it ended (`end_statement`) takes the
//! same end, which also writes its record's extra and its digest's sums (`statement.rs`).
//! A timed statement also counts in a bucket of its digest's latency histogram
//! (`histogram.rs`: a table lookup and one shared increment; a statement without a digest in
//! the histogram of those).

use std::sync::atomic::Ordering;

use super::classes::*;
use super::events::{long_rings, pack, Claim, EventLog, EventRecord, B_CYCLES, B_HISTORY, B_TIMED};
use super::histogram;
use super::instances::Instance;
use super::limits::LOST;
use super::owner::{owned, released};
use super::statement::{self, End};
use super::thread::{self, ThreadSlot};
use super::timer::{now, ns_now, rdtsc};
use super::trace;
use crate::kinds::Operation;

/// An event in progress.
pub(crate) struct Active {
    pub(crate) t: &'static ThreadSlot,
    pub(crate) class: &'static ClassInfo,
    pub(crate) digest: Option<&'static DigestInfo>,
    pub(crate) start: u64,
    /// EVENT_ID, 0 when no event record was written.
    pub(crate) event_id: u64,
    pub(crate) flags: u32,
    pub(crate) claim: Option<Claim>,
    /// The row of the prepared statement a statement executes (`prepared.rs`), its index + 1
    /// in `statement::PREPARED_CELLS` (0: none; a `u32` beside `flags`, so the record does
    /// not grow): its end adds to it too, as MySQL's `pfs_end_statement_v1` adds to
    /// `m_parent_prepared_stmt`.
    pub(crate) prepared: u32,
}

impl Active {
    /// A timed event without an event record: the start time (caller checked `F_TIMED`).
    #[inline]
    pub(crate) fn timed(
        t: &'static ThreadSlot,
        class: &'static ClassInfo,
        f: u32,
        digest: Option<&'static DigestInfo>,
    ) -> Active {
        Active {
            t,
            class,
            digest,
            start: now(f),
            event_id: 0,
            flags: f,
            claim: None,
            prepared: 0,
        }
    }
}

/// Do the derived flags say "timed, with the cycle counter"? The one clock read the hot path
/// makes inline; every other case (nanoseconds, untimed) goes through an out-of-line twin, so
/// the hot functions make no call and save no registers for one.
#[inline(always)]
fn cycles(f: u32) -> bool {
    f & (F_TIMED | F_CYCLES) == F_TIMED | F_CYCLES
}

/// The start time of an event that is not [`cycles`]: the nanosecond clock, or 0 untimed.
#[inline(always)]
fn start_other(f: u32) -> u64 {
    if f & F_TIMED != 0 {
        ns_now()
    } else {
        0
    }
}

/// Start an event (caller checked `F_ENABLED` with the thread's mask applied).
#[inline]
pub(crate) fn begin(
    t: &'static ThreadSlot,
    class: &'static ClassInfo,
    f: u32,
    op: Option<Operation>,
    object: u64,
    digest: Option<&'static DigestInfo>,
) -> Active {
    let start = if f & F_TIMED != 0 { now(f) } else { 0 };
    begin_at(t, class, f, op, object, digest, start)
}

/// Do the derived flags say "a statement, timed with the cycle counter"? Then
/// [`begin_statement`] starts it.
#[inline(always)]
pub(crate) fn statement_cycles(f: u32) -> bool {
    const MASK: u32 = F_TIMED | F_CYCLES | F_STAGE | F_STATEMENT;
    f & MASK == F_TIMED | F_CYCLES | F_STATEMENT
}

/// [`begin`] for a statement whose flags passed [`statement_cycles`]: its log known, the clock
/// read inline, nothing called (so the caller saves no registers for a call).
#[inline(always)]
pub(crate) fn begin_statement(
    t: &'static ThreadSlot,
    class: &'static ClassInfo,
    f: u32,
    digest: Option<&'static DigestInfo>,
) -> Active {
    let start = rdtsc();
    let (event_id, claim) = if f & F_CURRENT != 0 {
        let object = digest.map_or(0, |d| d.index as u64 + 1);
        open::<STATEMENTS_LOG>(t, class, f, Some(Operation::Statement), object, start)
    } else {
        (0, None)
    };
    Active {
        t,
        class,
        digest,
        start,
        event_id,
        flags: f,
        claim,
        prepared: 0,
    }
}

/// Start an event with an event record (`F_CURRENT`; the `EventGuard` path, out of line): the
/// clock first, then the record.
#[inline(never)]
pub(crate) fn begin_event(
    t: &'static ThreadSlot,
    class: &'static ClassInfo,
    f: u32,
    op: Option<Operation>,
    object: u64,
    digest: Option<&'static DigestInfo>,
) -> Active {
    if cycles(f) {
        return begin_at(t, class, f, op, object, digest, rdtsc());
    }
    begin_event_other(t, class, f, op, object, digest)
}

/// [`begin_event`] with the nanosecond clock, or untimed.
#[inline(never)]
fn begin_event_other(
    t: &'static ThreadSlot,
    class: &'static ClassInfo,
    f: u32,
    op: Option<Operation>,
    object: u64,
    digest: Option<&'static DigestInfo>,
) -> Active {
    begin_at(t, class, f, op, object, digest, start_other(f))
}

/// Start an event on `t` whose start time `start` was read earlier, on whatever thread (an
/// event that began on no pfs thread and is recorded where it ends: `session.rs`).
#[inline(never)]
pub(crate) fn begin_with_start(
    t: &'static ThreadSlot,
    class: &'static ClassInfo,
    f: u32,
    op: Option<Operation>,
    object: u64,
    digest: Option<&'static DigestInfo>,
    start: u64,
) -> Active {
    begin_at(t, class, f, op, object, digest, start)
}

#[inline(always)]
fn begin_at(
    t: &'static ThreadSlot,
    class: &'static ClassInfo,
    f: u32,
    op: Option<Operation>,
    object: u64,
    digest: Option<&'static DigestInfo>,
    start: u64,
) -> Active {
    let (event_id, claim) = if f & F_CURRENT != 0 {
        let object = digest.map_or(object, |d| d.index as u64 + 1);
        // One copy per family, so that the log is at a constant offset and the nesting
        // lookup is the family's own.
        match log_of(f) {
            STATEMENTS_LOG => open::<STATEMENTS_LOG>(t, class, f, op, object, start),
            STAGES_LOG => open::<STAGES_LOG>(t, class, f, op, object, start),
            _ => open::<WAITS_LOG>(t, class, f, op, object, start),
        }
    } else {
        (0, None)
    };
    Active {
        t,
        class,
        digest,
        start,
        event_id,
        flags: f,
        claim,
        prepared: 0,
    }
}

// The record bits are the derived flags' bits, moved: `B_TIMED | B_CYCLES` is
// `(f >> 1) & 3` and `B_HISTORY` is `(f >> 3) & 4`.
const _: () = assert!(F_TIMED >> 1 == B_TIMED as u32 && F_CYCLES >> 1 == B_CYCLES as u32);
const _: () = assert!(F_HISTORY >> 3 == B_HISTORY as u32);

/// Write the start of the event record in the log `FAMILY` (`WAITS_LOG`, `STAGES_LOG`,
/// `STATEMENTS_LOG`); returns its EVENT_ID and record.
#[inline(always)]
fn open<const FAMILY: usize>(
    t: &ThreadSlot,
    class: &ClassInfo,
    f: u32,
    op: Option<Operation>,
    object: u64,
    start: u64,
) -> (u64, Option<Claim>) {
    let log = &t.logs[FAMILY];
    let Some(level) = log.free_level() else {
        return no_record();
    };
    let [waits, stages, statements] = &t.logs;
    let nesting = match FAMILY {
        WAITS_LOG => Some(waits.top_event_id())
            .filter(|&id| id != 0)
            .or_else(|| Some(stages.top_event_id()).filter(|&id| id != 0))
            .unwrap_or_else(|| statements.top_event_id()),
        // A statement with none in progress nests in the transaction in progress, if any
        // (`NEST_TRX` marks it); a stage in its statement.
        STATEMENTS_LOG => match statements.top_event_id() {
            0 => t.trx.nesting.load(Ordering::Relaxed),
            id => id,
        },
        _ => statements.top_event_id(),
    };
    let op = op.unwrap_or_else(|| class.kind().default_operation());
    let bits = ((f >> 1) & 3 | (f >> 3) & 4) as u8;
    let event_id = t.next_event_id();
    let packed = pack(class.index, op as u8, bits, t.thread_id());
    (
        event_id,
        Some(log.begin_packed(level, event_id, packed, start, object, nesting)),
    )
}

/// `STACK` events of the family are in progress: this one gets no record.
#[cold]
#[inline(never)]
fn no_record() -> (u64, Option<Claim>) {
    LOST.locker.fetch_add(1, Ordering::Relaxed);
    (0, None)
}

/// The flags under which [`end_event`] takes its short path: timed with the cycle counter,
/// and none of the rarer extras (histogram, `history_long` copy, a metadata lock wait's end
/// kept for `LOCK_TIME`, tracing) that call out.
#[inline(always)]
fn plain_cycles(f: u32) -> bool {
    cycles(f) && f & (F_HIST | F_HISTORY_LONG | F_LOCK_WAIT) == 0 && !cfg!(feature = "tracing")
}

/// [`plain_cycles`] for a statement class (`F_STATEMENT`): its log is known, one test still.
#[inline(always)]
fn plain_statement(f: u32) -> bool {
    const MASK: u32 = F_TIMED | F_CYCLES | F_HIST | F_HISTORY_LONG | F_LOCK_WAIT | F_STAGE;
    f & (MASK | F_STATEMENT) == F_TIMED | F_CYCLES | F_STATEMENT && !cfg!(feature = "tracing")
}

/// Is the statement's digest bound to its class (every statement of the digest but the
/// first)? Then its end skips the binding test and the call it may make (`digest_stat`).
#[inline(always)]
fn digest_bound(a: &Active) -> bool {
    a.flags & F_DIGEST != 0
        && a.digest
            .is_some_and(|d| d.class.load(Ordering::Relaxed) == a.class.index)
}

/// End an event of an [`crate::EventGuard`] (no instance). The common case (the cycle
/// counter, no extras) reads the clock inline and calls nothing, so it saves no registers;
/// the rest goes to [`end_event_other`].
#[inline(never)]
pub(crate) fn end_event(a: &Active) {
    if plain_cycles(a.flags) {
        finish_event(a, rdtsc(), true, log_of(a.flags), End::None, false);
    } else {
        end_event_other(a, End::None);
    }
}

/// End a statement that says how it ended (`PendingStatement::end_with`): [`end_event`], its
/// record's extra and its digest's sums written on the way (`statement.rs`). The common end
/// (see `statement::is_rare`) takes the same short path. Returns the end's timer reading (0
/// untimed), which a statement that is its own transaction lends it (`transaction.rs`).
/// Inlined into the caller's statement for the reason `session::begin_on_slot` is.
#[inline(always)]
pub(crate) fn end_statement(a: &Active, o: &crate::StatementOutcome<'_>) -> u64 {
    if statement::is_rare(a, o) {
        end_statement_rare(a, o)
    } else if plain_statement(a.flags) && (a.digest.is_none() || digest_bound(a)) {
        // A bound digest's cell, or without a digest the class's cells: the same inline end.
        let end = rdtsc();
        finish_event(a, end, true, 2, End::Common(o), a.digest.is_some());
        if a.prepared != 0 {
            executed_common(a, end, o.rows_sent());
        }
        end
    } else {
        let end = end_event_other(a, End::Common(o));
        executed(a, end, &End::Common(o));
        end
    }
}

#[cold]
#[inline(never)]
fn end_statement_rare(a: &Active, o: &crate::StatementOutcome<'_>) -> u64 {
    let r = statement::rare_end(a, o);
    let end = end_event_other(a, End::Rare(&r));
    executed(a, end, &End::Rare(&r));
    end
}

/// A prepared statement's execution ended (`a.prepared`): its statistics and sums, the same
/// as its digest's, into the prepared statement's cell, which the session alone writes.
#[inline(always)]
fn executed(a: &Active, end: u64, e: &End<'_>) {
    if a.prepared == 0 {
        return;
    }
    if let Some(p) = statement::prepared_cell(a.prepared) {
        p.stat
            .add(a.flags & F_TIMED != 0, end.saturating_sub(a.start));
        p.seen(a.start, e);
    }
}

/// [`executed`] of the common end: timed, and only rows sent to add (the fewest stores).
#[inline(always)]
fn executed_common(a: &Active, end: u64, rows_sent: u64) {
    if let Some(p) = statement::prepared_cell(a.prepared) {
        p.stat.add_timed(end.wrapping_sub(a.start));
        p.sent(rows_sent);
    }
}

/// [`end_event`] with the nanosecond clock, untimed, or with extras; returns the end.
#[inline(never)]
fn end_event_other(a: &Active, e: End<'_>) -> u64 {
    let f = a.flags;
    let end = if cycles(f) { rdtsc() } else { start_other(f) };
    if f & F_LOCK_WAIT != 0 {
        a.t.lock_waited(end, f);
    }
    finish_event(a, end, f & F_TIMED != 0, log_of(f), e, false);
    end
}

/// `bound`: the caller found the digest bound to the class ([`digest_bound`]).
#[inline(always)]
fn finish_event(a: &Active, end: u64, timed: bool, family: usize, e: End<'_>, bound: bool) {
    let f = a.flags;
    let wait = end.saturating_sub(a.start);
    let t = a.t;
    match a.digest {
        Some(d) if bound || f & F_DIGEST != 0 => {
            // `bound` is the plain path's (`end_statement`): the cycle counter, known here.
            let clock = (timed, bound || cycles(f));
            let c = digest_stat(t, a.class, d, clock, wait, a.start, bound);
            if let Some(c) = c {
                c.seen(a.start, &e);
            }
            // Known bound: the digest's cell holds the class's sums (`class_sums.rs`).
            if !bound && !matches!(e, End::None) {
                statement::add_foreign(t, a.class, d, &e);
            }
        }
        _ => {
            if let Some(c) = t.stats.get(a.class.index as usize) {
                c.add(timed, wait);
            }
            statement::add_class(t, a.class, &e);
            // A statement without a digest counts in the global histogram only.
            if timed && f & F_STATEMENT != 0 {
                histogram::record_other(f & F_CYCLES != 0, wait);
            }
        }
    }
    if f & F_HIST != 0 || cfg!(feature = "tracing") {
        end_extras(a, timed, wait);
    }
    close(a, end, family, &e);
}

/// The rarer parts of [`end_event`]: histogram, tracing.
#[inline(never)]
fn end_extras(a: &Active, timed: bool, wait: u64) {
    if a.flags & F_HIST != 0 && timed {
        if let Some(h) = a.t.hist(a.class.index as usize) {
            h.add(wait);
        }
    }
    if timed {
        trace::slow(a.class, wait);
    }
}

/// Finish the event record in place (a statement's extra too), and copy it to `history_long`
/// if that consumer is on.
#[inline(always)]
fn close(a: &Active, end: u64, family: usize, e: &End<'_>) {
    let f = a.flags;
    if let Some(c) = a.claim {
        let log = &a.t.logs[family];
        let end_id = a.t.last_event_id().max(1);
        if let Some(r) = log.end(c, a.event_id, end_id, end) {
            if family == 2 {
                statement::end_extra(a, c.index(), e);
            }
            if f & F_HISTORY_LONG != 0 {
                push_long(a, c, r);
            }
        }
    }
}

/// Copy a finished record into its family's `history_long` ring (a statement's extra too).
#[inline(never)]
fn push_long(a: &Active, c: Claim, r: &EventRecord) {
    let family = log_of(a.flags);
    let slot = long_rings()[family].push(&EventLog::own_copy(r));
    if let (2, Some(slot)) = (family, slot) {
        let index = c.index() as usize;
        super::statement::push_long(&a.t.statements, index, a.event_id, slot);
    }
}

/// End an event; `inst` is the instance for sync waits (recorded under the acquired lock).
/// Returns the end timestamp (0 if untimed).
#[inline(never)]
pub(crate) fn end(a: &Active, inst: Option<&Instance>) -> u64 {
    let f = a.flags;
    let timed = f & F_TIMED != 0;
    let end = if timed { now(f) } else { 0 };
    let wait = end.saturating_sub(a.start);
    stat(Some(a.t), a.class, f, inst, timed, wait, a.digest);
    close(a, end, log_of(f), &End::None);
    end
}

/// A counted-only event without an instance (no timer, no event record): one increment.
#[inline(never)]
pub(crate) fn count(
    t: &'static ThreadSlot,
    class: &ClassInfo,
    f: u32,
    digest: Option<&'static DigestInfo>,
) {
    stat(Some(t), class, f, None, false, 0, digest);
}

/// Record one event's stats: into the instance (if any), and into the thread's cells when the
/// event has no instance or `F_THREAD` is on.
#[inline]
fn stat(
    t: Option<&ThreadSlot>,
    class: &ClassInfo,
    f: u32,
    inst: Option<&Instance>,
    timed: bool,
    wait: u64,
    digest: Option<&'static DigestInfo>,
) {
    if let Some(i) = inst {
        i.wait.add(timed, wait);
    }
    let Some(t) = t else {
        if inst.is_none() {
            LOST.locker.fetch_add(1, Ordering::Relaxed);
        }
        return;
    };
    let idx = class.index as usize;
    if inst.is_none() || f & F_THREAD != 0 {
        match digest {
            Some(d) if f & F_DIGEST != 0 => {
                digest_stat(t, class, d, (timed, f & F_CYCLES != 0), wait, 0, false);
            }
            _ => {
                if let Some(c) = t.stats.get(idx) {
                    c.add(timed, wait);
                }
            }
        }
    }
    if f & F_HIST != 0 && timed {
        if let Some(h) = t.hist(idx) {
            h.add(wait);
        }
    }
    if timed {
        trace::slow(class, wait);
    }
}

/// A statement with a digest, started at `start`: the digest's cell, which counts for its
/// bound class too; a statement of another class counts in its class cell and the digest's
/// "other" cell. Returns the digest's cell, where the statement's sums go
/// (`statement::DigestCell`). The statement that binds the digest (the first since it was
/// registered or truncated) sets its `FIRST_SEEN`. A timed one (`clock`: timed, and with the
/// cycle counter) counts in the digest's histogram and the global one (`histogram.rs`).
#[inline(always)]
fn digest_stat<'t>(
    t: &'t ThreadSlot,
    class: &ClassInfo,
    d: &DigestInfo,
    (timed, cycles): (bool, bool),
    wait: u64,
    start: u64,
    known_bound: bool,
) -> Option<&'t statement::DigestCell> {
    let i = d.index as usize;
    let mine = known_bound || {
        let bound = d.class.load(Ordering::Relaxed);
        bound == class.index || (bound == UNBOUND && bind(d, class, start))
    };
    let cell = t.digests.get(i);
    if timed {
        histogram::record(&d.hist, cycles, wait);
    }
    if mine {
        if let Some(c) = cell {
            c.stat.add(timed, wait);
        }
    } else {
        if let Some(c) = t.digests_other.get(i) {
            c.add(timed, wait);
        }
        if let Some(c) = t.stats.get(class.index as usize) {
            c.add(timed, wait);
        }
    }
    cell
}

/// Binds the unbound digest `d` to `class` (a statement started at `start`: `FIRST_SEEN`);
/// false if another thread bound it first.
#[cold]
#[inline(never)]
fn bind(d: &DigestInfo, class: &ClassInfo, start: u64) -> bool {
    let won = d
        .class
        .compare_exchange(UNBOUND, class.index, Ordering::Relaxed, Ordering::Relaxed)
        .is_ok();
    if won {
        d.first_seen.store(start, Ordering::Relaxed);
    }
    won
}

/// The instrumented acquisition of a lock, or a condition wait (caller checked `F_ENABLED` on
/// the instance; the thread's mask is applied here).
///
/// * events on: full PFS path (event record, timer around the blocking acquire);
/// * timed: `try_fast` first — an uncontended acquisition is counted with a zero wait and no
///   timer read; only a contended one reads the clock twice;
/// * counted: one increment.
///
/// Returns the guard and the hold start timestamp (0 unless `F_HOLD`), and the flags in effect.
#[inline(never)]
pub(crate) fn acquire<G>(
    inst: &'static Instance,
    f: u32,
    op: Operation,
    try_fast: impl FnOnce() -> Option<G>,
    slow: impl FnOnce() -> G,
) -> (G, u64, u32) {
    let t = thread::current();
    let f = t.map_or(f, |t| f & t.mask());
    if f & F_ENABLED == 0 {
        return (slow(), 0, 0);
    }
    let class = inst.class_info();
    let hold = |stamp: u64| match f & F_HOLD {
        0 => 0,
        _ if stamp != 0 => stamp,
        _ => now(f),
    };
    if let (true, Some(t)) = (f & F_CURRENT != 0, t) {
        let a = begin(
            t,
            class,
            f,
            Some(op),
            inst.identity.load(Ordering::Relaxed),
            None,
        );
        let g = slow();
        let e = end(&a, Some(inst));
        return (g, hold(e), owned(inst, op, f));
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
    stat(t, class, f, Some(inst), f & F_TIMED != 0, wait, None);
    (g, hold(stamp), owned(inst, op, f))
}

/// A successful `try_*` acquisition: counted with a zero wait. Returns the hold start and the
/// flags in effect (0: not recorded).
#[inline(never)]
pub(crate) fn acquired_try(inst: &'static Instance, f: u32, op: Operation) -> (u64, u32) {
    let t = thread::current();
    let f = t.map_or(f, |t| f & t.mask());
    if f & F_ENABLED == 0 {
        return (0, 0);
    }
    stat(
        t,
        inst.class_info(),
        f,
        Some(inst),
        f & F_TIMED != 0,
        0,
        None,
    );
    (if f & F_HOLD != 0 { now(f) } else { 0 }, owned(inst, op, f))
}

/// End of a hold (called by the guard before it releases the lock): its owner cleared, its
/// time counted if hold stats were on.
#[inline(never)]
pub(crate) fn release_hold(inst: &Instance, f: u32, start: u64) {
    released(inst, f);
    if f & F_HOLD != 0 {
        inst.hold.add_timed(now(f).saturating_sub(start));
    }
}

/// A condition wait got its mutex `inst` back (the hold kept flags `f`): owned again; the
/// new hold start (0 unless `F_HOLD`).
pub(crate) fn rehold(inst: &Instance, f: u32) -> u64 {
    owned(inst, Operation::Lock, f);
    if f & F_HOLD != 0 {
        now(f)
    } else {
        0
    }
}
