//! The lock map: `shards` partitions of lock objects, each behind its own mutex, plus the four
//! pre-allocated singletons.
//!
//! This is MySQL 5.6's `MDL_map` (partitions = `metadata_locks_hash_instances`), kept because the
//! published contention curves depend on it, with 8.0's lazy eviction of unused objects instead
//! of 5.6's per-partition cache.
//!
//! # Protocol
//!
//! * A partition mutex guards only its hash map of `Arc<LockObject>`. A finder clones the `Arc`
//!   and drops the mutex before touching the object.
//! * Eviction marks an object by swapping its state word from exactly 0 to `IS_DESTROYED`
//!   under the partition mutex and the object's write lock, then removes it from the map. A thread
//!   that finds `IS_DESTROYED` on an object it looked up retries the lookup, so a destroyed
//!   object is never used, and the `Arc` keeps its memory valid meanwhile.
//! * `unused` counts objects whose state word is 0 (new objects count as unused until first
//!   use). It drives eviction: once more than `low_water` objects and more than `min_ratio` of all
//!   objects are unused, releasing a lock frees unused objects. Unlike MySQL, which updates its
//!   counter on every 0 <-> in-use transition (two read-modify-writes of one global cache line
//!   per statement on an idle table), the counter is maintained only once the map has held more
//!   than `low_water` objects — below that, eviction cannot trigger — and is then seeded with an
//!   exact count. It is a heuristic that can drift by concurrent transitions (as MySQL's can);
//!   eviction itself is always safe, and [`LockMap::unused_objects`] counts exactly.
//! * With [`FastPath::PerContext`], releasing a fast-path lock writes only the context's slot,
//!   so nothing tells the map that an object became unused: its state word keeps
//!   `HAS_FAST_SLOTS`. Instead, creating objects past the low-water mark triggers a *sweep*
//!   every `max(low_water, objects) / 4` creations (so its O(objects) cost is amortized to a
//!   constant per creation): it marks every object whose word is exactly `HAS_FAST_SLOTS`
//!   destroyed (so claims back off), scans the slot table once, puts `HAS_FAST_SLOTS` back on
//!   the objects a slot still holds, and turns the others into unused objects (word 0), which
//!   then count and are evicted as above. Between sweeps, unused objects can exceed the bounds by
//!   that many creations.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crossbeam_utils::CachePadded;

use crate::fast_path::{FastPath, Slot};
use crate::hash::BuildPrehashed;
use crate::key::MdlKey;
use crate::lock::{Env, LockObject, HAS_FAST_SLOTS};
use crate::sync::{
    new_partition_mutex, store_load_fence, AtomicBool, AtomicI64, AtomicUsize, Mutex, Ordering,
};
use crate::types::Namespace;

/// How a key picks its partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PartitionHash {
    /// MurmurHash3 of the key bytes, seed 0 (MySQL 5.6.15+ and 8.0).
    #[default]
    Murmur3,
    /// MySQL 5.6.14's `my_hash_sort_bin`: its low bits are so poorly spread that
    /// `test.sbtest1` .. `test.sbtest8` all land in the same one of 8 partitions.
    MySqlBin,
}

impl PartitionHash {
    /// `"murmur3"` or `"mysql_bin"`.
    pub fn name(self) -> &'static str {
        match self {
            PartitionHash::Murmur3 => "murmur3",
            PartitionHash::MySqlBin => "mysql_bin",
        }
    }
}

type Partition = HashMap<MdlKey, Arc<LockObject>, BuildPrehashed>;

pub(crate) struct LockMap {
    partitions: Box<[CachePadded<Mutex<Partition>>]>,
    /// GLOBAL, BACKUP_LOCK, COMMIT, ACL_CACHE.
    singletons: [Arc<LockObject>; 4],
    hash: PartitionHash,
    objects: AtomicUsize,
    /// Whether `unused` is maintained (set once `objects` exceeded `low_water`).
    counting: AtomicBool,
    unused: AtomicI64,
    low_water: usize,
    min_ratio: f64,
    /// [`FastPath::PerContext`]: objects created since the last sweep.
    since_sweep: AtomicUsize,
}

fn singleton_slot(ns: Namespace) -> Option<usize> {
    match ns {
        Namespace::Global => Some(0),
        Namespace::BackupLock => Some(1),
        Namespace::Commit => Some(2),
        Namespace::AclCache => Some(3),
        _ => None,
    }
}

impl LockMap {
    pub(crate) fn new(
        shards: usize,
        hash: PartitionHash,
        low_water: usize,
        min_ratio: f64,
    ) -> LockMap {
        let singleton = |ns| {
            Arc::new(LockObject::new(
                MdlKey::singleton(ns).expect("singleton namespaces build singleton keys"),
            ))
        };
        LockMap {
            partitions: (0..shards)
                .map(|i| CachePadded::new(new_partition_mutex(i, Partition::default())))
                .collect(),
            singletons: [
                singleton(Namespace::Global),
                singleton(Namespace::BackupLock),
                singleton(Namespace::Commit),
                singleton(Namespace::AclCache),
            ],
            hash,
            objects: AtomicUsize::new(0),
            counting: AtomicBool::new(false),
            unused: AtomicI64::new(0),
            low_water,
            min_ratio,
            since_sweep: AtomicUsize::new(0),
        }
    }

    /// The partition a key belongs to.
    pub(crate) fn partition_of(&self, key: &MdlKey) -> usize {
        if self.partitions.len() == 1 {
            return 0;
        }
        let h = match self.hash {
            PartitionHash::Murmur3 => key.murmur3(),
            PartitionHash::MySqlBin => key.mysql_bin_hash(),
        };
        h as usize % self.partitions.len()
    }

    pub(crate) fn partitions(&self) -> usize {
        self.partitions.len()
    }

    /// The lock object for `key`, creating it if needed.
    pub(crate) fn find_or_insert(&self, key: &MdlKey, env: &Env) -> Arc<LockObject> {
        if let Some(i) = singleton_slot(key.namespace()) {
            return self.singletons[i].clone();
        }
        let mut part = self.partitions[self.partition_of(key)].lock();
        if let Some(lock) = part.get(key) {
            return lock.clone();
        }
        let lock = Arc::new(LockObject::new(key.clone()));
        part.insert(key.clone(), lock.clone());
        // Counted before the partition is unlocked: an evictor can find (and uncount) the new
        // object only after that.
        let objects = self.objects.fetch_add(1, Ordering::Relaxed) + 1;
        // A closed grant gate closes new objects before anyone else can find them (`gate.rs`).
        let gated = lock.close_if_gated(env);
        drop(part);
        if self.counting.load(Ordering::Relaxed) {
            self.unused.fetch_add(1, Ordering::Relaxed);
            if env.mode == FastPath::PerContext {
                let every = self.low_water.max(objects) / 4;
                if self.since_sweep.fetch_add(1, Ordering::Relaxed) + 1 >= every.max(1) {
                    self.since_sweep.store(0, Ordering::Relaxed);
                    self.sweep(env);
                }
            }
        } else if objects > self.low_water && !self.counting.swap(true, Ordering::AcqRel) {
            self.unused
                .store(self.unused_objects(env) as i64, Ordering::Relaxed);
        }
        if gated {
            self.object_used();
        }
        lock
    }

    /// [`FastPath::PerContext`]: finds the objects that only stale `HAS_FAST_SLOTS` flags keep
    /// in use and makes them unused (see the module docs), then evicts as a release would.
    #[cold]
    pub(crate) fn sweep(&self, env: &Env) {
        let mut marked = Vec::new();
        for p in self.partitions.iter() {
            let part = p.lock();
            marked.extend(part.values().filter(|l| l.mark_for_sweep()).cloned());
        }
        if marked.is_empty() {
            return;
        }
        // Orders the marks before the scan (see `claim_slot` in `lock.rs`).
        store_load_fence();
        let held = slot_addresses(env);
        let mut freed = 0;
        for lock in &marked {
            if lock.address().is_some_and(|a| held.contains(&a)) {
                lock.unmark_in_use();
            } else {
                lock.unmark_unused();
                freed += 1;
            }
        }
        if freed > 0 && self.counting.load(Ordering::Relaxed) {
            self.unused.fetch_add(freed, Ordering::Relaxed);
            let mut rand = marked.len() as u64 | 1;
            self.evict_while_too_many(&mut rand);
        }
    }

    /// The lock object for `key` if it exists.
    pub(crate) fn find(&self, key: &MdlKey) -> Option<Arc<LockObject>> {
        if let Some(i) = singleton_slot(key.namespace()) {
            return Some(self.singletons[i].clone());
        }
        self.partitions[self.partition_of(key)]
            .lock()
            .get(key)
            .cloned()
    }

    /// A non-singleton object went from unused to used.
    #[inline]
    pub(crate) fn object_used(&self) {
        if self.counting.load(Ordering::Relaxed) {
            self.unused.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// A non-singleton object became unused; frees unused objects while there are too many.
    #[inline]
    pub(crate) fn object_unused(&self, rand: &mut u64) {
        if self.counting.load(Ordering::Relaxed) {
            self.count_unused(rand);
        }
    }

    #[inline(never)]
    fn count_unused(&self, rand: &mut u64) {
        self.unused.fetch_add(1, Ordering::Relaxed);
        self.evict_while_too_many(rand);
    }

    fn evict_while_too_many(&self, rand: &mut u64) {
        let mut unused = self.unused.load(Ordering::Relaxed);
        while unused > self.low_water as i64
            && unused as f64 > self.objects.load(Ordering::Relaxed) as f64 * self.min_ratio
        {
            if !self.remove_random_unused(rand) {
                break;
            }
            unused = self.unused.load(Ordering::Relaxed);
        }
    }

    /// Evicts one unused object, starting the search at a random partition. Returns false if
    /// none was found.
    fn remove_random_unused(&self, rand: &mut u64) -> bool {
        *rand = rand
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let n = self.partitions.len();
        let start = (*rand >> 33) as usize % n;
        for i in 0..n {
            let mut part = self.partitions[(start + i) % n].lock();
            let victim = part
                .iter()
                .find_map(|(k, lock)| lock.try_destroy().then(|| k.clone()));
            if let Some(k) = victim {
                part.remove(&k);
                drop(part);
                self.objects.fetch_sub(1, Ordering::Relaxed);
                self.unused.fetch_sub(1, Ordering::Relaxed);
                return true;
            }
        }
        false
    }

    /// Number of lock objects in the map (singletons excluded).
    pub(crate) fn objects(&self) -> usize {
        self.partitions.iter().map(|p| p.lock().len()).sum()
    }

    /// Number of lock objects nobody uses, counted now: state word 0, or only `HAS_FAST_SLOTS`
    /// with no slot holding the object.
    pub(crate) fn unused_objects(&self, env: &Env) -> usize {
        let held = slot_addresses(env);
        self.partitions
            .iter()
            .map(|p| {
                p.lock()
                    .values()
                    .filter(|l| match l.word.load(Ordering::Acquire) {
                        0 => true,
                        HAS_FAST_SLOTS => !l.address().is_some_and(|a| held.contains(&a)),
                        _ => false,
                    })
                    .count()
            })
            .sum()
    }

    /// Calls `f` on every lock object, singletons first, one partition at a time.
    pub(crate) fn for_each(&self, mut f: impl FnMut(&Arc<LockObject>)) {
        for s in &self.singletons {
            f(s);
        }
        for p in self.partitions.iter() {
            let objects: Vec<Arc<LockObject>> = p.lock().values().cloned().collect();
            for o in &objects {
                f(o);
            }
        }
    }
}

/// The addresses of the lock objects that slots hold on the fast path.
fn slot_addresses(env: &Env) -> HashSet<u64> {
    let mut held = HashSet::new();
    if env.mode == FastPath::PerContext {
        env.slots.for_each_used(|_, w| {
            if let Slot::Held { address, .. } = Slot::decode(w) {
                held.insert(address);
            }
        });
    }
    held
}
