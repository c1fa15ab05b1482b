//! What a statement event carries besides its record (`events.rs`): `SQL_TEXT`, `LOCK_TIME`,
//! the counts and the diagnostics of its end (`crate::StatementOutcome`), and the digest sums
//! of `events_statements_summary_by_digest` (`SUM_LOCK_TIME`, `SUM_ERRORS`, ..., `FIRST_SEEN`,
//! `LAST_SEEN`).
//!
//! # Where it is kept
//!
//! A thread's statement records each have a [`StatementExtra`] beside them, the same index in
//! `ThreadSlot::statements` as the record in the statements log, and the `history_long` ring
//! has one per slot too (allocated when the first statement is copied there). Like a record,
//! an extra is written by its thread only and read as a seqlock over atomics: the text under
//! `seq` (a reader copies it between two reads of `seq`), the end under its own tag, which is
//! its sequence (cleared, the fields written, then set to the statement's `EVENT_ID` and a bit
//! saying whether the fields besides `ROWS_SENT` were written), so a statement's end stores no
//! more than its tag twice and `ROWS_SENT` unless it has more to say. The text is kept in a
//! fixed buffer of `u64` words (MySQL's `performance_schema_max_sql_text_length` bytes per
//! record, as MySQL allocates its own), so a statement allocates nothing. Each part names the
//! `EVENT_ID` it belongs to, and a reader takes it only for that event: an extra is written for
//! some statements and not others (no text for a prepared statement's execution, whose text
//! is its digest's; no end for one that ended without [`crate::PendingStatement::end_with`]),
//! and a stale part is then not shown.
//!
//! # What a statement pays
//!
//! Nothing at its start unless it gives its text (`set_sql_text`: the text's words copied).
//! At its end, in the common case (rows sent, nothing affected, no error, warning or lock
//! wait: one test of the three words or-ed), three stores to the extra (tag, `ROWS_SENT`,
//! tag) and to the digest's sums an addition (`SUM_ROWS_SENT`), a store (`LAST_SEEN`) and a
//! test (`FIRST_SEEN` unset, true once per digest and thread); the rest of the end and the
//! other sums are written behind that branch. No timer read: `LOCK_TIME` is the end of the
//! last metadata lock wait (timed anyway, for its own statistics; its end kept in the
//! thread's slot by `record.rs`, a flag test and one store per wait) less the statement's
//! start, looked at only when such a wait ended since the last statement took one.

use std::sync::atomic::{fence, AtomicU64, Ordering, Ordering::Relaxed};
use std::sync::OnceLock;

use super::classes::{F_CYCLES, F_TIMED};
use super::events::long_rings;
use super::record::Active;
use super::timer::stamp_to_ps;
use crate::kinds::Clock;
use crate::outcome::{truncated, StatementOutcome, MAX_MESSAGE_TEXT, MAX_SQL_TEXT};

/// Text of up to `8 * W` bytes in words (read under the owner's seqlock).
#[derive(Debug)]
struct TextBuf<const W: usize> {
    len: AtomicU64,
    words: [AtomicU64; W],
}

impl<const W: usize> Default for TextBuf<W> {
    fn default() -> Self {
        TextBuf {
            len: AtomicU64::new(0),
            words: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl<const W: usize> TextBuf<W> {
    /// Keeps `text`, cut to the buffer at a character boundary.
    #[inline]
    fn write(&self, text: &str) {
        let text = truncated(text, W * 8);
        let b = text.as_bytes();
        let mut chunks = b.chunks_exact(8);
        for (w, c) in self.words.iter().zip(&mut chunks) {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            w.store(u64::from_le_bytes(a), Relaxed);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut a = [0u8; 8];
            a[..rest.len()].copy_from_slice(rest);
            if let Some(w) = self.words.get(b.len() / 8) {
                w.store(u64::from_le_bytes(a), Relaxed);
            }
        }
        self.len.store(b.len() as u64, Relaxed);
    }

    fn read(&self) -> String {
        let n = (self.len.load(Relaxed) as usize).min(W * 8);
        let mut b = Vec::with_capacity(n.next_multiple_of(8));
        for w in &self.words[..n.div_ceil(8)] {
            b.extend_from_slice(&w.load(Relaxed).to_le_bytes());
        }
        b.truncate(n);
        String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into())
    }
}

/// The `u64` words of `SQL_TEXT`.
const TEXT_WORDS: usize = MAX_SQL_TEXT / 8;
/// The `u64` words of `MESSAGE_TEXT`.
const MESSAGE_WORDS: usize = MAX_MESSAGE_TEXT / 8;

/// What one statement record carries besides the record (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct StatementExtra {
    seq: AtomicU64,
    /// The EVENT_ID whose `SQL_TEXT` `text` is.
    text_event: AtomicU64,
    text: TextBuf<TEXT_WORDS>,
    /// The end's tag, its own sequence: `EVENT_ID << 1 | rare` of the statement whose end the
    /// fields below are, 0 while they are written (or for none). `rare` (bit 0) says the
    /// fields after `rows_sent` were written; without it they are 0 for that statement.
    end_tag: AtomicU64,
    rows_sent: AtomicU64,
    rows_affected: AtomicU64,
    /// `MYSQL_ERRNO` (low half) and `WARNINGS` (high half).
    diag: AtomicU64,
    /// `LOCK_TIME`, picoseconds.
    lock_ps: AtomicU64,
    /// `RETURNED_SQLSTATE` (five bytes) and `MESSAGE_TEXT` of a failed statement.
    sqlstate: AtomicU64,
    message: TextBuf<MESSAGE_WORDS>,
}

/// A copy of a [`StatementExtra`] for `event_id`'s row: `None` fields were not given for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ExtraData {
    pub text: Option<String>,
    pub end: Option<EndData>,
}

/// The end of a statement, as given (`StatementOutcome`) with its `LOCK_TIME`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct EndData {
    pub rows_sent: u64,
    pub rows_affected: u64,
    pub errno: u32,
    pub warnings: u32,
    pub lock_ps: u64,
    pub sqlstate: Option<String>,
    pub message: Option<String>,
}

impl StatementExtra {
    #[inline]
    fn write(&self, f: impl FnOnce(&StatementExtra)) {
        let s = self.seq.load(Relaxed);
        self.seq.store(s.wrapping_add(1) | 1, Relaxed);
        fence(Ordering::Release);
        f(self);
        self.seq.store((s | 1).wrapping_add(1), Ordering::Release);
    }

    /// `SQL_TEXT` of event `event_id` (owner).
    pub(crate) fn set_text(&self, event_id: u64, text: &str) {
        self.write(|x| {
            x.text_event.store(event_id, Relaxed);
            x.text.write(text);
        });
    }

    /// The end of event `event_id` (owner), its lock time `lock_ps`; `rare` when any of
    /// `ROWS_AFFECTED`, the diagnostics or `lock_ps` is not 0 (else only `ROWS_SENT` is
    /// written). The tag is the end's sequence: cleared, the fields, then set (see
    /// [`read_end`](Self::read_end)).
    #[inline]
    fn set_end(&self, event_id: u64, o: &StatementOutcome<'_>, lock_ps: u64, rare: bool) {
        self.end_tag.store(0, Relaxed);
        fence(Ordering::Release);
        self.rows_sent.store(o.rows_sent(), Relaxed);
        if rare {
            self.set_rare(o, lock_ps);
        }
        self.end_tag
            .store(event_id << 1 | u64::from(rare), Ordering::Release);
    }

    /// The end fields behind the `rare` bit.
    #[cold]
    #[inline(never)]
    fn set_rare(&self, o: &StatementOutcome<'_>, lock_ps: u64) {
        self.rows_affected.store(o.rows_affected(), Relaxed);
        self.diag.store(o.diag(), Relaxed);
        self.lock_ps.store(lock_ps, Relaxed);
        if o.errno() != 0 {
            self.set_error(o);
        }
    }

    #[cold]
    #[inline(never)]
    fn set_error(&self, o: &StatementOutcome<'_>) {
        let mut a = [0u8; 8];
        let s = truncated(o.sqlstate(), 5).as_bytes();
        a[..s.len()].copy_from_slice(s);
        self.sqlstate.store(u64::from_le_bytes(a), Relaxed);
        self.message.write(o.message());
    }

    /// A consistent copy of what belongs to `event_id`, or `None` if still being written after
    /// a few tries.
    pub(crate) fn read(&self, event_id: u64) -> Option<ExtraData> {
        let text = self.read_text(event_id)?;
        let end = self.read_end(event_id)?;
        Some(ExtraData { text, end })
    }

    /// The text, under `seq`: `Some(None)` when it is not `event_id`'s.
    fn read_text(&self, event_id: u64) -> Option<Option<String>> {
        for _ in 0..16 {
            let s1 = self.seq.load(Ordering::Acquire);
            if s1 & 1 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let text = (self.text_event.load(Relaxed) == event_id).then(|| self.text.read());
            fence(Ordering::Acquire);
            if self.seq.load(Relaxed) == s1 {
                return Some(text);
            }
        }
        None
    }

    /// The end, under its tag (a seqlock whose sequence is the tag: a writer clears it, writes,
    /// then sets it, so a copy taken between two equal reads of a set tag is whole):
    /// `Some(None)` when it is not `event_id`'s.
    fn read_end(&self, event_id: u64) -> Option<Option<EndData>> {
        for _ in 0..16 {
            let t1 = self.end_tag.load(Ordering::Acquire);
            if t1 == 0 {
                std::hint::spin_loop();
                continue;
            }
            if t1 >> 1 != event_id {
                return Some(None);
            }
            let d = self.load_end(t1 & 1 == 1);
            fence(Ordering::Acquire);
            if self.end_tag.load(Relaxed) == t1 {
                return Some(Some(d));
            }
        }
        // Cleared (a truncate, no end yet) or being written throughout.
        Some(None)
    }

    fn load_end(&self, rare: bool) -> EndData {
        let rows_sent = self.rows_sent.load(Relaxed);
        if !rare {
            return EndData {
                rows_sent,
                ..EndData::default()
            };
        }
        let diag = self.diag.load(Relaxed);
        let errno = diag as u32;
        let failed = errno != 0;
        EndData {
            rows_sent,
            rows_affected: self.rows_affected.load(Relaxed),
            errno,
            warnings: (diag >> 32) as u32,
            lock_ps: self.lock_ps.load(Relaxed),
            sqlstate: failed.then(|| {
                let b = self.sqlstate.load(Relaxed).to_le_bytes();
                let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                String::from_utf8_lossy(&b[..n]).into_owned()
            }),
            message: failed.then(|| self.message.read()),
        }
    }

    /// Copy `from` (a finished statement's) into this one (the `history_long` copy).
    fn copy_from(&self, event_id: u64, from: &ExtraData) {
        self.write(|x| {
            x.text_event
                .store(if from.text.is_some() { event_id } else { 0 }, Relaxed);
            if let Some(t) = &from.text {
                x.text.write(t);
            }
        });
        match &from.end {
            Some(e) => {
                self.end_tag.store(0, Relaxed);
                fence(Ordering::Release);
                self.rows_sent.store(e.rows_sent, Relaxed);
                self.rows_affected.store(e.rows_affected, Relaxed);
                self.diag
                    .store(e.errno as u64 | (e.warnings as u64) << 32, Relaxed);
                self.lock_ps.store(e.lock_ps, Relaxed);
                if e.errno != 0 {
                    let state = e.sqlstate.as_deref().unwrap_or("");
                    let message = e.message.as_deref().unwrap_or("");
                    self.set_error(&StatementOutcome::error(e.errno, state, message));
                }
                self.end_tag.store(event_id << 1 | 1, Ordering::Release);
            }
            None => self.end_tag.store(0, Relaxed),
        }
    }

    /// Forget (a truncate, or a slot handed to a new thread).
    pub(crate) fn clear(&self) {
        self.write(|x| x.text_event.store(0, Relaxed));
        self.end_tag.store(0, Relaxed);
    }
}

/// The extras of a statements log's records.
pub(crate) fn extras(n: usize) -> Box<[StatementExtra]> {
    (0..n).map(|_| StatementExtra::default()).collect()
}

/// The `history_long` ring's extras, one per slot of the statements ring.
fn long_extras() -> &'static [StatementExtra] {
    static LONG: OnceLock<Box<[StatementExtra]>> = OnceLock::new();
    LONG.get_or_init(|| extras(long_rings()[2].len()))
}

/// The extras of the `history_long` slot `i`, if allocated (reads).
pub(crate) fn long_extra(i: usize) -> Option<&'static StatementExtra> {
    long_extras().get(i)
}

/// A statement's `SQL_TEXT` (the owner, while it is in progress).
pub(crate) fn set_sql_text(a: &Active, text: &str) {
    if let Some(x) = a.claim.and_then(|c| a.t.statements.get(c.index() as usize)) {
        x.set_text(a.event_id, text);
    }
}

/// A statement ends with `o`: its record's extra, and its digest's sums when the digest is
/// summarized (`F_DIGEST`). Called before the event's own end (`record::end_event`). The
/// common end (rows sent, nothing else, no metadata lock wait since the last statement) is one
/// test, then `ROWS_SENT`, `SUM_ROWS_SENT` and `LAST_SEEN`; the others take [`end_rare`].
#[inline]
pub(crate) fn end(a: &Active, o: &StatementOutcome<'_>, digest_on: bool) {
    let wait_end = a.t.lock_wait_end.load(Relaxed);
    if (o.rows_affected() | o.diag() | wait_end) != 0 {
        return end_rare(a, o, digest_on, wait_end);
    }
    if let Some(x) = a.claim.and_then(|c| a.t.statements.get(c.index() as usize)) {
        x.set_end(a.event_id, o, 0, false);
    }
    if let (true, Some(d)) = (digest_on, a.digest) {
        if let Some(s) = a.t.digest_sums.get(d.index as usize) {
            s.add(o, 0, a.start, false);
        }
    }
}

/// [`end`] of a statement with rows affected, an error or warnings, or after a metadata lock
/// wait (`wait_end`, its end: not 0).
#[cold]
#[inline(never)]
fn end_rare(a: &Active, o: &StatementOutcome<'_>, digest_on: bool, wait_end: u64) {
    let lock_ps = match wait_end {
        0 => 0,
        w => lock_time(a, w),
    };
    let rare = is_rare(o, lock_ps);
    if let Some(x) = a.claim.and_then(|c| a.t.statements.get(c.index() as usize)) {
        x.set_end(a.event_id, o, lock_ps, rare);
    }
    if let (true, Some(d)) = (digest_on, a.digest) {
        if let Some(s) = a.t.digest_sums.get(d.index as usize) {
            s.add(o, lock_ps, a.start, rare);
        }
    }
}

/// Whether a statement's end has anything but `ROWS_SENT` to write (one test for the end and
/// the sums).
#[inline(always)]
fn is_rare(o: &StatementOutcome<'_>, lock_ps: u64) -> bool {
    (o.rows_affected() | o.diag() | lock_ps) != 0
}

/// `LOCK_TIME` of the statement `a` (picoseconds): from its start to `wait_end`, the end of the
/// last metadata lock wait (`F_LOCK_WAIT`) on its thread, if that wait ended after the
/// statement began (0 otherwise: a wait outside any statement, or before this one). The wait
/// is taken: the next statement looks only at waits after it.
fn lock_time(a: &Active, wait_end: u64) -> u64 {
    a.t.lock_wait_end.store(0, Relaxed);
    if a.flags & F_TIMED == 0 {
        return 0;
    }
    // Waits and statements may be timed with different clocks (`setup_timers`).
    let clock = |f: u32| match f & F_CYCLES {
        0 => Clock::Nanosecond,
        _ => Clock::Cycle,
    };
    let waits = clock(a.t.lock_wait_flags.load(Relaxed));
    let start = stamp_to_ps(a.start, clock(a.flags));
    stamp_to_ps(wait_end, waits).saturating_sub(start)
}

/// Copies the extra of the finished statement in `log`'s record `index` into `history_long`
/// slot `slot`.
pub(crate) fn push_long(t_extras: &[StatementExtra], index: usize, event_id: u64, slot: usize) {
    let Some(from) = t_extras.get(index).and_then(|x| x.read(event_id)) else {
        return;
    };
    if let Some(to) = long_extras().get(slot) {
        to.copy_from(event_id, &from);
    }
}

/// Clears the `history_long` extras (truncate).
pub(crate) fn clear_long() {
    for x in long_extras() {
        x.clear();
    }
}

/// A digest's sums on one thread, beyond its [`super::stats::StatCell`]: written by the thread
/// only, relaxed load + store (see `stats.rs`).
#[derive(Debug, Default)]
pub(crate) struct SumCell {
    lock_ps: AtomicU64,
    errors: AtomicU64,
    warnings: AtomicU64,
    rows_affected: AtomicU64,
    rows_sent: AtomicU64,
    /// The start (`TIMER_START`, statement clock ticks; 0 = none) of the first statement and of
    /// the last one: `FIRST_SEEN`, `LAST_SEEN`.
    first: AtomicU64,
    last: AtomicU64,
}

/// A copied [`SumCell`], or their sum over threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sums {
    pub lock_ps: u64,
    pub errors: u64,
    pub warnings: u64,
    pub rows_affected: u64,
    pub rows_sent: u64,
    /// Statement clock ticks; 0 = never.
    pub first: u64,
    pub last: u64,
}

#[inline(always)]
fn bump(c: &AtomicU64, v: u64) {
    c.store(c.load(Relaxed).wrapping_add(v), Relaxed);
}

impl SumCell {
    /// A statement started at `start` ended with `o`: `ROWS_SENT` and `LAST_SEEN` stored, the
    /// rest (and `FIRST_SEEN`, once) only when `rare` or the cell is new.
    #[inline(always)]
    fn add(&self, o: &StatementOutcome<'_>, lock_ps: u64, start: u64, rare: bool) {
        bump(&self.rows_sent, o.rows_sent());
        self.last.store(start, Relaxed);
        if rare || self.first.load(Relaxed) == 0 {
            self.add_rare(o, lock_ps, start);
        }
    }

    #[cold]
    #[inline(never)]
    fn add_rare(&self, o: &StatementOutcome<'_>, lock_ps: u64, start: u64) {
        bump(&self.rows_affected, o.rows_affected());
        bump(&self.lock_ps, lock_ps);
        bump(&self.errors, u64::from(o.errno() != 0));
        bump(&self.warnings, u64::from(o.warning_count()));
        if self.first.load(Relaxed) == 0 {
            self.first.store(start.max(1), Relaxed);
        }
    }

    pub(crate) fn snapshot(&self) -> Sums {
        Sums {
            lock_ps: self.lock_ps.load(Relaxed),
            errors: self.errors.load(Relaxed),
            warnings: self.warnings.load(Relaxed),
            rows_affected: self.rows_affected.load(Relaxed),
            rows_sent: self.rows_sent.load(Relaxed),
            first: self.first.load(Relaxed),
            last: self.last.load(Relaxed),
        }
    }

    pub(crate) fn reset(&self) {
        for c in [
            &self.lock_ps,
            &self.errors,
            &self.warnings,
            &self.rows_affected,
            &self.rows_sent,
            &self.first,
            &self.last,
        ] {
            c.store(0, Relaxed);
        }
    }
}

impl Sums {
    pub(crate) fn merge(&mut self, o: &Sums) {
        self.lock_ps = self.lock_ps.wrapping_add(o.lock_ps);
        self.errors = self.errors.wrapping_add(o.errors);
        self.warnings = self.warnings.wrapping_add(o.warnings);
        self.rows_affected = self.rows_affected.wrapping_add(o.rows_affected);
        self.rows_sent = self.rows_sent.wrapping_add(o.rows_sent);
        if o.first != 0 && (self.first == 0 || o.first < self.first) {
            self.first = o.first;
        }
        self.last = self.last.max(o.last);
    }
}

/// The per-thread sum cells of `n` digests.
pub(crate) fn sum_cells(n: usize) -> Box<[SumCell]> {
    (0..n).map(|_| SumCell::default()).collect()
}

/// A statement-clock stamp as MySQL's `TIMESTAMP(6)` text, UTC: `2026-11-27 09:30:00.123456`.
pub(crate) fn stamp_datetime(stamp: u64, clock: Clock) -> String {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let now = match clock {
        Clock::Cycle => super::timer::rdtsc(),
        Clock::Nanosecond => super::timer::ns_now(),
    };
    let now_ps = stamp_to_ps(now, clock);
    let ago = Duration::from_nanos(now_ps.saturating_sub(stamp_to_ps(stamp, clock)) / 1000);
    let at = SystemTime::now()
        .checked_sub(ago)
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .unwrap_or_default();
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
    use super::*;

    #[test]
    fn text_round_trips_and_is_cut() {
        let x = StatementExtra::default();
        x.set_text(7, "SELECT 1");
        assert_eq!(x.read(7).unwrap().text.as_deref(), Some("SELECT 1"));
        assert_eq!(
            x.read(8).unwrap().text,
            None,
            "another event's text is not shown"
        );
        let long = "é".repeat(MAX_SQL_TEXT);
        x.set_text(9, &long);
        let t = x.read(9).unwrap().text.unwrap();
        assert_eq!(t.len(), MAX_SQL_TEXT);
        assert!(long.starts_with(&t));
        x.set_text(10, "");
        assert_eq!(x.read(10).unwrap().text.as_deref(), Some(""));
    }

    #[test]
    fn end_fields_belong_to_their_event() {
        let x = StatementExtra::default();
        let o = StatementOutcome::ok(5, 2).warnings(1);
        x.set_end(3, &o, 1000, is_rare(&o, 1000));
        let e = x.read(3).unwrap().end.unwrap();
        assert_eq!(
            (e.rows_sent, e.rows_affected, e.warnings, e.errno, e.lock_ps),
            (5, 2, 1, 0, 1000)
        );
        assert_eq!((e.sqlstate, e.message), (None, None));
        let msg = "m".repeat(300);
        let o = StatementOutcome::error(1146, "42S02", &msg);
        x.set_end(4, &o, 0, is_rare(&o, 0));
        let e = x.read(4).unwrap().end.unwrap();
        assert_eq!((e.errno, e.sqlstate.as_deref()), (1146, Some("42S02")));
        assert_eq!(e.message.unwrap().len(), MAX_MESSAGE_TEXT);
        assert!(x.read(3).unwrap().end.is_none());
        x.clear();
        assert_eq!(x.read(4).unwrap(), ExtraData::default());
    }

    #[test]
    fn sums_add_and_merge() {
        let c = SumCell::default();
        let add = |o: &StatementOutcome<'_>, lock_ps: u64, start: u64| {
            c.add(o, lock_ps, start, is_rare(o, lock_ps));
        };
        add(&StatementOutcome::ok(3, 0), 0, 100);
        // Not rare: only ROWS_SENT and LAST_SEEN.
        add(&StatementOutcome::ok(1, 0), 0, 150);
        add(
            &StatementOutcome::error(1064, "42000", "x").warnings(2),
            50,
            200,
        );
        add(&StatementOutcome::ok(0, 4), 0, 210);
        let s = c.snapshot();
        assert_eq!(
            (
                s.rows_sent,
                s.rows_affected,
                s.errors,
                s.warnings,
                s.lock_ps,
                s.first,
                s.last
            ),
            (4, 4, 1, 2, 50, 100, 210)
        );
        let mut m = Sums::default();
        m.merge(&s);
        m.merge(&Sums {
            first: 50,
            last: 60,
            ..Sums::default()
        });
        assert_eq!((m.first, m.last), (50, 210));
        c.reset();
        assert_eq!(c.snapshot(), Sums::default());
    }

    #[test]
    fn days_become_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_454), (2026, 1, 1));
        assert_eq!(civil(-1), (1969, 12, 31));
        assert_eq!(civil(11_016), (2000, 2, 29));
    }
}
