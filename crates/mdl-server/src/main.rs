//! `mdl-server`: see `mdl-server --help` and the crate docs.

#![forbid(unsafe_code)]

use clap::Parser;
use mdl_server::ServerConfig;

/// mimalloc rather than glibc's malloc: every statement boxes a future of about 3 KiB (the
/// handlers of opensrv-mysql's `AsyncMysqlShim` are `async_trait` methods), larger than glibc's
/// per-thread cache takes (1,032 bytes), so each one went through glibc's arena: its bins, a
/// consolidation of the fast bins, and a cost that moved with the heap's layout from one
/// process to the next. Measured with callgrind, point selects: see BENCHMARKS.md, `sysbench`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cfg = ServerConfig::parse();
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if cfg.workers > 0 {
        rt.worker_threads(cfg.workers);
    }
    let rt = match rt.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mdl-server: tokio: {e}");
            std::process::exit(1);
        }
    };
    rt.block_on(async move {
        let server = match mdl_server::start(cfg.clone()).await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("mdl-server: {e}");
                std::process::exit(1);
            }
        };
        eprintln!(
            "mdl-server: listening on {} (mode {:?}, pfs {}, data {})",
            server.local_addr(),
            cfg.mode,
            cfg.pfs,
            cfg.data_dir.display()
        );
        tokio::select! {
            _ = server.wait() => {}
            _ = tokio::signal::ctrl_c() => eprintln!("mdl-server: stopping"),
        }
    });
}
