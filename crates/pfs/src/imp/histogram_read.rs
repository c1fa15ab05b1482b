//! The statement latency histograms' reads and truncations (`crate::histograms` makes the
//! rows): the global counts, and each digest's in the digest summary's order.

use std::collections::HashMap;

use super::classes::{classes, DigestInfo};
use super::histogram::GLOBAL;
use super::summary::{digest_hash, summary_by_digest};
use crate::histograms::STATEMENT_BUCKETS;

/// The global histogram's counts.
pub(crate) fn global() -> [u64; STATEMENT_BUCKETS] {
    GLOBAL.counts()
}

/// Each digest with a row in the digest summary, in its order: its schema, its `DIGEST` and
/// its counts.
pub(crate) fn by_digest() -> Vec<(Option<String>, String, [u64; STATEMENT_BUCKETS])> {
    let summary = summary_by_digest();
    let mut digests: HashMap<(Option<String>, String), &DigestInfo> = (classes().digests().iter())
        .map(|d| {
            let text = d.text.get().map(|t| t.to_string()).unwrap_or_default();
            let schema = d.schema.get().map(|s| s.to_string());
            ((schema, digest_hash(&text)), d)
        })
        .collect();
    (summary.into_iter())
        .filter_map(|r| {
            let d = digests.remove(&(r.schema_name.clone(), r.digest.clone()))?;
            Some((r.schema_name, r.digest, d.hist.counts()))
        })
        .collect()
}

/// Zeroes the global histogram.
pub(crate) fn truncate_global() {
    GLOBAL.reset();
}

/// Zeroes every digest's histogram.
pub(crate) fn truncate_by_digest() {
    for d in classes().digests() {
        d.hist.reset();
    }
}
