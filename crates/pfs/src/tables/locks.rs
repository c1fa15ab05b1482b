//! The lock manager's tables: `metadata_locks` (MySQL 8.0's columns and two of the lock
//! manager's), `metadata_lock_waits` (who blocks whom, in the manner of
//! `sys.schema_table_lock_waits`) and `metadata_deadlocks` (the last deadlocks, one row per edge
//! of each cycle, in the manner of TiDB's `INFORMATION_SCHEMA.DEADLOCKS`), and the live
//! instrumented synchronization objects (`mutex_instances`, `rwlock_instances`,
//! `cond_instances`: [`SynchInstanceRow`]).

use serde::Serialize;

use super::{concat_headers, CellValue, Row, Table};

table_row! {
    /// `performance_schema.metadata_locks`: MySQL 8.0's 11 columns, then the lock manager's
    /// context id and label (a context is a connection; with async sessions many contexts
    /// share one OS thread, so `OWNER_THREAD_ID` alone cannot tell them apart). This crate only
    /// defines and renders the row; the lock manager builds the rows.
    #[derive(Default, Eq)]
    pub struct MetadataLockRow {
        /// OBJECT_TYPE: `GLOBAL`, `SCHEMA`, `TABLE`, `FUNCTION`, `PROCEDURE`, `TRIGGER`,
        /// `EVENT`, `COMMIT`, `USER LEVEL LOCK`, `TABLESPACE`, `BACKUP LOCK`, `LOCKING SERVICE`,
        /// ...
        "OBJECT_TYPE" => object_type: String,
        /// OBJECT_SCHEMA.
        "OBJECT_SCHEMA" => object_schema: Option<String>,
        /// OBJECT_NAME.
        "OBJECT_NAME" => object_name: Option<String>,
        /// COLUMN_NAME (8.0).
        "COLUMN_NAME" => column_name: Option<String>,
        /// OBJECT_INSTANCE_BEGIN: address/identity of the ticket.
        "OBJECT_INSTANCE_BEGIN" => object_instance_begin: u64,
        /// LOCK_TYPE: `INTENTION_EXCLUSIVE`, `SHARED`, `SHARED_HIGH_PRIO`, `SHARED_READ`,
        /// `SHARED_WRITE`, `SHARED_WRITE_LOW_PRIO`, `SHARED_UPGRADABLE`, `SHARED_READ_ONLY`,
        /// `SHARED_NO_WRITE`, `SHARED_NO_READ_WRITE`, `EXCLUSIVE`.
        "LOCK_TYPE" => lock_type: String,
        /// LOCK_DURATION: `STATEMENT`, `TRANSACTION`, `EXPLICIT`.
        "LOCK_DURATION" => lock_duration: String,
        /// LOCK_STATUS: `PENDING`, `GRANTED`, `VICTIM`, `TIMEOUT`, `KILLED`,
        /// `PRE_ACQUIRE_NOTIFY`, `POST_RELEASE_NOTIFY`.
        "LOCK_STATUS" => lock_status: String,
        /// SOURCE (`file:line`).
        "SOURCE" => source: Option<String>,
        /// OWNER_THREAD_ID.
        "OWNER_THREAD_ID" => owner_thread_id: Option<u64>,
        /// OWNER_EVENT_ID.
        "OWNER_EVENT_ID" => owner_event_id: Option<u64>,
        /// OWNER_CONTEXT_ID: the lock manager's context (connection) id.
        "OWNER_CONTEXT_ID" => owner_context_id: Option<u64>,
        /// OWNER_CONTEXT_LABEL: the label its owner gave the context.
        "OWNER_CONTEXT_LABEL" => owner_context_label: Option<String>,
    }
}

/// A `metadata_locks` table from rows the caller built.
pub fn metadata_locks(rows: Vec<MetadataLockRow>) -> Table<MetadataLockRow> {
    Table::new("metadata_locks", rows)
}

/// `performance_schema.metadata_locks`.
pub type MetadataLocks = Table<MetadataLockRow>;

table_row! {
    /// `metadata_lock_waits`: one row per (waiting request, blocker).
    #[derive(Default, Eq)]
    pub struct MetadataLockWaitRow {
        /// OBJECT_TYPE of the object waited for.
        "OBJECT_TYPE" => object_type: String,
        /// OBJECT_SCHEMA.
        "OBJECT_SCHEMA" => object_schema: Option<String>,
        /// OBJECT_NAME.
        "OBJECT_NAME" => object_name: Option<String>,
        /// WAITING_CONTEXT_ID.
        "WAITING_CONTEXT_ID" => waiting_context_id: u64,
        /// WAITING_CONTEXT_LABEL.
        "WAITING_CONTEXT_LABEL" => waiting_context_label: Option<String>,
        /// WAITING_LOCK_TYPE.
        "WAITING_LOCK_TYPE" => waiting_lock_type: String,
        /// WAITING_LOCK_DURATION.
        "WAITING_LOCK_DURATION" => waiting_lock_duration: String,
        /// WAIT_AGE_MS: how long it has waited, in milliseconds.
        "WAIT_AGE_MS" => wait_age_ms: u64,
        /// BLOCKING_CONTEXT_ID (NULL: held on MySQL's shared-word fast path, no owner recorded).
        "BLOCKING_CONTEXT_ID" => blocking_context_id: Option<u64>,
        /// BLOCKING_CONTEXT_LABEL.
        "BLOCKING_CONTEXT_LABEL" => blocking_context_label: Option<String>,
        /// BLOCKING_LOCK_TYPE: held (HARD) or requested (SOFT).
        "BLOCKING_LOCK_TYPE" => blocking_lock_type: String,
        /// BLOCKING_LOCK_DURATION.
        "BLOCKING_LOCK_DURATION" => blocking_lock_duration: Option<String>,
        /// BLOCK: `HARD` (granted, incompatible) or `SOFT` (pending, with priority).
        "BLOCK" => block: String,
    }
}

/// `metadata_lock_waits`.
pub type MetadataLockWaits = Table<MetadataLockWaitRow>;

table_row! {
    /// `metadata_deadlocks`: one row per edge of each remembered deadlock.
    #[derive(Default, Eq)]
    pub struct MetadataDeadlockRow {
        /// DEADLOCK_ID.
        "DEADLOCK_ID" => deadlock_id: u64,
        /// OCCUR_TIME: milliseconds since the Unix epoch.
        "OCCUR_TIME" => occur_time: u64,
        /// VICTIM_CONTEXT_ID.
        "VICTIM_CONTEXT_ID" => victim_context_id: u64,
        /// WAITING_CONTEXT_ID.
        "WAITING_CONTEXT_ID" => waiting_context_id: u64,
        /// WAITING_CONTEXT_LABEL.
        "WAITING_CONTEXT_LABEL" => waiting_context_label: Option<String>,
        /// WAITING_WEIGHT: the waiter's deadlock weight.
        "WAITING_WEIGHT" => waiting_weight: u32,
        /// OBJECT: the object waited for.
        "OBJECT" => object: String,
        /// WAITING_LOCK_TYPE.
        "WAITING_LOCK_TYPE" => waiting_lock_type: String,
        /// HOLDING_CONTEXT_ID.
        "HOLDING_CONTEXT_ID" => holding_context_id: u64,
        /// HOLDING_CONTEXT_LABEL.
        "HOLDING_CONTEXT_LABEL" => holding_context_label: Option<String>,
        /// HOLDING_LOCK_TYPE: held (HARD) or requested (SOFT).
        "HOLDING_LOCK_TYPE" => holding_lock_type: String,
        /// BLOCK: `HARD` or `SOFT`.
        "BLOCK" => block: String,
    }
}

/// `metadata_deadlocks`.
pub type MetadataDeadlocks = Table<MetadataDeadlockRow>;

table_row! {
    /// A live instrumented mutex, rwlock or condition variable: the columns
    /// `mutex_instances`, `rwlock_instances` and `cond_instances` share (MySQL 8.0's
    /// `table_mutex_instances.cc` and its siblings), then who holds it, as far as acquisitions
    /// made while the instance was enabled say (`imp::owner`).
    #[derive(Eq)]
    pub struct SynchInstanceRow {
        /// NAME: the instrument (`wait/synch/mutex/...`).
        "NAME" => name: String,
        /// OBJECT_INSTANCE_BEGIN: the identity given at creation, or the instance slot address
        /// (as in `events_waits_summary_by_instance`).
        "OBJECT_INSTANCE_BEGIN" => object_instance_begin: u64,
        json
        /// LOCKED_BY_THREAD_ID (a mutex) or WRITE_LOCKED_BY_THREAD_ID (an rwlock): the
        /// `THREAD_ID` holding it exclusively.
        "LOCKED_BY_THREAD_ID" => locked_by_thread_id: Option<u64>,
        json
        /// READ_LOCKED_BY_COUNT (an rwlock): its shared holds.
        "READ_LOCKED_BY_COUNT" => read_locked_by_count: u32,
    }
}
