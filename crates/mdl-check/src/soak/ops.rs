//! The operations of several steps, each keeping the book no stronger than what the manager
//! grants: upgrade (the old hold is soft while it waits), downgrade (the book goes weaker
//! first), clone, and a savepoint with requests and a rollback.

use std::sync::atomic::Ordering;
use std::time::Instant;

use mdl_core::{LockDuration, LockType, MdlError, MdlRequest, Ticket};
use mdl_reference::matrix::{is_scoped, satisfied_by, stronger_or_equal};

use super::book::Waiting;
use super::worker::{below, chance, pick, Mine, Worker};

impl Worker {
    pub(super) fn upgrade(&mut self) {
        let Some((t, key, held, _)) = self.random_held() else {
            return;
        };
        let ns = key.namespace();
        let target = if matches!(
            held,
            LockType::SharedUpgradable | LockType::SharedNoWrite | LockType::SharedNoReadWrite
        ) || chance(&mut self.rng, 5000)
        {
            LockType::Exclusive
        } else {
            self.random_type(ns)
        };
        let timeout = self.random_timeout();
        let me = self.ctx_id();
        self.rep.upgrades += 1;
        if !timeout.is_zero() {
            self.rep.waits += 1;
            self.sh.book.lock().unwrap().waiting.insert(
                me,
                Waiting {
                    key: key.as_bytes().to_vec(),
                    scoped: is_scoped(ns),
                    ty: target,
                    since: Instant::now(),
                },
            );
        }
        // During the upgrade the manager holds the old type, then both, then the new one: the
        // old entry is soft meanwhile (cycle searches see it, grant checks do not), and the
        // outcome is booked afterwards.
        let no_op = stronger_or_equal(is_scoped(ns), held, target);
        let old_uid = self.mine[&t].uid;
        if !no_op {
            self.sh.soften(&key, old_uid);
        }
        let failed_before = self.sh.failed_wait_ends.load(Ordering::SeqCst);
        let start = Instant::now();
        let r = self.ctx().upgrade(t, target, timeout);
        if !no_op {
            self.sh.ungrant(&key, old_uid);
            let ty = if r.is_ok() { target } else { held };
            let uid = self.sh.grant(me, &key, ty, "upgrade");
            self.mine.get_mut(&t).expect("mine").uid = uid;
        }
        let elapsed = start.elapsed();
        if !timeout.is_zero() {
            self.check_overshoot(elapsed, timeout, "upgrade");
        }
        match r {
            Ok(()) => {
                self.unregister_wait(me);
                self.rep.grants += 1;
                let info = match self.ctx().ticket_info(t) {
                    Ok(i) => i,
                    Err(e) => return self.unexpected(format!("ticket lost by upgrade: {e:?}")),
                };
                let m = self.mine.get_mut(&t).expect("mine");
                if no_op {
                    if info.lock_type != m.ty {
                        let msg =
                            format!("no-op upgrade changed {:?} to {:?}", m.ty, info.lock_type);
                        self.unexpected(msg);
                    }
                } else {
                    m.ty = target;
                    if info.lock_type != target {
                        let msg = format!("upgrade to {target:?} gave {:?}", info.lock_type);
                        self.unexpected(msg);
                    }
                }
            }
            Err(MdlError::Timeout(_)) if timeout.is_zero() => self.rep.refused_tries += 1,
            Err(e) => self.wait_failed(me, e, timeout, failed_before, "upgrade"),
        }
    }

    pub(super) fn downgrade(&mut self) {
        let Some((t, key, held, uid)) = self.random_held() else {
            return;
        };
        let to = pick(&mut self.rng, &satisfied_by(key.namespace(), held));
        let me = self.ctx_id();
        // The book goes weaker first, so it never claims more than the manager grants.
        self.sh.retype(me, &key, uid, to);
        match self.ctx().downgrade(t, to) {
            Ok(()) => {
                self.rep.downgrades += 1;
                self.mine.get_mut(&t).expect("mine").ty = to;
            }
            Err(e) => {
                self.sh.retype(me, &key, uid, held);
                self.unexpected(format!("downgrade {held:?} -> {to:?}: {e:?}"));
            }
        }
    }

    pub(super) fn clone_one(&mut self) {
        let Some((t, key, held, _)) = self.random_held() else {
            return;
        };
        let ty = pick(&mut self.rng, &satisfied_by(key.namespace(), held));
        let d = pick(&mut self.rng, &LockDuration::ALL);
        match self.ctx().clone_ticket(t, ty, d) {
            Ok(c) => {
                self.rep.clones += 1;
                let me = self.ctx_id();
                let uid = self.sh.grant(me, &key, ty, "clone");
                self.mine.insert(
                    c,
                    Mine {
                        key,
                        ty,
                        duration: d,
                        uid,
                    },
                );
            }
            Err(e) => self.unexpected(format!("clone {held:?} -> {ty:?}: {e:?}")),
        }
    }

    pub(super) fn savepoint_and_rollback(&mut self) {
        let sp = self.ctx().savepoint();
        for _ in 0..1 + below(&mut self.rng, 3) {
            let key = self.random_key();
            let ty = self.random_type(key.namespace());
            let d = pick(&mut self.rng, &LockDuration::ALL);
            let timeout = self.random_timeout();
            self.request(&MdlRequest::new(key, ty, d), timeout);
        }
        // Unbook what the rollback will release.
        let ctx = self.ctx.as_ref().expect("context");
        let doomed: Vec<Ticket> = self
            .mine
            .keys()
            .copied()
            .filter(|&t| !ctx.has_lock(sp, t).unwrap_or(true))
            .collect();
        for t in doomed {
            let m = self.mine.remove(&t).expect("mine");
            self.sh.ungrant(&m.key, m.uid);
        }
        if let Err(e) = self.ctx().rollback_to_savepoint(sp) {
            self.unexpected(format!("rollback: {e:?}"));
        }
        self.rep.rollbacks += 1;
        let n = self.ctx().lock_count();
        if n != self.mine.len() {
            self.unexpected(format!(
                "after rollback the context holds {n} tickets, the worker knows {}",
                self.mine.len()
            ));
        }
    }
}
