//! # mdl-server: `mdl` inside a MySQL-protocol server
//!
//! A server that unmodified MySQL clients (the `mariadb` client, sysbench, any driver) talk
//! to, whose metadata locks are `mdl-core`'s, decided statement by statement by `mdl-sql`,
//! whose `performance_schema` is `pfs`'s, and whose tables are SQLite's. It exists so that
//! `mdl` and `pfs` are measured the way MySQL's published curves were (sysbench against a
//! server) and used the way a database author would use them.
//!
//! ```no_run
//! # async fn f() -> Result<(), mdl_server::ServerError> {
//! let cfg = mdl_server::ServerConfig::for_tests("/tmp/mdl-data"); // port 0: a free port
//! let server = mdl_server::start(cfg).await?;
//! println!("mariadb -h 127.0.0.1 -P {} -u root", server.local_addr().port());
//! # Ok(()) }
//! ```
//!
//! ## Modules
//!
//! * `config`: the flags (`mdl-server --help`).
//! * `server`: listen, accept, one thread per connection, `KILL CONNECTION`.
//! * `connection`: `opensrv-mysql`'s shim, prepared statements, the watch that notices a
//!   client gone while its statement waits, the reset of `COM_RESET_CONNECTION`.
//! * `command_map`: the commands `opensrv-mysql` does not parse (`COM_RESET_CONNECTION`,
//!   `COM_CHANGE_USER`, `COM_STATISTICS`), read as empty queries.
//! * `execute`: a statement's path: locks from `mdl-sql`, then the engine.
//! * `execute_types`: a `COM_STMT_EXECUTE` sent without its parameters' types gets its
//!   statement's last ones, which `opensrv-mysql` needs.
//! * `status`: the `Com_*` and `Questions` counters, per session and for the server.
//! * `statement_event`: a statement's `pfs` event: its class, digest and end columns.
//! * `depth`: how deep a statement may nest (1436 past it), checked before and after parsing.
//! * `memo`: what a prepared statement keeps between executions (its lock plan and rewrite).
//! * `lock_args`: the arguments of `GET_LOCK` and its siblings bound before planning: a
//!   prepared statement's `?`, and expressions that read no row (`@name`, `CONCAT(...)`).
//! * `sql_prepare`: `PREPARE`, `EXECUTE`, `DEALLOCATE PREPARE` in SQL.
//! * `session_values`: what a session's statements read from the session (`LAST_INSERT_ID()`,
//!   `ROW_COUNT()`, `FOUND_ROWS()`, `@user` variables).
//! * `diagnostics`: the session's diagnostics area (notes, warnings, the last error), `SHOW
//!   WARNINGS`, `@@warning_count`.
//! * `sql_mode`, `time_zone`: the session's `sql_mode` and `time_zone`.
//! * `rewrite`: MySQL's dialect to SQLite's, on `sqlparser`'s AST.
//! * `engine`: SQLite, one file per schema, the engine's single writer.
//! * `schema_name`: the schema names SQLite can attach, checked before a file exists.
//! * `functions`: MySQL's scalar functions SQLite lacks or means otherwise (`NOW`, `LPAD`, ...).
//! * `replace_rows`: `REPLACE`'s affected rows as MySQL counts them (the rows it deleted too).
//! * `foreign_keys`: foreign keys as InnoDB keeps them, on SQLite's own.
//! * `views`: views, with MySQL's definition kept in SQLite's, and the tables they read.
//! * `admin`: `SHOW PROCESSLIST`, `KILL`, `SHOW VARIABLES`, system variables.
//! * `pfs_views`: `performance_schema` and `sys` tables as SQLite snapshots of `pfs`.
//! * `info_schema`: `information_schema`'s tables (`SCHEMATA`, `TABLES`, `COLUMNS`,
//!   `STATISTICS`, `INNODB_TRX`, the keys, `VIEWS`, ...) as SQLite snapshots of the catalog.
//! * `catalog`: SQLite's catalog in MySQL's terms (columns, keys, index names), for
//!   `information_schema`, `DESCRIBE` and `SHOW INDEX`.
//! * `view_columns`: a view's columns' `Null`, `Default` and types, from its select, as
//!   MySQL derives them.
//! * `expr_type`: the MySQL type of a select item that is an expression (a view's column,
//!   `CREATE TABLE ... SELECT`'s), by MySQL 8.0's rules.
//! * `show_table`: `SHOW CREATE TABLE`, `DESCRIBE` / `SHOW COLUMNS`, `SHOW INDEX`.
//! * `temporary`: a session's temporary tables in SQLite's `temp` database, shadowing base
//!   tables, and the journal that keeps their DDL across an engine rollback.
//! * `explain`: `EXPLAIN` in MySQL's table, from SQLite's query plan.
//! * `unsupported`: the statements `mdl-sql` reads but SQLite cannot run (`EXPLAIN ANALYZE`,
//!   ...), refused with 1235 naming the feature.
//! * `show_query`: the `SHOW`s answered as queries (`SHOW TABLE STATUS` over
//!   `information_schema.TABLES`, the replication `SHOW`s' empty sets, ...).
//! * `processlist`: the live connections and their kill signals.
//! * `connect_attrs`: the connection attributes of a client's handshake response.
//! * `constant`: `--mode constant`, the protocol floor.
//! * `wire`: result sets and MySQL's error codes on the wire, and `COM_STATISTICS`'s line.
//! * `error`: MySQL errors, and SQLite's mapped to them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod admin;
mod catalog;
mod command_map;
mod config;
mod connect_attrs;
mod connection;
mod constant;
mod depth;
mod diagnostics;
mod engine;
mod error;
mod exec_params;
mod execute;
mod execute_types;
mod explain;
mod expr_type;
mod foreign_keys;
mod functions;
mod info_schema;
mod lock_args;
mod memo;
mod on_update;
mod pfs_views;
mod processlist;
mod published;
mod replace_rows;
mod rewrite;
mod schema_name;
mod server;
mod session_values;
mod show_query;
mod show_table;
mod sql_mode;
mod sql_prepare;
mod stage_event;
mod statement_event;
mod status;
mod temporary;
mod time_zone;
mod trx_event;
mod unsupported;
mod view_columns;
mod views;
mod wire;

pub use config::{FastPathFlag, HashFlag, Mode, ServerConfig};
pub use error::ServerError;
pub use server::{start, RunningServer, Shared, StatementCounters};
