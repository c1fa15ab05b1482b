//! Who holds and who waits: the manager's read-only views of its own state (`find_lock_owner`,
//! `slow_path_locks`, `lock_waits`, `blocking_contexts`, `deadlocks`, `wait_counters`).
//!
//! Each view reads under the locks that protect what it reads — the wait-for graph's mutex for
//! the edges, each lock object's `read_recursive` lock for its queues, the slot table with plain
//! loads — and holds a lock object's lock no longer than a lock object's critical section takes
//! anyway. Nothing here runs on the acquire or release path, and all of it is available with
//! instrumentation compiled out: these are lock-manager facts.

use std::sync::Arc;

use crate::blocking::{Blocker, DeadlockRecord, LockWait, LockWaits};
use crate::key::MdlKey;
use crate::lock::IS_DESTROYED;
use crate::manager::MdlManager;
use crate::sync::Ordering;
use crate::types::{ContextId, LockType, Namespace};

/// A granted or pending slow-path ticket ([`MdlManager::slow_path_locks`]).
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LockEntryInfo {
    /// The locked name.
    pub key: MdlKey,
    /// The granted or requested type.
    pub lock_type: LockType,
    /// Granted (true) or pending.
    pub granted: bool,
    /// The owning context.
    pub context: ContextId,
    /// The ticket's id (unique among live tickets of the manager).
    pub ticket_id: u64,
}

/// Waits, timeouts, deadlocks and kills in one namespace since the manager was created
/// ([`MdlManager::wait_counters`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct WaitCounters {
    /// The namespace.
    pub namespace: Namespace,
    /// Requests that waited (whatever the outcome).
    pub waits: u64,
    /// Waits that timed out.
    pub timeouts: u64,
    /// Waits that ended as deadlock victims.
    pub deadlocks: u64,
    /// Waits that were killed.
    pub kills: u64,
}

impl MdlManager {
    /// A context holding a granted lock on `key`, if any (MySQL's `find_lock_owner`): the first
    /// granted queue entry, else the first [`crate::FastPath::PerContext`] slot that holds it.
    /// [`crate::FastPath::SharedWord`] counters name no owner, so locks held that way are not
    /// seen (as in MySQL).
    pub fn find_lock_owner(&self, key: &MdlKey) -> Option<ContextId> {
        loop {
            let lock = self.map.find(key)?;
            let st = lock.state.read_recursive();
            if lock.word.load(Ordering::Acquire) & IS_DESTROYED != 0 {
                continue;
            }
            if let Some(e) = st.granted().next() {
                return Some(ContextId(e.ctx.id));
            }
            return lock
                .slot_holders(&self.env)
                .first()
                .map(|(c, _, _)| ContextId(c.id));
        }
    }

    /// The slow-path tickets of every lock object, granted and pending: what
    /// `performance_schema.metadata_locks` shows, minus the locks held on a fast path.
    pub fn slow_path_locks(&self) -> Vec<LockEntryInfo> {
        let mut rows = Vec::new();
        self.map.for_each(|lock| {
            let st = lock.state.read_recursive();
            for e in st.granted().chain(st.waiting()) {
                rows.push(LockEntryInfo {
                    key: lock.key.clone(),
                    lock_type: e.ty,
                    granted: e.granted,
                    context: ContextId(e.ctx.id),
                    ticket_id: e.ticket_id,
                });
            }
        });
        rows
    }

    /// Who blocks whom: one row per (waiting request, blocker), oldest wait first, in the
    /// manner of MySQL's `sys.schema_table_lock_waits` — the object, the waiting context and
    /// its request, how long it has waited, and each context blocking it with the lock it holds
    /// (hard) or requests ahead of it by priority (soft). `Display` renders it as the `mysql`
    /// client does; [`LockWaits::root_blockers`] names the contexts to kill to clear a pile-up.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mdl_core::*;
    ///
    /// let mgr = MdlManager::new(MdlConfig::default())?;
    /// let t = MdlKey::new(Namespace::Table, "test", "t")?;
    /// let mut reader = mgr.new_context();
    /// reader.set_label("long transaction");
    /// reader.acquire(&MdlRequest::new(t.clone(), LockType::SharedRead, LockDuration::Transaction),
    ///                Duration::from_secs(1))?;
    /// let m = mgr.clone();
    /// let alter = std::thread::spawn(move || {
    ///     let mut ddl = m.new_context();
    ///     ddl.acquire(&MdlRequest::new(t, LockType::Exclusive, LockDuration::Transaction),
    ///                 Duration::from_secs(10)).map(|_| ())
    /// });
    /// while mgr.lock_waits().rows.is_empty() {
    ///     std::thread::yield_now();
    /// }
    /// let waits = mgr.lock_waits();
    /// assert_eq!(waits.rows[0].blocker.context, Some(reader.id()));
    /// assert_eq!(waits.root_blockers(), vec![(reader.id(), 1)]);
    /// println!("{waits}");
    /// reader.release_transactional_locks();
    /// alter.join().unwrap()?;
    /// # Ok::<(), MdlError>(())
    /// ```
    pub fn lock_waits(&self) -> LockWaits {
        let mut waits = Vec::new();
        self.graph.for_each(|e| {
            waits.push((
                e.waiter.clone(),
                e.lock.clone(),
                e.entry,
                e.ty,
                e.duration,
                e.since,
            ))
        });
        waits.sort_by_key(|w| w.5);
        let mut rows = Vec::new();
        for (waiter, lock, entry, ty, duration, since) in waits {
            for blocker in self.blockers_of_wait(waiter.serial, &lock, entry, ty) {
                rows.push(LockWait {
                    key: lock.key.clone(),
                    waiting: ContextId(waiter.id),
                    waiting_label: waiter.label(),
                    requested: ty,
                    requested_duration: duration,
                    waited: since.elapsed(),
                    blocker,
                });
            }
        }
        LockWaits { rows }
    }

    /// The blockers of a context's pending request, like PostgreSQL's `pg_blocking_pids`:
    /// contexts holding a conflicting lock (hard) and contexts whose pending requests have
    /// priority over it (soft). Empty if the context is not waiting.
    pub fn blocking_contexts(&self, context: ContextId) -> Vec<Blocker> {
        let Some(serial) = self.env.registry.by_id(context.0).map(|c| c.serial) else {
            return Vec::new();
        };
        let Some((lock, entry, ty)) = self
            .graph
            .with_edge(serial, |e| (e.lock.clone(), e.entry, e.ty))
        else {
            return Vec::new();
        };
        self.blockers_of_wait(serial, &lock, entry, ty)
    }

    /// The blockers of a pending entry, if it is still pending.
    fn blockers_of_wait(
        &self,
        waiter: u64,
        lock: &Arc<crate::lock::LockObject>,
        entry: usize,
        ty: LockType,
    ) -> Vec<Blocker> {
        let st = lock.state.read_recursive();
        match st.entries.get(entry) {
            Some(e) if !e.granted && e.ctx.serial == waiter => lock.blockers(&st, waiter, ty),
            _ => Vec::new(),
        }
    }

    /// The last deadlocks the manager found and broke, oldest first (at most
    /// [`crate::MdlConfig::deadlock_history`]): when, the cycle edge by edge with each waiter's
    /// weight, and the victim.
    pub fn deadlocks(&self) -> Vec<Arc<DeadlockRecord>> {
        self.graph.history()
    }

    /// Waits, timeouts, deadlocks and kills per namespace, for the namespaces that had waits.
    pub fn wait_counters(&self) -> Vec<WaitCounters> {
        Namespace::ALL
            .into_iter()
            .map(|ns| {
                let [waits, timeouts, deadlocks, kills] = self.graph.counters(ns);
                WaitCounters {
                    namespace: ns,
                    waits,
                    timeouts,
                    deadlocks,
                    kills,
                }
            })
            .filter(|c| c.waits > 0)
            .collect()
    }
}
