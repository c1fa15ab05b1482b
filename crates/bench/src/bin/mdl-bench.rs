//! `mdl-bench`: the benchmark reports of the `mdl` lock manager.
//!
//! ```text
//! cargo run --release -p mdl-bench -- report --quick   # every report, about 2 minutes
//! cargo run --release -p mdl-bench -- hash-instances   # one report, full length
//! ```
//!
//! Output goes to `target/mdl-report/` (or `--out`): per report a markdown page, CSV tables,
//! SVG charts and JSON data; `report` also writes `index.md` linking them all.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Parser, Subcommand};
use mdl_bench::reports::{self, ReportFn};
use mdl_bench::runner::{Ctx, Timing};

#[derive(Parser)]
#[command(
    name = "mdl-bench",
    about = "Benchmark reports for the mdl lock manager"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    /// Short windows and fewer points (about 2 minutes for `report` on 2 cores).
    #[arg(long, global = true)]
    quick: bool,
    /// Output directory.
    #[arg(long, global = true, default_value = "target/mdl-report")]
    out: PathBuf,
    /// Runs per case (median reported); overrides the mode's default.
    #[arg(long, global = true)]
    runs: Option<usize>,
    /// Only print the planned measuring time and exit.
    #[arg(long, global = true)]
    plan: bool,
}

#[derive(Subcommand, Clone)]
enum Cmd {
    /// Every report, then index.md.
    Report,
    /// QPS vs threads for shards x hash x fast path.
    HashInstances,
    /// Autocommit vs 10 and 100 statements per transaction.
    TrxSize,
    /// Time per lock for N locks in one context, hashed vs linear.
    TicketStore,
    /// mdl vs other lock managers (with the workload, and the lock manager alone).
    Peers,
    /// EXCLUSIVE on a hot table vs other contexts, per fast-path mode.
    DdlHotTable,
    /// The async API: no-wait cost, wake-up latency vs tokio RwLock, 1,000 tasks with DDL.
    Async,
    /// Cluster-wide locks on etcd (needs the `cluster` feature and etcd).
    Cluster,
    /// The cost of the ways to count an event.
    Counters,
    /// QPS per instrumentation mode (needs pfs).
    PfsOverhead,
    /// Synch-mode overhead vs work per statement (needs pfs).
    Amplification,
    /// Instrumentation overhead vs contention (needs pfs).
    Contention,
    /// One run of point-selects on mdl (8.0 configuration), printed as JSON (the pfs-overhead
    /// report drives the compiled-out build through this).
    #[command(hide = true)]
    RunCase {
        /// Sessions.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Tables.
        #[arg(long, default_value_t = 8)]
        tables: usize,
        /// Work per statement (ns).
        #[arg(long, default_value_t = 1000)]
        work_ns: u64,
        /// Warm-up (ms).
        #[arg(long, default_value_t = 40)]
        warmup_ms: u64,
        /// Window (ms).
        #[arg(long, default_value_t = 150)]
        window_ms: u64,
        /// Busy-loop iterations per ns (default: calibrate).
        #[arg(long)]
        spin_rate: Option<f64>,
    },
    /// A cluster node process that holds SR on `test.t` until killed (the cluster report
    /// kills it).
    #[command(hide = true)]
    ClusterNode {
        /// etcd client URLs, comma-separated.
        #[arg(long)]
        endpoints: String,
        /// Node id.
        #[arg(long)]
        node: u64,
        /// Lease TTL (ms).
        #[arg(long, default_value_t = 2000)]
        ttl_ms: u64,
        /// Key prefix.
        #[arg(long, default_value = "/mdl/")]
        prefix: String,
    },
}

impl Cmd {
    fn name(&self) -> &'static str {
        match self {
            Cmd::Report => "report",
            Cmd::HashInstances => "hash-instances",
            Cmd::TrxSize => "trx-size",
            Cmd::TicketStore => "ticket-store",
            Cmd::Peers => "peers",
            Cmd::DdlHotTable => "ddl-hot-table",
            Cmd::Async => "async",
            Cmd::Cluster => "cluster",
            Cmd::Counters => "counters",
            Cmd::PfsOverhead => "pfs-overhead",
            Cmd::Amplification => "amplification",
            Cmd::Contention => "contention",
            Cmd::RunCase { .. } => "run-case",
            Cmd::ClusterNode { .. } => "cluster-node",
        }
    }
}

fn main() {
    let cli = Cli::parse();
    if let Cmd::ClusterNode {
        endpoints,
        node,
        ttl_ms,
        prefix,
    } = &cli.cmd
    {
        cluster_node(endpoints, *node, *ttl_ms, prefix);
        return;
    }
    let mut timing = if cli.quick {
        Timing::QUICK
    } else {
        Timing::FULL
    };
    if let Some(r) = cli.runs {
        timing.runs = r.max(1);
    }
    if let Cmd::RunCase {
        threads,
        tables,
        work_ns,
        warmup_ms,
        window_ms,
        spin_rate,
    } = cli.cmd.clone()
    {
        if let Some(r) = spin_rate {
            mdl_bench::work::set_rate(r);
        }
        run_case(threads, tables, work_ns, warmup_ms, window_ms);
        return;
    }
    let selected: Vec<(&str, &str, ReportFn)> = match cli.cmd.clone() {
        Cmd::Report => reports::ALL.to_vec(),
        c => reports::ALL
            .iter()
            .copied()
            .filter(|r| r.0 == c.name())
            .collect(),
    };
    let quick_flag = if cli.quick { " --quick" } else { "" };
    // Dry run: add up the planned time of every run, for the progress bar's ETA.
    let mut dry = Ctx::dry(timing, cli.quick);
    for r in &selected {
        let _ = (r.2)(&mut dry);
    }
    eprintln!(
        "{}: about {:.0} s of measurement planned",
        cli.cmd.name(),
        dry.planned().as_secs_f64()
    );
    if cli.plan {
        return;
    }
    let mut ctx = Ctx::new(timing, cli.quick);
    ctx.start(dry.planned());
    let t0 = Instant::now();
    let mut pages = Vec::new();
    for (name, _, f) in &selected {
        let mut rep = f(&mut ctx);
        rep.command = format!("cargo run --release -p mdl-bench -- {name}{quick_flag}");
        match rep.write(&cli.out) {
            Ok(p) => {
                ctx.println(format!("{name}: {}", p.display()));
                let mut files: Vec<String> = rep
                    .tables
                    .iter()
                    .map(|t| format!("{}-{}.csv", name, t.stem))
                    .collect();
                files.extend(
                    rep.charts
                        .iter()
                        .map(|c| format!("{}-{}.svg", name, c.stem)),
                );
                files.push(format!("{name}.json"));
                pages.push((name.to_string(), rep.title.clone(), files));
            }
            Err(e) => {
                ctx.finish();
                eprintln!("writing {name}: {e}");
                std::process::exit(1);
            }
        }
    }
    ctx.finish();
    if let Cmd::Report = &cli.cmd {
        let header = format!(
            "Produced by `cargo run --release -p mdl-bench -- report{quick_flag}` in {:.0} s \
             ({} runs per case, {} ms warm-up, {} ms window; {} cores).",
            t0.elapsed().as_secs_f64(),
            timing.runs,
            timing.warmup.as_millis(),
            timing.window.as_millis(),
            std::thread::available_parallelism().map_or(0, |n| n.get()),
        );
        if let Err(e) = reports::write_index(&cli.out, &pages, &header) {
            eprintln!("writing index.md: {e}");
            std::process::exit(1);
        }
        eprintln!("{}", cli.out.join("index.md").display());
    }
    eprintln!("done in {:.0} s", t0.elapsed().as_secs_f64());
}

#[cfg(feature = "cluster")]
fn cluster_node(endpoints: &str, node: u64, ttl_ms: u64, prefix: &str) {
    mdl_bench::cluster::hold_forever(
        endpoints,
        node,
        std::time::Duration::from_millis(ttl_ms),
        prefix,
    );
}

#[cfg(not(feature = "cluster"))]
fn cluster_node(_: &str, _: u64, _: u64, _: &str) {
    eprintln!("mdl-bench was built without the `cluster` feature");
    std::process::exit(2);
}

fn run_case(threads: usize, tables: usize, work_ns: u64, warmup_ms: u64, window_ms: u64) {
    use mdl_bench::peers::{MdlSetup, PeerSpec};
    use mdl_bench::runner::{run_once, Case};
    use mdl_bench::workload::Workload;
    use std::time::Duration;
    let case = Case::new(
        PeerSpec::Mdl(MdlSetup::default()),
        Workload {
            tables,
            work_ns,
            ..Workload::default()
        },
        threads,
    );
    let timing = Timing {
        warmup: Duration::from_millis(warmup_ms),
        window: Duration::from_millis(window_ms),
        runs: 1,
    };
    let r = run_once(&case, &timing);
    println!(
        "{}",
        serde_json::json!({"qps": r.qps, "cpu_ns": r.cpu_ns, "aborts": r.aborts, "compiled_in": mdl_bench::instr::COMPILED_IN})
    );
}
