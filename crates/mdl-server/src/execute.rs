//! A statement's execution: the locks from `mdl-sql`, then the engine.
//!
//! 1. What a DBA types that no table holds (`SHOW PROCESSLIST`, `KILL`, `SHOW VARIABLES`,
//!    ...) is answered by `admin.rs`.
//! 2. The statement is rewritten for SQLite (`rewrite.rs`); the `performance_schema`, `sys`
//!    and `information_schema` tables it names are refreshed (`pfs_views.rs`,
//!    `info_schema.rs`), and writes to them go there.
//! 3. `mdl-sql` plans its metadata locks in the session's state and takes them
//!    (`Session::execute`, waiting with `acquire_async`); an open engine transaction that the
//!    statement commits implicitly is committed first, under COMMIT IX
//!    (`Session::begin_commit`). ALTER TABLE (and CREATE TABLE) upgrade before the engine
//!    changes anything; an ALTER TABLE SQLite cannot do in place is rebuilt then
//!    (`rebuild.rs`); CREATE TABLE ... LIKE and CREATE TABLE ... SELECT are written then from
//!    what the engine holds (`create_from.rs`); TRUNCATE and ALTER TABLE ... AUTO_INCREMENT =
//!    n also set the table's counter (`counter.rs`), and an INSERT's 0 or `DEFAULT` values are
//!    read against its table (`insert_values.rs`, `insert_select.rs`: the DDL epoch moves at the
//!    end of a statement that may change a table). RENAME INDEX and table options are checked
//!    under SU, before the upgrade (`alter_more.rs`).
//! 4. The engine runs it (`engine_step.rs`; `engine.rs`: writes take the engine's writer first;
//!    ANALYZE, CHECK, OPTIMIZE, REPAIR and CHECKSUM TABLE: `maintenance.rs`).
//! 5. The statement ends (`StatementGuard::finish`, or dropped on error: its locks go); the
//!    engine's transaction follows the session's (committed when the session's ends,
//!    rolled back after a deadlock).
//!
//! An execution of a prepared statement takes the plan (step 3) and the rewrite (step 2) its
//! last execution made when the session's state (and schema) they came from is unchanged
//! (`memo.rs`): both are pure functions of it. Its description at preparation (parameters and
//! columns) is `describe.rs`.
//!
//! The notes a DDL raises (`DROP ... IF EXISTS` of what is not there, `CREATE ... IF NOT
//! EXISTS` of what is) are found under its locks before the engine runs it, a select's
//! divisions by a literal zero after (`notes.rs`), into the session's diagnostics area
//! (`diagnostics.rs`).
//!
//! Each statement is a `pfs` statement event of MySQL's class (`statement/sql/select`, ...)
//! with its digest (a prepared statement's execution is `statement/com/Execute` or
//! `statement/sql/execute_sql`: `statement_event.rs`), as MySQL's default
//! `performance_schema` records, on the connection's session thread from its start to its
//! end, its waits nested in it, its `WARNINGS` the notes and warnings it raised; and the
//! session's transaction events (`trx_event.rs`).

use std::sync::Arc;

use mdl_sql::{Parsed, StatementKind};
use rusqlite::types::Value;
use sqlparser::ast::Statement;

mod alter_more;
mod counter;
mod create_from;
mod default_values;
mod describe;
mod engine_step;
mod evaluate;
mod fk_ddl;
mod insert_literals;
mod insert_select;
mod insert_values;
mod limits;
mod maintenance;
mod notes;
mod rebuild;
mod result_kinds;
mod under_locks;
mod view_ddl;
mod view_star;

pub(crate) use insert_select::register as register_auto_id;

use crate::admin::{self, SessionVars};
use crate::connection::Connection;
use crate::error::ServerError;
use crate::pfs_views::{self, Sources};
use crate::rewrite::{rewrite, Env, Rewritten};
use crate::statement_event::{self, Origin};
use crate::status::Com;
use crate::wire::Output;

/// `FLUSH STATUS` (alone: MySQL's `FLUSH STATUS, LOGS` is one statement sqlparser reads as
/// neither).
fn is_flush_status(s: &Statement) -> bool {
    matches!(
        s,
        Statement::Flush {
            object_type: sqlparser::ast::FlushType::Status,
            ..
        }
    )
}

fn lock_free(tables: &[(String, String)]) -> bool {
    !tables.is_empty()
        && tables
            .iter()
            .all(|(s, _)| crate::engine::VIEW_SCHEMAS.contains(&s.as_str()))
}

impl Connection {
    pub(crate) fn vars(&self) -> SessionVars {
        vars_of(&self.session, &self.values)
    }

    fn rewrite_with(&self, s: &Statement, p: &Parsed) -> Result<Rewritten, ServerError> {
        rewrite_in(&self.shared, &self.values, &self.session, s, &[], Some(p))
    }

    fn refresh_views(&mut self, tables: &[(String, String)]) -> Result<(), ServerError> {
        // Most statements read no view: skip the sources and the per-table name checks.
        let views =
            |s: &str| (crate::engine::VIEW_SCHEMAS.iter()).any(|v| v.eq_ignore_ascii_case(s));
        if !tables.iter().any(|(s, _)| views(s)) {
            return Ok(());
        }
        self.with_sources(|db, src| {
            pfs_views::refresh(db, tables, src)?;
            crate::info_schema::refresh(db, tables, src.processes)
        })
    }

    /// Runs `f` on the engine connection with what the snapshots read besides `pfs`: the lock
    /// manager, the process list, this session's variables and the server's status.
    fn with_sources<R>(
        &mut self,
        f: impl FnOnce(&mut crate::engine::EngineConn, &Sources<'_>) -> R,
    ) -> R {
        let shared = self.shared.clone();
        let vars = self.vars();
        let procs = || shared.procs.rows(&shared.mgr);
        let variables = |global: bool| admin::variables(&shared, &vars, global);
        let info = self.info.clone();
        let status = |global: bool| admin::status(&shared, (!global).then_some(&info.status));
        let by_thread = |table: &str| pfs_views::by_thread_rows(&shared, table);
        let src = Sources {
            mgr: &shared.mgr,
            processes: &procs,
            variables: &variables,
            status: &status,
            by_thread: &by_thread,
            session: info.id,
        };
        f(&mut self.db, &src)
    }

    /// Runs one statement (see the module docs), from `origin`; `prepared` names the prepared
    /// statement it executes, whose plan and rewrite are kept between executions (`memo.rs`).
    pub(crate) async fn run(
        &mut self,
        p: &Parsed,
        params: &[Value],
        text: &Arc<str>,
        origin: &Origin,
        prepared: Option<u32>,
    ) -> Result<Output, ServerError> {
        // MySQL's `THD::query_start`: what `NOW()` reads, before any lock wait.
        self.db.start_statement(self.values.time_zone.offset());
        let started = std::time::SystemTime::now();
        let statement = match &p.statement {
            mdl_sql::Statement::Sql { statement, .. } => Some(&**statement),
            _ => None,
        };
        let plan = match prepared.and_then(|id| self.prepared.get_mut(&id)) {
            Some(pr) => pr.memo.plan(p, self.session.state()),
            None => self.session.plan(p).map(Arc::new),
        };
        // Refused: a user-level lock call's arguments may need the engine first (`lock_args.rs`).
        let plan = match plan {
            Err(e) if e.code() == mdl_sql::SqlError::NOT_SUPPORTED_YET => {
                match crate::lock_args::to_evaluate(p) {
                    true => self.plan_evaluated(p),
                    false => Err(e),
                }
            }
            plan => plan,
        };
        let com = Com::of(plan.as_ref().ok().map(|pl| pl.kind), statement, text);
        if let Some(c) = com {
            self.info.status.count(c);
        }
        // Its class, and the text its digest and `SQL_TEXT` are made of (`statement_event.rs`):
        // a `COM_STMT_EXECUTE` has neither.
        let (cls, shown) = match origin {
            Origin::Text => (statement_event::class(com), Some(text)),
            Origin::StmtExecute => (statement_event::stmt_execute_class(), None),
            Origin::ExecuteSql(t) => (statement_event::class(Some(Com::ExecuteSql)), Some(t)),
        };
        let digest = match shown {
            Some(t) if statement.is_some() && cls.enabled() => Some(statement_event::digest_of(
                t,
                self.session.state().current_schema.as_deref(),
            )),
            _ => None,
        };
        // A `Send` event on the connection's session thread: the task may move between
        // workers while the statement waits, and a DBA sees the statement in
        // `events_statements_current` with its metadata-lock wait nested in it, as in MySQL.
        let mut event = self.thread.statement_start(cls, digest);
        // An execution of a prepared statement adds to its row (`pfs_views/prepared.rs`).
        event.set_prepared(std::mem::take(&mut self.executing));
        // SQLite's counters are read for a recorded statement only (`statement_event/engine.rs`).
        self.db.status.watch(event.is_active(), com);
        if let Some(t) = shown {
            event.set_sql_text(t);
        }
        let kind = plan.as_ref().ok().map(|p| p.kind);
        let trx = crate::trx_event::Statement::of(plan.as_deref().ok());
        let insert = kind == Some(StatementKind::Insert);
        let mut out = (self.run_inner(plan, statement, p, params, prepared)).await;
        // A select's divisions by a literal zero (`notes.rs`): a walk of its select list.
        if let (Ok(Output::Rows(r)), Some(s)) = (&out, statement) {
            let per_row = notes::divisions_by_zero(s);
            if per_row > 0 {
                let c = crate::diagnostics::Condition::division_by_zero();
                (self.values.diagnostics).raise_n(c, per_row.saturating_mul(r.rows.len() as u64));
            }
        }
        // `WARNINGS`: the notes and warnings it raised (an error is `ERRORS`).
        let conditions = u32::from(self.values.diagnostics.statement_count());
        let outcome = crate::statement_event::outcome(&out).warnings(conditions);
        let outcome = self.db.status.outcome(outcome, com);
        // Its transaction event too (`trx_event.rs`).
        crate::trx_event::end(&self.thread, event, &outcome, trx, self.session.state());
        if out.is_ok() && statement.is_some_and(is_flush_status) {
            self.shared.procs.flush_status(&self.info);
        }
        // What INNODB_TRX shows of the session's transaction (`processlist.rs`).
        let writes = matches!(
            kind,
            Some(StatementKind::Insert | StatementKind::Update | StatementKind::Delete)
        );
        let modified = match &out {
            Ok(Output::Done { affected, .. }) if writes => *affected,
            _ => 0,
        };
        let (open, begins) = (
            self.session.state().in_transaction,
            kind == Some(StatementKind::Begin),
        );
        self.info.after_statement(open, begins, started, modified);
        // SHOW WARNINGS keeps what it shows (`Connection::statement` told the area).
        if !self.values.diagnostics.kept() {
            self.values.after_statement(insert, &mut out);
        }
        self.values.after_found_rows(com, &out);
        // Only a SET, or an `@` variable's assignment, changes what others see (`published.rs`).
        if com == Some(Com::SetOption) || self.values.user_vars_changed {
            self.publish();
        }
        if let (Some(id), true) = (self.db.take_last_insert_id(), out.is_ok()) {
            self.values.set_last_insert_id(id, &mut out);
        }
        out
    }

    async fn run_inner(
        &mut self,
        plan: Result<Arc<mdl_sql::Plan>, mdl_sql::SqlError>,
        statement: Option<&Statement>,
        p: &Parsed,
        params: &[Value],
        prepared: Option<u32>,
    ) -> Result<Output, ServerError> {
        let parsed = &p.statement;
        self.db.refresh();
        // SQLite's `foreign_keys` follows the session's `foreign_key_checks` (`foreign_keys.rs`).
        crate::foreign_keys::follow(&mut self.db, !self.values.foreign_key_checks_off);
        let mut assigned = None;
        if let Some(s) = statement {
            if let Some(d) = crate::diagnostics::diagnostics(s, &p.text) {
                return d.map(|d| self.values.diagnostics.show(d));
            }
            let vars = self.vars();
            let current = self.session.state().current_schema.clone();
            let db = &mut self.db;
            // A schema's tables and views (`SHOW TABLES` lists both, as MySQL's).
            let mut tables_of = |schema: &str| {
                let found = crate::catalog::tables(db, schema)?;
                Ok(found.into_iter().map(|(name, _)| name).collect())
            };
            let (shared, status) = (&self.shared, &self.info.status);
            if let Some(r) =
                admin::show(shared, &vars, s, &mut tables_of, current.as_deref(), status)
            {
                return r;
            }
            if let Statement::Set(set) = s {
                admin::check_set(&self.shared, &vars, set)?;
                assigned = Some(self.values.assigned(set)?); // applied once the SET succeeded
            }
        }
        let rw = match statement {
            Some(s) => Some(self.rewrite_of(s, p, prepared)?),
            None => None,
        };
        if let (Some(s), Some(rw)) = (statement, &rw) {
            let current = self.session.state().current_schema.as_deref();
            crate::info_schema::refuse_write(s, &rw.tables, current)?;
            crate::temporary::refuse_system_schema(s, current)?;
            if lock_free(&rw.tables) && pfs_views::is_write(s) {
                return self.view_write(s, &rw.tables);
            }
            self.refresh_views(&rw.tables)?;
        }
        let plan = plan?;
        alter_more::refuse_convert(parsed)?;
        let out = self.locked(plan, statement, p, rw, params, prepared).await;
        if let (Some(a), Ok(_)) = (assigned, &out) {
            self.values.apply(a);
            let checks = !self.values.foreign_key_checks_off;
            self.session.set_foreign_key_checks(checks);
        }
        out
    }

    /// The statement's rewrite, kept by its prepared statement where it may be reused.
    fn rewrite_of(
        &mut self,
        s: &Statement,
        p: &Parsed,
        prepared: Option<u32>,
    ) -> Result<Arc<Rewritten>, ServerError> {
        let Connection {
            session,
            prepared: all,
            ..
        } = &*self;
        let schema = session.state().current_schema.as_deref();
        // A rewrite is kept, and reused, only while the session has no temporary table, whose
        // names it maps (`temporary.rs`).
        let keeps = session.state().temporary_tables.is_empty();
        if let Some(rw) = (prepared.filter(|_| keeps))
            .and_then(|id| all.get(&id))
            .and_then(|pr| pr.memo.rewrite_in(schema))
        {
            return Ok(rw);
        }
        let rw = Arc::new(self.rewrite_with(s, p)?);
        let Connection {
            session,
            prepared: all,
            ..
        } = self;
        if let Some(pr) = prepared.filter(|_| keeps).and_then(|id| all.get_mut(&id)) {
            pr.memo
                .keep_rewrite(session.state().current_schema.as_deref(), &rw);
        }
        Ok(rw)
    }

    fn view_write(
        &mut self,
        s: &Statement,
        tables: &[(String, String)],
    ) -> Result<Output, ServerError> {
        let selection = match s {
            Statement::Update(u) => u.selection.as_ref().map(|w| w.to_string()),
            _ => None,
        };
        self.with_sources(|db, src| pfs_views::write(db, s, selection, tables, src))
    }

    /// Steps 3 to 5 of the module docs.
    async fn locked(
        &mut self,
        mut plan: Arc<mdl_sql::Plan>,
        statement: Option<&Statement>,
        p: &Parsed,
        rw: Option<Arc<Rewritten>>,
        params: &[Value],
        prepared: Option<u32>,
    ) -> Result<Output, ServerError> {
        let parsed = &p.statement;
        if let Some(schema) = plan.needs_tables_of_schema().map(str::to_string) {
            if self.shared.engine.has_schema(&schema) {
                // Folded as the session folds names (lower_case_table_names = 1).
                // Its views too: `find_db_tables` lists them (`sql/sql_db.cc`).
                let views = self.shared.engine.views.of_schema(&schema);
                let tables: Vec<String> = (self.db.tables(&schema)?.iter())
                    .chain(views.iter().map(|v| &v.name))
                    .map(|t| t.to_ascii_lowercase())
                    .collect();
                Arc::make_mut(&mut plan).add_tables_of_schema(&tables)?;
            }
        }
        let mut viewed = view_ddl::expand(&self.shared.engine, &mut plan)?;
        // The tables foreign keys relate (`foreign_keys.rs`); one load on a server without keys.
        if !self.shared.engine.foreign_keys.is_empty() {
            crate::foreign_keys::expand(&self.shared.engine, &mut plan)?;
        }
        if plan.commits_before && self.db.in_transaction() {
            let guard = self.session.begin_commit().await?;
            let r = self.db.end(true);
            guard.finish();
            r?;
        }
        let kind = plan.kind;
        let result = {
            let Connection {
                session,
                db,
                info,
                values,
                ..
            } = self;
            let mut tries = 0;
            let mut stmt = loop {
                let stmt = session.execute(&plan).await?;
                match view_ddl::recheck(db.engine(), &viewed, &plan) {
                    // A view changed while the statement waited: it gives back what it took
                    // and takes the new definition's locks (`view_ddl::recheck`).
                    Err(e) if e.code == 1412 && tries < view_ddl::TRIES => {
                        drop(stmt);
                        tries += 1;
                        view_ddl::again(db.engine(), &mut viewed, &mut plan)?;
                    }
                    r => break r.map(|()| stmt)?,
                }
            };
            let state = stmt.session().state();
            // A temporary table's DDL is not about a view of its name (`temporary.rs`); no
            // view, nothing to refuse (the common case, checked first).
            if !db.engine().views.is_empty() && !crate::temporary::targets(state, statement) {
                let current = state.current_schema.as_deref();
                view_ddl::refuse_table_ddl(db.engine(), statement, current)?;
            }
            if let (StatementKind::CreateTable, Some(Statement::CreateTable(c))) = (kind, statement)
            {
                if let Some(note) = engine_step::existing_table(db, c, stmt.session().state())? {
                    values
                        .diagnostics
                        .raise(crate::diagnostics::Condition::note(note));
                    return stmt
                        .finish()
                        .await
                        .map(|()| Output::OK)
                        .map_err(ServerError::from);
                }
            }
            if let mdl_sql::Effect::LockTables(tables) = &plan.effect {
                // MySQL opens the tables it locked: one that does not exist fails the
                // statement (and LOCK TABLES mode ends, with nothing locked). A `sys` view
                // is MySQL's view over performance_schema: it can be locked (dump tools do).
                for t in tables {
                    let (schema, name) = (&t.table.schema, &t.table.name);
                    let exists = crate::pfs_views::is_sys_view(schema, name)
                        || db.engine().has_schema(schema)
                            && ((db.tables(schema)?.iter()).any(|n| n.eq_ignore_ascii_case(name))
                                || db.engine().views.get(schema, name).is_some());
                    if !exists {
                        let (schema, table) = (&t.table.schema, &t.table.name);
                        return Err(ServerError::no_such_table(schema, table));
                    }
                }
            }
            let schema = stmt.session().state().current_schema.clone();
            let alter = alter_more::prepare(db, parsed, schema.as_deref())?;
            stmt.upgrade().await?;
            notes::before(db, statement, schema.as_deref(), &mut values.diagnostics)?;
            let locks = stmt.user_lock_values().to_vec();
            let multi = stmt.session().state().in_multi_statement_mode();
            let rw = match (statement, locks.is_empty()) {
                (Some(s), false) => Some(Arc::new(rewrite_in(
                    &self.shared,
                    values,
                    stmt.session(),
                    s,
                    &locks,
                    Some(p),
                )?)),
                _ => rw,
            };
            let rw = match statement {
                Some(s) if under_locks::applies(s) => {
                    let copy = |s: &Statement| {
                        rewrite_in(&self.shared, values, stmt.session(), s, &[], None)
                    };
                    let write = |s: &Statement| {
                        rewrite_in(&self.shared, values, stmt.session(), s, &locks, Some(p))
                    };
                    let at = under_locks::UnderLocks {
                        db: &mut *db,
                        p,
                        statement,
                        schema: schema.as_deref(),
                        plan: &plan,
                        state: stmt.session().state(),
                        sql_mode: values.sql_mode,
                        prepared: (&mut self.prepared, prepared),
                        write: &write,
                        copy: &copy,
                    };
                    under_locks::rewrite(at, rw)?
                }
                // A query: nothing to read (a point select pays no call).
                _ => rw,
            };
            if let Some(d) = rw.as_ref().map(|r| r.sleep).filter(|d| !d.is_zero()) {
                info.set_state("User sleep");
                tokio::time::sleep(d).await;
            }
            let out = match (parsed, alter) {
                (mdl_sql::Statement::KillExpr { query, id }, _) => {
                    let kill = (*query, &**id);
                    evaluate::kill(&self.shared, values, stmt.session(), db, kill, &locks)
                }
                (mdl_sql::Statement::TableMaintenance { op, tables }, _) => {
                    maintenance::run(db, info, *op, tables, schema.as_deref()).await
                }
                (_, Some(sql)) => alter_more::run(db, info, &sql).await,
                (mdl_sql::Statement::Sql { modifiers, .. }, _) if view_ddl::is_view_ddl(kind) => {
                    let write = |s: &Statement| {
                        rewrite_in(&self.shared, values, stmt.session(), s, &[], None)
                    };
                    let definer = (values.user.clone(), "%".to_string());
                    let s = statement.ok_or_else(|| ServerError::parse("VIEW"))?;
                    let current = schema.as_deref();
                    let ddl = view_ddl::prepare(db, s, modifiers, current, definer, &write)?;
                    view_ddl::run(db, info, ddl).await
                }
                _ => {
                    let rw = rw.as_deref();
                    let found = &mut values.counted;
                    let modes = (multi, self.client.found_rows());
                    engine_step::run(db, info, &plan, statement, rw, params, modes, schema, found)
                        .await
                }
            };
            let out = match (out, rw.as_deref(), statement) {
                (Ok(Output::Rows(r)), Some(rw), _) if !rw.user_vars.is_empty() => {
                    keep_row(values, &rw.user_vars, r)
                }
                (Err(e), _, Some(s)) if e.code == 1048 => Err(default_values::no_default(s, e)),
                (Err(e), _, Some(s)) if matches!(e.code, 1264 | 1265 | 1406) => {
                    let current = stmt.session().state().current_schema.as_deref();
                    Err(limits::current_column(db, s, current, e))
                }
                (Err(e), _, Some(s)) if e.code == 1091 => {
                    let current = stmt.session().state().current_schema.as_deref();
                    Err(alter_more::missing_table(db, s, current).unwrap_or(e))
                }
                (out, _, _) => out,
            };
            let temporary =
                !plan.temporary_created.is_empty() || !plan.temporary_dropped.is_empty();
            if out.is_ok() && temporary {
                crate::temporary::record(db, &plan, rw.as_deref(), statement);
            }
            insert_select::after_statement(kind); // before the locks go
            match out {
                Ok(o) => stmt.finish().await.map(|()| o).map_err(ServerError::from),
                Err(e) => Err(e),
            }
        };
        if result.is_ok() {
            self.set_lock_wait_timeouts(&plan.effect);
        }
        self.reconcile(&result);
        result
    }

    /// The parts of a SET that are the server's to apply: `SET GLOBAL lock_wait_timeout`, and
    /// the session's `lock_wait_timeout = DEFAULT` (the global value).
    fn set_lock_wait_timeouts(&mut self, effect: &mdl_sql::Effect) {
        let mdl_sql::Effect::Set {
            lock_wait_timeout,
            global_lock_wait_timeout,
            ..
        } = effect
        else {
            return;
        };
        let global = &self.shared.global_lock_wait_timeout;
        if let Some(t) = global_lock_wait_timeout {
            global.store(t.as_secs(), std::sync::atomic::Ordering::Relaxed);
        }
        if let Some(mdl_sql::Assigned::Default) = lock_wait_timeout {
            let secs = global.load(std::sync::atomic::Ordering::Relaxed);
            self.session
                .set_lock_wait_timeout(std::time::Duration::from_secs(secs));
        }
    }

    /// The engine's transaction follows the session's (step 5); a transaction the engine
    /// lost (a deadlock, or SQLite's rollback of an interrupted write) ends the session's.
    fn reconcile(&mut self, result: &Result<Output, ServerError>) {
        let deadlock = matches!(result, Err(e) if e.code == ServerError::LOCK_DEADLOCK);
        let lost = result.is_err() && self.db.lost_transaction();
        if lost || (deadlock && self.db.in_transaction()) {
            let _ = self.db.end(false);
            self.session.rollback();
        }
        if self.db.in_transaction() && !self.session.state().in_multi_statement_mode() {
            let _ = self.db.end(result.is_ok());
        }
        self.db.release_writer();
    }
}

/// The session's variables the rewrite and `admin.rs` read.
fn vars_of(
    session: &mdl_sql::Session,
    values: &crate::session_values::SessionValues,
) -> SessionVars {
    SessionVars {
        autocommit: session.state().autocommit,
        lock_wait_timeout: session.lock_wait_timeout().as_secs(),
        diagnostics: values.diagnostics.saved_counts(),
        sql_notes: !values.diagnostics.notes_off,
        time_zone: values.time_zone,
        sql_mode: values.sql_mode,
        foreign_key_checks: !values.foreign_key_checks_off,
    }
}

/// The rewrite of `s` in the session's state, with the user-level lock values `locks` (empty
/// before the locks are taken).
fn rewrite_in(
    shared: &Arc<crate::server::Shared>,
    values: &crate::session_values::SessionValues,
    session: &mdl_sql::Session,
    s: &Statement,
    locks: &[Option<i64>],
    source: Option<&Parsed>,
) -> Result<Rewritten, ServerError> {
    let vars = vars_of(session, values);
    let shared = shared.clone();
    let lookup = move |n: &str| admin::variable(&shared, &vars, n);
    let env = Env {
        schema: session.state().current_schema.as_deref(),
        values,
        user_locks: locks,
        variable: &lookup,
        source,
        temporary: &session.state().temporary_tables,
    };
    rewrite(s, &env)
}

/// The row of a `SET @a = x` or a `SELECT ... INTO @a` kept as the variables, as MySQL keeps
/// it (`Query_result_dumpvar::send_data`, `sql/sql_class.cc`): more than one row is 1172, no
/// row leaves the variables as they were, a column count other than the variables' is 1222.
fn keep_row(
    values: &mut crate::session_values::SessionValues,
    names: &[String],
    r: crate::wire::ResultSet,
) -> Result<Output, ServerError> {
    if r.columns.len() != names.len() {
        return Err(ServerError::new(
            1222,
            "21000",
            "The used SELECT statements have a different number of columns",
        ));
    }
    let mut rows = r.rows.into_iter();
    match (rows.next(), rows.next()) {
        (Some(row), None) => {
            for (name, v) in names.iter().zip(row) {
                values.set_user_var(name, v);
            }
            Ok(Output::OK)
        }
        (None, _) => Ok(Output::OK),
        (Some(_), Some(_)) => Err(ServerError::new(
            1172,
            "42000",
            "Result consisted of more than one row",
        )),
    }
}
