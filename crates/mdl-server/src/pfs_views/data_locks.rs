//! `performance_schema.data_locks` and `data_lock_waits` (MySQL 8.0's
//! `storage/perfschema/table_data_locks.cc` and `table_data_lock_waits.cc`), where a DBA finds
//! who blocks an `UPDATE`. MySQL lists there the locks the storage engine holds and waits for,
//! InnoDB's record and table locks; here the counterpart of those is the engine's writer
//! (`engine.rs`): one lock over every schema, taken by a statement that writes (or a locking
//! read) and held to the end of its transaction. So:
//!
//! * `data_locks` has one `GRANTED` row for the connection that holds the writer and one
//!   `WAITING` row for each connection that waits for it; `data_lock_waits` one row for each
//!   waiting connection, with the holder as the blocker (none while nobody holds it). Both are
//!   made from one read of the process list, so a join of the two agrees.
//! * `ENGINE` is `SQLite`, not `INNODB`: the lock is the SQLite engine's writer, and a script
//!   that looks for InnoDB's locks finds none rather than made-up ones.
//! * `LOCK_TYPE` is `TABLE` (InnoDB names `RECORD` and `TABLE` locks: the writer locks no
//!   record, and `TABLE` is the coarser kind) and `LOCK_MODE` `X` (writers exclude each other,
//!   a `FOR SHARE` read takes the writer too; plain reads are not blocked, as InnoDB's
//!   consistent reads are not blocked by an `X` lock).
//! * `OBJECT_SCHEMA`, `OBJECT_NAME`, `PARTITION_NAME`, `SUBPARTITION_NAME` and `INDEX_NAME` are
//!   NULL: the lock is on no one table, and naming the statement's table would say the others
//!   are free, which they are not. `LOCK_DATA` is NULL, as InnoDB's for a table lock.
//! * `ENGINE_LOCK_ID` is `<connection id>:writer` ([`lock_id`]): a connection asks for the
//!   writer once at a time, and its request keeps the id from `WAITING` to `GRANTED`.
//!   `OBJECT_INSTANCE_BEGIN`, the address of InnoDB's lock structure, is the connection id:
//!   there is no structure here whose address it could be.
//! * `ENGINE_TRANSACTION_ID` is the connection's `INNODB_TRX.trx_id`, NULL for a statement run
//!   with `autocommit` on, which has no transaction there (`info_schema/transactions.rs`, whose
//!   `trx_requested_lock_id` is the waiting request's [`lock_id`]).
//! * `THREAD_ID` is the connection's `pfs` session thread, so a join with `threads` gives its
//!   `PROCESSLIST_ID`. `EVENT_ID` is NULL: the server does not record which statement event
//!   took the writer.
//!
//! `sys.innodb_lock_waits` is made from the same waits ([`waits`]) and lock ids
//! (`innodb_lock_waits.rs`), as MySQL's view is made from these two tables.

use rusqlite::types::Value;

use super::columns::Def;
use super::innodb_lock_waits::{int, text};
use super::Sources;
use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::processlist::Process;

/// The two tables, filled together.
pub(super) const TABLES: [&str; 2] = ["data_locks", "data_lock_waits"];

/// The writer's `ENGINE`, `LOCK_TYPE` and `LOCK_MODE` (module docs).
pub(super) const ENGINE: &str = "SQLite";
pub(super) const LOCK_TYPE: &str = "TABLE";
pub(super) const LOCK_MODE: &str = "X";

/// `data_locks`: `table_data_locks.cc`.
pub(super) const DATA_LOCKS: [Def; 15] = [
    ("ENGINE", "varchar(32) NOT NULL"),
    ("ENGINE_LOCK_ID", "varchar(128) NOT NULL"),
    ("ENGINE_TRANSACTION_ID", "bigint unsigned"),
    ("THREAD_ID", "bigint unsigned"),
    ("EVENT_ID", "bigint unsigned"),
    ("OBJECT_SCHEMA", "varchar(64)"),
    ("OBJECT_NAME", "varchar(64)"),
    ("PARTITION_NAME", "varchar(64)"),
    ("SUBPARTITION_NAME", "varchar(64)"),
    ("INDEX_NAME", "varchar(64)"),
    ("OBJECT_INSTANCE_BEGIN", "bigint unsigned NOT NULL"),
    ("LOCK_TYPE", "varchar(32) NOT NULL"),
    ("LOCK_MODE", "varchar(32) NOT NULL"),
    ("LOCK_STATUS", "varchar(32) NOT NULL"),
    ("LOCK_DATA", "varchar(8192)"),
];

/// `data_lock_waits`: `table_data_lock_waits.cc`.
pub(super) const DATA_LOCK_WAITS: [Def; 11] = [
    ("ENGINE", "varchar(32) NOT NULL"),
    ("REQUESTING_ENGINE_LOCK_ID", "varchar(128) NOT NULL"),
    ("REQUESTING_ENGINE_TRANSACTION_ID", "bigint unsigned"),
    ("REQUESTING_THREAD_ID", "bigint unsigned"),
    ("REQUESTING_EVENT_ID", "bigint unsigned"),
    (
        "REQUESTING_OBJECT_INSTANCE_BEGIN",
        "bigint unsigned NOT NULL",
    ),
    ("BLOCKING_ENGINE_LOCK_ID", "varchar(128) NOT NULL"),
    ("BLOCKING_ENGINE_TRANSACTION_ID", "bigint unsigned"),
    ("BLOCKING_THREAD_ID", "bigint unsigned"),
    ("BLOCKING_EVENT_ID", "bigint unsigned"),
    ("BLOCKING_OBJECT_INSTANCE_BEGIN", "bigint unsigned NOT NULL"),
];

/// The connection that holds the engine's writer, if one does, and those that wait for it.
pub(super) fn writer(processes: &[Process]) -> (Option<&Process>, Vec<&Process>) {
    let holder = processes.iter().find(|p| p.holds_writer);
    let waiters = (processes.iter())
        .filter(|p| p.waits_for_writer && !p.holds_writer)
        .collect();
    (holder, waiters)
}

/// Each wait for the writer, `(waiter, holder)`: `data_lock_waits`' and
/// `sys.innodb_lock_waits`' rows.
pub(super) fn waits(processes: &[Process]) -> Vec<(&Process, &Process)> {
    match writer(processes) {
        (Some(holder), waiters) => waiters.into_iter().map(|w| (w, holder)).collect(),
        (None, _) => Vec::new(),
    }
}

/// The `ENGINE_LOCK_ID` of connection `id`'s request of the writer (module docs).
pub(crate) fn lock_id(id: u64) -> String {
    format!("{id}:writer")
}

/// Fills both tables (module docs) from one read of the process list and of `pfs`' threads.
pub(super) fn fill(db: &mut EngineConn, src: &Sources<'_>) -> Result<(), ServerError> {
    let processes = (src.processes)();
    let threads = super::thread_ids();
    let thread = |p: &Process| threads.get(&p.id).map_or(Value::Null, |&t| int(t));
    let (locks, waits) = rows(&processes, &thread);
    super::copy(db, "data_locks", &DATA_LOCKS, locks)?;
    super::copy(db, "data_lock_waits", &DATA_LOCK_WAITS, waits)
}

/// The rows of `data_locks` and of `data_lock_waits`, `thread` giving a connection's
/// `THREAD_ID`.
fn rows(
    processes: &[Process],
    thread: &dyn Fn(&Process) -> Value,
) -> (Vec<Vec<Value>>, Vec<Vec<Value>>) {
    let trx = |p: &Process| p.transaction.map_or(Value::Null, |t| int(t.id));
    let lock = |p: &Process, status: &str| {
        let mut row = vec![text(ENGINE), text(&lock_id(p.id)), trx(p), thread(p)];
        // EVENT_ID, the object's names and the index's.
        row.extend(std::iter::repeat_n(Value::Null, 6));
        row.extend([int(p.id), text(LOCK_TYPE), text(LOCK_MODE), text(status)]);
        row.push(Value::Null); // LOCK_DATA
        row
    };
    // One side of a wait: lock id, transaction, thread, event, instance.
    let side = |p: &Process| {
        let id = text(&lock_id(p.id));
        [id, trx(p), thread(p), Value::Null, int(p.id)]
    };
    let (holder, waiters) = writer(processes);
    let locks = (holder.map(|h| lock(h, "GRANTED")).into_iter())
        .chain(waiters.iter().map(|w| lock(w, "WAITING")))
        .collect();
    let waits = (waits(processes).into_iter())
        .map(|(w, h)| {
            let mut row = vec![text(ENGINE)];
            row.extend(side(w));
            row.extend(side(h));
            row
        })
        .collect();
    (locks, waits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::processlist::Transaction;

    fn process(id: u64, holds: bool, waits: bool, trx: Option<u64>) -> Process {
        Process {
            id,
            user: "root".into(),
            host: "localhost".into(),
            db: None,
            command: "Query",
            time: 0,
            elapsed: std::time::Duration::ZERO,
            state: String::new(),
            info: None,
            transaction: trx.map(|id| Transaction {
                id,
                started: std::time::SystemTime::now(),
                rows_modified: 0,
            }),
            waits_for_writer: waits,
            holds_writer: holds,
            connect_attrs: Default::default(),
        }
    }

    #[test]
    fn the_holder_is_granted_and_blocks_each_waiter() {
        let ps = [
            process(1, false, false, None),
            process(2, false, true, None),
            process(3, true, false, Some(7)),
            process(4, false, true, Some(8)),
        ];
        let thread = |p: &Process| int(p.id + 100);
        let (locks, waits) = rows(&ps, &thread);
        assert!(locks.iter().all(|r| r.len() == DATA_LOCKS.len()));
        assert!(waits.iter().all(|r| r.len() == DATA_LOCK_WAITS.len()));
        let col = |r: &Vec<Value>, defs: &[Def], c: &str| {
            r[defs.iter().position(|(n, _)| *n == c).unwrap()].clone()
        };
        let locks_of =
            |c: &str| -> Vec<Value> { locks.iter().map(|r| col(r, &DATA_LOCKS, c)).collect() };
        assert_eq!(locks_of("THREAD_ID"), [int(103), int(102), int(104)]);
        assert_eq!(
            locks_of("LOCK_STATUS"),
            [text("GRANTED"), text("WAITING"), text("WAITING")]
        );
        assert_eq!(
            locks_of("ENGINE_TRANSACTION_ID"),
            [int(7), Value::Null, int(8)]
        );
        assert_eq!(
            locks_of("OBJECT_NAME"),
            [Value::Null, Value::Null, Value::Null]
        );
        let pair = |r: &Vec<Value>| {
            let c = |n: &str| col(r, &DATA_LOCK_WAITS, n);
            (c("REQUESTING_ENGINE_LOCK_ID"), c("BLOCKING_ENGINE_LOCK_ID"))
        };
        let pairs: Vec<_> = waits.iter().map(pair).collect();
        assert_eq!(
            pairs,
            [
                (text("2:writer"), text("3:writer")),
                (text("4:writer"), text("3:writer"))
            ]
        );
        // Nobody holds it: waiters, no waits.
        let (locks, waits) = rows(&ps[..2], &thread);
        assert_eq!((locks.len(), waits.len()), (1, 0));
    }
}
