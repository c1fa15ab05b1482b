//! Transaction events: what MySQL 8.0's `events_transactions_*` tables and their summaries
//! show, for a program that runs transactions (MySQL 8.0 Reference Manual, "Performance Schema
//! Transaction Tables").
//!
//! One instrument, `transaction` (enabled and timed by default), and three consumers,
//! `events_transactions_current` and `_history` (on by default) and `_history_long` (off).
//! A transaction begins where the program's transaction becomes active and ends at its commit
//! or rollback: [`transaction_start`] / [`transaction_end`] on the current thread, or the
//! [`SessionThread`] methods of the same names. A statement begun while one is in progress
//! nests in it (`events_statements_*.NESTING_EVENT_TYPE = 'TRANSACTION'`); the transaction
//! nests in the statement in progress when it began (`NESTING_EVENT_TYPE = 'STATEMENT'`).
//!
//! A statement that is its own transaction (autocommit) ends with
//! [`SessionThread::end_autocommit`]: the transaction is recorded whole at the statement's
//! end, with the statement's own timer readings, so it costs no clock read.
//!
//! ```
//! use pfs::{TransactionMode, TransactionState};
//!
//! let session = pfs::SessionThread::new("thread/doc/connection", 11);
//! let _entered = session.enter();
//! session.transaction_start(TransactionMode::default()); // BEGIN
//! # #[cfg(feature = "instrumentation")] {
//! let row = pfs::events_transactions_current()
//!     .rows
//!     .into_iter()
//!     .find(|r| r.thread_id == session.thread_id())
//!     .unwrap();
//! assert_eq!((row.state.as_str(), row.access_mode.as_str()), ("ACTIVE", "READ WRITE"));
//! # }
//! session.transaction_savepoint(pfs::Savepoint::Set);
//! session.transaction_end(TransactionState::Committed); // COMMIT
//! # #[cfg(feature = "instrumentation")] {
//! let h = pfs::events_transactions_history().rows;
//! let row = h.iter().find(|r| r.thread_id == session.thread_id()).unwrap();
//! assert_eq!((row.state.as_str(), row.number_of_savepoints), ("COMMITTED", 1));
//! # }
//! ```
//!
//! # Deviations from PFS
//!
//! * No XA, GTID, storage-engine transaction id or source line: `XID_*`, `XA_STATE`, `GTID`,
//!   `TRX_ID`, `SOURCE` are NULL.
//! * A statement that is its own transaction lends it its start and end (MySQL's begins a
//!   little after the statement and ends a little before it), and its `EVENT_ID` follows the
//!   statement's `END_EVENT_ID`.
//! * Transactions are timed with the statements' clock by default (`setup_timers`), as the
//!   statements are here; MySQL 8.0 times both in nanoseconds.
//! * Only the global and by-thread summaries (no by account, user or host).

use serde::Serialize;

use crate::session::{PendingStatement, SessionThread};
use crate::tables::*;
use crate::StatementOutcome;

/// `ISOLATION_LEVEL`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum IsolationLevel {
    /// `READ UNCOMMITTED`.
    ReadUncommitted = 0,
    /// `READ COMMITTED`.
    ReadCommitted = 1,
    /// `REPEATABLE READ` (MySQL's default).
    #[default]
    RepeatableRead = 2,
    /// `SERIALIZABLE`.
    Serializable = 3,
}

impl IsolationLevel {
    /// The level as the `ISOLATION_LEVEL` column shows it.
    pub const fn name(self) -> &'static str {
        match self {
            IsolationLevel::ReadUncommitted => "READ UNCOMMITTED",
            IsolationLevel::ReadCommitted => "READ COMMITTED",
            IsolationLevel::RepeatableRead => "REPEATABLE READ",
            IsolationLevel::Serializable => "SERIALIZABLE",
        }
    }

    #[cfg_attr(not(feature = "instrumentation"), allow(dead_code))]
    pub(crate) fn from_bits(b: u8) -> IsolationLevel {
        match b & 3 {
            0 => IsolationLevel::ReadUncommitted,
            1 => IsolationLevel::ReadCommitted,
            2 => IsolationLevel::RepeatableRead,
            _ => IsolationLevel::Serializable,
        }
    }
}

/// What a transaction is: `ACCESS_MODE`, `ISOLATION_LEVEL`, `AUTOCOMMIT`. The default is
/// MySQL's: read-write, `REPEATABLE READ`, not autocommit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct TransactionMode {
    /// `ACCESS_MODE = 'READ ONLY'` (`START TRANSACTION READ ONLY`); counted in the summaries'
    /// `*_READ_ONLY` columns, else in `*_READ_WRITE`.
    pub read_only: bool,
    /// `ISOLATION_LEVEL`.
    pub isolation: IsolationLevel,
    /// `AUTOCOMMIT = 'YES'`: a statement's own transaction.
    pub autocommit: bool,
}

/// `STATE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum TransactionState {
    /// `ACTIVE`: in progress.
    Active = 0,
    /// `COMMITTED`.
    Committed = 1,
    /// `ROLLED BACK`.
    RolledBack = 2,
}

/// A savepoint statement in a transaction (`NUMBER_OF_*` columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Savepoint {
    /// `SAVEPOINT`.
    Set,
    /// `ROLLBACK TO SAVEPOINT`.
    RollbackTo,
    /// `RELEASE SAVEPOINT`.
    Release,
}

#[cfg(feature = "instrumentation")]
mod imp {
    pub(crate) use crate::imp::thread::current;
    pub(crate) use crate::imp::transaction::{end, savepoint, start};
}

/// `MYSQL_START_TRANSACTION` on the current thread: a transaction of `mode` begins now,
/// nested in the statement in progress. Ignored while one is in progress. Returns whether it
/// is recorded (the instrument enabled for this thread).
pub fn transaction_start(mode: TransactionMode) -> bool {
    #[cfg(feature = "instrumentation")]
    return imp::current().is_some_and(|t| imp::start(t, mode));
    #[cfg(not(feature = "instrumentation"))]
    {
        let _ = mode;
        false
    }
}

/// `MYSQL_COMMIT_TRANSACTION` / `MYSQL_ROLLBACK_TRANSACTION` on the current thread: the
/// transaction in progress ends now, `Committed` or `RolledBack`.
pub fn transaction_end(state: TransactionState) {
    #[cfg(feature = "instrumentation")]
    if let Some(t) = imp::current() {
        imp::end(t, state);
    }
    #[cfg(not(feature = "instrumentation"))]
    let _ = state;
}

/// A savepoint statement in the current thread's transaction in progress.
pub fn transaction_savepoint(which: Savepoint) {
    #[cfg(feature = "instrumentation")]
    if let Some(t) = imp::current() {
        imp::savepoint(t, which as u32);
    }
    #[cfg(not(feature = "instrumentation"))]
    let _ = which;
}

impl SessionThread {
    /// [`transaction_start`] on this session (the session entered here, or not).
    pub fn transaction_start(&self, mode: TransactionMode) -> bool {
        #[cfg(feature = "instrumentation")]
        return self.record().slot().is_some_and(|t| imp::start(t, mode));
        #[cfg(not(feature = "instrumentation"))]
        {
            let _ = mode;
            false
        }
    }

    /// [`transaction_end`] on this session.
    pub fn transaction_end(&self, state: TransactionState) {
        #[cfg(feature = "instrumentation")]
        if let Some(t) = self.record().slot() {
            imp::end(t, state);
        }
        #[cfg(not(feature = "instrumentation"))]
        let _ = state;
    }

    /// [`transaction_savepoint`] on this session.
    pub fn transaction_savepoint(&self, which: Savepoint) {
        #[cfg(feature = "instrumentation")]
        if let Some(t) = self.record().slot() {
            imp::savepoint(t, which as u32);
        }
        #[cfg(not(feature = "instrumentation"))]
        let _ = which;
    }

    /// Is a transaction event in progress on this session (begun with
    /// [`transaction_start`](Self::transaction_start), recorded, not yet ended)?
    #[inline]
    pub fn in_transaction(&self) -> bool {
        #[cfg(feature = "instrumentation")]
        return self.record().slot().is_some_and(|t| t.trx.in_progress());
        #[cfg(not(feature = "instrumentation"))]
        false
    }

    /// Ends `statement` (as [`PendingStatement::end_with`]) that ran as its own transaction
    /// under autocommit, and records that transaction, `mode`, ended in `state`: nested in the
    /// statement, timed with the statement's start and end (one clock reading of its own when
    /// the statement was not timed on the transactions' clock). Nothing more while a
    /// transaction is in progress on the session.
    ///
    /// ```
    /// use pfs::{TransactionMode, TransactionState};
    /// let select = pfs::register_class(pfs::ClassKind::Statement, "statement/doc/autocommit");
    /// let session = pfs::SessionThread::new("thread/doc/connection", 12);
    /// let statement = session.statement_start(select, None);
    /// let mode = TransactionMode { autocommit: true, ..TransactionMode::default() };
    /// session.end_autocommit(statement, &pfs::StatementOutcome::ok(1, 0), mode, TransactionState::Committed);
    /// # #[cfg(feature = "instrumentation")] {
    /// let row = pfs::events_transactions_summary_by_thread_by_event_name()
    ///     .rows
    ///     .into_iter()
    ///     .find(|r| r.thread_id == session.thread_id())
    ///     .unwrap();
    /// assert_eq!((row.stats.all.count_star, row.stats.count_read_write), (1, 1));
    /// # }
    /// ```
    #[inline]
    pub fn end_autocommit(
        &self,
        statement: PendingStatement,
        outcome: &StatementOutcome<'_>,
        mode: TransactionMode,
        state: TransactionState,
    ) {
        #[cfg(feature = "instrumentation")]
        statement
            .inner
            .end_autocommit(outcome, self.record(), mode, state);
        #[cfg(not(feature = "instrumentation"))]
        {
            let _ = (mode, state);
            statement.end_with(outcome);
        }
    }
}

/// `events_transactions_current`: per live thread, the transaction in progress, else the last.
pub fn events_transactions_current() -> EventsTransactions {
    Table::new("events_transactions_current", read::events(false))
}

/// `events_transactions_history`: the last `transactions_history_size` ended transactions of
/// each live thread.
pub fn events_transactions_history() -> EventsTransactions {
    Table::new("events_transactions_history", read::events(true))
}

/// `events_transactions_history_long`: the last `transactions_history_long_size` ended
/// transactions of all threads (its consumer is off by default).
pub fn events_transactions_history_long() -> EventsTransactions {
    Table::new("events_transactions_history_long", read::history_long())
}

/// `events_transactions_summary_global_by_event_name`: one row, `transaction`. Reset by
/// [`crate::truncate_events_waits_summary_global_by_event_name`] with the other summaries.
pub fn events_transactions_summary_global_by_event_name() -> Table<TransactionSummaryByEventNameRow>
{
    Table::new(
        "events_transactions_summary_global_by_event_name",
        read::summary_global(),
    )
}

/// `events_transactions_summary_by_thread_by_event_name`: a row per live thread.
pub fn events_transactions_summary_by_thread_by_event_name() -> Table<TransactionSummaryByThreadRow>
{
    Table::new(
        "events_transactions_summary_by_thread_by_event_name",
        read::summary_by_thread(),
    )
}

#[cfg(feature = "instrumentation")]
use crate::imp::trx_read as read;

#[cfg(not(feature = "instrumentation"))]
mod read {
    //! Compiled out: no rows.
    use crate::tables::*;
    pub(crate) fn events(_history: bool) -> Vec<TransactionEventRow> {
        Vec::new()
    }
    pub(crate) fn history_long() -> Vec<TransactionEventRow> {
        Vec::new()
    }
    pub(crate) fn summary_global() -> Vec<TransactionSummaryByEventNameRow> {
        Vec::new()
    }
    pub(crate) fn summary_by_thread() -> Vec<TransactionSummaryByThreadRow> {
        Vec::new()
    }
}
