//! Transaction events: started and ended on a session, nesting with statements, a statement
//! that is its own transaction, the consumers and the instrument's switches, the summaries and
//! their truncate, and the current thread's calls.
#![cfg(all(feature = "instrumentation", feature = "timers"))]

use common::serial_with;
use pfs::tables::{StatementEventRow, TransactionEventRow};
use pfs::{ClassKind, Preset, SessionThread, TransactionMode, TransactionState};

mod common;

fn of(rows: Vec<TransactionEventRow>, thread: u64) -> Vec<TransactionEventRow> {
    rows.into_iter().filter(|r| r.thread_id == thread).collect()
}

fn statements_of(rows: Vec<StatementEventRow>, thread: u64) -> Vec<StatementEventRow> {
    rows.into_iter()
        .filter(|r| r.event.thread_id == thread)
        .collect()
}

fn select() -> pfs::ClassRef {
    pfs::register_class(ClassKind::Statement, "statement/t_trx/select")
}

#[test]
fn defaults_list_the_instrument_and_consumers() {
    let _s = serial_with(Preset::Default);
    pfs::setup_instruments(); // registers it
    assert_eq!(pfs::instrument_setting("transaction"), Some((true, true)));
    assert!(pfs::setup_instruments()
        .rows
        .iter()
        .any(|r| r.name == "transaction" && r.enabled && r.timed));
    let consumers = pfs::setup_consumers().rows;
    let on = |n: &str| consumers.iter().find(|r| r.name == n).map(|r| r.enabled);
    assert_eq!(on("events_transactions_current"), Some(true));
    assert_eq!(on("events_transactions_history"), Some(true));
    assert_eq!(on("events_transactions_history_long"), Some(false));
}

#[test]
fn an_explicit_transaction_is_active_then_committed_with_its_statements_nested() {
    let _s = serial_with(Preset::Default);
    let s = SessionThread::new("thread/t_trx/connection", 1);
    let begin = s.statement_start(select(), None);
    assert!(s.transaction_start(TransactionMode::default()));
    begin.end();
    assert!(s.in_transaction());
    let cur = of(pfs::events_transactions_current().rows, s.thread_id());
    assert_eq!(cur.len(), 1);
    let trx = cur[0].clone();
    assert_eq!((trx.state.as_str(), trx.end_event_id), ("ACTIVE", None));
    assert_eq!(trx.nesting_event_type.as_deref(), Some("STATEMENT"));
    assert_eq!(trx.event_name, "transaction");
    // In progress: timed to now.
    assert!(trx.timer_start.is_some() && trx.timer_wait.is_some());
    assert!(trx.timer_end >= trx.timer_start);
    // A statement begun now nests in it.
    s.statement_start(select(), None).end();
    let st = statements_of(pfs::events_statements_history().rows, s.thread_id());
    let last = st.last().unwrap();
    assert_eq!(last.nesting_event_id, Some(trx.event_id));
    assert_eq!(last.nesting_event_type.as_deref(), Some("TRANSACTION"));
    assert_eq!(st[0].nesting_event_id, None, "BEGIN began before it");
    s.transaction_savepoint(pfs::Savepoint::Set);
    s.transaction_savepoint(pfs::Savepoint::RollbackTo);
    s.transaction_end(TransactionState::Committed);
    assert!(!s.in_transaction());
    let h = of(pfs::events_transactions_history().rows, s.thread_id());
    assert_eq!(h.len(), 1);
    assert_eq!(
        (h[0].state.as_str(), h[0].event_id),
        ("COMMITTED", trx.event_id)
    );
    assert!(h[0].end_event_id.unwrap() >= last.event.event_id);
    assert!(h[0].timer_wait.is_some());
    assert_eq!(
        (
            h[0].number_of_savepoints,
            h[0].number_of_rollback_to_savepoint
        ),
        (1, 1)
    );
    // After it, a statement nests in nothing.
    s.statement_start(select(), None).end();
    let st = statements_of(pfs::events_statements_history().rows, s.thread_id());
    assert_eq!(st.last().unwrap().nesting_event_id, None);
    // A rollback.
    s.transaction_start(TransactionMode {
        read_only: true,
        ..TransactionMode::default()
    });
    s.transaction_end(TransactionState::RolledBack);
    let h = of(pfs::events_transactions_history().rows, s.thread_id());
    assert_eq!(
        (h[1].state.as_str(), h[1].access_mode.as_str()),
        ("ROLLED BACK", "READ ONLY")
    );
    let sum = pfs::events_transactions_summary_by_thread_by_event_name().rows;
    let mine = sum.iter().find(|r| r.thread_id == s.thread_id()).unwrap();
    assert_eq!(
        (
            mine.stats.all.count_star,
            mine.stats.count_read_write,
            mine.stats.count_read_only
        ),
        (2, 1, 1)
    );
    assert!(mine.stats.all.sum_timer_wait >= mine.stats.sum_timer_read_write);
}

#[test]
fn an_autocommit_statement_is_one_transaction_with_its_times() {
    let _s = serial_with(Preset::Default);
    let s = SessionThread::new("thread/t_trx/connection", 2);
    let mode = TransactionMode {
        autocommit: true,
        ..TransactionMode::default()
    };
    let st = s.statement_start(select(), None);
    s.end_autocommit(
        st,
        &pfs::StatementOutcome::ok(1, 0),
        mode,
        TransactionState::Committed,
    );
    let stmt = statements_of(pfs::events_statements_history().rows, s.thread_id());
    let trx = of(pfs::events_transactions_history().rows, s.thread_id());
    assert_eq!(trx.len(), 1);
    let t = &trx[0];
    assert_eq!((t.state.as_str(), t.autocommit), ("COMMITTED", true));
    assert_eq!(t.nesting_event_id, Some(stmt[0].event.event_id));
    assert_eq!(
        t.timer_start, stmt[0].event.timer_start,
        "the statement's readings"
    );
    assert_eq!(t.timer_end, stmt[0].event.timer_end);
    assert!(!s.in_transaction());
    // A failed one is rolled back.
    let st = s.statement_start(select(), None);
    let failed = pfs::StatementOutcome::error(1146, "42S02", "gone");
    s.end_autocommit(st, &failed, mode, TransactionState::RolledBack);
    let trx = of(pfs::events_transactions_history().rows, s.thread_id());
    assert_eq!(trx[1].state, "ROLLED BACK");
    // With the statement instrument off, the transaction is still recorded.
    pfs::set_instruments("statement/t_trx/%", false, false).unwrap();
    let st = s.statement_start(select(), None);
    s.end_autocommit(st, &failed, mode, TransactionState::Committed);
    let trx = of(pfs::events_transactions_history().rows, s.thread_id());
    assert_eq!((trx.len(), trx[2].nesting_event_id), (3, None));
    pfs::set_instruments("statement/t_trx/%", true, true).unwrap();
}

#[test]
fn consumers_and_the_instrument_switch_them_off() {
    let _s = serial_with(Preset::Default);
    let s = SessionThread::new("thread/t_trx/connection", 3);
    pfs::set_consumer("events_transactions_current", false).unwrap();
    s.transaction_start(TransactionMode::default());
    assert!(of(pfs::events_transactions_current().rows, s.thread_id()).is_empty());
    s.transaction_end(TransactionState::Committed);
    assert!(of(pfs::events_transactions_history().rows, s.thread_id()).is_empty());
    let count = |s: &SessionThread| {
        (pfs::events_transactions_summary_by_thread_by_event_name().rows)
            .into_iter()
            .find(|r| r.thread_id == s.thread_id())
            .map_or(0, |r| r.stats.all.count_star)
    };
    assert_eq!(count(&s), 1, "the summary still counts");
    pfs::set_consumer("events_transactions_current", true).unwrap();
    pfs::set_consumer("events_transactions_history_long", true).unwrap();
    s.transaction_start(TransactionMode::default());
    s.transaction_end(TransactionState::Committed);
    let long = of(pfs::events_transactions_history_long().rows, s.thread_id());
    assert_eq!(long.len(), 1);
    pfs::set_instruments("transaction", false, false).unwrap();
    assert!(!s.transaction_start(TransactionMode::default()));
    assert_eq!(count(&s), 2);
    pfs::apply_preset(Preset::Default);
    let before = pfs::events_transactions_summary_global_by_event_name().rows[0]
        .stats
        .all
        .count_star;
    assert!(before >= 2);
    pfs::truncate_events_waits_summary_global_by_event_name();
    pfs::truncate_events_history();
    let after = &pfs::events_transactions_summary_global_by_event_name().rows[0];
    assert_eq!(
        (after.event_name.as_str(), after.stats.all.count_star),
        ("transaction", 0)
    );
    assert!(of(pfs::events_transactions_history().rows, s.thread_id()).is_empty());
    assert!(of(pfs::events_transactions_history_long().rows, s.thread_id()).is_empty());
}

#[test]
fn an_ended_session_folds_into_the_global_summary() {
    let _s = serial_with(Preset::Default);
    let count = || {
        pfs::events_transactions_summary_global_by_event_name().rows[0]
            .stats
            .all
            .count_star
    };
    let before = count();
    {
        let s = SessionThread::new("thread/t_trx/connection", 4);
        let _e = s.enter();
        assert!(pfs::transaction_start(TransactionMode::default()));
        pfs::transaction_end(TransactionState::Committed);
    }
    assert_eq!(count(), before + 1);
}
