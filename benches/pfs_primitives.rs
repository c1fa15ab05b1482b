//! The cost of the instrumentation primitives, single-threaded: an instrumented mutex
//! lock/unlock with its class disabled, counted, and timed; a statement event (with a digest);
//! a wait event; and a timed wait event on a thread left out (`threads.INSTRUMENTED = NO`).
//! Built without the `pfs` feature (`--no-default-features`) the same code measures the
//! compiled-out versions (plain parking_lot, no-op guards).
//!
//! ```text
//! cargo bench --bench pfs_primitives
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use mdl_bench::pfs::{self, sync::*, ClassKind};

fn primitives(c: &mut Criterion) {
    let mut g = c.benchmark_group(if mdl_bench::instr::COMPILED_IN {
        "pfs_primitives/compiled_in"
    } else {
        "pfs_primitives/compiled_out"
    });
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600));
    let mclass = pfs::register_class(ClassKind::Mutex, "wait/synch/mutex/bench/LOCK_bench");
    let sclass = pfs::register_class(ClassKind::Statement, "statement/bench/select");
    let wclass = pfs::register_class(ClassKind::TableIo, "wait/io/table/bench/handler");
    let m = Mutex::with_class(mclass, 0u64);
    let digest = pfs::register_digest("SELECT c FROM bench WHERE id = ?");
    for (setting, enabled, timed) in [
        ("disabled", false, false),
        ("counted", true, false),
        ("timed", true, true),
    ] {
        let _ = pfs::set_instruments("wait/synch/mutex/bench/%", enabled, timed);
        let _ = pfs::set_instruments("statement/bench/%", enabled, timed);
        let _ = pfs::set_instruments("wait/io/table/bench/%", enabled, timed);
        g.bench_function(BenchmarkId::new("mutex_lock_unlock", setting), |b| {
            b.iter(|| {
                *m.lock() += 1;
            })
        });
        g.bench_function(BenchmarkId::new("statement_event", setting), |b| {
            b.iter(|| black_box(pfs::statement_start(sclass, Some(digest))))
        });
        g.bench_function(BenchmarkId::new("wait_event", setting), |b| {
            b.iter(|| black_box(pfs::wait_start(wclass, 1)))
        });
    }
    pfs::set_thread_instrumented(false);
    g.bench_function(BenchmarkId::new("wait_event", "timed_left_out"), |b| {
        b.iter(|| black_box(pfs::wait_start(wclass, 1)))
    });
    pfs::set_thread_instrumented(true);
    let _ = pfs::set_instruments("%/bench/%", false, false);
    g.finish();
}

criterion_group!(benches, primitives);
criterion_main!(benches);
