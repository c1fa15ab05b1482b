//! Session threads and events that may end on another OS thread (behind
//! [`crate::SessionThread`], [`crate::PendingWait`] and [`crate::PendingStatement`]).
//!
//! A session thread is a thread slot (`thread.rs`) that belongs to no OS thread: it is taken
//! when the session starts and given back when its last handle drops. An OS thread *enters* it
//! for a scope by making it its current slot (the thread-local `CURRENT`, slot and mask, and the
//! current `THREAD_ID`), so every event started there is recorded on the session.
//!
//! Who writes a session slot: whoever has it entered, or ends a [`Pending`] event recorded on it.
//! The same single-writer rule as an OS thread's slot holds as long as a session is used by one
//! task or thread at a time (a connection's task is polled by one worker at a time, and the
//! executor orders one poll before the next); two OS threads using one session at once would
//! mix its statistics and event records (relaxed atomics: no undefined behaviour, no panic, as
//! PFS's own "just statistics, not facts" races).
//!
//! A pending event (a wait, or a statement of a session) may end on another OS thread than it
//! began on, so it is `Send`, unlike an `EventGuard`. Recorded on a slot (a session's, or the OS
//! thread's own when it ends there), its event record is written at the start and finished in
//! place at the end, as an `EventGuard`'s; shown in `events_*_current` while pending, and the
//! events begun on the slot meanwhile nest in it (a statement's metadata-lock wait names the
//! statement in `NESTING_EVENT_ID`). Begun on no thread ([`Target::Ending`] outside a session),
//! only its start time is kept, and the whole event is recorded, start to end, on the thread
//! current where it ends.

use std::sync::atomic::Ordering;

use super::api::{ClassRef, DigestRef};
use super::classes::{ClassInfo, DigestInfo, F_CURRENT, F_ENABLED, F_TIMED};
use super::record::{self, Active};
use super::thread::{self, ThreadSlot};
use super::timer::now;
use crate::kinds::Operation;

/// A session thread's slot (`None` when the thread buffer was full) and `THREAD_ID`.
pub(crate) struct SessionRecord {
    slot: Option<&'static ThreadSlot>,
    thread_id: u64,
    /// What entering it makes current (both, as the thread-locals hold them).
    entry: Entered,
}

impl SessionRecord {
    pub(crate) fn new(name: &str, processlist_id: u64) -> SessionRecord {
        let thread_id = crate::thread_id::next();
        let slot = thread::register_session(thread_id, name, processlist_id);
        SessionRecord {
            slot,
            thread_id,
            entry: Entered::session(slot, thread_id),
        }
    }

    pub(crate) fn thread_id(&self) -> u64 {
        self.thread_id
    }

    /// Its slot (`None` when the thread buffer was full).
    pub(crate) fn slot(&self) -> Option<&'static ThreadSlot> {
        self.slot
    }

    pub(crate) fn set_account(&self, user: &str, host: &str) -> bool {
        self.slot
            .map(|t| thread::set_slot_account(t, user, host))
            .is_some()
    }

    /// `crate::SessionThread::error_raised`.
    pub(crate) fn error_raised(&self, errno: u32, count: u64) {
        if let Some(t) = self.slot {
            super::errors::raised(t, errno, count);
        }
    }

    /// Makes this session the current thread of the calling OS thread until [`leave`].
    #[inline]
    pub(crate) fn enter(&self) -> Entered {
        thread::enter(&self.entry)
    }
}

impl Drop for SessionRecord {
    fn drop(&mut self) {
        if let Some(t) = self.slot {
            thread::release_session(t);
        }
    }
}

/// What entering a session replaced on the OS thread.
pub(crate) use thread::Entered;

/// Ends what [`SessionRecord::enter`] began.
#[inline]
pub(crate) fn leave(e: &Entered) {
    thread::leave(e);
}

/// Where a pending event is recorded (see `crate::WaitOn`).
pub(crate) enum Target<'a> {
    Session(&'a SessionRecord),
    Current,
    Ending,
}

/// An event in progress that may end on another OS thread.
pub(crate) enum Pending {
    /// Not recorded (disabled, left out, lost, or counted at its start).
    Inert,
    /// Recorded on a slot: ended there.
    OnSlot(Active),
    /// Begun on no thread: recorded where it ends.
    Detached { event: What, flags: u32, start: u64 },
}

/// What a pending event is: its class, operation, object and digest.
#[derive(Clone, Copy)]
pub(crate) struct What {
    class: &'static ClassInfo,
    op: Option<Operation>,
    object: u64,
    digest: Option<&'static DigestInfo>,
}

impl Pending {
    pub(crate) fn is_active(&self) -> bool {
        !matches!(self, Pending::Inert)
    }

    /// A statement's `SQL_TEXT` (recorded on a slot only: a detached event has no record yet).
    pub(crate) fn set_sql_text(&self, text: &str) {
        if let Pending::OnSlot(a) = self {
            super::statement::set_sql_text(a, text);
        }
    }

    /// The statement executes the prepared statement of row `p` (its index + 1, 0 for none:
    /// `prepared.rs`): its end adds to it. One store.
    #[inline(always)]
    pub(crate) fn set_prepared(&mut self, p: u32) {
        if let Pending::OnSlot(a) = self {
            a.prepared = p;
        }
    }

    /// Ends a statement with what it did (`crate::PendingStatement::end_with`): one end, as
    /// its drop's, that also writes the outcome (`record::end_statement`).
    #[inline]
    pub(crate) fn end_with(self, o: &crate::StatementOutcome<'_>) {
        let this = std::mem::ManuallyDrop::new(self);
        match &*this {
            // An `Active` owns nothing: not dropping it leaks nothing.
            Pending::OnSlot(a) => {
                record::end_statement(a, o);
            }
            _ => drop(std::mem::ManuallyDrop::into_inner(this)),
        }
    }

    /// Ends a statement of session `s` that was its own transaction (autocommit): its end as
    /// [`end_with`](Self::end_with)'s, then the transaction, recorded whole with the
    /// statement's timer readings (`transaction::after_statement`).
    #[inline]
    pub(crate) fn end_autocommit(
        self,
        o: &crate::StatementOutcome<'_>,
        s: &SessionRecord,
        mode: crate::TransactionMode,
        state: crate::TransactionState,
    ) {
        let this = std::mem::ManuallyDrop::new(self);
        match &*this {
            Pending::OnSlot(a) => {
                let end = record::end_statement(a, o);
                super::transaction::after_statement(a, end, mode, state);
            }
            _ => {
                drop(std::mem::ManuallyDrop::into_inner(this));
                if let Some(t) = s.slot {
                    super::transaction::alone(t, mode, state);
                }
            }
        }
    }
}

/// Begins a pending wait of `class` on `object`: when the class is disabled, one relaxed load.
#[inline]
pub(crate) fn begin(class: ClassRef, object: u64, target: Target<'_>) -> Pending {
    begin_event(class, None, object, DigestRef::default(), target)
}

/// Begins a pending statement of `class` with `digest` (`Operation::Statement`, no object) on
/// session `s` (`SessionThread::statement_start`): as [`begin`] on `Target::Session`, with no
/// target to dispatch on nor event to describe (once per statement of a connection).
#[inline(always)]
pub(crate) fn begin_statement(class: ClassRef, digest: DigestRef, s: &SessionRecord) -> Pending {
    let f = class.0.flags.load(Ordering::Relaxed);
    if f & F_ENABLED == 0 {
        return Pending::Inert;
    }
    begin_on_slot(class.0, digest.0, f, s.slot)
}

/// The common start (a timed statement class on a session with a slot) reads the clock and
/// writes the record inline, calling nothing; the rest is [`begin_on_slot_other`]. Inlined
/// into the server's statement, whose registers are saved anyway: out of line, saving and
/// restoring its own cost 16 of its 98 instructions per statement.
#[inline(always)]
fn begin_on_slot(
    class: &'static ClassInfo,
    digest: Option<&'static DigestInfo>,
    f: u32,
    slot: Option<&'static ThreadSlot>,
) -> Pending {
    let Some(t) = slot else {
        super::limits::LOST.locker.fetch_add(1, Ordering::Relaxed);
        return Pending::Inert;
    };
    let f = f & t.mask();
    if f & F_ENABLED != 0 && record::statement_cycles(f) {
        return Pending::OnSlot(record::begin_statement(t, class, f, digest));
    }
    begin_on_slot_other(class, digest, f, t)
}

/// [`begin_on_slot`] disabled on the thread, counted only, with the nanosecond clock or
/// untimed, or for a class that is not a statement's.
#[inline(never)]
fn begin_on_slot_other(
    class: &'static ClassInfo,
    digest: Option<&'static DigestInfo>,
    f: u32,
    t: &'static ThreadSlot,
) -> Pending {
    if f & F_ENABLED == 0 {
        return Pending::Inert;
    }
    if f & (F_TIMED | F_CURRENT) == 0 {
        record::count(t, class, f, digest);
        return Pending::Inert;
    }
    let op = Some(Operation::Statement);
    Pending::OnSlot(record::begin(t, class, f, op, 0, digest))
}

#[inline(always)]
fn begin_event(
    class: ClassRef,
    op: Option<Operation>,
    object: u64,
    digest: DigestRef,
    target: Target<'_>,
) -> Pending {
    let f = class.0.flags.load(Ordering::Relaxed);
    if f & F_ENABLED == 0 {
        return Pending::Inert;
    }
    let event = What {
        class: class.0,
        op,
        object,
        digest: digest.0,
    };
    begin_enabled(event, f, target)
}

#[inline(never)]
fn begin_enabled(event: What, f: u32, target: Target<'_>) -> Pending {
    let slot = match target {
        Target::Session(s) => s.slot,
        Target::Current => thread::current(),
        Target::Ending if thread::in_session() => thread::current(),
        Target::Ending => {
            let start = if f & F_TIMED != 0 { now(f) } else { 0 };
            return Pending::Detached {
                event,
                flags: f,
                start,
            };
        }
    };
    let Some(t) = slot else {
        super::limits::LOST.locker.fetch_add(1, Ordering::Relaxed);
        return Pending::Inert;
    };
    let f = f & t.mask();
    if f & F_ENABLED == 0 {
        return Pending::Inert;
    }
    let What {
        class,
        op,
        object,
        digest,
    } = event;
    if f & (F_TIMED | F_CURRENT) == 0 {
        record::count(t, class, f, digest);
        return Pending::Inert;
    }
    Pending::OnSlot(record::begin(t, class, f, op, object, digest))
}

impl Drop for Pending {
    fn drop(&mut self) {
        match self {
            Pending::Inert => {}
            Pending::OnSlot(a) => record::end_event(a),
            Pending::Detached {
                event,
                flags,
                start,
            } => end_detached(event, *flags, *start),
        }
    }
}

/// Records, on the thread current here, an event that began on no thread at `start`.
#[inline(never)]
fn end_detached(event: &What, f: u32, start: u64) {
    let Some(t) = thread::current() else {
        super::limits::LOST.locker.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let f = f & t.mask();
    if f & F_ENABLED == 0 {
        return;
    }
    let What {
        class,
        op,
        object,
        digest,
    } = *event;
    if f & (F_TIMED | F_CURRENT) == 0 {
        record::count(t, class, f, digest);
        return;
    }
    record::end_event(&record::begin_with_start(
        t, class, f, op, object, digest, start,
    ));
}
