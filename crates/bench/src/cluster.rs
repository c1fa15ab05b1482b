//! The measurements of the `cluster` report: real etcd members on loopback (started and
//! stopped here), nodes of `mdl-cluster` in this process, and a node process (this binary's
//! hidden `cluster-node` command) that is killed with SIGKILL.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mdl_cluster::testkit::EtcdCluster;
use mdl_cluster::{ClusterConfig, ClusterError, ClusterManager};
use mdl_core::{LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace};

use crate::runner::thread_cpu_ns;

/// The lease TTL of the measured nodes.
pub const TTL: Duration = Duration::from_secs(2);
const LONG: Duration = Duration::from_secs(60);

fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).expect("a valid name")
}

fn req(name: &str, ty: LockType) -> MdlRequest {
    MdlRequest::new(table(name), ty, LockDuration::Transaction)
}

/// A runtime for the nodes.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// `n` nodes (ids 1..=n) under `prefix`, with the default configuration.
pub async fn nodes(etcd: &EtcdCluster, n: u64, prefix: &str) -> Vec<ClusterManager> {
    nodes_with(etcd, n, prefix, true).await
}

/// `n` nodes (ids 1..=n) under `prefix`, sending their requests to the etcd leader or not.
pub async fn nodes_with(
    etcd: &EtcdCluster,
    n: u64,
    prefix: &str,
    prefer_leader: bool,
) -> Vec<ClusterManager> {
    let mut v = Vec::new();
    for i in 1..=n {
        let mgr = MdlManager::new(MdlConfig::default()).expect("a lock manager");
        let config = ClusterConfig::new(etcd.endpoints(), i)
            .lease_ttl(TTL)
            .prefix(prefix)
            .prefer_leader(prefer_leader);
        v.push(ClusterManager::join(config, mgr).await.expect("join"));
    }
    v
}

/// Cluster-wide EXCLUSIVE acquire latencies (ms) on idle objects from node 1 of `n` nodes, and
/// etcd's write round trip beside them, interleaved sample by sample.
pub struct Latencies {
    /// Nodes that send their requests to the etcd leader (the default).
    pub leader: Vec<f64>,
    /// Nodes whose requests are balanced over every member (`prefer_leader` off).
    pub balanced: Vec<f64>,
    /// One put from one client to the leader's endpoint, before each pair of samples: etcd's
    /// write round trip on the nodes' path (a put through a follower is forwarded to the
    /// leader and takes longer), at the same moments.
    pub rtt: Vec<f64>,
    /// The same put 200 times back to back just before, the median: the round trip of a busy
    /// client, which meets warm members.
    pub rtt_back_to_back: f64,
}

/// [`Latencies`] over `samples` rounds: in each, a put, then an acquire through each set of
/// nodes in turn (the order alternating), each on a fresh table and released everywhere
/// before the next.
pub async fn exclusive_latencies(etcd: &EtcdCluster, n: u64, samples: usize) -> Latencies {
    let leader = nodes_with(etcd, n, &format!("/lat{n}l/"), true).await;
    let balanced = nodes_with(etcd, n, &format!("/lat{n}b/"), false).await;
    let endpoints = match etcd.leader().await {
        Some(i) => vec![etcd.endpoints()[i].clone()],
        None => etcd.endpoints(),
    };
    let mut client = mdl_cluster::etcd_client::Client::connect(endpoints, None)
        .await
        .expect("etcd");
    let mut back_to_back = Vec::new();
    for i in 0..200 {
        let t = Instant::now();
        client
            .put(format!("/rtt/{}", i % 8), "x", None)
            .await
            .expect("put");
        back_to_back.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let mut ctx = [leader[0].new_context(), balanced[0].new_context()];
    let mut out = Latencies {
        leader: Vec::new(),
        balanced: Vec::new(),
        rtt: Vec::new(),
        rtt_back_to_back: crate::runner::median(&back_to_back),
    };
    for i in 0..samples + 3 {
        // The first few warm the connections up.
        let keep = i >= 3;
        let t = Instant::now();
        client
            .put(format!("/rtt/{}", i % 8), "x", None)
            .await
            .expect("put");
        if keep {
            out.rtt.push(t.elapsed().as_secs_f64() * 1e3);
        }
        for k in 0..2 {
            let which = (i + k) % 2;
            let set = if which == 0 { &leader } else { &balanced };
            let ms = exclusive_once(&mut ctx[which], set, &format!("idle{i}")).await;
            if keep {
                [&mut out.leader, &mut out.balanced][which].push(ms);
            }
        }
    }
    drop(ctx);
    for x in leader.iter().chain(&balanced) {
        x.leave().await;
    }
    out
}

/// One EXCLUSIVE acquire (ms) on `table` through `ctx`, released; returns once the release
/// has reached every node of `nodes` (no intent in any view, no stand-in left), so the next
/// request meets an idle cluster, not the last one's clean-up.
async fn exclusive_once(
    ctx: &mut mdl_cluster::ClusterContext,
    nodes: &[ClusterManager],
    table: &str,
) -> f64 {
    let t = Instant::now();
    ctx.acquire_async(&req(table, LockType::X), LONG)
        .await
        .expect("X");
    let ms = t.elapsed().as_secs_f64() * 1e3;
    ctx.release_transactional_locks();
    while nodes
        .iter()
        .any(|x| x.status().stand_ins != 0 || !x.cluster_locks().is_empty())
    {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    ms
}

/// Thread CPU per SR statement (ns) on each of 3 nodes while the next node runs DDL on other
/// tables: for each node in turn, `rounds` rotations of `stmts` statements each on a lock
/// manager of its own, on the node's lock manager without the cluster layer, and through the
/// node's `ClusterContext`. Returns, per node, the per-round figures of the three.
pub fn statement_cpu_ns(
    rt: &tokio::runtime::Runtime,
    etcd: &EtcdCluster,
    stmts: usize,
    rounds: usize,
) -> Vec<[Vec<f64>; 3]> {
    let nodes = rt.block_on(nodes(etcd, 3, "/cpu/"));
    let reqs: Vec<MdlRequest> = (0..TABLES)
        .map(|i| {
            MdlRequest::new(
                table(&format!("t{i}")),
                LockType::SR,
                LockDuration::Statement,
            )
        })
        .collect();
    let mut per_node = Vec::new();
    for at in 0..nodes.len() {
        let stop = Arc::new(AtomicBool::new(false));
        let ddl = rt.spawn(run_ddls(
            nodes[(at + 1) % nodes.len()].clone(),
            stop.clone(),
        ));
        let plain_mgr = MdlManager::new(MdlConfig::default()).expect("a lock manager");
        let mut plain = plain_mgr.new_context();
        let mut same_mgr = nodes[at].local().new_context();
        let mut cluster = nodes[at].new_context();
        let mut out = [Vec::new(), Vec::new(), Vec::new()];
        for round in 0..rounds {
            for k in 0..3 {
                let which = (k + round) % 3;
                let t = thread_cpu_ns();
                match which {
                    0 => plain_statements(&mut plain, &reqs, stmts),
                    1 => plain_statements(&mut same_mgr, &reqs, stmts),
                    _ => cluster_statements(&mut cluster, &reqs, stmts),
                }
                out[which].push((thread_cpu_ns() - t) as f64 / stmts as f64);
            }
        }
        stop.store(true, Ordering::Relaxed);
        let _ = rt.block_on(ddl);
        per_node.push(out);
    }
    rt.block_on(async {
        for x in &nodes {
            x.leave().await;
        }
    });
    per_node
}

/// The tables of the statement loops (a constant: `i % TABLES` is a mask, not a division that
/// would dilute the ratios).
const TABLES: usize = 8;

// One loop per way, each compiled on its own (a loop with the three ways as arms of one
// `match` shares one register allocation among them, which moved the ratios by several %).
#[inline(never)]
fn plain_statements(ctx: &mut mdl_core::MdlContext, reqs: &[MdlRequest], n: usize) {
    for i in 0..n {
        ctx.acquire(&reqs[i % TABLES], LONG).expect("SR");
        ctx.release_statement_locks();
    }
}

#[inline(never)]
fn cluster_statements(ctx: &mut mdl_cluster::ClusterContext, reqs: &[MdlRequest], n: usize) {
    for i in 0..n {
        ctx.acquire(&reqs[i % TABLES], LONG).expect("SR");
        ctx.release_statement_locks();
    }
}

/// EXCLUSIVE on four tables in turn from `node`, each held 2 ms, until `stop`; returns how
/// many were asked for.
async fn run_ddls(node: ClusterManager, stop: Arc<AtomicBool>) -> u64 {
    let mut ctx = node.new_context();
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let r = req(&format!("ddl{}", i % 4), LockType::X);
        if ctx.acquire_async(&r, LONG).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(2)).await;
            ctx.release_transactional_locks();
        }
        i += 1;
    }
    i
}

/// Seconds from SIGKILL of a node process holding SR on a table to the grant of an ALTER
/// (EXCLUSIVE) waiting for it on another node; with `kill_leader`, the etcd leader is killed
/// at the same moment (and started again after the grant).
pub async fn ddl_after_kill_s(etcd: &mut EtcdCluster, kill_leader: bool, prefix: &str) -> f64 {
    let exe = std::env::current_exe().expect("this binary");
    let mut child = Command::new(exe)
        .args(["cluster-node", "--endpoints", &etcd.endpoints().join(",")])
        .args([
            "--node",
            "2",
            "--ttl-ms",
            &TTL.as_millis().to_string(),
            "--prefix",
            prefix,
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("a node process");
    let mut out = BufReader::new(child.stdout.take().expect("piped")).lines();
    let _ = out.next(); // "holding"
    let n1 = nodes(etcd, 1, prefix).await.remove(0);
    let mut alter = n1.new_context();
    let node = n1.clone();
    let ddl = tokio::spawn(async move {
        // With the etcd leader killed, this node's renewals can fail for longer than the lease
        // allows (an election on a loaded machine): it fences, which ends its ALTER
        // (`NotServing`, or killed). A client clears the kill and asks again; the node serves
        // again once it has rejoined, and the time from the kill still counts.
        loop {
            match alter.acquire_async(&req("t", LockType::X), LONG).await {
                Ok(_) => break,
                Err(e)
                    if matches!(e, ClusterError::NotServing) || alter.pending_kill().is_some() =>
                {
                    alter.reset_kill();
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Err(e) => panic!("X: {e}"),
            }
        }
        (alter, Instant::now())
    });
    while !node.lock_waits().iter().any(|w| w.blocking.node == 2) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let leader = if kill_leader {
        etcd.leader().await
    } else {
        None
    };
    let killed = Instant::now();
    let _ = child.kill();
    if let Some(l) = leader {
        etcd.kill_member(l);
    }
    let _ = child.wait();
    let (mut alter, granted) = ddl.await.expect("the ALTER task");
    alter.release_transactional_locks();
    if let Some(l) = leader {
        etcd.restart_member(l).expect("the member starts again");
    }
    n1.leave().await;
    granted.duration_since(killed).as_secs_f64()
}

/// The hidden `cluster-node` command: joins as `node`, holds SR on `test.t` in an open
/// transaction, prints `holding`, and waits to be killed.
pub fn hold_forever(endpoints: &str, node: u64, ttl: Duration, prefix: &str) {
    let rt = runtime();
    rt.block_on(async {
        let mgr = MdlManager::new(MdlConfig::default()).expect("a lock manager");
        let config = ClusterConfig::new(endpoints.split(',').map(str::to_owned).collect(), node)
            .lease_ttl(ttl)
            .prefix(prefix);
        let n = ClusterManager::join(config, mgr).await.expect("join");
        let mut ctx = n.new_context_with_id(7).expect("an id");
        ctx.acquire_async(&req("t", LockType::SR), LONG)
            .await
            .expect("SR");
        println!("holding");
        std::future::pending::<()>().await;
    });
}
