//! Test support for `mdl-core`'s integration tests and the check crate: managers in every
//! fast-path mode, key and request shorthands, polling for queue states (never sleeping
//! blindly), and a [`Worker`] that owns one context on its own thread so a test can put
//! requests into the pending state deterministically.

pub use crate::Kinded;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use mdl_core::{
    ContextId, FastPath, KillHandle, LockDuration, LockType, MdlConfig, MdlContext, MdlKey,
    MdlManager, MdlRequest, Namespace, Ticket,
};

/// A manager with the default configuration.
pub fn mgr() -> Arc<MdlManager> {
    MdlManager::new(MdlConfig::default()).unwrap()
}

/// A manager with the default configuration changed by `f`.
pub fn mgr_with(f: impl FnOnce(&mut MdlConfig)) -> Arc<MdlManager> {
    let mut c = MdlConfig::default();
    f(&mut c);
    MdlManager::new(c).unwrap()
}

/// Every fast-path mode ([`FastPath::ALL`]) with its name, so tests exercise the fast and
/// the slow path.
pub fn configs() -> Vec<(&'static str, MdlConfig)> {
    FastPath::ALL
        .into_iter()
        .map(|fast_path| {
            (
                fast_path.name(),
                MdlConfig::builder()
                    .fast_path(fast_path)
                    .build()
                    .expect("a valid configuration"),
            )
        })
        .collect()
}

/// The key of table `test.name`.
pub fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).unwrap()
}

/// Ten names over both strategies, singletons and a column key, for sequences of random
/// operations: two tables (hot), a schema, GLOBAL, a user lock, ACL_CACHE, a function,
/// COMMIT, a column-statistics key, a tablespace. The differential driver uses the first
/// eight (its byte encoding depends on that order).
pub fn sample_keys() -> Vec<MdlKey> {
    vec![
        MdlKey::new(Namespace::Table, "test", "t0").unwrap(),
        MdlKey::new(Namespace::Table, "test", "t1").unwrap(),
        MdlKey::new(Namespace::Schema, "test", "").unwrap(),
        MdlKey::singleton(Namespace::Global).unwrap(),
        MdlKey::new(Namespace::UserLevelLock, "", "u0").unwrap(),
        MdlKey::singleton(Namespace::AclCache).unwrap(),
        MdlKey::new(Namespace::Function, "test", "f0").unwrap(),
        MdlKey::singleton(Namespace::Commit).unwrap(),
        MdlKey::column_statistics("test", "t0", "c").unwrap(),
        MdlKey::new(Namespace::Tablespace, "", "ts0").unwrap(),
    ]
}

/// A request of `t` on `key` for duration `d`.
pub fn req(key: &MdlKey, t: LockType, d: LockDuration) -> MdlRequest {
    MdlRequest::new(key.clone(), t, d)
}

/// Takes `t` on `key` for duration `d` in `ctx`, waiting at most [`LONG`]; it must be granted.
pub fn take(ctx: &mut MdlContext, key: &MdlKey, t: LockType, d: LockDuration) -> Ticket {
    ctx.acquire(&req(key, t, d), LONG)
        .unwrap_or_else(|e| panic!("{t:?} on {key:?}: {e}"))
}

/// A TRANSACTION request of `t` on `key`.
pub fn treq(key: &MdlKey, t: LockType) -> MdlRequest {
    req(key, t, LockDuration::Transaction)
}

/// A timeout no test reaches.
pub const LONG: Duration = Duration::from_secs(60);
/// A zero timeout: try once, never wait.
pub const ZERO: Duration = Duration::ZERO;

/// Whether `ctx` can take `t` on `key` right now (tries and releases immediately).
pub fn can_take(ctx: &mut MdlContext, key: &MdlKey, t: LockType) -> bool {
    match ctx
        .try_acquire(&req(key, t, LockDuration::Explicit))
        .unwrap()
    {
        Some(tk) => {
            ctx.release(tk).unwrap();
            true
        }
        None => false,
    }
}

/// The error of a TRANSACTION request of `t` on `key` from a new context of `mgr` that tries
/// once (a [`ZERO`] timeout) and must fail.
pub fn refused(mgr: &Arc<MdlManager>, key: &MdlKey, t: LockType) -> mdl_core::MdlError {
    mgr.new_context()
        .acquire(&treq(key, t), ZERO)
        .expect_err("the request was granted")
}

/// Whether `key` is held by anyone but `observer`: `observer` cannot take X on it now.
pub fn held_by_others(observer: &mut MdlContext, key: &MdlKey) -> bool {
    !can_take(observer, key, LockType::X)
}

/// Polls `slow_path_locks` until `ctx` has an entry on `key` with `granted`, or panics after
/// 20 s.
pub fn wait_entry(mgr: &MdlManager, ctx: ContextId, key: &MdlKey, t: LockType, granted: bool) {
    let start = Instant::now();
    loop {
        if has_entry(mgr, ctx, key, t, granted) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "context {ctx} never got a {} {t:?} entry on {key:?}; entries: {:?}",
            if granted { "granted" } else { "pending" },
            mgr.slow_path_locks()
        );
        thread::sleep(Duration::from_micros(200));
    }
}

/// [`wait_entry`] for a pending entry, then until its waiter's edge is in the wait-for graph
/// (the entry is queued before the waiter adds its edge and searches for deadlocks: a test that
/// closes a cycle before that would see the other waiter find the cycle, and be its victim).
pub fn wait_pending(mgr: &MdlManager, ctx: ContextId, key: &MdlKey, t: LockType) {
    wait_entry(mgr, ctx, key, t, false);
    let start = Instant::now();
    while !mgr.lock_waits().rows.iter().any(|r| r.waiting == ctx) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "context {ctx} is queued but never waits"
        );
        thread::sleep(Duration::from_micros(200));
    }
}

/// Whether `ctx` has an entry of type `t` on `key`, granted or pending, right now.
pub fn has_entry(
    mgr: &MdlManager,
    ctx: ContextId,
    key: &MdlKey,
    t: LockType,
    granted: bool,
) -> bool {
    mgr.slow_path_locks()
        .iter()
        .any(|e| e.context == ctx && &e.key == key && e.lock_type == t && e.granted == granted)
}

/// Number of pending entries of any context.
pub fn pending_count(mgr: &MdlManager) -> usize {
    mgr.slow_path_locks().iter().filter(|e| !e.granted).count()
}

type Job = Box<dyn FnOnce(&mut MdlContext) + Send>;

/// One context living on its own thread; jobs run on it in order.
pub struct Worker {
    /// The worker's context.
    pub id: ContextId,
    /// Kills the worker's current wait.
    pub kill: KillHandle,
    tx: Option<Sender<Job>>,
    handle: Option<JoinHandle<()>>,
}

impl Worker {
    /// A new context of `mgr` on a new thread.
    pub fn new(mgr: &Arc<MdlManager>) -> Worker {
        let mgr = mgr.clone();
        let (tx, rx) = channel::<Job>();
        let (id_tx, id_rx) = channel();
        let handle = thread::spawn(move || {
            let mut ctx = mgr.new_context();
            id_tx.send((ctx.id(), ctx.kill_handle())).unwrap();
            while let Ok(job) = rx.recv() {
                job(&mut ctx);
            }
        });
        let (id, kill) = id_rx.recv().unwrap();
        Worker {
            id,
            kill,
            tx: Some(tx),
            handle: Some(handle),
        }
    }

    /// Runs `f` on the worker's context and returns its result.
    pub fn run<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut MdlContext) -> R + Send + 'static,
    ) -> R {
        self.start(f)
            .recv_timeout(LONG)
            .expect("worker job did not finish")
    }

    /// Starts `f` on the worker's context; its result arrives on the returned channel.
    pub fn start<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut MdlContext) -> R + Send + 'static,
    ) -> Receiver<R> {
        let (tx, rx) = channel();
        self.tx
            .as_ref()
            .unwrap()
            .send(Box::new(move |ctx: &mut MdlContext| {
                let _ = tx.send(f(ctx));
            }))
            .unwrap();
        rx
    }

    /// A new context of `mgr` on a new thread that holds `t` on `key` (see [`Worker::hold`]).
    pub fn holding(mgr: &Arc<MdlManager>, key: &MdlKey, t: LockType) -> Worker {
        let w = Worker::new(mgr);
        w.hold(key, t);
        w
    }

    /// Takes `t` on `key` (transaction duration), which must be granted without waiting.
    pub fn hold(&self, key: &MdlKey, t: LockType) -> Ticket {
        let r = treq(key, t);
        self.run(move |c| c.try_acquire(&r).unwrap())
            .unwrap_or_else(|| panic!("{t:?} was not granted at once"))
    }

    /// Starts a long `acquire` of `t` on `key` and waits until it is pending.
    pub fn start_pending(
        &self,
        mgr: &MdlManager,
        key: &MdlKey,
        t: LockType,
    ) -> Receiver<mdl_core::Result<Ticket>> {
        let r = treq(key, t);
        let rx = self.start(move |c| c.acquire(&r, LONG));
        wait_pending(mgr, self.id, key, t);
        rx
    }

    /// A new context of `mgr` on a new thread whose `acquire` of `t` on `key` is pending (see
    /// [`Worker::start_pending`]), and the channel its outcome arrives on.
    pub fn pending(
        mgr: &Arc<MdlManager>,
        key: &MdlKey,
        t: LockType,
    ) -> (Worker, Receiver<mdl_core::Result<Ticket>>) {
        let w = Worker::new(mgr);
        let rx = w.start_pending(mgr, key, t);
        (w, rx)
    }

    /// A new worker per type of `types`, in order, each with its `acquire` of that type on
    /// `key` pending (see [`Worker::pending`]): the workers, and the channels their outcomes
    /// arrive on.
    pub fn pending_each(
        mgr: &Arc<MdlManager>,
        key: &MdlKey,
        types: &[LockType],
    ) -> (Vec<Worker>, Vec<Receiver<mdl_core::Result<Ticket>>>) {
        types.iter().map(|&t| Worker::pending(mgr, key, t)).unzip()
    }

    /// Ends the worker's transaction (STATEMENT and TRANSACTION locks released).
    pub fn release_all(&self) {
        self.run(|c| {
            c.release_transactional_locks();
        });
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(h) = self.handle.take() {
            if !thread::panicking() {
                h.join().unwrap();
            }
        }
    }
}

/// For each `(worker, rx)` in order: the worker's pending request (its outcome arriving on
/// `rx`) is granted, then the worker ends its transaction, which lets the next one in.
pub fn grant_then_release<T, E: std::fmt::Debug>(chain: &[(&Worker, &Receiver<Result<T, E>>)]) {
    for (w, rx) in chain {
        recv(rx).expect("granted in turn");
        w.release_all();
    }
}

/// Receives a job result within 20 s.
pub fn recv<R>(rx: &Receiver<R>) -> R {
    rx.recv_timeout(Duration::from_secs(20))
        .expect("no result within 20 s")
}

/// A manager of the default configuration and one context.
pub fn one_context() -> (Arc<MdlManager>, MdlContext) {
    let mgr = mgr();
    let c = mgr.new_context();
    (mgr, c)
}

/// A manager of `cfg`, the context under test and an observer context that probes what the
/// first one holds.
pub fn two_contexts_with(cfg: MdlConfig) -> (Arc<MdlManager>, MdlContext, MdlContext) {
    let mgr = MdlManager::new(cfg).expect("valid configuration");
    let (c, o) = (mgr.new_context(), mgr.new_context());
    (mgr, c, o)
}

/// [`two_contexts_with`] the default configuration.
pub fn two_contexts() -> (Arc<MdlManager>, MdlContext, MdlContext) {
    two_contexts_with(MdlConfig::default())
}

/// Asserts, for each `(t, expected)`, whether `observer` can take `t` on `key` now.
pub fn assert_can_take(observer: &mut MdlContext, key: &MdlKey, cases: &[(LockType, bool)]) {
    for &(t, expected) in cases {
        assert_eq!(can_take(observer, key, t), expected, "{t:?} on {key:?}");
    }
}

/// Per fast-path mode ([`FastPath::ALL`] order): the mode's name, a manager, the context under
/// test and an observer context that probes what the first one holds.
pub fn two_contexts_per_mode(
) -> impl Iterator<Item = (&'static str, Arc<MdlManager>, MdlContext, MdlContext)> {
    configs().into_iter().map(|(mode, cfg)| {
        let (mgr, c, o) = two_contexts_with(cfg);
        (mode, mgr, c, o)
    })
}

/// A manager per fast-path mode, in [`FastPath::ALL`] order.
pub fn managers_per_mode() -> impl Iterator<Item = Arc<MdlManager>> {
    named_managers_per_mode().map(|(_, m)| m)
}

/// Per fast-path mode ([`FastPath::ALL`] order): the mode's name and a manager.
pub fn named_managers_per_mode() -> impl Iterator<Item = (&'static str, Arc<MdlManager>)> {
    configs()
        .into_iter()
        .map(|(mode, cfg)| (mode, MdlManager::new(cfg).expect("valid configuration")))
}

/// Polls until at least `n` requests of any context are pending, or panics after 20 s.
pub fn wait_queued(mgr: &MdlManager, n: usize) {
    let start = Instant::now();
    while pending_count(mgr) < n {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{n} waiters never queued; entries: {:?}",
            mgr.slow_path_locks()
        );
        thread::sleep(Duration::from_millis(1));
    }
}

/// Asserts that no ticket is left (no slow-path entry) and every lock object is unused.
pub fn assert_clean(mgr: &MdlManager) {
    assert!(
        mgr.slow_path_locks().is_empty(),
        "{:?}",
        mgr.slow_path_locks()
    );
    assert_eq!(mgr.unused_lock_object_count(), mgr.lock_object_count());
}

/// Drops `parts` (the contexts and workers of a test, which release what they hold) and then
/// asserts [`assert_clean`].
pub fn assert_clean_after<T>(mgr: &MdlManager, parts: T) {
    drop(parts);
    assert_clean(mgr);
}

/// A new context of `mgr` on a new thread that acquires `t` on `key` for duration `d` with
/// `timeout`; the thread returns the outcome (the ticket dies with the context).
pub fn spawn_acquire(
    mgr: &Arc<MdlManager>,
    key: &MdlKey,
    t: LockType,
    d: LockDuration,
    timeout: Duration,
) -> JoinHandle<mdl_core::Result<()>> {
    let (mgr, r) = (mgr.clone(), req(key, t, d));
    thread::spawn(move || mgr.new_context().acquire(&r, timeout).map(|_| ()))
}

/// [`spawn_acquire`] with a timeout no test reaches, returning once its request is pending
/// (one more pending request than before; the test has no other request starting meanwhile).
pub fn spawn_queued(
    mgr: &Arc<MdlManager>,
    key: &MdlKey,
    t: LockType,
    d: LockDuration,
) -> JoinHandle<mdl_core::Result<()>> {
    let before = pending_count(mgr);
    let h = spawn_acquire(mgr, key, t, d, LONG);
    wait_queued(mgr, before + 1);
    h
}

/// Pairs `(requested, pending)` (or `(requested, granted)`) of lock types.
pub type Pairs = Vec<(LockType, LockType)>;

/// Runs `cell` on every pair `(r, p)` of `types` (a matrix's rows and columns). `cell` answers
/// `None` where the pair cannot be tested, else `(got, expected, keep)`, and `got` must equal
/// `expected` (`what` names the matrix in the failure). Returns the tested pairs marked
/// `keep`, and the untested pairs.
pub fn sweep(
    types: &[LockType],
    what: &str,
    mut cell: impl FnMut(LockType, LockType) -> Option<(bool, bool, bool)>,
) -> (Pairs, Pairs) {
    let (mut kept, mut skipped) = (vec![], vec![]);
    for &r in types {
        for &p in types {
            match cell(r, p) {
                Some((got, expected, keep)) => {
                    assert_eq!(got, expected, "{what}: {r:?} with {p:?}");
                    if keep {
                        kept.push((r, p));
                    }
                }
                None => skipped.push((r, p)),
            }
        }
    }
    (kept, skipped)
}
