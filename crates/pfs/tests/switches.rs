//! Per-thread switches (threads.INSTRUMENTED / HISTORY, setup_threads, setup_actors), the
//! stages and statements history_long tables, and setup_timers.
#![cfg(all(feature = "instrumentation", feature = "timers"))]

use std::sync::MutexGuard;
use std::thread;

use pfs::{ClassKind, Clock, EventFamily, Preset};

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn count(name: &str) -> u64 {
    pfs::events_waits_summary_global_by_event_name()
        .rows
        .into_iter()
        .find(|r| r.event_name == name)
        .map_or(0, |r| r.stats.count_star)
}

#[test]
fn a_left_out_thread_records_nothing() {
    let _s = serial();
    pfs::apply_preset(Preset::Default);
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
    assert_eq!(count(name), 1);
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
    assert_eq!(count(name), 2);
}

#[test]
fn history_switch_keeps_current_but_not_history() {
    let _s = serial();
    pfs::apply_preset(Preset::Default);
    for c in [
        "events_waits_current",
        "events_waits_history",
        "events_waits_history_long",
    ] {
        pfs::set_consumer(c, true).unwrap();
    }
    let c = pfs::register_class(ClassKind::TableIo, "wait/io/table/t_switches/history");
    let me = thread::spawn(move || {
        pfs::set_thread_history(false);
        drop(pfs::wait_start(c, 7));
        let me = pfs::current_thread_id();
        assert!(pfs::events_waits_current()
            .rows
            .iter()
            .any(|r| r.thread_id == me));
        assert!(pfs::events_waits_history()
            .rows
            .iter()
            .all(|r| r.thread_id != me));
        pfs::set_thread_history(true);
        drop(pfs::wait_start(c, 8));
        let h: Vec<u64> = pfs::events_waits_history()
            .rows
            .iter()
            .filter(|r| r.thread_id == me)
            .map(|r| r.object_instance_begin)
            .collect();
        assert_eq!(h, vec![8]);
        me
    })
    .join()
    .unwrap();
    let long: Vec<u64> = pfs::events_waits_history_long()
        .rows
        .iter()
        .filter(|r| r.thread_id == me)
        .map(|r| r.object_instance_begin)
        .collect();
    assert_eq!(long, vec![8]);
    pfs::apply_preset(Preset::Default);
}

#[test]
fn setup_threads_and_setup_actors() {
    let _s = serial();
    pfs::apply_preset(Preset::Default);
    let name = "wait/io/table/t_switches/rules";
    let c = pfs::register_class(ClassKind::TableIo, name);
    pfs::set_setup_threads("t_switches-bg-%", false, false).unwrap();
    assert!(pfs::setup_threads()
        .rows
        .iter()
        .any(|r| r.name == "t_switches-bg-%" && !r.enabled));
    thread::Builder::new()
        .name("t_switches-bg-1".into())
        .spawn(move || drop(pfs::wait_start(c, 1)))
        .unwrap()
        .join()
        .unwrap();
    thread::Builder::new()
        .name("t_switches-fg".into())
        .spawn(move || drop(pfs::wait_start(c, 1)))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(count(name), 1, "the background thread was left out");
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
    let _s = serial();
    pfs::apply_preset(Preset::Default);
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
        .filter(|r| r.thread_id == me && r.event_name == "statement/t_switches/select")
        .collect();
    assert_eq!(stmts.len(), 3);
    assert!(stmts.iter().all(
        |r| r.digest_text.as_deref() == Some("SELECT 1 FROM t_switches") && r.timer_wait.is_some()
    ));
    let stages: Vec<_> = pfs::events_stages_history_long()
        .rows
        .into_iter()
        .filter(|r| r.thread_id == me)
        .collect();
    assert_eq!(stages.len(), 3);
    assert!(stages
        .iter()
        .zip(&stmts)
        .all(|(s, t)| s.nesting_event_id == Some(t.event_id)));
    // The statements count for their class once, through the digest cell.
    let g = pfs::events_statements_summary_global_by_event_name();
    let row = g
        .rows
        .iter()
        .find(|r| r.event_name == "statement/t_switches/select")
        .unwrap();
    assert_eq!(row.stats.count_star, 3);
    assert!(pfs::status().statements_history_long_written >= 3);
    pfs::apply_preset(Preset::Default);
}

#[test]
fn setup_timers_choose_the_clock() {
    let _s = serial();
    pfs::apply_preset(Preset::Default);
    let t = pfs::setup_timers();
    assert_eq!(t.len(), 4);
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
        let g = pfs::events_statements_summary_global_by_event_name();
        let r = g
            .rows
            .iter()
            .find(|r| r.event_name == "statement/t_switches/timer")
            .unwrap();
        // 2 ms whichever clock timed it.
        assert!(r.stats.sum_timer_wait >= 1_500_000_000, "{clock:?}: {r:?}");
        assert!(
            r.stats.sum_timer_wait < 2_000_000_000_000,
            "{clock:?}: {r:?}"
        );
    }
    let timers = pfs::performance_timers();
    let ns = &timers.rows[1];
    assert!(ns.read_cost_ps.is_some_and(|c| c > 0));
    assert!(timers.rows.iter().any(|r| r.used_by.contains("statement")));
}
