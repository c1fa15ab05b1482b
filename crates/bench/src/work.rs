//! Calibrated CPU work: what a statement does while it holds its metadata locks.
//!
//! The loop is a dependent multiply-add chain the compiler cannot fold or vectorise, so its
//! cost per iteration is stable. [`Work::calibrate`] measures it once per process (the fastest
//! of several trials, so a preempted trial does not inflate the rate).

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A busy loop sized to take a given time on this machine.
#[derive(Debug, Clone, Copy)]
pub struct Work {
    iters: u64,
    nanos: u64,
}

static RATE: OnceLock<f64> = OnceLock::new();

/// Uses `iters_per_ns` instead of calibrating (so two processes run the same loop: the
/// compiled-out build gets the rate of the process that drives it). Returns false if the rate
/// was already fixed.
pub fn set_rate(iters_per_ns: f64) -> bool {
    RATE.set(iters_per_ns).is_ok()
}

/// Iterations of [`spin`] per nanosecond on this machine (calibrated on first use).
pub fn rate() -> f64 {
    *RATE.get_or_init(|| {
        const N: u64 = 2_000_000;
        spin(N / 10); // warm up the core's clock
        let mut best = Duration::MAX;
        for _ in 0..7 {
            let t = Instant::now();
            spin(N);
            best = best.min(t.elapsed());
        }
        N as f64 / best.as_nanos().max(1) as f64
    })
}

/// `iters` rounds of a dependent multiply-add chain.
#[inline]
pub fn spin(iters: u64) {
    let mut x = black_box(0x9E37_79B9_7F4A_7C15u64);
    for i in 0..iters {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
    }
    black_box(x);
}

impl Work {
    /// Work that takes about `nanos` nanoseconds (0: none).
    pub fn calibrate(nanos: u64) -> Work {
        let iters = if nanos == 0 {
            0
        } else {
            (nanos as f64 * rate()).round().max(1.0) as u64
        };
        Work { iters, nanos }
    }

    /// Does the work.
    #[inline]
    pub fn run(&self) {
        if self.iters > 0 {
            spin(self.iters);
        }
    }

    /// The nominal duration in nanoseconds.
    pub fn nanos(&self) -> u64 {
        self.nanos
    }

    /// Loop iterations per run.
    pub fn iters(&self) -> u64 {
        self.iters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_is_in_the_right_ballpark() {
        let w = Work::calibrate(20_000);
        assert!(w.iters() > 0);
        let t = Instant::now();
        for _ in 0..50 {
            w.run();
        }
        let per = t.elapsed().as_nanos() as f64 / 50.0;
        // Generous bounds: the machine is shared and tests run in parallel (debug builds too).
        assert!(per > 2_000.0, "20 µs of work took {per} ns");
        assert_eq!(Work::calibrate(0).iters(), 0);
    }
}
