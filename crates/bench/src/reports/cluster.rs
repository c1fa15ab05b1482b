//! `cluster`: cluster-wide metadata locks on etcd (`mdl-cluster`, issue 23): EXCLUSIVE latency
//! on an idle object at 1 / 3 / 5 nodes with a 3-member etcd on loopback, statement CPU with
//! and without the cluster layer on each of 3 nodes while the next one runs DDL, and the time
//! an ALTER takes to proceed after the node blocking it is killed (stable leader, leader
//! killed too, and with lease checkpointing). Needs the `cluster` feature (`protoc` to build)
//! and an `etcd` binary; skips with a message otherwise.

const TITLE: &str = "Cluster-wide metadata locks on etcd";
const ABOUT: &str = "Issue 23's figures: cluster-wide EXCLUSIVE latency on an idle object at \
1 / 3 / 5 nodes on loopback with a 3-member etcd (target <= 3 etcd round trips, p50 <= 10 ms \
at 3 nodes), thread CPU per SR statement through each of 3 cluster nodes while the next node \
runs DDL (target <= 2% above no cluster layer), and the time for an ALTER to proceed after the \
node blocking it is killed (target <= lease TTL + 1 s with a stable leader).";

/// Runs the report.
#[cfg(not(feature = "cluster"))]
pub fn run(_ctx: &mut crate::runner::Ctx) -> crate::output::Report {
    let mut r = crate::output::Report::new("cluster", TITLE, ABOUT);
    r.notes.push(
        "**Skipped**: mdl-bench was built without the `cluster` feature (it builds \
         `etcd-client`, which needs `protoc`). Run \
         `cargo run --release -p mdl-bench --features cluster -- cluster` with `etcd` and \
         `protoc` installed (Debian: `etcd-server`, `protobuf-compiler`)."
            .into(),
    );
    r
}

#[cfg(feature = "cluster")]
pub use with_cluster::run;

#[cfg(feature = "cluster")]
mod with_cluster {
    use std::time::Duration;

    use mdl_cluster::testkit::{etcd_on_path, EtcdCluster};
    use serde_json::json;

    use super::{ABOUT, TITLE};
    use crate::cluster::{self as c, TTL};
    use crate::output::{Headline, Report, Table};
    use crate::reports::pct;
    use crate::runner::{median, quantile, Ctx};

    /// Runs the report.
    pub fn run(ctx: &mut Ctx) -> Report {
        let mut r = Report::new("cluster", TITLE, ABOUT);
        let (samples, kills, stmts, rounds) = if ctx.quick {
            (30, 1, 200_000, 25)
        } else {
            (200, 5, 200_000, 101)
        };
        let est = Duration::from_secs(if ctx.quick { 20 } else { 90 });
        if ctx.is_dry() {
            ctx.timed(est, || ());
            return r;
        }
        if !etcd_on_path() {
            r.notes.push(
                "**Skipped**: no `etcd` binary on PATH (Debian: `apt-get install etcd-server`)."
                    .into(),
            );
            eprintln!("cluster: SKIPPED, no etcd binary on PATH");
            return r;
        }
        let quick = ctx.quick;
        ctx.timed(est, || {
            measure(quick, samples, kills, stmts, rounds, &mut r)
        });
        r
    }

    fn measure(
        quick: bool,
        samples: usize,
        kills: usize,
        stmts: usize,
        rounds: usize,
        r: &mut Report,
    ) {
        let rt = c::runtime();
        let mut etcd = EtcdCluster::start(3).expect("3 etcd members");

        let mut lat = Table::new(
            "latency",
            "Cluster-wide EXCLUSIVE acquire on an idle object (3-member etcd, loopback)",
            &[
                "nodes",
                "p50 ms",
                "p90 ms",
                "p99 ms",
                "p50 ms, requests balanced over the members",
                "etcd write RTT ms to the leader (interleaved)",
                "p50 / etcd write RTT",
                "etcd write RTT ms, 200 back to back before",
                "p50 / that RTT",
            ],
        );
        let mut lat_data = Vec::new();
        let (mut p50_at_3, mut rtt_at_3) = (0.0, 0.0);
        for n in [1u64, 3, 5] {
            let l = rt.block_on(c::exclusive_latencies(&etcd, n, samples));
            let v = &l.leader;
            let (p50, p90, p99) = (median(v), quantile(v, 0.9), quantile(v, 0.99));
            let rtt = median(&l.rtt);
            if n == 3 {
                (p50_at_3, rtt_at_3) = (p50, rtt);
            }
            lat.row(vec![
                n.to_string(),
                format!("{p50:.2}"),
                format!("{p90:.2}"),
                format!("{p99:.2}"),
                format!("{:.2}", median(&l.balanced)),
                format!("{rtt:.2}"),
                format!("{:.1}", p50 / rtt),
                format!("{:.2}", l.rtt_back_to_back),
                format!("{:.1}", p50 / l.rtt_back_to_back),
            ]);
            lat_data.push(json!({
                "nodes": n,
                "ms": l.leader,
                "balanced_ms": l.balanced,
                "rtt_ms": l.rtt,
                "rtt_back_to_back_ms": l.rtt_back_to_back,
            }));
        }
        r.tables.push(lat);

        let per_node = c::statement_cpu_ns(&rt, &etcd, stmts, rounds);
        let mut cpu = Table::new(
            "statement-cpu",
            "Thread CPU per SR statement (acquire + release) on each node, DDL running on the next node",
            &[
                "node",
                "MdlContext, own lock manager (no cluster), ns",
                "MdlContext on the node's lock manager (stand-ins there), ns",
                "ClusterContext on the node, ns",
                "node's manager vs own (median of rounds)",
                "ClusterContext vs own (median of rounds)",
            ],
        );
        let mut cpu_data = Vec::new();
        for (i, [plain, same, cluster]) in per_node.iter().enumerate() {
            let (mp, ms, mc) = (median(plain), median(same), median(cluster));
            // A round runs the three back to back: its ratios are paired, the machine's drift
            // between rounds (which moves all three) drops out.
            let vs_own = |v: &[f64]| {
                let r: Vec<f64> = v.iter().zip(plain).map(|(x, p)| x / p).collect();
                pct(median(&r) - 1.0)
            };
            cpu.row(vec![
                format!("{} (DDL on node {})", i + 1, (i + 1) % per_node.len() + 1),
                format!("{mp:.1}"),
                format!("{ms:.1}"),
                format!("{mc:.1}"),
                vs_own(same),
                vs_own(cluster),
            ]);
            cpu_data.push(json!({
                "node": i + 1,
                "own_manager": plain,
                "node_manager": same,
                "cluster": cluster,
            }));
        }
        r.tables.push(cpu);

        let mut kill = Table::new(
            "after-kill",
            "Seconds from SIGKILL of the node blocking an ALTER to the ALTER's grant (TTL 2 s)",
            &["etcd", "runs", "median s", "max s", "bound"],
        );
        let mut kill_data = Vec::new();
        let cases: [(&str, bool, bool); 3] = [
            ("stable leader", false, false),
            ("leader killed too, no lease checkpoint", true, false),
            (
                "leader killed too, --experimental-enable-lease-checkpoint",
                true,
                true,
            ),
        ];
        for (i, (label, kill_leader, checkpoint)) in cases.into_iter().enumerate() {
            if checkpoint {
                drop(etcd);
                etcd = EtcdCluster::start_with(3, true).expect("3 etcd members");
            }
            let mut v = Vec::new();
            for k in 0..kills {
                let prefix = format!("/kill{i}-{k}/");
                v.push(rt.block_on(c::ddl_after_kill_s(&mut etcd, kill_leader, &prefix)));
            }
            let max = v.iter().copied().fold(0.0, f64::max);
            let bound = match (kill_leader, checkpoint) {
                (false, _) => format!("<= TTL + 1 s = {:.0} s", TTL.as_secs_f64() + 1.0),
                (true, false) => {
                    "<= election + TTL (the new leader restarts the TTL) + 1 s".to_string()
                }
                // etcd checkpoints a lease's remaining TTL every 5 minutes by default: with a
                // shorter TTL the new leader still starts from the whole TTL.
                (true, true) => format!(
                    "<= election + TTL + 1 s (checkpoints every 5 min: none within a {:.0} s TTL)",
                    TTL.as_secs_f64()
                ),
            };
            kill.row(vec![
                label.into(),
                v.len().to_string(),
                format!("{:.2}", median(&v)),
                format!("{max:.2}"),
                bound,
            ]);
            kill_data.push(json!({"case": label, "s": v}));
        }
        r.tables.push(kill);
        r.headline = Some(Headline {
            what: "EXCLUSIVE across 3 nodes, p50".into(),
            measured: format!(
                "{p50_at_3:.2} ms ({:.1} write round trips)",
                p50_at_3 / rtt_at_3
            ),
            published: "issue 23 target: <= 10 ms, <= 3 round trips".into(),
        });
        r.notes.push(
            "Each row: as many rounds as samples, each a put from one client to the etcd \
             leader's endpoint (the write round trip on the nodes' path: `prefer_leader`, on \
             by default), then one acquire through each of two sets of n nodes in alternating \
             order: the default, and `prefer_leader` off (every request to any of the 3 \
             members, as etcd's client balances them; a write through a follower is forwarded \
             to the leader). The round trip column is the median of the row's puts: a put at \
             the moments the acquires run, after the same pause, which is what their writes \
             meet; the same put 200 times back to back (before the row) meets warm etcd \
             members and answers sooner, shown beside it."
                .into(),
        );
        r.notes.push(
            "Statement CPU is the statement thread's CPU time (CLOCK_THREAD_CPUTIME_ID) per \
             SR acquire + release on 8 tables, the three ways in rotated order within each \
             round; each node in turn serves the statements while the next one takes and \
             releases EXCLUSIVE on other tables (stand-ins on every other node). The node's own \
             tasks (watch, stand-ins, renewals, wait publishing) run on the runtime's threads \
             and are not in it. The ratios are medians of each round's paired ratio. The \
             instruction count of the same path is in BENCHMARKS.md (callgrind)."
                .into(),
        );
        if quick {
            r.notes.push(
                "Quick mode: few samples; the full mode's figures are in BENCHMARKS.md.".into(),
            );
        }
        r.data = json!({
            "latency": lat_data,
            "statement_cpu_ns": cpu_data,
            "after_kill": kill_data,
        });
    }
}
