//! `performance_schema.accounts`, `users` and `hosts`: connections per account, per user name
//! and per host, live (`CURRENT_CONNECTIONS`) and since the last truncate
//! (`TOTAL_CONNECTIONS`), as `pfs` counts them (`pfs::accounts`: a connection is the
//! session thread its handshake gave an account, `Connection::authenticate`; the NULL row
//! counts the threads without one, the server's own and connections not logged in yet).
//!
//! The columns are MySQL 8.0.31's and later's (the server is an 8.0.45): those of 8.0.30 and
//! the two memory maxima, 0 here (no memory is instrumented). `TRUNCATE TABLE` of each resets
//! as MySQL's does (`table_accounts::delete_all_rows` and its siblings, `pfs::truncate_*`):
//! rows without live connections go, the others count only those; truncating `accounts` adds
//! its totals to `users`' and `hosts'`.

use super::columns::Def;
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The tables.
pub(super) const TABLES: [&str; 3] = ["accounts", "users", "hosts"];

/// `accounts`: `table_accounts.cc` (8.0.31 on). As `setup_actors`' (`columns.rs`), without
/// the character sets.
const ACCOUNTS: [Def; 6] = [
    ("USER", "char(32)"),
    ("HOST", "char(255)"),
    ("CURRENT_CONNECTIONS", "bigint NOT NULL"),
    ("TOTAL_CONNECTIONS", "bigint NOT NULL"),
    ("MAX_SESSION_CONTROLLED_MEMORY", "bigint unsigned NOT NULL"),
    ("MAX_SESSION_TOTAL_MEMORY", "bigint unsigned NOT NULL"),
];

/// `users`: `table_users.cc`, `accounts`' columns but `HOST`.
const USERS: [Def; 5] = [
    ACCOUNTS[0],
    ACCOUNTS[2],
    ACCOUNTS[3],
    ACCOUNTS[4],
    ACCOUNTS[5],
];

/// `hosts`: `table_hosts.cc`, `accounts`' columns but `USER`.
const HOSTS: [Def; 5] = [
    ACCOUNTS[1],
    ACCOUNTS[2],
    ACCOUNTS[3],
    ACCOUNTS[4],
    ACCOUNTS[5],
];

/// The columns of `name`, one of [`TABLES`].
pub(super) fn defs(name: &str) -> &'static [Def] {
    match name {
        "accounts" => &ACCOUNTS,
        "users" => &USERS,
        _ => &HOSTS,
    }
}

/// Fills `performance_schema.<name>`, one of [`TABLES`].
pub(super) fn fill(db: &mut EngineConn, name: &str) -> Result<(), ServerError> {
    match name {
        "accounts" => super::load(db, name, &pfs::accounts()),
        "users" => super::load(db, name, &pfs::users()),
        _ => super::load(db, name, &pfs::hosts()),
    }
}

/// `TRUNCATE TABLE performance_schema.<name>`, one of [`TABLES`].
pub(super) fn truncate(name: &str) {
    match name {
        "accounts" => pfs::truncate_accounts(),
        "users" => pfs::truncate_users(),
        _ => pfs::truncate_hosts(),
    }
}
