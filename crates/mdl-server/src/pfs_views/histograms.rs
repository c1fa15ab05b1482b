//! The statement latency histograms: `events_statements_histogram_global` (all 450 buckets)
//! and `events_statements_histogram_by_digest` (all 450 buckets of each digest in
//! `events_statements_summary_by_digest`), as `pfs` counts them (`pfs::histograms`: MySQL's
//! buckets, what counts, the quantiles).
//!
//! The columns are MySQL 8.0.19's (`storage/perfschema/table_esmh_global.cc`,
//! `table_esmh_by_digest.cc`). `TRUNCATE TABLE` of either zeroes its own histograms only, as
//! MySQL's `delete_all_rows` (`reset_histogram_global`, `reset_histogram_by_digest`); the
//! digest summary's truncation drops the digests' histograms with their rows (`write.rs`).
//!
//! One difference: the last bucket's `BUCKET_TIMER_HIGH` (and a `QUANTILE_*` that falls in
//! that bucket, a statement of over 2.5 hours) is 9223372036854775807 (`i64::MAX`), not MySQL's
//! 18446744073709551615: SQLite's integers are signed, and a `REAL` there would type the
//! whole column `DOUBLE` for every row of the result ([`clamp`]).

use super::columns::Def;
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The tables.
pub(super) const TABLES: [&str; 2] = [
    "events_statements_histogram_by_digest",
    "events_statements_histogram_global",
];

/// A bucket's columns after `$first` grouping columns.
macro_rules! bucket {
    ($($first:expr),*) => {
        [
            $($first,)*
            ("BUCKET_NUMBER", "int unsigned NOT NULL"),
            ("BUCKET_TIMER_LOW", "bigint unsigned NOT NULL"),
            ("BUCKET_TIMER_HIGH", "bigint unsigned NOT NULL"),
            ("COUNT_BUCKET", "bigint unsigned NOT NULL"),
            ("COUNT_BUCKET_AND_LOWER", "bigint unsigned NOT NULL"),
            ("BUCKET_QUANTILE", "double(7,6) NOT NULL"),
        ]
    };
}

const GLOBAL: [Def; 6] = bucket!();
const BY_DIGEST: [Def; 8] = bucket!(("SCHEMA_NAME", "varchar(64)"), ("DIGEST", "varchar(64)"));

/// The columns of `name`, one of [`TABLES`].
pub(super) fn defs(name: &str) -> &'static [Def] {
    match name {
        "events_statements_histogram_by_digest" => &BY_DIGEST,
        _ => &GLOBAL,
    }
}

/// The columns `pfs`' rows of `name` give, in order (`columns.rs`' test).
#[cfg(test)]
pub(super) fn headers(name: &str) -> &'static [&'static str] {
    use pfs::tables::*;
    match name {
        "events_statements_histogram_by_digest" => StatementHistogramByDigestRow::HEADERS,
        _ => StatementHistogramRow::HEADERS,
    }
}

/// A picosecond bound as the snapshot can hold it: at most `i64::MAX` (see the module docs).
pub(super) fn clamp(ps: u64) -> u64 {
    ps.min(i64::MAX as u64)
}

/// Fills `performance_schema.<name>`, one of [`TABLES`].
pub(super) fn fill(db: &mut EngineConn, name: &str) -> Result<(), ServerError> {
    match name {
        "events_statements_histogram_by_digest" => {
            let mut t = pfs::events_statements_histogram_by_digest();
            for r in &mut t.rows {
                r.bucket.bucket_timer_high = clamp(r.bucket.bucket_timer_high);
            }
            super::load(db, name, &t)
        }
        _ => {
            let mut t = pfs::events_statements_histogram_global();
            for r in &mut t.rows {
                r.bucket_timer_high = clamp(r.bucket_timer_high);
            }
            super::load(db, name, &t)
        }
    }
}

/// `events_statements_summary_by_digest`, its quantiles clamped (see the module docs).
pub(super) fn summary_by_digest() -> pfs::tables::SummaryByDigest {
    let mut t = pfs::events_statements_summary_by_digest();
    for r in &mut t.rows {
        r.quantile_95 = clamp(r.quantile_95);
        r.quantile_99 = clamp(r.quantile_99);
        r.quantile_999 = clamp(r.quantile_999);
    }
    t
}

/// `TRUNCATE TABLE performance_schema.<name>`, one of [`TABLES`] (see the module docs).
pub(super) fn truncate(name: &str) {
    match name {
        "events_statements_histogram_by_digest" => {
            pfs::truncate_events_statements_histogram_by_digest()
        }
        _ => pfs::truncate_events_statements_histogram_global(),
    }
}
