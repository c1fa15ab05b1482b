//! Shared setups of the cluster tests: real etcd members and nodes (in this process, each with
//! its own lock manager, or as `mdl-cluster-node` processes).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use mdl_cluster::testkit::EtcdCluster;
use mdl_cluster::{ClusterConfig, ClusterManager};
use mdl_core::{LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace};

pub const LONG: Duration = Duration::from_secs(60);
/// Lease TTL of the test nodes.
pub const TTL: Duration = Duration::from_secs(2);

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

pub fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).unwrap()
}

pub fn req(t: &str, ty: LockType) -> MdlRequest {
    MdlRequest::new(table(t), ty, LockDuration::Transaction)
}

pub fn config(endpoints: Vec<String>, node: u64, prefix: &str) -> ClusterConfig {
    ClusterConfig::new(endpoints, node)
        .lease_ttl(TTL)
        .prefix(prefix)
}

/// `n` nodes (1..=n) in this process on `etcd`.
pub async fn nodes(etcd: &EtcdCluster, n: u64, prefix: &str) -> Vec<ClusterManager> {
    nodes_with_ttl(etcd, n, prefix, TTL).await
}

/// [`nodes`] with another lease TTL.
pub async fn nodes_with_ttl(
    etcd: &EtcdCluster,
    n: u64,
    prefix: &str,
    ttl: Duration,
) -> Vec<ClusterManager> {
    let mut v = Vec::new();
    for i in 1..=n {
        let mgr = MdlManager::new(MdlConfig::default()).unwrap();
        v.push(
            ClusterManager::join(config(etcd.endpoints(), i, prefix).lease_ttl(ttl), mgr)
                .await
                .expect("join"),
        );
    }
    v
}

/// Polls `f` every 10 ms until it is true (panics after `limit`).
pub async fn until(what: &str, limit: Duration, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < limit, "never: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A node process (`mdl-cluster-node`), killed with SIGKILL when dropped.
pub struct NodeProcess {
    pub child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl NodeProcess {
    pub fn start(endpoints: &[String], node: u64, extra: &[&str]) -> NodeProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mdl-cluster-node"))
            .args([
                "--endpoints",
                &endpoints.join(","),
                "--node",
                &node.to_string(),
            ])
            .args(["--ttl-ms", &TTL.as_millis().to_string()])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the node binary");
        let stdin = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    return;
                }
            }
        });
        let mut p = NodeProcess {
            child,
            stdin,
            lines,
        };
        p.expect("ready", Duration::from_secs(30));
        p
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the node reads commands");
        self.stdin.flush().unwrap();
    }

    /// The next line starting with `prefix` (others are skipped), or a panic after `limit`.
    pub fn expect(&mut self, prefix: &str, limit: Duration) -> String {
        let end = Instant::now() + limit;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.starts_with(prefix) => return l,
                Ok(_) => {}
                Err(_) => panic!("the node never said {prefix:?}"),
            }
        }
    }

    /// Sends a command and returns the lines up to `end`.
    pub fn query(&mut self, cmd: &str) -> Vec<String> {
        self.send(cmd);
        let mut out = Vec::new();
        loop {
            let l = self.lines.recv_timeout(LONG).expect("an answer");
            if l == "end" {
                return out;
            }
            out.push(l);
        }
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for NodeProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How many keys etcd holds under `prefix` (e.g. the acknowledgements, `/mdl/a/`).
pub async fn keys_under(etcd: &EtcdCluster, prefix: &str) -> i64 {
    let mut c = etcd_client::Client::connect(etcd.endpoints(), None)
        .await
        .unwrap();
    let opts = etcd_client::GetOptions::new()
        .with_prefix()
        .with_count_only();
    c.get(prefix, Some(opts)).await.unwrap().count()
}
