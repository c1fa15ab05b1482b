//! The statement latency histograms' reads and truncations (`crate::histograms` makes the
//! rows): the global counts, and each digest's in the digest summary's order.
//!
//! The global histogram is not kept on its own (`histogram.rs`): it is every digest's counts
//! plus `OTHER` (statements without a digest) plus what truncations of the digests' histograms
//! moved out of them (`carried`, so that they leave the global histogram alone, as MySQL's),
//! less what it held at its own last truncation (`base`). Reads and truncations take one lock,
//! so a reader never sees counts between a digest and `carried`.

use std::collections::HashMap;

use parking_lot::Mutex;

use super::classes::{classes, DigestInfo};
use super::histogram::OTHER;
use super::summary::{digest_hash, summary_by_digest};
use crate::histograms::STATEMENT_BUCKETS;

type Counts = [u64; STATEMENT_BUCKETS];

/// What the digests' truncations moved out of them, and the sum at the last truncation of the
/// global histogram.
struct Carried {
    carried: Counts,
    base: Counts,
}

static CARRIED: Mutex<Carried> = Mutex::new(Carried {
    carried: [0; STATEMENT_BUCKETS],
    base: [0; STATEMENT_BUCKETS],
});

/// Every count ever made since the start: the digests', `OTHER`'s, and `carried`.
fn total(c: &Carried) -> Counts {
    let mut t = c.carried;
    OTHER.add_into(&mut t);
    for d in classes().digests() {
        d.hist.add_into(&mut t);
    }
    t
}

/// The global histogram's counts.
pub(crate) fn global() -> Counts {
    let c = CARRIED.lock();
    let mut t = total(&c);
    for (t, b) in t.iter_mut().zip(c.base.iter()) {
        *t = t.wrapping_sub(*b);
    }
    t
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

/// Zeroes the global histogram: its counts so far become the base.
pub(crate) fn truncate_global() {
    let mut c = CARRIED.lock();
    c.base = total(&c);
}

/// Zeroes every digest's histogram, their counts carried (the global histogram keeps them).
/// Also the digest summary's truncation (`read::truncate_global`).
pub(crate) fn truncate_by_digest() {
    let mut c = CARRIED.lock();
    for d in classes().digests() {
        d.hist.drain(&mut c.carried);
    }
}
