//! One session for the peers whose per-key locks are released by dropping a guard (global
//! mutex, dashmap, lockmap): the locks it holds, by key, with their duration.

use super::{Abort, Dur, KeyId, Mode, Session};

/// Per-key locks, each held through a guard that releases it when dropped.
pub trait GuardLocks: Sync {
    /// A held lock.
    type Guard<'a>
    where
        Self: 'a;
    /// Takes `key`'s lock in the mode this peer gives every workload mode.
    fn lock(&self, key: KeyId) -> Result<Self::Guard<'_>, Abort>;
    /// Makes `held`, the lock this session holds on `key`, exclusive.
    fn upgrade<'a>(&'a self, key: KeyId, held: Self::Guard<'a>) -> Result<Self::Guard<'a>, Abort>;
}

/// A session over any [`GuardLocks`].
pub struct GuardSession<'a, L: GuardLocks> {
    locks: &'a L,
    held: Vec<(KeyId, Dur, L::Guard<'a>)>,
}

impl<'a, L: GuardLocks> GuardSession<'a, L> {
    /// A session with no locks.
    pub fn new(locks: &'a L) -> Self {
        GuardSession {
            locks,
            held: Vec::with_capacity(16),
        }
    }
}

impl<L: GuardLocks> Session for GuardSession<'_, L> {
    #[inline]
    fn acquire(&mut self, key: KeyId, _mode: Mode, dur: Dur) -> Result<(), Abort> {
        // A held key needs no new lock (a second shared lock by the same thread could deadlock
        // behind a waiting writer; a second exclusive one would deadlock on itself).
        if let Some(h) = self.held.iter_mut().find(|h| h.0 == key) {
            h.1 = h.1.max(dur);
            return Ok(());
        }
        let g = self.locks.lock(key)?;
        self.held.push((key, dur, g));
        Ok(())
    }

    fn upgrade_to_x(&mut self, key: KeyId) -> Result<(), Abort> {
        let i = self
            .held
            .iter()
            .position(|h| h.0 == key)
            .expect("SU taken before the upgrade");
        let (k, d, g) = self.held.swap_remove(i);
        let g = self.locks.upgrade(key, g)?;
        self.held.push((k, d, g));
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
