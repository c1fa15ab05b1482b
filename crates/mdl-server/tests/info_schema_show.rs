//! The `SHOW` statements over the catalog (`SHOW CREATE TABLE`, `SHOW TABLE STATUS`) and those
//! client tools send (`SHOW ENGINES`, `SHOW CHARACTER SET`, `SHOW COLLATION`, ...), as a MySQL
//! client sees them; `information_schema` itself and `SHOW INDEX` are in `info_schema.rs`.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Row;

/// `SHOW CREATE TABLE` prints the definition as MySQL does, keys included (sysbench's table, as
/// its `prepare` creates it), from the catalog the other statements read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_create_table_prints_columns_and_keys_as_mysql() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE is_create (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' \
         NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60), PRIMARY KEY (id)) \
         ENGINE = innodb",
    )
    .await
    .unwrap();
    c.query_drop("CREATE INDEX k_1 ON is_create(k)")
        .await
        .unwrap();
    let (name, sql): (String, String) = c
        .query_first("SHOW CREATE TABLE is_create")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(name, "is_create");
    assert_eq!(
        sql,
        "CREATE TABLE `is_create` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  \
         `k` int NOT NULL DEFAULT '0',\n  `c` char(120) NOT NULL DEFAULT '',\n  \
         `pad` char(60) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  KEY `k_1` (`k`)\n) \
         ENGINE=SQLite DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
    );
    let (code, state) = code(c.query_drop("SHOW CREATE TABLE is_nosuch").await);
    assert_eq!((code, state.as_str()), (1146, "42S02"));
    c.query_drop("DROP TABLE is_create").await.unwrap();
}

/// `SHOW TABLE STATUS`, MySQL 8.0's query over `information_schema.TABLES`: its columns, its
/// order, `LIKE` and `WHERE` on the `SHOW` names, `FROM` a schema, 1049 for an unknown one.
/// (In schema `test`, shared with the other tests: a new schema would show in their lists.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_table_status_is_a_query_over_tables() {
    let mut c = conn().await;
    for t in ["ts_b", "ts_a"] {
        c.query_drop(format!(
            "CREATE TABLE {t} (id INT PRIMARY KEY AUTO_INCREMENT, v INT)"
        ))
        .await
        .unwrap();
    }
    c.query_drop("INSERT INTO ts_a (v) VALUES (1), (2)")
        .await
        .unwrap();
    let rows: Vec<Row> = c
        .query("SHOW TABLE STATUS FROM test LIKE 'ts\\_%'")
        .await
        .unwrap();
    let names: Vec<String> = rows.iter().map(|r| r.get("Name").unwrap()).collect();
    assert_eq!(names, ["ts_a", "ts_b"]);
    let columns: Vec<String> = rows[0]
        .columns_ref()
        .iter()
        .map(|c| c.name_str().to_string())
        .collect();
    assert_eq!(columns.len(), 18);
    assert_eq!(
        &columns[..5],
        ["Name", "Engine", "Version", "Row_format", "Rows"]
    );
    let (engine, rows_a, next): (String, i64, i64) = (
        rows[0].get("Engine").unwrap(),
        rows[0].get("Rows").unwrap(),
        rows[0].get("Auto_increment").unwrap(),
    );
    assert_eq!((engine.as_str(), rows_a, next), ("SQLite", 2, 3));
    for (sql, want) in [
        ("SHOW TABLE STATUS LIKE 'ts\\_b'", vec!["ts_b"]),
        (
            "show table status where `Rows` > 0 and Name LIKE 'ts\\_%'",
            vec!["ts_a"],
        ),
        (
            "SHOW TABLE STATUS IN test WHERE Name LIKE 'ts_nope%'",
            vec![],
        ),
    ] {
        let got: Vec<Row> = c.query(sql).await.unwrap();
        let got: Vec<String> = got.iter().map(|r| r.get("Name").unwrap()).collect();
        assert_eq!(got, want, "{sql}");
    }
    let (code, state) = code(c.query_drop("SHOW TABLE STATUS FROM ts_nosuch").await);
    assert_eq!((code, state.as_str()), (1049, "42000"));
    c.query_drop("DROP TABLE ts_a, ts_b").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_show_statements_of_client_tools_answer_as_mysql() {
    let mut c = conn().await;
    let engines: Vec<(String, String, String, String, String, String)> =
        c.query("SHOW ENGINES").await.unwrap();
    let names: Vec<(&str, &str)> = (engines.iter())
        .map(|e| (e.0.as_str(), e.1.as_str()))
        .collect();
    assert_eq!(
        names,
        [("SQLite", "DEFAULT"), ("PERFORMANCE_SCHEMA", "YES")]
    );
    let charset: Vec<(String, String, String, u64)> = c
        .query("SHOW CHARACTER SET WHERE Charset = 'utf8mb4'")
        .await
        .unwrap();
    assert_eq!(charset.len(), 1);
    assert_eq!((charset[0].2.as_str(), charset[0].3), ("utf8mb4_bin", 4));
    let row: mysql_async::Row = c
        .query_first("SHOW COLLATION LIKE 'utf8mb4%'")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.get::<String, _>("Collation").unwrap(), "utf8mb4_bin");
    assert_eq!(row.get::<u64, _>("Id").unwrap(), 46);
    // Created by the server: nothing to list, under MySQL's column names.
    for show in [
        "SHOW TRIGGERS",
        "SHOW EVENTS",
        "SHOW FUNCTION STATUS",
        "SHOW MASTER STATUS",
    ] {
        let rows: Vec<mysql_async::Row> = c.query(show).await.unwrap();
        assert!(rows.is_empty(), "{show}");
    }
    let r = c.query_iter("SHOW TRIGGERS LIKE 'x%'").await.unwrap();
    let columns: Vec<String> = (r.columns().unwrap().iter())
        .map(|c| c.name_str().into_owned())
        .collect();
    assert_eq!(columns[..3], ["Trigger", "Event", "Table"]);
    drop(r);
    let create: (String, String) = c
        .query_first("SHOW CREATE DATABASE test")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        create.1,
        "CREATE DATABASE `test` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin */ \
         /*!80016 DEFAULT ENCRYPTION='N' */"
    );
    // What it prints runs back, as a dump of `--databases` replays it.
    let again = create.1.replace("`test`", "`from_show`");
    c.query_drop(format!("{again}; DROP DATABASE from_show"))
        .await
        .unwrap();
    // The process list as DBAs filter it: this connection, running this query.
    let me: Vec<(String, String)> = c
        .query(
            "SELECT COMMAND, INFO FROM information_schema.PROCESSLIST \
             WHERE ID = CONNECTION_ID() AND COMMAND <> 'Sleep'",
        )
        .await
        .unwrap();
    assert_eq!(me.len(), 1);
    assert_eq!(me[0].0, "Query");
    assert!(me[0]
        .1
        .starts_with("SELECT COMMAND, INFO FROM information_schema.PROCESSLIST"));
    let grants: Vec<String> = c.query("SHOW GRANTS").await.unwrap();
    assert_eq!(grants.len(), 1);
    assert!(
        grants[0].starts_with("GRANT ALL PRIVILEGES ON *.* TO `"),
        "{grants:?}"
    );
    for (show, code) in [
        ("SHOW ENGINE INNODB STATUS", 1286),
        ("SHOW BINARY LOGS", 1381),
        ("SHOW CREATE DATABASE nosuch", 1049),
    ] {
        let e = c.query_drop(show).await.unwrap_err();
        assert!(e.to_string().contains(&code.to_string()), "{show}: {e}");
    }
}
