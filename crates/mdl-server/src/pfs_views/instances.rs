//! `performance_schema.mutex_instances`, `rwlock_instances` and `cond_instances`: the live
//! instrumented synchronization objects, one row per object, from `pfs`'s instance registry
//! (`pfs::synch_instances`, the registry `events_waits_summary_by_instance` reads). Here they
//! are the lock manager's (`mdl-core/src/sync.rs`): a mutex per map partition
//! (`OBJECT_INSTANCE_BEGIN` its number) and per context's wait slot, an rwlock per lock object
//! (`wait/synch/prlock/...`: MySQL lists its prlocks in `rwlock_instances` too), a condition
//! variable per context. Rows come by name and identity; `WHERE`, `ORDER BY` and joins (with
//! `events_waits_summary_by_instance` on `OBJECT_INSTANCE_BEGIN`) run in SQLite.
//!
//! MySQL's columns: `storage/perfschema/table_mutex_instances.cc`,
//! `table_rwlock_instances.cc`, `table_cond_instances.cc` (no keys, as the other snapshots).
//!
//! Who holds a lock is not shown: `LOCKED_BY_THREAD_ID` and `WRITE_LOCKED_BY_THREAD_ID` are
//! NULL and `READ_LOCKED_BY_COUNT` is 0, what MySQL shows of a lock whose instrument is
//! disabled (MySQL sets the owner in `pfs_end_mutex_wait_v1` only for a timed or counted
//! wait, and the `wait/synch/%` instruments are off by default). The locks are parking_lot's,
//! which keep no owner, and `pfs` keeps none either: the instrumented acquire path stores its
//! statistics, not its thread, and the release path does nothing unless hold statistics are
//! on. An owner would cost a store at every acquire and release of an enabled instance and a
//! shared reader count (a contended read-modify-write on every read lock of a lock object,
//! mdl's hottest path) when enabled; see `docs/pfs-statements.md`.

use rusqlite::types::Value;

use super::columns::Def;
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The tables.
pub(super) const TABLES: [&str; 3] = ["mutex_instances", "rwlock_instances", "cond_instances"];

/// `mutex_instances`: `table_mutex_instances.cc`.
const MUTEX: [Def; 3] = [
    ("NAME", "varchar(128) NOT NULL"),
    ("OBJECT_INSTANCE_BEGIN", "bigint unsigned NOT NULL"),
    ("LOCKED_BY_THREAD_ID", "bigint unsigned"),
];

/// `rwlock_instances`: `table_rwlock_instances.cc`.
const RWLOCK: [Def; 4] = [
    ("NAME", "varchar(128) NOT NULL"),
    ("OBJECT_INSTANCE_BEGIN", "bigint unsigned NOT NULL"),
    ("WRITE_LOCKED_BY_THREAD_ID", "bigint unsigned"),
    ("READ_LOCKED_BY_COUNT", "int unsigned NOT NULL"),
];

/// `cond_instances`: `table_cond_instances.cc`.
const COND: [Def; 2] = [
    ("NAME", "varchar(128) NOT NULL"),
    ("OBJECT_INSTANCE_BEGIN", "bigint unsigned NOT NULL"),
];

/// The columns of `table`, one of [`TABLES`].
pub(super) fn defs(table: &str) -> &'static [Def] {
    match table {
        "mutex_instances" => &MUTEX,
        "rwlock_instances" => &RWLOCK,
        _ => &COND,
    }
}

/// Fills `performance_schema.<name>`, one of [`TABLES`], from one read of the registry.
pub(super) fn fill(db: &mut EngineConn, name: &str) -> Result<(), ServerError> {
    let (kind, owner): (_, &[Value]) = match name {
        "mutex_instances" => (pfs::ClassKind::Mutex, &[Value::Null]),
        "rwlock_instances" => (pfs::ClassKind::RwLock, &[Value::Null, Value::Integer(0)]),
        _ => (pfs::ClassKind::Cond, &[]),
    };
    let rows = (pfs::synch_instances(kind).rows.into_iter())
        .map(|r| {
            let id = i64::try_from(r.object_instance_begin).map_or_else(
                |_| Value::Real(r.object_instance_begin as f64),
                Value::Integer,
            );
            let mut row = vec![Value::Text(r.name), id];
            row.extend_from_slice(owner);
            row
        })
        .collect();
    super::copy(db, name, defs(name), rows)
}
