//! Statistics cells.
//!
//! Protocol: every [`StatCell`] has exactly one writer at a time — the thread that owns it (per
//! thread stats), or the holder of the measured lock (per-instance stats), or the holder of a
//! registry lock (folded aggregates). Writers update with relaxed `load` + `store`, never with an
//! atomic read-modify-write, so the hot path never pays for a `lock`-prefixed instruction.
//! Readers load the fields relaxed and may see a cell mid-update (count bumped, sum not yet):
//! "just statistics, not facts", as PFS says. The one exception to single-writer is the read
//! side of an instrumented rwlock, where concurrent readers may lose an increment of the
//! per-instance cell (the per-thread cells stay exact).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// count / sum / min / max of raw timer ticks.
#[derive(Debug)]
pub(crate) struct StatCell {
    count: AtomicU64,
    sum: AtomicU64,
    min: AtomicU64,
    max: AtomicU64,
}

impl StatCell {
    pub(crate) const fn new() -> StatCell {
        StatCell {
            count: AtomicU64::new(0),
            sum: AtomicU64::new(0),
            min: AtomicU64::new(u64::MAX),
            max: AtomicU64::new(0),
        }
    }

    /// One untimed event (count only).
    #[inline]
    pub(crate) fn add_counted(&self) {
        self.count
            .store(self.count.load(Relaxed).wrapping_add(1), Relaxed);
    }

    /// One timed event of `v` ticks.
    #[inline]
    pub(crate) fn add_timed(&self, v: u64) {
        self.count
            .store(self.count.load(Relaxed).wrapping_add(1), Relaxed);
        self.sum
            .store(self.sum.load(Relaxed).wrapping_add(v), Relaxed);
        if v < self.min.load(Relaxed) {
            self.min.store(v, Relaxed);
        }
        if v > self.max.load(Relaxed) {
            self.max.store(v, Relaxed);
        }
    }

    #[inline]
    pub(crate) fn add(&self, timed: bool, v: u64) {
        if timed {
            self.add_timed(v)
        } else {
            self.add_counted()
        }
    }

    pub(crate) fn snapshot(&self) -> Snap {
        Snap {
            count: self.count.load(Relaxed),
            sum: self.sum.load(Relaxed),
            min: self.min.load(Relaxed),
            max: self.max.load(Relaxed),
        }
    }

    pub(crate) fn reset(&self) {
        self.count.store(0, Relaxed);
        self.sum.store(0, Relaxed);
        self.min.store(u64::MAX, Relaxed);
        self.max.store(0, Relaxed);
    }

    /// Fold `s` in. Caller is the cell's single writer (holds the registry lock).
    pub(crate) fn merge(&self, s: &Snap) {
        let mut cur = self.snapshot();
        cur.merge(s);
        self.count.store(cur.count, Relaxed);
        self.sum.store(cur.sum, Relaxed);
        self.min.store(cur.min, Relaxed);
        self.max.store(cur.max, Relaxed);
    }
}

impl AsRef<StatCell> for StatCell {
    fn as_ref(&self) -> &StatCell {
        self
    }
}

/// A copied [`StatCell`]. `min == u64::MAX` means no timed event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Snap {
    pub count: u64,
    pub sum: u64,
    pub min: u64,
    pub max: u64,
}

impl Default for Snap {
    fn default() -> Snap {
        Snap {
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

impl Snap {
    pub(crate) fn merge(&mut self, o: &Snap) {
        if o.count == 0 {
            return;
        }
        self.count = self.count.wrapping_add(o.count);
        self.sum = self.sum.wrapping_add(o.sum);
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }
}

/// Number of log2 buckets: bucket `i` holds values in `[2^(i-1), 2^i)` ticks (bucket 0 holds 0).
pub(crate) const HIST_BUCKETS: usize = 64;

/// A log2 histogram of raw ticks; single writer (the owning thread), relaxed load+store.
#[derive(Debug)]
pub(crate) struct Hist {
    buckets: [AtomicU64; HIST_BUCKETS],
}

impl Hist {
    pub(crate) fn new() -> Hist {
        Hist {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }

    #[inline]
    pub(crate) fn add(&self, v: u64) {
        let i = ((64 - v.leading_zeros()) as usize).min(HIST_BUCKETS - 1);
        let b = &self.buckets[i];
        b.store(b.load(Relaxed).wrapping_add(1), Relaxed);
    }

    pub(crate) fn add_into(&self, out: &mut [u64; HIST_BUCKETS]) {
        for (o, b) in out.iter_mut().zip(&self.buckets) {
            *o = o.wrapping_add(b.load(Relaxed));
        }
    }

    pub(crate) fn reset(&self) {
        for b in &self.buckets {
            b.store(0, Relaxed);
        }
    }
}

/// Upper bound (inclusive) in ticks of bucket `i`.
pub(crate) fn bucket_upper(i: usize) -> u64 {
    if i == 0 {
        0
    } else if i >= 64 {
        u64::MAX
    } else {
        (1u64 << i) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_and_hist() {
        let c = StatCell::new();
        c.add_timed(5);
        c.add_timed(3);
        c.add_counted();
        let s = c.snapshot();
        assert_eq!((s.count, s.sum, s.min, s.max), (3, 8, 3, 5));
        let d = StatCell::new();
        d.merge(&s);
        d.merge(&Snap::default());
        assert_eq!(d.snapshot(), s);
        c.reset();
        assert_eq!(c.snapshot(), Snap::default());

        let h = Hist::new();
        h.add(0);
        h.add(1);
        h.add(3);
        h.add(u64::MAX);
        let mut out = [0u64; HIST_BUCKETS];
        h.add_into(&mut out);
        assert_eq!(out[0], 1);
        assert_eq!(out[1], 1);
        assert_eq!(out[2], 1);
        assert_eq!(out[63], 1);
        assert_eq!(bucket_upper(2), 3);
    }
}
