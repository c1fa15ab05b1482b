//! `AsyncTimer::Tokio` (feature `tokio`): async waits that begin inside a tokio runtime take
//! their deadlines and their once-a-second work from the runtime's timer, and end as they do
//! with the manager's thread: a timeout with its blockers, a grant before the deadline, a
//! dropped connection noticed by the periodic check.
#![cfg(feature = "tokio")]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mdl_core::*;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("runtime")
}

fn manager() -> Arc<MdlManager> {
    let config = MdlConfig::builder()
        .async_timer(AsyncTimer::Tokio)
        .build()
        .expect("config");
    MdlManager::new(config).expect("manager")
}

fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).expect("key")
}

/// The holder's EXCLUSIVE lock on `key`.
fn held(mgr: &Arc<MdlManager>, key: &MdlKey) -> MdlContext {
    let mut holder = mgr.new_context();
    let x = MdlRequest::new(key.clone(), LockType::X, LockDuration::Transaction);
    holder.acquire(&x, Duration::ZERO).expect("free");
    holder
}

#[test]
fn the_runtime_timer_ends_a_wait_at_its_deadline() {
    let mgr = manager();
    let key = table("t");
    let holder = held(&mgr, &key);
    let sr = MdlRequest::new(key, LockType::SR, LockDuration::Statement);
    let rt = runtime();
    let m = mgr.clone();
    let (e, waited) = rt.block_on(async move {
        tokio::spawn(async move {
            let mut ctx = m.new_context();
            let start = Instant::now();
            let e = ctx.acquire_async(&sr, Duration::from_millis(100)).await;
            (e.expect_err("timed out"), start.elapsed())
        })
        .await
        .expect("task")
    });
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(waited >= Duration::from_millis(100), "{waited:?}");
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    let MdlError::Timeout(w) = &e else {
        unreachable!()
    };
    assert_eq!(w.blockers[0].context, Some(holder.id()));
    assert!(mgr.lock_waits().rows.is_empty(), "the wait left the queue");
}

#[test]
fn a_grant_before_the_deadline_wins_and_the_next_wait_is_untouched() {
    let mgr = manager();
    let key = table("t");
    let mut holder = held(&mgr, &key);
    let sr = MdlRequest::new(key.clone(), LockType::SR, LockDuration::Transaction);
    let rt = runtime();
    let m = mgr.clone();
    let waiter = rt.spawn(async move {
        let mut ctx = m.new_context();
        let got = ctx
            .acquire_async(&sr, Duration::from_secs(30))
            .await
            .map(|_| ());
        ctx.release_transactional_locks();
        // A second wait with a short deadline on the same context times out on time: the
        // first wait's sleep is gone with its future.
        let x = MdlRequest::new(table("u"), LockType::SR, LockDuration::Statement);
        let mut other = m.new_context();
        let xx = MdlRequest::new(table("u"), LockType::X, LockDuration::Transaction);
        other.acquire(&xx, Duration::ZERO).expect("free");
        let start = Instant::now();
        let second = ctx.acquire_async(&x, Duration::from_millis(50)).await;
        (got, second.map(|_| ()), start.elapsed())
    });
    while mgr.lock_waits().rows.is_empty() {
        std::thread::sleep(Duration::from_millis(1));
    }
    holder.release_transactional_locks();
    let (got, second, waited) = rt.block_on(waiter).expect("task");
    assert!(got.is_ok(), "{got:?}");
    assert_eq!(second.map_err(|e| e.kind()), Err(ErrorKind::Timeout));
    assert!(waited >= Duration::from_millis(50), "{waited:?}");
    assert!(waited < Duration::from_secs(10), "{waited:?}");
}

#[test]
fn many_waits_all_time_out_near_their_deadlines() {
    let mgr = manager();
    let key = table("t");
    let _holder = held(&mgr, &key);
    let rt = runtime();
    let late: Vec<Duration> = rt.block_on(async {
        let tasks: Vec<_> = (0..500u64)
            .map(|i| {
                let (m, key) = (mgr.clone(), key.clone());
                tokio::spawn(async move {
                    let mut ctx = m.new_context();
                    let sr = MdlRequest::new(key, LockType::SR, LockDuration::Statement);
                    let timeout = Duration::from_millis(20 + i % 200);
                    let start = Instant::now();
                    let e = ctx.acquire_async(&sr, timeout).await.expect_err("held");
                    assert_eq!(e.kind(), ErrorKind::Timeout);
                    start.elapsed().saturating_sub(timeout)
                })
            })
            .collect();
        let mut late = Vec::new();
        for t in tasks {
            late.push(t.await.expect("task"));
        }
        late
    });
    assert_eq!(late.len(), 500);
    // Generous: the bound is the report's business; this says none waits for ever.
    assert!(late.iter().all(|l| *l < Duration::from_secs(5)), "{late:?}");
    assert!(mgr.lock_waits().rows.is_empty());
}

struct Connection(AtomicBool);

impl MdlOwner for Connection {
    fn is_connected(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// The once-a-second connection check of a user-lock wait runs on the runtime's timer too.
#[test]
fn a_dropped_connection_ends_a_user_lock_wait() {
    let mgr = manager();
    let ull = MdlKey::new(Namespace::UserLevelLock, "", "u").expect("key");
    let x = MdlRequest::new(ull, LockType::X, LockDuration::Explicit);
    let mut holder = mgr.new_context();
    holder.acquire(&x, Duration::ZERO).expect("free");
    let conn = Arc::new(Connection(AtomicBool::new(true)));
    let rt = runtime();
    let (m, c) = (mgr.clone(), conn.clone());
    let waiter = rt.spawn(async move {
        let mut ctx = m.new_context_with_owner(c);
        let start = Instant::now();
        let r = ctx.acquire_async(&x, Duration::from_secs(60)).await;
        (r.map(|_| ()).map_err(|e| e.kind()), start.elapsed())
    });
    while mgr.lock_waits().rows.is_empty() {
        std::thread::sleep(Duration::from_millis(1));
    }
    conn.0.store(false, Ordering::SeqCst);
    let (r, waited) = rt.block_on(waiter).expect("task");
    assert_eq!(r, Err(ErrorKind::Killed));
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    assert!(mgr.lock_waits().rows.is_empty());
}
