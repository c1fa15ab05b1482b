//! A context's tickets: one list per duration, plus a hash index over the lock keys.
//!
//! Tickets live in a slab of generation-checked slots (so a stale [`crate::Ticket`] handle is
//! detected, never dereferenced). Each duration keeps a doubly linked list through the slots,
//! newest first, as MySQL's `MDL_ticket_store` does; every ticket carries a sequence number taken
//! when it entered its list, which is what savepoints compare against.
//!
//! `find` follows MySQL's rule: look in the request's own duration first, then the following
//! durations cyclically, newest ticket first, for a ticket on the same key whose type is equal or
//! stronger. With [`TicketIndex::Hashed`] and at least [`HASH_THRESHOLD`] tickets, candidates come
//! from a hash index keyed by the key's MurmurHash3 (MySQL 8.0.4+, the fix for Bug #83143);
//! [`TicketIndex::LinearList`] always scans the lists (5.6, 5.7, early 8.0). Both give the same
//! answer; only the cost differs.
//!
//! Protocol: the store is owned by its context and touched only by the thread using it.

use std::collections::HashMap;
use std::sync::Arc;

use crate::hash::BuildPrehashed;
use crate::key::MdlKey;
use crate::lock::LockObject;
use crate::matrix::is_stronger_or_equal;
use crate::types::{LockDuration, LockType};

/// How a context finds the tickets it already holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TicketIndex {
    /// Per-duration lists plus a hash index once a context holds [`HASH_THRESHOLD`] tickets:
    /// `find_ticket` is O(1) however many tickets a context holds (MySQL 8.0.4+).
    #[default]
    Hashed,
    /// Per-duration lists only: `find_ticket` scans every ticket, so taking N locks in one
    /// context costs O(N^2) (MySQL before 8.0.4, Bug #83143).
    LinearList,
}

/// Ticket count from which the hash index is used (MySQL's `MDL_ticket_store::THRESHOLD`).
pub const HASH_THRESHOLD: usize = 256;

const NIL: u32 = u32::MAX;

/// One granted lock held by a context.
pub(crate) struct TicketData {
    pub(crate) lock: Arc<LockObject>,
    pub(crate) ty: LockType,
    pub(crate) duration: LockDuration,
    /// Held as a counter in the lock's fast-path word, not as an entry in its granted list.
    pub(crate) fast_path: bool,
    /// Index of the entry in the lock's state (slow path only).
    pub(crate) entry: usize,
    /// The storage engines were told before this X lock was granted.
    pub(crate) hton_notified: bool,
    /// Unique id of the ticket within the manager (for `metadata_locks`).
    pub(crate) id: u64,
    seq: u64,
    prev: u32,
    next: u32,
}

impl TicketData {
    pub(crate) fn new(lock: Arc<LockObject>, ty: LockType, duration: LockDuration) -> TicketData {
        TicketData {
            lock,
            ty,
            duration,
            fast_path: false,
            entry: usize::MAX,
            hton_notified: false,
            id: 0,
            seq: 0,
            prev: NIL,
            next: NIL,
        }
    }

    pub(crate) fn seq(&self) -> u64 {
        self.seq
    }
}

struct Slot {
    generation: u32,
    data: Option<TicketData>,
}

pub(crate) struct TicketStore {
    slots: Vec<Slot>,
    free: Vec<u32>,
    heads: [u32; 3],
    tails: [u32; 3],
    counts: [usize; 3],
    total: usize,
    mode: TicketIndex,
    index: HashMap<u32, Vec<u32>, BuildPrehashed>,
    next_seq: u64,
    /// Number of tickets held through the fast path (materialization skips the scan at 0).
    pub(crate) fast_path_count: usize,
}

impl TicketStore {
    pub(crate) fn new(mode: TicketIndex) -> TicketStore {
        TicketStore {
            slots: Vec::new(),
            free: Vec::new(),
            heads: [NIL; 3],
            tails: [NIL; 3],
            counts: [0; 3],
            total: 0,
            mode,
            index: HashMap::default(),
            next_seq: 1,
            fast_path_count: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.total
    }

    pub(crate) fn len_of(&self, d: LockDuration) -> usize {
        self.counts[d.index()]
    }

    /// The sequence number the next ticket will get; a savepoint.
    pub(crate) fn next_seq(&self) -> u64 {
        self.next_seq
    }

    fn index_active(&self) -> bool {
        self.mode == TicketIndex::Hashed && self.total >= HASH_THRESHOLD
    }

    /// Adds a ticket to the front of its duration's list; returns (slot, generation).
    pub(crate) fn insert(&mut self, mut data: TicketData) -> (u32, u32) {
        if data.fast_path {
            self.fast_path_count += 1;
        }
        let d = data.duration;
        data.seq = self.next_seq;
        self.next_seq += 1;
        let hash = data.lock.key.murmur3();
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize].data = Some(data);
                s
            }
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    data: Some(data),
                });
                (self.slots.len() - 1) as u32
            }
        };
        self.link_front(d, slot);
        self.total += 1;
        if self.mode == TicketIndex::Hashed {
            if self.total == HASH_THRESHOLD {
                self.rebuild_index();
            } else if self.total > HASH_THRESHOLD {
                self.index.entry(hash).or_default().push(slot);
            }
        }
        (slot, self.slots[slot as usize].generation)
    }

    fn rebuild_index(&mut self) {
        self.index.clear();
        for (i, s) in self.slots.iter().enumerate() {
            if let Some(t) = &s.data {
                self.index
                    .entry(t.lock.key.murmur3())
                    .or_default()
                    .push(i as u32);
            }
        }
    }

    /// Removes a ticket from the store and returns it; its handle becomes stale.
    pub(crate) fn remove(&mut self, slot: u32) -> TicketData {
        let d = self.data(slot).duration;
        self.unlink(d, slot);
        if self.mode == TicketIndex::Hashed {
            if self.total > HASH_THRESHOLD {
                let hash = self.data(slot).lock.key.murmur3();
                if let Some(v) = self.index.get_mut(&hash) {
                    if let Some(p) = v.iter().position(|&s| s == slot) {
                        v.swap_remove(p);
                    }
                    if v.is_empty() {
                        self.index.remove(&hash);
                    }
                }
            } else if self.total == HASH_THRESHOLD {
                self.index.clear();
            }
        }
        self.total -= 1;
        let s = &mut self.slots[slot as usize];
        s.generation = s.generation.wrapping_add(1);
        self.free.push(slot);
        let data = s.data.take().expect("slot checked by caller");
        if data.fast_path {
            self.fast_path_count -= 1;
        }
        data
    }

    /// The slot of a live ticket with this generation.
    pub(crate) fn check(&self, slot: u32, generation: u32) -> bool {
        self.slots
            .get(slot as usize)
            .is_some_and(|s| s.generation == generation && s.data.is_some())
    }

    pub(crate) fn generation(&self, slot: u32) -> u32 {
        self.slots[slot as usize].generation
    }

    pub(crate) fn data(&self, slot: u32) -> &TicketData {
        self.slots[slot as usize]
            .data
            .as_ref()
            .expect("slot checked by caller")
    }

    pub(crate) fn data_mut(&mut self, slot: u32) -> &mut TicketData {
        self.slots[slot as usize]
            .data
            .as_mut()
            .expect("slot checked by caller")
    }

    /// Marks a ticket as no longer fast-path (after materialization).
    pub(crate) fn clear_fast_path(&mut self, slot: u32, entry: usize) {
        let t = self.data_mut(slot);
        debug_assert!(t.fast_path);
        t.fast_path = false;
        t.entry = entry;
        self.fast_path_count -= 1;
    }

    /// Gives a ticket the lock hold of `new` (lock, type, fast path, entry, notification, id),
    /// keeping its duration and place; returns the hold it had, to be released.
    pub(crate) fn replace_hold(&mut self, slot: u32, mut new: TicketData) -> TicketData {
        if new.fast_path {
            self.fast_path_count += 1;
        }
        let t = self.data_mut(slot);
        std::mem::swap(&mut t.lock, &mut new.lock);
        std::mem::swap(&mut t.ty, &mut new.ty);
        std::mem::swap(&mut t.fast_path, &mut new.fast_path);
        std::mem::swap(&mut t.entry, &mut new.entry);
        std::mem::swap(&mut t.hton_notified, &mut new.hton_notified);
        std::mem::swap(&mut t.id, &mut new.id);
        if new.fast_path {
            self.fast_path_count -= 1;
        }
        new
    }

    /// Moves a ticket to another duration: to the front with a new sequence number, or to the
    /// back as older than every savepoint (`oldest`).
    pub(crate) fn move_to(&mut self, slot: u32, d: LockDuration, oldest: bool) {
        let old = self.data(slot).duration;
        self.unlink(old, slot);
        let seq = if oldest {
            0
        } else {
            self.next_seq += 1;
            self.next_seq - 1
        };
        let t = self.data_mut(slot);
        t.duration = d;
        t.seq = seq;
        if oldest {
            self.link_back(d, slot);
        } else {
            self.link_front(d, slot);
        }
    }

    /// Finds a held ticket that satisfies a request (see the module docs).
    pub(crate) fn find(&self, key: &MdlKey, ty: LockType, duration: LockDuration) -> Option<u32> {
        if self.total == 0 {
            return None;
        }
        let strategy = key.namespace().strategy();
        let satisfies =
            |t: &TicketData| t.lock.key == *key && is_stronger_or_equal(strategy, t.ty, ty);
        if self.index_active() {
            let rank = |t: &TicketData| (t.duration.index() + 3 - duration.index()) % 3;
            let candidates = self.index.get(&key.murmur3())?;
            return candidates
                .iter()
                .copied()
                .filter(|&s| satisfies(self.data(s)))
                .min_by_key(|&s| {
                    let t = self.data(s);
                    (rank(t), u64::MAX - t.seq)
                });
        }
        for i in 0..3 {
            let d = LockDuration::ALL[(duration.index() + i) % 3];
            let found = self.iter(d).find(|&s| satisfies(self.data(s)));
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// Slots of one duration list, newest first.
    pub(crate) fn iter(&self, d: LockDuration) -> ListIter<'_> {
        ListIter {
            store: self,
            cur: self.heads[d.index()],
        }
    }

    /// Every live slot, in no particular order.
    pub(crate) fn all_slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.data.is_some())
            .map(|(i, _)| i as u32)
    }

    fn link_front(&mut self, d: LockDuration, slot: u32) {
        let head = self.heads[d.index()];
        {
            let t = self.data_mut(slot);
            t.prev = NIL;
            t.next = head;
        }
        if head != NIL {
            self.data_mut(head).prev = slot;
        } else {
            self.tails[d.index()] = slot;
        }
        self.heads[d.index()] = slot;
        self.counts[d.index()] += 1;
    }

    fn link_back(&mut self, d: LockDuration, slot: u32) {
        let tail = self.tails[d.index()];
        {
            let t = self.data_mut(slot);
            t.next = NIL;
            t.prev = tail;
        }
        if tail != NIL {
            self.data_mut(tail).next = slot;
        } else {
            self.heads[d.index()] = slot;
        }
        self.tails[d.index()] = slot;
        self.counts[d.index()] += 1;
    }

    fn unlink(&mut self, d: LockDuration, slot: u32) {
        let (prev, next) = {
            let t = self.data(slot);
            (t.prev, t.next)
        };
        if prev != NIL {
            self.data_mut(prev).next = next;
        } else {
            self.heads[d.index()] = next;
        }
        if next != NIL {
            self.data_mut(next).prev = prev;
        } else {
            self.tails[d.index()] = prev;
        }
        self.counts[d.index()] -= 1;
    }
}

pub(crate) struct ListIter<'a> {
    store: &'a TicketStore,
    cur: u32,
}

impl Iterator for ListIter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.cur == NIL {
            return None;
        }
        let s = self.cur;
        self.cur = self.store.data(s).next;
        Some(s)
    }
}
