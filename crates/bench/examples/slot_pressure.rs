//! Two sessions on one hot table, lock manager only, in three situations of the per-context
//! slot table (`MdlConfig::default()`: 4096 slots in 256 groups of 16; a context's home group
//! is its tag modulo 256):
//!
//! * `baseline`: the two sessions' contexts are the manager's first two (groups 0 and 1);
//! * `same group`: 255 idle contexts are created between them, so their tags differ by 256 and
//!   both claim slots in the same 128-byte group;
//! * `table full`: 4096 other contexts each hold SR on another table, which fills every group,
//!   so the sessions' locks take the slow path.
//!
//! ```text
//! cargo run --release -p mdl-bench --example slot_pressure [seconds per run, default 0.3]
//! ```
//!
//! Prints million SR acquire + release per second and CPU ns per acquire + release for 1 and
//! 2 sessions (3 rounds, the situations interleaved), and whether the sessions' locks were on
//! the fast path.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use mdl_bench::runner::thread_cpu_ns;
use mdl_core::{LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace};

const TIMEOUT: Duration = Duration::from_secs(1);

fn sr(name: &str, duration: LockDuration) -> MdlRequest {
    let key = MdlKey::new(Namespace::Table, "test", name).expect("short name");
    MdlRequest::new(key, LockType::SharedRead, duration)
}

/// (M acquire + release / s, CPU ns per acquire + release, sessions whose lock was fast).
fn run(sessions: usize, gap: usize, holders: usize, seconds: f64) -> (f64, f64, usize) {
    let mgr = MdlManager::new(MdlConfig::default()).expect("default config");
    let hot = sr("hot", LockDuration::Statement);
    let (mut ctxs, mut idle) = (Vec::new(), Vec::new());
    for _ in 0..sessions {
        ctxs.push(mgr.new_context());
        idle.extend((0..gap).map(|_| mgr.new_context()));
    }
    let held: Vec<_> = (0..holders)
        .map(|i| {
            let mut c = mgr.new_context();
            c.acquire(
                &sr(&format!("o{}", i % 256), LockDuration::Transaction),
                TIMEOUT,
            )
            .expect("no conflict");
            c
        })
        .collect();
    let stop = AtomicBool::new(false);
    let (total, cpu, fast) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let start = Barrier::new(sessions + 1);
    let t0 = std::thread::scope(|s| {
        for mut c in ctxs.drain(..) {
            let (stop, total, cpu, fast, start, hot) = (&stop, &total, &cpu, &fast, &start, &hot);
            s.spawn(move || {
                let t = c.acquire(hot, TIMEOUT).expect("no conflict");
                let on_fast = c.ticket_info(t).expect("held").fast_path;
                fast.fetch_add(u64::from(on_fast), Ordering::Relaxed);
                c.release_statement_locks();
                start.wait();
                let (c0, mut n) = (thread_cpu_ns(), 0u64);
                while !stop.load(Ordering::Relaxed) {
                    for _ in 0..64 {
                        c.acquire(hot, TIMEOUT).expect("no conflict");
                        c.release_statement_locks();
                    }
                    n += 64;
                }
                cpu.fetch_add(thread_cpu_ns() - c0, Ordering::Relaxed);
                total.fetch_add(n, Ordering::Relaxed);
            });
        }
        start.wait();
        let t0 = Instant::now();
        std::thread::sleep(Duration::from_secs_f64(seconds));
        stop.store(true, Ordering::Relaxed);
        t0
    });
    let n = total.load(Ordering::Relaxed) as f64;
    drop((idle, held));
    (
        n / t0.elapsed().as_secs_f64() / 1e6,
        cpu.load(Ordering::Relaxed) as f64 / n,
        fast.load(Ordering::Relaxed) as usize,
    )
}

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.3);
    for round in 1..=3 {
        for (name, gap, holders) in [
            ("baseline", 0, 0),
            ("same group", 255, 0),
            ("table full", 0, 4096),
        ] {
            let (m1, c1, f1) = run(1, gap, holders, seconds);
            let (m2, c2, f2) = run(2, gap, holders, seconds);
            println!(
                "round {round} {name:>10}: 1 session {m1:5.1} M/s {c1:4.0} ns; 2 sessions \
                 {m2:5.1} M/s {c2:4.0} ns; 2/1 {:.2}x; fast path {f1}/1, {f2}/2",
                m2 / m1
            );
        }
    }
}
