//! Readers of the transaction tables (`transaction.rs` writes them): the event tables from
//! each live thread's [`TrxLog`](super::trx_log::TrxLog) and the shared ring, the summaries
//! from each thread's two cells (read-write, read-only) and those of exited threads.

use super::stats::Snap;
use super::summary::summary;
use super::thread::{threads, with_live};
use super::timer::timer_columns;
use super::transaction::class;
use super::trx_log::{long_ring, TrxData};
use crate::kinds::Clock;
use crate::tables::*;
use crate::transaction::TransactionState;

fn row(d: &TrxData) -> TransactionEventRow {
    let clock = if d.cycles() {
        Clock::Cycle
    } else {
        Clock::Nanosecond
    };
    let end = (d.end_event_id != 0).then_some(d.timer_end);
    let [timer_start, timer_end, timer_wait] = timer_columns(d.timed(), d.timer_start, end, clock);
    let mode = d.mode();
    let [savepoints, rollback_to, release] = d.savepoint_counts();
    TransactionEventRow {
        thread_id: d.thread_id(),
        event_id: d.event_id,
        end_event_id: (d.end_event_id != 0).then_some(d.end_event_id),
        event_name: "transaction".into(),
        state: match d.state() {
            TransactionState::Active => "ACTIVE",
            TransactionState::Committed => "COMMITTED",
            TransactionState::RolledBack => "ROLLED BACK",
        }
        .into(),
        trx_id: None,
        gtid: None,
        xid_format_id: None,
        xid_gtrid: None,
        xid_bqual: None,
        xa_state: None,
        source: None,
        timer_start,
        timer_end,
        timer_wait,
        access_mode: if mode.read_only {
            "READ ONLY"
        } else {
            "READ WRITE"
        }
        .into(),
        isolation_level: Some(mode.isolation.name().into()),
        autocommit: mode.autocommit,
        number_of_savepoints: savepoints,
        number_of_rollback_to_savepoint: rollback_to,
        number_of_release_savepoint: release,
        object_instance_begin: None,
        nesting_event_id: (d.nesting != 0).then_some(d.nesting),
        nesting_event_type: (d.nesting != 0).then(|| "STATEMENT".into()),
    }
}

/// `events_transactions_current` (`history` false) or `events_transactions_history`.
pub(crate) fn events(history: bool) -> Vec<TransactionEventRow> {
    let mut v: Vec<TrxData> = with_live(|live| {
        (live.iter())
            .flat_map(|t| match history {
                true => t.trx.history(),
                false => t.trx.current().into_iter().collect(),
            })
            .collect()
    });
    v.sort_by_key(|d| (d.thread_id(), d.event_id));
    v.iter().map(row).collect()
}

/// `events_transactions_history_long`, oldest first.
pub(crate) fn history_long() -> Vec<TransactionEventRow> {
    long_ring().read_all().iter().map(row).collect()
}

/// The summary columns of read-write and read-only statistics `s`, in `clock`'s ticks.
pub(crate) fn stats(s: &[Snap; 2], clock: Clock) -> TransactionSummaryStats {
    let mut all = s[0];
    all.merge(&s[1]);
    let (rw, ro) = (summary(&s[0], clock), summary(&s[1], clock));
    TransactionSummaryStats {
        all: summary(&all, clock),
        count_read_write: rw.count_star,
        sum_timer_read_write: rw.sum_timer_wait,
        min_timer_read_write: rw.min_timer_wait,
        avg_timer_read_write: rw.avg_timer_wait,
        max_timer_read_write: rw.max_timer_wait,
        count_read_only: ro.count_star,
        sum_timer_read_only: ro.sum_timer_wait,
        min_timer_read_only: ro.min_timer_wait,
        avg_timer_read_only: ro.avg_timer_wait,
        max_timer_read_only: ro.max_timer_wait,
    }
}

/// `events_transactions_summary_global_by_event_name`: one row, `transaction`.
pub(crate) fn summary_global() -> Vec<TransactionSummaryByEventNameRow> {
    let c = class();
    // Under one lock: a thread exiting meanwhile is counted once.
    let th = threads();
    let mut s = th.exited_trx;
    for t in &th.live {
        for (a, cell) in s.iter_mut().zip(&t.trx.cells) {
            a.merge(&cell.snapshot());
        }
    }
    drop(th);
    vec![TransactionSummaryByEventNameRow {
        event_name: c.name().into(),
        stats: stats(&s, c.clock()),
    }]
}

/// `events_transactions_summary_by_thread_by_event_name`: a row per live thread with a slot.
pub(crate) fn summary_by_thread() -> Vec<TransactionSummaryByThreadRow> {
    let c = class();
    let mut rows: Vec<TransactionSummaryByThreadRow> = with_live(|live| {
        (live.iter())
            .map(|t| TransactionSummaryByThreadRow {
                thread_id: t.thread_id(),
                event_name: c.name().into(),
                stats: stats(&t.trx.cells.each_ref().map(|x| x.snapshot()), c.clock()),
            })
            .collect()
    });
    rows.sort_by_key(|r| r.thread_id);
    rows
}
