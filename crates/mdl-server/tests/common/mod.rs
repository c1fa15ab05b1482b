//! One server for the whole test binary, started in-process on a free 127.0.0.1 port with a
//! data directory of its own under the target directory (see `shared_data_dir`), on its own
//! runtime; and the client helpers (`mysql_async`).
//! Each test uses its own tables and lock names, so tests can run at once.

#![allow(dead_code)]

pub mod clients;
pub mod packets;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use mysql_async::prelude::*;
use mysql_async::{Conn, Opts, Row};

/// The shared server's address.
pub fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let mut cfg = mdl_server::ServerConfig::for_tests(shared_data_dir());
                cfg.engine_lock_wait_timeout = 5;
                let server = mdl_server::start(cfg).await.expect("server starts");
                tx.send(server.local_addr()).expect("send");
                server.wait().await;
            });
        });
        rx.recv_timeout(Duration::from_secs(30)).expect("server up")
    })
}

/// The shared server's data directory, `<target>/tmp/shared-server/<pid>`. The test harness
/// exits without dropping statics, so the server is never stopped and a `TempDir` of its would
/// never be removed (every run of the suite left one data directory per test binary in the
/// system's temp directory). Instead each test process removes the directories of processes
/// that are gone (on Linux, where `/proc` tells), then makes its own, which `cargo clean` removes.
fn shared_data_dir() -> PathBuf {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shared-server");
    if Path::new("/proc/self").exists() {
        for entry in std::fs::read_dir(&base).into_iter().flatten().flatten() {
            let pid = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok());
            if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let dir = base.join(std::process::id().to_string());
    let _ = std::fs::remove_dir_all(&dir); // a directory of an earlier process with this pid
    std::fs::create_dir_all(&dir).expect("data dir");
    dir
}

/// A new connection to schema `test`.
pub async fn conn() -> Conn {
    let addr = server();
    let url = format!("mysql://root@{}:{}/test", addr.ip(), addr.port());
    Conn::new(Opts::from_url(&url).expect("url"))
        .await
        .expect("connects")
}

/// `CONNECTION_ID()`.
pub async fn id(c: &mut Conn) -> u64 {
    c.query_first("SELECT CONNECTION_ID()")
        .await
        .expect("id")
        .expect("a row")
}

/// The MySQL error code of a failed call.
pub fn code<T: std::fmt::Debug>(r: Result<T, mysql_async::Error>) -> (u16, String) {
    match r {
        Err(mysql_async::Error::Server(e)) => (e.code, e.state),
        other => panic!("expected a server error, got {other:?}"),
    }
}

/// The MySQL error code and message of a failed call.
pub fn code_and_message<T: std::fmt::Debug>(r: Result<T, mysql_async::Error>) -> (u16, String) {
    match r {
        Err(mysql_async::Error::Server(e)) => (e.code, e.message),
        other => panic!("expected a server error, got {other:?}"),
    }
}

/// `SHOW FULL PROCESSLIST`'s `(Id, Command, State, Info)` rows.
pub async fn processlist(c: &mut Conn) -> Vec<(u64, String, String, Option<String>)> {
    let rows: Vec<Row> = c.query("SHOW FULL PROCESSLIST").await.expect("processlist");
    rows.into_iter()
        .map(|r| {
            (
                r.get::<u64, _>("Id").expect("Id"),
                r.get::<String, _>("Command").expect("Command"),
                r.get::<String, _>("State").expect("State"),
                r.get::<Option<String>, _>("Info").expect("Info"),
            )
        })
        .collect()
}

/// Waits (at most 10 s) until connection `id` shows `state`.
pub async fn wait_state(obs: &mut Conn, id: u64, state: &str) {
    let t0 = Instant::now();
    loop {
        let rows = processlist(obs).await;
        if rows.iter().any(|r| r.0 == id && r.2 == state) {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "connection {id} never showed '{state}': {rows:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits (at most 10 s) until connection `id` is gone from the process list.
pub async fn wait_gone(obs: &mut Conn, id: u64) {
    let t0 = Instant::now();
    while processlist(obs).await.iter().any(|r| r.0 == id) {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "connection {id} stays"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `metadata_locks` rows of connection `id`: `(OBJECT_TYPE, OBJECT_NAME, LOCK_TYPE,
/// LOCK_STATUS)`, ordered.
pub async fn locks_of(c: &mut Conn, id: u64) -> Vec<(String, Option<String>, String, String)> {
    let sql = format!(
        "SELECT OBJECT_TYPE, OBJECT_NAME, LOCK_TYPE, LOCK_STATUS FROM \
         performance_schema.metadata_locks WHERE OWNER_CONTEXT_ID = {id} \
         ORDER BY OBJECT_TYPE, OBJECT_NAME, LOCK_TYPE"
    );
    c.query(sql).await.expect("metadata_locks")
}

/// `fut`, or a panic naming `what` after 30 s: a stuck server fails the test instead of
/// hanging it.
pub async fn bounded<F: std::future::Future>(what: &str, fut: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(30), fut)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer in 30 s"))
}

/// `table` dropped if it exists and made again with `columns`.
pub async fn fresh(c: &mut Conn, table: &str, columns: &str) {
    c.query_drop(format!("DROP TABLE IF EXISTS {table}"))
        .await
        .unwrap();
    c.query_drop(format!("CREATE TABLE {table} ({columns})"))
        .await
        .unwrap();
}

/// A server of its own in `mode` (in its temporary directory, dropped with it) and a
/// connection to it. The client is given the settings it would ask for at connect, since the
/// constant mode's answer is no `@@max_allowed_packet`.
pub async fn own_server(
    mode: mdl_server::Mode,
) -> (mdl_server::RunningServer, tempfile::TempDir, Conn) {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = mdl_server::ServerConfig::for_tests(dir.path());
    cfg.mode = mode;
    let server = mdl_server::start(cfg).await.expect("starts");
    let addr = server.local_addr();
    let url = format!(
        "mysql://root@{}:{}/test?max_allowed_packet=16777216&wait_timeout=28800\
         &prefer_socket=false",
        addr.ip(),
        addr.port()
    );
    let c = bounded("connect", Conn::new(Opts::from_url(&url).unwrap()))
        .await
        .unwrap();
    (server, dir, c)
}
