//! Bounded buffers and lost counters (own binary: it sizes the buffers before first use).
#![cfg(feature = "instrumentation")]

use common::{objects, waits_events_on};
use pfs::{ClassKind, PfsError, Sizing};

mod common;

#[test]
fn full_buffers_count_lost_and_never_panic() {
    pfs::init(Sizing {
        max_classes: 4,
        max_instances: 2,
        max_threads: 2,
        max_digests: 1,
        waits_history_size: 3,
        waits_history_long_size: 4,
        ..Sizing::default()
    })
    .unwrap();
    assert_eq!(
        pfs::init(Sizing::default()),
        Err(PfsError::AlreadyInitialized)
    );

    // Classes: the fifth is lost, never enabled, and safe to use everywhere.
    let classes: Vec<_> = (0..5)
        .map(|i| pfs::register_class(ClassKind::TableIo, &format!("wait/io/table/t_lost/c{i}")))
        .collect();
    assert!(classes[..4].iter().all(|c| !c.is_lost() && c.enabled()));
    assert!(classes[4].is_lost() && !classes[4].enabled());
    assert_eq!(pfs::status().class_lost, 1);
    drop(pfs::wait_start(classes[4], 0));
    assert!(pfs::set_instruments("%", true, true).unwrap() == 4);
    assert!(!classes[4].enabled());

    // Instances: the third mutex runs uninstrumented.
    #[cfg(feature = "mutex")]
    {
        let m1 = pfs::sync::Mutex::with_class(classes[0], 1);
        let m2 = pfs::sync::Mutex::with_class(classes[0], 2);
        let m3 = pfs::sync::Mutex::with_class(classes[0], 3);
        assert!(m1.is_instrumented() && m2.is_instrumented() && !m3.is_instrumented());
        assert_eq!(*m3.lock(), 3);
        let lost = pfs::sync::Mutex::with_class(classes[4], 4);
        assert!(!lost.is_instrumented());
        let st = pfs::status();
        assert_eq!(st.other_instances_lost, 1); // classes[0] is a TableIo class
        assert_eq!(st.instances_used, 2);
        drop(m1);
        let m4 = pfs::sync::Mutex::with_class(classes[0], 4);
        assert!(m4.is_instrumented(), "a freed slot is reused");
    }

    // Digests.
    let d1 = pfs::register_digest("SELECT 1");
    let _d2 = pfs::register_digest("SELECT 2");
    assert_eq!(pfs::status().digest_lost, 1);
    assert_eq!(d1, pfs::register_digest("SELECT 1"));

    // History rings.
    waits_events_on();
    for i in 0..10 {
        drop(pfs::wait_start(classes[1], i));
    }
    let me = pfs::current_thread_id();
    assert_eq!(
        objects(pfs::events_waits_history(), Some(me)),
        vec![7, 8, 9]
    );
    assert_eq!(
        objects(pfs::events_waits_history_long(), None),
        vec![6, 7, 8, 9]
    );

    // Threads: this thread has a slot; with 2 slots, one more fits and the next is lost.
    let c1 = classes[1];
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        drop(pfs::wait_start(c1, 0));
        rx.recv().ok();
    });
    while pfs::status().threads_live < 2 {
        std::thread::yield_now();
    }
    std::thread::spawn(move || drop(pfs::wait_start(c1, 0)))
        .join()
        .unwrap();
    assert_eq!(pfs::status().thread_lost, 1);
    tx.send(()).unwrap();
    holder.join().unwrap();
    assert!(pfs::status().locker_lost >= 1);
    let text = pfs::status().to_table().to_string();
    assert!(text.contains("| Performance_schema_class_lost"), "{text}");
}
