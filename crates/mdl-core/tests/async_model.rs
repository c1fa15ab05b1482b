//! Threads and tasks on the same locks, checked against the reference matrices: blocking
//! `acquire`s on some threads, hand-polled futures on others that are dropped at random while
//! pending. Every grant is checked against the locks the others hold; at the end nothing may be
//! left (no ticket, no queue entry, no wait-for edge).

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::Duration;

use mdl_core::{ContextId, LockDuration, LockType, MdlContext, MdlKey, MdlManager, MdlRequest};
use mdl_reference::matrix::{compatible, legal_types};
use mdl_reference::support::*;

/// The locks the workers hold, as far as they know: entered after a grant, removed before the
/// release, so always a subset of what the manager has granted. Any conflict in it is real.
#[derive(Default)]
struct Held {
    locks: Mutex<Vec<(ContextId, usize, LockType)>>,
    violations: AtomicUsize,
    grants: AtomicUsize,
    /// Futures dropped, and of those dropped while queued.
    drops: AtomicUsize,
    drops_queued: AtomicUsize,
    /// Requests refused (timeout, deadlock).
    refused: AtomicUsize,
}

impl Held {
    fn granted(&self, ctx: ContextId, keys: &[MdlKey], k: usize, ty: LockType) {
        let mut l = self.locks.lock().unwrap();
        let ns = keys[k].namespace();
        for &(c, kk, held) in l.iter() {
            if c != ctx && kk == k && !compatible(ns, ty, held) {
                eprintln!(
                    "violation: {ctx} got {ty:?} on {:?} while {c} holds {held:?}",
                    keys[k]
                );
                self.violations.fetch_add(1, Ordering::SeqCst);
            }
        }
        l.push((ctx, k, ty));
        self.grants.fetch_add(1, Ordering::Relaxed);
    }

    fn released_all(&self, ctx: ContextId) {
        self.locks.lock().unwrap().retain(|&(c, _, _)| c != ctx);
    }
}

struct Unpark(thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// One statement of 1-3 random locks; an async worker drops some of its pending futures.
fn statement(
    ctx: &mut MdlContext,
    keys: &[MdlKey],
    held: &Held,
    rng: &mut fastrand::Rng,
    asynchronous: bool,
) {
    let id = ctx.id();
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut stmt = ctx.statement();
    for _ in 0..rng.usize(1..=3) {
        let k = rng.usize(..keys.len());
        let types = legal_types(keys[k].namespace());
        let ty = types[rng.usize(..types.len())];
        let r = MdlRequest::new(keys[k].clone(), ty, LockDuration::Statement);
        let timeout = Duration::from_millis(rng.u64(1..30));
        let got = if asynchronous {
            let drop_after = rng.bool().then(|| rng.usize(0..4));
            let mut f = pin!(stmt.acquire_async(&r, timeout));
            let mut polls = 0;
            loop {
                if drop_after == Some(polls) {
                    held.drops.fetch_add(1, Ordering::Relaxed);
                    if polls > 0 {
                        held.drops_queued.fetch_add(1, Ordering::Relaxed);
                    }
                    break None;
                }
                polls += 1;
                match f.as_mut().poll(&mut Context::from_waker(&waker)) {
                    Poll::Ready(r) => break Some(r),
                    Poll::Pending => thread::park_timeout(Duration::from_millis(rng.u64(0..3))),
                }
            }
        } else {
            Some(stmt.acquire(&r, timeout))
        };
        match got {
            Some(Ok(_)) => held.granted(id, keys, k, ty),
            // Timeouts and deadlocks end the statement; a dropped future goes on.
            Some(Err(_)) => {
                held.refused.fetch_add(1, Ordering::Relaxed);
                break;
            }
            None => {}
        }
        if rng.u8(..4) == 0 {
            thread::yield_now();
        }
    }
    if rng.u8(..4) == 0 {
        // Hold the statement's locks a while, so others queue behind them.
        thread::sleep(Duration::from_micros(rng.u64(0..300)));
    }
    held.released_all(id);
    drop(stmt);
}

fn run(mgr: Arc<MdlManager>, seed: u64) {
    let keys: Arc<Vec<MdlKey>> = Arc::new(sample_keys().into_iter().take(4).collect());
    let held = Arc::new(Held::default());
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let (mgr, keys, held) = (mgr.clone(), keys.clone(), held.clone());
            thread::spawn(move || {
                let mut rng = fastrand::Rng::with_seed(seed * 31 + w);
                let mut ctx = mgr.new_context();
                for _ in 0..600 {
                    statement(&mut ctx, &keys, &held, &mut rng, w % 2 == 1);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let mode = mgr.config().fast_path;
    let n = |c: &AtomicUsize| c.load(Ordering::Relaxed);
    eprintln!(
        "{mode:?}: {} grants, {} refused, {} futures dropped ({} while queued)",
        n(&held.grants),
        n(&held.refused),
        n(&held.drops),
        n(&held.drops_queued)
    );
    assert_eq!(held.violations.load(Ordering::SeqCst), 0, "{mode:?}");
    assert!(n(&held.grants) > 100, "{mode:?}: too few grants");
    assert!(
        n(&held.drops_queued) > 10,
        "{mode:?}: too few drops while queued"
    );
    // No leaked lock, no stale queue entry, no wait-for edge.
    assert_clean(&mgr);
    assert_eq!(pending_count(&mgr), 0);
    assert!(mgr.lock_waits().rows.is_empty(), "{mode:?}");
}

#[test]
fn threads_and_tasks_with_random_drops_match_the_matrices() {
    for (i, mgr) in managers_per_mode().enumerate() {
        run(mgr, 7 + i as u64);
    }
}
