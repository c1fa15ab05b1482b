//! A server whose sessions are tokio tasks, on a runtime with 2 worker threads.
//!
//! 200 sessions run statements on `test.t2..t4` (SHARED_READ held across a 1 ms `sleep`, as a
//! statement holds its locks across I/O) while a heartbeat task ticks every millisecond. Two
//! long statements read `test.t1`; an `ALTER TABLE t1` asks for EXCLUSIVE and waits for them;
//! new statements on `t1` queue behind the pending ALTER; one of them gives up after its 50 ms
//! timeout (no `select!`: the lock manager's timer ends the wait), another is killed. While the
//! ALTER waits, the program prints who blocks whom and shows that the other sessions and the
//! heartbeat kept running: no worker thread is blocked by a waiting lock. Then the long
//! statements end, the ALTER runs, and the queue drains.
//!
//! ```text
//! cargo run --release --example async_server
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql_mdl::{
    ContextId, KillScope, LockDuration, LockType, MdlConfig, MdlContext, MdlError, MdlKey,
    MdlManager, MdlRequest, Namespace,
};

const LONG: Duration = Duration::from_secs(30);
const SESSIONS: usize = 200;

fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).expect("valid key")
}

fn sr(key: &MdlKey) -> MdlRequest {
    MdlRequest::new(key.clone(), LockType::SharedRead, LockDuration::Statement)
}

fn session(mgr: &Arc<MdlManager>, label: &str) -> (MdlContext, ContextId) {
    let mut ctx = mgr.new_context();
    ctx.set_label(label);
    let id = ctx.id();
    (ctx, id)
}

/// Waits (asynchronously) until `cond` holds; panics after 20 s so the example cannot hang.
async fn until(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(20), "never: {what}");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

fn waits_for(mgr: &MdlManager, id: ContextId) -> bool {
    mgr.lock_waits().rows.iter().any(|r| r.waiting == id)
}

/// Counters the background tasks update.
#[derive(Default)]
struct Activity {
    stop: AtomicBool,
    statements: AtomicU64,
    ticks: AtomicU64,
    /// The heartbeat's worst lateness, µs.
    worst_us: AtomicU64,
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("a runtime");
    let mgr = MdlManager::new(MdlConfig::default()).expect("valid config");
    let t0 = Instant::now();
    let at = move || format!("[{:>5} ms]", t0.elapsed().as_millis());
    rt.block_on(async {
        let t1 = table("t1");
        let act = Arc::new(Activity::default());

        // The heartbeat: sleeps 1 ms at a time and records how late it wakes up.
        let heartbeat = {
            let act = act.clone();
            tokio::spawn(async move {
                while !act.stop.load(Relaxed) {
                    let start = Instant::now();
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    let late = start.elapsed().saturating_sub(Duration::from_millis(1));
                    act.worst_us.fetch_max(late.as_micros() as u64, Relaxed);
                    act.ticks.fetch_add(1, Relaxed);
                }
            })
        };

        // The named sessions first (their ids are then the same in every run).
        let long: Vec<_> = (1..=2)
            .map(|i| session(&mgr, &format!("long SELECT #{i}")).0)
            .collect();
        let (mut alter, alter_id) = session(&mgr, "ALTER TABLE t1");
        let queued: Vec<_> = (1..=3)
            .map(|i| session(&mgr, &format!("SELECT t1 #{i}")))
            .collect();
        let (mut impatient, _) = session(&mgr, "SELECT t1 (timeout 50 ms)");
        let (mut victim, victim_id) = session(&mgr, "SELECT t1 (to be killed)");

        // Many sessions, many statements, on three other tables.
        let mut background = Vec::new();
        for i in 0..SESSIONS {
            let (mut ctx, _) = session(&mgr, &format!("session {i}"));
            let act = act.clone();
            let key = table(&format!("t{}", 2 + i % 3));
            background.push(tokio::spawn(async move {
                while !act.stop.load(Relaxed) {
                    let mut stmt = ctx.statement();
                    stmt.acquire_async(&sr(&key), LONG).await?;
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    drop(stmt);
                    act.statements.fetch_add(1, Relaxed);
                }
                Ok::<(), MdlError>(())
            }));
        }
        println!("{} {SESSIONS} sessions run statements on test.t2..t4; a heartbeat ticks every ms", at());

        // Two long statements on t1: SHARED_READ held while they sleep, until told to end.
        let end_long = Arc::new(AtomicBool::new(false));
        let holding = Arc::new(AtomicU64::new(0));
        let mut longs = Vec::new();
        for mut ctx in long {
            let (t1, end, holding) = (t1.clone(), end_long.clone(), holding.clone());
            longs.push(tokio::spawn(async move {
                let mut stmt = ctx.statement();
                stmt.acquire_async(&sr(&t1), LONG).await?;
                holding.fetch_add(1, Relaxed);
                while !end.load(Relaxed) {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                Ok::<(), MdlError>(())
            }));
        }
        until("the long statements hold t1", || holding.load(Relaxed) == 2).await;
        println!("{} two long SELECTs hold SHARED_READ on test.t1", at());

        // The DDL: EXCLUSIVE for its transaction; it waits for the long statements.
        let ddl = {
            let t1 = t1.clone();
            tokio::spawn(async move {
                let asked = Instant::now();
                let mut tx = alter.transaction();
                let x = MdlRequest::new(t1, LockType::Exclusive, LockDuration::Transaction);
                tx.acquire_async(&x, LONG).await?;
                let waited = asked.elapsed();
                tokio::time::sleep(Duration::from_millis(10)).await; // the table copy
                Ok::<Duration, MdlError>(waited)
            })
        };
        until("the ALTER waits", || waits_for(&mgr, alter_id)).await;
        let ddl_waiting_since = Instant::now();
        let (ticks0, stmts0) = (act.ticks.load(Relaxed), act.statements.load(Relaxed));
        println!("{} ALTER TABLE t1 asks for EXCLUSIVE and waits", at());

        // New statements on t1 queue behind the pending EXCLUSIVE (it has priority).
        let mut selects = Vec::new();
        for (mut ctx, id) in queued {
            let t1 = t1.clone();
            selects.push(tokio::spawn(async move {
                let label = ctx.label().unwrap_or_default();
                let mut stmt = ctx.statement();
                stmt.acquire_async(&sr(&t1), LONG).await?;
                Ok::<_, MdlError>(label)
            }));
            until("a SELECT queues", || waits_for(&mgr, id)).await;
        }
        println!("{} three SELECTs on t1 queue behind the pending ALTER", at());

        // A statement with a short lock wait timeout gives up on its own.
        let timed_out = {
            let t1 = t1.clone();
            tokio::spawn(async move {
                let mut stmt = impatient.statement();
                let asked = Instant::now();
                let r = stmt.acquire_async(&sr(&t1), Duration::from_millis(50)).await;
                (r.map(|_| ()), asked.elapsed())
            })
        };
        let (r, waited) = timed_out.await.expect("task");
        let e = r.expect_err("a timeout");
        println!("{} a SELECT with a 50 ms timeout gave up after {} ms: {e}", at(), waited.as_millis());

        // A statement that is killed while it waits, by id from another task (KILL QUERY).
        let killed = {
            let t1 = t1.clone();
            tokio::spawn(async move {
                let mut stmt = victim.statement();
                stmt.acquire_async(&sr(&t1), LONG).await.map(|_| ())
            })
        };
        until("the victim queues", || waits_for(&mgr, victim_id)).await;
        println!("{} who blocks whom while the ALTER waits:\n{}", at(), mgr.lock_waits());
        mgr.kill(victim_id, KillScope::Query).expect("a live context");
        let e = killed.await.expect("task").expect_err("killed");
        println!("{} KILL of the waiting SELECT: {e}", at());

        // Other tasks keep running while the ALTER waits: wait for proof, then let it go.
        until("other tasks run", || {
            act.ticks.load(Relaxed) >= ticks0 + 50 && act.statements.load(Relaxed) >= stmts0 + 500
        })
        .await;
        println!(
            "{} while the ALTER has waited {} ms: the heartbeat ticked {} times, the other \
             sessions ran {} statements",
            at(),
            ddl_waiting_since.elapsed().as_millis(),
            act.ticks.load(Relaxed) - ticks0,
            act.statements.load(Relaxed) - stmts0,
        );
        assert!(waits_for(&mgr, alter_id), "the ALTER still waits");

        end_long.store(true, Relaxed);
        for l in longs {
            l.await.expect("task").expect("a long statement");
        }
        println!("{} the long SELECTs end", at());
        let waited = ddl.await.expect("task").expect("the ALTER");
        println!("{} ALTER TABLE t1 got EXCLUSIVE after {} ms, ran, committed", at(), waited.as_millis());
        for s in selects {
            let label = s.await.expect("task").expect("a queued SELECT");
            println!("{} {label} ran", at());
        }

        act.stop.store(true, Relaxed);
        for b in background {
            b.await.expect("task").expect("a statement");
        }
        heartbeat.await.expect("task");
        println!(
            "{} done: {} statements on t2..t4, {} heartbeat ticks, the heartbeat's worst delay {:.1} ms",
            at(),
            act.statements.load(Relaxed),
            act.ticks.load(Relaxed),
            act.worst_us.load(Relaxed) as f64 / 1e3,
        );
    });
    assert!(mgr.lock_waits().rows.is_empty());
}
