//! One worker thread: its context, what it believes it holds, its random choices, and the
//! operations that take one call (request, release, end of statement or transaction, drop the
//! context, kill another). The multi-step operations are in `ops`, the checks of how a wait
//! ended in `waits`.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mdl_core::{
    KillScope, LockDuration, LockType, MdlContext, MdlError, MdlKey, MdlManager, MdlRequest,
    Namespace, Ticket,
};
use mdl_reference::matrix::{is_scoped, legal_types, stronger_or_equal};

use super::book::Waiting;
use super::report::SoakReport;
use super::shared::Shared;

/// Uniform in `0..n` (0 when `n` is 0).
pub(super) fn below(rng: &mut fastrand::Rng, n: u64) -> u64 {
    rng.u64(..n.max(1))
}

/// True with probability `per_10k` / 10,000.
pub(super) fn chance(rng: &mut fastrand::Rng, per_10k: u32) -> bool {
    rng.u32(..10_000) < per_10k
}

/// One of `s`, uniformly.
pub(super) fn pick<T: Copy>(rng: &mut fastrand::Rng, s: &[T]) -> T {
    s[rng.usize(..s.len())]
}

/// A ticket the worker holds, as it booked it.
pub(super) struct Mine {
    pub(super) key: MdlKey,
    pub(super) ty: LockType,
    pub(super) duration: LockDuration,
    pub(super) uid: u64,
}

/// One thread's state.
pub(super) struct Worker {
    pub(super) idx: usize,
    pub(super) sh: Arc<Shared>,
    pub(super) mgr: Arc<MdlManager>,
    pub(super) ctx: Option<MdlContext>,
    pub(super) rng: fastrand::Rng,
    pub(super) mine: HashMap<Ticket, Mine>,
    pub(super) rep: SoakReport,
}

impl Worker {
    pub(super) fn ctx(&mut self) -> &mut MdlContext {
        self.ctx.as_mut().expect("context")
    }

    pub(super) fn ctx_id(&self) -> u64 {
        self.ctx.as_ref().expect("context").id().as_u64()
    }

    pub(super) fn new_context(&mut self) {
        let c = self.mgr.new_context();
        self.sh.kill_handles.lock().unwrap()[self.idx] = Some(c.kill_handle());
        self.ctx = Some(c);
    }

    pub(super) fn random_key(&mut self) -> MdlKey {
        let ns = {
            let n = self.sh.cfg.namespaces.len() as u64;
            self.sh.cfg.namespaces[below(&mut self.rng, n) as usize]
        };
        if ns.is_singleton() {
            return MdlKey::singleton(ns).expect("singleton");
        }
        let cfg = &self.sh.cfg;
        let n = if chance(&mut self.rng, 8000) || cfg.cold_names == 0 {
            below(&mut self.rng, cfg.hot_names.max(1) as u64)
        } else {
            cfg.hot_names as u64 + below(&mut self.rng, cfg.cold_names as u64)
        };
        let name = format!("n{n}");
        if ns == Namespace::ColumnStatistics {
            return MdlKey::column_statistics("db", "t", &name).expect("key");
        }
        MdlKey::new(ns, "db", &name).expect("key")
    }

    pub(super) fn random_type(&mut self, ns: Namespace) -> LockType {
        pick(&mut self.rng, &legal_types(ns))
    }

    pub(super) fn random_timeout(&mut self) -> Duration {
        match below(&mut self.rng, 100) {
            0..=19 => Duration::ZERO,
            20..=96 => {
                let max = self.sh.cfg.max_short_wait.as_micros().max(1000) as u64;
                Duration::from_micros(1000 + below(&mut self.rng, max - 999))
            }
            _ => self.sh.cfg.long_wait,
        }
    }

    pub(super) fn unexpected(&mut self, what: String) {
        self.rep.unexpected_errors += 1;
        self.sh.violation(what);
    }

    /// A random ticket of this worker with its key, type and book entry.
    pub(super) fn random_held(&mut self) -> Option<(Ticket, MdlKey, LockType, u64)> {
        let t = self.random_ticket()?;
        let m = &self.mine[&t];
        Some((t, m.key.clone(), m.ty, m.uid))
    }

    pub(super) fn random_ticket(&mut self) -> Option<Ticket> {
        if self.mine.is_empty() {
            return None;
        }
        let n = below(&mut self.rng, self.mine.len() as u64) as usize;
        self.mine.keys().nth(n).copied()
    }

    /// A request with timeout; every outcome checked.
    pub(super) fn request(&mut self, req: &MdlRequest, timeout: Duration) {
        let me = self.ctx_id();
        let scoped = is_scoped(req.key.namespace());
        if !timeout.is_zero() {
            self.rep.waits += 1;
            self.sh.book.lock().unwrap().waiting.insert(
                me,
                Waiting {
                    key: req.key.as_bytes().to_vec(),
                    scoped,
                    ty: req.lock_type,
                    since: Instant::now(),
                },
            );
        }
        let failed_before = self.sh.failed_wait_ends.load(Ordering::SeqCst);
        let start = Instant::now();
        let r = self.ctx().acquire(req, timeout);
        let elapsed = start.elapsed();
        if !timeout.is_zero() {
            self.check_overshoot(elapsed, timeout, "acquire");
        }
        match r {
            Ok(t) => {
                self.unregister_wait(me);
                self.rep.grants += 1;
                if let std::collections::hash_map::Entry::Vacant(e) = self.mine.entry(t) {
                    let uid = self.sh.grant(me, &req.key, req.lock_type, "acquire");
                    e.insert(Mine {
                        key: req.key.clone(),
                        ty: req.lock_type,
                        duration: req.duration,
                        uid,
                    });
                } else {
                    // The same ticket: it must satisfy the request.
                    let m = &self.mine[&t];
                    if !stronger_or_equal(scoped, m.ty, req.lock_type) || m.duration != req.duration
                    {
                        let msg = format!(
                            "reused ticket {:?} {:?} for request {:?} {:?}",
                            m.ty, m.duration, req.lock_type, req.duration
                        );
                        self.unexpected(msg);
                    }
                }
            }
            Err(MdlError::Timeout(_)) if timeout.is_zero() => self.rep.refused_tries += 1,
            Err(e) => self.wait_failed(me, e, timeout, failed_before, "acquire"),
        }
    }

    pub(super) fn unregister_wait(&self, me: u64) {
        self.sh.book.lock().unwrap().waiting.remove(&me);
    }

    pub(super) fn release(&mut self, t: Ticket) {
        if let Some(m) = self.mine.remove(&t) {
            self.sh.ungrant(&m.key, m.uid);
        }
        if let Err(e) = self.ctx().release(t) {
            self.unexpected(format!("release: {e:?}"));
        }
    }

    /// Forgets (and unbooks) every ticket the manager no longer knows (after bulk releases).
    pub(super) fn forget_where(&mut self, mut gone: impl FnMut(&Mine) -> bool) {
        let ts: Vec<Ticket> = self
            .mine
            .iter()
            .filter(|(_, m)| gone(m))
            .map(|(t, _)| *t)
            .collect();
        for t in ts {
            let m = self.mine.remove(&t).expect("mine");
            self.sh.ungrant(&m.key, m.uid);
        }
    }

    pub(super) fn end_statement(&mut self) {
        self.forget_where(|m| m.duration == LockDuration::Statement);
        self.ctx().release_statement_locks();
    }

    pub(super) fn end_transaction(&mut self) {
        self.forget_where(|m| m.duration != LockDuration::Explicit);
        self.ctx().release_transactional_locks();
    }

    pub(super) fn drop_context(&mut self) {
        self.forget_where(|_| true);
        self.sh.kill_handles.lock().unwrap()[self.idx] = None;
        self.ctx = None;
        self.rep.dropped_contexts += 1;
        self.new_context();
    }

    pub(super) fn kill_someone(&mut self) {
        let n = self.sh.cfg.threads;
        let victim = below(&mut self.rng, n as u64) as usize;
        if victim == self.idx {
            return;
        }
        let h = self.sh.kill_handles.lock().unwrap()[victim].clone();
        if let Some(h) = h {
            // A query kill may end before it hits a wait (the statement ended); a connection
            // kill lasts until the killed worker resets it.
            h.kill(pick(
                &mut self.rng,
                &[KillScope::Query, KillScope::Connection],
            ));
            self.rep.kills_sent += 1;
        }
    }

    pub(super) fn step(&mut self) {
        self.rep.operations += 1;
        if chance(&mut self.rng, self.sh.cfg.kill_per_10k) {
            self.kill_someone();
        }
        if chance(&mut self.rng, self.sh.cfg.drop_per_10k) {
            self.drop_context();
            return;
        }
        let w = self.sh.cfg.weights;
        let mut r = below(&mut self.rng, u64::from(w.iter().sum::<u32>().max(1)));
        let mut op = 0;
        while op < 7 && r >= u64::from(w[op]) {
            r -= u64::from(w[op]);
            op += 1;
        }
        self.step_op(op);
    }

    pub(super) fn step_op(&mut self, op: usize) {
        match op {
            0 => {
                let key = self.random_key();
                let ty = self.random_type(key.namespace());
                let d = pick(&mut self.rng, &LockDuration::ALL);
                let timeout = self.random_timeout();
                self.request(&MdlRequest::new(key, ty, d), timeout);
            }
            1 => {
                if let Some(t) = self.random_ticket() {
                    self.release(t);
                }
            }
            2 => self.upgrade(),
            3 => self.downgrade(),
            4 => self.clone_one(),
            5 => self.savepoint_and_rollback(),
            6 => self.end_statement(),
            _ => self.end_transaction(),
        }
        if self.mine.len() > 12 {
            self.end_transaction();
            let explicit: Vec<Ticket> = self.mine.keys().copied().collect();
            for t in explicit {
                self.release(t);
            }
        }
        let n = self.ctx().lock_count();
        if n != self.mine.len() {
            self.unexpected(format!(
                "context holds {n} tickets, the worker knows {}",
                self.mine.len()
            ));
            // Resynchronize: drop everything.
            self.drop_context();
        }
    }
}
