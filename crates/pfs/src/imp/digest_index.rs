//! The digests' index: which registered digest a `(schema, text)` pair is, found without a
//! lock (a server looks up the digest of every text statement it runs).
//!
//! An open-addressing table of `AtomicU64` entries, twice the digest buffer's capacity rounded
//! up to a power of two, so it is never more than half full and every probe ends at an empty
//! entry. An entry is 0 (empty) or the pair's hash's high 32 bits beside the digest's index + 1.
//! Entries are only ever added, by the registering thread under the registry lock
//! (`classes.rs`), after the digest's text and schema are set; a reader's acquire load of the
//! entry then sees them, and it compares them to the pair it looks for, so a hash collision is
//! a longer probe, never a wrong digest. The hasher's keys are random per process
//! (`ahash::RandomState`), so no chosen texts make the probes long.

use std::sync::atomic::{AtomicU64, Ordering};

use super::classes::DigestInfo;

/// See the module docs.
pub(crate) struct DigestIndex {
    entries: Box<[AtomicU64]>,
    hasher: ahash::RandomState,
}

/// Where a probe for a pair ended.
pub(crate) enum Probe<'a> {
    Found(&'a DigestInfo),
    /// Not registered: the empty entry it would take.
    Vacant(usize),
}

impl DigestIndex {
    /// An index for a buffer of `capacity` digests.
    pub(crate) fn new(capacity: usize) -> DigestIndex {
        let n = (capacity.max(1) * 2).next_power_of_two();
        DigestIndex {
            entries: (0..n).map(|_| AtomicU64::new(0)).collect(),
            hasher: ahash::RandomState::new(),
        }
    }

    /// The pair's hash.
    #[inline]
    pub(crate) fn hash(&self, schema: Option<&str>, text: &str) -> u64 {
        self.hasher.hash_one((schema, text))
    }

    /// The digest registered for `(schema, text)` (hash `h`) among `digests`, or the entry it
    /// would take.
    #[inline]
    pub(crate) fn probe<'a>(
        &self,
        digests: &'a [DigestInfo],
        h: u64,
        schema: Option<&str>,
        text: &str,
    ) -> Probe<'a> {
        let mask = self.entries.len() - 1;
        let mut s = h as usize & mask;
        loop {
            let e = self.entries[s].load(Ordering::Acquire);
            if e == 0 {
                return Probe::Vacant(s);
            }
            if e >> 32 == h >> 32 {
                let d = &digests[(e as u32 - 1) as usize];
                if d.text.get().map(|t| &**t) == Some(text)
                    && d.schema.get().map(|s| &**s) == schema
                {
                    return Probe::Found(d);
                }
            }
            s = (s + 1) & mask;
        }
    }

    /// Publishes digest `index` (its text and schema set) at the vacant entry `at` that a probe
    /// for its hash `h` found. The caller holds the registry lock, so no other insertion ran
    /// since that probe.
    pub(crate) fn insert(&self, at: usize, h: u64, index: u32) {
        let e = (h >> 32) << 32 | u64::from(index + 1);
        self.entries[at].store(e, Ordering::Release);
    }
}
