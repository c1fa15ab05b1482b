//! Multi-threaded stress: 12 threads take every lock type on a few tables, scoped locks
//! (GLOBAL IX/S, COMMIT, SCHEMA IX/X), DDL-like sequences (SU, upgrade to SNW and X, downgrade),
//! LOCK TABLES (SRO, SNRW, explicit), FTWRL (GLOBAL S + COMMIT S), user locks, short and zero
//! timeouts, and kills from a separate thread, while a shared "held" table checks at every grant
//! that no other context holds an incompatible lock (reference matrices of `common`).
//!
//! Each run lasts about 0.7 s per configuration (default, no fast path, one partition with
//! MySqlBin, `max_write_lock_count = 1`); the heavier `stress_long` (32 threads, 20 s per
//! configuration) is `#[ignore]`d: run it with
//! `cargo test -p mdl-core --release --test stress -- --ignored`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mdl_core::*;
use mdl_reference::matrix::*;
use mdl_reference::support::*;

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
    kills: Mutex<Vec<KillHandle>>,
    stop: AtomicBool,
}

/// One of `xs`, uniformly.
fn pick<T: Copy>(rng: &mut fastrand::Rng, xs: &[T]) -> T {
    xs[rng.usize(..xs.len())]
}

struct Client<'a> {
    sh: &'a Shared,
    ctx: MdlContext,
    id: u64,
    mine: Vec<(Ticket, MdlKey, LockDuration)>,
    rng: fastrand::Rng,
}

#[derive(Debug)]
struct Failed;

impl Client<'_> {
    fn record_grant(&mut self, t: Ticket, key: &MdlKey, ty: LockType) {
        let mut held = self.sh.held.lock().unwrap();
        let v = held.entry(key.clone()).or_default();
        for &(ctx, _, other) in v.iter() {
            if ctx != self.id && !compatible(key.namespace(), ty, other) {
                self.sh.stats.violations.fetch_add(1, Ordering::Relaxed);
                eprintln!(
                    "VIOLATION on {key:?}: ctx {} got {ty:?} while ctx {ctx} holds {other:?}",
                    self.id
                );
            }
        }
        v.retain(|&(c, tk, _)| !(c == self.id && tk == t));
        v.push((self.id, t, ty));
        drop(held);
        self.sh.stats.grants.fetch_add(1, Ordering::Relaxed);
        self.sh.stats.types_seen.lock().unwrap()[ty as usize] += 1;
    }

    fn forget(&mut self, pred: impl Fn(&(Ticket, MdlKey, LockDuration)) -> bool) {
        let mut held = self.sh.held.lock().unwrap();
        let id = self.id;
        self.mine.retain(|rec| {
            if pred(rec) {
                if let Some(v) = held.get_mut(&rec.1) {
                    v.retain(|&(c, tk, _)| !(c == id && tk == rec.0));
                }
                false
            } else {
                true
            }
        });
    }

    fn timeout(&mut self) -> Duration {
        pick(
            &mut self.rng,
            &[
                Duration::ZERO,
                Duration::from_millis(1),
                Duration::from_millis(5),
                Duration::from_millis(30),
            ],
        )
    }

    fn take(&mut self, key: &MdlKey, ty: LockType, d: LockDuration) -> Result<Ticket, Failed> {
        let to = self.timeout();
        match self.ctx.acquire(&req(key, ty, d), to) {
            Ok(t) => {
                let info = self.ctx.ticket_info(t).unwrap();
                assert!(info.lock_type == ty || obj_or_scoped_stronger(key, info.lock_type, ty));
                self.record_grant(t, key, info.lock_type);
                if !self.mine.iter().any(|r| r.0 == t) {
                    self.mine.push((t, key.clone(), info.duration));
                }
                Ok(t)
            }
            Err(e) => {
                self.count(e);
                Err(Failed)
            }
        }
    }

    fn count(&mut self, e: MdlError) {
        let s = &self.sh.stats;
        match e {
            MdlError::Timeout => s.timeouts.fetch_add(1, Ordering::Relaxed),
            MdlError::Deadlock => s.deadlocks.fetch_add(1, Ordering::Relaxed),
            MdlError::Killed => {
                self.ctx.reset_kill();
                s.killed.fetch_add(1, Ordering::Relaxed)
            }
            other => panic!("unexpected error {other:?}"),
        };
    }

    fn upgrade(&mut self, t: Ticket, key: &MdlKey, ty: LockType) -> Result<(), Failed> {
        let to = self.timeout();
        match self.ctx.upgrade(t, ty, to) {
            Ok(()) => {
                let now = self.ctx.ticket_info(t).unwrap().lock_type;
                self.record_grant(t, key, now);
                self.sh.stats.upgrades.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => {
                self.count(e);
                Err(Failed)
            }
        }
    }

    fn downgrade(&mut self, t: Ticket, key: &MdlKey, ty: LockType) {
        {
            // Weaker first in the table, then in the lock manager.
            let mut held = self.sh.held.lock().unwrap();
            for e in held.get_mut(key).unwrap().iter_mut() {
                if e.0 == self.id && e.1 == t {
                    e.2 = ty;
                }
            }
        }
        self.ctx.downgrade(t, ty).unwrap();
        self.sh.stats.downgrades.fetch_add(1, Ordering::Relaxed);
    }

    fn end_statement(&mut self) {
        self.forget(|r| r.2 == LockDuration::Statement);
        self.ctx.release_statement_locks();
    }

    fn commit(&mut self) {
        self.forget(|r| r.2 != LockDuration::Explicit);
        self.ctx.release_transactional_locks();
    }

    fn release(&mut self, t: Ticket) {
        self.forget(|r| r.0 == t);
        self.ctx.release(t).unwrap();
    }

    fn rollback_all(&mut self) {
        self.commit();
        let explicit: Vec<Ticket> = self.mine.iter().map(|r| r.0).collect();
        for t in explicit {
            if self.mine.iter().any(|r| r.0 == t) {
                self.release(t);
            }
        }
        assert!(!self.ctx.has_locks(), "{:?}", self.ctx);
    }

    fn step(&mut self, tables: &[MdlKey], keys: &Keys) -> Result<(), Failed> {
        use LockDuration::*;
        let t1 = tables[self.rng.usize(..tables.len())].clone();
        let t2 = tables[self.rng.usize(..tables.len())].clone();
        match self.rng.usize(..10) {
            // SELECT / DML, one or two tables, then COMMIT.
            0..=3 => {
                let ty = pick(
                    &mut self.rng,
                    &[
                        LockType::S,
                        LockType::SH,
                        LockType::SR,
                        LockType::SW,
                        LockType::SWLP,
                    ],
                );
                if ty >= LockType::SW {
                    self.take(&keys.global, LockType::IX, Statement)?;
                    self.take(&keys.commit, LockType::IX, Explicit)?;
                }
                let d = pick(&mut self.rng, &[Statement, Transaction]);
                self.take(&t1, ty, d)?;
                self.take(&t2, LockType::SR, Transaction)?;
                self.end_statement();
                self.commit();
                let c: Vec<Ticket> = self
                    .mine
                    .iter()
                    .filter(|r| r.1 == keys.commit)
                    .map(|r| r.0)
                    .collect();
                for t in c {
                    self.release(t);
                }
            }
            // ALTER TABLE: SU, upgrade to SNW then X, downgrade X -> SNW -> SU, COMMIT.
            4 | 5 => {
                self.take(&keys.global, LockType::IX, Statement)?;
                self.take(&keys.backup, LockType::IX, Transaction)?;
                self.take(&keys.schema, LockType::IX, Transaction)?;
                let su = self.take(&t1, LockType::SU, Transaction)?;
                if self.rng.usize(..2) == 0 {
                    self.upgrade(su, &t1, LockType::SNW)?;
                }
                self.upgrade(su, &t1, LockType::X)?;
                if self.rng.usize(..2) == 0 {
                    self.downgrade(su, &t1, LockType::SNW);
                    self.downgrade(su, &t1, LockType::SU);
                }
                self.commit();
            }
            // LOCK TABLES t1 READ / WRITE (explicit), UNLOCK TABLES.
            6 => {
                let ty = pick(&mut self.rng, &[LockType::SRO, LockType::SNRW]);
                if ty == LockType::SNRW {
                    self.take(&keys.global, LockType::IX, Explicit)?;
                }
                self.take(&t1, ty, Explicit)?;
                self.rollback_all();
            }
            // FLUSH TABLES WITH READ LOCK.
            7 => {
                self.take(&keys.global, LockType::S, Explicit)?;
                self.take(&keys.commit, LockType::S, Explicit)?;
                self.rollback_all();
            }
            // DROP DATABASE: GLOBAL IX, SCHEMA X, X on tables; or GET_LOCK.
            8 => {
                if self.rng.usize(..2) == 0 {
                    self.take(&keys.global, LockType::IX, Statement)?;
                    self.take(&keys.schema, LockType::X, Transaction)?;
                    self.take(&t1, LockType::X, Transaction)?;
                    self.commit();
                } else {
                    self.take(&keys.user, LockType::X, Explicit)?;
                    self.rollback_all();
                }
            }
            // Savepoint dance with clones.
            _ => {
                let sp = self.ctx.savepoint();
                let t = self.take(&t1, LockType::SNW, Transaction)?;
                let ty = pick(&mut self.rng, &[LockType::SR, LockType::SU, LockType::SRO]);
                let cl = self.ctx.clone_ticket(t, ty, Explicit).unwrap();
                self.record_grant(cl, &t1, ty);
                self.mine.push((cl, t1.clone(), Explicit));
                self.forget(|r| r.0 == t);
                self.ctx.rollback_to_savepoint(sp).unwrap();
                self.release(cl);
            }
        }
        Ok(())
    }
}

fn obj_or_scoped_stronger(key: &MdlKey, held: LockType, want: LockType) -> bool {
    if is_scoped(key.namespace()) {
        held == LockType::X || held == want
    } else {
        obj_stronger_or_equal(held, want)
    }
}

struct Keys {
    global: MdlKey,
    commit: MdlKey,
    backup: MdlKey,
    schema: MdlKey,
    user: MdlKey,
}

fn run(cfg: MdlConfig, threads: usize, dur: Duration) {
    let label = format!("{cfg:?}");
    let m = MdlManager::new(cfg).unwrap();
    let sh = Arc::new(Shared {
        held: Mutex::new(HashMap::new()),
        stats: Stats::default(),
        kills: Mutex::new(vec![]),
        stop: AtomicBool::new(false),
    });
    let tables: Vec<MdlKey> = (0..3)
        .map(|i| MdlKey::new(Namespace::Table, "db", &format!("t{i}")).unwrap())
        .collect();
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let m = m.clone();
            let sh = sh.clone();
            let tables = tables.clone();
            thread::spawn(move || {
                let keys = Keys {
                    global: MdlKey::singleton(Namespace::Global).unwrap(),
                    commit: MdlKey::singleton(Namespace::Commit).unwrap(),
                    backup: MdlKey::singleton(Namespace::BackupLock).unwrap(),
                    schema: MdlKey::new(Namespace::Schema, "db", "").unwrap(),
                    user: MdlKey::new(Namespace::UserLevelLock, "", "u").unwrap(),
                };
                let ctx = m.new_context();
                sh.kills.lock().unwrap().push(ctx.kill_handle());
                let mut c = Client {
                    sh: &sh,
                    id: ctx.id().as_u64(),
                    ctx,
                    mine: vec![],
                    rng: fastrand::Rng::with_seed(
                        0x9E37_79B9_7F4A_7C15 ^ ((i as u64 + 1) * 0x1234_5678_9ABC_DEF1),
                    ),
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
                    kills[rng.usize(..kills.len())].kill();
                }
            }
        })
    };
    for h in handles {
        h.join().unwrap();
    }
    sh.stop.store(true, Ordering::Relaxed);
    killer.join().unwrap();
    let s = &sh.stats;
    let seen = *s.types_seen.lock().unwrap();
    eprintln!(
        "{label}\n  grants {} timeouts {} deadlocks {} killed {} upgrades {} downgrades {} per type {seen:?}",
        s.grants.load(Ordering::Relaxed),
        s.timeouts.load(Ordering::Relaxed),
        s.deadlocks.load(Ordering::Relaxed),
        s.killed.load(Ordering::Relaxed),
        s.upgrades.load(Ordering::Relaxed),
        s.downgrades.load(Ordering::Relaxed),
    );
    assert_eq!(s.violations.load(Ordering::Relaxed), 0, "{label}");
    assert!(
        s.grants.load(Ordering::Relaxed) > 500,
        "{label}: too little progress"
    );
    assert!(
        seen.iter().all(|&n| n > 0),
        "{label}: every lock type granted at least once: {seen:?}"
    );
    assert!(s.upgrades.load(Ordering::Relaxed) > 0 && s.downgrades.load(Ordering::Relaxed) > 0);
    assert!(sh.held.lock().unwrap().values().all(|v| v.is_empty()));
    drop(sh);
    assert_eq!(m.context_count(), 0);
    assert!(m.slow_path_locks().is_empty(), "{:?}", m.slow_path_locks());
    assert_eq!(
        m.unused_lock_object_count(),
        m.lock_object_count(),
        "{label}: everything released"
    );
}

fn configs_under_stress() -> Vec<MdlConfig> {
    vec![
        MdlConfig::default(),
        MdlConfig {
            fast_path: FastPath::Off,
            ..MdlConfig::default()
        },
        MdlConfig {
            shards: 1,
            partition_hash: PartitionHash::MySqlBin,
            unused_locks_low_water: 0,
            ..MdlConfig::default()
        },
        MdlConfig {
            max_write_lock_count: 1,
            ticket_index: TicketIndex::LinearList,
            ..MdlConfig::default()
        },
    ]
}

#[test]
fn stress_no_incompatible_locks_at_any_grant() {
    for cfg in configs_under_stress() {
        run(cfg, 12, Duration::from_millis(700));
    }
}

#[test]
#[ignore = "long stress run (32 threads, 20 s per configuration); use --release --ignored"]
fn stress_long() {
    for cfg in configs_under_stress() {
        run(cfg, 32, Duration::from_secs(20));
    }
}
