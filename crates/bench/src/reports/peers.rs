//! `peers`: QPS and p99 vs threads for mdl vs each peer, read-only and read-write.

use serde_json::json;

use super::{int, ratio, sweep, sweep_chart, sweep_table, threads};
use mdl_core::FastPath;

use crate::output::{Report, Table};
use crate::peers::{MdlSetup, PeerSpec};
use crate::runner::Ctx;
use crate::workload::{Mix, Workload};

/// The peers, mdl first.
pub fn specs() -> Vec<PeerSpec> {
    vec![
        PeerSpec::Mdl(MdlSetup {
            fast_path: FastPath::PerContext,
            ..MdlSetup::default()
        }),
        PeerSpec::Mdl(MdlSetup::default()),
        PeerSpec::Mdl(MdlSetup {
            fast_path: FastPath::Off,
            ..MdlSetup::default()
        }),
        PeerSpec::GlobalMutex,
        PeerSpec::DashMap,
        PeerSpec::LockDb { shards: 8 },
        PeerSpec::LockMap { shards: 8 },
    ]
}

/// Runs the report.
pub fn run(ctx: &mut Ctx) -> Report {
    let ths = threads(ctx);
    let mut r = Report::new(
        "peers",
        "mdl vs other lock managers",
        "The same simulated server (8 tables, 1 µs of work per statement, autocommit) driving \
         each lock manager: `mdl` as MySQL 8.0 (8 partitions, MurmurHash3, fast path) and \
         without the fast path; one global mutex over a map of per-key RwLocks (the pre-MDL \
         `LOCK_open` shape); a dashmap of per-key RwLocks; lock-db 1.0 (multi-granularity \
         IS/IX/S/SIX/X, 8 shards; its `try_acquire` never waits, so it runs in a retry loop \
         with backoff); lockmap 0.2 (exclusive per-key locks only, 8 shards, `try_entry` in a \
         retry loop). The peers get integer keys hashed with ahash; `mdl` hashes MySQL's key \
         bytes. See `crates/bench/src/peers/mod.rs` for how each maps MySQL's lock modes.",
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
                "{}: mdl (8.0) vs the best peer at each thread count",
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
        for (ti, t) in ths.iter().enumerate() {
            let best = (2..cases.len())
                .max_by(|&a, &b| res[ti][a].qps.total_cmp(&res[ti][b].qps))
                .expect("peers");
            let cheap = (2..cases.len())
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
    r.data = json!({"threads": ths, "mixes": data, "timing": ctx.timing});
    r
}
