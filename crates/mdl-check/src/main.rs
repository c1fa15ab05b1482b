//! `mdl-check`: the long checks of the `mdl` lock manager.
//!
//! ```text
//! cargo run --release -p mdl-check -- soak --minutes 10 --threads 16   # per fast-path mode
//! cargo run --release -p mdl-check -- stress --seconds 20 --threads 32  # per configuration
//! cargo run --release -p mdl-check -- fuzz --minutes 10
//! ```
//!
//! The exit code is 0 when every check passed, 1 on any violation or disagreement, 2 on bad
//! arguments.
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use mdl_check::{fuzz, soak, stress};
use mdl_core::{FastPath, MdlConfig};

#[derive(Parser)]
#[command(name = "mdl-check", about = "Long checks of the mdl lock manager")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Concurrency soak: random operations over all 18 namespaces, every lock type and
    /// duration, waits with short timeouts, upgrades, downgrades, clones, savepoints, kills and
    /// dropped contexts, checked against the reference matrices; once per fast-path mode.
    Soak {
        /// How long to run each fast-path mode.
        #[arg(long, default_value_t = 1.0)]
        minutes: f64,
        /// Worker threads (below 32: the harness does not model MySQL's search-depth limit).
        #[arg(long, default_value_t = 16)]
        threads: usize,
        /// Seed of the random operation streams.
        #[arg(long, default_value_t = 0x5EED)]
        seed: u64,
        /// Only this fast-path mode (default: every mode).
        #[arg(long, value_parser = parse_fast_path)]
        fast_path: Option<FastPath>,
    },
    /// Stress: threads replay MySQL-like statement shapes (DML, ALTER TABLE upgrades and
    /// downgrades, LOCK TABLES, FTWRL, DROP DATABASE, GET_LOCK, savepoints) with kills, in every
    /// configuration of the stress list (every fast-path mode included).
    Stress {
        /// How long to run each configuration.
        #[arg(long, default_value_t = 20.0)]
        seconds: f64,
        /// Statement threads.
        #[arg(long, default_value_t = 32)]
        threads: usize,
        /// Seed of the random statement streams.
        #[arg(long, default_value_t = 0x9E37_79B9_7F4A_7C15)]
        seed: u64,
    },
    /// The differential driver (manager vs reference model) on seeded random inputs.
    Fuzz {
        /// How long to run.
        #[arg(long, default_value_t = 1.0)]
        minutes: f64,
        /// Longest input in bytes.
        #[arg(long, default_value_t = 400)]
        max_len: usize,
        /// Seed of the inputs.
        #[arg(long, default_value_t = 0x5EED)]
        seed: u64,
    },
}

fn parse_fast_path(s: &str) -> Result<FastPath, String> {
    FastPath::ALL
        .into_iter()
        .find(|m| m.name() == s)
        .ok_or_else(|| {
            let names: Vec<&str> = FastPath::ALL.iter().map(|m| m.name()).collect();
            format!("one of {}", names.join(", "))
        })
}

fn duration(minutes: f64) -> Option<Duration> {
    let secs = minutes * 60.0;
    (secs.is_finite() && secs > 0.0).then(|| Duration::from_secs_f64(secs))
}

/// Exit code 0 when every check passed, 1 otherwise.
fn passed(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Exit code 2 with a message: the arguments make no run.
fn bad_arguments(msg: &str) -> ExitCode {
    eprintln!("{msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    match Cli::parse().cmd {
        Cmd::Soak {
            minutes,
            threads,
            seed,
            fast_path,
        } => {
            let Some(per_mode) = duration(minutes).filter(|_| threads > 0) else {
                return bad_arguments("soak: --minutes must be positive and --threads at least 1");
            };
            let modes = fast_path.map_or(FastPath::ALL.to_vec(), |m| vec![m]);
            let mut ok = true;
            for mode in modes {
                eprintln!(
                    "soak: fast path {}, {threads} threads for {:.0} s (seed {seed})",
                    mode.name(),
                    per_mode.as_secs_f64()
                );
                let report = soak::run(&soak::SoakConfig {
                    threads,
                    duration: Some(per_mode),
                    seed,
                    mdl: MdlConfig::builder()
                        .fast_path(mode)
                        .build()
                        .expect("a valid configuration"),
                    ..soak::SoakConfig::default()
                });
                println!("fast path {}: {report}", mode.name());
                ok &= report.ok();
            }
            passed(ok)
        }
        Cmd::Stress {
            seconds,
            threads,
            seed,
        } => {
            let Some(d) = duration(seconds / 60.0).filter(|_| threads > 0) else {
                return bad_arguments(
                    "stress: --seconds must be positive and --threads at least 1",
                );
            };
            let reports = stress::configs().into_iter().map(|mdl| {
                let report = stress::run(&stress::StressConfig {
                    mdl,
                    threads,
                    duration: d,
                    seed,
                });
                println!("{report}");
                report.ok()
            });
            // Every configuration runs, even after a failure.
            passed(reports.fold(true, |all, ok| all & ok))
        }
        Cmd::Fuzz {
            minutes,
            max_len,
            seed,
        } => {
            let Some(d) = duration(minutes) else {
                return bad_arguments("fuzz: --minutes must be positive");
            };
            let report = fuzz::run(&fuzz::FuzzConfig {
                cases: None,
                duration: Some(d),
                max_len,
                seed,
            });
            println!("{report}");
            passed(report.ok())
        }
    }
}
