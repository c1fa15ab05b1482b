//! The protocol between live nodes, with real etcd: local locks stay local, travelling locks
//! wait for every node's statements, two DDLs are served one after the other in etcd's order,
//! who-blocks-whom and `cluster_locks` name the remote node and context, timeouts and kills
//! work across nodes, a deadlock through two nodes is found with the newest intent as the
//! victim, an upgrade is not held up by the DDLs queued behind the lock it upgrades, and a node
//! leaves once the application drops it. Each test skips (loudly) without an `etcd` binary,
//! and fails instead when `MDL_CLUSTER_REQUIRE_ETCD` is set (CI).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use etcd_client::{Client, GetOptions};
use mdl_cluster::testkit::{etcd_or_skip, EtcdCluster};
use mdl_cluster::{ClusterError, ClusterManager};
use mdl_core::{KillScope, LockType};

async fn revision(etcd: &EtcdCluster) -> i64 {
    let mut c = Client::connect(etcd.endpoints(), None).await.unwrap();
    let r = c
        .get("/", Some(GetOptions::new().with_prefix()))
        .await
        .unwrap();
    r.header().unwrap().revision()
}

#[test]
fn local_locks_never_reach_etcd() {
    if !etcd_or_skip("local_locks_never_reach_etcd") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n = nodes(&etcd, 2, "/t1/").await;
        tokio::time::sleep(Duration::from_millis(200)).await; // waits published, if any
        let before = revision(&etcd).await;
        let mut ctx = n[0].new_context();
        for ty in [
            LockType::S,
            LockType::SH,
            LockType::SR,
            LockType::SW,
            LockType::SWLP,
        ] {
            for i in 0..200 {
                let t = ctx.acquire(&req(&format!("t{}", i % 7), ty), LONG).unwrap();
                ctx.release(t).unwrap();
            }
        }
        assert_eq!(revision(&etcd).await, before, "a local lock wrote to etcd");
        assert!(n[0].cluster_locks().is_empty());
    });
}

#[test]
fn exclusive_waits_for_every_node_and_blocks_every_node() {
    if !etcd_or_skip("exclusive_waits_for_every_node_and_blocks_every_node") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n = nodes(&etcd, 3, "/t2/").await;
        let mut trx = n[1].new_context_with_id(7).unwrap();
        trx.set_label("conn 7: SELECT * FROM t");
        trx.acquire(&req("t", LockType::SR), LONG).unwrap();

        let mut alter = n[0].new_context_with_id(5).unwrap();
        alter.set_label("conn 5: ALTER TABLE t");
        let node0 = n[0].clone();
        let ddl = tokio::spawn(async move {
            let r = alter.acquire_async(&req("t", LockType::X), LONG).await;
            (alter, r.map_err(|e| e.to_string()))
        });
        // Who blocks whom, seen from node 1: node 2's context 7.
        until("node 1 sees the ALTER wait for node 2", LONG, || {
            node0.lock_waits().iter().any(|w| {
                w.waiting.node == 1
                    && w.waiting.context == 5
                    && w.blocking.node == 2
                    && w.blocking.context == 7
            })
        })
        .await;
        // Node 3's acknowledgement reaches node 1 on its own: the wait for node 2 can be seen
        // first.
        until("node 1 sees node 3's acknowledgement", LONG, || {
            (node0.cluster_locks().first()).is_some_and(|l| l.acknowledged_by == [3])
        })
        .await;
        let locks = node0.cluster_locks();
        assert_eq!(locks.len(), 1);
        assert_eq!(locks[0].lock_type, LockType::X);
        assert_eq!(locks[0].waiting_for, vec![2], "{}", locks[0]);
        assert_eq!(locks[0].acknowledged_by, vec![3]);
        let text = node0.lock_waits()[0].to_string();
        assert!(
            text.contains("node 2 context 7 (conn 7: SELECT * FROM t)"),
            "{text}"
        );

        trx.release_transactional_locks();
        let (mut alter, r) = ddl.await.unwrap();
        r.unwrap();
        // Granted: every node's statements on t wait now.
        let mut reader = n[2].new_context();
        let err = reader
            .acquire_async(&req("t", LockType::SR), Duration::from_millis(200))
            .await
            .unwrap_err();
        assert!(
            err.to_string().contains("stand-in for node 1 context 5"),
            "{err}"
        );
        alter.release_transactional_locks();
        reader
            .acquire_async(&req("t", LockType::SR), LONG)
            .await
            .unwrap();
        until("no stand-in left", LONG, || {
            n.iter().all(|x| x.status().stand_ins == 0)
        })
        .await;
        until("no intent left", LONG, || n[2].cluster_locks().is_empty()).await;
        // The release deleted both acknowledgements with the intent; the stand-ins wrote
        // nothing after it.
        assert_eq!(
            keys_under(&etcd, "/t2/a/").await,
            0,
            "an ack outlived its intent"
        );
    });
}

#[test]
fn ddls_on_one_object_are_served_one_at_a_time() {
    if !etcd_or_skip("ddls_on_one_object_are_served_one_at_a_time") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n = nodes(&etcd, 3, "/t3/").await;
        let holders = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for (i, node) in n.iter().enumerate() {
            for k in 0..2 {
                let (node, holders) = (node.clone(), holders.clone());
                tasks.push(tokio::spawn(async move {
                    let mut ctx = node.new_context_with_id(10 + k).unwrap();
                    for round in 0..5 {
                        let ty = if (i + k as usize + round).is_multiple_of(2) {
                            LockType::X
                        } else {
                            LockType::SNW
                        };
                        ctx.acquire_async(&req("t", ty), LONG).await.unwrap();
                        assert_eq!(
                            holders.fetch_add(1, Ordering::SeqCst),
                            0,
                            "two DDLs at once"
                        );
                        tokio::time::sleep(Duration::from_millis(2)).await;
                        holders.fetch_sub(1, Ordering::SeqCst);
                        ctx.release_transactional_locks();
                    }
                }));
            }
        }
        for t in tasks {
            t.await.unwrap();
        }
        until("no stand-in left", LONG, || {
            n.iter().all(|x| x.status().stand_ins == 0)
        })
        .await;
    });
}

#[test]
fn timeouts_and_kills_work_across_nodes() {
    if !etcd_or_skip("timeouts_and_kills_work_across_nodes") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n = nodes(&etcd, 2, "/t4/").await;
        let mut trx = n[1].new_context_with_id(7).unwrap();
        trx.acquire(&req("t", LockType::SR), LONG).unwrap();
        let mut alter = n[0].new_context_with_id(5).unwrap();
        let err = alter
            .acquire_async(&req("t", LockType::X), Duration::from_millis(1500))
            .await
            .unwrap_err();
        assert_eq!(err.mysql_error_code(), Some(1205), "{err}");
        let ClusterError::Timeout(t) = &err else {
            panic!("{err}")
        };
        assert!(
            t.blockers
                .iter()
                .any(|b| b.blocking.node == 2 && b.blocking.context == 7),
            "{err}"
        );
        until("the intent is gone", LONG, || {
            n[1].cluster_locks().is_empty()
        })
        .await;

        // KILL QUERY from node 2 ends the ALTER waiting on node 1.
        let node1 = n[1].clone();
        let ddl = tokio::spawn(async move {
            alter
                .acquire_async(&req("t", LockType::X), LONG)
                .await
                .map(|_| ())
        });
        until("the ALTER waits", LONG, || !node1.lock_waits().is_empty()).await;
        n[1].kill(1, 5, KillScope::Query).await.unwrap();
        let err = ddl.await.unwrap().unwrap_err();
        assert_eq!(err.mysql_error_code(), Some(1317), "{err}");
        until("no stand-in left", LONG, || {
            n.iter().all(|x| x.status().stand_ins == 0)
        })
        .await;
    });
}

/// Waits until `node`'s own lock manager would not grant SR on `table` now: a travelling
/// request of the node has its X there, granted or queued. A requester's stand-ins on other
/// nodes may wait before its own node has queued it (each node follows etcd's watch on its own),
/// and a statement that asks in between is granted first.
async fn until_queued_locally(node: &ClusterManager, table: &str, what: &str) {
    let mut probe = node.local().new_context();
    until(what, LONG, || {
        match probe.try_acquire(&req(table, LockType::SR)).unwrap() {
            Some(t) => {
                probe.release(t).unwrap();
                false
            }
            None => true,
        }
    })
    .await;
}

/// A cycle through two nodes, as in the issue: T1 on node 1 waits for D1, D1's stand-in on
/// node 2 waits for T2, T2 waits for D2, D2's stand-in on node 1 waits for T1. Found (not timed
/// out); D2, the newer intent, loses.
#[test]
fn a_deadlock_through_two_nodes_is_found() {
    if !etcd_or_skip("a_deadlock_through_two_nodes_is_found") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n = nodes(&etcd, 2, "/t5/").await;
        let mut t1 = n[0].new_context_with_id(1).unwrap();
        let mut t2 = n[1].new_context_with_id(2).unwrap();
        t1.acquire(&req("a", LockType::SR), LONG).unwrap();
        t2.acquire(&req("b", LockType::SR), LONG).unwrap();
        // D1 (node 1) wants X on b: granted on node 1, its stand-in waits for T2 on node 2.
        let mut d1 = n[0].new_context_with_id(11).unwrap();
        let d1 = tokio::spawn(async move {
            let r = d1.acquire_async(&req("b", LockType::X), LONG).await;
            (d1, r)
        });
        let n1 = n[1].clone();
        until("D1's stand-in waits on node 2", LONG, || {
            n1.lock_waits()
                .iter()
                .any(|w| w.waiting.node == 1 && w.waiting.context == 11)
        })
        .await;
        until_queued_locally(&n[0], "b", "D1 is queued on node 1").await;
        // D2 (node 2) wants X on a: its stand-in waits for T1 on node 1.
        let mut d2 = n[1].new_context_with_id(22).unwrap();
        let d2 = tokio::spawn(async move {
            d2.acquire_async(&req("a", LockType::X), LONG)
                .await
                .map(|_| ())
        });
        let n0 = n[0].clone();
        until("D2's stand-in waits on node 1", LONG, || {
            n0.lock_waits()
                .iter()
                .any(|w| w.waiting.node == 2 && w.waiting.context == 22)
        })
        .await;
        until_queued_locally(&n[1], "a", "D2 is queued on node 2").await;
        // T1 wants b (held X by D1 on node 1), T2 wants a (held X by D2 on node 2): a cycle.
        let t1w = tokio::spawn(async move {
            let r = t1
                .acquire_async(&req("b", LockType::SR), LONG)
                .await
                .map(|_| ());
            (t1, r)
        });
        let t2w = tokio::spawn(async move {
            let r = t2
                .acquire_async(&req("a", LockType::SR), LONG)
                .await
                .map(|_| ());
            (t2, r)
        });
        let err = match tokio::time::timeout(Duration::from_secs(30), d2).await {
            Ok(r) => r.unwrap().unwrap_err(),
            Err(_) => panic!(
                "not found in 30 s; waits on node 1: {:#?}; on node 2: {:#?}; cluster locks: {:#?}",
                n[0].lock_waits(),
                n[1].lock_waits(),
                n[0].cluster_locks()
            ),
        };
        assert_eq!(err.mysql_error_code(), Some(1213), "{err}");
        assert!(matches!(err, ClusterError::Deadlock(_)), "{err}");
        // T2 gets a; ending T2 lets D1 through; ending D1 lets T1 through.
        let (mut t2, r) = t2w.await.unwrap();
        r.unwrap();
        t2.release_transactional_locks();
        let (mut d1, r) = d1.await.unwrap();
        r.unwrap();
        d1.release_transactional_locks();
        let (mut t1, r) = t1w.await.unwrap();
        r.unwrap();
        t1.release_transactional_locks();
        assert_eq!(n[1].status().deadlock_victims, 1);
        until("no stand-in left", LONG, || {
            n.iter().all(|x| x.status().stand_ins == 0)
        })
        .await;
    });
}

/// An ALTER holds SU on its table across the cluster and asks for X after two other DDLs
/// (one on each node) queued for the table: as in MySQL on one node, the upgrade is granted at
/// once, since the DDLs queued after it cannot be granted anywhere before it ends; they follow.
#[test]
fn an_upgrade_is_not_held_up_by_ddls_queued_behind_it() {
    if !etcd_or_skip("an_upgrade_is_not_held_up_by_ddls_queued_behind_it") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n = nodes(&etcd, 2, "/t8/").await;
        let mut alter = n[0].new_context_with_id(5).unwrap();
        alter
            .acquire_async(&req("t", LockType::SU), LONG)
            .await
            .unwrap();
        let mut others = Vec::new();
        for (node, id) in [(&n[1], 7), (&n[0], 6)] {
            let mut ddl = node.new_context_with_id(id).unwrap();
            others.push(tokio::spawn(async move {
                let r = ddl.acquire_async(&req("t", LockType::X), LONG).await;
                r.map(|_| ddl.release_transactional_locks())
            }));
            let n0 = n[0].clone();
            until("the DDL's intent is ordered", LONG, || {
                n0.cluster_locks().iter().any(|l| l.requester.context == id)
            })
            .await;
        }
        let t0 = std::time::Instant::now();
        alter
            .acquire_async(&req("t", LockType::X), Duration::from_secs(10))
            .await
            .expect("the upgrade is granted ahead of the DDLs queued after the SU");
        eprintln!("upgrade granted in {:?}", t0.elapsed());
        assert!(
            others.iter().all(|t| !t.is_finished()),
            "a DDL ran beside the ALTER"
        );
        alter.release_transactional_locks();
        for t in others {
            tokio::time::timeout(LONG, t)
                .await
                .expect("the DDLs follow")
                .unwrap()
                .unwrap();
        }
        until("no stand-in left", LONG, || {
            n.iter().all(|x| x.status().stand_ins == 0)
        })
        .await;
    });
}

/// A transaction holds SR on its table on node 1 only; an ALTER on node 2 waits for it there;
/// then the transaction asks for X. MySQL on one node would grant it; here node 2 has already
/// granted the ALTER's lock, so the two wait for each other through both lock managers, and the
/// cycle is found (the newest intent, the transaction's, loses) instead of timing out.
#[test]
fn an_upgrade_of_a_local_lock_past_a_remote_ddl_is_a_found_deadlock() {
    if !etcd_or_skip("an_upgrade_of_a_local_lock_past_a_remote_ddl_is_a_found_deadlock") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n = nodes(&etcd, 2, "/t9/").await;
        let mut trx = n[0].new_context_with_id(5).unwrap();
        trx.acquire_async(&req("t", LockType::SR), LONG)
            .await
            .unwrap();
        let mut alter = n[1].new_context_with_id(7).unwrap();
        let ddl = tokio::spawn(async move {
            let r = alter.acquire_async(&req("t", LockType::X), LONG).await;
            r.map(|_| alter.release_transactional_locks())
        });
        let n0 = n[0].clone();
        until(
            "the ALTER's stand-in waits for the transaction",
            LONG,
            || {
                n0.lock_waits()
                    .iter()
                    .any(|w| w.waiting.context == 7 && w.blocking.context == 5)
            },
        )
        .await;
        let t0 = std::time::Instant::now();
        let err = trx
            .acquire_async(&req("t", LockType::X), Duration::from_secs(20))
            .await
            .unwrap_err();
        assert!(matches!(err, ClusterError::Deadlock(_)), "{err}");
        eprintln!("deadlock found in {:?}", t0.elapsed());
        assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
        trx.release_transactional_locks();
        tokio::time::timeout(LONG, ddl)
            .await
            .expect("the ALTER follows")
            .unwrap()
            .unwrap();
        until("no stand-in left", LONG, || {
            n.iter().all(|x| x.status().stand_ins == 0)
        })
        .await;
    });
}

/// A node leaves the cluster (its lease revoked, not left to expire) once the application has
/// dropped every handle of it, manager clones and contexts alike, and not before.
#[test]
fn a_node_leaves_when_the_application_lets_go_of_it() {
    if !etcd_or_skip("a_node_leaves_when_the_application_lets_go_of_it") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        // A TTL far longer than the waits below: only a revoked lease goes in time.
        let mut n = nodes_with_ttl(&etcd, 2, "/t7/", Duration::from_secs(30)).await;
        let second = n.pop().unwrap();
        let first = n.pop().unwrap();
        let live = |node: &mdl_cluster::ClusterManager| node.status().live_nodes;
        // A context keeps its node in the cluster after the last manager clone is dropped.
        let mut ctx = second.new_context();
        let clone = second.clone();
        drop(second);
        drop(clone);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(live(&first), vec![1, 2]);
        let t = ctx
            .acquire_async(&req("t", LockType::X), LONG)
            .await
            .expect("node 2 still serves");
        ctx.release(t).unwrap();
        // The last handle goes: node 2 leaves.
        drop(ctx);
        until("node 2 has left", Duration::from_secs(10), || {
            live(&first) == vec![1]
        })
        .await;
        let mut alter = first.new_context();
        alter
            .acquire_async(&req("t", LockType::X), Duration::from_secs(5))
            .await
            .expect("nobody else to wait for");
    });
}
