//! One stress thread: a context running MySQL-like statement shapes (DML, ALTER TABLE with
//! upgrades and downgrades, LOCK TABLES, FTWRL, DROP DATABASE, GET_LOCK, savepoints with
//! clones), recording every grant in the shared table, which checks it against the reference
//! matrices.

use std::sync::atomic::Ordering;
use std::time::Duration;

use mdl_core::{LockDuration, LockType, MdlContext, MdlError, MdlKey, Namespace, Ticket};
use mdl_reference::matrix::{compatible, is_scoped, obj_stronger_or_equal};
use mdl_reference::support::req;

use super::Shared;

/// One of `xs`, uniformly.
fn pick<T: Copy>(rng: &mut fastrand::Rng, xs: &[T]) -> T {
    xs[rng.usize(..xs.len())]
}

/// A thread's context and what it believes it holds.
pub(super) struct Client<'a> {
    pub(super) sh: &'a Shared,
    pub(super) ctx: MdlContext,
    pub(super) id: u64,
    pub(super) mine: Vec<(Ticket, MdlKey, LockDuration)>,
    pub(super) rng: fastrand::Rng,
}

/// A request that did not end granted (counted already); the statement stops there.
#[derive(Debug)]
pub(super) struct Failed;

impl Client<'_> {
    fn record_grant(&mut self, t: Ticket, key: &MdlKey, ty: LockType) {
        let mut held = self.sh.held.lock().unwrap();
        let v = held.entry(key.clone()).or_default();
        for &(ctx, _, other) in v.iter() {
            if ctx != self.id && !compatible(key.namespace(), ty, other) {
                self.sh.stats.violations.fetch_add(1, Ordering::Relaxed);
                let mut samples = self.sh.samples.lock().unwrap();
                if samples.len() < 20 {
                    samples.push(format!(
                        "{key:?}: ctx {} got {ty:?} while ctx {ctx} holds {other:?}",
                        self.id
                    ));
                }
            }
        }
        v.retain(|&(c, tk, _)| !(c == self.id && tk == t));
        v.push((self.id, t, ty));
        drop(held);
        self.sh.stats.grants.fetch_add(1, Ordering::Relaxed);
        self.sh.stats.types_seen.lock().unwrap()[ty as usize] += 1;
    }

    fn forget(&mut self, pred: impl Fn(&(Ticket, MdlKey, LockDuration)) -> bool) {
        let mut held = self.sh.held.lock().unwrap();
        let id = self.id;
        self.mine.retain(|rec| {
            if pred(rec) {
                if let Some(v) = held.get_mut(&rec.1) {
                    v.retain(|&(c, tk, _)| !(c == id && tk == rec.0));
                }
                false
            } else {
                true
            }
        });
    }

    fn timeout(&mut self) -> Duration {
        pick(
            &mut self.rng,
            &[
                Duration::ZERO,
                Duration::from_millis(1),
                Duration::from_millis(5),
                Duration::from_millis(30),
            ],
        )
    }

    fn take(&mut self, key: &MdlKey, ty: LockType, d: LockDuration) -> Result<Ticket, Failed> {
        let to = self.timeout();
        match self.ctx.acquire(&req(key, ty, d), to) {
            Ok(t) => {
                let info = self.ctx.ticket_info(t).unwrap();
                assert!(info.lock_type == ty || obj_or_scoped_stronger(key, info.lock_type, ty));
                self.record_grant(t, key, info.lock_type);
                if !self.mine.iter().any(|r| r.0 == t) {
                    self.mine.push((t, key.clone(), info.duration));
                }
                Ok(t)
            }
            Err(e) => {
                self.count(e);
                Err(Failed)
            }
        }
    }

    fn count(&mut self, e: MdlError) {
        let s = &self.sh.stats;
        match e {
            MdlError::Timeout(_) => s.timeouts.fetch_add(1, Ordering::Relaxed),
            MdlError::Deadlock(_) => s.deadlocks.fetch_add(1, Ordering::Relaxed),
            MdlError::Killed(_) => {
                self.ctx.reset_kill();
                s.killed.fetch_add(1, Ordering::Relaxed)
            }
            other => panic!("unexpected error {other:?}"),
        };
    }

    fn upgrade(&mut self, t: Ticket, key: &MdlKey, ty: LockType) -> Result<(), Failed> {
        let to = self.timeout();
        match self.ctx.upgrade(t, ty, to) {
            Ok(()) => {
                let now = self.ctx.ticket_info(t).unwrap().lock_type;
                self.record_grant(t, key, now);
                self.sh.stats.upgrades.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => {
                self.count(e);
                Err(Failed)
            }
        }
    }

    fn downgrade(&mut self, t: Ticket, key: &MdlKey, ty: LockType) {
        {
            // Weaker first in the table, then in the lock manager.
            let mut held = self.sh.held.lock().unwrap();
            for e in held.get_mut(key).unwrap().iter_mut() {
                if e.0 == self.id && e.1 == t {
                    e.2 = ty;
                }
            }
        }
        self.ctx.downgrade(t, ty).unwrap();
        self.sh.stats.downgrades.fetch_add(1, Ordering::Relaxed);
    }

    fn end_statement(&mut self) {
        self.forget(|r| r.2 == LockDuration::Statement);
        self.ctx.release_statement_locks();
    }

    fn commit(&mut self) {
        self.forget(|r| r.2 != LockDuration::Explicit);
        self.ctx.release_transactional_locks();
    }

    fn release(&mut self, t: Ticket) {
        self.forget(|r| r.0 == t);
        self.ctx.release(t).unwrap();
    }

    pub(super) fn rollback_all(&mut self) {
        self.commit();
        let explicit: Vec<Ticket> = self.mine.iter().map(|r| r.0).collect();
        for t in explicit {
            if self.mine.iter().any(|r| r.0 == t) {
                self.release(t);
            }
        }
        assert!(!self.ctx.has_locks(), "{:?}", self.ctx);
    }

    pub(super) fn step(&mut self, tables: &[MdlKey], keys: &Keys) -> Result<(), Failed> {
        use LockDuration::*;
        let t1 = tables[self.rng.usize(..tables.len())].clone();
        let t2 = tables[self.rng.usize(..tables.len())].clone();
        match self.rng.usize(..10) {
            // SELECT / DML, one or two tables, then COMMIT.
            0..=3 => {
                let ty = pick(
                    &mut self.rng,
                    &[
                        LockType::S,
                        LockType::SH,
                        LockType::SR,
                        LockType::SW,
                        LockType::SWLP,
                    ],
                );
                if ty >= LockType::SW {
                    self.take(&keys.global, LockType::IX, Statement)?;
                    self.take(&keys.commit, LockType::IX, Explicit)?;
                }
                let d = pick(&mut self.rng, &[Statement, Transaction]);
                self.take(&t1, ty, d)?;
                self.take(&t2, LockType::SR, Transaction)?;
                self.end_statement();
                self.commit();
                let c: Vec<Ticket> = self
                    .mine
                    .iter()
                    .filter(|r| r.1 == keys.commit)
                    .map(|r| r.0)
                    .collect();
                for t in c {
                    self.release(t);
                }
            }
            // ALTER TABLE: SU, upgrade to SNW then X, downgrade X -> SNW -> SU, COMMIT.
            4 | 5 => {
                self.take(&keys.global, LockType::IX, Statement)?;
                self.take(&keys.backup, LockType::IX, Transaction)?;
                self.take(&keys.schema, LockType::IX, Transaction)?;
                let su = self.take(&t1, LockType::SU, Transaction)?;
                if self.rng.usize(..2) == 0 {
                    self.upgrade(su, &t1, LockType::SNW)?;
                }
                self.upgrade(su, &t1, LockType::X)?;
                if self.rng.usize(..2) == 0 {
                    self.downgrade(su, &t1, LockType::SNW);
                    self.downgrade(su, &t1, LockType::SU);
                }
                self.commit();
            }
            // LOCK TABLES t1 READ / WRITE (explicit), UNLOCK TABLES.
            6 => {
                let ty = pick(&mut self.rng, &[LockType::SRO, LockType::SNRW]);
                if ty == LockType::SNRW {
                    self.take(&keys.global, LockType::IX, Explicit)?;
                }
                self.take(&t1, ty, Explicit)?;
                self.rollback_all();
            }
            // FLUSH TABLES WITH READ LOCK.
            7 => {
                self.take(&keys.global, LockType::S, Explicit)?;
                self.take(&keys.commit, LockType::S, Explicit)?;
                self.rollback_all();
            }
            // DROP DATABASE: GLOBAL IX, SCHEMA X, X on tables; or GET_LOCK.
            8 => {
                if self.rng.usize(..2) == 0 {
                    self.take(&keys.global, LockType::IX, Statement)?;
                    self.take(&keys.schema, LockType::X, Transaction)?;
                    self.take(&t1, LockType::X, Transaction)?;
                    self.commit();
                } else {
                    self.take(&keys.user, LockType::X, Explicit)?;
                    self.rollback_all();
                }
            }
            // Savepoint dance with clones.
            _ => {
                let sp = self.ctx.savepoint();
                let t = self.take(&t1, LockType::SNW, Transaction)?;
                let ty = pick(&mut self.rng, &[LockType::SR, LockType::SU, LockType::SRO]);
                let cl = self.ctx.clone_ticket(t, ty, Explicit).unwrap();
                self.record_grant(cl, &t1, ty);
                self.mine.push((cl, t1.clone(), Explicit));
                self.forget(|r| r.0 == t);
                self.ctx.rollback_to_savepoint(sp).unwrap();
                self.release(cl);
            }
        }
        Ok(())
    }
}

fn obj_or_scoped_stronger(key: &MdlKey, held: LockType, want: LockType) -> bool {
    if is_scoped(key.namespace()) {
        held == LockType::X || held == want
    } else {
        obj_stronger_or_equal(held, want)
    }
}

/// The scoped and user-lock names every statement shape uses.
pub(super) struct Keys {
    global: MdlKey,
    commit: MdlKey,
    backup: MdlKey,
    schema: MdlKey,
    user: MdlKey,
}

impl Keys {
    pub(super) fn new() -> Keys {
        Keys {
            global: MdlKey::singleton(Namespace::Global).unwrap(),
            commit: MdlKey::singleton(Namespace::Commit).unwrap(),
            backup: MdlKey::singleton(Namespace::BackupLock).unwrap(),
            schema: MdlKey::new(Namespace::Schema, "db", "").unwrap(),
            user: MdlKey::new(Namespace::UserLevelLock, "", "u").unwrap(),
        }
    }
}
