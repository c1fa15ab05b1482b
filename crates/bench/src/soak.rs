//! A concurrent soak / stress harness for the lock manager (`mdl-bench soak`).
//!
//! Many threads, each with its own [`MdlContext`], run random operations over all 18 namespaces,
//! every lock type legal in each, all three durations: tries and waits with short (and some
//! long) timeouts, upgrades, downgrades, clones, savepoints and rollbacks, end of statement /
//! transaction, kills of other threads' contexts through [`KillHandle`], and contexts dropped
//! while holding locks. Names are skewed (a few hot names per namespace, many cold ones) so that
//! both contention and lock-object eviction happen.
//!
//! # What is checked while it runs
//!
//! * **No two incompatible locks granted to different contexts at once.** A shared *book* of
//!   held locks is updated right after a grant and right before a release (a downgrade updates it
//!   before the call), so the book is always a subset of what the manager really grants. Every
//!   insertion is checked against the book with the granted matrix of the *reference model*
//!   (`crates/mdl-core/tests/reference_model`, transcribed from the MySQL specification, not from
//!   `mdl_core::matrix`). Any conflict is a violation.
//! * **Every wait ends within its timeout plus a margin** ([`SoakConfig::wait_margin`]), whether
//!   granted, timed out, chosen as deadlock victim or killed. The worst overshoot is reported.
//! * **No deadlock without a cycle.** Threads register what they wait for in the book before
//!   calling `acquire` and unregister right after it returns. When `acquire` returns
//!   [`MdlError::Deadlock`], the victim still holds its locks, and every other member of a real
//!   cycle is still blocked (it can leave only by a timeout, a kill or as a victim itself), so
//!   the cycle is still in the book: the harness searches for a cycle *reachable* from the
//!   victim — MySQL's search treats a path deeper than `MAX_SEARCH_DEPTH` (32) as a deadlock,
//!   and a search that enters a cycle not through its start loops until that depth, so a
//!   context waiting *behind* a cycle may legitimately be the victim (edges: conflicting holders, and
//!   pending requests with priority under matrix W0 — the soak runs with the default
//!   `max_write_lock_count`, so W0 is the only matrix). A deadlock with a cycle counts as
//!   `deadlocks_with_cycle`. Without one, if no other wait ended unsuccessfully since this wait
//!   began, no member could have left, so it is a **violation**; otherwise it is counted as
//!   `deadlocks_unverified` (approximation: a cycle member may have timed out meanwhile). A
//!   member's wait can end inside the manager (and its removal grant another member, which
//!   then leaves the book) a moment before the member counts its failure, so before calling a
//!   deadlock unjustified the harness waits up to one second for such a count. With 32 threads
//!   or more, a path of 32 distinct waiters (also a deadlock to MySQL) could exist without a
//!   cycle; the harness does not model that, so keep `threads` below 32.
//! * **Every real deadlock is broken** (heuristic). A long wait (≥ 1 s) that times out while the
//!   book shows a cycle through it, *and* the same cycle (same members, same wait start times)
//!   is still there 100 ms later, is a missed deadlock: a violation.
//! * **After the run** every context is dropped: no ticket remains (`slow_path_locks` is empty,
//!   no context is registered), every lock object is unused
//!   (`unused_lock_object_count() == lock_object_count()`), and the object count respects the
//!   eviction policy (at most `unused_locks_low_water` objects, plus one per thread of slack for
//!   the approximate unused counter MySQL also has).

#[allow(dead_code, clippy::all)]
#[path = "../../mdl-core/tests/reference_model/mod.rs"]
mod reference_model;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mdl_core::{
    KillHandle, LockDuration, LockType, MdlConfig, MdlContext, MdlError, MdlKey, MdlManager,
    MdlRequest, Namespace, Ticket,
};

use reference_model::{allowed, conflicts, has_priority, is_scoped, stronger_or_equal};

/// What to run.
#[derive(Debug, Clone)]
pub struct SoakConfig {
    /// Worker threads (one context each at a time).
    pub threads: usize,
    /// Stop after this long...
    pub duration: Option<Duration>,
    /// ... or after this many operations per thread (whichever comes first; at least one of
    /// the two must be set).
    pub ops_per_thread: Option<u64>,
    /// Seed of the per-thread random generators.
    pub seed: u64,
    /// Hot names per namespace (most operations use these).
    pub hot_names: usize,
    /// Cold names per namespace (a fifth of the operations; they make eviction happen).
    pub cold_names: usize,
    /// Longest short timeout of a wait (short waits are 1 ms ..= this).
    pub max_short_wait: Duration,
    /// Timeout of a long wait (a few percent of the waits).
    pub long_wait: Duration,
    /// How late a wait may end after its timeout before it is a violation.
    pub wait_margin: Duration,
    /// Per-operation probability (in 1/10000) of killing another thread's context.
    pub kill_per_10k: u32,
    /// Per-operation probability (in 1/10000) of dropping the own context while holding locks.
    pub drop_per_10k: u32,
    /// Namespaces to use (all 18 by default).
    pub namespaces: Vec<Namespace>,
    /// Relative weights of the operations: acquire, release, upgrade, downgrade, clone,
    /// savepoint + rollback, end of statement, end of transaction.
    pub weights: [u32; 8],
    /// The lock manager's configuration.
    pub mdl: MdlConfig,
}

impl Default for SoakConfig {
    fn default() -> Self {
        SoakConfig {
            threads: 8,
            duration: Some(Duration::from_secs(3)),
            ops_per_thread: None,
            seed: 0x5EED,
            hot_names: 3,
            cold_names: 80,
            max_short_wait: Duration::from_millis(20),
            long_wait: Duration::from_millis(1500),
            wait_margin: Duration::from_secs(2),
            kill_per_10k: 20,
            drop_per_10k: 30,
            namespaces: Namespace::ALL.to_vec(),
            weights: [45, 10, 8, 5, 5, 5, 9, 13],
            mdl: MdlConfig::default(),
        }
    }
}

/// What happened.
#[derive(Debug, Clone, Default)]
pub struct SoakReport {
    /// Threads run.
    pub threads: usize,
    /// Wall time.
    pub elapsed: Duration,
    /// Operations of every kind.
    pub operations: u64,
    /// Lock requests (try or wait, upgrades included) that were granted.
    pub grants: u64,
    /// Tries (zero timeout) that were refused.
    pub refused_tries: u64,
    /// Requests that had a timeout (they may or may not have actually waited).
    pub waits: u64,
    /// Waits that ended with [`MdlError::Timeout`].
    pub timeouts: u64,
    /// Waits that ended with [`MdlError::Deadlock`].
    pub deadlocks: u64,
    /// ... of which the book showed the cycle.
    pub deadlocks_with_cycle: u64,
    /// ... of which the cycle could not be confirmed because another wait ended meanwhile.
    pub deadlocks_unverified: u64,
    /// Waits that ended with [`MdlError::Killed`].
    pub kills: u64,
    /// Kills sent.
    pub kills_sent: u64,
    /// Upgrades attempted / downgrades / clones / rollbacks done.
    pub upgrades: u64,
    /// Downgrades done.
    pub downgrades: u64,
    /// Clones made.
    pub clones: u64,
    /// Rollbacks to a savepoint.
    pub rollbacks: u64,
    /// Contexts dropped while holding locks.
    pub dropped_contexts: u64,
    /// Checks that failed (must be 0); see the module docs.
    pub violations: u64,
    /// The first few violations, described.
    pub violation_samples: Vec<String>,
    /// The latest a wait ended after its timeout.
    pub max_wait_overshoot: Duration,
    /// Tickets left after every context was dropped (slow-path entries; must be 0).
    pub leftover_tickets: usize,
    /// Contexts still registered at the end (must be 0).
    pub leftover_contexts: usize,
    /// Lock objects in the map at the end.
    pub lock_objects: usize,
    /// Unused lock objects at the end (must equal `lock_objects`).
    pub unused_lock_objects: usize,
    /// Unexpected errors returned by the API (must be 0; also counted as violations).
    pub unexpected_errors: u64,
}

impl SoakReport {
    /// Whether every check passed.
    pub fn ok(&self) -> bool {
        self.violations == 0
    }
}

impl std::fmt::Display for SoakReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "soak: {} threads, {:.1} s, {} ops ({:.0} ops/s)",
            self.threads,
            self.elapsed.as_secs_f64(),
            self.operations,
            self.operations as f64 / self.elapsed.as_secs_f64().max(1e-9)
        )?;
        writeln!(
            f,
            "  grants {}, refused tries {}, waits {}, timeouts {}, deadlocks {} (cycle seen {}, unverified {}), kills {} (sent {})",
            self.grants,
            self.refused_tries,
            self.waits,
            self.timeouts,
            self.deadlocks,
            self.deadlocks_with_cycle,
            self.deadlocks_unverified,
            self.kills,
            self.kills_sent
        )?;
        writeln!(
            f,
            "  upgrades {}, downgrades {}, clones {}, rollbacks {}, dropped contexts {}",
            self.upgrades, self.downgrades, self.clones, self.rollbacks, self.dropped_contexts
        )?;
        writeln!(
            f,
            "  max wait overshoot {:?}; leftover tickets {}, contexts {}; lock objects {} (unused {})",
            self.max_wait_overshoot,
            self.leftover_tickets,
            self.leftover_contexts,
            self.lock_objects,
            self.unused_lock_objects
        )?;
        write!(f, "  violations {}", self.violations)?;
        for v in &self.violation_samples {
            write!(f, "\n    {v}")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping shared by the threads.

#[derive(Clone, Copy)]
struct Held {
    ctx: u64,
    ty: LockType,
    uid: u64,
    how: &'static str,
    /// Held by a context inside `upgrade`: it holds this type until its wait ends, and then
    /// possibly not (a sideways upgrade such as S -> IX releases it). Grant checks skip it;
    /// cycle searches use it.
    soft: bool,
}

#[derive(Clone)]
struct Waiting {
    key: Vec<u8>,
    scoped: bool,
    ty: LockType,
    since: Instant,
}

#[derive(Default)]
struct Book {
    held: HashMap<Vec<u8>, Vec<Held>>,
    waiting: HashMap<u64, Waiting>,
}

impl Book {
    /// Whether a wait-for cycle is reachable from `start` (through it or not): with fewer than
    /// `MAX_SEARCH_DEPTH` (32) contexts, that is exactly when the manager's depth-limited
    /// search may report a deadlock from `start` (MySQL treats a path deeper than 32 as a
    /// deadlock and may pick the requester as victim).
    fn reaches_cycle(&self, start: u64) -> bool {
        // Colours: 1 = on the current path, 2 = done.
        fn go(b: &Book, n: u64, colour: &mut HashMap<u64, u8>) -> bool {
            match colour.get(&n) {
                Some(1) => return true,
                Some(_) => return false,
                None => {}
            }
            let Some(w) = b.waiting.get(&n) else {
                colour.insert(n, 2);
                return false;
            };
            colour.insert(n, 1);
            let mut next: Vec<u64> = Vec::new();
            if let Some(hs) = b.held.get(&w.key) {
                next.extend(
                    hs.iter()
                        .filter(|h| h.ctx != n && conflicts(w.scoped, w.ty, h.ty))
                        .map(|h| h.ctx),
                );
            }
            next.extend(
                b.waiting
                    .iter()
                    .filter(|(&c, o)| {
                        c != n && o.key == w.key && has_priority(w.scoped, 0, w.ty, o.ty)
                    })
                    .map(|(&c, _)| c),
            );
            for m in next {
                if go(b, m, colour) {
                    return true;
                }
            }
            colour.insert(n, 2);
            false
        }
        go(self, start, &mut HashMap::new())
    }

    fn dump(&self, me: u64) -> String {
        let mut out = String::new();
        let mut todo = vec![me];
        let mut seen = HashSet::new();
        while let Some(c) = todo.pop() {
            if !seen.insert(c) {
                continue;
            }
            let Some(w) = self.waiting.get(&c) else {
                out.push_str(&format!("[{c} not waiting] "));
                continue;
            };
            let hs: Vec<(u64, LockType)> = self
                .held
                .get(&w.key)
                .map(|v| v.iter().map(|h| (h.ctx, h.ty)).collect())
                .unwrap_or_default();
            let ws: Vec<(u64, LockType)> = self
                .waiting
                .iter()
                .filter(|(_, o)| o.key == w.key)
                .map(|(&c, o)| (c, o.ty))
                .collect();
            out.push_str(&format!(
                "[{c} waits {:?} on {:?}: held {hs:?} waiting {ws:?}] ",
                w.ty,
                String::from_utf8_lossy(&w.key)
            ));
            todo.extend(hs.iter().map(|h| h.0));
            todo.extend(ws.iter().map(|h| h.0));
        }
        out
    }

    /// A cycle of the wait-for graph through `start`, as the list of its members' wait stamps.
    fn cycle_through(&self, start: u64) -> Option<Vec<(u64, Instant)>> {
        let mut path = Vec::new();
        let mut seen = HashSet::new();
        if self.dfs(start, start, &mut path, &mut seen) {
            Some(path)
        } else {
            None
        }
    }

    fn dfs(
        &self,
        node: u64,
        start: u64,
        path: &mut Vec<(u64, Instant)>,
        seen: &mut HashSet<u64>,
    ) -> bool {
        let Some(w) = self.waiting.get(&node) else {
            return false;
        };
        if !seen.insert(node) {
            return false;
        }
        path.push((node, w.since));
        let mut next: Vec<u64> = Vec::new();
        if let Some(hs) = self.held.get(&w.key) {
            next.extend(
                hs.iter()
                    .filter(|h| h.ctx != node && conflicts(w.scoped, w.ty, h.ty))
                    .map(|h| h.ctx),
            );
        }
        next.extend(
            self.waiting
                .iter()
                .filter(|(&c, o)| {
                    c != node && o.key == w.key && has_priority(w.scoped, 0, w.ty, o.ty)
                })
                .map(|(&c, _)| c),
        );
        for n in next {
            if n == start || self.dfs(n, start, path, seen) {
                return true;
            }
        }
        path.pop();
        false
    }
}

/// How long a deadlock without a visible cycle waits for another wait's failure to be counted.
const DEADLOCK_CHECK_GRACE: Duration = Duration::from_secs(1);

struct Shared {
    cfg: SoakConfig,
    book: Mutex<Book>,
    /// Waits that ended with timeout, kill or deadlock, ever (for the deadlock check).
    failed_wait_ends: AtomicU64,
    kill_handles: Mutex<Vec<Option<KillHandle>>>,
    violations: AtomicU64,
    samples: Mutex<Vec<String>>,
    stop: AtomicBool,
    next_uid: AtomicU64,
}

impl Shared {
    fn violation(&self, what: String) {
        self.violations.fetch_add(1, Ordering::Relaxed);
        let mut s = self.samples.lock().unwrap();
        // Keep up to 3 samples of each kind (the text before the first colon).
        let kind = what.split(':').next().unwrap_or("").to_string();
        let same = s
            .iter()
            .filter(|x| x.split(':').next() == Some(kind.as_str()))
            .count();
        if s.len() < 400 && same < 3 {
            s.push(what);
        }
    }

    /// Records a grant; checks it against every other context's held locks.
    fn grant(&self, ctx: u64, key: &MdlKey, ty: LockType, how: &'static str) -> u64 {
        let uid = self.next_uid.fetch_add(1, Ordering::Relaxed);
        let scoped = is_scoped(key.namespace());
        let mut book = self.book.lock().unwrap();
        let list = book.held.entry(key.as_bytes().to_vec()).or_default();
        if let Some(other) = list
            .iter()
            .find(|h| h.ctx != ctx && !h.soft && conflicts(scoped, ty, h.ty))
        {
            let msg = format!(
                "{key}: {ty:?} granted to context {ctx} by {how} while context {} holds {:?} (by {})",
                other.ctx, other.ty, other.how
            );
            drop(book);
            self.violation(msg);
            let mut book = self.book.lock().unwrap();
            book.held
                .entry(key.as_bytes().to_vec())
                .or_default()
                .push(Held {
                    ctx,
                    ty,
                    uid,
                    how,
                    soft: false,
                });
            return uid;
        }
        list.push(Held {
            ctx,
            ty,
            uid,
            how,
            soft: false,
        });
        uid
    }

    /// Marks a held entry soft (see [`Held::soft`]).
    fn soften(&self, key: &MdlKey, uid: u64) {
        let mut book = self.book.lock().unwrap();
        if let Some(h) = book
            .held
            .get_mut(key.as_bytes())
            .and_then(|l| l.iter_mut().find(|h| h.uid == uid))
        {
            h.soft = true;
        }
    }

    fn ungrant(&self, key: &MdlKey, uid: u64) {
        let mut book = self.book.lock().unwrap();
        if let Some(list) = book.held.get_mut(key.as_bytes()) {
            list.retain(|h| h.uid != uid);
            if list.is_empty() {
                book.held.remove(key.as_bytes());
            }
        }
    }

    /// Changes the type of a held entry (upgrade after the fact, downgrade before).
    fn retype(&self, ctx: u64, key: &MdlKey, uid: u64, ty: LockType) {
        let scoped = is_scoped(key.namespace());
        let mut book = self.book.lock().unwrap();
        let Some(list) = book.held.get_mut(key.as_bytes()) else {
            return;
        };
        let conflict = list
            .iter()
            .find(|h| h.ctx != ctx && !h.soft && conflicts(scoped, ty, h.ty))
            .map(|h| (h.ctx, h.ty));
        if let Some(h) = list.iter_mut().find(|h| h.uid == uid) {
            h.ty = ty;
            h.how = "retype";
        }
        drop(book);
        if let Some((c, t)) = conflict {
            self.violation(format!(
                "{key}: context {ctx} upgraded to {ty:?} while context {c} holds {t:?}"
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A small deterministic generator (no dependency).

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // SplitMix64.
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, per_10k: u32) -> bool {
        self.below(10_000) < u64::from(per_10k)
    }

    fn pick<T: Copy>(&mut self, s: &[T]) -> T {
        s[self.below(s.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------------------------------------
// Workers.

struct Mine {
    key: MdlKey,
    ty: LockType,
    duration: LockDuration,
    uid: u64,
}

struct Worker {
    idx: usize,
    sh: Arc<Shared>,
    mgr: Arc<MdlManager>,
    ctx: Option<MdlContext>,
    rng: Rng,
    mine: HashMap<Ticket, Mine>,
    rep: SoakReport,
}

/// The types a namespace takes, by the reference model's rule (scoped: IX, S, X; object: all
/// but IX).
fn legal_types(ns: Namespace) -> Vec<LockType> {
    LockType::ALL
        .into_iter()
        .filter(|&t| allowed(ns, t))
        .collect()
}

impl Worker {
    fn ctx(&mut self) -> &mut MdlContext {
        self.ctx.as_mut().expect("context")
    }

    fn ctx_id(&self) -> u64 {
        self.ctx.as_ref().expect("context").id().as_u64()
    }

    fn new_context(&mut self) {
        let c = self.mgr.new_context();
        self.sh.kill_handles.lock().unwrap()[self.idx] = Some(c.kill_handle());
        self.ctx = Some(c);
    }

    fn random_key(&mut self) -> MdlKey {
        let ns = {
            let n = self.sh.cfg.namespaces.len() as u64;
            self.sh.cfg.namespaces[self.rng.below(n) as usize]
        };
        if ns.is_singleton() {
            return MdlKey::singleton(ns).expect("singleton");
        }
        let cfg = &self.sh.cfg;
        let n = if self.rng.chance(8000) || cfg.cold_names == 0 {
            self.rng.below(cfg.hot_names.max(1) as u64)
        } else {
            cfg.hot_names as u64 + self.rng.below(cfg.cold_names as u64)
        };
        let name = format!("n{n}");
        if ns == Namespace::ColumnStatistics {
            return MdlKey::column_statistics("db", "t", &name).expect("key");
        }
        MdlKey::new(ns, "db", &name).expect("key")
    }

    fn random_type(&mut self, ns: Namespace) -> LockType {
        self.rng.pick(&legal_types(ns))
    }

    fn random_timeout(&mut self) -> Duration {
        match self.rng.below(100) {
            0..=19 => Duration::ZERO,
            20..=96 => {
                let max = self.sh.cfg.max_short_wait.as_micros().max(1000) as u64;
                Duration::from_micros(1000 + self.rng.below(max - 999))
            }
            _ => self.sh.cfg.long_wait,
        }
    }

    fn unexpected(&mut self, what: String) {
        self.rep.unexpected_errors += 1;
        self.sh.violation(what);
    }

    fn random_ticket(&mut self) -> Option<Ticket> {
        if self.mine.is_empty() {
            return None;
        }
        let n = self.rng.below(self.mine.len() as u64) as usize;
        self.mine.keys().nth(n).copied()
    }

    /// A request with timeout; every outcome checked.
    fn request(&mut self, req: &MdlRequest, timeout: Duration) {
        let me = self.ctx_id();
        let scoped = is_scoped(req.key.namespace());
        if !timeout.is_zero() {
            self.rep.waits += 1;
            self.sh.book.lock().unwrap().waiting.insert(
                me,
                Waiting {
                    key: req.key.as_bytes().to_vec(),
                    scoped,
                    ty: req.lock_type,
                    since: Instant::now(),
                },
            );
        }
        let failed_before = self.sh.failed_wait_ends.load(Ordering::SeqCst);
        let start = Instant::now();
        let r = self.ctx().acquire(req, timeout);
        let elapsed = start.elapsed();
        if !timeout.is_zero() {
            self.check_overshoot(elapsed, timeout, "acquire");
        }
        match r {
            Ok(t) => {
                self.unregister_wait(me);
                self.rep.grants += 1;
                if let std::collections::hash_map::Entry::Vacant(e) = self.mine.entry(t) {
                    let uid = self.sh.grant(me, &req.key, req.lock_type, "acquire");
                    e.insert(Mine {
                        key: req.key.clone(),
                        ty: req.lock_type,
                        duration: req.duration,
                        uid,
                    });
                } else {
                    // The same ticket: it must satisfy the request.
                    let m = &self.mine[&t];
                    if !stronger_or_equal(scoped, m.ty, req.lock_type) || m.duration != req.duration
                    {
                        let msg = format!(
                            "reused ticket {:?} {:?} for request {:?} {:?}",
                            m.ty, m.duration, req.lock_type, req.duration
                        );
                        self.unexpected(msg);
                    }
                }
            }
            Err(MdlError::Timeout) if timeout.is_zero() => self.rep.refused_tries += 1,
            Err(e) => self.wait_failed(me, e, timeout, failed_before, "acquire"),
        }
    }

    fn unregister_wait(&self, me: u64) {
        self.sh.book.lock().unwrap().waiting.remove(&me);
    }

    fn check_overshoot(&mut self, elapsed: Duration, timeout: Duration, what: &str) {
        if elapsed > timeout {
            let over = elapsed - timeout;
            self.rep.max_wait_overshoot = self.rep.max_wait_overshoot.max(over);
            if over > self.sh.cfg.wait_margin {
                self.sh.violation(format!(
                    "{what}: wait with timeout {timeout:?} ended after {elapsed:?}"
                ));
            }
        }
    }

    /// A wait ended without a grant: classify and check.
    fn wait_failed(
        &mut self,
        me: u64,
        e: MdlError,
        timeout: Duration,
        failed_before: u64,
        op: &str,
    ) {
        match e {
            MdlError::Deadlock => {
                self.rep.deadlocks += 1;
                let book = self.sh.book.lock().unwrap();
                let cycle = book.reaches_cycle(me);
                let dump = book.dump(me);
                drop(book);
                if cycle {
                    self.rep.deadlocks_with_cycle += 1;
                } else if self.sh.failed_wait_ends.load(Ordering::SeqCst) == failed_before
                    && !self.failure_in_flight(failed_before)
                {
                    self.sh.violation(format!(
                        "{op}: context {me} got Deadlock but no wait-for cycle through it exists \
                         and no other wait ended meanwhile: {dump}"
                    ));
                } else {
                    self.rep.deadlocks_unverified += 1;
                }
            }
            MdlError::Timeout => {
                self.rep.timeouts += 1;
                if timeout >= Duration::from_secs(1) {
                    self.check_missed_deadlock(me, op);
                }
            }
            MdlError::Killed => {
                self.rep.kills += 1;
                self.ctx().reset_kill();
            }
            other => self.unexpected(format!("{op}: unexpected error {other:?}")),
        }
        // Count the failed wait *before* leaving the book: whoever checks a deadlock meanwhile
        // either still sees this wait in the book or sees the count move.
        self.sh.failed_wait_ends.fetch_add(1, Ordering::SeqCst);
        self.unregister_wait(me);
    }

    /// A cycle member's wait can end (and its removal grant another member, which then leaves
    /// the book) a moment before that member counts its failure. Give in-flight failures time to
    /// be counted before calling a deadlock unjustified.
    fn failure_in_flight(&self, failed_before: u64) -> bool {
        let deadline = Instant::now() + DEADLOCK_CHECK_GRACE;
        while Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
            if self.sh.failed_wait_ends.load(Ordering::SeqCst) != failed_before {
                return true;
            }
        }
        false
    }

    fn check_missed_deadlock(&mut self, me: u64, op: &str) {
        let first = self.sh.book.lock().unwrap().cycle_through(me);
        let Some(first) = first else { return };
        thread::sleep(Duration::from_millis(100));
        let book = self.sh.book.lock().unwrap();
        let stable = first
            .iter()
            .all(|(c, since)| book.waiting.get(c).is_some_and(|w| w.since == *since));
        let again = book.cycle_through(me);
        drop(book);
        if stable && again.is_some() {
            self.sh.violation(format!(
                "{op}: context {me} timed out in a wait-for cycle {:?} that nobody broke",
                first.iter().map(|(c, _)| *c).collect::<Vec<_>>()
            ));
        }
    }

    fn release(&mut self, t: Ticket) {
        if let Some(m) = self.mine.remove(&t) {
            self.sh.ungrant(&m.key, m.uid);
        }
        if let Err(e) = self.ctx().release(t) {
            self.unexpected(format!("release: {e:?}"));
        }
    }

    /// Forgets (and unbooks) every ticket the manager no longer knows (after bulk releases).
    fn forget_where(&mut self, mut gone: impl FnMut(&Mine) -> bool) {
        let ts: Vec<Ticket> = self
            .mine
            .iter()
            .filter(|(_, m)| gone(m))
            .map(|(t, _)| *t)
            .collect();
        for t in ts {
            let m = self.mine.remove(&t).expect("mine");
            self.sh.ungrant(&m.key, m.uid);
        }
    }

    fn end_statement(&mut self) {
        self.forget_where(|m| m.duration == LockDuration::Statement);
        self.ctx().release_statement_locks();
    }

    fn end_transaction(&mut self) {
        self.forget_where(|m| m.duration != LockDuration::Explicit);
        self.ctx().release_transactional_locks();
    }

    fn upgrade(&mut self) {
        let Some(t) = self.random_ticket() else {
            return;
        };
        let (key, held) = {
            let m = &self.mine[&t];
            (m.key.clone(), m.ty)
        };
        let ns = key.namespace();
        let target = if matches!(
            held,
            LockType::SharedUpgradable | LockType::SharedNoWrite | LockType::SharedNoReadWrite
        ) || self.rng.chance(5000)
        {
            LockType::Exclusive
        } else {
            self.random_type(ns)
        };
        let timeout = self.random_timeout();
        let me = self.ctx_id();
        self.rep.upgrades += 1;
        if !timeout.is_zero() {
            self.rep.waits += 1;
            self.sh.book.lock().unwrap().waiting.insert(
                me,
                Waiting {
                    key: key.as_bytes().to_vec(),
                    scoped: is_scoped(ns),
                    ty: target,
                    since: Instant::now(),
                },
            );
        }
        // During the upgrade the manager holds the old type, then both, then the new one: the
        // old entry is soft meanwhile (cycle searches see it, grant checks do not), and the
        // outcome is booked afterwards.
        let no_op = stronger_or_equal(is_scoped(ns), held, target);
        let old_uid = self.mine[&t].uid;
        if !no_op {
            self.sh.soften(&key, old_uid);
        }
        let failed_before = self.sh.failed_wait_ends.load(Ordering::SeqCst);
        let start = Instant::now();
        let r = self.ctx().upgrade(t, target, timeout);
        if !no_op {
            self.sh.ungrant(&key, old_uid);
            let ty = if r.is_ok() { target } else { held };
            let uid = self.sh.grant(me, &key, ty, "upgrade");
            self.mine.get_mut(&t).expect("mine").uid = uid;
        }
        let elapsed = start.elapsed();
        if !timeout.is_zero() {
            self.check_overshoot(elapsed, timeout, "upgrade");
        }
        match r {
            Ok(()) => {
                self.unregister_wait(me);
                self.rep.grants += 1;
                let info = match self.ctx().ticket_info(t) {
                    Ok(i) => i,
                    Err(e) => return self.unexpected(format!("ticket lost by upgrade: {e:?}")),
                };
                let m = self.mine.get_mut(&t).expect("mine");
                if no_op {
                    if info.lock_type != m.ty {
                        let msg =
                            format!("no-op upgrade changed {:?} to {:?}", m.ty, info.lock_type);
                        self.unexpected(msg);
                    }
                } else {
                    m.ty = target;
                    if info.lock_type != target {
                        let msg = format!("upgrade to {target:?} gave {:?}", info.lock_type);
                        self.unexpected(msg);
                    }
                }
            }
            Err(MdlError::Timeout) if timeout.is_zero() => self.rep.refused_tries += 1,
            Err(e) => self.wait_failed(me, e, timeout, failed_before, "upgrade"),
        }
    }

    fn downgrade(&mut self) {
        let Some(t) = self.random_ticket() else {
            return;
        };
        let (key, held, uid) = {
            let m = &self.mine[&t];
            (m.key.clone(), m.ty, m.uid)
        };
        let ns = key.namespace();
        let scoped = is_scoped(ns);
        let weaker: Vec<LockType> = legal_types(ns)
            .into_iter()
            .filter(|&x| stronger_or_equal(scoped, held, x))
            .collect();
        let to = self.rng.pick(&weaker);
        let me = self.ctx_id();
        // The book goes weaker first, so it never claims more than the manager grants.
        self.sh.retype(me, &key, uid, to);
        match self.ctx().downgrade(t, to) {
            Ok(()) => {
                self.rep.downgrades += 1;
                self.mine.get_mut(&t).expect("mine").ty = to;
            }
            Err(e) => {
                self.sh.retype(me, &key, uid, held);
                self.unexpected(format!("downgrade {held:?} -> {to:?}: {e:?}"));
            }
        }
    }

    fn clone_one(&mut self) {
        let Some(t) = self.random_ticket() else {
            return;
        };
        let (key, held) = {
            let m = &self.mine[&t];
            (m.key.clone(), m.ty)
        };
        let ns = key.namespace();
        let scoped = is_scoped(ns);
        let weaker: Vec<LockType> = legal_types(ns)
            .into_iter()
            .filter(|&x| stronger_or_equal(scoped, held, x))
            .collect();
        let ty = self.rng.pick(&weaker);
        let d = self.rng.pick(&LockDuration::ALL);
        match self.ctx().clone_ticket(t, ty, d) {
            Ok(c) => {
                self.rep.clones += 1;
                let me = self.ctx_id();
                let uid = self.sh.grant(me, &key, ty, "clone");
                self.mine.insert(
                    c,
                    Mine {
                        key,
                        ty,
                        duration: d,
                        uid,
                    },
                );
            }
            Err(e) => self.unexpected(format!("clone {held:?} -> {ty:?}: {e:?}")),
        }
    }

    fn savepoint_and_rollback(&mut self) {
        let sp = self.ctx().savepoint();
        for _ in 0..1 + self.rng.below(3) {
            let key = self.random_key();
            let ty = self.random_type(key.namespace());
            let d = self.rng.pick(&LockDuration::ALL);
            let timeout = self.random_timeout();
            self.request(&MdlRequest::new(key, ty, d), timeout);
        }
        // Unbook what the rollback will release.
        let ctx = self.ctx.as_ref().expect("context");
        let doomed: Vec<Ticket> = self
            .mine
            .keys()
            .copied()
            .filter(|&t| !ctx.has_lock(sp, t).unwrap_or(true))
            .collect();
        for t in doomed {
            let m = self.mine.remove(&t).expect("mine");
            self.sh.ungrant(&m.key, m.uid);
        }
        if let Err(e) = self.ctx().rollback_to_savepoint(sp) {
            self.unexpected(format!("rollback: {e:?}"));
        }
        self.rep.rollbacks += 1;
        let n = self.ctx().lock_count();
        if n != self.mine.len() {
            self.unexpected(format!(
                "after rollback the context holds {n} tickets, the worker knows {}",
                self.mine.len()
            ));
        }
    }

    fn drop_context(&mut self) {
        self.forget_where(|_| true);
        self.sh.kill_handles.lock().unwrap()[self.idx] = None;
        self.ctx = None;
        self.rep.dropped_contexts += 1;
        self.new_context();
    }

    fn kill_someone(&mut self) {
        let n = self.sh.cfg.threads;
        let victim = self.rng.below(n as u64) as usize;
        if victim == self.idx {
            return;
        }
        let h = self.sh.kill_handles.lock().unwrap()[victim].clone();
        if let Some(h) = h {
            h.kill();
            self.rep.kills_sent += 1;
        }
    }

    fn step(&mut self) {
        self.rep.operations += 1;
        if self.rng.chance(self.sh.cfg.kill_per_10k) {
            self.kill_someone();
        }
        if self.rng.chance(self.sh.cfg.drop_per_10k) {
            self.drop_context();
            return;
        }
        let w = self.sh.cfg.weights;
        let mut r = self.rng.below(u64::from(w.iter().sum::<u32>().max(1)));
        let mut op = 0;
        while op < 7 && r >= u64::from(w[op]) {
            r -= u64::from(w[op]);
            op += 1;
        }
        self.step_op(op);
    }

    fn step_op(&mut self, op: usize) {
        match op {
            0 => {
                let key = self.random_key();
                let ty = self.random_type(key.namespace());
                let d = self.rng.pick(&LockDuration::ALL);
                let timeout = self.random_timeout();
                self.request(&MdlRequest::new(key, ty, d), timeout);
            }
            1 => {
                if let Some(t) = self.random_ticket() {
                    self.release(t);
                }
            }
            2 => self.upgrade(),
            3 => self.downgrade(),
            4 => self.clone_one(),
            5 => self.savepoint_and_rollback(),
            6 => self.end_statement(),
            _ => self.end_transaction(),
        }
        if self.mine.len() > 12 {
            self.end_transaction();
            let explicit: Vec<Ticket> = self.mine.keys().copied().collect();
            for t in explicit {
                self.release(t);
            }
        }
        let n = self.ctx().lock_count();
        if n != self.mine.len() {
            self.unexpected(format!(
                "context holds {n} tickets, the worker knows {}",
                self.mine.len()
            ));
            // Resynchronize: drop everything.
            self.drop_context();
        }
    }
}

/// Runs the soak described by `cfg` and reports.
///
/// # Panics
/// If `cfg.mdl` is not a valid configuration, or neither `duration` nor `ops_per_thread` is set.
pub fn run(cfg: &SoakConfig) -> SoakReport {
    assert!(
        cfg.duration.is_some() || cfg.ops_per_thread.is_some(),
        "set a duration or an operation count"
    );
    let mgr = MdlManager::new(cfg.mdl.clone()).expect("valid MdlConfig");
    let sh = Arc::new(Shared {
        cfg: cfg.clone(),
        book: Mutex::new(Book::default()),
        failed_wait_ends: AtomicU64::new(0),
        kill_handles: Mutex::new(vec![None; cfg.threads]),
        violations: AtomicU64::new(0),
        samples: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
        next_uid: AtomicU64::new(1),
    });
    let start = Instant::now();
    let deadline = cfg.duration.map(|d| start + d);
    let handles: Vec<_> = (0..cfg.threads)
        .map(|idx| {
            let sh = sh.clone();
            let mgr = mgr.clone();
            let seed = cfg.seed ^ (idx as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407);
            thread::Builder::new()
                .name(format!("soak-{idx}"))
                .spawn(move || {
                    let mut w = Worker {
                        idx,
                        sh: sh.clone(),
                        mgr,
                        ctx: None,
                        rng: Rng(seed),
                        mine: HashMap::new(),
                        rep: SoakReport::default(),
                    };
                    w.new_context();
                    let mut n = 0u64;
                    loop {
                        if sh.stop.load(Ordering::Relaxed)
                            || sh.cfg.ops_per_thread.is_some_and(|m| n >= m)
                            || (n.is_multiple_of(16)
                                && deadline.is_some_and(|d| Instant::now() >= d))
                        {
                            break;
                        }
                        w.step();
                        n += 1;
                    }
                    w.forget_where(|_| true);
                    sh.kill_handles.lock().unwrap()[idx] = None;
                    w.ctx = None;
                    w.rep
                })
                .expect("spawn soak thread")
        })
        .collect();
    let mut rep = SoakReport {
        threads: cfg.threads,
        ..SoakReport::default()
    };
    for h in handles {
        match h.join() {
            Ok(r) => merge(&mut rep, &r),
            Err(_) => sh.violation("a soak thread panicked".into()),
        }
    }
    rep.elapsed = start.elapsed();
    rep.leftover_tickets = mgr.slow_path_locks().len();
    rep.leftover_contexts = mgr.context_count();
    rep.lock_objects = mgr.lock_object_count();
    rep.unused_lock_objects = mgr.unused_lock_object_count();
    if rep.leftover_tickets != 0 || rep.leftover_contexts != 0 {
        sh.violation(format!(
            "after the run {} tickets and {} contexts remain",
            rep.leftover_tickets, rep.leftover_contexts
        ));
    }
    if rep.unused_lock_objects != rep.lock_objects {
        sh.violation(format!(
            "after the run {} of {} lock objects are in use",
            rep.lock_objects - rep.unused_lock_objects,
            rep.lock_objects
        ));
    }
    let limit = cfg.mdl.unused_locks_low_water + cfg.threads;
    if rep.lock_objects > limit {
        sh.violation(format!(
            "after the run {} unused lock objects remain; the eviction policy allows {} (+{} slack)",
            rep.lock_objects, cfg.mdl.unused_locks_low_water, cfg.threads
        ));
    }
    if !sh.book.lock().unwrap().held.is_empty() {
        sh.violation("the harness's book still has held locks".into());
    }
    rep.violations = sh.violations.load(Ordering::Relaxed);
    rep.violation_samples = sh.samples.lock().unwrap().clone();
    rep
}

fn merge(into: &mut SoakReport, r: &SoakReport) {
    into.operations += r.operations;
    into.grants += r.grants;
    into.refused_tries += r.refused_tries;
    into.waits += r.waits;
    into.timeouts += r.timeouts;
    into.deadlocks += r.deadlocks;
    into.deadlocks_with_cycle += r.deadlocks_with_cycle;
    into.deadlocks_unverified += r.deadlocks_unverified;
    into.kills += r.kills;
    into.kills_sent += r.kills_sent;
    into.upgrades += r.upgrades;
    into.downgrades += r.downgrades;
    into.clones += r.clones;
    into.rollbacks += r.rollbacks;
    into.dropped_contexts += r.dropped_contexts;
    into.unexpected_errors += r.unexpected_errors;
    into.max_wait_overshoot = into.max_wait_overshoot.max(r.max_wait_overshoot);
}
