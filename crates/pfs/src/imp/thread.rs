//! Per-thread instrumentation state.
//!
//! Each thread that records something gets a [`ThreadSlot`] on its first event (or when it sets
//! its own switches). Slots are allocated once and never freed: a slot outlives its thread and
//! is handed to a later thread, so the hot path holds a plain `&'static ThreadSlot`, found in a
//! thread-local `Cell` without a destructor (one thread-local load). An event start applies the
//! thread's mask first, through a second such thread-local: a pointer to the live slot's `mask`,
//! or to an all-ones mask before registration and after exit (which sends the event on to the
//! slot lookup, where the thread registers or the event counts as lost). So a left-out thread's
//! event ends after one thread-local load and one load. A third thread-local, with a
//! destructor, folds the slot's stats into the "exited threads" aggregate when the thread
//! exits and returns the slot to the free list, under the `threads` lock, so totals read after
//! the threads have been joined are exact. At most `Sizing::max_threads` slots are live; a
//! thread beyond that runs unrecorded and bumps `thread_lost`.
//!
//! A *session thread* (`crate::SessionThread`, see `session.rs`) is a slot that belongs to no OS
//! thread: taken by `register_session`, given back by `release_session`. An OS thread works for
//! one by making its slot the current one ([`enter`]: both thread-locals point at it until
//! [`leave`] puts the old values back), so the hot path is the same for both kinds. The exit hook
//! only ever returns the OS thread's own slot.
//!
//! This module also keeps what decides a thread's switches (checked where MySQL checks
//! `pfs_thread->m_enabled`, after the instrument's own flag, in `pfs_start_mutex_wait_v1` of
//! MySQL's `storage/perfschema/pfs.cc`): `setup_threads` (by thread name,
//! when the thread registers), `setup_actors` (by account, when the thread calls
//! `set_thread_account`), direct updates (`UPDATE threads`), and whether the
//! `thread_instrumentation` consumer is on (pushed here by `setup`).
//!
//! Who writes what: the stats cells, histograms and event logs are written only by the owning
//! thread, with relaxed load + store (see `stats`), so recording needs no read-modify-write
//! and no lock. Everything else of a slot (`mask`, `instrumented`, `history`, `account`,
//! `thread_id`, `name`) is written under the `threads` lock, by any thread; the owner reads
//! `mask` relaxed on each event. Readers copy under the same lock, so a slot is never handed to
//! a new thread in the middle of a read.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

use parking_lot::Mutex;

use super::classes::{F_HISTORY, F_HISTORY_LONG};
use super::events::EventLog;
use super::flags::STACK;
use super::limits::{sizing, LOST};
use super::statement::{self, DigestCell, StatementExtra, Sums};
use super::stats::{Hist, Snap, StatCell, HIST_BUCKETS};
use super::trx_log::TrxLog;
use crate::config::Sizing;
use crate::error::PfsError;
use crate::pattern::Pattern;

mod cells;

pub(crate) struct ThreadSlot {
    /// The flags this thread's events keep (`!0`, `0` when not instrumented, or without the
    /// history bits); `!0` while `thread_instrumentation` is off.
    mask: AtomicU32,
    next_event_id: AtomicU64,
    thread_id: AtomicU64,
    /// Per-class stats (`events_waits_summary_by_thread_by_event_name`).
    pub(crate) stats: Box<[StatCell]>,
    /// Per-digest stats of statements of the digest's bound class (they count for the class
    /// too), and the sums of the digest's statements (`SUM_ROWS_SENT`, ..., `statement.rs`).
    pub(crate) digests: Box<[DigestCell]>,
    /// Per-digest stats of statements of another class (they count for the digest only).
    pub(crate) digests_other: Box<[StatCell]>,
    /// Per-class statement sums no bound digest holds (`statement/class_sums.rs`).
    pub(crate) class_sums: Box<[statement::SumsCell]>,
    /// Per-class histograms, allocated on first use by the owner.
    pub(crate) hists: Box<[OnceLock<Box<Hist>>]>,
    /// Event logs: waits, stages, statements (indexed by `log_of`).
    pub(crate) logs: [EventLog; 3],
    /// What each statement record carries besides the record (`statement.rs`), by index.
    pub(crate) statements: Box<[StatementExtra]>,
    /// Transaction events and the read-only transactions' stats (`transaction.rs`).
    pub(crate) trx: TrxLog,
    /// The end (its clock's stamp) of the last metadata lock wait not yet taken by a
    /// statement's `LOCK_TIME`; 0 for none (owner).
    pub(crate) lock_wait_end: AtomicU64,
    /// That wait's derived flags (its clock).
    pub(crate) lock_wait_flags: AtomicU32,
    /// INSTRUMENTED and HISTORY (`threads`, `setup_threads`, `setup_actors`).
    pub(crate) instrumented: AtomicBool,
    pub(crate) history: AtomicBool,
    /// `std::thread` name at registration.
    pub(crate) name: Mutex<Option<String>>,
    /// (user, host) given by `set_thread_account`.
    pub(crate) account: Mutex<Option<(String, String)>>,
    /// A session thread's (see `register_session`), not an OS thread's.
    pub(crate) session: AtomicBool,
    /// `PROCESSLIST_ID` of a session thread; 0 for none.
    pub(crate) processlist_id: AtomicU64,
}

impl ThreadSlot {
    fn new(sizing: &Sizing) -> ThreadSlot {
        ThreadSlot {
            mask: AtomicU32::new(!0),
            next_event_id: AtomicU64::new(1),
            thread_id: AtomicU64::new(0),
            stats: (0..sizing.max_classes).map(|_| StatCell::new()).collect(),
            digests: statement::digest_cells(sizing.max_digests),
            digests_other: (0..sizing.max_digests).map(|_| StatCell::new()).collect(),
            class_sums: statement::sums_cells(sizing.max_classes),
            hists: (0..sizing.max_classes).map(|_| OnceLock::new()).collect(),
            logs: [
                EventLog::new(sizing.waits_history_size),
                EventLog::new(sizing.stages_history_size),
                EventLog::new(sizing.statements_history_size),
            ],
            statements: statement::extras(sizing.statements_history_size + STACK),
            trx: TrxLog::new(sizing.transactions_history_size),
            lock_wait_end: AtomicU64::new(0),
            lock_wait_flags: AtomicU32::new(0),
            instrumented: AtomicBool::new(true),
            history: AtomicBool::new(true),
            name: Mutex::new(None),
            account: Mutex::new(None),
            session: AtomicBool::new(false),
            processlist_id: AtomicU64::new(0),
        }
    }

    #[inline]
    pub(crate) fn mask(&self) -> u32 {
        self.mask.load(Ordering::Relaxed)
    }

    pub(crate) fn thread_id(&self) -> u64 {
        self.thread_id.load(Ordering::Relaxed)
    }

    /// Recompute the mask from the thread's switches. Caller holds `threads`.
    fn refresh_mask(&self, thread_instrumentation: bool) {
        let m = if !thread_instrumentation {
            !0
        } else if !self.instrumented.load(Ordering::Relaxed) {
            0
        } else if !self.history.load(Ordering::Relaxed) {
            !(F_HISTORY | F_HISTORY_LONG)
        } else {
            !0
        };
        self.mask.store(m, Ordering::Relaxed);
    }

    /// A metadata lock wait (`F_LOCK_WAIT`, flags `f`) ended at `end` (owner only).
    #[inline]
    pub(crate) fn lock_waited(&self, end: u64, f: u32) {
        self.lock_wait_end.store(end, Ordering::Relaxed);
        self.lock_wait_flags.store(f, Ordering::Relaxed);
    }

    /// Next EVENT_ID (owner only).
    #[inline]
    pub(crate) fn next_event_id(&self) -> u64 {
        let id = self.next_event_id.load(Ordering::Relaxed);
        self.next_event_id.store(id + 1, Ordering::Relaxed);
        id
    }

    /// The last EVENT_ID handed out (owner only).
    #[inline]
    pub(crate) fn last_event_id(&self) -> u64 {
        self.next_event_id.load(Ordering::Relaxed).saturating_sub(1)
    }

    #[inline]
    pub(crate) fn hist(&self, class: usize) -> Option<&Hist> {
        self.hists
            .get(class)
            .map(|h| &**h.get_or_init(|| Box::new(Hist::new())))
    }

    pub(crate) fn clear_history(&self) {
        for l in &self.logs {
            l.clear();
        }
        for x in self.statements.iter() {
            x.clear();
        }
        self.trx.clear();
    }
}

/// Maximum number of `setup_actors` and `setup_threads` rows.
const MAX_ROWS: usize = 1024;

/// A `setup_actors` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Actor {
    pub(crate) host: String,
    pub(crate) user: String,
    pub(crate) enabled: bool,
    pub(crate) history: bool,
}

/// The registry of live threads, free slots, the fold of exited threads, and the thread
/// switches' rules.
pub(crate) struct Threads {
    pub(crate) live: Vec<&'static ThreadSlot>,
    free: Vec<&'static ThreadSlot>,
    pub(crate) exited: Vec<Snap>,
    pub(crate) exited_hist: Vec<[u64; HIST_BUCKETS]>,
    pub(crate) exited_digests: Vec<Snap>,
    pub(crate) exited_digests_other: Vec<Snap>,
    pub(crate) exited_digest_sums: Vec<Sums>,
    /// Read-write and read-only transactions of exited threads.
    pub(crate) exited_trx: [Snap; 2],
    /// `setup_actors`, in insertion order.
    pub(crate) actors: Vec<Actor>,
    /// `setup_threads`: (name pattern, enabled, history); the last match wins.
    pub(crate) rules: Vec<(Pattern, bool, bool)>,
    /// Is the `thread_instrumentation` consumer effective (set by `setup`)?
    thread_instrumentation: bool,
}

static THREADS: OnceLock<Mutex<Threads>> = OnceLock::new();

/// The registry (locked).
pub(crate) fn threads() -> parking_lot::MutexGuard<'static, Threads> {
    THREADS
        .get_or_init(|| Mutex::new(Threads::new(sizing())))
        .lock()
}

impl Threads {
    fn new(sizing: &Sizing) -> Threads {
        Threads {
            live: Vec::new(),
            free: Vec::new(),
            exited: vec![Snap::default(); sizing.max_classes],
            exited_hist: vec![[0; HIST_BUCKETS]; sizing.max_classes],
            exited_digests: vec![Snap::default(); sizing.max_digests],
            exited_digests_other: vec![Snap::default(); sizing.max_digests],
            exited_digest_sums: vec![Sums::default(); sizing.max_digests],
            exited_trx: [Snap::default(); 2],
            actors: vec![Actor {
                host: "%".into(),
                user: "%".into(),
                enabled: true,
                history: true,
            }],
            rules: vec![(Pattern::parse("%").expect("valid"), true, true)],
            thread_instrumentation: true,
        }
    }

    /// `(INSTRUMENTED, HISTORY)` of a thread starting with this name (`setup_threads`).
    fn thread_switches(&self, name: &str) -> (bool, bool) {
        let mut v = (true, true);
        for (p, e, h) in &self.rules {
            if p.matches(name) {
                v = (*e, *h);
            }
        }
        v
    }

    /// `(INSTRUMENTED, HISTORY)` of a session of this account (`setup_actors`: the most
    /// specific matching row; none matching: not instrumented).
    fn actor_switches(&self, user: &str, host: &str) -> (bool, bool) {
        self.actors
            .iter()
            .filter(|a| (a.host == "%" || a.host == host) && (a.user == "%" || a.user == user))
            .max_by_key(|a| (a.host != "%", a.user != "%"))
            .map_or((false, false), |a| (a.enabled, a.history))
    }

    /// Set a slot's switches and recompute its mask.
    fn set_switches(&self, t: &ThreadSlot, instrumented: bool, history: bool) {
        t.instrumented.store(instrumented, Ordering::Relaxed);
        t.history.store(history, Ordering::Relaxed);
        t.refresh_mask(self.thread_instrumentation);
    }

    /// Fold a slot's stats into the exited aggregate.
    pub(crate) fn fold(&mut self, t: &ThreadSlot) {
        let pairs = [
            (&mut self.exited, &t.stats),
            (&mut self.exited_digests_other, &t.digests_other),
        ];
        for (agg, cells) in pairs {
            for (a, s) in agg.iter_mut().zip(cells.iter()) {
                a.merge(&s.snapshot());
            }
        }
        let digests = self
            .exited_digests
            .iter_mut()
            .zip(&mut self.exited_digest_sums);
        for ((a, sums), d) in digests.zip(t.digests.iter()) {
            a.merge(&d.stat.snapshot());
            sums.merge(&d.sums());
        }
        for (a, c) in self.exited_trx.iter_mut().zip(&t.trx.cells) {
            a.merge(&c.snapshot());
        }
        for (agg, h) in self.exited_hist.iter_mut().zip(t.hists.iter()) {
            if let Some(h) = h.get() {
                h.add_into(agg);
            }
        }
    }
}

/// The current thread's slot, as the hot path sees it.
#[derive(Clone, Copy)]
enum State {
    /// No event yet: register on the first.
    New,
    Live(&'static ThreadSlot),
    /// Lost (buffer full) or exiting: record nothing.
    Gone,
}

impl State {
    /// The state, unless it is a session thread's slot.
    fn filter_own(self) -> State {
        match self {
            State::Live(t) if t.session.load(Ordering::Relaxed) => State::Gone,
            s => s,
        }
    }
}

/// Returns the slot when the thread exits.
struct Exit;

impl Drop for Exit {
    fn drop(&mut self) {
        // A session thread's slot is the session's to return (only a leaked `SessionGuard`
        // leaves one current at thread exit); this thread's own is then lost.
        if let State::Live(t) = slot().filter_own() {
            CURRENT.with(|c| c.set(Current::GONE));
            threads().give_back(t);
        }
    }
}

/// The mask of a thread without a live slot (not registered yet, lost or exiting): every bit,
/// so its events go on to [`current`], which registers it or counts them lost.
static NO_SLOT_MASK: AtomicU32 = AtomicU32::new(!0);

/// The current thread's slot and mask: one thread-local, so that entering a session swaps
/// them with one access (each access from another codegen unit is a call).
#[derive(Clone, Copy)]
pub(crate) struct Current {
    slot: State,
    /// The mask the hot path applies first: the live slot's `mask`, else `NO_SLOT_MASK`. A
    /// left-out thread's event ends after this one thread-local load and one load.
    mask: &'static AtomicU32,
}

impl Current {
    const GONE: Current = Current {
        slot: State::Gone,
        mask: &NO_SLOT_MASK,
    };
}

thread_local! {
    // No destructor: always accessible, one load on the hot path.
    static CURRENT: Cell<Current> = const {
        Cell::new(Current {
            slot: State::New,
            mask: &NO_SLOT_MASK,
        })
    };
    // Touched once, at registration, so that its destructor runs at thread exit.
    static EXIT: Exit = const { Exit };
}

thread_local! {
    /// `crate::thread_id`'s current `THREAD_ID` (see there), declared here for [`enter`].
    pub(crate) static THREAD_ID: Cell<u64> = const { Cell::new(0) };
}

#[inline(always)]
fn slot() -> State {
    CURRENT.with(|c| c.get().slot)
}

/// Sets the current slot, keeping the mask.
fn set_slot(slot: State) {
    CURRENT.with(|c| c.set(Current { slot, ..c.get() }));
}

/// The current thread's slot; `None` if the thread is lost or exiting. Registers the thread
/// on its first call.
#[inline]
pub(crate) fn current() -> Option<&'static ThreadSlot> {
    match slot() {
        State::Live(t) => Some(t),
        State::New => register(),
        State::Gone => None,
    }
}

/// The current thread's mask (`!0` until it has a live slot): what an event start applies
/// before it looks for the slot. One thread-local load and one relaxed load.
#[inline(always)]
pub(crate) fn mask() -> u32 {
    CURRENT.with(|c| c.get().mask).load(Ordering::Relaxed)
}

/// The current thread's slot if it is live (does not register); `None` sends the caller to
/// its cold path, which calls [`current`].
#[inline(always)]
pub(crate) fn live() -> Option<&'static ThreadSlot> {
    match slot() {
        State::Live(t) => Some(t),
        _ => None,
    }
}

/// The current thread's slot if it has one (does not register).
pub(crate) fn existing() -> Option<&'static ThreadSlot> {
    match slot() {
        State::Live(t) => Some(t),
        _ => None,
    }
}

#[cold]
fn register() -> Option<&'static ThreadSlot> {
    // Arm the exit hook first; during thread teardown this fails and the thread stays out.
    if EXIT.try_with(|_| ()).is_err() {
        set_slot(State::Gone);
        return None;
    }
    let id = crate::thread_id::current();
    let name = std::thread::current().name().map(str::to_string);
    let mut th = threads();
    if th.live.len() >= sizing().max_threads {
        LOST.thread.fetch_add(1, Ordering::Relaxed);
        set_slot(State::Gone);
        return None;
    }
    let t = th.take_slot(id, name, None);
    CURRENT.with(|c| {
        c.set(Current {
            slot: State::Live(t),
            mask: &t.mask,
        })
    });
    Some(t)
}

impl Threads {
    /// A free slot (or a new one) for thread `id`, registered live with the `setup_threads`
    /// switches of `name`; a session thread's with its `PROCESSLIST_ID`. The caller checked
    /// `max_threads`.
    fn take_slot(
        &mut self,
        id: u64,
        name: Option<String>,
        session: Option<u64>,
    ) -> &'static ThreadSlot {
        let t: &'static ThreadSlot = match self.free.pop() {
            Some(t) => t,
            None => Box::leak(Box::new(ThreadSlot::new(sizing()))),
        };
        let (instrumented, history) =
            self.thread_switches(name.as_deref().unwrap_or("thread/unnamed"));
        t.thread_id.store(id, Ordering::Relaxed);
        t.next_event_id.store(1, Ordering::Relaxed);
        for l in &t.logs {
            l.restart();
        }
        t.trx.restart();
        for x in t.statements.iter() {
            x.clear();
        }
        t.lock_wait_end.store(0, Ordering::Relaxed);
        t.session.store(session.is_some(), Ordering::Relaxed);
        t.processlist_id
            .store(session.unwrap_or(0), Ordering::Relaxed);
        *t.name.lock() = name;
        *t.account.lock() = None;
        self.set_switches(t, instrumented, history);
        self.live.push(t);
        t
    }

    /// Folds a slot's stats into the exited aggregate, counts the end of a connection of its
    /// account (`connections.rs`), carries its stats into its account (`summary_by.rs`), and
    /// returns it to the free list.
    fn give_back(&mut self, t: &'static ThreadSlot) {
        self.fold(t);
        let account = t.account.lock().clone();
        super::connections::disconnect(account.clone());
        super::errors::thread_ended(t, &account);
        super::summary_by::carried().carry(account, &t.class_stats());
        t.reset_stats();
        t.clear_history();
        self.live.retain(|s| !std::ptr::eq(*s, t));
        self.free.push(t);
    }
}

// ---------------------------------------------------------------------------------------------
// Session threads: slots that belong to no OS thread (see `crate::SessionThread`).

/// A slot for a session thread `id` named `name` (`setup_threads` applies), or `None` when the
/// thread buffer is full (counted in `thread_lost`).
pub(crate) fn register_session(
    id: u64,
    name: &str,
    processlist_id: u64,
) -> Option<&'static ThreadSlot> {
    let mut th = threads();
    if th.live.len() >= sizing().max_threads {
        LOST.thread.fetch_add(1, Ordering::Relaxed);
        return None;
    }
    Some(th.take_slot(id, Some(name.to_string()), Some(processlist_id)))
}

/// The session thread ended: its stats go to the exited aggregate, its slot to the free list.
pub(crate) fn release_session(t: &'static ThreadSlot) {
    threads().give_back(t);
}

/// `set_thread_account` for a session thread's slot.
pub(crate) fn set_slot_account(t: &ThreadSlot, user: &str, host: &str) {
    let th = threads();
    let (e, h) = th.actor_switches(user, host);
    th.set_switches(t, e, h);
    *t.account.lock() = Some((user.into(), host.into()));
}

/// A current slot, mask and `THREAD_ID`: a session's, computed once, that [`enter`] makes
/// current, and what it replaced on the OS thread, that [`leave`] puts back.
#[derive(Clone, Copy)]
pub(crate) struct Entered {
    current: Current,
    thread_id: u64,
}

impl Entered {
    /// What entering the session of `slot` (`None`: a session thread without one, whose
    /// events are lost) and `thread_id` makes current.
    pub(crate) fn session(slot: Option<&'static ThreadSlot>, thread_id: u64) -> Entered {
        let current = match slot {
            Some(t) => Current {
                slot: State::Live(t),
                mask: &t.mask,
            },
            None => Current::GONE,
        };
        Entered { current, thread_id }
    }
}

/// Makes `to` this OS thread's current slot and `THREAD_ID`; returns what it replaced. Out of
/// line beside both thread-locals (`THREAD_ID` is declared here for it): a leaf whose accesses
/// are plain loads and stores, where from another codegen unit each would be a call.
/// An OS thread that had not drawn its own `THREAD_ID` yet (0) gets 0 back, and draws it when
/// first asked after [`leave`].
#[inline(never)]
pub(crate) fn enter(to: &Entered) -> Entered {
    Entered {
        current: CURRENT.with(|c| c.replace(to.current)),
        thread_id: THREAD_ID.with(|c| c.replace(to.thread_id)),
    }
}

/// Puts back what [`enter`] replaced.
#[inline(never)]
pub(crate) fn leave(e: &Entered) {
    CURRENT.with(|c| c.set(e.current));
    THREAD_ID.with(|c| c.set(e.thread_id));
}

/// Whether the current slot is a session thread's (entered on this OS thread).
pub(crate) fn in_session() -> bool {
    matches!(slot(), State::Live(t) if t.session.load(Ordering::Relaxed))
}

/// EVENT_ID of the innermost event in progress on this thread (wait, else stage, else
/// statement). Does not register the thread.
pub(crate) fn current_event_id() -> Option<u64> {
    let t = existing()?;
    t.logs.iter().map(|l| l.top_event_id()).find(|&id| id != 0)
}

/// `f` over the live thread slots, under the `threads` lock (no slot changes hands meanwhile).
pub(crate) fn with_live<R>(f: impl FnOnce(&[&'static ThreadSlot]) -> R) -> R {
    f(&threads().live)
}

/// Tell the registry whether `thread_instrumentation` is effective (from `setup`), and
/// recompute every live thread's mask.
pub(crate) fn set_thread_instrumentation(on: bool) {
    let mut th = threads();
    th.thread_instrumentation = on;
    for t in &th.live {
        t.refresh_mask(on);
    }
}

// ---------------------------------------------------------------------------------------------
// setup_actors, setup_threads and the per-thread switches

pub(crate) fn set_setup_actor(
    host: &str,
    user: &str,
    enabled: bool,
    history: bool,
) -> Result<(), PfsError> {
    let mut th = threads();
    th.actors.retain(|a| !(a.host == host && a.user == user));
    if th.actors.len() >= MAX_ROWS {
        return Err(PfsError::TooManyRules);
    }
    th.actors.push(Actor {
        host: host.into(),
        user: user.into(),
        enabled,
        history,
    });
    Ok(())
}

pub(crate) fn remove_setup_actor(host: &str, user: &str) -> bool {
    let mut th = threads();
    let n = th.actors.len();
    th.actors.retain(|a| !(a.host == host && a.user == user));
    th.actors.len() != n
}

pub(crate) fn set_setup_threads(p: &Pattern, enabled: bool, history: bool) -> Result<(), PfsError> {
    let mut th = threads();
    th.rules.retain(|(q, _, _)| q.as_str() != p.as_str());
    if th.rules.len() >= MAX_ROWS {
        return Err(PfsError::TooManyRules);
    }
    th.rules.push((p.clone(), enabled, history));
    Ok(())
}

/// Change the switches of the current thread (registering it if needed).
fn update_current(f: impl FnOnce(&Threads, &ThreadSlot)) -> bool {
    let Some(t) = current() else {
        return false;
    };
    f(&threads(), t);
    true
}

pub(crate) fn set_thread_instrumented(on: bool) -> bool {
    update_current(|th, t| th.set_switches(t, on, t.history.load(Ordering::Relaxed)))
}

pub(crate) fn set_thread_history(on: bool) -> bool {
    update_current(|th, t| th.set_switches(t, t.instrumented.load(Ordering::Relaxed), on))
}

pub(crate) fn set_thread_account(user: &str, host: &str) -> bool {
    update_current(|th, t| {
        let (e, h) = th.actor_switches(user, host);
        th.set_switches(t, e, h);
        *t.account.lock() = Some((user.into(), host.into()));
    })
}

pub(crate) fn update_thread(thread_id: u64, instrumented: bool, history: bool) -> bool {
    let th = threads();
    match th.live.iter().find(|t| t.thread_id() == thread_id) {
        Some(t) => {
            th.set_switches(t, instrumented, history);
            true
        }
        None => false,
    }
}
