//! Session control from any task: kills by context id in both scopes (MySQL's `KILL QUERY` and
//! `KILL`), contexts created with a server's own ids, and owned lock guards that hold no borrow
//! of their context (moved between tasks and threads, held across `.await` points).

use std::sync::Arc;
use std::time::Duration;

use mdl_core::{
    ContextId, ErrorKind, KillScope, LockDuration, LockGuard, LockType, MdlContext, MdlError,
    MdlManager,
};
use mdl_reference::support::*;
use tokio::time::sleep;

const LONG: Duration = Duration::from_secs(3600);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("a runtime")
}

/// Waits (asynchronously) until context `id` waits in the wait-for graph.
async fn until_waiting(mgr: &MdlManager, id: ContextId) {
    for _ in 0..20_000 {
        if mgr.lock_waits().rows.iter().any(|r| r.waiting == id) {
            return;
        }
        sleep(Duration::from_millis(1)).await;
    }
    panic!("context {id} never waited");
}

/// A SELECT's SHARED_READ on `t`, in a statement, on a task: the outcome's kind.
async fn select(ctx: &mut MdlContext, t: &mdl_core::MdlKey) -> Result<(), ErrorKind> {
    let mut stmt = ctx.statement();
    let sr = req(t, LockType::SR, LockDuration::Statement);
    stmt.acquire_async(&sr, LONG)
        .await
        .map(|_| ())
        .map_err(|e| e.kind())
}

#[test]
fn kill_query_by_id_ends_the_wait_and_lets_the_next_statement_run() {
    runtime().block_on(async {
        let mgr = mgr();
        let t = table("t");
        let mut ddl = mgr.new_context();
        let x = ddl.acquire(&treq(&t, LockType::X), LONG).unwrap();
        let mut session = mgr.new_context_with_id(4242).unwrap();
        let id = session.id();
        assert_eq!(id, ContextId::new(4242));

        let waiter = tokio::spawn(async move {
            let first = select(&mut session, &table("t")).await;
            (session, first)
        });
        until_waiting(&mgr, id).await;
        // KILL QUERY from another task, by id.
        mgr.kill(id, KillScope::Query).unwrap();
        let (mut session, first) = waiter.await.unwrap();
        assert_eq!(first, Err(ErrorKind::Killed));
        assert_eq!(session.pending_kill(), None, "the statement ended");

        // The next statement runs: it waits like any other and is granted after the DDL.
        let next = tokio::spawn(async move {
            let r = select(&mut session, &table("t")).await;
            (session, r)
        });
        until_waiting(&mgr, id).await;
        ddl.release(x).unwrap();
        let (session, r) = next.await.unwrap();
        assert_eq!(r, Ok(()));
        assert_clean_after(&mgr, (session, ddl));
    });
}

#[test]
fn kill_query_lasts_for_the_rest_of_the_statement_only() {
    let mgr = mgr();
    let (t, u) = (table("t"), table("u"));
    let mut ddl = mgr.new_context();
    ddl.acquire(&treq(&t, LockType::X), LONG).unwrap();
    ddl.acquire(&treq(&u, LockType::X), LONG).unwrap();
    let mut s = mgr.new_context();
    {
        let mut stmt = s.statement();
        mgr.kill(stmt.id(), KillScope::Query).unwrap();
        // Every wait of the killed statement ends at once, not only the first.
        for key in [&t, &u] {
            let e = stmt.acquire(&treq(key, LockType::SR), LONG).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Killed);
            assert_eq!(e.mysql_error_code(), Some(1317));
        }
        // A request that needs no wait is still granted (MySQL checks the kill in waits).
        stmt.acquire(&treq(&table("free"), LockType::SR), LONG)
            .unwrap();
    }
    assert_eq!(s.pending_kill(), None);
    // A query kill that arrives between statements ends neither (the next one clears it).
    mgr.kill(s.id(), KillScope::Query).unwrap();
    assert_eq!(s.pending_kill(), Some(KillScope::Query));
    let mut stmt = s.statement();
    assert_eq!(stmt.pending_kill(), None);
    let e = stmt
        .acquire(&treq(&t, LockType::SR), Duration::from_millis(20))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "a plain wait, not a kill");
    drop(stmt);
    assert_clean_after(&mgr, (s, ddl));
}

#[test]
fn kill_connection_by_id_ends_every_later_wait_until_reset() {
    runtime().block_on(async {
        let mgr = mgr();
        let t = table("t");
        let mut ddl = mgr.new_context();
        let x = ddl.acquire(&treq(&t, LockType::X), LONG).unwrap();
        let mut session = mgr.new_context_with_id(77).unwrap();
        let id = session.id();
        let waiter = tokio::spawn(async move {
            let r = select(&mut session, &table("t")).await;
            (session, r)
        });
        until_waiting(&mgr, id).await;
        mgr.kill(id, KillScope::Connection).unwrap();
        // A later query kill does not weaken it.
        mgr.kill(id, KillScope::Query).unwrap();
        let (mut session, r) = waiter.await.unwrap();
        assert_eq!(r, Err(ErrorKind::Killed));
        assert_eq!(session.pending_kill(), Some(KillScope::Connection));
        // Statement ends do not clear a connection kill: the next wait ends at once.
        assert_eq!(select(&mut session, &t).await, Err(ErrorKind::Killed));
        assert_eq!(session.pending_kill(), Some(KillScope::Connection));
        session.reset_kill();
        ddl.release(x).unwrap();
        assert_eq!(select(&mut session, &t).await, Ok(()));
        assert_clean_after(&mgr, (session, ddl));
    });
}

#[test]
fn kill_handles_take_a_scope_too() {
    let (mgr, mut c, mut o) = two_contexts();
    let t = table("t");
    o.acquire(&treq(&t, LockType::X), LONG).unwrap();
    let h = c.kill_handle();
    assert_eq!(h.context_id(), c.id());
    let waiter = std::thread::spawn(move || {
        let e = c
            .acquire(&treq(&table("t"), LockType::SR), LONG)
            .unwrap_err();
        (c, e.kind())
    });
    wait_pending(&mgr, h.context_id(), &t, LockType::SR);
    h.kill(KillScope::Query);
    let (mut c, kind) = waiter.join().unwrap();
    assert_eq!(kind, ErrorKind::Killed);
    assert_eq!(h.pending_kill(), Some(KillScope::Query));
    c.release_statement_locks();
    assert_eq!(h.pending_kill(), None);
    assert_clean_after(&mgr, (c, o));
}

#[test]
fn killing_an_unknown_id_is_mysqls_no_such_thread() {
    let mgr = mgr();
    let c = mgr.new_context();
    let gone = c.id();
    drop(c);
    for id in [gone, ContextId::new(u64::MAX)] {
        let e = mgr.kill(id, KillScope::Connection).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnknownContext);
        assert_eq!(e.mysql_error_code(), Some(1094));
        assert_eq!(e.to_string(), format!("Unknown thread id: {id}"));
    }
    // A context of another manager is unknown here.
    let other = mdl_reference::support::mgr().new_context();
    let e = mgr.kill(other.id(), KillScope::Query).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnknownContext);
}

#[test]
fn contexts_with_given_ids() {
    let mgr = mgr();
    let a = mgr.new_context_with_id(1).unwrap();
    assert_eq!(a.id(), ContextId::new(1));
    let e = mgr.new_context_with_id(1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ContextIdInUse);
    // Ids are per manager: another manager may use the same number.
    let other_mgr = mdl_reference::support::mgr();
    let mut b = other_mgr.new_context_with_id(1).unwrap();
    // ... but a ticket of one is never valid in the other.
    let mut a = a;
    let t = a.acquire(&treq(&table("t"), LockType::SR), LONG).unwrap();
    assert_eq!(b.release(t).unwrap_err().kind(), ErrorKind::InvalidTicket);
    a.release(t).unwrap();
    drop(a);
    // Free again once the context ends; the builder sets an id and an owner together.
    let a = mgr
        .build_context()
        .id(1)
        .owner(Arc::new(NoOwner))
        .build()
        .unwrap();
    assert_eq!(a.id(), ContextId::new(1));

    // Picked ids never collide with chosen ones.
    let first = mgr.new_context();
    let base = first.id().as_u64();
    let chosen: Vec<MdlContext> = (1..=2000)
        .map(|i| mgr.new_context_with_id(base + i).unwrap())
        .collect();
    let picked: Vec<MdlContext> = (0..100).map(|_| mgr.new_context()).collect();
    for p in &picked {
        assert!(
            !(base + 1..=base + 2000).contains(&p.id().as_u64()),
            "{}",
            p.id()
        );
    }
    let mut ids: Vec<u64> = picked.iter().map(|c| c.id().as_u64()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), picked.len());
    assert_eq!(mgr.context_count(), 1 + 2000 + 100 + 1);
    drop((chosen, picked, first, a, b));
}

struct NoOwner;
impl mdl_core::MdlOwner for NoOwner {}

#[test]
fn ids_show_in_diagnostics() {
    let mgr = mgr();
    let t = table("t");
    let mut reader = mgr.new_context_with_id(10).unwrap();
    reader.acquire(&treq(&t, LockType::SR), LONG).unwrap();
    let m = mgr.clone();
    let alter = std::thread::spawn(move || {
        let mut ddl = m.new_context_with_id(11).unwrap();
        ddl.acquire(&treq(&table("t"), LockType::X), LONG)
            .map(|_| ())
            .map_err(|e| e.kind())
    });
    wait_pending(&mgr, ContextId::new(11), &t, LockType::X);
    let waits = mgr.lock_waits();
    assert_eq!(waits.rows[0].waiting, ContextId::new(11));
    assert_eq!(waits.rows[0].blocker.context, Some(ContextId::new(10)));
    assert_eq!(
        mgr.blocking_contexts(ContextId::new(11))[0].context,
        Some(ContextId::new(10))
    );
    mgr.kill(ContextId::new(11), KillScope::Connection).unwrap();
    assert_eq!(alter.join().unwrap(), Err(ErrorKind::Killed));
    assert_clean_after(&mgr, reader);
}

/// Whether another context could take `t` on `key` right now.
fn free_for(mgr: &Arc<MdlManager>, key: &mdl_core::MdlKey, t: LockType) -> bool {
    let mut probe = mgr.new_context();
    can_take(&mut probe, key, t)
}

#[test]
fn guards_are_owned_moved_and_released_by_whoever_drops_them() {
    for mgr in managers_per_mode() {
        let (t1, t2) = (table("t1"), table("t2"));
        let mut ctx = mgr.new_context();
        let sr = |k| req(k, LockType::SR, LockDuration::Statement);
        // Several at once, and the context keeps working meanwhile.
        let g1 = ctx.acquire_guard(&sr(&t1), LONG).unwrap();
        let g2 = ctx.acquire_guard(&sr(&t2), LONG).unwrap();
        let plain = ctx.acquire(&sr(&table("t3")), LONG).unwrap();
        assert_eq!(g1.key(), &t1);
        assert_eq!(g1.lock_type(), LockType::SR);
        assert_eq!(g1.duration(), LockDuration::Statement);
        assert_eq!(g1.context_id(), ctx.id());
        assert_eq!(
            ctx.lock_count_of(LockDuration::Statement),
            1,
            "guards are not tickets"
        );
        assert_eq!((ctx.lock_count(), ctx.guard_count()), (3, 2));
        // Duration-based releases leave a guard's lock alone.
        let sp = ctx.savepoint();
        ctx.rollback_to_savepoint(sp).unwrap();
        ctx.release_transactional_locks();
        assert!(ctx.ticket_info(plain).is_err());
        assert!(!free_for(&mgr, &t1, LockType::X) && !free_for(&mgr, &t2, LockType::X));
        // Dropped on another thread.
        std::thread::spawn(move || drop(g1)).join().unwrap();
        assert!(free_for(&mgr, &t1, LockType::X));
        // A guard outlives its context.
        drop(ctx);
        assert!(!free_for(&mgr, &t2, LockType::X));
        g2.release();
        assert_clean(&mgr);
    }
}

#[test]
fn guards_cross_await_points_and_tasks() {
    runtime().block_on(async {
        let mgr = mgr();
        let t = table("t");
        let mut session = mgr.new_context();
        let g: LockGuard = session
            .acquire_guard_async(&treq(&t, LockType::SW), LONG)
            .await
            .unwrap();
        // Held across an await while another task's DDL waits for it.
        let m = mgr.clone();
        let ddl = tokio::spawn(async move {
            let mut c = m.new_context();
            let r = c
                .acquire_async(&treq(&table("t"), LockType::X), LONG)
                .await
                .map(|_| ());
            (c, r.map_err(|e| e.kind()))
        });
        sleep(Duration::from_millis(20)).await;
        assert_eq!(mgr.lock_waits().rows[0].blocker.context, Some(session.id()));
        // Moved into another task, which drops it after its own await.
        tokio::spawn(async move {
            sleep(Duration::from_millis(5)).await;
            drop(g);
        })
        .await
        .unwrap();
        let (c, r) = ddl.await.unwrap();
        assert_eq!(r, Ok(()));
        assert_clean_after(&mgr, (c, session));
    });
}

#[test]
fn a_guard_attaches_back_and_upgrades() {
    for mgr in managers_per_mode() {
        let t = table("t");
        let mut ctx = mgr.new_context();
        let g = ctx.acquire_guard(&treq(&t, LockType::SU), LONG).unwrap();
        // Not into another context: the guard comes back unchanged.
        let mut other = mgr.new_context();
        let g = other.attach(g).unwrap_err();
        assert!(!free_for(&mgr, &t, LockType::SU));
        let ticket = ctx.attach(g).unwrap();
        assert_eq!(ctx.ticket_info(ticket).unwrap().lock_type, LockType::SU);
        ctx.upgrade(ticket, LockType::X, LONG).unwrap();
        assert!(!free_for(&mgr, &t, LockType::SR));
        ctx.release_transactional_locks();
        assert_clean_after(&mgr, (ctx, other));
    }
}

#[test]
fn an_ended_contexts_id_stays_taken_while_its_guards_live() {
    // Diagnostics and kills name a guard's lock by its context's id: until the last guard of
    // an ended context is gone, no new context may take that id.
    let in_use =
        |mgr: &Arc<MdlManager>| mgr.new_context_with_id(9).map(|_| ()).map_err(|e| e.kind());
    for mgr in managers_per_mode() {
        let t = table("t");
        let mut old = mgr.new_context_with_id(9).unwrap();
        let g1 = old.acquire_guard(&treq(&t, LockType::SR), LONG).unwrap();
        let g2 = old
            .acquire_guard(&treq(&table("u"), LockType::SR), LONG)
            .unwrap();
        drop(old);
        assert_eq!(in_use(&mgr), Err(ErrorKind::ContextIdInUse));
        // No live context has it: a kill by that id finds nobody.
        let kill = mgr.kill(ContextId::new(9), KillScope::Connection);
        assert_eq!(kill.map_err(|e| e.kind()), Err(ErrorKind::UnknownContext));
        // What blocks an exclusive request: the guard, under the ended context's id, which
        // names nobody else.
        let mut ddl = mgr.new_context();
        let x = treq(&t, LockType::X);
        let Err(MdlError::Timeout(w)) = ddl.acquire(&x, Duration::from_millis(10)) else {
            panic!("not a timeout")
        };
        assert_eq!(w.blockers[0].context, Some(ContextId::new(9)));
        drop(g1);
        assert_eq!(
            in_use(&mgr),
            Err(ErrorKind::ContextIdInUse),
            "one guard left"
        );
        // The last guard frees the id, on whichever thread drops it.
        std::thread::spawn(move || drop(g2)).join().unwrap();
        assert_eq!(in_use(&mgr), Ok(()));
        assert_clean_after(&mgr, ddl);
    }
}

#[test]
fn a_guard_is_seen_by_deadlock_detection() {
    for mgr in managers_per_mode() {
        let (t1, t2) = (table("t1"), table("t2"));
        // A holds t1 through a guard and waits for t2; B holds t2 and asks for t1: a cycle.
        let a = Worker::new(&mgr);
        let ga = a.run(|c| {
            c.acquire_guard(&treq(&table("t1"), LockType::SW), LONG)
                .unwrap()
        });
        let b = Worker::holding(&mgr, &t2, LockType::X);
        let ra = a.start(|c| {
            c.acquire(&treq(&table("t2"), LockType::SR), LONG)
                .map(|_| ())
        });
        wait_pending(&mgr, a.id, &t2, LockType::SR);
        // B closes the cycle through A's guard; A (DML weighs less than DDL) is the victim.
        let rb = b.start(move |c| c.acquire(&treq(&t1, LockType::X), LONG).map(|_| ()));
        let victim = recv(&ra).unwrap_err();
        let MdlError::Deadlock(d) = victim else {
            panic!("not a deadlock: {victim}")
        };
        assert_eq!(d.victim, a.id);
        // As in MySQL, the victim's wait ends; its locks go when it lets them go: here, the
        // guard. Only then is B's X granted.
        assert!(rb.recv_timeout(Duration::from_millis(50)).is_err());
        drop(ga);
        assert!(recv(&rb).is_ok());
        b.release_all();
        a.release_all();
        assert_clean_after(&mgr, (a, b));
    }
}

#[test]
fn a_cycle_closed_by_a_context_holding_only_a_guard_is_found() {
    // Under the default `DeadlockSearch::WhenWaitedFor` a waiter searches only if someone waits
    // for a lock it holds: its guards' locks count. A holds t1 through a guard; B holds t2 and
    // waits for X on t1; A's X on t2 closes the cycle, and only A's own search can see it.
    const WAIT: Duration = Duration::from_secs(5);
    for mgr in managers_per_mode() {
        let (t1, t2) = (table("t1"), table("t2"));
        let a = Worker::new(&mgr);
        let ga = a.run(|c| {
            c.acquire_guard(&treq(&table("t1"), LockType::SR), LONG)
                .unwrap()
        });
        a.run(|c| {
            assert!(c.has_locks(), "a guard's lock is the context's lock");
            assert_eq!((c.lock_count(), c.guard_count()), (1, 1));
        });
        let b = Worker::holding(&mgr, &t2, LockType::SR);
        let rb = b.start(move |c| c.acquire(&treq(&t1, LockType::X), WAIT).map(|_| ()));
        wait_pending(&mgr, b.id, &table("t1"), LockType::X);
        let ra = a.start(move |c| c.acquire(&treq(&t2, LockType::X), WAIT).map(|_| ()));
        // Equal weights (DDL): the requester that searched, A, is the victim.
        match recv(&ra) {
            Err(MdlError::Deadlock(d)) => assert_eq!(d.victim, a.id),
            other => panic!("not a deadlock: {other:?}"),
        }
        assert_eq!(mgr.deadlocks().len(), 1);
        drop(ga);
        assert!(recv(&rb).is_ok());
        a.run(|c| assert!(!c.has_locks() && c.guard_count() == 0));
        b.release_all();
        assert_clean_after(&mgr, (a, b));
    }
}
