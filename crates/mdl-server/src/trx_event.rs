//! A session's `pfs` transaction events (`performance_schema.events_transactions_*`), begun and
//! ended where MySQL's are (`sql/transaction.cc`: `trans_begin`, and `trans_register_ha` at
//! a statement's first use of a transactional table, call `MYSQL_START_TRANSACTION`;
//! `trans_commit` / `trans_rollback`, and an implicit commit, end it). MySQL 8.0 Reference
//! Manual, "Performance Schema Transaction Tables", "Transaction Boundaries":
//!
//! * `BEGIN` / `START TRANSACTION` begins the transaction event during the statement, nested
//!   in it (`NESTING_EVENT_TYPE = 'STATEMENT'`); the statements that follow, `COMMIT` and
//!   `ROLLBACK` included, nest in the transaction (`events_statements_*.NESTING_EVENT_TYPE =
//!   'TRANSACTION'`).
//! * With `autocommit` off, the transaction begins at the first statement that uses a table
//!   (a metadata lock on a table outside `performance_schema`, `information_schema` and
//!   `sys`: SQLite's tables are all transactional, as InnoDB's).
//! * With `autocommit` on, a statement that uses a table is its own transaction, `AUTOCOMMIT =
//!   YES`: `COMMITTED`, or `ROLLED BACK` when it failed. `pfs` records it whole at the
//!   statement's end with the statement's own timer readings (`SessionThread::end_autocommit`),
//!   so an autocommit point select pays one record and one statistics cell, no clock read.
//! * The event ends when the session's transaction does: `COMMIT`, an implicit commit (DDL,
//!   `BEGIN` in a transaction, ...), `ROLLBACK` or a rollback after a deadlock (`ROLLED
//!   BACK`).
//! * `SAVEPOINT`, `ROLLBACK TO SAVEPOINT` and `RELEASE SAVEPOINT` count in
//!   `NUMBER_OF_SAVEPOINTS`, `NUMBER_OF_ROLLBACK_TO_SAVEPOINT`, `NUMBER_OF_RELEASE_SAVEPOINT`.
//!
//! `ISOLATION_LEVEL` is `READ COMMITTED` (the server's: `transaction_isolation`);
//! `ACCESS_MODE` is `READ ONLY` for `START TRANSACTION READ ONLY`. What `pfs` does not keep is
//! NULL (`TRX_ID`, `GTID`, the XA columns, `SOURCE`: see `pfs`'s `transaction` module). A
//! temporary table takes no metadata lock, so a statement that uses only temporary tables
//! begins no transaction (MySQL's InnoDB temporary tables do).

use mdl_core::Namespace;
use mdl_sql::{Plan, SessionState, StatementKind};
use pfs::{IsolationLevel, PendingStatement, SessionThread, TransactionMode, TransactionState};

/// What a statement's plan says about its transaction, taken before it runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Statement {
    kind: Option<StatementKind>,
    /// It uses a table of the engine (see the module docs).
    uses_table: bool,
    /// It commits an open transaction before it runs (a DDL): ending it, even when it then
    /// fails, is a commit.
    commits_before: bool,
}

impl Statement {
    /// The statement planned as `plan` (`None`: it failed to plan).
    #[inline]
    pub(crate) fn of(plan: Option<&Plan>) -> Statement {
        let uses_table = plan.is_some_and(|p| {
            (p.requests.iter()).any(|r| r.key.namespace() == Namespace::Table && !is_view(&r.key))
        });
        Statement {
            kind: plan.map(|p| p.kind),
            uses_table,
            commits_before: plan.is_some_and(|p| p.commits_before),
        }
    }
}

/// Is `key` in one of the server's view schemas (`performance_schema`, ...)? Its bytes, as
/// MySQL lays a key out (namespace, schema, NUL, name, NUL), compared without a UTF-8 check
/// (`MdlKey::schema`'s cost a point select a hundred instructions).
#[inline]
fn is_view(key: &mdl_core::MdlKey) -> bool {
    let b = key.as_bytes();
    crate::engine::VIEW_SCHEMAS.iter().any(|v| {
        let n = v.len();
        b.get(n + 1) == Some(&0)
            && b.get(1..=n)
                .is_some_and(|s| s.eq_ignore_ascii_case(v.as_bytes()))
    })
}

/// Ends the statement's `event` with `outcome`, with the session's transaction event begun,
/// ended or recorded whole as the statement moved the session's transaction (`after`: the
/// session's state now).
#[inline]
pub(crate) fn end(
    thread: &SessionThread,
    event: PendingStatement,
    outcome: &pfs::StatementOutcome<'_>,
    s: Statement,
    after: &SessionState,
) {
    if !thread.in_transaction() && !after.in_transaction {
        // The common case: none before, none after. A statement that used a table was its own.
        if s.uses_table {
            let state = match outcome.errno() {
                0 => TransactionState::Committed,
                _ => TransactionState::RolledBack,
            };
            thread.end_autocommit(event, outcome, mode(after, true), state);
        } else {
            event.end_with(outcome);
        }
        return;
    }
    in_transaction(thread, outcome, s, after);
    event.end_with(outcome);
}

/// A statement in a transaction (the session's, or the event's before it): what it did to the
/// event. It ends before the statement does, and one begun nests in the statement.
#[cold]
#[inline(never)]
fn in_transaction(
    thread: &SessionThread,
    outcome: &pfs::StatementOutcome<'_>,
    s: Statement,
    after: &SessionState,
) {
    let ok = outcome.errno() == 0;
    match s.kind {
        Some(StatementKind::Savepoint) if ok => thread.transaction_savepoint(pfs::Savepoint::Set),
        Some(StatementKind::RollbackToSavepoint) if ok => {
            thread.transaction_savepoint(pfs::Savepoint::RollbackTo)
        }
        Some(StatementKind::ReleaseSavepoint) if ok => {
            thread.transaction_savepoint(pfs::Savepoint::Release)
        }
        _ => {}
    }
    let begins = s.kind == Some(StatementKind::Begin) && after.in_transaction;
    if thread.in_transaction() && (!after.in_transaction || begins) {
        // A rollback, or a failure that ended the transaction (a deadlock's rollback); else a
        // commit, explicit or implicit (a DDL, even one that then failed, a `BEGIN` in a
        // transaction).
        let state = match s.kind {
            Some(StatementKind::Rollback) => TransactionState::RolledBack,
            Some(StatementKind::Commit) => TransactionState::Committed,
            _ if !ok && !s.commits_before => TransactionState::RolledBack,
            _ => TransactionState::Committed,
        };
        thread.transaction_end(state);
    }
    if begins || (after.in_transaction && s.uses_table && !thread.in_transaction()) {
        thread.transaction_start(mode(after, false));
    }
}

/// The session's transaction mode (`autocommit`: a statement's own transaction).
fn mode(after: &SessionState, autocommit: bool) -> TransactionMode {
    TransactionMode {
        read_only: !autocommit && after.read_only,
        isolation: IsolationLevel::ReadCommitted,
        autocommit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_schemas_are_told_by_their_bytes() {
        let key = |s: &str| mdl_core::MdlKey::new(Namespace::Table, s, "t").unwrap();
        for s in ["performance_schema", "sys", "INFORMATION_SCHEMA"] {
            assert!(is_view(&key(s)), "{s}");
        }
        for s in ["sbtest", "sys2", "sy", "performance_schemas", "test"] {
            assert!(!is_view(&key(s)), "{s}");
        }
    }
}
