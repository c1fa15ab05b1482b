//! `sys.processlist`, `sys.x$processlist`, `sys.session` and `sys.x$session`: MySQL 8.0 sys
//! schema's process lists, what a DBA types first in a metadata-lock pile-up (`SELECT
//! conn_id, state, time, current_statement, last_wait FROM sys.session ORDER BY time DESC`):
//! one row per thread, with its statement, its latency, its last wait and its transaction.
//!
//! As in MySQL (sys 8.0.29+, `views/p_s/x_processlist.sql`, `processlist.sql`,
//! `x_sessions.sql`, `sessions.sql`): `x$processlist` is `performance_schema.threads` with
//! each thread's current statement (`events_statements_current`) and current or last wait
//! (`events_waits_current`); `processlist` is the same with latencies through
//! `FORMAT_PICO_TIME` (`'1.23 s'`), sizes through `FORMAT_BYTES` and statements through
//! `sys.format_statement` (more than 64 characters: the first 30, `' ... '`, the last 30);
//! `x$session` and `session` keep the rows with a `conn_id` whose command is not `Daemon`,
//! the client connections. The columns are sys 8.0's, in its order, with MySQL's types; rows
//! come in MySQL's order (`time` descending, then `last_wait_latency`). Each is computed by
//! SQLite over fresh snapshots of those tables and of `performance_schema.processlist` (the
//! `processlist_*` columns MySQL's `threads` has), filled once for the statement, so `WHERE`,
//! `ORDER BY` and joins work on them as on any snapshot.
//!
//! Where the values come from:
//!
//! * `user` is `user@host` of a connection's thread (`thread/sql/one_connection`), the
//!   thread's name without `thread/` for the others; `db`, `command`, `state`, `time` and
//!   `current_statement` are the process list's, so a statement waiting for a metadata lock
//!   shows `Waiting for table metadata lock` and its text.
//! * `last_wait` is the thread's current wait, else its last one: a statement waiting for a
//!   metadata lock shows `wait/lock/metadata/sql/mdl` with `last_wait_latency` `Still
//!   Waiting`, as in MySQL. As there, the `events_waits_current` consumer must be on (`UPDATE
//!   performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME =
//!   'events_waits_current'`): MySQL's default leaves it off, and `last_wait` NULL.
//! * `statement_latency`: how long the running statement has run, its event's `TIMER_WAIT`
//!   so far (when the statement is untimed, the time in the command, to the nanosecond);
//!   `last_statement` and `last_statement_latency`: the last statement of an idle thread, its
//!   `SQL_TEXT` (a prepared statement's: the text it was prepared from) and its `TIMER_WAIT`.
//! * `lock_latency`, `rows_sent`, `rows_affected`: the statement event's `LOCK_TIME`,
//!   `ROWS_SENT` and `ROWS_AFFECTED`, as in sys 8.0 (`statement_event.rs` says what each
//!   holds: the metadata-lock wait, and for a running statement 0 rows until it ends);
//!   `full_scan`: `YES` when the event's `NO_INDEX_USED` is set (SQLite stepped a full scan,
//!   `statement_event/engine.rs`; set at the statement's end, as MySQL's), else `NO`.
//! * `trx_latency`, `trx_state` (`ACTIVE`), `trx_autocommit` (`NO`): the connection's open
//!   transaction, as `information_schema.INNODB_TRX` lists it (from its first statement after
//!   `BEGIN`, or with `autocommit` off). MySQL's `events_transactions_current` also shows a
//!   statement's own transaction under `autocommit` and the last ended one (`COMMITTED`):
//!   `pfs` keeps them there too (`trx_event.rs`), but these views read the process list's
//!   open transaction, so those columns are NULL here.
//! * `execution_engine` is `PRIMARY`, as MySQL's without HeatWave.
//! * NULL, since neither `pfs` nor the server measures them: `progress` (no stage reports
//!   work), `cpu_latency`, `rows_examined`, `tmp_tables`, `tmp_disk_tables`, `current_memory` (no memory
//!   instrumentation), `source` (waits carry no source line).
//! * `pid` and `program_name`: the connection's attributes `_pid` and `program_name`, as sys
//!   8.0 reads them from `performance_schema.session_connect_attrs` (`connect_attrs.rs`);
//!   NULL for a client that sent none (`mysql_async` without `connect_attribute`, the
//!   server's own threads).
//!
//! A connection the thread table does not list (with `pfs` compiled out, or while its thread
//! registers) is still listed, from the process list, with a NULL `thd_id`.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use serde_json::Value as Json;

use super::{literal, Sources};
use crate::engine::EngineConn;
use crate::error::ServerError;
use crate::processlist::Process;

/// The views, as `sys` names them.
pub(super) const VIEWS: [&str; 4] = ["processlist", "session", "x$processlist", "x$session"];

/// The `performance_schema` tables the views are computed over.
pub(super) const SOURCES: [&str; 5] = [
    "threads",
    "processlist",
    "events_statements_current",
    "events_waits_current",
    "session_connect_attrs",
];

/// sys 8.0's columns, with `x$processlist`'s types (`None`) or `processlist`'s where they
/// differ (the formatted ones).
const COLUMNS: [super::columns::ViewColumn; 30] = [
    ("thd_id", "bigint unsigned", None),
    ("conn_id", "bigint unsigned", None),
    ("user", "varchar(288)", None),
    ("db", "varchar(64)", None),
    ("command", "varchar(16)", None),
    ("state", "varchar(64)", None),
    ("time", "bigint", None),
    ("current_statement", "longtext", None),
    ("execution_engine", "varchar(9)", None),
    ("statement_latency", "bigint unsigned", Some("text")),
    ("progress", "decimal(26,2)", None),
    ("lock_latency", "bigint unsigned", Some("text")),
    ("cpu_latency", "bigint unsigned", Some("text")),
    ("rows_examined", "bigint unsigned", None),
    ("rows_sent", "bigint unsigned", None),
    ("rows_affected", "bigint unsigned", None),
    ("tmp_tables", "bigint unsigned", None),
    ("tmp_disk_tables", "bigint unsigned", None),
    ("full_scan", "varchar(3)", None),
    ("last_statement", "longtext", None),
    ("last_statement_latency", "bigint unsigned", Some("text")),
    ("current_memory", "decimal(41,0)", Some("text")),
    ("last_wait", "varchar(128)", None),
    ("last_wait_latency", "varchar(20)", Some("text")),
    ("source", "varchar(64)", None),
    ("trx_latency", "bigint unsigned", Some("text")),
    ("trx_state", "varchar(11)", None),
    ("trx_autocommit", "varchar(3)", None),
    ("pid", "varchar(1024)", None),
    ("program_name", "varchar(1024)", None),
];

/// `x$processlist`'s rows: the threads with the process list's columns (MySQL's `threads`
/// has them), joined with each thread's latest current statement and wait, `clock`, the
/// connections' times to the nanosecond (`{clock}`, filled per snapshot), and the
/// connection's attributes `_pid` and `program_name`, as sys 8.0 joins them.
const X_PROCESSLIST: &str = "
INSERT INTO sys.`x$processlist`
WITH clock(conn_id, account, elapsed_ps, trx_ps) AS ({clock}),
pps AS (
  SELECT t.THREAD_ID AS thread_id, t.NAME AS name, t.PROCESSLIST_ID AS processlist_id,
         t.PROCESSLIST_USER || '@' || t.PROCESSLIST_HOST AS account, p.DB AS db,
         p.COMMAND AS command, p.STATE AS state, p.TIME AS time, p.INFO AS info
  FROM performance_schema.threads t
  LEFT JOIN performance_schema.processlist p ON p.ID = t.PROCESSLIST_ID
  UNION ALL
  SELECT NULL, 'thread/sql/one_connection', p.ID, NULL, p.DB, p.COMMAND, p.STATE, p.TIME, p.INFO
  FROM performance_schema.processlist p
  WHERE p.ID NOT IN (SELECT PROCESSLIST_ID FROM performance_schema.threads
                     WHERE PROCESSLIST_ID IS NOT NULL)
),
esc AS (
  SELECT * FROM performance_schema.events_statements_current e
  WHERE e.EVENT_ID = (SELECT max(EVENT_ID) FROM performance_schema.events_statements_current
                      WHERE THREAD_ID = e.THREAD_ID)
),
ewc AS (
  SELECT * FROM performance_schema.events_waits_current e
  WHERE e.EVENT_ID = (SELECT max(EVENT_ID) FROM performance_schema.events_waits_current
                      WHERE THREAD_ID = e.THREAD_ID)
)
SELECT pps.thread_id, pps.processlist_id,
       CASE WHEN pps.name IN ('thread/sql/one_connection',
                              'thread/thread_pool/tp_one_connection')
            THEN coalesce(pps.account, c.account)
            ELSE replace(pps.name, 'thread/', '') END,
       pps.db, pps.command, pps.state, pps.time, pps.info, 'PRIMARY',
       CASE WHEN esc.THREAD_ID IS NOT NULL AND esc.END_EVENT_ID IS NULL
            THEN coalesce(esc.TIMER_WAIT, c.elapsed_ps) END,
       NULL, esc.LOCK_TIME, NULL, NULL, esc.ROWS_SENT, esc.ROWS_AFFECTED, NULL, NULL,
       CASE WHEN esc.NO_INDEX_USED > 0 THEN 'YES' ELSE 'NO' END,
       CASE WHEN esc.END_EVENT_ID IS NOT NULL THEN esc.SQL_TEXT END,
       CASE WHEN esc.END_EVENT_ID IS NOT NULL THEN esc.TIMER_WAIT END,
       NULL, ewc.EVENT_NAME,
       CASE WHEN ewc.END_EVENT_ID IS NULL AND ewc.EVENT_NAME IS NOT NULL
            THEN 'Still Waiting' ELSE ewc.TIMER_WAIT END,
       NULL, c.trx_ps,
       CASE WHEN c.trx_ps IS NOT NULL THEN 'ACTIVE' END,
       CASE WHEN c.trx_ps IS NOT NULL THEN 'NO' END,
       conattr_pid.ATTR_VALUE, conattr_progname.ATTR_VALUE
FROM pps
LEFT JOIN esc ON esc.THREAD_ID = pps.thread_id
LEFT JOIN ewc ON ewc.THREAD_ID = pps.thread_id
LEFT JOIN clock c ON c.conn_id = pps.processlist_id
LEFT JOIN performance_schema.session_connect_attrs conattr_pid
  ON conattr_pid.PROCESSLIST_ID = pps.processlist_id AND conattr_pid.ATTR_NAME = '_pid'
LEFT JOIN performance_schema.session_connect_attrs conattr_progname
  ON conattr_progname.PROCESSLIST_ID = pps.processlist_id
 AND conattr_progname.ATTR_NAME = 'program_name'
ORDER BY 7 DESC, 24 DESC;";

/// `processlist`'s rows: `x$processlist`'s, formatted (`{current}` and `{last}` stand for
/// `sys.format_statement` of the statements).
const PROCESSLIST: &str = "
INSERT INTO sys.processlist
SELECT thd_id, conn_id, user, db, command, state, time, {current}, execution_engine,
       format_pico_time(statement_latency), progress, format_pico_time(lock_latency),
       format_pico_time(cpu_latency), rows_examined, rows_sent, rows_affected, tmp_tables,
       tmp_disk_tables, full_scan, {last}, format_pico_time(last_statement_latency),
       format_bytes(current_memory), last_wait,
       CASE WHEN last_wait_latency = 'Still Waiting' THEN last_wait_latency
            ELSE format_pico_time(last_wait_latency) END,
       source, format_pico_time(trx_latency), trx_state, trx_autocommit, pid, program_name
FROM sys.`x$processlist` ORDER BY rowid;";

/// The sessions: the client connections' rows of `{from}`, into `{into}`.
const SESSION: &str = "
INSERT INTO sys.`{into}` SELECT * FROM sys.`{from}`
WHERE conn_id IS NOT NULL AND command != 'Daemon' ORDER BY rowid;";

/// Fills the four views (and their [`SOURCES`]) from one read of the process list.
pub(super) fn refresh(db: &mut EngineConn, src: &Sources<'_>) -> Result<(), ServerError> {
    let procs = (src.processes)();
    for t in SOURCES {
        match t {
            // The same read for both: `threads` makes the `processlist` snapshot too.
            "threads" => super::threads(db, &procs)?,
            "processlist" => {}
            "session_connect_attrs" => super::connect_attrs::load(db, t, &procs, src.session)?,
            _ => super::fill(db, t, src)?,
        }
    }
    let mut sql = String::new();
    for (view, formatted) in [
        ("x$processlist", false),
        ("processlist", true),
        ("x$session", false),
        ("session", true),
    ] {
        let _ = write!(
            sql,
            "DROP TABLE IF EXISTS sys.`{view}`; CREATE TABLE sys.`{view}` ({});",
            columns(formatted)
        );
    }
    sql.push_str(&X_PROCESSLIST.replace("{clock}", &clock(&procs, SystemTime::now())));
    sql.push_str(
        &PROCESSLIST
            .replace("{current}", &format_statement("current_statement"))
            .replace("{last}", &format_statement("last_statement")),
    );
    for (into, from) in [("x$session", "x$processlist"), ("session", "processlist")] {
        sql.push_str(&SESSION.replace("{into}", into).replace("{from}", from));
    }
    super::wrap(db, &sql)
}

/// The columns of `x$processlist` and `x$session` or (`formatted`) `processlist` and
/// `session`, with their types.
pub(super) fn defs(formatted: bool) -> Vec<super::columns::Def> {
    super::columns::view_defs(&COLUMNS, formatted)
}

/// The column definitions of `x$processlist` or (`formatted`) `processlist`.
fn columns(formatted: bool) -> String {
    (defs(formatted).iter())
        .map(|(name, ty)| format!("`{name}` {ty}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `sys.format_statement(column)` (`functions/sys_schema.rs`).
fn format_statement(column: &str) -> String {
    format!("{}({column})", crate::functions::FORMAT_STATEMENT)
}

/// The `clock` rows: each connection's id, `user@host`, time in its command and age of its
/// open transaction, in picoseconds at `now` (after a row of NULLs, which joins nothing, so
/// that the list is never empty).
fn clock(procs: &[Process], now: SystemTime) -> String {
    let mut sql = String::from("VALUES (NULL, NULL, NULL, NULL)");
    for p in procs {
        let account = format!("{}@{}", p.user, crate::session_values::host_of(&p.host));
        let trx = (p.transaction)
            .map(|t| now.duration_since(t.started).unwrap_or_default())
            .map_or("NULL".to_string(), |d| ps(d).to_string());
        let _ = write!(
            sql,
            ", ({}, {}, {}, {trx})",
            p.id,
            literal(&Json::from(account)),
            ps(p.elapsed)
        );
    }
    sql
}

/// `d` in picoseconds (saturating: 106 days fill an `i64`).
fn ps(d: Duration) -> i64 {
    i64::try_from(d.as_nanos().saturating_mul(1000)).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_sys_80s() {
        let raw = columns(false);
        assert!(raw.starts_with("`thd_id` bigint unsigned, `conn_id` bigint unsigned"));
        assert!(raw.contains("`statement_latency` bigint unsigned"));
        assert!(columns(true).contains("`statement_latency` text"));
        assert!(raw.ends_with("`pid` varchar(1024), `program_name` varchar(1024)"));
    }

    #[test]
    fn clock_lists_each_connection() {
        assert_eq!(
            clock(&[], SystemTime::now()),
            "VALUES (NULL, NULL, NULL, NULL)"
        );
        assert_eq!(ps(Duration::from_millis(3)), 3_000_000_000);
        assert_eq!(ps(Duration::from_secs(u64::MAX)), i64::MAX);
    }
}
