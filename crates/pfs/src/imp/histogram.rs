//! The statement latency histograms' counts (`crate::histograms` has the buckets, the rows and
//! the quantiles): [`StmtHist`], one per digest (in its `DigestInfo`, allocated with the
//! digest buffer: 450 × 8 bytes a digest, as MySQL's `PFS_statements_digest_stat::m_histogram`)
//! and [`OTHER`], the statements without a digest. The global histogram is their sum, made
//! on read (`histogram_read.rs`, which also keeps what truncations moved or took away).
//!
//! # What a statement pays
//!
//! A timed statement's end adds one to a bucket of its digest's histogram ([`record`]), with a
//! relaxed `fetch_add`: the array is shared by every thread, as MySQL's
//! (`PFS_histogram::increment_bucket` is a `std::atomic` increment), so a plain load and store
//! would lose counts when two sessions end a statement of the same digest at once. MySQL also
//! increments a global array; here the global histogram is summed on read, so a statement
//! makes one increment and sessions on different digests share no cache line. The bucket
//! comes from the latency in ticks of the statement's clock, without converting it to
//! picoseconds: a tick count's key is its highest bit and the 5 bits below it, and [`Index`]
//! holds per key the bucket of its lowest tick count and the first tick count of the next
//! bucket. A key's range is at most 1/32 of its low end wide, less than a bucket (4.7%), so
//! it meets at most one bucket bound and one compare finds the bucket: a dozen integer
//! instructions, no loop, no division, no branch. The index of each clock is built once
//! ([`build`]), on the first digest registered (or the first timed statement without a digest
//! before any), from the cycle clock's calibration (`timer::calibration`).
//!
//! # Ticks and picoseconds
//!
//! A latency of `t` ticks is `ticks_to_ps(t)` picoseconds on read (truncated); it is in bucket
//! `i` when that is at least `bounds[i]`, which for whole picoseconds is `t >= ceil(bounds[i] *
//! freq / 10^12)`: the index's bounds in ticks, so a statement lands in the bucket its shown
//! `TIMER_WAIT` is in.

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};
use std::sync::Once;

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

    /// Zeroes the counts, adding what they held to `into` (nothing is lost to a concurrent
    /// increment: each count is taken with a swap).
    pub(crate) fn drain(&self, into: &mut [u64; STATEMENT_BUCKETS]) {
        for (c, a) in self.counts.iter().zip(into.iter_mut()) {
            *a = a.wrapping_add(c.swap(0, Relaxed));
        }
    }

    /// Adds the counts to `into`.
    pub(crate) fn add_into(&self, into: &mut [u64; STATEMENT_BUCKETS]) {
        for (c, a) in self.counts.iter().zip(into.iter_mut()) {
            *a = a.wrapping_add(c.load(Relaxed));
        }
    }
}

/// The global histogram's part that no digest holds: timed statements without a digest
/// (`record_other`). The rest is summed from the digests' on read (`histogram_read.rs`), so a
/// statement with a digest makes one increment, and sessions on different digests share no
/// cache line.
pub(crate) static OTHER: StmtHist = StmtHist::new();

/// Bits of a tick count below its highest one that pick its key.
const SUB_BITS: u32 = 5;
/// Keys: `octave * 32 + top`, below `64 * 32 + 64`; a power of two, so a mask bounds them.
const KEYS: usize = 4096;

/// The bucket of a tick count, by its key (see the module docs); built by [`TickIndex::new`]
/// and copied into [`INDEX`].
struct TickIndex {
    /// The bucket of the key's lowest tick count.
    bucket: Vec<u16>,
    /// The first tick count of that bucket's next bucket (`u64::MAX` after the last).
    next: Vec<u64>,
}

/// The key of `ticks`: its highest bit (`octave`, at least bit 5) and the bits below it
/// (`top`, the highest 6 bits from it down), so tick counts below 64 are their own keys:
/// `octave * 32 + (ticks >> (octave - 5))`.
#[inline(always)]
fn key(ticks: u64) -> usize {
    let octave = (ticks | 1 << SUB_BITS).ilog2();
    let top = (ticks >> (octave - SUB_BITS)) as usize & 63;
    (((octave as usize) << SUB_BITS) + top) & (KEYS - 1)
}

impl TickIndex {
    /// The index of a clock whose `ticks` are `ps(ticks)` picoseconds: `tick_bounds[i]` is the
    /// first tick count in bucket `i`.
    fn new(tick_bounds: &[u64; STATEMENT_BUCKETS + 1]) -> TickIndex {
        let of = |t: u64| tick_bounds[1..STATEMENT_BUCKETS].partition_point(|&b| b <= t);
        let mut bucket = vec![0u16; KEYS];
        let mut next = vec![u64::MAX; KEYS];
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
}

/// [`TickIndex`] in atomics, in a static: read with plain loads and no "is it built?" test
/// on a statement's end. It is built ([`build`]) before the first digest is handed out
/// (`classes::register_digest`), under the registry lock that hands digests out, and before
/// a statement without a digest is counted ([`record_other`]).
pub(crate) struct Index {
    next: [AtomicU64; KEYS],
    bucket: [AtomicU16; KEYS],
}

impl Index {
    const fn new() -> Index {
        Index {
            next: [const { AtomicU64::new(0) }; KEYS],
            bucket: [const { AtomicU16::new(0) }; KEYS],
        }
    }

    fn fill(&self, t: &TickIndex) {
        for (a, v) in self.next.iter().zip(&t.next) {
            a.store(*v, Relaxed);
        }
        for (a, v) in self.bucket.iter().zip(&t.bucket) {
            a.store(*v, Relaxed);
        }
    }

    /// The bucket of `ticks`: the key's, or the next one if `ticks` reached it.
    #[inline(always)]
    fn bucket(&self, ticks: u64) -> usize {
        let k = key(ticks);
        let b = self.bucket[k].load(Relaxed) as usize;
        b + usize::from(ticks >= self.next[k].load(Relaxed))
    }
}

/// The indexes of the cycle clock and of the nanosecond clock (80 KiB).
static INDEX: [Index; 2] = [Index::new(), Index::new()];
static BUILT: Once = Once::new();

/// Builds the indexes once (calibrating the cycle clock if no table read has: about 10 ms).
#[cold]
#[inline(never)]
pub(crate) fn build() {
    BUILT.call_once(|| {
        INDEX[0].fill(&TickIndex::of_freq(calibration().cycle_freq));
        INDEX[1].fill(&TickIndex::of_freq(1_000_000_000));
    });
}

/// A timed statement of a digest, of `ticks` (of the cycle clock if `cycles`, else
/// nanoseconds), ended: one more in its bucket of the digest's histogram. The indexes are
/// built: the digest was registered.
#[inline(always)]
pub(crate) fn record(digest: &StmtHist, cycles: bool, ticks: u64) {
    digest.add(INDEX[usize::from(!cycles)].bucket(ticks));
}

/// A timed statement without a digest ended: one more in [`OTHER`]. Inline: every
/// execution of a prepared statement (`statement/com/Execute`) has no digest.
#[inline(always)]
pub(crate) fn record_other(cycles: bool, ticks: u64) {
    if !BUILT.is_completed() {
        build();
    }
    OTHER.add(INDEX[usize::from(!cycles)].bucket(ticks));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histograms::statement_bucket_of;

    /// Every tick count's bucket through the index is the bucket its picoseconds are in.
    fn check(freq: u64) {
        let ix = Box::new(Index::new());
        ix.fill(&TickIndex::of_freq(freq));
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
    fn a_statement_counts_in_its_bucket() {
        build();
        let h = StmtHist::new();
        // 1 ms in nanoseconds: bucket 101's low is 1 ms (within f64 rounding), so 100 or 101.
        record(&h, false, 1_000_000);
        record(&h, false, 5_000);
        let c = h.counts();
        assert_eq!(c[0], 1);
        let ms = statement_bucket_of(1_000_000_000);
        assert_eq!(c[ms], 1);
        let before = OTHER.counts()[ms];
        record_other(false, 1_000_000);
        assert!(OTHER.counts()[ms] > before);
        let mut into = [0; STATEMENT_BUCKETS];
        h.drain(&mut into);
        assert_eq!(
            (h.counts(), into[0], into[ms]),
            ([0; STATEMENT_BUCKETS], 1, 1)
        );
    }
}
