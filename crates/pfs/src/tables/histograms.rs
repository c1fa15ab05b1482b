//! The rows of MySQL 8.0's statement latency histograms (`events_statements_histogram_global`
//! and `events_statements_histogram_by_digest`, 8.0.19+): one row per bucket, the columns of
//! `table_esmh_global.cc` and `table_esmh_by_digest.cc` (`storage/perfschema`).

use serde::Serialize;

use super::{concat_headers, CellValue, Row, Table};

/// `BUCKET_QUANTILE`: a `DOUBLE(7,6)`, six decimals in text.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Quantile(pub f64);

impl CellValue for Quantile {
    fn cell(&self) -> Option<String> {
        Some(format!("{:.6}", self.0))
    }
}

table_row! {
    /// `events_statements_histogram_global`: one bucket (all 450 are listed, empty ones too).
    pub struct StatementHistogramRow {
        /// BUCKET_NUMBER, 0 to 449.
        "BUCKET_NUMBER" => bucket_number: u32,
        /// BUCKET_TIMER_LOW (ps): the bucket's lowest latency.
        "BUCKET_TIMER_LOW" => bucket_timer_low: u64,
        /// BUCKET_TIMER_HIGH (ps): the next bucket's low (`u64::MAX` for the last).
        "BUCKET_TIMER_HIGH" => bucket_timer_high: u64,
        /// COUNT_BUCKET: statements whose latency fell in the bucket.
        "COUNT_BUCKET" => count_bucket: u64,
        /// COUNT_BUCKET_AND_LOWER: the same, of this bucket and every lower one.
        "COUNT_BUCKET_AND_LOWER" => count_bucket_and_lower: u64,
        /// BUCKET_QUANTILE: COUNT_BUCKET_AND_LOWER over all counted statements (0 when none).
        "BUCKET_QUANTILE" => bucket_quantile: Quantile,
    }
}

table_row! {
    /// `events_statements_histogram_by_digest`: one bucket of one digest's histogram (all 450
    /// buckets of each digest that has a row in `events_statements_summary_by_digest`).
    pub struct StatementHistogramByDigestRow {
        /// SCHEMA_NAME, as in the digest summary.
        "SCHEMA_NAME" => schema_name: Option<String>,
        /// DIGEST, as in the digest summary.
        "DIGEST" => digest: String,
        ..
        /// The bucket's columns.
        bucket: StatementHistogramRow,
    }
}

/// `events_statements_histogram_global`.
pub type StatementHistogramGlobal = Table<StatementHistogramRow>;
/// `events_statements_histogram_by_digest`.
pub type StatementHistogramByDigest = Table<StatementHistogramByDigestRow>;
