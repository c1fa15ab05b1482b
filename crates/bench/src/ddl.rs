//! DDL on a hot table: how long one EXCLUSIVE acquire + release takes on a table statements
//! use, while many other contexts exist (the `ddl-hot-table` report).
//!
//! Every case runs on the calling thread (contexts are plain values; an idle context needs no
//! thread). Before each timed DDL a reader takes and releases SR on the hot table, as the
//! statements between two DDLs do: in [`FastPath::PerContext`] mode that leaves the table's
//! "fast slots may hold me" flag up, so the DDL's first obtrusive request scans the slot table,
//! which is the cost this measures. (A DDL right after another DDL finds the flag down and
//! scans nothing.)

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mdl_core::{
    FastPath, LockDuration, LockType, MdlConfig, MdlContext, MdlKey, MdlManager, MdlRequest,
    Namespace,
};
use serde::Serialize;

/// Tables the holding contexts spread their locks over.
pub const OTHER_TABLES: usize = 256;

const TIMEOUT: Duration = Duration::from_secs(10);

/// What the other contexts do while the DDL runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Others {
    /// Nothing: they exist (registered, no locks).
    Idle,
    /// Each holds SR (transaction duration) on `locks` other tables.
    Holding {
        /// Locks per context.
        locks: usize,
    },
    /// A second thread runs one statement (SR on another table) in each of them before every
    /// DDL: their slots are empty when the DDL scans, but another core wrote their lines.
    Busy,
    /// Each holds SR on the hot table itself. The DDL then only tries (`try_acquire`): its
    /// first obtrusive request moves their fast-path slots into the queue and is refused. The
    /// readers release and take SR again (untimed) before the next try.
    ReadersOnHot,
}

impl Others {
    /// A short label.
    pub fn label(&self) -> String {
        match self {
            Others::Idle => "idle".into(),
            Others::Holding { locks: 1 } => "each holds 1 SR on another table".into(),
            Others::Holding { locks } => format!("each holds {locks} SR on other tables"),
            Others::Busy => "each ran a statement on another core since the last DDL".into(),
            Others::ReadersOnHot => "each holds SR on the hot table (DDL tries)".into(),
        }
    }
}

/// One case of the report.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DdlCase {
    /// The fast-path design.
    #[serde(serialize_with = "crate::peers::ser_fast_path")]
    pub fast_path: FastPath,
    /// Other contexts (besides the DDL's and the reader's).
    pub contexts: usize,
    /// What they do.
    pub others: Others,
    /// `MdlConfig::fast_path_slots` (per-context mode).
    pub slots: usize,
}

/// What one run of a case measured.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DdlRun {
    /// Nanoseconds per DDL (acquire + release, or the refused try), in run order.
    pub ns: Vec<f64>,
    /// Locks the other contexts hold on the fast path (per-context slots or shared-word
    /// counters), by [`mdl_core::TicketInfo::fast_path`].
    pub fast_held: usize,
    /// Locks the other contexts hold in all.
    pub held: usize,
    /// DDLs that found the hot table on the fast path (per-context: the DDL scanned the slot
    /// table; with readers on the hot table: moved their slots).
    pub scanned: usize,
    /// [`Others::Busy`]: DDLs whose thread was on another CPU than the helper's last one.
    pub other_cpu: usize,
}

fn table(name: &str) -> MdlKey {
    MdlKey::new(Namespace::Table, "test", name).expect("short name")
}

/// The CPU the calling thread last ran on (Linux: `/proc/thread-self/stat`), if known.
pub fn current_cpu() -> Option<u32> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name, which may hold spaces: `processor` is field 39.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(36)?.parse().ok()
}

/// SR (transaction duration) on each of the other tables.
fn other_tables(duration: LockDuration) -> Vec<MdlRequest> {
    (0..OTHER_TABLES)
        .map(|i| {
            let k = table(&format!("t{i}"));
            MdlRequest::new(k, LockType::SharedRead, duration)
        })
        .collect()
}

/// Runs `samples` DDLs of `case` on a fresh manager.
pub fn run(case: &DdlCase, samples: usize) -> DdlRun {
    let mgr = MdlManager::new(
        MdlConfig::builder()
            .fast_path(case.fast_path)
            .fast_path_slots(case.slots)
            .build()
            .expect("a valid configuration"),
    )
    .expect("valid config");
    let mut ddl = mgr.new_context();
    let mut reader = mgr.new_context();
    let mut others: Vec<MdlContext> = (0..case.contexts).map(|_| mgr.new_context()).collect();
    let hot = table("hot");
    let read_hot = MdlRequest::new(hot.clone(), LockType::SharedRead, LockDuration::Statement);
    let x = MdlRequest::new(hot, LockType::Exclusive, LockDuration::Transaction);
    let mut out = DdlRun::default();
    if let Others::Holding { locks } = case.others {
        let reqs = other_tables(LockDuration::Transaction);
        for (i, c) in others.iter_mut().enumerate() {
            for j in 0..locks {
                let t = c
                    .acquire(&reqs[(i * locks + j) % OTHER_TABLES], TIMEOUT)
                    .expect("no DDL on the other tables");
                out.held += 1;
                out.fast_held += usize::from(c.ticket_info(t).expect("held").fast_path);
            }
        }
    }
    out.ns.reserve(samples);
    // The timed DDL after a statement on the hot table.
    let mut ddl_after_read = |out: &mut DdlRun| {
        let t = reader
            .acquire(&read_hot, TIMEOUT)
            .expect("no DDL holds the table now");
        out.scanned += usize::from(reader.ticket_info(t).expect("held").fast_path);
        reader.release_statement_locks();
        let t0 = Instant::now();
        let t = ddl.acquire(&x, TIMEOUT).expect("nobody holds the table");
        ddl.release(t).expect("own ticket");
        out.ns.push(t0.elapsed().as_nanos() as f64);
    };
    match case.others {
        Others::Idle | Others::Holding { .. } => {
            for _ in 0..samples {
                ddl_after_read(&mut out);
            }
        }
        Others::ReadersOnHot => {
            for i in 0..samples {
                for c in &mut others {
                    let t = c.acquire(&read_hot, TIMEOUT).expect("the DDL only tries");
                    if i == 0 {
                        out.held += 1;
                        out.fast_held += usize::from(c.ticket_info(t).expect("held").fast_path);
                    }
                }
                let t0 = Instant::now();
                let got = ddl.try_acquire(&x).expect("a valid request");
                out.ns.push(t0.elapsed().as_nanos() as f64);
                assert!(got.is_none() || others.is_empty(), "readers hold the table");
                if let Some(t) = got {
                    ddl.release(t).expect("own ticket");
                }
                out.scanned += usize::from(out.fast_held > 0);
                for c in &mut others {
                    c.release_statement_locks();
                }
            }
        }
        Others::Busy => busy(others, samples, &mut out, ddl_after_read),
    }
    out
}

/// [`Others::Busy`]: a second thread owns the other contexts and, before each DDL, runs one
/// statement (SR on another table, then its release) in each; the two threads hand over by
/// spinning on a counter, so both stay on a CPU.
fn busy(
    mut others: Vec<MdlContext>,
    samples: usize,
    out: &mut DdlRun,
    mut ddl_after_read: impl FnMut(&mut DdlRun),
) {
    let reqs = other_tables(LockDuration::Statement);
    let go = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let helper_cpu = AtomicU64::new(u64::MAX);
    // Spinning: two runnable threads end up on two CPUs when two are free. Yielding only
    // after a while keeps a shared CPU from stalling each hand-over for a time slice.
    let wait_for = |a: &AtomicU64, v: u64, alive: &dyn Fn() -> bool| {
        let mut spins = 0u32;
        while a.load(Ordering::Acquire) < v {
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(1 << 16) {
                assert!(alive(), "the helper thread ended early");
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    };
    std::thread::scope(|s| {
        let helper = s.spawn(|| {
            for round in 1.. {
                wait_for(&go, round, &|| true);
                if round > samples as u64 {
                    break;
                }
                for (i, c) in others.iter_mut().enumerate() {
                    c.acquire(&reqs[i % OTHER_TABLES], TIMEOUT)
                        .expect("no DDL on the other tables");
                    c.release_statement_locks();
                }
                helper_cpu.store(current_cpu().map_or(u64::MAX, u64::from), Ordering::Relaxed);
                done.store(round, Ordering::Release);
            }
        });
        for round in 1..=samples as u64 {
            go.store(round, Ordering::Release);
            wait_for(&done, round, &|| !helper.is_finished());
            let here = current_cpu().map_or(u64::MAX - 1, u64::from);
            out.other_cpu += usize::from(here != helper_cpu.load(Ordering::Relaxed));
            ddl_after_read(out);
        }
        go.store(samples as u64 + 1, Ordering::Release);
    });
}

/// A rough wall time of [`run`], for the progress bar.
pub fn estimate(case: &DdlCase, samples: usize) -> Duration {
    let per_context = match case.others {
        Others::Idle => 1_000,
        Others::Busy => 1_000 + 200 * samples as u64,
        Others::Holding { locks } => 1_000 + 300 * locks as u64,
        Others::ReadersOnHot => 1_000 + 500 * samples as u64,
    };
    let scan = if case.fast_path == FastPath::PerContext {
        case.slots as u64
    } else {
        0
    };
    Duration::from_nanos(case.contexts as u64 * per_context + samples as u64 * (2_000 + scan))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_and_scenario_runs() {
        for fast_path in FastPath::ALL {
            for others in [
                Others::Idle,
                Others::Holding { locks: 2 },
                Others::Busy,
                Others::ReadersOnHot,
            ] {
                let case = DdlCase {
                    fast_path,
                    contexts: 20,
                    others,
                    slots: 64,
                };
                let r = run(&case, 5);
                assert_eq!(r.ns.len(), 5);
                assert!(r.ns.iter().all(|&n| n > 0.0));
                let want = match others {
                    Others::Idle | Others::Busy => 0,
                    Others::Holding { locks } => 20 * locks,
                    Others::ReadersOnHot => 20,
                };
                assert_eq!(r.held, want, "{fast_path} {others:?}");
                if fast_path == FastPath::PerContext {
                    assert!(
                        r.scanned > 0,
                        "{others:?}: the hot table was on the fast path"
                    );
                }
                if fast_path == FastPath::Off {
                    assert_eq!(r.fast_held, 0);
                } else if fast_path == FastPath::SharedWord {
                    assert_eq!(r.fast_held, want);
                } else {
                    // 64 slots in 4 groups of 16: some contexts share a full group.
                    assert!(r.fast_held <= 64 && r.fast_held > 0 || want == 0);
                }
            }
        }
    }
}
