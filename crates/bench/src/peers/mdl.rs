//! `mdl` itself, in any configuration.

use std::sync::Arc;

use mdl_core::{
    FastPath, LockDuration, LockType, MdlConfig, MdlContext, MdlKey, MdlManager, MdlRequest,
    Namespace, PartitionHash, Ticket, TicketIndex,
};
use serde::Serialize;

use super::{
    Abort, Dur, KeyId, KeySpace, LockTable, Mode, Session, FIRST_TABLE, PEER_LOCK_TIMEOUT,
};

/// The [`MdlConfig`] knobs the reports vary (the rest are MySQL's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MdlSetup {
    /// Lock-map partitions (`metadata_locks_hash_instances`).
    pub shards: usize,
    /// Partition hash: `"murmur3"` or `"mysql_bin"`.
    #[serde(serialize_with = "ser_hash")]
    pub hash: PartitionHash,
    /// Fast path for unobtrusive locks (`off` = 5.6, `shared-word` = 5.7/8.0).
    #[serde(serialize_with = "ser_fast_path")]
    pub fast_path: FastPath,
    /// Ticket store.
    #[serde(serialize_with = "ser_index")]
    pub ticket_index: TicketIndex,
    /// Per-context lock-object cache (`MdlConfig::lock_cache`); 0 sends every lookup through
    /// the partitioned lock map, as MySQL does — needed wherever partitions are compared.
    pub lock_cache: usize,
}

fn ser_hash<S: serde::Serializer>(h: &PartitionHash, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(hash_name(*h))
}

pub(crate) fn ser_fast_path<S: serde::Serializer>(f: &FastPath, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(f.name())
}

fn ser_index<S: serde::Serializer>(i: &TicketIndex, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(i.name())
}

/// `"murmur3"` / `"mysql_bin"`.
pub fn hash_name(h: PartitionHash) -> &'static str {
    h.name()
}

impl Default for MdlSetup {
    /// MySQL 8.0: 8 partitions, MurmurHash3, fast path, hashed ticket store.
    fn default() -> Self {
        MdlSetup {
            shards: 8,
            hash: PartitionHash::Murmur3,
            fast_path: FastPath::SharedWord,
            ticket_index: TicketIndex::Hashed,
            lock_cache: MdlConfig::default().lock_cache,
        }
    }
}

impl MdlSetup {
    /// MySQL 5.6.14: `shards` partitions, `my_hash_sort_bin`, no fast path.
    pub fn mysql_5_6(shards: usize) -> MdlSetup {
        MdlSetup {
            shards,
            hash: PartitionHash::MySqlBin,
            fast_path: FastPath::Off,
            ticket_index: TicketIndex::LinearList,
            lock_cache: 0,
        }
    }

    /// The lock manager configuration.
    pub fn config(&self) -> MdlConfig {
        MdlConfig::builder()
            .shards(self.shards)
            .partition_hash(self.hash)
            .fast_path(self.fast_path)
            .ticket_index(self.ticket_index)
            .lock_cache(self.lock_cache)
            .build()
            .expect("a valid configuration")
    }

    /// A short label.
    pub fn label(&self) -> String {
        format!(
            "mdl {} shards {}{}{}{}",
            self.shards,
            hash_name(self.hash),
            match self.fast_path {
                FastPath::Off => "",
                FastPath::SharedWord => " fast",
                FastPath::PerContext => " per-context",
                other => other.name(),
            },
            if self.ticket_index == TicketIndex::LinearList {
                " linear"
            } else {
                ""
            },
            if self.lock_cache > 0 { " cache" } else { "" }
        )
    }
}

/// An [`MdlManager`] plus the keys of the workload.
pub struct MdlTable {
    mgr: Arc<MdlManager>,
    keys: Vec<MdlKey>,
}

impl MdlTable {
    /// A fresh manager for `setup`.
    pub fn new(setup: &MdlSetup, keys: &KeySpace) -> MdlTable {
        let mgr = MdlManager::new(setup.config()).expect("bench configurations are valid");
        let mut k = vec![
            MdlKey::singleton(Namespace::Global).expect("valid"),
            MdlKey::singleton(Namespace::BackupLock).expect("valid"),
            MdlKey::singleton(Namespace::Commit).expect("valid"),
            MdlKey::new(Namespace::Schema, &keys.schema, "").expect("valid"),
        ];
        for t in &keys.tables {
            k.push(MdlKey::new(Namespace::Table, &keys.schema, t).expect("short names"));
        }
        MdlTable { mgr, keys: k }
    }

    /// The manager (for partition statistics).
    pub fn manager(&self) -> &Arc<MdlManager> {
        &self.mgr
    }
}

/// One context plus its prebuilt requests (built once per session, so the hot loop clones no
/// keys).
pub struct MdlSession {
    ctx: MdlContext,
    /// `[key][mode][duration]`.
    reqs: Vec<[[Option<MdlRequest>; 2]; 4]>,
    upgradable: Option<(KeyId, Ticket)>,
}

fn mode_index(m: Mode) -> usize {
    match m {
        Mode::IX => 0,
        Mode::SR => 1,
        Mode::SW => 2,
        Mode::SU => 3,
    }
}

impl LockTable for MdlTable {
    type Session<'a> = MdlSession;

    fn session(&self) -> MdlSession {
        let reqs = self
            .keys
            .iter()
            .enumerate()
            .map(|(i, key)| {
                let scoped = (i as KeyId) < FIRST_TABLE;
                let mk = |m: Mode, d: LockDuration| {
                    let ty = match m {
                        Mode::IX => LockType::IX,
                        Mode::SR => LockType::SR,
                        Mode::SW => LockType::SW,
                        Mode::SU => LockType::SU,
                    };
                    if scoped == (m == Mode::IX) {
                        Some(MdlRequest::new(key.clone(), ty, d))
                    } else {
                        None
                    }
                };
                [Mode::IX, Mode::SR, Mode::SW, Mode::SU].map(|m| {
                    [
                        mk(m, LockDuration::Statement),
                        mk(m, LockDuration::Transaction),
                    ]
                })
            })
            .collect();
        MdlSession {
            ctx: self.mgr.new_context(),
            reqs,
            upgradable: None,
        }
    }
}

impl Session for MdlSession {
    #[inline]
    fn acquire(&mut self, key: KeyId, mode: Mode, dur: Dur) -> Result<(), Abort> {
        let req = self.reqs[key as usize][mode_index(mode)][dur as usize]
            .as_ref()
            .expect("mode valid for the key's namespace");
        match self.ctx.acquire(req, PEER_LOCK_TIMEOUT) {
            Ok(t) => {
                if mode == Mode::SU {
                    self.upgradable = Some((key, t));
                }
                Ok(())
            }
            Err(_) => Err(Abort),
        }
    }

    fn upgrade_to_x(&mut self, key: KeyId) -> Result<(), Abort> {
        let (k, t) = self.upgradable.expect("SU taken before the upgrade");
        debug_assert_eq!(k, key);
        self.ctx
            .upgrade(t, LockType::X, PEER_LOCK_TIMEOUT)
            .map_err(|_| Abort)
    }

    #[inline]
    fn end_statement(&mut self) {
        self.ctx.release_statement_locks();
    }

    #[inline]
    fn end_transaction(&mut self) {
        self.upgradable = None;
        self.ctx.release_transactional_locks();
    }
}
