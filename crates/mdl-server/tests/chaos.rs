//! Sessions that take and give back every kind of metadata lock at random (transactions, DDL,
//! `LOCK TABLES`, `FLUSH TABLES WITH READ LOCK`, `LOCK INSTANCE FOR BACKUP`, user-level locks,
//! views, temporary tables), while another session kills their queries and connections and a
//! third reads `performance_schema.metadata_locks` over and over. Checked: no two sessions are
//! ever seen holding incompatible locks on one object (MySQL 8.0's compatibility matrices,
//! written out below from `sql/mdl.cc`, not taken from `mdl-core`), no statement fails with
//! an error this server does not know how to name (1105), and once every session is gone no
//! lock and no session is left. Bounded: a fixed number of statements (`MDL_CHAOS_STATEMENTS`,
//! 300 per session), each session's `lock_wait_timeout` 1 s. `MDL_CHAOS_SEED` replays a run's
//! statements (not their timing); the seed is printed.

mod common;

use std::time::Duration;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

const SESSIONS: usize = 6;
/// Statements per session: `MDL_CHAOS_STATEMENTS`, 300 by default.
fn statements() -> usize {
    std::env::var("MDL_CHAOS_STATEMENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

/// MySQL's names of the object lock types, in the order of `sql/mdl.cc`'s matrices.
const OBJECT_TYPES: [&str; 10] = [
    "SHARED",
    "SHARED_HIGH_PRIO",
    "SHARED_READ",
    "SHARED_WRITE",
    "SHARED_WRITE_LOW_PRIO",
    "SHARED_UPGRADABLE",
    "SHARED_READ_ONLY",
    "SHARED_NO_WRITE",
    "SHARED_NO_READ_WRITE",
    "EXCLUSIVE",
];

/// Granted against granted, by row and column of [`OBJECT_TYPES`]: `MDL_object_lock`'s
/// compatibility table in `sql/mdl.cc` (`+` compatible).
const OBJECT_MATRIX: [&str; 10] = [
    "+++++++++-",
    "+++++++++-",
    "++++++++--",
    "++++++----",
    "++++++----",
    "+++++-+---",
    "+++--+++--",
    "+++---+---",
    "++--------",
    "----------",
];

/// May two different sessions hold `a` and `b` on one object of namespace `ns` at once?
fn compatible(ns: &str, a: &str, b: &str) -> bool {
    if matches!(
        ns,
        "GLOBAL" | "COMMIT" | "BACKUP LOCK" | "SCHEMA" | "TABLESPACE"
    ) {
        // `MDL_scoped_lock`: IX with IX, S with S, X with nothing.
        return a == b && a != "EXCLUSIVE";
    }
    let at = |t: &str| OBJECT_TYPES.iter().position(|x| *x == t);
    match (at(a), at(b)) {
        (Some(i), Some(j)) => OBJECT_MATRIX[i].as_bytes()[j] == b'+',
        _ => panic!("unknown lock types {a}, {b}"),
    }
}

/// One random statement of the mix (each failure is expected now and then).
fn statement(r: &mut fastrand::Rng) -> String {
    let (a, b, small, big) = (
        r.usize(0..4),
        r.usize(0..4),
        r.usize(0..3),
        r.usize(0..1_000_000),
    );
    let (t, u) = (format!("ch_t{a}"), format!("ch_t{b}"));
    match r.usize(0..40) {
        0 => "BEGIN".into(),
        1 => "COMMIT".into(),
        2 => "ROLLBACK".into(),
        3 | 4 => format!("SELECT COUNT(*) FROM {}", t),
        5 => format!("SELECT * FROM {} WHERE id = {}", t, a * 10),
        6 | 7 => format!("INSERT INTO {} (id, v) VALUES ({}, 1)", t, big),
        8 => format!("UPDATE {} SET v = v + 1 WHERE id < 20", t),
        9 => format!("DELETE FROM {} WHERE id = {}", t, big),
        10 => format!("SELECT * FROM {} FOR UPDATE", t),
        11 => format!("SELECT * FROM {} LOCK IN SHARE MODE", t),
        12 => format!("ALTER TABLE {} ADD COLUMN c{} INT", t, b),
        13 => format!("ALTER TABLE {} DROP COLUMN c{}", t, b),
        14 => format!("CREATE INDEX k{} ON {} (v)", small % 2, t),
        15 => format!("DROP INDEX k{} ON {}", small % 2, t),
        16 => format!("TRUNCATE TABLE {}", t),
        17 => format!("OPTIMIZE TABLE {}", t),
        18 => format!("LOCK TABLES {} READ", t),
        19 => format!("LOCK TABLES {t} WRITE, {u} READ"),
        20 => format!("LOCK TABLES {} READ LOCAL", t),
        21 | 22 => "UNLOCK TABLES".into(),
        23 => "FLUSH TABLES WITH READ LOCK".into(),
        24 => format!("FLUSH TABLES {} WITH READ LOCK", t),
        25 => "LOCK INSTANCE FOR BACKUP".into(),
        26 => "UNLOCK INSTANCE".into(),
        27 => format!("SELECT GET_LOCK('ch_{}', 0.2)", small),
        28 => format!("SELECT RELEASE_LOCK('ch_{}')", small),
        29 => "SELECT RELEASE_ALL_LOCKS()".into(),
        30 => format!("RENAME TABLE {} TO ch_tmp, ch_tmp TO ch_t9", t),
        31 => format!("RENAME TABLE ch_t9 TO ch_t{}", b),
        32 => format!(
            "CREATE TABLE IF NOT EXISTS {} (id INT PRIMARY KEY, v INT)",
            t
        ),
        33 => format!("DROP TABLE IF EXISTS ch_t{}", r.usize(4..6)),
        34 => format!(
            "CREATE TABLE IF NOT EXISTS ch_t{} (id INT PRIMARY KEY, v INT)",
            r.usize(4..6)
        ),
        35 => format!(
            "CREATE TEMPORARY TABLE IF NOT EXISTS {} (id INT PRIMARY KEY, v INT)",
            t
        ),
        36 => format!("DROP TEMPORARY TABLE IF EXISTS {}", t),
        37 => format!("CREATE OR REPLACE VIEW ch_v AS SELECT * FROM {}", t),
        38 => "SELECT * FROM ch_v".into(),
        _ => "SELECT SLEEP(0.02)".into(),
    }
}

async fn chaos_conn() -> Conn {
    let mut c = conn().await;
    c.query_drop("USE chaos").await.unwrap();
    c.query_drop("SET SESSION lock_wait_timeout = 1")
        .await
        .unwrap();
    c
}

/// Runs [`statements`] statements; a killed connection is opened again. Returns the statements
/// that failed with 1105.
async fn session(seed: u64) -> Vec<String> {
    let mut r = fastrand::Rng::with_seed(seed);
    let mut c = chaos_conn().await;
    let mut unknown = Vec::new();
    for _ in 0..statements() {
        let sql = statement(&mut r);
        match bounded(&sql, c.query_drop(&sql)).await {
            Ok(()) => {}
            Err(mysql_async::Error::Server(e)) if e.code == 1105 => {
                unknown.push(format!("{sql}: {}", e.message))
            }
            Err(mysql_async::Error::Server(_)) => {}
            // Killed (`KILL` of its connection): a new one.
            Err(_) => c = chaos_conn().await,
        }
    }
    drop(c);
    unknown
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_sessions_never_hold_incompatible_locks() {
    let seed = std::env::var("MDL_CHAOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    println!("MDL_CHAOS_SEED={seed}");
    let mut obs = conn().await;
    obs.query_drop("DROP DATABASE IF EXISTS chaos")
        .await
        .unwrap();
    obs.query_drop("CREATE DATABASE chaos").await.unwrap();
    for i in 0..4 {
        obs.query_drop(format!(
            "CREATE TABLE chaos.ch_t{i} (id INT PRIMARY KEY, v INT)"
        ))
        .await
        .unwrap();
    }
    let me: u64 = obs
        .query_first("SELECT CONNECTION_ID()")
        .await
        .unwrap()
        .unwrap();
    let sessions: Vec<_> = (0..SESSIONS as u64)
        .map(|i| tokio::spawn(session(seed.wrapping_add(i))))
        .collect();
    // The killer: a KILL QUERY (or now and then a KILL) of a random other session.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let killer = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut r = fastrand::Rng::with_seed(seed ^ 0x5eed);
            let mut k = conn().await;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(150)).await;
                let ids: Vec<u64> = k
                    .query(format!(
                        "SELECT ID FROM information_schema.PROCESSLIST WHERE ID NOT IN \
                         (CONNECTION_ID(), {me}) AND INFO IS NOT NULL"
                    ))
                    .await
                    .unwrap_or_default();
                if let Some(id) = (!ids.is_empty()).then(|| ids[r.usize(..ids.len())]) {
                    let scope = if r.usize(0..5) == 0 { "" } else { "QUERY " };
                    let _ = k.query_drop(format!("KILL {scope}{id}")).await;
                }
            }
        })
    };
    // The observer: every snapshot of the granted locks, checked pair by pair.
    let mut snapshots = 0;
    let mut granted = 0;
    while !sessions.iter().all(|s| s.is_finished()) {
        let rows: Vec<(String, String, String, String, u64)> = obs
            .query(
                "SELECT OBJECT_TYPE, IFNULL(OBJECT_SCHEMA, ''), IFNULL(OBJECT_NAME, ''), \
                 LOCK_TYPE, OWNER_THREAD_ID FROM performance_schema.metadata_locks \
                 WHERE LOCK_STATUS = 'GRANTED'",
            )
            .await
            .unwrap();
        snapshots += 1;
        granted += rows.len();
        for (i, a) in rows.iter().enumerate() {
            for b in &rows[i + 1..] {
                let same = (&a.0, &a.1, &a.2) == (&b.0, &b.1, &b.2);
                assert!(
                    !same || a.4 == b.4 || compatible(&a.0, &a.3, &b.3),
                    "seed {seed}: {a:?} and {b:?} granted at once"
                );
            }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    killer.await.unwrap();
    let mut unknown = Vec::new();
    for s in sessions {
        unknown.extend(s.await.unwrap());
    }
    assert!(unknown.is_empty(), "seed {seed}: 1105 for {unknown:?}");
    assert!(snapshots > 10, "the observer saw {snapshots} snapshots");
    // Every session gone: nothing of theirs is left.
    let t0 = std::time::Instant::now();
    loop {
        let others: Vec<u64> = obs
            .query("SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()")
            .await
            .unwrap();
        let locks: Vec<(String, String)> = obs
            .query(
                "SELECT OBJECT_TYPE, LOCK_TYPE FROM performance_schema.metadata_locks \
                 WHERE OWNER_THREAD_ID <> PS_CURRENT_THREAD_ID()",
            )
            .await
            .unwrap();
        if others.is_empty() && locks.is_empty() {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "seed {seed}: left behind: sessions {others:?}, locks {locks:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!("{snapshots} snapshots, {granted} granted locks checked");
    obs.query_drop("DROP DATABASE chaos").await.unwrap();
}
