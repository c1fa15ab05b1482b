//! Timers: a cycle counter and a nanosecond clock (PFS's `performance_timers` and 5.7's
//! `setup_timers`: MySQL 8.0 Reference Manual, "Performance Schema Event Timing", and the 5.7
//! manual's "The setup_timers Table"; MySQL times waits with the cycle counter,
//! `get_wait_timer()` in `storage/perfschema/pfs_timer.h`).
//!
//! * `CYCLE` is `rdtsc` on x86_64 when `/proc/cpuinfo` says the TSC is invariant
//!   (`constant_tsc` and `nonstop_tsc`); anywhere else the cycle clock falls back to the
//!   nanosecond clock (the choice is made once per process and folded into each class's derived
//!   flags as `F_CYCLES`, so the hot path does not test it separately).
//! * `NANOSECOND` is `std::time::Instant` relative to a process epoch.
//!
//! Which clock an event family uses is a run-time switch (`setup_timers`): by default waits,
//! stages and statements use cycles (one `rdtsc`, where `Instant::now` is a `clock_gettime`
//! call plus `Timespec` arithmetic), idle uses nanoseconds. The hot path stores raw ticks;
//! conversion to picoseconds happens on read, with the cycle frequency calibrated against
//! `Instant` once, lazily, over a 10 ms window the thread sleeps through: at the first table
//! read or the first timed statement without a digest, whose histogram bucket needs it
//! (`histogram::build`).
//!
//! The TSC is read with the `_rdtsc` intrinsic rather than through a timing crate: `quanta`'s
//! `Clock::raw` is the same intrinsic behind a match on its clock kind and a `Clock` value the
//! hot path would have to fetch from a global (about 9–13 more instructions per read, measured
//! with callgrind), and `minstant::Instant::now` adds its own availability check.
//!
//! The TSC is not ordered with memory operations and may differ slightly across cores; a wait
//! that appears to end before it starts is recorded as 0.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::flags::F_CYCLES;
use crate::kinds::Clock;

static EPOCH: OnceLock<Instant> = OnceLock::new();
static TSC_USABLE: OnceLock<bool> = OnceLock::new();
static CALIBRATION: OnceLock<Calibration> = OnceLock::new();

/// Facts measured once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Calibration {
    /// Cycle ticks per second (or 1e9 when the cycle clock falls back to ns).
    pub cycle_freq: u64,
    /// Cycle-clock value at the epoch.
    pub cycle_epoch: u64,
    /// Min of 20 back-to-back readings, in ticks.
    pub cycle_overhead: u64,
    pub ns_overhead: u64,
    /// Mean cost of one reading over a loop of reads, in picoseconds.
    pub cycle_read_ps: u64,
    pub ns_read_ps: u64,
}

/// Start the clocks (called when the global state is created).
pub(crate) fn init() {
    EPOCH.get_or_init(Instant::now);
    tsc_usable();
}

/// Is the TSC invariant and readable here?
pub(crate) fn tsc_usable() -> bool {
    *TSC_USABLE.get_or_init(detect_tsc)
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn detect_tsc() -> bool {
    if std::env::var_os("PFS_NO_TSC").is_some() {
        return false;
    }
    match std::fs::read_to_string("/proc/cpuinfo") {
        Ok(s) => s.lines().any(|l| {
            l.starts_with("flags")
                && l.split_whitespace().any(|w| w == "constant_tsc")
                && l.split_whitespace().any(|w| w == "nonstop_tsc")
        }),
        Err(_) => false,
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn detect_tsc() -> bool {
    false
}

/// Raw TSC read.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn rdtsc() -> u64 {
    // SAFETY: `rdtsc` exists on every x86_64 CPU (it is part of the baseline ISA), takes no
    // arguments, touches no memory and cannot fault in user mode on Linux (CR4.TSD is clear);
    // the intrinsic is only `unsafe` because all `core::arch` intrinsics were declared so.
    // Exercised by `timer::tests::cycle_clock_advances` and every timed test.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(crate) fn rdtsc() -> u64 {
    ns_now()
}

/// Nanoseconds since the process epoch.
#[inline]
pub(crate) fn ns_now() -> u64 {
    let epoch = EPOCH.get_or_init(Instant::now);
    epoch.elapsed().as_nanos() as u64
}

/// Read the clock the derived `flags` select.
#[inline]
pub(crate) fn now(flags: u32) -> u64 {
    if flags & F_CYCLES != 0 {
        rdtsc()
    } else {
        ns_now()
    }
}

pub(crate) fn calibration() -> Calibration {
    *CALIBRATION.get_or_init(calibrate)
}

fn min_overhead(f: impl Fn() -> u64) -> u64 {
    (0..20)
        .map(|_| {
            let a = f();
            let b = f();
            b.saturating_sub(a)
        })
        .min()
        .unwrap_or(0)
}

/// Mean cost of one call of `f`, in picoseconds (the fastest of 5 loops of 2000 calls).
fn read_cost_ps(f: impl Fn() -> u64) -> u64 {
    const N: u32 = 2000;
    (0..5)
        .map(|_| {
            let t = Instant::now();
            let mut acc = 0u64;
            for _ in 0..N {
                acc = acc.wrapping_add(std::hint::black_box(f()));
            }
            std::hint::black_box(acc);
            (t.elapsed().as_nanos() * 1000 / N as u128) as u64
        })
        .min()
        .unwrap_or(0)
}

fn calibrate() -> Calibration {
    init();
    let ns_overhead = min_overhead(ns_now);
    let ns_read_ps = read_cost_ps(ns_now);
    if !tsc_usable() {
        return Calibration {
            cycle_freq: 1_000_000_000,
            cycle_epoch: 0,
            cycle_overhead: ns_overhead,
            ns_overhead,
            cycle_read_ps: ns_read_ps,
            ns_read_ps,
        };
    }
    // The thread sleeps through the window rather than spinning: the TSC runs on regardless,
    // the window costs no CPU, and the instructions calibration takes do not depend on how
    // fast the thread runs (so a callgrind count of a process that calibrates is repeatable).
    let (t0, c0) = (Instant::now(), rdtsc());
    std::thread::sleep(Duration::from_millis(10));
    let (t1, c1) = (Instant::now(), rdtsc());
    let ns = (t1 - t0).as_nanos().max(1);
    let cycle_freq = ((c1.saturating_sub(c0) as u128 * 1_000_000_000) / ns).max(1) as u64;
    // The cycle value at the epoch: now minus the elapsed ns converted to cycles.
    let now_c = rdtsc();
    let since_epoch_ns = ns_now() as u128;
    let cycle_epoch =
        now_c.saturating_sub((since_epoch_ns * cycle_freq as u128 / 1_000_000_000) as u64);
    Calibration {
        cycle_freq,
        cycle_epoch,
        cycle_overhead: min_overhead(rdtsc),
        ns_overhead,
        cycle_read_ps: read_cost_ps(rdtsc),
        ns_read_ps,
    }
}

/// Convert a duration in ticks of `clock` to picoseconds.
pub(crate) fn ticks_to_ps(ticks: u64, clock: Clock) -> u64 {
    match clock {
        Clock::Nanosecond => ticks.saturating_mul(1000),
        Clock::Cycle => {
            let f = calibration().cycle_freq as u128;
            ((ticks as u128 * 1_000_000_000_000) / f).min(u64::MAX as u128) as u64
        }
    }
}

/// Convert a timestamp of `clock` to picoseconds since the process epoch.
pub(crate) fn stamp_to_ps(stamp: u64, clock: Clock) -> u64 {
    match clock {
        Clock::Nanosecond => stamp.saturating_mul(1000),
        Clock::Cycle => ticks_to_ps(stamp.saturating_sub(calibration().cycle_epoch), clock),
    }
}

/// `TIMER_START`, `TIMER_END` and `TIMER_WAIT` in picoseconds of an event of `clock` begun at
/// `start` and ended at `end` (`None`: in progress), or all NULL if it is untimed. One in
/// progress is timed to now, as MySQL 8.0 shows it ("For an event that has not finished,
/// TIMER_END is the current timer value and TIMER_WAIT is the time elapsed so far": the
/// reference manual's "Performance Schema Event Timing"); sys's `processlist` reads a running
/// statement's and an open transaction's latency from it.
pub(crate) fn timer_columns(
    timed: bool,
    start: u64,
    end: Option<u64>,
    clock: Clock,
) -> [Option<u64>; 3] {
    if !timed {
        return [None; 3];
    }
    let end = end.unwrap_or_else(|| match clock {
        Clock::Cycle => rdtsc(),
        Clock::Nanosecond => ns_now(),
    });
    [
        Some(stamp_to_ps(start, clock)),
        Some(stamp_to_ps(end, clock)),
        Some(ticks_to_ps(end.saturating_sub(start), clock)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycle_clock_advances() {
        init();
        let a = rdtsc();
        let b = rdtsc();
        assert!(b >= a || !tsc_usable());
        let n0 = ns_now();
        std::thread::sleep(Duration::from_millis(2));
        assert!(ns_now() >= n0 + 1_000_000);
        let c = calibration();
        assert!(c.cycle_freq > 0);
        // A 2 ms sleep converts to roughly 2 ms whichever clock is used.
        let clock = if tsc_usable() {
            Clock::Cycle
        } else {
            Clock::Nanosecond
        };
        let s = now(if clock == Clock::Cycle { F_CYCLES } else { 0 });
        std::thread::sleep(Duration::from_millis(2));
        let e = now(if clock == Clock::Cycle { F_CYCLES } else { 0 });
        let ps = ticks_to_ps(e - s, clock);
        assert!(ps >= 1_500_000_000, "{ps}");
        assert!(ps < 2_000_000_000_000, "{ps}");
        assert_eq!(ticks_to_ps(5, Clock::Nanosecond), 5000);
        assert!(c.ns_read_ps > 0 && c.cycle_read_ps > 0);
    }
}
