//! `peers`: QPS and p99 vs threads for mdl vs each peer, read-only and read-write.

use serde_json::json;

use super::{int, ratio, sweep, sweep_chart, sweep_table, threads};
use mdl_core::FastPath;

use crate::bare::{run_bare, Bare};
use crate::output::{Chart, Headline, Report, Table};
use crate::peers::PeerSpec;
use crate::runner::{Ctx, Measured};
use crate::workload::{Mix, Workload};

/// The peers, mdl first (in each fast-path mode).
pub fn specs() -> Vec<PeerSpec> {
    crate::peers::every_peer()
        .into_iter()
        .map(|p| p.1)
        .collect()
}

/// Runs the report.
pub fn run(ctx: &mut Ctx) -> Report {
    let ths = threads(ctx);
    let mut r = Report::new(
        "peers",
        "mdl vs other lock managers",
        "The same simulated server (8 tables, 1 µs of work per statement, autocommit) driving \
         each lock manager: `mdl` with the per-context fast path (the default), as MySQL 8.0 \
         (8 partitions, MurmurHash3, shared-word fast path) and without a fast path (5.6); one global mutex over a map of per-key RwLocks (the pre-MDL \
         `LOCK_open` shape); a dashmap of per-key RwLocks; lock-db 1.0 (multi-granularity \
         IS/IX/S/SIX/X, 8 shards; its `try_acquire` never waits, so it runs in a retry loop \
         with backoff); lockmap 0.2 (exclusive per-key locks only, 8 shards, `try_entry` in a \
         retry loop). The peers get integer keys hashed with ahash; `mdl` hashes MySQL's key \
         bytes. See `crates/bench/src/peers/mod.rs` for how each maps MySQL's lock modes. \
         Last, the \"lock manager only\" mode: the same lock managers with no work and no \
         server around them (SR + end of statement in a loop), on 1 and 8 tables with 1 and 2 \
         sessions, `mdl` in each fast-path mode (per-context, the default; shared-word, \
         MySQL 5.7/8.0's design; off, MySQL 5.6's).",
    );
    let mut data = Vec::new();
    for (mix, stem) in [
        (Mix::PointSelect, "point-select"),
        (Mix::READ_WRITE, "read-write"),
    ] {
        let wl = Workload {
            mix,
            ..Workload::default()
        };
        let cases: Vec<(String, PeerSpec, Workload)> = specs()
            .into_iter()
            .map(|p| {
                let l = match &p {
                    PeerSpec::Mdl(s) => match s.fast_path {
                        FastPath::PerContext => "mdl (per-context fast path)".to_string(),
                        FastPath::SharedWord => "mdl (8.0 shared word)".to_string(),
                        FastPath::Off => "mdl (no fast path)".to_string(),
                        other => format!("mdl ({other})"),
                    },
                    other => other.label(),
                };
                (l, p, wl)
            })
            .collect();
        let res = sweep(ctx, &format!("peers {stem}"), &cases, &ths);
        let labels: Vec<String> = cases.iter().map(|c| c.0.clone()).collect();
        r.tables.push(sweep_table(
            stem,
            &format!("{}: median QPS and p99 statement latency", mix.name()),
            &labels,
            &ths,
            &res,
            true,
        ));
        let mut h = Table::new(
            &format!("{stem}-vs-best"),
            &format!(
                "{}: mdl (per-context, the default) vs the best other lock manager at each \
                 thread count",
                mix.name()
            ),
            &[
                "threads",
                "mdl QPS",
                "best peer",
                "best peer QPS",
                "mdl / best peer",
                "mdl CPU ns/stmt",
                "cheapest peer (CPU)",
                "its CPU ns/stmt",
                "mdl per CPU-s / cheapest",
            ],
        );
        // The other lock managers: every case after mdl's modes.
        let first_peer = cases
            .iter()
            .position(|c| !matches!(c.1, PeerSpec::Mdl(_)))
            .expect("peers");
        for (ti, t) in ths.iter().enumerate() {
            let best = (first_peer..cases.len())
                .max_by(|&a, &b| res[ti][a].qps.total_cmp(&res[ti][b].qps))
                .expect("peers");
            let cheap = (first_peer..cases.len())
                .min_by(|&a, &b| res[ti][a].cpu_ns.total_cmp(&res[ti][b].cpu_ns))
                .expect("peers");
            h.row(vec![
                t.to_string(),
                int(res[ti][0].qps),
                labels[best].clone(),
                int(res[ti][best].qps),
                ratio(res[ti][0].qps / res[ti][best].qps),
                format!("{:.0}", res[ti][0].cpu_ns),
                labels[cheap].clone(),
                format!("{:.0}", res[ti][cheap].cpu_ns),
                ratio(res[ti][cheap].cpu_ns / res[ti][0].cpu_ns),
            ]);
        }
        r.tables.push(h);
        r.charts.push(sweep_chart(
            &format!("{stem}-qps"),
            &format!("{}: QPS by lock manager", mix.name()),
            "QPS (statements/s, median)",
            &labels,
            &ths,
            &res,
            |m| m.qps,
        ));
        let mut c = sweep_chart(
            &format!("{stem}-p99"),
            &format!("{}: p99 statement latency by lock manager", mix.name()),
            "p99 latency (µs)",
            &labels,
            &ths,
            &res,
            |m| m.p99_us,
        );
        c.log_y = true;
        r.charts.push(c);
        data.push(json!({"mix": mix, "labels": labels, "results": res}));
    }
    r.notes.push(
        "lockmap has no shared mode: every lock is exclusive, so readers of one table (and \
         writers on the GLOBAL intention lock) serialise. That is what using it as a metadata \
         lock manager means, not a flaw of its map."
            .into(),
    );
    r.notes.push(
        "Latency includes time a session spends descheduled: with more threads than the 2 \
         cores of this machine, p99 is dominated by the scheduler's time slice."
            .into(),
    );
    let alone = lock_manager_only(ctx, &mut r);
    r.data =
        json!({"threads": ths, "mixes": data, "lock_manager_only": alone, "timing": ctx.timing});
    r
}

/// (tables, threads) of the lock-manager-only mode.
const ALONE: [(usize, usize); 4] = [(1, 1), (1, 2), (8, 1), (8, 2)];

/// A peer's label in the lock-manager-only tables: `mdl` names its fast-path mode and the
/// MySQL design it reproduces.
fn alone_label(p: &PeerSpec) -> String {
    match p {
        PeerSpec::Mdl(s) => match s.fast_path {
            FastPath::PerContext => "mdl per-context (default)".into(),
            FastPath::SharedWord => "mdl shared-word (MySQL 5.7/8.0)".into(),
            FastPath::Off => "mdl off (MySQL 5.6)".into(),
            other => format!("mdl {other}"),
        },
        other => other.label(),
    }
}

/// The "lock manager only" mode: every peer and every `mdl` fast-path mode on 1 and 8 tables,
/// 1 and 2 sessions, no work per statement ([`crate::bare`]); all 28 cases interleaved in one
/// run. Adds its tables, charts, notes and headline to `r`; returns the raw data.
fn lock_manager_only(ctx: &mut Ctx, r: &mut Report) -> serde_json::Value {
    ctx.message("peers, lock manager only");
    let peers = specs();
    let cases: Vec<Bare> = peers
        .iter()
        .flat_map(|p| {
            ALONE.map(|(tables, threads)| Bare {
                peer: p.clone(),
                tables,
                threads,
            })
        })
        .collect();
    let res = ctx.compare_by(&cases, run_bare);
    // at(peer, configuration)
    let at = |p: usize, c: usize| &res[p * ALONE.len() + c];
    let mops = |m: &Measured| format!("{:.1}", m.qps / 1e6);
    let mut t = Table::new(
        "alone",
        "Lock manager only (no work per statement): million SR acquire + release per second, \
         median of interleaved runs; 2 thr / 1 thr on the same tables; CPU ns per acquire + \
         release; CPUs the 2 sessions used (2.00 = in parallel all along)",
        &[
            "lock manager",
            "1 table, 1 thr",
            "1 table, 2 thr",
            "1 table: 2/1",
            "8 tables, 1 thr",
            "8 tables, 2 thr",
            "8 tables: 2/1",
            "CPU ns 1 table 1/2 thr",
            "CPU ns 8 tables 1/2 thr",
            "CPUs used by 2 thr (1 / 8 tables)",
        ],
    );
    for (pi, p) in peers.iter().enumerate() {
        t.row(vec![
            alone_label(p),
            mops(at(pi, 0)),
            mops(at(pi, 1)),
            ratio(at(pi, 1).qps / at(pi, 0).qps),
            mops(at(pi, 2)),
            mops(at(pi, 3)),
            ratio(at(pi, 3).qps / at(pi, 2).qps),
            format!("{:.0} / {:.0}", at(pi, 0).cpu_ns, at(pi, 1).cpu_ns),
            format!("{:.0} / {:.0}", at(pi, 2).cpu_ns, at(pi, 3).cpu_ns),
            format!("{:.2} / {:.2}", at(pi, 1).cpus, at(pi, 3).cpus),
        ]);
    }
    r.tables.push(t);
    let dash = peers
        .iter()
        .position(|p| *p == PeerSpec::DashMap)
        .expect("the dashmap peer");
    let mdl: Vec<usize> = (0..peers.len())
        .filter(|&i| matches!(peers[i], PeerSpec::Mdl(_)))
        .collect();
    let mut v = Table::new(
        "alone-vs-dashmap",
        "Lock manager only: mdl / dashmap + RwLocks, acquire + release per second (and per \
         CPU-second)",
        &[
            "mdl mode",
            "1 table, 1 thr",
            "1 table, 2 thr",
            "8 tables, 1 thr",
            "8 tables, 2 thr",
        ],
    );
    for &m in &mdl {
        let mut row = vec![alone_label(&peers[m])];
        row.extend((0..ALONE.len()).map(|c| {
            format!(
                "{} ({})",
                ratio(at(m, c).qps / at(dash, c).qps),
                ratio(at(dash, c).cpu_ns / at(m, c).cpu_ns)
            )
        }));
        v.row(row);
    }
    r.tables.push(v);
    // Issue 9's targets, judged on the default mode (per-context, the first peer).
    let d = mdl[0];
    let targets = [
        (
            "1 table, 1 thread: mdl / dashmap + RwLocks",
            at(d, 0).qps / at(dash, 0).qps,
            1.0,
        ),
        (
            "1 hot table: 2 threads / 1 thread",
            at(d, 1).qps / at(d, 0).qps,
            1.6,
        ),
        (
            "8 tables: 2 threads / 1 thread",
            at(d, 3).qps / at(d, 2).qps,
            1.7,
        ),
    ];
    let mut g = Table::new(
        "alone-targets",
        "Lock manager only: issue 9's targets for the default mode (per-context)",
        &["target", "measured", "wanted", "met?"],
    );
    for (what, got, want) in targets {
        g.row(vec![
            what.into(),
            ratio(got),
            format!("≥ {}", ratio(want)),
            if got >= want { "yes" } else { "no" }.into(),
        ]);
    }
    r.tables.push(g);
    for (stem, tables) in [("alone-1-table", 1), ("alone-8-tables", 8)] {
        let mut c = Chart::new(
            stem,
            &format!(
                "Lock manager only, {tables} table{}",
                if tables == 1 { "" } else { "s" }
            ),
            "sessions (threads)",
            "M acquire + release / s (median)",
        );
        for (pi, p) in peers.iter().enumerate() {
            c.line(
                alone_label(p),
                (0..ALONE.len())
                    .filter(|&ci| ALONE[ci].0 == tables)
                    .map(|ci| (ALONE[ci].1 as f64, at(pi, ci).qps / 1e6))
                    .collect(),
            );
        }
        r.charts.push(c);
    }
    r.headline = Some(Headline {
        what: "lock manager only, mdl per-context: vs dashmap + RwLocks (1 table, 1 thread); \
               2 vs 1 threads on 1 hot table; on 8 tables"
            .into(),
        measured: targets
            .iter()
            .map(|t| ratio(t.1))
            .collect::<Vec<_>>()
            .join("; "),
        published: "targets ≥ 1.00x; ≥ 1.60x; ≥ 1.70x (issue 9)".into(),
    });
    r.notes.push(
        "Lock manager only: each session loops \"SR on a random table of T, end of statement\" \
         (`crates/bench/src/bare.rs`) with instrumentation at its baseline; the loop adds a \
         random draw per statement for every peer alike. On 2 shared cores the 2-thread figure \
         needs both cores: when other processes run, the 2 sessions get less than 2 CPUs (last \
         column) and the 2 thr / 1 thr ratio drops for every peer alike. CPU ns per operation \
         shows what sharing cache lines costs, but only while the 2 sessions really run at \
         once (time-sliced on one CPU, they share nothing)."
            .into(),
    );
    json!({"configurations": ALONE, "cases": cases, "results": res})
}
