//! A statement class's sums on one thread (`SUM_LOCK_TIME`, `SUM_ERRORS`, `SUM_WARNINGS`,
//! `SUM_ROWS_AFFECTED`, `SUM_ROWS_SENT`, and `SUM_NO_INDEX_USED`, `SUM_SELECT_SCAN`,
//! `SUM_SORT_SCAN` of the statement summaries by event name), as MySQL
//! keeps them per thread per class (`PFS_statement_stat` in `storage/perfschema/pfs_stat.h`,
//! added by `pfs_end_statement_vc` in `pfs.cc`).
//!
//! # Derived from the digests where it costs nothing
//!
//! Digests are per thread here (`ThreadSlot::digests`), and a statement of the class its
//! digest is bound to counts in the digest's cell only, sums included (`record::digest_stat`,
//! `digest.rs`): the class's statistics are the sum of its bound digests' cells, added on read
//! (`summary_by::class_stats`). Its sums are derived the same way, so the hot end (a statement
//! of its digest's class) does no new work at all. A [`SumsCell`] per class holds what no
//! bound digest holds, written only off the hot path ([`add_class`], [`add_foreign`]):
//!
//! * a statement without a digest (none given, the `statements_digest` consumer off, or no
//!   room for one): its sums go to its class's cell, as its statistics go to its class's;
//! * a statement of another class than its digest's: its sums go to its digest's cell (the
//!   digest's rows want them) and to its own class's cell, and are taken from the cell of the
//!   digest's class, which gets them on read through the digest. Wrapping arithmetic keeps
//!   the sum of the two exact.
//!
//! Like the other statistics cells, a cell has one writer, its thread (relaxed load + store).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::super::classes::{ClassInfo, DigestInfo};
use super::super::thread::ThreadSlot;
use super::{End, Sums};

/// A class's sums on one thread that no bound digest holds (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct SumsCell {
    lock_ps: AtomicU64,
    errors: AtomicU64,
    warnings: AtomicU64,
    rows_affected: AtomicU64,
    rows_sent: AtomicU64,
    engine: [AtomicU64; 3],
}

/// `lock_ps`, `errors`, `warnings`, `rows_affected`, `rows_sent`, then the engine's three
/// (`outcome::engine_parts`) of an end.
fn values(e: &End<'_>) -> [u64; 8] {
    match e {
        End::None => [0; 8],
        End::Common(o) => [0, 0, 0, 0, o.rows_sent(), 0, 0, 0],
        End::Rare(r) => {
            let [a, b, c] = crate::outcome::engine_parts(r.engine);
            [
                r.lock_ps,
                u64::from(r.diag as u32 != 0),
                r.diag >> 32,
                r.rows_affected,
                r.rows_sent,
                a,
                b,
                c,
            ]
        }
    }
}

impl SumsCell {
    fn fields(&self) -> [&AtomicU64; 8] {
        let [a, b, c] = &self.engine;
        [
            &self.lock_ps,
            &self.errors,
            &self.warnings,
            &self.rows_affected,
            &self.rows_sent,
            a,
            b,
            c,
        ]
    }

    /// Adds the sums of `e` (owner), or takes them away (`take`).
    fn add(&self, e: &End<'_>, take: bool) {
        for (c, v) in self.fields().into_iter().zip(values(e)) {
            let v = if take { v.wrapping_neg() } else { v };
            c.store(c.load(Relaxed).wrapping_add(v), Relaxed);
        }
    }

    pub(crate) fn sums(&self) -> Sums {
        let [lock_ps, errors, warnings, rows_affected, rows_sent, a, b, c] =
            self.fields().map(|c| c.load(Relaxed));
        Sums {
            lock_ps,
            errors,
            warnings,
            rows_affected,
            rows_sent,
            engine: [a, b, c],
            last: 0,
        }
    }

    pub(crate) fn reset(&self) {
        for c in self.fields() {
            c.store(0, Relaxed);
        }
    }
}

/// The per-thread cells of `n` classes.
pub(crate) fn sums_cells(n: usize) -> Box<[SumsCell]> {
    (0..n).map(|_| SumsCell::default()).collect()
}

/// A statement of `class` without a digest ended with `e` (a wait or stage: `End::None`).
#[inline]
pub(crate) fn add_class(t: &ThreadSlot, class: &ClassInfo, e: &End<'_>) {
    let Some(c) = t.class_sums.get(class.index as usize) else {
        return;
    };
    match e {
        End::None => {}
        // The common end has only rows sent to add (`values`): one field, not eight.
        End::Common(o) => (c.rows_sent).store(
            c.rows_sent.load(Relaxed).wrapping_add(o.rows_sent()),
            Relaxed,
        ),
        End::Rare(_) => c.add(e, false),
    }
}

/// A statement of `class` with digest `d` ended with `e`, its digest's cell written: if `d` is
/// bound to another class, the sums move from that class to `class` (see the module docs).
#[cold]
#[inline(never)]
pub(crate) fn add_foreign(t: &ThreadSlot, class: &ClassInfo, d: &DigestInfo, e: &End<'_>) {
    let bound = d.class.load(Relaxed);
    if bound == class.index || matches!(e, End::None) {
        return;
    }
    if let Some(c) = t.class_sums.get(class.index as usize) {
        c.add(e, false);
    }
    if let Some(c) = t.class_sums.get(bound as usize) {
        c.add(e, true);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::rare;
    use super::*;
    use crate::outcome::StatementOutcome;

    #[test]
    fn cells_add_and_take_back() {
        let c = SumsCell::default();
        let ok = StatementOutcome::ok(3, 0);
        c.add(&End::Common(&ok), false);
        c.add(&End::None, false);
        let failed = StatementOutcome::error(1064, "42000", "x").warnings(2);
        c.add(&End::Rare(&rare(&failed, 50)), false);
        let s = c.sums();
        assert_eq!(
            (s.rows_sent, s.errors, s.warnings, s.lock_ps, s.last),
            (3, 1, 2, 50, 0)
        );
        let other = SumsCell::default();
        let upd = StatementOutcome::ok(0, 4);
        other.add(&End::Rare(&rare(&upd, 0)), true);
        let mut m = other.sums();
        m.merge(&Sums {
            rows_affected: 4,
            ..Sums::default()
        });
        assert_eq!(m, Sums::default(), "taken and given back");
        c.reset();
        assert_eq!(c.sums(), Sums::default());
    }
}
