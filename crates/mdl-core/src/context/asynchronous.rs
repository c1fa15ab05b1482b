//! Acquiring without blocking a thread: [`MdlContext::acquire_async`] and friends.
//!
//! An async request is the same request as a blocking one: the same fast path, the same queue,
//! the same wait slot, the same edge in the one wait-for graph (a deadlock between a thread and
//! a task is found like any other, and the lighter waiter is the victim, thread or task). Only
//! the waiting differs: instead of sleeping on the slot's condvar, the future registers its
//! task's `Waker` in the slot and returns `Pending`; whoever decides the outcome (a grant, a
//! deadlock search, a kill) wakes it. Deadlines and the once-a-second work of a wait come from
//! a timer thread (`timer.rs`), so the core needs no runtime, or (`AsyncTimer::Tokio`) from a
//! `tokio::time::Sleep` the future polls beside its wait slot.
//!
//! Cancel safety is documented on [`Acquire`].

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use super::waiting::{Wait, TICK};
use super::{acquisition_order, Attempt, MdlContext};
use crate::error::{MdlError, Result};
use crate::request::{MdlRequest, Ticket};
use crate::timer::{self, Alarm};
use crate::types::LockType;
use crate::wait::WaitEnd;

/// The future of [`MdlContext::acquire_async`]: resolves to the ticket, or to the error a
/// blocking [`MdlContext::acquire`] would return. `Send`.
///
/// An async wait reports what a blocking one does: it appears in
/// [`MdlManager::lock_waits`](crate::MdlManager::lock_waits), the wait-for graph and the wait
/// counters, and (feature `pfs`) as a `wait/lock/metadata/sql/mdl` event — on the session thread
/// the context is bound to (`MdlContext::bind_pfs_thread`), whichever worker polls it, shown in
/// `events_waits_current` while pending; unbound, on the session a wrapping
/// `pfs::SessionThread::instrument` entered, else recorded when it ends, on the thread that ends
/// it (see `telemetry.rs`).
///
/// # Deadlines
///
/// The timeout needs no `select!`: the manager's timer thread (`mdl-timer`, one per
/// [`MdlManager`](crate::MdlManager), started by its first async wait, ended with it) sets a
/// waiting future's outcome to `Timeout` at its deadline and wakes it, and wakes it once a
/// second while the wait has periodic work (owner notifications, connection checks). A thread
/// rather than a runtime's timer keeps the core free of any runtime (tokio, async-std, smol, or
/// a hand-written executor all work) and costs nothing to requests that do not wait: a future
/// only schedules an alarm once it is queued. A dropped or finished future cancels its alarms
/// with one store each, taking no lock. With
/// [`AsyncTimer::Tokio`](crate::AsyncTimer) (feature `tokio`), a wait that begins inside a
/// tokio runtime holds a `tokio::time::Sleep` instead and ends itself when it fires: one
/// scheduler hop instead of two, which keeps deadlines punctual on an oversubscribed machine.
///
/// # Cancel safety
///
/// Dropping an [`Acquire`] at any point leaves nothing behind. Before its first poll it has done
/// nothing. While queued, its drop takes the request off the queue — and if the grant raced
/// with the drop (the entry was granted but the task had not run yet), the granted entry goes
/// too — then reschedules the requests it was holding back by priority, as a timeout would;
/// its edge leaves the wait-for graph and its alarms are cancelled. A future that was chosen as
/// a deadlock victim and dropped unpolled is cleaned up the same way.
///
/// Leaking a queued future instead of dropping it (`std::mem::forget`) leaves its request in the
/// queue until the context drops, as leaking a `MutexGuard` leaves a mutex locked: don't.
#[must_use = "futures do nothing unless polled"]
pub struct Acquire<'a> {
    ctx: &'a mut MdlContext,
    req: &'a MdlRequest,
    timeout: Duration,
    state: State,
}

// An `Acquire` can move between a runtime's worker threads.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<Acquire<'static>>();
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Start,
    /// Queued: the wait itself is kept in the context (`MdlContext::async_wait`; a context has
    /// at most one future at a time, as it is borrowed mutably), so the future stays small and
    /// its drop is one test on the no-wait path.
    Waiting,
    Done,
}

pub(super) struct Waiting {
    w: Wait,
    next_tick: Option<Instant>,
    /// [`AsyncTimer::Tokio`](crate::AsyncTimer::Tokio) inside a runtime: the runtime's sleep
    /// until the earlier of the deadline and `next_tick`, in place of the manager's alarms.
    #[cfg(feature = "tokio")]
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
}

#[cfg(feature = "tokio")]
impl Waiting {
    /// When this wait next has something to do on its own: time out, or its periodic work.
    fn next_due(&self) -> Option<Instant> {
        match (self.w.deadline, self.next_tick) {
            (Some(d), Some(t)) => Some(d.min(t)),
            (d, t) => d.or(t),
        }
    }
}

impl MdlContext {
    /// Cancels the alarms of this context's async wait: a store each, no lock (`timer.rs`).
    fn cancel_alarms(&self) {
        timer::cancel(&self.shared, Alarm::Timeout);
        timer::cancel(&self.shared, Alarm::Wake);
    }
}

impl std::fmt::Debug for Acquire<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Acquire")
            .field("request", self.req)
            .field("state", &self.state)
            .finish()
    }
}

impl Future for Acquire<'_> {
    type Output = Result<Ticket>;

    // The no-wait path is inlined into the caller, as `MdlContext::acquire`'s is: the first
    // poll tries the fast path in place (no move of the state, no call), and everything else
    // (the slow path, the wait) is out of line in `poll_slow`. Drop likewise.
    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<Ticket>> {
        let this = self.get_mut();
        if this.state == State::Start {
            if let Some(t) = this.ctx.fast_acquire(this.req) {
                this.state = State::Done;
                return Poll::Ready(Ok(t));
            }
        }
        this.poll_slow(cx)
    }
}

impl Acquire<'_> {
    /// Every poll but a first one that the fast path grants.
    #[inline(never)]
    fn poll_slow(&mut self, cx: &mut Context<'_>) -> Poll<Result<Ticket>> {
        loop {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Start => match self.ctx.attempt(self.req, !self.timeout.is_zero()) {
                    Err(e) => return Poll::Ready(Err(e)),
                    Ok(Attempt::Granted(t)) => return Poll::Ready(Ok(t)),
                    Ok(Attempt::NotGranted(lock)) => {
                        return Poll::Ready(Err(self.ctx.refused(self.req, lock)))
                    }
                    Ok(Attempt::Pending(p)) => {
                        let wt = self.begin(p);
                        self.ctx.async_wait = Some(wt);
                        self.state = State::Waiting;
                    }
                },
                State::Waiting => {
                    let Some(mut wt) = self.ctx.async_wait.take() else {
                        return Poll::Ready(Err(MdlError::InvalidTicket));
                    };
                    let status = self.check(&mut wt, cx);
                    if status.is_none() {
                        self.ctx.async_wait = Some(wt);
                        self.state = State::Waiting;
                        return Poll::Pending;
                    }
                    self.ctx.cancel_alarms();
                    return Poll::Ready(self.ctx.end_wait(wt.w, status));
                }
                State::Done => return Poll::Ready(Err(MdlError::InvalidTicket)),
            }
        }
    }

    /// Starts the wait of a queued request and sets its alarms.
    fn begin(&mut self, p: super::Pending) -> Waiting {
        let since = Instant::now();
        let deadline = since.checked_add(self.timeout);
        let epoch = p.epoch;
        let mut w = Wait::new(p, &self.req.key, self.req.duration, since, deadline, false);
        self.ctx.begin_wait(&mut w);
        let next_tick = w.has_periodic_work().then(|| since + TICK);
        #[cfg(feature = "tokio")]
        if self.ctx.mgr.config.async_timer == crate::AsyncTimer::Tokio
            && tokio::runtime::Handle::try_current().is_ok()
        {
            let mut wt = Waiting {
                w,
                next_tick,
                sleep: None,
            };
            wt.sleep = wt
                .next_due()
                .map(|at| Box::pin(tokio::time::sleep_until(at.into())));
            return wt;
        }
        let (shared, timer) = (&self.ctx.shared, &self.ctx.mgr.timer);
        if let Some(d) = deadline {
            timer.schedule(d, shared, epoch, Alarm::Timeout);
        }
        if let Some(t) = next_tick {
            timer.schedule(t, shared, epoch, Alarm::Wake);
        }
        Waiting {
            w,
            next_tick,
            #[cfg(feature = "tokio")]
            sleep: None,
        }
    }

    /// The wait's status, registering the task's waker while it has none; does the periodic
    /// work when it is due.
    fn check(&mut self, wt: &mut Waiting, cx: &mut Context<'_>) -> Option<WaitEnd> {
        loop {
            let status = self.check_once(wt, cx);
            if status.is_some() || !Self::sleep_fired(wt, cx) {
                return status;
            }
        }
    }

    /// One look at the wait: its outcome, the deadline, the periodic work.
    fn check_once(&mut self, wt: &mut Waiting, cx: &mut Context<'_>) -> Option<WaitEnd> {
        let shared = self.ctx.shared.clone();
        let epoch = wt.w.p.epoch;
        let mut status = shared.wait.poll(epoch, &shared.killed, cx.waker());
        if status.is_some() {
            return status;
        }
        let now = Instant::now();
        if wt.w.deadline.is_some_and(|d| now >= d) {
            // The timer's alarm decides this too; here in case it could not fire, and here
            // alone with the runtime's timer.
            shared.wait.set(epoch, WaitEnd::Timeout);
            return shared.wait.status();
        }
        if wt.next_tick.is_some_and(|t| now >= t) {
            status = self.ctx.periodic(&mut wt.w);
            if status.is_some() {
                return status;
            }
            wt.next_tick = wt.w.has_periodic_work().then(|| now + TICK);
            #[cfg(feature = "tokio")]
            if wt.sleep.is_some() {
                return None;
            }
            match wt.next_tick {
                Some(t) => self.ctx.mgr.timer.schedule(t, &shared, epoch, Alarm::Wake),
                None => timer::cancel(&shared, Alarm::Wake),
            }
        }
        None
    }

    /// With the runtime's timer: sets the sleep to the wait's next due time and polls it (the
    /// task is woken when it fires). True if it has fired already: look at the wait again.
    #[cfg(feature = "tokio")]
    fn sleep_fired(wt: &mut Waiting, cx: &mut Context<'_>) -> bool {
        let next = wt.next_due();
        let Some(sleep) = wt.sleep.as_mut() else {
            return false;
        };
        let Some(at) = next else {
            wt.sleep = None;
            return false;
        };
        let at = tokio::time::Instant::from_std(at);
        if sleep.deadline() != at {
            sleep.as_mut().reset(at);
        }
        sleep.as_mut().poll(cx).is_ready()
    }

    #[cfg(not(feature = "tokio"))]
    fn sleep_fired(_: &mut Waiting, _: &mut Context<'_>) -> bool {
        false
    }
}

impl Drop for Acquire<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        if self.state == State::Waiting {
            self.drop_waiting();
        }
    }
}

impl Acquire<'_> {
    /// Cancels the wait of a future dropped while queued.
    #[inline(never)]
    fn drop_waiting(&mut self) {
        self.state = State::Done;
        self.ctx.cancel_async_wait();
    }
}

impl MdlContext {
    /// Gives up the wait of this context's queued future, if there is one: its request leaves
    /// the queue and its alarms are cancelled. Called when the future drops, and when the
    /// context drops (a future that was leaked instead of dropped).
    pub(super) fn cancel_async_wait(&mut self) {
        if let Some(wt) = self.async_wait.take() {
            self.cancel_alarms();
            self.cancel_wait(wt.w);
        }
    }

    /// [`MdlContext::acquire`] without blocking the thread: a future that resolves to the ticket
    /// or to the same errors (`Timeout`, `Deadlock`, `Killed`, ...). A grantable request
    /// resolves on its first poll without allocating. The timeout needs no `select!`: a timer
    /// thread ends the wait at its deadline. [`KillHandle::kill`](crate::KillHandle::kill) wakes
    /// it with `Killed`. Dropping the future cancels the request cleanly (see
    /// [`Acquire`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mdl_core::*;
    ///
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     struct W(std::thread::Thread);
    /// #     impl std::task::Wake for W { fn wake(self: std::sync::Arc<Self>) { self.0.unpark() } }
    /// #     let waker = std::sync::Arc::new(W(std::thread::current())).into();
    /// #     let mut cx = std::task::Context::from_waker(&waker);
    /// #     let mut f = std::pin::pin!(f);
    /// #     loop {
    /// #         if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; }
    /// #         std::thread::park();
    /// #     }
    /// # }
    /// let mgr = MdlManager::new(MdlConfig::default())?;
    /// let mut session = mgr.new_context();
    /// let t1 = MdlKey::new(Namespace::Table, "test", "t1")?;
    /// block_on(async {
    ///     let req = MdlRequest::new(t1, LockType::SharedRead, LockDuration::Statement);
    ///     let mut stmt = session.statement();          // statement locks go when it drops
    ///     stmt.acquire_async(&req, Duration::from_secs(50)).await?;
    ///     // ... run the statement, awaiting I/O with the lock held ...
    ///     Ok::<(), MdlError>(())
    /// })?;
    /// assert!(!session.has_locks());
    /// # Ok::<(), MdlError>(())
    /// ```
    pub fn acquire_async<'a>(&'a mut self, req: &'a MdlRequest, timeout: Duration) -> Acquire<'a> {
        Acquire {
            ctx: self,
            req,
            timeout,
            state: State::Start,
        }
    }

    /// [`MdlContext::acquire_async`] with this context's lock wait timeout
    /// ([`MdlContext::lock_wait_timeout`]).
    pub fn acquire_default_async<'a>(&'a mut self, req: &'a MdlRequest) -> Acquire<'a> {
        let timeout = self.lock_wait_timeout;
        self.acquire_async(req, timeout)
    }

    /// [`MdlContext::acquire_many`] without blocking the thread. Cancel safe: dropping the
    /// future releases every lock it took.
    ///
    /// # Errors
    /// As [`MdlContext::acquire_many`].
    pub async fn acquire_many_async(
        &mut self,
        reqs: &[MdlRequest],
        timeout: Duration,
    ) -> Result<Vec<Ticket>> {
        let mut scope = Rollback {
            start: self.store.next_seq(),
            ctx: self,
            armed: true,
        };
        let mut tickets = vec![None; reqs.len()];
        for i in acquisition_order(reqs) {
            tickets[i] = Some(scope.ctx.acquire_async(&reqs[i], timeout).await?);
        }
        scope.armed = false;
        Ok(tickets.into_iter().flatten().collect())
    }

    /// [`MdlContext::upgrade`] without blocking the thread. Cancel safe: dropped while waiting,
    /// the original lock is left as it was.
    ///
    /// # Errors
    /// As [`MdlContext::upgrade`].
    pub async fn upgrade_async(
        &mut self,
        ticket: Ticket,
        new_type: LockType,
        timeout: Duration,
    ) -> Result<()> {
        let Some((slot, req, start)) = self.begin_upgrade(ticket, new_type)? else {
            return Ok(());
        };
        let got = self.acquire_async(&req, timeout).await?;
        self.finish_upgrade(slot, got, start, new_type)
    }
}

/// Releases the locks an `acquire_many_async` took if it does not finish (an error, or its
/// future was dropped).
struct Rollback<'a> {
    ctx: &'a mut MdlContext,
    start: u64,
    armed: bool,
}

impl Drop for Rollback<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.ctx.release_newer_than(self.start, true);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::task::{Context, Waker};

    use super::*;
    use crate::{LockDuration, MdlConfig, MdlKey, MdlManager, Namespace};

    /// A dropped future cancels its alarms (the timer would otherwise keep its context alive
    /// until the deadline, and a one-year timeout is the default).
    #[test]
    fn dropping_a_waiting_future_cancels_its_alarms() {
        let mgr = MdlManager::new(MdlConfig::default()).unwrap();
        let key = MdlKey::new(Namespace::Table, "test", "t").unwrap();
        let mut holder = mgr.new_context();
        let x = MdlRequest::new(key.clone(), LockType::Exclusive, LockDuration::Transaction);
        holder.acquire(&x, Duration::ZERO).unwrap();
        let mut ctx = mgr.new_context();
        let sr = MdlRequest::new(key, LockType::SharedRead, LockDuration::Statement);
        let mut f = Box::pin(ctx.acquire_async(&sr, Duration::from_secs(3600)));
        let cx = &mut Context::from_waker(Waker::noop());
        assert!(f.as_mut().poll(cx).is_pending());
        assert!(f.ctx.async_wait.is_some(), "waiting");
        let shared = f.ctx.shared.clone();
        assert!(timer::is_scheduled(&shared, Alarm::Timeout));
        assert_eq!(mgr.timer.entries(), 1);
        drop(f);
        assert!(!timer::is_scheduled(&shared, Alarm::Timeout));
        assert!(!ctx.has_locks());
    }

    /// Cancelled alarms cost no lock, and their heap entries go at the next compaction: a
    /// thousand waits with one-year deadlines, each dropped, leave at most a compaction's
    /// worth of entries.
    #[test]
    fn cancelled_far_alarms_do_not_pile_up() {
        let mgr = MdlManager::new(MdlConfig::default()).unwrap();
        let key = MdlKey::new(Namespace::Table, "test", "t").unwrap();
        let mut holder = mgr.new_context();
        let x = MdlRequest::new(key.clone(), LockType::Exclusive, LockDuration::Transaction);
        holder.acquire(&x, Duration::ZERO).unwrap();
        let mut ctx = mgr.new_context();
        let sr = MdlRequest::new(key, LockType::SharedRead, LockDuration::Statement);
        let cx = &mut Context::from_waker(Waker::noop());
        for _ in 0..1000 {
            let mut f = Box::pin(ctx.acquire_async(&sr, crate::LONG_TIMEOUT));
            assert!(f.as_mut().poll(cx).is_pending());
        }
        assert!(mgr.timer.entries() <= 64, "{}", mgr.timer.entries());
    }

    /// `AsyncTimer::Tokio`: a wait begun inside a runtime schedules no alarm on the manager's
    /// timer (its thread is never started); begun outside one, it falls back to the alarms.
    #[cfg(feature = "tokio")]
    #[test]
    fn the_tokio_timer_replaces_the_alarms_inside_a_runtime_only() {
        let config = MdlConfig::builder()
            .async_timer(crate::AsyncTimer::Tokio)
            .build()
            .unwrap();
        let mgr = MdlManager::new(config).unwrap();
        let key = MdlKey::new(Namespace::Table, "test", "t").unwrap();
        let mut holder = mgr.new_context();
        let x = MdlRequest::new(key.clone(), LockType::Exclusive, LockDuration::Transaction);
        holder.acquire(&x, Duration::ZERO).unwrap();
        let sr = MdlRequest::new(key, LockType::SharedRead, LockDuration::Statement);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let mut ctx = mgr.new_context();
        let e = rt
            .block_on(ctx.acquire_async(&sr, Duration::from_millis(30)))
            .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Timeout);
        assert_eq!(mgr.timer.entries(), 0, "no alarm");
        let cx = &mut Context::from_waker(Waker::noop());
        let mut f = Box::pin(ctx.acquire_async(&sr, Duration::from_secs(3600)));
        assert!(f.as_mut().poll(cx).is_pending());
        assert_eq!(mgr.timer.entries(), 1, "outside a runtime: an alarm");
    }
}
