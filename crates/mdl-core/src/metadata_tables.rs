//! The `metadata_*` tables (feature `pfs`): `metadata_locks` from the lock objects' queues, the
//! fast-path slots and the contexts' published rows (the protocol is in `instrument.rs`),
//! `metadata_lock_waits` and `metadata_deadlocks` from the diagnostics; `impl MdlManager`
//! blocks here, so the manager does not depend on its instrumentation.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use pfs::{MetadataDeadlockRow, MetadataLockRow, MetadataLockWaitRow};

use crate::fast_path::Slot;
use crate::key::MdlKey;
use crate::lock::LockObject;
use crate::request::{moved_ticket_id, ticket_id};
use crate::shared::{ContextShared, Registry};
use crate::sync::Ordering;
use crate::types::{LockDuration, LockType};
use crate::MdlManager;

use crate::instrument::{ROW_DURATION_SHIFT, ROW_LOW};

// A lock object's address leaves the low six bits of a row word free.
const _: () = assert!(std::mem::align_of::<LockObject>() > ROW_LOW as usize);

const METADATA: &str = "wait/lock/metadata/sql/mdl";

/// What a published word says: `(address, type, duration)`, or `None` for an empty slot.
fn decode_row(w: u64) -> Option<(u64, LockType, LockDuration)> {
    (w != 0).then(|| {
        let ty = LockType::ALL[(w & 0xf) as usize % LockType::ALL.len()];
        let d = ((w & ROW_LOW) >> ROW_DURATION_SHIFT) as usize % LockDuration::ALL.len();
        (w & !ROW_LOW, ty, LockDuration::ALL[d])
    })
}

/// `metadata_locks` rows lost by every context, live or ended: the live set and the ended
/// contexts' total from one moment (a context's count moves to the total under the registry's
/// lock).
fn lost_rows(registry: &Registry) -> u64 {
    let (live, retired) = registry.live_and(|| registry.retired_rows.total());
    retired + live.iter().map(|c| c.rows.lost()).sum::<u64>()
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
    let thread = ctx.rows.thread();
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

/// A context's published lock as one scan read it: the context, the index, the word.
type Publication<'a> = (&'a Arc<ContextShared>, usize, u64);

/// The rows of `performance_schema.metadata_locks`: every granted lock and pending request,
/// from the queues, the slots, and (shared-word mode) the contexts' publications.
///
/// Each object's rows are one moment's: its fast-path holders are found first (one scan of
/// the slots and publications), then, under the object's read lock, its queues are read and
/// each of those holders is read again and kept only if it still holds. A strong requester
/// transfers the slots and is granted under the write lock (`fast_path.rs`), so no snapshot
/// shows a slot's unobtrusive lock beside a granted lock it conflicts with, as reading the
/// slots and the queues at two moments could (seen by `mdl-server`'s `tests/chaos.rs`). A
/// holder that came after the scan is left out, as one that came after the read. A
/// publication (shared-word mode) is stored after its grant and cleared after its release,
/// so there a row may still lag its lock.
pub(crate) fn metadata_locks(mgr: &MdlManager) -> pfs::tables::MetadataLocks {
    let mut rows = Vec::new();
    if !enabled() {
        return pfs::metadata_locks(rows);
    }
    let mut objects: HashMap<u64, Arc<LockObject>> = HashMap::new();
    mgr.map.for_each(|lock| {
        objects.insert(Arc::as_ptr(lock) as usize as u64, lock.clone());
    });
    let mut in_slots: HashMap<u64, Vec<(u32, u64)>> = HashMap::new();
    mgr.env.slots.for_each_used(|slot, w| {
        if let Slot::Held { address, .. } = Slot::decode(w) {
            in_slots.entry(address).or_default().push((slot, w));
        }
    });
    let contexts = mgr.env.registry.live_and(|| ()).0;
    let mut published: HashMap<u64, Vec<Publication<'_>>> = HashMap::new();
    for ctx in &contexts {
        for (i, w) in ctx.rows.published().iter().enumerate() {
            let w = w.load(Ordering::Relaxed);
            if let Some((address, ..)) = decode_row(w) {
                published.entry(address).or_default().push((ctx, i, w));
            }
        }
    }
    for (address, lock) in &objects {
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
        for &(slot, w) in in_slots.get(address).into_iter().flatten() {
            let Slot::Held {
                tag, ty, duration, ..
            } = Slot::decode(w)
            else {
                continue;
            };
            if mgr.env.slots.load(slot) != w {
                continue; // released (or moved into the queue) since the scan
            }
            if let Some(ctx) = mgr.env.registry.get(tag) {
                let id = moved_ticket_id(ctx.serial, slot);
                rows.push(row(&lock.key, &ctx, id, ty, duration, true));
            }
        }
        for &(ctx, i, w) in published.get(address).into_iter().flatten() {
            if ctx.rows.published()[i].load(Ordering::Relaxed) != w {
                continue;
            }
            if let Some((_, ty, duration)) = decode_row(w) {
                let id = ticket_id(ctx.serial, i as u32);
                rows.push(row(&lock.key, ctx, id, ty, duration, true));
            }
        }
        drop(st);
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

/// The `metadata_*` tables (here, not in `manager.rs`, so the manager does not depend on its
/// instrumentation).
#[cfg_attr(docsrs, doc(cfg(feature = "pfs")))]
impl MdlManager {
    /// `performance_schema.metadata_locks`: every granted lock and pending request, with the
    /// owning context's id and label next to MySQL's columns, while the
    /// `wait/lock/metadata/sql/mdl` instrument is enabled; rendered like the mysql client
    /// (`Display`) or as JSON. Read from the queues and the fast-path slots, so it costs the
    /// acquire path nothing; locks held on MySQL's shared-word fast path are published by their
    /// contexts, at most [`crate::PUBLISHED_SLOTS`] per context (see `instrument.rs`).
    pub fn metadata_locks(&self) -> pfs::tables::MetadataLocks {
        metadata_locks(self)
    }

    /// How many `metadata_locks` rows were not shown since the manager started (MySQL's
    /// `Performance_schema_metadata_lock_lost`): a context publishes the rows of at most
    /// [`crate::PUBLISHED_SLOTS`] locks held on the shared-word fast path, and counts the rest
    /// as lost. Other locks are read from the queues and slots and are never lost.
    pub fn metadata_locks_lost(&self) -> u64 {
        lost_rows(&self.env.registry)
    }

    /// [`MdlManager::lock_waits`] as a Performance-Schema-style table (`metadata_lock_waits`):
    /// renders like the `mysql` client, serializes to JSON.
    pub fn metadata_lock_waits(&self) -> pfs::tables::MetadataLockWaits {
        metadata_lock_waits(self)
    }

    /// [`MdlManager::deadlocks`] as a Performance-Schema-style table (`metadata_deadlocks`),
    /// one row per edge of each cycle.
    pub fn metadata_deadlocks(&self) -> pfs::tables::MetadataDeadlocks {
        metadata_deadlocks(self)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::{FastPath, LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest};

    const SECOND: Duration = Duration::from_secs(1);

    fn rows(mgr: &MdlManager, name: &str) -> Vec<(String, String)> {
        mgr.metadata_locks()
            .rows
            .into_iter()
            .filter(|r| r.object_name.as_deref() == Some(name))
            .map(|r| (r.lock_type, r.lock_duration))
            .collect()
    }

    fn row(ty: &str, duration: &str) -> Vec<(String, String)> {
        vec![(ty.to_owned(), duration.to_owned())]
    }

    /// The shared-word publication: a counter-held ticket has its row, which follows duration
    /// changes and upgrades, goes with the release (also when the instrument was disabled in
    /// between), and does not depend on the thread's INSTRUMENTED switch.
    #[test]
    fn shared_word_rows_follow_their_tickets() {
        pfs::set_instruments("wait/lock/metadata/sql/mdl", true, true).unwrap();
        let mgr = MdlManager::new(MdlConfig {
            fast_path: FastPath::SharedWord,
            ..MdlConfig::default()
        })
        .unwrap();
        let mut ctx = mgr.new_context();
        let key = |n: &str| MdlKey::new(crate::Namespace::Table, "pub", n).unwrap();
        let sr = |n: &str| MdlRequest::new(key(n), LockType::SR, LockDuration::Statement);

        let t = ctx.acquire(&sr("a"), SECOND).unwrap();
        assert_eq!(rows(&mgr, "a"), row("SHARED_READ", "STATEMENT"));
        ctx.set_lock_duration(t, LockDuration::Explicit).unwrap();
        assert_eq!(rows(&mgr, "a"), row("SHARED_READ", "EXPLICIT"));
        // The upgraded lock is in the queue: the counter's row must not stay behind.
        ctx.upgrade(t, LockType::X, SECOND).unwrap();
        assert_eq!(rows(&mgr, "a"), row("EXCLUSIVE", "EXPLICIT"));
        ctx.release(t).unwrap();
        assert!(rows(&mgr, "a").is_empty());

        // Released while the instrument is disabled: no stale row when it is enabled again.
        ctx.acquire(&sr("b"), SECOND).unwrap();
        pfs::set_instruments("wait/lock/metadata/sql/mdl", false, false).unwrap();
        ctx.release_statement_locks();
        pfs::set_instruments("wait/lock/metadata/sql/mdl", true, true).unwrap();
        assert!(rows(&mgr, "b").is_empty());

        // A session left out (threads.INSTRUMENTED = NO) still has its rows, as in MySQL.
        pfs::set_thread_instrumented(false);
        ctx.acquire(&sr("c"), SECOND).unwrap();
        pfs::set_thread_instrumented(true);
        assert_eq!(rows(&mgr, "c"), row("SHARED_READ", "STATEMENT"));
        ctx.release_statement_locks();
        assert!(rows(&mgr, "c").is_empty());

        // (In the same test: the instrument switch is process-wide.)
        left_out_session_on_its_own_thread(&mgr);
    }

    /// A session whose thread is left out from its start: its shared-word rows are there, with
    /// its thread, ticket ids, types and durations, follow duration changes, moves to the queue
    /// and releases made while it is left out; tickets beyond `PUBLISHED_SLOTS` are counted as
    /// lost, not shown; and its events are not recorded.
    fn left_out_session_on_its_own_thread(mgr: &std::sync::Arc<MdlManager>) {
        let key = |n: &str| MdlKey::new(crate::Namespace::Table, "out", n).unwrap();
        let stmt = pfs::class!(pfs::ClassKind::Statement, "statement/sql/select");
        assert!(pfs::statement_start(stmt, None).is_active(), "instrumented");
        let mgr2 = mgr.clone();
        let (to_main, from_session) = std::sync::mpsc::channel::<()>();
        let (to_session, from_main) = std::sync::mpsc::channel::<()>();
        let session = std::thread::spawn(move || {
            pfs::set_thread_instrumented(false);
            let thread = pfs::current_thread_id();
            assert!(!pfs::statement_start(stmt, None).is_active(), "left out");
            let mut ctx = mgr2.new_context();
            let n = crate::PUBLISHED_SLOTS + 6;
            let mut tickets = Vec::new();
            for i in 0..n {
                let r =
                    MdlRequest::new(key(&format!("t{i}")), LockType::SR, LockDuration::Statement);
                tickets.push(ctx.acquire(&r, SECOND).unwrap());
            }
            let t0 = tickets[0];
            ctx.set_lock_duration(t0, LockDuration::Explicit).unwrap();
            to_main.send(()).unwrap();
            from_main.recv().unwrap();
            // Released while left out: the rows go.
            ctx.release_statement_locks();
            to_main.send(()).unwrap();
            from_main.recv().unwrap();
            ctx.release(t0).unwrap();
            to_main.send(()).unwrap();
            from_main.recv().unwrap();
            (thread, ctx.id().as_u64())
        });
        from_session.recv().unwrap();
        let shown = |mgr: &MdlManager| -> Vec<_> {
            mgr.metadata_locks()
                .rows
                .into_iter()
                .filter(|r| r.object_schema.as_deref() == Some("out"))
                .collect()
        };
        let before = shown(mgr);
        assert_eq!(before.len(), crate::PUBLISHED_SLOTS, "the rest are lost");
        let explicit: Vec<_> = before
            .iter()
            .filter(|r| r.lock_duration == "EXPLICIT")
            .map(|r| r.object_name.clone().unwrap())
            .collect();
        assert_eq!(explicit, ["t0"]);
        assert!(before
            .iter()
            .all(|r| r.lock_type == "SHARED_READ" && r.lock_status == "GRANTED"));
        let lost_before = mgr.metadata_locks_lost() - 6;
        let lost = mgr
            .env
            .registry
            .live_and(|| ())
            .0
            .iter()
            .map(|c| c.rows.lost())
            .sum::<u64>();
        assert_eq!(lost, 6);
        to_session.send(()).unwrap();
        from_session.recv().unwrap();
        let after = shown(mgr);
        assert_eq!(after.len(), 1, "only the explicit ticket is left");
        assert_eq!(after[0].object_name.as_deref(), Some("t0"));
        to_session.send(()).unwrap();
        from_session.recv().unwrap();
        assert!(shown(mgr).is_empty());
        to_session.send(()).unwrap();
        let (thread, ctx_id) = session.join().unwrap();
        assert_eq!(
            mgr.metadata_locks_lost(),
            lost_before + 6,
            "a context's lost rows still count after it ends"
        );
        for r in &before {
            assert_eq!(r.owner_thread_id, Some(thread));
            assert_eq!(r.owner_context_id, Some(ctx_id));
            assert_eq!(
                r.object_instance_begin >> 32,
                ctx_id,
                "ticket id names the context"
            );
        }
    }
}
