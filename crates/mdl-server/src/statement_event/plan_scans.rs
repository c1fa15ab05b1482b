//! Whether a prepared statement's SQLite query can ever scan or sort, decided once from its
//! bytecode, so that an execution that cannot (a point select by key) reads no counter.
//!
//! SQLite moves its two counters ([`super::engine`]) in two places only (`vdbe.c`): a
//! `Next` / `Prev` whose P5 is `SQLITE_STMTSTATUS_FULLSCAN_STEP` (1), which the planner sets
//! on the loop of a full table or index scan (`where.c`), and a `Sort` / `SorterSort`. A
//! trigger's program (`Program`, a foreign key's action) runs with the statement's counters
//! but is not listed by `EXPLAIN`, so it counts as "may". `EXPLAIN` of the query lists the
//! rest: when no such opcode is there, the query never moves either counter.
//!
//! The verdict holds while the query's bytecode does: SQLite prepares it again when the schema
//! changes (DDL, `ANALYZE`), and every such statement moves the server's DDL epoch
//! (`execute/insert_select.rs`), so the verdict is kept with the epoch it was made at and is
//! made again after. With `ANALYZE`'s STAT4 samples SQLite may prepare a query again for the
//! values bound to it (another plan): a query with parameters is then "may" whenever a schema
//! has `sqlite_stat4`.
//!
//! # Cost
//!
//! Only a rewrite a prepared statement keeps (`memo.rs`) has a verdict, made at its first
//! recorded execution (an `EXPLAIN`, once per epoch); a text query's rewrite is made per
//! statement and reads the counters. A kept verdict of "never" costs an execution an epoch
//! load and a compare, and saves it two `sqlite3_stmt_status` calls.

use std::sync::atomic::{AtomicU64, Ordering};

/// Not kept by a prepared statement: no verdict is made.
const LOOSE: u64 = 0;
/// Kept, no verdict at this epoch yet.
const KEPT: u64 = 1;
/// At the epoch in the upper bits: never scans nor sorts.
const NEVER: u64 = 2;
/// At the epoch in the upper bits: may scan or sort.
const MAY: u64 = 3;

/// The verdict of one rewrite (`Rewritten::scans`): the epoch it was made at, shifted left 2,
/// or-ed with [`NEVER`] / [`MAY`]; or [`LOOSE`] / [`KEPT`]. A clone is [`LOOSE`]: a changed
/// copy of a rewrite runs other SQL.
#[derive(Debug, Default)]
pub(crate) struct ScanVerdict(AtomicU64);

impl Clone for ScanVerdict {
    fn clone(&self) -> Self {
        ScanVerdict::default()
    }
}

impl ScanVerdict {
    /// A prepared statement keeps the rewrite: its executions may make a verdict.
    pub(crate) fn keep(&self) {
        let _ = (self.0).compare_exchange(LOOSE, KEPT, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Whether `sql`, this rewrite's query, is known never to scan or sort at `epoch`; made
    /// (an `EXPLAIN` of `sql` on `db`) when the rewrite is kept and has none at `epoch`.
    #[inline]
    pub(crate) fn never(&self, epoch: u64, db: &rusqlite::Connection, sql: &str) -> bool {
        let v = self.0.load(Ordering::Relaxed);
        if v == (epoch << 2 | NEVER) {
            return true;
        }
        if v == LOOSE || v == (epoch << 2 | MAY) {
            return false;
        }
        self.make(epoch, db, sql)
    }

    #[cold]
    fn make(&self, epoch: u64, db: &rusqlite::Connection, sql: &str) -> bool {
        let never = never_scans(db, sql).unwrap_or(false);
        let tag = if never { NEVER } else { MAY };
        self.0.store(epoch << 2 | tag, Ordering::Relaxed);
        never
    }
}

/// Whether `sql`'s bytecode has no opcode that moves the counters (see the module docs).
fn never_scans(db: &rusqlite::Connection, sql: &str) -> rusqlite::Result<bool> {
    let st = db.prepare(sql)?;
    if st.parameter_count() > 0 && has_stat4(db)? {
        return Ok(false);
    }
    drop(st);
    let mut st = db.prepare(&format!("EXPLAIN {sql}"))?;
    // Unbound: the query's parameters are EXPLAIN's, which reads them as NULL.
    let mut rows = st.raw_query();
    // EXPLAIN's columns: addr, opcode, p1, p2, p3, p4, p5, comment.
    while let Some(r) = rows.next()? {
        let op = r.get_ref(1)?.as_str().unwrap_or("");
        let p5: i64 = r.get(6)?;
        let moves = match op {
            "Next" | "Prev" | "SorterNext" => p5 == 1,
            "Sort" | "SorterSort" | "Program" => true,
            _ => false,
        };
        if moves {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether a schema (an attached database) has `ANALYZE`'s STAT4 samples table.
fn has_stat4(db: &rusqlite::Connection) -> rusqlite::Result<bool> {
    let mut st = db.prepare("SELECT name FROM pragma_database_list")?;
    let names: Vec<String> = st.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    for name in names {
        let q = format!(
            "SELECT 1 FROM {}.sqlite_master WHERE name = 'sqlite_stat4'",
            crate::engine::quote(&name)
        );
        if db.prepare(&q)?.exists([])? {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(db: &rusqlite::Connection, sql: &str) -> bool {
        let v = ScanVerdict::default();
        v.keep();
        v.never(7, db, sql)
    }

    #[test]
    fn a_key_lookup_never_scans_and_a_scan_or_sort_may() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, k INT, c TEXT);
             CREATE INDEX t_k ON t (k);",
        )
        .unwrap();
        assert!(verdict(&db, "SELECT c FROM t WHERE id = ?"));
        assert!(verdict(&db, "SELECT c FROM t WHERE k = ?"));
        assert!(verdict(
            &db,
            "SELECT c FROM t WHERE k BETWEEN ? AND ? ORDER BY k"
        ));
        assert!(!verdict(&db, "SELECT c FROM t WHERE c = ?"));
        assert!(!verdict(&db, "SELECT c FROM t WHERE id > ? ORDER BY c"));
        assert!(!verdict(
            &db,
            "SELECT c, COUNT(*) FROM t WHERE id < ? GROUP BY c"
        ));
        // STAT4 samples: a query with parameters may be prepared again for its values.
        db.execute_batch("ANALYZE").unwrap();
        assert!(!verdict(&db, "SELECT c FROM t WHERE id = ?"));
        assert!(verdict(&db, "SELECT c FROM t WHERE id = 1"));
    }

    #[test]
    fn a_verdict_is_made_for_a_kept_rewrite_at_its_epoch_only() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, c TEXT)")
            .unwrap();
        let v = ScanVerdict::default();
        assert!(!v.never(1, &db, "SELECT c FROM t WHERE id = 1"));
        v.keep();
        assert!(v.never(1, &db, "SELECT c FROM t WHERE id = 1"));
        assert!(!v.clone().never(1, &db, "SELECT c FROM t WHERE id = 1"));
        // Another epoch: made again (here from other SQL, which scans).
        assert!(!v.never(2, &db, "SELECT c FROM t"));
        assert!(!v.never(2, &db, "SELECT c FROM t WHERE id = 1"));
    }
}
