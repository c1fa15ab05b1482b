//! Model-based property tests: random operation sequences over several contexts run through the
//! real [`MdlManager`] and through the single-threaded reference model (`mdl_reference::model`),
//! which must agree on the outcome of every operation and on the held locks at the end.
//!
//! Operations: `try_acquire`, `release`, `release_all_locks_for_name`, try-`upgrade` (zero
//! timeout), `downgrade`, `clone_ticket`, `savepoint`, `rollback_to_savepoint`, `has_lock`,
//! `set_lock_duration`, `release_statement_locks`, `release_transactional_locks`,
//! `owns_equal_or_stronger_lock`, a bulk fill that pushes a context past the ticket-store hash
//! threshold, and *pending requests*: helper threads park in `acquire` (observed through
//! `slow_path_locks`), are granted by the model's rescheduling (checked against the real grant),
//! or are killed. Each case picks fast path on/off, both `TicketIndex` modes, 1 or 8 shards,
//! eviction thresholds, and `max_write_lock_count` in {1, 2, 3, MAX} so hog/piglet switching
//! happens.
//!
//! Cases: `MDL_MODEL_CASES` (default 128 sequences of 37..150 operations with helpers; the
//! try-only test runs twice as many) for `sequences_match_model`; the heavy variant
//! `sequences_match_model_long` (`cargo test -p mdl-core --test model -- --ignored`) runs
//! `MDL_MODEL_LONG_CASES` (default 5000) longer sequences.

use std::sync::mpsc::TryRecvError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mdl_core::{
    ErrorKind, FastPath, KillScope, LockDuration, LockType, MdlConfig, MdlContext, MdlError,
    MdlKey, MdlManager, MdlRequest, MdlSavepoint, Namespace, Ticket, TicketIndex, HASH_THRESHOLD,
};
use mdl_reference::matrix::allowed;
use mdl_reference::model::{Acquired, Model, Savepoint, TicketId};
use mdl_reference::support::sample_keys;
use mdl_reference::Kinded;
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, TestCaseError, TestRunner};

mod helper;

use helper::{Cmd, HState, Helper};

const MAINS: usize = 3;
const HELPERS: usize = 3;

fn keys() -> Vec<MdlKey> {
    sample_keys()
}

#[derive(Debug, Clone)]
pub enum Op {
    Acquire {
        ctx: usize,
        key: usize,
        ty: u8,
        dur: u8,
    },
    Release {
        ctx: usize,
        pick: Pick,
    },
    ReleaseAllForName {
        ctx: usize,
        pick: Pick,
    },
    Upgrade {
        ctx: usize,
        pick: Pick,
        ty: u8,
    },
    Downgrade {
        ctx: usize,
        pick: Pick,
        ty: u8,
    },
    Clone {
        ctx: usize,
        pick: Pick,
        ty: u8,
        dur: u8,
    },
    Savepoint {
        ctx: usize,
    },
    Rollback {
        ctx: usize,
        sp: usize,
    },
    HasLock {
        ctx: usize,
        sp: usize,
        pick: Pick,
    },
    SetDuration {
        ctx: usize,
        pick: Pick,
        dur: u8,
    },
    EndStatement {
        ctx: usize,
    },
    EndTransaction {
        ctx: usize,
    },
    Owns {
        ctx: usize,
        key: usize,
        ty: u8,
    },
    Fill {
        ctx: usize,
    },
    HelperAcquire {
        h: usize,
        key: usize,
        ty: u8,
    },
    HelperRelease {
        h: usize,
    },
    HelperKill {
        h: usize,
    },
}

/// Which ticket an operation names: one of the context's own live tickets (usually), or any
/// ticket ever issued (another context's, or a released one).
#[derive(Debug, Clone, Copy)]
pub struct Pick {
    own: bool,
    n: usize,
}

#[derive(Debug, Clone)]
pub struct Setup {
    fast_path: FastPath,
    hashed: bool,
    shards: usize,
    low_water: usize,
    max_wlc: u64,
}

fn pick() -> impl Strategy<Value = Pick> {
    (prop::bool::weighted(0.85), any::<usize>()).prop_map(|(own, n)| Pick { own, n })
}

fn key_idx() -> impl Strategy<Value = usize> {
    // Mostly one table, so requests meet; every key now and then.
    prop_oneof![6 => Just(0usize), 2 => Just(1usize), 2 => 0..10usize]
}

fn lock_ty() -> impl Strategy<Value = u8> {
    // Every type, with extra hogs (SNW, SNRW, X), SRO and SW for the anti-starvation counters.
    prop_oneof![5 => 0..11u8, 2 => 8..11u8, 1 => Just(7u8), 1 => Just(4u8), 1 => Just(6u8)]
}

fn op() -> impl Strategy<Value = Op> {
    let c = 0..MAINS;
    let h = 0..HELPERS;
    prop_oneof![
        10 => (c.clone(), key_idx(), lock_ty(), 0..3u8)
            .prop_map(|(ctx, key, ty, dur)| Op::Acquire { ctx, key, ty, dur }),
        3 => (c.clone(), pick()).prop_map(|(ctx, pick)| Op::Release { ctx, pick }),
        1 => (c.clone(), pick()).prop_map(|(ctx, pick)| Op::ReleaseAllForName { ctx, pick }),
        3 => (c.clone(), pick(), lock_ty()).prop_map(|(ctx, pick, ty)| Op::Upgrade { ctx, pick, ty }),
        2 => (c.clone(), pick(), lock_ty()).prop_map(|(ctx, pick, ty)| Op::Downgrade { ctx, pick, ty }),
        2 => (c.clone(), pick(), lock_ty(), 0..3u8)
            .prop_map(|(ctx, pick, ty, dur)| Op::Clone { ctx, pick, ty, dur }),
        2 => c.clone().prop_map(|ctx| Op::Savepoint { ctx }),
        2 => (c.clone(), any::<usize>()).prop_map(|(ctx, sp)| Op::Rollback { ctx, sp }),
        1 => (c.clone(), any::<usize>(), pick()).prop_map(|(ctx, sp, pick)| Op::HasLock { ctx, sp, pick }),
        1 => (c.clone(), pick(), 0..3u8).prop_map(|(ctx, pick, dur)| Op::SetDuration { ctx, pick, dur }),
        2 => c.clone().prop_map(|ctx| Op::EndStatement { ctx }),
        1 => c.clone().prop_map(|ctx| Op::EndTransaction { ctx }),
        1 => (c.clone(), key_idx(), lock_ty()).prop_map(|(ctx, key, ty)| Op::Owns { ctx, key, ty }),
        1 => c.clone().prop_map(|ctx| Op::Fill { ctx }),
        8 => (h.clone(), key_idx(), lock_ty()).prop_map(|(h, key, ty)| Op::HelperAcquire { h, key, ty }),
        4 => h.clone().prop_map(|h| Op::HelperRelease { h }),
        1 => h.prop_map(|h| Op::HelperKill { h }),
    ]
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        prop::sample::select(FastPath::ALL.to_vec()),
        any::<bool>(),
        prop_oneof![Just(1usize), Just(8usize)],
        prop_oneof![Just(0usize), Just(4usize), Just(1000usize)],
        prop_oneof![Just(1u64), Just(2u64), Just(3u64), Just(u64::MAX)],
    )
        .prop_map(|(fast_path, hashed, shards, low_water, max_wlc)| Setup {
            fast_path,
            hashed,
            shards,
            low_water,
            max_wlc,
        })
}

fn ty_of(t: u8) -> LockType {
    LockType::from_id(t).unwrap()
}

fn dur_of(d: u8) -> LockDuration {
    LockDuration::ALL[d as usize]
}

// ---------------------------------------------------------------------------------------------
// The harness.

struct Harness {
    mgr: Arc<MdlManager>,
    keys: Vec<MdlKey>,
    model: Model,
    ctxs: Vec<MdlContext>,
    helpers: Vec<Helper>,
    /// Real handle of each model ticket (None for helper tickets).
    real: Vec<Option<Ticket>>,
    sps: Vec<(Savepoint, MdlSavepoint)>,
    fills: usize,
}

macro_rules! check_eq {
    ($a:expr, $b:expr, $($ctx:tt)*) => {{
        let (a, b) = (&$a, &$b);
        if a != b {
            return Err(TestCaseError::fail(format!(
                "{}: real {:?} != model {:?}",
                format!($($ctx)*),
                a,
                b
            )));
        }
    }};
}

impl Harness {
    fn new(s: &Setup) -> Harness {
        let cfg = MdlConfig::builder()
            .fast_path(s.fast_path)
            .ticket_index(if s.hashed {
                TicketIndex::Hashed
            } else {
                TicketIndex::LinearList
            })
            .shards(s.shards)
            .unused_locks_low_water(s.low_water)
            .max_write_lock_count(s.max_wlc)
            .build()
            .expect("a valid configuration");
        let mgr = MdlManager::new(cfg).unwrap();
        let ctxs = (0..MAINS).map(|_| mgr.new_context()).collect();
        let helpers = (0..HELPERS).map(|_| Helper::spawn(&mgr)).collect();
        Harness {
            keys: keys(),
            model: Model::new(MAINS + HELPERS, s.max_wlc),
            ctxs,
            helpers,
            real: Vec::new(),
            sps: Vec::new(),
            fills: 0,
            mgr,
        }
    }

    fn map(&mut self, t: TicketId, real: Ticket) {
        if self.real.len() <= t {
            self.real.resize(t + 1, None);
        }
        self.real[t] = Some(real);
    }

    /// The model ticket an operation names and its real handle.
    fn pick(&self, ctx: usize, p: Pick) -> Option<(TicketId, Ticket)> {
        let candidates: Vec<TicketId> = if p.own {
            self.model.live(ctx)
        } else {
            (0..self.model.tickets.len())
                .filter(|&t| self.real.get(t).copied().flatten().is_some())
                .collect()
        };
        if candidates.is_empty() {
            return None;
        }
        let t = candidates[p.n % candidates.len()];
        Some((t, self.real[t]?))
    }

    fn step(&mut self, op: &Op) -> Result<(), TestCaseError> {
        match *op {
            Op::Acquire { ctx, key, ty, dur } => {
                let (k, ty, d) = (self.keys[key].clone(), ty_of(ty), dur_of(dur));
                self.acquire(ctx, &k, ty, d, op)?;
            }
            Op::Release { ctx, pick } => {
                if let Some((t, real)) = self.pick(ctx, pick) {
                    let r = self.ctxs[ctx].release(real).kinded();
                    check_eq!(r, self.model.release(ctx, t), "{op:?}");
                }
            }
            Op::ReleaseAllForName { ctx, pick } => {
                if let Some((t, real)) = self.pick(ctx, pick) {
                    let r = self.ctxs[ctx].release_all_locks_for_name(real).kinded();
                    check_eq!(r, self.model.release_all_for_name(ctx, t), "{op:?}");
                }
            }
            Op::Upgrade { ctx, pick, ty } => {
                if let Some((t, real)) = self.pick(ctx, pick) {
                    let r = self.ctxs[ctx]
                        .upgrade(real, ty_of(ty), Duration::ZERO)
                        .kinded();
                    check_eq!(r, self.model.try_upgrade(ctx, t, ty_of(ty)), "{op:?}");
                }
            }
            Op::Downgrade { ctx, pick, ty } => {
                if let Some((t, real)) = self.pick(ctx, pick) {
                    let r = self.ctxs[ctx].downgrade(real, ty_of(ty)).kinded();
                    check_eq!(r, self.model.downgrade(ctx, t, ty_of(ty)), "{op:?}");
                }
            }
            Op::Clone { ctx, pick, ty, dur } => {
                if let Some((t, real)) = self.pick(ctx, pick) {
                    let r = self.ctxs[ctx].clone_ticket(real, ty_of(ty), dur_of(dur));
                    let m = self.model.clone_ticket(ctx, t, ty_of(ty), dur_of(dur));
                    check_eq!(r.is_ok(), m.is_ok(), "{op:?} ({r:?} vs {m:?})");
                    match (r, m) {
                        (Ok(r), Ok(m)) => self.map(m, r),
                        (r, m) => check_eq!(r.err().kinded(), m.err(), "{op:?}"),
                    }
                }
            }
            Op::Savepoint { ctx } => {
                let sp = (self.model.savepoint(ctx), self.ctxs[ctx].savepoint());
                self.sps.push(sp);
            }
            Op::Rollback { ctx, sp } => {
                if !self.sps.is_empty() {
                    let (m, r) = self.sps[sp % self.sps.len()];
                    let real = self.ctxs[ctx].rollback_to_savepoint(r).kinded();
                    check_eq!(real, self.model.rollback_to_savepoint(ctx, m), "{op:?}");
                }
            }
            Op::HasLock { ctx, sp, pick } => {
                if let (false, Some((t, real))) = (self.sps.is_empty(), self.pick(ctx, pick)) {
                    let (m, r) = self.sps[sp % self.sps.len()];
                    let got = self.ctxs[ctx].has_lock(r, real).kinded();
                    check_eq!(got, self.model.has_lock(ctx, m, t), "{op:?}");
                }
            }
            Op::SetDuration { ctx, pick, dur } => {
                if let Some((t, real)) = self.pick(ctx, pick) {
                    let r = self.ctxs[ctx].set_lock_duration(real, dur_of(dur)).kinded();
                    check_eq!(
                        r,
                        self.model.set_lock_duration(ctx, t, dur_of(dur)),
                        "{op:?}"
                    );
                }
            }
            Op::EndStatement { ctx } => {
                self.ctxs[ctx].release_statement_locks();
                self.model.release_statement_locks(ctx);
            }
            Op::EndTransaction { ctx } => {
                self.ctxs[ctx].release_transactional_locks();
                self.model.release_transactional_locks(ctx);
            }
            Op::Owns { ctx, key, ty } => {
                let k = &self.keys[key];
                check_eq!(
                    self.ctxs[ctx].owns_equal_or_stronger_lock(k, ty_of(ty)),
                    self.model.owns_equal_or_stronger(ctx, k, ty_of(ty)),
                    "{op:?}"
                );
            }
            Op::Fill { ctx } => {
                // Past HASH_THRESHOLD, so find_ticket goes through the hash index.
                self.fills += 1;
                for i in 0..HASH_THRESHOLD + 8 {
                    let k = MdlKey::new(Namespace::Table, "fill", &format!("f{}_{i}", self.fills))
                        .unwrap();
                    let d = LockDuration::ALL[i % 3];
                    self.acquire(ctx, &k, LockType::SharedRead, d, op)?;
                }
            }
            Op::HelperAcquire { h, key, ty } => self.helper_acquire(h, key, ty_of(ty))?,
            Op::HelperRelease { h } => {
                if let HState::Holding(t) = self.helpers[h].state {
                    self.helpers[h].tx.send(Cmd::Release).unwrap();
                    check_eq!(self.helpers[h].result(), Ok(()), "{op:?}");
                    self.model.release(MAINS + h, t).unwrap();
                    self.helpers[h].state = HState::Idle;
                }
            }
            Op::HelperKill { h } => {
                self.kill_pending_helper(h, &format!("{op:?}"))?;
            }
        }
        self.sync_helpers(op)
    }

    fn acquire(
        &mut self,
        ctx: usize,
        k: &MdlKey,
        ty: LockType,
        d: LockDuration,
        op: &Op,
    ) -> Result<(), TestCaseError> {
        let req = MdlRequest::new(k.clone(), ty, d);
        let r = self.ctxs[ctx].try_acquire(&req);
        let m = self.model.try_acquire(ctx, k, ty, d);
        match (r, m) {
            (Ok(Some(real)), Ok(Acquired::Same(t))) => {
                check_eq!(Some(real), self.real[t], "{op:?}: same ticket expected")
            }
            (Ok(Some(real)), Ok(Acquired::New(t))) => {
                // A new ticket must be a new handle (a released one's slot may be reused).
                if let Some(old) = self.real.iter().position(|x| *x == Some(real)) {
                    if self.model.tickets[old].live {
                        return Err(TestCaseError::fail(format!(
                            "{op:?}: real returned live ticket of model {old}, model made {t}"
                        )));
                    }
                }
                self.map(t, real);
            }
            (Ok(None), Ok(Acquired::NotGranted)) => {}
            (Err(e), Err(f)) => check_eq!(e.kind(), f, "{op:?}"),
            (r, m) => {
                return Err(TestCaseError::fail(format!(
                    "{op:?} {k:?} {ty:?} {d:?}: real {r:?} != model {m:?}"
                )))
            }
        }
        Ok(())
    }

    fn helper_acquire(&mut self, h: usize, key: usize, ty: LockType) -> Result<(), TestCaseError> {
        if self.helpers[h].state != HState::Idle {
            return Ok(());
        }
        let k = self.keys[key].clone();
        if !allowed(k.namespace(), ty) {
            return Ok(());
        }
        let ctx = MAINS + h;
        let d = LockDuration::Transaction;
        let grant_now = self.model.would_grant(ctx, &k, ty);
        self.helpers[h]
            .tx
            .send(Cmd::Acquire(MdlRequest::new(k.clone(), ty, d)))
            .unwrap();
        if grant_now {
            let t = match self.model.try_acquire(ctx, &k, ty, d) {
                Ok(Acquired::New(t)) => t,
                other => panic!("model: {other:?}"),
            };
            check_eq!(
                self.helpers[h].result(),
                Ok(()),
                "helper {h} acquire {k:?} {ty:?}"
            );
            self.helpers[h].state = HState::Holding(t);
        } else {
            let t = self.model.enqueue(ctx, &k, ty, d);
            self.helpers[h].state = HState::Pending(t);
            let start = Instant::now();
            loop {
                match self.helpers[h].rx.try_recv() {
                    Ok(r) => {
                        return Err(TestCaseError::fail(format!(
                            "helper {h} {k:?} {ty:?}: model queues it, real returned {r:?}"
                        )))
                    }
                    Err(TryRecvError::Empty) => {}
                    Err(e) => panic!("{e:?}"),
                }
                if self.helpers[h].queued(&self.mgr) == Some(true) {
                    break;
                }
                if start.elapsed() > Duration::from_secs(3) {
                    return Err(TestCaseError::fail("helper never queued".to_string()));
                }
                std::thread::yield_now();
            }
        }
        Ok(())
    }

    /// Helpers the model granted must have been granted for real; pending ones still queued.
    /// Kills helper `h` if its request is pending (it must end `Killed`, and leaves the
    /// model's queue); returns whether it was pending.
    fn kill_pending_helper(&mut self, h: usize, what: &str) -> Result<bool, TestCaseError> {
        let HState::Pending(t) = self.helpers[h].state else {
            return Ok(false);
        };
        self.helpers[h].kill.kill(KillScope::Connection);
        check_eq!(
            self.helpers[h].result().kinded(),
            Err(ErrorKind::Killed),
            "{what}"
        );
        self.model.dequeue(t);
        self.helpers[h].state = HState::Idle;
        Ok(true)
    }

    fn sync_helpers(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let granted = self.model.take_granted_waiters();
        for h in 0..HELPERS {
            if let HState::Pending(t) = self.helpers[h].state {
                if granted.contains(&t) {
                    check_eq!(self.helpers[h].result(), Ok(()), "{op:?}: helper {h} grant");
                    self.helpers[h].state = HState::Holding(t);
                } else {
                    check_eq!(
                        self.helpers[h].queued(&self.mgr),
                        Some(true),
                        "{op:?}: helper {h} should still wait"
                    );
                }
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<(), TestCaseError> {
        // Held locks, context by context, ticket by ticket.
        for ctx in 0..MAINS {
            let live = self.model.live(ctx);
            check_eq!(
                self.ctxs[ctx].lock_count(),
                live.len(),
                "lock_count of {ctx}"
            );
            for d in LockDuration::ALL {
                let n = live
                    .iter()
                    .filter(|&&t| self.model.tickets[t].duration == d)
                    .count();
                check_eq!(
                    self.ctxs[ctx].lock_count_of(d),
                    n,
                    "lock_count_of({d:?}) of {ctx}"
                );
            }
            for t in 0..self.model.tickets.len() {
                let Some(real) = self.real.get(t).copied().flatten() else {
                    continue;
                };
                let m = &self.model.tickets[t];
                if m.ctx != ctx {
                    continue;
                }
                let info = self.ctxs[ctx].ticket_info(real);
                if m.live {
                    let Ok(info) = info else {
                        return Err(TestCaseError::fail(format!("ticket {t} lost: {info:?}")));
                    };
                    check_eq!(
                        (info.key.clone(), info.lock_type, info.duration),
                        (m.key.clone(), m.ty, m.duration),
                        "ticket {t}"
                    );
                } else if self.real.iter().filter(|x| **x == Some(real)).count() == 1 {
                    check_eq!(
                        info.err(),
                        Some(MdlError::InvalidTicket),
                        "released ticket {t}"
                    );
                }
            }
        }
        // Pending helpers are killed; their removal may grant the other one.
        for h in 0..HELPERS {
            if self.kill_pending_helper(h, "final kill")? {
                self.sync_helpers(&Op::HelperKill { h })?;
            }
        }
        for h in 0..HELPERS {
            if let HState::Holding(_) = self.helpers[h].state {
                self.helpers[h].tx.send(Cmd::Release).unwrap();
                check_eq!(self.helpers[h].result(), Ok(()), "final helper release");
                self.helpers[h].state = HState::Idle;
            }
        }
        self.helpers.clear();
        self.ctxs.clear();
        check_eq!(
            self.mgr.slow_path_locks().len(),
            0,
            "slow-path entries left"
        );
        check_eq!(
            self.mgr.unused_lock_object_count(),
            self.mgr.lock_object_count(),
            "every lock object unused at the end"
        );
        Ok(())
    }
}

static TOTALS: Mutex<(u64, u64, u64, u64, u64)> = Mutex::new((0, 0, 0, 0, 0));

fn run_case(setup: &Setup, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut h = Harness::new(setup);
    for op in ops {
        h.step(op)?;
    }
    let s = h.model.stats;
    {
        let mut t = TOTALS.lock().unwrap();
        t.0 += 1;
        t.1 += s.matrix_switches;
        t.2 += s.rescheduled_grants;
        t.3 += s.same_ticket;
        t.4 += s.refused;
    }
    h.finish()
}

fn report(name: &str) {
    let t = *TOTALS.lock().unwrap();
    println!(
        "{name}: {} cases so far in this binary; model saw {} priority-matrix switches, {} grants \
         by rescheduling, {} reused tickets, {} refused tries",
        t.0, t.1, t.2, t.3, t.4
    );
}

fn cases(var: &str, default: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn run(cases: u32, max_len: usize) {
    let mut runner = TestRunner::new(PtConfig {
        cases,
        failure_persistence: None,
        ..PtConfig::default()
    });
    let strat = (setup(), prop::collection::vec(op(), max_len / 4..max_len));
    runner.run(&strat, |(s, ops)| run_case(&s, &ops)).unwrap();
}

#[test]
fn sequences_match_model() {
    run(cases("MDL_MODEL_CASES", 128), 150);
    report("sequences_match_model");
}

#[test]
#[ignore = "long: MDL_MODEL_LONG_CASES cases (default 5000) of up to 200 operations"]
fn sequences_match_model_long() {
    run(cases("MDL_MODEL_LONG_CASES", 5000), 200);
    report("sequences_match_model_long");
}

/// Without helpers or fills: many short sequences, quickly.
#[test]
fn try_only_sequences_match_model() {
    let mut runner = TestRunner::new(PtConfig {
        cases: cases("MDL_MODEL_CASES", 128) * 2,
        failure_persistence: None,
        ..PtConfig::default()
    });
    let strat = (
        setup(),
        prop::collection::vec(
            op().prop_filter("no helpers, no fills", |o| {
                !matches!(
                    o,
                    Op::HelperAcquire { .. }
                        | Op::HelperRelease { .. }
                        | Op::HelperKill { .. }
                        | Op::Fill { .. }
                )
            }),
            1..80,
        ),
    );
    runner.run(&strat, |(s, ops)| run_case(&s, &ops)).unwrap();
}
