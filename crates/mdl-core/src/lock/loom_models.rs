//! Model checks of the grant protocol under every interleaving loom explores
//! (`RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p mdl-core
//! --no-default-features --lib --release loom`, as in the README).
//!
//! Per-context fast path ([`FastPath::PerContext`], the slot table has one group of 2 slots
//! under loom): a strong requester against a fast acquirer, against a fast releaser, two strong
//! requesters, a clone and a downgrade of a fast-path ticket and an upgrade while a strong
//! request arrives, and an eviction sweep against a fast acquirer. Shared word
//! ([`FastPath::SharedWord`]): a DML lock against an exclusive try and eviction, and a counter
//! release waking an obtrusive waiter. Each model checks mutual exclusion of the conflicting
//! locks, that every waiter is woken (a lost wake-up hangs, which loom reports), and that
//! everything is released at the end.

use std::sync::Arc;

use loom::sync::atomic::{AtomicBool, Ordering::SeqCst};
use loom::thread;

use super::*;
use crate::key::MdlKey;
use crate::types::Namespace;
use crate::wait::KillFlag;

/// Runs `f` under every interleaving loom explores, each time on a fresh manager state with
/// fast path `mode` and a fresh lock object.
fn model(mode: FastPath, f: impl Fn(Arc<Env>, Arc<LockObject>) + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(4);
    b.check(move || f(env(mode), new_lock()));
}

fn env(mode: FastPath) -> Arc<Env> {
    Arc::new(Env {
        mode,
        max_write_lock_count: u64::MAX,
        slots: SlotTable::new(crate::fast_path::SLOTS_PER_GROUP),
        registry: Registry::new(),
        gate: Default::default(),
    })
}

fn new_lock() -> Arc<LockObject> {
    Arc::new(LockObject::new(
        MdlKey::new(Namespace::Table, "s", "t").expect("valid key"),
    ))
}

/// A registered context and its place in the slot table.
struct Ctx {
    shared: Arc<ContextShared>,
    home: SlotHome,
}

fn ctx(env: &Env) -> Ctx {
    let shared = env.registry.register(None, None).expect("a picked id");
    let tag = shared.tag.expect("small tag");
    let home = env.slots.home(tag).expect("a slot table");
    Ctx { shared, home }
}

fn request(ctx: &Arc<ContextShared>, ty: LockType, ticket_id: u64) -> Request<'_> {
    Request {
        ctx,
        ty,
        duration: LockDuration::Statement,
        ticket_id,
    }
}

/// A holder's critical section: `me` is set while it runs, and `other` must not be.
fn hold_alone(me: &AtomicBool, other: &AtomicBool, why: &str) {
    me.store(true, SeqCst);
    assert!(!other.load(SeqCst), "{why}");
    me.store(false, SeqCst);
}

/// What a context does to take a lock: fast path if the type allows, else the slow path,
/// waiting (without a deadline) if queued.
fn take(lock: &LockObject, env: &Env, c: &mut Ctx, ty: LockType) -> Hold {
    let req = request(&c.shared, ty, c.shared.serial);
    let fast = fast_path_increment(lock.strategy, ty) != 0 && env.mode.is_on();
    match lock.acquire(env, &req, Some(&mut c.home), fast, true) {
        Outcome::Granted { hold, .. } => hold,
        Outcome::Queued { entry, .. } => {
            let never = KillFlag::new();
            let status = c.shared.wait.timed_wait(None, &never, true);
            assert_eq!(status, Some(WaitEnd::Granted));
            Hold::entry(entry)
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// A context's release, through its slot home as `MdlContext` releases.
fn give(lock: &LockObject, env: &Env, c: &Ctx, hold: Hold, ty: LockType) {
    lock.release(env, hold, ty, Some(&c.home));
}

/// Runs `f` on a new loom thread with its own handles on the lock object and the manager state.
fn spawn(
    lock: &Arc<LockObject>,
    env: &Arc<Env>,
    f: impl FnOnce(&LockObject, &Env) + Send + 'static,
) -> thread::JoinHandle<()> {
    let (lock, env) = (lock.clone(), env.clone());
    thread::spawn(move || f(&lock, &env))
}

/// Nothing is left: no slot, no queue entry, no flag but a stale `HAS_FAST_SLOTS`.
fn assert_clean(lock: &LockObject, env: &Env) {
    let word = lock.word.load(SeqCst);
    assert_eq!(word & !HAS_FAST_SLOTS, 0, "state word left at {word:#x}");
    assert!(lock.state.read_recursive().is_empty(), "queue not empty");
    let mut used = 0;
    env.slots.for_each_used(|_, _| used += 1);
    assert_eq!(used, 0, "a slot is still used");
}

/// A fast acquirer and a strong requester: SR and X are never held together, whoever comes
/// first, and the loser is woken.
#[test]
fn per_context_acquire_vs_strong_requester() {
    model(FastPath::PerContext, |env, lock| {
        let sr_in = Arc::new(AtomicBool::new(false));
        let x_in = Arc::new(AtomicBool::new(false));
        let mut a = ctx(&env);
        let mut b = ctx(&env);

        let (s, x) = (sr_in.clone(), x_in.clone());
        let dml = spawn(&lock, &env, move |l, e| {
            let h = take(l, e, &mut a, LockType::SR);
            hold_alone(&s, &x, "SR and X granted together");
            give(l, e, &a, h, LockType::SR);
        });

        let h = take(&lock, &env, &mut b, LockType::X);
        hold_alone(&x_in, &sr_in, "X and SR granted together");
        give(&lock, &env, &b, h, LockType::X);

        dml.join().expect("dml");
        assert_clean(&lock, &env);
    });
}

/// A strong requester and the release of a slot it may be transferring: X is granted only
/// after the release, and the transfer never leaves an entry behind.
#[test]
fn per_context_release_vs_strong_requester() {
    model(FastPath::PerContext, |env, lock| {
        let mut a = ctx(&env);
        let mut b = ctx(&env);
        let h = take(&lock, &env, &mut a, LockType::SR);
        assert!(matches!(h, Hold::Slot(_)));
        let sr_in = Arc::new(AtomicBool::new(true));

        let s = sr_in.clone();
        let dml = spawn(&lock, &env, move |l, e| {
            s.store(false, SeqCst);
            give(l, e, &a, h, LockType::SR);
        });

        let x = take(&lock, &env, &mut b, LockType::X);
        assert!(!sr_in.load(SeqCst), "X granted while SR held");
        give(&lock, &env, &b, x, LockType::X);

        dml.join().expect("dml");
        assert_clean(&lock, &env);
    });
}

/// Two strong requesters and a fast-path holder: one transfer, the two X locks one after the
/// other, both after the SR.
#[test]
fn two_strong_requesters() {
    model(FastPath::PerContext, |env, lock| {
        let mut a = ctx(&env);
        let h = take(&lock, &env, &mut a, LockType::SR);
        let sr_in = Arc::new(AtomicBool::new(true));
        let x_in = Arc::new(AtomicBool::new(false));

        let spawn_ddl = |mut c: Ctx| {
            let (s, x) = (sr_in.clone(), x_in.clone());
            spawn(&lock, &env, move |l, e| {
                let h = take(l, e, &mut c, LockType::X);
                assert!(!x.swap(true, SeqCst), "two X granted together");
                assert!(!s.load(SeqCst), "X granted while SR held");
                x.store(false, SeqCst);
                give(l, e, &c, h, LockType::X);
            })
        };
        let b = spawn_ddl(ctx(&env));
        let c = spawn_ddl(ctx(&env));

        sr_in.store(false, SeqCst);
        give(&lock, &env, &a, h, LockType::SR);

        b.join().expect("ddl b");
        c.join().expect("ddl c");
        assert_clean(&lock, &env);
    });
}

/// A downgrade of a fast-path ticket (clone to a weaker type, release the original) while a
/// strong request arrives: the strong request waits for both, whichever way the clone went.
#[test]
fn clone_and_downgrade_vs_strong_requester() {
    model(FastPath::PerContext, |env, lock| {
        let mut a = ctx(&env);
        let mut b = ctx(&env);
        let sw = take(&lock, &env, &mut a, LockType::SW);
        let a_in = Arc::new(AtomicBool::new(true));

        let s = a_in.clone();
        let dml = spawn(&lock, &env, move |l, e| {
            let req = request(&a.shared, LockType::SR, 2);
            let sr = l.add_clone(&req, sw, Some(&mut a.home));
            give(l, e, &a, sw, LockType::SW);
            s.store(false, SeqCst);
            give(l, e, &a, sr, LockType::SR);
        });

        let x = take(&lock, &env, &mut b, LockType::X);
        assert!(!a_in.load(SeqCst), "X granted while SW or its clone held");
        give(&lock, &env, &b, x, LockType::X);

        dml.join().expect("dml");
        assert_clean(&lock, &env);
    });
}

/// An upgrade of a fast-path SR to X by its holder while another context takes SR: the
/// holder's own SR never blocks its X, the other SR never overlaps the X.
#[test]
fn upgrade_vs_fast_acquirer() {
    model(FastPath::PerContext, |env, lock| {
        let mut a = ctx(&env);
        let mut b = ctx(&env);
        let sr = take(&lock, &env, &mut a, LockType::SR);
        let x_in = Arc::new(AtomicBool::new(false));
        let b_in = Arc::new(AtomicBool::new(false));

        let (x, bi) = (x_in.clone(), b_in.clone());
        let upgrader = spawn(&lock, &env, move |l, e| {
            let xh = take(l, e, &mut a, LockType::X);
            give(l, e, &a, sr, LockType::SR);
            hold_alone(&x, &bi, "X granted while another SR held");
            give(l, e, &a, xh, LockType::X);
        });

        let h = take(&lock, &env, &mut b, LockType::SR);
        hold_alone(&b_in, &x_in, "SR granted while X held");
        give(&lock, &env, &b, h, LockType::SR);

        upgrader.join().expect("upgrader");
        assert_clean(&lock, &env);
    });
}

/// An eviction sweep (mark, scan, unmark, destroy) against a fast acquirer: an object a slot
/// holds is never destroyed, and a claim on a marked object backs off.
#[test]
fn sweep_vs_fast_acquirer() {
    model(FastPath::PerContext, |env, lock| {
        // Used on the fast path before, released since: only the stale flag is left.
        lock.word.store(HAS_FAST_SLOTS, SeqCst);
        let a_in = Arc::new(AtomicBool::new(false));
        let destroyed = Arc::new(AtomicBool::new(false));
        let mut a = ctx(&env);

        let (ai, d) = (a_in.clone(), destroyed.clone());
        let dml = spawn(&lock, &env, move |l, e| {
            match l.claim_slot(&mut a.home, LockType::SR, LockDuration::Statement) {
                FastAcquire::Granted { hold, .. } => {
                    hold_alone(&ai, &d, "granted on a destroyed object");
                    give(l, e, &a, hold, LockType::SR);
                }
                FastAcquire::Destroyed | FastAcquire::SlowPath => {}
                FastAcquire::Moved { .. } => panic!("nothing transfers here"),
            }
        });

        if lock.mark_for_sweep() {
            store_load_fence();
            let address = lock.address().expect("fits");
            let mut held = false;
            env.slots.for_each_holding(address, |_, _| held = true);
            if held {
                lock.unmark_in_use();
            } else {
                lock.unmark_unused();
            }
        }
        if lock.try_destroy() {
            destroyed.store(true, SeqCst);
            assert!(!a_in.load(SeqCst), "destroyed while a slot held it");
        }

        dml.join().expect("dml");
        let mut used = 0;
        env.slots.for_each_used(|_, _| used += 1);
        assert_eq!(used, 0);
    });
}

/// Shared word: a DML lock (counter, or slow path once an obtrusive lock is around), a try of
/// an exclusive lock, and eviction: the two locks are never held together, eviction never
/// destroys a used object, and the word ends at 0 (or destroyed).
#[test]
fn shared_word_vs_obtrusive_vs_eviction() {
    model(FastPath::SharedWord, |env, lock| {
        let sr_in = Arc::new(AtomicBool::new(false));
        let x_in = Arc::new(AtomicBool::new(false));
        let a = ctx(&env);
        let b = ctx(&env);

        let (s, x) = (sr_in.clone(), x_in.clone());
        let dml = spawn(&lock, &env, move |l, e| {
            let req = request(&a.shared, LockType::SR, 1);
            match l.acquire(e, &req, None, true, false) {
                Outcome::Granted { hold, .. } => {
                    hold_alone(&s, &x, "SR and X granted together");
                    give(l, e, &a, hold, LockType::SR);
                }
                Outcome::Refused { .. } | Outcome::Destroyed => {}
                Outcome::Queued { .. } => panic!("not enqueued"),
                Outcome::Gated => panic!("no gate is closed in this model"),
            }
        });

        let (s, x) = (sr_in.clone(), x_in.clone());
        let ddl = spawn(&lock, &env, move |l, e| {
            let req = request(&b.shared, LockType::X, 2);
            if let Outcome::Granted { hold, .. } = l.acquire(e, &req, None, false, false) {
                hold_alone(&x, &s, "X and SR granted together");
                give(l, e, &b, hold, LockType::X);
            }
        });

        let (s, x) = (sr_in.clone(), x_in.clone());
        let evict = spawn(&lock, &env, move |l, _| {
            if l.try_destroy() {
                assert!(!s.load(SeqCst) && !x.load(SeqCst), "evicted a used object");
            }
        });

        dml.join().expect("dml");
        ddl.join().expect("ddl");
        evict.join().expect("evict");
        let state = lock.word.load(SeqCst);
        assert!(
            state == 0 || state == IS_DESTROYED,
            "state word left at {state:#x}"
        );
    });
}

/// Shared word: an exclusive request that queues behind a counter SR is granted when the SR
/// goes: the release either happens before the request looks (immediate grant) or sees
/// `HAS_OBTRUSIVE` and reschedules under the lock.
#[test]
fn shared_word_release_wakes_obtrusive_waiter() {
    model(FastPath::SharedWord, |env, lock| {
        let mut a = ctx(&env);
        let mut b = ctx(&env);
        let h = take(&lock, &env, &mut a, LockType::SR);
        assert_eq!(h, Hold::Counter);

        let dml = spawn(&lock, &env, move |l, e| give(l, e, &a, h, LockType::SR));

        let x = take(&lock, &env, &mut b, LockType::X);
        dml.join().expect("dml");
        give(&lock, &env, &b, x, LockType::X);
        assert_clean(&lock, &env);
    });
}
