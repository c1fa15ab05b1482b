//! The storage engine: SQLite through `rusqlite`, one database file per MySQL schema.
//!
//! Each connection has its own SQLite connection: an in-memory `main`, every schema's file
//! attached under the schema's name (`<data-dir>/<schema>.sqlite`, WAL journal), and three
//! in-memory databases of its own, `performance_schema` and `sys`, filled per query from the
//! instrumentation (`pfs_views.rs`), and `information_schema`, from the catalog
//! (`info_schema.rs`). Schemas created or dropped by one connection are attached
//! or detached by the others before their next statement (the catalog's version). A schema's
//! name is one SQLite can attach (`schema_name.rs`), checked before its file is created; a
//! file found at start that cannot be a schema, or one SQLite later refuses to attach, is left
//! out with a warning rather than failing every connection. That catalog, the data
//! directory's files and each connection's attaching of them are `schemas.rs`.
//!
//! **Writers.** SQLite lets one connection write at a time, and a read transaction that
//! later writes fails if another writer committed in between. So the engine orders writers
//! itself, as InnoDB's row locks order MySQL's: a statement that writes first takes the
//! engine's writer (an async mutex: the wait blocks no thread, is killable, and gives up after
//! `--engine-lock-wait-timeout` with 1205, InnoDB's `innodb_lock_wait_timeout` error). In a
//! multi-statement transaction the writer is held from the first write to COMMIT or ROLLBACK
//! (`BEGIN IMMEDIATE` then); reads before the first write see the latest committed data (READ
//! COMMITTED). A locking read (`FOR UPDATE`, `FOR SHARE`) takes the writer as a write does
//! (`NOWAIT`: [`EngineConn::try_take_writer`]). Metadata waits are `mdl`'s and come first; a cycle through the writer and a
//! metadata lock ends by a timeout, as a cycle through InnoDB's row locks and MDL does in
//! MySQL. What SQLite still refuses (`SQLITE_BUSY` past the busy timeout) is reported as 1213
//! and the transaction rolled back. Both are counted ([`EngineCounters`]).
//!
//! **Threads.** SQLite runs synchronously, for as long as a statement takes. Each connection
//! therefore runs on an OS thread of its own (`server.rs`), as in MySQL's one thread per
//! connection: its SQLite connection is created, used and closed on that thread only, and a
//! long statement holds that thread and nothing else (not a worker of a shared runtime, which
//! stalled every other session and `KILL` behind it). The connection's waits (metadata locks,
//! the writer, `SLEEP`) are futures on the thread's own runtime and block nothing either.
//!
//! **Kills.** `KILL QUERY` and `KILL` of a connection whose statement SQLite is running
//! interrupt it: the kill calls SQLite's interrupt of the connection (`sqlite3_interrupt`,
//! which ends the running step at once), and SQLite's progress handler polls the connection's
//! kill signal every [`KILL_POLL_OPS`] virtual-machine instructions (an interrupt that lands
//! before the statement's first step is forgotten by SQLite; the poll is not). The statement
//! fails with 1317 and ends like any failed statement: its locks go. SQLite rolls back the
//! whole transaction of an interrupted INSERT, UPDATE or DELETE, where MySQL rolls back the
//! statement: the session's transaction then ends too ([`EngineConn::lost_transaction`]).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mdl_core::KillScope;
use rusqlite::types::{Value, ValueRef};
use tokio::sync::OwnedMutexGuard;

use crate::error::ServerError;
use crate::functions::StatementClock;
use crate::processlist::{ConnInfo, EngineInterrupt, KillSignal};
use crate::statement_event::engine::EngineStatus;
use crate::wire::{Cell, Kind, Output, ResultSet};

mod schemas;

/// SQLite attaches at most 30 databases as the workspace builds it (`.cargo/config.toml`:
/// `SQLITE_MAX_ATTACHED`; 10 by default); three are each connection's `performance_schema`,
/// `sys` and `information_schema`.
pub const MAX_SCHEMAS: usize = 27;

/// How many SQLite virtual-machine instructions run between two looks at the connection's
/// kill signal (a point select runs fewer, so it never looks).
pub const KILL_POLL_OPS: std::ffi::c_int = 1000;

/// How the server's own SQL names a user table's rowid. A column the user named `rowid` (a
/// name MySQL allows) takes SQLite's `rowid` for itself, and `oid` likewise ("ROWID Tables",
/// SQLite's docs): `_rowid_`, SQLite's third alias, is one no MySQL schema is likely to use.
/// A table with a column of that name too has its rows chosen by that column instead.
pub const ROWID: &str = "_rowid_";

/// Schemas that are the server's views, not files.
pub const VIEW_SCHEMAS: [&str; 3] = ["information_schema", "performance_schema", "sys"];

/// What the engine refused, counted since start.
#[derive(Debug, Default)]
pub struct EngineCounters {
    /// Writes that waited for the writer past the timeout (1205).
    pub writer_timeouts: AtomicU64,
    /// Statements SQLite refused as busy (1213).
    pub busy: AtomicU64,
}

/// The shared part: the data directory, the catalog, the writer.
#[derive(Debug)]
pub struct Engine {
    dir: PathBuf,
    /// Schema name -> generation (a schema dropped and created again is a new file).
    catalog: Mutex<(BTreeMap<String, u64>, u64)>,
    writer: Arc<tokio::sync::Mutex<()>>,
    write_timeout: Duration,
    busy_timeout: Duration,
    /// What was refused.
    pub counters: EngineCounters,
    /// Every schema's views (`views.rs`).
    pub views: crate::views::ViewCatalog,
    /// Every schema's foreign keys (`foreign_keys.rs`).
    pub foreign_keys: crate::foreign_keys::FkCatalog,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A schema name as a SQLite identifier.
pub fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

fn engine_err(e: rusqlite::Error) -> ServerError {
    ServerError::from_engine(&e, None)
}

/// A connection's SQLite side.
#[derive(Debug)]
pub struct EngineConn {
    engine: Arc<Engine>,
    /// The SQLite connection (in a mutex only so the connection type is `Sync`; reached with
    /// `get_mut`).
    db: Mutex<rusqlite::Connection>,
    attached: BTreeMap<String, u64>,
    version: u64,
    writer: Option<HeldWriter>,
    /// The client connection this engine connection serves.
    conn: Arc<ConnInfo>,
    /// A `BEGIN IMMEDIATE` transaction is open.
    in_txn: bool,
    /// When the running statement started: what `NOW()` reads (`functions.rs`).
    clock: Arc<StatementClock>,
    /// What the running statement's calls set (`LAST_INSERT_ID(expr)`).
    outcome: Arc<crate::functions::StatementOutcome>,
    /// The temporary tables made and dropped in the open transaction (`temporary.rs`).
    journal: crate::temporary::Journal,
    /// `foreign_key_checks`: the session's, and SQLite's `foreign_keys` as set (`foreign_keys.rs`).
    pub fk_checks: (bool, bool),
    /// What SQLite's statements did for the running statement (`statement_event/engine.rs`).
    pub(crate) status: EngineStatus,
}

impl EngineConn {
    /// A new connection to `engine` for the client connection `info`, whose kills interrupt
    /// it (see the module docs).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn new(engine: Arc<Engine>, info: &Arc<ConnInfo>) -> Result<EngineConn, ServerError> {
        let db = rusqlite::Connection::open_in_memory().map_err(engine_err)?;
        db.busy_timeout(engine.busy_timeout).map_err(engine_err)?;
        let killed = info.clone();
        db.progress_handler(KILL_POLL_OPS, Some(move || killed.kill.pending().is_some()));
        let _ = info
            .interrupt
            .set(EngineInterrupt(db.get_interrupt_handle()));
        db.set_prepared_statement_cache_capacity(128);
        let clock = Arc::new(StatementClock::new());
        let outcome = Arc::default();
        crate::functions::register(&db, &clock, &outcome).map_err(engine_err)?;
        // SQLite fires delete triggers for the rows REPLACE deletes only with this on, and
        // REPLACE's affected rows count them so (`replace_rows.rs`); the server makes no other
        // triggers. Set once: setting the flag expires every prepared statement.
        db.execute_batch("PRAGMA recursive_triggers = ON")
            .map_err(engine_err)?;
        // A RENAME TABLE leaves the views that read the table naming its old name, as MySQL's
        // (SQLite would rewrite them: their MySQL definition and locks would then disagree).
        db.execute_batch("PRAGMA legacy_alter_table = ON")
            .map_err(engine_err)?;
        for v in VIEW_SCHEMAS {
            db.execute_batch(&format!("ATTACH DATABASE ':memory:' AS {}", quote(v)))
                .map_err(engine_err)?;
        }
        let mut c = EngineConn {
            engine,
            db: Mutex::new(db),
            attached: BTreeMap::new(),
            version: 0,
            writer: None,
            conn: info.clone(),
            in_txn: false,
            clock,
            outcome,
            journal: Default::default(),
            fk_checks: (true, false),
            status: Default::default(),
        };
        c.refresh();
        Ok(c)
    }

    /// The SQLite connection.
    pub fn db(&mut self) -> &mut rusqlite::Connection {
        self.db.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    /// A statement of a session in the time zone `offset` seconds east of UTC starts
    /// executing: `NOW()` and its kin read this time, in that zone, until the next.
    pub fn start_statement(&self, offset: i64) {
        self.clock.start(offset);
        self.outcome.take_last_insert_id();
        self.outcome.take_updated_rows();
        self.outcome.replaced().take_deleted();
    }

    /// The rows the statement's UPDATE (or upsert) updated, and those of them it left as they
    /// were (`rewrite/changed.rs`).
    pub fn take_updated_rows(&self) -> (u64, u64) {
        self.outcome.take_updated_rows()
    }

    /// What the running REPLACE's triggers report (`replace_rows.rs`).
    pub fn replaced(&self) -> &crate::replace_rows::Replaced {
        self.outcome.replaced()
    }

    /// The value a `LAST_INSERT_ID(expr)` of the statement set, if one ran.
    pub fn take_last_insert_id(&self) -> Option<i64> {
        self.outcome.take_last_insert_id()
    }

    /// What the open transaction did to temporary tables (`temporary.rs`).
    pub fn journal(&mut self) -> &mut crate::temporary::Journal {
        &mut self.journal
    }

    /// The engine.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Whether a write transaction is open.
    pub fn in_transaction(&self) -> bool {
        self.in_txn
    }

    /// Takes the engine's writer (see the module docs) unless held; a kill of the query ends
    /// the wait with 1317, the timeout with 1205.
    ///
    /// # Errors
    /// 1317, 1205.
    pub async fn take_writer(&mut self, kill: &KillSignal) -> Result<(), ServerError> {
        if self.writer.is_some() {
            return Ok(());
        }
        let m = self.engine.writer.clone();
        let got = tokio::select! {
            g = tokio::time::timeout(self.engine.write_timeout, m.lock_owned()) => g,
            _ = kill.wait(KillScope::Query) => return Err(ServerError::interrupted()),
        };
        match got {
            Ok(g) => {
                self.writer = Some(HeldWriter::new(g, &self.conn));
                Ok(())
            }
            Err(_) => {
                self.engine
                    .counters
                    .writer_timeouts
                    .fetch_add(1, Ordering::Relaxed);
                Err(ServerError::lock_wait_timeout())
            }
        }
    }

    /// Takes the engine's writer if it is free or held (a locking read's `NOWAIT`).
    ///
    /// # Errors
    /// 3572 (`ER_LOCK_NOWAIT`) when another connection holds it.
    pub fn try_take_writer(&mut self) -> Result<(), ServerError> {
        if self.writer.is_none() {
            let g = (self.engine.writer.clone().try_lock_owned()).map_err(|_| {
                ServerError::new(
                    3572,
                    "HY000",
                    "Statement aborted because lock(s) could not be acquired immediately and \
                     NOWAIT is set.",
                )
            })?;
            self.writer = Some(HeldWriter::new(g, &self.conn));
        }
        Ok(())
    }

    /// Starts the write transaction (`BEGIN IMMEDIATE`) if none is open; the writer must be
    /// held.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn begin(&mut self) -> Result<(), ServerError> {
        if !self.in_txn {
            self.batch("BEGIN IMMEDIATE")?;
            self.in_txn = true;
        }
        Ok(())
    }

    /// Ends the write transaction (commit or rollback) and gives the writer back.
    ///
    /// # Errors
    /// SQLite's error on COMMIT (the transaction is then rolled back).
    pub fn end(&mut self, commit: bool) -> Result<(), ServerError> {
        let mut r = Ok(());
        if self.in_txn {
            self.in_txn = false;
            if commit {
                r = self.batch("COMMIT");
            }
            if !commit || r.is_err() {
                let _ = self.db().execute_batch("ROLLBACK");
            }
            crate::temporary::transaction_ended(self, commit && r.is_ok());
        }
        self.writer = None;
        r
    }

    /// Whether SQLite ended the open transaction by itself (it rolls the whole transaction
    /// back when a write in it is interrupted); the engine then forgets it and gives the
    /// writer back.
    pub fn lost_transaction(&mut self) -> bool {
        if !self.in_txn || !self.db().is_autocommit() {
            return false;
        }
        self.in_txn = false;
        self.writer = None;
        crate::temporary::transaction_ended(self, false);
        true
    }

    /// Gives the writer back if no transaction needs it.
    pub fn release_writer(&mut self) {
        if !self.in_txn {
            self.writer = None;
        }
    }

    fn batch(&mut self, sql: &str) -> Result<(), ServerError> {
        let r = self.db().execute_batch(sql);
        r.map_err(|e| self.fail(e, None))
    }

    fn fail(&mut self, e: rusqlite::Error, schema: Option<&str>) -> ServerError {
        let err = ServerError::from_engine(&e, schema);
        if err.code == ServerError::LOCK_DEADLOCK {
            self.engine.counters.busy.fetch_add(1, Ordering::Relaxed);
        }
        err
    }

    /// Runs one statement with positional `params`: a result set if it has columns, else the
    /// rows it changed and the last insert id.
    ///
    /// # Errors
    /// SQLite's error as a MySQL error (see `error.rs`); `schema` names unqualified tables in it.
    pub fn run(
        &mut self,
        sql: &str,
        params: &[Value],
        schema: Option<&str>,
    ) -> Result<Output, ServerError> {
        let db = self.db.get_mut().unwrap_or_else(|e| e.into_inner());
        let r = run_on(db, sql, params, &mut self.status);
        r.map_err(|e| self.fail(e, schema))
    }

    /// Runs statements that return nothing (DDL, pfs snapshots).
    ///
    /// # Errors
    /// SQLite's error as a MySQL error.
    pub fn execute_batch(&mut self, sql: &str) -> Result<(), ServerError> {
        self.batch(sql)
    }

    /// The tables of `schema`, sorted; not SQLite's own (`sqlite_sequence`, which holds the
    /// `AUTO_INCREMENT` counters, and `sqlite_stat1`: SQLite reserves the prefix).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn tables(&mut self, schema: &str) -> Result<Vec<String>, ServerError> {
        let sql = format!(
            "SELECT name FROM {}.sqlite_master WHERE type = 'table' \
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
            quote(schema)
        );
        let out = self.run(&sql, &[], None)?;
        Ok(match out {
            Output::Rows(rs) => rs
                .rows
                .into_iter()
                .filter_map(|r| match r.into_iter().next() {
                    Some(Cell::Text(t)) => Some(t),
                    _ => None,
                })
                .collect(),
            Output::Done { .. } => Vec::new(),
        })
    }
}

/// The engine's writer, held by a connection, which says so while it holds it
/// (`ConnInfo::holds_writer`: `sys.innodb_lock_waits` names the connection its waiters wait
/// for).
#[derive(Debug)]
struct HeldWriter {
    _guard: OwnedMutexGuard<()>,
    conn: Arc<ConnInfo>,
}

impl HeldWriter {
    fn new(guard: OwnedMutexGuard<()>, conn: &Arc<ConnInfo>) -> HeldWriter {
        conn.holds_writer.store(true, Ordering::Relaxed);
        HeldWriter {
            _guard: guard,
            conn: conn.clone(),
        }
    }
}

impl Drop for HeldWriter {
    fn drop(&mut self) {
        self.conn.holds_writer.store(false, Ordering::Relaxed);
    }
}

fn run_on(
    db: &rusqlite::Connection,
    sql: &str,
    params: &[Value],
    status: &mut EngineStatus,
) -> rusqlite::Result<Output> {
    let mut stmt = db.prepare_cached(sql)?;
    let n = stmt.column_count();
    if n == 0 {
        let changed = stmt.execute(rusqlite::params_from_iter(params.iter()))?;
        status.add(&stmt);
        return Ok(Output::Done {
            affected: changed as u64,
            last_insert_id: db.last_insert_rowid().max(0) as u64,
        });
    }
    // The columns are read once the statement has stepped: SQLite prepares again at the first
    // step when another connection changed the schema (`SELECT *` after an ALTER TABLE).
    let mut described = None;
    let mut n = n;
    let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let (_, kinds) = described.get_or_insert_with(|| {
            let st = r.as_ref();
            n = st.column_count();
            names_and_kinds(st)
        });
        let mut row = Vec::with_capacity(n);
        for i in 0..n {
            row.push(match r.get_ref(i)? {
                ValueRef::Null => Cell::Null,
                ValueRef::Integer(i) => Cell::Int(i),
                ValueRef::Real(f) => Cell::Real(f),
                // A JSON column's text is given as MySQL prints it (`rewrite/json.rs`).
                ValueRef::Text(t) if kinds.get(i) == Some(&Some(Kind::Json)) => {
                    let t = String::from_utf8_lossy(t);
                    Cell::Text(crate::functions::json_column_text(&t).unwrap_or(t.into_owned()))
                }
                ValueRef::Text(t) => Cell::Text(owned_text(t)),
                ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
            });
        }
        out.push(row);
    }
    drop(rows);
    status.add(&stmt);
    let (columns, kinds) = described.unwrap_or_else(|| names_and_kinds(&stmt));
    Ok(Output::Rows(ResultSet {
        columns,
        rows: out,
        kinds,
    }))
}

/// A text cell's bytes as a `String`: checked by `str::from_utf8`, which runs over ASCII a
/// word at a time (a sysbench row's 120-byte column cost 850 instructions through
/// `from_utf8_lossy`'s byte-wise chunks); invalid UTF-8, which SQLite lets a TEXT value hold,
/// still gets its replacement characters.
fn owned_text(t: &[u8]) -> String {
    match std::str::from_utf8(t) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(t).into_owned(),
    }
}

/// The names of the columns of `st`, and the wire kind of each from its declared type
/// (`wire/kind.rs`; empty when none has one, as for a point select's INT and CHAR columns).
fn names_and_kinds(st: &rusqlite::Statement<'_>) -> (Vec<String>, Vec<Option<Kind>>) {
    let cols = st.columns();
    let names = cols.iter().map(|c| c.name().to_string()).collect();
    let kind = |c: &rusqlite::Column<'_>| c.decl_type().and_then(Kind::from_declared);
    let kinds = match cols.iter().any(|c| kind(c).is_some()) {
        true => cols.iter().map(kind).collect(),
        false => Vec::new(),
    };
    (names, kinds)
}
