//! The fast path: how unobtrusive locks are granted without the lock object's queues, and the
//! slot table of [`FastPath::PerContext`].
//!
//! Unobtrusive locks (S, SH, SR, SW, SWLP; IX on scoped locks) are compatible with each other,
//! so a request for one only has to know that no obtrusive lock is granted or pending. The three
//! designs differ in where a granted unobtrusive lock is recorded:
//!
//! * [`FastPath::Off`] (MySQL 5.6): in the lock object's granted queue, under its lock.
//! * [`FastPath::SharedWord`] (MySQL 5.7/8.0): as a counter in the lock object's state word,
//!   by one compare-and-swap. Every statement on a table writes that one word, so a hot table's
//!   word moves between cores on every lock and release.
//! * [`FastPath::PerContext`] (the default): in a *slot* that only the locking context writes,
//!   so locking and releasing touch no cache line that another core uses. A strong (obtrusive)
//!   requester first raises `HAS_OBTRUSIVE` in the object's state word, which makes new
//!   fast-path grants impossible, then *transfers* every slot holding the object into its
//!   granted queue (PostgreSQL's strong-lock transfer), then decides as on the slow path.
//!
//! # The slot table
//!
//! A manager has one table of [`MdlConfig::fast_path_slots`](crate::MdlConfig) 64-bit slots,
//! in groups of [`SLOTS_PER_GROUP`] (one 128-byte line per group). Each context has a *tag*
//! (its index in the manager's context registry) and a *home group* (tag modulo the number of
//! groups); it records its unobtrusive locks in empty slots of its home group, so contexts with
//! different home groups never write the same line. A full home group (or a context whose tag
//! does not fit in 16 bits) sends the request to the slow path, as PostgreSQL does when a
//! backend's slots are full. The table has a fixed size, so what a strong requester pays to scan
//! it does not grow with the number of contexts: about one load per slot (measured in
//! `BENCHMARKS.md`, "DDL on a hot table").
//!
//! Each group is a separate allocation, and a context's [`SlotHome`] holds its group: the
//! owner's claim and release index a 16-slot array directly, while strong requesters,
//! diagnostics and sweeps go through the table.
//!
//! A slot word is one of:
//!
//! | state | bits 48..63 | bit 47 | bits 6..46 | bits 4..5 | bits 0..3 |
//! |---|---|---|---|---|---|
//! | empty (0) | 0 | 0 | 0 | 0 | 0 |
//! | held | owner tag | 0 | lock object address | duration | type |
//! | pending | owner tag | 1 | all ones | duration | type |
//! | moved | owner tag | 1 | granted-queue entry | duration | type |
//!
//! Lock objects are 64-byte aligned, so an address has its low 6 bits clear; an address that
//! does not fit in bits 6..46 (not the case for user-space addresses on x86-64 and AArch64 with
//! 48-bit or smaller address spaces, checked at run time) never takes this fast path.
//!
//! # Who writes a slot
//!
//! * The owner claims an empty slot of its home group with a compare-and-swap (empty → held).
//! * The owner releases with a swap (→ empty). The old value says what it released: *held* —
//!   nothing else to do; *pending* — a transfer is under way and will see the slot empty and
//!   undo its entry; *moved* — the lock is an entry in the granted queue now, released there.
//! * A transferring strong requester, holding the lock object's write lock, turns a *held* slot
//!   of its object into *pending* (compare-and-swap), adds a granted entry for the owner, and
//!   turns *pending* into *moved* (compare-and-swap; if the owner released in between, it
//!   removes the entry again). *Pending* never outlives that write-locked section.
//!
//! Everything else only reads slots (diagnostics, eviction sweeps).
//!
//! # Memory ordering: the store-load race
//!
//! The whole difficulty is a store-load race: an acquirer writes its slot and then reads the
//! object's state word; a strong requester writes the state word and then reads the slots. With
//! weaker orderings both could read the old value of the other's location, so the acquirer
//! would take the lock and the strong requester would not see it. Both sides therefore use
//! `SeqCst` for these four accesses: the claim (a compare-and-swap), the acquirer's load of the
//! state word, the `fetch_or` that raises `HAS_OBTRUSIVE`, and the scan's loads. All `SeqCst`
//! operations form one total order S that agrees with each thread's program order, and a load
//! that reads a value older than a store (in that location's modification order) precedes the
//! store in S. If neither side saw the other, S would contain claim < load(word) < fetch_or <
//! load(slot) < claim, a cycle; so at least one side sees the other: the acquirer sees
//! `HAS_OBTRUSIVE` (and takes its claim back) or the scan sees the claim (and transfers it).
//! Eviction sweeps raise `IS_DESTROYED` with a compare-and-swap in the same place, by the same
//! argument.
//!
//! On x86-64 this costs nothing extra: the claim is one `lock cmpxchg` on the context's own
//! line (a full barrier) and the `SeqCst` loads are plain loads. The loom models in `lock.rs`
//! check these races under every interleaving; loom does not model the total order for
//! read-modify-writes and loads (tokio-rs/loom#180), so under `--cfg loom` a `SeqCst` fence
//! stands between the two accesses of each side (`sync::store_load_fence`), which loom does
//! model. (With that fence removed, the models find the race: checked by mutation.)

use std::sync::Arc;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicU64, Ordering};
use crate::types::{LockDuration, LockType};

/// How unobtrusive locks are granted ([`MdlConfig::fast_path`](crate::MdlConfig)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum FastPath {
    /// Every lock goes through the lock object's queues under its lock (MySQL 5.6).
    Off,
    /// One compare-and-swap on the lock object's shared state word (MySQL 5.7 and 8.0,
    /// WL#7304/WL#7306).
    SharedWord,
    /// A slot that only the locking context writes; strong requesters transfer the slots into
    /// the queue (PostgreSQL's design). Scales on one hot object.
    #[default]
    PerContext,
}

impl FastPath {
    /// Every mode, for tests and reports that cover them all.
    pub const ALL: [FastPath; 3] = [FastPath::Off, FastPath::SharedWord, FastPath::PerContext];

    /// Whether unobtrusive locks can be granted without the lock object's queues.
    pub fn is_on(self) -> bool {
        self != FastPath::Off
    }

    /// A short name for reports (`off`, `shared-word`, `per-context`).
    pub fn name(self) -> &'static str {
        match self {
            FastPath::Off => "off",
            FastPath::SharedWord => "shared-word",
            FastPath::PerContext => "per-context",
        }
    }
}

impl std::fmt::Display for FastPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for FastPath {
    type Err = String;

    fn from_str(s: &str) -> Result<FastPath, String> {
        FastPath::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown fast-path mode {s:?} (off, shared-word, per-context)"))
    }
}

/// Slots per group: one 128-byte line.
#[cfg(not(loom))]
pub const SLOTS_PER_GROUP: usize = 16;
/// Slots per group (2 under loom, to keep the models small).
#[cfg(loom)]
pub const SLOTS_PER_GROUP: usize = 2;

const TAG_SHIFT: u32 = 48;
const MOVED_BIT: u64 = 1 << 47;
const FIELD: u64 = ((1 << 47) - 1) & !63;
const FIELD_SHIFT: u32 = 6;
const DUR_SHIFT: u32 = 4;
const LOW: u64 = 0x3f;

/// The largest tag a context can have and still use slots.
pub(crate) const MAX_TAG: usize = u16::MAX as usize;

/// A lock object's address as slot bits, if it fits (see the module docs).
#[inline]
pub(crate) fn address_bits(addr: std::num::NonZeroUsize) -> Option<u64> {
    let a = addr.get() as u64;
    (a & !FIELD == 0).then_some(a)
}

/// What a slot word says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Empty,
    /// Held on the fast path.
    Held {
        tag: u16,
        address: u64,
        ty: LockType,
        duration: LockDuration,
    },
    /// Being transferred (only seen without the object's lock).
    Pending {
        tag: u16,
    },
    /// Transferred: the lock is granted-queue entry `entry` of its object.
    Moved {
        tag: u16,
        entry: usize,
        ty: LockType,
        duration: LockDuration,
    },
}

impl Slot {
    #[inline]
    pub(crate) fn decode(w: u64) -> Slot {
        if w == 0 {
            return Slot::Empty;
        }
        let tag = (w >> TAG_SHIFT) as u16;
        let ty = LockType::ALL[(w & 0xf) as usize % 11];
        let duration = LockDuration::ALL[((w & LOW) >> DUR_SHIFT) as usize % 3];
        if w & MOVED_BIT == 0 {
            Slot::Held {
                tag,
                address: w & FIELD,
                ty,
                duration,
            }
        } else if w & FIELD == FIELD {
            Slot::Pending { tag }
        } else {
            Slot::Moved {
                tag,
                entry: ((w & FIELD) >> FIELD_SHIFT) as usize,
                ty,
                duration,
            }
        }
    }
}

/// The word of a held slot.
#[inline]
pub(crate) fn held(tag: u16, address: u64, ty: LockType, duration: LockDuration) -> u64 {
    u64::from(tag) << TAG_SHIFT | address | (duration as u64) << DUR_SHIFT | ty as u64
}

/// The pending word for a held word.
#[inline]
pub(crate) fn pending(held: u64) -> u64 {
    held | MOVED_BIT | FIELD
}

/// The moved word for a held word whose lock became granted-queue entry `entry`, if the entry
/// index fits.
#[inline]
pub(crate) fn moved(held: u64, entry: usize) -> Option<u64> {
    let e = (entry as u64).checked_shl(FIELD_SHIFT)?;
    (e & !FIELD == 0 && e != FIELD).then_some((held & !FIELD) | MOVED_BIT | e)
}

/// The queue entry of a moved word; `None` for any other word.
#[inline]
pub(crate) fn moved_entry(w: u64) -> Option<usize> {
    (w & MOVED_BIT != 0 && w & FIELD != FIELD).then_some(((w & FIELD) >> FIELD_SHIFT) as usize)
}

/// The held word with another duration (a held word only).
#[inline]
pub(crate) fn with_duration(w: u64, duration: LockDuration) -> u64 {
    (w & !(3 << DUR_SHIFT)) | (duration as u64) << DUR_SHIFT
}

/// Whether `w` is a held word of the object at `address`.
#[inline]
fn holds(w: u64, address: u64) -> bool {
    w & (MOVED_BIT | FIELD) == address
}

/// One group of slots: one 128-byte line.
type Group = CachePadded<[AtomicU64; SLOTS_PER_GROUP]>;

/// The manager's fast-path slots (see the module docs).
pub(crate) struct SlotTable {
    /// Each group is its own allocation so that a context's [`SlotHome`] can point at its
    /// group: the owner's claim and release then index a fixed-size array, with no bounds check
    /// and no address arithmetic.
    groups: Box<[Arc<Group>]>,
}

/// A context's place in the slot table: its tag, its home group, and where to look for a free
/// slot. Only the owner's claims and releases go through it; everyone else reads the table.
pub(crate) struct SlotHome {
    pub(crate) tag: u16,
    index: usize,
    group: Arc<Group>,
    hint: u8,
}

impl SlotTable {
    /// A table of at least `slots` slots (whole groups; 0 gives an empty table, which sends
    /// every request to the slow path).
    pub(crate) fn new(slots: usize) -> SlotTable {
        let groups = slots.div_ceil(SLOTS_PER_GROUP);
        SlotTable {
            groups: (0..groups)
                .map(|_| Arc::new(CachePadded::new(std::array::from_fn(|_| AtomicU64::new(0)))))
                .collect(),
        }
    }

    /// The place of the context with `tag` (its home group is tag modulo the number of
    /// groups), if the table has any.
    pub(crate) fn home(&self, tag: u16) -> Option<SlotHome> {
        if self.groups.is_empty() {
            return None;
        }
        let index = usize::from(tag) % self.groups.len();
        Some(SlotHome {
            tag,
            index,
            group: self.groups[index].clone(),
            hint: 0,
        })
    }

    #[inline]
    fn at(&self, slot: u32) -> &AtomicU64 {
        let s = slot as usize;
        &self.groups[s / SLOTS_PER_GROUP][s % SLOTS_PER_GROUP]
    }

    /// Empties a slot its owner holds and returns what it held (the owner's release).
    #[inline]
    pub(crate) fn release(&self, slot: u32) -> Slot {
        Slot::decode(self.at(slot).swap(0, Ordering::AcqRel))
    }

    /// Empties a slot and returns its word (for a holder without its [`SlotHome`] at hand;
    /// the owner uses the home's).
    pub(crate) fn release_word(&self, slot: u32) -> u64 {
        self.at(slot).swap(0, Ordering::AcqRel)
    }

    /// The current word of a slot.
    #[inline]
    pub(crate) fn load(&self, slot: u32) -> u64 {
        self.at(slot).load(Ordering::Acquire)
    }

    /// Replaces `old` by `new` if the slot still holds `old`. On failure the slot was
    /// released (or changed) by its owner: `Acquire` orders the owner's critical section before
    /// whatever the caller does next (a strong requester may be granted right after).
    #[inline]
    pub(crate) fn replace(&self, slot: u32, old: u64, new: u64) -> bool {
        self.at(slot)
            .compare_exchange(old, new, Ordering::SeqCst, Ordering::Acquire)
            .is_ok()
    }

    /// Calls `f(slot, word)` for every slot that holds the object at `address` on the fast
    /// path. `SeqCst` loads: see "the store-load race".
    pub(crate) fn for_each_holding(&self, address: u64, mut f: impl FnMut(u32, u64)) {
        for (gi, g) in self.groups.iter().enumerate() {
            for (si, s) in g.iter().enumerate() {
                let w = s.load(Ordering::SeqCst);
                if holds(w, address) {
                    f((gi * SLOTS_PER_GROUP + si) as u32, w);
                }
            }
        }
    }

    /// Calls `f(slot, word)` for every non-empty slot.
    pub(crate) fn for_each_used(&self, mut f: impl FnMut(u32, u64)) {
        for (gi, g) in self.groups.iter().enumerate() {
            for (si, s) in g.iter().enumerate() {
                let w = s.load(Ordering::SeqCst);
                if w != 0 {
                    f((gi * SLOTS_PER_GROUP + si) as u32, w);
                }
            }
        }
    }
}

impl SlotHome {
    /// The home group's index in the table (for the unit tests, which the loom build leaves out).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// Claims an empty slot of the home group for `word`, trying the hinted slot first and
    /// leaving the hint at the slot after the one claimed. `SeqCst`: see "the store-load race".
    #[inline]
    pub(crate) fn claim(&mut self, word: u64) -> Option<u32> {
        let s = usize::from(self.hint) % SLOTS_PER_GROUP;
        if self.group[s]
            .compare_exchange(0, word, Ordering::SeqCst, Ordering::Relaxed)
            .is_ok()
        {
            self.hint = ((s + 1) % SLOTS_PER_GROUP) as u8;
            return Some((self.index * SLOTS_PER_GROUP + s) as u32);
        }
        self.claim_elsewhere(word)
    }

    /// The hinted slot was taken: look at the others of the group.
    #[cold]
    #[inline(never)]
    fn claim_elsewhere(&mut self, word: u64) -> Option<u32> {
        for i in 1..SLOTS_PER_GROUP {
            let s = (usize::from(self.hint) + i) % SLOTS_PER_GROUP;
            if self.group[s].load(Ordering::Relaxed) == 0
                && self.group[s]
                    .compare_exchange(0, word, Ordering::SeqCst, Ordering::Relaxed)
                    .is_ok()
            {
                self.hint = ((s + 1) % SLOTS_PER_GROUP) as u8;
                return Some((self.index * SLOTS_PER_GROUP + s) as u32);
            }
        }
        None
    }

    /// A slot of this home (claims are only ever made in the home group).
    #[inline]
    fn own(&self, slot: u32) -> &AtomicU64 {
        debug_assert_eq!(
            slot as usize / SLOTS_PER_GROUP,
            self.index,
            "not a slot of this home"
        );
        &self.group[slot as usize % SLOTS_PER_GROUP]
    }

    /// Empties a slot this home claimed and returns what it held (the owner's release).
    #[inline]
    pub(crate) fn release(&self, slot: u32) -> Slot {
        Slot::decode(self.own(slot).swap(0, Ordering::AcqRel))
    }

    /// Empties a slot this home claimed and returns its word (the owner's release, in few
    /// instructions; [`moved_entry`] reads it).
    #[inline]
    pub(crate) fn release_word(&self, slot: u32) -> u64 {
        self.own(slot).swap(0, Ordering::AcqRel)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn nz(a: usize) -> std::num::NonZeroUsize {
        std::num::NonZeroUsize::new(a).expect("not null")
    }

    #[test]
    fn words_round_trip() {
        let a = address_bits(nz(0x7fff_ffff_ffc0)).expect("fits");
        let w = held(7, a, LockType::SW, LockDuration::Transaction);
        assert_eq!(
            Slot::decode(w),
            Slot::Held {
                tag: 7,
                address: a,
                ty: LockType::SW,
                duration: LockDuration::Transaction
            }
        );
        assert!(holds(w, a));
        assert_eq!(Slot::decode(pending(w)), Slot::Pending { tag: 7 });
        assert!(!holds(pending(w), a));
        let m = moved(w, 12345).expect("fits");
        assert_eq!(
            Slot::decode(m),
            Slot::Moved {
                tag: 7,
                entry: 12345,
                ty: LockType::SW,
                duration: LockDuration::Transaction
            }
        );
        assert!(!holds(m, a));
        assert_eq!(moved(w, usize::MAX), None);
        assert_eq!(moved(w, (1 << 41) - 1), None, "the pending sentinel");
        assert_eq!(
            Slot::decode(with_duration(w, LockDuration::Explicit)),
            Slot::Held {
                tag: 7,
                address: a,
                ty: LockType::SW,
                duration: LockDuration::Explicit
            }
        );
        assert_eq!(Slot::decode(0), Slot::Empty);
        assert_eq!(address_bits(nz(0x1000_0000_0000_0040)), None);
        assert_eq!(address_bits(nz(0x7fff_ffff_ffc1)), None, "unaligned");
    }

    #[test]
    fn claims_stay_in_the_home_group() {
        let t = SlotTable::new(2 * SLOTS_PER_GROUP);
        let mut home = t.home(3).expect("a table");
        assert_eq!(home.index(), 1);
        let a = address_bits(nz(0x40)).expect("fits");
        let mut got = Vec::new();
        for _ in 0..SLOTS_PER_GROUP {
            got.push(home.claim(held(3, a, LockType::SR, LockDuration::Statement)));
        }
        assert!(got.iter().all(|s| s.is_some_and(|s| (16..32).contains(&s))));
        assert_eq!(home.claim(1), None, "group full");
        let mut n = 0;
        t.for_each_holding(a, |_, _| n += 1);
        assert_eq!(n, SLOTS_PER_GROUP);
        let s = got[0].expect("claimed");
        assert!(matches!(home.release(s), Slot::Held { tag: 3, .. }));
        assert_eq!(t.load(s), 0, "the home's group is the table's");
        let s = got[1].expect("claimed");
        assert_eq!(moved_entry(home.release_word(s)), None, "held, not moved");
        assert_eq!(t.load(s), 0);
        assert!(SlotTable::new(0).home(1).is_none());
        let names: Vec<FastPath> = ["off", "shared-word", "per-context"]
            .iter()
            .map(|s| s.parse().expect("a mode"))
            .collect();
        assert_eq!(names, FastPath::ALL);
    }
}
