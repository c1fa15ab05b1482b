//! The connection tables: what MySQL 8.0's `accounts`, `users` and `hosts` show (MySQL 8.0
//! Reference Manual, "Performance Schema Connection Tables"), for the threads that gave their
//! account with [`crate::set_thread_account`] or [`crate::SessionThread::set_account`].
//!
//! A row's `CURRENT_CONNECTIONS` is its live threads, counted when the table is read;
//! `TOTAL_CONNECTIONS` adds its threads that ended (a session thread ends when its last handle
//! drops, an OS thread when it exits), counted at their end. Threads that gave no account
//! (background threads, sessions not logged in yet) count in the row whose USER and HOST are
//! NULL, as MySQL counts its internal threads. Only threads with a slot count (those
//! [`crate::threads`] lists), and nothing is done on the path of an event.
//!
//! ```
//! let a = pfs::SessionThread::new("thread/doc/connection", 21);
//! a.set_account("doc_accounts", "hosta");
//! let b = pfs::SessionThread::new("thread/doc/connection", 22);
//! b.set_account("doc_accounts", "hosta");
//! drop(b); // disconnects
//! # #[cfg(feature = "instrumentation")] {
//! let row = pfs::accounts()
//!     .rows
//!     .into_iter()
//!     .find(|r| r.user.as_deref() == Some("doc_accounts"))
//!     .unwrap();
//! assert_eq!((row.stats.current_connections, row.stats.total_connections), (1, 2));
//! # }
//! ```
//!
//! # Switches
//!
//! As in MySQL, the counts do not depend on `setup_actors` (which decides a session's
//! `INSTRUMENTED` and `HISTORY`, not whether it is counted), on `threads.INSTRUMENTED`, nor on
//! any consumer: MySQL's connection tables have none, only their sizes
//! (`performance_schema_accounts_size`; here [`crate::Sizing::max_accounts`]).
//!
//! # Deviations from PFS
//!
//! * `MAX_SESSION_CONTROLLED_MEMORY` and `MAX_SESSION_TOTAL_MEMORY` (8.0.31) are 0: no memory
//!   is instrumented.
//! * A live thread's row is always shown; the size bounds the rows of ended threads only, and
//!   an end that finds no room is counted in `Performance_schema_{accounts,users,hosts}_lost`.

#[cfg(feature = "instrumentation")]
use crate::imp::conn_read as read;
use crate::tables::*;

/// `accounts`: a row per (user, host) with live or ended threads, the NULL one first.
pub fn accounts() -> Accounts {
    Table::new("accounts", read::accounts())
}

/// `users`: a row per user name.
pub fn users() -> Users {
    Table::new("users", read::users())
}

/// `hosts`: a row per host.
pub fn hosts() -> Hosts {
    Table::new("hosts", read::hosts())
}

/// `TRUNCATE TABLE accounts`: each account's ended threads are added to its user's and host's
/// rows and no longer to its own, so an account without live threads has no row and the
/// others count only those (`purge_all_account`, `storage/perfschema/pfs_account.cc`). As
/// MySQL's, it truncates the summaries by thread and by account too
/// ([`crate::truncate_summary_by_account_by_event_name`], every kind).
pub fn truncate_accounts() {
    read::truncate_accounts();
}

/// `TRUNCATE TABLE users`: as [`truncate_accounts`], then the users count only their live
/// threads (`table_users::delete_all_rows`), in the summaries by user too. The hosts keep
/// their totals.
pub fn truncate_users() {
    read::truncate_users();
}

/// `TRUNCATE TABLE hosts`: as [`truncate_accounts`], then the hosts count only their live
/// threads (`table_hosts::delete_all_rows`), in the summaries by host too. The users keep
/// their totals.
pub fn truncate_hosts() {
    read::truncate_hosts();
}

#[cfg(not(feature = "instrumentation"))]
mod read {
    //! Compiled out: no rows.
    use crate::tables::*;
    pub(crate) fn accounts() -> Vec<AccountRow> {
        Vec::new()
    }
    pub(crate) fn users() -> Vec<UserRow> {
        Vec::new()
    }
    pub(crate) fn hosts() -> Vec<HostRow> {
        Vec::new()
    }
    pub(crate) fn truncate_accounts() {}
    pub(crate) fn truncate_users() {}
    pub(crate) fn truncate_hosts() {}
}
