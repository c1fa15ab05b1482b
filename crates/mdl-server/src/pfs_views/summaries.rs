//! The summaries by thread, account, user and host: `events_statements_summary_by_thread_by_event_name`,
//! `events_statements_summary_by_{account,user,host}_by_event_name`, the stages' four
//! (`events_stages_summary_by_{thread,account,user,host}_by_event_name`,
//! `table_esgs_by_*_by_event_name.cc`: the stages `stage_event.rs` records), the waits' and the
//! transactions' three by account, user and host (`events_waits_summary_by_thread_by_event_name`
//! and `events_transactions_summary_by_thread_by_event_name` are in `pfs_views.rs`; the
//! transactions' have the read-write and read-only columns of `table_ets_by_account_by_event_name.cc`), as `pfs` aggregates them (`pfs::summary_by_account_by_event_name`: a
//! connection's statements count in its account while it runs and after it ends; the
//! server's own threads, which have no account, under the NULL one, as in `accounts`).
//!
//! The columns are MySQL 8.0's grouping columns, `EVENT_NAME` and the timer columns of
//! `storage/perfschema/table_esms_by_account_by_event_name.cc` and its siblings; the
//! statements' then have the counters `events_statements_summary_global_by_event_name` has
//! here ([`STATEMENT_GLOBAL`]: `SUM_LOCK_TIME` ... `SUM_ROWS_SENT`, `SUM_SELECT_SCAN`,
//! `SUM_SORT_SCAN`, `SUM_NO_INDEX_USED`, in MySQL's order, `PFS_statement_stat_row::set_field`
//! in `table_helper.cc`; not `SUM_ROWS_EXAMINED` and the others SQLite has no source for:
//! `statement_event/engine.rs`).
//! The tables by account, user and host have a row per key and per class, as MySQL's; those by
//! thread only the classes a thread counted, but the stages', which have a row per thread and
//! stage class, as MySQL's.
//!
//! `TRUNCATE TABLE` resets as MySQL's (`table_esms_by_account_by_event_name::delete_all_rows`
//! and its siblings): a table by thread moves its threads' counts into their accounts (the
//! global summary keeps them); one by account also moves the accounts' into their users and
//! hosts, and its accounts without connections lose their rows; one by user (host) also
//! clears the users' (hosts').

use pfs::EventFamily;

use super::columns::Def;
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The tables.
pub(super) const TABLES: [&str; 14] = [
    "events_statements_summary_by_thread_by_event_name",
    "events_statements_summary_by_account_by_event_name",
    "events_statements_summary_by_user_by_event_name",
    "events_statements_summary_by_host_by_event_name",
    "events_waits_summary_by_account_by_event_name",
    "events_waits_summary_by_user_by_event_name",
    "events_waits_summary_by_host_by_event_name",
    "events_transactions_summary_by_account_by_event_name",
    "events_transactions_summary_by_user_by_event_name",
    "events_transactions_summary_by_host_by_event_name",
    "events_stages_summary_by_thread_by_event_name",
    "events_stages_summary_by_account_by_event_name",
    "events_stages_summary_by_user_by_event_name",
    "events_stages_summary_by_host_by_event_name",
];

/// The summaries' timer columns (`columns.rs`' `summary!`).
macro_rules! by {
    ($($first:expr),*) => {
        [
            $($first,)*
            ("EVENT_NAME", "varchar(128) NOT NULL"),
            ("COUNT_STAR", "bigint unsigned NOT NULL"),
            ("SUM_TIMER_WAIT", "bigint unsigned NOT NULL"),
            ("MIN_TIMER_WAIT", "bigint unsigned NOT NULL"),
            ("AVG_TIMER_WAIT", "bigint unsigned NOT NULL"),
            ("MAX_TIMER_WAIT", "bigint unsigned NOT NULL"),
        ]
    };
}

/// The statements' counters after the timer columns (`pfs::StatementSummaryStats`).
const SUMS: [Def; 8] = [
    ("SUM_LOCK_TIME", "bigint unsigned NOT NULL"),
    ("SUM_ERRORS", "bigint unsigned NOT NULL"),
    ("SUM_WARNINGS", "bigint unsigned NOT NULL"),
    ("SUM_ROWS_AFFECTED", "bigint unsigned NOT NULL"),
    ("SUM_ROWS_SENT", "bigint unsigned NOT NULL"),
    ("SUM_SELECT_SCAN", "bigint unsigned NOT NULL"),
    ("SUM_SORT_SCAN", "bigint unsigned NOT NULL"),
    ("SUM_NO_INDEX_USED", "bigint unsigned NOT NULL"),
];

/// [`by!`]'s columns after `$n` grouping columns, then [`SUMS`].
macro_rules! stmt {
    ($n:literal; $($first:expr),*) => {{
        let head: [Def; 6 + $n] = by!($($first),*);
        let mut out = [("", ""); 14 + $n];
        let mut i = 0;
        while i < out.len() {
            out[i] = if i < head.len() { head[i] } else { SUMS[i - head.len()] };
            i += 1;
        }
        out
    }};
}

/// `events_statements_summary_global_by_event_name`: `table_esms_global_by_event_name.cc`.
pub(super) const STATEMENT_GLOBAL: [Def; 14] = stmt!(0;);

/// `USER`: `char(32)`, as `accounts`' (`connections.rs`), nullable as MySQL's.
pub(super) const USER: Def = ("USER", "char(32)");
/// `HOST`: `char(255)`.
pub(super) const HOST: Def = ("HOST", "char(255)");

const BY_THREAD: [Def; 7] = by!(("THREAD_ID", "bigint unsigned NOT NULL"));
const BY_ACCOUNT: [Def; 8] = by!(USER, HOST);
const BY_USER: [Def; 7] = by!(USER);
const BY_HOST: [Def; 7] = by!(HOST);
const STMT_BY_THREAD: [Def; 15] = stmt!(1; ("THREAD_ID", "bigint unsigned NOT NULL"));
const STMT_BY_ACCOUNT: [Def; 16] = stmt!(2; USER, HOST);
const STMT_BY_USER: [Def; 15] = stmt!(1; USER);
const STMT_BY_HOST: [Def; 15] = stmt!(1; HOST);

/// What a table groups by.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum By {
    Thread,
    Account,
    User,
    Host,
}

/// The family and grouping of `name`, one of [`TABLES`] (or the waits' table by thread).
fn parse(name: &str) -> (EventFamily, By) {
    let family = if name.starts_with("events_waits_") {
        EventFamily::Wait
    } else if name.starts_with("events_transactions_") {
        EventFamily::Transaction
    } else if name.starts_with("events_stages_") {
        EventFamily::Stage
    } else {
        EventFamily::Statement
    };
    let by = if name.contains("_by_thread_") {
        By::Thread
    } else if name.contains("_by_account_") {
        By::Account
    } else if name.contains("_by_user_") {
        By::User
    } else {
        By::Host
    };
    (family, by)
}

/// The columns of `name`, one of [`TABLES`].
pub(super) fn defs(name: &str) -> &'static [Def] {
    match parse(name) {
        (EventFamily::Statement, By::Thread) => &STMT_BY_THREAD,
        (EventFamily::Statement, By::Account) => &STMT_BY_ACCOUNT,
        (EventFamily::Statement, By::User) => &STMT_BY_USER,
        (EventFamily::Statement, By::Host) => &STMT_BY_HOST,
        (EventFamily::Transaction, By::User) => &super::columns::TRX_BY_USER,
        (EventFamily::Transaction, By::Host) => &super::columns::TRX_BY_HOST,
        (EventFamily::Transaction, _) => &super::columns::TRX_BY_ACCOUNT,
        (_, By::Thread) => &BY_THREAD,
        (_, By::Account) => &BY_ACCOUNT,
        (_, By::User) => &BY_USER,
        (_, By::Host) => &BY_HOST,
    }
}

/// The columns `pfs`' rows of `name` give, in order (`columns.rs`' test).
#[cfg(test)]
pub(super) fn headers(name: &str) -> &'static [&'static str] {
    use pfs::tables::*;
    match parse(name) {
        (EventFamily::Statement, By::Thread) => StatementSummaryByThreadRow::HEADERS,
        (EventFamily::Statement, By::Account) => StatementSummaryByAccountRow::HEADERS,
        (EventFamily::Statement, By::User) => StatementSummaryByUserRow::HEADERS,
        (EventFamily::Statement, By::Host) => StatementSummaryByHostRow::HEADERS,
        (EventFamily::Transaction, By::User) => TransactionSummaryByUserRow::HEADERS,
        (EventFamily::Transaction, By::Host) => TransactionSummaryByHostRow::HEADERS,
        (EventFamily::Transaction, _) => TransactionSummaryByAccountRow::HEADERS,
        (_, By::Thread) => SummaryByThreadRow::HEADERS,
        (_, By::Account) => SummaryByAccountRow::HEADERS,
        (_, By::User) => SummaryByUserRow::HEADERS,
        (_, By::Host) => SummaryByHostRow::HEADERS,
    }
}

/// Fills `performance_schema.<name>`, one of [`TABLES`].
pub(super) fn fill(db: &mut EngineConn, name: &str) -> Result<(), ServerError> {
    let (family, by) = parse(name);
    if family == EventFamily::Transaction {
        return match by {
            By::User => super::load(db, name, &pfs::transaction_summary_by_user_by_event_name()),
            By::Host => super::load(db, name, &pfs::transaction_summary_by_host_by_event_name()),
            _ => super::load(
                db,
                name,
                &pfs::transaction_summary_by_account_by_event_name(),
            ),
        };
    }
    if family == EventFamily::Statement {
        return match by {
            By::Thread => super::load(db, name, &pfs::statement_summary_by_thread_by_event_name()),
            By::Account => {
                super::load(db, name, &pfs::statement_summary_by_account_by_event_name())
            }
            By::User => super::load(db, name, &pfs::statement_summary_by_user_by_event_name()),
            By::Host => super::load(db, name, &pfs::statement_summary_by_host_by_event_name()),
        };
    }
    match by {
        By::Thread => super::load(db, name, &pfs::summary_by_thread_by_event_name(family)),
        By::Account => super::load(db, name, &pfs::summary_by_account_by_event_name(family)),
        By::User => super::load(db, name, &pfs::summary_by_user_by_event_name(family)),
        By::Host => super::load(db, name, &pfs::summary_by_host_by_event_name(family)),
    }
}

/// Whether `TRUNCATE TABLE performance_schema.<name>` is [`truncate`]'s: one of [`TABLES`] or
/// the waits' table by thread.
pub(super) fn truncates(name: &str) -> bool {
    TABLES.contains(&name) || name == "events_waits_summary_by_thread_by_event_name"
}

/// `TRUNCATE TABLE performance_schema.<name>` (see the module docs).
pub(super) fn truncate(name: &str) {
    let (family, by) = parse(name);
    match by {
        By::Thread => pfs::truncate_events_waits_summary_by_thread_by_event_name(),
        By::Account => pfs::truncate_summary_by_account_by_event_name(family),
        By::User => pfs::truncate_summary_by_user_by_event_name(family),
        By::Host => pfs::truncate_summary_by_host_by_event_name(family),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_the_family_and_the_grouping() {
        assert_eq!(
            parse("events_waits_summary_by_user_by_event_name"),
            (EventFamily::Wait, By::User)
        );
        assert_eq!(
            parse("events_statements_summary_by_thread_by_event_name"),
            (EventFamily::Statement, By::Thread)
        );
        assert_eq!(parse(TABLES[3]), (EventFamily::Statement, By::Host));
        assert_eq!(
            parse("events_stages_summary_by_thread_by_event_name"),
            (EventFamily::Stage, By::Thread)
        );
        assert!(truncates("events_stages_summary_by_account_by_event_name"));
        assert!(truncates("events_waits_summary_by_thread_by_event_name"));
        assert!(!truncates("events_waits_summary_global_by_event_name"));
    }
}
