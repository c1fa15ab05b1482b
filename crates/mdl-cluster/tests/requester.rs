//! A requester's own locks, with real etcd: a travelling request dropped after its local grant
//! releases it; a lock taken again with another duration (a clone) keeps its intent until the
//! last of its tickets goes; an ALTER's SU and then X in one context are granted across nodes;
//! a node that leaves keeps blocking until its holders are gone, and grants nothing meanwhile;
//! a configuration that cannot work is refused. Each etcd test skips (loudly) without an
//! `etcd` binary, and fails instead when `MDL_CLUSTER_REQUIRE_ETCD` is set (CI).

mod common;

use std::time::Duration;

use common::*;
use mdl_cluster::testkit::{etcd_or_skip, EtcdCluster};
use mdl_cluster::{ClusterConfig, ClusterError, ClusterManager};
use mdl_core::{LockDuration, LockType, MdlConfig, MdlManager, MdlRequest};

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

#[test]
fn an_alter_takes_su_then_x_across_nodes() {
    if !etcd_or_skip("an_alter_takes_su_then_x_across_nodes") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n = nodes(&etcd, 3, "/r4/").await;
        let mut trx = n[1].new_context();
        trx.acquire(&req("t", LockType::SR), LONG).unwrap();
        // As MySQL's ALTER TABLE: SU (compatible with the reader), then X in the same context.
        let mut alter = n[0].new_context();
        alter
            .acquire_async(&req("t", LockType::SU), Duration::from_secs(10))
            .await
            .unwrap();
        let ddl = tokio::spawn(async move {
            let r = alter
                .acquire_async(&req("t", LockType::X), Duration::from_secs(10))
                .await;
            (alter, r.map(|_| ()).map_err(|e| e.to_string()))
        });
        until("the X waits for node 2's reader", LONG, || {
            !n[0].lock_waits().is_empty()
        })
        .await;
        trx.release_transactional_locks();
        // Each node's stand-ins for the ALTER share one context there: the X stand-in does
        // not wait for the SU stand-in of the same ALTER.
        let (mut alter, r) = ddl.await.unwrap();
        r.unwrap();
        assert!(sr_times_out(&n[2]).await, "node 3 ran a statement under X");
        alter.release_transactional_locks();
        until("no stand-in left", LONG, || {
            n.iter().all(|x| x.status().stand_ins == 0)
        })
        .await;
        let mut reader = n[2].new_context();
        reader
            .acquire_async(&req("t", LockType::SR), Duration::from_secs(5))
            .await
            .unwrap();
    });
}

#[test]
fn a_node_that_leaves_blocks_until_its_holders_are_gone() {
    if !etcd_or_skip("a_node_that_leaves_blocks_until_its_holders_are_gone") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        // A long lease: a leaving node waits for its holders at most until its lease could
        // expire, and this test must look well before that.
        let n = nodes_with_ttl(&etcd, 3, "/r3/", Duration::from_secs(6)).await;
        // Node 3 holds t in a transaction; node 1's ALTER waits for it.
        let mut trx = n[2].new_context();
        trx.acquire(&req("t", LockType::SR), LONG).unwrap();
        let mut alter = n[0].new_context();
        let ddl = tokio::spawn(async move {
            let r = alter.acquire_async(&req("t", LockType::X), LONG).await;
            (alter, r.map(|_| ()).map_err(|e| e.to_string()))
        });
        until("the ALTER waits", LONG, || !n[0].lock_waits().is_empty()).await;
        // Node 2 holds a stand-in for the ALTER (granted: nothing holds t there), and a
        // statement of node 2 queues behind it.
        let mut queued = n[1].new_context();
        let stmt = tokio::spawn(async move {
            queued
                .acquire_async(&req("t", LockType::SR), LONG)
                .await
                .map(|_| ())
        });
        until("node 2's statement waits", LONG, || {
            !n[1].local().lock_waits().rows.is_empty()
        })
        .await;
        // Node 3 leaves while its transaction still holds t: the ALTER must not be granted.
        let leaving = n[2].clone();
        let left = tokio::spawn(async move { leaving.leave().await });
        // Node 2 leaves too: its queued statement must not run while the ALTER may still be
        // granted elsewhere (the gate closes before the stand-in goes).
        n[1].leave().await;
        let r = stmt.await.unwrap();
        assert!(r.is_err(), "node 2 granted SR as it left");
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(
            !ddl.is_finished(),
            "the ALTER was granted while node 3 held t"
        );
        assert!(
            !left.is_finished(),
            "node 3 left before its holder was gone"
        );
        trx.release_transactional_locks();
        left.await.unwrap();
        let (_alter, r) = ddl.await.unwrap();
        r.unwrap();
    });
}

#[test]
fn a_configuration_that_cannot_work_is_refused() {
    runtime().block_on(async {
        let mgr = MdlManager::new(MdlConfig::default()).unwrap();
        let mut cfg = ClusterConfig::new(vec!["http://127.0.0.1:9".into()], 1);
        cfg.wait_publish_interval = Duration::ZERO;
        let err = ClusterManager::join(cfg, mgr.clone()).await.err().unwrap();
        assert!(matches!(err, ClusterError::Config(_)), "{err}");
        assert!(err.to_string().contains("wait_publish_interval"), "{err}");
        let mut cfg = ClusterConfig::new(vec!["http://127.0.0.1:9".into()], 1);
        cfg.lease_ttl = Duration::from_secs(2); // keep_alive and fence_margin as for 5 s
        let err = ClusterManager::join(cfg, mgr).await.err().unwrap();
        assert!(matches!(err, ClusterError::Config(_)), "{err}");
        assert!(err.to_string().contains("lease_ttl"), "{err}");
    });
}
