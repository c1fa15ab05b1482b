//! Per-key `RwLock`s found through a map: their [`GuardLocks`], and the dashmap peer.
//!
//! Shared modes (IX, SR, SW, SU) take the key's lock for reading, X for writing. The SU to X
//! upgrade drops the read lock and then takes the write lock (a plain RwLock cannot upgrade
//! atomically; another DDL may slip in between, which this benchmark tolerates).

use std::sync::Arc;

use dashmap::DashMap;
use parking_lot::lock_api::{ArcRwLockReadGuard, ArcRwLockWriteGuard};
use parking_lot::{RawRwLock, RwLock};

use super::guards::{GuardLocks, GuardSession};
use super::{Abort, KeyId, KeySpace, LockTable, PEER_LOCK_TIMEOUT};

/// A per-key lock.
pub type KeyLock = Arc<RwLock<()>>;

/// How a peer finds a key's lock.
pub trait Locate: Sync {
    /// The lock of `key`, created on first use.
    fn locate(&self, key: KeyId) -> KeyLock;
}

/// A held per-key lock.
pub enum RwGuard {
    /// Shared.
    Read(#[allow(dead_code)] ArcRwLockReadGuard<RawRwLock, ()>),
    /// Exclusive.
    Write(#[allow(dead_code)] ArcRwLockWriteGuard<RawRwLock, ()>),
}

impl<L: Locate> GuardLocks for L {
    type Guard<'a>
        = RwGuard
    where
        L: 'a;

    #[inline]
    fn lock(&self, key: KeyId) -> Result<RwGuard, Abort> {
        let lock = self.locate(key);
        let g = match lock.try_read_arc() {
            Some(g) => g,
            None => lock.try_read_arc_for(PEER_LOCK_TIMEOUT).ok_or(Abort)?,
        };
        Ok(RwGuard::Read(g))
    }

    fn upgrade(&self, key: KeyId, held: RwGuard) -> Result<RwGuard, Abort> {
        if let RwGuard::Write(_) = held {
            return Ok(held);
        }
        drop(held);
        let lock = self.locate(key);
        let w = lock.try_write_arc_for(PEER_LOCK_TIMEOUT).ok_or(Abort)?;
        Ok(RwGuard::Write(w))
    }
}

/// A dashmap (default shard count, ahash) from key to its RwLock.
pub struct DashMapTable {
    map: DashMap<KeyId, KeyLock, ahash::RandomState>,
}

impl DashMapTable {
    /// An empty map (locks are created on first use).
    pub fn new(_keys: &KeySpace) -> Self {
        DashMapTable {
            map: DashMap::with_hasher(ahash::RandomState::new()),
        }
    }
}

impl Locate for DashMapTable {
    #[inline]
    fn locate(&self, key: KeyId) -> KeyLock {
        if let Some(l) = self.map.get(&key) {
            return l.clone();
        }
        self.map.entry(key).or_default().clone()
    }
}

impl LockTable for DashMapTable {
    type Session<'a> = GuardSession<'a, DashMapTable>;

    fn session(&self) -> GuardSession<'_, DashMapTable> {
        GuardSession::new(self)
    }
}
