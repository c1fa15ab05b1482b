//! The cluster soak, short: 3 node processes run random DDL and DML on a few tables against a
//! 3-member etcd while the harness kills nodes (SIGKILL, then starts them again), kills and
//! restarts etcd members, and cuts nodes off (their proxies stop forwarding for longer than the
//! lease TTL). Every node records its grants and releases with the machine's monotonic clock;
//! the check finds no moment where two contexts held incompatible locks on one object, and at
//! the end no stand-in, no intent and no acknowledgement is left. `MDL_CLUSTER_SOAK_SECS`
//! (default 20) sets the length; `cargo test --release -p mdl-cluster --test soak --
//! --nocapture` with 300 is the long run in BENCHMARKS.md.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::*;
use mdl_cluster::history;
use mdl_cluster::testkit::{etcd_or_skip, EtcdCluster, TcpProxy, TempDir};

struct Node {
    id: u64,
    proxies: Vec<TcpProxy>,
    process: Option<NodeProcess>,
    history: PathBuf,
}

impl Node {
    fn start(&mut self, secs: u64, seed: u64) {
        let urls: Vec<String> = self.proxies.iter().map(TcpProxy::url).collect();
        let h = self.history.to_string_lossy().into_owned();
        let (secs, seed) = (secs.to_string(), seed.to_string());
        self.process = Some(NodeProcess::start(
            &urls,
            self.id,
            &[
                "--history",
                &h,
                "--soak-secs",
                &secs,
                "--seed",
                &seed,
                "--tables",
                "3",
            ],
        ));
    }
}

#[test]
fn soak_with_kills_cut_offs_and_member_restarts() {
    if !etcd_or_skip("soak_with_kills_cut_offs_and_member_restarts") {
        return;
    }
    let secs: u64 = std::env::var("MDL_CLUSTER_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let mut etcd = EtcdCluster::start(3).unwrap();
    let dir = TempDir::new("mdl-soak").unwrap();
    let rt = runtime();
    let mut nodes: Vec<Node> = (1..=3)
        .map(|id| Node {
            id,
            proxies: (0..3)
                .map(|m| rt.block_on(TcpProxy::start(etcd.client_addr(m))).unwrap())
                .collect(),
            process: None,
            history: dir.path().join(format!("history-{id}")),
        })
        .collect();
    let start = Instant::now();
    let end = start + Duration::from_secs(secs);
    for n in nodes.iter_mut() {
        n.start(secs, n.id);
    }
    let mut rng = fastrand::Rng::with_seed(secs);
    let mut deaths: HashMap<u64, Vec<u64>> = HashMap::new();
    let (mut kills, mut cuts, mut restarts) = (0, 0, 0);
    // Leave the last 4 s quiet, so every node is back and serving when the workloads end.
    let mut round = 0u8;
    while Instant::now() + Duration::from_secs(4) < end {
        std::thread::sleep(Duration::from_millis(rng.u64(1000..2500)));
        let i = rng.usize(0..3);
        round = round.wrapping_add(1);
        match round % 3 {
            0 => {
                let n = &mut nodes[i];
                if let Some(mut p) = n.process.take() {
                    p.kill();
                    deaths.entry(n.id).or_default().push(history::now_ns());
                }
                std::thread::sleep(Duration::from_millis(300));
                let left = end
                    .saturating_duration_since(Instant::now())
                    .as_secs()
                    .max(1);
                n.start(left, rng.u64(..));
                kills += 1;
            }
            1 => {
                etcd.kill_member(i);
                std::thread::sleep(Duration::from_millis(rng.u64(200..1500)));
                etcd.restart_member(i).unwrap();
                restarts += 1;
            }
            _ => {
                for p in &nodes[i].proxies {
                    p.cut();
                }
                std::thread::sleep(TTL + Duration::from_millis(rng.u64(200..1500)));
                for p in &nodes[i].proxies {
                    p.restore();
                }
                cuts += 1;
            }
        }
    }
    let mut ops = 0u64;
    for n in nodes.iter_mut() {
        let p = n.process.as_mut().unwrap();
        let done = p.expect("soak ops=", Duration::from_secs(secs + 60));
        ops += done
            .split(' ')
            .find_map(|w| w.strip_prefix("ops="))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
    }
    // Killed nodes' intents expire with their leases; then nothing may be left anywhere.
    let mut stand_ins_left = usize::MAX;
    let limit = Instant::now() + TTL * 4 + Duration::from_secs(5);
    while Instant::now() < limit {
        stand_ins_left = nodes
            .iter_mut()
            .map(|n| {
                let st = n.process.as_mut().unwrap().query("status");
                st[0]
                    .split(' ')
                    .find_map(|w| w.strip_prefix("stand_ins="))
                    .and_then(|v| v.parse::<usize>().ok())
                    .unwrap_or(usize::MAX)
            })
            .sum();
        if stand_ins_left == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let intents_left = rt.block_on(keys_under(&etcd, "/mdl/i/"));
    // Acks of intents that went with a dead requester's lease are deleted by their stand-ins;
    // those of a cut-off node's old session go with its old lease (within a TTL).
    let mut acks_left = rt.block_on(keys_under(&etcd, "/mdl/a/"));
    let limit = Instant::now() + TTL * 2;
    while acks_left != 0 && Instant::now() < limit {
        std::thread::sleep(Duration::from_millis(100));
        acks_left = rt.block_on(keys_under(&etcd, "/mdl/a/"));
    }
    for n in nodes.iter_mut() {
        if let Some(p) = n.process.as_mut() {
            p.send("quit");
        }
    }
    let files: Vec<&std::path::Path> = nodes.iter().map(|n| n.history.as_path()).collect();
    let report = history::check(&files, &deaths, history::now_ns()).unwrap();
    eprintln!(
        "cluster soak: {secs} s, {ops} transactions by the surviving processes, {} recorded \
         holdings, {kills} node kills, {restarts} etcd member restarts, {cuts} cut-offs; \
         overlaps: {}, stand-ins left: {stand_ins_left}, intents left: {intents_left}, acks \
         left: {acks_left}",
        report.intervals,
        report.overlaps.len()
    );
    assert!(
        report.overlaps.is_empty(),
        "{:#?}",
        &report.overlaps[..report.overlaps.len().min(5)]
    );
    assert_eq!(stand_ins_left, 0);
    assert_eq!(intents_left, 0);
    assert_eq!(acks_left, 0);
    assert!(
        report.intervals > 100,
        "too little work: {}",
        report.intervals
    );
}
