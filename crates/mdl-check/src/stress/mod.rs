//! The stress run: threads replay MySQL-like statement shapes on three tables and the scoped
//! locks (GLOBAL IX/S, BACKUP_LOCK, COMMIT, SCHEMA IX/X), with DDL upgrades and downgrades,
//! LOCK TABLES, FTWRL, user locks, savepoints with clones, short and zero timeouts, and a thread
//! that kills a random context every 3 ms. A shared table of what each context holds checks at
//! every grant that no other context holds an incompatible type (the reference matrices).
//!
//! Where the soak draws every operation at random over all namespaces, the stress run keeps to
//! the shapes a server produces, so that every lock type, upgrade and downgrade happens often.
//!
//! Modules: `client` (one thread's context and statement shapes) → [`run`] here.

mod client;

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mdl_core::{
    FastPath, KillHandle, KillScope, LockType, MdlConfig, MdlKey, MdlManager, Namespace,
    PartitionHash, Ticket, TicketIndex,
};

use client::{Client, Keys};

/// What to run.
#[derive(Debug, Clone)]
pub struct StressConfig {
    /// The lock manager's configuration.
    pub mdl: MdlConfig,
    /// Statement threads (one context each).
    pub threads: usize,
    /// How long they run.
    pub duration: Duration,
    /// Seed of the per-thread random generators.
    pub seed: u64,
}

impl Default for StressConfig {
    fn default() -> Self {
        StressConfig {
            mdl: MdlConfig::default(),
            threads: 12,
            duration: Duration::from_millis(700),
            seed: 0x9E37_79B9_7F4A_7C15,
        }
    }
}

/// The configurations a stress run covers: every fast-path mode with the defaults, a slot table
/// of one group (contexts share it and often find it full) with eviction sweeps at every
/// creation, then one partition with MySQL 5.6.14's hash and eviction at every release, then
/// `max_write_lock_count = 1` (matrix switching) with the linear ticket list.
pub fn configs() -> Vec<MdlConfig> {
    let mut v: Vec<MdlConfig> = FastPath::ALL
        .into_iter()
        .map(|fast_path| {
            MdlConfig::builder()
                .fast_path(fast_path)
                .build()
                .expect("a valid configuration")
        })
        .collect();
    v.push(
        MdlConfig::builder()
            .fast_path_slots(16)
            .unused_locks_low_water(0)
            .build()
            .expect("a valid configuration"),
    );
    v.push(
        MdlConfig::builder()
            .shards(1)
            .partition_hash(PartitionHash::MySqlBin)
            .unused_locks_low_water(0)
            .build()
            .expect("a valid configuration"),
    );
    v.push(
        MdlConfig::builder()
            .max_write_lock_count(1)
            .ticket_index(TicketIndex::LinearList)
            .build()
            .expect("a valid configuration"),
    );
    v
}

/// What happened.
#[derive(Debug, Clone, Default)]
pub struct StressReport {
    /// The configuration, as `Debug` prints it.
    pub label: String,
    /// Grants (acquires, upgrades, clones) booked.
    pub grants: usize,
    /// Grants that met an incompatible lock of another context in the table (must be 0).
    pub violations: usize,
    /// The first violations, described.
    pub violation_samples: Vec<String>,
    /// Waits that timed out.
    pub timeouts: usize,
    /// Waits that ended as deadlock victims.
    pub deadlocks: usize,
    /// Waits that were killed.
    pub killed: usize,
    /// Upgrades granted.
    pub upgrades: usize,
    /// Downgrades done.
    pub downgrades: usize,
    /// Grants per lock type (index = `LockType as usize`).
    pub types_seen: [usize; 11],
    /// Threads that panicked (an API call failed where it must not; must be 0).
    pub panicked_threads: usize,
    /// Locks the table still lists after every thread ended (must be 0).
    pub leftover_held: usize,
    /// Contexts still registered at the end (must be 0).
    pub leftover_contexts: usize,
    /// Slow-path entries left at the end (must be 0).
    pub leftover_tickets: usize,
    /// Lock objects in the map at the end.
    pub lock_objects: usize,
    /// Unused lock objects at the end (must equal `lock_objects`).
    pub unused_lock_objects: usize,
}

impl StressReport {
    /// Whether every check passed: no violation, no panic, nothing left held.
    pub fn ok(&self) -> bool {
        self.violations == 0
            && self.panicked_threads == 0
            && self.leftover_held == 0
            && self.leftover_contexts == 0
            && self.leftover_tickets == 0
            && self.unused_lock_objects == self.lock_objects
    }
}

impl fmt::Display for StressReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.label)?;
        writeln!(
            f,
            "  grants {} timeouts {} deadlocks {} killed {} upgrades {} downgrades {} per type {:?}",
            self.grants,
            self.timeouts,
            self.deadlocks,
            self.killed,
            self.upgrades,
            self.downgrades,
            self.types_seen
        )?;
        write!(
            f,
            "  violations {}, panicked threads {}; left: held {}, contexts {}, tickets {}, lock objects {} (unused {})",
            self.violations,
            self.panicked_threads,
            self.leftover_held,
            self.leftover_contexts,
            self.leftover_tickets,
            self.lock_objects,
            self.unused_lock_objects
        )?;
        for v in &self.violation_samples {
            write!(f, "\n    {v}")?;
        }
        Ok(())
    }
}

#[derive(Default)]
struct Stats {
    grants: AtomicUsize,
    violations: AtomicUsize,
    timeouts: AtomicUsize,
    deadlocks: AtomicUsize,
    killed: AtomicUsize,
    upgrades: AtomicUsize,
    downgrades: AtomicUsize,
    types_seen: Mutex<[usize; 11]>,
}

/// key -> (context, ticket, type) of every lock believed held.
type Held = Mutex<HashMap<MdlKey, Vec<(u64, Ticket, LockType)>>>;

struct Shared {
    held: Held,
    stats: Stats,
    samples: Mutex<Vec<String>>,
    kills: Mutex<Vec<KillHandle>>,
    stop: AtomicBool,
}

/// Runs one stress configuration and reports.
///
/// # Panics
/// If `cfg.mdl` is not a valid configuration.
pub fn run(cfg: &StressConfig) -> StressReport {
    let label = format!("{:?}", cfg.mdl);
    let m = MdlManager::new(cfg.mdl.clone()).expect("valid MdlConfig");
    let sh = Arc::new(Shared {
        held: Mutex::new(HashMap::new()),
        stats: Stats::default(),
        samples: Mutex::new(Vec::new()),
        kills: Mutex::new(vec![]),
        stop: AtomicBool::new(false),
    });
    let tables: Vec<MdlKey> = (0..3)
        .map(|i| MdlKey::new(Namespace::Table, "db", &format!("t{i}")).unwrap())
        .collect();
    let dur = cfg.duration;
    let handles: Vec<_> = (0..cfg.threads)
        .map(|i| {
            let m = m.clone();
            let sh = sh.clone();
            let tables = tables.clone();
            let seed = cfg.seed ^ (i as u64 + 1).wrapping_mul(0x1234_5678_9ABC_DEF1);
            thread::spawn(move || {
                let keys = Keys::new();
                let ctx = m.new_context();
                sh.kills.lock().unwrap().push(ctx.kill_handle());
                let mut c = Client {
                    sh: &sh,
                    id: ctx.id().as_u64(),
                    ctx,
                    mine: vec![],
                    rng: fastrand::Rng::with_seed(seed),
                };
                let start = Instant::now();
                while start.elapsed() < dur {
                    let _ = c.step(&tables, &keys);
                    c.rollback_all();
                }
            })
        })
        .collect();
    let killer = {
        let sh = sh.clone();
        thread::spawn(move || {
            let mut rng = fastrand::Rng::with_seed(42);
            while !sh.stop.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(3));
                let kills = sh.kills.lock().unwrap();
                if !kills.is_empty() {
                    kills[rng.usize(..kills.len())].kill(KillScope::Connection);
                }
            }
        })
    };
    // A thread that panicked hit an API failure where none is allowed (its message is printed).
    let panicked_threads = handles
        .into_iter()
        .map(|h| h.join())
        .filter(Result::is_err)
        .count();
    sh.stop.store(true, Ordering::Relaxed);
    killer.join().expect("the killer thread does not panic");
    let s = &sh.stats;
    let load = |a: &AtomicUsize| a.load(Ordering::Relaxed);
    let mut rep = StressReport {
        label,
        grants: load(&s.grants),
        violations: load(&s.violations),
        violation_samples: sh.samples.lock().unwrap().clone(),
        timeouts: load(&s.timeouts),
        deadlocks: load(&s.deadlocks),
        killed: load(&s.killed),
        upgrades: load(&s.upgrades),
        downgrades: load(&s.downgrades),
        types_seen: *s.types_seen.lock().unwrap(),
        panicked_threads,
        leftover_held: sh.held.lock().unwrap().values().map(Vec::len).sum(),
        ..StressReport::default()
    };
    // The kill handles die with the shared state, before the manager is asked what is left.
    drop(sh);
    rep.leftover_contexts = m.context_count();
    rep.leftover_tickets = m.slow_path_locks().len();
    rep.lock_objects = m.lock_object_count();
    rep.unused_lock_objects = m.unused_lock_object_count();
    rep
}
