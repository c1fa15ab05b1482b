//! Multi-threaded totals are exact once the threads have exited; thread ids.
#![cfg(feature = "instrumentation")]

use std::sync::Arc;
use std::thread;

use common::{global_waits, serial_with, waits_events_on};
use pfs::{ClassKind, Preset};

mod common;

#[cfg(feature = "metadata")]
#[test]
fn totals_are_exact_after_threads_exit() {
    let _s = serial_with(Preset::Default);
    let mdl = pfs::register_class(ClassKind::Metadata, "wait/lock/metadata/t_threads/mdl");
    pfs::set_instruments("wait/lock/metadata/t_threads/%", true, true).unwrap();
    const THREADS: usize = 4;
    const N: u64 = 2000;
    let handles: Vec<_> = (0..THREADS)
        .map(|i| {
            thread::spawn(move || {
                for _ in 0..N {
                    let _w = pfs::wait_start(mdl, i);
                }
                pfs::current_thread_id()
            })
        })
        .collect();
    let ids: std::collections::HashSet<u64> =
        handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(ids.len(), THREADS);
    let s = global_waits("wait/lock/metadata/t_threads/mdl");
    assert_eq!(s.count_star, THREADS as u64 * N);
    assert!(s.min_timer_wait <= s.avg_timer_wait && s.avg_timer_wait <= s.max_timer_wait);
    // The exited threads are gone from the by-thread table.
    assert!(pfs::events_waits_summary_by_thread_by_event_name()
        .rows
        .iter()
        .all(|r| !ids.contains(&r.thread_id)));
}

#[cfg(feature = "mutex")]
#[test]
fn contended_mutex_counts_are_exact() {
    let _s = serial_with(Preset::Synch);
    let name = "wait/synch/mutex/t_threads/shared";
    let class = pfs::register_class(ClassKind::Mutex, name);
    let m = Arc::new(pfs::sync::Mutex::with_class(class, 0u64));
    const THREADS: u64 = 4;
    const N: u64 = 2000;
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let m = m.clone();
            thread::spawn(move || {
                for _ in 0..N {
                    *m.lock() += 1;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*m.lock(), THREADS * N);
    let inst = pfs::events_waits_summary_by_instance_like(name).unwrap();
    assert_eq!(inst.rows[0].stats.count_star, THREADS * N + 1);
    assert_eq!(global_waits(name).count_star, THREADS * N + 1);
}

#[test]
fn threads_table_lists_named_live_threads() {
    let _s = serial_with(Preset::Default);
    let class = pfs::register_class(ClassKind::TableIo, "wait/io/table/t_threads/named");
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let (idtx, idrx) = std::sync::mpsc::channel::<u64>();
    let h = thread::Builder::new()
        .name("worker-7".into())
        .spawn(move || {
            drop(pfs::wait_start(class, 0));
            idtx.send(pfs::current_thread_id()).unwrap();
            rx.recv().ok();
        })
        .unwrap();
    let id = idrx.recv().unwrap();
    let t = pfs::threads();
    let row = t.rows.iter().find(|r| r.thread_id == id).unwrap();
    assert_eq!(row.name.as_deref(), Some("worker-7"));
    tx.send(()).unwrap();
    h.join().unwrap();
    assert!(pfs::threads().rows.iter().all(|r| r.thread_id != id));
}

#[test]
fn thread_ids_are_stable_and_distinct() {
    let a = pfs::current_thread_id();
    assert!(a >= 1);
    assert_eq!(a, pfs::current_thread_id());
    let b = thread::spawn(pfs::current_thread_id).join().unwrap();
    assert_ne!(a, b);
    assert!(b >= 1);
}

#[test]
fn readers_run_while_writers_write() {
    let _s = serial_with(Preset::Default);
    waits_events_on();
    let class = pfs::register_class(ClassKind::TableIo, "wait/io/table/t_threads/rw");
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers: Vec<_> = (0..2)
        .map(|_| {
            let stop = stop.clone();
            thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _w = pfs::wait_start(class, 7);
                    n += 1;
                }
                n
            })
        })
        .collect();
    for _ in 0..20 {
        let _ = pfs::events_waits_current();
        let _ = pfs::events_waits_history();
        let long = pfs::events_waits_history_long();
        assert!(long
            .rows
            .iter()
            .all(|r| r.event.event_id > 0 && r.object_instance_begin == 7
                || r.event.event_name != "wait/io/table/t_threads/rw"));
        let _ = pfs::events_waits_summary_global_by_event_name();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let total: u64 = writers.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(global_waits("wait/io/table/t_threads/rw").count_star, total);
}
