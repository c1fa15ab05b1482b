//! Session threads: pfs threads that are not OS threads.
//!
//! A server that runs its connections as async tasks has no OS thread per session: a task runs
//! on whichever worker polls it. MySQL's thread pool has the same problem and answers it the same
//! way: each connection owns a `PFS_thread`, and a worker that picks the connection up makes it
//! the current instrumented thread for as long as it works for it (`PSI_THREAD_CALL(set_thread)`
//! in the pool's event handler). Here a [`SessionThread`] is such a thread: it has its own
//! `THREAD_ID`, a row in [`crate::threads`] (with `PROCESSLIST_ID`, the account, `TYPE =
//! FOREGROUND`), its own statistics and event logs; [`SessionThread::enter`] makes it the
//! current pfs thread of the calling OS thread for a scope, and [`SessionThread::instrument`]
//! wraps a future so that every poll runs entered, like `tracing`'s `Instrumented`. Every event
//! started meanwhile ([`crate::wait_start`], [`crate::statement_start`], the instrumented
//! locks, [`crate::current_thread_id`]) belongs to the session.
//!
//! A wait that may end on another OS thread than it began on — an async task's, woken on
//! another worker — is a [`PendingWait`] ([`wait_start_on`]): `Send`, recorded on the thread
//! [`WaitOn`] names, shown in `events_waits_current` while pending, and in the history and the
//! summaries with its duration when it ends. A session's statement that may wait, and so move
//! between workers, is a [`PendingStatement`] ([`SessionThread::statement_start`]) in the same
//! way: shown in `events_statements_current` until it ends, with the waits it makes meanwhile
//! nested in it, as MySQL shows a statement waiting for a metadata lock.
//!
//! One rule: a session thread is used by one task or thread at a time (entered by one OS
//! thread at a time), as a connection is. Then its records have one writer at a time, as an OS
//! thread's do, and each poll of a task sees the previous poll's writes (the executor orders
//! them). Two OS threads entering one session at once would mix its statistics and event
//! records; nothing worse (no undefined behaviour, no panic).

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::backend::session as imp;
use crate::{ClassRef, DigestRef};

/// A pfs thread that is not an OS thread: a session's (a connection of an async server).
/// Cheap to clone (an `Arc`); the thread ends, and its statistics fold into the totals of ended
/// threads, when the last clone drops.
///
/// ```
/// let session = pfs::SessionThread::new("thread/sql/one_connection", 42);
/// session.set_account("app", "localhost");
/// let outer = pfs::current_thread_id();
/// {
///     let _entered = session.enter();               // this OS thread works for the session
///     assert_eq!(pfs::current_thread_id(), session.thread_id());
/// }
/// assert_eq!(pfs::current_thread_id(), outer);
/// # #[cfg(feature = "instrumentation")]
/// assert!(pfs::threads().rows.iter().any(|r| r.processlist_id == Some(42)));
/// ```
#[derive(Clone)]
pub struct SessionThread {
    inner: Arc<Inner>,
}

struct Inner {
    record: imp::SessionRecord,
    processlist_id: u64,
}

impl SessionThread {
    /// A new session thread named `name` (MySQL's connection threads are
    /// `thread/sql/one_connection`; `setup_threads` rules match it) with connection id
    /// `processlist_id` (`threads.PROCESSLIST_ID`). When the thread buffer is full
    /// (`Sizing::max_threads`) it still has a `THREAD_ID`, records nothing and counts in
    /// `thread_lost`.
    pub fn new(name: &str, processlist_id: u64) -> SessionThread {
        SessionThread {
            inner: Arc::new(Inner {
                record: imp::SessionRecord::new(name, processlist_id),
                processlist_id,
            }),
        }
    }

    /// Its `THREAD_ID` (unique in the process, never reused).
    pub fn thread_id(&self) -> u64 {
        self.inner.record.thread_id()
    }

    /// Its connection id (`threads.PROCESSLIST_ID`).
    pub fn processlist_id(&self) -> u64 {
        self.inner.processlist_id
    }

    /// The session logged in as `user`@`host`: `threads.PROCESSLIST_USER` / `_HOST`, and its
    /// `INSTRUMENTED` / `HISTORY` switches from `setup_actors`, as
    /// [`crate::set_thread_account`] does for an OS thread; from then on it counts as a
    /// connection of that account in [`crate::accounts`], [`crate::users`] and
    /// [`crate::hosts`]. False when it records nothing (thread buffer full, or compiled out).
    pub fn set_account(&self, user: &str, host: &str) -> bool {
        self.inner.record.set_account(user, host)
    }

    /// The session raised MySQL's error (or warning, or note) `errno` `count` times: the error
    /// summaries count it (`crate::errors`; MySQL's `MYSQL_LOG_ERROR` in
    /// `THD::raise_condition`). For the error path only: it takes a lock.
    pub fn error_raised(&self, errno: u32, count: u64) {
        self.inner.record.error_raised(errno, count)
    }

    /// Makes this session the current pfs thread of the calling OS thread until the guard
    /// drops (then the previous one is current again; entries nest). Costs a few thread-local
    /// stores each way.
    pub fn enter(&self) -> SessionGuard<'_> {
        SessionGuard {
            entered: self.inner.record.enter(),
            _session: PhantomData,
            _not_send: PhantomData,
        }
    }

    /// Wraps `future` so that each of its polls runs with this session entered: a connection's
    /// task records on its session whichever worker polls it.
    pub fn instrument<F: Future>(&self, future: F) -> Instrumented<F> {
        Instrumented {
            inner: future,
            session: self.clone(),
        }
    }

    /// Starts a statement event of `class` (`statement/...`) with `digest` on this session,
    /// which may end on another OS thread than it begins on (a statement of an async
    /// connection that waits): until it ends it is the session's row in
    /// `events_statements_current`, and the waits begun on the session meanwhile name it in
    /// `NESTING_EVENT_ID`. What [`crate::statement_start`] is to an OS thread; `Send`, and it
    /// ends when dropped. When the class is disabled this is one relaxed load.
    ///
    /// ```
    /// let select = pfs::register_class(pfs::ClassKind::Statement, "statement/doc/select");
    /// pfs::set_instruments("statement/doc/%", true, true)?;
    /// let session = pfs::SessionThread::new("thread/doc/connection", 8);
    /// let statement = session.statement_start(select, None);
    /// let ended = std::thread::spawn(move || drop(statement)); // ends on another OS thread
    /// ended.join().unwrap();
    /// # #[cfg(feature = "instrumentation")]
    /// assert!(pfs::events_statements_summary_global_by_event_name()
    ///     .rows
    ///     .iter()
    ///     .any(|r| r.event_name == "statement/doc/select" && r.stats.count_star == 1));
    /// # Ok::<(), pfs::PfsError>(())
    /// ```
    // Once per statement; inlined whole into the caller, whose registers are saved anyway.
    #[inline(always)]
    pub fn statement_start(&self, class: ClassRef, digest: Option<DigestRef>) -> PendingStatement {
        PendingStatement {
            inner: imp::begin_statement(class, digest.unwrap_or_default(), self.record()),
        }
    }

    pub(crate) fn record(&self) -> &imp::SessionRecord {
        &self.inner.record
    }
}

impl std::fmt::Debug for SessionThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionThread")
            .field("thread_id", &self.thread_id())
            .field("processlist_id", &self.processlist_id())
            .finish()
    }
}

/// A session entered on this OS thread ([`SessionThread::enter`]); leaves it when dropped. Not
/// `Send`: it is about the thread that entered.
#[must_use = "the session is left when the guard drops"]
pub struct SessionGuard<'a> {
    entered: imp::Entered,
    _session: PhantomData<&'a SessionThread>,
    _not_send: PhantomData<*const ()>,
}

impl Drop for SessionGuard<'_> {
    fn drop(&mut self) {
        imp::leave(&self.entered);
    }
}

impl std::fmt::Debug for SessionGuard<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionGuard").finish_non_exhaustive()
    }
}

pin_project_lite::pin_project! {
    /// A future whose polls run with a session entered ([`SessionThread::instrument`]).
    #[derive(Debug)]
    pub struct Instrumented<F> {
        #[pin]
        inner: F,
        session: SessionThread,
    }
}

impl<F: Future> Future for Instrumented<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let _entered = this.session.enter();
        this.inner.poll(cx)
    }
}

impl<F> Instrumented<F> {
    /// The session its polls run in.
    pub fn session(&self) -> &SessionThread {
        &self.session
    }
}

/// Which pfs thread a [`PendingWait`] is recorded on ([`wait_start_on`]).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum WaitOn<'a> {
    /// This session thread, whichever OS threads the wait begins and ends on.
    Session(&'a SessionThread),
    /// The current pfs thread (the session entered on this OS thread, or the OS thread
    /// itself). The wait must end on this OS thread (a blocked thread's wait).
    Current,
    /// A wait that may end on another OS thread (an async task's): recorded on the session
    /// entered on this OS thread if there is one; otherwise only its start time is taken now,
    /// and it is recorded, start to end, on the pfs thread current where it ends (so it is not
    /// shown in `events_waits_current` while pending).
    Ending,
}

/// A wait in progress that may end on another OS thread than it began on ([`wait_start_on`]):
/// `Send`, unlike an [`crate::EventGuard`]. It ends when dropped (or [`PendingWait::end`]ed).
#[must_use = "the wait ends when it is dropped"]
pub struct PendingWait {
    inner: imp::Pending,
}

impl PendingWait {
    /// Will it record an event (enabled when it began, on a thread that records)?
    pub fn is_active(&self) -> bool {
        self.inner.is_active()
    }

    /// Ends the wait now (the same as dropping it).
    pub fn end(self) {}
}

impl std::fmt::Debug for PendingWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingWait")
            .field("active", &self.is_active())
            .finish()
    }
}

/// Starts a wait of `class` on `object` (`OBJECT_INSTANCE_BEGIN`) that may end on another OS
/// thread, recorded on the thread `on` names. When the class is disabled this is one relaxed
/// load.
///
/// ```
/// let c = pfs::register_class(pfs::ClassKind::TableIo, "wait/io/table/doc/pending");
/// let session = pfs::SessionThread::new("thread/doc/connection", 7);
/// let wait = pfs::wait_start_on(c, 1, pfs::WaitOn::Session(&session));
/// let ended = std::thread::spawn(move || drop(wait)); // ends on another OS thread
/// ended.join().unwrap();
/// # #[cfg(feature = "instrumentation")]
/// assert!(pfs::events_waits_summary_by_thread_by_event_name()
///     .rows
///     .iter()
///     .any(|r| r.thread_id == session.thread_id() && r.event_name == "wait/io/table/doc/pending"));
/// ```
#[inline]
pub fn wait_start_on(class: ClassRef, object: usize, on: WaitOn<'_>) -> PendingWait {
    let target = match on {
        WaitOn::Session(s) => imp::Target::Session(s.record()),
        WaitOn::Current => imp::Target::Current,
        WaitOn::Ending => imp::Target::Ending,
    };
    PendingWait {
        inner: imp::begin(class, object as u64, target),
    }
}

/// A session's statement in progress that may end on another OS thread than it began on
/// ([`SessionThread::statement_start`]): `Send`, unlike a [`crate::StatementGuard`]. It ends
/// when dropped (or [`PendingStatement::end`]ed).
#[must_use = "the statement ends when it is dropped"]
pub struct PendingStatement {
    pub(crate) inner: imp::Pending,
}

impl PendingStatement {
    /// Will it record an event (enabled when it began, on a thread that records)?
    pub fn is_active(&self) -> bool {
        self.inner.is_active()
    }

    /// Ends the statement now (the same as dropping it): its end columns (`ROWS_SENT`,
    /// `ERRORS`, ...) stay 0 and NULL; [`end_with`](Self::end_with) gives them.
    pub fn end(self) {}

    /// The statement's `SQL_TEXT` (the text as the client sent it): copied, at most
    /// [`crate::MAX_SQL_TEXT`] bytes cut at a character boundary, into a buffer of the
    /// statement's record, so nothing is allocated. Without it `SQL_TEXT` is the digest's text.
    #[inline]
    pub fn set_sql_text(&self, text: &str) {
        self.inner.set_sql_text(text);
    }

    /// Ends the statement with what it did (`ROWS_SENT`, `ROWS_AFFECTED`, `WARNINGS`, and
    /// `ERRORS`, `MYSQL_ERRNO`, `RETURNED_SQLSTATE`, `MESSAGE_TEXT` of a failure), which also
    /// go to its digest's sums in `events_statements_summary_by_digest`. Its `LOCK_TIME` is
    /// taken from the metadata-lock waits nested in it: the end of the last one (no timer
    /// read of its own).
    ///
    /// ```
    /// let select = pfs::register_class(pfs::ClassKind::Statement, "statement/doc/outcome");
    /// pfs::set_instruments("statement/doc/%", true, true)?;
    /// let session = pfs::SessionThread::new("thread/doc/connection", 9);
    /// let digest = pfs::register_digest_in(Some("test"), "SELECT * FROM t WHERE id = ?");
    /// let statement = session.statement_start(select, Some(digest));
    /// statement.set_sql_text("SELECT * FROM t WHERE id = 1");
    /// statement.end_with(&pfs::StatementOutcome::ok(1, 0));
    /// # #[cfg(feature = "instrumentation")]
    /// assert!(pfs::events_statements_history().rows.iter().any(|r| {
    ///     r.sql_text.as_deref() == Some("SELECT * FROM t WHERE id = 1")
    ///         && r.current_schema.as_deref() == Some("test")
    ///         && r.rows_sent == 1
    /// }));
    /// # Ok::<(), pfs::PfsError>(())
    /// ```
    #[inline]
    pub fn end_with(self, outcome: &crate::StatementOutcome<'_>) {
        self.inner.end_with(outcome);
    }
}

impl std::fmt::Debug for PendingStatement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingStatement")
            .field("active", &self.is_active())
            .finish()
    }
}

// All can move between a runtime's workers.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<PendingWait>();
    send::<PendingStatement>();
    send::<SessionThread>();
    send::<Instrumented<std::future::Ready<()>>>();
};
