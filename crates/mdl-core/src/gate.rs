//! The grant gate: refusing new grants in chosen namespaces, and counting the locks still
//! granted there, so that a caller can stop a lock manager from handing out locks it can no
//! longer vouch for and then wait until the locks it already handed out are gone.
//!
//! # Protocol
//!
//! [`MdlManager::close_grants`] sets the namespaces' bits in the manager's gate word, then
//! *closes the gate on every lock object* of those namespaces: under the object's write lock it
//! counts as one more obtrusive request (`LockState::gated`). That is what makes the gate free
//! for the statements that never meet it: a closed object has `HAS_OBTRUSIVE` raised, so the
//! fast paths, which already test that bit, send every request to the slow path, and the first
//! closure transfers the per-context fast-path locks into the granted queue exactly as a strong
//! request does (`fast_path.rs`). No new lock-free protocol is involved, and the SR
//! acquire+release fast path has not one instruction more.
//!
//! On the slow path, under the object's write lock, a request of a context that is not
//! [exempt](crate::MdlContext::set_gate_exempt) on a closed object is refused at once with
//! [`MdlError::GrantsClosed`](crate::MdlError::GrantsClosed), and no queued request of such a
//! context is granted by a release; requests that were queued before the gate closed stay
//! queued until they time out, are killed, or the gate opens.
//!
//! Objects created while the gate is closed are closed by their creator, under the partition
//! mutex, before anyone else can find them; the closer reads each partition's objects under the
//! same mutex after setting the bits. So either the creator sees the bit or the closer sees the
//! object. An object that an eviction sweep is checking (`IS_DESTROYED` for a moment) is tried
//! again until it is either closed or gone from the map. Closing and opening are serialized by
//! the gate's own mutex (taken before any partition mutex).
//!
//! [`MdlManager::open_grants`] clears the bits, then opens every closed object of those
//! namespaces and grants the waiters that can go, as a release would.

use std::sync::atomic::AtomicU32;

use parking_lot::Mutex;

use crate::lock::{Env, LockObject};
use crate::manager::MdlManager;
use crate::sync::Ordering;
use crate::types::Namespace;

/// The manager's gate: one bit per namespace whose grants are refused.
#[derive(Default)]
pub(crate) struct Gate {
    closed: AtomicU32,
    change: Mutex<()>,
}

fn bits(namespaces: &[Namespace]) -> u32 {
    namespaces.iter().fold(0, |b, ns| b | 1 << ns.id())
}

impl Gate {
    /// Whether grants in `ns` are refused.
    pub(crate) fn is_closed(&self, ns: Namespace) -> bool {
        self.closed.load(Ordering::SeqCst) & (1 << ns.id()) != 0
    }
}

impl LockObject {
    /// Closes the gate on a new object whose namespace is closed (the creator's half of the
    /// protocol, under the partition mutex). Returns whether the object is now used.
    pub(crate) fn close_if_gated(&self, env: &Env) -> bool {
        if !env.gate.is_closed(self.key.namespace()) {
            return false;
        }
        matches!(
            self.close_gate(env),
            crate::lock::gate::Closed::Now { first_use: true }
        )
    }
}

impl MdlManager {
    /// Refuses new grants in `namespaces` until [`MdlManager::open_grants`]: every request of a
    /// context that is not [gate-exempt](crate::MdlContext::set_gate_exempt) fails at once with
    /// [`MdlError::GrantsClosed`](crate::MdlError::GrantsClosed), and no waiting request of such
    /// a context is granted. Locks already granted stay granted; count them with
    /// [`MdlManager::granted_behind_gate`]. Closing a closed namespace does nothing.
    ///
    /// The statements' fast path pays nothing for the gate (see the module docs of `gate.rs`);
    /// closing walks the lock objects of the manager once.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mdl_core::*;
    ///
    /// let mgr = MdlManager::new(MdlConfig::default())?;
    /// let t = MdlKey::new(Namespace::Table, "test", "t")?;
    /// let sr = MdlRequest::new(t, LockType::SharedRead, LockDuration::Transaction);
    /// let mut conn = mgr.new_context();
    /// conn.acquire(&sr, Duration::from_secs(1))?;
    ///
    /// mgr.close_grants(&[Namespace::Table]);
    /// let mut other = mgr.new_context();
    /// let err = other.acquire(&sr, Duration::from_secs(1)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::GrantsClosed);
    /// assert_eq!(mgr.granted_behind_gate(&[Namespace::Table]), 1); // conn's lock
    /// conn.release_transactional_locks();
    /// assert_eq!(mgr.granted_behind_gate(&[Namespace::Table]), 0);
    ///
    /// mgr.open_grants(&[Namespace::Table]);
    /// other.acquire(&sr, Duration::from_secs(1))?;
    /// # Ok::<(), MdlError>(())
    /// ```
    pub fn close_grants(&self, namespaces: &[Namespace]) {
        let b = bits(namespaces);
        let _change = self.env.gate.change.lock();
        self.env.gate.closed.fetch_or(b, Ordering::SeqCst);
        self.map.for_each(|lock| {
            if b & (1 << lock.key.namespace().id()) == 0 {
                return;
            }
            loop {
                match lock.close_gate(&self.env) {
                    crate::lock::gate::Closed::Now { first_use } => {
                        if first_use && !lock.singleton {
                            self.map.object_used();
                        }
                        break;
                    }
                    crate::lock::gate::Closed::Already => break,
                    crate::lock::gate::Closed::Destroyed => {
                        // A sweep may be checking it (and put it back), or it is evicted.
                        let still = self
                            .map
                            .find(&lock.key)
                            .is_some_and(|l| std::sync::Arc::ptr_eq(&l, lock));
                        if !still {
                            break;
                        }
                        std::thread::yield_now();
                    }
                }
            }
        });
    }

    /// Grants again in `namespaces` after [`MdlManager::close_grants`], and grants the waiting
    /// requests that can now go. Opening an open namespace does nothing.
    pub fn open_grants(&self, namespaces: &[Namespace]) {
        let b = bits(namespaces);
        let _change = self.env.gate.change.lock();
        self.env.gate.closed.fetch_and(!b, Ordering::SeqCst);
        let mut rand = u64::from(b) | 1;
        self.map.for_each(|lock| {
            if b & (1 << lock.key.namespace().id()) != 0
                && lock.open_gate(&self.env)
                && !lock.singleton
            {
                self.map.object_unused(&mut rand);
            }
        });
    }

    /// Whether grants in `ns` are refused ([`MdlManager::close_grants`]).
    pub fn grants_closed(&self, ns: Namespace) -> bool {
        self.env.gate.is_closed(ns)
    }

    /// The locks granted in `namespaces` to contexts that are not gate-exempt: after
    /// [`MdlManager::close_grants`], what is left to wait out (it only goes down while the gate
    /// is closed). Locks held on [`FastPath::SharedWord`](crate::FastPath::SharedWord) counters
    /// name no owner and always count. Walks the manager's lock objects; meant for a closed
    /// gate (on an open one, per-context fast-path locks are not counted).
    pub fn granted_behind_gate(&self, namespaces: &[Namespace]) -> usize {
        let b = bits(namespaces);
        let mut n = 0;
        self.map.for_each(|lock| {
            if b & (1 << lock.key.namespace().id()) != 0 {
                n += lock.granted_to_gated();
            }
        });
        n
    }
}
