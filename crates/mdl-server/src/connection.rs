//! One client connection: `opensrv-mysql`'s shim, the session, prepared statements, and the
//! watch that notices a client gone while a statement waits.
//!
//! **A connection dropped mid-wait.** While `on_query` / `on_execute` run, `opensrv-mysql`
//! owns the socket's reader, so a statement that waits cannot learn from it that the client
//! left. The connection keeps a duplicate of the socket (the same open file, a second
//! descriptor registered with tokio) and races every statement against it: when the
//! duplicate reports the peer's end (`EPOLLRDHUP`/`HUP`, or a peek that reads 0 bytes) the
//! statement's future is dropped — a queued metadata-lock request leaves its queue, a wait for
//! the engine's writer ends — and the connection ends, which drops the session with every
//! lock it held and rolls the engine's transaction back. MySQL checks the connection only
//! for user-level lock waits, about once a second (`MDL_context::acquire_lock`,
//! `vio_is_connected`); here every wait is covered, at no cost to a statement that does not
//! wait (the watch is polled only after the statement's future returns `Pending`). Data the
//! client pipelined is left for the reader: the watch then looks again a second later.
//!
//! **Threads.** A connection runs on an OS thread of its own, on that thread's current-thread
//! runtime (`server.rs`): its statements' futures, its waits and its SQLite connection stay
//! there, and nothing it does holds up another connection. While SQLite runs a statement the
//! thread is inside the engine and polls nothing, so the race above cannot end it: a kill
//! reaches the engine through SQLite's interrupt and progress handler (`engine.rs`), and a
//! client gone mid-statement is noticed when the engine returns.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mdl_core::KillScope;
use mdl_sql::{Parsed, Session};
use opensrv_mysql::{
    AsyncMysqlShim, Column, ColumnFlags, ColumnType, ErrorKind, InitWriter, ParamParser,
    QueryResultWriter, StatementMetaWriter,
};
use rusqlite::types::Value;
use tokio::io::{AsyncWrite, Interest};
use tokio::net::TcpStream;

use crate::command_map::{ClientFlags, EmptyQueries, EmptyQuery};
use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::execute_types::StatementParams;
use crate::memo::Memo;
use crate::processlist::ConnInfo;
use crate::server::Shared;
use crate::session_values::SessionValues;
use crate::statement_event::Origin;
use crate::status::Com;
use crate::wire::{marked, write_result, write_warned, Output};

/// A prepared statement.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub text: Arc<str>,
    pub parsed: Arc<Parsed>,
    /// Its plan and rewrite, kept between executions.
    pub memo: Memo,
    /// How many of its `?` are user-level lock calls' arguments (`lock_args.rs`).
    pub lock_params: usize,
    /// Its row of `prepared_statements_instances`, gone with it (`pfs_views/prepared.rs`).
    pub row: pfs::PreparedStatement,
}

impl Prepared {
    /// `parsed`, from `text`, kept to be executed; `row` its row. It keeps no digest: an
    /// execution's event has none of its text (`statement_event.rs`).
    pub fn new(text: &str, parsed: Parsed, row: pfs::PreparedStatement) -> Prepared {
        Prepared {
            row,
            text: text.into(),
            lock_params: crate::lock_args::count(&parsed),
            parsed: Arc::new(parsed),
            memo: Memo::default(),
        }
    }

    /// What an execution of this statement (kept as `id`) with `values` runs: its text, its
    /// statement and values, the `?` of its user-level lock calls bound first
    /// (`lock_args.rs`), and the id whose kept plan it may use (`None` once bound: the
    /// copy is planned for this execution alone).
    pub fn execution(
        &self,
        id: u32,
        values: Vec<Value>,
    ) -> (Arc<str>, Arc<Parsed>, Vec<Value>, Option<u32>) {
        if self.lock_params == 0 {
            return (self.text.clone(), self.parsed.clone(), values, Some(id));
        }
        let (bound, rest) = crate::lock_args::bind(&self.parsed, &values);
        (self.text.clone(), Arc::new(bound), rest, None)
    }
}

/// A connection's state (the shim `opensrv-mysql` drives).
pub struct Connection {
    pub(crate) shared: Arc<Shared>,
    pub(crate) info: Arc<ConnInfo>,
    /// The connection's pfs thread: its statements' events are recorded there.
    pub(crate) thread: pfs::SessionThread,
    pub(crate) session: Session,
    pub(crate) db: EngineConn,
    pub(crate) prepared: HashMap<u32, Prepared>,
    /// The statements `PREPARE name FROM ...` made (`sql_prepare.rs`): their id in `prepared`
    /// and their count of `?`, by name (lowercase).
    pub(crate) sql_prepared: HashMap<String, (u32, usize)>,
    /// What its statements read of it (`session_values.rs`).
    pub(crate) values: SessionValues,
    next_stmt: u32,
    watch: Arc<TcpStream>,
    /// What the empty queries were sent as (`command_map.rs`).
    empty_queries: EmptyQueries,
    /// The client's capability flags (`command_map.rs`).
    pub(crate) client: ClientFlags,
    /// Each prepared statement's parameter count, for the reader (`execute_types.rs`).
    statement_params: StatementParams,
    /// The warning count the output stream writes into EOF packets (`wire/warnings.rs`).
    pub(crate) eof_warnings: crate::wire::EofWarnings,
    /// The prepared statement the next statement executes, taken by its event (`execute.rs`).
    pub(crate) executing: pfs::PreparedRef,
}

/// How a statement ended, besides its result.
pub(crate) enum Ended {
    /// The client is gone: end the connection.
    Gone,
}

impl Connection {
    /// The id of a new prepared statement.
    pub(crate) fn next_statement_id(&mut self) -> u32 {
        self.next_stmt += 1;
        self.next_stmt
    }

    /// A connection whose context has the connection's id and records its metadata-lock waits
    /// on `thread`, the connection's pfs thread.
    ///
    /// # Errors
    /// The id in use, SQLite errors.
    pub fn new(
        shared: Arc<Shared>,
        info: Arc<ConnInfo>,
        watch: Arc<TcpStream>,
        thread: &pfs::SessionThread,
        empty_queries: EmptyQueries,
        client: ClientFlags,
        statement_params: StatementParams,
    ) -> Result<Connection, ServerError> {
        let builder = shared.mgr.build_context().id(info.id);
        #[cfg(feature = "pfs")]
        let builder = builder.pfs_thread(thread.clone());
        let ctx = builder
            .build()
            .map_err(|e| ServerError::new(1105, "HY000", e.to_string()))?;
        let db = EngineConn::new(shared.engine.clone(), &info)?;
        let mut session = Session::new(ctx);
        // SQLite compares schema and table names without case (ASCII): so must their locks,
        // or a DDL on `T` would not wait for a transaction on `t`.
        session.set_lower_case_table_names(true);
        let timeout = shared.global_lock_wait_timeout.load(Ordering::Relaxed);
        session.set_lock_wait_timeout(Duration::from_secs(timeout));
        let mut values = SessionValues::new(info.id, info.user(), &info.host);
        values.diagnostics.counted = crate::diagnostics::Counted::on(thread);
        let mut c = Connection {
            shared,
            info,
            values,
            thread: thread.clone(),
            session,
            db,
            prepared: HashMap::new(),
            sql_prepared: HashMap::new(),
            next_stmt: 0,
            watch,
            empty_queries,
            client,
            statement_params,
            eof_warnings: Default::default(),
            executing: Default::default(),
        };
        c.publish(); // what other connections see of it (`published.rs`)
        Ok(c)
    }

    /// `COM_INIT_DB`, and the schema a `COM_CHANGE_USER` names: `db` becomes the current
    /// schema.
    ///
    /// # Errors
    /// 1049 for a schema the server does not have.
    fn use_schema(&mut self, db: &str) -> Result<(), ServerError> {
        let folded = db.to_ascii_lowercase(); // lower_case_table_names = 1
        if !self.shared.engine.has_schema(&folded) {
            return Err(ServerError::unknown_database(db));
        }
        self.session.set_current_schema(Some(db.to_string()));
        self.info.end(self.schema());
        Ok(())
    }

    /// `COM_RESET_CONNECTION` (and `COM_CHANGE_USER`, whose login stays the handshake's: this
    /// server has no accounts): the session becomes a new connection's, on the same connection
    /// id, login and current schema. As MySQL's `THD::cleanup_connection` (`THD::cleanup`,
    /// `sql/sql_class.cc`): the transaction rolled back, LOCK TABLES left, the global read lock,
    /// the user-level locks and the backup lock released, with every metadata lock, the
    /// temporary tables dropped; then
    /// session variables from their global values, autocommit on, no prepared statement, no
    /// `@` variable, `LAST_INSERT_ID()` 0.
    fn reset(&mut self) -> Output {
        self.info.begin("Reset connection", None, self.schema());
        let _ = self.db.end(false);
        // Its temporary tables go too (`THD::cleanup`: `close_temporary_tables`).
        let _ = crate::temporary::drop_all(&mut self.db);
        self.session.reset();
        let timeout = self.shared.global_lock_wait_timeout.load(Ordering::Relaxed);
        self.session
            .set_lock_wait_timeout(Duration::from_secs(timeout));
        self.prepared.clear();
        self.sql_prepared.clear();
        self.values = SessionValues::new(self.info.id, self.info.user(), &self.info.host);
        self.values.diagnostics.counted = crate::diagnostics::Counted::on(&self.thread);
        self.session.set_foreign_key_checks(true);
        self.publish();
        self.info
            .after_statement(false, false, std::time::SystemTime::now(), 0);
        self.info.end(self.schema());
        Output::OK
    }

    fn schema(&self) -> Option<&str> {
        self.session.state().current_schema.as_deref()
    }

    /// One statement from the client, start to end: activity, kill reset, run, counters.
    pub(crate) async fn statement(
        &mut self,
        command: &'static str,
        text: Arc<str>,
        parsed: Result<Arc<Parsed>, ServerError>,
        params: Vec<Value>,
        origin: Origin,
        prepared: Option<u32>,
    ) -> Result<Result<Output, ServerError>, Ended> {
        if self
            .info
            .login
            .get()
            .is_some_and(|u| *u != self.values.user)
        {
            // The handshake runs after `new`: `USER()` is the login from the first statement.
            self.values.user = self.info.user().to_string();
        }
        self.info.begin(command, Some(text.clone()), self.schema());
        self.info.kill.clear_query();
        self.session.context_mut().reset_kill();
        let keep = matches!(&parsed, Ok(p) if crate::diagnostics::keeps(p));
        self.values.diagnostics.begin(keep);
        let r = match parsed {
            Ok(p) => {
                // The race needs only the Arcs, taken before the future borrows `self`.
                let (info, watch) = (self.info.clone(), self.watch.clone());
                // Pinned in this future's own state: `guarded` and its `select!` move only the
                // reference, not the statement's large future (two copies of it per statement).
                let run = std::pin::pin!(run_one(self, p, params, text, origin, prepared));
                guarded(info, watch, run).await
            }
            Err(e) => Ok(Err(e)),
        };
        if let Ok(Err(e)) = &r {
            self.values.diagnostics.error(e);
            let c = &self.shared.counters;
            match e.code {
                ServerError::LOCK_DEADLOCK => c.deadlocks.fetch_add(1, relaxed()),
                ServerError::LOCK_WAIT_TIMEOUT => c.timeouts.fetch_add(1, relaxed()),
                _ => 0,
            };
        }
        self.info.end(self.schema());
        r
    }
}

impl Connection {
    /// One statement of a text query (a `COM_QUERY`'s, or one of a multi-statement one's),
    /// counted as a question when `question`; `Err` when the connection ended.
    async fn text_query(
        &mut self,
        query: &str,
        question: bool,
    ) -> Result<Result<Output, ServerError>, Ended> {
        if question {
            self.info.status.question();
        }
        if let Some(cmd) = crate::sql_prepare::recognize(query) {
            return match cmd {
                Ok(cmd) => self.sql_prepare(cmd, query).await,
                Err(e) => Ok(Err(e)),
            };
        }
        if let Some(get) = crate::diagnostics::get::recognize(query) {
            // Counted once parsed, as every statement (`status.rs`).
            if get.is_ok() {
                self.info.status.count(Com::GetDiagnostics);
            }
            return Ok(crate::diagnostics::get::run(get, &mut self.values));
        }
        // The schema borrowed, not cloned: this runs for every text query.
        let (engine, current) = (&self.shared.engine, &self.session.state().current_schema);
        let shown = {
            let db = std::cell::RefCell::new(&mut self.db);
            // A view too: `SHOW FULL COLUMNS FROM v` is the view's columns, as MySQL's; and a
            // temporary table, read from the rows its `information_schema` tables would have.
            let temporary = |s: &str, t: &str, of: &str| {
                crate::info_schema::temporary_rows(&mut db.borrow_mut(), s, t, of)
                    .ok()
                    .flatten()
            };
            let has_table = |s: &str, t: &str| {
                engine.views.get(s, t).is_some()
                    || (db.borrow_mut().tables(s))
                        .is_ok_and(|v| v.iter().any(|n| n.eq_ignore_ascii_case(t)))
                    || crate::temporary::locate(&mut db.borrow_mut(), s, t).is_ok_and(|l| l.2)
            };
            crate::show_query::rewrite(
                query,
                &crate::show_query::ShowEnv {
                    current: current.as_deref(),
                    user: self.info.user(),
                    has_schema: &|s| engine.has_schema(s),
                    has_table: &has_table,
                    temporary: &temporary,
                },
            )
        };
        let parsed = match shown {
            Some(select) => select.and_then(|sql| parse_one(&sql)),
            None => parse_one(query),
        }
        .map(Arc::new);
        self.statement(
            "Query",
            query.into(),
            parsed,
            Vec::new(),
            Origin::Text,
            None,
        )
        .await
    }

    /// A multi-statement query (`parts`, more than one): the statements run in order until
    /// one fails, as in MySQL's `dispatch_sql_command` loop, and their results go out
    /// together, each flagged that more follow but the last.
    async fn several<W: AsyncWrite + Send + Unpin>(
        &mut self,
        parts: &[&str],
        results: QueryResultWriter<'_, W>,
    ) -> io::Result<()> {
        let mut outs = Vec::with_capacity(parts.len());
        for part in parts {
            let out = match self.text_query(part, true).await {
                Ok(out) => out,
                Err(Ended::Gone) => return Err(gone()),
            };
            let failed = out.is_err();
            outs.push((out, self.values.diagnostics.statement_count()));
            if failed {
                break;
            }
        }
        crate::wire::write_results(results, outs, &self.eof_warnings).await
    }
}

fn relaxed() -> std::sync::atomic::Ordering {
    std::sync::atomic::Ordering::Relaxed
}

async fn run_one(
    conn: &mut Connection,
    p: Arc<Parsed>,
    params: Vec<Value>,
    text: Arc<str>,
    origin: Origin,
    prepared: Option<u32>,
) -> Result<Output, ServerError> {
    conn.run(&p, &params, &text, &origin, prepared).await
}

/// Runs `fut` (a statement) unless the statement is killed or the client leaves first.
async fn guarded<F>(
    info: Arc<ConnInfo>,
    watch: Arc<TcpStream>,
    fut: F,
) -> Result<Result<Output, ServerError>, Ended>
where
    F: Future<Output = Result<Output, ServerError>>,
{
    tokio::select! {
        biased;
        r = fut => Ok(r),
        _ = info.kill.wait(KillScope::Query) => Ok(Err(ServerError::interrupted())),
        _ = peer_gone(&watch) => Err(Ended::Gone),
    }
}

/// Resolves when the client has closed its end (see the module docs).
async fn peer_gone(s: &TcpStream) {
    loop {
        match s.ready(Interest::READABLE).await {
            Err(_) => return,
            Ok(r) if r.is_read_closed() || r.is_error() => return,
            Ok(_) => {}
        }
        let mut b = [0u8; 1];
        match s.peek(&mut b).await {
            Ok(0) | Err(_) => return,
            Ok(_) => tokio::time::sleep(Duration::from_secs(1)).await,
        }
    }
}

/// The statement a `COM_QUERY` or `COM_STMT_PREPARE` carries: without the NUL bytes that end
/// it. Some clients count the C string's terminator in the packet (`mysqlslap`), and MySQL's
/// lexer takes a NUL at the end of the text as the end of the input (`MY_LEX_EOL` in
/// `lex_one_token`, `sql/sql_lex.cc`); inside the text it is a syntax error there, and here.
fn query_text(query: &str) -> &str {
    query.trim_end_matches('\0')
}

fn gone() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionAborted,
        "client gone mid-statement",
    )
}

/// Parses a client's text: one statement (MySQL without `CLIENT_MULTI_STATEMENTS` refuses
/// more with 1064), no deeper than `depth.rs` allows, without `?` markers (text to prepare
/// has them: [`parse_one_prepared`]).
pub(crate) fn parse_one(text: &str) -> Result<Parsed, ServerError> {
    parse_one_in(text, mdl_sql::parse)
}

/// As [`parse_one`], for text to prepare, whose `?` are parameter markers. `GET DIAGNOSTICS`
/// is parsed and then refused (`diagnostics::get::refuse_prepare`).
pub(crate) fn parse_one_prepared(text: &str) -> Result<Parsed, ServerError> {
    if let Some(get) = crate::diagnostics::get::recognize(text) {
        return Err(crate::diagnostics::get::refuse_prepare(get));
    }
    parse_one_in(text, mdl_sql::parse_prepared)
}

fn parse_one_in(
    text: &str,
    parse: fn(&str) -> Result<Vec<Parsed>, mdl_sql::SqlError>,
) -> Result<Parsed, ServerError> {
    if let Some(e) = load_data(text) {
        return Err(e);
    }
    crate::depth::check_text(text)?;
    let mut v = parse(text)?;
    for p in &v {
        if let mdl_sql::Statement::Sql { statement, .. } = &p.statement {
            crate::depth::check_statement(statement, text.len())?;
        }
        crate::unsupported::refuse(p)?;
    }
    if v.len() > 1 {
        return Err(ServerError::parse(&v[1].text));
    }
    Ok(v.remove(0))
}

/// `LOAD DATA` / `LOAD XML`, refused as MySQL 8.0 refuses them with its defaults (the
/// server reads no file and opensrv-mysql has no `LOCAL INFILE` exchange):
/// `local_infile=OFF` makes `LOCAL` `ER_CLIENT_LOCAL_FILES_DISABLED` (3948), and
/// `secure_file_priv` a file of the server's `ER_OPTION_PREVENTS_STATEMENT` (1290), rather
/// than a syntax error (`mariadb-import` sends `LOAD DATA LOCAL INFILE`).
fn load_data(text: &str) -> Option<ServerError> {
    let mut words = text.split_ascii_whitespace();
    let is = |w: Option<&str>, kw: &str| w.is_some_and(|w| w.eq_ignore_ascii_case(kw));
    if !is(words.next(), "LOAD")
        || !matches!(words.next(), Some(w) if w.eq_ignore_ascii_case("DATA") || w.eq_ignore_ascii_case("XML"))
    {
        return None;
    }
    let local = words.take(2).any(|w| w.eq_ignore_ascii_case("LOCAL"));
    Some(match local {
        true => ServerError::new(
            3948,
            "42000",
            "Loading local data is disabled; this must be enabled on both the client and server sides",
        ),
        false => ServerError::new(
            1290,
            "HY000",
            "The MySQL server is running with the --secure-file-priv option so it cannot execute \
             this statement",
        ),
    })
}

fn var_string(name: &str) -> Column {
    Column {
        table: String::new(),
        column: name.to_string(),
        coltype: ColumnType::MYSQL_TYPE_VAR_STRING,
        colflags: ColumnFlags::empty(),
    }
}

#[async_trait]
impl<W: AsyncWrite + Send + Unpin> AsyncMysqlShim<W> for Connection {
    type Error = io::Error;

    fn version(&self) -> String {
        crate::admin::VERSION.to_string()
    }

    fn connect_id(&self) -> u32 {
        self.info.id as u32
    }

    /// Accepts every login (this server has no accounts) and records it: `USER()`, the process
    /// list's `User`, and the pfs thread's `PROCESSLIST_USER`.
    async fn authenticate(
        &self,
        _auth_plugin: &str,
        username: &[u8],
        _salt: &[u8],
        _auth_data: &[u8],
    ) -> bool {
        let user = String::from_utf8_lossy(username).into_owned();
        let ip = self.watch.peer_addr().map(|a| a.ip().to_string());
        self.thread
            .set_account(&user, ip.as_deref().unwrap_or("localhost"));
        let _ = self.info.login.set(user);
        true
    }

    async fn on_prepare<'a>(
        &'a mut self,
        query: &'a str,
        info: StatementMetaWriter<'a, W>,
    ) -> io::Result<()> {
        let (query, started) = (query_text(query), std::time::Instant::now());
        self.info.status.count(Com::StmtPrepare);
        // The area is cleared, even for a diagnostic statement, and keeps the error a prepare
        // fails with (`Prepared_statement::prepare`, `sql/sql_prepare.cc`); the reply's EOFs
        // carry no warnings.
        self.values.diagnostics.begin(false);
        self.eof_warnings.set(0, 0);
        // `statement/com/Prepare`: no text, no digest (`statement_event.rs`).
        let class = crate::statement_event::class(Some(Com::StmtPrepare));
        let event = self.thread.statement_start(class, None);
        let described = parse_one_prepared(query).and_then(|p| Ok((self.describe(&p)?, p)));
        let ((params, columns), parsed) = match described {
            Ok(d) => d,
            Err(e) => {
                event.end_with(&crate::statement_event::failed(&e));
                self.values.diagnostics.error(&e);
                return info.error(ErrorKind::ER_UNKNOWN_ERROR, &marked(&e)).await;
            }
        };
        let id = self.next_statement_id();
        let row =
            crate::statement_event::prepared_row(&self.thread, class, None, id, query, started);
        event.end_with(&pfs::StatementOutcome::ok(0, 0));
        let prepared = Prepared::new(query, parsed, row);
        let params = params + prepared.lock_params;
        let params: Vec<Column> = (0..params).map(|_| var_string("?")).collect();
        let columns: Vec<Column> = columns.iter().map(|c| var_string(c)).collect();
        self.prepared.insert(id, prepared);
        self.statement_params.prepared(id, params.len());
        info.reply(id, &params, &columns).await
    }

    async fn on_execute<'a>(
        &'a mut self,
        id: u32,
        params: ParamParser<'a>,
        results: QueryResultWriter<'a, W>,
    ) -> io::Result<()> {
        self.info.status.question();
        self.info.status.count(Com::StmtExecute);
        let Some(p) = self.prepared.get(&id) else {
            let e = ServerError::new(
                1243,
                "HY000",
                format!("Unknown prepared statement handler ({id}) given to mysqld_stmt_execute"),
            );
            // Cleared first (`dispatch_command`'s COM_STMT_EXECUTE), then the error.
            self.values.diagnostics.begin(false);
            self.values.diagnostics.error(&e);
            return write_result(results, Err(e)).await;
        };
        let values = match crate::exec_params::decode(params) {
            Ok(values) => values,
            Err(e) => {
                self.values.diagnostics.begin(false);
                self.values.diagnostics.error(&e);
                return write_result(results, Err(e)).await;
            }
        };
        self.executing = p.row.executions();
        let (text, parsed, values, memo) = p.execution(id, values);
        match self
            .statement(
                "Execute",
                text,
                Ok(parsed),
                values,
                Origin::StmtExecute,
                memo,
            )
            .await
        {
            // Not an `async fn` of its own: one more future to move costs the point select
            // instructions.
            Ok(out) => {
                let count = self.values.diagnostics.statement_count();
                write_warned(results, out, count, &self.eof_warnings).await
            }
            Err(Ended::Gone) => Err(gone()),
        }
    }

    async fn on_close<'a>(&'a mut self, stmt: u32)
    where
        W: 'async_trait,
    {
        self.info.status.count(Com::StmtClose);
        // `statement/com/Close stmt`; MySQL sends no reply, and an unknown id is no error.
        let class = crate::statement_event::class(Some(Com::StmtClose));
        let event = self.thread.statement_start(class, None);
        self.prepared.remove(&stmt);
        event.end_with(&pfs::StatementOutcome::ok(0, 0));
        self.statement_params.closed(stmt);
    }

    async fn on_query<'a>(
        &'a mut self,
        query: &'a str,
        results: QueryResultWriter<'a, W>,
    ) -> io::Result<()> {
        let query = query_text(query);
        if query.is_empty() {
            let sent_as = self.empty_queries.next();
            // Every command but COM_STATISTICS is a question (`status.rs`).
            if sent_as != EmptyQuery::Statistics {
                self.info.status.question();
            }
            match sent_as {
                EmptyQuery::Reset => return write_result(results, Ok(self.reset())).await,
                EmptyQuery::Statistics => {
                    let line = crate::admin::statistics(&self.shared);
                    return write_result(results, Err(crate::wire::raw_reply(line))).await;
                }
                EmptyQuery::ChangeUser { schema } => {
                    let out = self.reset();
                    let out = match schema {
                        Some(db) => self.use_schema(&db).map(|()| out),
                        None => Ok(out),
                    };
                    return write_result(results, out).await;
                }
                EmptyQuery::Query => {}
            }
        } else if self.client.multi_statements() && query.contains(';') {
            let parts = mdl_sql::split(query);
            if parts.len() > 1 {
                return self.several(&parts, results).await;
            }
        }
        match self.text_query(query, !query.is_empty()).await {
            // Not an `async fn` of its own: one more future to move costs the point select
            // instructions.
            Ok(out) => {
                let count = self.values.diagnostics.statement_count();
                write_warned(results, out, count, &self.eof_warnings).await
            }
            Err(Ended::Gone) => Err(gone()),
        }
    }

    async fn on_init<'a>(&'a mut self, db: &'a str, w: InitWriter<'a, W>) -> io::Result<()> {
        // MySQL counts COM_INIT_DB as a USE (`dispatch_command`).
        self.info.status.question();
        self.info.status.count(Com::ChangeDb);
        match self.use_schema(db) {
            Ok(()) => w.ok().await,
            Err(e) => w.error(ErrorKind::ER_UNKNOWN_ERROR, &marked(&e)).await,
        }
    }
}
