//! Run-time switches (`setup_*` tables) and the derived flags they fold into.
//!
//! Everything here runs under the setup lock; every change ends with `refresh`, which rewrites
//! the derived flags of classes and instances and tells `thread` whether
//! `thread_instrumentation` is on, so the hot path never reads this state. Classes register
//! here too, so a class is configured before any reader or refresh sees it.

use std::sync::atomic::Ordering;
use std::sync::OnceLock;

use parking_lot::Mutex;

use super::classes::*;
use super::instances::{instances, Instance};
use super::thread;
use super::timer;
use crate::error::PfsError;
use crate::kinds::{default_instrument_setting, ClassKind, Clock, Consumer, EventFamily, Preset};
use crate::pattern::Pattern;

/// Maximum number of remembered `set_instruments` rules.
const MAX_RULES: usize = 1024;

/// Run-time switches.
pub(crate) struct SetupState {
    pub(crate) master: bool,
    pub(crate) consumers: [bool; Consumer::ALL.len()],
    pub(crate) rules: Vec<(Pattern, bool, bool)>,
    pub(crate) hold: bool,
    pub(crate) histogram: bool,
    /// `setup_timers`, indexed by [`EventFamily::index`].
    pub(crate) timers: [Clock; EventFamily::ALL.len()],
}

static SETUP: OnceLock<Mutex<SetupState>> = OnceLock::new();

/// The switches (locked).
pub(crate) fn setup() -> parking_lot::MutexGuard<'static, SetupState> {
    SETUP
        .get_or_init(|| Mutex::new(SetupState::defaults()))
        .lock()
}

impl SetupState {
    pub(crate) fn defaults() -> SetupState {
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
            timers: [
                EventFamily::Wait,
                EventFamily::Stage,
                EventFamily::Statement,
                EventFamily::Idle,
                EventFamily::Transaction,
            ]
            .map(EventFamily::default_clock),
        }
    }

    /// Is consumer `c` effective (it, its ancestors and the master switch on)?
    pub(crate) fn effective(&self, c: Consumer) -> bool {
        self.master && self.consumers[c.index()] && c.parent().is_none_or(|p| self.effective(p))
    }

    /// The class's `(enabled, timed)` from the defaults and the remembered rules.
    pub(crate) fn configured(&self, name: &str) -> (bool, bool) {
        let mut v = default_instrument_setting(name);
        for (p, e, t) in &self.rules {
            if p.matches(name) {
                v = (*e, *t);
            }
        }
        v
    }

    /// The clock `family` is timed with in this process (the cycle counter only where the TSC
    /// is usable).
    pub(crate) fn clock(&self, family: EventFamily) -> Clock {
        match self.timers[family.index()] {
            Clock::Cycle if timer::tsc_usable() => Clock::Cycle,
            _ => Clock::Nanosecond,
        }
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
        let family = kind.family();
        let mut f = F_ENABLED;
        f |= match family {
            EventFamily::Stage => F_STAGE,
            EventFamily::Statement => F_STATEMENT,
            _ => 0,
        };
        if self.clock(family) == Clock::Cycle {
            f |= F_CYCLES;
        }
        let timed = timed && cfg!(feature = "timers");
        if timed {
            f |= F_TIMED;
            if kind == ClassKind::Metadata {
                f |= F_LOCK_WAIT;
            }
        }
        if self.effective(Consumer::ThreadInstrumentation) {
            f |= F_THREAD;
        }
        let (cur, hist, long) = Consumer::of_family(family);
        if self.effective(cur) {
            f |= F_CURRENT;
            if self.effective(hist) {
                f |= F_HISTORY;
            }
            if self.effective(long) {
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

    /// Store the class's derived flags and clock.
    pub(crate) fn configure(&self, class: &ClassInfo) {
        class.flags.store(self.derive(class), Ordering::Relaxed);
        let clock = self.clock(class.kind().family());
        class
            .clock
            .store(u8::from(clock == Clock::Nanosecond), Ordering::Relaxed);
    }
}

/// Recompute every derived flag (classes, instances, thread masks) from `st`. Caller holds
/// the setup lock.
fn refresh(st: &SetupState) {
    for c in classes().registered() {
        st.configure(c);
    }
    instances().with_live(|it: &mut dyn Iterator<Item = &Instance>| {
        for inst in it {
            let c = inst.class_info();
            inst.flags
                .store(c.flags.load(Ordering::Relaxed), Ordering::Relaxed);
        }
    });
    thread::set_thread_instrumentation(st.effective(Consumer::ThreadInstrumentation));
}

fn with_setup<R>(f: impl FnOnce(&mut SetupState) -> R) -> R {
    let mut st = setup();
    let r = f(&mut st);
    refresh(&st);
    r
}

/// Register (or look up) a class, configured from the remembered rules.
pub(crate) fn register_class_info(kind: ClassKind, name: &str) -> &'static ClassInfo {
    // Configured under the setup lock before it is published, so a concurrent switch change
    // either sees the class (and reconfigures it) or happened before and is in the rules.
    let st = setup();
    classes().register(kind, name, |c| {
        let (e, t) = st.configured(name);
        c.set_cfg(e, t);
        st.configure(c);
    })
}

pub(crate) fn set_instruments(p: &Pattern, enabled: bool, timed: bool) -> Result<usize, PfsError> {
    let mut st = setup();
    st.rules.retain(|(q, _, _)| q.as_str() != p.as_str());
    if st.rules.len() >= MAX_RULES {
        return Err(PfsError::TooManyRules);
    }
    st.rules.push((p.clone(), enabled, timed));
    let mut n = 0;
    for c in classes().registered() {
        if p.matches(c.name()) {
            c.set_cfg(enabled, timed);
            n += 1;
        }
    }
    refresh(&st);
    Ok(n)
}

pub(crate) fn set_consumer(c: Consumer, enabled: bool) {
    with_setup(|st| st.consumers[c.index()] = enabled);
}

pub(crate) fn set_master(enabled: bool) {
    with_setup(|st| st.master = enabled);
}

pub(crate) fn set_hold_stats(enabled: bool) {
    with_setup(|st| st.hold = enabled);
}

pub(crate) fn set_histograms(enabled: bool) {
    with_setup(|st| st.histogram = enabled);
}

pub(crate) fn set_timer(family: EventFamily, clock: Clock) {
    with_setup(|st| st.timers[family.index()] = clock);
}

fn rule(p: &str, e: bool, t: bool) -> (Pattern, bool, bool) {
    (Pattern::parse(p).expect("preset patterns are valid"), e, t)
}

pub(crate) fn apply_preset(p: Preset) {
    use Consumer as C;
    let defaults = SetupState::defaults();
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
    with_setup(|st| {
        st.master = p != Preset::Off;
        st.hold = false;
        st.histogram = false;
        st.rules = rules;
        st.consumers = consumers;
        for c in classes().registered() {
            let (e, t) = st.configured(c.name());
            c.set_cfg(e, t);
        }
    });
}
