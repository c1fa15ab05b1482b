//! Single-threaded acquire + release of one lock, per lock type, in every fast-path mode
//! (groups `acquire_release/fast_path_{off,shared-word,per-context}`).
//!
//! Unobtrusive types (S, SH, SR, SW, SWLP; IX on a scoped lock) take the fast path when there
//! is one: `shared-word` (MySQL 5.7/8.0) adds to a counter in the lock object's state word with
//! one compare-and-swap, `per-context` (the default) claims a slot of the context's own group
//! in the slot table; `off` (MySQL 5.6) puts every lock in the lock object's queue. The other
//! types always take the queue. `X after SR` takes and releases SR, then X: in `per-context`
//! the X is the table's first obtrusive request since a fast-path lock, so it scans the whole
//! slot table (4096 slots) for slots to transfer (the `ddl-hot-table` report measures that
//! scan against many contexts).
//!
//! ```text
//! cargo bench --bench acquire_release
//! cargo bench --bench acquire_release -- per-context   # one mode
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use mysql_mdl::{
    FastPath, LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace,
};

fn acquire_release(c: &mut Criterion) {
    for fast_path in FastPath::ALL {
        let mut g = c.benchmark_group(format!("acquire_release/fast_path_{}", fast_path.name()));
        g.sample_size(20)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(600));
        let mgr = MdlManager::new(
            MdlConfig::builder()
                .fast_path(fast_path)
                .build()
                .expect("a valid configuration"),
        )
        .expect("valid config");
        let mut ctx = mgr.new_context();
        let table = MdlKey::new(Namespace::Table, "test", "sbtest1").expect("short");
        let global = MdlKey::singleton(Namespace::Global).expect("singleton");
        let mut cases: Vec<(String, MdlRequest)> = vec![(
            "GLOBAL IX".into(),
            MdlRequest::new(global, LockType::IX, LockDuration::Statement),
        )];
        for ty in LockType::ALL {
            if ty == LockType::IX {
                continue;
            }
            cases.push((
                ty.abbr().to_string(),
                MdlRequest::new(table.clone(), ty, LockDuration::Statement),
            ));
        }
        for (name, req) in &cases {
            g.bench_with_input(BenchmarkId::from_parameter(name), req, |b, req| {
                b.iter(|| {
                    let t = ctx
                        .acquire(black_box(req), Duration::from_secs(1))
                        .expect("uncontended");
                    ctx.release(t).expect("held");
                })
            });
        }
        let sr = MdlRequest::new(table.clone(), LockType::SR, LockDuration::Statement);
        let x = MdlRequest::new(table.clone(), LockType::X, LockDuration::Transaction);
        g.bench_function("X after SR", |b| {
            b.iter(|| {
                for req in [&sr, &x] {
                    let t = ctx
                        .acquire(black_box(req), Duration::from_secs(1))
                        .expect("uncontended");
                    ctx.release(t).expect("held");
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, acquire_release);
criterion_main!(benches);
