//! The `tracing` span of a wait (feature `tracing`): one `mdl_wait` span per wait, with the
//! object, the lock type, the blockers when it began, and its outcome and duration at the end;
//! none for a lock granted without waiting.
#![cfg(feature = "tracing")]

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mdl_core::{
    LockDuration, LockType, MdlConfig, MdlError, MdlKey, MdlManager, MdlRequest, Namespace,
};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Fields recorded per span, by span id.
type Spans = Arc<Mutex<HashMap<u64, (String, HashMap<String, String>)>>>;

/// A subscriber that keeps every span's name and fields.
struct Recorder {
    next: AtomicU64,
    spans: Spans,
}

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut fields = HashMap::new();
        span.record(&mut Fields(&mut fields));
        let name = span.metadata().name().to_string();
        self.spans.lock().unwrap().insert(id, (name, fields));
        Id::from_u64(id)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().unwrap();
        if let Some((_, fields)) = spans.get_mut(&span.into_u64()) {
            values.record(&mut Fields(fields));
        }
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[test]
fn a_wait_has_one_span_with_its_object_blockers_and_outcome() {
    let spans = Spans::default();
    let recorder = Recorder {
        next: AtomicU64::new(0),
        spans: spans.clone(),
    };
    tracing::subscriber::set_global_default(recorder).unwrap();

    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let t1 = MdlKey::new(Namespace::Table, "db", "t1").unwrap();
    let mut holder = mgr.new_context();
    let mut waiter = mgr.new_context();
    let sw = MdlRequest::new(t1.clone(), LockType::SharedWrite, LockDuration::Transaction);
    holder.acquire(&sw, Duration::from_secs(1)).unwrap();
    // Granted at once: no wait, no span.
    let mut reader = mgr.new_context();
    let sr = MdlRequest::new(t1.clone(), LockType::SharedRead, LockDuration::Statement);
    reader.acquire(&sr, Duration::from_secs(1)).unwrap();
    assert!(spans.lock().unwrap().is_empty());

    // Blocked by the holder's SW until its timeout.
    let x = MdlRequest::new(t1, LockType::Exclusive, LockDuration::Transaction);
    let err = waiter.acquire(&x, Duration::from_millis(20)).unwrap_err();
    assert!(matches!(err, MdlError::Timeout(_)), "{err:?}");

    let spans = spans.lock().unwrap();
    assert_eq!(spans.len(), 1, "{spans:?}");
    let (name, fields) = spans.values().next().unwrap();
    assert_eq!(name, "mdl_wait");
    assert!(fields["object"].contains("t1"), "{fields:?}");
    assert_eq!(fields["lock_type"], "EXCLUSIVE");
    assert_eq!(fields["lock_duration"], "TRANSACTION");
    assert_eq!(fields["context"], waiter.id().to_string());
    assert!(fields["blockers"].contains("SHARED_WRITE"), "{fields:?}");
    assert_eq!(fields["outcome"], "timeout");
    let waited: u64 = fields["waited_us"].parse().unwrap();
    assert!(waited >= 15_000, "waited {waited} us");
}
