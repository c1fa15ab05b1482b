//! How a wait ended, checked: no overshoot beyond the margin, no deadlock without a cycle, no
//! cycle left unbroken.

use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use mdl_core::MdlError;

use super::worker::Worker;

/// How long a deadlock without a visible cycle waits for another wait's failure to be counted.
const DEADLOCK_CHECK_GRACE: Duration = Duration::from_secs(1);

impl Worker {
    pub(super) fn check_overshoot(&mut self, elapsed: Duration, timeout: Duration, what: &str) {
        if elapsed > timeout {
            let over = elapsed - timeout;
            self.rep.max_wait_overshoot = self.rep.max_wait_overshoot.max(over);
            if over > self.sh.cfg.wait_margin {
                self.sh.violation(format!(
                    "{what}: wait with timeout {timeout:?} ended after {elapsed:?}"
                ));
            }
        }
    }

    /// A wait ended without a grant: classify and check.
    pub(super) fn wait_failed(
        &mut self,
        me: u64,
        e: MdlError,
        timeout: Duration,
        failed_before: u64,
        op: &str,
    ) {
        match e {
            MdlError::Deadlock(_) => {
                self.rep.deadlocks += 1;
                let book = self.sh.book.lock().unwrap();
                let cycle = book.reaches_cycle(me);
                let dump = book.dump(me);
                drop(book);
                if cycle {
                    self.rep.deadlocks_with_cycle += 1;
                } else if self.sh.failed_wait_ends.load(Ordering::SeqCst) == failed_before
                    && !self.failure_in_flight(failed_before)
                {
                    self.sh.violation(format!(
                        "{op}: context {me} got Deadlock but no wait-for cycle through it exists \
                         and no other wait ended meanwhile: {dump}"
                    ));
                } else {
                    self.rep.deadlocks_unverified += 1;
                }
            }
            MdlError::Timeout(_) => {
                self.rep.timeouts += 1;
                if timeout >= Duration::from_secs(1) {
                    self.check_missed_deadlock(me, op);
                }
            }
            MdlError::Killed(_) => {
                self.rep.kills += 1;
                self.ctx().reset_kill();
            }
            other => self.unexpected(format!("{op}: unexpected error {other:?}")),
        }
        // Count the failed wait *before* leaving the book: whoever checks a deadlock meanwhile
        // either still sees this wait in the book or sees the count move.
        self.sh.failed_wait_ends.fetch_add(1, Ordering::SeqCst);
        self.unregister_wait(me);
    }

    /// A cycle member's wait can end (and its removal grant another member, which then leaves
    /// the book) a moment before that member counts its failure. Give in-flight failures time to
    /// be counted before calling a deadlock unjustified.
    pub(super) fn failure_in_flight(&self, failed_before: u64) -> bool {
        let deadline = Instant::now() + DEADLOCK_CHECK_GRACE;
        while Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
            if self.sh.failed_wait_ends.load(Ordering::SeqCst) != failed_before {
                return true;
            }
        }
        false
    }

    pub(super) fn check_missed_deadlock(&mut self, me: u64, op: &str) {
        let first = self.sh.book.lock().unwrap().cycle_through(me);
        let Some(first) = first else { return };
        thread::sleep(Duration::from_millis(100));
        let book = self.sh.book.lock().unwrap();
        let stable = first
            .iter()
            .all(|(c, since)| book.waiting.get(c).is_some_and(|w| w.since == *since));
        let again = book.cycle_through(me);
        drop(book);
        if stable && again.is_some() {
            self.sh.violation(format!(
                "{op}: context {me} timed out in a wait-for cycle {:?} that nobody broke",
                first.iter().map(|(c, _)| *c).collect::<Vec<_>>()
            ));
        }
    }
}
