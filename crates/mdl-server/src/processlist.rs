//! The live connections: what `SHOW PROCESSLIST` and `performance_schema.processlist` show,
//! and where `KILL` finds a connection.
//!
//! Each connection registers a [`ConnInfo`] under its id (the `MdlContext`'s id too) and
//! updates its activity as statements start and end. `State` is not kept by the connection:
//! it is read when the list is shown, from the lock manager's waits (`MdlManager::lock_waits`:
//! a waiting context shows MySQL's stage name of the namespace it waits in,
//! `Namespace::wait_state_name`), else from what the connection says it is doing.
//!
//! A kill ([`Processlist::kill`]) is three things: the lock manager's (`MdlManager::kill`,
//! which ends a metadata-lock wait with 1317), the connection's own [`KillSignal`], which ends
//! every other wait (the engine's writer) and, for `KILL CONNECTION`, closes an idle
//! connection, and SQLite's interrupt of the connection's engine connection, which ends a
//! statement SQLite is running (`engine.rs`: the engine also polls the signal while it runs,
//! so a kill that lands just before SQLite starts is not lost).
//!
//! A connection also says when its transaction started ([`ConnInfo::after_statement`]), for
//! `information_schema.INNODB_TRX`, where a DBA finds the old transaction that holds the
//! metadata lock an `ALTER TABLE` waits for.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Instant, SystemTime};

use mdl_core::{ContextId, KillScope, MdlManager};
use tokio::sync::Notify;

use crate::connect_attrs::ConnectAttrs;
use crate::error::ServerError;
use crate::published::Published;
use crate::status::{Counts, ServerStatus, SessionStatus};

/// What a connection is doing.
#[derive(Debug, Clone)]
pub struct Activity {
    /// `Sleep`, `Query`, `Execute`, `Prepare`.
    pub command: &'static str,
    /// Since when.
    pub since: Instant,
    /// The statement's text.
    pub info: Option<Arc<str>>,
    /// The state shown when no metadata-lock wait says otherwise.
    pub state: &'static str,
    /// The current schema.
    pub db: Option<String>,
}

/// A connection's kill flags and wake-up.
#[derive(Debug, Default)]
pub struct KillSignal {
    /// 0 none, 1 query, 2 connection.
    level: AtomicU8,
    notify: Notify,
}

impl KillSignal {
    /// Raises the kill to `scope` (a query kill never lowers a connection kill).
    pub fn raise(&self, scope: KillScope) {
        let l = match scope {
            KillScope::Query => 1,
            KillScope::Connection => 2,
        };
        self.level.fetch_max(l, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// The pending kill.
    pub fn pending(&self) -> Option<KillScope> {
        match self.level.load(Ordering::SeqCst) {
            0 => None,
            1 => Some(KillScope::Query),
            _ => Some(KillScope::Connection),
        }
    }

    /// A new statement starts: a query kill is forgotten (MySQL clears `KILL_QUERY` in
    /// `dispatch_command`).
    pub fn clear_query(&self) {
        let _ = self
            .level
            .compare_exchange(1, 0, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Resolves once a kill of at least `scope` is pending.
    pub async fn wait(&self, scope: KillScope) {
        let enough = |s: Option<KillScope>| {
            matches!(
                (s, scope),
                (Some(KillScope::Connection), _) | (Some(KillScope::Query), KillScope::Query)
            )
        };
        loop {
            let n = self.notify.notified();
            if enough(self.pending()) {
                return;
            }
            n.await;
        }
    }
}

/// The state of a connection that waits for the engine's writer (`engine_step.rs`).
pub const WAITING_FOR_WRITER: &str = "waiting for the engine's writer";

/// A registered connection.
#[derive(Debug)]
pub struct ConnInfo {
    /// The connection id (`CONNECTION_ID()`, `KILL` id, the `MdlContext`'s id).
    pub id: u64,
    /// The login, once the handshake has authenticated it ([`ConnInfo::user`]).
    pub login: OnceLock<String>,
    /// The client's `host:port`.
    pub host: String,
    /// What it is doing.
    pub activity: Mutex<Activity>,
    /// Its kill.
    pub kill: KillSignal,
    /// Interrupts what its engine connection runs (set when the connection has one).
    pub interrupt: OnceLock<EngineInterrupt>,
    /// Its open transaction, if any.
    pub transaction: Mutex<Option<Transaction>>,
    /// It holds the engine's writer (`engine.rs`).
    pub holds_writer: AtomicBool,
    /// Its statement counters (`Com_*`, `Questions`).
    pub status: SessionStatus,
    /// The attributes its handshake sent (`connect_attrs.rs`), set by its reader.
    pub connect_attrs: ConnectAttrs,
    /// Its session and `@` variables, as it last published them (`published.rs`).
    pub published: Published,
}

/// An open transaction of a connection, as `information_schema.INNODB_TRX` shows it.
#[derive(Debug, Clone, Copy)]
pub struct Transaction {
    /// Its number, in the order transactions started on this server (`trx_id`).
    pub id: u64,
    /// When its first statement started (`trx_started`): InnoDB starts a transaction at its
    /// first statement, not at `BEGIN`.
    pub started: SystemTime,
    /// The rows its statements inserted, updated or deleted (`trx_rows_modified`).
    pub rows_modified: u64,
}

/// The transaction numbers.
static NEXT_TRANSACTION: AtomicU64 = AtomicU64::new(1);

/// SQLite's interrupt of a connection's engine connection (callable from any thread).
pub struct EngineInterrupt(pub rusqlite::InterruptHandle);

impl std::fmt::Debug for EngineInterrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EngineInterrupt")
    }
}

impl ConnInfo {
    /// The login, or MySQL's `unauthenticated user` during the handshake.
    pub fn user(&self) -> &str {
        self.login
            .get()
            .map_or("unauthenticated user", String::as_str)
    }

    /// Records the start of a command.
    pub fn begin(&self, command: &'static str, info: Option<Arc<str>>, db: Option<&str>) {
        self.set_activity(command, info, "executing", db);
    }

    /// One lock per change, and the schema's name copied only when it changed: this runs twice
    /// a statement.
    fn set_activity(
        &self,
        command: &'static str,
        info: Option<Arc<str>>,
        state: &'static str,
        db: Option<&str>,
    ) {
        let mut a = self.activity.lock().unwrap_or_else(|e| e.into_inner());
        a.command = command;
        a.since = Instant::now();
        a.info = info;
        a.state = state;
        if a.db.as_deref() != db {
            a.db = db.map(str::to_string);
        }
    }

    /// Sets the state shown while no metadata-lock wait says otherwise.
    pub fn set_state(&self, state: &'static str) {
        self.activity
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .state = state;
    }

    /// After a statement that started at `started` and changed `modified` rows: `open` says
    /// whether the session's transaction is open now (`SessionState::in_transaction`); a
    /// `BEGIN` (`begins`) opens one that InnoDB would not show until its first statement.
    pub fn after_statement(&self, open: bool, begins: bool, started: SystemTime, modified: u64) {
        let mut t = self.transaction.lock().unwrap_or_else(|e| e.into_inner());
        if !open {
            *t = None;
            return;
        }
        match &mut *t {
            Some(trx) => trx.rows_modified += modified,
            None if !begins => {
                *t = Some(Transaction {
                    id: NEXT_TRANSACTION.fetch_add(1, Ordering::Relaxed),
                    started,
                    rows_modified: modified,
                })
            }
            None => {}
        }
    }

    /// Back to `Sleep`.
    pub fn end(&self, db: Option<&str>) {
        self.set_activity("Sleep", None, "", db);
    }
}

/// One row of the process list.
#[derive(Debug, Clone)]
pub struct Process {
    /// Id.
    pub id: u64,
    /// User.
    pub user: String,
    /// Host.
    pub host: String,
    /// db.
    pub db: Option<String>,
    /// Command.
    pub command: &'static str,
    /// Time (seconds in the command).
    pub time: u64,
    /// The time in the command, to the nanosecond (`sys.processlist`'s latencies).
    pub elapsed: std::time::Duration,
    /// State.
    pub state: String,
    /// Info.
    pub info: Option<String>,
    /// Its open transaction.
    pub transaction: Option<Transaction>,
    /// It waits for the engine's writer (InnoDB's row locks' counterpart here), not for a
    /// metadata lock.
    pub waits_for_writer: bool,
    /// It holds the engine's writer.
    pub holds_writer: bool,
    /// Its connection attributes, parsed only where shown.
    pub connect_attrs: ConnectAttrs,
}

/// Every live connection, by id.
#[derive(Debug, Default)]
pub struct Processlist {
    conns: Mutex<BTreeMap<u64, Arc<ConnInfo>>>,
    /// The counters of the connections that ended (`status.rs`), guarded by `conns`' lock as
    /// far as totals go.
    ended: ServerStatus,
}

impl Processlist {
    /// Registers a connection (before its handshake: the login comes later).
    pub fn add(&self, id: u64, host: String) -> Arc<ConnInfo> {
        let info = Arc::new(ConnInfo {
            id,
            login: OnceLock::new(),
            host,
            activity: Mutex::new(Activity {
                command: "Sleep",
                since: Instant::now(),
                info: None,
                state: "",
                db: None,
            }),
            kill: KillSignal::default(),
            interrupt: OnceLock::new(),
            transaction: Mutex::new(None),
            holds_writer: AtomicBool::new(false),
            status: SessionStatus::default(),
            connect_attrs: ConnectAttrs::default(),
            published: Published::default(),
        });
        self.lock().insert(id, info.clone());
        info
    }

    /// Unregisters a connection, keeping its counts in the server's.
    pub fn remove(&self, id: u64) {
        let mut conns = self.lock();
        if let Some(c) = conns.remove(&id) {
            self.ended.retire(&c.status);
        }
    }

    /// `FLUSH STATUS` on connection `c` (run by `c`'s task, its counters' one writer): its
    /// counts go to the server's and its own start again from 0, as MySQL's manual says of
    /// the statement; under the list's lock, so a total never counts them twice or not at
    /// all.
    pub fn flush_status(&self, c: &ConnInfo) {
        let _conns = self.lock();
        self.ended.retire(&c.status);
        c.status.clear();
    }

    /// The server's statement counters: the ended connections' and the live ones'.
    pub fn status_total(&self) -> Counts {
        let conns = self.lock();
        self.ended.total(conns.values().map(|c| &c.status))
    }

    /// Every live connection, by id.
    pub fn conns(&self) -> Vec<Arc<ConnInfo>> {
        self.lock().values().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<ConnInfo>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `KILL [QUERY | CONNECTION] id`.
    ///
    /// # Errors
    /// 1094 for an id no connection has.
    pub fn kill(&self, mgr: &MdlManager, id: u64, scope: KillScope) -> Result<(), ServerError> {
        let conn = self
            .lock()
            .get(&id)
            .cloned()
            .ok_or_else(|| ServerError::no_such_thread(id))?;
        // The context may be between statements or gone already: the signal still counts.
        let _ = mgr.kill(ContextId::new(id), scope);
        conn.kill.raise(scope);
        if let Some(engine) = conn.interrupt.get() {
            engine.0.interrupt();
        }
        Ok(())
    }

    /// The process list, ordered by id, with each waiting connection's MySQL state.
    pub fn rows(&self, mgr: &MdlManager) -> Vec<Process> {
        let waits = mgr.lock_waits();
        let conns: Vec<Arc<ConnInfo>> = self.lock().values().cloned().collect();
        conns
            .iter()
            .map(|c| {
                let a = c.activity.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let waiting = waits
                    .rows
                    .iter()
                    .find(|w| w.waiting.as_u64() == c.id)
                    .map(|w| w.key.namespace().wait_state_name().to_string());
                Process {
                    id: c.id,
                    user: c.user().to_string(),
                    host: c.host.clone(),
                    db: a.db.clone(),
                    command: a.command,
                    time: a.since.elapsed().as_secs(),
                    elapsed: a.since.elapsed(),
                    waits_for_writer: waiting.is_none() && a.state == WAITING_FOR_WRITER,
                    state: waiting.unwrap_or_else(|| a.state.to_string()),
                    info: a.info.as_deref().map(str::to_string),
                    transaction: *c.transaction.lock().unwrap_or_else(|e| e.into_inner()),
                    holds_writer: c.holds_writer.load(Ordering::Relaxed),
                    connect_attrs: c.connect_attrs.clone(),
                }
            })
            .collect()
    }
}
