//! Deadlines of async waits, without a runtime: one timer thread per manager.
//!
//! A blocked thread times its own wait (its condvar wait has a deadline). A future cannot: it
//! only runs when polled. So an async wait with a deadline, or with periodic work to do (the
//! owner's once-a-second notifications and connection checks, a delayed deadlock search),
//! schedules an *alarm* here: at the deadline the timer thread sets the wait's slot to
//! `Timeout` (the first outcome still wins: a grant that came first stays a grant) or, for
//! periodic work, only wakes the task so its next poll does the work. The core stays
//! runtime-agnostic (std `Waker`s only), and the caller needs no `select!` against a runtime's
//! sleep.
//!
//! Each [`crate::MdlManager`] owns a [`Timer`]: its own heap of alarms behind its own mutex and
//! its own thread (`mdl-timer`, started by the first alarm, ended when the manager drops), so
//! managers share nothing.
//!
//! With [`AsyncTimer::Tokio`] (feature `tokio`), a wait that begins inside a tokio runtime
//! schedules no alarm here: its future holds a `tokio::time::Sleep` until the earlier of its
//! deadline and its next periodic work, polls it with the wait slot, and does on its own poll
//! what an alarm would (`context/asynchronous.rs`). The worker whose timer fires runs the task
//! itself; an alarm takes two scheduler hops (this thread wakes, then the task's worker), which
//! a machine with more busy threads than cores makes late (the `async` report's part d).
//!
//! # Cancelling costs no lock
//!
//! A context has at most one wait, hence at most one alarm of each kind ([`Alarm`]); the one
//! scheduled is named in the context's own `alarms` word of that kind (its deadline as a
//! *key*, nanoseconds since the timer's start, plus one so that 0 means none). Cancelling an
//! alarm — the wait ended first, or its future was dropped — is one store of 0 there: the woken
//! task's poll takes no timer lock. The heap keeps the entry (a `Weak` of the context, so a
//! cancelled alarm keeps nothing alive); when it comes due, the timer thread acts only if the
//! context's word still holds its key. Stale entries are dropped as they come due, and the heap
//! is compacted (entries whose context's word no longer names them removed) whenever it has
//! doubled since the last compaction, so a cancelled far deadline (a one-year
//! `lock_wait_timeout`) costs its memory only until then.
//!
//! Races: a cancel (or a reschedule) between the thread's check of the word and its action only
//! makes the action stale, and stale actions are harmless: the slot's outcome is set only for
//! the wait's epoch and only if it has none (`wait.rs`), and a stray wake-up makes a task poll
//! once more. The loom model `alarm_vs_grant_and_cancel` checks it.
//!
//! Protocol: the heap is guarded by the timer's mutex, held only to push alarms, pop due ones
//! and compact; actions run after it is released (lock order: timer → wait slot, never the
//! other way). The alarm words are written by the context's owner (schedule, cancel) and read by
//! the timer thread.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use crate::shared::ContextShared;
use crate::sync::Ordering;
use crate::wait::WaitEnd;

/// Which timer ends the deadlines of async waits, and wakes them for their periodic work
/// ([`MdlConfig::async_timer`](crate::MdlConfig::async_timer)). Blocking waits time themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AsyncTimer {
    /// The manager's own `mdl-timer` thread: works under any executor, and sleeps to the
    /// deadline (sub-millisecond lateness on an idle machine).
    #[default]
    Thread,
    /// The tokio runtime's timer, for waits that begin inside a tokio runtime (elsewhere, the
    /// manager's thread): one scheduler hop fewer, so deadlines stay punctual when the machine
    /// has more busy threads than cores, at the runtime timer's 1 ms resolution. The runtime
    /// must have its time driver enabled (`enable_time` or `enable_all`): as with
    /// `tokio::time::sleep`, tokio panics otherwise.
    #[cfg(feature = "tokio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
    Tokio,
}

/// What an alarm does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Alarm {
    /// End the wait with `Timeout` (unless it already has an outcome).
    Timeout = 0,
    /// Wake the task for its periodic work.
    Wake = 1,
}

/// A scheduled alarm: its key (ordering the heap), what it does, for which wait.
struct Entry {
    key: u64,
    alarm: Alarm,
    epoch: u64,
    ctx: Weak<ContextShared>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Entry) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Entry) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

#[derive(Default)]
struct State {
    heap: BinaryHeap<Reverse<Entry>>,
    /// The heap's size after the last compaction.
    compacted: usize,
    started: bool,
    shutdown: bool,
}

struct Shared {
    /// Keys count nanoseconds from here.
    base: Instant,
    state: Mutex<State>,
    cond: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The key of `at`: nanoseconds since `base`, plus one (never 0; saturating far away).
    fn key(&self, at: Instant) -> u64 {
        let ns = at.saturating_duration_since(self.base).as_nanos();
        u64::try_from(ns).unwrap_or(u64::MAX - 1) + 1
    }

    fn instant(&self, key: u64) -> Option<Instant> {
        self.base.checked_add(Duration::from_nanos(key - 1))
    }
}

/// A manager's timer (see the module docs).
pub(crate) struct Timer {
    shared: Arc<Shared>,
}

impl Timer {
    pub(crate) fn new() -> Timer {
        Timer {
            shared: Arc::new(Shared {
                base: Instant::now(),
                state: Mutex::new(State::default()),
                cond: Condvar::new(),
            }),
        }
    }

    /// Schedules an alarm of kind `alarm` for wait `epoch` of `ctx` at `at`, replacing the one
    /// of that kind the context had.
    pub(crate) fn schedule(&self, at: Instant, ctx: &Arc<ContextShared>, epoch: u64, alarm: Alarm) {
        let sh = &self.shared;
        let key = sh.key(at);
        ctx.alarms[alarm as usize].store(key, Ordering::Release);
        let mut s = sh.lock();
        let earliest = s.heap.peek().is_none_or(|Reverse(e)| key < e.key);
        s.heap.push(Reverse(Entry {
            key,
            alarm,
            epoch,
            ctx: Arc::downgrade(ctx),
        }));
        if s.heap.len() > 2 * s.compacted.max(32) {
            compact(&mut s);
        }
        if !s.started {
            s.started = true;
            let thread = sh.clone();
            let spawned = std::thread::Builder::new()
                .name("mdl-timer".into())
                .spawn(move || run(&thread));
            if spawned.is_err() {
                // No thread: alarms cannot fire; waits end at their next poll after the
                // deadline instead (`Acquire::poll` checks it), and periodic work is skipped.
                s.started = false;
            }
        }
        drop(s);
        if earliest {
            sh.cond.notify_one();
        }
    }

    /// Alarms in the heap, live or stale (tests).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn entries(&self) -> usize {
        self.shared.lock().heap.len()
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.cond.notify_one();
    }
}

/// Cancels the context's alarm of kind `alarm`, if one is scheduled: one store.
#[inline]
pub(crate) fn cancel(ctx: &ContextShared, alarm: Alarm) {
    ctx.alarms[alarm as usize].store(0, Ordering::Release);
}

/// Whether the context has an alarm of kind `alarm` scheduled.
#[cfg(all(test, not(loom)))]
pub(crate) fn is_scheduled(ctx: &ContextShared, alarm: Alarm) -> bool {
    ctx.alarms[alarm as usize].load(Ordering::Acquire) != 0
}

/// Does what a due alarm says, if the context still has it scheduled (`key`).
fn fire(ctx: &ContextShared, alarm: Alarm, key: u64, epoch: u64) {
    if ctx.alarms[alarm as usize].load(Ordering::Acquire) != key {
        return;
    }
    match alarm {
        Alarm::Timeout => {
            ctx.wait.set(epoch, WaitEnd::Timeout);
        }
        Alarm::Wake => ctx.wait.wake_task(epoch),
    }
}

/// Drops the entries no context names any more.
fn compact(s: &mut State) {
    let heap = std::mem::take(&mut s.heap);
    s.heap = heap
        .into_iter()
        .filter(|Reverse(e)| {
            e.ctx
                .upgrade()
                .is_some_and(|c| c.alarms[e.alarm as usize].load(Ordering::Acquire) == e.key)
        })
        .collect();
    s.compacted = s.heap.len();
}

fn run(sh: &Shared) {
    let mut s = sh.lock();
    let mut due = Vec::new();
    loop {
        if s.shutdown {
            return;
        }
        let now = sh.key(Instant::now());
        while s.heap.peek().is_some_and(|Reverse(e)| e.key <= now) {
            if let Some(Reverse(e)) = s.heap.pop() {
                due.push(e);
            }
        }
        if !due.is_empty() {
            drop(s);
            for e in due.drain(..) {
                if let Some(ctx) = e.ctx.upgrade() {
                    fire(&ctx, e.alarm, e.key, e.epoch);
                }
            }
            s = sh.lock();
            continue;
        }
        let next = s.heap.peek().map(|Reverse(e)| e.key);
        s = match next.and_then(|k| sh.instant(k)) {
            Some(at) => {
                let wait = at.saturating_duration_since(Instant::now());
                sh.cond
                    .wait_timeout(s, wait)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
            None => sh.cond.wait(s).unwrap_or_else(|e| e.into_inner()),
        };
    }
}

/// Model check of the alarm protocol (`RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo
/// test -p mdl-core --no-default-features --lib --release loom`): a due timeout alarm fired while
/// the wait is granted, and the waiter then cancels it and starts its next wait. One outcome
/// wins the first wait, and the stale alarm never touches the next one.
#[cfg(all(test, loom))]
mod loom_models {
    use std::sync::Arc;

    use loom::thread;

    use super::*;
    use crate::wait::KillFlag;

    #[test]
    fn alarm_vs_grant_and_cancel() {
        let mut b = loom::model::Builder::new();
        b.preemption_bound = Some(3);
        b.check(|| {
            const KEY: u64 = 7;
            let ctx = Arc::new(ContextShared::new(1, 1, 0, None));
            let epoch = ctx.wait.reset();
            ctx.alarms[Alarm::Timeout as usize].store(KEY, Ordering::Release);
            let c = ctx.clone();
            let granter = thread::spawn(move || c.wait.set(epoch, WaitEnd::Granted));
            let c = ctx.clone();
            let timer = thread::spawn(move || fire(&c, Alarm::Timeout, KEY, epoch));
            let first = ctx.wait.timed_wait(None, &KillFlag::new(), true);
            cancel(&ctx, Alarm::Timeout);
            let next = ctx.wait.reset();
            ctx.alarms[Alarm::Timeout as usize].store(KEY + 1, Ordering::Release);
            let granted = granter.join().expect("granter");
            timer.join().expect("timer");
            assert_eq!(granted, first == Some(WaitEnd::Granted));
            assert!(matches!(
                first,
                Some(WaitEnd::Granted) | Some(WaitEnd::Timeout)
            ));
            assert_eq!(ctx.wait.status(), None, "the next wait is untouched");
            assert!(ctx.wait.set(next, WaitEnd::Granted));
        });
    }
}
