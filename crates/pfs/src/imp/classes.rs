//! Instrument classes and statement digests: the derived flags (`F_*`), one [`ClassInfo`] per
//! registered class, one [`DigestInfo`] per digest text, in buffers allocated at first use that
//! never grow.
//!
//! Who writes what: a class's `flags`, `cfg` and `clock` are written by `setup` under its lock;
//! `destroyed*` by `instances` under the instance allocator's lock; names, the registry map and
//! the digests' index under the registry lock, taken only when registering (a registered digest
//! is found without it). A digest's `class` is bound once, by the first statement that uses it
//! (a compare-and-swap).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::OnceLock;

use parking_lot::Mutex;

use super::digest_index::{DigestIndex, Probe};
use super::histogram::{self, StmtHist};
use super::limits::{sizing, LOST};
use super::stats::StatCell;
use crate::kinds::{ClassKind, Clock};

pub(crate) use super::flags::*;

struct ClassMeta {
    name: Box<str>,
    kind: ClassKind,
}

/// One instrument class (a row of `setup_instruments`).
pub(crate) struct ClassInfo {
    /// Derived flags (`F_*`), recomputed by `refresh`. First field: the hot-path load.
    pub(crate) flags: AtomicU32,
    pub(crate) index: u32,
    meta: OnceLock<ClassMeta>,
    /// `CFG_ENABLED | CFG_TIMED`, the class's own switches.
    cfg: AtomicU8,
    /// The clock its family is timed with (0 cycles, 1 nanoseconds), for readers.
    pub(crate) clock: AtomicU8,
    /// Stats of destroyed instances.
    pub(crate) destroyed: StatCell,
    pub(crate) destroyed_hold: StatCell,
}

const CFG_ENABLED: u8 = 1;
const CFG_TIMED: u8 = 2;

impl ClassInfo {
    const fn new(index: u32) -> ClassInfo {
        ClassInfo {
            flags: AtomicU32::new(0),
            index,
            meta: OnceLock::new(),
            cfg: AtomicU8::new(0),
            clock: AtomicU8::new(0),
            destroyed: StatCell::new(),
            destroyed_hold: StatCell::new(),
        }
    }

    pub(crate) fn name(&self) -> &str {
        self.meta.get().map(|m| &*m.name).unwrap_or("lost")
    }

    pub(crate) fn kind(&self) -> ClassKind {
        self.meta.get().map(|m| m.kind).unwrap_or(ClassKind::Idle)
    }

    pub(crate) fn is_registered(&self) -> bool {
        self.meta.get().is_some()
    }

    /// The clock this class's stats are kept in (its family's timer).
    pub(crate) fn clock(&self) -> Clock {
        if self.clock.load(Ordering::Relaxed) == 0 {
            Clock::Cycle
        } else {
            Clock::Nanosecond
        }
    }

    pub(crate) fn cfg(&self) -> (bool, bool) {
        let c = self.cfg.load(Ordering::Relaxed);
        (c & CFG_ENABLED != 0, c & CFG_TIMED != 0)
    }

    pub(crate) fn set_cfg(&self, enabled: bool, timed: bool) {
        let v = if enabled { CFG_ENABLED } else { 0 } | if timed { CFG_TIMED } else { 0 };
        self.cfg.store(v, Ordering::Relaxed);
    }
}

/// The class handed out when the class buffer is full: never enabled.
pub(crate) static LOST_CLASS: ClassInfo = ClassInfo::new(u32::MAX);

/// A digest is not yet bound to a statement class.
pub(crate) const UNBOUND: u32 = u32::MAX;

/// One interned statement digest.
pub(crate) struct DigestInfo {
    pub(crate) index: u32,
    /// The statement class whose events this digest's per-thread cells also count for (the
    /// class of the first statement that used it), so a statement updates one cell; `UNBOUND`
    /// until then. Set with a compare-and-swap, once until a truncate of the summaries
    /// (`read::truncate_global`) unbinds it with its cells zeroed.
    pub(crate) class: AtomicU32,
    pub(crate) text: OnceLock<Box<str>>,
    /// The schema it was registered in (`register_digest_in`): SCHEMA_NAME, CURRENT_SCHEMA.
    pub(crate) schema: OnceLock<Box<str>>,
    /// FIRST_SEEN: the start (statement clock ticks) of the statement that bound `class`.
    pub(crate) first_seen: AtomicU64,
    /// Its latency histogram (`histogram.rs`): 3600 bytes, allocated with the buffer, as
    /// MySQL's digest entries carry theirs.
    pub(crate) hist: StmtHist,
}

/// Class names, for registering (digests have their own index, keyed by the pair of schema and
/// text, as MySQL's: `digest_index.rs`).
struct Registry {
    names: HashMap<Box<str>, u32>,
}

/// The class and digest buffers.
pub(crate) struct Classes {
    classes: Box<[ClassInfo]>,
    class_count: AtomicUsize,
    digests: Box<[DigestInfo]>,
    digest_count: AtomicUsize,
    digest_index: DigestIndex,
    registry: Mutex<Registry>,
}

static CLASSES: OnceLock<Classes> = OnceLock::new();

/// The buffers, created on first use.
#[inline]
pub(crate) fn classes() -> &'static Classes {
    CLASSES.get_or_init(|| {
        super::timer::init();
        let s = sizing();
        Classes {
            classes: (0..s.max_classes as u32).map(ClassInfo::new).collect(),
            class_count: AtomicUsize::new(0),
            digests: (0..s.max_digests as u32)
                .map(|index| DigestInfo {
                    index,
                    class: AtomicU32::new(UNBOUND),
                    text: OnceLock::new(),
                    schema: OnceLock::new(),
                    first_seen: AtomicU64::new(0),
                    hist: StmtHist::new(),
                })
                .collect(),
            digest_count: AtomicUsize::new(0),
            digest_index: DigestIndex::new(s.max_digests),
            registry: Mutex::new(Registry {
                names: HashMap::new(),
            }),
        }
    })
}

impl Classes {
    /// Registered classes.
    pub(crate) fn registered(&self) -> &[ClassInfo] {
        let n = self.class_count.load(Ordering::Acquire);
        &self.classes[..n.min(self.classes.len())]
    }

    /// The class at `index`, if registered.
    pub(crate) fn get(&self, index: u32) -> Option<&ClassInfo> {
        self.registered().get(index as usize)
    }

    /// Registered digests.
    pub(crate) fn digests(&self) -> &[DigestInfo] {
        let n = self.digest_count.load(Ordering::Acquire);
        &self.digests[..n.min(self.digests.len())]
    }

    /// Capacity of the class buffer.
    pub(crate) fn capacity(&self) -> usize {
        self.classes.len()
    }

    /// The class named `name`, or a new one configured by `configure` before it becomes
    /// visible to readers and refreshes (the caller holds the setup lock). The lost
    /// placeholder when the buffer is full.
    pub(crate) fn register(
        &self,
        kind: ClassKind,
        name: &str,
        configure: impl FnOnce(&ClassInfo),
    ) -> &ClassInfo {
        let mut reg = self.registry.lock();
        if let Some(&i) = reg.names.get(name) {
            return &self.classes[i as usize];
        }
        let idx = self.class_count.load(Ordering::Relaxed);
        if idx >= self.classes.len() {
            LOST.class.fetch_add(1, Ordering::Relaxed);
            return &LOST_CLASS;
        }
        let c = &self.classes[idx];
        let _ = c.meta.set(ClassMeta {
            name: name.into(),
            kind,
        });
        reg.names.insert(name.into(), idx as u32);
        configure(c);
        self.class_count.store(idx + 1, Ordering::Release);
        c
    }

    /// The digest of `text` in `schema`; `None` when the buffer is full. A registered one is
    /// found without a lock (`digest_index.rs`); a new one is added under the registry lock,
    /// or, when the buffer is full, lost without it.
    pub(crate) fn register_digest(&self, schema: Option<&str>, text: &str) -> Option<&DigestInfo> {
        let h = self.digest_index.hash(schema, text);
        if let Probe::Found(d) = self.digest_index.probe(&self.digests, h, schema, text) {
            return Some(d);
        }
        let lost = || {
            LOST.digest.fetch_add(1, Ordering::Relaxed);
            None
        };
        // A full buffer stays full: a server past it looks up every new text's digest, and
        // such a text is lost without the lock.
        if self.digest_count.load(Ordering::Relaxed) >= self.digests.len() {
            return lost();
        }
        let _reg = self.registry.lock();
        // Again: another thread may have added it since.
        let at = match self.digest_index.probe(&self.digests, h, schema, text) {
            Probe::Found(d) => return Some(d),
            Probe::Vacant(at) => at,
        };
        let idx = self.digest_count.load(Ordering::Relaxed);
        if idx >= self.digests.len() {
            return lost();
        }
        // Build the histograms' tick indexes now, not on a statement's end.
        histogram::build();
        let _ = self.digests[idx].text.set(text.into());
        if let Some(s) = schema {
            let _ = self.digests[idx].schema.set(s.into());
        }
        self.digest_index.insert(at, h, idx as u32);
        self.digest_count.store(idx + 1, Ordering::Release);
        Some(&self.digests[idx])
    }
}
