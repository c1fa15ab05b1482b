//! `sys.user_summary`, `sys.host_summary`, `sys.user_summary_by_statement_type`,
//! `sys.host_summary_by_statement_type` and their `x$` forms: MySQL 8.0 sys schema's reports
//! of who runs what (`SELECT * FROM sys.user_summary`), over `accounts` and the statement
//! summaries by user and by host (`summaries.rs`).
//!
//! As in MySQL (`scripts/sys_schema/views/p_s/user_summary.sql`, `host_summary.sql`,
//! `user_summary_by_statement_type.sql`, their `x_` forms, and the
//! `x$user_summary_by_statement_latency` they join): a `user_summary` row per user of
//! `accounts` (`background` for the NULL one), its statements and latencies from the summary
//! by user, its connections summed over its accounts, `unique_hosts` its accounts' hosts; as
//! MySQL's, the join comes before the grouping, so a user with accounts on two hosts shows its
//! statements twice. `host_summary` is the same by host, an inner join as MySQL's (no
//! `background` row: a NULL host joins nothing), and likewise counts a host's statements
//! once per user of it (three users from 127.0.0.1: three times), as MySQL's does. The `_by_statement_type` views are a row per
//! key and statement class with time counted (`SUM_TIMER_WAIT != 0`), the statement the
//! class's last name part. The `x$` forms keep picoseconds; the others pass them through
//! `FORMAT_PICO_TIME` and sizes through `FORMAT_BYTES`. Each is computed by SQLite over fresh
//! snapshots, so `WHERE`, `ORDER BY` and `LIMIT` work as on any snapshot.
//!
//! What the server does not count: `file_ios`, `file_io_latency`, `current_memory` and
//! `total_memory_allocated` are 0 (no file I/O or memory is instrumented: what MySQL shows with
//! those instruments off), NULL where the join finds no statement row.
//! The `_by_statement_type` views' `rows_examined` is NULL: the summaries by user and host have
//! no `SUM_ROWS_EXAMINED` here (`sys_statements.rs` says the same of the digest reports); their
//! `lock_latency`, `rows_sent` and `rows_affected` are the summaries' `SUM_LOCK_TIME`,
//! `SUM_ROWS_SENT` and `SUM_ROWS_AFFECTED`, as MySQL's, and `full_scans` (and the summaries'
//! `table_scans`, its sum) their `SUM_NO_INDEX_USED` (MySQL adds `SUM_NO_GOOD_INDEX_USED`,
//! which SQLite gives no source for: `statement_event/engine.rs`).

use std::fmt::Write as _;

use super::columns::{view_defs, Def, ViewColumn};
use super::Sources;
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The views, as `sys` names them.
pub(super) const VIEWS: [&str; 8] = [
    "host_summary",
    "host_summary_by_statement_type",
    "user_summary",
    "user_summary_by_statement_type",
    "x$host_summary",
    "x$host_summary_by_statement_type",
    "x$user_summary",
    "x$user_summary_by_statement_type",
];

/// The `performance_schema` tables the views are computed over.
pub(super) const SOURCES: [&str; 3] = [
    "accounts",
    "events_statements_summary_by_user_by_event_name",
    "events_statements_summary_by_host_by_event_name",
];

/// `user_summary`'s columns with `x$user_summary`'s types, or the formatted view's (`Some`):
/// the types of the view's `SUM`s of `SUM`s, divisions and `COUNT` (as MariaDB 10.11's sys
/// derives them from the same SQL). `host_summary`'s are the same with `host` and
/// `unique_users`.
const SUMMARY: [ViewColumn; 12] = [
    ("user", "varchar(32)", None),
    ("statements", "decimal(64,0)", None),
    ("statement_latency", "decimal(64,0)", Some("text")),
    ("statement_avg_latency", "decimal(65,4)", Some("text")),
    ("table_scans", "decimal(65,0)", None),
    ("file_ios", "decimal(64,0)", None),
    ("file_io_latency", "decimal(64,0)", Some("text")),
    ("current_connections", "decimal(41,0)", None),
    ("total_connections", "decimal(41,0)", None),
    ("unique_hosts", "bigint NOT NULL", None),
    ("current_memory", "decimal(63,0)", Some("text")),
    ("total_memory_allocated", "decimal(64,0)", Some("text")),
];

/// `user_summary_by_statement_type`'s columns (`host` first in the host's).
const BY_TYPE: [ViewColumn; 10] = [
    ("user", "varchar(32)", None),
    ("statement", "varchar(128)", None),
    ("total", "bigint unsigned", None),
    ("total_latency", "bigint unsigned", Some("text")),
    ("max_latency", "bigint unsigned", Some("text")),
    ("lock_latency", "bigint unsigned", Some("text")),
    ("rows_sent", "bigint unsigned", None),
    ("rows_examined", "bigint unsigned", None),
    ("rows_affected", "bigint unsigned", None),
    ("full_scans", "bigint unsigned", None),
];

/// `x$user_summary_by_statement_latency` (the columns the summary reads), by `{by}` (`user`
/// or `host`), `{KEY}` its column; what is not counted as the module docs say.
const STATEMENT_LATENCY: &str = "
(SELECT CASE WHEN {KEY} IS NULL THEN 'background' ELSE {KEY} END AS k,
        SUM(COUNT_STAR) AS total, SUM(SUM_TIMER_WAIT) AS total_latency,
        SUM(SUM_NO_INDEX_USED) AS full_scans,
        0 AS ios, 0 AS io_latency, 0 AS current_allocated, 0 AS total_allocated
 FROM performance_schema.events_statements_summary_by_{by}_by_event_name GROUP BY 1)";

/// `x$user_summary`'s rows (`{time}` and `{bytes}` the formatting of a latency and a size:
/// none in the `x$` form; `{stmt}` [`STATEMENT_LATENCY`]).
const USER_ROWS: &str = "
INSERT INTO sys.`{view}`
SELECT CASE WHEN a.USER IS NULL THEN 'background' ELSE a.USER END,
       SUM(s.total), {time}(SUM(s.total_latency)),
       {time}(ifnull(SUM(s.total_latency) * 1.0 / nullif(SUM(s.total), 0), 0)),
       SUM(s.full_scans), SUM(s.ios), {time}(SUM(s.io_latency)),
       SUM(a.CURRENT_CONNECTIONS), SUM(a.TOTAL_CONNECTIONS), COUNT(DISTINCT a.HOST),
       {bytes}(SUM(s.current_allocated)), {bytes}(SUM(s.total_allocated))
FROM performance_schema.accounts a
LEFT JOIN {stmt} s ON CASE WHEN a.USER IS NULL THEN 'background' ELSE a.USER END = s.k
GROUP BY 1
ORDER BY SUM(s.total_latency) DESC;";

/// `x$host_summary`'s rows: an inner join on the host, as MySQL's.
const HOST_ROWS: &str = "
INSERT INTO sys.`{view}`
SELECT CASE WHEN a.HOST IS NULL THEN 'background' ELSE a.HOST END,
       SUM(s.total), {time}(SUM(s.total_latency)),
       {time}(ifnull(SUM(s.total_latency) * 1.0 / nullif(SUM(s.total), 0), 0)),
       SUM(s.full_scans), SUM(s.ios), {time}(SUM(s.io_latency)),
       SUM(a.CURRENT_CONNECTIONS), SUM(a.TOTAL_CONNECTIONS), COUNT(DISTINCT a.USER),
       {bytes}(SUM(s.current_allocated)), {bytes}(SUM(s.total_allocated))
FROM performance_schema.accounts a
JOIN {stmt} s ON a.HOST = s.k
GROUP BY 1;";

/// `x$user_summary_by_statement_type`'s rows (`{by}`, `{KEY}` as above): MySQL's
/// `SUBSTRING_INDEX(event_name, '/', -1)` is what follows the last `/`.
const TYPE_ROWS: &str = "
INSERT INTO sys.`{view}`
SELECT CASE WHEN {KEY} IS NULL THEN 'background' ELSE {KEY} END,
       substr(EVENT_NAME, length(rtrim(EVENT_NAME, replace(EVENT_NAME, '/', ''))) + 1),
       COUNT_STAR, {time}(SUM_TIMER_WAIT), {time}(MAX_TIMER_WAIT), {time}(SUM_LOCK_TIME),
       SUM_ROWS_SENT, NULL, SUM_ROWS_AFFECTED, SUM_NO_INDEX_USED
FROM performance_schema.events_statements_summary_by_{by}_by_event_name
WHERE SUM_TIMER_WAIT != 0
ORDER BY 1, SUM_TIMER_WAIT DESC;";

/// Fills the views from one snapshot of each source.
pub(super) fn refresh(db: &mut EngineConn, src: &Sources<'_>) -> Result<(), ServerError> {
    for t in SOURCES {
        super::fill(db, t, src)?;
    }
    let mut sql = String::new();
    for view in VIEWS {
        let cols = (defs(view).iter())
            .map(|(name, ty)| format!("`{name}` {ty}"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = write!(
            sql,
            "DROP TABLE IF EXISTS sys.`{view}`; CREATE TABLE sys.`{view}` ({cols});"
        );
        let (time, bytes) = match view.starts_with("x$") {
            true => ("", ""),
            false => ("format_pico_time", "format_bytes"),
        };
        let by = if view.contains("user_") {
            "user"
        } else {
            "host"
        };
        let rows = match (view.ends_with("statement_type"), by) {
            (true, _) => TYPE_ROWS,
            (false, "user") => USER_ROWS,
            _ => HOST_ROWS,
        };
        sql.push_str(
            &(rows.replace("{stmt}", STATEMENT_LATENCY))
                .replace("{view}", view)
                .replace("{by}", by)
                .replace("{KEY}", &by.to_ascii_uppercase())
                .replace("{time}", time)
                .replace("{bytes}", bytes),
        );
    }
    super::wrap(db, &sql)
}

/// The columns of `view` (one of [`VIEWS`]), with their types.
pub(super) fn defs(view: &str) -> Vec<Def> {
    let cols: &[ViewColumn] = match view.ends_with("statement_type") {
        true => &BY_TYPE,
        false => &SUMMARY,
    };
    let mut defs = view_defs(cols, !view.starts_with("x$"));
    if view.contains("host_") {
        defs[0].0 = "host";
        if let Some(d) = defs.iter_mut().find(|d| d.0 == "unique_hosts") {
            d.0 = "unique_users";
        }
    }
    defs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_fill_every_column() {
        // Each INSERT gives as many values as its view has columns.
        let count = super::super::sys_statements::select_width;
        assert_eq!(count(USER_ROWS), SUMMARY.len());
        assert_eq!(count(HOST_ROWS), SUMMARY.len());
        assert_eq!(count(TYPE_ROWS), BY_TYPE.len());
        let host = defs("host_summary");
        assert_eq!((host[0].0, host[9].0), ("host", "unique_users"));
        assert_eq!(defs("user_summary")[2], ("statement_latency", "text"));
        assert_eq!(defs("x$host_summary_by_statement_type")[0].0, "host");
    }
}
