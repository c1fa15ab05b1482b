//! A running statement: its locks, its upgrade steps, and how it ends (see `session.rs`).

use mdl_core::{
    ErrorKind, LockDuration, LockType, MdlKey, MdlRequest, MdlSavepoint, Namespace, Ticket,
};

use super::Session;
use crate::error::SqlError;
use crate::names::TableName;
use crate::plan::{Assigned, Effect, Plan, StatementKind, Upgrade};
use crate::user_lock::{UserLockFunction, UserLockValue};

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
    /// [`Plan::after_upgrades`].
    after_upgrades: Vec<MdlRequest>,
    upgraded: bool,
    values: Vec<UserLockValue>,
    /// The user-level locks the statement's GET_LOCK calls got (or counted again): a statement
    /// that then fails gives them back, as MySQL, which evaluates the calls only once the
    /// statement's tables are open and its names resolved, never takes them.
    got_user_locks: Vec<MdlKey>,
    /// The statement entered LOCK TABLES mode: a failure (a table that does not exist) leaves
    /// it, with no table locked, as MySQL's failed LOCK TABLES does.
    entered_lock_tables: bool,
    /// A COMMIT statement's COMMIT IX.
    commit: Option<Ticket>,
    deferred: Option<Deferred>,
    done: bool,
}

impl<'a> StatementGuard<'a> {
    /// [`Session::execute`] after the implicit commit: the locks, the effects, the user-level
    /// lock calls.
    pub(super) async fn start(
        session: &'a mut Session,
        plan: &Plan,
    ) -> Result<StatementGuard<'a>, SqlError> {
        let mut g = StatementGuard {
            start: session.ctx.savepoint(),
            session,
            explicit: Vec::new(),
            tickets: Vec::new(),
            upgrades: plan.upgrades.clone(),
            after_upgrades: plan.after_upgrades.clone(),
            upgraded: false,
            values: Vec::new(),
            got_user_locks: Vec::new(),
            entered_lock_tables: false,
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
        let mut got = Vec::new();
        for call in &plan.user_locks {
            let v = g.session.user_lock(call).await?;
            if call.function == UserLockFunction::GetLock && v == Some(1) {
                got.extend(call.key.clone());
            }
            g.values.push(v);
        }
        // Only once every call succeeded: a call that fails (a deadlock, 3058) ends the
        // statement with the calls before it done, as in MySQL.
        g.got_user_locks = got;
        g.deferred = Some(Deferred::of(plan));
        Ok(g)
    }
}

/// What [`StatementGuard::finish`] needs of the plan, kept from the start: not its requests,
/// whose copy every statement would pay for.
#[derive(Debug)]
struct Deferred {
    kind: StatementKind,
    writes: bool,
    commits_after: bool,
    effect: Effect,
    temporary_dropped: Vec<TableName>,
    temporary_created: Vec<TableName>,
}

impl Deferred {
    fn of(plan: &Plan) -> Deferred {
        // An empty list is not cloned: most statements change no temporary table.
        let copy = |v: &Vec<TableName>| {
            if v.is_empty() {
                Vec::new()
            } else {
                v.clone()
            }
        };
        Deferred {
            kind: plan.kind,
            writes: plan.writes,
            commits_after: plan.commits_after,
            effect: plan.effect.clone(),
            temporary_dropped: copy(&plan.temporary_dropped),
            temporary_created: copy(&plan.temporary_created),
        }
    }
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

    /// Performs the plan's upgrade steps (ALTER TABLE's SU -> X before the definition changes,
    /// CREATE TABLE's S -> X once the table is known not to exist; DDL under LOCK TABLES:
    /// SNRW -> X), each waiting up to the session's `lock_wait_timeout`, then takes
    /// [`Plan::after_upgrades`] (ALTER TABLE's X on the tables a foreign key relates). Does
    /// nothing the second time, or for a plan without upgrades.
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
        for r in self.after_upgrades.clone() {
            let t = self.session.ctx.acquire_async(&r, timeout).await?;
            self.tickets.push((r.key.clone(), t));
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
    /// LOCK TABLES, then the end of the statement (see [`Session`]).
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
                ..
            } => {
                // `DEFAULT` and the global value are the server's to apply.
                if let Some(Assigned::Value(t)) = lock_wait_timeout {
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
        // The session's temporary tables, as the statement left them (`plan/temporary.rs`).
        for t in &plan.temporary_dropped {
            s.state.temporary_tables.remove(t);
        }
        (s.state.temporary_tables).extend(plan.temporary_created.iter().cloned());
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
                self.entered_lock_tables = true;
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
        for key in self.got_user_locks.drain(..) {
            s.give_back_user_lock(&key);
        }
        if self.entered_lock_tables {
            s.leave_lock_tables();
        }
        let _ = s.ctx.rollback_to_savepoint(self.start);
        if s.state.in_multi_statement_mode() {
            s.ctx.release_statement_locks();
        } else {
            s.end_transaction();
        }
    }
}
