//! A digest's sums on one thread ([`DigestCell`]: beside the statistics every statement with a
//! digest writes) and their sum over threads ([`Sums`]), and `LAST_SEEN` / `FIRST_SEEN` as
//! MySQL's `TIMESTAMP(6)` text ([`stamp_datetime`]).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::super::stats::StatCell;
use super::super::timer::{self, stamp_to_ps};
use super::{End, RareEnd};
use crate::kinds::Clock;

/// A digest's cell on one thread: its statistics and its sums, written by the thread only,
/// relaxed load + store (see `stats.rs`). What every statement writes (the statistics,
/// `SUM_ROWS_SENT`, `LAST_SEEN`) is in its first cache line, which the statement's statistics
/// touch anyway; the sums of rare ends follow.
#[derive(Debug)]
#[repr(C, align(64))]
pub(crate) struct DigestCell {
    pub(crate) stat: StatCell,
    rows_sent: AtomicU64,
    /// The start (`TIMER_START`, statement clock ticks) of its last statement: `LAST_SEEN`.
    last: AtomicU64,
    rows_affected: AtomicU64,
    lock_ps: AtomicU64,
    errors: AtomicU64,
    warnings: AtomicU64,
    /// `SUM_NO_INDEX_USED`, `SUM_SELECT_SCAN`, `SUM_SORT_SCAN` (`outcome::engine_parts`).
    engine: [AtomicU64; 3],
}

/// A copied [`DigestCell`]'s sums, or their sum over threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sums {
    pub lock_ps: u64,
    pub errors: u64,
    pub warnings: u64,
    pub rows_affected: u64,
    pub rows_sent: u64,
    /// `SUM_NO_INDEX_USED`, `SUM_SELECT_SCAN`, `SUM_SORT_SCAN`.
    pub engine: [u64; 3],
    /// Statement clock ticks; 0 = never.
    pub last: u64,
}

#[inline(always)]
fn bump(c: &AtomicU64, v: u64) {
    c.store(c.load(Relaxed).wrapping_add(v), Relaxed);
}

impl DigestCell {
    pub(crate) fn new() -> DigestCell {
        DigestCell {
            stat: StatCell::new(),
            rows_sent: AtomicU64::new(0),
            last: AtomicU64::new(0),
            rows_affected: AtomicU64::new(0),
            lock_ps: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            warnings: AtomicU64::new(0),
            engine: Default::default(),
        }
    }

    /// A statement started at `start` ended: `LAST_SEEN`, and the sums of its end (`e`).
    #[inline(always)]
    pub(crate) fn seen(&self, start: u64, e: &End<'_>) {
        self.last.store(start, Relaxed);
        match e {
            End::None => {}
            End::Common(o) => bump(&self.rows_sent, o.rows_sent()),
            End::Rare(e) => self.add_rare(e),
        }
    }

    /// A prepared statement's common end (`record::end_statement`): its rows sent, and no
    /// `LAST_SEEN`, which its row does not show.
    #[inline(always)]
    pub(crate) fn sent(&self, rows: u64) {
        bump(&self.rows_sent, rows);
    }

    #[cold]
    #[inline(never)]
    fn add_rare(&self, e: &RareEnd<'_>) {
        bump(&self.rows_sent, e.rows_sent);
        bump(&self.rows_affected, e.rows_affected);
        bump(&self.lock_ps, e.lock_ps);
        bump(&self.errors, u64::from(e.diag as u32 != 0));
        bump(&self.warnings, e.diag >> 32);
        if e.engine != 0 {
            let parts = crate::outcome::engine_parts(e.engine);
            for (c, v) in self.engine.iter().zip(parts) {
                bump(c, v);
            }
        }
    }

    pub(crate) fn sums(&self) -> Sums {
        Sums {
            lock_ps: self.lock_ps.load(Relaxed),
            errors: self.errors.load(Relaxed),
            warnings: self.warnings.load(Relaxed),
            rows_affected: self.rows_affected.load(Relaxed),
            rows_sent: self.rows_sent.load(Relaxed),
            engine: self.engine.each_ref().map(|c| c.load(Relaxed)),
            last: self.last.load(Relaxed),
        }
    }

    pub(crate) fn reset(&self) {
        self.stat.reset();
        for c in [
            &self.lock_ps,
            &self.errors,
            &self.warnings,
            &self.rows_affected,
            &self.rows_sent,
            &self.last,
        ]
        .into_iter()
        .chain(&self.engine)
        {
            c.store(0, Relaxed);
        }
    }
}

impl AsRef<StatCell> for DigestCell {
    fn as_ref(&self) -> &StatCell {
        &self.stat
    }
}

impl Sums {
    pub(crate) fn merge(&mut self, o: &Sums) {
        self.lock_ps = self.lock_ps.wrapping_add(o.lock_ps);
        self.errors = self.errors.wrapping_add(o.errors);
        self.warnings = self.warnings.wrapping_add(o.warnings);
        self.rows_affected = self.rows_affected.wrapping_add(o.rows_affected);
        self.rows_sent = self.rows_sent.wrapping_add(o.rows_sent);
        for (s, o) in self.engine.iter_mut().zip(o.engine) {
            *s = s.wrapping_add(o);
        }
        self.last = self.last.max(o.last);
    }
}

/// The per-thread cells of `n` digests.
pub(crate) fn digest_cells(n: usize) -> Box<[DigestCell]> {
    (0..n).map(|_| DigestCell::new()).collect()
}

/// A statement-clock stamp as MySQL's `TIMESTAMP(6)` text, UTC: `2026-11-27 09:30:00.123456`.
pub(crate) fn stamp_datetime(stamp: u64, clock: Clock) -> String {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let now = match clock {
        Clock::Cycle => timer::rdtsc(),
        Clock::Nanosecond => timer::ns_now(),
    };
    let now_ps = stamp_to_ps(now, clock);
    let ago = Duration::from_nanos(now_ps.saturating_sub(stamp_to_ps(stamp, clock)) / 1000);
    let at = SystemTime::now()
        .checked_sub(ago)
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .unwrap_or_default();
    datetime(at)
}

/// `at` (since the Unix epoch) as MySQL's `TIMESTAMP(6)` text, UTC.
pub(crate) fn datetime(at: std::time::Duration) -> String {
    let secs = at.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:06}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        at.subsec_micros()
    )
}

/// Year, month, day of `days` since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::super::tests::rare;
    use super::*;
    use crate::outcome::StatementOutcome;

    #[test]
    fn sums_add_and_merge() {
        let c = DigestCell::new();
        let ok = StatementOutcome::ok(3, 0);
        c.seen(100, &End::Common(&ok));
        c.seen(150, &End::None);
        let failed = StatementOutcome::error(1064, "42000", "x").warnings(2);
        c.seen(200, &End::Rare(&rare(&failed, 50)));
        c.seen(210, &End::Rare(&rare(&StatementOutcome::ok(1, 4), 0)));
        let s = c.sums();
        assert_eq!(
            (
                s.rows_sent,
                s.rows_affected,
                s.errors,
                s.warnings,
                s.lock_ps,
                s.last
            ),
            (4, 4, 1, 2, 50, 210)
        );
        let mut m = Sums::default();
        m.merge(&s);
        m.merge(&Sums {
            last: 60,
            ..Sums::default()
        });
        assert_eq!(m.last, 210);
        c.reset();
        assert_eq!(c.sums(), Sums::default());
    }

    #[test]
    fn days_become_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_454), (2026, 1, 1));
        assert_eq!(civil(-1), (1969, 12, 31));
        assert_eq!(civil(11_016), (2000, 2, 29));
    }
}
