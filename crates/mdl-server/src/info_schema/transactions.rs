//! `INNODB_TRX`: the open transactions, where a DBA looks for the old transaction behind a
//! metadata-lock pile-up (`SELECT trx_mysql_thread_id, trx_started FROM
//! information_schema.INNODB_TRX ORDER BY trx_started`, then `KILL` it). InnoDB's table name
//! and columns, for the transactions of this server's engine.
//!
//! A transaction is listed from its first statement after `BEGIN` (or its first statement
//! with `autocommit` off) to its end, as InnoDB lists it (InnoDB starts a transaction when a
//! statement first uses it, not at `BEGIN`); a statement run with `autocommit` on is not
//! listed. `trx_state` is `LOCK WAIT` while the transaction waits for the engine's writer,
//! the counterpart here of InnoDB's row locks, and `RUNNING` otherwise (a metadata-lock wait is
//! not an InnoDB lock wait: MySQL shows such a transaction `RUNNING` too). `trx_rows_modified`
//! (and `trx_weight`, which InnoDB bases on it) counts the rows its statements changed.
//! `trx_isolation_level` is this server's (`READ COMMITTED`: a statement reads the rows
//! committed when it starts). `trx_requested_lock_id` is, while it waits, the id of its request
//! of the writer in `performance_schema.data_locks` (`pfs_views/data_locks.rs`). What SQLite
//! does not keep (InnoDB's lock structures, rows locked, tables in use) is 0 or NULL.

use std::time::SystemTime;

use rusqlite::types::Value;

use crate::processlist::Process;

/// MySQL 8.0's `INNODB_TRX` columns.
pub(super) const INNODB_TRX: [&str; 25] = [
    "trx_id bigint unsigned",
    "trx_state varchar(13)",
    "trx_started datetime",
    "trx_requested_lock_id varchar(105)",
    "trx_wait_started datetime",
    "trx_weight bigint unsigned",
    "trx_mysql_thread_id bigint unsigned",
    "trx_query varchar(1024)",
    "trx_operation_state varchar(64)",
    "trx_tables_in_use bigint unsigned",
    "trx_tables_locked bigint unsigned",
    "trx_lock_structs bigint unsigned",
    "trx_lock_memory_bytes bigint unsigned",
    "trx_rows_locked bigint unsigned",
    "trx_rows_modified bigint unsigned",
    "trx_concurrency_tickets bigint unsigned",
    "trx_isolation_level varchar(16)",
    "trx_unique_checks int",
    "trx_foreign_key_checks int",
    "trx_last_foreign_key_error varchar(256)",
    "trx_adaptive_hash_latched int",
    "trx_adaptive_hash_timeout bigint unsigned",
    "trx_is_read_only int",
    "trx_autocommit_non_locking int",
    "trx_schedule_weight bigint unsigned",
];

/// The rows: one per connection with an open transaction, by connection id.
pub(super) fn rows(processes: &[Process]) -> Vec<Vec<Value>> {
    let int = |n: u64| Value::Integer(i64::try_from(n).unwrap_or(i64::MAX));
    (processes.iter())
        .filter_map(|p| {
            let t = p.transaction?;
            let waits = p.waits_for_writer;
            let wait_started = std::time::Duration::from_secs(p.time);
            Some(vec![
                int(t.id),
                Value::Text(if waits { "LOCK WAIT" } else { "RUNNING" }.to_string()),
                datetime(t.started),
                match waits {
                    true => Value::Text(crate::pfs_views::writer_lock_id(p.id)),
                    false => Value::Null,
                },
                match waits {
                    true => datetime(SystemTime::now() - wait_started),
                    false => Value::Null,
                },
                int(t.rows_modified),
                int(p.id),
                (p.info.as_deref()).map_or(Value::Null, |q| Value::Text(q.to_string())),
                Value::Null,
                int(0),
                int(0),
                int(0),
                int(0),
                int(0),
                int(t.rows_modified),
                int(0),
                Value::Text("READ COMMITTED".to_string()),
                Value::Integer(1),
                Value::Integer(1),
                Value::Null,
                Value::Integer(0),
                int(0),
                Value::Integer(0),
                Value::Integer(0),
                Value::Null,
            ])
        })
        .collect()
}

/// `t` as a `DATETIME` value, in UTC (`system_time_zone`, `NOW()` under `time_zone =
/// SYSTEM`: `functions/clock.rs`), whatever the session's `time_zone`.
pub(crate) fn datetime(t: SystemTime) -> Value {
    let utc = chrono::DateTime::<chrono::Utc>::from(t);
    Value::Text(utc.format("%Y-%m-%d %H:%M:%S").to_string())
}
