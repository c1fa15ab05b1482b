//! Instrumentation points (feature `pfs`): the metadata-lock wait event, and the tables
//! `metadata_locks`, `metadata_lock_waits` and `metadata_deadlocks`. (The instrument classes of
//! the lock manager's primitives are in `sync.rs`.)
//!
//! # `metadata_locks` from the lock manager's own structures
//!
//! MySQL creates a Performance Schema row for every ticket, fast path included, in a global
//! buffer. Here the rows are read from what the lock manager keeps anyway: the granted and
//! pending entries of every lock object's queues (under its read lock) and, in
//! [`crate::FastPath::PerContext`] mode, the slots of the slot table (one scan). Nothing is
//! written for them on the acquire or release path, so with the `wait/lock/metadata/sql/mdl`
//! instrument enabled a per-context fast-path statement costs what it costs with it disabled.
//!
//! Only MySQL's shared-word fast path ([`crate::FastPath::SharedWord`]) keeps locks as counters
//! that name no owner. In that mode each context *publishes* its counter-held tickets in its own
//! small table of atomics that only it writes: while the instrument is enabled, granting,
//! changing or releasing such a ticket stores three words into the slot of the same index as
//! the ticket (plain stores, no read-modify-write, no lock), inside a seqlock. The reader copies
//! each table consistently (retrying if the owner wrote meanwhile). Lock objects are identified
//! by address: the reader first takes `Arc`s of every object in the lock map, so an address it
//! finds there is that object (it cannot be freed and reused while held), and a published
//! address it does not find belongs to a ticket already gone. Tickets beyond
//! [`PUBLISHED_SLOTS`] in one context are not shown and are counted as lost.
//!
//! Rows are shown while the instrument is enabled when the table is read (MySQL shows the
//! tickets created while it was enabled). The views are not one snapshot: a lock moved between
//! a slot and its queue during the read can show twice or not at all.
//!
//! Protocol: `seq` and `words` of a context's table are written only by the thread using the
//! context; `seq` is odd while a write is in progress.

use std::collections::HashMap;
use std::sync::atomic::fence;
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use pfs::{MetadataDeadlockRow, MetadataLockRow, MetadataLockWaitRow};

use crate::fast_path::Slot;
use crate::key::MdlKey;
use crate::lock::{moved_ticket_id, LockObject};
use crate::shared::ContextShared;
use crate::sync::{AtomicU64, Ordering};
use crate::types::{LockDuration, LockType};
use crate::MdlManager;

const METADATA: &str = "wait/lock/metadata/sql/mdl";

/// Starts timing a metadata-lock wait (`wait/lock/metadata/sql/mdl`); it ends when the guard
/// drops. Only requests that actually wait get here.
pub(crate) fn metadata_wait_start(lock: &Arc<LockObject>) -> pfs::WaitGuard {
    pfs::wait_start(crate::sync::classes().metadata, Arc::as_ptr(lock) as usize)
}

/// Shared-word tickets per context shown in `metadata_locks` (ticket slots
/// `0..PUBLISHED_SLOTS`).
pub const PUBLISHED_SLOTS: usize = 64;
const WORDS: usize = 3;

/// A context's published shared-word tickets: per slot, the lock object's address, the ticket
/// id, and `valid | type << 3 | duration << 7`.
pub(crate) struct Published {
    seq: AtomicU64,
    words: Box<[AtomicU64]>,
}

impl Published {
    fn new() -> Published {
        Published {
            seq: AtomicU64::new(0),
            words: (0..PUBLISHED_SLOTS * WORDS)
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    /// Runs `f` as one seqlock write.
    fn write(&self, f: impl FnOnce(&[AtomicU64])) {
        let s = self.seq.load(Ordering::Relaxed);
        self.seq.store(s + 1, Ordering::Relaxed);
        fence(Ordering::Release);
        f(&self.words);
        self.seq.store(s + 2, Ordering::Release);
    }

    /// A consistent copy of the words, or `None` if the owner kept writing.
    fn read(&self) -> Option<Vec<u64>> {
        for _ in 0..1000 {
            let s1 = self.seq.load(Ordering::Acquire);
            if s1 & 1 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let copy: Vec<u64> = self
                .words
                .iter()
                .map(|w| w.load(Ordering::Relaxed))
                .collect();
            fence(Ordering::Acquire);
            if self.seq.load(Ordering::Relaxed) == s1 {
                return Some(copy);
            }
        }
        None
    }
}

/// What a context publishes about one shared-word ticket.
pub(crate) struct RowInfo<'a> {
    pub(crate) lock: &'a Arc<LockObject>,
    pub(crate) id: u64,
    pub(crate) ty: LockType,
    pub(crate) duration: LockDuration,
}

/// Publishes (or overwrites) the row of ticket slot `slot`. Does nothing while the metadata
/// instrument is disabled.
#[inline]
pub(crate) fn publish(shared: &ContextShared, slot: u32, row: RowInfo<'_>) {
    if shared.metadata_class.enabled() {
        publish_row(shared, slot, row);
    }
}

#[inline(never)]
fn publish_row(shared: &ContextShared, slot: u32, row: RowInfo<'_>) {
    let i = slot as usize;
    if i >= PUBLISHED_SLOTS {
        shared.published_lost.fetch_add(1, Ordering::Relaxed);
        return;
    }
    let table = shared.published.get_or_init(Published::new);
    let meta = 1 | (row.ty as u64) << 3 | (row.duration as u64) << 7;
    table.write(|w| {
        w[i * WORDS].store(Arc::as_ptr(row.lock) as usize as u64, Ordering::Relaxed);
        w[i * WORDS + 1].store(row.id, Ordering::Relaxed);
        w[i * WORDS + 2].store(meta, Ordering::Relaxed);
    });
}

/// Removes the row of ticket slot `slot`, if one was published — also after the instrument was
/// disabled, so no stale row survives its ticket. One load when the context never published.
#[inline]
pub(crate) fn unpublish(shared: &ContextShared, slot: u32) {
    if let Some(table) = shared.published.get() {
        unpublish_row(table, slot);
    }
}

#[inline(never)]
fn unpublish_row(table: &Published, slot: u32) {
    let i = slot as usize;
    if i >= PUBLISHED_SLOTS || table.words[i * WORDS + 2].load(Ordering::Relaxed) & 1 == 0 {
        return;
    }
    table.write(|w| w[i * WORDS + 2].store(0, Ordering::Relaxed));
}

fn enabled() -> bool {
    pfs::instrument_setting(METADATA).is_some_and(|(enabled, _)| enabled)
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

/// One row of `metadata_locks`.
fn row(
    key: &MdlKey,
    ctx: &ContextShared,
    ticket_id: u64,
    ty: LockType,
    duration: LockDuration,
    granted: bool,
) -> MetadataLockRow {
    let thread = ctx.pfs_thread.load(Ordering::Relaxed);
    MetadataLockRow {
        object_type: key.namespace().object_type_name().to_owned(),
        object_schema: non_empty(key.schema()),
        object_name: non_empty(key.name()),
        column_name: key.column().map(str::to_owned),
        object_instance_begin: ticket_id,
        lock_type: ty.pfs_name().to_owned(),
        lock_duration: duration.pfs_name().to_owned(),
        lock_status: if granted { "GRANTED" } else { "PENDING" }.to_owned(),
        source: None,
        owner_thread_id: (thread != 0).then_some(thread),
        owner_event_id: None,
        owner_context_id: Some(ctx.id),
        owner_context_label: ctx.label().map(|l| l.to_string()),
    }
}

/// The rows of `performance_schema.metadata_locks`: every granted lock and pending request,
/// from the queues, the slots, and (shared-word mode) the contexts' publications.
pub(crate) fn metadata_locks(mgr: &MdlManager) -> pfs::tables::MetadataLocks {
    let mut rows = Vec::new();
    if !enabled() {
        return pfs::metadata_locks(rows);
    }
    let mut objects: HashMap<u64, Arc<LockObject>> = HashMap::new();
    mgr.map.for_each(|lock| {
        objects.insert(Arc::as_ptr(lock) as usize as u64, lock.clone());
        let st = lock.state.read_recursive();
        for e in st.granted().chain(st.waiting()) {
            rows.push(row(
                &lock.key,
                &e.ctx,
                e.ticket_id,
                e.ty,
                e.duration,
                e.granted,
            ));
        }
    });
    mgr.env.slots.for_each_used(|slot, w| {
        if let Slot::Held {
            tag,
            address,
            ty,
            duration,
        } = Slot::decode(w)
        {
            if let (Some(lock), Some(ctx)) = (objects.get(&address), mgr.env.registry.get(tag)) {
                let id = moved_ticket_id(ctx.id, slot);
                rows.push(row(&lock.key, &ctx, id, ty, duration, true));
            }
        }
    });
    for ctx in mgr.env.registry.live() {
        let Some(words) = ctx.published.get().and_then(Published::read) else {
            continue;
        };
        for w in words.chunks_exact(WORDS) {
            let meta = w[2];
            if meta & 1 == 0 {
                continue;
            }
            let Some(lock) = objects.get(&w[0]) else {
                continue;
            };
            let ty = LockType::from_id(((meta >> 3) & 0xf) as u8).unwrap_or(LockType::X);
            let duration = LockDuration::ALL[((meta >> 7) & 3).min(2) as usize];
            rows.push(row(&lock.key, &ctx, w[1], ty, duration, true));
        }
    }
    rows.sort_by_key(|r| r.object_instance_begin);
    pfs::metadata_locks(rows)
}

/// `metadata_lock_waits`: [`MdlManager::lock_waits`] as a Performance-Schema-style table.
pub(crate) fn metadata_lock_waits(mgr: &MdlManager) -> pfs::tables::MetadataLockWaits {
    let label = |l: &Option<Arc<str>>| l.as_ref().map(|l| l.to_string());
    let rows = mgr
        .lock_waits()
        .rows
        .iter()
        .map(|w| MetadataLockWaitRow {
            object_type: w.key.namespace().object_type_name().to_owned(),
            object_schema: non_empty(w.key.schema()),
            object_name: non_empty(w.key.name()),
            waiting_context_id: w.waiting.as_u64(),
            waiting_context_label: label(&w.waiting_label),
            waiting_lock_type: w.requested.pfs_name().to_owned(),
            waiting_lock_duration: w.requested_duration.pfs_name().to_owned(),
            wait_age_ms: w.waited.as_millis() as u64,
            blocking_context_id: w.blocker.context.map(|c| c.as_u64()),
            blocking_context_label: label(&w.blocker.label),
            blocking_lock_type: w.blocker.lock_type.pfs_name().to_owned(),
            blocking_lock_duration: w.blocker.duration.map(|d| d.pfs_name().to_owned()),
            block: w.blocker.kind.to_string(),
        })
        .collect();
    pfs::tables::Table::new("metadata_lock_waits", rows)
}

/// `metadata_deadlocks`: [`MdlManager::deadlocks`], one row per edge.
pub(crate) fn metadata_deadlocks(mgr: &MdlManager) -> pfs::tables::MetadataDeadlocks {
    let label = |l: &Option<Arc<str>>| l.as_ref().map(|l| l.to_string());
    let mut rows = Vec::new();
    for d in mgr.deadlocks() {
        let at =
            d.at.duration_since(UNIX_EPOCH)
                .map_or(0, |t| t.as_millis() as u64);
        for e in &d.cycle {
            rows.push(MetadataDeadlockRow {
                deadlock_id: d.id,
                occur_time: at,
                victim_context_id: d.victim.as_u64(),
                waiting_context_id: e.waiter.as_u64(),
                waiting_context_label: label(&e.waiter_label),
                waiting_weight: e.weight,
                object: e.key.to_string(),
                waiting_lock_type: e.requested.pfs_name().to_owned(),
                holding_context_id: e.holder.as_u64(),
                holding_context_label: label(&e.holder_label),
                holding_lock_type: e.held.pfs_name().to_owned(),
                block: e.kind.to_string(),
            });
        }
    }
    pfs::tables::Table::new("metadata_deadlocks", rows)
}
