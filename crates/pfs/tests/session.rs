//! Session threads: their `threads` row, events recorded on them from whichever OS thread
//! entered them (a guard, a future's polls), pending waits and statements that end on another
//! OS thread, nesting, their statistics after they end, and waits begun on no thread.
#![cfg(all(feature = "instrumentation", feature = "timers"))]

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use common::{global_waits, serial_with, waits_events_on};
use pfs::{ClassKind, Preset, SessionThread, WaitOn};

mod common;

fn class(name: &str) -> pfs::ClassRef {
    // wait/io/table/% is enabled and timed by default.
    pfs::register_class(ClassKind::TableIo, name)
}

fn waits_of(
    table: pfs::tables::EventsWaits,
    thread: u64,
    name: &str,
) -> Vec<pfs::tables::WaitEventRow> {
    table
        .rows
        .into_iter()
        .filter(|r| r.event.thread_id == thread && r.event.event_name == name)
        .collect()
}

#[test]
fn a_session_thread_has_its_row_and_its_events() {
    let _s = serial_with(Preset::Default);
    waits_events_on();
    let c = class("wait/io/table/t_session/row");
    let s = SessionThread::new("thread/sql/one_connection", 4242);
    assert!(s.set_account("app", "10.0.0.1"));
    let row = pfs::threads()
        .rows
        .into_iter()
        .find(|r| r.thread_id == s.thread_id())
        .expect("a threads row");
    assert_eq!(row.processlist_id, Some(4242));
    assert_eq!(row.thread_type, "FOREGROUND");
    assert_eq!(row.name.as_deref(), Some("thread/sql/one_connection"));
    assert_eq!(
        (row.user.as_deref(), row.host.as_deref()),
        (Some("app"), Some("10.0.0.1"))
    );
    let me = pfs::current_thread_id();
    assert_ne!(me, s.thread_id());
    // Entered from two OS threads in turn: both waits are the session's, none the workers'.
    {
        let _in = s.enter();
        assert_eq!(pfs::current_thread_id(), s.thread_id());
        let _w = pfs::wait_start(c, 1);
    }
    assert_eq!(pfs::current_thread_id(), me);
    let s2 = s.clone();
    let other = std::thread::spawn(move || {
        let _in = s2.enter();
        let _w = pfs::wait_start(c, 2);
    });
    other.join().unwrap();
    let hist = waits_of(
        pfs::events_waits_history(),
        s.thread_id(),
        "wait/io/table/t_session/row",
    );
    let objects: Vec<u64> = hist.iter().map(|r| r.object_instance_begin).collect();
    assert_eq!(objects, [1, 2]);
    assert!(waits_of(
        pfs::events_waits_history(),
        me,
        "wait/io/table/t_session/row"
    )
    .is_empty());
    // Event ids are the session's own sequence.
    assert!(hist[0].event.event_id < hist[1].event.event_id);
    // The session ends: its row goes, its statistics stay in the global summary.
    let before = global_waits("wait/io/table/t_session/row").count_star;
    let id = s.thread_id();
    drop(s);
    assert!(pfs::threads().rows.iter().all(|r| r.thread_id != id));
    assert_eq!(
        global_waits("wait/io/table/t_session/row").count_star,
        before
    );
    assert_eq!(before, 2);
}

#[test]
fn setup_actors_apply_to_a_session_thread() {
    let _s = serial_with(Preset::Default);
    waits_events_on();
    let c = class("wait/io/table/t_session/actors");
    pfs::set_setup_actor("%", "batch", false, false).unwrap();
    let s = SessionThread::new("thread/sql/one_connection", 7);
    s.set_account("batch", "h");
    {
        let _in = s.enter();
        assert!(
            !pfs::wait_start(c, 1).is_active(),
            "left out by setup_actors"
        );
    }
    assert!(!pfs::wait_start_on(c, 1, WaitOn::Session(&s)).is_active());
    assert!(pfs::remove_setup_actor("%", "batch"));
}

#[test]
fn a_pending_wait_shows_while_pending_and_ends_on_another_os_thread() {
    let _s = serial_with(Preset::Default);
    waits_events_on();
    let name = "wait/io/table/t_session/pending";
    let c = class(name);
    let s = SessionThread::new("thread/sql/one_connection", 8);
    let wait = pfs::wait_start_on(c, 77, WaitOn::Session(&s));
    assert!(wait.is_active());
    let current = waits_of(pfs::events_waits_current(), s.thread_id(), name);
    assert_eq!(current.len(), 1, "in progress on the session");
    assert_eq!(current[0].object_instance_begin, 77);
    assert_eq!(current[0].event.end_event_id, None);
    std::thread::spawn(move || drop(wait)).join().unwrap();
    let hist = waits_of(pfs::events_waits_history(), s.thread_id(), name);
    assert_eq!(hist.len(), 1);
    assert!(hist[0].event.timer_wait.is_some() && hist[0].event.end_event_id.is_some());
    assert_eq!(
        waits_of(pfs::events_waits_history_long(), s.thread_id(), name).len(),
        1
    );
    let by_thread = pfs::events_waits_summary_by_thread_by_event_name();
    assert!(by_thread
        .rows
        .iter()
        .any(|r| r.thread_id == s.thread_id() && r.event_name == name && r.stats.count_star == 1));
}

#[test]
fn a_pending_statement_nests_its_waits_and_ends_on_another_os_thread() {
    let _s = serial_with(Preset::Default);
    waits_events_on();
    let wname = "wait/io/table/t_session/in_statement";
    let w = class(wname);
    let sname = "statement/sql/t_session_select";
    let st = pfs::register_class(ClassKind::Statement, sname);
    pfs::set_instruments(sname, true, true).unwrap();
    let digest = pfs::register_digest("SELECT * FROM t_session WHERE id = ?");
    let s = SessionThread::new("thread/sql/one_connection", 9);
    let statement = s.statement_start(st, Some(digest));
    assert!(statement.is_active());
    let of_session = |t: pfs::tables::EventsStatements| -> Vec<pfs::tables::StatementEventRow> {
        t.rows
            .into_iter()
            .filter(|r| r.event.thread_id == s.thread_id() && r.event.event_name == sname)
            .collect()
    };
    let current = of_session(pfs::events_statements_current());
    assert_eq!(current.len(), 1, "in progress on the session");
    assert_eq!(current[0].event.end_event_id, None);
    assert_eq!(
        current[0].digest_text.as_deref(),
        Some("SELECT * FROM t_session WHERE id = ?")
    );
    // A wait begun meanwhile on another OS thread, entered in the session, nests in it.
    let s2 = s.clone();
    let waiting = std::thread::spawn(move || {
        let _in = s2.enter();
        let _wait = pfs::wait_start(w, 5);
        waits_of(pfs::events_waits_current(), s2.thread_id(), wname)
    })
    .join()
    .unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].nesting_event_id, Some(current[0].event.event_id));
    // Ended on a third OS thread: in the history, timed, with its digest counted.
    std::thread::spawn(move || drop(statement)).join().unwrap();
    assert!(of_session(pfs::events_statements_current())
        .iter()
        .all(|r| r.event.end_event_id.is_some()));
    let hist = of_session(pfs::events_statements_history());
    assert_eq!(hist.len(), 1);
    assert!(hist[0].event.timer_wait.is_some());
    let by_digest = pfs::events_statements_summary_by_digest();
    assert!(by_digest.rows.iter().any(|r| {
        r.digest_text == "SELECT * FROM t_session WHERE id = ?" && r.stats.count_star == 1
    }));
}

#[test]
fn a_wait_begun_on_no_thread_is_recorded_where_it_ends() {
    let _s = serial_with(Preset::Default);
    waits_events_on();
    let name = "wait/io/table/t_session/ending";
    let c = class(name);
    // Outside a session: only the start is taken; the thread that ends it records it.
    let wait = pfs::wait_start_on(c, 5, WaitOn::Ending);
    assert!(waits_of(pfs::events_waits_current(), pfs::current_thread_id(), name).is_empty());
    let ender = std::thread::spawn(move || {
        drop(wait);
        pfs::current_thread_id()
    })
    .join()
    .unwrap();
    // (The ending thread has exited: its history is gone, history_long keeps the event.)
    let hist = waits_of(pfs::events_waits_history_long(), ender, name);
    assert_eq!(hist.len(), 1);
    assert!(hist[0].event.timer_wait.is_some());
    // Inside a session: recorded on the session, shown while pending.
    let s = SessionThread::new("thread/sql/one_connection", 9);
    let wait = {
        let _in = s.enter();
        pfs::wait_start_on(c, 6, WaitOn::Ending)
    };
    assert_eq!(
        waits_of(pfs::events_waits_current(), s.thread_id(), name).len(),
        1
    );
    drop(wait);
    assert_eq!(
        waits_of(pfs::events_waits_history(), s.thread_id(), name).len(),
        1
    );
}

#[test]
fn entries_nest_and_restore() {
    let _s = serial_with(Preset::Default);
    let a = SessionThread::new("thread/sql/one_connection", 10);
    let b = SessionThread::new("thread/sql/one_connection", 11);
    let me = pfs::current_thread_id();
    {
        let _a = a.enter();
        {
            let _b = b.enter();
            assert_eq!(pfs::current_thread_id(), b.thread_id());
        }
        assert_eq!(pfs::current_thread_id(), a.thread_id());
    }
    assert_eq!(pfs::current_thread_id(), me);
}

struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// A future that records one wait per poll and is pending twice.
struct Polls {
    class: pfs::ClassRef,
    polls: u32,
}

impl Future for Polls {
    type Output = Vec<u64>;
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<u64>> {
        let _w = pfs::wait_start(self.class, self.polls as usize);
        self.polls += 1;
        if self.polls == 3 {
            return Poll::Ready(vec![pfs::current_thread_id()]);
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn an_instrumented_future_records_every_poll_on_its_session() {
    let _s = serial_with(Preset::Default);
    waits_events_on();
    let name = "wait/io/table/t_session/polls";
    let c = class(name);
    let s = SessionThread::new("thread/sql/one_connection", 12);
    let mut fut = Box::pin(s.instrument(Polls { class: c, polls: 0 }));
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    assert!(fut.as_mut().poll(&mut cx).is_pending());
    // The next polls on other OS threads, as a multi-thread runtime's workers would.
    let out = std::thread::spawn(move || {
        let waker = Waker::noop();
        let mut cx = Context::from_waker(waker);
        assert!(fut.as_mut().poll(&mut cx).is_pending());
        loop {
            if let Poll::Ready(v) = pin!(&mut fut).poll(&mut cx) {
                return v;
            }
        }
    })
    .join()
    .unwrap();
    assert_eq!(out, [s.thread_id()]);
    let hist = waits_of(pfs::events_waits_history(), s.thread_id(), name);
    assert_eq!(
        hist.iter()
            .map(|r| r.object_instance_begin)
            .collect::<Vec<_>>(),
        [0, 1, 2]
    );
}
