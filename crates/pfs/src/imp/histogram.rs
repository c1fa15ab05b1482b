//! The statement latency histograms' counts (`crate::histograms` has the buckets, the rows and
//! the quantiles): [`StmtHist`], one per digest (in its `DigestInfo`, allocated with the
//! digest buffer: 450 × 8 bytes a digest, as MySQL's `PFS_statements_digest_stat::m_histogram`)
//! and one global ([`GLOBAL`]).
//!
//! # What a statement pays
//!
//! A timed statement's end adds one to a bucket of its digest's histogram and of the global one
//! ([`record`]), with a relaxed `fetch_add`: the arrays are shared by every thread, as MySQL's
//! (`PFS_histogram::increment_bucket` is a `std::atomic` increment), so a plain load and store
//! would lose counts when two sessions end a statement of the same digest at once. The bucket
//! comes from the latency in ticks of the statement's clock, without converting it to
//! picoseconds: [`TickIndex`] keys a tick count by its highest bit and the 5 bits below it
//! (2048 keys), and each key holds the bucket of its lowest tick count and the first tick count
//! of the next bucket. A key's range is at most 1/32 of its low end wide, less than a bucket
//! (4.7%), so it meets at most one bucket bound and one compare finds the bucket: a few
//! integer instructions, no loop, no division. The index of each clock is built once, on the
//! first digest registered (or the first timed statement before any), from the cycle clock's
//! calibration (`timer::calibration`).
//!
//! # Ticks and picoseconds
//!
//! A latency of `t` ticks is `ticks_to_ps(t)` picoseconds on read (truncated); it is in bucket
//! `i` when that is at least `bounds[i]`, which for whole picoseconds is `t >= ceil(bounds[i] *
//! freq / 10^12)`: the index's bounds in ticks, so a statement lands in the bucket its shown
//! `TIMER_WAIT` is in.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

use super::timer::calibration;
use crate::histograms::{statement_bucket_bounds, STATEMENT_BUCKETS};

/// A histogram's counts, shared by every thread (see the module docs).
#[derive(Debug)]
#[repr(C, align(64))]
pub(crate) struct StmtHist {
    counts: [AtomicU64; STATEMENT_BUCKETS],
}

impl StmtHist {
    pub(crate) const fn new() -> StmtHist {
        StmtHist {
            counts: [const { AtomicU64::new(0) }; STATEMENT_BUCKETS],
        }
    }

    #[inline(always)]
    fn add(&self, bucket: usize) {
        if let Some(c) = self.counts.get(bucket) {
            c.fetch_add(1, Relaxed);
        }
    }

    pub(crate) fn counts(&self) -> [u64; STATEMENT_BUCKETS] {
        std::array::from_fn(|i| self.counts[i].load(Relaxed))
    }

    pub(crate) fn reset(&self) {
        for c in &self.counts {
            c.store(0, Relaxed);
        }
    }
}

/// `events_statements_histogram_global`'s counts (MySQL's `global_statements_histogram`).
pub(crate) static GLOBAL: StmtHist = StmtHist::new();

/// Bits of a tick count below its highest one that pick its key.
const SUB_BITS: u32 = 5;
const KEYS: usize = 64 << SUB_BITS;

/// The bucket of a tick count, by its key (see the module docs).
pub(crate) struct TickIndex {
    /// The bucket of the key's lowest tick count.
    bucket: [u16; KEYS],
    /// The first tick count of that bucket's next bucket (`u64::MAX` after the last).
    next: [u64; KEYS],
}

/// The key of `ticks`: its highest bit (at least bit 5) and the 5 bits below it, so tick counts
/// below 64 are their own keys. `(octave - 1) * 32 + (ticks >> (octave - 5))`, below 2048.
#[inline(always)]
fn key(ticks: u64) -> usize {
    let octave = 63 - (ticks | 1 << SUB_BITS).leading_zeros();
    let top = (ticks >> (octave - SUB_BITS)) as usize;
    (((octave as usize - 1) << SUB_BITS) + top) & (KEYS - 1)
}

impl TickIndex {
    /// The index of a clock whose `ticks` are `ps(ticks)` picoseconds: `tick_bounds[i]` is the
    /// first tick count in bucket `i`.
    fn new(tick_bounds: &[u64; STATEMENT_BUCKETS + 1]) -> TickIndex {
        let of = |t: u64| tick_bounds[1..STATEMENT_BUCKETS].partition_point(|&b| b <= t);
        let mut bucket = [0u16; KEYS];
        let mut next = [u64::MAX; KEYS];
        for octave in SUB_BITS..64 {
            let shift = octave - SUB_BITS;
            let tops = if octave == SUB_BITS { 0..64u64 } else { 32..64 };
            for top in tops {
                let low = top << shift;
                let b = of(low);
                let k = key(low);
                bucket[k] = b as u16;
                next[k] = tick_bounds[b + 1];
            }
        }
        TickIndex { bucket, next }
    }

    /// The index for `freq` ticks a second.
    fn of_freq(freq: u64) -> TickIndex {
        let ps = statement_bucket_bounds();
        let mut t = [0u64; STATEMENT_BUCKETS + 1];
        for (t, p) in t.iter_mut().zip(ps.iter()) {
            let v = (*p as u128 * freq as u128).div_ceil(1_000_000_000_000);
            *t = v.min(u64::MAX as u128) as u64;
        }
        t[STATEMENT_BUCKETS] = u64::MAX;
        TickIndex::new(&t)
    }

    /// The bucket of `ticks`: the key's, or the next one if `ticks` reached it.
    #[inline(always)]
    pub(crate) fn bucket(&self, ticks: u64) -> usize {
        let k = key(ticks);
        self.bucket[k] as usize + usize::from(ticks >= self.next[k])
    }
}

/// The indexes of the cycle clock and of the nanosecond clock (40 KiB, in the static itself:
/// no pointer to follow on a statement's end).
static INDEX: OnceLock<[TickIndex; 2]> = OnceLock::new();

/// Builds the indexes (calibrating the cycle clock if that was not done yet: about 10 ms).
#[cold]
#[inline(never)]
pub(crate) fn indexes() -> &'static [TickIndex; 2] {
    INDEX.get_or_init(|| {
        [
            TickIndex::of_freq(calibration().cycle_freq),
            TickIndex::of_freq(1_000_000_000),
        ]
    })
}

/// A timed statement of `ticks` (of the cycle clock if `cycles`, else nanoseconds) ended:
/// one more in its bucket of `digest`'s histogram, if any, and of the global one.
#[inline(always)]
pub(crate) fn record(digest: Option<&StmtHist>, cycles: bool, ticks: u64) {
    let ix = match INDEX.get() {
        Some(ix) => ix,
        None => indexes(),
    };
    let b = ix[usize::from(!cycles)].bucket(ticks);
    if let Some(d) = digest {
        d.add(b);
    }
    GLOBAL.add(b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histograms::statement_bucket_of;

    /// Every tick count's bucket through the index is the bucket its picoseconds are in.
    fn check(freq: u64) {
        let ix = TickIndex::of_freq(freq);
        let ps = |t: u64| (t as u128 * 1_000_000_000_000 / freq as u128).min(u64::MAX as u128);
        let mut probes: Vec<u64> = (0..4096).collect();
        for &b in statement_bucket_bounds().iter() {
            let t = (b as u128 * freq as u128 / 1_000_000_000_000) as u64;
            probes.extend([t.saturating_sub(1), t, t + 1, t + 2]);
        }
        probes.extend((0..64).flat_map(|s| [1u64 << s, (1u64 << s) - 1, (3u64 << s) / 2]));
        probes.push(u64::MAX - 1);
        for t in probes {
            let want = statement_bucket_of(ps(t) as u64);
            assert_eq!(ix.bucket(t), want, "freq {freq}, {t} ticks");
        }
    }

    #[test]
    fn the_index_agrees_with_the_bounds() {
        for freq in [
            1_000_000_000,
            2_400_000_000,
            2_899_999_123,
            3_700_000_000,
            50_000_000,
        ] {
            check(freq);
        }
    }

    #[test]
    fn keys_are_distinct_and_in_range() {
        let mut seen = std::collections::HashSet::new();
        for t in 0..64u64 {
            assert!(seen.insert(key(t)));
        }
        for octave in 6..64u32 {
            for top in 32..64u64 {
                let k = key(top << (octave - 5));
                assert!(k < KEYS && seen.insert(k), "{octave} {top}");
            }
        }
    }

    #[test]
    fn a_statement_counts_in_its_digest_and_globally() {
        let h = StmtHist::new();
        let before = GLOBAL.counts();
        // 1 ms in nanoseconds: bucket 101's low is 1 ms (within f64 rounding), so 100 or 101.
        record(Some(&h), false, 1_000_000);
        record(Some(&h), false, 5_000);
        let c = h.counts();
        assert_eq!(c[0], 1);
        let ms = statement_bucket_of(1_000_000_000);
        assert_eq!(c[ms], 1);
        assert!(GLOBAL.counts()[ms] > before[ms]);
        h.reset();
        assert_eq!(h.counts(), [0; STATEMENT_BUCKETS]);
    }
}
