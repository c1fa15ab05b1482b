//! Durations as Rust scopes: [`MdlContext::statement`] and [`MdlContext::transaction`].
//!
//! MySQL ends a statement by releasing every STATEMENT lock, and a transaction (COMMIT,
//! ROLLBACK) by releasing every STATEMENT and TRANSACTION lock; the server calls those releases
//! on every path out of a statement, error paths included. In Rust the early return of `?` (or a
//! dropped future) would skip such a call, so a scope guard makes it: a [`StatementScope`]
//! releases the context's STATEMENT locks when it drops, a [`TransactionScope`] its STATEMENT
//! and TRANSACTION locks. Both borrow the context mutably and dereference to it, so locks are
//! taken through the guard, and a statement can be opened inside a transaction
//! (`tx.statement()`).
//!
//! The guards release by duration, as MySQL does, not by when a lock was taken: a STATEMENT lock
//! taken before the scope opened is released with it too. EXPLICIT locks are never released by
//! a scope (they end with [`MdlContext::release`] or when the context drops).

use std::ops::{Deref, DerefMut};

use super::MdlContext;

/// Releases the context's STATEMENT locks when dropped (see [`MdlContext::statement`]).
#[must_use = "the statement's locks are released when the scope drops"]
#[derive(Debug)]
pub struct StatementScope<'a> {
    ctx: &'a mut MdlContext,
}

/// Releases the context's STATEMENT and TRANSACTION locks when dropped (see
/// [`MdlContext::transaction`]).
#[must_use = "the transaction's locks are released when the scope drops"]
#[derive(Debug)]
pub struct TransactionScope<'a> {
    ctx: &'a mut MdlContext,
}

impl MdlContext {
    /// A statement: every STATEMENT lock of this context is released when the returned guard
    /// drops, however the statement ends (`?`, a panic, a dropped future).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mdl_core::*;
    ///
    /// fn select(ctx: &mut MdlContext, key: &MdlKey) -> Result<()> {
    ///     let mut stmt = ctx.statement();
    ///     let req = MdlRequest::new(key.clone(), LockType::SharedRead, LockDuration::Statement);
    ///     stmt.acquire(&req, Duration::from_secs(1))?;
    ///     // ... an error returned here still releases the lock ...
    ///     Err(MdlError::RefusedByEngine)
    /// }
    ///
    /// let mgr = MdlManager::new(MdlConfig::default())?;
    /// let mut ctx = mgr.new_context();
    /// let t1 = MdlKey::new(Namespace::Table, "test", "t1")?;
    /// assert!(select(&mut ctx, &t1).is_err());
    /// assert!(!ctx.has_locks());
    /// # Ok::<(), MdlError>(())
    /// ```
    ///
    /// Opening a statement clears a query kill that arrived since the last one ended (MySQL's
    /// dispatch clears `KILL_QUERY` before each statement).
    pub fn statement(&mut self) -> StatementScope<'_> {
        self.clear_query_kill();
        StatementScope { ctx: self }
    }

    /// Clears a query kill ([`KillScope::Query`](crate::KillScope::Query)) that arrived since
    /// the last statement ended, as [`MdlContext::statement`] does, for a server that starts a
    /// statement without a scope; a connection kill stays. MySQL's dispatch does this before
    /// each statement (`sql/sql_parse.cc`, `dispatch_command`: `thd->killed == THD::KILL_QUERY`
    /// becomes `NOT_KILLED`).
    pub fn clear_query_kill(&mut self) {
        self.shared.killed.clear_query();
    }

    /// A transaction: every STATEMENT and TRANSACTION lock of this context is released when the
    /// returned guard drops (COMMIT or ROLLBACK). Open statements inside it with
    /// `tx.statement()`.
    pub fn transaction(&mut self) -> TransactionScope<'_> {
        TransactionScope { ctx: self }
    }
}

/// A guard dereferences to its context and releases `$release` when dropped.
macro_rules! scope_guard {
    ($guard:ident, $release:ident) => {
        impl Deref for $guard<'_> {
            type Target = MdlContext;
            fn deref(&self) -> &MdlContext {
                self.ctx
            }
        }

        impl DerefMut for $guard<'_> {
            fn deref_mut(&mut self) -> &mut MdlContext {
                self.ctx
            }
        }

        impl Drop for $guard<'_> {
            fn drop(&mut self) {
                self.ctx.$release();
            }
        }
    };
}

scope_guard!(StatementScope, release_statement_locks);
scope_guard!(TransactionScope, release_transactional_locks);
