//! A fixed loop for callgrind: `N` SR acquire + release pairs (8 tables, STATEMENT duration)
//! through a `ClusterContext` (`cluster`) or through a plain `MdlContext` on a lock manager of
//! its own (`plain`). Starts one etcd member for the cluster case. Count only the loop, not the
//! node's background tasks:
//!
//! ```sh
//! cargo build --release -p mdl-cluster --example acquire_loop
//! valgrind --tool=callgrind --toggle-collect='acquire_loop::run_*' \
//!   target/release/examples/acquire_loop 200000 cluster
//! ```
//! (the difference between 200,000 and 100,000 iterations, divided by 100,000, is the cost of
//! one pair; BENCHMARKS.md has the figures).

use std::time::Duration;

use mdl_cluster::testkit::EtcdCluster;
use mdl_cluster::{ClusterConfig, ClusterContext, ClusterManager};
use mdl_core::{
    LockDuration, LockType, MdlConfig, MdlContext, MdlKey, MdlManager, MdlRequest, Namespace,
};

fn requests() -> Vec<MdlRequest> {
    (0..8)
        .map(|i| {
            let key = MdlKey::new(Namespace::Table, "test", &format!("t{i}")).expect("a name");
            MdlRequest::new(key, LockType::SharedRead, LockDuration::Statement)
        })
        .collect()
}

#[inline(never)]
fn run_cluster(ctx: &mut ClusterContext, reqs: &[MdlRequest], n: usize) {
    for i in 0..n {
        let _ = ctx.acquire(&reqs[i % 8], Duration::from_secs(1));
        ctx.release_statement_locks();
    }
}

#[inline(never)]
fn run_plain(ctx: &mut MdlContext, reqs: &[MdlRequest], n: usize) {
    for i in 0..n {
        let _ = ctx.acquire(&reqs[i % 8], Duration::from_secs(1));
        ctx.release_statement_locks();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let reqs = requests();
    if args.get(2).map(String::as_str) == Some("plain") {
        let mgr = MdlManager::new(MdlConfig::default()).expect("a lock manager");
        let mut ctx = mgr.new_context();
        run_plain(&mut ctx, &reqs, n);
        return;
    }
    let etcd = EtcdCluster::start(1).expect("etcd on PATH");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let node = rt.block_on(async {
        let mgr = MdlManager::new(MdlConfig::default()).expect("a lock manager");
        let mut config = ClusterConfig::new(etcd.endpoints(), 1);
        config.wait_publish_interval = Duration::from_secs(3600);
        ClusterManager::join(config, mgr).await.expect("join")
    });
    let mut ctx = node.new_context();
    run_cluster(&mut ctx, &reqs, n);
    drop(ctx);
    rt.block_on(node.leave());
}
