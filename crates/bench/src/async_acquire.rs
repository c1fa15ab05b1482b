//! The async API under measurement (issues 10 and 21): the no-wait path of `acquire_async`
//! against `acquire`, the wake-up latency of a queued waiter when its blocker releases (next to
//! `tokio::sync::RwLock`), how late the timer ends 10,000 concurrent waits, and 1,000 statement
//! tasks with a DDL every few milliseconds on a 2-worker tokio runtime, with a heartbeat task
//! measuring how late the runtime runs it.
//!
//! Used by the `async` report and by `benches/async_acquire.rs`.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::{Duration, Instant};

use mdl_core::{
    AsyncTimer, ContextId, ErrorKind, LockDuration, LockType, MdlConfig, MdlContext, MdlKey,
    MdlManager, MdlRequest, Namespace,
};
use serde::Serialize;
use tokio::runtime::Runtime;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

const LONG: Duration = Duration::from_secs(30);

fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).expect("valid key")
}

/// A multi-thread tokio runtime with `workers` worker threads and timers.
pub fn runtime(workers: usize) -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_time()
        .build()
        .expect("a tokio runtime")
}

/// Waits (spinning, yielding the CPU) until `cond` holds; panics after 10 s.
fn spin_until(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(10), "never: {what}");
        thread::yield_now();
    }
}

// ------------------------------------------------------------------------------------------
// The no-wait path.

/// How an uncontended lock is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Uncontended {
    /// `acquire`.
    Sync,
    /// An `acquire_async` future polled once with a no-op waker.
    AsyncPoll,
    /// The loop as one async block (run by a minimal `block_on`), each lock `.await`ed.
    AsyncAwait,
}

impl Uncontended {
    /// Every way, in table order.
    pub const ALL: [Uncontended; 3] = [
        Uncontended::Sync,
        Uncontended::AsyncPoll,
        Uncontended::AsyncAwait,
    ];

    /// A label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Uncontended::Sync => "acquire (sync)",
            Uncontended::AsyncPoll => "acquire_async, polled once",
            Uncontended::AsyncAwait => "acquire_async, .await in a task",
        }
    }
}

/// Runs `f` to completion on this thread (it is never pending here: no lock conflicts).
fn block_on<F: Future>(f: F) -> F::Output {
    let mut cx = Context::from_waker(Waker::noop());
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        thread::yield_now();
    }
}

/// Nanoseconds per SHARED_READ acquire + release on one table, single thread, default
/// configuration, `iters` times (after a warm-up).
pub fn uncontended_ns(how: Uncontended, iters: u64) -> f64 {
    let mgr = MdlManager::new(MdlConfig::default()).expect("valid config");
    let mut ctx = mgr.new_context();
    let req = MdlRequest::new(table("sbtest1"), LockType::SR, LockDuration::Statement);
    let mut cx = Context::from_waker(Waker::noop());
    let warm = (iters / 10).max(100);
    let mut run = |ctx: &mut MdlContext, n: u64| match how {
        Uncontended::Sync => {
            for _ in 0..n {
                let t = ctx.acquire(black_box(&req), LONG).expect("uncontended");
                ctx.release(black_box(t)).expect("held");
            }
        }
        Uncontended::AsyncPoll => {
            for _ in 0..n {
                let got = pin!(ctx.acquire_async(black_box(&req), LONG)).poll(&mut cx);
                let Poll::Ready(t) = got else {
                    panic!("an uncontended acquire_async was not ready on the first poll")
                };
                ctx.release(black_box(t.expect("uncontended")))
                    .expect("held");
            }
        }
        Uncontended::AsyncAwait => block_on(async {
            for _ in 0..n {
                let t = ctx.acquire_async(black_box(&req), LONG).await;
                ctx.release(black_box(t.expect("uncontended")))
                    .expect("held");
            }
        }),
    };
    run(&mut ctx, warm);
    let start = Instant::now();
    run(&mut ctx, iters);
    start.elapsed().as_nanos() as f64 / iters.max(1) as f64
}

// ------------------------------------------------------------------------------------------
// Wake-up latency.

/// Who waits, for the wake-up latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Waiter {
    /// A tokio task in `acquire_async(EXCLUSIVE)` while another thread holds SHARED_READ.
    MdlTask,
    /// A thread in `acquire(EXCLUSIVE)` (the blocking API), same blocker.
    MdlThread,
    /// A tokio task in `tokio::sync::RwLock::write` while another thread holds a read guard.
    TokioRwLock,
}

impl Waiter {
    /// Every waiter, in table order.
    pub const ALL: [Waiter; 3] = [Waiter::MdlTask, Waiter::TokioRwLock, Waiter::MdlThread];

    /// A label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Waiter::MdlTask => "mdl acquire_async (task)",
            Waiter::MdlThread => "mdl acquire (thread)",
            Waiter::TokioRwLock => "tokio::sync::RwLock write (task)",
        }
    }
}

/// A queued waiter and its blocker, ready to take samples: the waiter (a task on a 2-worker
/// runtime, or a thread) waits for a writer's lock while the calling thread holds a reader's;
/// a sample is the time from the blocker's release to the waiter's first instruction with the
/// lock.
pub struct WakeBench {
    kind: Waiter,
    _rt: Option<Runtime>,
    go: UnboundedSender<()>,
    granted: mpsc::Receiver<Instant>,
    mgr: Arc<MdlManager>,
    blocker: MdlContext,
    waiter: ContextId,
    key: MdlKey,
    rwlock: Arc<tokio::sync::RwLock<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl WakeBench {
    /// Starts the waiter (idle until [`WakeBench::sample`]).
    pub fn new(kind: Waiter) -> WakeBench {
        let mgr = MdlManager::new(MdlConfig::default()).expect("valid config");
        let key = table("t1");
        let (go, mut go_rx) = unbounded_channel::<()>();
        let (done, granted) = mpsc::channel();
        let rwlock = Arc::new(tokio::sync::RwLock::new(()));
        let mut ctx = mgr.new_context();
        let waiter = ctx.id();
        let x = MdlRequest::new(key.clone(), LockType::X, LockDuration::Transaction);
        let (mut rt, mut th) = (None, None);
        match kind {
            Waiter::MdlTask => {
                let r = runtime(2);
                r.spawn(async move {
                    while go_rx.recv().await.is_some() {
                        let t = ctx.acquire_async(&x, LONG).await.expect("granted");
                        let at = Instant::now();
                        ctx.release(t).expect("held");
                        let _ = done.send(at);
                    }
                });
                rt = Some(r);
            }
            Waiter::TokioRwLock => {
                let r = runtime(2);
                let lock = rwlock.clone();
                r.spawn(async move {
                    while go_rx.recv().await.is_some() {
                        let g = lock.write().await;
                        let at = Instant::now();
                        drop(g);
                        let _ = done.send(at);
                    }
                });
                rt = Some(r);
            }
            Waiter::MdlThread => {
                th = Some(thread::spawn(move || {
                    while go_rx.blocking_recv().is_some() {
                        let t = ctx.acquire(&x, LONG).expect("granted");
                        let at = Instant::now();
                        ctx.release(t).expect("held");
                        let _ = done.send(at);
                    }
                }));
            }
        }
        WakeBench {
            kind,
            _rt: rt,
            go,
            granted,
            blocker: mgr.new_context(),
            mgr,
            waiter,
            key,
            rwlock,
            thread: th,
        }
    }

    /// One sample: hold the reader's lock, let the waiter queue for the writer's, release,
    /// and return how long after the release the waiter had its lock.
    pub fn sample(&mut self) -> Duration {
        let (released, granted) = match self.kind {
            Waiter::MdlTask | Waiter::MdlThread => {
                let sr = MdlRequest::new(self.key.clone(), LockType::SR, LockDuration::Statement);
                let t = self.blocker.acquire(&sr, LONG).expect("free");
                self.go.send(()).expect("the waiter runs");
                let (mgr, id) = (&self.mgr, self.waiter);
                spin_until("the waiter queues", || {
                    mgr.lock_waits().rows.iter().any(|r| r.waiting == id)
                });
                let released = Instant::now();
                self.blocker.release(t).expect("held");
                (released, self.granted.recv().expect("the waiter's grant"))
            }
            Waiter::TokioRwLock => {
                let g = self.rwlock.try_read().expect("free");
                self.go.send(()).expect("the waiter runs");
                // A queued writer takes the permits as they free up, so new readers fail.
                let lock = &self.rwlock;
                spin_until("the writer queues", || lock.try_read().is_err());
                let released = Instant::now();
                drop(g);
                (released, self.granted.recv().expect("the waiter's grant"))
            }
        };
        granted.saturating_duration_since(released)
    }
}

impl Drop for WakeBench {
    fn drop(&mut self) {
        // Closing the channel ends the waiter's loop.
        let (go, _) = unbounded_channel();
        drop(std::mem::replace(&mut self.go, go));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

// ------------------------------------------------------------------------------------------
// Timer lateness: many concurrent async waits that time out.

/// Whose timer ends the waits of [`timer_lateness`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub enum TimerWaiter {
    /// `acquire_async` with a timeout: the lock manager's timer thread ([`AsyncTimer::Thread`],
    /// the default).
    #[default]
    Mdl,
    /// The same with [`AsyncTimer::Tokio`]: the deadline on the runtime's timer.
    MdlTokioTimer,
    /// `tokio::time::timeout` around `tokio::sync::RwLock::read()`: tokio's timer, the peer a
    /// tokio user would pick, on the same runtime and machine.
    TokioRwLock,
}

impl TimerWaiter {
    /// All, in the order the report lists them.
    pub const ALL: [TimerWaiter; 3] = [
        TimerWaiter::Mdl,
        TimerWaiter::MdlTokioTimer,
        TimerWaiter::TokioRwLock,
    ];

    /// The report's name.
    pub fn label(self) -> &'static str {
        match self {
            TimerWaiter::Mdl => "mdl acquire_async, mdl-timer thread",
            TimerWaiter::MdlTokioTimer => "mdl acquire_async, AsyncTimer::Tokio",
            TimerWaiter::TokioRwLock => "tokio RwLock + tokio::time::timeout",
        }
    }

    /// The manager's timer for this waiter.
    fn async_timer(self) -> AsyncTimer {
        match self {
            TimerWaiter::MdlTokioTimer => AsyncTimer::Tokio,
            TimerWaiter::Mdl | TimerWaiter::TokioRwLock => AsyncTimer::Thread,
        }
    }
}

/// What one run of [`timer_lateness`] saw.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TimerRun {
    /// Whose timer.
    pub waiter: TimerWaiter,
    /// Waiters.
    pub waiters: usize,
    /// Waits that ended with `Timeout` (all of them, unless something is wrong).
    pub timeouts: usize,
    /// Per waiter, in deadline order: how long after its deadline its future returned
    /// `Timeout` (µs). The deadline is taken from just before the call, so this is an upper
    /// bound of the timer's lateness.
    pub lateness_us: Vec<f64>,
    /// How long after the first task started the last one had queued (ms): deadlines start
    /// 300 ms after the first task.
    pub queued_ms: f64,
}

/// `waiters` tasks on a 2-worker runtime wait for a read lock on one of 100 tables that is
/// held exclusively: for [`TimerWaiter::Mdl`], each task with its own context asks SHARED_READ
/// while another context holds EXCLUSIVE; for [`TimerWaiter::TokioRwLock`], each awaits
/// `read()` of one of 100 `tokio::sync::RwLock`s whose write guards are held, under
/// `tokio::time::timeout`. Their deadlines are spread evenly over `spread`, starting 300 ms
/// after the first task starts (all are queued by then). Every wait times out; each task
/// records how late its timeout came back.
pub fn timer_lateness(waiter: TimerWaiter, waiters: usize, spread: Duration) -> TimerRun {
    let rt = runtime(2);
    let config = MdlConfig::builder()
        .async_timer(waiter.async_timer())
        .build()
        .expect("valid config");
    let mgr = MdlManager::new(config).expect("valid config");
    let tables: Arc<Vec<MdlKey>> = Arc::new((0..100).map(|i| table(&format!("late{i}"))).collect());
    let mut holder = mgr.new_context();
    for t in tables.iter() {
        let x = MdlRequest::new(t.clone(), LockType::X, LockDuration::Transaction);
        holder.acquire(&x, Duration::ZERO).expect("free");
    }
    let rwlocks: Arc<Vec<Arc<tokio::sync::RwLock<()>>>> = Arc::new(
        (0..tables.len())
            .map(|_| Arc::new(tokio::sync::RwLock::new(())))
            .collect(),
    );
    let writers: Vec<_> = rwlocks
        .iter()
        .map(|l| l.clone().try_write_owned().expect("free"))
        .collect();
    let start = Instant::now();
    let first = start + Duration::from_millis(300);
    let run = rt.block_on(async {
        let tasks: Vec<_> = (0..waiters)
            .map(|i| {
                let (mgr, tables, rwlocks) = (mgr.clone(), tables.clone(), rwlocks.clone());
                let due = first + spread.mul_f64(i as f64 / waiters.max(1) as f64);
                tokio::spawn(async move {
                    let mut ctx = mgr.new_context();
                    let req = MdlRequest::new(
                        tables[i % tables.len()].clone(),
                        LockType::SR,
                        LockDuration::Statement,
                    );
                    let rwlock = &rwlocks[i % rwlocks.len()];
                    let now = Instant::now();
                    let timeout = due.saturating_duration_since(now);
                    let deadline = now + timeout;
                    let timed_out = match waiter {
                        TimerWaiter::Mdl | TimerWaiter::MdlTokioTimer => matches!(
                            ctx.acquire_async(&req, timeout).await,
                            Err(e) if e.kind() == ErrorKind::Timeout
                        ),
                        TimerWaiter::TokioRwLock => {
                            tokio::time::timeout(timeout, rwlock.read()).await.is_err()
                        }
                    };
                    let late = Instant::now().saturating_duration_since(deadline);
                    (timed_out, late.as_nanos() as f64 / 1e3, now)
                })
            })
            .collect();
        let mut run = TimerRun {
            waiter,
            waiters,
            ..TimerRun::default()
        };
        for t in tasks {
            if let Ok((timed_out, late, called)) = t.await {
                run.timeouts += usize::from(timed_out);
                run.lateness_us.push(late);
                let queued = called.saturating_duration_since(start).as_secs_f64() * 1e3;
                run.queued_ms = run.queued_ms.max(queued);
            }
        }
        run
    });
    drop((holder, writers));
    rt.shutdown_timeout(Duration::from_secs(10));
    assert!(mgr.lock_waits().rows.is_empty(), "a wait left behind");
    run
}

// ------------------------------------------------------------------------------------------
// Many tasks, a DDL every few milliseconds, a heartbeat.

/// How the DDL task takes its EXCLUSIVE lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DdlCall {
    /// `acquire_async(...).await`.
    Async,
    /// The blocking `acquire` called inside the task (what users did before the async API):
    /// its worker thread sleeps while the DDL waits.
    Blocking,
    /// No DDL: the sessions and the heartbeat alone (the runtime's and the machine's floor).
    None,
}

impl DdlCall {
    /// A label for tables.
    pub fn label(self) -> &'static str {
        match self {
            DdlCall::Async => "DDL awaits acquire_async",
            DdlCall::Blocking => "DDL calls blocking acquire in the task",
            DdlCall::None => "no DDL (baseline)",
        }
    }
}

/// The workload: `tasks` session tasks on a runtime with `workers` workers, each running
/// `statements` statements (SHARED_READ on one of `tables` tables, held across a 1 ms
/// `sleep`), one DDL task taking EXCLUSIVE on the tables in turn (held 1 ms, then a pause of
/// `ddl_every`) until the sessions are done, and a heartbeat task on a 1 ms interval.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Tasks {
    /// Worker threads.
    pub workers: usize,
    /// Session tasks.
    pub tasks: usize,
    /// Tables.
    pub tables: usize,
    /// Statements per session.
    pub statements: usize,
    /// Pause between two DDLs.
    pub ddl_every: Duration,
    /// The DDL's lock wait timeout (it bounds the blocking variant).
    pub ddl_timeout: Duration,
    /// How the DDL waits.
    pub ddl: DdlCall,
}

impl Tasks {
    /// Issue 10's workload: 1,000 tasks on 8 tables on 2 workers, a DDL every 2 ms.
    pub fn issue_10(statements: usize, ddl: DdlCall) -> Tasks {
        Tasks {
            workers: 2,
            tasks: 1_000,
            tables: 8,
            statements,
            ddl_every: Duration::from_millis(2),
            ddl_timeout: Duration::from_millis(100),
            ddl,
        }
    }
}

/// What one run of [`Tasks`] did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TasksRun {
    /// Session tasks that ran all their statements.
    pub finished: usize,
    /// Statements that failed (none expected).
    pub statement_errors: usize,
    /// Wall time until every session task finished.
    pub total: Duration,
    /// DDLs that got their lock, and that timed out.
    pub ddls: u64,
    /// DDLs that timed out.
    pub ddl_timeouts: u64,
    /// How late each heartbeat tick ran (µs), past its scheduled instant.
    pub heartbeat_us: Vec<f64>,
    /// CPU time of the runtime's worker threads over the run.
    pub worker_cpu: Duration,
}

/// Runs the workload once.
pub fn run_tasks(w: &Tasks) -> TasksRun {
    let cpu_ns = Arc::new(AtomicU64::new(0));
    let on_stop = cpu_ns.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(w.workers)
        .enable_time()
        .on_thread_stop(move || {
            on_stop.fetch_add(crate::runner::thread_cpu_ns(), Relaxed);
        })
        .build()
        .expect("a tokio runtime");
    let mgr = MdlManager::new(MdlConfig::default()).expect("valid config");
    let tables: Arc<Vec<MdlKey>> =
        Arc::new((0..w.tables).map(|i| table(&format!("t{i}"))).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let (ddls, ddl_timeouts) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let w = *w;
    let mut run = rt.block_on(async {
        let heartbeat = {
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut late = Vec::new();
                let mut iv = tokio::time::interval(Duration::from_millis(1));
                iv.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                while !stop.load(Relaxed) {
                    let due = iv.tick().await;
                    late.push(due.elapsed().as_nanos() as f64 / 1e3);
                }
                late
            })
        };
        let ddl = {
            let (mgr, tables, stop) = (mgr.clone(), tables.clone(), stop.clone());
            let (ddls, timeouts) = (ddls.clone(), ddl_timeouts.clone());
            tokio::spawn(async move {
                let mut ctx = mgr.new_context();
                ctx.set_label("DDL");
                let mut n = 0;
                while !stop.load(Relaxed) && w.ddl != DdlCall::None {
                    let x = MdlRequest::new(
                        tables[n % tables.len()].clone(),
                        LockType::X,
                        LockDuration::Transaction,
                    );
                    n += 1;
                    let mut tx = ctx.transaction();
                    let got = match w.ddl {
                        DdlCall::Async => tx.acquire_async(&x, w.ddl_timeout).await,
                        DdlCall::Blocking | DdlCall::None => tx.acquire(&x, w.ddl_timeout),
                    };
                    match got {
                        Ok(_) => {
                            ddls.fetch_add(1, Relaxed);
                            tokio::time::sleep(Duration::from_millis(1)).await;
                        }
                        Err(e) if e.kind() == ErrorKind::Timeout => {
                            timeouts.fetch_add(1, Relaxed);
                        }
                        Err(e) => panic!("DDL: {e}"),
                    }
                    drop(tx);
                    tokio::time::sleep(w.ddl_every).await;
                }
            })
        };
        let start = Instant::now();
        let sessions: Vec<_> = (0..w.tasks)
            .map(|i| {
                let (mgr, tables) = (mgr.clone(), tables.clone());
                tokio::spawn(async move {
                    let mut ctx = mgr.new_context();
                    let mut errors = 0;
                    for s in 0..w.statements {
                        let key = &tables[(i * 7 + s) % tables.len()];
                        let req =
                            MdlRequest::new(key.clone(), LockType::SR, LockDuration::Statement);
                        let mut stmt = ctx.statement();
                        match stmt.acquire_async(&req, LONG).await {
                            Ok(_) => tokio::time::sleep(Duration::from_millis(1)).await,
                            Err(_) => errors += 1,
                        }
                    }
                    errors
                })
            })
            .collect();
        let mut run = TasksRun::default();
        for s in sessions {
            if let Ok(errors) = s.await {
                run.finished += 1;
                run.statement_errors += errors;
            }
        }
        run.total = start.elapsed();
        stop.store(true, Relaxed);
        let _ = ddl.await;
        run.heartbeat_us = heartbeat.await.unwrap_or_default();
        run
    });
    run.ddls = ddls.load(Relaxed);
    run.ddl_timeouts = ddl_timeouts.load(Relaxed);
    rt.shutdown_timeout(Duration::from_secs(10));
    run.worker_cpu = Duration::from_nanos(cpu_ns.load(Relaxed));
    assert!(mgr.lock_waits().rows.is_empty(), "a wait left behind");
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncontended_modes_run() {
        for how in Uncontended::ALL {
            assert!(uncontended_ns(how, 1_000) > 0.0);
        }
    }

    #[test]
    fn every_waiter_wakes() {
        for kind in Waiter::ALL {
            let mut b = WakeBench::new(kind);
            for _ in 0..5 {
                assert!(b.sample() < Duration::from_secs(5), "{kind:?}");
            }
        }
    }

    #[test]
    fn timer_lateness_runs() {
        for waiter in TimerWaiter::ALL {
            let r = timer_lateness(waiter, 200, Duration::from_millis(100));
            assert_eq!(r.timeouts, 200, "{waiter:?}");
            assert_eq!(r.lateness_us.len(), 200);
        }
    }

    #[test]
    fn small_tasks_workload_finishes() {
        for ddl in [DdlCall::Async, DdlCall::Blocking] {
            let w = Tasks {
                tasks: 50,
                statements: 3,
                ..Tasks::issue_10(3, ddl)
            };
            let r = run_tasks(&w);
            assert_eq!(r.finished, 50);
            assert_eq!(r.statement_errors, 0);
            assert!(!r.heartbeat_us.is_empty());
        }
    }
}
