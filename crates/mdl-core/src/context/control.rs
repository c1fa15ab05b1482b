//! Session control from any thread or task: contexts created with a server's own connection ids,
//! and kills by id ([`MdlManager::kill`]) or through a [`KillHandle`].
//!
//! A kill raises the context's kill flag (`wait.rs`'s `KillFlag`) and wakes its waiter, thread or
//! task; the waiter ends its wait with [`MdlError::Killed`], and every later wait ends the same
//! way while the flag stays raised. A query kill is cleared when the statement ends
//! ([`MdlContext::release_statement_locks`], [`MdlContext::release_transactional_locks`], a
//! statement or transaction scope dropping) and when a new [`MdlContext::statement`] scope opens;
//! a connection kill only by [`MdlContext::reset_kill`]. This is MySQL's `THD::killed`:
//! `KILL QUERY` sets `KILL_QUERY`, which the next statement's dispatch clears, and `KILL` sets
//! `KILL_CONNECTION`, which ends the session (`sql/sql_parse.cc`, `dispatch_command`;
//! `sql/mdl.cc`, `MDL_context::acquire_lock` ends a wait with `ER_QUERY_INTERRUPTED` when the
//! owner is killed).

use std::sync::Arc;

use super::MdlContext;
use crate::error::{MdlError, Result};
use crate::manager::MdlManager;
use crate::owner::MdlOwner;
use crate::shared::ContextShared;
use crate::types::{ContextId, KillScope};

impl MdlManager {
    /// A new context (one per connection), with an id the manager picks.
    pub fn new_context(self: &Arc<Self>) -> MdlContext {
        self.build_context()
            .build()
            .expect("a picked id is never in use")
    }

    /// A new context whose owner receives the notifications of [`MdlOwner`].
    pub fn new_context_with_owner(self: &Arc<Self>, owner: Arc<dyn MdlOwner>) -> MdlContext {
        self.build_context()
            .owner(owner)
            .build()
            .expect("a picked id is never in use")
    }

    /// A new context with id `id` (a server's connection id), so that diagnostics, errors and
    /// [`MdlManager::kill`] use the server's numbers.
    ///
    /// ```
    /// use mdl_core::*;
    /// let mgr = MdlManager::new(MdlConfig::default())?;
    /// let conn = mgr.new_context_with_id(42)?;
    /// assert_eq!(conn.id(), ContextId::new(42));
    /// let err = mgr.new_context_with_id(42).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ContextIdInUse);
    /// drop(conn);
    /// assert!(mgr.new_context_with_id(42).is_ok()); // free again
    /// # Ok::<(), MdlError>(())
    /// ```
    ///
    /// # Errors
    /// [`MdlError::ContextIdInUse`] while a live context of this manager has that id, or an
    /// ended one whose [`LockGuard`](crate::LockGuard)s are not all dropped yet: their locks
    /// are shown under that id (in [`MdlManager::lock_waits`], `metadata_locks`, errors), so
    /// it names no other connection until they are gone.
    pub fn new_context_with_id(self: &Arc<Self>, id: u64) -> Result<MdlContext> {
        self.build_context().id(id).build()
    }

    /// A context with more than one of the choices above: an id and an owner.
    pub fn build_context(self: &Arc<Self>) -> ContextBuilder {
        ContextBuilder {
            mgr: self.clone(),
            id: None,
            owner: None,
            #[cfg(feature = "pfs")]
            pfs_thread: None,
        }
    }

    /// Kills the context with id `id` from any thread or task: its current wait ends with
    /// [`MdlError::Killed`], and so does every later one until the statement ends
    /// ([`KillScope::Query`], MySQL's `KILL QUERY`) or until the context resets it
    /// ([`KillScope::Connection`], MySQL's `KILL`). A query kill never weakens a connection kill.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mdl_core::*;
    ///
    /// let mgr = MdlManager::new(MdlConfig::default())?;
    /// let t = MdlKey::new(Namespace::Table, "test", "t")?;
    /// let mut holder = mgr.new_context();
    /// holder.acquire(&MdlRequest::new(t.clone(), LockType::SharedRead, LockDuration::Transaction),
    ///                Duration::ZERO)?;
    /// let m = mgr.clone();
    /// let alter = std::thread::spawn(move || {
    ///     let mut ddl = m.new_context_with_id(7)?;
    ///     let x = MdlRequest::new(t, LockType::Exclusive, LockDuration::Transaction);
    ///     ddl.acquire(&x, Duration::from_secs(3600)).map(|_| ())
    /// });
    /// while mgr.lock_waits().rows.is_empty() {
    ///     std::thread::yield_now();
    /// }
    /// mgr.kill(ContextId::new(7), KillScope::Query)?;      // KILL QUERY 7
    /// assert_eq!(alter.join().unwrap().unwrap_err().kind(), ErrorKind::Killed);
    /// # Ok::<(), MdlError>(())
    /// ```
    ///
    /// # Errors
    /// [`MdlError::UnknownContext`] if no live context has the id.
    pub fn kill(&self, id: ContextId, scope: KillScope) -> Result<()> {
        let shared = self
            .env
            .registry
            .by_id(id.0)
            .ok_or(MdlError::UnknownContext(id))?;
        kill(&shared, scope);
        Ok(())
    }
}

/// Raises a kill on a context and wakes its waiter.
fn kill(shared: &ContextShared, scope: KillScope) {
    shared.killed.raise(scope);
    shared.wait.wake();
}

/// Builds a context with a chosen id and/or owner ([`MdlManager::build_context`]).
#[must_use = "a builder does nothing until `build`"]
pub struct ContextBuilder {
    mgr: Arc<MdlManager>,
    id: Option<u64>,
    owner: Option<Arc<dyn MdlOwner>>,
    #[cfg(feature = "pfs")]
    pfs_thread: Option<pfs::SessionThread>,
}

impl ContextBuilder {
    /// The context's id (see [`MdlManager::new_context_with_id`]).
    pub fn id(mut self, id: u64) -> ContextBuilder {
        self.id = Some(id);
        self
    }

    /// The context's owner (see [`MdlManager::new_context_with_owner`]).
    pub fn owner(mut self, owner: Arc<dyn MdlOwner>) -> ContextBuilder {
        self.owner = Some(owner);
        self
    }

    /// The session thread the context's waits are recorded on (see
    /// [`MdlContext::bind_pfs_thread`]).
    #[cfg(feature = "pfs")]
    #[cfg_attr(docsrs, doc(cfg(feature = "pfs")))]
    pub fn pfs_thread(mut self, thread: pfs::SessionThread) -> ContextBuilder {
        self.pfs_thread = Some(thread);
        self
    }

    /// The context.
    ///
    /// # Errors
    /// [`MdlError::ContextIdInUse`] if an id was chosen and a live context has it.
    pub fn build(self) -> Result<MdlContext> {
        let shared = self.mgr.env.registry.register(self.id, self.owner)?;
        #[allow(unused_mut)]
        let mut ctx = MdlContext::new(self.mgr, shared);
        #[cfg(feature = "pfs")]
        if let Some(t) = self.pfs_thread {
            ctx.bind_pfs_thread(t);
        }
        Ok(ctx)
    }
}

impl std::fmt::Debug for ContextBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextBuilder")
            .field("id", &self.id)
            .field("owner", &self.owner.is_some())
            .finish()
    }
}

/// Kills one context from another thread or task, without a lookup by id (see
/// [`MdlManager::kill`] for the scopes). Keeps the context's shared part alive, not its locks.
#[derive(Clone)]
pub struct KillHandle {
    shared: Arc<ContextShared>,
}

impl KillHandle {
    /// Ends the context's current wait, and later ones as `scope` says, with
    /// [`MdlError::Killed`].
    pub fn kill(&self, scope: KillScope) {
        kill(&self.shared, scope);
    }

    /// The pending kill, if any.
    pub fn pending_kill(&self) -> Option<KillScope> {
        self.shared.killed.scope()
    }

    /// The context this handle kills.
    pub fn context_id(&self) -> ContextId {
        ContextId(self.shared.id)
    }
}

impl std::fmt::Debug for KillHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KillHandle")
            .field("context", &self.shared.id)
            .field("pending_kill", &self.pending_kill())
            .finish()
    }
}

impl MdlContext {
    /// A handle that kills this context's waits from another thread or task.
    pub fn kill_handle(&self) -> KillHandle {
        KillHandle {
            shared: self.shared.clone(),
        }
    }

    /// The pending kill, if any: a server checks it between statements (a connection kill
    /// ends the session).
    pub fn pending_kill(&self) -> Option<KillScope> {
        self.shared.killed.scope()
    }

    /// Clears a kill of either scope, so later waits proceed.
    pub fn reset_kill(&mut self) {
        self.shared.killed.clear();
    }

    /// Binds this context to a session's pfs thread: its waits, blocking or async, are
    /// recorded on that thread whichever OS thread or tokio worker runs them (shown in its
    /// `events_waits_current` while pending, then in its history and summaries), and
    /// `metadata_locks.OWNER_THREAD_ID` names it, instead of the OS thread that created the
    /// context or last waited in it. Replaces an earlier binding.
    ///
    /// ```
    /// use mdl_core::*;
    /// let mgr = MdlManager::new(MdlConfig::default())?;
    /// let session = pfs::SessionThread::new("thread/sql/one_connection", 12);
    /// let mut conn = mgr.new_context_with_id(12)?;
    /// conn.bind_pfs_thread(session.clone());
    /// assert_eq!(conn.pfs_thread().map(|t| t.thread_id()), Some(session.thread_id()));
    /// # Ok::<(), MdlError>(())
    /// ```
    #[cfg(feature = "pfs")]
    #[cfg_attr(docsrs, doc(cfg(feature = "pfs")))]
    pub fn bind_pfs_thread(&mut self, thread: pfs::SessionThread) {
        self.shared.rows.set_thread(thread.thread_id());
        self.session.thread = Some(thread);
    }

    /// Ends the binding of [`MdlContext::bind_pfs_thread`] and returns the session thread; the
    /// context's waits are then recorded on the thread that waits, as before.
    #[cfg(feature = "pfs")]
    #[cfg_attr(docsrs, doc(cfg(feature = "pfs")))]
    pub fn unbind_pfs_thread(&mut self) -> Option<pfs::SessionThread> {
        self.session.thread.take()
    }

    /// The session thread this context is bound to, if any.
    #[cfg(feature = "pfs")]
    #[cfg_attr(docsrs, doc(cfg(feature = "pfs")))]
    pub fn pfs_thread(&self) -> Option<&pfs::SessionThread> {
        self.session.thread.as_ref()
    }
}
