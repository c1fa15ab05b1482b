//! The wait slot: one per context, where the first of granted / victim / timeout / killed wins.
//!
//! A waiting context resets its slot (which starts a new *epoch*), queues its request on the lock
//! object, and sleeps on the slot's condvar. Whoever decides the outcome — the releasing thread
//! that grants the request, the deadlock detector choosing a victim, the waiter itself on timeout,
//! or a kill — calls [`WaitSlot::set`], which succeeds only while the slot is still empty *and*
//! still in the epoch the decider saw. So a grant racing with a timeout has exactly one winner, and
//! a stale deadlock verdict can never hit a later wait of the same context.
//!
//! Protocol: `status` and `epoch` are read and written only under the slot mutex (a leaf lock:
//! nothing else is acquired while it is held).

use std::time::Instant;

use crate::sync::{new_condvar, new_mutex, AtomicBool, Condvar, Mutex, Ordering, Site};

/// Outcome of a wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitStatus {
    Empty,
    Granted,
    Victim,
    Timeout,
    Killed,
}

struct SlotState {
    status: WaitStatus,
    epoch: u64,
}

pub(crate) struct WaitSlot {
    state: Mutex<SlotState>,
    cond: Condvar,
}

impl WaitSlot {
    pub(crate) fn new() -> WaitSlot {
        WaitSlot {
            state: new_mutex(
                Site::WaitStatus,
                SlotState {
                    status: WaitStatus::Empty,
                    epoch: 0,
                },
            ),
            cond: new_condvar(Site::WaitCond),
        }
    }

    /// Empties the slot for a new wait and returns the new epoch.
    pub(crate) fn reset(&self) -> u64 {
        let mut s = self.state.lock();
        s.status = WaitStatus::Empty;
        s.epoch += 1;
        s.epoch
    }

    /// Sets the outcome of wait `epoch` if nobody did before; returns whether it was set.
    pub(crate) fn set(&self, epoch: u64, status: WaitStatus) -> bool {
        let mut s = self.state.lock();
        if s.status != WaitStatus::Empty || s.epoch != epoch {
            return false;
        }
        s.status = status;
        drop(s);
        self.cond.notify_all();
        true
    }

    pub(crate) fn status(&self) -> WaitStatus {
        self.state.lock().status
    }

    /// Wakes the waiter so it re-checks its kill flag.
    pub(crate) fn wake(&self) {
        let _s = self.state.lock();
        self.cond.notify_all();
    }

    /// Sleeps until the slot is set, `killed` is raised, or `deadline` passes. On kill the slot
    /// becomes `Killed`; on timeout it becomes `Timeout` if `set_on_timeout`, else stays empty so
    /// the caller can do periodic work and wait again. Returns the status after the wait.
    pub(crate) fn timed_wait(
        &self,
        deadline: Option<Instant>,
        killed: &AtomicBool,
        set_on_timeout: bool,
    ) -> WaitStatus {
        let mut s = self.state.lock();
        while s.status == WaitStatus::Empty {
            if killed.load(Ordering::Acquire) {
                s.status = WaitStatus::Killed;
                break;
            }
            match deadline {
                None => self.cond.wait(&mut s),
                Some(d) => {
                    if Instant::now() >= d || self.cond.wait_until(&mut s, d).timed_out() {
                        if s.status == WaitStatus::Empty && set_on_timeout {
                            s.status = if killed.load(Ordering::Acquire) {
                                WaitStatus::Killed
                            } else {
                                WaitStatus::Timeout
                            };
                        }
                        break;
                    }
                }
            }
        }
        s.status
    }
}

/// Model checks of the wait slot (`RUSTFLAGS="--cfg loom" cargo test -p mdl-core --lib
/// --release loom`): grant, deadlock victim, kill and timeout race; exactly one outcome wins,
/// the waiter sees it, and nobody else's `set` succeeds after it.
#[cfg(all(test, loom))]
mod loom_models {
    use std::sync::Arc;
    use std::time::Instant;

    use loom::thread;

    use super::*;

    fn model(f: impl Fn() + Sync + Send + 'static) {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(3);
        b.check(f);
    }

    #[test]
    fn grant_victim_kill_race() {
        model(|| {
            let slot = Arc::new(WaitSlot::new());
            let killed = Arc::new(AtomicBool::new(false));
            let epoch = slot.reset();

            let s = slot.clone();
            let granter = thread::spawn(move || s.set(epoch, WaitStatus::Granted));
            let s = slot.clone();
            let detector = thread::spawn(move || s.set(epoch, WaitStatus::Victim));
            let (s, k) = (slot.clone(), killed.clone());
            let killer = thread::spawn(move || {
                k.store(true, Ordering::Release);
                s.wake();
            });

            let seen = slot.timed_wait(None, &killed, true);
            let granted = granter.join().expect("granter");
            let victim = detector.join().expect("detector");
            killer.join().expect("killer");
            assert_ne!(seen, WaitStatus::Empty);
            assert_eq!(seen, slot.status(), "the outcome never changes once seen");
            assert!(!(granted && victim), "two outcomes won");
            match seen {
                WaitStatus::Granted => assert!(granted),
                WaitStatus::Victim => assert!(victim),
                WaitStatus::Killed => assert!(!granted && !victim),
                other => panic!("unexpected {other:?}"),
            }
        });
    }

    #[test]
    fn grant_vs_timeout_and_stale_epoch() {
        model(|| {
            let slot = Arc::new(WaitSlot::new());
            let killed = AtomicBool::new(false);
            let epoch = slot.reset();
            let s = slot.clone();
            let granter = thread::spawn(move || s.set(epoch, WaitStatus::Granted));
            // The deadline has passed: the waiter gives up unless the grant came first.
            let seen = slot.timed_wait(Some(Instant::now()), &killed, true);
            let granted = granter.join().expect("granter");
            assert_eq!(granted, seen == WaitStatus::Granted);
            assert!(matches!(seen, WaitStatus::Granted | WaitStatus::Timeout));
            // A verdict for the finished wait cannot hit the next one.
            let next = slot.reset();
            assert!(!slot.set(epoch, WaitStatus::Victim));
            assert!(slot.set(next, WaitStatus::Victim));
        });
    }
}
