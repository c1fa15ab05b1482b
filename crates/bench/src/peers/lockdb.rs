//! lock-db 1.0 (crates.io): a sharded multi-granularity lock table (IS/IX/S/SIX/X). Its
//! `try_acquire` never waits, so this peer retries it with backoff (`backoff.rs`).
//! Modes: SR and SU map to IS, SW and scoped IX to IX, X to X (an upgrade by lattice join).

use lock_db::{LockManager, LockMode, ResourceId, TxnId};

use super::backoff::retry;
use super::{Abort, Dur, KeyId, KeySpace, LockTable, Mode, Session};
use std::sync::atomic::{AtomicU64, Ordering};

/// A lock-db `LockManager`.
pub struct LockDbTable {
    lm: LockManager,
    next_txn: AtomicU64,
}

impl LockDbTable {
    /// A lock table with `shards` shards.
    pub fn new(shards: usize, _keys: &KeySpace) -> Self {
        LockDbTable {
            lm: LockManager::with_shards(shards),
            next_txn: AtomicU64::new(1),
        }
    }
}

/// One transaction id per session, and the resources it holds.
pub struct LockDbSession<'a> {
    t: &'a LockDbTable,
    txn: TxnId,
    held: Vec<(KeyId, Dur)>,
}

impl LockTable for LockDbTable {
    type Session<'a> = LockDbSession<'a>;

    fn session(&self) -> LockDbSession<'_> {
        LockDbSession {
            t: self,
            txn: TxnId::new(self.next_txn.fetch_add(1, Ordering::Relaxed)),
            held: Vec::with_capacity(16),
        }
    }
}

impl LockDbSession<'_> {
    fn take(&mut self, key: KeyId, mode: LockMode) -> Result<(), Abort> {
        let (lm, txn) = (&self.t.lm, self.txn);
        let res = ResourceId::new(u64::from(key));
        retry(|| lm.try_acquire(txn, res, mode).ok())
    }
}

impl Session for LockDbSession<'_> {
    #[inline]
    fn acquire(&mut self, key: KeyId, mode: Mode, dur: Dur) -> Result<(), Abort> {
        let m = match mode {
            Mode::SR | Mode::SU => LockMode::IntentionShared,
            Mode::IX | Mode::SW => LockMode::IntentionExclusive,
        };
        // lock-db keeps one (possibly upgraded) grant per transaction and resource.
        self.take(key, m)?;
        match self.held.iter_mut().find(|h| h.0 == key) {
            Some(h) => h.1 = h.1.max(dur),
            None => self.held.push((key, dur)),
        }
        Ok(())
    }

    fn upgrade_to_x(&mut self, key: KeyId) -> Result<(), Abort> {
        self.take(key, LockMode::Exclusive)
    }

    #[inline]
    fn end_statement(&mut self) {
        let (lm, txn) = (&self.t.lm, self.txn);
        self.held.retain(|&(k, d)| {
            if d == Dur::Statement {
                let _ = lm.release(txn, ResourceId::new(u64::from(k)));
                false
            } else {
                true
            }
        });
    }

    #[inline]
    fn end_transaction(&mut self) {
        for (k, _) in self.held.drain(..) {
            let _ = self.t.lm.release(self.txn, ResourceId::new(u64::from(k)));
        }
    }
}
