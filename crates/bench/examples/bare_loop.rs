//! The lock-manager-only loop of the `peers` report on one session, a fixed number of times:
//! the program to count each peer's instructions per acquire + release with callgrind.
//!
//! ```text
//! # instructions: run N and 2N, subtract, divide by N (start-up cancels out)
//! valgrind --tool=callgrind target/release/examples/bare_loop dashmap 1 100000
//! valgrind --tool=callgrind target/release/examples/bare_loop dashmap 1 200000
//! # ns per acquire + release, every peer (one process, one after another)
//! target/release/examples/bare_loop all 1 5000000
//! ```
//!
//! Arguments: PEER (`mdl-per-context`, `mdl-shared-word`, `mdl-off`, `global-mutex`, `dashmap`,
//! `lock-db`, `lockmap`, or `all`), TABLES (1 or more), ITERATIONS. Instrumentation stays at
//! its baseline (`off`, or compiled out), as in the report.

use mdl_bench::bare::run_loop;
use mdl_bench::instr::{self, InstrMode};
use mdl_bench::peers::every_peer;

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "all".into());
    let tables: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let iterations: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    instr::apply(InstrMode::baseline()).expect("the baseline is always available");
    let peers: Vec<_> = every_peer()
        .into_iter()
        .filter(|p| which == "all" || p.0 == which)
        .collect();
    if peers.is_empty() {
        let names: Vec<&str> = every_peer().iter().map(|p| p.0).collect();
        eprintln!("unknown peer {which:?}: one of {} or all", names.join(", "));
        std::process::exit(2);
    }
    for (name, peer) in peers {
        let ns = run_loop(&peer, tables.max(1), iterations);
        println!("{name:>16} tables={tables} iterations={iterations} acquire+release: {ns:.1} ns");
    }
}
