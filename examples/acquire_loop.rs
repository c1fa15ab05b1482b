//! A fixed single-thread loop of SHARED_READ acquire + release on one table: the program to
//! count instructions of with callgrind, and a quick ns/op figure.
//!
//! ```text
//! cargo run --release --example acquire_loop -- [iterations] [fast path] [pfs preset]
//! valgrind --tool=callgrind target/release/examples/acquire_loop 100000 per-context default
//! ```
//!
//! The fast path is `per-context` (the default), `shared-word` (MySQL 8.0; `on` is accepted for
//! it) or `off` (MySQL 5.6).
//!
//! The preset (`off`, `none`, `default`, `tables`, `statements`, `counters`, `synch`) needs the
//! `pfs` feature (on by default); without a preset pfs keeps its start-up settings.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mysql_mdl::{
    FastPath, LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace,
};

fn main() {
    let mut args = std::env::args().skip(1);
    let iterations: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    // `on` is MySQL 8.0's shared word, as in the older commands of BENCHMARKS.md.
    let fast_path = match args.next().as_deref() {
        None => FastPath::default(),
        Some("on") => FastPath::SharedWord,
        Some(name) => name.parse().unwrap_or_else(|e| panic!("{e}")),
    };
    let preset = args.next();
    #[cfg(feature = "pfs")]
    if let Some(p) = &preset {
        let preset: mysql_mdl::pfs::Preset = p.parse().expect("a preset name");
        mysql_mdl::pfs::apply_preset(preset);
    }
    let mgr = MdlManager::new(MdlConfig {
        fast_path,
        ..MdlConfig::default()
    })
    .expect("valid config");
    let mut ctx = mgr.new_context();
    let key = MdlKey::new(Namespace::Table, "test", "sbtest1").expect("valid key");
    let req = MdlRequest::new(key, LockType::SharedRead, LockDuration::Statement);
    // Warm up: create the lock object.
    ctx.acquire(&req, Duration::from_secs(1))
        .expect("no conflict");
    ctx.release_statement_locks();
    let start = Instant::now();
    for _ in 0..iterations {
        let t = ctx
            .acquire(black_box(&req), Duration::from_secs(1))
            .expect("no conflict");
        ctx.release(black_box(t)).expect("own ticket");
    }
    let ns = start.elapsed().as_nanos() as f64 / iterations as f64;
    let preset = preset.as_deref().unwrap_or("-");
    let build = if cfg!(feature = "pfs") {
        "pfs"
    } else {
        "no-pfs"
    };
    println!("build={build} preset={preset} fast_path={} iterations={iterations} acquire+release: {ns:.1} ns", fast_path.name());
}
