//! `performance_schema.prepared_statements_instances`: a row per live prepared statement of
//! every connection, from the binary protocol (`COM_STMT_PREPARE`, `STATEMENT_NAME` NULL) and
//! from SQL `PREPARE name FROM ...`; it goes at `COM_STMT_CLOSE`, `DEALLOCATE PREPARE`, a
//! `PREPARE` that reuses the name, `COM_RESET_CONNECTION` and the connection's end (MySQL's
//! `table_prepared_stmt_instances.cc`).
//!
//! The rows live in `pfs` (`pfs::PreparedStatement`, kept with the connection's statement,
//! `connection.rs`), as MySQL keeps them in performance_schema's own container: an execution
//! adds to its row where its statement event ends (`execute.rs`), and the compiled-out build
//! has neither rows nor cost. `OWNER_THREAD_ID` is the connection's `threads.THREAD_ID`.
//!
//! The columns are MySQL 8.0's up to the statistics, then those the digest summary here keeps
//! (`events_statements_summary_by_digest`: the time, lock time, errors, warnings, rows
//! affected and sent); the rest of MySQL's `SUM_*` (rows examined, temporary tables, joins,
//! sorts, index use) the server does not count. `OWNER_OBJECT_*` are NULL (no stored
//! programs) and `COUNT_REPREPARE` 0 (no statement is reprepared). `TRUNCATE TABLE` resets the
//! statistics, `TIMER_PREPARE` too, and keeps the rows, as MySQL's
//! (`reset_prepared_stmt_instances`).

use super::columns::Def;

/// The table's name.
pub(super) const TABLE: &str = "prepared_statements_instances";

/// Its columns (`table_prepared_stmt_instances.cc`'s, see the module docs).
pub(super) const COLUMNS: [Def; 24] = [
    ("OBJECT_INSTANCE_BEGIN", "bigint unsigned NOT NULL"),
    ("STATEMENT_ID", "bigint unsigned NOT NULL"),
    ("STATEMENT_NAME", "varchar(64)"),
    ("SQL_TEXT", "longtext NOT NULL"),
    ("OWNER_THREAD_ID", "bigint unsigned NOT NULL"),
    ("OWNER_EVENT_ID", "bigint unsigned NOT NULL"),
    (
        "OWNER_OBJECT_TYPE",
        "enum('EVENT','FUNCTION','PROCEDURE','TABLE','TRIGGER')",
    ),
    ("OWNER_OBJECT_SCHEMA", "varchar(64)"),
    ("OWNER_OBJECT_NAME", "varchar(64)"),
    ("TIMER_PREPARE", "bigint unsigned NOT NULL"),
    ("COUNT_REPREPARE", "bigint unsigned NOT NULL"),
    ("COUNT_EXECUTE", "bigint unsigned NOT NULL"),
    ("SUM_TIMER_EXECUTE", "bigint unsigned NOT NULL"),
    ("MIN_TIMER_EXECUTE", "bigint unsigned NOT NULL"),
    ("AVG_TIMER_EXECUTE", "bigint unsigned NOT NULL"),
    ("MAX_TIMER_EXECUTE", "bigint unsigned NOT NULL"),
    ("SUM_LOCK_TIME", "bigint unsigned NOT NULL"),
    ("SUM_ERRORS", "bigint unsigned NOT NULL"),
    ("SUM_WARNINGS", "bigint unsigned NOT NULL"),
    ("SUM_ROWS_AFFECTED", "bigint unsigned NOT NULL"),
    ("SUM_ROWS_SENT", "bigint unsigned NOT NULL"),
    ("SUM_SELECT_SCAN", "bigint unsigned NOT NULL"),
    ("SUM_SORT_SCAN", "bigint unsigned NOT NULL"),
    ("SUM_NO_INDEX_USED", "bigint unsigned NOT NULL"),
];
