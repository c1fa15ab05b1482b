//! Helpers shared by the integration tests: independently transcribed reference matrices
//! (from `mysql-mdl.md` §5.1–5.3, NOT from `src/matrix.rs`), key/request shorthands, and a
//! `Worker` that owns one context on its own thread so a test can put requests into the pending
//! state deterministically (polling `slow_path_locks`, never sleeping blindly).
#![allow(dead_code)]

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use mdl_core::{
    ContextId, FastPath, KillHandle, LockDuration, LockType, MdlConfig, MdlContext, MdlKey,
    MdlManager, MdlRequest, Namespace, Ticket,
};

/// The ten object lock types, in the column order of the reference tables.
pub const OBJ: [LockType; 10] = [
    LockType::S,
    LockType::SH,
    LockType::SR,
    LockType::SW,
    LockType::SWLP,
    LockType::SU,
    LockType::SRO,
    LockType::SNW,
    LockType::SNRW,
    LockType::X,
];

/// The three scoped lock types, in the column order of the reference tables.
pub const SCOPED: [LockType; 3] = [LockType::IX, LockType::S, LockType::X];

/// §5.2 `G_obj`, row = requested, column = granted, '+' = compatible.
pub const G_OBJ: [&str; 10] = [
    "+++++++++-", // S
    "+++++++++-", // SH
    "++++++++--", // SR
    "++++++----", // SW
    "++++++----", // SWLP
    "+++++-+---", // SU
    "+++--+++--", // SRO
    "+++---+---", // SNW
    "++--------", // SNRW
    "----------", // X
];

/// §5.3 W0..W3, row = requested, column = pending, '+' = pending type has no priority.
pub const W_OBJ: [[&str; 10]; 4] = [
    [
        "+++++++++-", // S
        "++++++++++", // SH
        "++++++++--", // SR
        "+++++++---", // SW
        "++++++----", // SWLP
        "+++++++++-", // SU
        "+++-++++--", // SRO
        "+++++++++-", // SNW
        "+++++++++-", // SNRW
        "++++++++++", // X
    ],
    [
        "+++++++++-", // S
        "++++++++++", // SH
        "++++++++--", // SR
        "++++++----", // SW
        "++++++----", // SWLP
        "+++++++++-", // SU
        "++++++++--", // SRO
        "+++++++++-", // SNW
        "+++++++++-", // SNRW
        "++++++++++", // X
    ],
    [
        "++++++++++", // S
        "++++++++++", // SH
        "++++++++++", // SR
        "++++++++++", // SW
        "++++++-+++", // SWLP
        "++++++++++", // SU
        "+++-++++++", // SRO
        "+++---+++-", // SNW
        "++-----++-", // SNRW
        "-------+++", // X
    ],
    [
        "++++++++++", // S
        "++++++++++", // SH
        "++++++++++", // SR
        "++++++----", // SW
        "++++++----", // SWLP
        "++++++++++", // SU
        "++++++++++", // SRO
        "+++++-+++-", // SNW
        "++-++--++-", // SNRW
        "---++--+++", // X
    ],
];

/// §5.1 scoped granted matrix (IX, S, X).
pub const G_SCOPED: [&str; 3] = ["+--", "-+-", "---"];
/// §5.1 scoped waiting matrix #0 (IX, S, X).
pub const W_SCOPED: [&str; 3] = ["+--", "++-", "+++"];

fn obj_idx(t: LockType) -> usize {
    OBJ.iter()
        .position(|&x| x == t)
        .unwrap_or_else(|| panic!("{t:?} is not an object lock type"))
}

fn scoped_idx(t: LockType) -> usize {
    SCOPED
        .iter()
        .position(|&x| x == t)
        .unwrap_or_else(|| panic!("{t:?} is not a scoped lock type"))
}

fn cell(table: &[&str], r: usize, c: usize) -> bool {
    table[r].as_bytes()[c] == b'+'
}

/// Reference: may `req` be granted while another context holds `held`? (object strategy)
pub fn obj_compatible(req: LockType, held: LockType) -> bool {
    cell(&G_OBJ, obj_idx(req), obj_idx(held))
}

/// Reference: may `req` be granted while `pending` waits, under priority matrix `k`?
pub fn obj_no_priority(k: usize, req: LockType, pending: LockType) -> bool {
    cell(&W_OBJ[k], obj_idx(req), obj_idx(pending))
}

/// Reference: scoped granted compatibility.
pub fn scoped_compatible(req: LockType, held: LockType) -> bool {
    cell(&G_SCOPED, scoped_idx(req), scoped_idx(held))
}

/// Reference: scoped priority (matrix #0).
pub fn scoped_no_priority(req: LockType, pending: LockType) -> bool {
    cell(&W_SCOPED, scoped_idx(req), scoped_idx(pending))
}

/// Reference compatibility for any namespace.
pub fn compatible(ns: Namespace, req: LockType, held: LockType) -> bool {
    if is_scoped(ns) {
        scoped_compatible(req, held)
    } else {
        obj_compatible(req, held)
    }
}

/// §2.1, transcribed: the scoped namespaces.
pub fn is_scoped(ns: Namespace) -> bool {
    use Namespace::*;
    matches!(
        ns,
        Global
            | BackupLock
            | Tablespace
            | Schema
            | Commit
            | ResourceGroups
            | ForeignKey
            | CheckConstraint
    )
}

/// Reference "held satisfies requested" (object): everything conflicting with `req` conflicts
/// with `held` too (§5.6 is derived from G this way).
pub fn obj_stronger_or_equal(held: LockType, req: LockType) -> bool {
    OBJ.iter()
        .all(|&g| obj_compatible(held, g) <= obj_compatible(req, g))
}

pub fn mgr() -> Arc<MdlManager> {
    MdlManager::new(MdlConfig::default()).unwrap()
}

pub fn mgr_with(f: impl FnOnce(&mut MdlConfig)) -> Arc<MdlManager> {
    let mut c = MdlConfig::default();
    f(&mut c);
    MdlManager::new(c).unwrap()
}

/// Every fast-path mode, so tests exercise the fast and the slow path.
pub fn configs() -> Vec<(&'static str, MdlConfig)> {
    FastPath::ALL
        .into_iter()
        .map(|fast_path| {
            (
                fast_path.name(),
                MdlConfig {
                    fast_path,
                    ..MdlConfig::default()
                },
            )
        })
        .collect()
}

pub fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).unwrap()
}

pub fn req(key: &MdlKey, t: LockType, d: LockDuration) -> MdlRequest {
    MdlRequest::new(key.clone(), t, d)
}

pub fn treq(key: &MdlKey, t: LockType) -> MdlRequest {
    req(key, t, LockDuration::Transaction)
}

pub const LONG: Duration = Duration::from_secs(60);
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

pub fn wait_pending(mgr: &MdlManager, ctx: ContextId, key: &MdlKey, t: LockType) {
    wait_entry(mgr, ctx, key, t, false)
}

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
    pub id: ContextId,
    pub kill: KillHandle,
    tx: Option<Sender<Job>>,
    handle: Option<JoinHandle<()>>,
}

impl Worker {
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

/// Receives a job result within 20 s.
pub fn recv<R>(rx: &Receiver<R>) -> R {
    rx.recv_timeout(Duration::from_secs(20))
        .expect("no result within 20 s")
}
