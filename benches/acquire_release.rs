//! Single-threaded acquire + release of one lock, per lock type, fast path on and off.
//!
//! Unobtrusive types (S, SH, SR, SW, SWLP; IX on a scoped lock) take the fast path when it is
//! on (one compare-and-swap on the lock object's state word); the others always take the slow
//! path (the lock object's queues).
//!
//! ```text
//! cargo bench --bench acquire_release
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
        let mgr = MdlManager::new(MdlConfig {
            fast_path,
            ..MdlConfig::default()
        })
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
        g.finish();
    }
}

criterion_group!(benches, acquire_release);
criterion_main!(benches);
