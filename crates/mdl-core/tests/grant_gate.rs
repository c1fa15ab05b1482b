//! The grant gate (`MdlManager::close_grants` / `open_grants`): in every fast-path mode, a
//! closed namespace refuses new grants at once (fast-path types included, on objects that
//! existed and on objects created later), grants no queued request of a non-exempt context,
//! lets gate-exempt contexts through, counts the locks still to wait out, and opens again.
//! The last test races statements against closings and checks that no grant happens once the
//! count of granted locks has been seen at zero.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use mdl_core::{ErrorKind, LockDuration, LockType, MdlManager, Namespace};
use mdl_reference::support::*;

const LONG: Duration = Duration::from_secs(3600);
const TABLES: &[Namespace] = &[Namespace::Table];

#[test]
fn closed_namespace_refuses_fast_and_slow_requests_and_counts_holders() {
    for (mode, config) in configs() {
        let mgr = MdlManager::new(config).unwrap();
        let t = table("t");
        let mut holder = mgr.new_context();
        let mut held = holder.acquire(&treq(&t, LockType::SR), LONG).unwrap();
        // Warm the other context's cache, so its next SR would take the fast path.
        let mut conn = mgr.new_context();
        let tk = conn.acquire(&treq(&t, LockType::SR), LONG).unwrap();
        conn.release(tk).unwrap();

        mgr.close_grants(TABLES);
        assert!(mgr.grants_closed(Namespace::Table), "{mode}");
        assert!(!mgr.grants_closed(Namespace::Schema), "{mode}");
        for ty in [LockType::SR, LockType::SW, LockType::X, LockType::SNW] {
            let err = conn.acquire(&treq(&t, ty), LONG).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::GrantsClosed, "{mode} {ty:?}");
            assert_eq!(err.kind().mysql_error_code(), Some(3032));
        }
        // Objects that did not exist are closed too.
        let err = conn.acquire(&treq(&table("new"), LockType::SR), LONG);
        assert_eq!(err.unwrap_err().kind(), ErrorKind::GrantsClosed, "{mode}");
        // Other namespaces are open.
        let s = mdl_core::MdlKey::new(Namespace::Schema, "test", "").unwrap();
        let ix = conn.acquire(&treq(&s, LockType::IX), LONG).unwrap();
        conn.release(ix).unwrap();
        assert_eq!(
            mgr.granted_behind_gate(TABLES),
            1,
            "{mode}: the holder's SR"
        );

        // The holder may still clone what it holds, but gets nothing new.
        let stronger = holder.acquire(&treq(&t, LockType::SNW), LONG).unwrap_err();
        assert_eq!(stronger.kind(), ErrorKind::GrantsClosed, "{mode}");
        holder.release(held).unwrap();
        assert_eq!(mgr.granted_behind_gate(TABLES), 0, "{mode}");

        mgr.open_grants(TABLES);
        assert!(!mgr.grants_closed(Namespace::Table));
        held = conn.acquire(&treq(&t, LockType::SR), LONG).unwrap();
        let x = holder.try_acquire(&treq(&t, LockType::X)).unwrap();
        assert!(x.is_none(), "{mode}: SR held, X refused as usual");
        conn.release(held).unwrap();
        let x = holder.acquire(&treq(&t, LockType::X), LONG).unwrap();
        holder.release(x).unwrap();
    }
}

#[test]
fn exempt_contexts_pass_a_closed_gate_and_queued_requests_wait_for_it_to_open() {
    for (mode, config) in configs() {
        let mgr = MdlManager::new(config).unwrap();
        let t = table("t");
        let holder = Worker::holding(&mgr, &t, LockType::X);
        // A statement queued before the gate closes stays queued while it is closed (a queued
        // request keeps its place and its priority until it ends).
        let (stmt, queued) = Worker::pending(&mgr, &t, LockType::SR);
        mgr.close_grants(TABLES);
        holder.run(|c| c.release_transactional_locks());
        thread::sleep(Duration::from_millis(20));
        assert!(has_entry(&mgr, stmt.id, &t, LockType::SR, false), "{mode}");
        assert!(
            queued.try_recv().is_err(),
            "{mode}: granted through a closed gate"
        );

        // A gate-exempt context is granted through the gate.
        let exempt = Worker::new(&mgr);
        exempt.run(|c| c.set_gate_exempt(true));
        let snrw = exempt.run(move |c| c.acquire(&treq(&table("t"), LockType::SNRW), LONG));
        assert!(snrw.is_ok(), "{mode}: {snrw:?}");
        assert_eq!(
            mgr.granted_behind_gate(TABLES),
            0,
            "{mode}: exempt locks do not count"
        );

        // Opened: the statement still waits for the SNRW, then is granted as usual.
        mgr.open_grants(TABLES);
        assert!(has_entry(&mgr, stmt.id, &t, LockType::SR, false), "{mode}");
        exempt.run(|c| c.release_transactional_locks());
        queued.recv().unwrap().unwrap();
    }
}

/// Statements race against closings; once the gate is closed and the count of granted locks
/// has been read as zero, no statement may hold a lock in the namespace.
#[test]
fn no_grant_after_the_gate_is_closed_and_drained() {
    for (mode, config) in configs() {
        let mut config = config;
        config.unused_locks_low_water = 4; // evictions and sweeps race with the closings
        let mgr = MdlManager::new(config).unwrap();
        let drained = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let violations = Arc::new(AtomicUsize::new(0));
        let workers: Vec<_> = (0..3)
            .map(|w: u32| {
                let (mgr, drained, stop) = (mgr.clone(), drained.clone(), stop.clone());
                let violations = violations.clone();
                thread::spawn(move || {
                    let mut ctx = mgr.new_context();
                    let mut i = w;
                    while !stop.load(Ordering::SeqCst) {
                        i = i.wrapping_mul(31).wrapping_add(7) % 40;
                        let r = req(
                            &table(&format!("t{i}")),
                            LockType::SR,
                            LockDuration::Statement,
                        );
                        if let Ok(tk) = ctx.acquire(&r, Duration::ZERO) {
                            if drained.load(Ordering::SeqCst) {
                                violations.fetch_add(1, Ordering::SeqCst);
                            }
                            ctx.release(tk).unwrap();
                        }
                    }
                })
            })
            .collect();
        for _ in 0..30 {
            thread::sleep(Duration::from_millis(2));
            mgr.close_grants(TABLES);
            while mgr.granted_behind_gate(TABLES) != 0 {
                thread::yield_now();
            }
            drained.store(true, Ordering::SeqCst);
            thread::sleep(Duration::from_millis(2));
            drained.store(false, Ordering::SeqCst);
            mgr.open_grants(TABLES);
        }
        stop.store(true, Ordering::SeqCst);
        for w in workers {
            w.join().unwrap();
        }
        assert_eq!(violations.load(Ordering::SeqCst), 0, "{mode}");
    }
}

/// An object first created by an exempt request while the gate is closed opens with the rest.
#[test]
fn objects_created_behind_a_closed_gate_open_with_it() {
    for (mode, config) in configs() {
        let mgr = MdlManager::new(config).unwrap();
        mgr.close_grants(TABLES);
        let exempt = Worker::new(&mgr);
        exempt.run(|c| c.set_gate_exempt(true));
        exempt.hold(&table("fresh"), LockType::X);
        mgr.open_grants(TABLES);
        let err = mgr
            .new_context()
            .acquire(
                &treq(&table("fresh"), LockType::SR),
                Duration::from_millis(20),
            )
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{mode}: {err}");
        exempt.run(|c| c.release_transactional_locks());
        let mut c = mgr.new_context();
        c.acquire(&treq(&table("fresh"), LockType::SR), LONG)
            .unwrap();
    }
}
