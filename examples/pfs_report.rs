//! Instrumentation report: a short point-select workload on 8 tables with a few contended DDL
//! statements, under Performance Schema's `default` preset plus the `MDL_map::mutex` partition
//! instruments, printed the way the mysql client prints `performance_schema` tables.
//!
//! ```text
//! cargo run --release --example pfs_report [murmur3|mysql-bin]
//! ```
//!
//! With `mysql-bin` (the default here) the lock map uses MySQL 5.6.14's partition hash, and
//! `events_waits_summary_by_instance` shows what it showed then: one of the 8 partition mutexes
//! takes all the traffic.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use mysql_mdl::pfs::{self, Preset};
use mysql_mdl::{
    LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace, PartitionHash,
};

fn table(i: usize) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", &format!("sbtest{i}")).expect("valid name")
}

fn main() {
    let hash = match std::env::args().nth(1).as_deref() {
        Some("murmur3") => PartitionHash::Murmur3,
        _ => PartitionHash::MySqlBin,
    };
    pfs::apply_preset(Preset::Default);
    pfs::set_instruments("wait/synch/mutex/mdl/%", true, true).expect("valid pattern");

    let config = MdlConfig::builder()
        .shards(8)
        .partition_hash(hash)
        // Every lookup goes to the lock map, as in MySQL, so partition counts mean something.
        .lock_cache(0)
        .build()
        .expect("a valid configuration");
    let mgr = MdlManager::new(config).expect("valid config");
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(5));
    let workers: Vec<_> = (0..4)
        .map(|t| {
            let (mgr, stop, start) = (mgr.clone(), stop.clone(), start.clone());
            thread::spawn(move || {
                let mut ctx = mgr.new_context();
                let reqs: Vec<MdlRequest> = (1..=8)
                    .map(|i| MdlRequest::new(table(i), LockType::SR, LockDuration::Statement))
                    .collect();
                start.wait();
                let mut i = t;
                while !stop.load(Ordering::Relaxed) {
                    i = (i * 7 + 3) % 8;
                    ctx.acquire(&reqs[i], Duration::from_secs(10))
                        .expect("DDL is short");
                    ctx.release_statement_locks();
                }
            })
        })
        .collect();

    start.wait();
    let mut ddl = mgr.new_context();
    let global_ix = MdlRequest::new(
        MdlKey::singleton(Namespace::Global).expect("singleton"),
        LockType::IX,
        LockDuration::Statement,
    );
    let mut snapshot = None;
    for round in 0..5 {
        thread::sleep(Duration::from_millis(40));
        // ALTER TABLE sbtest1: SU, then upgrade to X for a moment.
        ddl.acquire(&global_ix, Duration::from_secs(10))
            .expect("no global read lock");
        let su = ddl
            .acquire(
                &MdlRequest::new(table(1), LockType::SU, LockDuration::Transaction),
                Duration::from_secs(10),
            )
            .expect("SU is compatible with SR");
        ddl.upgrade(su, LockType::X, Duration::from_secs(10))
            .expect("readers finish");
        thread::sleep(Duration::from_millis(20));
        if round == 4 {
            snapshot = Some(mgr.metadata_locks());
        }
        ddl.release_transactional_locks();
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().expect("worker");
    }

    println!("-- {hash:?} partition hash, 8 partitions, 4 point-select threads, 5 ALTERs\n");
    println!("mysql> SELECT * FROM performance_schema.setup_consumers;");
    println!("{}", pfs::setup_consumers());
    println!("mysql> SELECT * FROM sys.waits_global_by_latency LIMIT 10;");
    println!("{}", pfs::top_waits(10));
    println!(
        "mysql> SELECT * FROM performance_schema.events_waits_summary_by_instance\n    -> WHERE EVENT_NAME = 'wait/synch/mutex/mdl/MDL_map::mutex';"
    );
    println!(
        "{}",
        pfs::events_waits_summary_by_instance_like("wait/synch/mutex/mdl/MDL_map::mutex")
            .expect("valid pattern")
    );
    println!("mysql> SELECT * FROM performance_schema.metadata_locks; -- during the last ALTER");
    if let Some(rows) = snapshot {
        println!("{rows}");
    }
}
