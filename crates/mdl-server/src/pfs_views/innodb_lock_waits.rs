//! `sys.innodb_lock_waits`: who waits for whom on the engine's writer, the counterpart here of
//! InnoDB's row locks (`engine.rs`: one writer at a time, held from a transaction's first
//! write to its end). MySQL's sys 8.0 view lists each InnoDB lock wait with the waiting and
//! the blocking transaction and the `KILL` statements that end the blocker; here each
//! connection that waits for the writer is listed with the connection that holds it.
//!
//! The columns are sys 8.0's. The waits, the lock ids, `locked_type` and the lock modes are
//! `performance_schema.data_locks`' and `data_lock_waits`' (`data_locks.rs`: why the writer is
//! a `TABLE` lock in mode `X` on no named table), as MySQL's view is made from those tables:
//! `locked_table*` and `locked_index` are NULL. The transactions are those of `INNODB_TRX`
//! (`info_schema/transactions.rs`): a statement run with `autocommit` on has none, and its
//! `*_trx_*` columns are NULL. Times are UTC (`system_time_zone`), whatever the session's
//! `time_zone`.

use std::time::{Duration, SystemTime};

use rusqlite::types::Value;

use super::data_locks::{lock_id, waits, LOCK_MODE, LOCK_TYPE};
use crate::info_schema::datetime;
use crate::processlist::{Process, Transaction};

/// sys 8.0's `innodb_lock_waits` columns (with MySQL's types).
pub(super) const COLUMNS: [&str; 30] = [
    "wait_started datetime",
    "wait_age time",
    "wait_age_secs bigint",
    "locked_table mediumtext",
    "locked_table_schema varchar(64)",
    "locked_table_name varchar(64)",
    "locked_table_partition varchar(64)",
    "locked_table_subpartition varchar(64)",
    "locked_index varchar(64)",
    "locked_type varchar(32)",
    "waiting_trx_id bigint unsigned",
    "waiting_trx_started datetime",
    "waiting_trx_age time",
    "waiting_trx_rows_locked bigint unsigned",
    "waiting_trx_rows_modified bigint unsigned",
    "waiting_pid bigint unsigned",
    "waiting_query longtext",
    "waiting_lock_id varchar(128)",
    "waiting_lock_mode varchar(32)",
    "blocking_trx_id bigint unsigned",
    "blocking_pid bigint unsigned",
    "blocking_query longtext",
    "blocking_lock_id varchar(128)",
    "blocking_lock_mode varchar(32)",
    "blocking_trx_started datetime",
    "blocking_trx_age time",
    "blocking_trx_rows_locked bigint unsigned",
    "blocking_trx_rows_modified bigint unsigned",
    "sql_kill_blocking_query varchar(32)",
    "sql_kill_blocking_connection varchar(26)",
];

/// The rows: each connection waiting for the writer, with the one holding it.
pub(super) fn rows(processes: &[Process]) -> Vec<Vec<Value>> {
    let now = SystemTime::now();
    (waits(processes).into_iter())
        .map(|(w, holder)| {
            let waited = Duration::from_secs(w.time);
            let (wt, bt) = (w.transaction, holder.transaction);
            vec![
                datetime(now - waited),
                age(waited),
                int(waited.as_secs()),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                text(LOCK_TYPE),
                opt(wt, |t| int(t.id)),
                opt(wt, |t| datetime(t.started)),
                opt(wt, |t| age(since(now, t.started))),
                opt(wt, |_| int(0)),
                opt(wt, |t| int(t.rows_modified)),
                int(w.id),
                w.info.as_deref().map_or(Value::Null, text),
                text(&lock_id(w.id)),
                text(LOCK_MODE),
                opt(bt, |t| int(t.id)),
                int(holder.id),
                holder.info.as_deref().map_or(Value::Null, text),
                text(&lock_id(holder.id)),
                text(LOCK_MODE),
                opt(bt, |t| datetime(t.started)),
                opt(bt, |t| age(since(now, t.started))),
                opt(bt, |_| int(0)),
                opt(bt, |t| int(t.rows_modified)),
                text(&format!("KILL QUERY {}", holder.id)),
                text(&format!("KILL {}", holder.id)),
            ]
        })
        .collect()
}

fn opt(t: Option<Transaction>, f: impl Fn(Transaction) -> Value) -> Value {
    t.map_or(Value::Null, f)
}

fn since(now: SystemTime, then: SystemTime) -> Duration {
    now.duration_since(then).unwrap_or_default()
}

pub(super) fn int(n: u64) -> Value {
    Value::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

pub(super) fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

/// A duration as MySQL's `TIME`, `HH:MM:SS`.
fn age(d: Duration) -> Value {
    let s = d.as_secs();
    Value::Text(format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60))
}
