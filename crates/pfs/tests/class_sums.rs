//! The statement sums by class (`SUM_ERRORS`, `SUM_ROWS_SENT`, ... of the statement summaries
//! by event name): a statement of its digest's class, one of another class than its digest's,
//! and one without a digest (the `statements_digest` consumer off) each count in their own
//! class, by thread, by account and globally; a thread's end carries them. The transactions'
//! read-write and read-only stats count by account, user and host the same way, and so do the
//! stages, whose table by thread lists every stage class, zeros included.
#![cfg(all(feature = "instrumentation", feature = "timers"))]

use common::serial_with;
use pfs::tables::StatementSummaryStats;
use pfs::{ClassKind, Preset, SessionThread, StatementOutcome};

mod common;

fn global(name: &str) -> StatementSummaryStats {
    (pfs::statement_summary_global_by_event_name()
        .rows
        .into_iter())
    .find(|r| r.event_name == name)
    .map(|r| r.stats)
    .unwrap_or_default()
}

fn account(user: &str, name: &str) -> StatementSummaryStats {
    (pfs::statement_summary_by_account_by_event_name()
        .rows
        .into_iter())
    .find(|r| r.user.as_deref() == Some(user) && r.event_name == name)
    .map(|r| r.stats)
    .unwrap_or_default()
}

fn thread(id: u64, name: &str) -> StatementSummaryStats {
    (pfs::statement_summary_by_thread_by_event_name()
        .rows
        .into_iter())
    .find(|r| r.thread_id == id && r.event_name == name)
    .map(|r| r.stats)
    .unwrap_or_default()
}

/// (COUNT_STAR, SUM_ERRORS, SUM_WARNINGS, SUM_ROWS_SENT, SUM_ROWS_AFFECTED).
fn key(s: &StatementSummaryStats) -> (u64, u64, u64, u64, u64) {
    (
        s.timers.count_star,
        s.sum_errors,
        s.sum_warnings,
        s.sum_rows_sent,
        s.sum_rows_affected,
    )
}

#[test]
fn sums_count_in_the_statements_class_with_or_without_a_digest() {
    let _s = serial_with(Preset::Default);
    let select = pfs::register_class(ClassKind::Statement, "statement/sql/t_sums_select");
    let other = pfs::register_class(ClassKind::Statement, "statement/sql/t_sums_other");
    pfs::set_instruments("statement/sql/t_sums_%", true, true).unwrap();
    let s = SessionThread::new("thread/sql/one_connection", 78);
    s.set_account("t_sums_user", "h1");
    let digest = pfs::register_digest("SELECT t_sums FROM t WHERE id = ?");
    let g_select = global("statement/sql/t_sums_select");
    let g_other = global("statement/sql/t_sums_other");

    // The digest is bound to `select` by its first statement.
    s.statement_start(select, Some(digest))
        .end_with(&StatementOutcome::ok(3, 0));
    s.statement_start(select, Some(digest))
        .end_with(&StatementOutcome::error(1146, "42S02", "gone").warnings(1));
    // Another class with the same digest: its sums are its own class's.
    s.statement_start(other, Some(digest))
        .end_with(&StatementOutcome::ok(0, 4));
    s.statement_start(other, Some(digest))
        .end_with(&StatementOutcome::ok(2, 0));
    // No digest: the consumer off.
    pfs::set_consumer("statements_digest", false).unwrap();
    s.statement_start(select, Some(digest))
        .end_with(&StatementOutcome::ok(5, 0));
    pfs::set_consumer("statements_digest", true).unwrap();

    let id = s.thread_id();
    let sel = (3, 1, 1, 8, 0);
    let oth = (2, 0, 0, 2, 4);
    assert_eq!(key(&thread(id, "statement/sql/t_sums_select")), sel);
    assert_eq!(key(&thread(id, "statement/sql/t_sums_other")), oth);
    assert_eq!(
        key(&account("t_sums_user", "statement/sql/t_sums_select")),
        sel
    );
    assert_eq!(
        key(&account("t_sums_user", "statement/sql/t_sums_other")),
        oth
    );
    let plus = |a: (u64, u64, u64, u64, u64), b: (u64, u64, u64, u64, u64)| {
        (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3, a.4 + b.4)
    };
    assert_eq!(
        key(&global("statement/sql/t_sums_select")),
        plus(key(&g_select), sel)
    );
    assert_eq!(
        key(&global("statement/sql/t_sums_other")),
        plus(key(&g_other), oth)
    );

    // Its end carries them into its account and keeps them in the global summary.
    drop(s);
    assert_eq!(
        key(&account("t_sums_user", "statement/sql/t_sums_select")),
        sel
    );
    assert_eq!(
        key(&account("t_sums_user", "statement/sql/t_sums_other")),
        oth
    );
    assert_eq!(
        key(&global("statement/sql/t_sums_other")),
        plus(key(&g_other), oth)
    );

    // A truncate of the global summaries clears them.
    pfs::truncate_events_waits_summary_global_by_event_name();
    assert_eq!(key(&global("statement/sql/t_sums_select")), (0, 0, 0, 0, 0));
    assert_eq!(
        key(&account("t_sums_user", "statement/sql/t_sums_other")),
        (0, 0, 0, 0, 0)
    );
}

#[test]
fn transactions_count_by_account_and_are_carried() {
    let _s = serial_with(Preset::Default);
    let s = SessionThread::new("thread/sql/one_connection", 79);
    s.set_account("t_sums_trx", "h2");
    for read_only in [false, false, true] {
        let mode = pfs::TransactionMode {
            read_only,
            ..Default::default()
        };
        assert!(s.transaction_start(mode));
        s.transaction_end(pfs::TransactionState::Committed);
    }
    let row = || {
        let by_user = pfs::transaction_summary_by_user_by_event_name();
        assert_eq!(
            by_user.name,
            "events_transactions_summary_by_user_by_event_name"
        );
        (by_user.rows.into_iter())
            .find(|r| r.user.as_deref() == Some("t_sums_trx"))
            .map(|r| r.stats)
            .unwrap()
    };
    let r = row();
    assert_eq!(
        (r.all.count_star, r.count_read_write, r.count_read_only),
        (3, 2, 1)
    );
    drop(s);
    assert_eq!(row(), r, "its end carries them into its account");
    let host = (pfs::transaction_summary_by_host_by_event_name()
        .rows
        .into_iter())
    .find(|r| r.host.as_deref() == Some("h2"))
    .unwrap();
    assert_eq!(host.stats.all.count_star, 3);
    pfs::truncate_summary_by_account_by_event_name(pfs::EventFamily::Transaction);
    let acct = (pfs::transaction_summary_by_account_by_event_name()
        .rows
        .into_iter())
    .any(|r| r.user.as_deref() == Some("t_sums_trx"));
    assert!(!acct, "an account without connections loses its rows");
    assert_eq!(row().all.count_star, 3, "moved into its user");
}

/// `COUNT_STAR` of `name` in the stages' table by `by` (0: thread, 1: account, 2: user) of
/// `key` (a thread id, or the user name), if it has the row.
fn stages(by: usize, key: &str, name: &str) -> Option<u64> {
    use pfs::EventFamily::Stage;
    let count = |k: Option<String>, n: String, c: u64| {
        (k.as_deref() == Some(key) && n == name).then_some(c)
    };
    match by {
        0 => (pfs::summary_by_thread_by_event_name(Stage).rows.into_iter()).find_map(|r| {
            count(
                Some(r.thread_id.to_string()),
                r.event_name,
                r.stats.count_star,
            )
        }),
        1 => (pfs::summary_by_account_by_event_name(Stage)
            .rows
            .into_iter())
        .find_map(|r| count(r.user, r.event_name, r.stats.count_star)),
        _ => (pfs::summary_by_user_by_event_name(Stage).rows.into_iter())
            .find_map(|r| count(r.user, r.event_name, r.stats.count_star)),
    }
}

#[test]
fn stages_count_by_thread_with_zeros_and_are_carried() {
    let _s = serial_with(Preset::Default);
    let done = pfs::register_class(ClassKind::Stage, "stage/t_sums/done");
    pfs::register_class(ClassKind::Stage, "stage/t_sums/never");
    pfs::set_instruments("stage/t_sums/%", true, true).unwrap();
    let s = SessionThread::new("thread/sql/one_connection", 80);
    s.set_account("t_sums_stage", "h3");
    {
        let _in = s.enter();
        for _ in 0..2 {
            drop(pfs::stage_start(done));
        }
    }
    let t = s.thread_id().to_string();
    assert_eq!(stages(0, &t, "stage/t_sums/done"), Some(2));
    assert_eq!(stages(0, &t, "stage/t_sums/never"), Some(0), "zeros too");
    let by_thread = pfs::summary_by_thread_by_event_name(pfs::EventFamily::Stage);
    assert!(by_thread
        .rows
        .iter()
        .all(|r| r.event_name.starts_with("stage/")));
    assert_eq!(stages(1, "t_sums_stage", "stage/t_sums/never"), Some(0));

    // A truncate by thread moves the thread's stages into its account (`aggregate_thread_stages`).
    pfs::truncate_events_waits_summary_by_thread_by_event_name();
    assert_eq!(stages(0, &t, "stage/t_sums/done"), Some(0));
    assert_eq!(stages(1, "t_sums_stage", "stage/t_sums/done"), Some(2));
    drop(s);
    assert_eq!(
        stages(0, &t, "stage/t_sums/done"),
        None,
        "its rows go with it"
    );
    assert_eq!(stages(2, "t_sums_stage", "stage/t_sums/done"), Some(2));
    pfs::truncate_summary_by_account_by_event_name(pfs::EventFamily::Stage);
    assert_eq!(stages(1, "t_sums_stage", "stage/t_sums/done"), None);
    assert_eq!(stages(2, "t_sums_stage", "stage/t_sums/done"), Some(2));
    pfs::truncate_summary_by_user_by_event_name(pfs::EventFamily::Stage);
    assert_eq!(stages(2, "t_sums_stage", "stage/t_sums/done"), None);
}
