//! A statement's own columns: `SQL_TEXT`, `CURRENT_SCHEMA`, `DIGEST`, `LOCK_TIME` from its
//! nested metadata-lock wait, the end columns of `StatementOutcome`, in `_current`, `_history`
//! and `_history_long`, and their sums in `events_statements_summary_by_digest` keyed by
//! (`SCHEMA_NAME`, `DIGEST`).
#![cfg(all(feature = "instrumentation", feature = "timers", feature = "metadata"))]

use std::time::Duration;

use common::serial_with;
use pfs::tables::StatementEventRow;
use pfs::{ClassKind, Preset, SessionThread, StatementOutcome, WaitOn};

mod common;

fn statements_of(t: pfs::tables::EventsStatements, thread: u64) -> Vec<StatementEventRow> {
    (t.rows.into_iter())
        .filter(|r| r.event.thread_id == thread)
        .collect()
}

#[test]
fn a_statement_has_its_text_schema_lock_time_and_end() {
    let _s = serial_with(Preset::Default);
    pfs::set_consumer("events_statements_history_long", true).unwrap();
    pfs::set_consumer("events_waits_current", false).unwrap(); // LOCK_TIME needs no wait events
    let select = pfs::register_class(ClassKind::Statement, "statement/sql/t_stmt_select");
    pfs::set_instruments("statement/sql/t_stmt_%", true, true).unwrap();
    let mdl = pfs::register_class(ClassKind::Metadata, "wait/lock/metadata/sql/t_stmt_mdl");
    pfs::set_instruments("wait/lock/metadata/sql/t_stmt_mdl", true, true).unwrap();
    let s = SessionThread::new("thread/sql/one_connection", 77);
    let text = "SELECT c FROM t_stmt WHERE id = ?";
    let digest = pfs::register_digest_in(Some("db1"), text);
    // A prepared statement's execution: no text of its own, its digest's shown.
    let first = s.statement_start(select, Some(digest));
    let current = statements_of(pfs::events_statements_current(), s.thread_id());
    assert_eq!(current.len(), 1);
    assert_eq!(current[0].sql_text.as_deref(), Some(text));
    assert_eq!(current[0].current_schema.as_deref(), Some("db1"));
    assert_eq!(
        (
            current[0].rows_sent,
            current[0].lock_time,
            current[0].errors
        ),
        (0, 0, 0),
        "an open statement shows no end"
    );
    first.end_with(&StatementOutcome::ok(1, 0));
    // FIRST_SEEN and LAST_SEEN are the statements' starts, shown to the microsecond.
    std::thread::sleep(Duration::from_millis(2));
    // One that waits 5 ms for a metadata lock, then fails; its text cut to 1024 bytes.
    let long = format!("SELECT '{}'", "é".repeat(600));
    let second = s.statement_start(select, Some(digest));
    second.set_sql_text(&long);
    let wait = pfs::wait_start_on(mdl, 1, WaitOn::Session(&s));
    std::thread::sleep(Duration::from_millis(5));
    drop(wait);
    std::thread::sleep(Duration::from_millis(20));
    second.end_with(&StatementOutcome::error(
        1146,
        "42S02",
        "Table 'db1.t' doesn't exist",
    ));
    // The same text in another schema, ended without an outcome.
    let other = pfs::register_digest_in(Some("db2"), text);
    assert_ne!(other, digest);
    s.statement_start(select, Some(other)).end();

    let history = statements_of(pfs::events_statements_history(), s.thread_id());
    assert_eq!(history.len(), 3, "{history:?}");
    let (a, b, c) = (&history[0], &history[1], &history[2]);
    assert_eq!(
        (a.rows_sent, a.errors, a.mysql_errno, a.lock_time),
        (1, 0, 0, 0)
    );
    assert_eq!(a.digest.as_ref().map(String::len), Some(16));
    assert_eq!(a.digest, c.digest, "one DIGEST in two schemas");
    let t = b.sql_text.as_deref().unwrap();
    assert!(t.len() <= pfs::MAX_SQL_TEXT && t.len() > 1000 && long.starts_with(t));
    assert_eq!((b.errors, b.mysql_errno), (1, 1146));
    assert_eq!(b.returned_sqlstate.as_deref(), Some("42S02"));
    assert_eq!(
        b.message_text.as_deref(),
        Some("Table 'db1.t' doesn't exist")
    );
    // LOCK_TIME is the wait's end: at least its 5 ms, short of the statement's 25.
    let wait_ps = b.event.timer_wait.unwrap();
    assert!(b.lock_time >= 5_000_000_000, "{}", b.lock_time);
    assert!(
        b.lock_time < wait_ps - 10_000_000_000,
        "{} of {wait_ps}",
        b.lock_time
    );
    assert_eq!(c.current_schema.as_deref(), Some("db2"));
    assert_eq!(
        (c.rows_sent, c.errors, c.returned_sqlstate.as_deref()),
        (0, 0, None)
    );
    // history_long has the same columns.
    let long_rows = statements_of(pfs::events_statements_history_long(), s.thread_id());
    assert_eq!(long_rows.len(), 3);
    assert_eq!(long_rows[1], history[1]);

    let digests: Vec<_> = (pfs::events_statements_summary_by_digest().rows.into_iter())
        .filter(|r| r.digest_text == text)
        .collect();
    assert_eq!(digests.len(), 2, "{digests:?}");
    let db1 = digests
        .iter()
        .find(|r| r.schema_name.as_deref() == Some("db1"))
        .unwrap();
    assert_eq!(db1.stats.count_star, 2);
    assert_eq!(
        (db1.sum_rows_sent, db1.sum_errors, db1.sum_warnings),
        (1, 1, 0)
    );
    assert_eq!(db1.sum_lock_time, b.lock_time);
    assert!(
        db1.first_seen < db1.last_seen,
        "{} {}",
        db1.first_seen,
        db1.last_seen
    );
    assert_eq!(db1.first_seen.len(), "2026-11-27 09:30:00.123456".len());
    let db2 = digests
        .iter()
        .find(|r| r.schema_name.as_deref() == Some("db2"))
        .unwrap();
    assert_eq!((db2.stats.count_star, db2.sum_rows_sent), (1, 0));
    assert_eq!(db2.first_seen, db2.last_seen);

    // A truncate forgets the sums with the counts.
    pfs::truncate_events_waits_summary_global_by_event_name();
    assert!(
        !(pfs::events_statements_summary_by_digest().rows.iter()).any(|r| r.digest_text == text)
    );
    pfs::truncate_events_history();
    assert!(statements_of(pfs::events_statements_history_long(), s.thread_id()).is_empty());
}

#[test]
fn the_engine_columns_are_kept_and_summed() {
    let _s = serial_with(Preset::Default);
    pfs::set_consumer("events_statements_history_long", true).unwrap();
    let select = pfs::register_class(ClassKind::Statement, "statement/sql/t_eng_select");
    pfs::set_instruments("statement/sql/t_eng_%", true, true).unwrap();
    let s = SessionThread::new("thread/sql/one_connection", 78);
    let digest = pfs::register_digest_in(Some("db1"), "SELECT c FROM t_eng ORDER BY k");
    for sorts in [1, 2] {
        let st = s.statement_start(select, Some(digest));
        st.end_with(&StatementOutcome::ok(3, 0).engine(true, true, sorts));
    }
    // A common end after them: the engine columns are its own (0), not the last rare end's.
    s.statement_start(select, Some(digest))
        .end_with(&StatementOutcome::ok(3, 0));
    let cols = |r: &StatementEventRow| (r.no_index_used, r.select_scan, r.sort_scan);
    let history = statements_of(pfs::events_statements_history(), s.thread_id());
    let got: Vec<_> = history.iter().map(cols).collect();
    assert_eq!(got, vec![(1, 1, 1), (1, 1, 2), (0, 0, 0)]);
    let long = statements_of(pfs::events_statements_history_long(), s.thread_id());
    assert_eq!(long.iter().map(cols).collect::<Vec<_>>(), got);
    let d = (pfs::events_statements_summary_by_digest().rows.into_iter())
        .find(|r| r.digest_text == "SELECT c FROM t_eng ORDER BY k")
        .expect("the digest's row");
    assert_eq!(
        (
            d.stats.count_star,
            d.sum_no_index_used,
            d.sum_select_scan,
            d.sum_sort_scan
        ),
        (3, 2, 2, 3)
    );
}
