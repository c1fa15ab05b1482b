//! `trx-size`: autocommit vs 10 and 100 statements per transaction (published figures A and
//! F: MDL taken once per table per transaction instead of once per statement).

use serde_json::json;

use super::{ratio, sweep, sweep_chart, sweep_table, threads};
use mdl_core::FastPath;

use crate::output::{Headline, Report, Table};
use crate::peers::{MdlSetup, PeerSpec};
use crate::runner::Ctx;
use crate::workload::Workload;

/// Runs the report.
pub fn run(ctx: &mut Ctx) -> Report {
    let ths = threads(ctx);
    let setups = [
        ("8.0", MdlSetup::default()),
        (
            "5.6.15",
            MdlSetup {
                fast_path: FastPath::Off,
                ..MdlSetup::default()
            },
        ),
    ];
    let sizes = [1u32, 10, 100];
    let mut cases = Vec::new();
    for (name, s) in &setups {
        for &k in &sizes {
            let label = if k == 1 {
                format!("mdl {name}, autocommit")
            } else {
                format!("mdl {name}, {k} stmts/trx")
            };
            cases.push((
                label,
                PeerSpec::Mdl(*s),
                Workload {
                    trx_size: k,
                    ..Workload::default()
                },
            ));
        }
    }
    let res = sweep(ctx, "trx-size", &cases, &ths);
    let labels: Vec<String> = cases.iter().map(|c| c.0.clone()).collect();
    let mut r = Report::new(
        "trx-size",
        "Statements per transaction: autocommit vs 10 and 100",
        "Point-selects on 8 tables (1 µs of work each) with the table's SR lock held to the end \
         of the transaction: in autocommit mode every statement acquires and releases its lock; \
         with K statements per transaction a table already locked in the transaction is found \
         in the context's own tickets (`find_ticket`) and nothing is released until COMMIT. \
         Configurations: MySQL 8.0 (8 partitions, MurmurHash3, fast path) and 5.6.15 (the same \
         without the fast path). Reproduces published figures A (250K vs 230K QPS at 100 \
         statements per transaction) and F (1.12-1.46x).",
    );
    r.tables.push(sweep_table(
        "qps",
        "Median QPS (statements/s) and p99 statement latency",
        &labels,
        &ths,
        &res,
        true,
    ));
    let mut h = Table::new(
        "ratios",
        "Speed-up over autocommit, same run: median QPS ratio, and statements per CPU-second \
         ratio (session CPU time; steadier on a shared machine)",
        &[
            "threads",
            "8.0: 10/trx",
            "8.0: 100/trx",
            "5.6.15: 10/trx",
            "5.6.15: 100/trx",
            "per CPU-s 8.0: 100/trx",
            "per CPU-s 5.6.15: 100/trx",
        ],
    );
    for (ti, t) in ths.iter().enumerate() {
        let q = |i: usize| res[ti][i].qps;
        let c = |i: usize| res[ti][i].cpu_ns;
        h.row(vec![
            t.to_string(),
            ratio(q(1) / q(0)),
            ratio(q(2) / q(0)),
            ratio(q(4) / q(3)),
            ratio(q(5) / q(3)),
            ratio(c(0) / c(2)),
            ratio(c(3) / c(5)),
        ]);
    }
    r.tables.push(h);
    r.charts.push(sweep_chart(
        "qps",
        "Point-select QPS by statements per transaction",
        "QPS (statements/s, median)",
        &labels,
        &ths,
        &res,
        |m| m.qps,
    ));
    // Headline at 2 sessions (both cores), or the most threads swept if fewer.
    let ti = ths.iter().position(|&t| t == 2).unwrap_or(ths.len() - 1);
    let (q, c) = (|i: usize| res[ti][i].qps, |i: usize| res[ti][i].cpu_ns);
    r.headline = Some(Headline {
        what: format!(
            "100 statements per transaction vs autocommit, 8.0 / 5.6.15, {} sessions: QPS \
             (per CPU-s)",
            ths[ti]
        ),
        measured: format!(
            "{} / {} ({} / {})",
            ratio(q(2) / q(0)),
            ratio(q(5) / q(3)),
            ratio(c(0) / c(2)),
            ratio(c(3) / c(5))
        ),
        published: "1.09x (A); 1.12–1.46x at 2–32 threads (F)".into(),
    });
    r.data = json!({"threads": ths, "cases": cases.iter().map(|c| json!({"label": c.0, "peer": c.1, "workload": c.2})).collect::<Vec<_>>(), "results": res, "timing": ctx.timing});
    r
}
