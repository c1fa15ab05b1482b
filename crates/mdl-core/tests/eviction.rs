//! Lock objects (`docs/semantics.md` §2, §13): the 18 namespaces with their strategies and
//! singletons, counts of lock objects and unused objects, eviction of unused objects past the
//! low-water mark and ratio, and the partition hashes (`MySqlBin` puts `test.sbtest1..8` into one
//! of 8 partitions, Murmur3 spreads them).

use std::collections::HashSet;

use mdl_core::*;
use mdl_reference::matrix::*;
use mdl_reference::support::*;

#[test]
fn eighteen_namespaces_with_their_strategy_and_singletons() {
    // §2, transcribed: (id, namespace, scoped, singleton).
    use Namespace::*;
    let table = [
        (0, Global, true, true),
        (1, BackupLock, true, true),
        (2, Tablespace, true, false),
        (3, Schema, true, false),
        (4, Table, false, false),
        (5, Function, false, false),
        (6, Procedure, false, false),
        (7, Trigger, false, false),
        (8, Event, false, false),
        (9, Commit, true, true),
        (10, UserLevelLock, false, false),
        (11, LockingService, false, false),
        (12, Srid, false, false),
        (13, AclCache, false, true),
        (14, ColumnStatistics, false, false),
        (15, ResourceGroups, true, false),
        (16, ForeignKey, true, false),
        (17, CheckConstraint, true, false),
    ];
    assert_eq!(Namespace::ALL.len(), 18);
    for (id, ns, scoped, singleton) in table {
        assert_eq!(Namespace::ALL[id as usize], ns);
        assert_eq!(ns.id(), id);
        assert_eq!(Namespace::from_id(id), Some(ns));
        let want = if scoped {
            Strategy::Scoped
        } else {
            Strategy::Object
        };
        assert_eq!(ns.strategy(), want, "{ns:?}");
        assert_eq!(ns.is_singleton(), singleton, "{ns:?}");
        // The allowed types follow the strategy.
        for t in LockType::ALL {
            let allowed = if scoped {
                SCOPED.contains(&t)
            } else {
                t != LockType::IX
            };
            assert_eq!(ns.allows(t), allowed, "{ns:?} {t:?}");
        }
    }
    assert_eq!(Namespace::from_id(18), None);
}

fn any_key(ns: Namespace, i: usize) -> MdlKey {
    if ns.is_singleton() {
        MdlKey::singleton(ns).unwrap()
    } else if ns == Namespace::ColumnStatistics {
        MdlKey::column_statistics("db", &format!("t{i}"), "c").unwrap()
    } else {
        MdlKey::new(ns, "db", &format!("o{i}")).unwrap()
    }
}

#[test]
fn every_namespace_locks_and_singletons_are_never_lock_objects() {
    let (m, mut c, mut o) = two_contexts();
    for ns in Namespace::ALL {
        let k = any_key(ns, 0);
        assert_eq!(k.namespace(), ns);
        let strongest = LockType::X;
        let weakest = if is_scoped(ns) {
            LockType::IX
        } else {
            LockType::S
        };
        c.acquire(&treq(&k, weakest), LONG).unwrap();
        assert!(!can_take(&mut o, &k, strongest), "{ns:?}");
    }
    let non_singletons = Namespace::ALL.iter().filter(|n| !n.is_singleton()).count();
    assert_eq!(non_singletons, 14);
    assert_eq!(m.lock_object_count(), 14);
    c.release_transactional_locks();
    assert_eq!(m.lock_object_count(), 14);
    assert_eq!(m.unused_lock_object_count(), 14);
    // Singletons: locking them, on the slow path too, never adds lock objects.
    let m = mgr_with(|c| c.unused_locks_low_water = 0);
    let mut c = m.new_context();
    for ns in Namespace::ALL.into_iter().filter(|n| n.is_singleton()) {
        let k = MdlKey::singleton(ns).unwrap();
        let t = c.acquire(&treq(&k, LockType::X), LONG).unwrap();
        assert!(m.find_lock_owner(&k) == Some(c.id()));
        c.release(t).unwrap();
        assert_eq!(m.find_lock_owner(&k), None);
    }
    assert_eq!(m.lock_object_count(), 0);
    assert_eq!(m.unused_lock_object_count(), 0);
}

#[test]
fn lock_objects_stay_cached_below_the_low_water_mark() {
    // Default low water 1000: 800 objects used once all stay.
    let (m, mut c) = one_context();
    for i in 0..800 {
        c.acquire(&treq(&table(&format!("t{i}")), LockType::X), LONG)
            .unwrap();
        c.release_transactional_locks();
    }
    assert_eq!(m.lock_object_count(), 800);
    assert_eq!(m.unused_lock_object_count(), 800);
}

#[test]
fn unused_objects_are_evicted_past_low_water_and_ratio() {
    for fast in FastPath::ALL {
        let name = fast.name();
        let low = 10;
        let m = mgr_with(|c| {
            c.unused_locks_low_water = low;
            c.fast_path = fast;
        });
        let mut c = m.new_context();
        // 40 objects held: none is unused, none can go.
        let held: Vec<MdlKey> = (0..40).map(|i| table(&format!("held{i}"))).collect();
        for k in &held {
            c.acquire(&req(k, LockType::SR, LockDuration::Explicit), LONG)
                .unwrap();
        }
        // 500 objects used once and released.
        for i in 0..500 {
            let t = if i % 2 == 0 {
                LockType::SR
            } else {
                LockType::X
            };
            c.acquire(&treq(&table(&format!("tmp{i}")), t), LONG)
                .unwrap();
            c.release_transactional_locks();
            let (all, unused) = (m.lock_object_count(), m.unused_lock_object_count());
            // After a release, eviction has run: unused <= low water, or <= 25% of all.
            assert!(
                unused <= low || unused as f64 <= all as f64 * 0.25 + 1.0,
                "[{name}] {unused} unused of {all}"
            );
        }
        assert!(
            m.lock_object_count() < 100,
            "[{name}] {}",
            m.lock_object_count()
        );
        // Held objects survive eviction and still work.
        let mut o = m.new_context();
        for k in &held {
            assert!(!can_take(&mut o, k, LockType::X));
        }
        drop(c);
        assert_eq!(m.unused_lock_object_count(), m.lock_object_count());
        // An evicted name can be locked again.
        assert!(can_take(&mut o, &table("tmp0"), LockType::X));
    }
}

/// A manager of `fast_path` that keeps no unused objects beyond `min_ratio` of all (low water
/// 0), after 50 tables were each locked and released; `check(m, i)` runs after each release.
fn lock_and_release_50(
    fast_path: FastPath,
    min_ratio: f64,
    check: impl Fn(&MdlManager, usize),
) -> std::sync::Arc<MdlManager> {
    let m = mgr_with(|c| {
        c.fast_path = fast_path;
        c.unused_locks_low_water = 0;
        c.unused_locks_min_ratio = min_ratio;
    });
    let mut c = m.new_context();
    for i in 0..50 {
        c.acquire(&treq(&table(&format!("t{i}")), LockType::SR), LONG)
            .unwrap();
        c.release_transactional_locks();
        check(&m, i);
    }
    m
}

#[test]
fn ratio_one_keeps_everything_low_water_zero_ratio_zero_keeps_nothing() {
    let m = lock_and_release_50(FastPath::default(), 1.0, |_, _| {});
    assert_eq!(m.lock_object_count(), 50);
    // A per-context fast-path release writes only the context's slot, so the object is found
    // unused by the sweep at the next creation (docs/lock-manager.md, "Eviction").
    lock_and_release_50(FastPath::PerContext, 0.0, |m, i| {
        assert!(
            m.lock_object_count() <= 1,
            "{i}: freed at the next creation"
        );
    });
    for fast_path in [FastPath::Off, FastPath::SharedWord] {
        lock_and_release_50(fast_path, 0.0, |m, i| {
            assert_eq!(m.lock_object_count(), 0, "[{fast_path}] {i}: freed at once");
        });
    }
}

#[test]
fn mysql_bin_hash_puts_sbtest1_to_8_into_one_of_8_partitions() {
    let keys: Vec<MdlKey> = (1..=8).map(|i| table(&format!("sbtest{i}"))).collect();
    let bin = mgr_with(|c| {
        c.shards = 8;
        c.partition_hash = PartitionHash::MySqlBin;
    });
    assert_eq!(bin.partitions(), 8);
    let parts: HashSet<usize> = keys.iter().map(|k| bin.partition_of(k)).collect();
    assert_eq!(parts.len(), 1, "{parts:?}");
    let mm = mgr_with(|c| {
        c.shards = 8;
        c.partition_hash = PartitionHash::Murmur3;
    });
    let parts: HashSet<usize> = keys.iter().map(|k| mm.partition_of(k)).collect();
    assert!(parts.len() >= 4, "murmur3 spreads them: {parts:?}");
    for k in &keys {
        assert_eq!(mm.partition_of(k), k.murmur3() as usize % 8);
        assert_eq!(bin.partition_of(k), k.mysql_bin_hash() as usize % 8);
        assert!(mm.partition_of(k) < 8);
    }
    // Locks still work whatever the partition.
    let mut c = bin.new_context();
    let mut o = bin.new_context();
    for k in &keys {
        c.acquire(&treq(k, LockType::SW), LONG).unwrap();
        assert!(!can_take(&mut o, k, LockType::SNW));
    }
}

#[test]
fn one_to_1024_shards() {
    for shards in [1, 2, 7, 1024] {
        let m = mgr_with(|c| c.shards = shards);
        assert_eq!(m.partitions(), shards);
        let mut c = m.new_context();
        for i in 0..64 {
            let k = table(&format!("t{i}"));
            assert!(m.partition_of(&k) < shards);
            c.acquire(&treq(&k, LockType::X), LONG).unwrap();
        }
        assert_eq!(m.lock_object_count(), 64);
        assert_eq!(m.unused_lock_object_count(), 0);
    }
}

#[test]
fn find_lock_owner_sees_queue_and_slot_holders_not_counters() {
    let m = mgr();
    let k = table("t");
    assert_eq!(m.find_lock_owner(&k), None);
    let mut a = m.new_context();
    a.acquire(&treq(&k, LockType::SR), LONG).unwrap();
    assert_eq!(m.find_lock_owner(&k), Some(a.id()), "per-context slot");
    // MySQL's fast path: a counter names no owner until the holder materializes it.
    let m = mgr_with(|c| c.fast_path = FastPath::SharedWord);
    let mut a = m.new_context();
    a.acquire(&treq(&k, LockType::SR), LONG).unwrap();
    assert_eq!(m.find_lock_owner(&k), None, "fast-path counter");
    a.acquire(&treq(&table("u"), LockType::X), LONG).unwrap(); // materializes
    assert_eq!(m.find_lock_owner(&k), Some(a.id()));
    let mut b = m.new_context();
    let su = table("su");
    b.acquire(&treq(&su, LockType::SU), LONG).unwrap();
    assert_eq!(m.find_lock_owner(&su), Some(b.id()));
}
