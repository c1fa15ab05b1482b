//! # mdl-sql: MySQL 8.0's statement → metadata-lock rules, and the lock side of a session
//!
//! A Rust database that speaks MySQL and parses its SQL with [`sqlparser`] needs MySQL's
//! metadata locks to behave like MySQL: a transaction's SELECT holds its table until COMMIT, an
//! ALTER TABLE waits for it, and every later statement on the table queues behind the ALTER.
//! This crate turns a parsed statement into the [`mdl_core::MdlRequest`]s MySQL 8.0 takes, and
//! keeps the lock side of a session (transactions, LOCK TABLES, FLUSH TABLES WITH READ LOCK,
//! LOCK INSTANCE FOR BACKUP, savepoints, `GET_LOCK`) on an [`mdl_core::MdlContext`]. It does no
//! I/O and runs no statement: the server parses, asks for the locks, runs the statement on its
//! engine, and ends the statement.
//!
//! ```
//! use std::time::Duration;
//! use mdl_core::{MdlConfig, MdlManager};
//! use mdl_sql::{parse, Session, SqlError};
//!
//! # fn block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     struct W(std::thread::Thread);
//! #     impl std::task::Wake for W { fn wake(self: std::sync::Arc<Self>) { self.0.unpark() } }
//! #     let waker = std::sync::Arc::new(W(std::thread::current())).into();
//! #     let mut cx = std::task::Context::from_waker(&waker);
//! #     let mut f = std::pin::pin!(f);
//! #     loop {
//! #         if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; }
//! #         std::thread::park();
//! #     }
//! # }
//! /// What a server does with each statement a client sends.
//! async fn run(session: &mut Session, sql: &str) -> Result<(), SqlError> {
//!     for parsed in parse(sql)? {
//!         let plan = session.plan(&parsed)?;          // the rules; errors before any lock
//!         let mut stmt = session.execute(&plan).await?; // implicit commit, locks, effects
//!         stmt.upgrade().await?;                      // ALTER TABLE: SU -> X, before the change
//!         // ... run `parsed.text` on the engine; an error here drops `stmt`, which ends the
//!         // statement as failed and gives back the locks it took ...
//!         stmt.finish().await?;                       // end of statement (or commit)
//!     }
//!     Ok(())
//! }
//!
//! let mgr = MdlManager::new(MdlConfig::default())?;   // one per server
//! let mut reader = Session::new(mgr.new_context());   // one per connection
//! reader.set_current_schema(Some("test".into()));
//! let mut ddl = Session::new(mgr.new_context());
//! ddl.set_current_schema(Some("test".into()));
//! ddl.set_lock_wait_timeout(Duration::from_millis(10));
//!
//! block_on(async {
//!     // A transaction reads t1: SHARED_READ on test.t1 until COMMIT.
//!     run(&mut reader, "BEGIN; SELECT c FROM t1 WHERE id = 1").await?;
//!     let p = reader.plan(&parse("SELECT c FROM t1")?[0])?;
//!     assert_eq!(p.describe(), ["TABLE test.t1 SR TRANSACTION"]);
//!
//!     // ALTER TABLE gets SHARED_UPGRADABLE, but its upgrade to EXCLUSIVE waits, and times out.
//!     let err = run(&mut ddl, "ALTER TABLE t1 ADD COLUMN x INT").await.unwrap_err();
//!     assert_eq!((err.code(), err.sqlstate()), (1205, "HY000"));
//!     assert!(!ddl.context().has_locks());
//!
//!     // After COMMIT it goes through.
//!     run(&mut reader, "COMMIT").await?;
//!     run(&mut ddl, "ALTER TABLE t1 ADD COLUMN x INT").await
//! })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## The API
//!
//! * [`parse`]: a client's text → [`Parsed`] statements ([`Statement`]: sqlparser's AST, or one
//!   of the MySQL statements sqlparser 0.64 cannot parse).
//! * [`plan`] (or [`Session::plan`]): a statement and a [`SessionState`] → a [`Plan`]: the
//!   [`StatementKind`], the implicit commits, the requests in acquisition order, the
//!   [`Upgrade`]s, the [`Effect`] on the session, the [`UserLockCall`]s. Pure: it touches no lock
//!   manager, so every rule is a table-driven test (`tests/rules_*.rs`, a file per family).
//! * [`Session`]: owns a connection's `MdlContext` (create it with
//!   [`mdl_core::MdlManager::new_context_with_id`] and the connection id, so `IS_USED_LOCK`, the
//!   lock diagnostics and [`mdl_core::MdlManager::kill`] use the server's numbers). [`Session::execute`] returns a
//!   [`StatementGuard`]; [`StatementGuard::finish`] ends a statement that succeeded, and
//!   dropping the guard ends one that failed (so `?` and dropped futures leave no lock behind).
//!   [`Session::begin_commit`] (COMMIT IX held while the engine commits, released by
//!   [`CommitGuard`]), [`Session::commit`] and [`Session::rollback`] end a transaction from
//!   outside a statement (an implicit commit the engine must do first, a disconnect). Locks are taken with `acquire_async` (std futures: tokio, smol or any
//!   executor), waiting up to the session's `lock_wait_timeout`.
//! * [`SqlError`]: MySQL's code, SQLSTATE and message, with the [`mdl_core::MdlError`] behind a
//!   timeout, deadlock or kill ([`SqlError::mdl`]: the blockers, the cycle).
//!
//! A kill ([`mdl_core::MdlManager::kill`], [`mdl_core::KillHandle`]) ends the session's current
//! wait with 1317. A [`mdl_core::KillScope::Query`] kill lasts until the statement ends, and one
//! that arrives between statements is cleared when the next starts, as MySQL's `KILL QUERY`; a
//! [`mdl_core::KillScope::Connection`] kill stays until the server ends the session or clears
//! it (`session.context_mut().reset_kill()`).
//!
//! ## The rules (MySQL 8.0.45's sources)
//!
//! | statement | locks (duration) | MySQL |
//! |---|---|---|
//! | SELECT | each table SR (TRANSACTION) | `sql/table.h` `mdl_type_for_dml`; `Query_block::add_table_to_list` |
//! | SELECT ... FOR UPDATE / FOR SHARE | the block's tables SW + GLOBAL IX / SR | `Query_block::set_lock_for_table`, `open_table` |
//! | INSERT, REPLACE, UPDATE, DELETE | targets SW (SWLP with LOW_PRIORITY), other tables SR, GLOBAL IX (STATEMENT) | `PT_insert`/`PT_update`/`PT_delete`, `sql/sql_base.cc` `open_table` |
//! | EXPLAIN (of DML) / SHOW CREATE TABLE | the statement's table locks / SH for the statement | `Sql_cmd_dml::prepare` / `sql/sql_show.cc` `mysqld_show_create` |
//! | commit of a read-write transaction | COMMIT IX (EXPLICIT), released after the commit | `sql/handler.cc` `ha_commit_trans` |
//! | CREATE / ALTER / DROP / TRUNCATE / RENAME TABLE, CREATE / DROP INDEX | BACKUP_LOCK IX, GLOBAL IX, SCHEMA IX; tables X (DROP, TRUNCATE, RENAME), S then X (CREATE), SU then X (ALTER, the index statements); implicit commit before and after | `sql/sql_base.cc` `lock_table_names`, `open_table`; `sql/sql_table.cc` `mysql_inplace_alter_table` |
//! | CREATE / DROP DATABASE | GLOBAL IX, SCHEMA X, BACKUP_LOCK IX (+ the schema's tables X) | `sql/lock.cc` `lock_schema_name`, `sql/sql_db.cc` `mysql_rm_db` |
//! | CREATE [OR REPLACE] / ALTER VIEW, DROP VIEW | the view X, the select's tables SR, BACKUP_LOCK IX, GLOBAL IX, SCHEMA IX; implicit commit | `sql/sql_view.cc` `mysql_create_view`, `mysql_drop_view` |
//! | a statement that names a view | the view's lock, then the same on every table the view reads (views in it in turn: [`Plan::expand_views`]) | `sql/sql_view.cc` `mysql_make_view` |
//! | INSERT / UPDATE / DELETE / REPLACE of a table a foreign key relates ([`Plan::add_foreign_keys`]) | its parents SR; its children SW when the key's rule changes them (CASCADE, SET NULL), else SR, a child so written in turn (TRANSACTION); none with [`SessionState::foreign_key_checks`] off | `sql/sql_base.cc` `DML_prelocking_strategy::handle_table`, `process_table_fks` |
//! | DDL of such a table | CREATE: the new keys' parents X and names X (FOREIGN_KEY namespace); ALTER: parents and children SU, upgraded to X with the table; DROP (and DROP DATABASE, per table): parents, children and the keys' names X; RENAME: parents and children X (STATEMENT) | `sql/sql_table.cc` `mysql_create_table`, `mysql_alter_table`, `rm_table_do_discovery_and_lock_fk_tables` (`collect_fk_parents_for_*`, `collect_fk_children`, `collect_fk_names*`); `sql/sql_db.cc` `mysql_rm_db` |
//! | LOCK TABLES | READ SRO, READ LOCAL SR, WRITE SNRW (+ GLOBAL IX, SCHEMA IX), all EXPLICIT | `sql_yacc.yy` `table_lock`, `THD::enter_locked_tables_mode` |
//! | FLUSH TABLES WITH READ LOCK | GLOBAL S, COMMIT S (EXPLICIT) | `sql/lock.cc` `Global_read_lock` |
//! | FLUSH TABLES t, ... FOR EXPORT | the tables SNW, LOCK TABLES mode | `sql/sql_reload.cc` `flush_tables_for_export` |
//! | FLUSH TABLES [t, ...], FLUSH PRIVILEGES / LOGS / STATUS / ... | none (implicit commit) | `sql/sql_reload.cc` `handle_reload_request` |
//! | ANALYZE / CHECK TABLE | each table SR, BACKUP_LOCK IX; implicit commit | `sql/sql_admin.cc` `mysql_admin_table` |
//! | OPTIMIZE / REPAIR TABLE | each table SNRW then X, GLOBAL IX, SCHEMA IX, BACKUP_LOCK IX; implicit commit | `mysql_admin_table`, `sql/sql_base.cc` `lock_table_names` |
//! | CHECKSUM TABLE | each table SR | `sql/sql_table.cc` `mysql_checksum_table` |
//! | LOCK INSTANCE FOR BACKUP | BACKUP_LOCK S (EXPLICIT) | `sql/sql_backup_lock.cc` |
//! | GET_LOCK and friends | USER_LEVEL_LOCK X (EXPLICIT), reference-counted per session | `sql/item_func.cc` `Item_func_get_lock::val_int` |
//! | a session's temporary table ([`SessionState::temporary_tables`]) | none, in any statement; it shadows the base table of its name; 1137 when a statement names it twice | `sql/sql_base.cc` `open_temporary_tables`, `lock_table_names` (`is_temporary_table_being_opened`) |
//! | CREATE TEMPORARY TABLE / DROP TEMPORARY TABLE | no implicit commit; CREATE: SCHEMA IX (STATEMENT), its base sources SR; DROP: none | `sql/sql_parse.cc` `stmt_causes_implicit_commit`; `sql/sql_table.cc` `mysql_create_table_no_lock`, `mysql_rm_table` |
//!
//! ALTER TABLE models MySQL's INSTANT algorithm (the 8.0 default for metadata-only changes):
//! SU for the statement, X only when the definition changes; an engine that applies a change
//! in one step has no other phase, and the pile-up behind a waiting ALTER is the same. Tables
//! of `performance_schema`, `information_schema` and `sys` take no metadata locks in our
//! server: they are views of the lock manager's and the instrumentation's own state.
//!
//! Errors decided before any lock: 1046 (no current schema), 1059 (name too long), 1102 / 1103
//! (an empty schema or table name, or one ending in a space: `src/names.rs`), 1099 / 1100
//! (LOCK TABLES), 1192 (LOCK TABLES or transaction in the way), 1223 (a write while this
//! session holds the global read lock), 1792 (a write in a READ ONLY transaction), 3057 / 4163
//! (user-level lock names), 1050 / 1051 / 1137 / 1352 (temporary tables), 1064 / 1065
//! (syntax), 1235 (not supported here). Each rule is
//! written next to the MySQL function it transcribes in the source of this crate
//! (`src/plan/*.rs`, `src/tables.rs`, `src/user_lock.rs`, `src/session.rs`). The table
//! maintenance statements take all their tables' locks at once, where MySQL takes and releases
//! them table by table (`src/plan/maintenance.rs`).
//!
//! ## Not modelled
//!
//! There is no catalog: the caller says which names are views and lists their tables
//! ([`view_tables`], [`Plan::expand_views`]), DROP DATABASE gets its tables from the caller
//! ([`Plan::add_tables_of_schema`]), the existing foreign keys are the caller's
//! ([`Plan::add_foreign_keys`]), trigger tables are not added, and there are no privileges. [`parse`] refuses with 1235, naming
//! the feature, the statements of MySQL 8.0 of the classes this crate cannot read (its table is
//! `src/unsupported.rs`): triggers, stored routines and events, XA, HANDLER, accounts and
//! privileges, tablespaces, replication, `SELECT ... INTO OUTFILE`, plugins, and the like;
//! text that is not MySQL stays a syntax error (1064). Names compare as written (`lower_case_table_names=0`), or folded to lowercase with
//! [`SessionState::lower_case_table_names`] (`=1`). FLUSH TABLES WITH READ LOCK
//! does not wait for tables in use to be closed (a table-cache wait in MySQL, not a metadata
//! lock), and plain FLUSH TABLES, which only has that wait, plans nothing but its commit. MySQL opens a DML statement's tables one at a time in statement order; here a
//! statement's requests are taken in `acquire_locks` order (by key), which avoids deadlocks
//! between statements on the same tables. A DML deadlock victim backs off and retries, or rolls
//! its transaction back, as MySQL's `Open_table_context` does.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod comments;
mod create_select;
mod error;
mod names;
mod parse;
mod plan;
mod recognize;
mod session;
mod spelling;
mod split;
mod tables;
mod unsupported;
mod user_lock;
mod view_syntax;

pub use comments::MYSQL_VERSION_ID;
pub use error::SqlError;
pub use names::{is_lock_free_schema, TableName};
pub use parse::{parse, parse_prepared, Modifiers, Parsed, Statement};
pub use plan::{
    describe_request, generated_fk_name, generated_fk_number, plan, view_tables, Assigned, Effect,
    FkRule, ForeignKeyLink, LockedTable, Plan, SessionState, StatementKind, Upgrade,
};
pub use recognize::{Maintenance, NamedTable, TableLock, TableLockMode};
pub use session::{CommitGuard, Session, StatementGuard};
pub use split::split;
pub use tables::is_dual;
pub use user_lock::{
    lock_argument, lock_call_arguments, lock_call_arguments_mut, user_lock_key, LockArgument,
    UserLockCall, UserLockFunction, UserLockValue, AGGREGATE_FUNCTIONS, MAX_USER_LOCK_TIMEOUT,
};
pub use view_syntax::ViewCheckOption;
