//! Unit tests of the lock object's state word.

use super::*;
use crate::key::MdlKey;
use crate::types::Namespace;

/// A full counter sends further requests of its group to the slow path instead of carrying
/// into the next field or the flag bits.
#[test]
fn full_fast_path_counter_takes_the_slow_path() {
    let lock = LockObject::new(MdlKey::new(Namespace::Table, "s", "t").expect("valid"));
    for ty in [LockType::S, LockType::SR, LockType::SW] {
        let inc = fast_path_increment(Strategy::Object, ty);
        let full = inc * ((1 << COUNTER_BITS) - 1);
        lock.word.store(full, Ordering::Relaxed);
        assert_eq!(lock.add_counter(inc), FastAcquire::SlowPath, "{ty:?}");
        lock.word.store(full - inc, Ordering::Relaxed);
        assert_eq!(
            lock.add_counter(inc),
            FastAcquire::Granted {
                hold: Hold::Counter,
                first_use: false
            }
        );
        assert_eq!(lock.word.load(Ordering::Relaxed), full);
    }
    lock.word.store(0, Ordering::Relaxed);
}

#[test]
fn lock_objects_are_64_byte_aligned() {
    let lock = Arc::new(LockObject::new(
        MdlKey::new(Namespace::Table, "s", "t").expect("valid"),
    ));
    assert_eq!(Arc::as_ptr(&lock) as usize % 64, 0);
    assert!(lock.address().is_some());
}
