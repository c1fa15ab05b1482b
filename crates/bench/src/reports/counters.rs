//! `counters`: the cost of the ways to count an event (published figures D: "count++ vs
//! if (enabled) count++", timers only when TIMED, aggregation on read).

use std::time::Duration;

use serde_json::json;

use crate::counters::{measure_median, Counter};
use crate::output::{Chart, Headline, Report, Scale, Table};
use crate::runner::Ctx;

/// Runs the report.
pub fn run(ctx: &mut Ctx) -> Report {
    let threads = [1usize, 2];
    let budget = if ctx.quick {
        Duration::from_millis(40)
    } else {
        Duration::from_millis(300)
    };
    let runs = if ctx.quick { 3 } else { 7 };
    // ns[variant][threads]
    let mut ns = vec![vec![0.0; threads.len()]; Counter::ALL.len()];
    for (vi, &v) in Counter::ALL.iter().enumerate() {
        for (ti, &t) in threads.iter().enumerate() {
            ctx.message(format!("counters, {}", v.label()));
            // Slow variants take longer than the budget; the estimate only drives the bar.
            ns[vi][ti] = ctx.timed(budget * (runs as u32) * 2, || {
                measure_median(v, t, budget, runs)
            });
        }
    }
    let mut r = Report::new(
        "counters",
        "Counting an event: plain, checked, shared, per-thread, timed",
        "A loop of operations (one multiply-add each) per thread, with each way of counting \
         the operation, on 1 and 2 threads; ns per operation is each thread's own CPU time over \
         its operations (median of several runs; CPU time so that other processes on the \
         shared machine do not inflate it), and the counting cost is the difference to the loop \
         without counting. `count++` is a thread-owned counter in memory; `if (enabled)` adds \
         a relaxed load of a shared flag; the shared atomic is one `fetch_add` cache line for \
         every thread; the per-thread slot is a padded atomic per thread bumped without a \
         locked instruction and summed when read; the timed variants add two clock reads (TSC \
         via `rdtsc`, or `Instant::now`). Reproduces the lesson of published figures D.",
    );
    let mut t = Table::new(
        "ns-per-op",
        "ns per operation (and counting cost over the baseline)",
        &["variant", "ns/op @1", "cost @1", "ns/op @2", "cost @2"],
    );
    for (vi, v) in Counter::ALL.iter().enumerate() {
        t.row(vec![
            v.label().into(),
            format!("{:.2}", ns[vi][0]),
            format!("{:+.2}", ns[vi][0] - ns[0][0]),
            format!("{:.2}", ns[vi][1]),
            format!("{:+.2}", ns[vi][1] - ns[0][1]),
        ]);
    }
    r.tables.push(t);
    let mut c = Chart::titled("ns-per-op", "Cost of counting, by threads")
        .x("threads", Scale::Linear)
        .y("CPU ns per operation (median)", Scale::Log);
    for (vi, v) in Counter::ALL.iter().enumerate() {
        c.line_over(v.label(), &threads, |ti| Some(ns[vi][ti]));
    }
    r.charts.push(c);
    r.notes.push(
        "Only 2 cores: the shared-atomic line shows cache-line transfer between 2 cores only; \
         on a many-core host it grows with the number of cores."
            .into(),
    );
    let cost = |c: Counter, ti: usize| {
        let i = Counter::ALL
            .iter()
            .position(|&v| v == c)
            .expect("a variant");
        ns[i][ti] - ns[0][ti]
    };
    r.headline = Some(Headline {
        what: "counting cost per event, ns at 1 / 2 threads: shared atomic; per-thread slot; \
               TSC timer"
            .into(),
        measured: [
            Counter::SharedAtomic,
            Counter::PerThreadSlot,
            Counter::TimedTsc,
        ]
        .map(|c| format!("{:+.1} / {:+.1}", cost(c, 0), cost(c, 1)))
        .join("; "),
        published: "count per thread, aggregate on read, time only when TIMED (D)".into(),
    });
    r.data = json!({"threads": threads, "variants": Counter::ALL, "ns_per_op": ns});
    r
}
