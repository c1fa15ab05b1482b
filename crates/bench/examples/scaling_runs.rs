//! The `peers` report's "lock manager only" case at 1 and 2 sessions, run after run, every run
//! printed (the report prints medians): the program to see how much a 2-thread figure moves
//! from one run to the next, and whether a slow run is the lock manager's or the machine's.
//!
//! ```text
//! target/release/examples/scaling_runs 10 200 mdl-per-context,dashmap
//! # the same runs from two builds, alternating processes:
//! for i in $(seq 25); do ./a 1 150 mdl-per-context; ./b 1 150 mdl-per-context; done
//! ```
//!
//! Arguments: ROUNDS (default 5), WINDOW in ms per run (default 200), PEERS, a comma-separated
//! list of `bare_loop`'s peer names (default `mdl-per-context,dashmap`). Each round runs every
//! peer on 1 and on 8 tables, with 1 and then 2 sessions; every run is a new lock table and new
//! threads, as in the report. Printed per run: million acquire + release per second, the
//! sessions' CPU ns per acquire + release, the CPUs they used, and 2 / 1 sessions.

use std::time::Duration;

use mdl_bench::bare::{run_bare, Bare};
use mdl_bench::peers::every_peer;
use mdl_bench::runner::Timing;

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(5);
    let window: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(200);
    let which = args
        .next()
        .unwrap_or_else(|| "mdl-per-context,dashmap".into());
    let peers: Vec<_> = every_peer()
        .into_iter()
        .filter(|p| which.split(',').any(|w| w == p.0))
        .collect();
    if peers.is_empty() {
        let names: Vec<&str> = every_peer().iter().map(|p| p.0).collect();
        eprintln!(
            "no peer in {which:?}: a comma-separated list of {}",
            names.join(", ")
        );
        std::process::exit(2);
    }
    let timing = Timing {
        warmup: Duration::from_millis(30),
        window: Duration::from_millis(window.max(1)),
        runs: 1,
    };
    for round in 0..rounds {
        for (name, peer) in &peers {
            for tables in [1, 8] {
                let run = |threads| {
                    run_bare(
                        &Bare {
                            peer: peer.clone(),
                            tables,
                            threads,
                        },
                        &timing,
                    )
                };
                let (one, two) = (run(1), run(2));
                println!(
                    "round {round} {name:>16} {tables} table{}: 1 thr {:5.1} M/s {:4.0} ns | \
                     2 thr {:5.1} M/s {:4.0} ns, {:.2} CPUs | 2/1 {:.2}x",
                    if tables == 1 { " " } else { "s" },
                    one.qps / 1e6,
                    one.cpu_ns,
                    two.qps / 1e6,
                    two.cpu_ns,
                    two.cpus,
                    two.qps / one.qps,
                );
            }
        }
    }
}
