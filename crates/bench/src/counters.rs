//! The microbenchmark behind "a plain `count++` is cheaper than `if (enabled) count++`"
//! (published figures, section D): the ways to count an event, per operation, on 1 and more
//! threads.
//!
//! Every variant runs the same loop of `n` operations per thread; an operation is one small
//! unit of work (a multiply-add) plus the counting variant under test, so the difference to
//! [`Counter::None`] is the counting cost.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use serde::Serialize;

/// A way of counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Counter {
    /// No counting (the baseline loop).
    None,
    /// `count += 1` on a counter the thread owns, always on.
    Plain,
    /// `if ENABLED { count += 1 }` (a relaxed load of a shared flag, then the increment).
    Checked,
    /// The flag is off: only the check.
    CheckedOff,
    /// `fetch_add(1)` on one atomic shared by every thread.
    SharedAtomic,
    /// A per-thread atomic slot (cache-padded) bumped with a plain load + store, summed by a
    /// reader on demand ("aggregated on read").
    PerThreadSlot,
    /// Plain count plus a timer: two TSC reads (`rdtsc`) and a sum of the difference.
    TimedTsc,
    /// Plain count plus a timer: two `Instant::now()` (the OS clock, vDSO) and a sum.
    TimedOsClock,
}

impl Counter {
    /// Every variant.
    pub const ALL: [Counter; 8] = [
        Counter::None,
        Counter::Plain,
        Counter::Checked,
        Counter::CheckedOff,
        Counter::SharedAtomic,
        Counter::PerThreadSlot,
        Counter::TimedTsc,
        Counter::TimedOsClock,
    ];

    /// A label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Counter::None => "no counting (baseline)",
            Counter::Plain => "count++ (thread-owned)",
            Counter::Checked => "if (enabled) count++ (on)",
            Counter::CheckedOff => "if (enabled) count++ (off)",
            Counter::SharedAtomic => "shared atomic fetch_add",
            Counter::PerThreadSlot => "per-thread slot, sum on read",
            Counter::TimedTsc => "count + timer (TSC)",
            Counter::TimedOsClock => "count + timer (OS clock)",
        }
    }
}

static ENABLED: AtomicBool = AtomicBool::new(true);
static DISABLED: AtomicBool = AtomicBool::new(false);
static SHARED: CachePadded<AtomicU64> = CachePadded::new(AtomicU64::new(0));

#[inline(always)]
fn unit(x: u64) -> u64 {
    x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1)
}

#[inline(always)]
fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `rdtsc` has no preconditions on x86_64.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Instant::now().elapsed().as_nanos() as u64
    }
}

fn one_thread(v: Counter, n: u64, slot: &CachePadded<AtomicU64>) -> u64 {
    let mut x = black_box(1u64);
    let mut count = 0u64;
    let mut time = 0u64;
    let epoch = Instant::now();
    match v {
        Counter::None => {
            for _ in 0..n {
                x = unit(black_box(x));
            }
        }
        Counter::Plain => {
            for _ in 0..n {
                x = unit(black_box(x));
                *black_box(&mut count) += 1;
            }
        }
        Counter::Checked | Counter::CheckedOff => {
            let flag = if v == Counter::Checked {
                &ENABLED
            } else {
                &DISABLED
            };
            for _ in 0..n {
                x = unit(black_box(x));
                if flag.load(Ordering::Relaxed) {
                    *black_box(&mut count) += 1;
                }
            }
        }
        Counter::SharedAtomic => {
            for _ in 0..n {
                x = unit(black_box(x));
                SHARED.fetch_add(1, Ordering::Relaxed);
            }
        }
        Counter::PerThreadSlot => {
            for _ in 0..n {
                x = unit(black_box(x));
                slot.store(slot.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            }
        }
        Counter::TimedTsc => {
            for _ in 0..n {
                let t = tsc();
                x = unit(black_box(x));
                *black_box(&mut count) += 1;
                time = time.wrapping_add(tsc().wrapping_sub(t));
            }
        }
        Counter::TimedOsClock => {
            for _ in 0..n {
                let t = epoch.elapsed();
                x = unit(black_box(x));
                *black_box(&mut count) += 1;
                time = time.wrapping_add((epoch.elapsed() - t).as_nanos() as u64);
            }
        }
    }
    black_box(time);
    black_box(x) ^ count
}

/// Nanoseconds per operation of `v` with `threads` threads each doing `n` operations: each
/// thread's own CPU time over its `n` operations, averaged over the threads (CPU time, not wall
/// time, so other processes on the machine do not inflate it; where the thread CPU clock is
/// unavailable, wall time).
pub fn measure(v: Counter, threads: usize, n: u64) -> f64 {
    let slots: Vec<CachePadded<AtomicU64>> = (0..threads)
        .map(|_| CachePadded::new(AtomicU64::new(0)))
        .collect();
    let start = Barrier::new(threads + 1);
    let el = std::thread::scope(|s| {
        let hs: Vec<_> = slots
            .iter()
            .map(|slot| {
                let start = &start;
                s.spawn(move || {
                    start.wait();
                    let c0 = crate::runner::thread_cpu_ns();
                    black_box(one_thread(v, n, slot));
                    crate::runner::thread_cpu_ns() - c0
                })
            })
            .collect();
        start.wait();
        let t0 = Instant::now();
        let cpu: u64 = hs.into_iter().map(|h| h.join().unwrap_or(0)).sum();
        (t0.elapsed(), cpu)
    });
    // Aggregation on read: sum the slots (what a reader of the statistics does).
    black_box(slots.iter().map(|s| s.load(Ordering::Relaxed)).sum::<u64>());
    let (wall, cpu) = el;
    if cpu > 0 {
        cpu as f64 / threads as f64 / n as f64
    } else {
        wall.as_nanos() as f64 / n as f64
    }
}

/// The median of `runs` measurements.
pub fn measure_median(v: Counter, threads: usize, budget: Duration, runs: usize) -> f64 {
    // Size n so one measurement of this variant takes about `budget`.
    let probe = measure(v, 1, 20_000).max(0.1);
    let n = ((budget.as_nanos() as f64 / probe) as u64).clamp(10_000, 200_000_000);
    let v: Vec<f64> = (0..runs).map(|_| measure(v, threads, n)).collect();
    crate::runner::median(&v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_runs() {
        for v in Counter::ALL {
            assert!(measure(v, 2, 10_000) > 0.0, "{v:?}");
        }
    }
}
