//! `performance_schema.session_connect_attrs` and `session_account_connect_attrs`: the
//! attributes each connection's client sent in its handshake (`connect_attrs.rs`: how they
//! are read and which are kept), one row per attribute, `PROCESSLIST_ID`, `ATTR_NAME`,
//! `ATTR_VALUE`, `ORDINAL_POSITION` ([`COLUMNS`]).
//!
//! As in MySQL (`storage/perfschema/table_session_connect_attrs.cc`,
//! `table_session_account_connect_attrs.cc`): `session_connect_attrs` lists every
//! connection's; `session_account_connect_attrs` only those of the connections with the
//! asking connection's account, its user and host (`thread_fits`: the host without the
//! client's port). Connections come in id order, each one's attributes in the order the client
//! sent them. sys 8.0's `processlist` reads its `pid` and `program_name` from them
//! (`sys_processlist.rs`).

use rusqlite::types::Value;

use super::Sources;
use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::processlist::Process;
use crate::session_values::host_of;

/// The tables.
pub(super) const TABLES: [&str; 2] = ["session_connect_attrs", "session_account_connect_attrs"];

/// The columns of both: `table_session_connect_attrs.cc`,
/// `table_session_account_connect_attrs.cc` (8.0: `PROCESSLIST_ID` is `BIGINT UNSIGNED`).
pub(super) const COLUMNS: [super::columns::Def; 4] = [
    ("PROCESSLIST_ID", "bigint unsigned NOT NULL"),
    ("ATTR_NAME", "varchar(32) NOT NULL"),
    ("ATTR_VALUE", "varchar(1024)"),
    ("ORDINAL_POSITION", "int"),
];

/// Fills `performance_schema.<name>`, one of [`TABLES`].
pub(super) fn fill(db: &mut EngineConn, name: &str, src: &Sources<'_>) -> Result<(), ServerError> {
    load(db, name, &(src.processes)(), src.session)
}

/// Fills `performance_schema.<name>`, one of [`TABLES`], from `procs`, as the connection
/// `session` sees it.
pub(super) fn load(
    db: &mut EngineConn,
    name: &str,
    procs: &[Process],
    session: u64,
) -> Result<(), ServerError> {
    let rows = if name == "session_account_connect_attrs" {
        let me = procs.iter().find(|p| p.id == session);
        let account = |p: &&Process| {
            me.is_some_and(|me| p.user == me.user && host_of(&p.host) == host_of(&me.host))
        };
        rows(procs.iter().filter(account))
    } else {
        rows(procs.iter())
    };
    super::copy(db, name, super::typed(name)?, rows)
}

/// The rows of the connections `procs`.
fn rows<'a>(procs: impl Iterator<Item = &'a Process>) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    for p in procs {
        for a in p.connect_attrs.attrs() {
            rows.push(vec![
                Value::Integer(p.id as i64),
                Value::Text(a.name),
                a.value.map_or(Value::Null, Value::Text),
                Value::Integer(i64::from(a.ordinal)),
            ]);
        }
    }
    rows
}
