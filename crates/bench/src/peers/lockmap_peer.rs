//! lockmap 0.2 (crates.io): per-key *exclusive* locks in a sharded map. It has no shared mode,
//! so every workload mode is exclusive here (readers of one table serialise, and so do writers
//! on the GLOBAL intention lock): that is what a user of lockmap as a lock manager gets. Its
//! blocking `entry` has no timeout, so this peer retries `try_entry` with backoff.

use lockmap::{Entry, LockMap};

use super::backoff::retry;
use super::{Abort, Dur, KeyId, KeySpace, LockTable, Mode, Session};

/// A `LockMap<key, ()>`.
pub struct LockMapTable {
    map: LockMap<KeyId, ()>,
}

impl LockMapTable {
    /// A map with `shards` shards.
    pub fn new(shards: usize, _keys: &KeySpace) -> Self {
        LockMapTable {
            map: LockMap::with_capacity_and_shard_amount(64, shards),
        }
    }
}

/// The entries (held locks) of one session.
pub struct LockMapSession<'a> {
    map: &'a LockMap<KeyId, ()>,
    held: Vec<(KeyId, Dur, Entry<'a, KeyId, ()>)>,
}

impl LockTable for LockMapTable {
    type Session<'a> = LockMapSession<'a>;

    fn session(&self) -> LockMapSession<'_> {
        LockMapSession {
            map: &self.map,
            held: Vec::with_capacity(16),
        }
    }
}

impl Session for LockMapSession<'_> {
    #[inline]
    fn acquire(&mut self, key: KeyId, _mode: Mode, dur: Dur) -> Result<(), Abort> {
        if let Some(h) = self.held.iter_mut().find(|h| h.0 == key) {
            h.1 = h.1.max(dur);
            return Ok(());
        }
        let map = self.map;
        let e = retry(|| map.try_entry(key))?;
        self.held.push((key, dur, e));
        Ok(())
    }

    fn upgrade_to_x(&mut self, _key: KeyId) -> Result<(), Abort> {
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
