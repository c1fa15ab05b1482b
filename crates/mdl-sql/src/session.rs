//! The lock side of a MySQL session: plans applied to an [`MdlContext`].
//!
//! The protocol is documented on [`Session`].

mod statement;
mod user_locks;

use std::collections::HashMap;
use std::time::Duration;

use mdl_core::{LockDuration, LockType, MdlContext, MdlKey, MdlSavepoint, Namespace, Ticket};

pub use statement::StatementGuard;

use crate::error::SqlError;
use crate::names::scoped;
use crate::parse::Parsed;
use crate::plan::{plan, Effect, Plan, SessionState};

/// A connection's locks and lock-related state: the lock side of a MySQL session.
///
/// A session owns its connection's context (one session per task or thread, as MySQL has
/// one `THD` per connection) and the state the rules read ([`SessionState`]). A statement goes:
///
/// 1. [`Session::plan`]: the rules; errors decided before any lock.
/// 2. [`Session::execute`]: the implicit commit before (if the plan says so), the plan's
///    requests in order with the session's `lock_wait_timeout` (`acquire_async`), the session
///    effects (LOCK TABLES, the global read lock, the backup lock, BEGIN / COMMIT / ROLLBACK,
///    savepoints) and the user-level lock calls. It returns a [`StatementGuard`].
/// 3. The server runs the statement; ALTER TABLE calls [`StatementGuard::upgrade`] before it
///    changes the definition.
/// 4. [`StatementGuard::finish`] ends a statement that succeeded: it releases the STATEMENT
///    locks, or commits (COMMIT IX first for a read-write transaction, then every STATEMENT and
///    TRANSACTION lock) when MySQL would: an implicit commit after DDL, or the end of a
///    statement under autocommit outside BEGIN (`mysql_execute_command`'s end: "If in
///    autocommit mode ... automatically release metadata locks of the current statement").
///    A guard dropped without `finish` (an error, `?`, a dropped future) ends the statement as
///    failed: the locks it took for itself are released (a rollback to the savepoint taken when
///    it started, as `Open_table_context` does when it backs off), EXPLICIT locks it took that
///    did not become session state are released, and an autocommit statement's transaction
///    ends. The session's earlier locks stay, as MySQL keeps them.
///
/// A commit of a read-write transaction takes COMMIT IX (EXPLICIT) and releases it after the
/// commit (`ha_commit_trans`), so a session holding FLUSH TABLES WITH READ LOCK (COMMIT S)
/// blocks commits. If it cannot be taken (timeout, kill, deadlock), MySQL rolls the
/// transaction back (`ha_rollback_trans`) and so does this session: the error says the
/// transaction is gone, and its locks are released. Where the engine commits:
///
/// * `COMMIT`: [`Session::execute`] takes COMMIT IX and the guard holds it while the server
///   commits the engine; [`StatementGuard::finish`] releases it, then the transaction's locks.
/// * an implicit commit before a statement (`plan.commits_before`, an open transaction): the
///   server commits the engine inside [`Session::begin_commit`] / [`CommitGuard::finish`]
///   before `execute` (which otherwise commits the locks itself).
/// * the end of an autocommit statement or of DDL: the engine committed while the statement
///   ran, under the statement's GLOBAL IX, which keeps FLUSH TABLES WITH READ LOCK out just as
///   well; `finish` takes and releases COMMIT IX as MySQL's commit does.
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

    /// Sets the current schema (a handshake's database, or `USE`), folded to lowercase under
    /// [`SessionState::lower_case_table_names`].
    pub fn set_current_schema(&mut self, schema: Option<String>) {
        self.state.current_schema = match schema {
            Some(s) => Some(crate::names::fold(&s, &self.state).into_owned()),
            None => None,
        };
    }

    /// Sets MySQL's `lower_case_table_names` (0 or 1) for this session's statements
    /// ([`SessionState::lower_case_table_names`]); a server sets it once, before the first.
    pub fn set_lower_case_table_names(&mut self, on: bool) {
        self.state.lower_case_table_names = on;
        if let Some(s) = self.state.current_schema.take() {
            self.set_current_schema(Some(s));
        }
    }

    /// Sets MySQL's `foreign_key_checks` for this session's statements
    /// ([`SessionState::foreign_key_checks`]); a server sets it when a `SET` changes it.
    pub fn set_foreign_key_checks(&mut self, on: bool) {
        self.state.foreign_key_checks = on;
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

    /// Starts a statement (see [`Session`]). The locks are the plan's; what the statement
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
        // A KILL QUERY that came after the last statement ended is not for this one: MySQL's
        // dispatch clears KILL_QUERY when a statement starts.
        self.ctx.clear_query_kill();
        if plan.commits_before {
            if matches!(plan.effect, Effect::Begin { .. } | Effect::LockTables(_)) {
                self.leave_lock_tables();
            }
            self.commit().await?;
        }
        StatementGuard::start(self, plan).await
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

    /// A connection reset (`COM_RESET_CONNECTION`, `COM_CHANGE_USER`): the session as a new
    /// connection's, with its current schema and name folding. As MySQL's `THD::cleanup`
    /// (`sql/sql_class.cc`): LOCK TABLES left, the transaction's locks released, the global read
    /// lock, the user-level locks (`mysql_ull_cleanup`) and the backup lock released; no lock
    /// is left; no temporary table is known any more (`close_temporary_tables`). The server
    /// rolls its engine's transaction back and drops its temporary tables.
    pub fn reset(&mut self) {
        self.leave_lock_tables();
        self.end_transaction();
        let explicit: Vec<Ticket> = (self.global_read_lock.drain(..))
            .chain(self.backup.drain(..))
            .chain(self.user_locks.drain().map(|(_, (t, _))| t))
            .collect();
        for t in explicit {
            let _ = self.ctx.release(t);
        }
        self.state = SessionState {
            current_schema: self.state.current_schema.take(),
            lower_case_table_names: self.state.lower_case_table_names,
            ..SessionState::default()
        };
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
