//! The `pfs` wiring: per-partition mutex instances and `metadata_locks`.
//!
//! One test function, because instrument switches are process-wide and partition instances of
//! two managers would share identities.
#![cfg(feature = "pfs")]

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use mdl_core::*;

fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).unwrap()
}

fn partition_counts() -> Vec<(u64, u64)> {
    let t =
        pfs::events_waits_summary_by_instance_like("wait/synch/mutex/mdl/MDL_map::mutex").unwrap();
    let mut v: Vec<(u64, u64)> = t
        .rows
        .iter()
        .map(|r| (r.object_instance_begin, r.stats.count_star))
        .collect();
    v.sort();
    v
}

#[test]
fn partition_instances_and_metadata_locks() {
    // --- Per-partition counts reveal the 5.6.14 hash skew.
    pfs::set_instruments("wait/synch/mutex/mdl/%", true, false).unwrap();
    for (hash, expect_busy) in [(PartitionHash::MySqlBin, 1), (PartitionHash::Murmur3, 2)] {
        pfs::truncate_events_waits_summary_by_instance();
        let mgr = MdlManager::new(
            MdlConfig::builder()
                .shards(8)
                .partition_hash(hash)
                .lock_cache(0)
                .build()
                .expect("a valid configuration"),
        )
        .unwrap();
        let mut ctx = mgr.new_context();
        for _ in 0..10 {
            for i in 1..=8 {
                let r = MdlRequest::new(
                    table(&format!("sbtest{i}")),
                    LockType::SR,
                    LockDuration::Statement,
                );
                ctx.acquire(&r, Duration::from_secs(1)).unwrap();
                ctx.release_statement_locks();
            }
        }
        let counts = partition_counts();
        assert_eq!(counts.len(), 8, "{counts:?}");
        assert_eq!(counts.iter().map(|c| c.1).sum::<u64>(), 80, "{counts:?}");
        let busy = counts.iter().filter(|c| c.1 > 0).count();
        if expect_busy == 1 {
            assert_eq!(
                busy, 1,
                "MySqlBin puts sbtest1..8 in one partition: {counts:?}"
            );
        } else {
            assert!(busy >= expect_busy, "Murmur3 spreads them: {counts:?}");
        }
        drop(ctx);
        drop(mgr);
    }
    pfs::set_instruments("wait/synch/mutex/mdl/%", false, false).unwrap();

    // --- metadata_locks: granted (fast and slow path) and pending, with types and durations.
    pfs::set_instruments("wait/lock/metadata/sql/mdl", true, true).unwrap();
    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let mut a = mgr.new_context();
    a.acquire(
        &MdlRequest::new(table("t1"), LockType::SR, LockDuration::Statement),
        Duration::from_secs(1),
    )
    .unwrap();
    let x = a
        .acquire(
            &MdlRequest::new(table("t2"), LockType::X, LockDuration::Transaction),
            Duration::from_secs(1),
        )
        .unwrap();
    a.acquire(
        &MdlRequest::new(
            MdlKey::singleton(Namespace::Global).unwrap(),
            LockType::IX,
            LockDuration::Explicit,
        ),
        Duration::from_secs(1),
    )
    .unwrap();
    let mgr2 = mgr.clone();
    let waiter = thread::spawn(move || {
        let mut b = mgr2.new_context();
        b.acquire(
            &MdlRequest::new(table("t2"), LockType::SW, LockDuration::Transaction),
            Duration::from_secs(30),
        )
        .map(|_| ())
    });
    // Wait until the request is queued.
    while !mgr.slow_path_locks().iter().any(|e| !e.granted) {
        thread::sleep(Duration::from_millis(1));
    }
    let rows = mgr.metadata_locks();
    let find = |name: Option<&str>, status: &str| {
        rows.rows
            .iter()
            .filter(|r| r.object_name.as_deref() == name && r.lock_status == status)
            .map(|r| {
                (
                    r.lock_type.as_str(),
                    r.lock_duration.as_str(),
                    r.object_type.as_str(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        find(Some("t1"), "GRANTED"),
        [("SHARED_READ", "STATEMENT", "TABLE")],
        "{rows}"
    );
    assert_eq!(
        find(Some("t2"), "GRANTED"),
        [("EXCLUSIVE", "TRANSACTION", "TABLE")],
        "{rows}"
    );
    assert_eq!(
        find(Some("t2"), "PENDING"),
        [("SHARED_WRITE", "TRANSACTION", "TABLE")],
        "{rows}"
    );
    assert_eq!(
        find(None, "GRANTED"),
        [("INTENTION_EXCLUSIVE", "EXPLICIT", "GLOBAL")],
        "{rows}"
    );
    assert!(rows.rows.iter().all(|r| r.owner_thread_id.is_some()));
    let text = rows.to_string();
    assert!(
        text.contains("SHARED_READ") && text.contains("PENDING"),
        "{text}"
    );

    // Downgrade and duration changes show up; released tickets disappear.
    a.downgrade(x, LockType::SNW).unwrap();
    a.set_lock_duration(x, LockDuration::Explicit).unwrap();
    let rows = mgr.metadata_locks();
    assert!(rows
        .rows
        .iter()
        .any(|r| r.object_name.as_deref() == Some("t2")
            && r.lock_type == "SHARED_NO_WRITE"
            && r.lock_duration == "EXPLICIT"));
    a.release(x).unwrap();
    waiter.join().unwrap().unwrap();
    a.release_statement_locks();
    let rows = mgr.metadata_locks();
    assert!(
        rows.rows
            .iter()
            .all(|r| r.object_name.as_deref() != Some("t1")),
        "{rows}"
    );
    drop(a);
    let _ = Arc::strong_count(&mgr);
}
