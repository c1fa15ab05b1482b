//! `prepared_statements_instances`: a row per live prepared statement (behind
//! [`crate::PreparedStatement`]), as MySQL's `global_prepared_stmt_container`
//! (`storage/perfschema/pfs_prepared_stmt.cc`).
//!
//! A row is a slot of the registry: what the statement is (its id, name, text, owner), kept
//! under the registry's lock, and its execution statistics, a [`DigestCell`] of
//! `statement::PREPARED_CELLS`, the slot's index there (allocated at the first prepared
//! statement, `Sizing::max_prepared_statements` of them, never freed; a slot whose statement
//! went is reused by the next one). Taking and giving back a slot (a prepare, a close) takes
//! the lock; an execution does not: its statement event carries the index (`Active::prepared`)
//! and its end adds to the cell as to its digest's (`record::end_statement`), relaxed load +
//! store by the session that owns the statement, the one writer. A reader copies the rows
//! under the lock and the cells' atomics; `TRUNCATE` resets the cells (a reset racing an
//! execution may lose that execution: "just statistics", as PFS's).
//!
//! As MySQL (`pfs_create_prepared_stmt_v1`, `storage/perfschema/pfs.cc`, called only when the
//! preparing statement has a statement locker): a row is made when the preparing statement's
//! class is enabled (the server gives none for the binary protocol's, which it does not
//! instrument: then the global instrumentation alone decides) on an instrumented thread; and
//! an execution is counted when its statement event is recorded (`MYSQL_EXECUTE_PS` only with
//! a locker). A full registry (`Sizing::max_prepared_statements`) counts the statement in
//! `Performance_schema_prepared_statements_lost`.

use std::sync::atomic::Ordering::Relaxed;

use parking_lot::Mutex;

use super::api::ClassRef;
use super::classes::{classes, F_ENABLED, STATEMENTS_LOG};
use super::limits::{sizing, LOST};
use super::session::SessionRecord;
use super::setup::setup;
use super::statement::{digest_cells, DigestCell, PREPARED_CELLS};
use super::summary::summary;
use crate::kinds::{ClassKind, Clock, Consumer};
use crate::outcome::{truncated, MAX_SQL_TEXT};
use crate::tables::PreparedStatementRow;

/// MySQL's `PS_NAME_LENGTH`: a `STATEMENT_NAME` is cut there.
const MAX_NAME: usize = 64;

/// What a row shows besides its statistics.
struct Meta {
    statement_id: u64,
    name: Option<String>,
    text: String,
    thread_id: u64,
    event_id: u64,
    prepare_ps: u64,
}

struct Registry {
    /// By cell index: `None` is free.
    slots: Vec<Option<Meta>>,
    free: Vec<usize>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    slots: Vec::new(),
    free: Vec::new(),
});

/// The cells, allocated at the first call.
fn cells() -> &'static [DigestCell] {
    PREPARED_CELLS.get_or_init(|| digest_cells(sizing().max_prepared_statements))
}

/// A prepared statement's row, given back when dropped: its cell's index + 1 (0: no row).
pub(crate) struct Handle {
    row: u32,
}

/// Where an execution of the statement adds its statistics: the row's cell index + 1 (0: it
/// has no row).
pub(crate) type Ref = u32;

impl Handle {
    pub(crate) fn executions(&self) -> Ref {
        self.row
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        if self.row == 0 {
            return;
        }
        let i = self.row as usize - 1;
        let mut r = REGISTRY.lock();
        if let Some(s) = r.slots.get_mut(i) {
            *s = None;
            r.free.push(i);
        }
    }
}

/// A row for the statement `statement_id` (`name`: SQL `PREPARE`'s) of session `s`, prepared
/// from `text` by a statement of `class` in `prepare_ps` picoseconds (see the module docs).
pub(crate) fn create(
    s: &SessionRecord,
    class: Option<ClassRef>,
    statement_id: u64,
    name: Option<&str>,
    text: &str,
    prepare_ps: u64,
) -> Handle {
    let inert = Handle { row: 0 };
    let Some(t) = s.slot() else {
        return inert;
    };
    let f = match class {
        Some(c) => c.0.flags.load(Relaxed),
        None if setup().effective(Consumer::GlobalInstrumentation) => F_ENABLED,
        None => 0,
    };
    if f & t.mask() & F_ENABLED == 0 {
        return inert;
    }
    let meta = Meta {
        statement_id,
        name: name.map(|n| truncated(n, MAX_NAME).to_string()),
        text: truncated(text, MAX_SQL_TEXT).to_string(),
        thread_id: s.thread_id(),
        // The preparing statement's event (`statement/sql/prepare_sql`, `statement/com/Prepare`),
        // as MySQL's `pfs_create_prepared_stmt_v1` takes its locker's; a fresh id when it has
        // no record (the statements consumers off).
        event_id: match t.logs[STATEMENTS_LOG].top_event_id() {
            0 => t.next_event_id(),
            id => id,
        },
        prepare_ps,
    };
    let cells = cells();
    let mut r = REGISTRY.lock();
    let i = match r.free.pop() {
        Some(i) => i,
        None if r.slots.len() < cells.len() => {
            r.slots.push(None);
            r.slots.len() - 1
        }
        None => {
            LOST.prepared.fetch_add(1, Relaxed);
            return inert;
        }
    };
    let (Some(cell), Ok(row)) = (cells.get(i), u32::try_from(i + 1)) else {
        return inert;
    };
    cell.reset();
    r.slots[i] = Some(meta);
    Handle { row }
}

/// The rows, by `OWNER_THREAD_ID` and `STATEMENT_ID`.
pub(crate) fn rows() -> Vec<PreparedStatementRow> {
    // Every statement family shares one timer (`summary::summary_by_digest`).
    let clock = (classes().registered().iter())
        .find(|c| c.kind() == ClassKind::Statement)
        .map_or(Clock::Nanosecond, |c| c.clock());
    let Some(cells) = PREPARED_CELLS.get() else {
        return Vec::new();
    };
    let r = REGISTRY.lock();
    let mut rows: Vec<PreparedStatementRow> = (r.slots.iter().zip(cells.iter()))
        .filter_map(|(m, cell)| {
            let m = m.as_ref()?;
            let stats = summary(&cell.stat.snapshot(), clock);
            let sums = cell.sums();
            Some(PreparedStatementRow {
                object_instance_begin: std::ptr::from_ref(cell) as u64,
                statement_id: m.statement_id,
                statement_name: m.name.clone(),
                sql_text: m.text.clone(),
                owner_thread_id: m.thread_id,
                owner_event_id: Some(m.event_id),
                owner_object_type: None,
                owner_object_schema: None,
                owner_object_name: None,
                timer_prepare: m.prepare_ps,
                count_reprepare: 0,
                count_execute: stats.count_star,
                sum_timer_execute: stats.sum_timer_wait,
                min_timer_execute: stats.min_timer_wait,
                avg_timer_execute: stats.avg_timer_wait,
                max_timer_execute: stats.max_timer_wait,
                sum_lock_time: sums.lock_ps,
                sum_errors: sums.errors,
                sum_warnings: sums.warnings,
                sum_rows_affected: sums.rows_affected,
                sum_rows_sent: sums.rows_sent,
                sum_select_scan: sums.engine[1],
                sum_sort_scan: sums.engine[2],
                sum_no_index_used: sums.engine[0],
            })
        })
        .collect();
    drop(r);
    rows.sort_by_key(|r| (r.owner_thread_id, r.statement_id));
    rows
}

/// `TRUNCATE TABLE prepared_statements_instances`: the rows stay, their statistics (the
/// preparation's time too: `PFS_prepared_stmt::reset_data`) start again.
pub(crate) fn reset() {
    let Some(cells) = PREPARED_CELLS.get() else {
        return;
    };
    let mut r = REGISTRY.lock();
    for (m, cell) in r.slots.iter_mut().zip(cells.iter()) {
        if let Some(m) = m.as_mut() {
            m.prepare_ps = 0;
            cell.reset();
        }
    }
}

/// `Performance_schema_prepared_statements_lost`.
pub(crate) fn lost() -> u64 {
    LOST.prepared.load(Relaxed)
}
