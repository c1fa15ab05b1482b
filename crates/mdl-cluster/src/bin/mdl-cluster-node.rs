//! A cluster node as a process, for the tests, the example and the soak: a node that "dies"
//! is this process killed with SIGKILL.
//!
//! `mdl-cluster-node --endpoints URL[,URL..] --node N [--ttl-ms MS] [--history FILE]
//! [--soak-secs S --seed X --tables K --workers W]`
//!
//! Without `--soak-secs` it reads commands on stdin, one per line, and answers on stdout:
//! `lock CTX TYPE TABLE [TIMEOUT_MS]` (a TRANSACTION lock on `test.TABLE`; `ok lock CTX` or
//! `err lock CTX CODE MESSAGE`), `commit CTX` (`ok commit CTX`), `waits`, `locks`, `status`
//! (lines, then `end`), `kill NODE CTX` and `quit`. A context that holds locks and is killed
//! (a fence kills every context) releases them, as a server ends a killed statement, and says
//! `killed CTX`. With `--soak-secs`, workers run random DDL and DML for that long, recording
//! every grant and release in the history file, then print `soak ops=N errors=M` and read
//! commands as above.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mdl_cluster::history::HistoryWriter;
use mdl_cluster::{ClusterConfig, ClusterContext, ClusterManager};
use mdl_core::{
    KillScope, LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace,
};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

struct Args {
    endpoints: Vec<String>,
    node: u64,
    ttl: Duration,
    history: Option<PathBuf>,
    soak_secs: Option<u64>,
    seed: u64,
    tables: u64,
    workers: u64,
}

fn args() -> Args {
    let mut a = Args {
        endpoints: Vec::new(),
        node: 1,
        ttl: Duration::from_secs(2),
        history: None,
        soak_secs: None,
        seed: 1,
        tables: 4,
        workers: 3,
    };
    let v: Vec<String> = std::env::args().skip(1).collect();
    for pair in v.chunks(2) {
        let val = pair.get(1).cloned().unwrap_or_default();
        let num = || val.parse::<u64>().unwrap_or(0);
        match pair[0].as_str() {
            "--endpoints" => a.endpoints = val.split(',').map(str::to_owned).collect(),
            "--node" => a.node = num(),
            "--ttl-ms" => a.ttl = Duration::from_millis(num()),
            "--history" => a.history = Some(PathBuf::from(&val)),
            "--soak-secs" => a.soak_secs = Some(num()),
            "--seed" => a.seed = num(),
            "--tables" => a.tables = num().max(1),
            "--workers" => a.workers = num().max(1),
            other => eprintln!("unknown argument {other}"),
        }
    }
    a
}

fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).expect("a valid name")
}

fn lock_type(s: &str) -> Option<LockType> {
    LockType::ALL.into_iter().find(|t| t.abbr() == s)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let a = args();
    let config = ClusterConfig::new(a.endpoints.clone(), a.node).lease_ttl(a.ttl);
    let mgr = MdlManager::new(MdlConfig::default()).expect("a lock manager");
    let node = match ClusterManager::join(config, mgr).await {
        Ok(n) => n,
        Err(e) => {
            println!("error join {e}");
            std::process::exit(1);
        }
    };
    let history = a
        .history
        .as_ref()
        .map(|p| Arc::new(HistoryWriter::open(p, a.node).expect("a history file")));
    println!("ready {}", a.node);
    if let Some(secs) = a.soak_secs {
        soak(&node, &a, secs, history.clone()).await;
    }
    serve(node, history).await;
}

/// One context's task: runs its commands in order, and releases its locks when killed.
async fn context_task(
    node: ClusterManager,
    id: u64,
    mut rx: mpsc::UnboundedReceiver<Vec<String>>,
    history: Option<Arc<HistoryWriter>>,
) {
    let Ok(mut ctx) = node.new_context_with_id(id) else {
        println!("err ctx {id} in use");
        return;
    };
    ctx.set_label(format!("conn {id}"));
    let mut held: Vec<(MdlKey, LockType)> = Vec::new();
    loop {
        let cmd = tokio::select! {
            c = rx.recv() => match c { Some(c) => c, None => return },
            _ = tokio::time::sleep(Duration::from_millis(5)), if !held.is_empty() => {
                if ctx.pending_kill().is_some() {
                    release(&mut ctx, &mut held, &history);
                    ctx.reset_kill();
                    println!("killed {id}");
                }
                continue;
            }
        };
        match cmd[0].as_str() {
            "lock" if cmd.len() >= 4 => {
                let Some(ty) = lock_type(&cmd[2]) else {
                    println!("err lock {id} 0 bad type");
                    continue;
                };
                let timeout = cmd.get(4).and_then(|t| t.parse().ok()).unwrap_or(30_000);
                let key = table(&cmd[3]);
                let req = MdlRequest::new(key.clone(), ty, LockDuration::Transaction);
                match ctx
                    .acquire_async(&req, Duration::from_millis(timeout))
                    .await
                {
                    Ok(_) => {
                        if let Some(h) = &history {
                            h.granted(id, &key, ty);
                        }
                        held.push((key, ty));
                        println!("ok lock {id}");
                    }
                    Err(e) => println!(
                        "err lock {id} {} {}",
                        e.mysql_error_code().unwrap_or(0),
                        e.to_string().replace('\n', " ")
                    ),
                }
            }
            "commit" => {
                release(&mut ctx, &mut held, &history);
                println!("ok commit {id}");
            }
            _ => println!("err unknown"),
        }
    }
}

fn release(
    ctx: &mut ClusterContext,
    held: &mut Vec<(MdlKey, LockType)>,
    history: &Option<Arc<HistoryWriter>>,
) {
    if let Some(h) = history {
        for (k, t) in held.iter() {
            h.releasing(ctx.id().as_u64(), k, *t);
        }
    }
    held.clear();
    ctx.release_transactional_locks();
}

async fn serve(node: ClusterManager, history: Option<Arc<HistoryWriter>>) {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut contexts: HashMap<u64, mpsc::UnboundedSender<Vec<String>>> = HashMap::new();
    while let Ok(Some(line)) = lines.next_line().await {
        let cmd: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        let Some(verb) = cmd.first() else { continue };
        match verb.as_str() {
            "lock" | "commit" if cmd.len() >= 2 => {
                let Ok(id) = cmd[1].parse::<u64>() else {
                    continue;
                };
                let tx = contexts.entry(id).or_insert_with(|| {
                    let (tx, rx) = mpsc::unbounded_channel();
                    tokio::spawn(context_task(node.clone(), id, rx, history.clone()));
                    tx
                });
                let _ = tx.send(cmd);
            }
            "waits" => {
                for w in node.lock_waits() {
                    println!("wait {w}");
                }
                println!("end");
            }
            "locks" => {
                for l in node.cluster_locks() {
                    println!("lock {l}");
                }
                println!("end");
            }
            "status" => {
                let s = node.status();
                println!(
                    "status serving={} stand_ins={} fences={} sessions={} live={:?}",
                    s.serving, s.stand_ins, s.fences, s.sessions, s.live_nodes
                );
                println!("end");
            }
            "kill" if cmd.len() == 3 => {
                let (Ok(n), Ok(c)) = (cmd[1].parse(), cmd[2].parse()) else {
                    continue;
                };
                match node.kill(n, c, KillScope::Query).await {
                    Ok(()) => println!("ok kill"),
                    Err(e) => println!("err kill {e}"),
                }
            }
            "quit" => break,
            _ => println!("err unknown {line}"),
        }
    }
    node.leave().await;
}

/// Random DDL and DML on a few tables, every grant and release recorded.
async fn soak(node: &ClusterManager, a: &Args, secs: u64, history: Option<Arc<HistoryWriter>>) {
    let end = Instant::now() + Duration::from_secs(secs);
    let mut tasks = Vec::new();
    for w in 0..a.workers {
        let (node, history) = (node.clone(), history.clone());
        let (tables, seed) = (a.tables, a.seed ^ ((w + 1) * 0x9E37_79B9));
        tasks.push(tokio::spawn(async move {
            let mut rng = fastrand::Rng::with_seed(seed);
            let mut ctx = node.new_context_with_id(100 + w).expect("a context id");
            let (mut ops, mut errors) = (0u64, 0u64);
            while Instant::now() < end {
                let key = table(&format!("t{}", rng.u64(0..tables)));
                // An ALTER takes SU, then upgrades it to X while other DDLs queue behind it.
                let (steps, hold): (&[LockType], u64) = match rng.u8(0..10) {
                    0..=5 => (&[LockType::SR], rng.u64(0..3)),
                    6..=7 => (&[LockType::SW], rng.u64(0..3)),
                    8 if rng.bool() => (&[LockType::SNW], rng.u64(0..10)),
                    8 => (&[LockType::SU, LockType::X], rng.u64(0..10)),
                    _ => (&[LockType::X], rng.u64(0..10)),
                };
                let mut granted = Vec::new();
                for &ty in steps {
                    let req = MdlRequest::new(key.clone(), ty, LockDuration::Transaction);
                    if ctx
                        .acquire_async(&req, Duration::from_secs(5))
                        .await
                        .is_err()
                    {
                        break;
                    }
                    if let Some(h) = &history {
                        h.granted(ctx.id().as_u64(), &key, ty);
                    }
                    granted.push(ty);
                    // Hold it, unless killed (a fence): then end the transaction at once.
                    let until = Instant::now() + Duration::from_millis(hold);
                    while Instant::now() < until && ctx.pending_kill().is_none() {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                }
                if let Some(h) = &history {
                    for &ty in &granted {
                        h.releasing(ctx.id().as_u64(), &key, ty);
                    }
                }
                ctx.release_transactional_locks();
                ctx.reset_kill();
                if granted.len() == steps.len() {
                    ops += 1;
                } else {
                    errors += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
            (ops, errors)
        }));
    }
    let (mut ops, mut errors) = (0, 0);
    for t in tasks {
        if let Ok((o, e)) = t.await {
            ops += o;
            errors += e;
        }
    }
    println!("soak ops={ops} errors={errors}");
}
