//! Prepared statements: `performance_schema.prepared_statements_instances`, a row per live
//! prepared statement of a session, with its executions' statistics (MySQL's
//! `table_prepared_stmt_instances.cc`).
//!
//! The server makes a [`PreparedStatement`] when it prepares a statement
//! ([`SessionThread::prepared_statement`]) and keeps it with the statement: dropping it (the
//! statement closed, deallocated, or its session gone) takes the row away. An execution's
//! statement event names it ([`PendingStatement::set_prepared`], one store): the event's end
//! adds the execution to the row, as it adds it to the digest's statistics, in a cell the
//! session alone writes; no lock, no lookup. Compiled out, both are zero-sized and the table
//! is empty.
//!
//! ```
//! let session = pfs::SessionThread::new("thread/doc/connection", 11);
//! let select = pfs::register_class(pfs::ClassKind::Statement, "statement/doc/prepared");
//! pfs::set_instruments("statement/doc/%", true, true)?;
//! let ps = session.prepared_statement(None, 1, Some("s"), "SELECT ?", Default::default());
//! let mut statement = session.statement_start(select, None);
//! statement.set_prepared(ps.executions());
//! statement.end_with(&pfs::StatementOutcome::ok(1, 0));
//! # #[cfg(feature = "instrumentation")] {
//! let rows = pfs::prepared_statements_instances().rows;
//! let row = rows.iter().find(|r| r.owner_thread_id == session.thread_id()).unwrap();
//! assert_eq!((row.statement_name.as_deref(), row.count_execute), (Some("s"), 1));
//! # }
//! drop(ps);
//! assert!(pfs::prepared_statements_instances()
//!     .rows
//!     .iter()
//!     .all(|r| r.owner_thread_id != session.thread_id()));
//! # Ok::<(), pfs::PfsError>(())
//! ```

use std::time::Duration;

use crate::backend::prepared as imp;
use crate::tables::{PreparedStatementRow, Table};
use crate::{ClassRef, PendingStatement, SessionThread};

/// A live prepared statement's row in [`prepared_statements_instances`]; the row goes when
/// this drops. Without a row (not instrumented when prepared, the table full, or compiled
/// out) it records nothing.
pub struct PreparedStatement {
    inner: imp::Handle,
}

/// Where an execution of a [`PreparedStatement`] is counted ([`PreparedStatement::executions`]):
/// `Copy`, to go with the execution to its statement event.
#[derive(Clone, Copy, Default)]
pub struct PreparedRef(imp::Ref);

impl SessionThread {
    /// A row for the statement `statement_id` of this session (`name`: SQL `PREPARE name
    /// FROM ...`'s, `None` for the binary protocol's), prepared from `text` in `prepare_time`
    /// by a statement of `class`. As MySQL's `pfs_create_prepared_stmt_v1`, only when the
    /// preparing statement would be instrumented: its class enabled (`None`: a statement the
    /// caller has no class for, then the `global_instrumentation` consumer decides) on a thread
    /// that is instrumented. Its `OWNER_EVENT_ID` is the session's statement in progress (the
    /// preparing one, begun with [`SessionThread::statement_start`]), or a fresh id when none
    /// has a record. `SQL_TEXT` is cut at [`crate::MAX_SQL_TEXT`] bytes.
    pub fn prepared_statement(
        &self,
        class: Option<ClassRef>,
        statement_id: u64,
        name: Option<&str>,
        text: &str,
        prepare_time: Duration,
    ) -> PreparedStatement {
        let ps = u64::try_from(prepare_time.as_nanos().saturating_mul(1000)).unwrap_or(u64::MAX);
        PreparedStatement {
            inner: imp::create(self.record(), class, statement_id, name, text, ps),
        }
    }
}

impl PreparedStatement {
    /// What an execution's statement event takes ([`PendingStatement::set_prepared`]).
    #[inline(always)]
    pub fn executions(&self) -> PreparedRef {
        PreparedRef(self.inner.executions())
    }
}

impl std::fmt::Debug for PreparedStatement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedStatement").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for PreparedRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedRef").finish_non_exhaustive()
    }
}

impl PendingStatement {
    /// This statement is an execution of `p`: when it ends with
    /// [`end_with`](Self::end_with) (or as its own transaction), its time, lock time, rows,
    /// errors and warnings are added to `p`'s row too. One store; nothing when the statement
    /// is not recorded (as MySQL counts an execution only with a statement locker).
    #[inline(always)]
    pub fn set_prepared(&mut self, p: PreparedRef) {
        self.inner.set_prepared(p.0);
    }
}

/// `prepared_statements_instances`, by `OWNER_THREAD_ID` and `STATEMENT_ID`.
pub fn prepared_statements_instances() -> Table<PreparedStatementRow> {
    Table::new("prepared_statements_instances", imp::rows())
}

/// `TRUNCATE TABLE prepared_statements_instances`: every row stays, its statistics (and
/// `TIMER_PREPARE`) start again from 0.
pub fn truncate_prepared_statements_instances() {
    imp::reset();
}
