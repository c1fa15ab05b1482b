//! MySQL 8.0's Performance Schema thread functions (manual, 14.21 "Performance Schema
//! Functions"; `Item_func_pfs_current_thread_id` and `Item_func_pfs_thread_id` in
//! `sql/item_pfs_func.cc`), with which a DBA picks a session's rows out of
//! `performance_schema` (`... FROM performance_schema.metadata_locks WHERE OWNER_THREAD_ID =
//! PS_CURRENT_THREAD_ID()`):
//!
//! * `PS_CURRENT_THREAD_ID()`: the `THREAD_ID` of the session running the statement. A
//!   statement's engine work runs on its connection's thread, entered in the connection's
//!   `pfs` session thread (`server.rs`), so this is the session's id.
//! * `PS_THREAD_ID(id)`: the `THREAD_ID` of connection `id` (`threads.PROCESSLIST_ID`); NULL
//!   for NULL or a connection that has none.
//! * `sys.ps_thread_id(id)`, the sys schema's older function, which the rewrite calls by the
//!   name [`SYS_PS_THREAD_ID`]: as `PS_THREAD_ID`, except that NULL is the current session
//!   (MySQL's sys schema, "The ps_thread_id() Function").

use rusqlite::types::Value;

use super::{flags, int};

/// The engine's name of `sys.ps_thread_id`.
pub(crate) const SYS_PS_THREAD_ID: &str = "MDL_SYS_PS_THREAD_ID";

/// Registers the functions on `db`. None is deterministic: connections come and go.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    db.create_scalar_function("PS_CURRENT_THREAD_ID", 0, flags(false), |_| Ok(current()))?;
    db.create_scalar_function("PS_THREAD_ID", 1, flags(false), |ctx| {
        Ok(int(ctx, 0).map_or(Value::Null, of_connection))
    })?;
    db.create_scalar_function(SYS_PS_THREAD_ID, 1, flags(false), |ctx| {
        Ok(int(ctx, 0).map_or_else(current, of_connection))
    })
}

fn current() -> Value {
    Value::Integer(pfs::current_thread_id() as i64)
}

/// The `THREAD_ID` of the session thread of connection `id`.
fn of_connection(id: i64) -> Value {
    let Ok(id) = u64::try_from(id) else {
        return Value::Null;
    };
    (crate::pfs_views::thread_ids().get(&id)).map_or(Value::Null, |&t| Value::Integer(t as i64))
}
