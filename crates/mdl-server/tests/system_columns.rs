//! The columns of `information_schema`'s own tables, as MySQL 8.0 lists them: in
//! `information_schema.COLUMNS` (GUI clients and ORMs read a schema's columns there), and so
//! through `SHOW [FULL] COLUMNS ... LIKE | WHERE`, which MySQL builds over that table. Checked
//! with a real client (`mysql_async`).

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn information_schema_lists_its_own_columns() {
    let mut c = conn().await;
    let rows: Vec<(String, String, Option<u64>)> = c
        .query(
            "SELECT COLUMN_NAME, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH FROM \
             information_schema.COLUMNS WHERE TABLE_SCHEMA = 'information_schema' \
             AND TABLE_NAME = 'PROCESSLIST' ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        ["ID", "USER", "HOST", "DB", "COMMAND", "TIME", "STATE", "INFO"]
    );
    assert_eq!(
        rows[0],
        ("ID".to_string(), "bigint unsigned".to_string(), None)
    );
    assert_eq!(rows[2].2, Some(261), "HOST varchar(261)");
    // Every table of the schema has its columns there.
    let tables: Vec<String> = c
        .query("SHOW TABLES FROM information_schema")
        .await
        .unwrap();
    let listed: Vec<String> = c
        .query(
            "SELECT DISTINCT TABLE_NAME FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'information_schema' ORDER BY 1",
        )
        .await
        .unwrap();
    assert_eq!(listed, tables);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_columns_of_information_schema_applies_like_and_where() {
    let mut c = conn().await;
    let like: Vec<(String, String)> = c
        .query("SHOW COLUMNS FROM information_schema.TABLES LIKE 'TABLE\\_%'")
        .await
        .unwrap()
        .into_iter()
        .map(|r: (String, String, String, String, Option<String>, String)| (r.0, r.1))
        .collect();
    let names: Vec<&str> = like.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "TABLE_TYPE",
            "TABLE_ROWS",
            "TABLE_COLLATION",
            "TABLE_COMMENT"
        ]
    );
    let mut r = c
        .query_iter("SHOW FULL COLUMNS IN PROCESSLIST FROM information_schema WHERE Type = 'int'")
        .await
        .unwrap();
    assert_eq!(r.columns().map(|c| c.len()), Some(9), "FULL's columns");
    let rows: Vec<mysql_async::Row> = r.collect().await.unwrap();
    let field: Vec<String> = rows.iter().map(|r| r.get(0).unwrap()).collect();
    assert_eq!(field, ["TIME"]);
    // The plain form agrees with the filtered one.
    let plain: Vec<(String, String, String, String, Option<String>, String)> = c
        .query("SHOW COLUMNS FROM information_schema.TABLES")
        .await
        .unwrap();
    let all: Vec<(String, String, String, String, Option<String>, String)> = c
        .query("SHOW COLUMNS FROM information_schema.TABLES LIKE '%'")
        .await
        .unwrap();
    assert_eq!(plain, all);
    // A table the schema does not have: MySQL's 1109, with or without LIKE.
    for q in [
        "SHOW COLUMNS FROM information_schema.nope LIKE 'x'",
        "SHOW FULL COLUMNS FROM nope FROM information_schema",
    ] {
        let (n, state) = code(c.query_drop(q).await);
        assert_eq!((n, state.as_str()), (1109, "42S02"), "{q}");
    }
}
