//! Per-key `RwLock`s found through a map: the shared session logic, and the dashmap peer.
//!
//! Shared modes (IX, SR, SW, SU) take the key's lock for reading, X for writing. The SU to X
//! upgrade drops the read lock and then takes the write lock (a plain RwLock cannot upgrade
//! atomically; another DDL may slip in between, which this benchmark tolerates).

use std::sync::Arc;

use dashmap::DashMap;
use parking_lot::lock_api::{ArcRwLockReadGuard, ArcRwLockWriteGuard};
use parking_lot::{RawRwLock, RwLock};

use super::{Abort, Dur, KeyId, KeySpace, LockTable, Mode, Session, PEER_LOCK_TIMEOUT};

/// A per-key lock.
pub type KeyLock = Arc<RwLock<()>>;

/// How a peer finds a key's lock.
pub trait Locate: Sync {
    /// The lock of `key`, created on first use.
    fn locate(&self, key: KeyId) -> KeyLock;
}

enum Guard {
    Read(#[allow(dead_code)] ArcRwLockReadGuard<RawRwLock, ()>),
    Write(#[allow(dead_code)] ArcRwLockWriteGuard<RawRwLock, ()>),
}

/// A session over any [`Locate`]: the locks it holds, by key, with their duration.
pub struct RwSession<'a, L: Locate> {
    map: &'a L,
    held: Vec<(KeyId, Dur, Guard)>,
}

impl<'a, L: Locate> RwSession<'a, L> {
    /// A session with no locks.
    pub fn new(map: &'a L) -> Self {
        RwSession {
            map,
            held: Vec::with_capacity(16),
        }
    }
}

impl<L: Locate> Session for RwSession<'_, L> {
    #[inline]
    fn acquire(&mut self, key: KeyId, _mode: Mode, dur: Dur) -> Result<(), Abort> {
        // Every workload mode is shared here; a held key needs no new lock (a second read lock
        // by the same thread could deadlock behind a waiting writer).
        if let Some(h) = self.held.iter_mut().find(|h| h.0 == key) {
            h.1 = h.1.max(dur);
            return Ok(());
        }
        let lock = self.map.locate(key);
        let g = match lock.try_read_arc() {
            Some(g) => g,
            None => lock.try_read_arc_for(PEER_LOCK_TIMEOUT).ok_or(Abort)?,
        };
        self.held.push((key, dur, Guard::Read(g)));
        Ok(())
    }

    fn upgrade_to_x(&mut self, key: KeyId) -> Result<(), Abort> {
        let i = self
            .held
            .iter()
            .position(|h| h.0 == key)
            .expect("SU taken before the upgrade");
        let (k, d, g) = self.held.swap_remove(i);
        if let Guard::Write(g) = g {
            self.held.push((k, d, Guard::Write(g)));
            return Ok(());
        }
        drop(g);
        let lock = self.map.locate(key);
        let w = lock.try_write_arc_for(PEER_LOCK_TIMEOUT).ok_or(Abort)?;
        self.held.push((k, Dur::Transaction, Guard::Write(w)));
        Ok(())
    }

    #[inline]
    fn end_statement(&mut self) {
        self.held.retain(|h| h.1 != Dur::Statement);
    }

    #[inline]
    fn end_transaction(&mut self) {
        self.held.clear();
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
    type Session<'a> = RwSession<'a, DashMapTable>;

    fn session(&self) -> RwSession<'_, DashMapTable> {
        RwSession::new(self)
    }
}
