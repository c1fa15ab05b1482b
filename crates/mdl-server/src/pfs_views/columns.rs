//! The column definitions of the `performance_schema` tables (`pfs_views::TABLES`) and of the
//! `sys` views (`pfs_views::SYS_TABLES`): what `DESCRIBE`, `SHOW [FULL] COLUMNS`, `SHOW CREATE
//! TABLE`, `SHOW INDEX` and `information_schema.COLUMNS` say of them, without a snapshot, and
//! the types of the snapshot tables (`pfs_views.rs`), so that SQLite's affinity follows them.
//!
//! A definition is MySQL's type, then ` NOT NULL` and ` DEFAULT '...'` where MySQL has them.
//! The `performance_schema` facts are MySQL 8.0's own table definitions, the `Plugin_table` DDL
//! of `storage/perfschema/table_*.cc` in mysql-server, named per table below (`setup_timers`,
//! gone in 8.0, is 5.7's; the connection tables' are in `connections.rs`, the connection
//! attributes' in `connect_attrs.rs`). The `sys` views' types are kept where their snapshots
//! are made (`sys_processlist.rs`, `sys_statements.rs`, `sys_server.rs`,
//! `innodb_lock_waits.rs`, `pfs_views.rs`), and so are `data_locks`' and `data_lock_waits'`
//! (`data_locks.rs`), the synchronization instances' (`instances.rs`) and `setup_objects`'
//! (`setup_objects.rs`).
//!
//! Where these differ from MySQL's:
//!
//! * A table has the columns its rows have (the `pfs` row types' `HEADERS`, and what
//!   `threads`, `processlist`, `variables.rs` and `connect_attrs.rs` add), in their order: MySQL's columns the
//!   server does not fill (`SOURCE`, `SPINS`, `ROWS_EXAMINED`, ...) are not there. A unit test
//!   keeps the two the same.
//! * Columns of this server's own (`metadata_locks.OWNER_CONTEXT_*`, `setup_instruments.
//!   COMPILED`, `performance_timers.READ_COST_PS` and `USED_BY`, `events_stages_*.DIGEST_TEXT`,
//!   and the tables `metadata_lock_waits` and `metadata_deadlocks`) have types chosen here in
//!   MySQL's manner: ids `bigint unsigned`, lock types `varchar(32)`, labels `varchar(128)`.
//! * `NOT NULL` only where the row can carry no NULL: an insert of NULL would fail the whole
//!   snapshot. `threads.NAME`, `NOT NULL` in MySQL, is nullable (a thread `pfs` knows without a
//!   name); `processlist.ID` is `NOT NULL`, as MySQL's primary key makes it.
//! * No keys. MySQL's tables have some (`PRIMARY KEY (THREAD_ID) USING HASH`, ...); a snapshot
//!   is made again for each statement that reads it, and keys would only slow the copy: `SHOW
//!   INDEX` has no rows, `DESCRIBE`'s `Key` is empty.
//! * No column character sets: text is utf8mb4 with the server's collation (`catalog.rs`), where
//!   MySQL makes host columns `CHARACTER SET ascii`.
//! * SQLite takes no `ENUM` type: the snapshot's column is `text`, the `ENUM` is what is shown.

use super::summaries::{HOST, USER};
use crate::catalog::Column;

/// A column: its name and its definition (see the module docs).
pub(crate) type Def = (&'static str, &'static str);

/// `metadata_locks`: `table_md_locks.cc`; `OWNER_CONTEXT_ID` and `_LABEL` are the lock
/// manager's (a context is a connection).
const METADATA_LOCKS: [Def; 13] = [
    ("OBJECT_TYPE", "varchar(64) NOT NULL"),
    ("OBJECT_SCHEMA", "varchar(64)"),
    ("OBJECT_NAME", "varchar(64)"),
    ("COLUMN_NAME", "varchar(64)"),
    ("OBJECT_INSTANCE_BEGIN", "bigint unsigned NOT NULL"),
    ("LOCK_TYPE", "varchar(32) NOT NULL"),
    ("LOCK_DURATION", "varchar(32) NOT NULL"),
    ("LOCK_STATUS", "varchar(32) NOT NULL"),
    ("SOURCE", "varchar(64)"),
    ("OWNER_THREAD_ID", "bigint unsigned"),
    ("OWNER_EVENT_ID", "bigint unsigned"),
    ("OWNER_CONTEXT_ID", "bigint unsigned"),
    ("OWNER_CONTEXT_LABEL", "varchar(128)"),
];

/// `metadata_lock_waits`, the lock manager's own (who blocks whom): types chosen as
/// `metadata_locks`' columns'.
const METADATA_LOCK_WAITS: [Def; 13] = [
    ("OBJECT_TYPE", "varchar(64) NOT NULL"),
    ("OBJECT_SCHEMA", "varchar(64)"),
    ("OBJECT_NAME", "varchar(64)"),
    ("WAITING_CONTEXT_ID", "bigint unsigned NOT NULL"),
    ("WAITING_CONTEXT_LABEL", "varchar(128)"),
    ("WAITING_LOCK_TYPE", "varchar(32) NOT NULL"),
    ("WAITING_LOCK_DURATION", "varchar(32) NOT NULL"),
    ("WAIT_AGE_MS", "bigint unsigned NOT NULL"),
    ("BLOCKING_CONTEXT_ID", "bigint unsigned"),
    ("BLOCKING_CONTEXT_LABEL", "varchar(128)"),
    ("BLOCKING_LOCK_TYPE", "varchar(32) NOT NULL"),
    ("BLOCKING_LOCK_DURATION", "varchar(32)"),
    ("BLOCK", "enum('HARD','SOFT') NOT NULL"),
];

/// `metadata_deadlocks`, the lock manager's own (one row per edge of each cycle); `OBJECT` is
/// a key as text (``TABLE `db`.`t` ``), `OCCUR_TIME` milliseconds since the Unix epoch.
const METADATA_DEADLOCKS: [Def; 12] = [
    ("DEADLOCK_ID", "bigint unsigned NOT NULL"),
    ("OCCUR_TIME", "bigint unsigned NOT NULL"),
    ("VICTIM_CONTEXT_ID", "bigint unsigned NOT NULL"),
    ("WAITING_CONTEXT_ID", "bigint unsigned NOT NULL"),
    ("WAITING_CONTEXT_LABEL", "varchar(128)"),
    ("WAITING_WEIGHT", "int unsigned NOT NULL"),
    ("OBJECT", "varchar(256) NOT NULL"),
    ("WAITING_LOCK_TYPE", "varchar(32) NOT NULL"),
    ("HOLDING_CONTEXT_ID", "bigint unsigned NOT NULL"),
    ("HOLDING_CONTEXT_LABEL", "varchar(128)"),
    ("HOLDING_LOCK_TYPE", "varchar(32) NOT NULL"),
    ("BLOCK", "enum('HARD','SOFT') NOT NULL"),
];

/// `threads`: `table_threads.cc` (8.0.17 on: hosts of 255 characters). `NAME` is nullable here
/// (module docs).
const THREADS: [Def; 13] = [
    ("THREAD_ID", "bigint unsigned NOT NULL"),
    ("NAME", "varchar(128)"),
    ("TYPE", "varchar(10) NOT NULL"),
    ("PROCESSLIST_ID", "bigint unsigned"),
    ("PROCESSLIST_USER", "varchar(32)"),
    ("PROCESSLIST_HOST", "varchar(255)"),
    ("PROCESSLIST_DB", "varchar(64)"),
    ("PROCESSLIST_COMMAND", "varchar(16)"),
    ("PROCESSLIST_TIME", "bigint"),
    ("PROCESSLIST_STATE", "varchar(64)"),
    ("PROCESSLIST_INFO", "longtext"),
    ("INSTRUMENTED", "enum('YES','NO') NOT NULL"),
    ("HISTORY", "enum('YES','NO') NOT NULL"),
];

/// `processlist`: `table_processlist.cc` (8.0.22's columns); `ID` is its primary key.
const PROCESSLIST: [Def; 8] = [
    ("ID", "bigint unsigned NOT NULL"),
    ("USER", "varchar(32)"),
    ("HOST", "varchar(261)"),
    ("DB", "varchar(64)"),
    ("COMMAND", "varchar(16)"),
    ("TIME", "bigint"),
    ("STATE", "varchar(64)"),
    ("INFO", "longtext"),
];

/// `setup_instruments`: `table_setup_instruments.cc`; `COMPILED` is the server's (whether
/// the kind is compiled in).
const SETUP_INSTRUMENTS: [Def; 4] = [
    ("NAME", "varchar(128) NOT NULL"),
    ("ENABLED", "enum('YES','NO') NOT NULL"),
    ("TIMED", "enum('YES','NO')"),
    ("COMPILED", "enum('YES','NO') NOT NULL"),
];

/// `setup_consumers`: `table_setup_consumers.cc`.
const SETUP_CONSUMERS: [Def; 2] = [
    ("NAME", "varchar(64) NOT NULL"),
    ("ENABLED", "enum('YES','NO') NOT NULL"),
];

/// `setup_timers`: MySQL 5.7's (`table_setup_timers.cc`, `scripts/mysql_system_tables.sql`).
const SETUP_TIMERS: [Def; 2] = [
    ("NAME", "varchar(64) NOT NULL"),
    (
        "TIMER_NAME",
        "enum('CYCLE','NANOSECOND','MICROSECOND','MILLISECOND','TICK') NOT NULL",
    ),
];

/// `setup_actors`: `table_setup_actors.cc` (8.0.17 on).
const SETUP_ACTORS: [Def; 5] = [
    ("HOST", "char(255) NOT NULL DEFAULT '%'"),
    ("USER", "char(32) NOT NULL DEFAULT '%'"),
    ("ROLE", "char(32) NOT NULL DEFAULT '%'"),
    ("ENABLED", "enum('YES','NO') NOT NULL DEFAULT 'YES'"),
    ("HISTORY", "enum('YES','NO') NOT NULL DEFAULT 'YES'"),
];

/// `setup_threads`: `table_setup_threads.cc`.
const SETUP_THREADS: [Def; 3] = [
    ("NAME", "varchar(128) NOT NULL"),
    ("ENABLED", "enum('YES','NO') NOT NULL"),
    ("HISTORY", "enum('YES','NO') NOT NULL"),
];

/// `performance_timers`: `table_performance_timers.cc`; `READ_COST_PS` (picoseconds) and
/// `USED_BY` (the event families timed with the clock) are the server's.
const PERFORMANCE_TIMERS: [Def; 6] = [
    (
        "TIMER_NAME",
        "enum('CYCLE','NANOSECOND','MICROSECOND','MILLISECOND','THREAD_CPU') NOT NULL",
    ),
    ("TIMER_FREQUENCY", "bigint"),
    ("TIMER_RESOLUTION", "bigint"),
    ("TIMER_OVERHEAD", "bigint"),
    ("READ_COST_PS", "bigint unsigned"),
    ("USED_BY", "varchar(64) NOT NULL"),
];

/// `events_waits_current`, `_history`, `_history_long`: `table_events_waits.cc`.
const EVENTS_WAITS: [Def; 10] = [
    ("THREAD_ID", "bigint unsigned NOT NULL"),
    ("EVENT_ID", "bigint unsigned NOT NULL"),
    ("END_EVENT_ID", "bigint unsigned"),
    ("EVENT_NAME", "varchar(128) NOT NULL"),
    ("TIMER_START", "bigint unsigned"),
    ("TIMER_END", "bigint unsigned"),
    ("TIMER_WAIT", "bigint unsigned"),
    ("OBJECT_INSTANCE_BEGIN", "bigint unsigned NOT NULL"),
    ("NESTING_EVENT_ID", "bigint unsigned"),
    ("OPERATION", "varchar(32) NOT NULL"),
];

/// `events_statements_*`: `table_events_statements.cc` (what each column holds:
/// `statement_event.rs`).
const EVENTS_STATEMENTS: [Def; 24] = [
    ("THREAD_ID", "bigint unsigned NOT NULL"),
    ("EVENT_ID", "bigint unsigned NOT NULL"),
    ("END_EVENT_ID", "bigint unsigned"),
    ("EVENT_NAME", "varchar(128) NOT NULL"),
    ("TIMER_START", "bigint unsigned"),
    ("TIMER_END", "bigint unsigned"),
    ("TIMER_WAIT", "bigint unsigned"),
    ("LOCK_TIME", "bigint unsigned NOT NULL"),
    ("SQL_TEXT", "longtext"),
    ("DIGEST", "varchar(64)"),
    ("DIGEST_TEXT", "longtext"),
    ("CURRENT_SCHEMA", "varchar(64)"),
    ("MYSQL_ERRNO", "int"),
    ("RETURNED_SQLSTATE", "varchar(5)"),
    ("MESSAGE_TEXT", "varchar(128)"),
    ("ERRORS", "bigint unsigned NOT NULL"),
    ("WARNINGS", "bigint unsigned NOT NULL"),
    ("ROWS_AFFECTED", "bigint unsigned NOT NULL"),
    ("ROWS_SENT", "bigint unsigned NOT NULL"),
    ("SELECT_SCAN", "bigint unsigned NOT NULL"),
    ("SORT_SCAN", "bigint unsigned NOT NULL"),
    ("NO_INDEX_USED", "bigint unsigned NOT NULL"),
    ("NESTING_EVENT_ID", "bigint unsigned"),
    (
        "NESTING_EVENT_TYPE",
        "enum('TRANSACTION','STATEMENT','STAGE','WAIT')",
    ),
];

/// `events_stages_*`: `table_events_stages.cc`, the columns of [`EVENTS_STATEMENTS`] a stage
/// has (one `pfs` row type for both; `DIGEST_TEXT`, the statements', stays too, NULL).
pub(crate) const EVENTS_STAGES: [Def; 10] = [
    ("THREAD_ID", "bigint unsigned NOT NULL"),
    ("EVENT_ID", "bigint unsigned NOT NULL"),
    ("END_EVENT_ID", "bigint unsigned"),
    ("EVENT_NAME", "varchar(128) NOT NULL"),
    ("TIMER_START", "bigint unsigned"),
    ("TIMER_END", "bigint unsigned"),
    ("TIMER_WAIT", "bigint unsigned"),
    ("DIGEST_TEXT", "longtext"),
    ("NESTING_EVENT_ID", "bigint unsigned"),
    (
        "NESTING_EVENT_TYPE",
        "enum('TRANSACTION','STATEMENT','STAGE','WAIT')",
    ),
];

/// `events_transactions_*`: `table_events_transactions.cc` (what the server fills:
/// `trx_event.rs`; `TRX_ID`, `GTID`, the XA columns and `SOURCE` are NULL).
const EVENTS_TRANSACTIONS: [Def; 24] = [
    ("THREAD_ID", "bigint unsigned NOT NULL"),
    ("EVENT_ID", "bigint unsigned NOT NULL"),
    ("END_EVENT_ID", "bigint unsigned"),
    ("EVENT_NAME", "varchar(128) NOT NULL"),
    ("STATE", "enum('ACTIVE','COMMITTED','ROLLED BACK')"),
    ("TRX_ID", "bigint unsigned"),
    ("GTID", "varchar(64)"),
    ("XID_FORMAT_ID", "int"),
    ("XID_GTRID", "varchar(130)"),
    ("XID_BQUAL", "varchar(130)"),
    ("XA_STATE", "varchar(64)"),
    ("SOURCE", "varchar(64)"),
    ("TIMER_START", "bigint unsigned"),
    ("TIMER_END", "bigint unsigned"),
    ("TIMER_WAIT", "bigint unsigned"),
    ("ACCESS_MODE", "enum('READ ONLY','READ WRITE')"),
    ("ISOLATION_LEVEL", "varchar(64)"),
    ("AUTOCOMMIT", "enum('YES','NO') NOT NULL"),
    ("NUMBER_OF_SAVEPOINTS", "bigint unsigned"),
    ("NUMBER_OF_ROLLBACK_TO_SAVEPOINT", "bigint unsigned"),
    ("NUMBER_OF_RELEASE_SAVEPOINT", "bigint unsigned"),
    ("OBJECT_INSTANCE_BEGIN", "bigint unsigned"),
    ("NESTING_EVENT_ID", "bigint unsigned"),
    (
        "NESTING_EVENT_TYPE",
        "enum('TRANSACTION','STATEMENT','STAGE','WAIT')",
    ),
];

/// The summaries' counters: `table_ews_global_by_event_name.cc` and the others below.
macro_rules! summary {
    ($($first:expr),*) => {
        [
            $($first,)*
            ("COUNT_STAR", "bigint unsigned NOT NULL"),
            ("SUM_TIMER_WAIT", "bigint unsigned NOT NULL"),
            ("MIN_TIMER_WAIT", "bigint unsigned NOT NULL"),
            ("AVG_TIMER_WAIT", "bigint unsigned NOT NULL"),
            ("MAX_TIMER_WAIT", "bigint unsigned NOT NULL"),
        ]
    };
}

/// `events_{waits,stages}_summary_global_by_event_name`:
/// `table_ews_global_by_event_name.cc`, `table_esgs_global_by_event_name.cc` (the statements'
/// is `summaries.rs`' `STATEMENT_GLOBAL`).
const SUMMARY_BY_EVENT_NAME: [Def; 6] = summary!(("EVENT_NAME", "varchar(128) NOT NULL"));

/// The transaction summaries' counters after [`summary!`]'s: `table_ets_global_by_event_name.cc`,
/// `table_ets_by_thread_by_event_name.cc`.
macro_rules! trx_summary {
    ($($first:expr),*) => {{
        let head: [Def; 5 + [$($first),*].len()] = summary!($($first),*);
        let tail: [Def; 10] = [
            ("COUNT_READ_WRITE", "bigint unsigned NOT NULL"),
            ("SUM_TIMER_READ_WRITE", "bigint unsigned NOT NULL"),
            ("MIN_TIMER_READ_WRITE", "bigint unsigned NOT NULL"),
            ("AVG_TIMER_READ_WRITE", "bigint unsigned NOT NULL"),
            ("MAX_TIMER_READ_WRITE", "bigint unsigned NOT NULL"),
            ("COUNT_READ_ONLY", "bigint unsigned NOT NULL"),
            ("SUM_TIMER_READ_ONLY", "bigint unsigned NOT NULL"),
            ("MIN_TIMER_READ_ONLY", "bigint unsigned NOT NULL"),
            ("AVG_TIMER_READ_ONLY", "bigint unsigned NOT NULL"),
            ("MAX_TIMER_READ_ONLY", "bigint unsigned NOT NULL"),
        ];
        let mut out = [("", ""); 15 + [$($first),*].len()];
        let mut i = 0;
        while i < out.len() {
            out[i] = if i < head.len() { head[i] } else { tail[i - head.len()] };
            i += 1;
        }
        out
    }};
}

/// `events_transactions_summary_global_by_event_name`.
const TRX_SUMMARY_BY_EVENT_NAME: [Def; 16] = trx_summary!(("EVENT_NAME", "varchar(128) NOT NULL"));

/// `events_transactions_summary_by_thread_by_event_name`.
const TRX_SUMMARY_BY_THREAD: [Def; 17] = trx_summary!(
    ("THREAD_ID", "bigint unsigned NOT NULL"),
    ("EVENT_NAME", "varchar(128) NOT NULL")
);

/// `events_transactions_summary_by_{account,user,host}_by_event_name`:
/// `table_ets_by_account_by_event_name.cc` and its siblings.
pub(super) const TRX_BY_ACCOUNT: [Def; 18] = trx_summary!(USER, HOST, EVENT_NAME);
pub(super) const TRX_BY_USER: [Def; 17] = trx_summary!(USER, EVENT_NAME);
pub(super) const TRX_BY_HOST: [Def; 17] = trx_summary!(HOST, EVENT_NAME);
const EVENT_NAME: Def = ("EVENT_NAME", "varchar(128) NOT NULL");

/// `events_waits_summary_by_instance`: `table_events_waits_summary.cc`.
const SUMMARY_BY_INSTANCE: [Def; 7] = summary!(
    ("EVENT_NAME", "varchar(128) NOT NULL"),
    ("OBJECT_INSTANCE_BEGIN", "bigint unsigned NOT NULL")
);

/// `events_waits_summary_by_thread_by_event_name`: `table_ews_by_thread_by_event_name.cc`.
const SUMMARY_BY_THREAD: [Def; 7] = summary!(
    ("THREAD_ID", "bigint unsigned NOT NULL"),
    ("EVENT_NAME", "varchar(128) NOT NULL")
);

/// `events_statements_summary_by_digest`: `table_esms_by_digest.cc` (its `FIRST_SEEN` and
/// `LAST_SEEN` are UTC here: MySQL shows a `TIMESTAMP` in the session's time zone).
const SUMMARY_BY_DIGEST: [Def; 21] = {
    let head = summary!(
        ("SCHEMA_NAME", "varchar(64)"),
        ("DIGEST", "varchar(64)"),
        ("DIGEST_TEXT", "longtext")
    );
    let tail: [Def; 13] = [
        ("SUM_LOCK_TIME", "bigint unsigned NOT NULL"),
        ("SUM_ERRORS", "bigint unsigned NOT NULL"),
        ("SUM_WARNINGS", "bigint unsigned NOT NULL"),
        ("SUM_ROWS_AFFECTED", "bigint unsigned NOT NULL"),
        ("SUM_ROWS_SENT", "bigint unsigned NOT NULL"),
        ("SUM_SELECT_SCAN", "bigint unsigned NOT NULL"),
        ("SUM_SORT_SCAN", "bigint unsigned NOT NULL"),
        ("SUM_NO_INDEX_USED", "bigint unsigned NOT NULL"),
        ("FIRST_SEEN", "timestamp(6) NOT NULL"),
        ("LAST_SEEN", "timestamp(6) NOT NULL"),
        ("QUANTILE_95", "bigint unsigned NOT NULL"),
        ("QUANTILE_99", "bigint unsigned NOT NULL"),
        ("QUANTILE_999", "bigint unsigned NOT NULL"),
    ];
    let mut all = [("", ""); 21];
    let mut i = 0;
    while i < 21 {
        all[i] = if i < 8 { head[i] } else { tail[i - 8] };
        i += 1;
    }
    all
};

/// `global_variables`, `session_variables`, `global_status`, `session_status`:
/// `table_global_variables.cc`, `table_global_status.cc` and their session forms.
const VARIABLES: [Def; 2] = [
    ("VARIABLE_NAME", "varchar(64) NOT NULL"),
    ("VARIABLE_VALUE", "varchar(1024)"),
];

/// A `sys` view's column: its name, its type in the `x$` form, and its type in the formatted
/// form where that differs (a latency through `FORMAT_PICO_TIME` is `text`).
pub(crate) type ViewColumn = (&'static str, &'static str, Option<&'static str>);

/// The definitions of a `sys` view's columns `cols` in its `x$` form or (`formatted`) its
/// formatted one.
pub(crate) fn view_defs(cols: &[ViewColumn], formatted: bool) -> Vec<Def> {
    (cols.iter())
        .map(|&(name, raw, shown)| (name, if formatted { shown.unwrap_or(raw) } else { raw }))
        .collect()
}

/// `performance_schema.<table>`'s name as the server spells it and its columns; `None` for a
/// table it does not have.
pub(crate) fn performance_schema(table: &str) -> Option<(&'static str, &'static [Def])> {
    let name = super::TABLES
        .into_iter()
        .find(|t| t.eq_ignore_ascii_case(table))?;
    let defs: &'static [Def] = match name {
        "metadata_locks" => &METADATA_LOCKS,
        "metadata_lock_waits" => &METADATA_LOCK_WAITS,
        "metadata_deadlocks" => &METADATA_DEADLOCKS,
        "data_locks" => &super::data_locks::DATA_LOCKS,
        "data_lock_waits" => &super::data_locks::DATA_LOCK_WAITS,
        "threads" => &THREADS,
        "processlist" => &PROCESSLIST,
        "setup_instruments" => &SETUP_INSTRUMENTS,
        "setup_consumers" => &SETUP_CONSUMERS,
        "setup_timers" => &SETUP_TIMERS,
        "setup_actors" => &SETUP_ACTORS,
        "setup_threads" => &SETUP_THREADS,
        "performance_timers" => &PERFORMANCE_TIMERS,
        "events_waits_summary_global_by_event_name"
        | "events_stages_summary_global_by_event_name" => &SUMMARY_BY_EVENT_NAME,
        "events_statements_summary_global_by_event_name" => &super::summaries::STATEMENT_GLOBAL,
        "events_waits_summary_by_instance" => &SUMMARY_BY_INSTANCE,
        "events_waits_summary_by_thread_by_event_name" => &SUMMARY_BY_THREAD,
        "events_statements_summary_by_digest" => &SUMMARY_BY_DIGEST,
        "prepared_statements_instances" => &super::prepared::COLUMNS,
        "events_transactions_summary_global_by_event_name" => &TRX_SUMMARY_BY_EVENT_NAME,
        "events_transactions_summary_by_thread_by_event_name" => &TRX_SUMMARY_BY_THREAD,
        t if super::summaries::TABLES.contains(&t) => super::summaries::defs(t),
        t if super::errors::TABLES.contains(&t) => super::errors::defs(t),
        t if super::histograms::TABLES.contains(&t) => super::histograms::defs(t),
        t if t.starts_with("events_transactions_") => &EVENTS_TRANSACTIONS,
        t if t.starts_with("events_waits_") => &EVENTS_WAITS,
        t if t.starts_with("events_stages_") => &EVENTS_STAGES,
        t if t.starts_with("events_statements_") => &EVENTS_STATEMENTS,
        t if t.ends_with("connect_attrs") => &super::connect_attrs::COLUMNS,
        t if super::instances::TABLES.contains(&t) => super::instances::defs(t),
        "setup_objects" => &super::setup_objects::COLUMNS,
        t if super::connections::TABLES.contains(&t) => super::connections::defs(t),
        t if super::by_thread::TABLES.contains(&t) => super::by_thread::columns(t),
        _ => &VARIABLES,
    };
    Some((name, defs))
}

/// `sys.<view>`'s name and columns; `None` for a view the server does not have.
pub(crate) fn sys(view: &str) -> Option<(&'static str, Vec<Def>)> {
    let name = super::SYS_TABLES
        .into_iter()
        .find(|t| t.eq_ignore_ascii_case(view))?;
    let defs = match name {
        "schema_table_lock_waits" | "x$schema_table_lock_waits" => {
            super::sys_lock_waits::COLUMNS.to_vec()
        }
        "innodb_lock_waits" => (super::innodb_lock_waits::COLUMNS.iter())
            .map(|c| c.split_once(' ').unwrap_or((c, "")))
            .collect(),
        v if super::sys_summaries::VIEWS.contains(&v) => super::sys_summaries::defs(v),
        v if super::sys_server::VIEWS.contains(&v) => super::sys_server::defs(v),
        v if v.contains("statement") => super::sys_statements::defs(v),
        _ => super::sys_processlist::defs(!name.starts_with("x$")),
    };
    Some((name, defs))
}

/// The name and columns of `schema.table` if it is one of these schemas' (`None` for another
/// schema): `Err` 1146 for a table they do not have.
pub(crate) fn of(
    schema: &str,
    table: &str,
) -> Option<Result<(&'static str, Vec<Def>), crate::error::ServerError>> {
    let found = if schema.eq_ignore_ascii_case("performance_schema") {
        performance_schema(table).map(|(n, d)| (n, d.to_vec()))
    } else if schema.eq_ignore_ascii_case("sys") {
        sys(table)
    } else {
        return None;
    };
    Some(found.ok_or_else(|| crate::error::ServerError::no_such_table(schema, table)))
}

/// Every table and view of both schemas, `(schema, name, columns)`: `information_schema.COLUMNS`'
/// rows.
pub(crate) fn all() -> Vec<(&'static str, &'static str, Vec<Def>)> {
    let pfs = (super::TABLES.iter()).filter_map(|t| performance_schema(t));
    let sys = (super::SYS_TABLES.iter()).filter_map(|t| sys(t));
    (pfs.map(|(n, d)| ("performance_schema", n, d.to_vec())))
        .chain(sys.map(|(n, d)| ("sys", n, d)))
        .collect()
}

/// A definition's parts: the type, `NOT NULL`, the default (without its quotes).
fn parts(def: &'static str) -> (&'static str, bool, Option<&'static str>) {
    let (rest, default) = match def.split_once(" DEFAULT ") {
        Some((r, d)) => (r, Some(d.trim_matches('\''))),
        None => (def, None),
    };
    match rest.strip_suffix(" NOT NULL") {
        Some(ty) => (ty, true, default),
        None => (rest, false, default),
    }
}

/// The columns as the catalog gives a table's (`catalog::Column`), their type MySQL's.
pub(crate) fn catalog(defs: &[Def]) -> Vec<Column> {
    (defs.iter().zip(1..))
        .map(|(&(name, def), position)| {
            let (ty, not_null, default) = parts(def);
            Column {
                name: name.to_string(),
                position,
                decl_type: ty.to_string(),
                not_null,
                default: default.map(str::to_string),
                pk: 0,
                auto_increment: false,
                on_update: None,
            }
        })
        .collect()
}

/// The snapshot table's columns, `name type [NOT NULL]` (`info_schema::load`): an `ENUM` is
/// `text`, SQLite's type names taking numbers only.
pub(crate) fn sqlite(defs: &[Def]) -> Vec<String> {
    (defs.iter())
        .map(|&(name, def)| {
            let (ty, not_null, _) = parts(def);
            let ty = if enum_width(ty).is_some() { "text" } else { ty };
            let null = if not_null { " NOT NULL" } else { "" };
            format!("{name} {ty}{null}")
        })
        .collect()
}

/// The longest value of an `enum('a','bc')` type, in characters (2); `None` for another type.
pub(crate) fn enum_width(ty: &str) -> Option<i64> {
    let (kind, values) = ty.trim().split_once('(')?;
    if !kind.eq_ignore_ascii_case("enum") {
        return None;
    }
    (values.trim_end_matches(')').split(','))
        .map(|v| v.trim().trim_matches('\'').chars().count() as i64)
        .max()
}

#[cfg(test)]
mod tests {
    use pfs::tables::*;

    use super::*;

    /// The columns `pfs_views.rs` fills `table` with.
    fn filled(table: &str) -> Vec<&'static str> {
        let headers = |h: &[&'static str]| h.to_vec();
        let names = |d: &[Def]| d.iter().map(|(n, _)| *n).collect();
        match table {
            "metadata_locks" => headers(MetadataLockRow::HEADERS),
            "metadata_lock_waits" => headers(MetadataLockWaitRow::HEADERS),
            "metadata_deadlocks" => headers(MetadataDeadlockRow::HEADERS),
            // `data_locks.rs` makes its rows in its columns' order (its test).
            "data_locks" => names(&super::super::data_locks::DATA_LOCKS),
            "data_lock_waits" => names(&super::super::data_locks::DATA_LOCK_WAITS),
            // `ThreadRow`'s columns with the process list's, in MySQL's order (checked below).
            "threads" => (THREADS.iter())
                .map(|(n, _)| *n)
                .filter(|n| {
                    ThreadRow::HEADERS.contains(n) || super::super::FROM_PROCESSLIST.contains(n)
                })
                .collect(),
            "processlist" => crate::info_schema::PROCESSLIST
                .iter()
                .map(|c| c.split_once(' ').map_or(*c, |(n, _)| n))
                .collect(),
            "accounts" => headers(AccountRow::HEADERS),
            "users" => headers(UserRow::HEADERS),
            "hosts" => headers(HostRow::HEADERS),
            "setup_instruments" => headers(SetupInstrumentRow::HEADERS),
            "setup_consumers" => headers(SetupConsumerRow::HEADERS),
            "setup_timers" => headers(SetupTimerRow::HEADERS),
            "setup_actors" => headers(SetupActorRow::HEADERS),
            "setup_threads" => headers(SetupThreadRow::HEADERS),
            "performance_timers" => headers(PerformanceTimerRow::HEADERS),
            "events_waits_summary_global_by_event_name"
            | "events_stages_summary_global_by_event_name" => {
                headers(SummaryByEventNameRow::HEADERS)
            }
            "events_statements_summary_global_by_event_name" => {
                headers(StatementSummaryByEventNameRow::HEADERS)
            }
            "events_waits_summary_by_instance" => headers(SummaryByInstanceRow::HEADERS),
            "events_waits_summary_by_thread_by_event_name" => headers(SummaryByThreadRow::HEADERS),
            "events_statements_summary_by_digest" => headers(SummaryByDigestRow::HEADERS),
            "prepared_statements_instances" => headers(PreparedStatementRow::HEADERS),
            "events_transactions_summary_global_by_event_name" => {
                headers(TransactionSummaryByEventNameRow::HEADERS)
            }
            "events_transactions_summary_by_thread_by_event_name" => {
                headers(TransactionSummaryByThreadRow::HEADERS)
            }
            t if super::super::summaries::TABLES.contains(&t) => {
                headers(super::super::summaries::headers(t))
            }
            t if super::super::errors::TABLES.contains(&t) => {
                headers(super::super::errors::headers(t))
            }
            t if super::super::histograms::TABLES.contains(&t) => {
                headers(super::super::histograms::headers(t))
            }
            t if t.starts_with("events_transactions_") => headers(TransactionEventRow::HEADERS),
            t if t.starts_with("events_waits_") => headers(WaitEventRow::HEADERS),
            // The stages' columns of the shared row type, in its order (checked below).
            t if t.starts_with("events_stages_") => (StatementEventRow::HEADERS.iter())
                .copied()
                .filter(|h| EVENTS_STAGES.iter().any(|(n, _)| n == h))
                .collect(),
            t if t.starts_with("events_") => headers(StatementEventRow::HEADERS),
            // `connect_attrs.rs`: a connection's id and one attribute.
            t if t.ends_with("connect_attrs") => {
                vec![
                    "PROCESSLIST_ID",
                    "ATTR_NAME",
                    "ATTR_VALUE",
                    "ORDINAL_POSITION",
                ]
            }
            // `instances.rs`, `setup_objects.rs`: rows made in their columns' order.
            t if super::super::instances::TABLES.contains(&t) => {
                names(super::super::instances::defs(t))
            }
            "setup_objects" => names(&super::super::setup_objects::COLUMNS),
            // `by_thread.rs`: a thread, a name and a value.
            t if t.ends_with("_by_thread") => vec!["THREAD_ID", "VARIABLE_NAME", "VARIABLE_VALUE"],
            // `variables.rs`: a name and a value.
            _ => vec!["VARIABLE_NAME", "VARIABLE_VALUE"],
        }
    }

    #[test]
    fn every_column_has_a_type_and_every_type_a_column() {
        for t in super::super::TABLES {
            let (name, defs) = performance_schema(t).expect(t);
            assert_eq!(name, t);
            let names: Vec<&str> = defs.iter().map(|(n, _)| *n).collect();
            assert_eq!(names, filled(t), "{t}");
            for (c, def) in defs {
                let (ty, ..) = parts(def);
                assert!(!ty.is_empty() && !ty.contains("NULL"), "{t}.{c}: {def}");
            }
        }
        // `threads`: every column of `ThreadRow` and of the process list is there.
        let threads: Vec<&str> = THREADS.iter().map(|(n, _)| *n).collect();
        for c in ThreadRow::HEADERS
            .iter()
            .chain(&super::super::FROM_PROCESSLIST)
        {
            assert!(threads.contains(c), "threads.{c}");
        }
        assert_eq!(THREADS.len(), ThreadRow::HEADERS.len() + 5);
        assert_eq!(filled("events_stages_current").len(), EVENTS_STAGES.len());
        for v in super::super::SYS_TABLES {
            let (_, defs) = sys(v).expect(v);
            assert!(
                defs.iter().all(|(n, d)| !n.is_empty() && !d.is_empty()),
                "{v}"
            );
        }
        assert_eq!(
            all().len(),
            super::super::TABLES.len() + super::super::SYS_TABLES.len()
        );
    }

    #[test]
    fn definitions_read_as_mysql_writes_them() {
        assert_eq!(
            parts("char(255) NOT NULL DEFAULT '%'"),
            ("char(255)", true, Some("%"))
        );
        assert_eq!(parts("varchar(64)"), ("varchar(64)", false, None));
        let cols = catalog(&SETUP_ACTORS);
        assert_eq!((cols[3].position, cols[3].not_null), (4, true));
        assert_eq!(cols[3].column_type(), "enum('YES','NO')");
        assert_eq!(cols[3].default.as_deref(), Some("YES"));
        assert_eq!(
            sqlite(&SETUP_CONSUMERS),
            ["NAME varchar(64) NOT NULL", "ENABLED text NOT NULL"]
        );
        assert_eq!(enum_width("enum('YES','NO')"), Some(3));
        assert_eq!(enum_width("varchar(3)"), None);
        assert!(of("test", "t").is_none());
        assert_eq!(
            of("performance_schema", "nope").unwrap().unwrap_err().code,
            1146
        );
        let (name, _) = of("PERFORMANCE_SCHEMA", "Threads").unwrap().unwrap();
        assert_eq!(name, "threads");
    }
}
