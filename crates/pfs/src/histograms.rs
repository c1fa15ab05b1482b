//! MySQL 8.0's statement latency histograms (8.0.19+): `events_statements_histogram_global`,
//! `events_statements_histogram_by_digest`, and the `QUANTILE_95`, `QUANTILE_99` and
//! `QUANTILE_999` columns of `events_statements_summary_by_digest`.
//!
//! # Buckets
//!
//! [`STATEMENT_BUCKETS`] (450) buckets of statement latency, MySQL's
//! (`PFS_histogram_timers::init`, `storage/perfschema/pfs_histogram.cc`): bucket 0 starts at
//! 0, bucket 1 at 10 µs (10,000,000 ps), and each next one at the last one times
//! `1.0471285480508996` (10^(1/50): 50 buckets a decade), computed in `f64` and truncated to
//! whole picoseconds as MySQL's `double` to `ulonglong` does; the last bucket ends at
//! `u64::MAX`. [`statement_bucket_bounds`] gives the 451 bounds: bucket `i` holds latencies in
//! `[bounds[i], bounds[i + 1])`.
//!
//! # What is counted
//!
//! Every timed statement (the instrument's `TIMED` on) adds one to the bucket of its latency
//! in the global histogram, and, if it has a digest that is being summarized (the
//! `statements_digest` consumer on and a digest row for it), in its digest's, as MySQL's
//! `pfs_end_statement_vc` does. An untimed statement counts in neither, so a histogram's total
//! may be lower than `COUNT_STAR`.
//!
//! # Quantiles
//!
//! Read, not recorded (`table_esms_by_digest::make_row`): over a digest's `n` counted
//! statements, the targets are `(n * 95 + 99) / 100`, `(n * 99 + 99) / 100` and `(n * 999 +
//! 999) / 1000` statements, and each quantile is the high bound (`BUCKET_TIMER_HIGH`) of the
//! first bucket whose cumulative count reaches its target; all three are 0 when `n` is 0
//! ([`statement_quantiles`]). `BUCKET_QUANTILE` is `COUNT_BUCKET_AND_LOWER / n`, 0 when `n` is 0.
//!
//! # Truncation
//!
//! As MySQL's `delete_all_rows`: `TRUNCATE TABLE events_statements_histogram_global` zeroes
//! the global histogram, `..._histogram_by_digest` every digest's; truncating the digest
//! summary (here: any summary, [`crate::truncate_events_waits_summary_global_by_event_name`])
//! drops the digest rows and their histograms with them (MySQL frees the digest entries, and
//! a new entry starts with an empty histogram: `find_or_create_digest`), and leaves the global
//! histogram alone.

use crate::tables::{
    Quantile, StatementHistogramByDigest, StatementHistogramByDigestRow, StatementHistogramGlobal,
    StatementHistogramRow, Table,
};

/// Buckets per histogram (MySQL's `NUMBER_OF_BUCKETS`).
pub const STATEMENT_BUCKETS: usize = 450;

/// Bucket 1's low bound, picoseconds (MySQL's `BUCKET_BASE_TIMER`: 10 µs).
const BASE_PS: f64 = 10_000_000.0;

/// The ratio of two bucket bounds (MySQL's `BUCKET_BASE_FACTOR`: its 50th power is 10).
const FACTOR: f64 = 1.047_128_548_050_899_6;

/// The bounds in picoseconds, computed as `PFS_histogram_timers::init` does.
const fn pico_bounds() -> [u64; STATEMENT_BUCKETS + 1] {
    let mut b = [0u64; STATEMENT_BUCKETS + 1];
    let mut t = BASE_PS;
    let mut i = 1;
    while i < STATEMENT_BUCKETS {
        b[i] = t as u64;
        t *= FACTOR;
        i += 1;
    }
    b[STATEMENT_BUCKETS] = u64::MAX;
    b
}

static BOUNDS: [u64; STATEMENT_BUCKETS + 1] = pico_bounds();

/// The 451 bucket bounds, picoseconds: bucket `i` is `[bounds[i], bounds[i + 1])`.
pub fn statement_bucket_bounds() -> &'static [u64; STATEMENT_BUCKETS + 1] {
    &BOUNDS
}

/// The bucket of a latency of `ps` picoseconds (a binary search: for readers and tests; the
/// recording path uses its own index over the clock's ticks).
pub fn statement_bucket_of(ps: u64) -> usize {
    BOUNDS[1..STATEMENT_BUCKETS].partition_point(|&b| b <= ps)
}

/// `QUANTILE_95`, `QUANTILE_99` and `QUANTILE_999` of a histogram's counts, picoseconds (see
/// the module docs; `table_esms_by_digest::make_row`).
pub fn statement_quantiles(counts: &[u64; STATEMENT_BUCKETS]) -> [u64; 3] {
    let n = counts.iter().fold(0u64, |a, c| a.wrapping_add(*c));
    if n == 0 {
        return [0; 3];
    }
    let n = n as u128;
    // MySQL's `(n * 95 + 99) / 100`, `(n * 99 + 99) / 100`, `(n * 999 + 999) / 1000`.
    let targets = [
        (n * 95).div_ceil(100),
        (n * 99).div_ceil(100),
        (n * 999).div_ceil(1000),
    ];
    let mut out = [0u64; 3];
    let mut set = [false; 3];
    let mut acc: u128 = 0;
    for (i, c) in counts.iter().enumerate() {
        acc += *c as u128;
        for k in 0..3 {
            if !set[k] && acc >= targets[k] {
                out[k] = BOUNDS[i + 1];
                set[k] = true;
            }
        }
    }
    out
}

/// A histogram's 450 rows (`table_esmh_global::make_row`).
pub(crate) fn bucket_rows(counts: &[u64; STATEMENT_BUCKETS]) -> Vec<StatementHistogramRow> {
    let n = counts.iter().fold(0u64, |a, c| a.wrapping_add(*c));
    let mut and_lower = 0u64;
    (counts.iter().enumerate())
        .map(|(i, c)| {
            and_lower = and_lower.wrapping_add(*c);
            StatementHistogramRow {
                bucket_number: i as u32,
                bucket_timer_low: BOUNDS[i],
                bucket_timer_high: BOUNDS[i + 1],
                count_bucket: *c,
                count_bucket_and_lower: and_lower,
                bucket_quantile: Quantile(if n == 0 {
                    0.0
                } else {
                    and_lower as f64 / n as f64
                }),
            }
        })
        .collect()
}

/// `events_statements_histogram_global`: all 450 buckets.
pub fn events_statements_histogram_global() -> StatementHistogramGlobal {
    Table::new(
        "events_statements_histogram_global",
        bucket_rows(&imp::global()),
    )
}

/// `events_statements_histogram_by_digest`: all 450 buckets of each digest with a row in
/// `events_statements_summary_by_digest`, by digest in that table's order, then by bucket.
pub fn events_statements_histogram_by_digest() -> StatementHistogramByDigest {
    let rows = imp::by_digest()
        .into_iter()
        .flat_map(|(schema_name, digest, counts)| {
            bucket_rows(&counts)
                .into_iter()
                .map(move |bucket| StatementHistogramByDigestRow {
                    schema_name: schema_name.clone(),
                    digest: digest.clone(),
                    bucket,
                })
        })
        .collect();
    Table::new("events_statements_histogram_by_digest", rows)
}

/// `TRUNCATE TABLE events_statements_histogram_global`: the global histogram only.
pub fn truncate_events_statements_histogram_global() {
    imp::truncate_global();
}

/// `TRUNCATE TABLE events_statements_histogram_by_digest`: every digest's histogram (the digest
/// summary keeps its other columns).
pub fn truncate_events_statements_histogram_by_digest() {
    imp::truncate_by_digest();
}

#[cfg(feature = "instrumentation")]
use crate::imp::histogram_read as imp;

#[cfg(not(feature = "instrumentation"))]
mod imp {
    //! Compiled out: nothing counted.
    use super::STATEMENT_BUCKETS;
    pub(crate) fn global() -> [u64; STATEMENT_BUCKETS] {
        [0; STATEMENT_BUCKETS]
    }
    pub(crate) fn by_digest() -> Vec<(Option<String>, String, [u64; STATEMENT_BUCKETS])> {
        Vec::new()
    }
    pub(crate) fn truncate_global() {}
    pub(crate) fn truncate_by_digest() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_mysqls() {
        let b = statement_bucket_bounds();
        assert_eq!(
            (b[0], b[1], b[STATEMENT_BUCKETS]),
            (0, 10_000_000, u64::MAX)
        );
        // 50 buckets a decade: bucket 51 starts near 100 µs, 101 near 1 ms (f64 products).
        assert!((99_999_990..=100_000_010).contains(&b[51]), "{}", b[51]);
        assert!(
            (999_999_900..=1_000_000_100).contains(&b[101]),
            "{}",
            b[101]
        );
        assert!(b.windows(2).all(|w| w[0] < w[1]));
        // MySQL's documented example rows (`events_statements_histogram_by_digest`):
        // bucket 42 is [66069344, 69183097), 43 [69183097, 72443596).
        assert_eq!((b[42], b[43], b[44]), (66_069_344, 69_183_097, 72_443_596));
    }

    #[test]
    fn latencies_land_in_their_buckets() {
        let b = statement_bucket_bounds();
        assert_eq!(statement_bucket_of(0), 0);
        assert_eq!(statement_bucket_of(9_999_999), 0);
        assert_eq!(statement_bucket_of(10_000_000), 1);
        assert_eq!(statement_bucket_of(b[42]), 42);
        assert_eq!(statement_bucket_of(b[43] - 1), 42);
        assert_eq!(statement_bucket_of(b[449]), 449);
        assert_eq!(statement_bucket_of(u64::MAX), 449);
    }

    #[test]
    fn quantiles_are_bucket_highs() {
        let mut c = [0u64; STATEMENT_BUCKETS];
        assert_eq!(statement_quantiles(&c), [0; 3]);
        // 100 statements: 95 in bucket 10, 4 in bucket 20, 1 in bucket 30.
        c[10] = 95;
        c[20] = 4;
        c[30] = 1;
        let b = statement_bucket_bounds();
        assert_eq!(statement_quantiles(&c), [b[11], b[21], b[31]]);
        // One statement: every quantile is its bucket's high.
        let mut one = [0u64; STATEMENT_BUCKETS];
        one[5] = 1;
        assert_eq!(statement_quantiles(&one), [b[6]; 3]);
        let rows = bucket_rows(&c);
        assert_eq!(rows.len(), STATEMENT_BUCKETS);
        assert_eq!(rows[20].count_bucket_and_lower, 99);
        assert_eq!(rows[20].bucket_quantile, Quantile(0.99));
        assert_eq!(rows[449].bucket_quantile, Quantile(1.0));
        assert_eq!(
            bucket_rows(&[0; STATEMENT_BUCKETS])[449].bucket_quantile,
            Quantile(0.0)
        );
    }
}
