//! A client that sends a command it expects no reply to and the next one at once, as
//! `mysql_async` does when it closes a statement (`COM_STMT_CLOSE`, then the next query, in
//! one write), gets each reply in turn: opensrv-mysql 0.7 parsed the first of two packets read
//! together from freed memory and answered it (`command_map.rs`), and every later reply went
//! to the command after the one that asked.

use std::time::Duration;

use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};

async fn bounded<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), f)
        .await
        .unwrap_or_else(|_| panic!("{what}: no reply in 30 s"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_statement_then_a_query_get_their_own_replies_in_both_modes() {
    for mode in [mdl_server::Mode::Engine, mdl_server::Mode::Constant] {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = mdl_server::ServerConfig::for_tests(dir.path());
        cfg.mode = mode;
        let server = mdl_server::start(cfg).await.expect("starts");
        let addr = server.local_addr();
        // The settings given, so the client asks nothing at connect (the constant mode's
        // answer is no `@@max_allowed_packet`).
        let url = format!(
            "mysql://root@{}:{}/test?max_allowed_packet=16777216&wait_timeout=28800\
             &prefer_socket=false",
            addr.ip(),
            addr.port()
        );
        let mut c = bounded("connect", Conn::new(Opts::from_url(&url).unwrap()))
            .await
            .unwrap();
        for i in 0..100i64 {
            let stmt = bounded("prepare", c.prep("SELECT ? + 1")).await.unwrap();
            let row: Option<mysql_async::Row> =
                bounded("execute", c.exec_first(&stmt, (i,))).await.unwrap();
            let row = row.unwrap_or_else(|| panic!("{mode:?} {i}: the execution's row"));
            if mode == mdl_server::Mode::Engine {
                assert_eq!(row.get::<i64, _>(0), Some(i + 1));
            }
            bounded("close", c.close(stmt)).await.unwrap();
            // The query's own reply: a row (the constant mode answers a SELECT with one).
            let row: Option<mysql_async::Row> =
                bounded("query", c.query_first(format!("SELECT {i}")))
                    .await
                    .unwrap();
            let row = row.unwrap_or_else(|| panic!("{mode:?} {i}: the query got another's reply"));
            if mode == mdl_server::Mode::Engine {
                assert_eq!(row.get::<i64, _>(0), Some(i));
            }
        }
        bounded("disconnect", c.disconnect()).await.unwrap();
        server.stop();
    }
}
