//! The summaries by thread, account, user and host: MySQL 8.0's
//! `events_{waits,stages,statements}_summary_by_{thread,account,user,host}_by_event_name`
//! (MySQL 8.0 Reference Manual, "Performance Schema Summary Tables"), for the threads that
//! gave their account with [`crate::set_thread_account`] or
//! [`crate::SessionThread::set_account`].
//!
//! A thread's row is its own stats; an account's is what its ended threads carried into it
//! plus its live threads', counted when the table is read; a user's (host's) is its accounts'
//! plus what truncates moved into it (`aggregate_thread_*` in MySQL's
//! `storage/perfschema/pfs_instr.cc`, `PFS_connection_iterator::visit_account` and
//! `visit_user` in `pfs_visitor.cc`). Threads without an account (background threads,
//! sessions before their login) count under a NULL account, user and host, as the connection
//! tables count them ([`crate::accounts`]) and as MariaDB 10.11 shows its background threads'
//! waits in these tables.
//!
//! Nothing is done on the path of an event: a thread's stats are read where it writes them,
//! and carried into its account once, when it ends.
//!
//! The statements' tables have MySQL's counters after the timer columns (`SUM_LOCK_TIME`,
//! `SUM_ERRORS`, `SUM_WARNINGS`, `SUM_ROWS_AFFECTED`, `SUM_ROWS_SENT`: those a statement's
//! end gives, [`crate::StatementOutcome`]) in the `statement_summary_*` readers
//! ([`statement_summary_by_account_by_event_name`], ...); MySQL's other counters
//! (`SUM_ROWS_EXAMINED`, `SUM_SELECT_SCAN`, ...) are not counted here.
//!
//! ```
//! let a = pfs::SessionThread::new("thread/doc/connection", 31);
//! a.set_account("doc_summaries", "hosta");
//! let c = pfs::class!(pfs::ClassKind::Statement, "statement/doc/summaries");
//! for _ in 0..2 {
//!     a.statement_start(c, None).end();
//! }
//! drop(a); // disconnects: its counts stay in its account
//! # #[cfg(feature = "instrumentation")] {
//! let row = pfs::summary_by_account_by_event_name(pfs::EventFamily::Statement)
//!     .rows
//!     .into_iter()
//!     .find(|r| r.user.as_deref() == Some("doc_summaries") && r.event_name == "statement/doc/summaries")
//!     .unwrap();
//! assert_eq!(row.stats.count_star, 2);
//! # }
//! ```
//!
//! # Deviations from PFS
//!
//! * The tables by thread list the classes a thread counted, not every class (but the
//!   stages', which list every stage class of every thread, as MySQL's).
//! * A truncate of a table by thread, account, user or host resets the threads' stats of every
//!   kind, not only the table's (its accounts', users' and hosts' are those of its kind): a
//!   thread keeps one set of cells.
//! * The idle events have no tables by account, user or host here (empty); the transactions'
//!   are [`transaction_summary_by_account_by_event_name`] and its siblings (the
//!   family-generic readers of [`EventFamily::Transaction`] give their timer columns only).

#[cfg(feature = "instrumentation")]
use crate::imp::summary_by_read as read;
use crate::kinds::{ClassKind, EventFamily};
use crate::tables::*;

/// Which classes a summary of `family` counts: the waits' tables count the idle events too,
/// as `events_waits_summary_global_by_event_name` does here.
fn kinds(family: EventFamily) -> impl Fn(ClassKind) -> bool {
    move |k: ClassKind| match family {
        EventFamily::Wait => k.is_wait(),
        EventFamily::Stage | EventFamily::Statement => k.family() == family,
        EventFamily::Transaction => k == ClassKind::Transaction,
        EventFamily::Idle => false,
    }
}

/// The table's name: `events_{family}_summary_by_{by}_by_event_name`.
fn name(family: EventFamily, by: usize) -> &'static str {
    const NAMES: [[&str; 4]; 4] = [
        [
            "events_waits_summary_by_thread_by_event_name",
            "events_waits_summary_by_account_by_event_name",
            "events_waits_summary_by_user_by_event_name",
            "events_waits_summary_by_host_by_event_name",
        ],
        [
            "events_stages_summary_by_thread_by_event_name",
            "events_stages_summary_by_account_by_event_name",
            "events_stages_summary_by_user_by_event_name",
            "events_stages_summary_by_host_by_event_name",
        ],
        [
            "events_statements_summary_by_thread_by_event_name",
            "events_statements_summary_by_account_by_event_name",
            "events_statements_summary_by_user_by_event_name",
            "events_statements_summary_by_host_by_event_name",
        ],
        [
            "events_transactions_summary_by_thread_by_event_name",
            "events_transactions_summary_by_account_by_event_name",
            "events_transactions_summary_by_user_by_event_name",
            "events_transactions_summary_by_host_by_event_name",
        ],
    ];
    let f = match family {
        EventFamily::Stage => 1,
        EventFamily::Statement => 2,
        EventFamily::Transaction => 3,
        _ => 0,
    };
    NAMES[f][by]
}

/// `events_{family}_summary_by_thread_by_event_name`: live threads, the classes they counted;
/// the stages' every stage class of every thread, zeros included, as MySQL's
/// (`table_esgs_by_thread_by_event_name.cc`). (For the waits,
/// [`crate::events_waits_summary_by_thread_by_event_name`] is the same.)
pub fn summary_by_thread_by_event_name(family: EventFamily) -> SummaryByThreadByEventName {
    let zeros = family == EventFamily::Stage;
    Table::new(name(family, 0), read::by_thread(kinds(family), zeros))
}

/// `events_{family}_summary_by_account_by_event_name`: a row per account and class of the
/// family, by account.
pub fn summary_by_account_by_event_name(family: EventFamily) -> SummaryByAccount {
    Table::new(name(family, 1), read::by_account(kinds(family)))
}

/// `events_{family}_summary_by_user_by_event_name`: a row per user name and class.
pub fn summary_by_user_by_event_name(family: EventFamily) -> SummaryByUser {
    Table::new(name(family, 2), read::by_user(kinds(family)))
}

/// `events_{family}_summary_by_host_by_event_name`: a row per host and class.
pub fn summary_by_host_by_event_name(family: EventFamily) -> SummaryByHost {
    Table::new(name(family, 3), read::by_host(kinds(family)))
}

/// `TRUNCATE TABLE events_{family}_summary_by_account_by_event_name`: the threads' stats go
/// to their accounts (see [`crate::truncate_events_waits_summary_by_thread_by_event_name`]),
/// then the accounts' to their users and hosts; accounts without live threads have no rows
/// left (`table_esms_by_account_by_event_name::delete_all_rows`).
pub fn truncate_summary_by_account_by_event_name(family: EventFamily) {
    read::truncate_by_account(kinds(family));
}

/// `TRUNCATE TABLE events_{family}_summary_by_user_by_event_name`: as
/// [`truncate_summary_by_account_by_event_name`], then the users count only their live
/// threads (`table_esms_by_user_by_event_name::delete_all_rows`).
pub fn truncate_summary_by_user_by_event_name(family: EventFamily) {
    read::truncate_by_user(kinds(family));
}

/// `TRUNCATE TABLE events_{family}_summary_by_host_by_event_name`: as
/// [`truncate_summary_by_user_by_event_name`], for hosts.
pub fn truncate_summary_by_host_by_event_name(family: EventFamily) {
    read::truncate_by_host(kinds(family));
}

/// `events_transactions_summary_by_account_by_event_name`: a row per account, the
/// read-write and read-only columns of [`crate::events_transactions_summary_global_by_event_name`].
pub fn transaction_summary_by_account_by_event_name() -> TransactionSummaryByAccount {
    Table::new(
        name(EventFamily::Transaction, 1),
        read::transactions_by_account(),
    )
}

/// `events_transactions_summary_by_user_by_event_name`: a row per user name.
pub fn transaction_summary_by_user_by_event_name() -> TransactionSummaryByUser {
    Table::new(
        name(EventFamily::Transaction, 2),
        read::transactions_by_user(),
    )
}

/// `events_transactions_summary_by_host_by_event_name`: a row per host.
pub fn transaction_summary_by_host_by_event_name() -> TransactionSummaryByHost {
    Table::new(
        name(EventFamily::Transaction, 3),
        read::transactions_by_host(),
    )
}

/// `events_statements_summary_global_by_event_name` with its counters after the timer
/// columns (`SUM_LOCK_TIME` ... `SUM_ROWS_SENT`, as `events_statements_summary_by_digest`
/// has them; [`crate::events_statements_summary_global_by_event_name`] has the timer columns
/// only).
pub fn statement_summary_global_by_event_name() -> StatementSummaryGlobal {
    Table::new(
        "events_statements_summary_global_by_event_name",
        read::statements_global(),
    )
}

/// [`summary_by_thread_by_event_name`] of the statements, with their counters.
pub fn statement_summary_by_thread_by_event_name() -> StatementSummaryByThread {
    Table::new(
        name(EventFamily::Statement, 0),
        read::statements_by_thread(),
    )
}

/// [`summary_by_account_by_event_name`] of the statements, with their counters.
pub fn statement_summary_by_account_by_event_name() -> StatementSummaryByAccount {
    Table::new(
        name(EventFamily::Statement, 1),
        read::statements_by_account(),
    )
}

/// [`summary_by_user_by_event_name`] of the statements, with their counters.
pub fn statement_summary_by_user_by_event_name() -> StatementSummaryByUser {
    Table::new(name(EventFamily::Statement, 2), read::statements_by_user())
}

/// [`summary_by_host_by_event_name`] of the statements, with their counters.
pub fn statement_summary_by_host_by_event_name() -> StatementSummaryByHost {
    Table::new(name(EventFamily::Statement, 3), read::statements_by_host())
}

#[cfg(not(feature = "instrumentation"))]
mod read {
    //! Compiled out: no rows.
    use crate::kinds::ClassKind;
    use crate::tables::*;
    pub(crate) fn by_thread(_k: impl Fn(ClassKind) -> bool, _z: bool) -> Vec<SummaryByThreadRow> {
        Vec::new()
    }
    pub(crate) fn by_account(_k: impl Fn(ClassKind) -> bool) -> Vec<SummaryByAccountRow> {
        Vec::new()
    }
    pub(crate) fn by_user(_k: impl Fn(ClassKind) -> bool) -> Vec<SummaryByUserRow> {
        Vec::new()
    }
    pub(crate) fn by_host(_k: impl Fn(ClassKind) -> bool) -> Vec<SummaryByHostRow> {
        Vec::new()
    }
    pub(crate) fn statements_global() -> Vec<StatementSummaryByEventNameRow> {
        Vec::new()
    }
    pub(crate) fn statements_by_thread() -> Vec<StatementSummaryByThreadRow> {
        Vec::new()
    }
    pub(crate) fn statements_by_account() -> Vec<StatementSummaryByAccountRow> {
        Vec::new()
    }
    pub(crate) fn statements_by_user() -> Vec<StatementSummaryByUserRow> {
        Vec::new()
    }
    pub(crate) fn statements_by_host() -> Vec<StatementSummaryByHostRow> {
        Vec::new()
    }
    pub(crate) fn transactions_by_account() -> Vec<TransactionSummaryByAccountRow> {
        Vec::new()
    }
    pub(crate) fn transactions_by_user() -> Vec<TransactionSummaryByUserRow> {
        Vec::new()
    }
    pub(crate) fn transactions_by_host() -> Vec<TransactionSummaryByHostRow> {
        Vec::new()
    }
    pub(crate) fn truncate_by_account(_k: impl Fn(ClassKind) -> bool) {}
    pub(crate) fn truncate_by_user(_k: impl Fn(ClassKind) -> bool) {}
    pub(crate) fn truncate_by_host(_k: impl Fn(ClassKind) -> bool) {}
}
