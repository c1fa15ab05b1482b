//! Lock managers behind one trait, so the same workload drives `mdl` and its peers (the way
//! parking_lot's benchmark crate puts every mutex behind one trait).
//!
//! The workload speaks in MySQL's terms: scoped locks (GLOBAL, BACKUP_LOCK, COMMIT, the schema)
//! taken in IX mode, and table locks in SR, SW, SU (upgraded to X) modes, each for the
//! statement or the transaction. Each peer maps those modes onto what it has:
//!
//! | workload mode | mdl | global mutex / dashmap (per-key RwLock) | lock-db (MGL) | lockmap |
//! |---|---|---|---|---|
//! | IX (scoped) | IX | read | IX | exclusive |
//! | SR | SR | read | IS | exclusive |
//! | SW | SW | read | IX | exclusive |
//! | SU | SU | read | IS | exclusive |
//! | X (upgrade of SU) | upgrade to X | drop read, take write | upgrade to X | (already exclusive) |
//!
//! Peers with no wait queue or no deadlock detection (lock-db's `try_acquire`, lockmap's
//! `try_entry`) are driven by a retry loop with backoff (`backoff.rs`); every peer gives up after
//! [`PEER_LOCK_TIMEOUT`] and the workload then rolls the transaction back (the way a deadlock
//! victim is handled), so DDL mixes cannot hang. Peers get keys as small integers hashed with
//! ahash, which is cheaper than hashing `mdl`'s key bytes: the comparison favours the peers.

use std::time::Duration;

use mdl_core::FastPath;
use serde::Serialize;

mod backoff;
mod global_mutex;
mod guards;
mod keyed_rwlock;
mod lockdb;
mod lockmap_peer;
mod mdl;

pub use global_mutex::GlobalMutexTable;
pub use keyed_rwlock::DashMapTable;
pub use lockdb::LockDbTable;
pub use lockmap_peer::LockMapTable;
pub(crate) use mdl::ser_fast_path;
pub use mdl::{hash_name, MdlSetup, MdlTable};

/// How long a peer waits for a lock before the transaction is rolled back.
pub const PEER_LOCK_TIMEOUT: Duration = Duration::from_millis(200);

/// A lock mode of the workload (MySQL's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Mode {
    /// Intention exclusive on a scoped lock (GLOBAL, BACKUP_LOCK, COMMIT, SCHEMA).
    IX,
    /// Shared read (SELECT).
    SR,
    /// Shared write (INSERT/UPDATE/DELETE).
    SW,
    /// Shared upgradable (first phase of ALTER TABLE).
    SU,
}

/// How long a lock is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Dur {
    /// Until the end of the statement.
    Statement,
    /// Until commit or rollback.
    Transaction,
}

/// A lock request failed (timeout or deadlock victim): the transaction must be rolled back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abort;

/// The names a workload locks, as dense ids: 0 GLOBAL, 1 BACKUP_LOCK, 2 COMMIT, 3 the schema,
/// then one per table.
#[derive(Debug, Clone)]
pub struct KeySpace {
    /// The schema name.
    pub schema: String,
    /// Table names, `sbtest1` .. `sbtestT` as in sysbench.
    pub tables: Vec<String>,
}

/// A key of a [`KeySpace`].
pub type KeyId = u32;
/// The GLOBAL scoped lock.
pub const GLOBAL: KeyId = 0;
/// The BACKUP_LOCK scoped lock.
pub const BACKUP: KeyId = 1;
/// The COMMIT scoped lock.
pub const COMMIT: KeyId = 2;
/// The schema's scoped lock.
pub const SCHEMA: KeyId = 3;
/// The first table's key.
pub const FIRST_TABLE: KeyId = 4;

impl KeySpace {
    /// `tables` sysbench tables in schema `test`.
    pub fn sysbench(tables: usize) -> KeySpace {
        KeySpace {
            schema: "test".into(),
            tables: (1..=tables).map(|i| format!("sbtest{i}")).collect(),
        }
    }

    /// Number of keys (scoped ones included).
    pub fn len(&self) -> usize {
        FIRST_TABLE as usize + self.tables.len()
    }

    /// Never empty (the scoped keys are always there).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The key of table `i` (0-based).
    pub fn table(&self, i: usize) -> KeyId {
        FIRST_TABLE + i as KeyId
    }
}

/// A lock manager the workload can drive.
pub trait LockTable: Sync {
    /// One connection's handle.
    type Session<'a>: Session
    where
        Self: 'a;
    /// Opens a connection (called on the thread that uses it).
    fn session(&self) -> Self::Session<'_>;
}

/// One connection's locks.
pub trait Session {
    /// Takes `mode` on `key` for `dur`. Taking a key the session already holds is a lookup in
    /// the session's own locks (MySQL's `find_ticket`).
    fn acquire(&mut self, key: KeyId, mode: Mode, dur: Dur) -> Result<(), Abort>;
    /// Upgrades the SU lock held on `key` to exclusive.
    fn upgrade_to_x(&mut self, key: KeyId) -> Result<(), Abort>;
    /// Releases the statement locks.
    fn end_statement(&mut self);
    /// Releases every lock (commit or rollback).
    fn end_transaction(&mut self);
}

/// Which peer, in which configuration (serialisable, for the reports).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum PeerSpec {
    /// `mdl` in one configuration.
    Mdl(MdlSetup),
    /// One global mutex over a map of per-key RwLocks (the pre-MDL `LOCK_open` design).
    GlobalMutex,
    /// A dashmap of per-key RwLocks.
    DashMap,
    /// lock-db 1.0 (`try_acquire` in a retry loop), with `shards` shards.
    LockDb {
        /// Lock-table shards.
        shards: usize,
    },
    /// lockmap 0.2 (exclusive per-key locks, `try_entry` in a retry loop).
    LockMap {
        /// Map shards.
        shards: usize,
    },
}

impl PeerSpec {
    /// A short label for tables and legends.
    pub fn label(&self) -> String {
        match self {
            PeerSpec::Mdl(s) => s.label(),
            PeerSpec::GlobalMutex => "global mutex + RwLocks".into(),
            PeerSpec::DashMap => "dashmap + RwLocks".into(),
            PeerSpec::LockDb { shards } => format!("lock-db ({shards} shards)"),
            PeerSpec::LockMap { shards } => format!("lockmap ({shards} shards, excl.)"),
        }
    }
}

/// Every peer, `mdl` in each fast-path mode first, by short name (`mdl-per-context`,
/// `mdl-shared-word`, `mdl-off`, `global-mutex`, `dashmap`, `lock-db`, `lockmap`), `mdl` first.
pub fn every_peer() -> Vec<(&'static str, PeerSpec)> {
    let mdl = |fast_path| {
        PeerSpec::Mdl(MdlSetup {
            fast_path,
            ..MdlSetup::default()
        })
    };
    vec![
        ("mdl-per-context", mdl(FastPath::PerContext)),
        ("mdl-shared-word", mdl(FastPath::SharedWord)),
        ("mdl-off", mdl(FastPath::Off)),
        ("global-mutex", PeerSpec::GlobalMutex),
        ("dashmap", PeerSpec::DashMap),
        ("lock-db", PeerSpec::LockDb { shards: 8 }),
        ("lockmap", PeerSpec::LockMap { shards: 8 }),
    ]
}

/// Calls `$body` with `$t` bound to a freshly built lock table of `$spec`.
#[macro_export]
macro_rules! with_peer {
    ($spec:expr, $keys:expr, |$t:ident| $body:expr) => {{
        use $crate::peers::*;
        match $spec {
            PeerSpec::Mdl(setup) => {
                let $t = MdlTable::new(setup, $keys);
                $body
            }
            PeerSpec::GlobalMutex => {
                let $t = GlobalMutexTable::new($keys);
                $body
            }
            PeerSpec::DashMap => {
                let $t = DashMapTable::new($keys);
                $body
            }
            PeerSpec::LockDb { shards } => {
                let $t = LockDbTable::new(*shards, $keys);
                $body
            }
            PeerSpec::LockMap { shards } => {
                let $t = LockMapTable::new(*shards, $keys);
                $body
            }
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise<T: LockTable>(t: &T) {
        let mut s = t.session();
        // A read-write transaction with a repeated table.
        s.acquire(5, Mode::SR, Dur::Transaction).unwrap();
        s.acquire(GLOBAL, Mode::IX, Dur::Statement).unwrap();
        s.acquire(5, Mode::SW, Dur::Transaction).unwrap();
        s.end_statement();
        s.acquire(5, Mode::SR, Dur::Transaction).unwrap();
        s.acquire(COMMIT, Mode::IX, Dur::Statement).unwrap();
        s.end_transaction();
        // A DDL.
        s.acquire(GLOBAL, Mode::IX, Dur::Statement).unwrap();
        s.acquire(BACKUP, Mode::IX, Dur::Transaction).unwrap();
        s.acquire(SCHEMA, Mode::IX, Dur::Transaction).unwrap();
        s.acquire(6, Mode::SU, Dur::Transaction).unwrap();
        s.upgrade_to_x(6).unwrap();
        // Another session cannot read the table while X is held.
        {
            let mut other = t.session();
            assert_eq!(other.acquire(6, Mode::SR, Dur::Transaction), Err(Abort));
            other.end_transaction();
        }
        s.end_statement();
        s.end_transaction();
        let mut other = t.session();
        other.acquire(6, Mode::SR, Dur::Transaction).unwrap();
        other.end_transaction();
    }

    #[test]
    fn every_peer_runs_a_transaction_and_a_ddl() {
        let keys = KeySpace::sysbench(4);
        for spec in [
            PeerSpec::Mdl(MdlSetup::default()),
            PeerSpec::Mdl(MdlSetup::mysql_5_6(1)),
            PeerSpec::GlobalMutex,
            PeerSpec::DashMap,
            PeerSpec::LockDb { shards: 8 },
            PeerSpec::LockMap { shards: 8 },
        ] {
            with_peer!(&spec, &keys, |t| exercise(&t));
        }
    }
}
