//! Deadlock detection (`docs/semantics.md` §12): cycles of two and three contexts, upgrade
//! deadlocks, deadlocks through a pending request's priority, victims chosen by weight
//! (DML 25 < user lock 50 < DDL 100, ties to the requester), forced DML weight, the search
//! depth limit, and no detection for zero-timeout tries.
//!
//! Each context runs on a `Worker` thread; a waiter is known to be queued once
//! `slow_path_locks` shows its pending entry. A victim releases its transaction's locks, as a
//! server does on ER_LOCK_DEADLOCK, which lets the survivors proceed.

use std::sync::mpsc::Receiver;

use mdl_core::*;
use mdl_reference::support::*;

/// Starts `acquire(key, t)` on `w`; on error the worker rolls back its transaction.
fn wait_for(w: &Worker, m: &MdlManager, key: &MdlKey, t: LockType) -> Receiver<Result<Ticket>> {
    let r = treq(key, t);
    let rx = w.start(move |c| {
        let res = c.acquire(&r, LONG);
        if res.is_err() {
            c.release_transactional_locks();
        }
        res
    });
    wait_pending(m, w.id, key, t);
    rx
}

/// Like `wait_for` but for the request that closes the cycle (it may fail at once).
fn close(w: &Worker, key: &MdlKey, t: LockType) -> Receiver<Result<Ticket>> {
    let r = treq(key, t);
    w.start(move |c| {
        let res = c.acquire(&r, LONG);
        if res.is_err() {
            c.release_transactional_locks();
        }
        res
    })
}

#[test]
fn two_contexts_equal_weight_requester_is_victim() {
    for (_, cfg) in configs() {
        let m = MdlManager::new(cfg).unwrap();
        let (a_k, b_k) = (table("a"), table("b"));
        let a = Worker::new(&m);
        let b = Worker::new(&m);
        a.hold(&a_k, LockType::X);
        b.hold(&b_k, LockType::X);
        let a_rx = wait_for(&a, &m, &b_k, LockType::X);
        let b_rx = close(&b, &a_k, LockType::X);
        assert_eq!(recv(&b_rx).kinded(), Err(ErrorKind::Deadlock));
        recv(&a_rx).expect("the survivor gets the lock once the victim rolled back");
        a.release_all();
        assert!(m.slow_path_locks().is_empty());
    }
}

#[test]
fn dml_waiter_is_victim_even_when_not_the_requester() {
    let m = mgr();
    let (t1, t2) = (table("t1"), table("t2"));
    let dml = Worker::new(&m);
    let ddl = Worker::new(&m);
    dml.hold(&t1, LockType::SW);
    ddl.hold(&t2, LockType::X);
    let dml_rx = wait_for(&dml, &m, &t2, LockType::SW); // weight 25
    let ddl_rx = close(&ddl, &t1, LockType::X); // weight 100, closes the cycle
    assert_eq!(recv(&dml_rx).kinded(), Err(ErrorKind::Deadlock));
    recv(&ddl_rx).expect("DDL survives");
    ddl.release_all();
}

#[test]
fn dml_requester_is_victim_against_ddl() {
    let m = mgr();
    let (t1, t2) = (table("t1"), table("t2"));
    let dml = Worker::new(&m);
    let ddl = Worker::new(&m);
    dml.hold(&t1, LockType::SR);
    ddl.hold(&t2, LockType::SNW);
    let ddl_rx = wait_for(&ddl, &m, &t1, LockType::X);
    let dml_rx = close(&dml, &t2, LockType::SW);
    assert_eq!(recv(&dml_rx).kinded(), Err(ErrorKind::Deadlock));
    recv(&ddl_rx).unwrap();
}

#[test]
fn user_level_lock_weighs_between_dml_and_ddl() {
    let u = MdlKey::new(Namespace::UserLevelLock, "", "u").unwrap();
    let t = table("t");
    // ULL waiter (50) vs DDL requester (100): the ULL waiter is the victim.
    let m = mgr();
    let a = Worker::new(&m);
    let b = Worker::new(&m);
    a.hold(&t, LockType::SR);
    b.hold(&u, LockType::X);
    let a_rx = wait_for(&a, &m, &u, LockType::X);
    let b_rx = close(&b, &t, LockType::X);
    assert_eq!(recv(&a_rx).kinded(), Err(ErrorKind::Deadlock));
    recv(&b_rx).unwrap();
    b.release_all();
    // ULL waiter (50) vs DML requester (25): the DML requester is the victim.
    let m = mgr();
    let a = Worker::new(&m);
    let b = Worker::new(&m);
    a.hold(&t, LockType::X);
    b.hold(&u, LockType::X);
    let a_rx = wait_for(&a, &m, &u, LockType::X);
    let b_rx = close(&b, &t, LockType::SR);
    assert_eq!(recv(&b_rx).kinded(), Err(ErrorKind::Deadlock));
    recv(&a_rx).unwrap();
}

#[test]
fn forced_dml_weight_makes_a_ddl_waiter_the_victim() {
    let m = mgr();
    let (t1, t2) = (table("t1"), table("t2"));
    let a = Worker::new(&m);
    let b = Worker::new(&m);
    a.run(|c| c.set_force_dml_deadlock_weight(true));
    a.hold(&t1, LockType::X);
    b.hold(&t2, LockType::X);
    let a_rx = wait_for(&a, &m, &t2, LockType::X);
    let b_rx = close(&b, &t1, LockType::X);
    assert_eq!(recv(&a_rx).kinded(), Err(ErrorKind::Deadlock));
    recv(&b_rx).unwrap();
}

#[test]
fn three_context_cycle() {
    // All DDL: the requester closing the cycle loses.
    let m = mgr();
    let k: Vec<MdlKey> = (0..3).map(|i| table(&format!("t{i}"))).collect();
    let w: Vec<Worker> = (0..3).map(|_| Worker::new(&m)).collect();
    for i in 0..3 {
        w[i].hold(&k[i], LockType::X);
    }
    let r0 = wait_for(&w[0], &m, &k[1], LockType::X);
    let r1 = wait_for(&w[1], &m, &k[2], LockType::X);
    let r2 = close(&w[2], &k[0], LockType::X);
    assert_eq!(recv(&r2).kinded(), Err(ErrorKind::Deadlock));
    recv(&r1).unwrap();
    w[1].release_all();
    recv(&r0).unwrap();
    w[0].release_all();

    // The middle context waits as DML: it is the victim, the others go on.
    let m = mgr();
    let w: Vec<Worker> = (0..3).map(|_| Worker::new(&m)).collect();
    w[0].hold(&k[0], LockType::X);
    w[1].hold(&k[1], LockType::SW);
    w[2].hold(&k[2], LockType::X);
    let r0 = wait_for(&w[0], &m, &k[1], LockType::X);
    let r1 = wait_for(&w[1], &m, &k[2], LockType::SR);
    let r2 = close(&w[2], &k[0], LockType::X);
    assert_eq!(recv(&r1).kinded(), Err(ErrorKind::Deadlock));
    recv(&r0).unwrap();
    w[0].release_all();
    recv(&r2).unwrap();
}

#[test]
fn upgrade_deadlock_of_two_readers() {
    for (_, cfg) in configs() {
        let m = MdlManager::new(cfg).unwrap();
        let k = table("t");
        let a = Worker::new(&m);
        let b = Worker::new(&m);
        let ta = a.hold(&k, LockType::SR);
        let tb = b.hold(&k, LockType::SR);
        let a_rx = a.start(move |c| c.upgrade(ta, LockType::X, LONG));
        wait_pending(&m, a.id, &k, LockType::X);
        let b_rx = b.start(move |c| {
            let r = c.upgrade(tb, LockType::X, LONG);
            if r.is_err() {
                // The failed upgrade left SR; give it up (rollback).
                assert_eq!(c.ticket_info(tb).unwrap().lock_type, LockType::SR);
                c.release_transactional_locks();
            }
            r
        });
        assert_eq!(recv(&b_rx).kinded(), Err(ErrorKind::Deadlock));
        recv(&a_rx).unwrap();
        assert_eq!(
            a.run(move |c| c.ticket_info(ta).unwrap().lock_type),
            LockType::X
        );
    }
}

#[test]
fn upgrade_deadlock_through_a_pending_priority_edge() {
    // A holds SU and upgrades to X, waiting for B's SR. B then asks for SW: SW is compatible
    // with A's granted SU but A's pending X has priority over it (W0), so B waits for A while A
    // waits for B. B waits as DML (25) and is the victim.
    let m = mgr();
    let k = table("t");
    let a = Worker::new(&m);
    let b = Worker::new(&m);
    b.hold(&k, LockType::SR);
    let su = a.hold(&k, LockType::SU);
    let a_rx = a.start(move |c| c.upgrade(su, LockType::X, LONG));
    wait_pending(&m, a.id, &k, LockType::X);
    let b_rx = close(&b, &k, LockType::SW);
    assert_eq!(recv(&b_rx).kinded(), Err(ErrorKind::Deadlock));
    recv(&a_rx).unwrap();
}

#[test]
fn scoped_lock_deadlock_with_global_read_lock() {
    // FLUSH TABLES WITH READ LOCK (GLOBAL S) vs a transaction holding a table and needing
    // GLOBAL IX; then FTWRL's owner wants the table exclusively.
    let m = mgr();
    let g = MdlKey::singleton(Namespace::Global).unwrap();
    let t = table("t");
    let trx = Worker::new(&m);
    let ftwrl = Worker::new(&m);
    trx.hold(&t, LockType::SR);
    ftwrl.hold(&g, LockType::S);
    let trx_rx = wait_for(&trx, &m, &g, LockType::IX); // GLOBAL: weight DDL
    let f_rx = close(&ftwrl, &t, LockType::X); // DDL, requester: victim on the tie
    assert_eq!(recv(&f_rx).kinded(), Err(ErrorKind::Deadlock));
    recv(&trx_rx).unwrap();
}

#[test]
fn zero_timeout_tries_do_not_search_for_deadlocks() {
    let m = mgr();
    let (t1, t2) = (table("t1"), table("t2"));
    let a = Worker::new(&m);
    let b = Worker::new(&m);
    a.hold(&t1, LockType::X);
    b.hold(&t2, LockType::X);
    let a_rx = wait_for(&a, &m, &t2, LockType::X);
    let r = treq(&t1, LockType::X);
    assert_eq!(
        b.run(move |c| c.acquire(&r, ZERO)).kinded(),
        Err(ErrorKind::Timeout)
    );
    assert!(
        has_entry(&m, a.id, &t2, LockType::X, false),
        "A still waits"
    );
    b.release_all();
    recv(&a_rx).unwrap();
}

#[test]
fn no_false_deadlock_for_a_plain_wait_chain() {
    let m = mgr();
    let k: Vec<MdlKey> = (0..6).map(|i| table(&format!("t{i}"))).collect();
    let w: Vec<Worker> = (0..6).map(|_| Worker::new(&m)).collect();
    for i in 0..6 {
        w[i].hold(&k[i], LockType::X);
    }
    let rx: Vec<_> = (1..6)
        .map(|i| wait_for(&w[i], &m, &k[i - 1], LockType::X))
        .collect();
    w[0].release_all();
    for (i, r) in rx.iter().enumerate() {
        recv(r).unwrap();
        w[i + 1].release_all();
    }
}

#[test]
fn search_deeper_than_the_limit_counts_as_deadlock() {
    // C1 waits for C0, C2 for C1, ...: the search from C_n visits n waiting contexts; at
    // MAX_SEARCH_DEPTH (32) it gives up and treats the path as a deadlock, the requester (all
    // weights equal) being the victim.
    let depth = MAX_SEARCH_DEPTH as usize;
    assert_eq!(depth, 32);
    let m = mgr();
    let k: Vec<MdlKey> = (0..=depth).map(|i| table(&format!("t{i}"))).collect();
    let w: Vec<Worker> = (0..=depth).map(|_| Worker::new(&m)).collect();
    for i in 0..=depth {
        w[i].hold(&k[i], LockType::X);
    }
    let rx: Vec<_> = (1..depth)
        .map(|i| wait_for(&w[i], &m, &k[i - 1], LockType::X))
        .collect();
    let last = close(&w[depth], &k[depth - 1], LockType::X);
    assert_eq!(recv(&last).kinded(), Err(ErrorKind::Deadlock));
    assert_eq!(pending_count(&m), depth - 1);
    for wk in &w {
        wk.kill.kill();
    }
    for r in &rx {
        // Killed, or granted because the killed waiter before it rolled back first.
        assert!(matches!(recv(r), Ok(_) | Err(MdlError::Killed(_))));
    }
}

struct NoCommitOrder;
impl MdlOwner for NoCommitOrder {
    fn might_have_commit_order_waiters(&self) -> bool {
        false
    }
}

#[test]
fn acl_cache_shared_request_delays_detection_but_still_finds_the_deadlock() {
    // §12: S on ACL_CACHE by an owner without commit-order waiters, holding locks: detection
    // runs after the first one-second wait instead of at once; the cycle is still resolved.
    let m = mgr();
    let acl = MdlKey::singleton(Namespace::AclCache).unwrap();
    let t = table("t");
    let b = Worker::new(&m);
    b.hold(&acl, LockType::X);
    let m2 = m.clone();
    let (t2, acl2) = (t.clone(), acl.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    let a = std::thread::spawn(move || {
        let mut c = m2.new_context_with_owner(std::sync::Arc::new(NoCommitOrder));
        c.acquire(&treq(&t2, LockType::X), LONG).unwrap();
        tx.send(c.id()).unwrap();
        let r = c.acquire(&treq(&acl2, LockType::S), LONG).map(|_| ());
        c.release_transactional_locks();
        r
    });
    let a_id = recv(&rx);
    wait_pending(&m, a_id, &acl, LockType::S);
    // B closes the cycle: its own search finds it at once; A (S on ACL_CACHE: DML weight 25)
    // is the victim, B (X on a table: 100) proceeds.
    let b_rx = close(&b, &t, LockType::X);
    assert_eq!(a.join().unwrap().kinded(), Err(ErrorKind::Deadlock));
    recv(&b_rx).unwrap();
    b.release_all();

    // Reverse order: A's ACL_CACHE S request closes the cycle; with delayed detection it is
    // found after about a second, A again the victim.
    let b = Worker::new(&m);
    let m2 = m.clone();
    let (t2, acl2) = (t.clone(), acl.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let a = std::thread::spawn(move || {
        let mut c = m2.new_context_with_owner(std::sync::Arc::new(NoCommitOrder));
        c.acquire(&treq(&t2, LockType::X), LONG).unwrap();
        tx.send(c.id()).unwrap();
        go_rx.recv().unwrap();
        let r = c.acquire(&treq(&acl2, LockType::S), LONG).map(|_| ());
        c.release_transactional_locks();
        r
    });
    let _a_id = recv(&rx);
    b.hold(&acl, LockType::X);
    let b_rx = wait_for(&b, &m, &t, LockType::X);
    go_tx.send(()).unwrap();
    assert_eq!(a.join().unwrap().kinded(), Err(ErrorKind::Deadlock));
    recv(&b_rx).unwrap();
}
