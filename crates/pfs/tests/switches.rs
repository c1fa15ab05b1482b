//! Per-thread switches (threads.INSTRUMENTED / HISTORY, setup_threads, setup_actors), the
//! stages and statements history_long tables, and setup_timers.
#![cfg(all(feature = "instrumentation", feature = "timers"))]

use std::thread;

use common::{global_statements, global_waits, objects, of_thread, serial_with, waits_events_on};
use pfs::{ClassKind, Clock, EventFamily, Preset};

mod common;

#[test]
fn a_left_out_thread_records_nothing() {
    let _s = serial_with(Preset::Default);
    let name = "wait/io/table/t_switches/left_out";
    let c = pfs::register_class(ClassKind::TableIo, name);
    let n = thread::spawn(move || {
        assert!(c.enabled());
        assert!(pfs::set_thread_instrumented(false));
        assert!(!c.enabled(), "enabled() is per thread");
        for _ in 0..5 {
            assert!(!pfs::wait_start(c, 1).is_active());
        }
        let me = pfs::current_thread_id();
        let row = pfs::threads().rows.into_iter().find(|r| r.thread_id == me);
        assert!(!row.unwrap().instrumented);
        assert!(pfs::set_thread_instrumented(true));
        drop(pfs::wait_start(c, 1));
        me
    })
    .join()
    .unwrap();
    assert!(n > 0);
    assert_eq!(global_waits(name).count_star, 1);
    // Another thread, by id.
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let (idtx, idrx) = std::sync::mpsc::channel::<u64>();
    let h = thread::spawn(move || {
        drop(pfs::wait_start(c, 1));
        idtx.send(pfs::current_thread_id()).unwrap();
        rx.recv().unwrap();
        drop(pfs::wait_start(c, 1)); // after UPDATE threads SET INSTRUMENTED='NO'
    });
    let id = idrx.recv().unwrap();
    assert!(pfs::update_thread(id, false, false));
    assert!(!pfs::update_thread(u64::MAX, false, false));
    tx.send(()).unwrap();
    h.join().unwrap();
    assert_eq!(global_waits(name).count_star, 2);
}

#[test]
fn history_switch_keeps_current_but_not_history() {
    let _s = serial_with(Preset::Default);
    waits_events_on();
    let c = pfs::register_class(ClassKind::TableIo, "wait/io/table/t_switches/history");
    let me = thread::spawn(move || {
        pfs::set_thread_history(false);
        drop(pfs::wait_start(c, 7));
        let me = pfs::current_thread_id();
        assert!(pfs::events_waits_current()
            .rows
            .iter()
            .any(|r| r.event.thread_id == me));
        assert!(pfs::events_waits_history()
            .rows
            .iter()
            .all(|r| r.event.thread_id != me));
        pfs::set_thread_history(true);
        drop(pfs::wait_start(c, 8));
        assert_eq!(objects(pfs::events_waits_history(), Some(me)), vec![8]);
        me
    })
    .join()
    .unwrap();
    assert_eq!(objects(pfs::events_waits_history_long(), Some(me)), vec![8]);
}

#[test]
fn setup_threads_and_setup_actors() {
    let _s = serial_with(Preset::Default);
    let name = "wait/io/table/t_switches/rules";
    let c = pfs::register_class(ClassKind::TableIo, name);
    pfs::set_setup_threads("t_switches-bg-%", false, false).unwrap();
    assert!(pfs::setup_threads()
        .rows
        .iter()
        .any(|r| r.name == "t_switches-bg-%" && !r.enabled));
    for thread_name in ["t_switches-bg-1", "t_switches-fg"] {
        thread::Builder::new()
            .name(thread_name.into())
            .spawn(move || drop(pfs::wait_start(c, 1)))
            .unwrap()
            .join()
            .unwrap();
    }
    assert_eq!(
        global_waits(name).count_star,
        1,
        "the background thread was left out"
    );
    pfs::set_setup_threads("t_switches-bg-%", true, true).unwrap();

    // setup_actors: the most specific row wins; no matching row leaves the session out.
    pfs::set_setup_actor("%", "batch", false, false).unwrap();
    pfs::set_setup_actor("localhost", "batch", true, false).unwrap();
    let run = move |user: &'static str, host: &'static str| {
        thread::spawn(move || {
            pfs::set_thread_account(user, host);
            let me = pfs::current_thread_id();
            let r = pfs::threads()
                .rows
                .into_iter()
                .find(|r| r.thread_id == me)
                .unwrap();
            (r.instrumented, r.history, r.user, r.host)
        })
        .join()
        .unwrap()
    };
    assert!(!run("batch", "db1").0);
    let (i, h, u, ho) = run("batch", "localhost");
    assert!(i && !h);
    assert_eq!(
        (u.as_deref(), ho.as_deref()),
        (Some("batch"), Some("localhost"))
    );
    assert!(run("app", "db1").0, "the default row");
    assert!(pfs::remove_setup_actor("%", "%"));
    assert!(!run("app", "db1").0, "no row matches");
    assert_eq!(pfs::setup_actors().len(), 2);
    pfs::set_setup_actor("%", "%", true, true).unwrap();
    assert!(pfs::remove_setup_actor("%", "batch") && pfs::remove_setup_actor("localhost", "batch"));
}

#[test]
fn stages_and_statements_history_long() {
    let _s = serial_with(Preset::Default);
    for c in [
        "events_stages_current",
        "events_stages_history_long",
        "events_statements_history_long",
    ] {
        pfs::set_consumer(c, true).unwrap();
    }
    let stmt = pfs::register_class(ClassKind::Statement, "statement/t_switches/select");
    let stage = pfs::register_class(ClassKind::Stage, "stage/t_switches/executing");
    pfs::set_instruments("stage/t_switches/%", true, true).unwrap();
    let d = pfs::register_digest("SELECT 1 FROM t_switches");
    let me = pfs::current_thread_id();
    for _ in 0..3 {
        let _s = pfs::statement_start(stmt, Some(d));
        drop(pfs::stage_start(stage));
    }
    let stmts: Vec<_> = pfs::events_statements_history_long()
        .rows
        .into_iter()
        .filter(|r| r.event.thread_id == me && r.event.event_name == "statement/t_switches/select")
        .collect();
    assert_eq!(stmts.len(), 3);
    assert!(stmts.iter().all(
        |r| r.digest_text.as_deref() == Some("SELECT 1 FROM t_switches")
            && r.event.timer_wait.is_some()
    ));
    let stages = of_thread!(pfs::events_stages_history_long(), me);
    assert_eq!(stages.len(), 3);
    assert!(stages
        .iter()
        .zip(&stmts)
        .all(|(s, t)| s.nesting_event_id == Some(t.event.event_id)));
    // The statements count for their class once, through the digest cell.
    assert_eq!(
        global_statements("statement/t_switches/select").count_star,
        3
    );
    assert!(pfs::status().statements_history_long_written >= 3);
}

#[test]
fn setup_timers_choose_the_clock() {
    let _s = serial_with(Preset::Default);
    let t = pfs::setup_timers();
    assert_eq!(t.len(), 5);
    assert!(t.rows.iter().any(|r| r.name == "statement"));
    let stmt = pfs::register_class(ClassKind::Statement, "statement/t_switches/timer");
    for clock in [Clock::Nanosecond, Clock::Cycle] {
        pfs::set_timer(EventFamily::Statement, clock);
        let row = pfs::setup_timers()
            .rows
            .into_iter()
            .find(|r| r.name == "statement")
            .unwrap();
        assert_eq!(row.timer_name, clock.name());
        pfs::truncate_all();
        {
            let _s = pfs::statement_start(stmt, None);
            thread::sleep(std::time::Duration::from_millis(2));
        }
        let r = global_statements("statement/t_switches/timer");
        // 2 ms whichever clock timed it.
        assert!(r.sum_timer_wait >= 1_500_000_000, "{clock:?}: {r:?}");
        assert!(r.sum_timer_wait < 2_000_000_000_000, "{clock:?}: {r:?}");
    }
    let timers = pfs::performance_timers();
    let ns = &timers.rows[1];
    assert!(ns.read_cost_ps.is_some_and(|c| c > 0));
    assert!(timers.rows.iter().any(|r| r.used_by.contains("statement")));
}
