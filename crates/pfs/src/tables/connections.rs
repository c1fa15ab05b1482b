//! The connection tables' rows: `accounts`, `users` and `hosts` (MySQL 8.0.31's columns, in its
//! order: `storage/perfschema/table_accounts.cc`, `table_users.cc`, `table_hosts.cc`).

use serde::Serialize;

use super::{concat_headers, CellValue, Row, Table};

table_row! {
    /// The columns the three connection tables end with.
    #[derive(Copy, Default, Eq)]
    pub struct ConnectionStats {
        /// CURRENT_CONNECTIONS: live threads of the account (user, host).
        "CURRENT_CONNECTIONS" => current_connections: u64,
        /// TOTAL_CONNECTIONS: those and the ended ones (since the last truncate).
        "TOTAL_CONNECTIONS" => total_connections: u64,
        /// MAX_SESSION_CONTROLLED_MEMORY (8.0.31): always 0, no memory is instrumented here.
        "MAX_SESSION_CONTROLLED_MEMORY" => max_session_controlled_memory: u64,
        /// MAX_SESSION_TOTAL_MEMORY (8.0.31): always 0, as above.
        "MAX_SESSION_TOTAL_MEMORY" => max_session_total_memory: u64,
    }
}

table_row! {
    /// `accounts`: connections per account. USER and HOST are NULL for the threads that gave
    /// no account (background threads, sessions before their login).
    #[derive(Eq)]
    pub struct AccountRow {
        /// USER.
        "USER" => user: Option<String>,
        /// HOST.
        "HOST" => host: Option<String>,
        ..
        /// The connection counts.
        stats: ConnectionStats,
    }
}

table_row! {
    /// `users`: connections per user name (NULL: threads without an account).
    #[derive(Eq)]
    pub struct UserRow {
        /// USER.
        "USER" => user: Option<String>,
        ..
        /// The connection counts.
        stats: ConnectionStats,
    }
}

table_row! {
    /// `hosts`: connections per host (NULL: threads without an account).
    #[derive(Eq)]
    pub struct HostRow {
        /// HOST.
        "HOST" => host: Option<String>,
        ..
        /// The connection counts.
        stats: ConnectionStats,
    }
}

/// `accounts`.
pub type Accounts = Table<AccountRow>;
/// `users`.
pub type Users = Table<UserRow>;
/// `hosts`.
pub type Hosts = Table<HostRow>;
