//! What a soak saw: counts per outcome, violations with samples, and the manager's state after
//! the run.

use std::time::Duration;

/// What happened.
#[derive(Debug, Clone, Default)]
pub struct SoakReport {
    /// Threads run.
    pub threads: usize,
    /// Wall time.
    pub elapsed: Duration,
    /// Operations of every kind.
    pub operations: u64,
    /// Lock requests (try or wait, upgrades included) that were granted.
    pub grants: u64,
    /// Tries (zero timeout) that were refused.
    pub refused_tries: u64,
    /// Requests that had a timeout (they may or may not have actually waited).
    pub waits: u64,
    /// Waits that ended with [`MdlError::Timeout`](mdl_core::MdlError::Timeout).
    pub timeouts: u64,
    /// Waits that ended with [`MdlError::Deadlock`](mdl_core::MdlError::Deadlock).
    pub deadlocks: u64,
    /// ... of which the book showed the cycle.
    pub deadlocks_with_cycle: u64,
    /// ... of which the cycle could not be confirmed because another wait ended meanwhile.
    pub deadlocks_unverified: u64,
    /// Waits that ended with [`MdlError::Killed`](mdl_core::MdlError::Killed).
    pub kills: u64,
    /// Kills sent.
    pub kills_sent: u64,
    /// Upgrades attempted / downgrades / clones / rollbacks done.
    pub upgrades: u64,
    /// Downgrades done.
    pub downgrades: u64,
    /// Clones made.
    pub clones: u64,
    /// Rollbacks to a savepoint.
    pub rollbacks: u64,
    /// Contexts dropped while holding locks.
    pub dropped_contexts: u64,
    /// Checks that failed (must be 0); see the module docs.
    pub violations: u64,
    /// The first few violations, described.
    pub violation_samples: Vec<String>,
    /// The latest a wait ended after its timeout.
    pub max_wait_overshoot: Duration,
    /// Tickets left after every context was dropped (slow-path entries; must be 0).
    pub leftover_tickets: usize,
    /// Contexts still registered at the end (must be 0).
    pub leftover_contexts: usize,
    /// Lock objects in the map at the end.
    pub lock_objects: usize,
    /// Unused lock objects at the end (must equal `lock_objects`).
    pub unused_lock_objects: usize,
    /// Unexpected errors returned by the API (must be 0; also counted as violations).
    pub unexpected_errors: u64,
}

impl SoakReport {
    /// Whether every check passed.
    pub fn ok(&self) -> bool {
        self.violations == 0
    }
}

impl std::fmt::Display for SoakReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "soak: {} threads, {:.1} s, {} ops ({:.0} ops/s)",
            self.threads,
            self.elapsed.as_secs_f64(),
            self.operations,
            self.operations as f64 / self.elapsed.as_secs_f64().max(1e-9)
        )?;
        writeln!(
            f,
            "  grants {}, refused tries {}, waits {}, timeouts {}, deadlocks {} (cycle seen {}, unverified {}), kills {} (sent {})",
            self.grants,
            self.refused_tries,
            self.waits,
            self.timeouts,
            self.deadlocks,
            self.deadlocks_with_cycle,
            self.deadlocks_unverified,
            self.kills,
            self.kills_sent
        )?;
        writeln!(
            f,
            "  upgrades {}, downgrades {}, clones {}, rollbacks {}, dropped contexts {}",
            self.upgrades, self.downgrades, self.clones, self.rollbacks, self.dropped_contexts
        )?;
        writeln!(
            f,
            "  max wait overshoot {:?}; leftover tickets {}, contexts {}; lock objects {} (unused {})",
            self.max_wait_overshoot,
            self.leftover_tickets,
            self.leftover_contexts,
            self.lock_objects,
            self.unused_lock_objects
        )?;
        write!(f, "  violations {}", self.violations)?;
        for v in &self.violation_samples {
            write!(f, "\n    {v}")?;
        }
        Ok(())
    }
}

impl SoakReport {
    /// Adds one thread's counts to the total.
    pub(crate) fn merge(&mut self, r: &SoakReport) {
        self.operations += r.operations;
        self.grants += r.grants;
        self.refused_tries += r.refused_tries;
        self.waits += r.waits;
        self.timeouts += r.timeouts;
        self.deadlocks += r.deadlocks;
        self.deadlocks_with_cycle += r.deadlocks_with_cycle;
        self.deadlocks_unverified += r.deadlocks_unverified;
        self.kills += r.kills;
        self.kills_sent += r.kills_sent;
        self.upgrades += r.upgrades;
        self.downgrades += r.downgrades;
        self.clones += r.clones;
        self.rollbacks += r.rollbacks;
        self.dropped_contexts += r.dropped_contexts;
        self.unexpected_errors += r.unexpected_errors;
        self.max_wait_overshoot = self.max_wait_overshoot.max(r.max_wait_overshoot);
    }
}
