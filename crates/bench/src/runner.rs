//! Runs workloads: warm-up, a timed window, several runs, medians, A/B interleaving, latency
//! histograms.
//!
//! A run starts `threads` sessions (one thread and one lock-manager session each) on a fresh
//! lock table, releases them together, lets them warm up, then counts the statements completed
//! inside the timed window. Every 8th statement is timed into a per-thread HDR histogram
//! (timing each one would add two clock reads, ~50 ns each on this VM, to a ~1 µs statement).
//!
//! [`Ctx::compare`] measures several cases "A B C, B C A, C A B, ...": each round runs every case
//! once, in a rotated order, so slow drift of the machine (other tenants, thermal, frequency)
//! hits every case alike; each case's figure is the median over rounds.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use crate::instr::InstrMode;
use crate::peers::{LockTable, PeerSpec};
use crate::with_peer;
use crate::work::Work;
use crate::workload::{Driver, Workload};

/// Warm-up, window and number of runs.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Timing {
    /// Warm-up before the window, per run.
    pub warmup: Duration,
    /// The measured window, per run.
    pub window: Duration,
    /// Runs per case (the reported figure is the median).
    pub runs: usize,
}

impl Timing {
    /// About 2 minutes for the whole `report`.
    pub const QUICK: Timing = Timing {
        warmup: Duration::from_millis(30),
        window: Duration::from_millis(100),
        runs: 3,
    };
    /// About 25 minutes for the whole `report`.
    pub const FULL: Timing = Timing {
        warmup: Duration::from_millis(200),
        window: Duration::from_millis(800),
        runs: 5,
    };

    /// Wall time of one run, for progress estimates.
    pub fn per_run(&self) -> Duration {
        self.warmup + self.window + Duration::from_millis(5)
    }
}

/// One measured case: which lock manager, which workload, how many sessions.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    /// The lock manager.
    pub peer: PeerSpec,
    /// The workload.
    pub workload: Workload,
    /// Sessions (threads).
    pub threads: usize,
    /// Instrumentation mode, applied before the run.
    pub instr: InstrMode,
}

impl Case {
    /// `threads` sessions of `workload` on `peer`, instrumentation at its baseline
    /// ([`InstrMode::baseline`]: off, or compiled out).
    pub fn new(peer: PeerSpec, workload: Workload, threads: usize) -> Case {
        Case {
            peer,
            workload,
            threads,
            instr: InstrMode::baseline(),
        }
    }
}

/// CPU time consumed by the calling thread, in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`; 0
/// where unsupported).
pub fn thread_cpu_ns() -> u64 {
    #[cfg(target_os = "linux")]
    {
        #[repr(C)]
        struct Timespec {
            sec: i64,
            nsec: i64,
        }
        extern "C" {
            fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
        }
        const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
        let mut ts = Timespec { sec: 0, nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
        if unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return (ts.sec as u64) * 1_000_000_000 + ts.nsec as u64;
        }
        0
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// The result of one run.
#[derive(Debug, Clone, Default)]
pub struct RunResult {
    /// Statements per second inside the window.
    pub qps: f64,
    /// CPU time the sessions used per statement inside the window, in nanoseconds. Unlike QPS
    /// it does not drop when other processes take the CPU away, so it is the steadier measure
    /// of a per-statement cost on a shared machine.
    pub cpu_ns: f64,
    /// Transactions rolled back (lock wait timeouts or deadlocks) inside the window.
    pub aborts: u64,
    /// CPUs the sessions used on average inside the window (their CPU time over the window):
    /// 2 sessions that ran in parallel all along show 2.0, time-sliced on one CPU 1.0.
    pub cpus: f64,
    /// Latency of sampled statements, in nanoseconds.
    pub hist: Option<Histogram<u64>>,
}

/// What the sessions of one run add up inside the window.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    statements: AtomicU64,
    cpu_ns: AtomicU64,
    aborts: AtomicU64,
}

impl Tally {
    /// Adds one session's statements, CPU time and aborts inside the window.
    pub(crate) fn add(&self, statements: u64, cpu_ns: u64, aborts: u64) {
        self.statements.fetch_add(statements, Ordering::Relaxed);
        self.cpu_ns.fetch_add(cpu_ns, Ordering::Relaxed);
        self.aborts.fetch_add(aborts, Ordering::Relaxed);
    }

    /// The run's result over a window of `elapsed`.
    pub(crate) fn result(&self, elapsed: Duration, hist: Option<Histogram<u64>>) -> RunResult {
        let n = self.statements.load(Ordering::Relaxed);
        let cpu = self.cpu_ns.load(Ordering::Relaxed) as f64;
        RunResult {
            qps: n as f64 / elapsed.as_secs_f64(),
            cpu_ns: cpu / n.max(1) as f64,
            aborts: self.aborts.load(Ordering::Relaxed),
            cpus: cpu / elapsed.as_nanos().max(1) as f64,
            hist,
        }
    }
}

/// A case's figures over several runs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Measured {
    /// Median statements per second.
    pub qps: f64,
    /// Every run's statements per second, in run order.
    pub qps_runs: Vec<f64>,
    /// Median session CPU time per statement (ns).
    pub cpu_ns: f64,
    /// Every run's CPU time per statement.
    pub cpu_ns_runs: Vec<f64>,
    /// Latency percentiles over all runs, in microseconds.
    pub p50_us: f64,
    /// 95th percentile.
    pub p95_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// Rolled-back transactions over all runs.
    pub aborts: u64,
    /// Median CPUs the sessions used ([`RunResult::cpus`]).
    pub cpus: f64,
}

impl Measured {
    /// Median QPS relative to `base` (1.0 = equal).
    pub fn ratio(&self, base: &Measured) -> f64 {
        self.qps / base.qps
    }
}

/// The value at quantile `q` of `v` (nearest rank); 0 for an empty slice.
pub fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[((q * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1]
}

/// Median of `v` (mean of the middle two for an even count); 0 for an empty slice.
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

pub(crate) const WARMUP: u8 = 0;
pub(crate) const MEASURE: u8 = 1;

/// The driver's side of a timed run: releases the sessions waiting on `start`, lets them warm
/// up, switches `phase` to [`MEASURE`] for the window and then to [`STOP`]; returns the
/// window's real length.
pub(crate) fn drive_phases(start: &Barrier, phase: &AtomicU8, timing: &Timing) -> Duration {
    start.wait();
    std::thread::sleep(timing.warmup);
    phase.store(MEASURE, Ordering::Relaxed);
    let t0 = Instant::now();
    std::thread::sleep(timing.window);
    phase.store(STOP, Ordering::Relaxed);
    t0.elapsed()
}
pub(crate) const STOP: u8 = 2;

/// Runs `case` once.
pub fn run_once(case: &Case, timing: &Timing) -> RunResult {
    run_once_then(case, timing, |_| ())
}

/// Runs `case` once, then calls `after` with the result while the lock table still exists (to
/// read per-instance instrumentation of its partitions).
pub fn run_once_then(case: &Case, timing: &Timing, after: impl FnOnce(&RunResult)) -> RunResult {
    if let Err(e) = crate::instr::apply(case.instr) {
        panic!("{e}");
    }
    let keys = case.workload.keys();
    with_peer!(&case.peer, &keys, |t| {
        let r = run_on(&t, case, timing);
        after(&r);
        r
    })
}

fn run_on<T: LockTable>(table: &T, case: &Case, timing: &Timing) -> RunResult {
    let work = Work::calibrate(case.workload.work_ns);
    let phase = AtomicU8::new(WARMUP);
    let tally = Tally::default();
    let start = Barrier::new(case.threads + 1);
    let wl = &case.workload;
    let (elapsed, hist) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..case.threads)
            .map(|i| {
                let (phase, tally, start) = (&phase, &tally, &start);
                s.spawn(move || {
                    let mut d = Driver::new(table.session(), wl, work);
                    let mut rng = fastrand::Rng::with_seed(i as u64 * 7919 + 17);
                    let mut hist =
                        Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 2).expect("bounds");
                    let (mut done, mut ab0, mut seen, mut cpu0) = (0u64, 0u64, false, 0u64);
                    let mut cpu_used = 0;
                    start.wait();
                    let mut n = 0u64;
                    loop {
                        let ph = phase.load(Ordering::Relaxed);
                        if ph == STOP {
                            if seen {
                                cpu_used = thread_cpu_ns() - cpu0;
                            }
                            break;
                        }
                        let measuring = ph == MEASURE;
                        if measuring && !seen {
                            seen = true;
                            ab0 = d.aborts;
                            cpu0 = thread_cpu_ns();
                        }
                        n += 1;
                        if n & 7 == 0 && measuring {
                            let t = Instant::now();
                            let ok = d.step(&mut rng);
                            if ok {
                                let _ = hist.record(t.elapsed().as_nanos().max(1) as u64);
                            }
                            done += u64::from(ok);
                        } else {
                            let ok = d.step(&mut rng);
                            done += u64::from(ok && measuring);
                        }
                    }
                    d.finish();
                    // Unseen, the window was never entered: nothing done, no aborts counted.
                    let aborted = if seen { d.aborts - ab0 } else { 0 };
                    tally.add(done, cpu_used, aborted);
                    hist
                })
            })
            .collect();
        let elapsed = drive_phases(&start, &phase, timing);
        let mut hist = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 2).expect("bounds");
        for h in handles {
            let _ = hist.add(h.join().expect("session panicked"));
        }
        (elapsed, hist)
    });
    tally.result(elapsed, Some(hist))
}

/// Summarises several runs of one case.
pub fn summarize(runs: &[RunResult]) -> Measured {
    let qps_runs: Vec<f64> = runs.iter().map(|r| r.qps).collect();
    let cpu_ns_runs: Vec<f64> = runs.iter().map(|r| r.cpu_ns).collect();
    let mut all = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 2).expect("bounds");
    for r in runs {
        if let Some(h) = &r.hist {
            let _ = all.add(h);
        }
    }
    let pct = |q: f64| {
        if all.is_empty() {
            0.0
        } else {
            all.value_at_quantile(q) as f64 / 1000.0
        }
    };
    Measured {
        qps: median(&qps_runs),
        cpu_ns: median(&cpu_ns_runs),
        cpu_ns_runs,
        p50_us: pct(0.50),
        p95_us: pct(0.95),
        p99_us: pct(0.99),
        aborts: runs.iter().map(|r| r.aborts).sum(),
        cpus: median(&runs.iter().map(|r| r.cpus).collect::<Vec<_>>()),
        qps_runs,
    }
}

/// Progress reporting, and the dry run that sizes the progress bar before the real run.
pub struct Ctx {
    /// Timing of every run.
    pub timing: Timing,
    /// Quick mode (fewer points).
    pub quick: bool,
    dry: bool,
    planned: Duration,
    bar: ProgressBar,
}

impl Ctx {
    /// A context that measures (the bar is hidden until [`Ctx::start`]).
    pub fn new(timing: Timing, quick: bool) -> Ctx {
        Ctx {
            timing,
            quick,
            dry: false,
            planned: Duration::ZERO,
            bar: ProgressBar::hidden(),
        }
    }

    /// A context that only adds up the time the runs would take.
    pub fn dry(timing: Timing, quick: bool) -> Ctx {
        Ctx {
            dry: true,
            ..Ctx::new(timing, quick)
        }
    }

    /// Whether this is a dry run (reports write nothing then).
    pub fn is_dry(&self) -> bool {
        self.dry
    }

    /// The time the dry run added up.
    pub fn planned(&self) -> Duration {
        self.planned
    }

    /// Shows a progress bar on stderr for `total` of planned work.
    pub fn start(&mut self, total: Duration) {
        let bar = ProgressBar::with_draw_target(
            Some(total.as_millis().max(1) as u64),
            ProgressDrawTarget::stderr(),
        );
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {percent:>3}% ETA {eta} {msg}",
            )
            .expect("valid template"),
        );
        self.bar = bar;
    }

    /// Sets the message shown next to the bar.
    pub fn message(&self, msg: impl Into<String>) {
        self.bar.set_message(msg.into());
    }

    /// Prints a line above the bar.
    pub fn println(&self, msg: impl AsRef<str>) {
        if !self.dry {
            self.bar.println(msg.as_ref());
        }
    }

    /// Closes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    /// Accounts `est` of work done by `f` (or, in a dry run, only plans it and returns the
    /// default value).
    pub fn timed<R: Default>(&mut self, est: Duration, f: impl FnOnce() -> R) -> R {
        if self.dry {
            self.planned += est;
            return R::default();
        }
        let r = f();
        self.bar.inc(est.as_millis() as u64);
        r
    }

    /// Measures `cases` interleaved: `timing.runs` rounds, each running every case once in a
    /// rotated order. Returns one [`Measured`] per case.
    pub fn compare(&mut self, cases: &[Case]) -> Vec<Measured> {
        self.compare_by(cases, run_once)
    }

    /// [`Ctx::compare`] for any kind of case: `run` measures one case once.
    pub fn compare_by<C>(
        &mut self,
        cases: &[C],
        run: impl Fn(&C, &Timing) -> RunResult,
    ) -> Vec<Measured> {
        let timing = self.timing;
        let mut runs: Vec<Vec<RunResult>> = vec![Vec::new(); cases.len()];
        for round in 0..timing.runs {
            for j in 0..cases.len() {
                let i = (j + round) % cases.len();
                let r = self.timed(timing.per_run(), || run(&cases[i], &timing));
                runs[i].push(r);
            }
        }
        runs.iter().map(|r| summarize(r)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peers::MdlSetup;

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn a_short_run_counts_statements() {
        let timing = Timing {
            warmup: Duration::from_millis(5),
            window: Duration::from_millis(30),
            runs: 2,
        };
        let mut ctx = Ctx::new(timing, true);
        let case = Case::new(PeerSpec::Mdl(MdlSetup::default()), Workload::default(), 2);
        let m = ctx.compare(&[case.clone(), case]);
        assert_eq!(m.len(), 2);
        for x in &m {
            assert!(x.qps > 0.0);
            assert_eq!(x.qps_runs.len(), 2);
            assert!(x.p99_us >= x.p50_us);
            assert!(x.cpu_ns > 0.0);
        }
        let mut dry = Ctx::dry(timing, true);
        let _ = dry.compare(&[Case::new(PeerSpec::GlobalMutex, Workload::default(), 1)]);
        assert_eq!(dry.planned(), timing.per_run() * 2);
    }
}
