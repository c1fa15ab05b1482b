//! What the common connectors send when they connect, each statement as their sources write
//! it: if one fails, that connector cannot open a connection to the server. The statements
//! are replayed through `mysql_async`'s text protocol, as the connectors send them: the
//! workspace does not depend on sqlx, Connector/J, PyMySQL or Go's driver.

mod common;

use common::*;
use mysql_async::prelude::*;

/// Runs `sql` and says what went wrong, with the connector's name.
async fn runs(c: &mut mysql_async::Conn, who: &str, sql: &str) {
    if let Err(e) = c.query_drop(sql).await {
        panic!("{who}: {sql}: {e}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlx_connects() {
    let mut c = conn().await;
    // sqlx-mysql's `MySqlConnectOptions::connect` with its defaults (PIPES_AS_CONCAT,
    // NO_ENGINE_SUBSTITUTION, time zone +00:00, SET NAMES).
    runs(
        &mut c,
        "sqlx",
        "SET sql_mode=(SELECT CONCAT(@@sql_mode, ',PIPES_AS_CONCAT,NO_ENGINE_SUBSTITUTION')),\
         time_zone='+00:00',NAMES utf8mb4 COLLATE utf8mb4_unicode_ci;",
    )
    .await;
    let one: Option<i64> = c.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connector_j_connects() {
    let mut c = conn().await;
    // MySQL Connector/J 8.0: the session's variables in one query, then its settings.
    let row: Option<mysql_async::Row> = c
        .query_first(
            "/* mysql-connector-java-8.0.33 */SELECT  @@session.auto_increment_increment AS \
             auto_increment_increment, @@character_set_client AS character_set_client, \
             @@character_set_connection AS character_set_connection, @@character_set_results \
             AS character_set_results, @@character_set_server AS character_set_server, \
             @@collation_server AS collation_server, @@collation_connection AS \
             collation_connection, @@init_connect AS init_connect, @@interactive_timeout AS \
             interactive_timeout, @@license AS license, @@lower_case_table_names AS \
             lower_case_table_names, @@max_allowed_packet AS max_allowed_packet, \
             @@net_write_timeout AS net_write_timeout, @@performance_schema AS \
             performance_schema, @@sql_mode AS sql_mode, @@system_time_zone AS \
             system_time_zone, @@time_zone AS time_zone, @@transaction_isolation AS \
             transaction_isolation, @@wait_timeout AS wait_timeout",
        )
        .await
        .unwrap();
    assert_eq!(row.map(|r| r.len()), Some(19));
    for sql in [
        "SET character_set_results = NULL",
        "SET autocommit=1",
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
        "SHOW VARIABLES WHERE Variable_name = 'language' OR Variable_name = 'net_write_timeout' \
         OR Variable_name = 'interactive_timeout' OR Variable_name = 'wait_timeout'",
    ] {
        runs(&mut c, "Connector/J", sql).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_and_go_drivers_connect() {
    let mut c = conn().await;
    // PyMySQL / mysqlclient, then Go's go-sql-driver/mysql.
    for (who, sql) in [
        ("PyMySQL", "SET NAMES utf8mb4"),
        ("PyMySQL", "SET AUTOCOMMIT = 0"),
        ("PyMySQL", "SELECT VERSION()"),
        ("PyMySQL", "COMMIT"),
        ("go-sql-driver", "SELECT @@max_allowed_packet"),
        (
            "go-sql-driver",
            "SET NAMES utf8mb4 COLLATE utf8mb4_general_ci",
        ),
        ("go-sql-driver", "SET time_zone='+00:00'"),
    ] {
        runs(&mut c, who, sql).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlx_migrates() {
    let mut c = conn().await;
    // sqlx-mysql's `Migrate` for one migration: its table, its application lock (a prepared
    // GET_LOCK with the name bound), the migration's file as one multi-statement query inside
    // a transaction, its bookkeeping, the lock's release.
    runs(
        &mut c,
        "sqlx",
        "CREATE TABLE IF NOT EXISTS _sqlx_migrations (\n    version BIGINT PRIMARY KEY,\n    \
         description TEXT NOT NULL,\n    installed_on TIMESTAMP NOT NULL DEFAULT \
         CURRENT_TIMESTAMP,\n    success BOOLEAN NOT NULL,\n    checksum BLOB NOT NULL,\n    \
         execution_time BIGINT NOT NULL\n);",
    )
    .await;
    let db: Option<String> = c.exec_first("SELECT DATABASE()", ()).await.unwrap();
    let lock_name = format!("sqlx_migrations_{}", db.unwrap());
    let got: Option<i64> = c
        .exec_first("SELECT GET_LOCK(?, -1)", (&lock_name,))
        .await
        .unwrap();
    assert_eq!(got, Some(1));
    let dirty: Option<i64> = c
        .exec_first(
            "SELECT version FROM _sqlx_migrations WHERE success = false ORDER BY version LIMIT 1",
            (),
        )
        .await
        .unwrap();
    assert_eq!(dirty, None);
    let applied: Vec<(i64, Vec<u8>)> = c
        .exec(
            "SELECT version, checksum FROM _sqlx_migrations ORDER BY version",
            (),
        )
        .await
        .unwrap();
    assert!(applied.is_empty());
    runs(&mut c, "sqlx", "BEGIN").await;
    c.exec_drop(
        "INSERT INTO _sqlx_migrations ( version, description, success, checksum, \
         execution_time ) VALUES ( ?, ?, FALSE, ?, -1 )",
        (20261126_i64, "create users", vec![0xAB_u8; 48]),
    )
    .await
    .unwrap();
    runs(
        &mut c,
        "sqlx",
        "-- Add users\nCREATE TABLE users (\n  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,\n  \
         name VARCHAR(64) NOT NULL\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n\
         CREATE INDEX users_name ON users (name);\nINSERT INTO users (name) VALUES ('root');\n",
    )
    .await;
    c.exec_drop(
        "UPDATE _sqlx_migrations SET success = TRUE WHERE version = ?",
        (20261126_i64,),
    )
    .await
    .unwrap();
    runs(&mut c, "sqlx", "COMMIT").await;
    c.exec_drop(
        "UPDATE _sqlx_migrations SET execution_time = ? WHERE version = ?",
        (1234_i64, 20261126_i64),
    )
    .await
    .unwrap();
    let released: Option<i64> = c
        .exec_first("SELECT RELEASE_LOCK(?)", (&lock_name,))
        .await
        .unwrap();
    assert_eq!(released, Some(1));
    let row: Option<(i64, bool, i64)> = c
        .query_first("SELECT version, success, execution_time FROM _sqlx_migrations")
        .await
        .unwrap();
    assert_eq!(row, Some((20261126, true, 1234)));
    let n: Option<i64> = c.query_first("SELECT COUNT(*) FROM users").await.unwrap();
    assert_eq!(n, Some(1));
}
