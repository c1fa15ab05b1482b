//! `mdl-server`: see `mdl-server --help` and the crate docs.

#![forbid(unsafe_code)]

use clap::Parser;
use mdl_server::ServerConfig;

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
