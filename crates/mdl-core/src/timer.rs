//! Deadlines of async waits, without a runtime: one timer thread per process.
//!
//! A blocked thread times its own wait (its condvar wait has a deadline). A future cannot: it
//! only runs when polled. So an async wait with a deadline, or with periodic work to do (the
//! owner's once-a-second notifications and connection checks, a delayed deadlock search),
//! registers an *alarm* here: at the deadline the timer thread sets the wait's slot to `Timeout`
//! (the first outcome still wins: a grant that came first stays a grant) or, for periodic work,
//! only wakes the task so its next poll does the work. The core stays runtime-agnostic (std
//! `Waker`s only), and the caller needs no `select!` against a runtime's sleep.
//!
//! The thread starts at the first alarm and sleeps on a condvar until the earliest one. Alarms
//! are kept in a heap keyed by deadline, plus a map from alarm id to what to do: cancelling an
//! alarm (the wait ended first, or its future was dropped) removes it from the map, and the
//! heap's stale keys are dropped as they surface or when they outnumber the live alarms.
//!
//! Protocol: the heap and the map are guarded by one `std` mutex, held only to add, cancel or
//! collect alarms; actions run after it is released (lock order: timer → wait slot, never the
//! other way).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

use crate::shared::ContextShared;
use crate::wait::WaitStatus;

/// What an alarm does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Alarm {
    /// End the wait with `Timeout` (unless it already has an outcome).
    Timeout,
    /// Wake the task for its periodic work.
    Wake,
}

struct Pending {
    ctx: Arc<ContextShared>,
    epoch: u64,
    alarm: Alarm,
}

#[derive(Default)]
struct State {
    heap: BinaryHeap<Reverse<(Instant, u64)>>,
    alarms: HashMap<u64, Pending>,
    next_id: u64,
    started: bool,
}

pub(crate) struct Timer {
    state: Mutex<State>,
    cond: Condvar,
}

fn timer() -> &'static Timer {
    static TIMER: OnceLock<Timer> = OnceLock::new();
    TIMER.get_or_init(|| Timer {
        state: Mutex::new(State::default()),
        cond: Condvar::new(),
    })
}

/// Registers an alarm for wait `epoch` of `ctx` at `at`; returns its id for [`cancel`].
pub(crate) fn schedule(at: Instant, ctx: &Arc<ContextShared>, epoch: u64, alarm: Alarm) -> u64 {
    let t = timer();
    let mut s = t.state.lock().unwrap_or_else(|e| e.into_inner());
    let id = s.next_id;
    s.next_id += 1;
    s.alarms.insert(
        id,
        Pending {
            ctx: ctx.clone(),
            epoch,
            alarm,
        },
    );
    let earliest = s.heap.peek().is_none_or(|Reverse((d, _))| at < *d);
    s.heap.push(Reverse((at, id)));
    if !s.started {
        s.started = true;
        let spawned = std::thread::Builder::new()
            .name("mdl-timer".into())
            .spawn(|| run(timer()));
        if spawned.is_err() {
            // No thread: alarms cannot fire; waits end at their next poll after the deadline
            // instead (`Acquire::poll` checks it), and periodic work is skipped.
            s.started = false;
        }
    }
    drop(s);
    if earliest {
        t.cond.notify_one();
    }
    id
}

/// Cancels an alarm (a no-op if it already fired).
pub(crate) fn cancel(id: u64) {
    let mut s = timer().state.lock().unwrap_or_else(|e| e.into_inner());
    s.alarms.remove(&id);
    // Stale heap keys are dropped as they surface; rebuild if they dominate.
    if s.heap.len() > 64 && s.heap.len() > 2 * s.alarms.len() {
        let s = &mut *s;
        let alarms = &s.alarms;
        s.heap.retain(|Reverse((_, id))| alarms.contains_key(id));
    }
}

/// Whether alarm `id` is still scheduled (tests).
#[cfg(all(test, not(loom)))]
pub(crate) fn is_live(id: u64) -> bool {
    timer()
        .state
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .alarms
        .contains_key(&id)
}

fn run(t: &'static Timer) {
    let mut s = t.state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let now = Instant::now();
        let mut due = Vec::new();
        while let Some(&Reverse((at, id))) = s.heap.peek() {
            if at > now {
                break;
            }
            s.heap.pop();
            if let Some(p) = s.alarms.remove(&id) {
                due.push(p);
            }
        }
        if !due.is_empty() {
            drop(s);
            for p in due {
                match p.alarm {
                    Alarm::Timeout => {
                        p.ctx.wait.set(p.epoch, WaitStatus::Timeout);
                    }
                    Alarm::Wake => p.ctx.wait.wake_task(p.epoch),
                }
            }
            s = t.state.lock().unwrap_or_else(|e| e.into_inner());
            continue;
        }
        s = match s.heap.peek() {
            Some(&Reverse((at, _))) => {
                let wait = at.saturating_duration_since(now);
                t.cond
                    .wait_timeout(s, wait)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
            None => t.cond.wait(s).unwrap_or_else(|e| e.into_inner()),
        };
    }
}
