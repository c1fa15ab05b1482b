//! The reports that need the `pfs` instrumentation crate: `pfs-overhead`, `amplification`,
//! `contention`. Until `pfs` is usable they produce a page that says so and no numbers.

use crate::instr;
use crate::output::Report;
use crate::runner::Ctx;

fn not_run(name: &str, title: &str, about: &str) -> Report {
    let mut r = Report::new(name, title, about);
    r.notes.push(format!(
        "NOT RUN: {}. No figures are given rather than figures that measure nothing.",
        instr::apply(instr::InstrMode::Synch)
            .err()
            .unwrap_or_default()
    ));
    r
}

/// `pfs-overhead`: QPS per instrumentation mode vs threads, overhead % against compiled-out.
pub fn overhead(_ctx: &mut Ctx) -> Report {
    not_run(
        "pfs-overhead",
        "Instrumentation overhead per mode",
        "Point-select QPS per instrumentation mode (compiled out, off, none, tables, \
         statements, default, counters, synch) vs threads, overhead % against compiled out \
         (published figures B, C, F).",
    )
}

/// `amplification`: synch-mode overhead vs work per statement.
pub fn amplification(_ctx: &mut Ctx) -> Report {
    not_run(
        "amplification",
        "Short code paths amplify instrumentation cost",
        "Overhead % of the synch mode against off for per-statement work from 0 to 100 µs \
         (published figures C, D).",
    )
}

/// `contention`: instrumentation overhead vs contention.
pub fn contention(_ctx: &mut Ctx) -> Report {
    not_run(
        "contention",
        "Instrumentation overhead vs contention",
        "Overhead % of the default and synch modes on 1, 2, 8 and 64 tables with more \
         sessions than tables (published figures B: overhead grows with contention).",
    )
}
