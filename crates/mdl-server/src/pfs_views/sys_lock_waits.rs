//! MySQL's `sys.schema_table_lock_waits` and `sys.x$schema_table_lock_waits`: sys 8.0's view,
//! each pending TABLE lock joined with each granted lock on the same object, computed by SQLite
//! over fresh `metadata_locks` and `processlist` snapshots.

use super::{columns, wrap};
use crate::engine::EngineConn;
use crate::error::ServerError;

/// sys 8.0's `schema_table_lock_waits` columns, those the server fills (not
/// `waiting_query_rows_affected` and `_examined`: no statement counts rows), with the types
/// MySQL derives from the view's select (`scripts/sys_schema/views/p_s/
/// schema_table_lock_waits.sql`): `metadata_locks`' and `threads`' columns,
/// `ps_thread_account()`'s `text`, `CONCAT` of a `bigint unsigned`. The thread ids, `NOT NULL`
/// in MySQL (an inner join with `threads`), are nullable: a lock's owner thread may be unknown.
pub(super) const COLUMNS: [columns::Def; 16] = [
    ("object_schema", "varchar(64)"),
    ("object_name", "varchar(64)"),
    ("waiting_thread_id", "bigint unsigned"),
    ("waiting_pid", "bigint unsigned"),
    ("waiting_account", "text"),
    ("waiting_lock_type", "varchar(32) NOT NULL"),
    ("waiting_lock_duration", "varchar(32) NOT NULL"),
    ("waiting_query", "longtext"),
    ("waiting_query_secs", "bigint"),
    ("blocking_thread_id", "bigint unsigned"),
    ("blocking_pid", "bigint unsigned"),
    ("blocking_account", "text"),
    ("blocking_lock_type", "varchar(32) NOT NULL"),
    ("blocking_lock_duration", "varchar(32) NOT NULL"),
    ("sql_kill_blocking_query", "varchar(31)"),
    ("sql_kill_blocking_connection", "varchar(25)"),
];

/// MySQL's `sys.schema_table_lock_waits`, over the snapshots (see the module docs): its rows,
/// in [`COLUMNS`]' order, into `{view}`, the waiting statement as
/// `{query}` gives it. Its accounts are `user@host` without the client's port, as MySQL's
/// (`threads.PROCESSLIST_HOST`), where the process list's `HOST` has it.
const SCHEMA_TABLE_LOCK_WAITS: &str = "
INSERT INTO sys.\"{view}\"
SELECT g.OBJECT_SCHEMA, g.OBJECT_NAME, p.OWNER_THREAD_ID, p.OWNER_CONTEXT_ID,
       pt.USER || '@' || CASE WHEN pt.HOST GLOB '*:[0-9]*'
           THEN rtrim(rtrim(pt.HOST, '0123456789'), ':') ELSE pt.HOST END,
       p.LOCK_TYPE, p.LOCK_DURATION, {query}, pt.TIME, g.OWNER_THREAD_ID, g.OWNER_CONTEXT_ID,
       gt.USER || '@' || CASE WHEN gt.HOST GLOB '*:[0-9]*'
           THEN rtrim(rtrim(gt.HOST, '0123456789'), ':') ELSE gt.HOST END,
       g.LOCK_TYPE, g.LOCK_DURATION,
       'KILL QUERY ' || g.OWNER_CONTEXT_ID, 'KILL ' || g.OWNER_CONTEXT_ID
FROM performance_schema.metadata_locks g
JOIN performance_schema.metadata_locks p
  ON g.OBJECT_TYPE = p.OBJECT_TYPE AND g.OBJECT_SCHEMA = p.OBJECT_SCHEMA
 AND g.OBJECT_NAME = p.OBJECT_NAME AND g.LOCK_STATUS = 'GRANTED' AND p.LOCK_STATUS = 'PENDING'
LEFT JOIN performance_schema.processlist gt ON g.OWNER_CONTEXT_ID = gt.ID
LEFT JOIN performance_schema.processlist pt ON p.OWNER_CONTEXT_ID = pt.ID
WHERE g.OBJECT_TYPE = 'TABLE';";

/// Makes `sys.schema_table_lock_waits` or (`view` `x$...`) `sys.x$schema_table_lock_waits`
/// from the `metadata_locks` and `processlist` snapshots.
pub(super) fn schema_table_lock_waits(db: &mut EngineConn, view: &str) -> Result<(), ServerError> {
    let (view, query) = if view.starts_with("x$") {
        ("x$schema_table_lock_waits", "pt.INFO".to_string())
    } else {
        let format = crate::functions::FORMAT_STATEMENT;
        ("schema_table_lock_waits", format!("{format}(pt.INFO)"))
    };
    let target = format!("sys.\"{view}\"");
    // Its column names are plain words: no quotes needed.
    let cols = columns::sqlite(&COLUMNS).join(", ");
    let create = format!("DROP TABLE IF EXISTS {target}; CREATE TABLE {target} ({cols});");
    let insert = SCHEMA_TABLE_LOCK_WAITS
        .replace("{view}", view)
        .replace("{query}", &query);
    wrap(db, &format!("{create}{insert}"))
}
