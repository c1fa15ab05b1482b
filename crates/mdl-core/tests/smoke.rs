use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use mdl_core::*;

fn key(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).unwrap()
}

#[test]
fn conflict_and_release() {
    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let mut a = mgr.new_context();
    let mut b = mgr.new_context();
    let r = MdlRequest::new(key("t"), LockType::SR, LockDuration::Statement);
    let t = a.try_acquire(&r).unwrap().unwrap();
    assert!(a.ticket_info(t).unwrap().fast_path);
    let x = MdlRequest::new(key("t"), LockType::X, LockDuration::Transaction);
    assert!(b.try_acquire(&x).unwrap().is_none());
    a.release_statement_locks();
    assert!(b.try_acquire(&x).unwrap().is_some());
    assert!(a.try_acquire(&r).unwrap().is_none());
    assert_eq!(a.release(t), Err(MdlError::InvalidTicket));
}

#[test]
fn waiter_is_granted_on_release() {
    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let mut a = mgr.new_context();
    let x = MdlRequest::new(key("t"), LockType::X, LockDuration::Transaction);
    a.acquire(&x, Duration::from_secs(1)).unwrap();
    let m2 = mgr.clone();
    let h = thread::spawn(move || {
        let mut b = m2.new_context();
        let r = MdlRequest::new(key("t"), LockType::SR, LockDuration::Statement);
        b.acquire(&r, Duration::from_secs(10)).map(|_| ())
    });
    thread::sleep(Duration::from_millis(50));
    a.release_transactional_locks();
    h.join().unwrap().unwrap();
}

#[test]
fn two_context_deadlock() {
    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let barrier = Arc::new(Barrier::new(2));
    let mut hs = vec![];
    for (first, second) in [("a", "b"), ("b", "a")] {
        let mgr = mgr.clone();
        let barrier = barrier.clone();
        hs.push(thread::spawn(move || {
            let mut c = mgr.new_context();
            let r1 = MdlRequest::new(key(first), LockType::X, LockDuration::Transaction);
            c.acquire(&r1, Duration::from_secs(5)).unwrap();
            barrier.wait();
            let r2 = MdlRequest::new(key(second), LockType::X, LockDuration::Transaction);
            let res = c.acquire(&r2, Duration::from_secs(5));
            if res.is_err() {
                c.release_transactional_locks();
            }
            res.map(|_| ())
        }));
    }
    let results: Vec<_> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(
        results
            .iter()
            .filter(|r| matches!(r, Err(MdlError::Deadlock(_))))
            .count(),
        1,
        "{results:?}"
    );
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1);
}

/// A context moves between threads (a connection handed to another worker); handles are
/// shareable.
#[test]
fn thread_safety_of_public_types() {
    fn send<T: Send>() {}
    fn send_sync<T: Send + Sync>() {}
    send::<MdlContext>();
    send_sync::<MdlManager>();
    send_sync::<KillHandle>();
    send_sync::<Ticket>();
    send_sync::<MdlKey>();
    send_sync::<MdlError>();

    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let mut ctx = mgr.new_context();
    let t = ctx
        .acquire(
            &MdlRequest::new(key("moved"), LockType::SR, LockDuration::Explicit),
            Duration::from_secs(1),
        )
        .unwrap();
    let mut ctx = thread::spawn(move || {
        ctx.release(t).unwrap();
        ctx
    })
    .join()
    .unwrap();
    assert!(!ctx.has_locks());
    ctx.release_transactional_locks();
}

/// A commit releases a context's only lock unless it is EXPLICIT (the one-lock shortcut of
/// `release_transactional_locks`), in each duration and on each fast-path design.
#[test]
fn commit_releases_a_sole_lock_unless_explicit() {
    for fast_path in [FastPath::Off, FastPath::SharedWord, FastPath::PerContext] {
        let cfg = MdlConfig::builder().fast_path(fast_path).build().unwrap();
        let mgr = MdlManager::new(cfg).unwrap();
        let mut a = mgr.new_context();
        let mut b = mgr.new_context();
        let x = MdlRequest::new(key("sole"), LockType::X, LockDuration::Transaction);
        for d in [
            LockDuration::Statement,
            LockDuration::Transaction,
            LockDuration::Explicit,
        ] {
            let sr = MdlRequest::new(key("sole"), LockType::SR, d);
            let t = a.try_acquire(&sr).unwrap().unwrap();
            a.release_transactional_locks();
            let released = d != LockDuration::Explicit;
            assert_eq!(a.has_locks(), !released, "{fast_path:?} {d:?}");
            assert_eq!(b.try_acquire(&x).unwrap().is_some(), released);
            if released {
                b.release_transactional_locks();
            } else {
                a.release(t).unwrap();
            }
            assert!(!a.has_locks() && !b.has_locks());
        }
    }
}
