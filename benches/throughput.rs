//! Multi-threaded point-select throughput of the lock manager: one group per instrumentation
//! mode, parameter shards x threads.
//!
//! Each benchmark keeps a pool of worker threads (one `MdlContext` each) alive across samples;
//! `iter_custom(iters)` releases them together through a barrier, each does `iters`
//! acquire/release pairs of a SHARED_READ statement lock on one of 8 tables, and the time from
//! the release to the last worker's end is returned. `Throughput::Elements(threads)` makes
//! criterion report lock acquisitions per second over all threads.
//!
//! ```text
//! cargo bench --bench throughput            # full
//! cargo bench --bench throughput -- --test  # each benchmark once (CI)
//! ```

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mdl_bench::instr::{self, InstrMode};
use mysql_mdl::{LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace};

struct Shared {
    start: Barrier,
    done: Barrier,
    iters: AtomicU64,
    stop: AtomicBool,
}

/// Persistent workers, released together for each sample.
struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Pool {
    fn new(shards: usize, threads: usize) -> Pool {
        let mgr = MdlManager::new(
            MdlConfig::builder()
                .shards(shards)
                .build()
                .expect("a valid configuration"),
        )
        .expect("valid config");
        let shared = Arc::new(Shared {
            start: Barrier::new(threads + 1),
            done: Barrier::new(threads + 1),
            iters: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        let workers = (0..threads)
            .map(|t| {
                let (mgr, shared) = (mgr.clone(), shared.clone());
                std::thread::spawn(move || {
                    let mut ctx = mgr.new_context();
                    let reqs: Vec<MdlRequest> = (1..=8)
                        .map(|i| {
                            let k = MdlKey::new(Namespace::Table, "test", &format!("sbtest{i}"))
                                .expect("short name");
                            MdlRequest::new(k, LockType::SharedRead, LockDuration::Statement)
                        })
                        .collect();
                    let mut rng =
                        fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15u64 ^ (t as u64 + 1));
                    loop {
                        shared.start.wait();
                        if shared.stop.load(Ordering::Relaxed) {
                            break;
                        }
                        for _ in 0..shared.iters.load(Ordering::Relaxed) {
                            let t = ctx
                                .acquire(&reqs[rng.usize(..reqs.len())], Duration::from_secs(10))
                                .expect("no conflicting locks");
                            black_box(t);
                            ctx.release_statement_locks();
                        }
                        shared.done.wait();
                    }
                })
            })
            .collect();
        Pool { shared, workers }
    }

    fn run(&self, iters: u64) -> Duration {
        self.shared.iters.store(iters, Ordering::Relaxed);
        self.shared.start.wait();
        let t0 = Instant::now();
        self.shared.done.wait();
        t0.elapsed()
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.start.wait();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

fn throughput(c: &mut Criterion) {
    let modes: &[InstrMode] = if instr::COMPILED_IN {
        &[InstrMode::Off, InstrMode::Default, InstrMode::Synch]
    } else {
        &[InstrMode::CompiledOut]
    };
    for &mode in modes {
        instr::apply(mode).expect("mode available in this build");
        let mut g = c.benchmark_group(format!("throughput/{}", mode.name()));
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1));
        for shards in [1usize, 8] {
            for threads in [1usize, 2, 4] {
                let pool = Pool::new(shards, threads);
                g.throughput(Throughput::Elements(threads as u64));
                g.bench_with_input(
                    BenchmarkId::new(format!("shards={shards}"), format!("threads={threads}")),
                    &threads,
                    |b, _| b.iter_custom(|iters| pool.run(iters)),
                );
            }
        }
        g.finish();
    }
    if instr::COMPILED_IN {
        instr::apply(InstrMode::Off).expect("off");
    }
}

criterion_group!(benches, throughput);
criterion_main!(benches);
