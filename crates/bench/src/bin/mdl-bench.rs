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
}

#[derive(Subcommand, Clone, Copy)]
enum Cmd {
    /// Every report, then index.md.
    Report,
    /// QPS vs threads for shards x hash x fast path.
    HashInstances,
    /// Autocommit vs 10 and 100 statements per transaction.
    TrxSize,
    /// Time per lock for N locks in one context, hashed vs linear.
    TicketStore,
    /// mdl vs other lock managers.
    Peers,
    /// The cost of the ways to count an event.
    Counters,
    /// QPS per instrumentation mode (needs pfs).
    PfsOverhead,
    /// Synch-mode overhead vs work per statement (needs pfs).
    Amplification,
    /// Instrumentation overhead vs contention (needs pfs).
    Contention,
}

impl Cmd {
    fn name(self) -> &'static str {
        match self {
            Cmd::Report => "report",
            Cmd::HashInstances => "hash-instances",
            Cmd::TrxSize => "trx-size",
            Cmd::TicketStore => "ticket-store",
            Cmd::Peers => "peers",
            Cmd::Counters => "counters",
            Cmd::PfsOverhead => "pfs-overhead",
            Cmd::Amplification => "amplification",
            Cmd::Contention => "contention",
        }
    }
}

fn main() {
    let cli = Cli::parse();
    let mut timing = if cli.quick {
        Timing::QUICK
    } else {
        Timing::FULL
    };
    if let Some(r) = cli.runs {
        timing.runs = r.max(1);
    }
    let selected: Vec<(&str, &str, ReportFn)> = match cli.cmd {
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
    if let Cmd::Report = cli.cmd {
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
