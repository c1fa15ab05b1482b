//! The server loop: listen, accept, one task per connection.
//!
//! Each accepted socket gets `TCP_NODELAY` (without it every answer waits for the client's
//! delayed ACK, about 40 ms), a connection id, and a task that runs `opensrv-mysql`'s loop on
//! the socket's halves. A duplicate of the socket stays with the connection so it can tell,
//! while a statement waits, that the client is gone (see `connection.rs`). Each connection is
//! a `pfs` session thread (`thread/sql/one_connection`, `PROCESSLIST_ID` its id): its task runs
//! entered in it, and its context records its metadata-lock waits there. `KILL CONNECTION`
//! of the connection drops its loop wherever it is (idle, or inside a statement's wait),
//! which closes the socket and drops the session: its requests leave their queues and its
//! locks are released.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mdl_core::{KillScope, MdlManager};
use opensrv_mysql::{AsyncMysqlIntermediary, IntermediaryOptions};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::config::{Mode, ServerConfig};
use crate::connection::Connection;
use crate::constant::Constant;
use crate::engine::Engine;
use crate::error::ServerError;
use crate::processlist::Processlist;
use crate::wire::ErrorCodes;

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
    next_id: AtomicU64,
}

/// Statements that ended with an error sysbench retries, counted since start.
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
    let shared = Arc::new(Shared {
        cfg,
        port: addr.port(),
        mgr,
        engine: Arc::new(engine),
        procs: Processlist::default(),
        counters: StatementCounters::default(),
        next_id: AtomicU64::new(1),
    });
    let s = shared.clone();
    let task = tokio::spawn(async move {
        while let Ok((sock, peer)) = listener.accept().await {
            let s = s.clone();
            tokio::spawn(async move {
                let _ = serve(s, sock, peer).await;
            });
        }
    });
    Ok(RunningServer { addr, shared, task })
}

/// Runs one connection to its end.
async fn serve(shared: Arc<Shared>, sock: TcpStream, peer: SocketAddr) -> std::io::Result<()> {
    sock.set_nodelay(true)?;
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    let std = sock.into_std()?;
    let watch = TcpStream::from_std(std.try_clone()?)?;
    let sock = TcpStream::from_std(std)?;
    let (r, w) = sock.into_split();
    let w = ErrorCodes::new(w);
    let opts = IntermediaryOptions::default();
    if shared.cfg.mode == Mode::Constant {
        let shim = Constant::new(id as u32);
        return AsyncMysqlIntermediary::run_with_options(shim, r, w, &opts).await;
    }
    let info = shared.procs.add(id, "root".into(), peer.to_string());
    // The connection's pfs thread: whichever worker polls the connection's task, its events
    // (statements, waits, the engine's instrumented locks) land here, as a connection's do on
    // its `PFS_thread` in MySQL's thread pool.
    let thread = pfs::SessionThread::new("thread/sql/one_connection", id);
    thread.set_account("root", &peer.ip().to_string());
    let conn = match Connection::new(shared.clone(), info.clone(), Arc::new(watch), &thread) {
        Ok(c) => c,
        Err(_) => {
            shared.procs.remove(id);
            return Ok(());
        }
    };
    let run = thread.instrument(AsyncMysqlIntermediary::run_with_options(conn, r, w, &opts));
    let r = tokio::select! {
        r = run => r,
        _ = info.kill.wait(KillScope::Connection) => Ok(()),
    };
    shared.procs.remove(id);
    r
}
