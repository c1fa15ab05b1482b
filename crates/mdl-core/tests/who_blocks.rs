//! Who blocks whom (`docs/semantics.md` §5 and §6: the granted and the priority matrices): every row of
//! `lock_waits()` and every blocker of `blocking_contexts()` in one, two and three levels of
//! waiting, including soft blocks caused by the priority matrices and an upgrade waiting on
//! another holder, is what the reference matrices say should block; rows vanish when waits
//! end; errors of failed waits name the blockers; per-namespace counters count the outcomes.
//! Every fast-path mode: slot holders are named, shared-word counters are shown without an
//! owner.

use std::time::{Duration, Instant};

use mdl_core::*;
use mdl_reference::matrix::{conflicts, has_priority};
use mdl_reference::support::*;

/// Polls until `lock_waits()` has at least `n` rows, and checks them against the reference
/// matrices.
fn wait_rows(mgr: &MdlManager, n: usize) -> LockWaits {
    let start = Instant::now();
    loop {
        let w = mgr.lock_waits();
        if w.rows.len() >= n {
            check_against_matrices(&w);
            return w;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{n} rows never came: {w}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Every row agrees with the reference matrices (priority matrix 0 here) and no context blocks
/// itself.
fn check_against_matrices(w: &LockWaits) {
    for r in &w.rows {
        assert_ne!(r.blocker.context, Some(r.waiting), "blocks itself: {r}");
        let scoped = r.key.namespace().strategy() == Strategy::Scoped;
        match r.blocker.kind {
            BlockKind::Hard => assert!(
                conflicts(scoped, r.requested, r.blocker.lock_type),
                "not a conflict: {r}"
            ),
            BlockKind::Soft => assert!(
                has_priority(scoped, 0, r.requested, r.blocker.lock_type),
                "no priority: {r}"
            ),
            other => panic!("unknown blocker kind {other:?}: {r}"),
        }
    }
}

fn blockers_of(w: &LockWaits, waiting: ContextId) -> Vec<(Option<ContextId>, LockType, BlockKind)> {
    let mut v: Vec<_> = w
        .rows
        .iter()
        .filter(|r| r.waiting == waiting)
        .map(|r| (r.blocker.context, r.blocker.lock_type, r.blocker.kind))
        .collect();
    v.sort_by_key(|b| (b.0, b.1));
    v
}

/// Asserts that what blocks `waiting` in `w` is `want` (in any order): (blocker, its type, how).
fn assert_blockers(
    w: &LockWaits,
    waiting: ContextId,
    want: &[(Option<ContextId>, LockType, BlockKind)],
) {
    let mut want = want.to_vec();
    want.sort_by_key(|b| (b.0, b.1));
    assert_eq!(blockers_of(w, waiting), want, "blockers of {waiting}: {w}");
}

#[test]
fn pile_up_behind_a_ddl_one_and_two_levels() {
    for m in managers_per_mode() {
        let mode = m.config().fast_path;
        let t = table("t");
        // A long transaction reads, another writes: both on the fast path where there is one.
        let reader = Worker::new(&m);
        reader.run(|c| c.set_label("reader"));
        reader.hold(&t, LockType::SR);
        let writer = Worker::holding(&m, &t, LockType::SW);
        assert!(m.find_lock_owner(&t).is_some() || mode == FastPath::SharedWord);
        // ALTER waits for both (hard).
        let ddl = Worker::new(&m);
        ddl.run(|c| c.set_label("ALTER TABLE t"));
        let ddl_rx = ddl.start_pending(&m, &t, LockType::X);
        let w = wait_rows(&m, 2);
        let want_holders = if mode == FastPath::SharedWord {
            // Shared-word counters name no owner, until the holders wait or go obtrusive.
            vec![
                (None, LockType::SR, BlockKind::Hard),
                (None, LockType::SW, BlockKind::Hard),
            ]
        } else {
            vec![
                (Some(reader.id), LockType::SR, BlockKind::Hard),
                (Some(writer.id), LockType::SW, BlockKind::Hard),
            ]
        };
        assert_blockers(&w, ddl.id, &want_holders);
        let row = w.rows.iter().find(|r| r.waiting == ddl.id).unwrap();
        assert_eq!(row.waiting_label.as_deref(), Some("ALTER TABLE t"));
        assert_eq!(row.requested, LockType::X);
        if mode != FastPath::SharedWord {
            let r = w
                .rows
                .iter()
                .find(|r| r.blocker.context == Some(reader.id))
                .unwrap();
            assert_eq!(r.blocker.label.as_deref(), Some("reader"));
            assert_eq!(r.blocker.duration, Some(LockDuration::Transaction));
            assert_eq!(w.root_blockers().len(), 2, "{w}");
        }
        // A new SELECT queues behind the pending X (soft: the priority matrix).
        let (select, sel_rx) = Worker::pending(&m, &t, LockType::SR);
        let w = wait_rows(&m, 3);
        assert_blockers(
            &w,
            select.id,
            &[(Some(ddl.id), LockType::X, BlockKind::Soft)],
        );
        assert_eq!(
            m.blocking_contexts(select.id)
                .iter()
                .map(|b| (b.context, b.kind))
                .collect::<Vec<_>>(),
            vec![(Some(ddl.id), BlockKind::Soft)]
        );
        assert!(m.blocking_contexts(reader.id).is_empty(), "not waiting");
        let text = w.to_string();
        assert!(text.contains("SOFT") && text.contains("HARD"), "{text}");
        // The holders finish: the ALTER runs, then the SELECT; every row goes.
        reader.release_all();
        writer.release_all();
        recv(&ddl_rx).unwrap();
        ddl.release_all();
        recv(&sel_rx).unwrap();
        assert!(m.lock_waits().rows.is_empty(), "[{mode}]");
        select.release_all();
        let counters = m.wait_counters();
        let table_counts = counters
            .iter()
            .find(|c| c.namespace == Namespace::Table)
            .unwrap();
        assert_eq!(
            (
                table_counts.waits,
                table_counts.timeouts,
                table_counts.kills
            ),
            (2, 0, 0)
        );
    }
}

#[test]
fn three_levels_and_the_root_blocker() {
    for m in managers_per_mode() {
        let (t1, t2) = (table("t1"), table("t2"));
        // c1 holds X on t1; c2 holds SR on t2 and waits for SR on t1; c3 waits for X on t2;
        // c4 waits for SR on t2 behind c3's pending X.
        let c1 = Worker::holding(&m, &t1, LockType::X);
        let c2 = Worker::holding(&m, &t2, LockType::SR);
        let r2 = c2.start_pending(&m, &t1, LockType::SR);
        let (c3, r3) = Worker::pending(&m, &t2, LockType::X);
        let (c4, r4) = Worker::pending(&m, &t2, LockType::SR);
        let w = wait_rows(&m, 3);
        assert_blockers(&w, c2.id, &[(Some(c1.id), LockType::X, BlockKind::Hard)]);
        // c2's SR on t2 is visible: a per-context slot was moved into the queue by c3's X,
        // and in shared-word mode c2 put its counter in the queue before it waited.
        assert_blockers(&w, c3.id, &[(Some(c2.id), LockType::SR, BlockKind::Hard)]);
        assert_blockers(&w, c4.id, &[(Some(c3.id), LockType::X, BlockKind::Soft)]);
        assert_eq!(w.root_blockers(), vec![(c1.id, 1)], "{w}");
        c1.release_all();
        grant_then_release(&[(&c2, &r2), (&c3, &r3), (&c4, &r4)]);
        assert!(m.lock_waits().rows.is_empty());
    }
}

#[test]
fn soft_block_from_the_priority_matrix_and_an_upgrade() {
    for m in managers_per_mode() {
        let t = table("t");
        // a holds SW; b asks SNW (waits, hard on SW); c asks SW: compatible with a's SW, but the
        // pending SNW has priority over SW (W0), so c waits too (soft on b).
        let a = Worker::holding(&m, &t, LockType::SW);
        let (b, rb) = Worker::pending(&m, &t, LockType::SNW);
        let (c, rc) = Worker::pending(&m, &t, LockType::SW);
        let w = wait_rows(&m, 2);
        assert_blockers(&w, c.id, &[(Some(b.id), LockType::SNW, BlockKind::Soft)]);
        a.release_all();
        let snw = recv(&rb).unwrap();
        // c still waits, now hard on b's SNW.
        let w = wait_rows(&m, 1);
        assert_blockers(&w, c.id, &[(Some(b.id), LockType::SNW, BlockKind::Hard)]);
        // d reads (SR goes with SNW and the pending SW has no priority over it); then b
        // upgrades SNW to X: its own SNW is not a blocker, d's SR is.
        let d = Worker::holding(&m, &t, LockType::SR);
        let up = b.start(move |ctx| ctx.upgrade(snw, LockType::X, LONG));
        let start = Instant::now();
        loop {
            let w = m.lock_waits();
            let mine = blockers_of(&w, b.id);
            if !mine.is_empty() {
                check_against_matrices(&w);
                assert!(mine.iter().all(|x| x.0 != Some(b.id)));
                assert!(
                    mine.contains(&(Some(d.id), LockType::SR, BlockKind::Hard)),
                    "{w}"
                );
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "upgrade never waited"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        d.release_all();
        recv(&up).unwrap();
        b.release_all();
        recv(&rc).unwrap();
        c.release_all();
        assert!(m.lock_waits().rows.is_empty());
    }
}

#[test]
fn failed_waits_name_their_blockers() {
    for m in managers_per_mode() {
        let t = table("t");
        let holder = Worker::new(&m);
        holder.run(|c| c.set_label("app@host: UPDATE t"));
        holder.hold(&t, LockType::SW);
        // Materialized or in a slot, the holder is named (shared-word: after it went slow).
        holder.run(|c| {
            c.acquire(&treq(&table("other"), LockType::X), LONG)
                .unwrap();
        });
        let mut ddl = m.new_context();
        let err = ddl
            .acquire(&treq(&t, LockType::X), Duration::from_millis(20))
            .unwrap_err();
        let MdlError::Timeout(w) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(w.key, t);
        assert_eq!(w.lock_type, LockType::X);
        assert!(w.waited >= Duration::from_millis(20));
        assert_eq!(w.blockers.len(), 1, "{err}");
        assert_eq!(w.blockers[0].context, Some(holder.id));
        assert_eq!(w.blockers[0].lock_type, LockType::SW);
        let text = err.to_string();
        assert!(text.starts_with("Lock wait timeout exceeded"), "{text}");
        assert!(
            text.contains(&format!("context {}", holder.id))
                && text.contains("app@host: UPDATE t")
                && text.contains("SHARED_WRITE"),
            "{text}"
        );
        // A try (zero timeout) names them too.
        let err = ddl.acquire(&treq(&t, LockType::X), ZERO).unwrap_err();
        let MdlError::Timeout(w) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(w.waited, Duration::ZERO);
        assert_eq!(w.blockers[0].context, Some(holder.id));
        // A kill ends the wait with the same facts.
        let kill = ddl.kill_handle();
        let k = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            kill.kill(KillScope::Connection);
        });
        let err = ddl.acquire(&treq(&t, LockType::X), LONG).unwrap_err();
        k.join().unwrap();
        assert_eq!(err.kind(), ErrorKind::Killed);
        let MdlError::Killed(w) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(w.blockers[0].context, Some(holder.id));
        ddl.reset_kill();
        let c = m
            .wait_counters()
            .into_iter()
            .find(|c| c.namespace == Namespace::Table)
            .unwrap();
        assert_eq!((c.waits, c.timeouts, c.kills, c.deadlocks), (2, 1, 1, 0));
        holder.release_all();
    }
}

#[test]
fn shared_word_counters_block_without_an_owner() {
    let m = mgr_with(|c| c.fast_path = FastPath::SharedWord);
    let t = table("t");
    let mut reader = m.new_context();
    reader.acquire(&treq(&t, LockType::SR), LONG).unwrap();
    let err = refused(&m, &t, LockType::X);
    let MdlError::Timeout(w) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(w.blockers.len(), 1);
    assert_eq!(w.blockers[0].context, None);
    assert_eq!(w.blockers[0].lock_type, LockType::SR);
    assert!(err.to_string().contains("fast-path holders"), "{err}");
}

/// The deadlock error and the history name exactly the contexts, keys and types of the cycle.
fn check_cycle(m: &MdlManager, err: &MdlError, members: &[(ContextId, MdlKey)], victim: ContextId) {
    let MdlError::Deadlock(d) = err else {
        panic!("{err:?}")
    };
    assert_eq!(d.victim, victim);
    assert_eq!(d.cause, DeadlockCause::Cycle);
    let n = members.len();
    assert_eq!(d.cycle.len(), n, "{err}");
    for e in &d.cycle {
        // Member i waits for X on its key, which member i+1 holds SR on.
        let i = members.iter().position(|(c, _)| *c == e.waiter).unwrap();
        let (next, key) = (members[(i + 1) % n].0, &members[i].1);
        assert_eq!((&e.key, e.requested), (key, LockType::X), "{e}");
        assert_eq!(
            (e.holder, e.held, e.kind),
            (next, LockType::SR, BlockKind::Hard)
        );
        assert_eq!(e.weight, 100, "DDL weight");
    }
    let text = err.to_string();
    assert!(text.starts_with("Deadlock found"), "{text}");
    for (c, _) in members {
        assert!(text.contains(&format!("context {c}")), "{text}");
    }
    let last = m.deadlocks().pop().expect("a history entry");
    assert_eq!(last.victim, victim);
    assert_eq!(last.cycle, d.cycle);
    #[cfg(feature = "pfs")]
    {
        let rows = m.metadata_deadlocks();
        let mine: Vec<_> = rows
            .rows
            .iter()
            .filter(|r| r.deadlock_id == last.id)
            .collect();
        assert_eq!(mine.len(), n, "{rows}");
        assert!(mine.iter().all(|r| r.victim_context_id == victim.as_u64()));
    }
}

#[test]
fn deadlocks_of_two_and_three_contexts_are_reported_edge_by_edge() {
    for m in managers_per_mode() {
        for n in [2, 3] {
            let keys: Vec<MdlKey> = (0..n).map(|i| table(&format!("d{n}_{i}"))).collect();
            let workers: Vec<Worker> = (0..n).map(|_| Worker::new(&m)).collect();
            for (w, k) in workers.iter().zip(&keys) {
                w.hold(k, LockType::SR);
            }
            // Each but the last asks X on the next one's key and waits; the last closes the
            // cycle and, all weights being equal (DDL), is the victim.
            let mut pending = Vec::new();
            for i in 0..n - 1 {
                pending.push(workers[i].start_pending(&m, &keys[i + 1], LockType::X));
            }
            let closing = treq(&keys[0], LockType::X);
            let err = workers[n - 1]
                .run(move |c| c.acquire(&closing, LONG))
                .unwrap_err();
            let members: Vec<(ContextId, MdlKey)> = (0..n)
                .map(|i| (workers[i].id, keys[(i + 1) % n].clone()))
                .collect();
            check_cycle(&m, &err, &members, workers[n - 1].id);
            workers[n - 1].release_all();
            // Each waiter gets its lock once the next one is done: unwind from the end.
            for (i, rx) in pending.iter().enumerate().rev() {
                recv(rx).unwrap();
                workers[i].release_all();
            }
            let c = m
                .wait_counters()
                .into_iter()
                .find(|c| c.namespace == Namespace::Table)
                .unwrap();
            assert!(c.deadlocks >= 1);
        }
        assert_eq!(m.deadlocks().len(), 2);
    }
}

#[test]
fn deadlock_history_keeps_the_last_n() {
    let m = mgr_with(|c| c.deadlock_history = 1);
    for round in 0..3 {
        let (k0, k1) = (table(&format!("h{round}a")), table(&format!("h{round}b")));
        let a = Worker::new(&m);
        let b = Worker::new(&m);
        a.hold(&k0, LockType::SR);
        b.hold(&k1, LockType::SR);
        let ra = a.start_pending(&m, &k1, LockType::X);
        let r = treq(&k0, LockType::X);
        assert_eq!(
            b.run(move |c| c.acquire(&r, LONG)).kinded(),
            Err(ErrorKind::Deadlock)
        );
        b.release_all();
        recv(&ra).unwrap();
        a.release_all();
    }
    let h = m.deadlocks();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].id, 3, "the third deadlock");
    let none = mgr_with(|c| c.deadlock_history = 0);
    assert!(none.deadlocks().is_empty());
}

/// Readers of every view while 16 threads lock and unlock at full speed: no context is ever
/// shown blocking itself, hard and soft rows agree with the matrices, nothing panics, and the
/// workers keep going (a view holds one lock object's read lock at a time).
#[test]
fn reading_the_views_under_load() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    for m in managers_per_mode() {
        let stop = Arc::new(AtomicBool::new(false));
        let ops = Arc::new(AtomicU64::new(0));
        let keys: Vec<MdlKey> = (0..4).map(|i| table(&format!("load{i}"))).collect();
        let workers: Vec<_> = (0..16u64)
            .map(|seed| {
                let (m, stop, ops, keys) = (m.clone(), stop.clone(), ops.clone(), keys.clone());
                std::thread::spawn(move || {
                    let mut rng = mdl_reference::fastrand::Rng::with_seed(seed);
                    let mut c = m.new_context();
                    c.set_label(format!("worker {seed}"));
                    let types = [
                        LockType::SR,
                        LockType::SW,
                        LockType::SR,
                        LockType::SNW,
                        LockType::X,
                    ];
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..rng.usize(1..4) {
                            let k = &keys[rng.usize(..keys.len())];
                            let t = types[rng.usize(..types.len())];
                            let _ = c.acquire(
                                &req(k, t, LockDuration::Transaction),
                                Duration::from_millis(2),
                            );
                        }
                        c.release_transactional_locks();
                        ops.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        let start = Instant::now();
        let (mut reads, mut rows) = (0u64, 0u64);
        while start.elapsed() < Duration::from_millis(600) {
            let w = m.lock_waits();
            check_against_matrices(&w);
            rows += w.rows.len() as u64;
            for r in &w.rows {
                for b in m.blocking_contexts(r.waiting) {
                    assert_ne!(b.context, Some(r.waiting));
                }
            }
            let _ = m.find_lock_owner(&keys[0]);
            let _ = m.deadlocks();
            #[cfg(feature = "pfs")]
            {
                let _ = m.metadata_locks();
                let _ = m.metadata_lock_waits();
            }
            reads += 1;
        }
        let before = ops.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(100));
        assert!(ops.load(Ordering::Relaxed) > before, "workers stalled");
        stop.store(true, Ordering::Relaxed);
        for w in workers {
            w.join().unwrap();
        }
        assert!(reads > 10, "{reads} reads");
        assert!(m.lock_waits().rows.is_empty());
        let _ = rows;
    }
}
