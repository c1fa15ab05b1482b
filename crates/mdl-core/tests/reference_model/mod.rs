//! A small, single-threaded reference model of MySQL 8.0's MDL grant rules, used as an oracle by
//! `model.rs` and `fuzz_regressions.rs` (and by the fuzz target, which includes this file).
//!
//! Everything here is transcribed from `/work/shared/reference/mysql-mdl.md`, *not* from
//! `crates/mdl-core/src/matrix.rs`:
//!
//! * §5.1–5.3: the granted matrix `G` and the priority matrices `W0..W3` (scoped locks use only
//!   `W0`), written as tables of `+`/`-` strings exactly as printed in the spec;
//! * §5.4: `can_grant` — no pending type with priority, and no *other* context holds a
//!   conflicting type (fast-path and slow-path holders are the same thing here: the model has no
//!   fast path, because a correct fast path is unobservable);
//! * §5.5: hog/piglet counting on every fresh grant and every grant by rescheduling, the matrix
//!   index, the rewind on switch, and the reset rules; a lock with no holder and no waiter left
//!   resets its counters;
//! * §4 / §8: durations, `find_ticket` (own duration first, then the following ones cyclically,
//!   newest first; the *same* ticket is returned when it has the requested non-EXPLICIT
//!   duration, else a clone), clone, upgrade / downgrade keeping the handle, savepoints
//!   (STATEMENT and TRANSACTION tickets taken after the savepoint are released, newest first,
//!   STATEMENT list first), release of any duration.
//!
//! Tickets are numbered globally (`TicketId`), so a test can hand the model tickets of other
//! contexts or already released ones and expect `InvalidTicket`.
//!
//! Waiters ("pending requests") are modelled too: a test that parks a helper thread in
//! `acquire` calls [`Model::enqueue`], and every release reschedules waiters in FIFO order.
#![allow(dead_code)]

use std::collections::BTreeMap;

use mdl_core::{LockDuration, LockType, MdlError, MdlKey, Namespace};

/// Lock type ids in the spec's column order (S, SH, SR, SW, SWLP, SU, SRO, SNW, SNRW, X).
const OBJ_COLS: [LockType; 10] = [
    LockType::Shared,
    LockType::SharedHighPrio,
    LockType::SharedRead,
    LockType::SharedWrite,
    LockType::SharedWriteLowPrio,
    LockType::SharedUpgradable,
    LockType::SharedReadOnly,
    LockType::SharedNoWrite,
    LockType::SharedNoReadWrite,
    LockType::Exclusive,
];
const SCOPED_COLS: [LockType; 3] = [
    LockType::IntentionExclusive,
    LockType::Shared,
    LockType::Exclusive,
];

// §5.2: rows = requested, columns = granted; '-' = incompatible.
const G_OBJ: [&str; 10] = [
    "+++++++++-", // S
    "+++++++++-", // SH
    "++++++++--", // SR
    "++++++----", // SW
    "++++++----", // SWLP
    "+++++-+---", // SU
    "+++--+++--", // SRO
    "+++---+---", // SNW
    "++--------", // SNRW
    "----------", // X
];
// §5.3 W0..W3: rows = requested, columns = pending; '-' = the pending type has priority.
const W_OBJ: [[&str; 10]; 4] = [
    [
        "+++++++++-", // S
        "++++++++++", // SH
        "++++++++--", // SR
        "+++++++---", // SW
        "++++++----", // SWLP
        "+++++++++-", // SU
        "+++-++++--", // SRO
        "+++++++++-", // SNW
        "+++++++++-", // SNRW
        "++++++++++", // X
    ],
    [
        "+++++++++-",
        "++++++++++",
        "++++++++--",
        "++++++----",
        "++++++----",
        "+++++++++-",
        "++++++++--",
        "+++++++++-",
        "+++++++++-",
        "++++++++++",
    ],
    [
        "++++++++++",
        "++++++++++",
        "++++++++++",
        "++++++++++",
        "++++++-+++",
        "++++++++++",
        "+++-++++++",
        "+++---+++-",
        "++-----++-",
        "-------+++",
    ],
    [
        "++++++++++",
        "++++++++++",
        "++++++++++",
        "++++++----",
        "++++++----",
        "++++++++++",
        "++++++++++",
        "+++++-+++-",
        "++-++--++-",
        "---++--+++",
    ],
];
// §5.1 scoped: rows/columns IX, S, X.
const G_SCOPED: [&str; 3] = ["+--", "-+-", "---"];
const W_SCOPED: [&str; 3] = ["+--", "++-", "+++"];

/// Scoped or object namespace (§2, §5.1).
pub fn is_scoped(ns: Namespace) -> bool {
    use Namespace::*;
    matches!(
        ns,
        Global
            | BackupLock
            | Tablespace
            | Schema
            | Commit
            | ResourceGroups
            | ForeignKey
            | CheckConstraint
    )
}

/// Whether `ty` may be requested in `ns`: scoped take IX, S, X; objects everything but IX.
pub fn allowed(ns: Namespace, ty: LockType) -> bool {
    if is_scoped(ns) {
        SCOPED_COLS.contains(&ty)
    } else {
        ty != LockType::IntentionExclusive
    }
}

fn col(cols: &[LockType], ty: LockType) -> Option<usize> {
    cols.iter().position(|&t| t == ty)
}

fn table_minus(table: &[&str], cols: &[LockType], req: LockType, other: LockType) -> bool {
    match (col(cols, req), col(cols, other)) {
        (Some(r), Some(o)) => table[r].as_bytes()[o] == b'-',
        // Types outside a strategy's table have all-zero rows and columns (§5.1, §5.2).
        _ => false,
    }
}

/// A *granted* `granted` lock conflicts with a request of `req` (§5.1, §5.2).
pub fn conflicts(scoped: bool, req: LockType, granted: LockType) -> bool {
    if scoped {
        table_minus(&G_SCOPED, &SCOPED_COLS, req, granted)
    } else {
        table_minus(&G_OBJ, &OBJ_COLS, req, granted)
    }
}

/// A *pending* `pending` request has priority over a request of `req` under matrix `idx`
/// (§5.1, §5.3).
pub fn has_priority(scoped: bool, idx: usize, req: LockType, pending: LockType) -> bool {
    if scoped {
        idx == 0 && table_minus(&W_SCOPED, &SCOPED_COLS, req, pending)
    } else {
        table_minus(&W_OBJ[idx], &OBJ_COLS, req, pending)
    }
}

/// §5.6: `held` satisfies a request for `req` iff everything that conflicts with `req` also
/// conflicts with `held`.
pub fn stronger_or_equal(scoped: bool, held: LockType, req: LockType) -> bool {
    LockType::ALL
        .iter()
        .all(|&o| !conflicts(scoped, req, o) || conflicts(scoped, held, o))
}

fn is_hog(ty: LockType) -> bool {
    matches!(
        ty,
        LockType::SharedNoWrite | LockType::SharedNoReadWrite | LockType::Exclusive
    )
}

/// Global ticket number in the model.
pub type TicketId = usize;
/// A context number in the model (an index the test chooses).
pub type Ctx = usize;

#[derive(Debug, Clone)]
pub struct ModelTicket {
    pub ctx: Ctx,
    pub key: MdlKey,
    pub ty: LockType,
    pub duration: LockDuration,
    /// Creation order within the context (what savepoints compare).
    pub seq: u64,
    pub live: bool,
}

#[derive(Debug, Clone)]
pub struct Waiter {
    pub ctx: Ctx,
    pub ty: LockType,
    /// The ticket the waiter will own once granted.
    pub ticket: TicketId,
}

#[derive(Debug, Default, Clone)]
struct LockModel {
    /// Granted tickets (ids) in any order.
    granted: Vec<TicketId>,
    /// FIFO of pending requests.
    waiting: Vec<Waiter>,
    hog: u64,
    piglet: u64,
    idx: usize,
}

/// Outcome of [`Model::try_acquire`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquired {
    /// An existing ticket of the same duration satisfies the request.
    Same(TicketId),
    /// A new ticket (fresh grant or clone).
    New(TicketId),
    /// Conflict.
    NotGranted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Savepoint {
    pub ctx: Ctx,
    pub seq: u64,
}

#[derive(Debug)]
pub struct Model {
    pub max_write_lock_count: u64,
    pub tickets: Vec<ModelTicket>,
    locks: BTreeMap<Vec<u8>, LockModel>,
    next_seq: Vec<u64>,
    /// Tickets granted to waiters by rescheduling since the last call of
    /// [`Model::take_granted_waiters`].
    granted_waiters: Vec<TicketId>,
    /// Coverage counters: priority-matrix switches, grants by rescheduling, reused tickets.
    pub stats: Stats,
}

/// What a run of the model exercised.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    pub matrix_switches: u64,
    pub rescheduled_grants: u64,
    pub same_ticket: u64,
    pub refused: u64,
}

impl Model {
    pub fn new(contexts: usize, max_write_lock_count: u64) -> Model {
        Model {
            max_write_lock_count,
            tickets: Vec::new(),
            locks: BTreeMap::new(),
            next_seq: vec![1; contexts],
            granted_waiters: Vec::new(),
            stats: Stats::default(),
        }
    }

    fn lock(&mut self, key: &MdlKey) -> &mut LockModel {
        self.locks.entry(key.as_bytes().to_vec()).or_default()
    }

    fn new_ticket(&mut self, ctx: Ctx, key: &MdlKey, ty: LockType, d: LockDuration) -> TicketId {
        let seq = self.next_seq[ctx];
        self.next_seq[ctx] += 1;
        self.tickets.push(ModelTicket {
            ctx,
            key: key.clone(),
            ty,
            duration: d,
            seq,
            live: true,
        });
        self.tickets.len() - 1
    }

    /// Live tickets of `ctx`.
    pub fn live(&self, ctx: Ctx) -> Vec<TicketId> {
        (0..self.tickets.len())
            .filter(|&t| self.tickets[t].live && self.tickets[t].ctx == ctx)
            .collect()
    }

    fn check(&self, ctx: Ctx, t: TicketId) -> Result<(), MdlError> {
        match self.tickets.get(t) {
            Some(x) if x.live && x.ctx == ctx => Ok(()),
            _ => Err(MdlError::InvalidTicket),
        }
    }

    /// §5.4 `can_grant_lock` for `ctx` requesting `ty` on `key`.
    fn can_grant(&self, key: &MdlKey, ctx: Ctx, ty: LockType) -> bool {
        let scoped = is_scoped(key.namespace());
        let Some(l) = self.locks.get(key.as_bytes()) else {
            return true;
        };
        if l.waiting
            .iter()
            .any(|w| has_priority(scoped, l.idx, ty, w.ty))
        {
            return false;
        }
        l.granted.iter().all(|&g| {
            let g = &self.tickets[g];
            g.ctx == ctx || !conflicts(scoped, ty, g.ty)
        })
    }

    fn hog_affected(key: &MdlKey) -> bool {
        !is_scoped(key.namespace()) && key.namespace() != Namespace::AclCache
    }

    /// §5.5 `count_piglets_and_hogs`; returns whether the matrix index changed.
    fn count(&mut self, key: &MdlKey, ty: LockType) -> bool {
        if !Self::hog_affected(key) {
            return false;
        }
        let max = self.max_write_lock_count;
        let l = self.lock(key);
        if is_hog(ty) {
            if l.waiting.iter().any(|w| !is_hog(w.ty)) {
                l.hog += 1;
            }
        } else if ty == LockType::SharedWrite
            && l.waiting.iter().any(|w| w.ty == LockType::SharedReadOnly)
        {
            l.piglet += 1;
        }
        let idx = usize::from(l.piglet >= max) + 2 * usize::from(l.hog >= max);
        let changed = idx != l.idx;
        l.idx = idx;
        if changed {
            self.stats.matrix_switches += 1;
        }
        changed
    }

    /// §10.3 `reschedule_waiters` + §5.5 reset rules.
    fn reschedule(&mut self, key: &MdlKey) {
        let mut i = 0;
        loop {
            let n = self.lock(key).waiting.len();
            if i >= n {
                break;
            }
            let w = self.lock(key).waiting[i].clone();
            if self.can_grant(key, w.ctx, w.ty) {
                self.lock(key).waiting.remove(i);
                self.lock(key).granted.push(w.ticket);
                self.tickets[w.ticket].live = true;
                self.granted_waiters.push(w.ticket);
                self.stats.rescheduled_grants += 1;
                if self.count(key, w.ty) {
                    i = 0;
                }
            } else {
                i += 1;
            }
        }
        let l = self.lock(key);
        let pending: Vec<LockType> = l.waiting.iter().map(|w| w.ty).collect();
        let only = |allowed: &dyn Fn(LockType) -> bool| pending.iter().all(|&t| allowed(t));
        if l.idx == 3 {
            if only(&|t| {
                is_hog(t) || t == LockType::SharedWrite || t == LockType::SharedWriteLowPrio
            }) {
                l.hog = 0;
                l.piglet = 0;
                l.idx = 0;
            }
        } else {
            if only(&is_hog) {
                l.hog = 0;
                l.idx &= !2;
            }
            if !pending.contains(&LockType::SharedReadOnly) {
                l.piglet = 0;
                l.idx &= !1;
            }
        }
    }

    /// Takes a hold off its lock and reschedules (§10.2).
    fn drop_hold(&mut self, t: TicketId) {
        let key = self.tickets[t].key.clone();
        let l = self.lock(&key);
        let p = l.granted.iter().position(|&g| g == t).expect("held");
        l.granted.remove(p);
        if l.granted.is_empty() && l.waiting.is_empty() {
            l.hog = 0;
            l.piglet = 0;
            l.idx = 0;
        } else {
            self.reschedule(&key);
        }
    }

    fn release_ticket(&mut self, t: TicketId) {
        self.tickets[t].live = false;
        self.drop_hold(t);
    }

    /// §8.2 `find_ticket`: own duration first, then the following ones cyclically, newest first.
    fn find(&self, ctx: Ctx, key: &MdlKey, ty: LockType, d: LockDuration) -> Option<TicketId> {
        let scoped = is_scoped(key.namespace());
        for i in 0..3 {
            let dur = LockDuration::ALL[(d as usize + i) % 3];
            let best = self
                .live(ctx)
                .into_iter()
                .filter(|&t| {
                    let x = &self.tickets[t];
                    x.duration == dur && x.key == *key && stronger_or_equal(scoped, x.ty, ty)
                })
                .max_by_key(|&t| self.tickets[t].seq);
            if best.is_some() {
                return best;
            }
        }
        None
    }

    fn add_granted(&mut self, ctx: Ctx, key: &MdlKey, ty: LockType, d: LockDuration) -> TicketId {
        let t = self.new_ticket(ctx, key, ty, d);
        self.lock(key).granted.push(t);
        t
    }

    /// §8.3 `try_acquire_lock`.
    pub fn try_acquire(
        &mut self,
        ctx: Ctx,
        key: &MdlKey,
        ty: LockType,
        d: LockDuration,
    ) -> Result<Acquired, MdlError> {
        let ns = key.namespace();
        if !allowed(ns, ty) {
            return Err(MdlError::InvalidLockType {
                namespace: ns,
                lock_type: ty,
            });
        }
        if let Some(found) = self.find(ctx, key, ty, d) {
            if self.tickets[found].duration == d && d != LockDuration::Explicit {
                self.stats.same_ticket += 1;
                return Ok(Acquired::Same(found));
            }
            return Ok(Acquired::New(self.add_granted(ctx, key, ty, d)));
        }
        if !self.can_grant(key, ctx, ty) {
            self.stats.refused += 1;
            return Ok(Acquired::NotGranted);
        }
        let t = self.add_granted(ctx, key, ty, d);
        if self.count(key, ty) {
            self.reschedule(key);
        }
        Ok(Acquired::New(t))
    }

    /// Whether a request that cannot be granted now would wait (for the helpers of a test):
    /// the same as `try_acquire` returning `NotGranted`, without side effects.
    pub fn would_grant(&self, ctx: Ctx, key: &MdlKey, ty: LockType) -> bool {
        self.can_grant(key, ctx, ty)
    }

    /// Queues a request that [`Model::would_grant`] refused (a helper blocked in `acquire`).
    /// Returns the ticket it will own.
    pub fn enqueue(&mut self, ctx: Ctx, key: &MdlKey, ty: LockType, d: LockDuration) -> TicketId {
        let t = self.new_ticket(ctx, key, ty, d);
        self.tickets[t].live = false;
        self.lock(key).waiting.push(Waiter { ctx, ty, ticket: t });
        t
    }

    /// A pending request gives up (timeout, kill): off the queue, reschedule.
    pub fn dequeue(&mut self, t: TicketId) {
        let key = self.tickets[t].key.clone();
        let l = self.lock(&key);
        let p = l
            .waiting
            .iter()
            .position(|w| w.ticket == t)
            .expect("pending");
        l.waiting.remove(p);
        if l.granted.is_empty() && l.waiting.is_empty() {
            l.hog = 0;
            l.piglet = 0;
            l.idx = 0;
        } else {
            self.reschedule(&key);
        }
    }

    /// Whether ticket `t` (of a queued request) is still pending.
    pub fn is_pending(&self, t: TicketId) -> bool {
        let key = &self.tickets[t].key;
        self.locks
            .get(key.as_bytes())
            .is_some_and(|l| l.waiting.iter().any(|w| w.ticket == t))
    }

    pub fn take_granted_waiters(&mut self) -> Vec<TicketId> {
        std::mem::take(&mut self.granted_waiters)
    }

    pub fn release(&mut self, ctx: Ctx, t: TicketId) -> Result<(), MdlError> {
        self.check(ctx, t)?;
        self.release_ticket(t);
        Ok(())
    }

    /// `release_all_locks_for_name`: every EXPLICIT ticket of `ctx` on the same key, plus `t`.
    pub fn release_all_for_name(&mut self, ctx: Ctx, t: TicketId) -> Result<(), MdlError> {
        self.check(ctx, t)?;
        let key = self.tickets[t].key.clone();
        let mut list: Vec<TicketId> = self
            .live(ctx)
            .into_iter()
            .filter(|&x| {
                self.tickets[x].duration == LockDuration::Explicit && self.tickets[x].key == key
            })
            .collect();
        list.sort_by_key(|&x| std::cmp::Reverse(self.tickets[x].seq));
        for x in list {
            self.release_ticket(x);
        }
        if self.tickets[t].live {
            self.release_ticket(t);
        }
        Ok(())
    }

    /// §8.7 clone: equal or weaker type, own duration, never waits.
    pub fn clone_ticket(
        &mut self,
        ctx: Ctx,
        t: TicketId,
        ty: LockType,
        d: LockDuration,
    ) -> Result<TicketId, MdlError> {
        self.check(ctx, t)?;
        let key = self.tickets[t].key.clone();
        let held = self.tickets[t].ty;
        let ns = key.namespace();
        if !allowed(ns, ty) {
            return Err(MdlError::InvalidLockType {
                namespace: ns,
                lock_type: ty,
            });
        }
        if !stronger_or_equal(is_scoped(ns), held, ty) {
            return Err(MdlError::InvalidLockChange {
                held,
                requested: ty,
            });
        }
        Ok(self.add_granted(ctx, &key, ty, d))
    }

    /// §8.8 upgrade with a zero timeout: `Err(Timeout)` when it would have to wait. The ticket
    /// keeps its id, duration and savepoint position.
    pub fn try_upgrade(&mut self, ctx: Ctx, t: TicketId, ty: LockType) -> Result<(), MdlError> {
        self.check(ctx, t)?;
        let key = self.tickets[t].key.clone();
        let ns = key.namespace();
        if !allowed(ns, ty) {
            return Err(MdlError::InvalidLockType {
                namespace: ns,
                lock_type: ty,
            });
        }
        if stronger_or_equal(is_scoped(ns), self.tickets[t].ty, ty) {
            return Ok(());
        }
        // The new hold is taken as a TRANSACTION request (it may reuse another own ticket).
        let new = match self.try_acquire(ctx, &key, ty, LockDuration::Transaction)? {
            Acquired::NotGranted => return Err(MdlError::Timeout),
            Acquired::Same(_) => self.add_granted(ctx, &key, ty, LockDuration::Transaction),
            Acquired::New(n) => n,
        };
        self.swap_hold(t, new);
        Ok(())
    }

    /// `t` takes over `new`'s hold (and type); `t`'s old hold is released.
    fn swap_hold(&mut self, t: TicketId, new: TicketId) {
        // `new` disappears as a ticket; its hold becomes `t`'s. Model it by giving `t` the new
        // type and releasing one hold of the old type: swap the ids in the granted list.
        let key = self.tickets[t].key.clone();
        let new_ty = self.tickets[new].ty;
        let old_ty = self.tickets[t].ty;
        self.tickets[new].live = false;
        // `new` keeps the old type and is released; `t` gets the new type and `new`'s hold.
        self.tickets[new].ty = old_ty;
        self.tickets[t].ty = new_ty;
        let l = self.lock(&key);
        // Nothing to swap in the granted list: both ids are in it; release `new` (now old type).
        let _ = l;
        self.drop_hold(new);
    }

    /// §8.9 downgrade (this implementation: an error when `ty` is not weaker).
    pub fn downgrade(&mut self, ctx: Ctx, t: TicketId, ty: LockType) -> Result<(), MdlError> {
        self.check(ctx, t)?;
        let key = self.tickets[t].key.clone();
        let held = self.tickets[t].ty;
        let ns = key.namespace();
        if held == ty {
            return Ok(());
        }
        if !stronger_or_equal(is_scoped(ns), held, ty) {
            return Err(MdlError::InvalidLockChange {
                held,
                requested: ty,
            });
        }
        let d = self.tickets[t].duration;
        let new = self.clone_ticket(ctx, t, ty, d)?;
        self.swap_hold(t, new);
        Ok(())
    }

    pub fn savepoint(&self, ctx: Ctx) -> Savepoint {
        Savepoint {
            ctx,
            seq: self.next_seq[ctx],
        }
    }

    fn release_newer(&mut self, ctx: Ctx, d: LockDuration, seq: u64) {
        let mut list: Vec<TicketId> = self
            .live(ctx)
            .into_iter()
            .filter(|&t| self.tickets[t].duration == d && self.tickets[t].seq >= seq)
            .collect();
        list.sort_by_key(|&t| std::cmp::Reverse(self.tickets[t].seq));
        for t in list {
            self.release_ticket(t);
        }
    }

    pub fn rollback_to_savepoint(&mut self, ctx: Ctx, sp: Savepoint) -> Result<(), MdlError> {
        if sp.ctx != ctx {
            return Err(MdlError::InvalidSavepoint);
        }
        self.release_newer(ctx, LockDuration::Statement, sp.seq);
        self.release_newer(ctx, LockDuration::Transaction, sp.seq);
        Ok(())
    }

    /// `has_lock(sp, t)`: survives a rollback to `sp`.
    pub fn has_lock(&self, ctx: Ctx, sp: Savepoint, t: TicketId) -> Result<bool, MdlError> {
        if sp.ctx != ctx {
            return Err(MdlError::InvalidSavepoint);
        }
        self.check(ctx, t)?;
        let x = &self.tickets[t];
        Ok(x.duration == LockDuration::Explicit || x.seq < sp.seq)
    }

    pub fn release_statement_locks(&mut self, ctx: Ctx) {
        self.release_newer(ctx, LockDuration::Statement, 0);
    }

    pub fn release_transactional_locks(&mut self, ctx: Ctx) {
        self.release_newer(ctx, LockDuration::Statement, 0);
        self.release_newer(ctx, LockDuration::Transaction, 0);
    }

    /// `set_lock_duration`: the ticket moves to `d` and counts as the newest.
    pub fn set_lock_duration(
        &mut self,
        ctx: Ctx,
        t: TicketId,
        d: LockDuration,
    ) -> Result<(), MdlError> {
        self.check(ctx, t)?;
        let seq = self.next_seq[ctx];
        self.next_seq[ctx] += 1;
        self.tickets[t].duration = d;
        self.tickets[t].seq = seq;
        Ok(())
    }

    pub fn owns_equal_or_stronger(&self, ctx: Ctx, key: &MdlKey, ty: LockType) -> bool {
        self.find(ctx, key, ty, LockDuration::Transaction).is_some()
    }

    /// Drops a context: every ticket released (in ticket order; the order is irrelevant when no
    /// waiter is queued, which is how tests use it).
    pub fn drop_context(&mut self, ctx: Ctx) {
        for t in self.live(ctx) {
            self.release_ticket(t);
        }
    }

    /// Every live ticket as (ctx, key bytes, type, duration), sorted.
    pub fn held(&self) -> Vec<(Ctx, Vec<u8>, LockType, LockDuration)> {
        let mut v: Vec<_> = self
            .tickets
            .iter()
            .filter(|t| t.live)
            .map(|t| (t.ctx, t.key.as_bytes().to_vec(), t.ty, t.duration))
            .collect();
        v.sort();
        v
    }
}

pub mod driver;
