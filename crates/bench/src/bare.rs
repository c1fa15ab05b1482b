//! The lock manager alone: each session loops "take SR on a table, end the statement", with no
//! work per statement, no instrumentation events and no latency sampling, so the only cost is
//! the lock manager's (the `peers` report's "lock manager only" mode).
//!
//! The table is drawn uniformly from `tables` (the same draw for every peer). Sessions check
//! the run's phase once per batch of [`BATCH`] statements, so the loop itself adds a random
//! draw and a loop counter per statement.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Barrier;
use std::time::Instant;

use serde::Serialize;

use crate::peers::{Dur, KeySpace, LockTable, Mode, PeerSpec, Session, FIRST_TABLE};
use crate::runner::{drive_phases, thread_cpu_ns, RunResult, Tally, Timing, MEASURE, STOP, WARMUP};
use crate::with_peer;

/// Statements between two checks of the run's phase.
pub const BATCH: u64 = 64;

/// One lock-manager-only case: which lock manager, how many tables, how many sessions.
#[derive(Debug, Clone, Serialize)]
pub struct Bare {
    /// The lock manager.
    pub peer: PeerSpec,
    /// Tables the sessions draw from (1 = one hot table).
    pub tables: usize,
    /// Sessions (threads).
    pub threads: usize,
}

/// Runs `case` once: acquire + release per second over all sessions, and the sessions' CPU
/// time per acquire + release. Instrumentation stays at its baseline (off, or compiled out).
pub fn run_bare(case: &Bare, timing: &Timing) -> RunResult {
    if let Err(e) = crate::instr::apply(crate::instr::InstrMode::baseline()) {
        panic!("{e}");
    }
    let keys = KeySpace::sysbench(case.tables);
    with_peer!(&case.peer, &keys, |t| run_on(&t, case, timing))
}

fn run_on<T: LockTable>(table: &T, case: &Bare, timing: &Timing) -> RunResult {
    let phase = AtomicU8::new(WARMUP);
    let tally = Tally::default();
    let start = Barrier::new(case.threads + 1);
    let tables = case.tables as u32;
    let elapsed = std::thread::scope(|s| {
        for i in 0..case.threads {
            let (phase, tally, start) = (&phase, &tally, &start);
            s.spawn(move || {
                let mut session = table.session();
                let mut rng = fastrand::Rng::with_seed(i as u64 * 7919 + 17);
                let (mut done, mut failed, mut cpu0) = (0u64, 0u64, None);
                start.wait();
                loop {
                    let ph = phase.load(Ordering::Relaxed);
                    if ph == STOP {
                        break;
                    }
                    if ph == MEASURE && cpu0.is_none() {
                        cpu0 = Some(thread_cpu_ns());
                    }
                    let mut ok = 0;
                    for _ in 0..BATCH {
                        let key = FIRST_TABLE + rng.u32(..tables);
                        match session.acquire(key, Mode::SR, Dur::Statement) {
                            Ok(()) => ok += 1,
                            Err(_) => failed += 1,
                        }
                        session.end_statement();
                    }
                    if cpu0.is_some() {
                        done += ok;
                    }
                }
                session.end_transaction();
                if let Some(c0) = cpu0 {
                    tally.add(done, thread_cpu_ns() - c0, failed);
                }
            });
        }
        drive_phases(&start, &phase, timing)
    });
    tally.result(elapsed, None)
}

/// One session, `iterations` statements of the same loop on the calling thread (for
/// instruction counts with callgrind: a fixed amount of work, no timer thread). Returns ns per
/// acquire + release.
pub fn run_loop(peer: &PeerSpec, tables: usize, iterations: u64) -> f64 {
    let keys = KeySpace::sysbench(tables);
    let tables = tables as u32;
    with_peer!(peer, &keys, |t| {
        let mut session = t.session();
        let mut rng = fastrand::Rng::with_seed(17);
        let t0 = Instant::now();
        for _ in 0..iterations {
            let key = FIRST_TABLE + rng.u32(..tables);
            session
                .acquire(std::hint::black_box(key), Mode::SR, Dur::Statement)
                .expect("one session: no conflict");
            session.end_statement();
        }
        t0.elapsed().as_nanos() as f64 / iterations.max(1) as f64
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peers::every_peer;
    use mdl_core::FastPath;
    use std::time::Duration;

    #[test]
    fn every_peer_counts_lock_operations() {
        let timing = Timing {
            warmup: Duration::from_millis(2),
            window: Duration::from_millis(20),
            runs: 1,
        };
        let modes: Vec<FastPath> = every_peer()
            .iter()
            .filter_map(|p| match &p.1 {
                PeerSpec::Mdl(s) => Some(s.fast_path),
                _ => None,
            })
            .collect();
        assert_eq!(
            modes,
            FastPath::ALL.iter().rev().copied().collect::<Vec<_>>()
        );
        for (name, peer) in every_peer() {
            assert!(run_loop(&peer, 8, 1000) > 0.0, "{name}");
            let r = run_bare(
                &Bare {
                    peer: peer.clone(),
                    tables: 1,
                    threads: 2,
                },
                &timing,
            );
            assert!(r.qps > 0.0 && r.cpu_ns > 0.0, "{}", peer.label());
        }
    }
}
