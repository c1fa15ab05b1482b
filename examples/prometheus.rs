//! Exports the lock manager's metrics as Prometheus text over HTTP (feature `metrics`).
//!
//! ```text
//! cargo run --example prometheus --features metrics            # one self-scrape, printed
//! cargo run --example prometheus --features metrics -- 30      # then serve 30 s on 127.0.0.1
//! ```
//!
//! `metrics-exporter-prometheus` is installed as the `metrics` recorder (without its own HTTP
//! listener), with the wait-time histogram's buckets set to mdl's
//! ([`WAIT_SECONDS_BUCKETS`]); a small HTTP server on 127.0.0.1 answers each `GET /metrics` by
//! calling [`MdlManager::publish_metrics`] and rendering. A few sessions take locks, wait,
//! time out and get killed first, so every kind of metric has values.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use mysql_mdl::{
    ContextId, KillScope, LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest,
    Namespace, WAIT_SECONDS_BUCKETS,
};

/// Installs the Prometheus recorder with mdl's histogram buckets.
pub fn install() -> PrometheusHandle {
    PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full("mdl_lock_wait_seconds".into()),
            &WAIT_SECONDS_BUCKETS,
        )
        .expect("valid buckets")
        .install_recorder()
        .expect("the only recorder")
}

/// Some lock traffic: statements on two tables, a DDL that waits and is granted, one that
/// times out, one that is killed.
pub fn workload(mgr: &Arc<MdlManager>) {
    let key = |n: &str| MdlKey::new(Namespace::Table, "shop", n).expect("valid key");
    let mut reader = mgr.new_context();
    for i in 0..100 {
        let t = key(if i % 2 == 0 { "orders" } else { "items" });
        let sr = MdlRequest::new(t, LockType::SharedRead, LockDuration::Statement);
        reader
            .acquire(&sr, Duration::from_secs(1))
            .expect("no conflict");
        reader.release_statement_locks();
    }
    let sr = MdlRequest::new(
        key("orders"),
        LockType::SharedRead,
        LockDuration::Transaction,
    );
    reader
        .acquire(&sr, Duration::from_secs(1))
        .expect("no conflict");
    let x = MdlRequest::new(
        key("orders"),
        LockType::Exclusive,
        LockDuration::Transaction,
    );
    let mut ddl = mgr.new_context_with_id(1001).expect("a free id");
    let err = ddl
        .acquire(&x, Duration::from_millis(20))
        .expect_err("the reader holds it");
    assert_eq!(err.kind(), mysql_mdl::ErrorKind::Timeout);
    let (m, x2) = (mgr.clone(), x.clone());
    let killed = std::thread::spawn(move || {
        let mut c = m.new_context_with_id(1002).expect("a free id");
        c.acquire(&x2, Duration::from_secs(30)).map(|_| ())
    });
    while !mgr
        .lock_waits()
        .rows
        .iter()
        .any(|r| r.waiting == ContextId::new(1002))
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    mgr.kill(ContextId::new(1002), KillScope::Query)
        .expect("a live context");
    assert!(killed.join().expect("no panic").is_err());
    let m = mgr.clone();
    let granted = std::thread::spawn(move || {
        let mut c = m.new_context_with_id(1003).expect("a free id");
        c.acquire(&x, Duration::from_secs(30)).map(|_| ())
    });
    std::thread::sleep(Duration::from_millis(5));
    reader.release_transactional_locks();
    granted.join().expect("no panic").expect("granted");
}

/// Serves `GET /metrics` on `listener` until `until` or after `requests` requests: each
/// request publishes, then renders.
pub fn serve(
    listener: TcpListener,
    mgr: &Arc<MdlManager>,
    handle: &PrometheusHandle,
    until: Instant,
    mut requests: usize,
) {
    listener.set_nonblocking(true).expect("nonblocking");
    while Instant::now() < until && requests > 0 {
        match listener.accept() {
            Ok((stream, _)) => {
                answer(stream, mgr, handle);
                requests -= 1;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Err(e) => panic!("accept: {e}"),
        }
    }
}

fn answer(mut stream: TcpStream, mgr: &MdlManager, handle: &PrometheusHandle) {
    stream.set_nonblocking(false).expect("blocking");
    let mut request_line = String::new();
    let mut reader = BufReader::new(stream.try_clone().expect("a second handle"));
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Skip the headers.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let (status, body) = if request_line.starts_with("GET /metrics ") {
        mgr.publish_metrics();
        ("200 OK", handle.render())
    } else {
        ("404 Not Found", String::new())
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// One `GET /metrics` from `addr`: the response body.
pub fn scrape(addr: SocketAddr) -> String {
    let mut s = TcpStream::connect(addr).expect("the server listens");
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .expect("request sent");
    let mut response = String::new();
    s.read_to_string(&mut response).expect("a response");
    let (head, body) = response
        .split_once("\r\n\r\n")
        .expect("headers, then a body");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    body.to_owned()
}

#[allow(dead_code)] // the test includes this file as a module and calls the functions above
fn main() {
    let serve_secs: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let handle = install();
    let mgr = MdlManager::new(MdlConfig::default()).expect("valid config");
    workload(&mgr);
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port on loopback");
    let addr = listener.local_addr().expect("bound");
    let until = Instant::now() + Duration::from_secs(serve_secs.max(1));
    let server = {
        let mgr = mgr.clone();
        let requests = if serve_secs > 0 { usize::MAX } else { 1 };
        std::thread::spawn(move || serve(listener, &mgr, &handle, until, requests))
    };
    print!("{}", scrape(addr));
    if serve_secs > 0 {
        eprintln!("serving http://{addr}/metrics for {serve_secs} s");
    }
    server.join().expect("the server ends");
}
