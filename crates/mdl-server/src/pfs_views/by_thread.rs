//! `performance_schema.status_by_thread`, `variables_by_thread` and
//! `user_variables_by_thread`: another session's status counters, session variables and `@`
//! variables, one row per connection and name, `THREAD_ID`, `VARIABLE_NAME`, `VARIABLE_VALUE`
//! (MySQL 8.0's `storage/perfschema/table_status_by_thread.cc`,
//! `table_variables_by_thread.cc`, `table_uvar_by_thread.cc`).
//!
//! `THREAD_ID` is the connection's `pfs` session thread, so a join with `threads` on it gives
//! the connection's `PROCESSLIST_ID`; a connection without one (compiled out) has no rows, and
//! one that ended is gone. Rows come by thread, then name.
//!
//! * `status_by_thread`: each connection's session-scope counters, the rows `SHOW SESSION
//!   STATUS` of that connection has of its own (`admin::session_scope`: `Com_*`, `Questions`,
//!   `Queries`; not the server-wide ones, as MySQL leaves its `SHOW_SCOPE_GLOBAL` variables
//!   out), read from the counters each connection keeps in its `ConnInfo` (`status.rs`).
//! * `variables_by_thread`: each connection's `SHOW SESSION VARIABLES` rows (`admin::variables`)
//!   from the values it last published (`published.rs`: at each `SET`), but `warning_count`
//!   and `error_count`, which change with every statement and are not published.
//! * `user_variables_by_thread`: each connection's `@` variables as it last published them,
//!   names lowercased, values as text (`NULL` for NULL).

use rusqlite::types::Value;

use super::{columns::Def, Sources};
use crate::admin;
use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::server::Shared;

/// The tables.
pub(super) const TABLES: [&str; 3] = [
    "status_by_thread",
    "variables_by_thread",
    "user_variables_by_thread",
];

/// `status_by_thread`'s and `variables_by_thread`'s columns.
const BY_THREAD: [Def; 3] = [
    ("THREAD_ID", "bigint unsigned NOT NULL"),
    ("VARIABLE_NAME", "varchar(64) NOT NULL"),
    ("VARIABLE_VALUE", "varchar(1024)"),
];

/// `user_variables_by_thread`'s columns (its value is MySQL's `longblob`, copied as text).
const USER_VARIABLES: [Def; 3] = [
    ("THREAD_ID", "bigint unsigned NOT NULL"),
    ("VARIABLE_NAME", "varchar(64) NOT NULL"),
    ("VARIABLE_VALUE", "longblob"),
];

/// The session variables that change with every statement, so are not published.
const PER_STATEMENT: [&str; 2] = ["error_count", "warning_count"];

/// The columns of `name`, one of [`TABLES`].
pub(super) fn columns(name: &str) -> &'static [Def] {
    match name {
        "user_variables_by_thread" => &USER_VARIABLES,
        _ => &BY_THREAD,
    }
}

/// One connection's rows of a table: its id and its `(name, value)` pairs, by name.
pub type Rows = Vec<(u64, Vec<(String, Option<String>)>)>;

/// Every live connection's rows of `table`, one of [`TABLES`] (see the module docs), by
/// connection id: what [`Sources::by_thread`] gives.
pub(crate) fn rows(shared: &Shared, table: &str) -> Rows {
    let some = |rows: Vec<(String, String)>| rows.into_iter().map(|(n, v)| (n, Some(v)));
    (shared.procs.conns().iter())
        .map(|c| {
            let rows = match table {
                "status_by_thread" => some(admin::session_scope(c.status.counts())).collect(),
                "variables_by_thread" => match c.published.vars() {
                    Some(vars) => some(admin::variables(shared, &vars, false))
                        .filter(|(n, _)| !PER_STATEMENT.contains(&n.as_str()))
                        .collect(),
                    None => Vec::new(),
                },
                _ => c.published.user_vars(),
            };
            (c.id, rows)
        })
        .collect()
}

/// Fills `performance_schema.<name>`, one of [`TABLES`].
pub(super) fn fill(db: &mut EngineConn, name: &str, src: &Sources<'_>) -> Result<(), ServerError> {
    let threads = super::thread_ids();
    let mut rows = Vec::new();
    for (id, vars) in (src.by_thread)(name) {
        let Some(&t) = threads.get(&id) else {
            continue;
        };
        for (n, v) in vars {
            let thread = Value::Integer(t as i64);
            rows.push(vec![
                thread,
                Value::Text(n),
                v.map_or(Value::Null, Value::Text),
            ]);
        }
    }
    // By thread, then name (each connection's rows are by name already).
    rows.sort_by(|a, b| match (&a[0], &b[0]) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    });
    super::copy(db, name, columns(name), rows)
}
