//! The reports that measure instrumentation: `pfs-overhead`, `amplification`, `contention`.
//!
//! Every mode except "compiled out" is a `pfs` preset switched at run time in this process.
//! "Compiled out" is a second build of `mdl-bench` (`--no-default-features`, in
//! `target/nopfs`), driven through its hidden `run-case` subcommand with the same workload and
//! timing, inside the same interleaved rounds as the other modes.

use std::path::PathBuf;
use std::process::Command;

use serde_json::json;

use super::{int, pct, threads};
use crate::instr::{self, InstrMode};
use mdl_core::FastPath;

use crate::output::{Chart, Headline, Report, Scale, Table};
use crate::peers::{MdlSetup, PeerSpec};
use crate::runner::{median, summarize, Case, Ctx, Measured, RunResult, Timing};
use crate::workload::Workload;

/// Where the compiled-out build lives: `$MDL_BENCH_COMPILED_OUT`, else
/// `<target>/nopfs/release/mdl-bench` next to this binary's target directory.
pub fn compiled_out_path() -> PathBuf {
    if let Some(p) = std::env::var_os("MDL_BENCH_COMPILED_OUT") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    let target = exe
        .parent()
        .and_then(|p| p.parent())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"));
    target.join("nopfs").join("release").join("mdl-bench")
}

/// The command that builds the compiled-out binary.
pub const BUILD_COMPILED_OUT: &str =
    "CARGO_TARGET_DIR=target/nopfs cargo build --release -p mdl-bench --no-default-features";

/// Finds the compiled-out binary, building it (once) when it is missing.
fn compiled_out(ctx: &Ctx) -> Option<PathBuf> {
    let p = compiled_out_path();
    if p.exists() || ctx.is_dry() {
        return Some(p);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = p.parent()?.parent()?.to_path_buf();
    ctx.println(format!(
        "building the compiled-out binary ({BUILD_COMPILED_OUT}); once, a few minutes"
    ));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let ok = Command::new(cargo)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target)
        .args([
            "build",
            "--release",
            "-q",
            "-p",
            "mdl-bench",
            "--no-default-features",
        ])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    (ok && p.exists()).then_some(p)
}

/// Runs `case` in the compiled-out binary; `None` if it cannot.
fn run_compiled_out(bin: &PathBuf, case: &Case, timing: &Timing) -> Option<RunResult> {
    let out = Command::new(bin)
        .args([
            "run-case",
            "--threads",
            &case.threads.to_string(),
            "--tables",
            &case.workload.tables.to_string(),
            "--work-ns",
            &case.workload.work_ns.to_string(),
            "--warmup-ms",
            &timing.warmup.as_millis().to_string(),
            "--window-ms",
            &timing.window.as_millis().to_string(),
            "--spin-rate",
            &crate::work::rate().to_string(),
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    Some(RunResult {
        qps: v["qps"].as_f64()?,
        cpu_ns: v["cpu_ns"].as_f64().unwrap_or(0.0),
        aborts: v["aborts"].as_u64().unwrap_or(0),
        ..RunResult::default()
    })
}

/// Measures `modes` x `cases` interleaved: each round runs every (case, mode) once, modes in a
/// rotated order. Returns `res[case][mode]`, `None` for a mode this build cannot run.
fn compare_modes(
    ctx: &mut Ctx,
    cases: &[Case],
    modes: &[InstrMode],
    runs: usize,
) -> Vec<Vec<Option<Measured>>> {
    let timing = ctx.timing;
    let bin = if modes.contains(&InstrMode::CompiledOut) && instr::COMPILED_IN {
        compiled_out(ctx)
    } else {
        None
    };
    let mut raw: Vec<Vec<Vec<RunResult>>> = vec![vec![Vec::new(); modes.len()]; cases.len()];
    let mut missing = vec![false; modes.len()];
    for round in 0..runs {
        for (ci, case) in cases.iter().enumerate() {
            for j in 0..modes.len() {
                let mi = (j + round + ci) % modes.len();
                let m = modes[mi];
                let mut c = case.clone();
                c.instr = m;
                let r: Option<RunResult> = ctx.timed(timing.per_run(), || {
                    if instr::available(m) {
                        Some(crate::runner::run_once(&c, &timing))
                    } else if m == InstrMode::CompiledOut {
                        bin.as_ref().and_then(|b| run_compiled_out(b, &c, &timing))
                    } else {
                        None
                    }
                });
                match r {
                    Some(r) => raw[ci][mi].push(r),
                    None => missing[mi] = !ctx.is_dry(),
                }
            }
        }
    }
    if instr::COMPILED_IN {
        let _ = instr::apply(InstrMode::baseline());
    }
    raw.iter()
        .map(|per_mode| {
            per_mode
                .iter()
                .enumerate()
                .map(|(mi, runs)| (!missing[mi] && !runs.is_empty()).then(|| summarize(runs)))
                .collect()
        })
        .collect()
}

fn needs_pfs(name: &str, title: &str, about: &str) -> Option<Report> {
    if instr::COMPILED_IN {
        return None;
    }
    let mut r = Report::new(name, title, about);
    r.notes.push(
        "NOT RUN: this binary was built without the `pfs` feature; run the default build.".into(),
    );
    Some(r)
}

/// Throughput overhead of `m` against `base`: 1 - qps(m)/qps(base) (positive = slower).
fn overhead(m: &Option<Measured>, base: &Option<Measured>) -> Option<f64> {
    match (m, base) {
        (Some(m), Some(b)) if b.qps > 0.0 => Some(1.0 - m.qps / b.qps),
        _ => None,
    }
}

/// CPU overhead of `m` against `base`: cpu(m)/cpu(base) - 1, CPU time per statement
/// (positive = more CPU per statement).
fn cpu_overhead(m: &Option<Measured>, base: &Option<Measured>) -> Option<f64> {
    match (m, base) {
        (Some(m), Some(b)) if b.cpu_ns > 0.0 && m.cpu_ns > 0.0 => Some(m.cpu_ns / b.cpu_ns - 1.0),
        _ => None,
    }
}

fn show(o: Option<f64>) -> String {
    o.map_or_else(|| "n/a".into(), pct)
}

/// Spread of one mode's runs: (max - min) / median.
fn spread(m: &Option<Measured>) -> String {
    match m {
        Some(m) if m.qps > 0.0 => {
            let lo = m.qps_runs.iter().copied().fold(f64::MAX, f64::min);
            let hi = m.qps_runs.iter().copied().fold(f64::MIN, f64::max);
            format!("±{:.1}%", 50.0 * (hi - lo) / median(&m.qps_runs))
        }
        _ => "n/a".into(),
    }
}

/// The pfs targets of the project (overhead against compiled out).
const TARGETS: [(InstrMode, f64); 5] = [
    (InstrMode::Off, 0.005),
    (InstrMode::None, 0.01),
    (InstrMode::Default, 0.02),
    (InstrMode::Counters, 0.03),
    (InstrMode::Synch, 0.06),
];

/// Four reads of the cycle counter (statement and table I/O, start and end), in ns: the cost
/// the default mode cannot avoid per statement.
fn timer_floor_ns() -> Option<f64> {
    pfs::performance_timers()
        .rows
        .iter()
        .find(|r| r.timer_name == "CYCLE")
        .and_then(|r| r.read_cost_ps)
        .map(|ps| 4.0 * ps as f64 / 1000.0)
}

/// `pfs-overhead`: QPS per instrumentation mode vs threads, overhead % against compiled out.
pub fn overhead_report(ctx: &mut Ctx) -> Report {
    let (name, title) = ("pfs-overhead", "Instrumentation overhead per mode");
    let about = "Autocommit point-selects on 8 tables (1 µs of work each) against `mdl` as \
                 MySQL 8.0 (8 partitions, MurmurHash3, fast path), in every instrumentation \
                 mode: compiled out (a second build without the `pfs` feature, driven by the \
                 same command), off (`performance_schema=OFF`), none (ON, every instrument and \
                 consumer off), tables, statements, default, counters (everything counted, \
                 nothing timed), synch (defaults + every `wait/synch/%` timed). The simulated \
                 server emits a statement event per statement and a table I/O event per \
                 statement; the lock manager's partition mutexes, lock-object locks and \
                 metadata-lock waits are its own instruments. Overhead = 1 - QPS(mode) / \
                 QPS(compiled out), medians of interleaved runs. Reproduces published figures \
                 B, C and F.";
    if let Some(r) = needs_pfs(name, title, about) {
        return r;
    }
    let ths: Vec<usize> = if ctx.quick { vec![1, 2] } else { threads(ctx) };
    let runs = ctx.timing.runs.max(5);
    let modes = InstrMode::ALL;
    let cases: Vec<Case> = ths
        .iter()
        .map(|&t| Case::new(PeerSpec::Mdl(MdlSetup::default()), Workload::default(), t))
        .collect();
    ctx.message("pfs-overhead");
    let res = compare_modes(ctx, &cases, &modes, runs);
    let mut r = Report::new(name, title, about);
    let mut header = vec!["mode".to_string()];
    for t in &ths {
        header.push(format!("CPU ns/stmt @{t}"));
        header.push(format!("CPU overhead @{t}"));
        header.push(format!("QPS @{t}"));
        header.push(format!("QPS overhead @{t}"));
        header.push(format!("QPS spread @{t}"));
    }
    let h: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut tab = Table::new(
        "overhead",
        "Session CPU time per statement and QPS (medians), overhead against compiled out",
        &h,
    );
    for (mi, m) in modes.iter().enumerate() {
        let mut row = vec![m.name().to_string()];
        for per_case in &res {
            let base = *m == InstrMode::CompiledOut;
            row.push(
                per_case[mi]
                    .as_ref()
                    .map_or("n/a".into(), |x| format!("{:.0}", x.cpu_ns)),
            );
            row.push(if base {
                "(base)".into()
            } else {
                show(cpu_overhead(&per_case[mi], &per_case[0]))
            });
            row.push(per_case[mi].as_ref().map_or("n/a".into(), |x| int(x.qps)));
            row.push(if base {
                "(base)".into()
            } else {
                show(overhead(&per_case[mi], &per_case[0]))
            });
            row.push(spread(&per_case[mi]));
        }
        tab.row(row);
    }
    r.tables.push(tab);
    let mut tg = Table::new(
        "targets",
        "Against the pfs targets (CPU time per statement vs compiled out, 1 and 2 threads)",
        &["mode", "target", "@1", "@2", "met?"],
    );
    for (m, target) in TARGETS {
        let mi = modes.iter().position(|x| *x == m).expect("mode");
        let o1 = cpu_overhead(&res[0][mi], &res[0][0]);
        let o2 = ths
            .iter()
            .position(|&t| t == 2)
            .and_then(|ci| cpu_overhead(&res[ci][mi], &res[ci][0]));
        let met = match (o1, o2) {
            (Some(a), Some(b)) => {
                if a <= target && b <= target {
                    "yes"
                } else {
                    "no"
                }
            }
            _ => "n/a",
        };
        tg.row(vec![
            m.name().into(),
            format!("≤ {:.1}%", target * 100.0),
            show(o1),
            show(o2),
            met.into(),
        ]);
    }
    r.tables.push(tg);
    let mut c = Chart::titled(
        "cpu",
        "Session CPU time per point-select by instrumentation mode",
    )
    .x("sessions (threads)", Scale::Log)
    .y("CPU time per statement (ns, median)", Scale::Linear);
    for (mi, m) in modes.iter().enumerate() {
        c.line_over(m.name(), &ths, |ci| res[ci][mi].as_ref().map(|x| x.cpu_ns));
    }
    r.charts.push(c);
    let floor = timer_floor_ns();
    let mut pc = Chart::titled(
        "overhead-pct",
        "CPU time per statement over compiled out, by mode",
    )
    .x("sessions (threads)", Scale::Log)
    .y("overhead (%)", Scale::Linear);
    let mut nc = Chart::titled(
        "overhead-ns",
        "CPU time per statement over compiled out, by mode, and the timer floor",
    )
    .x("sessions (threads)", Scale::Log)
    .y("ns per statement over compiled out", Scale::Linear);
    for (mi, m) in modes.iter().enumerate().skip(1) {
        let (mut p, mut n) = (Vec::new(), Vec::new());
        for (ci, &t) in ths.iter().enumerate() {
            if let (Some(x), Some(b)) = (&res[ci][mi], &res[ci][0]) {
                p.push((t as f64, 100.0 * (x.cpu_ns / b.cpu_ns - 1.0)));
                n.push((t as f64, x.cpu_ns - b.cpu_ns));
            }
        }
        pc.line(m.name(), p);
        nc.line(m.name(), n);
    }
    if let Some(f) = floor {
        nc.line(
            "timer floor (4 cycle-counter reads)",
            ths.iter().map(|&t| (t as f64, f)).collect(),
        );
    }
    r.charts.push(pc);
    r.charts.push(nc);
    let at1 = |m: InstrMode| {
        let mi = modes.iter().position(|x| *x == m)?;
        cpu_overhead(&res[0][mi], &res[0][0])
    };
    r.headline = Some(Headline {
        what: "CPU per point-select over compiled out, default / synch, 1 session".into(),
        measured: format!(
            "{} / {}",
            show(at1(InstrMode::Default)),
            show(at1(InstrMode::Synch))
        ),
        published: "default 4.5–7%, synch 9.5–11% (B); defaults 0.5–3.1% (C)".into(),
    });
    if let Some(f) = floor {
        r.notes.push(format!(
            "The timer floor is what the default mode cannot avoid per statement: four reads of \
             the cycle counter (statement start and end, table I/O start and end), {f:.1} ns \
             here (`performance_timers.READ_COST_PS`)."
        ));
    }
    if res.iter().any(|row| row[0].is_none()) {
        r.notes.push(format!(
            "The compiled-out build could not be run; build it with `{BUILD_COMPILED_OUT}`."
        ));
    }
    r.notes.push(
        "CPU time per statement is the sessions' own thread CPU time in the window over the \
         statements they completed: it does not move when other processes take the CPU, \
         which QPS on this shared 2-core VM does (the spread column is (max-min)/2 of QPS over \
         the runs, relative to the median). The targets are judged on CPU time."
            .into(),
    );
    r.data =
        json!({"threads": ths, "modes": modes, "results": res, "runs": runs, "timing": ctx.timing});
    r
}

/// The modes of the amplification and contention reports: the baseline first.
const OFF_DEFAULT_SYNCH: [InstrMode; 3] = [InstrMode::Off, InstrMode::Default, InstrMode::Synch];

/// Measures [`OFF_DEFAULT_SYNCH`] x `cases` ([`compare_modes`], `ctx.timing.runs` rounds).
fn against_off(ctx: &mut Ctx, what: &str, cases: &[Case]) -> Vec<Vec<Option<Measured>>> {
    ctx.message(what);
    let runs = ctx.timing.runs;
    compare_modes(ctx, cases, &OFF_DEFAULT_SYNCH, runs)
}

/// One case's cells of [`OFF_DEFAULT_SYNCH`]: off's CPU ns per statement, then the CPU
/// overhead of default and of synch over it.
fn cpu_cells(m: &[Option<Measured>]) -> [String; 3] {
    let off = m[0]
        .as_ref()
        .map_or("n/a".into(), |x| format!("{:.0}", x.cpu_ns));
    [
        off,
        show(cpu_overhead(&m[1], &m[0])),
        show(cpu_overhead(&m[2], &m[0])),
    ]
}

/// One case's cells of [`OFF_DEFAULT_SYNCH`]: off's QPS, then the QPS loss of default and of
/// synch against it.
fn qps_cells(m: &[Option<Measured>]) -> [String; 3] {
    let off = m[0].as_ref().map_or("n/a".into(), |x| int(x.qps));
    [
        off,
        show(overhead(&m[1], &m[0])),
        show(overhead(&m[2], &m[0])),
    ]
}

/// The overhead lines of the default and synch modes (against off), in %, point by point.
#[derive(Default)]
struct ModeLines {
    default: Vec<(f64, f64)>,
    synch: Vec<(f64, f64)>,
}

impl ModeLines {
    /// Adds the overheads (fractions) of the default and synch modes at `x`, where measured.
    fn add(&mut self, x: f64, default: Option<f64>, synch: Option<f64>) {
        self.default.extend(default.map(|o| (x, o * 100.0)));
        self.synch.extend(synch.map(|o| (x, o * 100.0)));
    }

    /// Draws both lines, `default, {what}` and `synch, {what}`.
    fn draw(self, chart: &mut Chart, what: &str) {
        chart.line(format!("default, {what}"), self.default);
        chart.line(format!("synch, {what}"), self.synch);
    }
}

/// The x axis of both amplification charts.
const WORK_AXIS: &str = "CPU work per statement (µs, log; 0 shown at 0.1)";

/// `amplification`: overhead of the synch mode (against off) vs work per statement.
pub fn amplification(ctx: &mut Ctx) -> Report {
    let (name, title) = (
        "amplification",
        "Short code paths amplify instrumentation cost",
    );
    let about = "The same point-select workload with the CPU work done under the lock varied \
                 from 0 to 100 µs per statement; overhead of the synch mode (every \
                 `wait/synch/%` instrument timed, plus the defaults) and of the default mode \
                 against off, at 1 and 2 threads. The shorter the statement, the larger the \
                 share of it spent in instrumented lock-manager code, so the larger the \
                 relative overhead (published figures C: 2.4% CPU-bound vs 0.9% disk-bound; D: \
                 tracing cost 3% for long calls, 12x for short ones).";
    if let Some(r) = needs_pfs(name, title, about) {
        return r;
    }
    let works: Vec<u64> = if ctx.quick {
        vec![0, 1_000, 10_000, 100_000]
    } else {
        vec![0, 300, 1_000, 3_000, 10_000, 30_000, 100_000]
    };
    let ths = [1usize, 2];
    let mut cases = Vec::new();
    for &t in &ths {
        for &w in &works {
            cases.push(Case::new(
                PeerSpec::Mdl(MdlSetup::default()),
                Workload {
                    work_ns: w,
                    ..Workload::default()
                },
                t,
            ));
        }
    }
    let res = against_off(ctx, "amplification", &cases);
    let mut r = Report::new(name, title, about);
    let mut tab = Table::new(
        "overhead",
        "Overhead against off by work per statement (CPU time per statement, and QPS)",
        &[
            "threads",
            "work per statement (µs)",
            "CPU ns/stmt off",
            "default (CPU)",
            "synch (CPU)",
            "QPS off",
            "default (QPS)",
            "synch (QPS)",
        ],
    );
    let mut chart = Chart::titled("overhead", "Instrumentation overhead vs work per statement")
        .x(WORK_AXIS, Scale::Log)
        .y("CPU time per statement over off (%)", Scale::Linear);
    let mut share_chart = Chart::titled(
        "share",
        "Share of a statement's CPU time spent in instrumentation vs work per statement",
    )
    .x(WORK_AXIS, Scale::Log)
    .y(
        "instrumentation share of CPU per statement (%)",
        Scale::Linear,
    );
    for (ti, &t) in ths.iter().enumerate() {
        let mut lines = ModeLines::default();
        for (wi, &w) in works.iter().enumerate() {
            let ci = ti * works.len() + wi;
            let od = cpu_overhead(&res[ci][1], &res[ci][0]);
            let os = cpu_overhead(&res[ci][2], &res[ci][0]);
            let mut row = vec![t.to_string(), format!("{}", w as f64 / 1000.0)];
            row.extend(cpu_cells(&res[ci]));
            row.extend(qps_cells(&res[ci]));
            tab.row(row);
            lines.add((w as f64 / 1000.0).max(0.1), od, os);
        }
        lines.draw(&mut chart, &format!("{t} thread(s)"));
        let share = |mi: usize| -> Vec<(f64, f64)> {
            works
                .iter()
                .enumerate()
                .filter_map(|(wi, &w)| {
                    let ci = ti * works.len() + wi;
                    let (m, b) = (res[ci][mi].as_ref()?, res[ci][0].as_ref()?);
                    (m.cpu_ns > 0.0).then(|| {
                        let x = (w as f64 / 1000.0).max(0.1);
                        (x, 100.0 * (m.cpu_ns - b.cpu_ns).max(0.0) / m.cpu_ns)
                    })
                })
                .collect()
        };
        share_chart.line(format!("default, {t} thread(s)"), share(1));
        share_chart.line(format!("synch, {t} thread(s)"), share(2));
    }
    r.tables.push(tab);
    r.charts.push(chart);
    r.charts.push(share_chart);
    let at = |w: u64| {
        let wi = works.iter().position(|x| *x == w)?;
        cpu_overhead(&res[wi][1], &res[wi][0])
    };
    r.headline = Some(Headline {
        what: "default over off at 0 / 1 / 10 µs of work per statement (1 session, CPU)".into(),
        measured: format!(
            "{} / {} / {}",
            show(at(0)),
            show(at(1_000)),
            show(at(10_000))
        ),
        published: "2.4% CPU-bound vs 0.9% disk-bound (C); 3% long vs 12x short calls (D)".into(),
    });
    r.data = json!({"threads": ths, "work_ns": works, "modes": OFF_DEFAULT_SYNCH, "results": res, "timing": ctx.timing});
    r
}

/// `contention`: instrumentation overhead vs contention (tables 1, 2, 8, 64; 8 sessions).
pub fn contention(ctx: &mut Ctx) -> Report {
    let (name, title) = ("contention", "Instrumentation overhead vs contention");
    let about = "8 sessions of autocommit point-selects (1 µs of work) on 1, 2, 8 or 64 tables \
                 (fewer tables: more sessions on the same lock objects and partitions), `mdl` \
                 as 5.6 (8 partitions, MurmurHash3, no fast path, so every lock goes through \
                 the instrumented partition mutex and lock-object lock) and as 8.0 (fast \
                 path); overhead of the default and synch modes against off. Published figures \
                 B: the overhead is not a constant, it grows with the internal contention the \
                 workload hits.";
    if let Some(r) = needs_pfs(name, title, about) {
        return r;
    }
    let tables = [1usize, 2, 8, 64];
    let th = 8;
    let setups = [
        (
            "5.6 (no fast path)",
            MdlSetup {
                fast_path: FastPath::Off,
                ..MdlSetup::default()
            },
        ),
        ("8.0 (fast path)", MdlSetup::default()),
    ];
    let mut cases = Vec::new();
    for (_, s) in &setups {
        for &n in &tables {
            cases.push(Case::new(
                PeerSpec::Mdl(*s),
                Workload {
                    tables: n,
                    ..Workload::default()
                },
                th,
            ));
        }
    }
    let res = against_off(ctx, "contention", &cases);
    let mut r = Report::new(name, title, about);
    let mut tab = Table::new(
        "overhead",
        &format!("Overhead against off, {th} sessions"),
        &[
            "mdl",
            "tables",
            "QPS off",
            "default (QPS)",
            "synch (QPS)",
            "CPU ns/stmt off",
            "default (CPU)",
            "synch (CPU)",
        ],
    );
    let mut chart = Chart::titled(
        "overhead",
        &format!("Instrumentation overhead vs tables ({th} sessions)"),
    )
    .x("tables (fewer = more contention)", Scale::Log)
    .y("QPS loss against off (%)", Scale::Linear);
    for (si, (sname, _)) in setups.iter().enumerate() {
        let mut lines = ModeLines::default();
        for (ni, &n) in tables.iter().enumerate() {
            let ci = si * tables.len() + ni;
            let od = overhead(&res[ci][1], &res[ci][0]);
            let os = overhead(&res[ci][2], &res[ci][0]);
            let mut row = vec![sname.to_string(), n.to_string()];
            row.extend(qps_cells(&res[ci]));
            row.extend(cpu_cells(&res[ci]));
            tab.row(row);
            lines.add(n as f64, od, os);
        }
        lines.draw(&mut chart, sname);
    }
    r.tables.push(tab);
    r.charts.push(chart);
    let at = |ci: usize| cpu_overhead(&res[ci][1], &res[ci][0]);
    r.headline = Some(Headline {
        what: "default over off, 5.6 design, 1 vs 64 tables, 8 sessions (CPU)".into(),
        measured: format!("{} vs {}", show(at(0)), show(at(tables.len() - 1))),
        published: "7% with one MDL_map mutex vs 4.5% with 8 (B)".into(),
    });
    r.notes.push(
        "With 2 cores, 8 sessions contend mostly through preemption: a session descheduled \
         while it holds a partition mutex or a lock object's lock makes the others wait."
            .into(),
    );
    r.data = json!({"threads": th, "tables": tables, "modes": OFF_DEFAULT_SYNCH, "results": res, "timing": ctx.timing});
    r
}
