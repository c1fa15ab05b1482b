//! `ticket-store`: the schema-dump scenario of MySQL Bug #83143. One context takes a read lock
//! on each of N tables, one after another, in one transaction; with a linear ticket list every
//! acquisition scans the tickets already held (O(N^2) for the dump), with the hash index it
//! does not (O(N)). Published figures, section E.

use std::time::Duration;

use mdl_core::TicketIndex;
use serde_json::json;

use super::{int, ratio};
use crate::output::{Chart, Headline, Report, Scale, Table};
use crate::peers::MdlSetup;
use crate::runner::{median, Ctx};
use crate::workload::schema_dump;

/// Table counts.
pub const SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];

fn setup(index: TicketIndex) -> MdlSetup {
    MdlSetup {
        ticket_index: index,
        ..MdlSetup::default()
    }
}

/// Rough wall time of one dump, for the progress bar.
fn estimate(n: usize, index: TicketIndex) -> Duration {
    let per_lock_ns = match index {
        TicketIndex::LinearList if n >= 50_000 => 3.5 * n as f64,
        TicketIndex::LinearList => 200.0 + 1.5 * n as f64,
        _ => 600.0,
    };
    Duration::from_nanos((per_lock_ns * n as f64) as u64 + 5_000_000)
}

/// Runs the report.
pub fn run(ctx: &mut Ctx) -> Report {
    let quick = ctx.quick;
    let reps = move |n: usize| -> usize {
        match (quick, n) {
            (true, 100_000) => 1,
            (true, _) => 3,
            (false, 100_000) => 3,
            (false, _) => 5,
        }
    };
    let indexes = [TicketIndex::Hashed, TicketIndex::LinearList];
    // ns[index][size]
    let mut ns = vec![vec![0.0; SIZES.len()]; 2];
    for (ii, &index) in indexes.iter().enumerate() {
        for (si, &n) in SIZES.iter().enumerate() {
            ctx.message(format!("ticket-store, {n} tables, {index:?}"));
            let runs: Vec<f64> = (0..reps(n))
                .map(|_| ctx.timed(estimate(n, index), || schema_dump(&setup(index), n)))
                .collect();
            ns[ii][si] = median(&runs);
        }
    }
    let mut r = Report::new(
        "ticket-store",
        "Ticket store: time per lock when one context takes N locks (Bug #83143)",
        "One context takes a SHARED_READ lock of TRANSACTION duration on each of N tables \
         `db.t0..t{N-1}`, one after another (what `mysqldump --no-data` does for one schema), \
         and the time per lock is the total over N. Every acquisition first looks for a ticket \
         the context already holds (`find_ticket`). `hashed` is MySQL 8.0.4+ (a hash index \
         once the context holds 256 tickets), `linear` is 8.0 before the fix (a scan of the \
         ticket list). Default lock manager otherwise (8 partitions, MurmurHash3, fast path). \
         Reproduces published figures E: the dump of 10K tables 3.5x slower with the linear \
         list, `find_ticket` 59% of the time.",
    );
    let mut t = Table::new(
        "per-lock",
        "Median time per lock (ns) by tables locked in one context",
        &[
            "tables (N)",
            "hashed ns/lock",
            "linear ns/lock",
            "linear / hashed",
            "linear total",
        ],
    );
    for (si, &n) in SIZES.iter().enumerate() {
        t.row(vec![
            n.to_string(),
            format!("{:.0}", ns[0][si]),
            format!("{:.0}", ns[1][si]),
            ratio(ns[1][si] / ns[0][si]),
            format!("{:.2} s", ns[1][si] * n as f64 / 1e9),
        ]);
    }
    r.tables.push(t);
    let i1k = 1;
    let i100k = 3;
    let mut g = Table::new(
        "growth",
        "Growth of the time per lock from 1K to 100K tables (flat = O(N) dump, 100x = O(N^2))",
        &["store", "ns/lock @1K", "ns/lock @100K", "growth"],
    );
    for (ii, name) in ["hashed", "linear"].iter().enumerate() {
        g.row(vec![
            name.to_string(),
            format!("{:.0}", ns[ii][i1k]),
            format!("{:.0}", ns[ii][i100k]),
            ratio(ns[ii][i100k] / ns[ii][i1k]),
        ]);
    }
    r.tables.push(g);
    let mut c = Chart::titled("per-lock", "Time per lock vs locks held by one context")
        .x("tables locked in one transaction (N)", Scale::Log)
        .y("time per lock (ns, median)", Scale::Log)
        .legend_upper_left();
    for (ii, name) in ["hashed index (8.0.4+)", "linear list (Bug #83143)"]
        .iter()
        .enumerate()
    {
        c.line_over(*name, &SIZES, |si| Some(ns[ii][si]));
    }
    r.charts.push(c);
    r.headline = Some(Headline {
        what: "ns per lock, 1K → 100K locks in one context: hash index / linear list".into(),
        measured: format!(
            "{} → {} ({}) / {} → {} ({})",
            int(ns[0][i1k]),
            int(ns[0][i100k]),
            ratio(ns[0][i100k] / ns[0][i1k]),
            int(ns[1][i1k]),
            int(ns[1][i100k]),
            ratio(ns[1][i100k] / ns[1][i1k])
        ),
        published: "O(N^2) dump with the list: 3.5x slower on 10K tables (E)".into(),
    });
    r.data = json!({"sizes": SIZES, "hashed_ns_per_lock": ns[0], "linear_ns_per_lock": ns[1], "reps": SIZES.iter().map(|&n| reps(n)).collect::<Vec<_>>()});
    r
}
