//! The naive baseline: one global mutex over a map of per-key RwLocks (the shape of MySQL's
//! `LOCK_open` before MDL): every lookup serialises on the global mutex, the per-key lock is then
//! taken outside it.

use std::collections::HashMap;

use parking_lot::Mutex;

use super::guards::GuardSession;
use super::keyed_rwlock::{KeyLock, Locate};
use super::{KeyId, KeySpace, LockTable};

/// A global `Mutex<HashMap<key, Arc<RwLock>>>`.
pub struct GlobalMutexTable {
    map: Mutex<HashMap<KeyId, KeyLock, ahash::RandomState>>,
}

impl GlobalMutexTable {
    /// An empty map (locks are created on first use).
    pub fn new(_keys: &KeySpace) -> Self {
        GlobalMutexTable {
            map: Mutex::new(HashMap::with_hasher(ahash::RandomState::new())),
        }
    }
}

impl Locate for GlobalMutexTable {
    #[inline]
    fn locate(&self, key: KeyId) -> KeyLock {
        self.map.lock().entry(key).or_default().clone()
    }
}

impl LockTable for GlobalMutexTable {
    type Session<'a> = GuardSession<'a, GlobalMutexTable>;

    fn session(&self) -> GuardSession<'_, GlobalMutexTable> {
        GuardSession::new(self)
    }
}
