//! `sys.statements_with_full_table_scans`, `sys.statements_with_sorting` and their `x$` forms:
//! MySQL 8.0 sys schema's reports over `events_statements_summary_by_digest` of the statements
//! whose engine scanned a table without an index or sorted, from the digest table's
//! `SUM_NO_INDEX_USED` and `SUM_SORT_SCAN` (SQLite's counters: `statement_event/engine.rs`).
//! Made with the other digest reports (`sys_statements.rs`), from the same snapshot.
//!
//! As in MySQL (`scripts/sys_schema/views/p_s/statements_with_full_table_scans.sql`,
//! `x_statements_with_full_table_scans.sql`, `statements_with_sorting.sql`,
//! `x_statements_with_sorting.sql`): one row per digest; the full-scan report keeps the digests
//! that used no index, but not `SHOW` statements, by the percentage of executions that used
//! none then the total latency, descending; the sorting report by the total latency. Where
//! MySQL's differ:
//!
//! * `statements_with_sorting` keeps the digests that sorted (`SUM_SORT_SCAN > 0`), where
//!   MySQL's keeps those that sorted rows (`SUM_SORT_ROWS > 0`): SQLite counts sorts, not the
//!   rows sorted.
//! * NULL, as nothing counts them: `no_good_index_used_count`, `rows_examined` and its average
//!   (full scans); `sort_merge_passes` and its average, `sort_using_range`, `rows_sorted` and
//!   its average (sorting).
//! * The formatted full-scan view orders by the latency, where MySQL's orders by its text
//!   (`FORMAT_PICO_TIME(...) DESC`, which puts `9.00 ms` before `10.00 s`).

use super::columns::{view_defs, Def, ViewColumn};

/// The views, as `sys` names them.
pub(super) const VIEWS: [&str; 4] = [
    "statements_with_full_table_scans",
    "statements_with_sorting",
    "x$statements_with_full_table_scans",
    "x$statements_with_sorting",
];

/// `statements_with_full_table_scans`' columns (`Some`: the formatted view's type).
const FULL_SCANS: [ViewColumn; 14] = [
    ("query", "longtext", None),
    ("db", "varchar(64)", None),
    ("exec_count", "bigint unsigned", None),
    ("total_latency", "bigint unsigned", Some("text")),
    ("no_index_used_count", "bigint unsigned", None),
    ("no_good_index_used_count", "bigint unsigned", None),
    ("no_index_used_pct", "decimal(24,0)", None),
    ("rows_sent", "bigint unsigned", None),
    ("rows_examined", "bigint unsigned", None),
    ("rows_sent_avg", "decimal(21,0)", None),
    ("rows_examined_avg", "decimal(21,0)", None),
    ("first_seen", "timestamp(6)", None),
    ("last_seen", "timestamp(6)", None),
    ("digest", "varchar(64)", None),
];

/// `statements_with_sorting`' columns.
const SORTING: [ViewColumn; 13] = [
    ("query", "longtext", None),
    ("db", "varchar(64)", None),
    ("exec_count", "bigint unsigned", None),
    ("total_latency", "bigint unsigned", Some("text")),
    ("sort_merge_passes", "bigint unsigned", None),
    ("avg_sort_merges", "decimal(21,0)", None),
    ("sorts_using_scans", "bigint unsigned", None),
    ("sort_using_range", "bigint unsigned", None),
    ("rows_sorted", "bigint unsigned", None),
    ("avg_rows_sorted", "decimal(21,0)", None),
    ("first_seen", "timestamp(6)", None),
    ("last_seen", "timestamp(6)", None),
    ("digest", "varchar(64)", None),
];

/// `statements_with_full_table_scans`' rows (`{query}` and `{time}`: the formatting of the
/// text and of a latency, none in the `x$` form).
const FULL_SCAN_ROWS: &str = "
INSERT INTO sys.`{view}`
SELECT {query}(DIGEST_TEXT), SCHEMA_NAME, COUNT_STAR, {time}(SUM_TIMER_WAIT),
       SUM_NO_INDEX_USED, NULL,
       round(ifnull(SUM_NO_INDEX_USED * 1.0 / nullif(COUNT_STAR, 0), 0) * 100),
       SUM_ROWS_SENT, NULL, round(ifnull(SUM_ROWS_SENT * 1.0 / nullif(COUNT_STAR, 0), 0)), NULL,
       FIRST_SEEN, LAST_SEEN, DIGEST
FROM performance_schema.events_statements_summary_by_digest
WHERE SUM_NO_INDEX_USED > 0 AND DIGEST_TEXT NOT LIKE 'SHOW%'
ORDER BY round(ifnull(SUM_NO_INDEX_USED * 1.0 / nullif(COUNT_STAR, 0), 0) * 100) DESC,
         SUM_TIMER_WAIT DESC;";

/// `statements_with_sorting`' rows.
const SORTING_ROWS: &str = "
INSERT INTO sys.`{view}`
SELECT {query}(DIGEST_TEXT), SCHEMA_NAME, COUNT_STAR, {time}(SUM_TIMER_WAIT),
       NULL, NULL, SUM_SORT_SCAN, NULL, NULL, NULL,
       FIRST_SEEN, LAST_SEEN, DIGEST
FROM performance_schema.events_statements_summary_by_digest
WHERE SUM_SORT_SCAN > 0
ORDER BY SUM_TIMER_WAIT DESC;";

/// The rows of `view`, if it is one of [`VIEWS`].
pub(super) fn rows(view: &str) -> Option<&'static str> {
    match view.trim_start_matches("x$") {
        "statements_with_full_table_scans" => Some(FULL_SCAN_ROWS),
        "statements_with_sorting" => Some(SORTING_ROWS),
        _ => None,
    }
}

/// The columns of `view`, if it is one of [`VIEWS`], with their types.
pub(super) fn defs(view: &str) -> Option<Vec<Def>> {
    let cols: &[ViewColumn] = match view.trim_start_matches("x$") {
        "statements_with_full_table_scans" => &FULL_SCANS,
        "statements_with_sorting" => &SORTING,
        _ => return None,
    };
    Some(view_defs(cols, !view.starts_with("x$")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_fill_every_column() {
        let count = super::super::sys_statements::select_width;
        assert_eq!(count(FULL_SCAN_ROWS), FULL_SCANS.len());
        assert_eq!(count(SORTING_ROWS), SORTING.len());
        for v in VIEWS {
            assert!(rows(v).is_some() && defs(v).is_some(), "{v}");
        }
        assert_eq!(
            defs("statements_with_sorting").unwrap()[3],
            ("total_latency", "text")
        );
        assert!(rows("statement_analysis").is_none());
    }
}
