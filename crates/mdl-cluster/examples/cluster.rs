//! Three etcd members, three nodes: an ALTER on node 1 waits for a transaction on node 2,
//! who-blocks-whom names node 2, node 2 is killed (SIGKILL), and the ALTER goes on once node
//! 2's lease expires.
//!
//! `cargo run --release -p mdl-cluster --example cluster` (needs `etcd` on PATH: Debian's
//! `etcd-server`). Node 2 runs in a child process (this program, started again with `node`),
//! so that it can really die; nodes 1 and 3 run here, each with its own lock manager.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mdl_cluster::testkit::EtcdCluster;
use mdl_cluster::{ClusterConfig, ClusterManager};
use mdl_core::{LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace};

const TTL: Duration = Duration::from_secs(3);

fn t1() -> MdlKey {
    MdlKey::new(Namespace::Table, "test", "t1").expect("a valid name")
}

async fn join(endpoints: Vec<String>, node: u64) -> ClusterManager {
    let mgr = MdlManager::new(MdlConfig::default()).expect("a lock manager");
    let config = ClusterConfig::new(endpoints, node).lease_ttl(TTL);
    ClusterManager::join(config, mgr).await.expect("join")
}

/// Node 2: joins, opens a transaction that reads t1, and keeps it open until killed.
async fn node2(endpoints: Vec<String>) {
    let node = join(endpoints, 2).await;
    let mut conn = node.new_context_with_id(7).expect("an id");
    conn.set_label("conn 7 app@web2: BEGIN; SELECT * FROM t1");
    let sr = MdlRequest::new(t1(), LockType::SharedRead, LockDuration::Transaction);
    conn.acquire_async(&sr, Duration::from_secs(5))
        .await
        .expect("SR");
    println!("holding");
    std::future::pending::<()>().await;
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("node") {
        node2(args[2].split(',').map(str::to_owned).collect()).await;
        return Ok(());
    }
    if !mdl_cluster::testkit::etcd_on_path() {
        eprintln!(
            "This example needs an `etcd` binary on PATH (Debian: apt-get install etcd-server)."
        );
        std::process::exit(2);
    }
    println!("starting 3 etcd members on 127.0.0.1 ...");
    let etcd = EtcdCluster::start(3)?;
    let endpoints = etcd.endpoints();
    println!("etcd at {}", endpoints.join(", "));

    let n1 = join(endpoints.clone(), 1).await;
    let mut child = Command::new(std::env::current_exe()?)
        .args(["node", &endpoints.join(",")])
        .stdout(Stdio::piped())
        .spawn()?;
    let mut out = BufReader::new(child.stdout.take().expect("piped")).lines();
    let _ = out.next(); // "holding"
    let n3 = join(endpoints.clone(), 3).await;
    println!(
        "nodes 1, 2 (pid {}), 3 joined, lease TTL {TTL:?}",
        child.id()
    );
    println!(
        "node 2, context 7: BEGIN; SELECT * FROM t1   -- SHARED_READ held, transaction open\n"
    );

    let mut alter = n1.new_context_with_id(5)?;
    alter.set_label("conn 5 dba@admin: ALTER TABLE t1 ADD COLUMN c INT");
    let ddl = tokio::spawn(async move {
        let x = MdlRequest::new(t1(), LockType::Exclusive, LockDuration::Transaction);
        let r = alter.acquire_async(&x, Duration::from_secs(60)).await;
        (alter, r)
    });
    while !n1.lock_waits().iter().any(|w| w.blocking.node == 2) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!("node 1, context 5: ALTER TABLE t1 ... waits. Who blocks whom, asked on node 1:");
    for w in n1.lock_waits() {
        println!("  {w}");
    }
    println!("cluster_locks, asked on node 3:");
    for l in n3.cluster_locks() {
        println!("  {l}");
    }

    println!("\nkill -9 node 2 ...");
    let killed = Instant::now();
    child.kill()?;
    child.wait()?;
    let (mut alter, r) = ddl.await?;
    r?;
    println!(
        "ALTER granted {:.2} s after node 2 died (lease TTL {:.0} s); live nodes: {:?}",
        killed.elapsed().as_secs_f64(),
        TTL.as_secs_f64(),
        n1.status().live_nodes
    );
    let mut select = n3.new_context();
    let sr = MdlRequest::new(t1(), LockType::SharedRead, LockDuration::Transaction);
    let err = select
        .acquire_async(&sr, Duration::from_millis(300))
        .await
        .unwrap_err();
    println!("node 3: SELECT * FROM t1 while the ALTER holds its lock: {err}");
    alter.release_transactional_locks();
    select.acquire_async(&sr, Duration::from_secs(5)).await?;
    println!("ALTER committed; node 3's SELECT runs. Stopping etcd.");
    n1.leave().await;
    n3.leave().await;
    Ok(())
}
