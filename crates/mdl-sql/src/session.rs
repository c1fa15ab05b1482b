//! The lock side of a MySQL session: plans applied to an [`MdlContext`].
//!
//! A [`Session`] owns its connection's context (one session per task or thread, as MySQL has
//! one `THD` per connection) and the state the rules read ([`SessionState`]). A statement goes:
//!
//! 1. [`Session::plan`]: the rules; errors decided before any lock.
//! 2. [`Session::execute`]: the implicit commit before (if the plan says so), the plan's
//!    requests in order with the session's `lock_wait_timeout` (`acquire_async`), the session
//!    effects (LOCK TABLES, the global read lock, the backup lock, BEGIN / COMMIT / ROLLBACK,
//!    savepoints) and the user-level lock calls. It returns a [`StatementGuard`].
//! 3. The server runs the statement; ALTER TABLE calls [`StatementGuard::upgrade`] before it
//!    changes the definition.
//! 4. [`StatementGuard::finish`] ends a statement that succeeded: it releases the STATEMENT
//!    locks, or commits (COMMIT IX first for a read-write transaction, then every STATEMENT and
//!    TRANSACTION lock) when MySQL would: an implicit commit after DDL, or the end of a
//!    statement under autocommit outside BEGIN (`mysql_execute_command`'s end: "If in
//!    autocommit mode ... automatically release metadata locks of the current statement").
//!    A guard dropped without `finish` (an error, `?`, a dropped future) ends the statement as
//!    failed: the locks it took for itself are released (a rollback to the savepoint taken when
//!    it started, as `Open_table_context` does when it backs off), EXPLICIT locks it took that
//!    did not become session state are released, and an autocommit statement's transaction
//!    ends. The session's earlier locks stay, as MySQL keeps them.
//!
//! A commit of a read-write transaction takes COMMIT IX (EXPLICIT) and releases it after the
//! commit (`ha_commit_trans`), so a session holding FLUSH TABLES WITH READ LOCK (COMMIT S)
//! blocks commits. If it cannot be taken (timeout, kill, deadlock), MySQL rolls the
//! transaction back (`ha_rollback_trans`) and so does this session: the error says the
//! transaction is gone, and its locks are released. Where the engine commits:
//!
//! * `COMMIT`: [`Session::execute`] takes COMMIT IX and the guard holds it while the server
//!   commits the engine; [`StatementGuard::finish`] releases it, then the transaction's locks.
//! * an implicit commit before a statement (`plan.commits_before`, an open transaction): the
//!   server commits the engine inside [`Session::begin_commit`] / [`CommitGuard::finish`]
//!   before `execute` (which otherwise commits the locks itself).
//! * the end of an autocommit statement or of DDL: the engine committed while the statement
//!   ran, under the statement's GLOBAL IX, which keeps FLUSH TABLES WITH READ LOCK out just as
//!   well; `finish` takes and releases COMMIT IX as MySQL's commit does.

use std::collections::HashMap;
use std::time::Duration;

use mdl_core::{
    ErrorKind, LockDuration, LockType, MdlContext, MdlKey, MdlRequest, MdlSavepoint, Namespace,
    Ticket,
};

use crate::error::SqlError;
use crate::names::scoped;
use crate::parse::Parsed;
use crate::plan::{plan, Effect, Plan, SessionState, StatementKind, Upgrade};
use crate::user_lock::{UserLockCall, UserLockFunction, UserLockValue};

/// A connection's locks and lock-related state. See the module docs.
#[derive(Debug)]
pub struct Session {
    ctx: MdlContext,
    state: SessionState,
    /// LOCK TABLES' tickets (EXPLICIT), with their keys.
    locked: Vec<(MdlKey, Ticket)>,
    /// The global read lock: GLOBAL S, COMMIT S.
    global_read_lock: Vec<Ticket>,
    /// LOCK INSTANCE FOR BACKUP's tickets.
    backup: Vec<Ticket>,
    /// User-level locks: ticket and reference count (`thd->ull_hash`).
    user_locks: HashMap<MdlKey, (Ticket, u32)>,
    savepoints: Vec<(String, MdlSavepoint)>,
}

impl Session {
    /// A session on `ctx`, with no current schema and autocommit on.
    pub fn new(ctx: MdlContext) -> Session {
        Session {
            ctx,
            state: SessionState::default(),
            locked: Vec::new(),
            global_read_lock: Vec::new(),
            backup: Vec::new(),
            user_locks: HashMap::new(),
            savepoints: Vec::new(),
        }
    }

    /// What the rules see.
    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// Sets the current schema (a handshake's database, or `USE`).
    pub fn set_current_schema(&mut self, schema: Option<String>) {
        self.state.current_schema = schema;
    }

    /// The context.
    pub fn context(&self) -> &MdlContext {
        &self.ctx
    }

    /// The context, for what this type does not wrap (labels, kill handles, diagnostics).
    /// Locks taken or released through it directly are not known to the session.
    pub fn context_mut(&mut self) -> &mut MdlContext {
        &mut self.ctx
    }

    /// The session's `lock_wait_timeout`: the timeout of every wait but GET_LOCK's.
    pub fn lock_wait_timeout(&self) -> Duration {
        self.ctx.lock_wait_timeout()
    }

    /// Sets `lock_wait_timeout` (also `SET lock_wait_timeout = n`).
    pub fn set_lock_wait_timeout(&mut self, timeout: Duration) {
        self.ctx.set_lock_wait_timeout(timeout);
    }

    /// The plan of `parsed` in this session's state ([`crate::plan`]).
    ///
    /// # Errors
    /// The errors MySQL raises before any lock.
    pub fn plan(&self, parsed: &Parsed) -> Result<Plan, SqlError> {
        plan(parsed, &self.state)
    }

    /// Starts a statement: see the module docs. The locks are the plan's; what the statement
    /// changes in the session is applied now, except `USE`, `SET` and the effects of DROP, which
    /// apply when the statement [finishes](StatementGuard::finish).
    ///
    /// # Errors
    /// 1205 (lock wait timeout), 1213 (deadlock), 1317 (killed), 3058 (GET_LOCK's deadlock),
    /// 1305 (no such savepoint), the errors of an implicit commit. Nothing the statement took
    /// for itself is left behind. A DML statement that is a deadlock victim starts over if it
    /// held no lock before; otherwise its 1213 means MySQL rolled the transaction back, and so
    /// has the session (`state().in_transaction` is false): the server rolls back its engine.
    pub async fn execute(&mut self, plan: &Plan) -> Result<StatementGuard<'_>, SqlError> {
        if plan.commits_before {
            if matches!(plan.effect, Effect::Begin { .. } | Effect::LockTables(_)) {
                self.leave_lock_tables();
            }
            self.commit().await?;
        }
        let mut g = StatementGuard {
            start: self.ctx.savepoint(),
            session: self,
            explicit: Vec::new(),
            tickets: Vec::new(),
            upgrades: plan.upgrades.clone(),
            upgraded: false,
            values: Vec::new(),
            commit: None,
            deferred: None,
            done: false,
        };
        g.acquire(plan).await?;
        if let Effect::Commit { .. } = plan.effect {
            // COMMIT IX is held while the engine commits, until `finish`.
            g.commit = g.session.commit_lock().await?;
        }
        g.apply_effect(plan)?;
        for call in &plan.user_locks {
            let v = g.session.user_lock(call).await?;
            g.values.push(v);
        }
        g.deferred = Some(plan.clone());
        Ok(g)
    }

    /// Starts a commit: COMMIT IX (EXPLICIT) if the transaction is read-write, waiting as long
    /// as the session's `lock_wait_timeout`. The engine commits while the returned guard lives;
    /// dropping it (or [`CommitGuard::finish`]) releases COMMIT IX and then every STATEMENT and
    /// TRANSACTION lock, and the transaction is over. A server whose engine has a transaction
    /// open when a statement commits implicitly (`plan.commits_before`) commits it this way
    /// before [`Session::execute`], so the commit happens under COMMIT IX as in MySQL.
    ///
    /// # Errors
    /// The errors of the COMMIT IX wait; the transaction is then rolled back (its locks
    /// released), as `ha_commit_trans` does.
    pub async fn begin_commit(&mut self) -> Result<CommitGuard<'_>, SqlError> {
        let ticket = self.commit_lock().await?;
        Ok(CommitGuard {
            session: self,
            ticket,
        })
    }

    /// COMMIT without an engine: [`Session::begin_commit`] and its end at once.
    ///
    /// # Errors
    /// As [`Session::begin_commit`].
    pub async fn commit(&mut self) -> Result<(), SqlError> {
        self.begin_commit().await?.finish();
        Ok(())
    }

    /// COMMIT IX for a read-write transaction; on failure the transaction is rolled back.
    async fn commit_lock(&mut self) -> Result<Option<Ticket>, SqlError> {
        if !self.state.wrote {
            return Ok(None);
        }
        let req = scoped(Namespace::Commit, LockType::IX, LockDuration::Explicit);
        let timeout = self.ctx.lock_wait_timeout();
        match self.ctx.acquire_async(&req, timeout).await {
            Ok(t) => Ok(Some(t)),
            Err(e) => {
                self.end_transaction();
                Err(e.into())
            }
        }
    }

    /// ROLLBACK: every STATEMENT and TRANSACTION lock released.
    pub fn rollback(&mut self) {
        self.end_transaction();
    }

    fn end_transaction(&mut self) {
        self.ctx.release_transactional_locks();
        self.state.in_transaction = false;
        self.state.read_only = false;
        self.state.wrote = false;
        self.savepoints.clear();
    }

    /// Leaves LOCK TABLES mode: its locks go (`unlock_locked_tables`).
    fn leave_lock_tables(&mut self) {
        for (_, t) in self.locked.drain(..) {
            let _ = self.ctx.release(t);
        }
        self.state.locked_tables = None;
    }

    /// One user-level lock call (see `user_lock.rs`).
    async fn user_lock(&mut self, call: &UserLockCall) -> Result<UserLockValue, SqlError> {
        let Some(key) = &call.key else {
            // RELEASE_ALL_LOCKS()
            let mut n = 0;
            for (_, (t, refs)) in self.user_locks.drain() {
                let _ = self.ctx.release(t);
                n += i64::from(refs);
            }
            return Ok(Some(n));
        };
        let mgr = self.ctx.manager().clone();
        let owner = || mgr.find_lock_owner(key);
        Ok(match call.function {
            UserLockFunction::GetLock => {
                if let Some((_, refs)) = self.user_locks.get_mut(key) {
                    *refs += 1;
                    return Ok(Some(1));
                }
                let req = MdlRequest::new(key.clone(), LockType::X, LockDuration::Explicit);
                match self.ctx.acquire_async(&req, call.timeout).await {
                    Ok(t) => {
                        self.user_locks.insert(key.clone(), (t, 1));
                        Some(1)
                    }
                    Err(e) if e.kind() == ErrorKind::Timeout => Some(0),
                    Err(e) if e.kind() == ErrorKind::Deadlock => {
                        return Err(SqlError::user_lock_deadlock(e))
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            UserLockFunction::ReleaseLock => match self.user_locks.get_mut(key) {
                Some((t, refs)) => {
                    *refs -= 1;
                    if *refs == 0 {
                        let t = *t;
                        self.user_locks.remove(key);
                        self.ctx.release(t)?;
                    }
                    Some(1)
                }
                None => owner().map(|_| 0),
            },
            UserLockFunction::IsFreeLock => Some(i64::from(owner().is_none())),
            UserLockFunction::IsUsedLock => owner().map(|c| c.as_u64() as i64),
            UserLockFunction::ReleaseAllLocks => unreachable!("RELEASE_ALL_LOCKS has no key"),
        })
    }

    /// The user-level locks this session holds, with their reference counts.
    pub fn user_locks(&self) -> Vec<(String, u32)> {
        let mut v: Vec<_> = self
            .user_locks
            .iter()
            .map(|(k, (_, refs))| (k.name().to_string(), *refs))
            .collect();
        v.sort();
        v
    }
}

/// A commit in progress: COMMIT IX is held (for a read-write transaction) while the engine
/// commits. Dropping it ends the transaction either way (committed, or rolled back after a
/// failed engine commit): COMMIT IX goes, then every STATEMENT and TRANSACTION lock.
#[must_use = "the transaction ends when the commit guard drops"]
#[derive(Debug)]
pub struct CommitGuard<'a> {
    session: &'a mut Session,
    ticket: Option<Ticket>,
}

impl CommitGuard<'_> {
    /// Whether COMMIT IX is held (the transaction changed data).
    pub fn holds_commit_lock(&self) -> bool {
        self.ticket.is_some()
    }

    /// Ends the transaction (the same as dropping the guard).
    pub fn finish(self) {}
}

impl Drop for CommitGuard<'_> {
    fn drop(&mut self) {
        if let Some(t) = self.ticket.take() {
            let _ = self.session.ctx.release(t);
        }
        self.session.end_transaction();
    }
}

/// A running statement (see [`Session::execute`]). Dropping it without
/// [`finish`](StatementGuard::finish) ends the statement as failed.
#[must_use = "a statement guard dropped at once ends the statement as failed"]
#[derive(Debug)]
pub struct StatementGuard<'a> {
    session: &'a mut Session,
    /// Where the statement started, for the failure path.
    start: MdlSavepoint,
    /// EXPLICIT tickets taken and not yet handed to session state.
    explicit: Vec<Ticket>,
    tickets: Vec<(MdlKey, Ticket)>,
    upgrades: Vec<Upgrade>,
    upgraded: bool,
    values: Vec<UserLockValue>,
    /// A COMMIT statement's COMMIT IX.
    commit: Option<Ticket>,
    deferred: Option<Plan>,
    done: bool,
}

impl StatementGuard<'_> {
    /// The values of the statement's user-level lock calls, in the plan's order (`None` is
    /// NULL).
    pub fn user_lock_values(&self) -> &[UserLockValue] {
        &self.values
    }

    /// The session.
    pub fn session(&self) -> &Session {
        self.session
    }

    /// Performs the plan's upgrade steps (ALTER TABLE's SU -> X; DDL under LOCK TABLES:
    /// SNRW -> X), each waiting up to the session's `lock_wait_timeout`. Does nothing the
    /// second time, or for a plan without upgrades.
    ///
    /// # Errors
    /// 1205, 1213, 1317; the lock held before stays as it was.
    pub async fn upgrade(&mut self) -> Result<(), SqlError> {
        if self.upgraded {
            return Ok(());
        }
        let timeout = self.session.ctx.lock_wait_timeout();
        for u in self.upgrades.clone() {
            let ticket = self.ticket_of(&u.key, u.from)?;
            self.session
                .ctx
                .upgrade_async(ticket, u.to, timeout)
                .await?;
        }
        self.upgraded = true;
        Ok(())
    }

    /// Takes the plan's requests in order. A DML statement chosen as a deadlock victim backs
    /// off and starts over when it held no lock before it started, and otherwise fails with
    /// 1213 and its transaction is rolled back (`sql/sql_base.cc`,
    /// `Open_table_context::request_backoff_action`: `OT_BACKOFF_AND_RETRY` unless `m_has_locks`,
    /// then `ER_LOCK_DEADLOCK` and `mark_transaction_to_rollback`; `recover_from_failed_open`
    /// retries). While it can back off, its GLOBAL IX waits weigh as DML in the deadlock search
    /// (`open_table`: `set_force_dml_deadlock_weight(ot_ctx->can_back_off())`). DDL takes its
    /// locks in one `acquire_locks` call without either (`lock_table_names`).
    async fn acquire(&mut self, plan: &Plan) -> Result<(), SqlError> {
        let dml = opens_tables_for_dml(plan.kind);
        let ctx = &mut self.session.ctx;
        ctx.set_force_dml_deadlock_weight(false);
        let can_back_off = dml && !ctx.has_locks();
        let timeout = ctx.lock_wait_timeout();
        let mut retries = 0;
        'again: loop {
            for r in &plan.requests {
                let ctx = &mut self.session.ctx;
                let force = can_back_off && r.key.namespace() == Namespace::Global;
                ctx.set_force_dml_deadlock_weight(force);
                let got = ctx.acquire_async(r, timeout).await;
                ctx.set_force_dml_deadlock_weight(false);
                match got {
                    Ok(t) => {
                        if r.duration == LockDuration::Explicit {
                            self.explicit.push(t);
                        }
                        self.tickets.push((r.key.clone(), t));
                    }
                    Err(e) if dml && e.kind() == ErrorKind::Deadlock => {
                        if can_back_off && retries < MAX_BACK_OFFS {
                            retries += 1;
                            self.tickets.clear();
                            self.session.ctx.rollback_to_savepoint(self.start)?;
                            continue 'again;
                        }
                        self.session.end_transaction();
                        return Err(e.into());
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            return Ok(());
        }
    }

    /// The statement's (or LOCK TABLES') ticket on `key` holding `ty`.
    fn ticket_of(&self, key: &MdlKey, ty: LockType) -> Result<Ticket, SqlError> {
        let ctx = &self.session.ctx;
        self.tickets
            .iter()
            .chain(self.session.locked.iter())
            .filter(|(k, _)| k == key)
            .map(|&(_, t)| t)
            .find(|&t| ctx.ticket_info(t).is_ok_and(|i| i.lock_type >= ty))
            .ok_or_else(|| SqlError::table_not_locked(key.name()))
    }

    /// Ends a statement that succeeded: the effects that wait for success (`USE`, `SET`, DROP
    /// DATABASE's current schema, DROP TABLE under LOCK TABLES), the downgrades after DDL under
    /// LOCK TABLES, then the end of the statement (see the module docs).
    ///
    /// # Errors
    /// Those of [`Session::commit`] when the statement ends a transaction.
    pub async fn finish(mut self) -> Result<(), SqlError> {
        self.done = true;
        let plan = self.deferred.take().expect("set by execute");
        let s = &mut *self.session;
        match &plan.effect {
            Effect::Commit { chain } => {
                if let Some(t) = self.commit.take() {
                    s.ctx.release(t)?;
                }
                s.end_transaction();
                s.state.in_transaction = *chain;
            }
            Effect::Use(schema) => s.state.current_schema = Some(schema.clone()),
            Effect::Set {
                autocommit,
                lock_wait_timeout,
            } => {
                if let Some(t) = lock_wait_timeout {
                    s.ctx.set_lock_wait_timeout(*t);
                }
                if let Some(a) = autocommit {
                    if *a && !s.state.autocommit {
                        s.state.in_transaction = false;
                    }
                    s.state.autocommit = *a;
                }
            }
            Effect::DropSchema(name) if s.state.current_schema.as_deref() == Some(name) => {
                s.state.current_schema = None;
            }
            Effect::DropLockedTables(names) => {
                let keys: Vec<MdlKey> = names.iter().filter_map(|n| n.key().ok()).collect();
                s.locked.retain(|(k, t)| {
                    let drop = keys.contains(k);
                    if drop {
                        let _ = s.ctx.release(*t);
                    }
                    !drop
                });
                if let Some(l) = &mut s.state.locked_tables {
                    l.retain(|t| !names.contains(&t.table));
                }
            }
            _ => {}
        }
        if self.upgraded {
            for u in &self.upgrades {
                if let Some(to) = u.downgrade_to {
                    if let Ok(t) = self.ticket_of(&u.key, u.to) {
                        let _ = self.session.ctx.downgrade(t, to);
                    }
                }
            }
        }
        let s = &mut *self.session;
        if plan.writes {
            s.state.wrote = true;
        }
        if !s.state.autocommit && starts_transaction(plan.kind) {
            s.state.in_transaction = true;
        }
        if plan.commits_after || !s.state.in_multi_statement_mode() {
            s.commit().await
        } else {
            s.ctx.release_statement_locks();
            Ok(())
        }
    }

    /// Ends the statement as failed (the same as dropping the guard).
    pub fn fail(self) {}

    /// Applies what the statement changes in the session right after its locks.
    fn apply_effect(&mut self, plan: &Plan) -> Result<(), SqlError> {
        let s = &mut *self.session;
        match &plan.effect {
            Effect::Begin { read_only } => {
                s.state.in_transaction = true;
                s.state.read_only = *read_only;
            }
            Effect::Rollback { chain } => {
                s.end_transaction();
                s.state.in_transaction = *chain;
            }
            Effect::Savepoint(name) => {
                s.savepoints.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                s.savepoints.push((name.clone(), s.ctx.savepoint()));
            }
            Effect::RollbackToSavepoint(name) | Effect::ReleaseSavepoint(name) => {
                let Some(i) = s
                    .savepoints
                    .iter()
                    .position(|(n, _)| n.eq_ignore_ascii_case(name))
                else {
                    return Err(SqlError::savepoint_does_not_exist(name));
                };
                if matches!(plan.effect, Effect::RollbackToSavepoint(_)) {
                    s.ctx.rollback_to_savepoint(s.savepoints[i].1)?;
                    s.savepoints.truncate(i + 1);
                } else {
                    s.savepoints.truncate(i);
                }
            }
            Effect::LockTables(tables) => {
                // THD::enter_locked_tables_mode: every lock of the statement becomes EXPLICIT.
                for (k, t) in self.tickets.drain(..) {
                    s.ctx.set_lock_duration(t, LockDuration::Explicit)?;
                    s.locked.push((k, t));
                }
                s.state.locked_tables = Some(tables.clone());
            }
            Effect::UnlockTables => {
                s.leave_lock_tables();
                for t in s.global_read_lock.drain(..) {
                    let _ = s.ctx.release(t);
                }
                s.state.global_read_lock = false;
            }
            Effect::GlobalReadLock => {
                s.global_read_lock.append(&mut self.explicit);
                s.state.global_read_lock = true;
            }
            Effect::LockInstance => {
                s.backup.append(&mut self.explicit);
                s.state.backup_lock = true;
            }
            Effect::UnlockInstance => {
                for t in s.backup.drain(..) {
                    let _ = s.ctx.release(t);
                }
                s.state.backup_lock = false;
            }
            _ => {}
        }
        Ok(())
    }
}

/// How often a DML statement backs off after a deadlock before it reports it (MySQL retries
/// without a limit; a bound keeps a livelock from hanging a session).
const MAX_BACK_OFFS: u32 = 1000;

/// Statements whose locks MySQL takes in `open_tables` (one table at a time, with back-off).
fn opens_tables_for_dml(kind: StatementKind) -> bool {
    use StatementKind as K;
    matches!(
        kind,
        K::Select | K::Insert | K::Update | K::Delete | K::Do | K::Explain
    )
}

/// Statements that open a transaction when autocommit is off.
fn starts_transaction(kind: StatementKind) -> bool {
    use StatementKind as K;
    matches!(
        kind,
        K::Select | K::Insert | K::Update | K::Delete | K::Do | K::Begin
    )
}

impl Drop for StatementGuard<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let s = &mut *self.session;
        if let Some(t) = self.commit.take() {
            // A failed COMMIT: the transaction is rolled back.
            let _ = s.ctx.release(t);
            s.end_transaction();
        }
        if self.upgraded {
            for u in &self.upgrades {
                if let Some(to) = u.downgrade_to {
                    if let Some(&(_, t)) = s.locked.iter().find(|(k, _)| *k == u.key) {
                        let _ = s.ctx.downgrade(t, to);
                    }
                }
            }
        }
        for t in self.explicit.drain(..) {
            let _ = s.ctx.release(t);
        }
        let _ = s.ctx.rollback_to_savepoint(self.start);
        if s.state.in_multi_statement_mode() {
            s.ctx.release_statement_locks();
        } else {
            s.end_transaction();
        }
    }
}
