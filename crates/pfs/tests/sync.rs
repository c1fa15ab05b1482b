//! Instrumented Mutex / RwLock / Condvar: parking_lot behaviour and exact counts.
#![cfg(all(feature = "mutex", feature = "rwlock", feature = "cond"))]

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::{global_waits, instrumented, serial, serial_with};
use pfs::sync::*;
use pfs::tables::{LockStatRow, SummaryByInstanceRow};
use pfs::{ClassKind, Preset};

mod common;

fn instance_rows(pattern: &str) -> Vec<SummaryByInstanceRow> {
    pfs::events_waits_summary_by_instance_like(pattern)
        .unwrap()
        .rows
}

fn lock_stats(pattern: &str) -> Vec<LockStatRow> {
    pfs::lock_stat_by_instance(Some(pattern)).unwrap().rows
}

/// A mutex of class `name`, switched on (timed or not) with hold statistics on.
fn held_mutex(name: &str, timed: bool) -> Mutex<()> {
    let class = instrumented(ClassKind::Mutex, name, timed);
    pfs::set_hold_stats(true);
    Mutex::with_class(class, ())
}

static STATIC_MUTEX: Mutex<u32> = Mutex::new(7);

#[test]
fn mutex_behaves_like_parking_lot() {
    let _s = serial();
    assert_eq!(*STATIC_MUTEX.lock(), 7);
    let class = instrumented(ClassKind::Mutex, "wait/synch/mutex/t_sync/behave", true);
    for m in [Mutex::new(1), Mutex::with_class(class, 1)] {
        let mut m = m;
        {
            let g = m.lock();
            assert!(m.is_locked());
            assert!(m.try_lock().is_none());
            assert_eq!(*g, 1);
        }
        *m.try_lock().unwrap() += 1;
        *m.get_mut() += 1;
        assert_eq!(format!("{:?}", m.lock()), "3");
        assert_eq!(m.into_inner(), 3);
    }
    let m = Mutex::with_class_identity(class, 42, ());
    assert!(m.is_instrumented());
    assert_eq!(m.instance_identity(), Some(42));
    assert!(!Mutex::new(()).is_instrumented());
}

#[test]
fn mutex_counts_are_exact_single_threaded() {
    let _s = serial_with(Preset::Default);
    let name = "wait/synch/mutex/t_sync/count";
    let class = pfs::register_class(ClassKind::Mutex, name);
    let m = Mutex::with_class_identity(class, 1, 0u32);
    for _ in 0..10 {
        *m.lock() += 1; // disabled by default: not counted
    }
    assert_eq!(instance_rows(name)[0].stats.count_star, 0);

    pfs::set_instruments(name, true, false).unwrap(); // counted
    for _ in 0..100 {
        *m.lock() += 1;
    }
    let r = &instance_rows(name)[0];
    assert_eq!(r.stats.count_star, 100);
    assert_eq!(r.stats.sum_timer_wait, 0);
    assert_eq!(r.object_instance_begin, 1);

    pfs::set_instruments(name, true, true).unwrap(); // timed
    for _ in 0..50 {
        *m.lock() += 1;
    }
    drop(m.try_lock().unwrap());
    assert_eq!(instance_rows(name)[0].stats.count_star, 151);
    assert_eq!(global_waits(name).count_star, 151);
    let me = pfs::current_thread_id();
    let by_thread = pfs::events_waits_summary_by_thread_by_event_name();
    let mine = by_thread
        .rows
        .iter()
        .find(|r| r.thread_id == me && r.event_name == name)
        .unwrap();
    assert_eq!(mine.stats.count_star, 151);

    pfs::set_consumer("thread_instrumentation", false).unwrap();
    *m.lock() += 1;
    assert_eq!(instance_rows(name)[0].stats.count_star, 152);
    pfs::apply_preset(Preset::Default);
    *m.lock() += 1;
    assert_eq!(instance_rows(name)[0].stats.count_star, 152);
}

#[test]
fn dropped_instances_fold_into_the_class() {
    let _s = serial();
    let name = "wait/synch/mutex/t_sync/drop";
    let class = instrumented(ClassKind::Mutex, name, false);
    let m = Mutex::with_class(class, ());
    for _ in 0..3 {
        drop(m.lock());
    }
    assert_eq!(instance_rows(name).len(), 1);
    drop(m);
    assert!(instance_rows(name).is_empty());
    assert_eq!(global_waits(name).count_star, 3);
    let m2 = Mutex::with_class(class, 5);
    drop(m2.lock());
    assert_eq!(m2.into_inner(), 5);
    assert_eq!(global_waits(name).count_star, 4);
    pfs::truncate_events_waits_summary_by_instance();
    assert_eq!(global_waits(name).count_star, 0);
}

#[test]
fn contended_waits_are_timed_and_uncontended_are_free() {
    let _s = serial();
    let name = "wait/synch/mutex/t_sync/contended";
    let class = instrumented(ClassKind::Mutex, name, true);
    let m = Arc::new(Mutex::with_class(class, 0u32));
    drop(m.lock());
    let r = &instance_rows(name)[0];
    assert_eq!((r.stats.count_star, r.stats.sum_timer_wait), (1, 0));

    let g = m.lock();
    let m2 = m.clone();
    let waiter = thread::spawn(move || {
        *m2.lock() += 1;
    });
    thread::sleep(Duration::from_millis(30));
    drop(g);
    waiter.join().unwrap();
    let r = &instance_rows(name)[0];
    assert_eq!(r.stats.count_star, 3);
    assert!(r.stats.max_timer_wait >= 10_000_000_000, "{r:?}"); // >= 10 ms in ps
    assert_eq!(r.stats.min_timer_wait, 0);
    let top = pfs::top_waits(100);
    assert!(top.rows.iter().any(|t| t.events == name && t.total == 3));
}

#[test]
fn hold_times_like_lockstat() {
    let _s = serial();
    let name = "wait/synch/mutex/t_sync/hold";
    let m = held_mutex(name, false);
    {
        let _g = m.lock();
        thread::sleep(Duration::from_millis(5));
    }
    drop(m.try_lock().unwrap());
    let rows = lock_stats(name);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].acquisitions, 2);
    assert_eq!(rows[0].hold_count, 2);
    assert!(rows[0].max_timer_hold >= 4_000_000_000, "{:?}", rows[0]);
    pfs::set_hold_stats(false);
    drop(m.lock());
    assert_eq!(lock_stats(name)[0].hold_count, 2);
}

#[test]
fn rwlock_behaves_like_parking_lot_including_read_recursive() {
    let _s = serial();
    let name = "wait/synch/prlock/t_sync/rw";
    let class = instrumented(ClassKind::RwLock, name, true);
    let l = Arc::new(RwLock::with_class(class, 0u32));
    {
        let r1 = l.read();
        let r2 = l.read_recursive();
        assert_eq!(*r1 + *r2, 0);
        assert!(l.try_write().is_none());
        assert!(l.try_read().is_some());
    }
    *l.write() += 1;
    assert!(l.try_write().is_some());

    // A writer waits behind a reader; a recursive read must still succeed.
    let r = l.read();
    let l2 = l.clone();
    let writer = thread::spawn(move || {
        *l2.write() += 1;
    });
    let deadline = Instant::now() + Duration::from_millis(50);
    while Instant::now() < deadline {
        thread::yield_now();
    }
    let r2 = l.read_recursive();
    assert_eq!(*r2, 1);
    assert!(l.try_read_recursive().is_some());
    drop(r2);
    drop(r);
    writer.join().unwrap();
    assert_eq!(*l.read(), 2);
    assert!(l.is_instrumented());
    // read + read_recursive + try_read + write + try_write + read + write(thread) +
    // read_recursive + try_read_recursive + read
    let row = &instance_rows(name)[0];
    assert_eq!(row.stats.count_star, 10);
    let mut owned = RwLock::new(5);
    *owned.get_mut() += 1;
    assert_eq!(owned.into_inner(), 6);
}

#[test]
fn condvar_waits_notifies_and_times_out() {
    let _s = serial();
    let cname = "wait/synch/cond/t_sync/cv";
    let mname = "wait/synch/mutex/t_sync/cv_mutex";
    let cclass = pfs::register_class(ClassKind::Cond, cname);
    let mclass = pfs::register_class(ClassKind::Mutex, mname);
    pfs::set_instruments("wait/synch/%/t_sync/cv%", true, true).unwrap();
    pfs::set_hold_stats(true);
    let pair = Arc::new((
        Mutex::with_class(mclass, false),
        Condvar::with_class(cclass),
    ));

    // Timeout.
    {
        let (m, cv) = &*pair;
        let mut g = m.lock();
        let t0 = Instant::now();
        let res = cv.wait_until(&mut g, t0 + Duration::from_millis(20));
        assert!(res.timed_out());
        assert!(t0.elapsed() >= Duration::from_millis(20));
        let res = cv.wait_for(&mut g, Duration::from_millis(1));
        assert!(res.timed_out());
    }

    // Notify.
    let p2 = pair.clone();
    let notifier = thread::spawn(move || {
        thread::sleep(Duration::from_millis(10));
        let (m, cv) = &*p2;
        *m.lock() = true;
        cv.notify_all();
    });
    {
        let (m, cv) = &*pair;
        let mut g = m.lock();
        cv.wait_while(&mut g, |ready| !*ready);
        assert!(*g);
        let res = cv.wait_until(&mut g, Instant::now() + Duration::from_millis(1));
        assert!(res.timed_out());
    }
    notifier.join().unwrap();
    assert!(!pair.1.notify_one());

    let rows = instance_rows(cname);
    assert_eq!(rows.len(), 1);
    // 2 timeouts, >= 1 wait in wait_while, 1 timeout.
    assert!(rows[0].stats.count_star >= 4, "{rows:?}");
    assert!(rows[0].stats.sum_timer_wait >= 20_000_000_000, "{rows:?}");
    let holds = lock_stats(mname);
    assert!(holds[0].hold_count >= 3, "{holds:?}");

    // Uninstrumented condvar with an instrumented mutex, and vice versa.
    let m = Mutex::new(());
    let cv = Condvar::with_class(cclass);
    let mut g = m.lock();
    assert!(cv.wait_for(&mut g, Duration::from_millis(1)).timed_out());
    assert!(format!("{cv:?}").contains("instrumented: true"));
}

#[test]
fn guards_work_across_switch_changes() {
    let _s = serial();
    let name = "wait/synch/mutex/t_sync/flip";
    let m = held_mutex(name, true);
    let g = m.lock();
    pfs::apply_preset(Preset::None); // guard taken with hold on, released after
    drop(g);
    let g = m.lock();
    pfs::set_instruments(name, true, true).unwrap();
    pfs::set_hold_stats(true);
    drop(g);
    let rows = lock_stats(name);
    assert_eq!(rows[0].acquisitions, 1);
    assert_eq!(rows[0].hold_count, 1);
}

#[test]
fn synch_instances_list_the_live_locks_by_kind() {
    let _s = serial();
    let names = |kind| -> Vec<(String, u64)> {
        (pfs::synch_instances(kind).rows.into_iter())
            .filter(|r| r.name.contains("/t_sync/inst"))
            .map(|r| (r.name, r.object_instance_begin))
            .collect()
    };
    let m = Mutex::with_class_identity(
        instrumented(ClassKind::Mutex, "wait/synch/mutex/t_sync/inst", false),
        7,
        (),
    );
    let rw = RwLock::with_class_identity(
        instrumented(ClassKind::RwLock, "wait/synch/prlock/t_sync/inst", false),
        8,
        (),
    );
    let c = Condvar::with_class(instrumented(
        ClassKind::Cond,
        "wait/synch/cond/t_sync/inst",
        false,
    ));
    let mutex = "wait/synch/mutex/t_sync/inst".to_string();
    assert_eq!(names(ClassKind::Mutex), [(mutex, 7)]);
    assert_eq!(
        names(ClassKind::RwLock),
        [("wait/synch/prlock/t_sync/inst".into(), 8)]
    );
    assert_eq!(names(ClassKind::Cond).len(), 1);
    assert_eq!(pfs::synch_instances(ClassKind::Cond).name, "cond_instances");
    // A dropped lock's row goes; a kind without instances has none.
    drop((m, rw, c));
    assert!(names(ClassKind::Mutex).is_empty() && names(ClassKind::RwLock).is_empty());
    assert!(pfs::synch_instances(ClassKind::Metadata).rows.is_empty());
}

#[test]
fn an_enabled_lock_names_its_holder_and_counts_its_readers() {
    let _s = serial();
    let row = |kind, name: &str| {
        (pfs::synch_instances(kind).rows.into_iter())
            .find(|r| r.name == name)
            .map(|r| (r.locked_by_thread_id, r.read_locked_by_count))
    };
    let me = pfs::current_thread_id();
    let (mname, rname) = (
        "wait/synch/mutex/t_sync/owner",
        "wait/synch/rwlock/t_sync/owner",
    );
    let m = Mutex::with_class(instrumented(ClassKind::Mutex, mname, false), ());
    let rw = RwLock::with_class(instrumented(ClassKind::RwLock, rname, false), ());
    {
        let _g = m.lock();
        assert_eq!(row(ClassKind::Mutex, mname), Some((Some(me), 0)));
    }
    assert_eq!(row(ClassKind::Mutex, mname), Some((None, 0)));
    {
        let _a = rw.read();
        let _b = rw.try_read().unwrap();
        assert_eq!(row(ClassKind::RwLock, rname), Some((None, 2)));
    }
    {
        let _w = rw.try_write().unwrap();
        assert_eq!(row(ClassKind::RwLock, rname), Some((Some(me), 0)));
    }
    assert_eq!(row(ClassKind::RwLock, rname), Some((None, 0)));
    // Taken while the instrument is off: no owner, as MySQL shows (and nothing to clear).
    pfs::set_instruments(mname, false, false).unwrap();
    let g = m.lock();
    assert_eq!(row(ClassKind::Mutex, mname), Some((None, 0)));
    pfs::set_instruments(mname, true, false).unwrap();
    drop(g);
    assert_eq!(row(ClassKind::Mutex, mname), Some((None, 0)));
    // A condition wait gives the mutex up and takes it back.
    let cname = "wait/synch/cond/t_sync/owner";
    let c = Condvar::with_class(instrumented(ClassKind::Cond, cname, false));
    let mut g = m.lock();
    let _ = c.wait_for(&mut g, Duration::from_millis(1));
    assert_eq!(row(ClassKind::Mutex, mname), Some((Some(me), 0)));
    drop(g);
    assert_eq!(row(ClassKind::Mutex, mname), Some((None, 0)));
}
