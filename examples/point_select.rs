//! A point-select workload: each thread is a connection running autocommit `SELECT`s on one of
//! 8 tables, taking a SHARED_READ metadata lock per statement.
//!
//! ```text
//! cargo run --release --example point_select [seconds per run, default 1] [fast path]
//! ```
//!
//! Prints queries per second for 1, 2 and 4 threads, in the fast-path mode given
//! (`per-context`, the default; `shared-word`, MySQL 5.7/8.0; `off`, MySQL 5.6) or in every
//! mode (`all`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use mysql_mdl::{
    FastPath, LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace,
};

const TABLES: usize = 8;

fn run(fast_path: FastPath, threads: usize, seconds: f64) -> f64 {
    let mgr = MdlManager::new(
        MdlConfig::builder()
            .fast_path(fast_path)
            .build()
            .expect("a valid configuration"),
    )
    .expect("valid config");
    let stop = Arc::new(AtomicBool::new(false));
    let total = Arc::new(AtomicU64::new(0));
    let start = Arc::new(Barrier::new(threads + 1));
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (mgr, stop, total, start) =
                (mgr.clone(), stop.clone(), total.clone(), start.clone());
            thread::spawn(move || {
                let mut ctx = mgr.new_context();
                let requests: Vec<MdlRequest> = (1..=TABLES)
                    .map(|i| {
                        let key = MdlKey::new(Namespace::Table, "test", &format!("sbtest{i}"))
                            .expect("short names are valid");
                        MdlRequest::new(key, LockType::SharedRead, LockDuration::Statement)
                    })
                    .collect();
                let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15u64 ^ (t as u64 + 1));
                let mut done = 0u64;
                start.wait();
                while !stop.load(Ordering::Relaxed) {
                    for _ in 0..64 {
                        let req = &requests[rng.usize(..requests.len())];
                        ctx.acquire(req, Duration::from_secs(10))
                            .expect("no DDL runs here");
                        ctx.release_statement_locks();
                    }
                    done += 64;
                }
                total.fetch_add(done, Ordering::Relaxed);
            })
        })
        .collect();
    start.wait();
    let t0 = Instant::now();
    thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().expect("worker panicked");
    }
    total.load(Ordering::Relaxed) as f64 / t0.elapsed().as_secs_f64()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let modes: Vec<FastPath> = match args.next().as_deref() {
        None => vec![FastPath::default()],
        Some("all") => FastPath::ALL.to_vec(),
        Some(name) => vec![name.parse().unwrap_or_else(|e| panic!("{e}"))],
    };
    println!("point-select on {TABLES} tables, {seconds} s per run");
    println!("{:>12} {:>8} {:>14}", "fast path", "threads", "QPS");
    for mode in modes {
        for threads in [1, 2, 4] {
            println!(
                "{:>12} {threads:>8} {:>14.0}",
                mode.name(),
                run(mode, threads, seconds)
            );
        }
    }
}
