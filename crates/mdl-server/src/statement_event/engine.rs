//! What the engine did for a statement, from SQLite's per-statement counters
//! (`sqlite3_stmt_status`, rusqlite's `Statement::reset_status`), for the statement event's
//! columns that MySQL's executor sets on the `THD` as it runs a statement.
//!
//! # The mapping
//!
//! * `NO_INDEX_USED` = 1 when SQLite stepped a full table scan: `SQLITE_STMTSTATUS_FULLSCAN_STEP`,
//!   the rows a scan of a whole table (or of a whole index without a constraint) moved through,
//!   is not 0. A scan of an empty table steps no row and is not counted. MySQL sets
//!   `SERVER_QUERY_NO_INDEX_USED` (`THD::set_status_no_index_used`) for a table read without an
//!   index: a join's `JT_ALL` table (`make_join_readinfo`, `sql/sql_select.cc`), a single-table
//!   UPDATE or DELETE that scans (`sql/sql_update.cc`, `sql/sql_delete.cc`).
//! * `SELECT_SCAN` = 1 for a SELECT (or INSERT/REPLACE ... SELECT) that stepped a full scan.
//!   MySQL counts a full scan of a join's *first* table (`inc_status_select_scan` in
//!   `make_join_readinfo`) and one of a later table as `SELECT_FULL_JOIN`; SQLite does not say
//!   which table its scan read, so a join whose inner table is scanned counts here too.
//! * `SORT_SCAN` = the sorts SQLite made (`SQLITE_STMTSTATUS_SORT`: sorter passes for ORDER BY
//!   or GROUP BY without an index that gives the order; a DISTINCT usually goes through a
//!   temporary index, not the sorter, and counts none). MySQL counts each filesort
//!   as `SORT_RANGE` when its rows came by a range access and `SORT_SCAN` otherwise (`filesort`,
//!   `sql/filesort.cc`); SQLite does not say how the sorter's input was read, so every sort is
//!   `SORT_SCAN`, MySQL's bucket for all but range reads, and `SORT_RANGE` stays 0.
//!
//! No honest source, so 0 (and absent from the tables, as the columns nothing fills are):
//! `ROWS_EXAMINED` (SQLite counts no rows read through an index; the full scan's step count
//! alone would undercount a lookup as 0 rows), `SORT_ROWS` (SQLite counts sorts, not the rows
//! sorted), `SORT_MERGE_PASSES`, `CREATED_TMP_TABLES` and `CREATED_TMP_DISK_TABLES`
//! (`SQLITE_STMTSTATUS_AUTOINDEX` counts rows put into automatic indexes, and SQLite's other
//! transient tables, for DISTINCT, UNION, IN and materialised subqueries, are counted by none),
//! `SELECT_FULL_JOIN`, `SELECT_RANGE`, `SELECT_FULL_RANGE_JOIN`, `SELECT_RANGE_CHECK` and
//! `NO_GOOD_INDEX_USED` (SQLite gives no per-table access method).
//!
//! Only the statements MySQL runs through its executor are counted ([`counted`]: SELECT,
//! INSERT, REPLACE, UPDATE, DELETE): a DDL statement's or a `SHOW`'s reads of SQLite's catalog
//! are the server's bookkeeping, not the statement's plan, and would put `DROP TABLE` among
//! the statements that sort. A counted statement's own bookkeeping reads (an INSERT's values
//! read against its table) count with it.
//!
//! # Cost
//!
//! The counters are read, with SQLite's reset (so that a cached prepared statement's next
//! execution starts at 0), only when the statement is counted and its event is active (its
//! instrument enabled on an instrumented thread: [`EngineStatus::watch`]), once per SQLite
//! statement run: two `sqlite3_stmt_status` calls (about 25 instructions each). A prepared
//! statement's kept query known never to scan or sort ([`super::plan_scans`]: a point select
//! by key) reads neither ([`EngineStatus::pause`]). A statement that did none of these ends
//! on `pfs`' common path (`is_rare`). A cached statement run while its instrument was off
//! keeps its counts, and its next watched run shows them too.

use rusqlite::StatementStatus;

use crate::status::Com;

/// What the SQLite statements of the running MySQL statement did (see the module docs): kept
/// by the connection's `EngineConn`, reset at each statement's start.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EngineStatus {
    /// Read the counters (the statement's event is active).
    watched: bool,
    full_scan: bool,
    sorts: u32,
}

impl EngineStatus {
    /// A statement of command `com` starts, its event active (`recorded`) or not.
    #[inline]
    pub(crate) fn watch(&mut self, recorded: bool, com: Option<Com>) {
        *self = EngineStatus {
            watched: recorded && counted(com),
            ..EngineStatus::default()
        };
    }

    /// Whether the counters are read (the statement is recorded and counted).
    #[inline]
    pub(crate) fn watched(&self) -> bool {
        self.watched
    }

    /// Reads no counter until [`EngineStatus::resume`]: the next SQLite statement of a
    /// watched statement is known never to scan or sort (`plan_scans.rs`).
    #[inline]
    pub(crate) fn pause(&mut self) {
        self.watched = false;
    }

    /// Reads the counters again, after [`EngineStatus::pause`].
    #[inline]
    pub(crate) fn resume(&mut self) {
        self.watched = true;
    }

    /// A SQLite statement of the running statement ran: its counters, taken (reset).
    #[inline(always)]
    pub(crate) fn add(&mut self, st: &rusqlite::Statement<'_>) {
        if self.watched {
            let scans = st.reset_status(StatementStatus::FullscanStep);
            let sorts = st.reset_status(StatementStatus::Sort);
            self.full_scan |= scans != 0;
            self.sorts = self.sorts.wrapping_add(sorts as u32);
        }
    }

    /// The statement's outcome `o` with what the engine did; `com` is its command.
    #[inline]
    pub(crate) fn outcome<'a>(
        &self,
        o: pfs::StatementOutcome<'a>,
        com: Option<Com>,
    ) -> pfs::StatementOutcome<'a> {
        if !self.full_scan && self.sorts == 0 {
            return o;
        }
        let select = matches!(
            com,
            Some(Com::Select | Com::InsertSelect | Com::ReplaceSelect)
        );
        o.engine(self.full_scan, self.full_scan && select, self.sorts)
    }
}

/// Is a statement of `com` counted (see the module docs)?
fn counted(com: Option<Com>) -> bool {
    use Com::*;
    matches!(
        com,
        Some(
            Select
                | Insert
                | InsertSelect
                | Replace
                | ReplaceSelect
                | Update
                | UpdateMulti
                | Delete
                | DeleteMulti
        )
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(db: &rusqlite::Connection, s: &mut EngineStatus, sql: &str) {
        let mut st = db.prepare_cached(sql).unwrap();
        let mut rows = st.query([]).unwrap();
        while rows.next().unwrap().is_some() {}
        drop(rows);
        s.add(&st);
    }

    #[test]
    fn counters_follow_what_sqlite_did() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, k INT, c TEXT);
             INSERT INTO t VALUES (1, 5, 'a'), (2, 4, 'b'), (3, 3, 'c');",
        )
        .unwrap();
        let mut s = EngineStatus::default();
        let o = |s: &EngineStatus, com| s.outcome(pfs::StatementOutcome::ok(1, 0), Some(com));
        s.watch(true, Some(Com::Select));
        run(&db, &mut s, "SELECT c FROM t WHERE id = 2");
        assert_eq!(o(&s, Com::Select), pfs::StatementOutcome::ok(1, 0));
        s.watch(true, Some(Com::Select));
        run(&db, &mut s, "SELECT c FROM t WHERE k = 4");
        let r = o(&s, Com::Select);
        assert_eq!(
            (r.no_index_used(), r.select_scan(), r.sort_scan()),
            (1, 1, 0)
        );
        let r = o(&s, Com::Delete);
        assert_eq!((r.no_index_used(), r.select_scan()), (1, 0));
        s.watch(true, Some(Com::Select));
        run(&db, &mut s, "SELECT c FROM t WHERE id > 1 ORDER BY k");
        let r = o(&s, Com::Select);
        assert_eq!((r.no_index_used(), r.sort_scan()), (0, 1));
        // Taken with a reset: the cached statement's next run starts at 0.
        s.watch(true, Some(Com::Select));
        run(&db, &mut s, "SELECT c FROM t WHERE id = 2");
        assert_eq!(o(&s, Com::Select).sort_scan(), 0);
        // Not a counted statement: nothing read.
        s.watch(true, Some(Com::DropTable));
        run(&db, &mut s, "SELECT c FROM t WHERE k = 4 ORDER BY k");
        assert_eq!(o(&s, Com::DropTable), pfs::StatementOutcome::ok(1, 0));
        // Unwatched: nothing read.
        s.watch(false, Some(Com::Select));
        run(&db, &mut s, "SELECT c FROM t WHERE k = 4");
        assert_eq!(o(&s, Com::Select).no_index_used(), 0);
    }
}
