//! Feature `metrics`: mdl's own counters, published into the [`metrics`] facade when an exporter
//! scrapes ([`MdlManager::publish_metrics`]).
//!
//! The acquire path never calls the facade (a call is a thread-local or global recorder lookup,
//! a key hash and a map probe per metric). It counts where counting is cheap:
//!
//! * acquisitions: each context counts the tickets it creates in a plain array of its own (one
//!   counter per namespace and lock type: one increment, no atomic, no shared cache line) and
//!   *publishes* it — adds it into its shared part's counters, which other threads read — when
//!   asked: each [`MdlManager::publish_metrics`] bumps the manager's *publication epoch*, and a
//!   context that sees a new epoch at the end of a statement or transaction
//!   (`release_statement_locks`, `release_transactional_locks`, a scope's drop), at the start
//!   of a wait, or when it drops publishes what it counted since. So a scrape shows a live
//!   context's acquisitions as of its first statement end after the previous scrape, and those of
//!   ended contexts exactly (their counts move to the registry's total when they drop). The
//!   check costs a statement end a few instructions; the acquire path, one increment;
//! * waits, timeouts, deadlocks, kills (per namespace and lock type) and the wait-time
//!   histogram: where a wait ends, with the wait counters of the wait-for graph;
//! * gauges: the contexts waiting (the graph's edges), the lock objects, the live contexts.
//!
//! [`MdlManager::publish_metrics`] sums them and sets the facade's counters to the totals
//! (`Counter::absolute`), the gauges to their values, and records into the histogram the waits
//! that ended since the previous call, bucket by bucket, each bucket's waits at their mean (so
//! the exporter's counts per bucket and its sum are exact when its buckets are
//! [`WAIT_SECONDS_BUCKETS`]). Call it from one place, before each render of the exporter.
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | `mdl_lock_acquisitions_total` | counter | `namespace`, `lock_type` |
//! | `mdl_lock_waits_total` | counter | `namespace`, `lock_type` |
//! | `mdl_lock_wait_timeouts_total` | counter | `namespace`, `lock_type` |
//! | `mdl_lock_deadlocks_total` | counter | `namespace`, `lock_type` |
//! | `mdl_lock_kills_total` | counter | `namespace`, `lock_type` |
//! | `mdl_lock_wait_seconds` | histogram | |
//! | `mdl_waiting_contexts`, `mdl_lock_objects`, `mdl_contexts` | gauge | |
//!
//! Label values are MySQL's names (`TABLE`, `SHARED_READ`, as in `metadata_locks`). Counters
//! are published only once non-zero.

use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};

use crate::deadlock::{counter_row, WAIT_SECONDS_BUCKETS};
use crate::manager::MdlManager;
use crate::shared::ContextShared;
use crate::sync::Ordering;
use crate::types::{LockType, Namespace};

/// A context's own count of the tickets it created, per `deadlock::counter_row`, since it last
/// published (see the module docs). Only the context writes or reads it.
pub(crate) struct LocalCounts {
    rows: [u64; 256],
    /// The publication epoch the context last published in.
    seen: u64,
}

impl LocalCounts {
    pub(crate) fn new() -> LocalCounts {
        LocalCounts {
            rows: [0; 256],
            seen: 0,
        }
    }

    /// One more ticket of `row`: one increment.
    #[inline(always)]
    pub(crate) fn bump(&mut self, row: u8) {
        self.rows[usize::from(row)] += 1;
    }

    /// Publishes if a scrape asked since the last time (a statement's end, a wait's start).
    #[inline]
    pub(crate) fn publish_if_asked(&mut self, mgr: &MdlManager, shared: &ContextShared) {
        if mgr.metrics_epoch.load(Ordering::Relaxed) != self.seen {
            self.publish(mgr, shared);
        }
    }

    /// Adds the counts into the context's shared counters (their only writer) and clears them.
    #[cold]
    #[inline(never)]
    pub(crate) fn publish(&mut self, mgr: &MdlManager, shared: &ContextShared) {
        self.seen = mgr.metrics_epoch.load(Ordering::Relaxed);
        for (local, out) in self.rows.iter_mut().zip(&shared.acquired.0) {
            if *local != 0 {
                let v = out.load(Ordering::Relaxed);
                out.store(v + std::mem::take(local), Ordering::Relaxed);
            }
        }
    }
}

/// The counters published per namespace and lock type: acquisitions, then the wait outcomes
/// in the order of the graph's counters (waits, timeouts, deadlocks, kills).
const COUNTERS: [(&str, &str); 5] = [
    (
        "mdl_lock_acquisitions_total",
        "Metadata locks granted (tickets created).",
    ),
    (
        "mdl_lock_waits_total",
        "Lock requests that waited, whatever the outcome.",
    ),
    (
        "mdl_lock_wait_timeouts_total",
        "Waits that ended with a timeout.",
    ),
    (
        "mdl_lock_deadlocks_total",
        "Waits that ended as a deadlock victim.",
    ),
    ("mdl_lock_kills_total", "Waits that ended killed."),
];

impl MdlManager {
    /// Publishes this manager's counters, histogram and gauges into the `metrics` facade's
    /// recorder (see the table in `publish.rs`'s docs): call it right before an exporter
    /// renders, e.g. in the handler of `/metrics`. The acquire path never calls the facade;
    /// this call does the work, in time linear in the live contexts.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mdl_core::*;
    ///
    /// let mgr = MdlManager::new(MdlConfig::default())?;
    /// let mut ctx = mgr.new_context();
    /// let t = MdlKey::new(Namespace::Table, "test", "t")?;
    /// ctx.acquire(&MdlRequest::new(t, LockType::SharedRead, LockDuration::Statement),
    ///             Duration::from_secs(1))?;
    /// mgr.publish_metrics(); // into whatever recorder is installed (none here: a no-op)
    /// # Ok::<(), MdlError>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
    pub fn publish_metrics(&self) {
        for (name, help) in COUNTERS {
            describe_counter!(name, help);
        }
        describe_histogram!(
            "mdl_lock_wait_seconds",
            metrics::Unit::Seconds,
            "How long lock requests waited, whatever the outcome."
        );
        describe_gauge!("mdl_waiting_contexts", "Contexts waiting for a lock now.");
        describe_gauge!("mdl_lock_objects", "Lock objects in the lock map.");
        describe_gauge!("mdl_contexts", "Live contexts.");
        // Ask the live contexts to publish at their next statement end (for the next scrape).
        self.metrics_epoch.fetch_add(1, Ordering::Relaxed);
        let acquired = self.env.registry.acquired();
        for ns in Namespace::ALL {
            for ty in LockType::ALL {
                let row = counter_row(ns, ty);
                let [waits, timeouts, deadlocks, kills] = self.graph.counters_of(ns, ty);
                let values = [acquired[row], waits, timeouts, deadlocks, kills];
                for ((name, _), v) in COUNTERS.iter().zip(values) {
                    if v != 0 {
                        let labels = [
                            ("namespace", ns.object_type_name()),
                            ("lock_type", ty.pfs_name()),
                        ];
                        counter!(*name, &labels).absolute(v);
                    }
                }
            }
        }
        self.publish_histogram();
        gauge!("mdl_waiting_contexts").set(self.graph.waiting() as f64);
        gauge!("mdl_lock_objects").set(self.map.objects() as f64);
        gauge!("mdl_contexts").set(self.env.registry.len() as f64);
    }

    /// Records the waits that ended since the last call, per bucket at their mean.
    fn publish_histogram(&self) {
        let h = &self.graph.histogram;
        let hist = histogram!("mdl_lock_wait_seconds");
        let mut published = h.published.lock();
        for (i, seen) in published.iter_mut().enumerate() {
            let count = h.counts[i].load(Ordering::Relaxed);
            let ns = h.sum_ns[i].load(Ordering::Relaxed);
            let (n, sum) = (count.saturating_sub(seen.0), ns.saturating_sub(seen.1));
            if n == 0 {
                continue;
            }
            // The mean of the bucket's new waits lies in the bucket (the count and the sum are
            // read one after the other, so clamp it there).
            let lo = if i == 0 {
                0.0
            } else {
                WAIT_SECONDS_BUCKETS[i - 1]
            };
            let hi = WAIT_SECONDS_BUCKETS.get(i).copied().unwrap_or(f64::MAX);
            let mean = (sum as f64 / n as f64 / 1e9).clamp(lo.next_up(), hi);
            hist.record_many(mean, usize::try_from(n).unwrap_or(usize::MAX));
            *seen = (count, ns);
        }
    }
}
