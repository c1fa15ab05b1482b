//! The server loop: listen, accept, one thread per connection.
//!
//! The listener runs on the caller's tokio runtime; each accepted socket gets `TCP_NODELAY`
//! (without it every answer waits for the client's delayed ACK, about 40 ms), a connection id,
//! and an OS thread of its own ([`CONNECTION_STACK`] of stack) with a current-thread tokio
//! runtime that runs `opensrv-mysql`'s loop on the socket's halves. A statement's engine work
//! is synchronous (SQLite) and may take seconds: on a thread of its own it holds up no other
//! connection, no `KILL` and no accept, whatever the number of workers (see `engine.rs`). A
//! duplicate of the socket stays with the connection so it can tell, while a statement waits,
//! that the client is gone (see `connection.rs`). Each connection is a `pfs` session thread
//! (`thread/sql/one_connection`, `PROCESSLIST_ID` its id), entered on its OS thread for the
//! connection's life, and its context records its metadata-lock waits there. `KILL
//! CONNECTION` of the connection drops its loop wherever it is (idle, inside a statement's
//! wait, or, once SQLite's interrupt returns, inside the engine), which closes the socket and
//! drops the session: its requests leave their queues and its locks are released.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mdl_core::{KillScope, MdlManager};
use opensrv_mysql::{AsyncMysqlIntermediary, IntermediaryOptions};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::command_map::{ClientFlags, CommandMap, EmptyQueries};
use crate::config::{Mode, ServerConfig};
use crate::connection::Connection;
use crate::constant::Constant;
use crate::engine::Engine;
use crate::error::ServerError;
use crate::execute_types::{ExecuteTypes, StatementParams};
use crate::processlist::{ConnInfo, Processlist};
use crate::wire::ErrorCodes;

/// The stack of a connection's thread: a statement as deep as `depth.rs` lets through is
/// cloned (about 6 MiB at 1,000 levels in a debug build, 1.5 MiB in a release one) and a
/// refused one dropped (about 160 bytes a level, up to 10,000 levels) on it. Only the pages a
/// connection touches are memory.
pub const CONNECTION_STACK: usize = 16 << 20;

/// What every connection shares.
#[derive(Debug)]
pub struct Shared {
    /// The flags.
    pub cfg: ServerConfig,
    /// The port actually bound.
    pub port: u16,
    /// The lock manager.
    pub mgr: Arc<MdlManager>,
    /// The engine.
    pub engine: Arc<Engine>,
    /// The connections.
    pub procs: Processlist,
    /// Statements that ended with 1213 or 1205.
    pub counters: StatementCounters,
    /// `@@global.lock_wait_timeout` in seconds: new sessions start with it (`SET GLOBAL`
    /// changes it; `--lock-wait-timeout` sets it at start).
    pub global_lock_wait_timeout: AtomicU64,
    /// When the server started (`Uptime`).
    pub started: std::time::Instant,
    next_id: AtomicU64,
}

impl Shared {
    /// Connections accepted since start (MySQL's `Connections`).
    pub fn connections(&self) -> u64 {
        self.next_id.load(Ordering::Relaxed) - 1
    }
}

/// Statements that ended with an error sysbench retries, counted since start (the others are
/// counted per session: `status.rs`).
#[derive(Debug, Default)]
pub struct StatementCounters {
    /// 1213.
    pub deadlocks: AtomicU64,
    /// 1205.
    pub timeouts: AtomicU64,
}

/// A running server (stopped when dropped, or with [`RunningServer::stop`]).
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl RunningServer {
    /// Where it listens.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The state its connections share (the lock manager, the process list).
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Stops accepting and closes every connection.
    pub fn stop(self) {}

    /// Serves until the accept loop ends (never, unless the listener fails).
    pub async fn wait(mut self) {
        let _ = (&mut self.task).await;
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.task.abort();
        let ids: Vec<u64> = self
            .shared
            .procs
            .rows(&self.shared.mgr)
            .iter()
            .map(|p| p.id)
            .collect();
        for id in ids {
            let _ = self
                .shared
                .procs
                .kill(&self.shared.mgr, id, KillScope::Connection);
        }
    }
}

/// Starts a server on the current tokio runtime: applies the instrumentation preset, opens
/// the data directory, binds, and accepts in a task.
///
/// # Errors
/// A bad flag value, the data directory, or the bind.
pub async fn start(cfg: ServerConfig) -> Result<RunningServer, ServerError> {
    let preset = cfg
        .preset()
        .map_err(|e| ServerError::new(1105, "HY000", e.to_string()))?;
    pfs::apply_preset(preset);
    pfs::register_errors(&crate::error::KNOWN_ERRORS);
    crate::stage_event::register();
    let mgr = MdlManager::new(
        cfg.mdl_config()
            .map_err(|e| ServerError::new(1105, "HY000", e.to_string()))?,
    )
    .map_err(|e| ServerError::new(1105, "HY000", e.to_string()))?;
    let engine = Engine::open(
        cfg.data_dir.clone(),
        &cfg.schema,
        Duration::from_secs(cfg.engine_lock_wait_timeout),
        Duration::from_millis(cfg.busy_timeout_ms),
    )?;
    let listener = TcpListener::bind((cfg.bind, cfg.port))
        .await
        .map_err(|e| ServerError::new(1105, "HY000", format!("bind: {e}")))?;
    let addr = listener
        .local_addr()
        .map_err(|e| ServerError::new(1105, "HY000", e.to_string()))?;
    let lock_wait_timeout = cfg.lock_wait_timeout;
    let shared = Arc::new(Shared {
        cfg,
        port: addr.port(),
        mgr,
        engine: Arc::new(engine),
        procs: Processlist::default(),
        counters: StatementCounters::default(),
        global_lock_wait_timeout: AtomicU64::new(lock_wait_timeout),
        started: std::time::Instant::now(),
        next_id: AtomicU64::new(1),
    });
    let s = shared.clone();
    let task = tokio::spawn(async move {
        while let Ok((sock, peer)) = listener.accept().await {
            if let Err(e) = spawn_connection(s.clone(), sock, peer) {
                eprintln!("mdl-server: connection from {peer} refused: {e}");
            }
        }
    });
    Ok(RunningServer { addr, shared, task })
}

/// Starts the thread that serves `sock` (see the module docs).
fn spawn_connection(shared: Arc<Shared>, sock: TcpStream, peer: SocketAddr) -> io::Result<()> {
    sock.set_nodelay(true)?;
    // Leaves the listener's runtime: the socket is registered again on the thread's.
    let sock = sock.into_std()?;
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    std::thread::Builder::new()
        .name(format!("conn-{id}"))
        .stack_size(CONNECTION_STACK)
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            match rt {
                Ok(rt) => {
                    let _ = rt.block_on(serve(shared, sock, peer, id));
                }
                Err(e) => eprintln!("mdl-server: connection {id}: tokio: {e}"),
            }
        })?;
    Ok(())
}

/// Runs one connection to its end, on its thread.
async fn serve(
    shared: Arc<Shared>,
    std: std::net::TcpStream,
    peer: SocketAddr,
    id: u64,
) -> io::Result<()> {
    let watch = TcpStream::from_std(std.try_clone()?)?;
    let sock = TcpStream::from_std(std)?;
    let (r, w) = sock.into_split();
    // The engine mode runs a query of several statements (`Connection::several`), which
    // the constant mode, one answer per query, does not.
    let w = match shared.cfg.mode {
        Mode::Constant => ErrorCodes::new(w),
        _ => ErrorCodes::with_multi_statements(w),
    };
    let opts = IntermediaryOptions::default();
    // Registered in either mode, so that stopping the server closes the connection.
    let info = shared.procs.add(id, peer.to_string());
    let _listed = Listed(&shared.procs, id);
    let r = if shared.cfg.mode == Mode::Constant {
        let shim = Constant::new(id as u32);
        // A packet per read, as opensrv-mysql 0.7 needs (`command_map.rs`).
        let r = CommandMap::unmapped(r);
        until_killed(
            &info,
            AsyncMysqlIntermediary::run_with_options(shim, r, w, &opts),
        )
        .await
    } else {
        // The connection's pfs thread: its events (statements, waits, the engine's
        // instrumented locks) land here, as a connection's do on its `PFS_thread` in MySQL.
        // Its account is set by the handshake (`Connection::authenticate`).
        let thread = pfs::SessionThread::new("thread/sql/one_connection", id);
        // The commands opensrv-mysql does not parse (`command_map.rs`); the constant mode,
        // which answers no statement, maps none.
        // The handshake's attributes go to the process list (`connect_attrs.rs`).
        let client = ClientFlags::new(info.connect_attrs.clone());
        let empty = EmptyQueries::default();
        // Executions sent without their parameters' types get them (`execute_types.rs`).
        let params = StatementParams::default();
        let r = ExecuteTypes::new(r, params.clone());
        let r = CommandMap::new(r, empty.clone(), client.clone());
        match Connection::new(
            shared.clone(),
            info.clone(),
            Arc::new(watch),
            &thread,
            empty,
            client,
            params,
        ) {
            Ok(mut conn) => {
                // The stream writes the warning count the connection gives its EOF packets.
                conn.eof_warnings = w.eof_warnings();
                // Entered once for the rest of the connection rather than per poll
                // (`SessionThread::instrument`): this OS thread runs this connection alone,
                // so the session stays current between polls as well, and a statement pays
                // no thread-local swaps (about 55 instructions a point select).
                let _entered = thread.enter();
                let run = AsyncMysqlIntermediary::run_with_options(conn, r, w, &opts);
                until_killed(&info, run).await
            }
            Err(_) => Ok(()),
        }
    };
    r
}

/// Takes a connection off the process list however its thread ends: a panic there unwinds
/// through this too (its locks go with its context), and no `Sleep` row is left behind.
struct Listed<'a>(&'a Processlist, u64);

impl Drop for Listed<'_> {
    fn drop(&mut self) {
        self.0.remove(self.1);
    }
}

/// Runs a connection until it ends or is killed (`KILL`, or the server stopping).
async fn until_killed(
    info: &ConnInfo,
    run: impl std::future::Future<Output = io::Result<()>>,
) -> io::Result<()> {
    tokio::select! {
        // A killed connection runs nothing more, even with a command waiting.
        biased;
        _ = info.kill.wait(KillScope::Connection) => Ok(()),
        r = run => r,
    }
}
