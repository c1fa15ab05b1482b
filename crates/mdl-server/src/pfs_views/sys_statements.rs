//! `sys.statement_analysis`, `sys.statements_with_errors_or_warnings`,
//! `sys.statements_with_runtimes_in_95th_percentile` and their `x$` forms (and, from the same
//! snapshot, the full-scan and sorting reports of `sys_scans.rs`):
//! MySQL 8.0 sys schema's reports over `events_statements_summary_by_digest`, what a DBA reads
//! to find the statements that cost the most time (`SELECT query, exec_count, total_latency
//! FROM sys.statement_analysis LIMIT 10`) or that fail.
//!
//! As in MySQL (`scripts/sys_schema/views/p_s/statement_analysis.sql`,
//! `x_statement_analysis.sql`, `statements_with_errors_or_warnings.sql`,
//! `x_statements_with_errors_or_warnings.sql`): one row per digest, `statement_analysis` by
//! `SUM_TIMER_WAIT` descending, `statements_with_errors_or_warnings` only the digests with an
//! error or a warning, by errors then warnings descending. The `x$` forms keep the digest text
//! and picoseconds; the others pass the text through `sys.format_statement` and the latencies
//! through `FORMAT_PICO_TIME`. The averages are MySQL's `ROUND(IFNULL(SUM / NULLIF(COUNT_STAR,
//! 0), 0))`, the percentages its `IFNULL(SUM / NULLIF(COUNT_STAR, 0), 0) * 100` rounded to
//! their four decimals. Each is computed by SQLite over a fresh snapshot of the digest table,
//! so `WHERE`, `ORDER BY` and `LIMIT` work on them as on any snapshot.
//!
//! `statements_with_runtimes_in_95th_percentile` is MySQL's too
//! (`statements_with_runtimes_in_95th_percentile.sql` and its helpers
//! `x_ps_digest_95th_percentile_by_avg_us.sql`, `x_ps_digest_avg_latency_distribution.sql`):
//! not the latency histograms' `QUANTILE_95`, but the digests whose average latency, rounded
//! to microseconds, is at least the smallest such average that more than 95% of the digests do
//! not exceed, by average latency descending. The helper views are inlined as subqueries.
//!
//! `full_scan` is MySQL's `'*'` for a digest with `SUM_NO_INDEX_USED` (SQLite stepped a full
//! scan: `statement_event/engine.rs`), else `''`. NULL, since the digest table does not count
//! them (`statement_event.rs` says what it does): `cpu_latency`, `rows_examined`
//! and its average, `tmp_tables`, `tmp_disk_tables`, `rows_sorted`, `sort_merge_passes`,
//! `max_controlled_memory` and `max_total_memory`. `warn_count` and `warnings` are 0: the
//! server raises no warnings.

use std::fmt::Write as _;

use super::columns::{view_defs, Def, ViewColumn};
use super::Sources;
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The views, as `sys` names them.
pub(super) const VIEWS: [&str; 10] = [
    "statement_analysis",
    "statements_with_errors_or_warnings",
    "statements_with_runtimes_in_95th_percentile",
    "x$statement_analysis",
    "x$statements_with_errors_or_warnings",
    "x$statements_with_runtimes_in_95th_percentile",
    super::sys_scans::VIEWS[0],
    super::sys_scans::VIEWS[1],
    super::sys_scans::VIEWS[2],
    super::sys_scans::VIEWS[3],
];

/// The `performance_schema` table the views are computed over.
pub(super) const SOURCE: &str = "events_statements_summary_by_digest";

/// `statement_analysis`' columns with `x$statement_analysis`' types, or the formatted view's
/// (`Some`) where they differ: MySQL's types of the view's expressions.
const ANALYSIS: [ViewColumn; 26] = [
    ("query", "longtext", None),
    ("db", "varchar(64)", None),
    ("full_scan", "varchar(1)", None),
    ("exec_count", "bigint unsigned", None),
    ("err_count", "bigint unsigned", None),
    ("warn_count", "bigint unsigned", None),
    ("total_latency", "bigint unsigned", Some("text")),
    ("max_latency", "bigint unsigned", Some("text")),
    ("avg_latency", "bigint unsigned", Some("text")),
    ("lock_latency", "bigint unsigned", Some("text")),
    ("cpu_latency", "bigint unsigned", Some("text")),
    ("rows_sent", "bigint unsigned", None),
    ("rows_sent_avg", "decimal(21,0)", None),
    ("rows_examined", "bigint unsigned", None),
    ("rows_examined_avg", "decimal(21,0)", None),
    ("rows_affected", "bigint unsigned", None),
    ("rows_affected_avg", "decimal(21,0)", None),
    ("tmp_tables", "bigint unsigned", None),
    ("tmp_disk_tables", "bigint unsigned", None),
    ("rows_sorted", "bigint unsigned", None),
    ("sort_merge_passes", "bigint unsigned", None),
    ("max_controlled_memory", "bigint unsigned", Some("text")),
    ("max_total_memory", "bigint unsigned", Some("text")),
    ("digest", "varchar(64)", None),
    ("first_seen", "timestamp(6)", None),
    ("last_seen", "timestamp(6)", None),
];

/// `statements_with_errors_or_warnings`' columns (the same in both forms).
const ERRORS: [ViewColumn; 10] = [
    ("query", "longtext", None),
    ("db", "varchar(64)", None),
    ("exec_count", "bigint unsigned", None),
    ("errors", "bigint unsigned", None),
    ("error_pct", "decimal(27,4)", None),
    ("warnings", "bigint unsigned", None),
    ("warning_pct", "decimal(27,4)", None),
    ("first_seen", "timestamp(6)", None),
    ("last_seen", "timestamp(6)", None),
    ("digest", "varchar(64)", None),
];

/// `statements_with_runtimes_in_95th_percentile`'s columns, as [`ANALYSIS`]' of the same names.
const RUNTIMES: [ViewColumn; 16] = [
    ("query", "longtext", None),
    ("db", "varchar(64)", None),
    ("full_scan", "varchar(1)", None),
    ("exec_count", "bigint unsigned", None),
    ("err_count", "bigint unsigned", None),
    ("warn_count", "bigint unsigned", None),
    ("total_latency", "bigint unsigned", Some("text")),
    ("max_latency", "bigint unsigned", Some("text")),
    ("avg_latency", "bigint unsigned", Some("text")),
    ("rows_sent", "bigint unsigned", None),
    ("rows_sent_avg", "decimal(21,0)", None),
    ("rows_examined", "bigint unsigned", None),
    ("rows_examined_avg", "decimal(21,0)", None),
    ("first_seen", "timestamp(6)", None),
    ("last_seen", "timestamp(6)", None),
    ("digest", "varchar(64)", None),
];

/// `x$ps_digest_avg_latency_distribution`: digests by average latency in microseconds.
const AVG_US: &str = "(SELECT count(*) AS cnt, round(AVG_TIMER_WAIT / 1000000.0) AS avg_us
      FROM performance_schema.events_statements_summary_by_digest GROUP BY avg_us)";

/// `statements_with_runtimes_in_95th_percentile`'s rows (`{query}`, `{time}` as below; `{avg_us}`
/// is [`AVG_US`]; the join is `x$ps_digest_95th_percentile_by_avg_us`).
const RUNTIME_ROWS: &str = "
INSERT INTO sys.`{view}`
SELECT {query}(DIGEST_TEXT), SCHEMA_NAME, NULL, COUNT_STAR, SUM_ERRORS, SUM_WARNINGS,
       {time}(SUM_TIMER_WAIT), {time}(MAX_TIMER_WAIT), {time}(AVG_TIMER_WAIT),
       SUM_ROWS_SENT, round(ifnull(SUM_ROWS_SENT * 1.0 / nullif(COUNT_STAR, 0), 0)),
       NULL, NULL, FIRST_SEEN, LAST_SEEN, DIGEST
FROM performance_schema.events_statements_summary_by_digest AS stmts
JOIN (SELECT s2.avg_us AS avg_us,
             ifnull(sum(s1.cnt) * 1.0 / nullif((SELECT count(*)
               FROM performance_schema.events_statements_summary_by_digest), 0), 0) AS percentile
      FROM {avg_us} AS s1 JOIN {avg_us} AS s2 ON s1.avg_us <= s2.avg_us
      GROUP BY s2.avg_us
      HAVING percentile > 0.95
      ORDER BY percentile LIMIT 1) AS top_percentile
  ON round(stmts.AVG_TIMER_WAIT / 1000000.0) >= top_percentile.avg_us
ORDER BY AVG_TIMER_WAIT DESC;";

/// `x$statement_analysis`' rows (`{query}` and `{time}` stand for the formatting of the text
/// and of a latency, `{bytes}` of a size: none in the `x$` form).
const ANALYSIS_ROWS: &str = "
INSERT INTO sys.`{view}`
SELECT {query}(DIGEST_TEXT), SCHEMA_NAME, CASE WHEN SUM_NO_INDEX_USED > 0 THEN '*' ELSE '' END,
       COUNT_STAR, SUM_ERRORS, SUM_WARNINGS,
       {time}(SUM_TIMER_WAIT), {time}(MAX_TIMER_WAIT), {time}(AVG_TIMER_WAIT),
       {time}(SUM_LOCK_TIME), NULL,
       SUM_ROWS_SENT, round(ifnull(SUM_ROWS_SENT * 1.0 / nullif(COUNT_STAR, 0), 0)),
       NULL, NULL,
       SUM_ROWS_AFFECTED, round(ifnull(SUM_ROWS_AFFECTED * 1.0 / nullif(COUNT_STAR, 0), 0)),
       NULL, NULL, NULL, NULL, NULL, NULL,
       DIGEST, FIRST_SEEN, LAST_SEEN
FROM performance_schema.events_statements_summary_by_digest
ORDER BY SUM_TIMER_WAIT DESC;";

/// `statements_with_errors_or_warnings`' rows (`{query}` as above).
const ERROR_ROWS: &str = "
INSERT INTO sys.`{view}`
SELECT {query}(DIGEST_TEXT), SCHEMA_NAME, COUNT_STAR,
       SUM_ERRORS, round(ifnull(SUM_ERRORS * 1.0 / nullif(COUNT_STAR, 0), 0) * 100, 4),
       SUM_WARNINGS, round(ifnull(SUM_WARNINGS * 1.0 / nullif(COUNT_STAR, 0), 0) * 100, 4),
       FIRST_SEEN, LAST_SEEN, DIGEST
FROM performance_schema.events_statements_summary_by_digest
WHERE SUM_ERRORS > 0 OR SUM_WARNINGS > 0
ORDER BY SUM_ERRORS DESC, SUM_WARNINGS DESC;";

/// Fills the four views from one snapshot of the digest table.
pub(super) fn refresh(db: &mut EngineConn, src: &Sources<'_>) -> Result<(), ServerError> {
    super::fill(db, SOURCE, src)?;
    let format = crate::functions::FORMAT_STATEMENT;
    let mut sql = String::new();
    for view in VIEWS {
        let formatted = !view.starts_with("x$");
        let cols = (defs(view).iter())
            .map(|(name, ty)| format!("`{name}` {ty}"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = write!(
            sql,
            "DROP TABLE IF EXISTS sys.`{view}`; CREATE TABLE sys.`{view}` ({cols});"
        );
        let rows = match super::sys_scans::rows(view) {
            Some(rows) => rows,
            None if view.ends_with("statement_analysis") => ANALYSIS_ROWS,
            None if view.ends_with("95th_percentile") => RUNTIME_ROWS,
            None => ERROR_ROWS,
        };
        let (query, time) = if formatted {
            (format, "format_pico_time")
        } else {
            ("", "")
        };
        sql.push_str(
            &rows
                .replace("{view}", view)
                .replace("{avg_us}", AVG_US)
                .replace("{query}", query)
                .replace("{time}", time),
        );
    }
    super::wrap(db, &sql)
}

/// The columns of `view` (one of [`VIEWS`]), with their types.
pub(super) fn defs(view: &str) -> Vec<Def> {
    if let Some(defs) = super::sys_scans::defs(view) {
        return defs;
    }
    let cols: &[ViewColumn] = if view.ends_with("statement_analysis") {
        &ANALYSIS
    } else if view.ends_with("95th_percentile") {
        &RUNTIMES
    } else {
        &ERRORS
    };
    view_defs(cols, !view.starts_with("x$"))
}

/// How many values the SELECT of a view's `INSERT ... SELECT ... \nFROM` gives: its
/// top-level commas plus one (the sys modules' tests check it against the view's columns).
#[cfg(test)]
pub(super) fn select_width(sql: &str) -> usize {
    let select = sql.split("SELECT").nth(1).unwrap_or_default();
    let list = select.split("\nFROM").next().unwrap_or_default();
    let mut depth = 0;
    let mut n = 1;
    for c in list.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => n += 1,
            _ => {}
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_fill_every_column() {
        // Each INSERT gives as many values as its view has columns.
        let count = select_width;
        assert_eq!(count(ANALYSIS_ROWS), ANALYSIS.len());
        assert_eq!(count(ERROR_ROWS), ERRORS.len());
        assert_eq!(count(RUNTIME_ROWS), RUNTIMES.len());
        assert_eq!(defs("statement_analysis")[6], ("total_latency", "text"));
        assert_eq!(
            defs("x$statement_analysis")[6],
            ("total_latency", "bigint unsigned")
        );
    }
}
