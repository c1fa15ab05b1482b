//! Instrumented lock instances (rows of `events_waits_summary_by_instance`), in a buffer
//! allocated at first use; a dropped lock's slot goes back to a free list and its stats are
//! folded into its class.
//!
//! Who writes what: an instance's `wait` and `hold` cells are written by the thread holding the
//! measured lock (or racily by concurrent readers of an rwlock); `flags` by `setup` when the
//! switches change; everything else under the allocator's lock.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

use parking_lot::Mutex;

use super::classes::{classes, ClassInfo, LOST_CLASS};
use super::limits::{sizing, LOST};
use super::stats::StatCell;

/// One instrumented lock (a row of `events_waits_summary_by_instance`). Aligned to 128 bytes
/// so that two instances never share a cache line (adjacent-line prefetch included).
///
/// `wait` and `hold` are written by the thread that holds the measured lock (exclusive) — or
/// racily by concurrent readers of an rwlock; `flags` by `refresh` under `inst_alloc`.
#[repr(align(128))]
pub(crate) struct Instance {
    pub(crate) flags: AtomicU32,
    pub(crate) class: AtomicU32,
    pub(crate) index: u32,
    pub(crate) in_use: AtomicBool,
    pub(crate) identity: AtomicU64,
    /// The `THREAD_ID` holding it exclusively, 0 if none: set and cleared only by acquires
    /// and releases made while the instance was enabled (`record::owned`), as MySQL's
    /// `PFS_mutex::m_owner`.
    pub(crate) owner: AtomicU64,
    /// How many shared holds made while enabled are live (`PFS_rwlock::m_readers`).
    pub(crate) readers: AtomicU32,
    pub(crate) wait: StatCell,
    pub(crate) hold: StatCell,
}

impl Instance {
    fn new(index: u32) -> Instance {
        Instance {
            flags: AtomicU32::new(0),
            class: AtomicU32::new(0),
            index,
            in_use: AtomicBool::new(false),
            identity: AtomicU64::new(0),
            owner: AtomicU64::new(0),
            readers: AtomicU32::new(0),
            wait: StatCell::new(),
            hold: StatCell::new(),
        }
    }

    #[inline]
    pub(crate) fn class_info(&self) -> &'static ClassInfo {
        classes()
            .get(self.class.load(Ordering::Relaxed))
            .unwrap_or(&LOST_CLASS)
    }
}

struct InstAlloc {
    free: Vec<u32>,
    /// Slots `[0, high)` have been used at least once.
    high: u32,
}

/// The instance buffer and its allocator.
pub(crate) struct Instances {
    instances: Box<[Instance]>,
    alloc: Mutex<InstAlloc>,
}

static INSTANCES: OnceLock<Instances> = OnceLock::new();

pub(crate) fn instances() -> &'static Instances {
    INSTANCES.get_or_init(|| Instances {
        instances: (0..sizing().max_instances as u32)
            .map(Instance::new)
            .collect(),
        alloc: Mutex::new(InstAlloc {
            free: Vec::new(),
            high: 0,
        }),
    })
}

impl Instances {
    /// `f` over the instances in use, under the allocator's lock (none is created or dropped
    /// meanwhile).
    pub(crate) fn with_live<R>(
        &self,
        f: impl FnOnce(&mut dyn Iterator<Item = &Instance>) -> R,
    ) -> R {
        let a = self.alloc.lock();
        let mut it = self.instances[..a.high as usize]
            .iter()
            .filter(|i| i.in_use.load(Ordering::Acquire));
        f(&mut it)
    }

    /// `(in use, capacity)`.
    pub(crate) fn usage(&self) -> (u64, u64) {
        let a = self.alloc.lock();
        (
            u64::from(a.high) - a.free.len() as u64,
            self.instances.len() as u64,
        )
    }

    /// Reset every instance's and every class's destroyed-instance stats.
    pub(crate) fn truncate(&self) {
        let _a = self.alloc.lock();
        for c in classes().registered() {
            c.destroyed.reset();
            c.destroyed_hold.reset();
        }
        for i in self.instances.iter() {
            i.wait.reset();
            i.hold.reset();
        }
    }
}

pub(crate) fn create_instance(
    class: &'static ClassInfo,
    identity: Option<u64>,
) -> Option<&'static Instance> {
    if !class.is_registered() {
        return None;
    }
    let all = instances();
    let mut a = all.alloc.lock();
    let idx = match a.free.pop() {
        Some(i) => i,
        None if (a.high as usize) < all.instances.len() => {
            a.high += 1;
            a.high - 1
        }
        None => {
            LOST.instances[class.kind().index()].fetch_add(1, Ordering::Relaxed);
            return None;
        }
    };
    let inst = &all.instances[idx as usize];
    inst.wait.reset();
    inst.hold.reset();
    inst.class.store(class.index, Ordering::Relaxed);
    let id = identity.unwrap_or(inst as *const Instance as usize as u64);
    inst.identity.store(id, Ordering::Relaxed);
    inst.owner.store(0, Ordering::Relaxed);
    inst.readers.store(0, Ordering::Relaxed);
    inst.flags
        .store(class.flags.load(Ordering::Relaxed), Ordering::Relaxed);
    inst.in_use.store(true, Ordering::Release);
    Some(inst)
}

pub(crate) fn destroy_instance(inst: &'static Instance) {
    let mut a = instances().alloc.lock();
    let c = inst.class_info();
    c.destroyed.merge(&inst.wait.snapshot());
    c.destroyed_hold.merge(&inst.hold.snapshot());
    inst.flags.store(0, Ordering::Relaxed);
    inst.in_use.store(false, Ordering::Release);
    a.free.push(inst.index);
}
