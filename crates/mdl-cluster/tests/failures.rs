//! Failure semantics with real etcd and real processes: a node that dies (SIGKILL) stops
//! blocking once its lease expires; a requester that dies mid-acquire leaves no stand-in; a
//! node cut off from etcd (a proxy that stops forwarding) fences itself: it refuses grants,
//! kills and waits out its holders before its lease can expire elsewhere, and joins again when
//! etcd is back; restarting any member of a 3-member etcd (the leader the nodes send their
//! requests to among them) changes nothing. Each test skips
//! (loudly) without an `etcd` binary, and fails instead when `MDL_CLUSTER_REQUIRE_ETCD` is set.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::*;
use mdl_cluster::history::{self, HistoryWriter};
use mdl_cluster::testkit::{etcd_or_skip, EtcdCluster, TcpProxy, TempDir};
use mdl_core::{LockType, MdlConfig, MdlManager};

#[test]
fn a_dead_node_stops_blocking_when_its_lease_expires() {
    if !etcd_or_skip("a_dead_node_stops_blocking_when_its_lease_expires") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    let mut p2 = NodeProcess::start(&etcd.endpoints(), 2, &[]);
    p2.send("lock 7 SR t");
    p2.expect("ok lock 7", LONG);
    runtime().block_on(async {
        let n1 = nodes(&etcd, 1, "/mdl/").await.remove(0);
        let mut alter = n1.new_context_with_id(5).unwrap();
        let node = n1.clone();
        let ddl = tokio::spawn(async move {
            let r = alter
                .acquire_async(&req("t", LockType::X), LONG)
                .await
                .map(|_| ());
            (alter, r)
        });
        until("the ALTER waits for node 2's context 7", LONG, || {
            node.lock_waits()
                .iter()
                .any(|w| w.blocking.node == 2 && w.blocking.context == 7)
        })
        .await;
        let killed = Instant::now();
        p2.kill();
        let (_alter, r) = ddl.await.unwrap();
        r.unwrap();
        eprintln!(
            "ALTER proceeded {:?} after node 2 was killed (TTL {TTL:?})",
            killed.elapsed()
        );
        assert_eq!(n1.status().live_nodes, vec![1]);
    });
}

#[test]
fn a_requester_dying_mid_acquire_leaves_no_stand_in() {
    if !etcd_or_skip("a_requester_dying_mid_acquire_leaves_no_stand_in") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n1 = nodes(&etcd, 1, "/mdl/").await.remove(0);
        let mut trx = n1.new_context_with_id(7).unwrap();
        trx.acquire(&req("t", LockType::SR), LONG).unwrap();
        let mut p2 = NodeProcess::start(&etcd.endpoints(), 2, &[]);
        // Granted on an idle table: node 1 acknowledged it under node 1's lease.
        p2.send("lock 6 X u");
        p2.expect("ok lock 6", LONG);
        assert_eq!(keys_under(&etcd, "/mdl/a/").await, 1);
        p2.send("lock 5 X t");
        until("node 2's X has a stand-in here", LONG, || {
            n1.status().stand_ins == 2
        })
        .await;
        assert_eq!(n1.cluster_locks().len(), 2);
        p2.kill();
        until("the stand-ins are gone", LONG, || {
            n1.status().stand_ins == 0
        })
        .await;
        until("the intents are gone", LONG, || {
            n1.cluster_locks().is_empty()
        })
        .await;
        // The intents went with node 2's lease, not with its release: node 1 deletes its ack.
        let start = Instant::now();
        while keys_under(&etcd, "/mdl/a/").await != 0 {
            assert!(
                start.elapsed() < LONG,
                "node 1's ack of a dead intent stayed"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // Nothing of node 2 is left: an X on t from node 1 needs only its own statement gone.
        trx.release_transactional_locks();
        let mut ddl = n1.new_context();
        ddl.acquire_async(&req("t", LockType::X), LONG)
            .await
            .unwrap();
    });
}

/// Node 2 reaches etcd through a proxy that is cut while it holds a statement lock and node 1
/// waits with an ALTER. Node 2 fences itself: its statement is killed and released, new
/// statements are refused; node 1's ALTER goes on after node 2's lease expires, and never
/// while node 2 held its lock (checked on a history both processes record with one clock).
/// When the proxy forwards again, node 2 joins again and waits for node 1's ALTER.
#[test]
fn a_cut_off_node_fences_itself_before_its_lease_expires() {
    if !etcd_or_skip("a_cut_off_node_fences_itself_before_its_lease_expires") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    let dir = TempDir::new("mdl-fence").unwrap();
    let (h1, h2) = (dir.path().join("h1"), dir.path().join("h2"));
    runtime().block_on(async {
        let proxy = TcpProxy::start(etcd.client_addr(0)).await.unwrap();
        let h2s = h2.to_string_lossy().into_owned();
        let mut p2 = NodeProcess::start(&[proxy.url()], 2, &["--history", &h2s]);
        p2.send("lock 7 SR t");
        p2.expect("ok lock 7", LONG);
        let n1 = nodes(&etcd, 1, "/mdl/").await.remove(0);
        let history = HistoryWriter::open(&h1, 1).unwrap();
        let mut alter = n1.new_context_with_id(5).unwrap();
        let node = n1.clone();
        let ddl = tokio::spawn(async move {
            let r = alter.acquire_async(&req("t", LockType::X), LONG).await;
            if r.is_ok() {
                history.granted(5, &table("t"), LockType::X);
            }
            (alter, history, r.map(|_| ()))
        });
        until("the ALTER waits for node 2", LONG, || {
            node.lock_waits().iter().any(|w| w.blocking.node == 2)
        })
        .await;
        proxy.cut();
        let cut = Instant::now();
        p2.expect("killed 7", LONG); // the fence killed the holder, which released
        eprintln!(
            "node 2 fenced {:?} after the cut (TTL {TTL:?})",
            cut.elapsed()
        );
        p2.send("lock 8 SR u 100");
        let refused = p2.expect("err lock 8", LONG);
        assert!(refused.contains(" 3032 "), "{refused}");
        let (mut alter, history, r) = ddl.await.unwrap();
        r.unwrap();
        eprintln!("ALTER granted {:?} after the cut", cut.elapsed());

        // Back online: node 2 joins again and its statements wait for node 1's ALTER.
        proxy.restore();
        until("node 2 is live again", LONG, || {
            n1.status().live_nodes == vec![1, 2]
        })
        .await;
        let start = Instant::now();
        loop {
            let st = p2.query("status");
            if st[0].contains("serving=true") {
                assert!(st[0].contains("fences=1"), "{st:?}");
                break;
            }
            assert!(start.elapsed() < LONG, "node 2 never serves again: {st:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        p2.send("lock 9 SR t 300");
        let blocked = p2.expect("err lock 9", LONG);
        assert!(
            blocked.contains(" 1205 ") && blocked.contains("node 1 context 5"),
            "{blocked}"
        );
        history.releasing(5, &table("t"), LockType::X);
        alter.release_transactional_locks();
        p2.send("lock 9 SR t");
        p2.expect("ok lock 9", LONG);
        p2.send("commit 9");
        p2.expect("ok commit 9", LONG);
        let report = history::check(&[&h1, &h2], &HashMap::new(), history::now_ns()).unwrap();
        assert!(report.intervals >= 3, "{report:?}");
        assert!(report.overlaps.is_empty(), "{:?}", report.overlaps);
    });
}

#[test]
fn restarting_any_etcd_member_changes_nothing() {
    if !etcd_or_skip("restarting_any_etcd_member_changes_nothing") {
        return;
    }
    let mut etcd = EtcdCluster::start(3).unwrap();
    runtime().block_on(async {
        // The default TTL (5 s): the fence margin (1.5 s) covers a leader election.
        let n = nodes_with_ttl(&etcd, 3, "/mdl/", Duration::from_secs(5)).await;
        for member in 0..3 {
            // Every node sends its requests and its watch to the leader (`prefer_leader`),
            // and follows it to a new one after the last restart.
            let leader = etcd.leader().await.expect("a leader");
            let at = Some(etcd.endpoints()[leader].clone());
            until("every node uses the leader's endpoint", LONG, || {
                n.iter().all(|x| {
                    let s = x.status();
                    s.etcd_leader_endpoint == at && s.etcd_watch_endpoint == at
                })
            })
            .await;
            let mut trx = n[1].new_context();
            trx.acquire(&req("t", LockType::SR), LONG).unwrap();
            let mut alter = n[0].new_context();
            let ddl = tokio::spawn(async move {
                let r = alter
                    .acquire_async(&req("t", LockType::X), LONG)
                    .await
                    .map(|_| ());
                (alter, r)
            });
            let node = n[0].clone();
            until("the ALTER waits", LONG, || !node.lock_waits().is_empty()).await;
            etcd.kill_member(member);
            tokio::time::sleep(Duration::from_millis(300)).await;
            etcd.restart_member(member).unwrap();
            trx.release_transactional_locks();
            let (mut alter, r) = ddl.await.unwrap();
            r.unwrap();
            // Every node still sees the ALTER: statements wait for it.
            let mut reader = n[2].new_context();
            let err = reader
                .acquire_async(&req("t", LockType::SR), Duration::from_millis(200))
                .await
                .unwrap_err();
            assert_eq!(err.mysql_error_code(), Some(1205), "member {member}: {err}");
            alter.release_transactional_locks();
            until("no stand-in left", LONG, || {
                n.iter().all(|x| x.status().stand_ins == 0)
            })
            .await;
        }
        // A leader transfer (no member stops): the nodes notice it by themselves and move
        // their requests and their watch to the new leader.
        let from = etcd.leader().await.expect("a leader");
        let to = (from + 1) % etcd.len();
        etcd.move_leader(to).await.expect("a leader transfer");
        let at = Some(etcd.endpoints()[to].clone());
        until("every node follows the transfer", LONG, || {
            n.iter().all(|x| {
                let s = x.status();
                s.etcd_leader_endpoint == at && s.etcd_watch_endpoint == at
            })
        })
        .await;
        let mut alter = n[0].new_context();
        alter
            .acquire_async(&req("t", LockType::X), LONG)
            .await
            .unwrap();
        alter.release_transactional_locks();
        for x in &n {
            let s = x.status();
            assert_eq!((s.fences, s.sessions), (0, 1), "node {}: {s:?}", s.node);
        }
    });
}

/// A node that joins takes stand-ins for the intents that exist before it serves.
#[test]
fn a_joining_node_takes_stand_ins_before_serving() {
    if !etcd_or_skip("a_joining_node_takes_stand_ins_before_serving") {
        return;
    }
    let etcd = EtcdCluster::start(1).unwrap();
    runtime().block_on(async {
        let n1 = nodes(&etcd, 1, "/mdl/").await.remove(0);
        let mut alter = n1.new_context_with_id(5).unwrap();
        alter
            .acquire_async(&req("t", LockType::X), LONG)
            .await
            .unwrap();
        let mgr = MdlManager::new(MdlConfig::default()).unwrap();
        let n2 = mdl_cluster::ClusterManager::join(config(etcd.endpoints(), 2, "/mdl/"), mgr)
            .await
            .unwrap();
        assert_eq!(n2.status().stand_ins, 1);
        let mut reader = n2.new_context();
        let err = reader
            .acquire_async(&req("t", LockType::SR), Duration::from_millis(200))
            .await
            .unwrap_err();
        assert_eq!(err.mysql_error_code(), Some(1205), "{err}");
        alter.release_transactional_locks();
        reader
            .acquire_async(&req("t", LockType::SR), LONG)
            .await
            .unwrap();
    });
}
