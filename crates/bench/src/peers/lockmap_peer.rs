//! lockmap 0.2 (crates.io): per-key *exclusive* locks in a sharded map. It has no shared mode,
//! so every workload mode is exclusive here (readers of one table serialise, and so do writers
//! on the GLOBAL intention lock): that is what a user of lockmap as a lock manager gets. Its
//! blocking `entry` has no timeout, so this peer retries `try_entry` with backoff.

use lockmap::{Entry, LockMap};

use super::backoff::retry;
use super::guards::{GuardLocks, GuardSession};
use super::{Abort, KeyId, KeySpace, LockTable};

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

impl GuardLocks for LockMapTable {
    type Guard<'a> = Entry<'a, KeyId, ()>;

    #[inline]
    fn lock(&self, key: KeyId) -> Result<Entry<'_, KeyId, ()>, Abort> {
        retry(|| self.map.try_entry(key))
    }

    /// Already exclusive.
    fn upgrade<'a>(
        &'a self,
        _key: KeyId,
        held: Entry<'a, KeyId, ()>,
    ) -> Result<Entry<'a, KeyId, ()>, Abort> {
        Ok(held)
    }
}

impl LockTable for LockMapTable {
    type Session<'a> = GuardSession<'a, LockMapTable>;

    fn session(&self) -> GuardSession<'_, LockMapTable> {
        GuardSession::new(self)
    }
}
