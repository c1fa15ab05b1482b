//! Waits on session threads: a context bound to a `pfs::SessionThread` records its waits,
//! blocking or async, on that session whichever worker runs them; `events_waits_current`
//! shows an async waiter while it is pending and `metadata_locks` its PENDING row with the
//! session's thread; the history and the summaries get the wait with its duration; timeouts
//! still fire; a dropped future leaves no event in progress, no edge, no queue entry. Unbound
//! contexts: a wait in a task wrapped in `SessionThread::instrument` lands on that session; a
//! wait in a plain task is recorded where it ends.
//!
//! One test function: instrument and consumer switches are process-wide.
#![cfg(feature = "pfs")]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use mdl_core::*;
use pfs::tables::WaitEventRow;

const MDL: &str = "wait/lock/metadata/sql/mdl";

fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "sessions", name).unwrap()
}

fn mdl_waits(table: pfs::tables::EventsWaits, thread: u64) -> Vec<WaitEventRow> {
    table
        .rows
        .into_iter()
        .filter(|r| r.event.thread_id == thread && r.event.event_name == MDL)
        .collect()
}

fn pending_on(thread: u64) -> usize {
    mdl_waits(pfs::events_waits_current(), thread)
        .iter()
        .filter(|r| r.event.end_event_id.is_none())
        .count()
}

fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(10), "never: {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap()
}

#[test]
fn waits_land_on_their_session_thread() {
    pfs::set_instruments(MDL, true, true).unwrap();
    for c in [
        "events_waits_current",
        "events_waits_history",
        "events_waits_history_long",
    ] {
        pfs::set_consumer(c, true).unwrap();
    }
    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let rt = runtime();
    let t = table("t");
    let x = MdlRequest::new(t.clone(), LockType::X, LockDuration::Transaction);
    let sr = MdlRequest::new(t.clone(), LockType::SR, LockDuration::Statement);
    let mut holder = mgr.new_context();
    holder.acquire(&x, Duration::ZERO).unwrap();

    // --- A bound context's async wait, on a worker, shows on its session while pending.
    let session = pfs::SessionThread::new("thread/sql/one_connection", 77);
    let sid = session.thread_id();
    let mut conn = mgr
        .build_context()
        .id(77)
        .pfs_thread(session.clone())
        .build()
        .unwrap();
    let req = sr.clone();
    let task = rt.spawn(async move {
        let got = conn.acquire_async(&req, Duration::from_secs(30)).await;
        (got.map(|_| ()), conn)
    });
    wait_until("the task queues", || !mgr.lock_waits().rows.is_empty());
    wait_until("its wait event shows", || pending_on(sid) == 1);
    let pending: Vec<_> = mgr
        .metadata_locks()
        .rows
        .into_iter()
        .filter(|r| r.lock_status == "PENDING")
        .collect();
    assert_eq!(pending.len(), 1);
    assert_eq!(
        pending[0].owner_thread_id,
        Some(sid),
        "the session's thread"
    );
    assert_eq!(pending[0].owner_context_id, Some(77));
    assert!(pfs::threads()
        .rows
        .iter()
        .any(|r| r.thread_id == sid && r.processlist_id == Some(77)));
    holder.release_transactional_locks();
    let (got, mut conn) = rt.block_on(task).unwrap();
    got.unwrap();
    assert_eq!(pending_on(sid), 0);
    let hist = mdl_waits(pfs::events_waits_history(), sid);
    assert_eq!(hist.len(), 1, "ended, with its duration");
    assert!(hist[0].event.timer_wait.is_some());
    assert_eq!(mdl_waits(pfs::events_waits_history_long(), sid).len(), 1);
    let summary = pfs::events_waits_summary_by_thread_by_event_name();
    assert!(summary
        .rows
        .iter()
        .any(|r| r.thread_id == sid && r.event_name == MDL && r.stats.count_star == 1));
    conn.release_statement_locks();

    // --- A timeout still fires, and is recorded the same way.
    holder.acquire(&x, Duration::ZERO).unwrap();
    let req = sr.clone();
    let (got, mut conn) = rt.block_on(async move {
        let got = conn.acquire_async(&req, Duration::from_millis(50)).await;
        (got.map(|_| ()), conn)
    });
    assert_eq!(got.unwrap_err().kind(), ErrorKind::Timeout);
    assert_eq!(mdl_waits(pfs::events_waits_history(), sid).len(), 2);
    assert_eq!(pending_on(sid), 0);

    // --- A dropped future leaves no event in progress, no edge and no queue entry.
    {
        let mut f = pin!(conn.acquire_async(&sr, Duration::from_secs(30)));
        let cx = &mut Context::from_waker(Waker::noop());
        assert!(matches!(f.as_mut().poll(cx), Poll::Pending));
        assert_eq!(pending_on(sid), 1);
        assert_eq!(mgr.lock_waits().rows.len(), 1);
    }
    assert_eq!(pending_on(sid), 0, "the event ended with the future");
    assert!(mgr.lock_waits().rows.is_empty(), "no edge");
    assert!(mgr
        .metadata_locks()
        .rows
        .iter()
        .all(|r| r.lock_status == "GRANTED"));
    assert_eq!(mdl_waits(pfs::events_waits_history(), sid).len(), 3);

    // --- A blocking wait of the bound context, on an OS thread, lands on the session too.
    let s = std::thread::spawn(move || {
        let got = conn.acquire(&sr, Duration::from_millis(20));
        assert_eq!(got.unwrap_err().kind(), ErrorKind::Timeout);
        pfs::current_thread_id()
    });
    let os_thread = s.join().unwrap();
    assert_eq!(mdl_waits(pfs::events_waits_history(), sid).len(), 4);
    assert!(mdl_waits(pfs::events_waits_history_long(), os_thread).is_empty());

    // --- Unbound, in a task wrapped in `instrument`: the task's session.
    let other = pfs::SessionThread::new("thread/sql/one_connection", 78);
    let oid = other.thread_id();
    let mut plain = mgr.new_context();
    let req = MdlRequest::new(t.clone(), LockType::SR, LockDuration::Statement);
    let task = rt.spawn(other.instrument(async move {
        let got = plain.acquire_async(&req, Duration::from_secs(30)).await;
        (got.map(|_| ()), plain)
    }));
    wait_until("the instrumented task's event", || pending_on(oid) == 1);
    assert!(mgr
        .metadata_locks()
        .rows
        .iter()
        .any(|r| r.lock_status == "PENDING" && r.owner_thread_id == Some(oid)));
    holder.release_transactional_locks();
    let (got, mut plain) = rt.block_on(task).unwrap();
    got.unwrap();
    plain.release_statement_locks();
    assert_eq!(mdl_waits(pfs::events_waits_history(), oid).len(), 1);

    // --- Unbound, in a plain task: recorded, whole, where it ends.
    holder.acquire(&x, Duration::ZERO).unwrap();
    let all_before = pfs::events_waits_history_long()
        .rows
        .iter()
        .filter(|r| r.event.event_name == MDL)
        .count();
    let req = MdlRequest::new(t, LockType::SR, LockDuration::Statement);
    let task = rt.spawn(async move {
        let got = plain.acquire_async(&req, Duration::from_secs(30)).await;
        (got.map(|_| ()), plain)
    });
    wait_until("the plain task queues", || {
        !mgr.lock_waits().rows.is_empty()
    });
    holder.release_transactional_locks();
    let (got, _plain) = rt.block_on(task).unwrap();
    got.unwrap();
    let long: Vec<_> = pfs::events_waits_history_long()
        .rows
        .into_iter()
        .filter(|r| r.event.event_name == MDL)
        .collect();
    assert_eq!(long.len(), all_before + 1);
    assert!(long.last().unwrap().event.timer_wait.is_some());
}

// The future above is polled by hand once: make sure `Acquire` is one.
const _: fn() = || {
    fn future<F: Future>() {}
    future::<Acquire<'static>>();
};
