//! Upgrade and downgrade (`docs/semantics.md` §10), including an upgrade that must wait, a
//! failed upgrade leaving the original lock intact, and waiters woken by a downgrade.

use std::time::Duration;

use mdl_core::*;
use mdl_reference::matrix::*;
use mdl_reference::support::*;

#[test]
fn upgrade_without_conflict_keeps_the_handle() {
    for (_, cfg) in configs() {
        for from in [
            LockType::SU,
            LockType::SNW,
            LockType::SNRW,
            LockType::SR,
            LockType::SW,
        ] {
            let (m, mut c, mut o) = two_contexts_with(cfg.clone());
            let k = table("t");
            let t = c.acquire(&treq(&k, from), LONG).unwrap();
            c.upgrade(t, LockType::X, LONG).unwrap();
            let info = c.ticket_info(t).unwrap();
            assert_eq!(info.lock_type, LockType::X);
            assert_eq!(info.duration, LockDuration::Transaction);
            assert_eq!(c.lock_count(), 1, "the temporary ticket is gone");
            for other in OBJ {
                assert!(!can_take(&mut o, &k, other), "{from:?}->X, {other:?}");
            }
            c.release(t).unwrap();
            assert!(can_take(&mut o, &k, LockType::X));
            assert_eq!(m.unused_lock_object_count(), m.lock_object_count());
        }
    }
}

#[test]
fn upgrade_to_a_type_already_satisfied_is_a_no_op() {
    let (_m, mut c, mut o) = two_contexts();
    let k = table("t");
    let t = c.acquire(&treq(&k, LockType::SNW), LONG).unwrap();
    c.upgrade(t, LockType::SU, LONG).unwrap();
    c.upgrade(t, LockType::SR, LONG).unwrap();
    assert_eq!(c.ticket_info(t).unwrap().lock_type, LockType::SNW);
    assert!(can_take(&mut o, &k, LockType::SR));
    assert!(!can_take(&mut o, &k, LockType::SW));
}

#[test]
fn upgrade_keeps_the_duration_of_the_ticket() {
    let (_m, mut c, mut o) = two_contexts();
    let k = table("t");
    let t = take(&mut c, &k, LockType::SNRW, LockDuration::Explicit);
    c.upgrade(t, LockType::X, LONG).unwrap();
    assert_eq!(c.ticket_info(t).unwrap().duration, LockDuration::Explicit);
    c.release_transactional_locks();
    assert!(!can_take(&mut o, &k, LockType::S));
    c.release(t).unwrap();
}

#[test]
fn upgrade_that_must_wait_for_a_reader() {
    for (name, m) in named_managers_per_mode() {
        let k = table("t");
        let reader = Worker::holding(&m, &k, LockType::SR);
        let ddl = Worker::new(&m);
        let su = ddl.hold(&k, LockType::SU);
        let up = ddl.start(move |c| {
            c.upgrade(su, LockType::X, LONG)?;
            c.ticket_info(su).map(|i| i.lock_type)
        });
        wait_pending(&m, ddl.id, &k, LockType::X);
        // While the upgrade waits, its X has priority over new readers (W0: X over SR) ...
        let newcomer = Worker::new(&m);
        let r = treq(&k, LockType::SR);
        assert!(
            newcomer.run(move |c| c.try_acquire(&r).unwrap().is_none()),
            "{name}"
        );
        // ... but not over SH.
        let r = treq(&k, LockType::SH);
        assert!(
            newcomer.run(move |c| c.try_acquire(&r).unwrap().is_some()),
            "{name}"
        );
        newcomer.release_all();
        reader.release_all();
        assert_eq!(recv(&up), Ok(LockType::X), "{name}");
        assert!(ddl.run(|c| c.lock_count()) == 1);
        ddl.release_all();
        assert!(m.slow_path_locks().is_empty());
    }
}

#[test]
fn failed_upgrade_leaves_the_original_lock() {
    for (_, m, mut reader, mut ddl) in two_contexts_per_mode() {
        let k = table("t");
        let mut o = m.new_context();
        reader.acquire(&treq(&k, LockType::SR), LONG).unwrap();
        let su = ddl.acquire(&treq(&k, LockType::SU), LONG).unwrap();
        assert_eq!(
            ddl.upgrade(su, LockType::X, Duration::from_millis(30))
                .kinded(),
            Err(ErrorKind::Timeout)
        );
        assert_eq!(
            ddl.upgrade(su, LockType::X, ZERO).kinded(),
            Err(ErrorKind::Timeout)
        );
        assert_eq!(ddl.ticket_info(su).unwrap().lock_type, LockType::SU);
        assert_eq!(ddl.lock_count(), 1);
        // SU still held: another SU is refused, SR and SW pass (no pending X any more).
        assert!(!can_take(&mut o, &k, LockType::SU));
        assert!(can_take(&mut o, &k, LockType::SR));
        assert!(can_take(&mut o, &k, LockType::SW));
        assert!(m.slow_path_locks().iter().all(|e| e.granted));
        reader.release_transactional_locks();
        ddl.upgrade(su, LockType::X, LONG).unwrap();
    }
}

#[test]
fn downgrade_wakes_compatible_waiters() {
    for (name, m) in named_managers_per_mode() {
        let k = table("t");
        let ddl = Worker::new(&m);
        let x = ddl.hold(&k, LockType::X);
        let (r, r_rx) = Worker::pending(&m, &k, LockType::SR);
        let (w, w_rx) = Worker::pending(&m, &k, LockType::SW);
        // ALTER TABLE: X -> SNW after the exclusive phase: readers go, writers keep waiting.
        ddl.run(move |c| c.downgrade(x, LockType::SNW)).unwrap();
        recv(&r_rx).unwrap();
        assert!(has_entry(&m, w.id, &k, LockType::SW, false), "{name}");
        assert_eq!(
            ddl.run(move |c| c.ticket_info(x).unwrap().lock_type),
            LockType::SNW
        );
        // SNW -> SU: the writer goes too.
        ddl.run(move |c| c.downgrade(x, LockType::SU)).unwrap();
        recv(&w_rx).unwrap();
        ddl.release_all();
        r.release_all();
        w.release_all();
        assert!(m.slow_path_locks().is_empty());
    }
}

#[test]
fn downgrade_rules() {
    let (m, mut c, mut o) = two_contexts();
    let k = table("t");
    let t = c.acquire(&treq(&k, LockType::SNW), LONG).unwrap();
    assert_eq!(
        c.downgrade(t, LockType::X),
        Err(MdlError::InvalidLockChange {
            held: LockType::SNW,
            requested: LockType::X
        })
    );
    // SNW does not satisfy SW: not a downgrade.
    assert!(matches!(
        c.downgrade(t, LockType::SW),
        Err(MdlError::InvalidLockChange { .. })
    ));
    c.downgrade(t, LockType::SNW).unwrap();
    assert_eq!(c.ticket_info(t).unwrap().lock_type, LockType::SNW);
    c.downgrade(t, LockType::SR).unwrap();
    assert_eq!(c.ticket_info(t).unwrap().lock_type, LockType::SR);
    assert!(can_take(&mut o, &k, LockType::SNW));
    assert!(!can_take(&mut o, &k, LockType::SNRW));
    assert_eq!(c.lock_count(), 1);
    c.release(t).unwrap();
    assert_eq!(m.unused_lock_object_count(), m.lock_object_count());
}

#[test]
fn upgrade_while_holding_a_stronger_ticket_on_the_same_lock() {
    // The context already holds X in another duration: the upgrade is granted at once and
    // the upgraded ticket survives releasing the other one.
    let (_m, mut c, mut o) = two_contexts();
    let k = table("t");
    let x = take(&mut c, &k, LockType::X, LockDuration::Explicit);
    let su = take(&mut c, &k, LockType::SU, LockDuration::Statement);
    assert_ne!(x, su);
    c.upgrade(su, LockType::X, ZERO).unwrap();
    c.release(x).unwrap();
    assert_eq!(c.ticket_info(su).unwrap().lock_type, LockType::X);
    assert!(!can_take(&mut o, &k, LockType::S));
    c.release_statement_locks();
    assert!(can_take(&mut o, &k, LockType::X));
}

#[test]
fn downgrade_of_a_fast_path_lock_wakes_an_obtrusive_waiter() {
    // SW held on the fast path, SNW waiting for it; SW -> SR lets the SNW in.
    let m = mgr();
    let k = table("t");
    let a = Worker::new(&m);
    let sw = a.hold(&k, LockType::SW);
    assert!(a.run(move |c| c.ticket_info(sw).unwrap().fast_path));
    let (b, b_rx) = Worker::pending(&m, &k, LockType::SNW);
    a.run(move |c| c.downgrade(sw, LockType::SR)).unwrap();
    recv(&b_rx).unwrap();
    assert_eq!(
        a.run(move |c| c.ticket_info(sw).unwrap().lock_type),
        LockType::SR
    );
    // And the SR still conflicts with SNRW.
    let c = Worker::new(&m);
    let r = treq(&k, LockType::SNRW);
    b.release_all();
    assert!(c.run(move |ctx| ctx.try_acquire(&r).unwrap().is_none()));
    a.release_all();
    assert_eq!(m.unused_lock_object_count(), m.lock_object_count());
}

/// A release looks past a waiter that still cannot be granted to a later one of the same type
/// that can: B's EXCLUSIVE (queued first) waits for A's and C's SHARED_READ, C's upgrade to
/// EXCLUSIVE (queued behind it) waits only for A's. When A leaves, C's upgrade is granted even
/// though B's EXCLUSIVE, older and of the same type, still waits (for C); B gets its lock when C
/// ends its transaction. In every configuration, and with 20 more SHARED_READ requests queued
/// behind the two, which are granted last.
#[test]
fn release_grants_a_later_waiter_of_a_type_an_earlier_one_still_waits_with() {
    for (name, cfg) in configs() {
        for behind in [0, 20] {
            let m = MdlManager::new(cfg.clone()).unwrap();
            let k = table("t");
            let a = Worker::holding(&m, &k, LockType::SR);
            let c = Worker::new(&m);
            let sr = c.hold(&k, LockType::SR);
            let (b, b_rx) = Worker::pending(&m, &k, LockType::X);
            let c_rx = c.start(move |ctx| ctx.upgrade(sr, LockType::X, LONG));
            wait_pending(&m, c.id, &k, LockType::X);
            let (readers, reader_rxs) = Worker::pending_each(&m, &k, &vec![LockType::SR; behind]);
            a.release_all();
            recv(&c_rx).unwrap_or_else(|e| panic!("{name}: C's upgrade: {e}"));
            assert!(
                has_entry(&m, b.id, &k, LockType::X, false),
                "{name}: B still waits for C"
            );
            for r in &reader_rxs {
                assert!(
                    r.try_recv().is_err(),
                    "{name}: a reader granted under C's X"
                );
            }
            c.release_all();
            recv(&b_rx).unwrap_or_else(|e| panic!("{name}: B's X: {e}"));
            b.release_all();
            for r in &reader_rxs {
                recv(r).unwrap_or_else(|e| panic!("{name}: a reader: {e}"));
            }
            drop(readers);
        }
    }
}
