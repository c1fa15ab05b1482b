//! What a statement event carries besides its record (`events.rs`): `SQL_TEXT`, `LOCK_TIME`,
//! the counts and the diagnostics of its end (`crate::StatementOutcome`), and the digest sums
//! of `events_statements_summary_by_digest` (`SUM_LOCK_TIME`, `SUM_ERRORS`, ...,
//! `SUM_NO_INDEX_USED`, `LAST_SEEN`;
//! `FIRST_SEEN` is the digest's, set when a statement binds it: `record::digest_stat`).
//!
//! # Where it is kept
//!
//! A thread's statement records each have a [`StatementExtra`] beside them, the same index in
//! `ThreadSlot::statements` as the record in the statements log, and the `history_long` ring
//! has one per slot too (allocated when the first statement is copied there). Like a record,
//! an extra is written by its thread only and read over atomics: the text under a seqlock
//! (`seq`); the end in one word, `EVENT_ID << 24 | ROWS_SENT << 1 | rare`, which is the whole
//! end when `rare` is clear (the common end: rows sent, fewer than 2^23, and nothing else) and
//! else the sequence of the end's fields (cleared, the fields written, then set). The text is
//! kept in a fixed buffer of `u64` words (MySQL's `performance_schema_max_sql_text_length`
//! bytes per record, as MySQL allocates its own), so a statement allocates nothing. Each part
//! names the `EVENT_ID` it belongs to (the end word modulo 2^40), and a reader takes it only
//! for that event: an extra is written for some statements and not others (no text for a
//! prepared statement's execution, whose text is its digest's; no end for one that ended
//! without [`crate::PendingStatement::end_with`]), and a stale part is then not shown.
//!
//! A digest's sums are in its thread's [`DigestCell`] (`digest.rs`), beside the statistics
//! every statement with a digest writes: the same cache line, and no index or bounds check of
//! their own. The same sums by class (the statement summaries by event name) are derived from
//! the digests' on read, with what no bound digest holds in a cell per class
//! (`class_sums.rs`).
//!
//! # What a statement pays
//!
//! Nothing at its start unless it gives its text (`set_sql_text`: the text's words copied).
//! Its end (`record::end_statement`, instead of the plain end) tests once whether it has more
//! to say than `ROWS_SENT` ([`is_rare`]: rows affected, an error or warnings, what the engine
//! did (a full scan, a sort), a metadata lock wait since the last statement, or 2^23 rows,
//! or-ed); in the common case it then stores the
//! end word and adds `SUM_ROWS_SENT`; every statement with a digest stores `LAST_SEEN`. The
//! rest is behind that test, out of line ([`rare_end`]). No timer read: `LOCK_TIME` is the end
//! of the last metadata lock wait (timed anyway, for its own statistics; its end kept in the
//! thread's slot by `record.rs` on the wait's out-of-line end) less the statement's start.

use std::sync::atomic::{fence, AtomicU64, Ordering, Ordering::Relaxed};
use std::sync::OnceLock;

use super::classes::{F_CYCLES, F_TIMED};
use super::events::long_rings;
use super::record::Active;
use super::timer::stamp_to_ps;
use crate::kinds::Clock;
use crate::outcome::{truncated, StatementOutcome, MAX_MESSAGE_TEXT, MAX_SQL_TEXT};

mod class_sums;
mod digest;
pub(crate) use class_sums::{add_class, add_foreign, sums_cells, SumsCell};
pub(crate) use digest::{datetime, digest_cells, stamp_datetime, DigestCell, Sums};

/// The cells of `prepared_statements_instances`' rows (`prepared.rs`), allocated at the first
/// prepared statement: a statement event names its row's by index (`Active::prepared`, in
/// padding the record has anyway), and its end adds to it (`record::end_statement`).
pub(crate) static PREPARED_CELLS: OnceLock<Box<[DigestCell]>> = OnceLock::new();

/// The cell of row `index` (`Active::prepared`: its index + 1, 0 for none).
#[inline(always)]
pub(crate) fn prepared_cell(index: u32) -> Option<&'static DigestCell> {
    PREPARED_CELLS.get()?.get((index as usize).wrapping_sub(1))
}

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

/// The end word's layout: `EVENT_ID << EVENT_SHIFT | ROWS_SENT << 1 | rare`.
const EVENT_SHIFT: u32 = 24;
/// The `ROWS_SENT` that fit in the end word: below `1 << ROWS_BITS`.
const ROWS_BITS: u32 = EVENT_SHIFT - 1;
const ROWS_MASK: u64 = (1 << ROWS_BITS) - 1;
/// The bit of a rare end: its fields are in the [`StatementExtra`]'s words.
const RARE: u64 = 1;

/// The end word of event `event_id`, with `rows_sent` (below `1 << ROWS_BITS`) or `RARE`.
#[inline(always)]
fn end_word(event_id: u64, rows_sent: u64) -> u64 {
    event_id << EVENT_SHIFT | rows_sent << 1
}

/// Is `word` the end of `event_id` (compared modulo `1 << (64 - EVENT_SHIFT)`)?
fn is_end_of(word: u64, event_id: u64) -> bool {
    word >> EVENT_SHIFT == event_id & (u64::MAX >> EVENT_SHIFT)
}

/// What one statement record carries besides the record (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct StatementExtra {
    /// The end (see [`end_word`]): 0 for none, or while a rare end's fields are written.
    end: AtomicU64,
    /// The text's sequence.
    seq: AtomicU64,
    /// The EVENT_ID whose `SQL_TEXT` `text` is.
    text_event: AtomicU64,
    /// A rare end's fields.
    rows_sent: AtomicU64,
    rows_affected: AtomicU64,
    /// `MYSQL_ERRNO` (low half) and `WARNINGS` (high half).
    diag: AtomicU64,
    /// `LOCK_TIME`, picoseconds.
    lock_ps: AtomicU64,
    /// `NO_INDEX_USED`, `SELECT_SCAN`, `SORT_SCAN` (`outcome::engine_parts`).
    engine: AtomicU64,
    /// `RETURNED_SQLSTATE` (five bytes) and `MESSAGE_TEXT` of a failed statement.
    sqlstate: AtomicU64,
    message: TextBuf<MESSAGE_WORDS>,
    text: TextBuf<TEXT_WORDS>,
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
    /// The engine word (`outcome::engine_parts`).
    pub engine: u64,
    pub sqlstate: Option<String>,
    pub message: Option<String>,
}

impl StatementExtra {
    /// `SQL_TEXT` of event `event_id` (owner).
    pub(crate) fn set_text(&self, event_id: u64, text: &str) {
        let s = self.seq.load(Relaxed);
        self.seq.store(s.wrapping_add(1) | 1, Relaxed);
        fence(Ordering::Release);
        self.text_event.store(event_id, Relaxed);
        self.text.write(text);
        self.seq.store((s | 1).wrapping_add(1), Ordering::Release);
    }

    /// The common end of event `event_id` (owner): `rows_sent` below `1 << ROWS_BITS`, nothing
    /// else. One store.
    #[inline(always)]
    fn set_end(&self, event_id: u64, rows_sent: u64) {
        self.end
            .store(end_word(event_id, rows_sent), Ordering::Release);
    }

    /// Any other end (owner): the word cleared, the fields written, then the word set with
    /// `RARE` (a seqlock whose sequence is the word, see [`read_end`](Self::read_end)).
    #[cold]
    #[inline(never)]
    pub(crate) fn set_end_rare(&self, event_id: u64, e: &RareEnd<'_>) {
        self.end.store(0, Relaxed);
        fence(Ordering::Release);
        self.rows_sent.store(e.rows_sent, Relaxed);
        self.rows_affected.store(e.rows_affected, Relaxed);
        self.diag.store(e.diag, Relaxed);
        self.lock_ps.store(e.lock_ps, Relaxed);
        self.engine.store(e.engine, Relaxed);
        if e.diag as u32 != 0 {
            let mut a = [0u8; 8];
            let s = truncated(e.sqlstate, 5).as_bytes();
            a[..s.len()].copy_from_slice(s);
            self.sqlstate.store(u64::from_le_bytes(a), Relaxed);
            self.message.write(e.message);
        }
        self.end
            .store(end_word(event_id, 0) | RARE, Ordering::Release);
    }

    /// A consistent copy of what belongs to `event_id`, or `None` if still being written after
    /// a few tries.
    pub(crate) fn read(&self, event_id: u64) -> Option<ExtraData> {
        let text = self.read_text(event_id)?;
        let end = self.read_end(event_id);
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

    /// The end, if it is `event_id`'s: a common one is the word itself; a rare one's fields
    /// are copied between two equal reads of its word (set after them and cleared before the
    /// next rare end's, so the copy is whole).
    fn read_end(&self, event_id: u64) -> Option<EndData> {
        for _ in 0..16 {
            let w = self.end.load(Ordering::Acquire);
            if w == 0 {
                std::hint::spin_loop();
                continue;
            }
            if !is_end_of(w, event_id) {
                return None;
            }
            if w & RARE == 0 {
                let rows_sent = w >> 1 & ROWS_MASK;
                return Some(EndData {
                    rows_sent,
                    ..EndData::default()
                });
            }
            let d = self.load_rare();
            fence(Ordering::Acquire);
            if self.end.load(Relaxed) == w {
                return Some(d);
            }
        }
        // Cleared (a truncate, no end yet) or being written throughout.
        None
    }

    fn load_rare(&self) -> EndData {
        let diag = self.diag.load(Relaxed);
        let errno = diag as u32;
        let failed = errno != 0;
        EndData {
            rows_sent: self.rows_sent.load(Relaxed),
            rows_affected: self.rows_affected.load(Relaxed),
            errno,
            warnings: (diag >> 32) as u32,
            lock_ps: self.lock_ps.load(Relaxed),
            engine: self.engine.load(Relaxed),
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
        match &from.text {
            Some(t) => self.set_text(event_id, t),
            None => self.set_text(0, ""),
        }
        match &from.end {
            Some(e) => self.set_end_rare(
                event_id,
                &RareEnd {
                    rows_sent: e.rows_sent,
                    rows_affected: e.rows_affected,
                    diag: e.errno as u64 | (e.warnings as u64) << 32,
                    lock_ps: e.lock_ps,
                    engine: e.engine,
                    sqlstate: e.sqlstate.as_deref().unwrap_or(""),
                    message: e.message.as_deref().unwrap_or(""),
                },
            ),
            None => self.end.store(0, Relaxed),
        }
    }

    /// Forget (a truncate, or a slot handed to a new thread).
    pub(crate) fn clear(&self) {
        self.set_text(0, "");
        self.end.store(0, Relaxed);
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

/// Does the statement `a` ending with `o` have more to write than `ROWS_SENT` (below `1 <<
/// ROWS_BITS`)? Rows affected, an error or warnings, what the engine did, or a metadata lock
/// wait ended since the last statement took one: one test of the words or-ed.
#[inline(always)]
pub(crate) fn is_rare(a: &Active, o: &StatementOutcome<'_>) -> bool {
    (o.rows_affected()
        | o.diag()
        | o.engine_word()
        | o.rows_sent() >> ROWS_BITS
        | a.t.lock_wait_end.load(Relaxed))
        != 0
}

/// How an event ends: not a statement's `end_with`, or a statement's, common or [`is_rare`].
#[derive(Clone, Copy)]
pub(crate) enum End<'a> {
    None,
    Common(&'a StatementOutcome<'a>),
    Rare(&'a RareEnd<'a>),
}

/// The end of statement `a` in its record's extra (record `index`, still its own).
#[inline(always)]
pub(crate) fn end_extra(a: &Active, index: u32, e: &End<'_>) {
    let x = match e {
        End::None => return,
        _ => a.t.statements.get(index as usize),
    };
    match (x, e) {
        (Some(x), End::Common(o)) => x.set_end(a.event_id, o.rows_sent()),
        (Some(x), End::Rare(r)) => x.set_end_rare(a.event_id, r),
        _ => {}
    }
}

/// A statement's end when [`is_rare`], written to its record's extra in full (and added to
/// its digest's sums in full).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RareEnd<'a> {
    rows_sent: u64,
    rows_affected: u64,
    /// `MYSQL_ERRNO` (low half) and `WARNINGS` (high half).
    diag: u64,
    lock_ps: u64,
    /// The engine word (`outcome::engine_parts`).
    engine: u64,
    sqlstate: &'a str,
    message: &'a str,
}

/// The [`RareEnd`] of statement `a` ending with `o`, its `LOCK_TIME` taken.
pub(crate) fn rare_end<'a>(a: &Active, o: &StatementOutcome<'a>) -> RareEnd<'a> {
    let lock_ps = match a.t.lock_wait_end.load(Relaxed) {
        0 => 0,
        w => lock_time(a, w),
    };
    RareEnd {
        rows_sent: o.rows_sent(),
        rows_affected: o.rows_affected(),
        diag: o.diag(),
        lock_ps,
        engine: o.engine_word(),
        sqlstate: o.sqlstate(),
        message: o.message(),
    }
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

    pub(super) fn rare(o: &StatementOutcome<'_>, lock_ps: u64) -> RareEnd<'static> {
        let failed = o.errno() != 0;
        RareEnd {
            rows_sent: o.rows_sent(),
            rows_affected: o.rows_affected(),
            diag: o.diag(),
            lock_ps,
            engine: o.engine_word(),
            sqlstate: if failed { "42S02" } else { "" },
            message: if failed { "gone" } else { "" },
        }
    }

    #[test]
    fn end_fields_belong_to_their_event() {
        let x = StatementExtra::default();
        x.set_end(2, 7);
        let e = x.read(2).unwrap().end.unwrap();
        assert_eq!(
            e,
            EndData {
                rows_sent: 7,
                ..EndData::default()
            }
        );
        assert!(x.read(1).unwrap().end.is_none());
        x.set_end_rare(3, &rare(&StatementOutcome::ok(5, 2).warnings(1), 1000));
        let e = x.read(3).unwrap().end.unwrap();
        assert_eq!(
            (e.rows_sent, e.rows_affected, e.warnings, e.errno, e.lock_ps),
            (5, 2, 1, 0, 1000)
        );
        assert_eq!((e.sqlstate, e.message), (None, None));
        x.set_end_rare(4, &rare(&StatementOutcome::error(1146, "", ""), 0));
        let e = x.read(4).unwrap().end.unwrap();
        assert_eq!((e.errno, e.sqlstate.as_deref()), (1146, Some("42S02")));
        assert_eq!(e.message.as_deref(), Some("gone"));
        assert!(x.read(3).unwrap().end.is_none());
        // Past the end word's rows and event bits.
        let big = 1 << ROWS_BITS;
        x.set_end_rare(5, &rare(&StatementOutcome::ok(big, 0), 0));
        assert_eq!(x.read(5).unwrap().end.unwrap().rows_sent, big);
        let id = (1 << 40) + 6;
        x.set_end(id, ROWS_MASK);
        assert_eq!(x.read(id).unwrap().end.unwrap().rows_sent, ROWS_MASK);
        x.clear();
        assert_eq!(x.read(4).unwrap(), ExtraData::default());
    }
}
