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
//! Who holds a lock: `LOCKED_BY_THREAD_ID` and `WRITE_LOCKED_BY_THREAD_ID` are the `THREAD_ID`
//! (`threads`) holding it exclusively, `READ_LOCKED_BY_COUNT` its shared holds, as far as
//! acquisitions made while its instrument was enabled say (`pfs`'s `imp/owner.rs`), as MySQL
//! sets them (`pfs_end_mutex_wait_v1`, `pfs_unlock_mutex_v1`). The `wait/synch/%`
//! instruments are off by default, as MySQL's: NULL and 0 then, what MySQL shows; `UPDATE
//! setup_instruments SET ENABLED = 'YES' WHERE NAME LIKE 'wait/synch/%'` turns them on for
//! locks taken from then on. The lock manager holds these locks for a few hundred
//! instructions, so a snapshot rarely catches one held (`docs/pfs-dba-tables.md`).

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
    let kind = match name {
        "mutex_instances" => pfs::ClassKind::Mutex,
        "rwlock_instances" => pfs::ClassKind::RwLock,
        _ => pfs::ClassKind::Cond,
    };
    let rows = (pfs::synch_instances(kind).rows.into_iter())
        .map(|r| {
            let id = i64::try_from(r.object_instance_begin).map_or_else(
                |_| Value::Real(r.object_instance_begin as f64),
                Value::Integer,
            );
            let owner = (r.locked_by_thread_id).map_or(Value::Null, |t| Value::Integer(t as i64));
            let readers = Value::Integer(i64::from(r.read_locked_by_count));
            let mut row = vec![Value::Text(r.name), id, owner, readers];
            row.truncate(defs(name).len());
            row
        })
        .collect();
    super::copy(db, name, defs(name), rows)
}
