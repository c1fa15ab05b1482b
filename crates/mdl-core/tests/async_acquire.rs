//! The async API: a grantable request is `Ready` at once without allocating, timeouts need no
//! `select!`, kills and deadlock verdicts wake a pending future, threads and tasks share one
//! wait-for graph, and dropping a future at any point leaves nothing behind (cancel safety).
//!
//! Futures are polled by hand here (a counting waker), so each test decides exactly when a
//! future runs; the runtime tests use tokio.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant};

use mdl_core::{
    ErrorKind, KillScope, LockDuration, LockType, MdlContext, MdlError, MdlKey, MdlManager,
    MdlRequest, Result, Ticket,
};
use mdl_reference::support::*;

// ------------------------------------------------------------------------------------------
// Counting allocations of the current thread.

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator unchanged; only counts calls of this thread.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract is passed through.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed through.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract is passed through.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCS.with(Cell::get)
}

// ------------------------------------------------------------------------------------------
// Polling by hand.

/// A waker that counts its wake-ups and unparks the thread that made it.
struct CountingWaker {
    wakes: AtomicUsize,
    thread: thread::Thread,
}

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        self.thread.unpark();
    }
}

fn counting_waker() -> (Arc<CountingWaker>, Waker) {
    let w = Arc::new(CountingWaker {
        wakes: AtomicUsize::new(0),
        thread: thread::current(),
    });
    (w.clone(), Waker::from(w))
}

fn poll<F: Future>(f: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    f.poll(&mut Context::from_waker(waker))
}

/// Runs a future on this thread, parking between polls; panics after 30 s.
fn block_on<F: Future>(f: F) -> F::Output {
    let (_, waker) = counting_waker();
    let mut f = pin!(f);
    let start = Instant::now();
    loop {
        if let Poll::Ready(v) = poll(f.as_mut(), &waker) {
            return v;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "future hung");
        thread::park_timeout(Duration::from_millis(100));
    }
}

/// Waits until `cond` holds, or panics after 20 s.
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(20), "never: {what}");
        thread::sleep(Duration::from_micros(200));
    }
}

fn sreq(key: &mdl_core::MdlKey, t: LockType) -> mdl_core::MdlRequest {
    req(key, t, LockDuration::Statement)
}

/// A worker holding `held` on `key`, a new context, and its STATEMENT request of `wanted` on
/// `key` (which waits for the worker if the two conflict).
fn held_and_wanted(
    mgr: &Arc<MdlManager>,
    key: &MdlKey,
    held: LockType,
    wanted: LockType,
) -> (Worker, MdlContext, MdlRequest) {
    let holder = Worker::holding(mgr, key, held);
    (holder, mgr.new_context(), sreq(key, wanted))
}

// ------------------------------------------------------------------------------------------
// The no-wait path.

#[test]
fn grantable_request_is_ready_on_first_poll_without_allocating() {
    for mgr in managers_per_mode() {
        let mode = mgr.config().fast_path;
        let mut ctx = mgr.new_context();
        let r = sreq(&table("t"), LockType::SR);
        // Warm up: the lock object is in the context's cache, the stores have capacity.
        for _ in 0..4 {
            block_on(ctx.acquire_async(&r, LONG)).unwrap();
            ctx.release_statement_locks();
        }
        let noop = Waker::noop();
        for _ in 0..100 {
            let before = allocations();
            let got = {
                let fut = pin!(ctx.acquire_async(&r, LONG));
                poll(fut, noop)
            };
            let Poll::Ready(Ok(_)) = got else {
                panic!("{mode:?}: not ready on the first poll: {got:?}")
            };
            ctx.release_statement_locks();
            assert_eq!(allocations(), before, "{mode:?}: allocated");
        }
        assert_clean(&mgr);
    }
}

#[test]
fn async_calls_return_the_sync_errors() {
    let (mgr, mut ctx) = one_context();
    let global = mdl_core::MdlKey::singleton(mdl_core::Namespace::Global).unwrap();
    let bad = sreq(&global, LockType::SR);
    let e = block_on(ctx.acquire_async(&bad, LONG)).unwrap_err();
    assert!(matches!(e, MdlError::InvalidLockType { .. }), "{e}");

    // A zero timeout only tries, as `acquire` does.
    let holder = Worker::holding(&mgr, &table("t"), LockType::X);
    let e = block_on(ctx.acquire_async(&sreq(&table("t"), LockType::SR), ZERO)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    let MdlError::Timeout(w) = &e else {
        unreachable!()
    };
    assert_eq!(w.blockers[0].context, Some(holder.id));
    holder.release_all();
    assert_clean_after(&mgr, holder);
}

#[test]
fn polling_a_finished_future_again_is_an_error_not_a_second_lock() {
    let (_mgr, mut ctx) = one_context();
    let r = sreq(&table("t"), LockType::SR);
    {
        let mut f = pin!(ctx.acquire_async(&r, LONG));
        assert!(matches!(
            poll(f.as_mut(), Waker::noop()),
            Poll::Ready(Ok(_))
        ));
        assert!(matches!(
            poll(f.as_mut(), Waker::noop()),
            Poll::Ready(Err(MdlError::InvalidTicket))
        ));
    }
    assert_eq!(ctx.lock_count(), 1);
}

// ------------------------------------------------------------------------------------------
// Waiting: timeout, kill, grant.

#[test]
fn timeout_ends_the_wait_without_select() {
    for mgr in managers_per_mode() {
        let (holder, mut ctx, r) = held_and_wanted(&mgr, &table("t"), LockType::X, LockType::SR);
        let start = Instant::now();
        // Polled only when woken: the timer thread must end the wait.
        let e = block_on(ctx.acquire_async(&r, Duration::from_millis(100))).unwrap_err();
        let waited = start.elapsed();
        assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
        assert!(waited >= Duration::from_millis(100), "{waited:?}");
        assert!(waited < Duration::from_secs(10), "{waited:?}");
        let MdlError::Timeout(w) = &e else {
            unreachable!()
        };
        assert_eq!(w.blockers[0].context, Some(holder.id));
        assert!(w.waited >= Duration::from_millis(100));
        holder.release_all();
        drop(holder);
        assert_clean_after(&mgr, ctx);
    }
}

#[test]
fn the_timer_wakes_a_task_that_is_not_polled() {
    let mgr = mgr();
    let (holder, mut ctx, r) = held_and_wanted(&mgr, &table("t"), LockType::X, LockType::SR);
    let (count, waker) = counting_waker();
    let mut f = pin!(ctx.acquire_async(&r, Duration::from_millis(30)));
    assert!(poll(f.as_mut(), &waker).is_pending());
    eventually("the timeout wakes the task", || {
        count.wakes.load(Ordering::SeqCst) > 0
    });
    let Poll::Ready(Err(e)) = poll(f.as_mut(), &waker) else {
        panic!("not timed out")
    };
    assert_eq!(e.kind(), ErrorKind::Timeout);
    holder.release_all();
}

#[test]
fn kill_wakes_a_pending_future() {
    let mgr = mgr();
    let (holder, mut ctx, r) = held_and_wanted(&mgr, &table("t"), LockType::SR, LockType::X);
    let kill = ctx.kill_handle();
    let id = ctx.id();
    let (count, waker) = counting_waker();
    {
        let mut f = pin!(ctx.acquire_async(&r, LONG));
        assert!(poll(f.as_mut(), &waker).is_pending());
        wait_pending(&mgr, id, &table("t"), LockType::X);
        let k = thread::spawn(move || kill.kill(KillScope::Connection));
        k.join().unwrap();
        assert!(count.wakes.load(Ordering::SeqCst) > 0, "kill did not wake");
        let Poll::Ready(Err(e)) = poll(f.as_mut(), &waker) else {
            panic!("not killed")
        };
        assert_eq!(e.kind(), ErrorKind::Killed, "{e}");
    }
    // A killed context stays killed until reset.
    let e = block_on(ctx.acquire_async(&r, LONG)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Killed);
    ctx.reset_kill();
    holder.release_all();
    block_on(ctx.acquire_async(&r, LONG)).unwrap();
    ctx.release_statement_locks();
    assert_clean_after(&mgr, (ctx, holder));
}

#[test]
fn a_release_wakes_and_grants_a_pending_future() {
    for mgr in managers_per_mode() {
        let (holder, mut ctx, r) = held_and_wanted(&mgr, &table("t"), LockType::SR, LockType::X);
        let (count, waker) = counting_waker();
        let t = {
            let mut f = pin!(ctx.acquire_async(&r, LONG));
            assert!(poll(f.as_mut(), &waker).is_pending());
            // Spurious polls change nothing.
            assert!(poll(f.as_mut(), &waker).is_pending());
            assert_eq!(pending_count(&mgr), 1);
            holder.release_all();
            assert!(
                count.wakes.load(Ordering::SeqCst) > 0,
                "release did not wake"
            );
            let Poll::Ready(Ok(t)) = poll(f.as_mut(), &waker) else {
                panic!("not granted")
            };
            t
        };
        assert_eq!(ctx.ticket_info(t).unwrap().lock_type, LockType::X);
        ctx.release(t).unwrap();
        assert_clean_after(&mgr, (ctx, holder));
    }
}

// ------------------------------------------------------------------------------------------
// Cancel safety.

/// Drops a pending X request after `polls` polls (state changes in between: another request
/// queues behind it), then checks that nothing of it is left and the one behind it is granted.
#[test]
fn dropping_after_each_poll_leaves_nothing_behind() {
    for mgr in managers_per_mode() {
        let mode = mgr.config().fast_path;
        for polls in 0..5 {
            let t = table("t");
            let (holder, mut ctx, r) = held_and_wanted(&mgr, &t, LockType::SR, LockType::X);
            let id = ctx.id();
            let behind = Worker::new(&mgr);
            let mut behind_rx = None;
            {
                let mut f = pin!(ctx.acquire_async(&r, LONG));
                for i in 0..polls {
                    assert!(poll(f.as_mut(), Waker::noop()).is_pending());
                    if i == 0 {
                        wait_pending(&mgr, id, &t, LockType::X);
                        // A SHARED_READ now queues behind the pending X (priority).
                        behind_rx = Some(behind.start_pending(&mgr, &t, LockType::SR));
                    }
                }
            }
            // Nothing of the dropped request is left...
            assert!(!has_entry(&mgr, id, &t, LockType::X, false), "{mode:?}");
            assert!(mgr.lock_waits().rows.iter().all(|w| w.waiting != id));
            // ... and the request it held back by priority was rescheduled and granted.
            if let Some(rx) = behind_rx {
                recv(&rx).expect("the request behind was granted");
            }
            assert!(!ctx.has_locks());
            holder.release_all();
            behind.release_all();
            assert_clean_after(&mgr, (holder, behind, ctx));
        }
    }
}

#[test]
fn dropping_while_the_grant_is_in_flight_releases_the_granted_lock() {
    for mgr in managers_per_mode() {
        let t = table("t");
        let (holder, mut ctx, r) = held_and_wanted(&mgr, &t, LockType::SR, LockType::X);
        let id = ctx.id();
        let (count, waker) = counting_waker();
        {
            let mut f = pin!(ctx.acquire_async(&r, LONG));
            assert!(poll(f.as_mut(), &waker).is_pending());
            holder.release_all();
            // Granted and woken, but the task never runs again.
            assert!(count.wakes.load(Ordering::SeqCst) > 0);
            assert!(has_entry(&mgr, id, &t, LockType::X, true));
        }
        assert!(!ctx.has_locks());
        let mut other = mgr.new_context();
        assert!(can_take(&mut other, &t, LockType::X), "the grant leaked");
        assert_clean_after(&mgr, (holder, ctx, other));
    }
}

#[test]
fn a_deadlock_victim_dropped_unpolled_frees_the_thread_it_blocked() {
    let mgr = mgr();
    let (t1, t2) = (table("t1"), table("t2"));
    let mut task = mgr.new_context();
    let thread_side = Worker::holding(&mgr, &t2, LockType::SNW);
    block_on(task.acquire_async(&sreq(&t1, LockType::SW), LONG)).unwrap();
    let r = sreq(&t2, LockType::SW);
    let (count, waker) = counting_waker();
    let rx;
    {
        let mut f = pin!(task.acquire_async(&r, LONG));
        assert!(poll(f.as_mut(), &waker).is_pending());
        // The thread closes the cycle; the task's DML wait is the cheaper victim.
        let x = treq(&t1, LockType::X);
        rx = thread_side.start(move |c| c.acquire(&x, LONG));
        eventually("the victim is woken", || {
            count.wakes.load(Ordering::SeqCst) > 0
        });
    }
    // Dropped unpolled: its queue entry is gone; the statement ends.
    task.release_statement_locks();
    recv(&rx).expect("the thread gets its X");
    thread_side.release_all();
    assert_clean_after(&mgr, (thread_side, task));
    assert_eq!(mgr.deadlocks().len(), 1);
}

#[test]
fn acquire_many_async_dropped_midway_releases_what_it_took() {
    let mgr = mgr();
    let (t1, t2) = (table("t1"), table("t2"));
    let holder = Worker::holding(&mgr, &t2, LockType::SR);
    let mut ctx = mgr.new_context();
    let reqs = vec![sreq(&t2, LockType::X), sreq(&t1, LockType::X)];
    {
        let mut f = pin!(ctx.acquire_many_async(&reqs, LONG));
        assert!(poll(f.as_mut(), Waker::noop()).is_pending());
    }
    assert!(!ctx.has_locks(), "t1's X leaked");
    holder.release_all();
    let tickets = block_on(ctx.acquire_many_async(&reqs, LONG)).unwrap();
    assert_eq!(
        ctx.ticket_info(tickets[0]).unwrap().key,
        t2,
        "in the caller's order"
    );
    assert_eq!(ctx.ticket_info(tickets[1]).unwrap().key, t1);
    assert_eq!(ctx.lock_count(), 2);
    ctx.release_statement_locks();
    assert_clean_after(&mgr, (holder, ctx));
}

#[test]
fn upgrade_async_dropped_keeps_the_original_lock() {
    let mgr = mgr();
    let t = table("t");
    let reader = Worker::holding(&mgr, &t, LockType::SR);
    let mut ctx = mgr.new_context();
    let su = block_on(ctx.acquire_async(&treq(&t, LockType::SU), LONG)).unwrap();
    {
        let mut f = pin!(ctx.upgrade_async(su, LockType::X, LONG));
        assert!(poll(f.as_mut(), Waker::noop()).is_pending());
    }
    assert_eq!(ctx.ticket_info(su).unwrap().lock_type, LockType::SU);
    assert_eq!(ctx.lock_count(), 1);
    assert_eq!(pending_count(&mgr), 0);
    reader.release_all();
    block_on(ctx.upgrade_async(su, LockType::X, LONG)).unwrap();
    assert_eq!(ctx.ticket_info(su).unwrap().lock_type, LockType::X);
    ctx.release_transactional_locks();
    assert_clean_after(&mgr, (reader, ctx));
}

// ------------------------------------------------------------------------------------------
// Threads and tasks in one wait-for graph.

/// A thread and a task deadlock; the lighter waiter (DML < DDL) is the victim, whichever side
/// it is on.
#[test]
fn deadlock_between_a_thread_and_a_task_picks_the_victim_by_weight() {
    for task_is_victim in [true, false] {
        let mgr = mgr();
        let (t1, t2) = (table("t1"), table("t2"));
        // The DML side holds SW on t1 and then wants SW on t2; the DDL side holds SNW on t2
        // and then wants X on t1.
        let (dml_first, dml_then) = (sreq(&t1, LockType::SW), sreq(&t2, LockType::SW));
        let (ddl_first, ddl_then) = (treq(&t2, LockType::SNW), treq(&t1, LockType::X));
        let (task_first, task_then, thread_first, thread_then) = if task_is_victim {
            (dml_first, dml_then, ddl_first, ddl_then)
        } else {
            (ddl_first, ddl_then, dml_first, dml_then)
        };
        let mut task = mgr.new_context();
        let thread_side = Worker::new(&mgr);
        thread_side
            .run(move |c| c.acquire(&thread_first, LONG).map(|_| ()))
            .unwrap();
        block_on(task.acquire_async(&task_first, LONG)).unwrap();
        let task_id = task.id();
        let (count, waker) = counting_waker();
        let (rx, task_outcome) = {
            let mut f = pin!(task.acquire_async(&task_then, LONG));
            assert!(poll(f.as_mut(), &waker).is_pending());
            let rx = thread_side.start(move |c| {
                let r = c.acquire(&thread_then, LONG).map(|_| ());
                c.release_transactional_locks();
                r
            });
            if !task_is_victim {
                let e = recv(&rx).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::Deadlock, "{e}");
                assert_eq!(mgr.deadlocks()[0].victim, thread_side.id);
            }
            // Victim, or granted once the thread's transaction ended: woken either way.
            eventually("the task is woken", || {
                count.wakes.load(Ordering::SeqCst) > 0
            });
            let Poll::Ready(outcome) = poll(f.as_mut(), &waker) else {
                panic!("woken but not ready")
            };
            (rx, outcome)
        };
        if task_is_victim {
            let e = task_outcome.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Deadlock, "{e}");
            let MdlError::Deadlock(d) = &e else {
                unreachable!()
            };
            assert_eq!(d.victim, task_id);
            // The victim's transaction ends; the thread proceeds.
            task.release_transactional_locks();
            recv(&rx).expect("the thread proceeds");
        } else {
            task_outcome.expect("the task is granted");
        }
        task.release_transactional_locks();
        assert_clean_after(&mgr, (thread_side, task));
        assert_eq!(mgr.deadlocks().len(), 1);
    }
}

// ------------------------------------------------------------------------------------------
// Scopes.

async fn failing_statement(ctx: &mut MdlContext, key: &mdl_core::MdlKey) -> Result<Ticket> {
    let mut stmt = ctx.statement();
    let t = stmt.acquire_async(&sreq(key, LockType::SR), LONG).await?;
    // The statement fails after taking its lock...
    stmt.acquire_async(&sreq(key, LockType::X), ZERO).await?;
    Ok(t)
}

#[test]
fn a_statement_scope_releases_on_early_return() {
    let mgr = mgr();
    let t = table("t");
    let other = Worker::holding(&mgr, &t, LockType::SR);
    let mut ctx = mgr.new_context();
    let e = block_on(failing_statement(&mut ctx, &t)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    assert!(!ctx.has_locks(), "the `?` leaked the statement's lock");
    // A transaction scope releases STATEMENT and TRANSACTION locks, not EXPLICIT ones.
    let u = mdl_core::MdlKey::new(mdl_core::Namespace::UserLevelLock, "", "u").unwrap();
    {
        let mut tx = ctx.transaction();
        tx.acquire(&treq(&t, LockType::SR), LONG).unwrap();
        tx.acquire(&req(&u, LockType::X, LockDuration::Explicit), LONG)
            .unwrap();
        let mut stmt = tx.statement();
        stmt.acquire(&sreq(&t, LockType::SW), LONG).unwrap();
        assert_eq!(stmt.lock_count(), 3);
        drop(stmt);
        assert_eq!(tx.lock_count(), 2);
    }
    assert_eq!(ctx.lock_count(), 1);
    other.release_all();
    assert_clean_after(&mgr, (other, ctx));
}

#[test]
fn default_timeouts_come_from_the_config_and_the_session() {
    let mgr = mgr_with(|c| c.lock_wait_timeout = Duration::from_millis(20));
    let t = table("t");
    let (holder, mut ctx, r) = held_and_wanted(&mgr, &t, LockType::X, LockType::SR);
    assert_eq!(ctx.lock_wait_timeout(), Duration::from_millis(20));
    assert_eq!(
        ctx.acquire_default(&r).unwrap_err().kind(),
        ErrorKind::Timeout
    );
    let e = block_on(ctx.acquire_default_async(&r)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    ctx.set_lock_wait_timeout(Duration::ZERO);
    let start = Instant::now();
    assert!(ctx.acquire_default(&r).is_err());
    assert!(start.elapsed() < Duration::from_secs(5));
    holder.release_all();
    ctx.set_lock_wait_timeout(LONG);
    ctx.acquire_default(&r).unwrap();
    ctx.release_statement_locks();
}

// ------------------------------------------------------------------------------------------
// On a runtime.

/// 1,000 statement tasks on 8 tables and a DDL every few milliseconds, on 2 workers: every
/// task finishes, and nothing is left.
#[test]
fn a_thousand_tasks_and_ddl_on_two_workers_all_finish() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    let mgr = mgr();
    let tables: Arc<Vec<_>> = Arc::new((0..8).map(|i| table(&format!("t{i}"))).collect());
    let done = rt.block_on(async {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ddl = {
            let (mgr, tables, stop) = (mgr.clone(), tables.clone(), stop.clone());
            tokio::spawn(async move {
                let mut ctx = mgr.new_context();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let key = &tables[(n % 8) as usize];
                    let mut stmt = ctx.statement();
                    stmt.acquire_async(&sreq(key, LockType::X), Duration::from_secs(30))
                        .await?;
                    tokio::time::sleep(Duration::from_micros(200)).await;
                    drop(stmt);
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    n += 1;
                }
                Ok::<u64, MdlError>(n)
            })
        };
        let mut tasks = Vec::new();
        for i in 0..1000u64 {
            let (mgr, tables) = (mgr.clone(), tables.clone());
            tasks.push(tokio::spawn(async move {
                let mut ctx = mgr.new_context();
                for s in 0..5u64 {
                    let key = &tables[((i * 7 + s) % 8) as usize];
                    let mut stmt = ctx.statement();
                    stmt.acquire_async(&sreq(key, LockType::SR), Duration::from_secs(30))
                        .await?;
                    tokio::time::sleep(Duration::from_micros(100)).await;
                }
                Ok::<(), MdlError>(())
            }));
        }
        let mut finished = 0;
        for t in tasks {
            t.await.unwrap().unwrap();
            finished += 1;
        }
        stop.store(true, Ordering::Relaxed);
        let ddls = ddl.await.unwrap().unwrap();
        (finished, ddls)
    });
    assert_eq!(done.0, 1000);
    assert!(done.1 > 0);
    assert_clean(&mgr);
}

#[test]
fn a_leaked_queued_future_is_withdrawn_when_its_context_drops() {
    let mgr = mgr();
    let t = table("t");
    let holder = Worker::new(&mgr);
    holder.hold(&t, LockType::SR);
    let mut ctx = mgr.new_context();
    let id = ctx.id();
    let r = sreq(&t, LockType::X);
    let mut f = Box::pin(ctx.acquire_async(&r, LONG));
    assert!(poll(f.as_mut(), Waker::noop()).is_pending());
    std::mem::forget(f);
    assert!(has_entry(&mgr, id, &t, LockType::X, false));
    drop(ctx);
    assert_eq!(pending_count(&mgr), 0);
    assert!(mgr.lock_waits().rows.is_empty());
    holder.release_all();
    drop(holder);
    assert_clean(&mgr);
}
