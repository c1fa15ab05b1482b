//! The compiled-out build: everything is a no-op and the sync types are parking_lot's.
#![cfg(not(feature = "instrumentation"))]

use pfs::sync::*;
use pfs::{ClassKind, Preset};

#[test]
fn compiled_out_is_inert() {
    assert_eq!(std::mem::size_of::<pfs::ClassRef>(), 0);
    assert_eq!(std::mem::size_of::<pfs::EventGuard>(), 0);
    // `enabled()` is a `const fn` returning false: usable in const context.
    const { assert!(!pfs::ClassRef::disabled().enabled()) };
    let c = pfs::register_class(ClassKind::Mutex, "wait/synch/mutex/t_noop/m");
    assert!(!c.enabled() && !c.timed());

    // The sync names are parking_lot's types; with_class comes from the Ext traits.
    let m: parking_lot::Mutex<u32> = Mutex::with_class(c, 1);
    let _: parking_lot::RwLock<u32> = RwLock::with_class(c, 1);
    let cv: parking_lot::Condvar = Condvar::with_class(c);
    let mut g = m.lock();
    assert!(cv
        .wait_for(&mut g, std::time::Duration::from_millis(1))
        .timed_out());
    drop(g);
    assert_eq!(
        std::mem::size_of::<Mutex<u64>>(),
        std::mem::size_of::<parking_lot::Mutex<u64>>()
    );

    assert!(!pfs::wait_start(c, 0).is_active());
    assert_eq!(pfs::instrument_wait!(c, 0usize, 1 + 1), 2);
    assert_eq!(pfs::instrument_statement!(c, 3), 3);
    assert_eq!(pfs::instrument_stage!(c, 4), 4);
    assert_eq!(pfs::set_instruments("wait/%", true, true), Ok(0));
    assert!(pfs::set_instruments("", true, true).is_err());
    assert!(pfs::set_consumer("bogus", true).is_err());
    assert!(pfs::set_consumer("global_instrumentation", true).is_ok());
    pfs::apply_preset(Preset::Synch);
    assert!(pfs::events_waits_summary_global_by_event_name().is_empty());
    assert!(pfs::top_waits(5).is_empty());
    assert!(!pfs::status().compiled);
    assert!(pfs::current_thread_id() >= 1);
    assert_eq!(pfs::top_waits(5).to_string(), "Empty set\n");
}
