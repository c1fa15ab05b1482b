//! The `SHOW`s a DBA or a tool sends that this server answers as a MySQL 8.0 server that is no
//! replica: `SHOW WARNINGS | ERRORS LIMIT ...`, `SHOW {REPLICA | SLAVE} STATUS`, `SHOW
//! {REPLICAS | SLAVE HOSTS}`, `SHOW PLUGINS`, checked with a real client (`mysql_async`).

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::{Conn, Row};

/// The column names and the row count of `q`'s result.
async fn shown(c: &mut Conn, q: &str) -> (Vec<String>, usize) {
    let mut r = c.query_iter(q).await.unwrap();
    let columns = (r.columns())
        .map(|cs| cs.iter().map(|c| c.name_str().into_owned()).collect())
        .unwrap_or_default();
    let rows: Vec<Row> = r.collect().await.unwrap();
    (columns, rows.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_warnings_and_errors_take_a_limit() {
    let mut c = conn().await;
    let (n, _) = code(c.query_drop("SELECT LPAD('x', 2)").await);
    assert_eq!(n, 1582);
    for (show, want) in [
        ("SHOW WARNINGS LIMIT 1", 1),
        ("SHOW WARNINGS LIMIT 0", 0),
        ("SHOW ERRORS LIMIT 0, 1", 1),
        ("SHOW ERRORS LIMIT 1, 1", 0),
        ("show warnings limit 5 offset 0", 1),
        ("SHOW WARNINGS LIMIT 1 OFFSET 1", 0),
    ] {
        let rows: Vec<(String, u16, String)> = c.query(show).await.unwrap();
        assert_eq!(rows.len(), want, "{show}: {rows:?}");
        if let Some(r) = rows.first() {
            assert_eq!((r.0.as_str(), r.1), ("Error", 1582), "{show}");
        }
    }
    // Prepared, it finds the area cleared by its own COM_STMT_PREPARE, as in MySQL 8.0
    // (`Prepared_statement::prepare` resets the conditions unless parsing raised some).
    let rows: Vec<(String, u16, String)> = c.exec("SHOW ERRORS LIMIT 1", ()).await.unwrap();
    assert_eq!(rows.len(), 0, "the prepare cleared it");
    let (n, _) = code(c.query_drop("SELECT LPAD('x', 2)").await);
    assert_eq!(n, 1582);
    // Executed again (mysql_async keeps the statement): it keeps the area, as MySQL's
    // COM_STMT_EXECUTE of a diagnostic statement does.
    let rows: Vec<(String, u16, String)> = c.exec("SHOW ERRORS LIMIT 1", ()).await.unwrap();
    assert_eq!(rows.len(), 1, "the error is still there");
    // A LIMIT MySQL's grammar refuses is a syntax error, which is then what SHOW WARNINGS shows.
    let (n, state) = code(c.query_drop("SHOW WARNINGS LIMIT 'a'").await);
    assert_eq!((n, state.as_str()), (1064, "42000"));
    let rows: Vec<(String, u16, String)> = c.query("SHOW WARNINGS LIMIT 1").await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].1, 1064);
    assert!(rows[0].2.contains("near ''a''"), "{}", rows[0].2);
    c.query_drop("SELECT 1").await.unwrap();
    let rows: Vec<(String, u16, String)> = c.query("SHOW ERRORS LIMIT 10").await.unwrap();
    assert!(rows.is_empty(), "{rows:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replication_shows_are_empty_under_mysqls_columns() {
    let mut c = conn().await;
    c.query_drop("BEGIN").await.unwrap();
    let (cols, rows) = shown(&mut c, "SHOW REPLICA STATUS").await;
    assert_eq!((cols.len(), rows), (60, 0));
    assert_eq!(cols[..2], ["Replica_IO_State", "Source_Host"]);
    assert_eq!(cols[32], "Seconds_Behind_Source");
    let (cols, rows) = shown(&mut c, "SHOW SLAVE STATUS").await;
    assert_eq!((cols.len(), rows), (60, 0));
    assert_eq!(cols[..2], ["Slave_IO_State", "Master_Host"]);
    assert_eq!(cols[32], "Seconds_Behind_Master");
    assert_eq!(cols[58], "Get_master_public_key");
    let (cols, rows) = shown(&mut c, "SHOW REPLICA STATUS FOR CHANNEL ''").await;
    assert_eq!((cols.len(), rows), (60, 0));
    let (cols, rows) = shown(&mut c, "SHOW REPLICAS").await;
    assert_eq!(
        cols,
        ["Server_Id", "Host", "Port", "Source_Id", "Replica_UUID"]
    );
    assert_eq!(rows, 0);
    let (cols, rows) = shown(&mut c, "show slave hosts").await;
    assert_eq!(
        cols,
        ["Server_id", "Host", "Port", "Master_id", "Slave_UUID"]
    );
    assert_eq!(rows, 0);
    c.query_drop("COMMIT").await.unwrap();
    let (n, state) = code(c.query_drop("SHOW REPLICA STATUS FOR CHANNEL 'nope'").await);
    assert_eq!((n, state.as_str()), (3074, "HY000"));
    let (n, _) = code(c.query_drop("SHOW SLAVE STATUS FOR CHANNEL nope").await);
    assert_eq!(n, 1064);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_plugins_lists_the_engines_and_the_handshakes_method() {
    let mut c = conn().await;
    let (cols, _) = shown(&mut c, "SHOW PLUGINS").await;
    assert_eq!(cols, ["Name", "Status", "Type", "Library", "License"]);
    type Plugin = (String, String, String, Option<String>, String);
    let plugins: Vec<Plugin> = c.query("SHOW PLUGINS").await.unwrap();
    let names: Vec<&str> = plugins.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        names,
        ["mysql_native_password", "SQLite", "PERFORMANCE_SCHEMA"]
    );
    for (name, status, _, library, license) in &plugins {
        assert_eq!((status.as_str(), library), ("ACTIVE", &None), "{name}");
        assert_eq!(license, "MIT OR Apache-2.0", "{name}");
    }
    // The storage engines are SHOW ENGINES' list.
    let mut engines: Vec<String> = c
        .query("SELECT ENGINE FROM information_schema.ENGINES")
        .await
        .unwrap();
    let mut storage: Vec<String> = c
        .query(
            "SELECT PLUGIN_NAME FROM information_schema.PLUGINS \
             WHERE PLUGIN_TYPE = 'STORAGE ENGINE'",
        )
        .await
        .unwrap();
    engines.sort();
    storage.sort();
    assert_eq!(engines, storage);
    let auth: Option<String> = c
        .query_first(
            "SELECT PLUGIN_TYPE FROM information_schema.plugins \
             WHERE PLUGIN_NAME = 'mysql_native_password'",
        )
        .await
        .unwrap();
    assert_eq!(auth.as_deref(), Some("AUTHENTICATION"));
    let (n, _) = code(c.query_drop("SHOW PLUGINS LIKE 'x'").await);
    assert_eq!(n, 1064, "MySQL's SHOW PLUGINS takes no LIKE");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn they_count_under_mysqls_com_counters() {
    let mut c = conn().await;
    let com = |rows: Vec<(String, String)>| -> std::collections::BTreeMap<String, u64> {
        (rows.into_iter())
            .filter(|(n, _)| n.starts_with("Com_show_"))
            .map(|(n, v)| (n, v.parse().unwrap()))
            .collect()
    };
    let before = com(c.query("SHOW STATUS").await.unwrap());
    for q in [
        "SHOW REPLICA STATUS",
        "SHOW SLAVE STATUS",
        "SHOW REPLICAS",
        "SHOW SLAVE HOSTS",
        "SHOW PLUGINS",
        "SHOW WARNINGS LIMIT 1",
    ] {
        c.query_drop(q).await.unwrap();
    }
    let after = com(c.query("SHOW STATUS").await.unwrap());
    let moved: Vec<(&str, u64)> = (after.iter())
        .map(|(n, v)| (n.as_str(), v - before.get(n).copied().unwrap_or(0)))
        .filter(|(_, d)| *d > 0)
        .collect();
    // The names of before 8.0.22 count the same statements as the new ones.
    assert_eq!(
        moved,
        [
            ("Com_show_plugins", 1),
            ("Com_show_replica_status", 2),
            ("Com_show_replicas", 2),
            ("Com_show_slave_hosts", 2),
            ("Com_show_slave_status", 2),
            ("Com_show_status", 1),
            ("Com_show_warnings", 1),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn none_takes_a_metadata_lock() {
    let mut c = conn().await;
    let mut obs = conn().await;
    let me = id(&mut c).await;
    c.query_drop("CREATE TABLE show_more_t (id INT PRIMARY KEY)")
        .await
        .unwrap();
    c.query_drop("BEGIN").await.unwrap();
    for q in [
        "SHOW REPLICA STATUS",
        "SHOW SLAVE STATUS FOR CHANNEL ''",
        "SHOW REPLICAS",
        "SHOW SLAVE HOSTS",
        "SHOW PLUGINS",
        "SHOW WARNINGS LIMIT 1",
        "SHOW ERRORS LIMIT 0, 1",
    ] {
        c.query_drop(q).await.unwrap();
        // MySQL's take none of the metadata locks the server models; a transaction's
        // locks would still be held here.
        assert_eq!(locks_of(&mut obs, me).await, [], "{q}");
    }
    // What a lock looks like here, for contrast.
    c.query_drop("SELECT * FROM show_more_t").await.unwrap();
    assert_eq!(locks_of(&mut obs, me).await.len(), 1);
    c.query_drop("COMMIT").await.unwrap();
    c.query_drop("DROP TABLE show_more_t").await.unwrap();
}
