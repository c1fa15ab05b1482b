//! The wait slot: one per context, where the first of granted / deadlock (victim) / timeout /
//! killed wins ([`WaitEnd`]; `None` while undecided).
//!
//! A waiting context resets its slot (which starts a new *epoch*), queues its request on the lock
//! object, and either sleeps on the slot's condvar (a thread) or registers its task's `Waker`
//! and returns `Pending` (a future). Whoever decides the outcome — the releasing thread that
//! grants the request, the deadlock detector choosing a victim, the waiter or the timer thread on
//! timeout, or a kill — calls [`WaitSlot::set`], which succeeds only while the slot is still
//! empty *and* still in the epoch the decider saw. So a grant racing with a timeout has exactly
//! one winner, and a stale deadlock verdict can never hit a later wait of the same context.
//!
//! Protocol: `status`, `epoch` and `waker` are read and written only under the slot mutex (a
//! leaf lock: nothing else is acquired while it is held). A future checks the status and stores
//! its waker in one critical section ([`WaitSlot::poll`]), and `set` takes the waker in the
//! critical section that sets the status, so an outcome decided between the two is never missed
//! (no lost wake-up). Wakers are woken after the mutex is released; a grant, decided under the
//! lock object's write lock, wakes its waiter only after the releasing thread has dropped that
//! lock too ([`Wakes`]), so the woken thread or task does not start by contending for it.
//!
//! A kill is not an outcome a killer sets: it raises the context's [`KillFlag`] and wakes the
//! waiter, which turns a raised flag into `Killed` under the slot mutex (only if nothing else
//! won first). The flag outlives the wait: it ends every later wait until it is cleared (a
//! query kill at the statement's end, a connection kill by its owner).

use std::sync::Arc;
use std::task::Waker;
use std::time::Instant;

use crate::shared::ContextShared;

use crate::sync::{new_condvar, new_mutex, AtomicU8, Condvar, Mutex, Ordering, Site};
use crate::types::KillScope;

/// A context's pending kill: none, [`KillScope::Query`] or [`KillScope::Connection`] (the
/// scope's discriminant). Raised by any thread; cleared by the thread using the context.
pub(crate) struct KillFlag(AtomicU8);

impl KillFlag {
    pub(crate) fn new() -> KillFlag {
        KillFlag(AtomicU8::new(0))
    }

    /// Whether a kill of either scope is pending.
    #[inline]
    pub(crate) fn is_raised(&self) -> bool {
        self.0.load(Ordering::Acquire) != 0
    }

    /// The pending kill's scope.
    pub(crate) fn scope(&self) -> Option<KillScope> {
        match self.0.load(Ordering::Acquire) {
            0 => None,
            1 => Some(KillScope::Query),
            _ => Some(KillScope::Connection),
        }
    }

    /// Raises a kill; a connection kill is never weakened to a query kill.
    pub(crate) fn raise(&self, scope: KillScope) {
        self.0.fetch_max(scope as u8, Ordering::AcqRel);
    }

    /// Clears a query kill (a statement ended or began); a connection kill stays.
    #[inline]
    pub(crate) fn clear_query(&self) {
        if self.0.load(Ordering::Relaxed) == KillScope::Query as u8 {
            let _ = self.0.compare_exchange(
                KillScope::Query as u8,
                0,
                Ordering::AcqRel,
                Ordering::Relaxed,
            );
        }
    }

    /// Clears any kill.
    pub(crate) fn clear(&self) {
        self.0.store(0, Ordering::Release);
    }
}

/// How a wait ended: the outcome its slot holds (`None` while undecided), what the wait-for
/// graph counts, and a span's `outcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitEnd {
    Granted,
    Timeout,
    /// Chosen as a deadlock victim.
    Deadlock,
    Killed,
    /// Given up by its future before an outcome (never a slot's outcome).
    Cancelled,
}

impl WaitEnd {
    /// The outcome's name in spans and metrics labels.
    #[cfg_attr(not(feature = "tracing"), allow(dead_code))]
    pub(crate) fn name(self) -> &'static str {
        match self {
            WaitEnd::Granted => "granted",
            WaitEnd::Timeout => "timeout",
            WaitEnd::Deadlock => "deadlock",
            WaitEnd::Killed => "killed",
            WaitEnd::Cancelled => "cancelled",
        }
    }
}

struct SlotState {
    status: Option<WaitEnd>,
    epoch: u64,
    /// The task to wake when the outcome is decided (an async wait).
    waker: Option<Waker>,
}

pub(crate) struct WaitSlot {
    state: Mutex<SlotState>,
    cond: Condvar,
}

impl WaitSlot {
    pub(crate) fn new() -> WaitSlot {
        WaitSlot {
            state: new_mutex(
                Site::WaitSlot,
                SlotState {
                    status: None,
                    epoch: 0,
                    waker: None,
                },
            ),
            cond: new_condvar(Site::WaitCond),
        }
    }

    /// Empties the slot for a new wait and returns the new epoch.
    pub(crate) fn reset(&self) -> u64 {
        let mut s = self.state.lock();
        s.status = None;
        s.epoch += 1;
        s.waker = None;
        s.epoch
    }

    /// Sets the outcome of wait `epoch` if nobody did before; returns whether it was set. Wakes
    /// the waiting thread or task.
    pub(crate) fn set(&self, epoch: u64, end: WaitEnd) -> bool {
        match self.decide(epoch, end) {
            Some(waker) => {
                self.notify(waker);
                true
            }
            None => false,
        }
    }

    /// [`WaitSlot::set`] without the wake-up: `None` if the outcome was already decided, else
    /// the task to wake (if a future waits), for [`WaitSlot::notify`] once the caller has let
    /// go of its own locks.
    pub(crate) fn decide(&self, epoch: u64, end: WaitEnd) -> Option<Option<Waker>> {
        let mut s = self.state.lock();
        if s.status.is_some() || s.epoch != epoch {
            return None;
        }
        s.status = Some(end);
        Some(s.waker.take())
    }

    /// Wakes the waiter of an outcome [`WaitSlot::decide`]d: a sleeping thread, or `waker`'s
    /// task.
    pub(crate) fn notify(&self, waker: Option<Waker>) {
        self.cond.notify_all();
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// A future's poll of wait `epoch`: the outcome if it is decided (or the context was
    /// killed, which decides it), else `Empty` with `waker` registered to be woken — in one
    /// critical section, so nothing decided in between is missed.
    pub(crate) fn poll(&self, epoch: u64, killed: &KillFlag, waker: &Waker) -> Option<WaitEnd> {
        let mut s = self.state.lock();
        if s.epoch != epoch {
            return Some(WaitEnd::Timeout);
        }
        if s.status.is_none() && killed.is_raised() {
            s.status = Some(WaitEnd::Killed);
        }
        if s.status.is_none() {
            match &mut s.waker {
                Some(w) if w.will_wake(waker) => {}
                w => *w = Some(waker.clone()),
            }
        }
        s.status
    }

    /// Wakes the registered task of wait `epoch`, if any, without deciding anything (periodic
    /// work of an async wait, see `timer.rs`).
    pub(crate) fn wake_task(&self, epoch: u64) {
        let s = self.state.lock();
        let w = (s.epoch == epoch).then(|| s.waker.clone()).flatten();
        drop(s);
        if let Some(w) = w {
            w.wake();
        }
    }

    pub(crate) fn status(&self) -> Option<WaitEnd> {
        self.state.lock().status
    }

    /// Wakes the waiter (thread or task) so it re-checks its kill flag.
    pub(crate) fn wake(&self) {
        let s = self.state.lock();
        let w = s.waker.clone();
        drop(s);
        self.cond.notify_all();
        if let Some(w) = w {
            w.wake();
        }
    }

    /// Sleeps until the slot is set, `killed` is raised, or `deadline` passes. On kill the slot
    /// becomes `Killed`; on timeout it becomes `Timeout` if `set_on_timeout`, else stays empty so
    /// the caller can do periodic work and wait again. Returns the status after the wait.
    pub(crate) fn timed_wait(
        &self,
        deadline: Option<Instant>,
        killed: &KillFlag,
        set_on_timeout: bool,
    ) -> Option<WaitEnd> {
        let mut s = self.state.lock();
        while s.status.is_none() {
            if killed.is_raised() {
                s.status = Some(WaitEnd::Killed);
                break;
            }
            match deadline {
                None => self.cond.wait(&mut s),
                Some(d) => {
                    if Instant::now() >= d || self.cond.wait_until(&mut s, d).timed_out() {
                        if s.status.is_none() && set_on_timeout {
                            s.status = if killed.is_raised() {
                                Some(WaitEnd::Killed)
                            } else {
                                Some(WaitEnd::Timeout)
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

/// Model checks of the wait slot and the kill flag (`RUSTFLAGS="--cfg loom"
/// CARGO_TARGET_DIR=target/loom cargo test -p mdl-core --no-default-features --lib --release
/// loom`, as in the README): grant, deadlock victim, kill and timeout race; exactly one outcome
/// wins, the waiter sees it, and nobody else's `set` succeeds after it; a statement end never
/// loses a connection kill.
#[cfg(all(test, loom))]
mod loom_models {
    use std::sync::Arc;
    use std::time::Instant;

    use loom::thread;

    use super::*;
    use crate::sync::AtomicBool;

    fn model(f: impl Fn() + Sync + Send + 'static) {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(3);
        b.check(f);
    }

    /// A thread that kills the waiter of `slot`, as `MdlManager::kill` does.
    fn spawn_killer(slot: &Arc<WaitSlot>, killed: &Arc<KillFlag>) -> thread::JoinHandle<()> {
        let (s, k) = (slot.clone(), killed.clone());
        thread::spawn(move || {
            k.raise(KillScope::Query);
            s.wake();
        })
    }

    #[test]
    fn grant_victim_kill_race() {
        model(|| {
            let slot = Arc::new(WaitSlot::new());
            let killed = Arc::new(KillFlag::new());
            let epoch = slot.reset();

            let s = slot.clone();
            let granter = thread::spawn(move || s.set(epoch, WaitEnd::Granted));
            let s = slot.clone();
            let detector = thread::spawn(move || s.set(epoch, WaitEnd::Deadlock));
            let killer = spawn_killer(&slot, &killed);

            let seen = slot.timed_wait(None, &killed, true);
            let granted = granter.join().expect("granter");
            let victim = detector.join().expect("detector");
            killer.join().expect("killer");
            assert!(seen.is_some());
            assert_eq!(seen, slot.status(), "the outcome never changes once seen");
            assert!(!(granted && victim), "two outcomes won");
            match seen {
                Some(WaitEnd::Granted) => assert!(granted),
                Some(WaitEnd::Deadlock) => assert!(victim),
                Some(WaitEnd::Killed) => assert!(!granted && !victim),
                other => panic!("unexpected {other:?}"),
            }
        });
    }

    /// A waker that raises a flag.
    struct Flag(Arc<AtomicBool>);

    impl std::task::Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    /// A future's poll (status check + waker registration) racing with a grant and with a
    /// kill: either the poll sees the outcome, or the waker it registered is woken — never
    /// neither (a lost wake-up would leave the task pending forever).
    #[test]
    fn future_poll_vs_grant_and_kill_no_lost_wakeup() {
        model(|| {
            let slot = Arc::new(WaitSlot::new());
            let killed = Arc::new(KillFlag::new());
            let epoch = slot.reset();
            let woken = Arc::new(AtomicBool::new(false));
            let waker = Waker::from(Arc::new(Flag(woken.clone())));

            let s = slot.clone();
            let granter = thread::spawn(move || s.set(epoch, WaitEnd::Granted));
            let killer = spawn_killer(&slot, &killed);
            let first = slot.poll(epoch, &killed, &waker);
            let granted = granter.join().expect("granter");
            killer.join().expect("killer");
            if first.is_none() {
                assert!(woken.load(Ordering::SeqCst), "lost wake-up");
            }
            // The next poll sees the outcome, and it is the one that won.
            let next = slot.poll(epoch, &killed, &waker);
            assert!(next.is_some());
            assert_eq!(next == Some(WaitEnd::Granted), granted);
        });
    }

    /// A statement end clearing a query kill while another thread kills the connection: the
    /// connection kill is never lost, whatever the interleaving (the clear only removes a
    /// query kill, by compare-and-swap).
    #[test]
    fn clearing_a_query_kill_never_loses_a_connection_kill() {
        model(|| {
            let killed = Arc::new(KillFlag::new());
            killed.raise(KillScope::Query);
            let k = killed.clone();
            let killer = thread::spawn(move || k.raise(KillScope::Connection));
            killed.clear_query();
            killer.join().expect("killer");
            assert_eq!(killed.scope(), Some(KillScope::Connection));
        });
    }

    #[test]
    fn grant_vs_timeout_and_stale_epoch() {
        model(|| {
            let slot = Arc::new(WaitSlot::new());
            let killed = KillFlag::new();
            let epoch = slot.reset();
            let s = slot.clone();
            let granter = thread::spawn(move || s.set(epoch, WaitEnd::Granted));
            // The deadline has passed: the waiter gives up unless the grant came first.
            let seen = slot.timed_wait(Some(Instant::now()), &killed, true);
            let granted = granter.join().expect("granter");
            assert_eq!(granted, seen == Some(WaitEnd::Granted));
            assert!(matches!(
                seen,
                Some(WaitEnd::Granted) | Some(WaitEnd::Timeout)
            ));
            // A verdict for the finished wait cannot hit the next one.
            let next = slot.reset();
            assert!(!slot.set(epoch, WaitEnd::Deadlock));
            assert!(slot.set(next, WaitEnd::Deadlock));
        });
    }
}

/// Waiters granted under a lock object's write lock, to wake once it is released: dropping
/// this wakes them, so a caller drops the lock's guard first. `None` (no allocation, and a drop
/// that is one inline check) when nothing was granted, the usual release.
#[derive(Default)]
#[must_use = "dropping the lock's guard first is the point"]
pub(crate) struct Wakes(Option<Vec<(Arc<ContextShared>, Option<Waker>)>>);

impl Wakes {
    pub(crate) fn push(&mut self, ctx: &Arc<ContextShared>, waker: Option<Waker>) {
        self.0
            .get_or_insert_with(Vec::new)
            .push((ctx.clone(), waker));
    }
}

#[cold]
#[inline(never)]
fn wake_all(list: Vec<(Arc<ContextShared>, Option<Waker>)>) {
    for (ctx, waker) in list {
        ctx.wait.notify(waker);
    }
}

impl Drop for Wakes {
    /// Inline: a drain or a `Vec`'s drop out of line cost the `off` mode's SR acquire +
    /// release 80 instructions.
    #[inline]
    fn drop(&mut self) {
        if let Some(list) = self.0.take() {
            wake_all(list);
        }
    }
}
