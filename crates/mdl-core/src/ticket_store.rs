//! A context's tickets: a small inline array, then per-duration lists and a hash index.
//!
//! Most contexts hold a handful of tickets (a statement's tables and scopes), so the first
//! [`INLINE_TICKETS`] live in a fixed array with an occupancy bitmap: inserting is finding a
//! clear bit, removing is clearing it, and nothing is linked or allocated. Tickets beyond that
//! *spill* into a vector of slots with one doubly linked list per duration, newest first, as
//! MySQL's `MDL_ticket_store` keeps them; free spill slots form a list through their `next`
//! link. Every ticket carries a sequence number taken when it got its duration, which is what
//! savepoints compare against; slots are generation-checked, so a stale [`crate::Ticket`]
//! handle is detected, never dereferenced. Slot numbers `0..INLINE_TICKETS` are inline, the
//! rest spill slots.
//!
//! `find` follows MySQL's rule: look in the request's own duration first, then the following
//! durations cyclically, newest ticket first, for a ticket on the same lock whose type is equal
//! or stronger. A ticket is recognized by its lock object, which is unique per key while a
//! ticket holds it (a held object is never evicted), so a lookup compares pointers, not key
//! bytes. With [`TicketIndex::Hashed`] and at least `HASH_THRESHOLD - INLINE_TICKETS` spill
//! tickets (so from [`HASH_THRESHOLD`] tickets in all when the inline array is full), spill
//! candidates come from a hash index keyed by the key's MurmurHash3 (MySQL 8.0.4+, the fix for
//! Bug #83143) and the inline array is scanned (at most 16 pointers); [`TicketIndex::LinearList`]
//! always scans the lists (5.6, 5.7, early 8.0). Both give the same answer; only the cost
//! differs.
//!
//! Protocol: the store is owned by its context and touched only by the thread using it.

use std::collections::HashMap;
use std::sync::Arc;

use crate::hash::BuildPrehashed;
use crate::key::MdlKey;
use crate::lock::{Hold, LockObject};
use crate::matrix::is_stronger_or_equal;
use crate::types::{LockDuration, LockType};

/// How a context finds the tickets it already holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TicketIndex {
    /// Per-duration lists plus a hash index once a context holds [`HASH_THRESHOLD`] tickets:
    /// `find_ticket` is O(1) however many tickets a context holds (MySQL 8.0.4+).
    #[default]
    Hashed,
    /// Per-duration lists only: `find_ticket` scans every ticket, so taking N locks in one
    /// context costs O(N^2) (MySQL before 8.0.4, Bug #83143).
    LinearList,
}

impl TicketIndex {
    /// `"hashed"` or `"linear"`.
    pub fn name(self) -> &'static str {
        match self {
            TicketIndex::Hashed => "hashed",
            TicketIndex::LinearList => "linear",
        }
    }
}

/// Ticket count from which the hash index is used (MySQL's `MDL_ticket_store::THRESHOLD`).
pub const HASH_THRESHOLD: usize = 256;

/// Tickets a context keeps in its inline array before it uses the lists.
pub const INLINE_TICKETS: usize = 16;

const NIL: u32 = u32::MAX;
const SPILL: u32 = INLINE_TICKETS as u32;
/// Spill tickets from which the index is kept.
const INDEX_FROM: usize = HASH_THRESHOLD - INLINE_TICKETS;

/// One granted lock held by a context.
pub(crate) struct TicketData {
    pub(crate) lock: Arc<LockObject>,
    /// Where the lock is recorded (a queue entry, a counter, a slot).
    pub(crate) hold: Hold,
    pub(crate) ty: LockType,
    pub(crate) duration: LockDuration,
    /// The storage engines were told before this X lock was granted.
    pub(crate) hton_notified: bool,
}

/// A spill slot.
struct Slot {
    generation: u32,
    /// Links of the duration list (or, for a free slot, `next` links the free list).
    prev: u32,
    next: u32,
    seq: u64,
    data: Option<TicketData>,
}

pub(crate) struct TicketStore {
    inline: [Option<TicketData>; INLINE_TICKETS],
    inline_seq: [u64; INLINE_TICKETS],
    inline_generation: [u32; INLINE_TICKETS],
    /// Bit `i`: inline slot `i` holds a ticket.
    inline_used: u16,
    slots: Vec<Slot>,
    free: u32,
    heads: [u32; 3],
    tails: [u32; 3],
    /// Spill tickets per duration and in all (inline ones are counted on demand).
    spill_counts: [usize; 3],
    spill_total: usize,
    mode: TicketIndex,
    index: HashMap<u32, Vec<u32>, BuildPrehashed>,
    next_seq: u64,
    /// Spill tickets held on a fast path (inline ones are checked on demand).
    spill_fast: usize,
}

fn is_fast(h: Hold) -> bool {
    !matches!(h, Hold::Entry(_))
}

impl TicketStore {
    pub(crate) fn new(mode: TicketIndex) -> TicketStore {
        TicketStore {
            inline: Default::default(),
            inline_seq: [0; INLINE_TICKETS],
            inline_generation: [0; INLINE_TICKETS],
            inline_used: 0,
            slots: Vec::new(),
            free: NIL,
            heads: [NIL; 3],
            tails: [NIL; 3],
            spill_counts: [0; 3],
            spill_total: 0,
            mode,
            index: HashMap::default(),
            next_seq: 1,
            spill_fast: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.inline_used.count_ones() as usize + self.spill_total
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.inline_used == 0 && self.spill_total == 0
    }

    /// The store's only ticket when it holds exactly one and that one is not EXPLICIT: what a
    /// statement in autocommit mode holds when it commits (a point select's SR), released
    /// without a search of the durations.
    #[inline(always)]
    pub(crate) fn sole_transactional(&self) -> Option<u32> {
        if self.spill_total != 0 || !self.inline_used.is_power_of_two() {
            return None;
        }
        let i = self.inline_used.trailing_zeros();
        let t = self.inline[i as usize % INLINE_TICKETS].as_ref()?;
        (t.duration != LockDuration::Explicit).then_some(i)
    }

    /// Whether any ticket is held on a fast path (materialization has work).
    pub(crate) fn has_fast(&self) -> bool {
        self.spill_fast > 0 || self.inline.iter().flatten().any(|t| is_fast(t.hold))
    }

    pub(crate) fn len_of(&self, d: LockDuration) -> usize {
        self.inline_of(d, 0).count_ones() as usize + self.spill_counts[d.index()]
    }

    /// The sequence number the next ticket will get; a savepoint.
    pub(crate) fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The slot the next [`TicketStore::insert`] will use.
    pub(crate) fn next_slot(&self) -> u32 {
        if self.inline_used != u16::MAX {
            (!self.inline_used).trailing_zeros()
        } else if self.free != NIL {
            self.free
        } else {
            SPILL + self.slots.len() as u32
        }
    }

    fn index_active(&self) -> bool {
        self.mode == TicketIndex::Hashed && self.spill_total >= INDEX_FROM
    }

    /// Adds a ticket; returns (slot, generation).
    #[inline(always)]
    pub(crate) fn insert(&mut self, data: TicketData) -> (u32, u32) {
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.inline_used == u16::MAX {
            return self.insert_spill(data, seq);
        }
        let i = (!self.inline_used).trailing_zeros() as usize % INLINE_TICKETS;
        self.inline_used |= 1 << i;
        self.inline_seq[i] = seq;
        // A free inline slot holds no ticket, so there is nothing to drop: `forget` of the
        // `None` spares the drop code on the hot path.
        debug_assert!(self.inline[i].is_none());
        std::mem::forget(self.inline[i].replace(data));
        (i as u32, self.inline_generation[i])
    }

    #[inline(never)]
    fn insert_spill(&mut self, data: TicketData, seq: u64) -> (u32, u32) {
        if is_fast(data.hold) {
            self.spill_fast += 1;
        }
        let d = data.duration;
        let s = if self.free != NIL {
            let s = self.free;
            let rec = &mut self.slots[s as usize];
            self.free = rec.next;
            rec.seq = seq;
            rec.data = Some(data);
            s
        } else {
            self.slots.push(Slot {
                generation: 0,
                prev: NIL,
                next: NIL,
                seq,
                data: Some(data),
            });
            (self.slots.len() - 1) as u32
        };
        self.link_front(d, s);
        self.spill_total += 1;
        if self.index_active() {
            self.index_insert(s);
        }
        (SPILL + s, self.slots[s as usize].generation)
    }

    /// Keeps the index of spill tickets once the threshold is reached (inline tickets are
    /// always scanned).
    #[cold]
    fn index_insert(&mut self, s: u32) {
        if self.spill_total == INDEX_FROM {
            // Just reached the threshold: index every spill ticket.
            self.index.clear();
            for (i, rec) in self.slots.iter().enumerate() {
                if let Some(t) = &rec.data {
                    self.index
                        .entry(t.lock.key.murmur3())
                        .or_default()
                        .push(i as u32);
                }
            }
        } else {
            let hash = self.slot_data(s).lock.key.murmur3();
            self.index.entry(hash).or_default().push(s);
        }
    }

    #[cold]
    fn index_remove(&mut self, s: u32) {
        let hash = self.slot_data(s).lock.key.murmur3();
        if let Some(v) = self.index.get_mut(&hash) {
            if let Some(p) = v.iter().position(|&x| x == s) {
                v.swap_remove(p);
            }
            if v.is_empty() {
                self.index.remove(&hash);
            }
        }
    }

    /// Removes a ticket from the store and returns it; its handle becomes stale.
    #[inline(always)]
    pub(crate) fn remove(&mut self, slot: u32) -> TicketData {
        if slot >= SPILL {
            return self.remove_spill(slot - SPILL);
        }
        let i = slot as usize % INLINE_TICKETS;
        self.inline_used &= !(1 << i);
        self.inline_generation[i] = self.inline_generation[i].wrapping_add(1);
        self.inline[i].take().expect("slot checked by caller")
    }

    /// [`remove`](Self::remove) for a caller that has read the record's other fields in place
    /// and needs only its lock (the release: no copy of the whole record). Written out rather
    /// than as `self.remove(slot).lock`, which the compiler turns back into a copy of the whole
    /// record (callgrind: `acquire_loop` per-context 194 -> 203 instructions).
    #[inline(always)]
    pub(crate) fn remove_lock(&mut self, slot: u32) -> Arc<LockObject> {
        if slot >= SPILL {
            return self.remove_spill(slot - SPILL).lock;
        }
        let i = slot as usize % INLINE_TICKETS;
        self.inline_used &= !(1 << i);
        self.inline_generation[i] = self.inline_generation[i].wrapping_add(1);
        self.inline[i].take().expect("slot checked by caller").lock
    }

    #[inline(never)]
    fn remove_spill(&mut self, s: u32) -> TicketData {
        if self.index_active() {
            self.index_remove(s);
            if self.spill_total == INDEX_FROM {
                // Below the threshold after this one: the index goes.
                self.index.clear();
            }
        }
        self.spill_total -= 1;
        let d = self.slot_data(s).duration;
        self.unlink(d, s);
        let free = self.free;
        let rec = &mut self.slots[s as usize];
        rec.generation = rec.generation.wrapping_add(1);
        rec.next = free;
        self.free = s;
        let data = rec.data.take().expect("slot checked by caller");
        if is_fast(data.hold) {
            self.spill_fast -= 1;
        }
        data
    }

    /// Whether `slot` holds a live ticket of this generation.
    #[inline]
    pub(crate) fn check(&self, slot: u32, generation: u32) -> bool {
        if slot < SPILL {
            let i = slot as usize % INLINE_TICKETS;
            self.inline_used & (1 << i) != 0 && self.inline_generation[i] == generation
        } else {
            self.slots
                .get((slot - SPILL) as usize)
                .is_some_and(|s| s.generation == generation && s.data.is_some())
        }
    }

    pub(crate) fn generation(&self, slot: u32) -> u32 {
        if slot < SPILL {
            self.inline_generation[slot as usize % INLINE_TICKETS]
        } else {
            self.slots[(slot - SPILL) as usize].generation
        }
    }

    /// A live ticket's sequence number.
    pub(crate) fn seq(&self, slot: u32) -> u64 {
        if slot < SPILL {
            self.inline_seq[slot as usize % INLINE_TICKETS]
        } else {
            self.slots[(slot - SPILL) as usize].seq
        }
    }

    #[inline]
    pub(crate) fn data(&self, slot: u32) -> &TicketData {
        if slot < SPILL {
            self.inline[slot as usize % INLINE_TICKETS].as_ref()
        } else {
            self.slots[(slot - SPILL) as usize].data.as_ref()
        }
        .expect("slot checked by caller")
    }

    fn data_mut(&mut self, slot: u32) -> &mut TicketData {
        if slot < SPILL {
            self.inline[slot as usize % INLINE_TICKETS].as_mut()
        } else {
            self.slots[(slot - SPILL) as usize].data.as_mut()
        }
        .expect("slot checked by caller")
    }

    fn slot_data(&self, s: u32) -> &TicketData {
        self.slots[s as usize]
            .data
            .as_ref()
            .expect("spill slot checked by caller")
    }

    /// Records that a fast-path ticket's lock is now queue entry `entry` (materialization).
    pub(crate) fn set_entry(&mut self, slot: u32, entry: usize) {
        let t = self.data_mut(slot);
        let was_fast = is_fast(t.hold);
        t.hold = Hold::entry(entry);
        if was_fast && slot >= SPILL {
            self.spill_fast -= 1;
        }
    }

    /// Gives a ticket the lock hold of `new` (lock, type, hold, notification), keeping its
    /// duration and place; returns the hold it had, to be released.
    pub(crate) fn replace_hold(&mut self, slot: u32, mut new: TicketData) -> TicketData {
        let gained = is_fast(new.hold);
        let t = self.data_mut(slot);
        std::mem::swap(&mut t.lock, &mut new.lock);
        std::mem::swap(&mut t.ty, &mut new.ty);
        std::mem::swap(&mut t.hold, &mut new.hold);
        std::mem::swap(&mut t.hton_notified, &mut new.hton_notified);
        if slot >= SPILL {
            self.spill_fast =
                self.spill_fast + usize::from(gained) - usize::from(is_fast(new.hold));
        }
        new
    }

    /// Gives a ticket another duration with a new sequence number, or as older than every
    /// savepoint (`oldest`: sequence number 0, at the back of a list).
    pub(crate) fn move_to(&mut self, slot: u32, d: LockDuration, oldest: bool) {
        let old = self.data(slot).duration;
        let seq = if oldest {
            0
        } else {
            self.next_seq += 1;
            self.next_seq - 1
        };
        self.data_mut(slot).duration = d;
        if slot < SPILL {
            self.inline_seq[slot as usize % INLINE_TICKETS] = seq;
            return;
        }
        let s = slot - SPILL;
        self.unlink(old, s);
        self.slots[s as usize].seq = seq;
        if oldest {
            self.link_back(d, s);
        } else {
            self.link_front(d, s);
        }
    }

    /// Finds a held ticket on `lock` that satisfies a request (see the module docs).
    #[inline]
    pub(crate) fn find(&self, lock: &LockObject, ty: LockType, d: LockDuration) -> Option<u32> {
        if self.is_empty() {
            return None;
        }
        self.find_where(lock.key.murmur3(), d, |t| {
            std::ptr::eq(Arc::as_ptr(&t.lock), lock)
                && is_stronger_or_equal(lock.strategy, t.ty, ty)
        })
    }

    /// Finds a held ticket on `key` that satisfies `ty`, as [`TicketStore::find`] does.
    pub(crate) fn find_key(&self, key: &MdlKey, ty: LockType, d: LockDuration) -> Option<u32> {
        if self.is_empty() {
            return None;
        }
        let strategy = key.namespace().strategy();
        self.find_where(key.murmur3(), d, |t| {
            t.lock.key == *key && is_stronger_or_equal(strategy, t.ty, ty)
        })
    }

    /// The best satisfying ticket: lowest duration rank (own duration first, then cyclically),
    /// newest first within a rank.
    #[inline(never)]
    fn find_where(
        &self,
        hash: u32,
        duration: LockDuration,
        satisfies: impl Fn(&TicketData) -> bool,
    ) -> Option<u32> {
        let rank = |t: &TicketData| (t.duration.index() + 3 - duration.index()) % 3;
        // (rank, newest first) of the best candidate so far.
        let mut best: Option<(usize, u64, u32)> = None;
        let mut offer = |slot: u32, t: &TicketData, seq: u64| {
            let key = (rank(t), u64::MAX - seq);
            if best.is_none_or(|(r, s, _)| key < (r, s)) {
                best = Some((key.0, key.1, slot));
            }
        };
        let mut bits = self.inline_used;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize % INLINE_TICKETS;
            bits &= bits - 1;
            if let Some(t) = &self.inline[i] {
                if satisfies(t) {
                    offer(i as u32, t, self.inline_seq[i]);
                }
            }
        }
        if self.index_active() {
            for &s in self.index.get(&hash).into_iter().flatten() {
                let t = self.slot_data(s);
                if satisfies(t) {
                    offer(SPILL + s, t, self.slots[s as usize].seq);
                }
            }
        } else {
            // The lists are newest first: the first match of a duration is its best.
            for i in 0..3 {
                let d = LockDuration::ALL[(duration.index() + i) % 3];
                let mut cur = self.heads[d.index()];
                while cur != NIL {
                    let t = self.slot_data(cur);
                    if satisfies(t) {
                        offer(SPILL + cur, t, self.slots[cur as usize].seq);
                        break;
                    }
                    cur = self.slots[cur as usize].next;
                }
            }
        }
        best.map(|(_, _, slot)| slot)
    }

    /// The inline tickets of duration `d` with a sequence number of at least `newer_than`, as a
    /// bitmap of inline slots (for releasing them without allocating).
    #[inline]
    pub(crate) fn inline_of(&self, d: LockDuration, newer_than: u64) -> u16 {
        let mut out = 0;
        let mut bits = self.inline_used;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize % INLINE_TICKETS;
            bits &= bits - 1;
            if self.inline[i].as_ref().is_some_and(|t| t.duration == d)
                && self.inline_seq[i] >= newer_than
            {
                out |= 1 << i;
            }
        }
        out
    }

    /// Whether any ticket of duration `d` is held: the check a statement's end makes before
    /// it looks for tickets to release, usually finding none.
    #[inline(always)]
    pub(crate) fn holds_any_of(&self, d: LockDuration) -> bool {
        self.inline_of(d, 0) != 0 || self.heads[d.index()] != NIL
    }

    /// The newest ticket of duration `d` with a sequence number of at least `newer_than`: the
    /// newest such inline ticket or the head of the spill list (which is newest first, with
    /// tickets made older than every savepoint at the back), whichever is newer.
    #[inline]
    pub(crate) fn newest_of(&self, d: LockDuration, newer_than: u64) -> Option<u32> {
        let mut best: Option<(u64, u32)> = None;
        let mut bits = self.inline_of(d, newer_than);
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let seq = self.inline_seq[i as usize % INLINE_TICKETS];
            if best.is_none_or(|(s, _)| seq > s) {
                best = Some((seq, i));
            }
        }
        let h = self.heads[d.index()];
        if h != NIL {
            let seq = self.slots[h as usize].seq;
            if seq >= newer_than && best.is_none_or(|(s, _)| seq > s) {
                best = Some((seq, SPILL + h));
            }
        }
        best.map(|(_, slot)| slot)
    }

    /// The tickets of duration `d`, newest first.
    pub(crate) fn of(&self, d: LockDuration) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::with_capacity(self.len_of(d));
        let mut bits = self.inline_of(d, 0);
        while bits != 0 {
            out.push(bits.trailing_zeros());
            bits &= bits - 1;
        }
        let mut cur = self.heads[d.index()];
        while cur != NIL {
            out.push(SPILL + cur);
            cur = self.slots[cur as usize].next;
        }
        out.sort_by_key(|&s| std::cmp::Reverse(self.seq(s)));
        out
    }

    /// Every held ticket, in no particular order (no allocation).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &TicketData> {
        let spill = self.slots.iter().filter_map(|s| s.data.as_ref());
        self.inline.iter().flatten().chain(spill)
    }

    /// Every live slot, in no particular order.
    pub(crate) fn all_slots(&self) -> Vec<u32> {
        let mut out: Vec<u32> = (0..INLINE_TICKETS as u32)
            .filter(|&i| self.inline_used & (1 << i) != 0)
            .collect();
        out.extend(
            self.slots
                .iter()
                .enumerate()
                .filter(|(_, s)| s.data.is_some())
                .map(|(i, _)| SPILL + i as u32),
        );
        out
    }

    fn link_front(&mut self, d: LockDuration, s: u32) {
        let head = self.heads[d.index()];
        let rec = &mut self.slots[s as usize];
        rec.prev = NIL;
        rec.next = head;
        if head != NIL {
            self.slots[head as usize].prev = s;
        } else {
            self.tails[d.index()] = s;
        }
        self.heads[d.index()] = s;
        self.spill_counts[d.index()] += 1;
    }

    fn link_back(&mut self, d: LockDuration, s: u32) {
        let tail = self.tails[d.index()];
        let rec = &mut self.slots[s as usize];
        rec.next = NIL;
        rec.prev = tail;
        if tail != NIL {
            self.slots[tail as usize].next = s;
        } else {
            self.heads[d.index()] = s;
        }
        self.tails[d.index()] = s;
        self.spill_counts[d.index()] += 1;
    }

    fn unlink(&mut self, d: LockDuration, s: u32) {
        let (prev, next) = {
            let rec = &self.slots[s as usize];
            (rec.prev, rec.next)
        };
        if prev != NIL {
            self.slots[prev as usize].next = next;
        } else {
            self.heads[d.index()] = next;
        }
        if next != NIL {
            self.slots[next as usize].prev = prev;
        } else {
            self.tails[d.index()] = prev;
        }
        self.spill_counts[d.index()] -= 1;
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
