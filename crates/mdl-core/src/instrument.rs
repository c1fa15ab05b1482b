//! Instrumentation points (feature `pfs`): the metadata-lock wait event and the rows of
//! `metadata_locks`. (The instrument classes of the lock manager's primitives are in `sync.rs`.)
//!
//! # `metadata_locks` without a per-ticket cost
//!
//! MySQL creates a Performance Schema row for every ticket, fast path included, in a global
//! buffer. Here each context *publishes* its tickets in its own small table of atomics that only
//! it writes: while the `wait/lock/metadata/sql/mdl` instrument is enabled, granting, changing
//! or releasing a ticket stores three words into the slot of the same index as the ticket (a few
//! plain stores, no read-modify-write, no lock), inside a seqlock. A reader of `metadata_locks`
//! walks the live contexts and copies each table consistently (retrying if the owner wrote
//! meanwhile). Lock objects are identified by address: the reader first takes `Arc`s of every
//! object in the lock map, so an address it finds there is that object (it cannot be freed and
//! reused while held), and a published address it does not find belongs to a ticket already
//! gone. Tickets beyond [`PUBLISHED_SLOTS`] in one context are not shown and are counted as lost.
//!
//! Protocol: `seq` and `words` of a context's table are written only by the thread using the
//! context; `seq` is odd while a write is in progress.

use std::collections::HashMap;
use std::sync::atomic::fence;
use std::sync::Arc;

use pfs::MetadataLockRow;

use crate::lock::LockObject;
use crate::shared::ContextShared;
use crate::sync::{AtomicU64, Ordering};
use crate::types::{LockDuration, LockType};
use crate::MdlManager;

/// Starts timing a metadata-lock wait (`wait/lock/metadata/sql/mdl`); it ends when the guard
/// drops. Only requests that actually wait get here.
pub(crate) fn metadata_wait_start(lock: &Arc<LockObject>) -> pfs::WaitGuard {
    pfs::wait_start(crate::sync::classes().metadata, Arc::as_ptr(lock) as usize)
}

/// Tickets per context shown in `metadata_locks` (ticket slots `0..PUBLISHED_SLOTS`); one more
/// slot holds the context's pending request.
pub const PUBLISHED_SLOTS: usize = 64;
const PENDING_SLOT: usize = PUBLISHED_SLOTS;
const WORDS: usize = 3;

/// Status of a published ticket.
#[derive(Clone, Copy)]
pub(crate) enum RowStatus {
    Pending = 1,
    Granted = 2,
}

/// A context's published tickets: per slot, the lock object's address, the ticket id, and
/// `valid | status << 1 | type << 3 | duration << 7 | thread id << 16`.
pub(crate) struct Published {
    seq: AtomicU64,
    words: Box<[AtomicU64]>,
}

impl Published {
    fn new() -> Published {
        Published {
            seq: AtomicU64::new(0),
            words: (0..(PUBLISHED_SLOTS + 1) * WORDS)
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

/// What a context publishes about one ticket.
pub(crate) struct RowInfo<'a> {
    pub(crate) lock: &'a Arc<LockObject>,
    pub(crate) id: u64,
    pub(crate) ty: LockType,
    pub(crate) duration: LockDuration,
    pub(crate) status: RowStatus,
}

/// Publishes (or overwrites) the row of ticket slot `slot`, or of the pending request when
/// `slot` is `None`. Does nothing while the metadata instrument is disabled.
#[inline]
pub(crate) fn publish(shared: &ContextShared, slot: Option<u32>, row: RowInfo<'_>) {
    if shared.metadata_class.enabled() {
        publish_row(shared, slot, row);
    }
}

#[inline(never)]
fn publish_row(shared: &ContextShared, slot: Option<u32>, row: RowInfo<'_>) {
    let i = match slot {
        Some(s) if (s as usize) < PUBLISHED_SLOTS => s as usize,
        Some(_) => {
            shared.published_lost.fetch_add(1, Ordering::Relaxed);
            return;
        }
        None => PENDING_SLOT,
    };
    let table = shared.published.get_or_init(Published::new);
    let meta = 1
        | (row.status as u64) << 1
        | (row.ty as u64) << 3
        | (row.duration as u64) << 7
        | pfs::current_thread_id() << 16;
    table.write(|w| {
        w[i * WORDS].store(Arc::as_ptr(row.lock) as usize as u64, Ordering::Relaxed);
        w[i * WORDS + 1].store(row.id, Ordering::Relaxed);
        w[i * WORDS + 2].store(meta, Ordering::Relaxed);
    });
}

/// Removes the row of ticket slot `slot` (or of the pending request), if one was published —
/// also after the instrument was disabled, so no stale row survives its ticket.
#[inline]
pub(crate) fn unpublish(shared: &ContextShared, slot: Option<u32>) {
    if let Some(table) = shared.published.get() {
        unpublish_row(table, slot);
    }
}

#[inline(never)]
fn unpublish_row(table: &Published, slot: Option<u32>) {
    let i = slot.map_or(PENDING_SLOT, |s| s as usize);
    if i > PENDING_SLOT || (slot.is_some() && i >= PUBLISHED_SLOTS) {
        return;
    }
    if table.words[i * WORDS + 2].load(Ordering::Relaxed) & 1 == 0 {
        return;
    }
    table.write(|w| w[i * WORDS + 2].store(0, Ordering::Relaxed));
}

/// The rows of `performance_schema.metadata_locks`: every published ticket and pending request
/// of every live context.
pub(crate) fn metadata_locks(mgr: &MdlManager) -> pfs::tables::MetadataLocks {
    let mut objects: HashMap<usize, Arc<LockObject>> = HashMap::new();
    mgr.map.for_each(|lock| {
        objects.insert(Arc::as_ptr(lock) as usize, lock.clone());
    });
    let mut rows = Vec::new();
    for ctx in mgr.env.registry.live() {
        let Some(words) = ctx.published.get().and_then(Published::read) else {
            continue;
        };
        for w in words.chunks_exact(WORDS) {
            let meta = w[2];
            if meta & 1 == 0 {
                continue;
            }
            let Some(lock) = objects.get(&(w[0] as usize)) else {
                continue;
            };
            let key = &lock.key;
            let ns = key.namespace();
            let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
            let ty = LockType::from_id(((meta >> 3) & 0xf) as u8).unwrap_or(LockType::X);
            let duration = LockDuration::ALL[((meta >> 7) & 3).min(2) as usize];
            let thread = meta >> 16;
            rows.push(MetadataLockRow {
                object_type: ns.object_type_name().to_owned(),
                object_schema: non_empty(key.schema()),
                object_name: non_empty(key.name()),
                column_name: key.column().map(str::to_owned),
                object_instance_begin: w[1],
                lock_type: ty.pfs_name().to_owned(),
                lock_duration: duration.pfs_name().to_owned(),
                lock_status: if (meta >> 1) & 3 == RowStatus::Pending as u64 {
                    "PENDING"
                } else {
                    "GRANTED"
                }
                .to_owned(),
                source: None,
                owner_thread_id: (thread != 0).then_some(thread),
                owner_event_id: None,
            });
        }
    }
    rows.sort_by_key(|r| r.object_instance_begin);
    pfs::metadata_locks(rows)
}
