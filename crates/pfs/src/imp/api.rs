//! The types the crate root re-exports ([`ClassRef`], [`DigestRef`], [`EventGuard`]) and the
//! event entry points, instrumented. `crate::noop` has the same items, inert.
//!
//! The disabled path of an event start is one relaxed load of the class's derived flags and a
//! branch, inlined at the caller; everything else is out of line.

use std::marker::PhantomData;
use std::sync::atomic::Ordering;

use super::classes::*;
use super::limits::LOST;
use super::record::{self, Active};
use super::setup::register_class_info;
use super::thread;
use crate::kinds::{ClassKind, Operation};

/// A registered instrument class. `Copy`, `'static`, one pointer wide (zero-sized when the
/// instrumentation is compiled out).
#[derive(Clone, Copy)]
pub struct ClassRef(pub(crate) &'static ClassInfo);

impl ClassRef {
    /// Do events of this class get recorded on the calling thread? The class switch, the
    /// master switch, `global_instrumentation`, the compiled-in kinds and the thread's
    /// `INSTRUMENTED` switch all say yes. One relaxed load when the class is disabled (as
    /// before any thread switch existed); a call that reads the thread's mask when it is
    /// enabled.
    #[inline]
    pub fn enabled(&self) -> bool {
        let f = self.0.flags.load(Ordering::Relaxed);
        f & F_ENABLED != 0 && on_this_thread(f, F_ENABLED)
    }

    /// Is the instrument enabled, whatever the calling thread's `INSTRUMENTED` switch? The class
    /// switch, the master switch, `global_instrumentation` and the compiled-in kinds say yes.
    /// One relaxed load, inlined. For rows that describe objects rather than events of a
    /// thread: MySQL creates a `metadata_locks` row whenever `wait/lock/metadata/sql/mdl` is
    /// enabled, without looking at the thread's switch (`pfs_create_metadata_lock_v1` in MySQL's
    /// `storage/perfschema/pfs.cc`).
    #[inline]
    pub fn instrument_enabled(&self) -> bool {
        self.0.flags.load(Ordering::Relaxed) & F_ENABLED != 0
    }

    /// Is the class enabled on the calling thread, and timed?
    #[inline]
    pub fn timed(&self) -> bool {
        let f = self.0.flags.load(Ordering::Relaxed);
        f & F_TIMED != 0 && on_this_thread(f, F_ENABLED | F_TIMED)
    }

    /// The full instrument name (`"lost"` for the placeholder of a full class buffer).
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The class kind.
    pub fn kind(&self) -> ClassKind {
        self.0.kind()
    }

    /// Was this class lost because the class buffer was full? (It is then never enabled.)
    pub fn is_lost(&self) -> bool {
        !self.0.is_registered()
    }

    /// A placeholder class that is never enabled.
    pub fn disabled() -> ClassRef {
        ClassRef(&LOST_CLASS)
    }
}

/// Does the calling thread's mask keep every bit of `bits` in `f`? Out of line, so the
/// disabled check stays one load and a branch at every caller.
#[inline(never)]
fn on_this_thread(f: u32, bits: u32) -> bool {
    thread::current().is_some_and(|t| f & t.mask() & bits == bits)
}

impl PartialEq for ClassRef {
    fn eq(&self, other: &ClassRef) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for ClassRef {}

impl std::fmt::Debug for ClassRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassRef")
            .field("name", &self.name())
            .field("kind", &self.kind())
            .field("enabled", &self.enabled())
            .field("timed", &self.timed())
            .finish()
    }
}

pub(crate) fn register_class(kind: ClassKind, name: &str) -> ClassRef {
    ClassRef(register_class_info(kind, name))
}

/// An interned statement digest text ([`crate::register_digest`]); empty when the digest
/// buffer was full.
#[derive(Clone, Copy, Default)]
pub struct DigestRef(pub(crate) Option<&'static DigestInfo>);

impl DigestRef {
    fn index(&self) -> Option<u32> {
        self.0.map(|d| d.index)
    }
}

impl PartialEq for DigestRef {
    fn eq(&self, other: &DigestRef) -> bool {
        self.index() == other.index()
    }
}

impl Eq for DigestRef {}

impl std::hash::Hash for DigestRef {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.index().hash(h)
    }
}

impl std::fmt::Debug for DigestRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self.0.and_then(|d| d.text.get());
        f.debug_tuple("DigestRef").field(&text).finish()
    }
}

pub(crate) fn register_digest(schema: Option<&str>, text: &str) -> DigestRef {
    DigestRef(classes().register_digest(schema, text))
}

/// An event in progress (wait, statement or stage); recorded when dropped or
/// [`end`](EventGuard::end)ed. Inert when the class was disabled at start (and zero-sized when
/// the instrumentation is compiled out). Not `Send`: an event starts and ends on one thread.
#[must_use = "the event ends when the guard is dropped"]
pub struct EventGuard {
    inner: Option<Active>,
    _not_send: PhantomData<*const ()>,
}

impl EventGuard {
    /// A guard that records nothing.
    #[inline]
    pub const fn inactive() -> EventGuard {
        EventGuard {
            inner: None,
            _not_send: PhantomData,
        }
    }

    /// A guard of a timed event without an event record, started now.
    #[inline(always)]
    fn timed(
        t: &'static thread::ThreadSlot,
        class: &'static ClassInfo,
        f: u32,
        digest: Option<&'static DigestInfo>,
    ) -> EventGuard {
        EventGuard {
            inner: Some(Active::timed(t, class, f, digest)),
            _not_send: PhantomData,
        }
    }

    /// Will this guard record an event?
    #[inline]
    pub fn is_active(&self) -> bool {
        self.inner.is_some()
    }

    /// End the event now (same as dropping the guard).
    #[inline]
    pub fn end(self) {}
}

impl Drop for EventGuard {
    #[inline]
    fn drop(&mut self) {
        if let Some(a) = &self.inner {
            record::end_event(a);
        }
    }
}

impl std::fmt::Debug for EventGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventGuard")
            .field("active", &self.is_active())
            .finish()
    }
}

/// Start an event of `class`: one load and a branch when the class is disabled; two more loads
/// (the thread's mask, through one thread-local pointer) when the thread is left out. All
/// inlined at the caller.
#[inline(always)]
pub(crate) fn start(
    class: ClassRef,
    op: Option<Operation>,
    object: u64,
    digest: DigestRef,
) -> EventGuard {
    let f = class.0.flags.load(Ordering::Relaxed);
    if f & F_ENABLED == 0 {
        return EventGuard::inactive();
    }
    let f = f & thread::mask();
    if f & F_ENABLED == 0 {
        return EventGuard::inactive();
    }
    let Some(t) = thread::live() else {
        return start_without_slot(class, op, object, digest);
    };
    if f & (F_TIMED | F_CURRENT) == 0 {
        // PFS's "complete shortcut": a counted-only event is one increment, no end call.
        record::count(t, class.0, f, digest.0);
        return EventGuard::inactive();
    }
    if f & F_CURRENT == 0 {
        return start_timed(t, class.0, f, digest.0);
    }
    start_recorded(t, class.0, f, op, object, digest.0)
}

/// [`start`] on a thread without a live slot: registers it (its first event) and starts
/// again under its own mask, or counts the event lost.
#[cold]
#[inline(never)]
fn start_without_slot(
    class: ClassRef,
    op: Option<Operation>,
    object: u64,
    digest: DigestRef,
) -> EventGuard {
    match thread::current() {
        Some(_) => start(class, op, object, digest),
        None => lost(),
    }
}

#[cold]
fn lost() -> EventGuard {
    LOST.locker.fetch_add(1, Ordering::Relaxed);
    EventGuard::inactive()
}

/// A timed event without an event record, out of line: the start time is all there is to
/// keep (one timer read). The nanosecond clock (a call) is read in [`start_timed_ns`], a tail
/// call, so that this function saves no registers.
#[inline(never)]
fn start_timed(
    t: &'static thread::ThreadSlot,
    class: &'static ClassInfo,
    f: u32,
    digest: Option<&'static DigestInfo>,
) -> EventGuard {
    if f & F_CYCLES == 0 {
        return start_timed_ns(t, class, f, digest);
    }
    EventGuard::timed(t, class, f, digest)
}

/// [`start_timed`] with the nanosecond clock.
#[inline(never)]
fn start_timed_ns(
    t: &'static thread::ThreadSlot,
    class: &'static ClassInfo,
    f: u32,
    digest: Option<&'static DigestInfo>,
) -> EventGuard {
    EventGuard::timed(t, class, f, digest)
}

/// An event with an event record (`events_*_current` on), out of line.
#[inline(never)]
fn start_recorded(
    t: &'static thread::ThreadSlot,
    class: &'static ClassInfo,
    f: u32,
    op: Option<Operation>,
    object: u64,
    digest: Option<&'static DigestInfo>,
) -> EventGuard {
    EventGuard {
        inner: Some(record::begin_event(t, class, f, op, object, digest)),
        _not_send: PhantomData,
    }
}

/// `$body` inside the event `$start` begins: the event ends when `$body` is done (behind the
/// `instrument_*!` macros).
#[doc(hidden)]
#[macro_export]
macro_rules! __in_event {
    ($start:expr, $body:expr) => {{
        let __pfs_guard = $start;
        let __pfs_result = $body;
        ::core::mem::drop(__pfs_guard);
        __pfs_result
    }};
}
