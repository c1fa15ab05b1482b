//! What a wait reports, for blocking and async waits alike: the `pfs` wait event
//! (`wait/lock/metadata/sql/mdl`, feature `pfs`) and a `tracing` span (feature `tracing`). One
//! [`WaitTelemetry`] begins with the wait (`begin_wait`, right after the request queued) and ends
//! with it (`end_wait`, `cancel_wait`, or dropped while unwinding), whoever runs those.
//!
//! # The pfs event: on which thread
//!
//! * A context bound to a session thread (`MdlContext::bind_pfs_thread`) records its
//!   waits on that session, whichever OS thread or worker begins and ends them: shown in its
//!   `events_waits_current` while pending, then in its history and summaries.
//! * Otherwise a blocking wait is recorded on the current pfs thread (the OS thread that waits,
//!   or a session entered on it), where it also ends.
//! * Otherwise an async wait is recorded on the session entered on the polling thread, if any
//!   (a task wrapped in `SessionThread::instrument`); else it is timed from its start and
//!   recorded when it ends, on the pfs thread current there (not shown while pending: no
//!   thread owns it in between).
//!
//! The event is a `pfs::PendingWait` (`Send`), so it lives in the wait's state whether a thread
//! or a future waits.
//!
//! # The tracing span
//!
//! `mdl_wait` at DEBUG level, target `mdl_core::wait`: the object, lock type and lock duration,
//! the waiting context, the blockers when the wait began, and at the end its outcome and how
//! long it waited (`waited_us`). A disabled span costs the level check (a load and a branch,
//! against `tracing`'s global max level) and the callsite's cached interest; the blockers are
//! read only for an enabled span. This crate never sets `tracing`'s `max_level_*` features.

use std::sync::Arc;
use std::time::Duration;

use crate::instrument::ContextRows;
use crate::lock::LockObject;
use crate::types::{LockDuration, LockType};
use crate::wait::WaitEnd;

/// Where a wait is: what [`WaitTelemetry::begin`] needs to know.
#[cfg_attr(not(all(feature = "pfs", feature = "tracing")), allow(dead_code))]
pub(crate) struct WaitSite<'a> {
    pub(crate) lock: &'a Arc<LockObject>,
    pub(crate) ty: LockType,
    pub(crate) duration: LockDuration,
    /// The waiting context's id and serial.
    pub(crate) context: u64,
    pub(crate) serial: u64,
    /// The session thread the context is bound to, if any.
    pub(crate) session: &'a Session,
    /// A blocked thread's wait (it ends on this OS thread), not a future's.
    pub(crate) blocking: bool,
}

/// The session thread a context's waits are recorded on
/// (`MdlContext::bind_pfs_thread`); zero-sized without `pfs`.
#[derive(Default)]
pub(crate) struct Session {
    #[cfg(feature = "pfs")]
    pub(crate) thread: Option<pfs::SessionThread>,
}

impl Session {
    /// A wait begins in the context: an unbound context's `metadata_locks.OWNER_THREAD_ID`
    /// becomes the pfs thread that waits (a bound one's stays its session's).
    #[inline]
    pub(crate) fn note_wait(&self, rows: &ContextRows) {
        #[cfg(feature = "pfs")]
        if self.thread.is_none() {
            rows.set_thread(pfs::current_thread_id());
        }
        let _ = rows;
    }
}

/// The telemetry of one wait in progress (see the module docs). `Send`.
#[derive(Default)]
pub(crate) struct WaitTelemetry {
    #[cfg(feature = "pfs")]
    event: Option<pfs::PendingWait>,
    /// Boxed, and only while the span is enabled: a disabled span adds one word to the wait's
    /// state, which is moved around, and nothing to drop.
    #[cfg(feature = "tracing")]
    span: Option<Box<tracing::Span>>,
}

impl WaitTelemetry {
    /// Begins the telemetry of a wait that has just queued.
    #[inline]
    pub(crate) fn begin(site: WaitSite<'_>) -> WaitTelemetry {
        #[cfg(not(any(feature = "pfs", feature = "tracing")))]
        let _ = site;
        WaitTelemetry {
            #[cfg(feature = "pfs")]
            event: Some(pfs_event(&site)),
            #[cfg(feature = "tracing")]
            span: span(&site),
        }
    }

    /// Ends it with the wait's outcome, after `waited`.
    #[inline]
    #[cfg_attr(not(any(feature = "pfs", feature = "tracing")), allow(unused_mut))]
    pub(crate) fn end(mut self, end: WaitEnd, waited: Duration) {
        #[cfg(feature = "pfs")]
        drop(self.event.take());
        #[cfg(feature = "tracing")]
        if let Some(span) = self.span.take() {
            span.record("outcome", end.name());
            span.record("waited_us", waited.as_micros() as u64);
        }
        let _ = (end, waited);
    }
}

#[cfg(feature = "pfs")]
fn pfs_event(site: &WaitSite<'_>) -> pfs::PendingWait {
    let on = match (site.session.thread.as_ref(), site.blocking) {
        (Some(s), _) => pfs::WaitOn::Session(s),
        (None, true) => pfs::WaitOn::Current,
        (None, false) => pfs::WaitOn::Ending,
    };
    let class = crate::sync::class_of(crate::sync::Site::Metadata);
    pfs::wait_start_on(class, Arc::as_ptr(site.lock) as usize, on)
}

/// The wait's span, if DEBUG is enabled at all: the check is `tracing`'s global max level (a
/// load and a branch, inlined); the span itself is made out of line.
#[cfg(feature = "tracing")]
#[inline(always)]
fn span(site: &WaitSite<'_>) -> Option<Box<tracing::Span>> {
    use tracing::level_filters::{LevelFilter, STATIC_MAX_LEVEL};
    const LEVEL: tracing::Level = tracing::Level::DEBUG;
    if LEVEL > STATIC_MAX_LEVEL || LEVEL > LevelFilter::current() {
        return None;
    }
    new_span(site)
}

#[cfg(feature = "tracing")]
#[inline(never)]
fn new_span(site: &WaitSite<'_>) -> Option<Box<tracing::Span>> {
    let span = tracing::debug_span!(
        target: "mdl_core::wait",
        "mdl_wait",
        object = %site.lock.key,
        lock_type = site.ty.pfs_name(),
        lock_duration = site.duration.pfs_name(),
        context = site.context,
        blockers = tracing::field::Empty,
        outcome = tracing::field::Empty,
        waited_us = tracing::field::Empty,
    );
    if span.is_disabled() {
        return None;
    }
    record_blockers(&span, site);
    Some(Box::new(span))
}

/// The blockers when the wait began, for an enabled span.
#[cfg(feature = "tracing")]
#[cold]
fn record_blockers(span: &tracing::Span, site: &WaitSite<'_>) {
    let blockers = {
        let st = site.lock.state.read_recursive();
        site.lock.blockers(&st, site.serial, site.ty)
    };
    let text: Vec<String> = blockers.iter().map(ToString::to_string).collect();
    span.record("blockers", text.join("; "));
}

// A wait's state moves between a runtime's workers.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<WaitTelemetry>();
};
