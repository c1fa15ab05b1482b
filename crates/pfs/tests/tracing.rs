//! The `tracing` feature: long waits become `tracing` events.
#![cfg(all(feature = "tracing", feature = "timers"))]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pfs::ClassKind;
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

struct Counter(Arc<AtomicUsize>);

impl Subscriber for Counter {
    fn enabled(&self, _m: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _a: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _s: &Id, _v: &Record<'_>) {}
    fn record_follows_from(&self, _s: &Id, _f: &Id) {}
    fn event(&self, e: &Event<'_>) {
        if e.metadata().target() == "pfs::wait" {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
    fn enter(&self, _s: &Id) {}
    fn exit(&self, _s: &Id) {}
}

#[test]
fn long_waits_are_traced() {
    let n = Arc::new(AtomicUsize::new(0));
    let class = pfs::register_class(ClassKind::TableIo, "wait/io/table/t_tracing/slow");
    tracing::subscriber::with_default(Counter(n.clone()), || {
        drop(pfs::wait_start(class, 0)); // threshold off: nothing
        pfs::set_tracing_threshold(Some(Duration::from_millis(2)));
        drop(pfs::wait_start(class, 0)); // too short
        let w = pfs::wait_start(class, 0);
        std::thread::sleep(Duration::from_millis(5));
        drop(w);
        pfs::set_tracing_threshold(None);
        let w = pfs::wait_start(class, 0);
        std::thread::sleep(Duration::from_millis(5));
        drop(w);
    });
    assert_eq!(n.load(Ordering::Relaxed), 1);
}
