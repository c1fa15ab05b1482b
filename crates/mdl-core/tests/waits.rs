//! Waiting (`docs/semantics.md` §11): zero and short timeouts, kill (during and before a
//! wait), grants on release and on context drop, FIFO order among waiters, and the owner hooks
//! (engine refusal of X, shared-lock notification, disconnect checks).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mdl_core::*;
use mdl_reference::support::*;

#[test]
fn zero_timeout_fails_at_once_and_leaves_nothing_queued() {
    for (_, m, mut a, mut b) in two_contexts_per_mode() {
        let k = table("t");
        a.acquire(&treq(&k, LockType::SR), LONG).unwrap();
        assert_eq!(
            b.acquire(&treq(&k, LockType::X), ZERO).kinded(),
            Err(ErrorKind::Timeout)
        );
        assert_eq!(b.try_acquire(&treq(&k, LockType::X)), Ok(None));
        assert_eq!(pending_count(&m), 0);
        assert!(!b.has_locks());
        // The failed X left no priority behind: SR and SW still pass.
        assert!(can_take(&mut b, &k, LockType::SW));
        assert_eq!(b.acquire(&treq(&k, LockType::SR), ZERO).map(|_| ()), Ok(()));
    }
}

#[test]
fn short_timeout_times_out_and_dequeues() {
    for (_, m, mut a, mut b) in two_contexts_per_mode() {
        let k = table("t");
        let mut c = m.new_context();
        let ta = a.acquire(&treq(&k, LockType::SNRW), LONG).unwrap();
        let start = Instant::now();
        assert_eq!(
            b.acquire(&treq(&k, LockType::SR), Duration::from_millis(40))
                .kinded(),
            Err(ErrorKind::Timeout)
        );
        assert!(start.elapsed() >= Duration::from_millis(40));
        assert_eq!(ErrorKind::Timeout.mysql_error_code(), Some(1205));
        assert_eq!(pending_count(&m), 0);
        assert_eq!(a.ticket_info(ta).unwrap().lock_type, LockType::SNRW);
        assert!(!can_take(&mut c, &k, LockType::SR));
        a.release(ta).unwrap();
        assert!(can_take(&mut b, &k, LockType::X));
        assert_eq!(m.unused_lock_object_count(), m.lock_object_count());
    }
}

#[test]
fn timed_out_pending_x_stops_blocking_readers() {
    // A pending X blocks new SR by priority; when it times out, a reader queued behind it
    // is granted (the removal reschedules the waiters).
    let m = mgr();
    let k = table("t");
    let _holder = Worker::holding(&m, &k, LockType::SR);
    let x = Worker::new(&m);
    let r = treq(&k, LockType::X);
    let x_rx = x.start(move |c| c.acquire(&r, Duration::from_millis(300)));
    wait_pending(&m, x.id, &k, LockType::X);
    let (_reader, reader_rx) = Worker::pending(&m, &k, LockType::SR);
    assert_eq!(recv(&x_rx).kinded(), Err(ErrorKind::Timeout));
    recv(&reader_rx).unwrap();
}

#[test]
fn kill_ends_a_wait() {
    for m in managers_per_mode() {
        let k = table("t");
        let holder = Worker::holding(&m, &k, LockType::X);
        let (w, rx) = Worker::pending(&m, &k, LockType::SR);
        assert!(w.kill.pending_kill().is_none());
        w.kill.kill(KillScope::Connection);
        assert!(w.kill.pending_kill().is_some());
        assert_eq!(w.kill.context_id(), w.id);
        assert_eq!(recv(&rx).kinded(), Err(ErrorKind::Killed));
        assert_eq!(ErrorKind::Killed.mysql_error_code(), Some(1317));
        assert_eq!(pending_count(&m), 0);
        // Killed stays until reset: the next wait ends at once, a try still works.
        let r = treq(&k, LockType::SR);
        assert_eq!(
            w.run(move |c| c.acquire(&r, LONG)).kinded(),
            Err(ErrorKind::Killed)
        );
        let other = table("free");
        let r = treq(&other, LockType::SR);
        assert!(
            w.run(move |c| c.acquire(&r, LONG)).is_ok(),
            "no wait needed"
        );
        w.run(|c| c.reset_kill());
        assert!(w.kill.pending_kill().is_none());
        let rx = w.start_pending(&m, &k, LockType::SR);
        holder.release_all();
        recv(&rx).unwrap();
    }
}

#[test]
fn kill_from_another_thread_while_the_holder_keeps_its_lock() {
    let m = mgr();
    let k = table("t");
    let mut holder = m.new_context();
    let t = holder.acquire(&treq(&k, LockType::X), LONG).unwrap();
    let w = Worker::new(&m);
    let kh = w.kill.clone();
    let rx = w.start_pending(&m, &k, LockType::X);
    std::thread::spawn(move || kh.kill(KillScope::Connection))
        .join()
        .unwrap();
    assert_eq!(recv(&rx).kinded(), Err(ErrorKind::Killed));
    assert!(holder.ticket_info(t).is_ok());
}

#[test]
fn dropping_the_holder_context_wakes_waiters() {
    let m = mgr();
    let k = table("t");
    let holder = Worker::holding(&m, &k, LockType::X);
    let (_r, r_rx) = Worker::pending(&m, &k, LockType::SR);
    drop(holder);
    recv(&r_rx).unwrap();
}

#[test]
fn waiters_are_granted_fifo_within_priorities() {
    let m = mgr();
    let k = table("t");
    let holder = Worker::holding(&m, &k, LockType::X);
    // Three SNW requests queue (mutually incompatible): they get the lock in arrival order.
    let (w, rx) = Worker::pending_each(&m, &k, &[LockType::SNW; 3]);
    holder.release_all();
    for i in 0..3 {
        recv(&rx[i]).unwrap();
        for later in &w[i + 1..] {
            assert!(has_entry(&m, later.id, &k, LockType::SNW, false));
        }
        w[i].release_all();
    }
}

#[test]
fn compatible_waiters_are_granted_together() {
    let m = mgr();
    let k = table("t");
    let holder = Worker::holding(&m, &k, LockType::X);
    let types = [LockType::SR, LockType::SW, LockType::S, LockType::SH];
    let (_w, rx) = Worker::pending_each(&m, &k, &types);
    holder.release_all();
    for r in &rx {
        recv(r).unwrap();
    }
}

#[test]
fn long_timeout_does_not_overflow() {
    let m = mgr();
    let k = table("t");
    let mut c = m.new_context();
    c.acquire(&treq(&k, LockType::X), Duration::MAX).unwrap();
    c.acquire(
        &treq(&table("u"), LockType::X),
        m.config().lock_wait_timeout,
    )
    .unwrap();
    assert_eq!(m.config().lock_wait_timeout, LONG_TIMEOUT);
    assert_eq!(LONG_TIMEOUT, Duration::from_secs(31_536_000));
    assert_eq!(m.config().max_write_lock_count, u64::MAX);
    // A waiter with an unrepresentable deadline still gets the lock.
    let holder = Worker::holding(&m, &table("v"), LockType::X);
    let w = Worker::new(&m);
    let r = treq(&table("v"), LockType::SR);
    let rx = w.start(move |c| c.acquire(&r, Duration::MAX));
    wait_pending(&m, w.id, &table("v"), LockType::SR);
    holder.release_all();
    recv(&rx).unwrap();
}

#[derive(Default)]
struct Owner {
    refuse: AtomicBool,
    victimize: AtomicBool,
    pre: AtomicUsize,
    post: AtomicUsize,
    shared_notes: AtomicUsize,
    connected: AtomicBool,
}

impl MdlOwner for Owner {
    fn notify_shared_lock(&self, holder: &HolderInfo<'_>) {
        assert!(matches!(holder.lock_type, LockType::S | LockType::SH));
        self.shared_notes.fetch_add(1, Ordering::SeqCst);
    }
    fn notify_hton_pre_acquire_exclusive(&self, _key: &MdlKey) -> Result<(), EngineRefusal> {
        self.pre.fetch_add(1, Ordering::SeqCst);
        if self.refuse.load(Ordering::SeqCst) {
            Err(EngineRefusal {
                victimized: self.victimize.load(Ordering::SeqCst),
            })
        } else {
            Ok(())
        }
    }
    fn notify_hton_post_release_exclusive(&self, _key: &MdlKey) {
        self.post.fetch_add(1, Ordering::SeqCst);
    }
    fn is_connected(&self) -> bool {
        self.connected.load(Ordering::SeqCst)
    }
}

#[test]
fn engine_notifications_around_exclusive_locks() {
    let m = mgr();
    let owner = Arc::new(Owner::default());
    let mut c = m.new_context_with_owner(owner.clone());
    let t = table("t");
    let x = c.acquire(&treq(&t, LockType::X), LONG).unwrap();
    assert_eq!(owner.pre.load(Ordering::SeqCst), 1);
    c.release(x).unwrap();
    assert_eq!(owner.post.load(Ordering::SeqCst), 1);
    // No notification outside the engine namespaces or for other types.
    let u = MdlKey::new(Namespace::UserLevelLock, "", "u").unwrap();
    c.acquire(&treq(&u, LockType::X), LONG).unwrap();
    c.acquire(&treq(&table("s"), LockType::SNRW), LONG).unwrap();
    assert_eq!(owner.pre.load(Ordering::SeqCst), 1);
    c.release_transactional_locks();
    // Refusals.
    owner.refuse.store(true, Ordering::SeqCst);
    assert_eq!(
        c.acquire(&treq(&t, LockType::X), LONG),
        Err(MdlError::RefusedByEngine)
    );
    owner.victimize.store(true, Ordering::SeqCst);
    assert_eq!(
        c.acquire(&treq(&t, LockType::X), LONG).kinded(),
        Err(ErrorKind::Deadlock)
    );
    assert!(!c.has_locks());
    // A pre-notified X that times out is post-notified.
    owner.refuse.store(false, Ordering::SeqCst);
    let mut other = m.new_context();
    other.acquire(&treq(&t, LockType::SR), LONG).unwrap();
    let post = owner.post.load(Ordering::SeqCst);
    assert_eq!(
        c.acquire(&treq(&t, LockType::X), Duration::from_millis(10))
            .kinded(),
        Err(ErrorKind::Timeout)
    );
    assert_eq!(owner.post.load(Ordering::SeqCst), post + 1);
}

/// A new context of `m` owned by `owner`, on a new thread, that acquires X on `key`; the
/// thread returns the outcome.
fn spawn_owned_x(
    m: &Arc<MdlManager>,
    owner: &Arc<Owner>,
    key: &MdlKey,
) -> std::thread::JoinHandle<mdl_core::Result<()>> {
    let (m, owner, r) = (m.clone(), owner.clone(), treq(key, LockType::X));
    std::thread::spawn(move || {
        let mut c = m.new_context_with_owner(owner);
        c.acquire(&r, LONG).map(|_| ())
    })
}

#[test]
fn exclusive_waiter_notifies_slow_path_shared_holders() {
    let m = mgr();
    let k = table("t");
    let handler = Worker::new(&m);
    handler.run(|c| c.set_needs_thr_lock_abort(true));
    handler.hold(&k, LockType::S);
    let owner = Arc::new(Owner::default());
    let h = spawn_owned_x(&m, &owner, &k);
    let start = Instant::now();
    while owner.shared_notes.load(Ordering::SeqCst) == 0 {
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(1));
    }
    handler.release_all();
    h.join().unwrap().unwrap();
}

#[test]
fn disconnected_owner_ends_a_user_lock_wait() {
    let m = mgr();
    let u = MdlKey::new(Namespace::UserLevelLock, "", "u").unwrap();
    let _holder = Worker::holding(&m, &u, LockType::X);
    let owner = Arc::new(Owner::default());
    owner.connected.store(true, Ordering::SeqCst);
    let h = spawn_owned_x(&m, &owner, &u);
    while pending_count(&m) == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    owner.connected.store(false, Ordering::SeqCst);
    // Checked about once a second.
    assert_eq!(h.join().unwrap().kinded(), Err(ErrorKind::Killed));
    assert_eq!(pending_count(&m), 0);
}
