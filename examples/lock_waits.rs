//! "Who is blocking my DDL?": the classic pile-up, with real threads.
//!
//! A long transaction reads `test.t1` (SHARED_READ), another session updates it (SHARED_WRITE),
//! an `ALTER TABLE` asks for EXCLUSIVE and waits, and every new SELECT queues behind the pending
//! ALTER. The program prints who blocks whom (rendered like the `mysql` client), the blockers of
//! the ALTER, the sessions to kill, then kills them and shows the queue drain.
//!
//! ```text
//! cargo run --example lock_waits
//! ```

use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use mysql_mdl::{
    ContextId, KillScope, LockDuration, LockType, MdlConfig, MdlError, MdlKey, MdlManager,
    MdlRequest, Namespace,
};

/// A session: a thread with its own context, which ends its transaction when killed.
struct Session {
    id: ContextId,
    done: Receiver<Result<(), MdlError>>,
}

/// Starts a session that takes `ty` on `key` for its transaction, then holds it for `hold` or
/// until killed (a long transaction: its server thread ends it on `KILL`).
fn session(
    mgr: &Arc<MdlManager>,
    label: &str,
    key: &MdlKey,
    ty: LockType,
    hold: Duration,
) -> Session {
    let (mgr, label, key) = (mgr.clone(), label.to_string(), key.clone());
    let (id_tx, id_rx) = channel();
    let (done_tx, done) = channel();
    thread::spawn(move || {
        let mut ctx = mgr.new_context();
        ctx.set_label(label);
        id_tx.send(ctx.id()).unwrap();
        let req = MdlRequest::new(key, ty, LockDuration::Transaction);
        let r = ctx.acquire(&req, Duration::from_secs(30)).map(|_| ());
        if r.is_ok() {
            let until = Instant::now() + hold;
            while Instant::now() < until && ctx.pending_kill().is_none() {
                thread::sleep(Duration::from_millis(5));
            }
        }
        ctx.release_transactional_locks();
        let _ = done_tx.send(r);
    });
    let id = id_rx.recv().unwrap();
    Session { id, done }
}

fn main() -> Result<(), MdlError> {
    let mgr = MdlManager::new(MdlConfig::default())?;
    let t1 = MdlKey::new(Namespace::Table, "test", "t1")?;
    let forever = Duration::from_secs(3600);

    let reader = session(
        &mgr,
        "conn 11 app@10.0.0.5: BEGIN; SELECT * FROM t1",
        &t1,
        LockType::SharedRead,
        forever,
    );
    let writer = session(
        &mgr,
        "conn 12 app@10.0.0.6: UPDATE t1 SET ...",
        &t1,
        LockType::SharedWrite,
        forever,
    );
    thread::sleep(Duration::from_millis(50));
    let alter = session(
        &mgr,
        "conn 13 dba@localhost: ALTER TABLE t1 ADD COLUMN c INT",
        &t1,
        LockType::Exclusive,
        Duration::ZERO,
    );
    thread::sleep(Duration::from_millis(50));
    let selects: Vec<Session> = (0..3)
        .map(|i| {
            let label = format!(
                "conn {} app@10.0.0.{}: SELECT * FROM t1 WHERE id = {i}",
                20 + i,
                7 + i
            );
            session(&mgr, &label, &t1, LockType::SharedRead, Duration::ZERO)
        })
        .collect();
    while mgr.lock_waits().rows.len() < 5 {
        thread::sleep(Duration::from_millis(5));
    }

    let waits = mgr.lock_waits();
    println!("Who blocks whom (MdlManager::lock_waits):\n{waits}");
    #[cfg(feature = "pfs")]
    println!(
        "The same as a Performance Schema table (metadata_lock_waits):\n{}",
        mgr.metadata_lock_waits()
    );

    println!(
        "Blockers of the ALTER (context {}), like pg_blocking_pids:",
        alter.id
    );
    for b in mgr.blocking_contexts(alter.id) {
        println!("  {b}");
    }
    let roots = waits.root_blockers();
    println!("\nSessions at the root of the pile-up:");
    for (c, n) in &roots {
        println!("  KILL {c};   -- blocks {n} waiting request(s) directly");
    }

    println!("\nKilling them...");
    for s in [&reader, &writer] {
        if roots.iter().any(|(c, _)| *c == s.id) {
            mgr.kill(s.id, KillScope::Connection)?;
        }
    }
    reader.done.recv().unwrap()?;
    writer.done.recv().unwrap()?;
    alter.done.recv().unwrap()?;
    println!("  the ALTER ran (context {})", alter.id);
    for s in &selects {
        s.done.recv().unwrap()?;
    }
    println!("  the {} SELECTs that queued behind it ran", selects.len());
    println!("\nWaits left: {}", mgr.lock_waits().rows.len());
    for c in mgr.wait_counters() {
        println!(
            "{}: {} waits, {} timeouts, {} deadlocks, {} kills",
            c.namespace, c.waits, c.timeouts, c.deadlocks, c.kills
        );
    }
    Ok(())
}
