//! A fixed loop of the bench workload's statements on one session: the program to count
//! instructions per statement of (callgrind), and to compare instrumentation presets in ns per
//! statement (interleaved rounds, medians).
//!
//! ```text
//! # instructions: run N and 2N statements, subtract, divide by N (start-up cancels out)
//! valgrind --tool=callgrind target/release/examples/stmt_loop run 100000 default
//! valgrind --tool=callgrind target/release/examples/stmt_loop run 200000 default
//! # ns per statement: presets interleaved in one process, median of the rounds
//! target/release/examples/stmt_loop compare 2000000 off,default,synch,counters
//! ```
//!
//! `run N PRESET [WORK_NS] [no-mdl]`: N autocommit point-selects (8 tables, WORK_NS of work,
//! default 0) under the `pfs` preset PRESET (`-` keeps the start-up settings; a build without
//! the `pfs` feature takes no preset). `no-mdl` also disables `wait/lock/metadata/sql/mdl`, so
//! the lock manager's own `metadata_locks` publication is left out of the figure.
//!
//! `compare N P1,P2,... [WORK_NS] [no-mdl]`: 11 rounds; each round runs N statements under
//! every preset and records the session's thread CPU time per statement. A round is cut into 20
//! slices of N/20 statements, and the presets take turns slice by slice (in an order rotated
//! each slice), so that the presets of a round meet the same machine: on the shared 2-core
//! machine the other processes' load drifts within a second, and rounds of whole presets showed
//! up to 1.5% between two presets that run the same code. Printed per preset: the median of the
//! rounds, its difference to the first preset, and the median of the per-round ratios to the
//! first preset (paired, the steadier figure). Between processes the ratios still move by a
//! percent or two with the address-space layout (under `setarch -R`, which turns ASLR off,
//! repeated runs agree): run a few processes.
//! Besides the presets, `leftout:P` runs preset P with this session left out
//! (`pfs::set_thread_instrumented(false)`, `threads.INSTRUMENTED = NO`).

use std::time::Instant;

use fastrand::Rng;
use mdl_bench::peers::{LockTable, MdlSetup, MdlTable};
use mdl_bench::runner::thread_cpu_ns;
use mdl_bench::work::Work;
use mdl_bench::workload::{Driver, Workload};

fn apply(preset: &str, no_mdl: bool) {
    #[cfg(feature = "pfs")]
    {
        let (leftout, p) = match preset.strip_prefix("leftout:") {
            Some(p) => (true, p),
            None => (false, preset),
        };
        if p != "-" {
            mdl_bench::pfs::apply_preset(p.parse().expect("a preset name"));
        }
        if no_mdl {
            mdl_bench::pfs::set_instruments("wait/lock/metadata/sql/mdl", false, false)
                .expect("valid pattern");
        }
        mdl_bench::pfs::set_thread_instrumented(!leftout);
    }
    #[cfg(not(feature = "pfs"))]
    assert!(
        preset == "-" && !no_mdl,
        "instrumentation is compiled out: no preset"
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cmd = args.first().map(String::as_str).unwrap_or("run");
    let n: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let presets: Vec<String> = args
        .get(2)
        .map_or("-", String::as_str)
        .split(',')
        .map(str::to_string)
        .collect();
    let work_ns: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
    let no_mdl = args.iter().any(|a| a == "no-mdl");
    let wl = Workload {
        work_ns,
        ..Workload::default()
    };
    let table = MdlTable::new(&MdlSetup::default(), &wl.keys());
    let mut d = Driver::new(table.session(), &wl, Work::calibrate(work_ns));
    let mut rng = Rng::with_seed(17);
    let mut run = |n: u64| {
        for _ in 0..n {
            d.step(&mut rng);
        }
    };
    match cmd {
        "run" => {
            apply(&presets[0], no_mdl);
            run(1_000);
            let t = Instant::now();
            run(n);
            let ns = t.elapsed().as_nanos() as f64 / n as f64;
            println!("preset={} statements={n} {ns:.1} ns/statement", presets[0]);
        }
        "compare" => {
            const ROUNDS: usize = 11;
            const SLICES: usize = 20;
            let slice = (n / SLICES as u64).max(1);
            // per[preset][round]: CPU ns per statement.
            let mut per: Vec<Vec<f64>> = vec![Vec::new(); presets.len()];
            for round in 0..ROUNDS {
                let mut cpu = vec![0u64; presets.len()];
                for s in 0..SLICES {
                    for j in 0..presets.len() {
                        let i = (j + round + s) % presets.len();
                        apply(&presets[i], no_mdl);
                        run(slice / 10);
                        let c0 = thread_cpu_ns();
                        run(slice);
                        cpu[i] += thread_cpu_ns() - c0;
                    }
                }
                for (p, c) in per.iter_mut().zip(&cpu) {
                    p.push(*c as f64 / (slice * SLICES as u64) as f64);
                }
            }
            apply(&presets[0], no_mdl);
            let med = |mut v: Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            let base = med(per[0].clone());
            for (p, v) in presets.iter().zip(&per) {
                let m = med(v.clone());
                let paired = med(v.iter().zip(&per[0]).map(|(x, b)| x / b).collect());
                println!(
                    "{p:>20}: {m:7.1} ns/statement (CPU, median of {ROUNDS})  {:+6.1} ns  {:+6.1}% vs {}  (paired {:+5.1}%)",
                    m - base,
                    100.0 * (m / base - 1.0),
                    presets[0],
                    100.0 * (paired - 1.0),
                );
            }
        }
        other => panic!("{other:?}: expected run or compare"),
    }
}
