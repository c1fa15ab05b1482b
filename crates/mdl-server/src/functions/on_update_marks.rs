//! The marks of `ON UPDATE CURRENT_TIMESTAMP`'s triggers (`on_update.rs`): a `BEFORE UPDATE OF
//! c` trigger calls `MDL_ON_UPDATE_MARK(id, i, rowid)` for each row whose column `c` (the
//! table's `i`th auto-updated column, of triggers `id`) the statement assigns, and the `AFTER
//! UPDATE` trigger of the same row asks `MDL_ON_UPDATE_MARKED(id, i, rowid)` before it sets the
//! column to the statement's time. SQLite fires a row's BEFORE triggers, writes it, then fires
//! its AFTER triggers, before the next row: one mark per column is enough, and a mark counts
//! only in the statement that made it ([`StatementClock::statement`]), so one left by a failed
//! statement is never read. Only the triggers call these: a table without an auto-updated
//! column pays nothing.

use std::sync::{Arc, Mutex};

use rusqlite::functions::Context;

use super::{flags, StatementClock};

/// `MDL_ON_UPDATE_MARK(id, i, rowid)`: the row `rowid` assigns column `i` of triggers `id`.
pub const ON_UPDATE_MARK: &str = "MDL_ON_UPDATE_MARK";
/// `MDL_ON_UPDATE_MARKED(id, i, rowid)`: whether the statement marked it.
pub const ON_UPDATE_MARKED: &str = "MDL_ON_UPDATE_MARKED";

/// The marks of the statement `statement`: `(id, i, rowid)`.
#[derive(Default)]
struct Marks {
    statement: u64,
    marks: Vec<(String, i64, i64)>,
}

fn args(ctx: &Context<'_>) -> rusqlite::Result<(String, i64, i64)> {
    Ok((ctx.get(0)?, ctx.get(1)?, ctx.get(2)?))
}

/// Registers both functions on `db`, the statement read from `clock`.
pub(super) fn register(
    db: &rusqlite::Connection,
    clock: &Arc<StatementClock>,
) -> rusqlite::Result<()> {
    let marks = Arc::new(Mutex::new(Marks::default()));
    let (m, c) = (marks.clone(), clock.clone());
    db.create_scalar_function(ON_UPDATE_MARK, 3, flags(false), move |ctx| {
        let (id, i, rowid) = args(ctx)?;
        let mut m = m.lock().unwrap_or_else(|p| p.into_inner());
        let now = c.statement();
        if m.statement != now {
            m.statement = now;
            m.marks.clear();
        }
        match m.marks.iter_mut().find(|(n, k, _)| *n == id && *k == i) {
            Some(mark) => mark.2 = rowid,
            None => m.marks.push((id, i, rowid)),
        }
        Ok(1)
    })?;
    let (m, c) = (marks, clock.clone());
    db.create_scalar_function(ON_UPDATE_MARKED, 3, flags(false), move |ctx| {
        let (id, i, rowid) = args(ctx)?;
        let m = m.lock().unwrap_or_else(|p| p.into_inner());
        Ok(m.statement == c.statement()
            && m.marks
                .iter()
                .any(|(n, k, r)| *n == id && *k == i && *r == rowid))
    })
}
