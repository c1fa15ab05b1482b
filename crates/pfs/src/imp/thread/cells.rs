//! A thread's statistics cells as a whole: read by class for the summaries by thread,
//! account, user and host and carried at its end ([`ThreadSlot::class_stats`]: the
//! transactions' cells too, in the `transaction` class), and reset.

use std::sync::atomic::Ordering::Relaxed;

use super::super::classes::classes;
use super::super::summary_by::{ClassStat, ClassStats};
use super::ThreadSlot;

impl ThreadSlot {
    /// Its stats by class: its class cells, each digest's cell added to the class the digest
    /// is bound to (a statement of that class counts in the digest's cell only, sums included:
    /// `record::digest_stat`, `statement/class_sums.rs`).
    pub(crate) fn class_stats(&self) -> ClassStats {
        let g = classes();
        let n = g.registered().len();
        let mut v: ClassStats = (self.stats.iter().zip(self.class_sums.iter()))
            .take(n)
            .map(|(c, s)| ClassStat {
                stat: c.snapshot(),
                sums: s.sums(),
                read_only: Default::default(),
            })
            .collect();
        // The transactions' two cells, in the `transaction` class (none counted before it is
        // registered; registering here, under the threads' lock, could deadlock).
        let trx = super::super::transaction::class_if_registered().map(|c| c.index as usize);
        if let Some(s) = trx.and_then(|i| v.get_mut(i)) {
            let [rw, ro] = self.trx.cells.each_ref().map(|c| c.snapshot());
            s.stat.merge(&rw);
            s.read_only.merge(&ro);
        }
        for (d, cell) in g.digests().iter().zip(self.digests.iter()) {
            if let Some(s) = v.get_mut(d.class.load(Relaxed) as usize) {
                let mut sums = cell.sums();
                sums.last = 0;
                s.merge(&ClassStat {
                    stat: cell.stat.snapshot(),
                    sums,
                    read_only: Default::default(),
                });
            }
        }
        v
    }

    pub(crate) fn reset_stats(&self) {
        for s in self.stats.iter().chain(&*self.digests_other) {
            s.reset();
        }
        for d in self.digests.iter() {
            d.reset();
        }
        for s in self.class_sums.iter() {
            s.reset();
        }
        for h in self.hists.iter().filter_map(|h| h.get()) {
            h.reset();
        }
        for c in &self.trx.cells {
            c.reset();
        }
    }
}
