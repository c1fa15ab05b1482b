//! Events (current, history, history_long), statements, stages, digests, histograms,
//! truncate and the locker-lost counter.
#![cfg(feature = "instrumentation")]

use common::{global_statements, global_waits, of_thread, serial, serial_with, waits_events_on};
use pfs::{ClassKind, Preset};

mod common;

fn events_on() {
    pfs::apply_preset(Preset::Default);
    waits_events_on();
    for c in ["events_stages_current", "events_stages_history"] {
        pfs::set_consumer(c, true).unwrap();
    }
}

#[cfg(feature = "timers")]
#[test]
fn history_rings_keep_the_last_n() {
    let _s = serial();
    events_on();
    let name = "wait/io/table/t_events/ring";
    let class = pfs::register_class(ClassKind::TableIo, name);
    assert!(class.enabled() && class.timed()); // wait/io/table/% is on by default
    let me = pfs::current_thread_id();
    for i in 0..15usize {
        let _w = pfs::wait_start_op(class, pfs::Operation::Insert, 1000 + i);
    }
    let hist = of_thread!(pfs::events_waits_history(), me);
    assert_eq!(hist.len(), 10);
    let objects: Vec<u64> = hist.iter().map(|r| r.object_instance_begin).collect();
    assert_eq!(objects, (1005..1015).collect::<Vec<u64>>());
    assert!(hist
        .windows(2)
        .all(|w| w[0].event.event_id < w[1].event.event_id));
    assert!(hist.iter().all(|r| r.event.event_name == name
        && r.operation == "insert"
        && r.event.end_event_id == Some(r.event.event_id)
        && r.event.timer_wait.is_some()
        && r.event.timer_end >= r.event.timer_start));

    let long: Vec<_> = pfs::events_waits_history_long()
        .rows
        .into_iter()
        .filter(|r| r.event.thread_id == me && r.event.event_name == name)
        .collect();
    assert_eq!(long.len(), 15);

    pfs::truncate_events_history();
    assert!(pfs::events_waits_history()
        .rows
        .iter()
        .all(|r| r.event.thread_id != me));
    assert!(pfs::events_waits_history_long().is_empty());
}

#[cfg(all(feature = "timers", feature = "metadata"))]
#[test]
fn current_events_and_nesting() {
    let _s = serial();
    events_on();
    let stmt = pfs::register_class(ClassKind::Statement, "statement/t_events/select");
    let stage = pfs::register_class(ClassKind::Stage, "stage/t_events/executing");
    let mdl = pfs::register_class(ClassKind::Metadata, "wait/lock/metadata/sql/mdl");
    pfs::set_instruments("stage/t_events/%", true, true).unwrap();
    let me = pfs::current_thread_id();
    let s = pfs::statement_start(stmt, None);
    assert!(s.is_active());
    let st = pfs::stage_start(stage);
    let w = pfs::wait_start(mdl, 0xABC);
    let cur = of_thread!(pfs::events_waits_current(), me);
    assert_eq!(cur.len(), 1);
    assert_eq!(cur[0].event.end_event_id, None);
    // In progress: timed to now, as MySQL 8.0 shows it.
    let e = &cur[0].event;
    assert!(
        e.timer_end >= e.timer_start && e.timer_wait.is_some(),
        "{e:?}"
    );
    assert_eq!(cur[0].operation, "metadata lock");
    assert_eq!(cur[0].object_instance_begin, 0xABC);
    let stmts = of_thread!(pfs::events_statements_current(), me);
    let stages = of_thread!(pfs::events_stages_current(), me);
    assert_eq!(stages[0].nesting_event_id, Some(stmts[0].event.event_id));
    assert_eq!(cur[0].nesting_event_id, Some(stages[0].event.event_id));
    assert_eq!(pfs::current_event_id(), Some(cur[0].event.event_id));
    w.end();
    assert_eq!(pfs::current_event_id(), Some(stages[0].event.event_id));
    drop(st);
    assert_eq!(pfs::current_event_id(), Some(stmts[0].event.event_id));
    drop(s);
    assert_eq!(pfs::current_event_id(), None);
    let cur = of_thread!(pfs::events_waits_current(), me);
    assert!(cur[0].event.end_event_id.is_some() && cur[0].event.timer_wait.is_some());
    let hist = of_thread!(pfs::events_statements_history(), me);
    assert_eq!(
        hist.last().unwrap().event.event_name,
        "statement/t_events/select"
    );
    assert!(hist.last().unwrap().event.end_event_id.unwrap() > hist.last().unwrap().event.event_id);
    let stage_hist = pfs::events_stages_history();
    assert!(stage_hist.rows.iter().any(|r| r.event.thread_id == me));
}

#[cfg(feature = "timers")]
#[test]
fn statement_digests_and_summaries() {
    let _s = serial_with(Preset::Statements);
    let stmt = pfs::register_class(ClassKind::Statement, "statement/t_events/digest");
    let d = pfs::register_digest("SELECT c FROM sbtest1 WHERE id = ?");
    assert_eq!(
        d,
        pfs::register_digest("SELECT c FROM sbtest1 WHERE id = ?")
    );
    pfs::truncate_events_waits_summary_global_by_event_name();
    for _ in 0..5 {
        let _g = pfs::statement_start(stmt, Some(d));
    }
    let v = pfs::instrument_statement!(stmt, d, 40 + 2);
    assert_eq!(v, 42);
    let rows = pfs::events_statements_summary_by_digest().rows;
    let r = rows
        .iter()
        .find(|r| r.digest_text == "SELECT c FROM sbtest1 WHERE id = ?")
        .unwrap();
    assert_eq!(r.stats.count_star, 6);
    assert_eq!(r.digest.len(), 16);
    let row = global_statements("statement/t_events/digest");
    assert_eq!(row.count_star, 6);
    assert!(row.sum_timer_wait > 0);
    // Statements do not appear in the waits summary.
    assert!(pfs::events_waits_summary_global_by_event_name()
        .rows
        .iter()
        .all(|r| !r.event_name.starts_with("statement/")));
}

#[test]
fn counts_exact_and_truncate_resets() {
    let _s = serial_with(Preset::Counters);
    let name = "wait/lock/table/t_events/handler";
    let class = pfs::register_class(ClassKind::TableLock, name);
    assert!(class.enabled() && !class.timed());
    for _ in 0..7 {
        let _w = pfs::wait_start(class, 1);
    }
    let v = pfs::instrument_wait!(class, 1usize, 5);
    assert_eq!(v, 5);
    assert_eq!(global_waits(name).count_star, 8);
    assert_eq!(global_waits(name).sum_timer_wait, 0);
    pfs::truncate_events_waits_summary_by_thread_by_event_name();
    assert_eq!(
        global_waits(name).count_star,
        8,
        "by-thread truncate keeps the global summary"
    );
    assert!(pfs::events_waits_summary_by_thread_by_event_name()
        .rows
        .iter()
        .all(|r| r.event_name != name));
    pfs::truncate_events_waits_summary_global_by_event_name();
    assert_eq!(global_waits(name).count_star, 0);

    pfs::apply_preset(Preset::None);
    let _w = pfs::wait_start(class, 1);
    assert!(!_w.is_active());
    drop(_w);
    assert_eq!(global_waits(name).count_star, 0);
}

/// A thread that exits with a wait in progress (its guard leaked) hands its slot back; the
/// next thread to get the slot starts with an empty wait stack, so its own ended wait is its
/// current row (it was shown as none when the slot kept the old thread's level).
#[cfg(feature = "timers")]
#[test]
fn a_reused_thread_slot_starts_with_no_wait_in_progress() {
    let _s = serial();
    events_on();
    let class = pfs::register_class(ClassKind::TableIo, "wait/io/table/t_events/handover");
    std::thread::spawn(move || std::mem::forget(pfs::wait_start(class, 1)))
        .join()
        .unwrap();
    std::thread::spawn(move || {
        let me = pfs::current_thread_id();
        pfs::wait_start(class, 2).end();
        let cur = of_thread!(pfs::events_waits_current(), me);
        assert_eq!(cur.len(), 1, "{cur:?}");
        assert_eq!(cur[0].object_instance_begin, 2);
        assert!(cur[0].event.end_event_id.is_some() && cur[0].nesting_event_id.is_none());
    })
    .join()
    .unwrap();
}

#[test]
fn wait_stack_overflow_counts_locker_lost() {
    let _s = serial();
    events_on();
    let class = pfs::register_class(ClassKind::TableIo, "wait/io/table/t_events/deep");
    let before = pfs::status().locker_lost;
    {
        let _g: Vec<_> = (0..7).map(|i| pfs::wait_start(class, i)).collect();
    }
    assert_eq!(pfs::status().locker_lost - before, 2);
    // The guards dropped first to last, not innermost first: none is left in progress.
    let me = pfs::current_thread_id();
    let cur = of_thread!(pfs::events_waits_current(), me);
    assert_eq!(cur.len(), 1, "{cur:?}");
    assert!(cur[0].event.end_event_id.is_some());
    assert_eq!(
        global_waits("wait/io/table/t_events/deep").count_star,
        7,
        "stats are still recorded"
    );
}

#[cfg(feature = "timers")]
#[test]
fn histograms_and_top_waits() {
    let _s = serial_with(Preset::Default);
    pfs::set_histograms(true);
    let a = pfs::register_class(ClassKind::TableIo, "wait/io/table/t_events/slow");
    let b = pfs::register_class(ClassKind::TableIo, "wait/io/table/t_events/fast");
    for _ in 0..3 {
        let _w = pfs::wait_start(a, 0);
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    for _ in 0..5 {
        let _w = pfs::wait_start(b, 0);
    }
    let h = pfs::wait_histograms();
    let ha = h
        .rows
        .iter()
        .find(|r| r.event_name == "wait/io/table/t_events/slow")
        .unwrap();
    assert_eq!(ha.count, 3);
    assert!(ha.p50 >= 1_000_000_000, "{ha:?}");
    assert!(h.to_string().contains("wait/io/table/t_events/fast"));
    let top = pfs::top_waits(2);
    assert_eq!(top.rows.len(), 2);
    assert!(top.rows[0].total_latency >= top.rows[1].total_latency);
    let pos = |n: &str| {
        pfs::top_waits(1000)
            .rows
            .iter()
            .position(|r| r.events == n)
            .unwrap()
    };
    assert!(pos("wait/io/table/t_events/slow") < pos("wait/io/table/t_events/fast"));
    assert!(pfs::top_waits(100).to_string().contains(" ms"));
    pfs::apply_preset(Preset::Default);
    let _w = pfs::wait_start(a, 0);
}
