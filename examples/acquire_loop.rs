//! A fixed single-thread loop of SHARED_READ acquire + release on one table: the program to
//! count instructions of with callgrind, and a quick ns/op figure.
//!
//! ```text
//! cargo run --release --example acquire_loop -- [iterations] [fast path] [pfs preset] [mode]
//! valgrind --tool=callgrind target/release/examples/acquire_loop 100000 per-context default
//! valgrind --tool=callgrind target/release/examples/acquire_loop 100000 per-context default async
//! ```
//!
//! The fast path is `per-context` (the default), `shared-word` (MySQL 8.0; `on` is accepted for
//! it) or `off` (MySQL 5.6).
//!
//! The preset (`off`, `none`, `default`, `tables`, `statements`, `counters`, `synch`) needs the
//! `pfs` feature (on by default); without a preset pfs keeps its start-up settings.
//!
//! The mode (a last argument, anywhere after the iterations) is how each lock is taken:
//! `sync` (the default) calls `acquire`; `async` makes an `acquire_async` future and polls it
//! once with a no-op waker (a grantable request is `Ready` on the first poll); `await` runs the
//! whole loop as one async block on a minimal `block_on` (a thread-unparking waker), each
//! iteration `.await`ing `acquire_async` as a task would; `wait` makes every iteration a queued
//! async wait: a second context's EXCLUSIVE `acquire_async` is polled once (it queues, taking
//! the SHARED_READ into the queue), the SHARED_READ is released (which grants it), and the
//! future is polled again (the woken poll, which ends the wait), then the EXCLUSIVE is
//! released; `enter` polls each `async` future inside a `pfs::SessionThread::enter` (the cost
//! of a session thread per poll).
//!
//! `bound` (anywhere after the iterations, `pfs` feature) binds the contexts to a
//! `pfs::SessionThread`, so their waits are recorded on it.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use mysql_mdl::{
    FastPath, LockDuration, LockType, MdlConfig, MdlContext, MdlKey, MdlManager, MdlRequest,
    Namespace,
};

const TIMEOUT: Duration = Duration::from_secs(1);

/// Wakes the thread that runs [`block_on`].
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future on this thread, parking while it is pending.
fn block_on<F: Future>(f: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

fn sync_loop(ctx: &mut MdlContext, req: &MdlRequest, iterations: u64) {
    for _ in 0..iterations {
        let t = ctx.acquire(black_box(req), TIMEOUT).expect("no conflict");
        ctx.release(black_box(t)).expect("own ticket");
    }
}

/// Each acquisition a future polled once with a no-op waker.
fn async_loop(ctx: &mut MdlContext, req: &MdlRequest, iterations: u64) {
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..iterations {
        let got = pin!(ctx.acquire_async(black_box(req), TIMEOUT)).poll(&mut cx);
        let Poll::Ready(got) = got else {
            panic!("an uncontended request was not ready on the first poll")
        };
        let t = got.expect("no conflict");
        ctx.release(black_box(t)).expect("own ticket");
    }
}

/// The loop as one async block, each acquisition `.await`ed.
fn await_loop(ctx: &mut MdlContext, req: &MdlRequest, iterations: u64) {
    block_on(async {
        for _ in 0..iterations {
            let t = ctx
                .acquire_async(black_box(req), TIMEOUT)
                .await
                .expect("no conflict");
            ctx.release(black_box(t)).expect("own ticket");
        }
    });
}

/// Each iteration a queued async wait, granted and ended by the woken poll.
fn wait_loop(ctx: &mut MdlContext, waiter: &mut MdlContext, req: &MdlRequest, iterations: u64) {
    let mut cx = Context::from_waker(Waker::noop());
    let x = MdlRequest::new(
        req.key.clone(),
        LockType::Exclusive,
        LockDuration::Transaction,
    );
    for _ in 0..iterations {
        let t = ctx.acquire(black_box(req), TIMEOUT).expect("no conflict");
        let got = {
            let mut f = pin!(waiter.acquire_async(black_box(&x), TIMEOUT));
            assert!(f.as_mut().poll(&mut cx).is_pending(), "queued");
            ctx.release(black_box(t)).expect("own ticket");
            f.as_mut().poll(&mut cx)
        };
        let Poll::Ready(got) = got else {
            panic!("granted by the release")
        };
        waiter
            .release(black_box(got.expect("granted")))
            .expect("own ticket");
    }
}

/// `async`, each poll inside a session thread's `enter`.
#[cfg(feature = "pfs")]
fn enter_loop(ctx: &mut MdlContext, req: &MdlRequest, iterations: u64) {
    let session = mysql_mdl::pfs::SessionThread::new("thread/sql/one_connection", 1);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..iterations {
        let entered = session.enter();
        let got = pin!(ctx.acquire_async(black_box(req), TIMEOUT)).poll(&mut cx);
        drop(entered);
        let Poll::Ready(got) = got else {
            panic!("an uncontended request was not ready on the first poll")
        };
        ctx.release(black_box(got.expect("no conflict")))
            .expect("own ticket");
    }
}

fn main() {
    let mut all: Vec<String> = std::env::args().skip(1).collect();
    let bound = match all.iter().position(|a| a == "bound") {
        Some(i) => {
            all.remove(i);
            true
        }
        None => false,
    };
    let mode = match all
        .iter()
        .position(|a| ["sync", "async", "await", "wait", "enter"].contains(&a.as_str()))
    {
        Some(i) => all.remove(i),
        None => "sync".to_string(),
    };
    let mut args = all.into_iter();
    let iterations: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    // `on` is MySQL 8.0's shared word, as in the older commands of BENCHMARKS.md.
    let fast_path = match args.next().as_deref() {
        None => FastPath::default(),
        Some("on") => FastPath::SharedWord,
        Some(name) => name.parse().unwrap_or_else(|e| panic!("{e}")),
    };
    let preset = args.next();
    #[cfg(feature = "pfs")]
    if let Some(p) = &preset {
        let preset: mysql_mdl::pfs::Preset = p.parse().expect("a preset name");
        mysql_mdl::pfs::apply_preset(preset);
    }
    let mgr = MdlManager::new(
        MdlConfig::builder()
            .fast_path(fast_path)
            .build()
            .expect("a valid configuration"),
    )
    .expect("valid config");
    let mut ctx = mgr.new_context();
    let mut waiter = mgr.new_context();
    #[cfg(feature = "pfs")]
    if bound {
        let session = mysql_mdl::pfs::SessionThread::new("thread/sql/one_connection", 1);
        ctx.bind_pfs_thread(session.clone());
        waiter.bind_pfs_thread(session);
    }
    #[cfg(not(feature = "pfs"))]
    assert!(!bound, "`bound` needs the pfs feature");
    let key = MdlKey::new(Namespace::Table, "test", "sbtest1").expect("valid key");
    let req = MdlRequest::new(key, LockType::SharedRead, LockDuration::Statement);
    // Warm up: create the lock object.
    ctx.acquire(&req, TIMEOUT).expect("no conflict");
    ctx.release_statement_locks();
    let start = Instant::now();
    match mode.as_str() {
        "async" => async_loop(&mut ctx, &req, iterations),
        "await" => await_loop(&mut ctx, &req, iterations),
        "wait" => wait_loop(&mut ctx, &mut waiter, &req, iterations),
        #[cfg(feature = "pfs")]
        "enter" => enter_loop(&mut ctx, &req, iterations),
        _ => sync_loop(&mut ctx, &req, iterations),
    }
    let ns = start.elapsed().as_nanos() as f64 / iterations as f64;
    let preset = preset.as_deref().unwrap_or("-");
    let build = if cfg!(feature = "pfs") {
        "pfs"
    } else {
        "no-pfs"
    };
    println!("build={build} preset={preset} fast_path={} mode={mode} bound={bound} iterations={iterations} acquire+release: {ns:.1} ns", fast_path.name());
}
