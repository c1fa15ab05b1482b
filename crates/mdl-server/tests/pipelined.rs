//! A client that sends a command it expects no reply to and the next one at once, as
//! `mysql_async` does when it closes a statement (`COM_STMT_CLOSE`, then the next query, in
//! one write), gets each reply in turn: opensrv-mysql 0.7 parsed the first of two packets read
//! together from freed memory and answered it (`command_map.rs`), and every later reply went
//! to the command after the one that asked.

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_statement_then_a_query_get_their_own_replies_in_both_modes() {
    for mode in [mdl_server::Mode::Engine, mdl_server::Mode::Constant] {
        let (server, _dir, mut c) = own_server(mode).await;
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
