//! A requester's own locks, with real etcd: a travelling request dropped after its local grant
//! releases it; a lock taken again with another duration (a clone) keeps its intent until the
//! last of its tickets goes. Each test skips (loudly) without an `etcd` binary, and fails
//! instead when `MDL_CLUSTER_REQUIRE_ETCD` is set (CI).

mod common;

use std::time::Duration;

use common::*;
use mdl_cluster::testkit::{etcd_or_skip, EtcdCluster};
use mdl_cluster::ClusterManager;
use mdl_core::{LockDuration, LockType, MdlRequest};

/// A statement on `n`'s table `t` that must wait: it times out (1205) after 300 ms.
async fn sr_times_out(n: &ClusterManager) -> bool {
    let mut reader = n.new_context();
    match reader
        .acquire_async(&req("t", LockType::SR), Duration::from_millis(300))
        .await
    {
        Err(e) => e.mysql_error_code() == Some(1205),
        Ok(_) => false,
    }
}

#[test]
fn a_request_dropped_after_its_local_grant_releases_it() {
    if !etcd_or_skip("a_request_dropped_after_its_local_grant_releases_it") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n = nodes(&etcd, 2, "/r1/").await;
        let mut trx = n[1].new_context();
        trx.acquire(&req("t", LockType::SR), LONG).unwrap();
        // Granted on node 1 at once, then it waits for node 2's acknowledgement, held up by
        // the transaction there: the caller gives up and drops the future.
        let mut alter = n[0].new_context();
        let gave_up = tokio::time::timeout(
            Duration::from_millis(500),
            alter.acquire_async(&req("t", LockType::X), LONG),
        )
        .await;
        assert!(gave_up.is_err(), "granted although node 2 holds SR");
        assert!(
            !alter
                .local()
                .owns_equal_or_stronger_lock(&table("t"), LockType::X),
            "the dropped request kept its local X"
        );
        assert_eq!(alter.local().lock_count(), 0);
        trx.release_transactional_locks();
        until("the intent is gone", LONG, || n[1].status().stand_ins == 0).await;
        // Nothing is left behind on node 1: a statement there runs.
        let mut reader = n[0].new_context();
        reader
            .acquire_async(&req("t", LockType::SR), Duration::from_secs(5))
            .await
            .unwrap();
    });
}

#[test]
fn a_clone_of_a_travelling_lock_keeps_its_intent() {
    if !etcd_or_skip("a_clone_of_a_travelling_lock_keeps_its_intent") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n = nodes(&etcd, 2, "/r2/").await;
        let mut owner = n[0].new_context();
        owner
            .acquire_async(&req("t", LockType::X), LONG)
            .await
            .unwrap();
        // The same lock again, explicit: mdl-core answers with a clone of the held ticket.
        let explicit = MdlRequest::new(table("t"), LockType::X, LockDuration::Explicit);
        let kept = owner.acquire_async(&explicit, LONG).await.unwrap();
        assert_eq!(n[0].cluster_locks().len(), 1, "no second intent");
        owner.release_transactional_locks();
        // The clone still holds X on node 1: node 2's statements must still wait.
        assert!(owner
            .local()
            .owns_equal_or_stronger_lock(&table("t"), LockType::X));
        assert!(sr_times_out(&n[1]).await, "node 2 ran a statement under X");
        assert_eq!(
            n[0].cluster_locks().len(),
            1,
            "the intent went with the first ticket"
        );
        owner.release(kept).unwrap();
        until("the intent is gone", LONG, || n[1].status().stand_ins == 0).await;
        let mut reader = n[1].new_context();
        reader
            .acquire_async(&req("t", LockType::SR), Duration::from_secs(5))
            .await
            .unwrap();
    });
}
