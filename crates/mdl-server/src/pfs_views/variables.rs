//! `performance_schema.global_variables`, `session_variables`, `global_status` and
//! `session_status`: MySQL 8.0's tables behind `SHOW VARIABLES` and `SHOW STATUS`, with their
//! columns (`VARIABLE_NAME`, `VARIABLE_VALUE`, text as in MySQL: `columns.rs`), so a DBA can
//! join or filter them (`SELECT VARIABLE_VALUE FROM performance_schema.session_variables WHERE
//! VARIABLE_NAME = 'lock_wait_timeout'`).
//!
//! The rows are those of `SHOW VARIABLES` and `SHOW STATUS` (`admin::variables`,
//! `admin::status`: the one place each value is defined). `session_variables` has the asking
//! connection's values (after its `SET SESSION lock_wait_timeout`), `global_variables` the
//! global ones (`SET GLOBAL`); `session_status` has the asking connection's statement counters
//! (`Com_*`, `Questions`), `global_status` the server's (`status.rs`).

use rusqlite::types::Value;

use super::Sources;
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The tables.
pub(super) const TABLES: [&str; 4] = [
    "global_variables",
    "session_variables",
    "global_status",
    "session_status",
];

/// Fills `performance_schema.<name>`, one of [`TABLES`].
pub(super) fn fill(db: &mut EngineConn, name: &str, src: &Sources<'_>) -> Result<(), ServerError> {
    let rows = match name {
        "global_variables" => (src.variables)(true),
        "session_variables" => (src.variables)(false),
        "global_status" => (src.status)(true),
        _ => (src.status)(false),
    };
    let rows = (rows.into_iter())
        .map(|(n, v)| vec![Value::Text(n), Value::Text(v)])
        .collect();
    super::copy(db, name, super::typed(name)?, rows)
}
