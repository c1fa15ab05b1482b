//! The `metrics` export, scraped over real HTTP on 127.0.0.1: the `prometheus` example's
//! server (this file includes the example as a module) answers `GET /metrics` by publishing
//! the manager's counters into the `metrics-exporter-prometheus` recorder and rendering. After
//! the example's workload and with an async waiter pending, the text has the acquisitions and
//! the wait outcomes by namespace and lock type, the wait-time histogram and the gauges; after
//! the waiter is granted, a second scrape has its wait, and the acquisitions a live context
//! published at its statement end after the first scrape asked.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use mysql_mdl::{LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace};

#[path = "../examples/prometheus.rs"]
mod example;

/// The value of the sample `name{labels}` whose labels include all of `labels`.
fn value(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find(|l| {
            let (series, _) = l.rsplit_once(' ').unwrap_or((l, ""));
            let bare = series.split('{').next() == Some(name);
            bare && labels.iter().all(|lb| series.contains(lb))
        })
        .and_then(|l| l.rsplit_once(' ')?.1.parse().ok())
}

#[test]
fn an_http_scrape_shows_the_lock_managers_metrics() {
    let handle = example::install();
    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    example::workload(&mgr);

    // An async waiter, pending while the first scrape runs.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let t = MdlKey::new(Namespace::Table, "shop", "items").unwrap();
    let mut holder = mgr.new_context();
    let x = MdlRequest::new(t.clone(), LockType::Exclusive, LockDuration::Transaction);
    holder.acquire(&x, Duration::ZERO).unwrap();
    let mut waiter = mgr.new_context();
    let task = rt.spawn(async move {
        let sr = MdlRequest::new(t, LockType::SharedWrite, LockDuration::Statement);
        waiter
            .acquire_async(&sr, Duration::from_secs(30))
            .await
            .map(|_| ())
    });
    let start = Instant::now();
    while mgr.lock_waits().rows.is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the task never queued"
        );
        std::thread::sleep(Duration::from_millis(1));
    }

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = {
        let mgr = mgr.clone();
        let until = Instant::now() + Duration::from_secs(30);
        std::thread::spawn(move || example::serve(listener, &mgr, &handle, until, 2))
    };
    let text = example::scrape(addr);
    let table_sr = ["namespace=\"TABLE\"", "lock_type=\"SHARED_READ\""];
    let table_x = ["namespace=\"TABLE\"", "lock_type=\"EXCLUSIVE\""];
    assert_eq!(
        value(&text, "mdl_lock_acquisitions_total", &table_sr),
        Some(101.0),
        "{text}"
    );
    // The workload's contexts have ended (their counts are exact); the live holder publishes
    // its EXCLUSIVE at its next statement end after this scrape asked, for the next scrape.
    assert_eq!(
        value(&text, "mdl_lock_acquisitions_total", &table_x),
        Some(1.0)
    );
    assert_eq!(value(&text, "mdl_lock_waits_total", &table_x), Some(3.0));
    assert_eq!(
        value(&text, "mdl_lock_wait_timeouts_total", &table_x),
        Some(1.0)
    );
    assert_eq!(value(&text, "mdl_lock_kills_total", &table_x), Some(1.0));
    assert_eq!(value(&text, "mdl_lock_deadlocks_total", &table_x), None);
    assert_eq!(value(&text, "mdl_lock_wait_seconds_count", &[]), Some(3.0));
    assert!(value(&text, "mdl_lock_wait_seconds_bucket", &["le=\"+Inf\""]) == Some(3.0));
    assert!(value(&text, "mdl_lock_wait_seconds_sum", &[]).is_some_and(|s| s > 0.02));
    assert_eq!(
        value(&text, "mdl_waiting_contexts", &[]),
        Some(1.0),
        "the async waiter"
    );
    assert!(value(&text, "mdl_lock_objects", &[]).is_some_and(|n| n >= 2.0));
    assert!(text.contains("# TYPE mdl_lock_wait_seconds histogram"));

    holder.release_transactional_locks();
    rt.block_on(task).unwrap().unwrap();
    let text = example::scrape(addr);
    let table_sw = ["namespace=\"TABLE\"", "lock_type=\"SHARED_WRITE\""];
    assert_eq!(
        value(&text, "mdl_lock_waits_total", &table_sw),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        value(&text, "mdl_lock_acquisitions_total", &table_x),
        Some(2.0)
    );
    // The waiter's task has ended and dropped its context: its count is in, exactly.
    assert_eq!(
        value(&text, "mdl_lock_acquisitions_total", &table_sw),
        Some(1.0)
    );
    assert_eq!(value(&text, "mdl_lock_wait_seconds_count", &[]), Some(4.0));
    assert_eq!(value(&text, "mdl_waiting_contexts", &[]), Some(0.0));
    server.join().unwrap();
}
