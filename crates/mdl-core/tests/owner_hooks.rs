//! The owner hooks: storage-engine notifications around exclusive locks, notification of
//! shared-lock holders that block an exclusive request, and connection checks.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mdl_core::*;
use mdl_reference::support::{req, table, treq};
use mdl_reference::Kinded;

#[derive(Default)]
struct Recorder {
    refuse: Mutex<Option<EngineRefusal>>,
    pre: AtomicUsize,
    post: AtomicUsize,
    shared_notified: Mutex<Vec<(ContextId, LockType, bool)>>,
    connected: AtomicBool,
}

impl MdlOwner for Recorder {
    fn notify_shared_lock(&self, holder: &HolderInfo<'_>) {
        self.shared_notified.lock().unwrap().push((
            holder.context,
            holder.lock_type,
            holder.needs_thr_lock_abort,
        ));
    }
    fn notify_hton_pre_acquire_exclusive(&self, _key: &MdlKey) -> Result<(), EngineRefusal> {
        self.pre.fetch_add(1, Ordering::SeqCst);
        match *self.refuse.lock().unwrap() {
            Some(r) => Err(r),
            None => Ok(()),
        }
    }
    fn notify_hton_post_release_exclusive(&self, _key: &MdlKey) {
        self.post.fetch_add(1, Ordering::SeqCst);
    }
    fn is_connected(&self) -> bool {
        self.connected.load(Ordering::SeqCst)
    }
}

fn recorder() -> Arc<Recorder> {
    let r = Arc::new(Recorder::default());
    r.connected.store(true, Ordering::SeqCst);
    r
}

fn key(ns: Namespace, name: &str) -> MdlKey {
    MdlKey::new(ns, "db", name).unwrap()
}

#[test]
fn engine_is_told_before_and_after_exclusive_locks() {
    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let owner = recorder();
    let mut ctx = mgr.new_context_with_owner(owner.clone());
    let x = treq(&table("t"), LockType::X);
    let t = ctx.acquire(&x, Duration::from_secs(1)).unwrap();
    assert_eq!(owner.pre.load(Ordering::SeqCst), 1);
    assert_eq!(owner.post.load(Ordering::SeqCst), 0);
    // Downgrading an X lock ends the engine's exclusive phase.
    ctx.downgrade(t, LockType::SNW).unwrap();
    assert_eq!(owner.post.load(Ordering::SeqCst), 1);
    ctx.release(t).unwrap();
    assert_eq!(
        owner.post.load(Ordering::SeqCst),
        1,
        "SNW was not pre-notified"
    );

    // Only X, and only in namespaces with engine notification.
    let s = treq(&table("t"), LockType::SNW);
    ctx.acquire(&s, Duration::from_secs(1)).unwrap();
    let ull = req(
        &key(Namespace::UserLevelLock, "u"),
        LockType::X,
        LockDuration::Explicit,
    );
    ctx.acquire(&ull, Duration::from_secs(1)).unwrap();
    ctx.release_transactional_locks();
    assert_eq!(owner.pre.load(Ordering::SeqCst), 1);

    // A refusal fails the request with the error the engine chose.
    *owner.refuse.lock().unwrap() = Some(EngineRefusal { victimized: false });
    let x2 = req(
        &key(Namespace::Schema, "s"),
        LockType::X,
        LockDuration::Transaction,
    );
    assert_eq!(
        ctx.acquire(&x2, Duration::from_secs(1)),
        Err(MdlError::RefusedByEngine)
    );
    *owner.refuse.lock().unwrap() = Some(EngineRefusal { victimized: true });
    assert_eq!(
        ctx.acquire(&x2, Duration::from_secs(1)).kinded(),
        Err(ErrorKind::Deadlock)
    );
    assert!(!ctx.owns_equal_or_stronger_lock(&x2.key, LockType::X));
    assert_eq!(mgr.slow_path_locks().len(), 1, "only the user lock remains");

    // A pre-notified request that is not granted is undone for the engine.
    *owner.refuse.lock().unwrap() = None;
    let mut other = mgr.new_context();
    let holder = other
        .acquire(
            &req(&table("busy"), LockType::SR, LockDuration::Explicit),
            Duration::from_secs(1),
        )
        .unwrap();
    let before = owner.post.load(Ordering::SeqCst);
    let busy = treq(&table("busy"), LockType::X);
    assert_eq!(ctx.try_acquire(&busy), Ok(None));
    assert_eq!(owner.post.load(Ordering::SeqCst), before + 1);
    assert_eq!(
        ctx.acquire(&busy, Duration::from_millis(20)).kinded(),
        Err(ErrorKind::Timeout)
    );
    assert_eq!(owner.post.load(Ordering::SeqCst), before + 2);
    other.release(holder).unwrap();
}

#[test]
fn exclusive_waiter_notifies_shared_holders() {
    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let mut handler = mgr.new_context();
    // An open HANDLER: its S lock must be visible to exclusive requesters.
    handler.set_needs_thr_lock_abort(true);
    let s = handler
        .acquire(
            &req(&table("h"), LockType::S, LockDuration::Explicit),
            Duration::from_secs(1),
        )
        .unwrap();
    assert!(!handler.ticket_info(s).unwrap().fast_path);
    let handler_id = handler.id();

    let owner = recorder();
    let o2 = owner.clone();
    let mgr2 = mgr.clone();
    let ddl = thread::spawn(move || {
        let mut ctx = mgr2.new_context_with_owner(o2);
        let x = treq(&table("h"), LockType::X);
        ctx.acquire(&x, Duration::from_secs(10)).map(|_| ())
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while owner.shared_notified.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "holder never notified");
        thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        owner.shared_notified.lock().unwrap()[0],
        (handler_id, LockType::S, true)
    );
    // The server would now close the HANDLER; the waiter gets its lock.
    handler.release(s).unwrap();
    ddl.join().unwrap().unwrap();
}

#[test]
fn disconnected_owner_stops_waiting_for_user_locks() {
    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let mut holder = mgr.new_context();
    let ull = req(
        &key(Namespace::UserLevelLock, "u"),
        LockType::X,
        LockDuration::Explicit,
    );
    holder.acquire(&ull, Duration::from_secs(1)).unwrap();

    let owner = recorder();
    let o2 = owner.clone();
    let mgr2 = mgr.clone();
    let waiter = thread::spawn(move || {
        let mut ctx = mgr2.new_context_with_owner(o2);
        let started = Instant::now();
        let r = ctx.acquire(&ull, Duration::from_secs(30));
        (r.map(|_| ()), started.elapsed())
    });
    while !mgr.slow_path_locks().iter().any(|e| !e.granted) {
        thread::sleep(Duration::from_millis(1));
    }
    owner.connected.store(false, Ordering::SeqCst);
    let (r, waited) = waiter.join().unwrap();
    assert_eq!(r.kinded(), Err(ErrorKind::Killed));
    // The connection is checked about once a second.
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    assert!(mgr.slow_path_locks().iter().all(|e| e.granted));
}
