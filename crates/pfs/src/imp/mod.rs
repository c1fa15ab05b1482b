//! The instrumented implementation (feature `instrumentation`).
//!
//! # Memory and locks
//!
//! * [`Global`] is created once (lazily, on first use) and lives for the process. Its buffers
//!   (classes, instances, history_long, digests) are allocated then and never grow.
//! * `Global::registry` (class and digest names) is taken only when registering.
//! * `Global::setup` (switches and rules) is taken by setup calls and when a class registers;
//!   it is held while the derived flags are recomputed.
//! * `Global::inst_alloc` (instance free list) is taken when an instrumented lock is created or
//!   dropped, and by flag refreshes so that a new instance never misses a switch change.
//! * `Global::threads` (live thread slots and the aggregate of exited threads) is taken when a
//!   thread registers or exits, by readers, and by truncates.
//!
//! Lock order: `registry` → `setup` → `inst_alloc` → `threads`. None of these is ever taken on
//! the hot path of an instrumented lock or wait (thread registration happens once per thread).
//!
//! # Derived flags
//!
//! Each class has one `AtomicU32` of derived flags (`F_*`), and each instance a copy of its
//! class's flags. Every switch change recomputes them (`refresh`) under `setup`, so the hot path
//! decides everything from one relaxed load: enabled, timed, which clock, per-thread stats,
//! current/history events, hold times, histograms, digests.

// Instances are only created by the sync wrappers: without them parts of this module are unused.
#![cfg_attr(
    not(all(feature = "mutex", feature = "rwlock", feature = "cond")),
    allow(dead_code)
)]

pub(crate) mod events;
pub(crate) mod read;
pub(crate) mod stats;
pub(crate) mod thread;
pub(crate) mod timer;
pub(crate) mod wait;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::OnceLock;

use parking_lot::Mutex;

use crate::kinds::{default_instrument_setting, ClassKind, Clock, Consumer, Preset};
use crate::pattern::Pattern;
use crate::{PfsError, Sizing};
use events::Ring;
use stats::StatCell;

/// Instrument enabled (class switch && master && global_instrumentation && compiled).
pub(crate) const F_ENABLED: u32 = 1;
/// Timer read (class TIMED && `timers` feature).
pub(crate) const F_TIMED: u32 = 1 << 1;
/// Use the cycle clock (wait kinds, when the TSC is usable).
pub(crate) const F_CYCLES: u32 = 1 << 2;
/// thread_instrumentation: per-(thread, class) stats for instance classes.
pub(crate) const F_THREAD: u32 = 1 << 3;
/// events_*_current of the class's family.
pub(crate) const F_CURRENT: u32 = 1 << 4;
/// events_*_history of the class's family.
pub(crate) const F_HISTORY: u32 = 1 << 5;
/// events_waits_history_long.
pub(crate) const F_HISTORY_LONG: u32 = 1 << 6;
/// Hold-time stats (mutex and rwlock classes).
pub(crate) const F_HOLD: u32 = 1 << 7;
/// Wait-time histogram.
pub(crate) const F_HIST: u32 = 1 << 8;
/// statements_digest.
pub(crate) const F_DIGEST: u32 = 1 << 9;

const CFG_ENABLED: u8 = 1;
const CFG_TIMED: u8 = 2;

/// Maximum number of remembered `set_instruments` rules.
const MAX_RULES: usize = 1024;

/// Wait stack depth per thread (PFS: 5 logical levels).
pub(crate) const WAIT_STACK: usize = 5;

struct ClassMeta {
    name: Box<str>,
    kind: ClassKind,
}

/// One instrument class (a row of `setup_instruments`).
pub(crate) struct ClassInfo {
    pub(crate) index: u32,
    /// Derived flags (`F_*`), recomputed by `refresh`.
    pub(crate) flags: AtomicU32,
    meta: OnceLock<ClassMeta>,
    /// `CFG_ENABLED | CFG_TIMED`, the class's own switches (written under `setup`).
    cfg: AtomicU8,
    /// Stats of destroyed instances (written under `inst_alloc`).
    pub(crate) destroyed: StatCell,
    pub(crate) destroyed_hold: StatCell,
}

impl ClassInfo {
    const fn new(index: u32) -> ClassInfo {
        ClassInfo {
            index,
            flags: AtomicU32::new(0),
            meta: OnceLock::new(),
            cfg: AtomicU8::new(0),
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

    pub(crate) fn clock(&self) -> Clock {
        timer::effective_clock(self.kind().clock())
    }

    pub(crate) fn cfg(&self) -> (bool, bool) {
        let c = self.cfg.load(Ordering::Relaxed);
        (c & CFG_ENABLED != 0, c & CFG_TIMED != 0)
    }

    fn set_cfg(&self, enabled: bool, timed: bool) {
        let v = if enabled { CFG_ENABLED } else { 0 } | if timed { CFG_TIMED } else { 0 };
        self.cfg.store(v, Ordering::Relaxed);
    }
}

/// The class handed out when the class buffer is full: never enabled.
pub(crate) static LOST_CLASS: ClassInfo = ClassInfo::new(u32::MAX);

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
            wait: StatCell::new(),
            hold: StatCell::new(),
        }
    }

    #[inline]
    pub(crate) fn class_info(&self) -> &'static ClassInfo {
        let g = global();
        g.classes
            .get(self.class.load(Ordering::Relaxed) as usize)
            .unwrap_or(&LOST_CLASS)
    }
}

pub(crate) struct InstAlloc {
    free: Vec<u32>,
    /// Slots `[0, high)` have been used at least once.
    pub(crate) high: u32,
}

/// One interned statement digest.
pub(crate) struct DigestInfo {
    pub(crate) text: OnceLock<Box<str>>,
}

pub(crate) struct Registry {
    names: HashMap<Box<str>, u32>,
    digests: HashMap<Box<str>, u32>,
}

/// Run-time switches.
pub(crate) struct SetupState {
    pub(crate) master: bool,
    pub(crate) consumers: [bool; Consumer::ALL.len()],
    pub(crate) rules: Vec<(Pattern, bool, bool)>,
    pub(crate) hold: bool,
    pub(crate) histogram: bool,
}

impl SetupState {
    fn defaults() -> SetupState {
        let mut consumers = [false; Consumer::ALL.len()];
        for c in Consumer::ALL {
            consumers[c.index()] = c.default_enabled();
        }
        SetupState {
            master: true,
            consumers,
            rules: Vec::new(),
            hold: false,
            histogram: false,
        }
    }

    /// Is consumer `c` effective (it, its ancestors and the master switch on)?
    pub(crate) fn effective(&self, c: Consumer) -> bool {
        self.master && self.consumers[c.index()] && c.parent().is_none_or(|p| self.effective(p))
    }

    /// The class's `(enabled, timed)` from the defaults and the remembered rules.
    fn configured(&self, name: &str) -> (bool, bool) {
        let mut v = default_instrument_setting(name);
        for (p, e, t) in &self.rules {
            if p.matches(name) {
                v = (*e, *t);
            }
        }
        v
    }

    fn derive(&self, class: &ClassInfo) -> u32 {
        let kind = class.kind();
        let (enabled, timed) = class.cfg();
        if !class.is_registered()
            || !enabled
            || !kind.compiled()
            || !self.effective(Consumer::GlobalInstrumentation)
        {
            return 0;
        }
        let mut f = F_ENABLED;
        if kind.clock() == Clock::Cycle && timer::tsc_usable() {
            f |= F_CYCLES;
        }
        let timed = timed && cfg!(feature = "timers");
        if timed {
            f |= F_TIMED;
        }
        if self.effective(Consumer::ThreadInstrumentation) {
            f |= F_THREAD;
        }
        let (cur, hist, long) = match kind {
            ClassKind::Statement => (
                Consumer::EventsStatementsCurrent,
                Consumer::EventsStatementsHistory,
                None,
            ),
            ClassKind::Stage => (
                Consumer::EventsStagesCurrent,
                Consumer::EventsStagesHistory,
                None,
            ),
            _ => (
                Consumer::EventsWaitsCurrent,
                Consumer::EventsWaitsHistory,
                Some(Consumer::EventsWaitsHistoryLong),
            ),
        };
        if self.effective(cur) {
            f |= F_CURRENT;
            if self.effective(hist) {
                f |= F_HISTORY;
            }
            if long.is_some_and(|l| self.effective(l)) {
                f |= F_HISTORY_LONG;
            }
        }
        if self.hold
            && cfg!(feature = "timers")
            && matches!(kind, ClassKind::Mutex | ClassKind::RwLock)
        {
            f |= F_HOLD;
        }
        if self.histogram && timed {
            f |= F_HIST;
        }
        if kind == ClassKind::Statement && self.effective(Consumer::StatementsDigest) {
            f |= F_DIGEST;
        }
        f
    }
}

/// Counters of what could not be recorded.
#[derive(Default)]
pub(crate) struct Lost {
    pub(crate) class: AtomicU64,
    pub(crate) instances: [AtomicU64; ClassKind::ALL.len()],
    pub(crate) thread: AtomicU64,
    pub(crate) locker: AtomicU64,
    pub(crate) digest: AtomicU64,
}

pub(crate) struct Global {
    pub(crate) sizing: Sizing,
    pub(crate) classes: Box<[ClassInfo]>,
    pub(crate) class_count: AtomicUsize,
    registry: Mutex<Registry>,
    pub(crate) digests: Box<[DigestInfo]>,
    pub(crate) digest_count: AtomicUsize,
    pub(crate) setup: Mutex<SetupState>,
    pub(crate) instances: Box<[Instance]>,
    pub(crate) inst_alloc: Mutex<InstAlloc>,
    pub(crate) threads: Mutex<thread::Threads>,
    pub(crate) history_long: Ring,
    pub(crate) lost: Lost,
    #[cfg(feature = "tracing")]
    pub(crate) trace_threshold_ps: AtomicU64,
}

static GLOBAL: OnceLock<Global> = OnceLock::new();
/// The sizing given to `init`, and whether `Global::new` has already read it.
static SIZING: Mutex<(Option<Sizing>, bool)> = Mutex::new((None, false));

/// The global state, created on first use.
#[inline]
pub(crate) fn global() -> &'static Global {
    GLOBAL.get_or_init(Global::new)
}

pub(crate) fn init(sizing: Sizing) -> Result<(), PfsError> {
    let mut s = SIZING.lock();
    if s.1 || GLOBAL.get().is_some() {
        return Err(PfsError::AlreadyInitialized);
    }
    s.0 = Some(sizing);
    drop(s);
    global();
    Ok(())
}

impl Global {
    fn new() -> Global {
        timer::init();
        let sizing = {
            let mut s = SIZING.lock();
            s.1 = true;
            s.0.clone().unwrap_or_default().clamped()
        };
        Global {
            classes: (0..sizing.max_classes as u32).map(ClassInfo::new).collect(),
            class_count: AtomicUsize::new(0),
            registry: Mutex::new(Registry {
                names: HashMap::new(),
                digests: HashMap::new(),
            }),
            digests: (0..sizing.max_digests)
                .map(|_| DigestInfo {
                    text: OnceLock::new(),
                })
                .collect(),
            digest_count: AtomicUsize::new(0),
            setup: Mutex::new(SetupState::defaults()),
            instances: (0..sizing.max_instances as u32)
                .map(Instance::new)
                .collect(),
            inst_alloc: Mutex::new(InstAlloc {
                free: Vec::new(),
                high: 0,
            }),
            threads: Mutex::new(thread::Threads::new(&sizing)),
            history_long: Ring::new(sizing.waits_history_long_size),
            lost: Lost::default(),
            #[cfg(feature = "tracing")]
            trace_threshold_ps: AtomicU64::new(0),
            sizing,
        }
    }

    /// Registered classes.
    pub(crate) fn registered(&self) -> &[ClassInfo] {
        let n = self
            .class_count
            .load(Ordering::Acquire)
            .min(self.classes.len());
        &self.classes[..n]
    }

    /// Recompute every derived flag from `st`. Caller holds `setup`.
    fn refresh(&self, st: &SetupState) {
        for c in self.registered() {
            c.flags.store(st.derive(c), Ordering::Relaxed);
        }
        let a = self.inst_alloc.lock();
        for inst in &self.instances[..a.high as usize] {
            if inst.in_use.load(Ordering::Relaxed) {
                let c = inst.class_info();
                inst.flags
                    .store(c.flags.load(Ordering::Relaxed), Ordering::Relaxed);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Registration

pub(crate) fn register_class(kind: ClassKind, name: &str) -> &'static ClassInfo {
    let g = global();
    let mut reg = g.registry.lock();
    if let Some(&i) = reg.names.get(name) {
        return &g.classes[i as usize];
    }
    let idx = g.class_count.load(Ordering::Relaxed);
    if idx >= g.classes.len() {
        g.lost.class.fetch_add(1, Ordering::Relaxed);
        return &LOST_CLASS;
    }
    let c = &g.classes[idx];
    let _ = c.meta.set(ClassMeta {
        name: name.into(),
        kind,
    });
    reg.names.insert(name.into(), idx as u32);
    // Configure before publishing, under `setup`, so a concurrent switch change either sees the
    // class (and reconfigures it) or happened before and is in the rules we apply here.
    let st = g.setup.lock();
    let (e, t) = st.configured(name);
    c.set_cfg(e, t);
    c.flags.store(st.derive(c), Ordering::Relaxed);
    g.class_count.store(idx + 1, Ordering::Release);
    c
}

pub(crate) fn register_digest(text: &str) -> Option<u32> {
    let g = global();
    let mut reg = g.registry.lock();
    if let Some(&i) = reg.digests.get(text) {
        return Some(i);
    }
    let idx = g.digest_count.load(Ordering::Relaxed);
    if idx >= g.digests.len() {
        g.lost.digest.fetch_add(1, Ordering::Relaxed);
        return None;
    }
    let _ = g.digests[idx].text.set(text.into());
    reg.digests.insert(text.into(), idx as u32);
    g.digest_count.store(idx + 1, Ordering::Release);
    Some(idx as u32)
}

pub(crate) fn create_instance(
    class: &'static ClassInfo,
    identity: Option<u64>,
) -> Option<&'static Instance> {
    if !class.is_registered() {
        return None;
    }
    let g = global();
    let mut a = g.inst_alloc.lock();
    let idx = match a.free.pop() {
        Some(i) => i,
        None if (a.high as usize) < g.instances.len() => {
            a.high += 1;
            a.high - 1
        }
        None => {
            g.lost.instances[class.kind().index()].fetch_add(1, Ordering::Relaxed);
            return None;
        }
    };
    let inst = &g.instances[idx as usize];
    inst.wait.reset();
    inst.hold.reset();
    inst.class.store(class.index, Ordering::Relaxed);
    let id = identity.unwrap_or(inst as *const Instance as usize as u64);
    inst.identity.store(id, Ordering::Relaxed);
    inst.flags
        .store(class.flags.load(Ordering::Relaxed), Ordering::Relaxed);
    inst.in_use.store(true, Ordering::Release);
    Some(inst)
}

pub(crate) fn destroy_instance(inst: &'static Instance) {
    let g = global();
    let mut a = g.inst_alloc.lock();
    let c = inst.class_info();
    c.destroyed.merge(&inst.wait.snapshot());
    c.destroyed_hold.merge(&inst.hold.snapshot());
    inst.flags.store(0, Ordering::Relaxed);
    inst.in_use.store(false, Ordering::Release);
    a.free.push(inst.index);
}

// ---------------------------------------------------------------------------------------------
// Setup

pub(crate) fn set_instruments(p: &Pattern, enabled: bool, timed: bool) -> Result<usize, PfsError> {
    let g = global();
    let mut st = g.setup.lock();
    st.rules.retain(|(q, _, _)| q.as_str() != p.as_str());
    if st.rules.len() >= MAX_RULES {
        return Err(PfsError::TooManyRules);
    }
    st.rules.push((p.clone(), enabled, timed));
    let mut n = 0;
    for c in g.registered() {
        if p.matches(c.name()) {
            c.set_cfg(enabled, timed);
            n += 1;
        }
    }
    g.refresh(&st);
    Ok(n)
}

pub(crate) fn set_consumer(c: Consumer, enabled: bool) {
    let g = global();
    let mut st = g.setup.lock();
    st.consumers[c.index()] = enabled;
    g.refresh(&st);
}

pub(crate) fn set_master(enabled: bool) {
    let g = global();
    let mut st = g.setup.lock();
    st.master = enabled;
    g.refresh(&st);
}

pub(crate) fn set_hold_stats(enabled: bool) {
    let g = global();
    let mut st = g.setup.lock();
    st.hold = enabled;
    g.refresh(&st);
}

pub(crate) fn set_histograms(enabled: bool) {
    let g = global();
    let mut st = g.setup.lock();
    st.histogram = enabled;
    g.refresh(&st);
}

fn rule(p: &str, e: bool, t: bool) -> (Pattern, bool, bool) {
    (Pattern::parse(p).expect("preset patterns are valid"), e, t)
}

pub(crate) fn apply_preset(p: Preset) {
    use Consumer as C;
    let g = global();
    let mut st = g.setup.lock();
    let defaults = SetupState::defaults();
    st.master = p != Preset::Off;
    st.hold = false;
    st.histogram = false;
    let only = |list: &[Consumer]| {
        let mut v = [false; Consumer::ALL.len()];
        for c in list {
            v[c.index()] = true;
        }
        v
    };
    let (rules, consumers) = match p {
        Preset::Off | Preset::Default => (vec![], defaults.consumers),
        Preset::None => (vec![rule("%", false, false)], only(&[])),
        Preset::Tables => (
            vec![
                rule("%", false, false),
                rule("wait/%/table/%", true, true),
                rule("wait/io/file/%", true, true),
            ],
            only(&[C::GlobalInstrumentation, C::ThreadInstrumentation]),
        ),
        Preset::Statements => (
            vec![rule("%", false, false), rule("statement/%", true, true)],
            only(&[
                C::GlobalInstrumentation,
                C::ThreadInstrumentation,
                C::StatementsDigest,
            ]),
        ),
        Preset::Counters => (
            vec![rule("%", true, false)],
            only(&[C::GlobalInstrumentation, C::ThreadInstrumentation]),
        ),
        Preset::Synch => (vec![rule("wait/synch/%", true, true)], defaults.consumers),
    };
    st.rules = rules;
    st.consumers = consumers;
    for c in g.registered() {
        let (e, t) = st.configured(c.name());
        c.set_cfg(e, t);
    }
    g.refresh(&st);
}

#[cfg(feature = "tracing")]
pub(crate) fn set_tracing_threshold(ps: u64) {
    global().trace_threshold_ps.store(ps, Ordering::Relaxed);
}
