//! Deadlock detection (`docs/semantics.md` §12): cycles of two and three contexts, upgrade
//! deadlocks, deadlocks through a pending request's priority, victims chosen by weight
//! (DML 25 < user lock 50 < DDL 100, ties to the requester), forced DML weight, the search
//! depth limit, no detection for zero-timeout tries, and `DeadlockSearch`: a waiter nobody
//! waits for skips its search, and cycles closed concurrently are still always found.
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

/// Which of the two contexts of a [`Cycle`] the detector must choose.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Victim {
    /// The context that waits first.
    Waiter,
    /// The context whose request closes the cycle.
    Requester,
}

/// A two-context cycle: `[waiter holds, requester holds, waiter waits for, requester closes
/// the cycle with]`, and which of the two the detector must choose.
type Cycle<'a> = ([(&'a MdlKey, LockType); 4], Victim);

/// Runs `cy` on a fresh manager of `cfg` (the waiter's deadlock weight forced to DML when
/// `force_dml_waiter`): the victim gets `Deadlock` and rolls back, the survivor gets its lock;
/// once it ends its transaction nothing is left.
fn run_cycle(cfg: MdlConfig, force_dml_waiter: bool, cy: &Cycle) {
    let ([w_holds, r_holds, waits, closes], who) = *cy;
    let m = MdlManager::new(cfg).unwrap();
    let waiter = Worker::new(&m);
    let requester = Worker::new(&m);
    if force_dml_waiter {
        waiter.run(|c| c.set_force_dml_deadlock_weight(true));
    }
    waiter.hold(w_holds.0, w_holds.1);
    requester.hold(r_holds.0, r_holds.1);
    let w_rx = wait_for(&waiter, &m, waits.0, waits.1);
    let r_rx = close(&requester, closes.0, closes.1);
    let ((victim, v_rx), (survivor, s_rx)) = match who {
        Victim::Waiter => ((&waiter, w_rx), (&requester, r_rx)),
        Victim::Requester => ((&requester, r_rx), (&waiter, w_rx)),
    };
    assert_eq!(recv(&v_rx).kinded(), Err(ErrorKind::Deadlock), "{cy:?}");
    recv(&s_rx).unwrap_or_else(|e| panic!("{cy:?}: the survivor failed: {e}"));
    survivor.release_all();
    victim.release_all();
    assert!(m.slow_path_locks().is_empty(), "{cy:?}");
}

#[test]
fn two_context_cycles_choose_the_victim_by_weight() {
    use LockType as L;
    use Victim::*;
    let (t1, t2) = (table("t1"), table("t2"));
    let u = MdlKey::new(Namespace::UserLevelLock, "", "u").unwrap();
    let g = MdlKey::singleton(Namespace::Global).unwrap();
    let cases: [Cycle; 6] = [
        // Equal weights: the requester is the victim.
        (
            [(&t1, L::X), (&t2, L::X), (&t2, L::X), (&t1, L::X)],
            Requester,
        ),
        // A DML waiter (25) is the victim even when not the requester (DDL, 100).
        (
            [(&t1, L::SW), (&t2, L::X), (&t2, L::SW), (&t1, L::X)],
            Waiter,
        ),
        // A DML requester is the victim against a DDL waiter.
        (
            [(&t2, L::SNW), (&t1, L::SR), (&t1, L::X), (&t2, L::SW)],
            Requester,
        ),
        // A user-lock waiter (50) loses to a DDL requester (100).
        ([(&t1, L::SR), (&u, L::X), (&u, L::X), (&t1, L::X)], Waiter),
        // A DML requester (25) loses to a user-lock waiter (50).
        (
            [(&t1, L::X), (&u, L::X), (&u, L::X), (&t1, L::SR)],
            Requester,
        ),
        // FLUSH TABLES WITH READ LOCK (GLOBAL S) vs a transaction holding a table and needing
        // GLOBAL IX (weight DDL); then FTWRL's owner wants the table exclusively (DDL, the
        // requester: the victim on the tie).
        (
            [(&t1, L::SR), (&g, L::S), (&g, L::IX), (&t1, L::X)],
            Requester,
        ),
    ];
    for cy in &cases {
        run_cycle(MdlConfig::default(), false, cy);
    }
    // The tie in every fast-path mode.
    for (_, cfg) in configs() {
        run_cycle(cfg, false, &cases[0]);
    }
    // Forced DML weight makes a DDL waiter the victim.
    run_cycle(MdlConfig::default(), true, &(cases[0].0, Waiter));
}

/// A worker of `m` per key, worker `i` holding `types[i]` (X where `types` is short) on
/// `keys[i]`.
fn workers_holding(
    m: &std::sync::Arc<MdlManager>,
    keys: &[MdlKey],
    types: &[LockType],
) -> Vec<Worker> {
    let w: Vec<Worker> = keys.iter().map(|_| Worker::new(m)).collect();
    for (i, (wk, k)) in w.iter().zip(keys).enumerate() {
        wk.hold(k, types.get(i).copied().unwrap_or(LockType::X));
    }
    w
}

/// The keys `t0..t{n-1}`.
fn tables(n: usize) -> Vec<MdlKey> {
    (0..n).map(|i| table(&format!("t{i}"))).collect()
}

#[test]
fn three_context_cycle() {
    use LockType as L;
    let k = tables(3);
    // All DDL: the requester closing the cycle loses. Then the middle context waits as DML:
    // it is the victim, the others go on.
    for (holds, middle_waits, victim) in [([L::X; 3], L::X, 2), ([L::X, L::SW, L::X], L::SR, 1)] {
        let m = mgr();
        let w = workers_holding(&m, &k, &holds);
        let r0 = wait_for(&w[0], &m, &k[1], L::X);
        let r1 = wait_for(&w[1], &m, &k[2], middle_waits);
        let r2 = close(&w[2], &k[0], L::X);
        let rx = [r0, r1, r2];
        assert_eq!(recv(&rx[victim]).kinded(), Err(ErrorKind::Deadlock));
        // The survivors proceed in the order of the chain the victim's rollback opens.
        let order: Vec<usize> = (1..3).map(|d| (victim + 3 - d) % 3).collect();
        for i in order {
            recv(&rx[i]).unwrap();
            w[i].release_all();
        }
    }
}

#[test]
fn upgrade_deadlock_of_two_readers() {
    for m in managers_per_mode() {
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
    let b = Worker::holding(&m, &k, LockType::SR);
    let su = a.hold(&k, LockType::SU);
    let a_rx = a.start(move |c| c.upgrade(su, LockType::X, LONG));
    wait_pending(&m, a.id, &k, LockType::X);
    let b_rx = close(&b, &k, LockType::SW);
    assert_eq!(recv(&b_rx).kinded(), Err(ErrorKind::Deadlock));
    recv(&a_rx).unwrap();
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
    let k = tables(6);
    let w = workers_holding(&m, &k, &[]);
    let rx: Vec<_> = (1..6)
        .map(|i| wait_for(&w[i], &m, &k[i - 1], LockType::X))
        .collect();
    w[0].release_all();
    for (i, r) in rx.iter().enumerate() {
        recv(r).unwrap();
        w[i + 1].release_all();
    }
}

/// C1 waits for C0, C2 for C1, ..., C31 for C30; then C32 (holding a lock nobody waits for)
/// waits for C31. The search from C32 would visit 32 waiting contexts.
fn chain_deeper_than_the_limit(search: DeadlockSearch) -> Result<Ticket> {
    let depth = MAX_SEARCH_DEPTH as usize;
    assert_eq!(depth, 32);
    let m = mgr_with(|c| c.deadlock_search = search);
    let k = tables(depth + 1);
    let w = workers_holding(&m, &k, &[]);
    let rx: Vec<_> = (1..depth)
        .map(|i| wait_for(&w[i], &m, &k[i - 1], LockType::X))
        .collect();
    let last = close(&w[depth], &k[depth - 1], LockType::X);
    match search {
        DeadlockSearch::EveryWait => {
            let got = recv(&last);
            for wk in &w {
                wk.kill.kill(KillScope::Connection);
            }
            for r in &rx {
                // Killed, or granted because the killed waiter before it rolled back first.
                assert!(matches!(recv(r), Ok(_) | Err(MdlError::Killed(_))));
            }
            got
        }
        DeadlockSearch::WhenWaitedFor => {
            // No search: the last request just waits at the end of the chain.
            wait_pending(&m, w[depth].id, &k[depth - 1], LockType::X);
            assert_eq!(pending_count(&m), depth);
            w[0].release_all();
            for (i, r) in rx.iter().enumerate() {
                recv(r).unwrap();
                w[i + 1].release_all();
            }
            recv(&last)
        }
        other => panic!("no test for {other:?}"),
    }
}

#[test]
fn search_deeper_than_the_limit_counts_as_deadlock_in_mysql_mode() {
    // At MAX_SEARCH_DEPTH (32) MySQL's search gives up and treats the path as a deadlock, the
    // requester (all weights equal) being the victim.
    let got = chain_deeper_than_the_limit(DeadlockSearch::EveryWait);
    assert_eq!(got.kinded(), Err(ErrorKind::Deadlock));
}

#[test]
fn a_requester_nobody_waits_for_does_not_search() {
    // By default the requester at the end of a long chain cannot close a cycle, so it does not
    // search, and waits its turn instead of being told "deadlock".
    let got = chain_deeper_than_the_limit(DeadlockSearch::WhenWaitedFor);
    assert!(got.is_ok(), "{got:?}");
}

struct NoCommitOrder;
impl MdlOwner for NoCommitOrder {
    fn might_have_commit_order_waiters(&self) -> bool {
        false
    }
}

/// A context of an owner without commit-order waiters, on its own thread: takes X on `t` (as
/// a ticket, or `through_guard`), reports its id, waits for `go`, then asks for S on `acl`
/// (for at most 10 s) and rolls back.
fn spawn_acl_reader(
    m: &std::sync::Arc<MdlManager>,
    t: &MdlKey,
    acl: &MdlKey,
    go: Receiver<()>,
    through_guard: bool,
) -> (std::thread::JoinHandle<Result<()>>, ContextId) {
    let m2 = m.clone();
    let (t2, acl2) = (t.clone(), acl.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    let a = std::thread::spawn(move || {
        let mut c = m2.new_context_with_owner(std::sync::Arc::new(NoCommitOrder));
        let held = c.acquire(&treq(&t2, LockType::X), LONG).unwrap();
        let guard = through_guard.then(|| c.into_guard(held).unwrap());
        tx.send(c.id()).unwrap();
        go.recv().unwrap();
        let wait = std::time::Duration::from_secs(10);
        let r = c.acquire(&treq(&acl2, LockType::S), wait).map(|_| ());
        c.release_transactional_locks();
        drop(guard);
        r
    });
    let a_id = recv(&rx);
    (a, a_id)
}

#[test]
fn acl_cache_shared_request_delays_detection_but_still_finds_the_deadlock() {
    // §12: S on ACL_CACHE by an owner without commit-order waiters, holding locks: detection
    // runs after the first one-second wait instead of at once; the cycle is still resolved.
    let m = mgr();
    let acl = MdlKey::singleton(Namespace::AclCache).unwrap();
    let t = table("t");
    let b = Worker::holding(&m, &acl, LockType::X);
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let (a, a_id) = spawn_acl_reader(&m, &t, &acl, go_rx, false);
    go_tx.send(()).unwrap();
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
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let (a, _) = spawn_acl_reader(&m, &t, &acl, go_rx, false);
    b.hold(&acl, LockType::X);
    let b_rx = wait_for(&b, &m, &t, LockType::X);
    go_tx.send(()).unwrap();
    assert_eq!(a.join().unwrap().kinded(), Err(ErrorKind::Deadlock));
    recv(&b_rx).unwrap();
}

#[test]
fn delayed_detection_runs_for_a_context_holding_only_guards() {
    // As the reverse order above, A's lock on `t` held through a guard: a context whose locks
    // are all guards still holds locks, so its ACL_CACHE S wait searches after a second.
    let m = mgr();
    let acl = MdlKey::singleton(Namespace::AclCache).unwrap();
    let t = table("t");
    let b = Worker::new(&m);
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let (a, _) = spawn_acl_reader(&m, &t, &acl, go_rx, true);
    b.hold(&acl, LockType::X);
    let b_rx = wait_for(&b, &m, &t, LockType::X);
    go_tx.send(()).unwrap();
    assert_eq!(a.join().unwrap().kinded(), Err(ErrorKind::Deadlock));
    recv(&b_rx).unwrap();
}

#[test]
fn cycles_closed_at_the_same_moment_are_always_found() {
    // Two contexts close a cycle at once, many times, in every fast-path mode and both search
    // settings: A holds t0 and asks X on t1 while B holds t1 and asks X on t0. Under
    // `WhenWaitedFor` each of them may find, when it checks, that nobody waits for it yet and
    // skip its search; the argument is that the later of the two then sees the earlier's edge.
    // A missed cycle would show as both waits timing out.
    use std::sync::{Arc, Barrier};
    const ROUNDS: usize = 150;
    const WAIT: std::time::Duration = std::time::Duration::from_secs(5);
    for search in [DeadlockSearch::WhenWaitedFor, DeadlockSearch::EveryWait] {
        for (name, cfg) in configs() {
            let m = MdlManager::new({
                let mut c = cfg;
                c.deadlock_search = search;
                c
            })
            .unwrap();
            let k = tables(2);
            for round in 0..ROUNDS {
                let go = Arc::new(Barrier::new(2));
                let run = |mine: MdlKey, theirs: MdlKey| {
                    let (m, go) = (m.clone(), go.clone());
                    std::thread::spawn(move || {
                        let mut c = m.new_context();
                        let t = c.acquire(&treq(&mine, LockType::SR), WAIT);
                        t.expect("free");
                        go.wait();
                        let got = c.acquire(&treq(&theirs, LockType::X), WAIT).kinded();
                        c.release_transactional_locks();
                        got
                    })
                };
                let a = run(k[0].clone(), k[1].clone());
                let b = run(k[1].clone(), k[0].clone());
                let (a, b) = (a.join().unwrap(), b.join().unwrap());
                let deadlocks = [&a, &b]
                    .into_iter()
                    .filter(|r| matches!(r, Err(ErrorKind::Deadlock)))
                    .count();
                assert_eq!(
                    deadlocks, 1,
                    "{name}, {search:?}, round {round}: {a:?} / {b:?}"
                );
                assert!(a.is_ok() || b.is_ok(), "{name}, {search:?}: {a:?} / {b:?}");
            }
            assert_clean(&m);
        }
    }
}
