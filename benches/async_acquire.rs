//! The async API (issue 10), one thread and on tokio:
//!
//! * `async_acquire/uncontended`: SHARED_READ acquire + release with no conflict, `acquire` vs
//!   an `acquire_async` future polled once with a no-op waker (the no-wait path must cost what
//!   the sync one costs; instruction counts: `examples/acquire_loop.rs` under callgrind).
//! * `async_acquire/wakeup`: the wake-up latency of a queued waiter when its blocker releases:
//!   this thread holds a reader's lock, the waiter (a task on a 2-worker tokio runtime, or a
//!   thread) asks for the writer's; the time from the release to the waiter holding its lock.
//!   mdl (`acquire_async` in a task; `acquire` in a thread) next to `tokio::sync::RwLock`
//!   (`write()` in a task). Each iteration is one hand-off, so criterion's time per iteration
//!   is the mean latency; the `async` report of `mdl-bench` gives medians and p99.
//!
//! ```text
//! cargo bench --bench async_acquire
//! ```

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use mdl_bench::async_acquire::{Waiter, WakeBench};
use mysql_mdl::{LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace};

const TIMEOUT: Duration = Duration::from_secs(1);

fn uncontended(c: &mut Criterion) {
    let mut g = c.benchmark_group("async_acquire/uncontended");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600));
    let mgr = MdlManager::new(MdlConfig::default()).expect("valid config");
    let mut ctx = mgr.new_context();
    let key = MdlKey::new(Namespace::Table, "test", "sbtest1").expect("short");
    let req = MdlRequest::new(key, LockType::SR, LockDuration::Statement);
    g.bench_function("acquire", |b| {
        b.iter(|| {
            let t = ctx.acquire(black_box(&req), TIMEOUT).expect("uncontended");
            ctx.release(t).expect("held");
        })
    });
    let mut cx = Context::from_waker(Waker::noop());
    g.bench_function("acquire_async polled once", |b| {
        b.iter(|| {
            let got = pin!(ctx.acquire_async(black_box(&req), TIMEOUT)).poll(&mut cx);
            let Poll::Ready(t) = got else {
                panic!("not ready on the first poll")
            };
            ctx.release(t.expect("uncontended")).expect("held");
        })
    });
    g.finish();
}

fn wakeup(c: &mut Criterion) {
    let mut g = c.benchmark_group("async_acquire/wakeup");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1));
    for kind in Waiter::ALL {
        let mut bench = WakeBench::new(kind);
        g.bench_function(kind.label(), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| bench.sample()).sum())
        });
    }
    g.finish();
}

criterion_group!(benches, uncontended, wakeup);
criterion_main!(benches);
