//! Transaction events: `events_transactions_current`, `_history`, `_history_long` and the
//! per-thread statistics behind `events_transactions_summary_*` (MySQL's
//! `storage/perfschema/pfs_events_transactions.h`, started and ended where MySQL's
//! `sql/transaction.cc` calls `MYSQL_START_TRANSACTION` / `MYSQL_COMMIT_TRANSACTION` /
//! `MYSQL_ROLLBACK_TRANSACTION`).
//!
//! One instrument, `transaction`, registered at first use ([`class`]), with the usual
//! switches: its derived flags say enabled, timed, which clock, and the three consumers of the
//! `transaction` family; the thread's mask applies as to any event.
//!
//! # Where it is kept
//!
//! Each thread slot has a [`TrxLog`] (`trx_log.rs`): a ring of `transactions_history_size + 1`
//! records written once, as the other families' (`events.rs`): a transaction claims the next
//! record at its start, and its end is written into the same record, which is then the history
//! entry. Transactions do not nest, so there is no stack: `active` names the record of the one
//! in progress. Its `nesting` word (the active transaction's `EVENT_ID` with [`NEST_TRX`] set)
//! is what a statement begun meanwhile nests in (`record::open`: one load when no statement is
//! in progress).
//!
//! Statistics: two cells per thread, read-write and read-only transactions; `COUNT_STAR` and
//! the `*_TIMER_WAIT` columns are the two merged on read. Exited threads fold them into the
//! registry's `exited_trx`, and `TRUNCATE` resets them with the other summaries.
//!
//! # What a statement that is its own transaction pays
//!
//! Under autocommit every statement that uses a table is a transaction. [`whole`] records it
//! at the statement's end in one go, with the statement's own timer readings (its start, and
//! the end its record was finished with) when both are timed with the same clock: no clock
//! read, no `active` bookkeeping, one record written, one statistics cell. MySQL's transaction starts a little after the statement and ends a little before it.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::OnceLock;

use super::classes::*;
use super::record::Active;
use super::setup::register_class_info;
use super::thread::ThreadSlot;
use super::timer::now;
use super::trx_log::*;
use crate::kinds::ClassKind;
use crate::transaction::{TransactionMode, TransactionState};

static CLASS: OnceLock<&'static ClassInfo> = OnceLock::new();

/// The `transaction` instrument, registered on first use.
#[inline]
pub(crate) fn class() -> &'static ClassInfo {
    CLASS.get_or_init(|| register_class_info(ClassKind::Transaction, "transaction"))
}

/// The `transaction` instrument if it is registered, without registering it: what code under
/// the threads' lock may ask. Registering takes the setup lock, and `setup::refresh` takes the
/// threads' lock under it: a session's end (`Threads::give_back`) that registered the class
/// deadlocked against a preset applied at once (seen in CI). Before the class exists no
/// transaction was counted, so there is nothing to read.
#[inline]
pub(crate) fn class_if_registered() -> Option<&'static ClassInfo> {
    CLASS.get().copied()
}

/// The `packed` word of a transaction of `mode` in state `s` on thread `t` under flags `f`.
/// Shifts and masks, no branch: the mode's bits, the kept flags moved, the thread's id.
#[inline(always)]
fn pack(t: &ThreadSlot, f: u32, mode: TransactionMode, s: TransactionState) -> u64 {
    let mode_bits = (u64::from(mode.read_only) * READ_ONLY)
        | ((mode.isolation as u64) << ISOLATION_SHIFT)
        | (u64::from(mode.autocommit) * AUTOCOMMIT);
    let flag_bits = ((f & KEPT_FLAGS) as u64) << FLAG_SHIFT;
    state_bits(s) | mode_bits | flag_bits | t.thread_id() << 32
}

/// The transaction class's flags on thread `t`: 0 unless enabled.
#[inline]
fn flags_on(t: &ThreadSlot) -> u32 {
    let f = class().flags.load(Relaxed) & t.mask();
    if f & F_ENABLED == 0 {
        0
    } else {
        f
    }
}

/// Adds a transaction's statistics (owner): one cell, read-write or read-only.
#[inline]
fn stat(t: &ThreadSlot, f: u32, read_only: bool, wait: u64) {
    t.trx.cells[usize::from(read_only)].add(f & F_TIMED != 0, wait);
}

/// `MYSQL_START_TRANSACTION` on `t` (owner): a transaction of `mode` begins now, nested in the
/// statement in progress, if any. Ignored while one is in progress (MySQL asserts there is
/// none). Returns whether it is recorded.
pub(crate) fn start(t: &ThreadSlot, mode: TransactionMode) -> bool {
    let log = &t.trx;
    let f = flags_on(t);
    if f == 0 || log.in_progress() {
        return false;
    }
    let start = if f & F_TIMED != 0 { now(f) } else { 0 };
    log.flags.store(f, Relaxed);
    log.start.store(start, Relaxed);
    log.read_only.store(u32::from(mode.read_only), Relaxed);
    if f & F_CURRENT != 0 {
        let event_id = t.next_event_id();
        let (i, r) = log.claim();
        r.set(&TrxData {
            event_id,
            end_event_id: 0,
            packed: pack(t, f, mode, TransactionState::Active),
            timer_start: start,
            timer_end: 0,
            nesting: t.logs[STATEMENTS_LOG].top_event_id(),
            savepoints: 0,
        });
        log.active.store(i + 1, Relaxed);
        log.nesting.store(event_id | NEST_TRX, Relaxed);
    }
    true
}

/// A savepoint statement in the transaction in progress (owner): `which` 0 `SAVEPOINT`, 1
/// `ROLLBACK TO SAVEPOINT`, 2 `RELEASE SAVEPOINT`.
pub(crate) fn savepoint(t: &ThreadSlot, which: u32) {
    let log = &t.trx;
    let Some(r) = (log.active.load(Relaxed) as usize)
        .checked_sub(1)
        .and_then(|i| log.recs.get(i))
    else {
        return;
    };
    let shift = 21 * which.min(2);
    let mut d = r.own();
    if (d.savepoints >> shift & SAVEPOINT_MASK) < SAVEPOINT_MASK {
        d.savepoints += 1 << shift;
        r.set(&d);
    }
}

/// `MYSQL_COMMIT_TRANSACTION` / `MYSQL_ROLLBACK_TRANSACTION` on `t` (owner): the transaction in
/// progress ends now in state `s`. Nothing without one.
pub(crate) fn end(t: &ThreadSlot, s: TransactionState) {
    let log = &t.trx;
    let f = log.flags.load(Relaxed);
    if f == 0 {
        return;
    }
    let end = if f & F_TIMED != 0 { now(f) } else { 0 };
    let start = log.start.load(Relaxed);
    stat(
        t,
        f,
        log.read_only.load(Relaxed) != 0,
        end.saturating_sub(start),
    );
    log.flags.store(0, Relaxed);
    log.nesting.store(0, Relaxed);
    if let Some(r) = (log.active.swap(0, Relaxed) as usize)
        .checked_sub(1)
        .and_then(|i| log.recs.get(i))
    {
        let mut d = r.own();
        d.end_event_id = t.last_event_id().max(d.event_id);
        d.timer_end = end;
        d.packed = d.packed & !STATE_MASK | state_bits(s);
        r.set(&d);
        if f & F_HISTORY_LONG != 0 {
            push_long(r);
        }
    }
}

/// The transaction a statement (`a`, ended at `end` on its clock: 0 untimed) ran as under
/// autocommit, recorded whole at the statement's end (see the module docs). Inline in its
/// one caller (`Pending::end_autocommit`), which then makes one call less.
#[inline(always)]
pub(crate) fn after_statement(a: &Active, end: u64, mode: TransactionMode, s: TransactionState) {
    let t = a.t;
    let f = flags_on(t);
    if f == 0 || t.trx.in_progress() {
        return;
    }
    // The statement's readings, when it was timed on this clock; else one reading of our own
    // (a zero wait).
    let (start, end) = if f & F_TIMED == 0 {
        (0, 0)
    } else if a.flags & F_TIMED != 0 && (a.flags ^ f) & F_CYCLES == 0 {
        (a.start, end)
    } else {
        let now = now(f);
        (now, now)
    };
    whole(t, f, mode, s, start, end, a.event_id);
}

/// [`after_statement`] for a statement that recorded nothing: its own clock reading.
#[inline(never)]
pub(crate) fn alone(t: &ThreadSlot, mode: TransactionMode, s: TransactionState) {
    let f = flags_on(t);
    if f == 0 || t.trx.in_progress() {
        return;
    }
    let now = if f & F_TIMED != 0 { now(f) } else { 0 };
    whole(t, f, mode, s, now, now, 0);
}

/// A whole transaction, `start` to `end`, nested in statement `nesting` (0: none).
#[inline(always)]
fn whole(
    t: &ThreadSlot,
    f: u32,
    mode: TransactionMode,
    s: TransactionState,
    start: u64,
    end: u64,
    nesting: u64,
) {
    stat(t, f, mode.read_only, end.saturating_sub(start));
    if f & F_CURRENT == 0 {
        return;
    }
    let event_id = t.next_event_id();
    let (_, r) = t.trx.claim();
    r.set(&TrxData {
        event_id,
        end_event_id: event_id,
        packed: pack(t, f, mode, s),
        timer_start: start,
        timer_end: end,
        nesting,
        savepoints: 0,
    });
    if f & F_HISTORY_LONG != 0 {
        push_long(r);
    }
}

/// Copies a finished record into the `history_long` ring (its consumer is off by default):
/// read back from the record, so that the common end keeps no copy.
#[cold]
#[inline(never)]
fn push_long(r: &TrxRecord) {
    long_ring().push(&r.own());
}
