//! The `information_schema` tables whose rows are the server's constants: `ENGINES` (SQLite,
//! and `PERFORMANCE_SCHEMA` for the `performance_schema` tables), `PLUGINS` (those engines and
//! the handshake's authentication method), `CHARACTER_SETS` and
//! `COLLATIONS` (the one character set and collation the server's strings have, and MySQL's
//! `utf8mb3` of `information_schema` itself), and the empty `TRIGGERS`, `ROUTINES` and
//! `EVENTS` (the server makes no triggers, stored routines or events), for the tools that ask:
//! dump tools for every table, GUI clients when they connect, ORMs for a table's keys. MySQL
//! 8.0's columns. The columns of `VIEWS` and `REFERENTIAL_CONSTRAINTS` are here too; their rows
//! are the views' (`views.rs`) and the foreign keys' (`keys.rs`).

use rusqlite::types::Value;

use crate::catalog::{CHARSET, COLLATION, ENGINE};

/// MySQL 8.0's `TRIGGERS` columns: always empty here (the server creates no triggers), for
/// the tools that ask, as dump tools do for every table.
pub(super) const TRIGGERS: [&str; 22] = [
    "TRIGGER_CATALOG varchar(64)",
    "TRIGGER_SCHEMA varchar(64)",
    "TRIGGER_NAME varchar(64)",
    "EVENT_MANIPULATION varchar(6)",
    "EVENT_OBJECT_CATALOG varchar(64)",
    "EVENT_OBJECT_SCHEMA varchar(64)",
    "EVENT_OBJECT_TABLE varchar(64)",
    "ACTION_ORDER int unsigned",
    "ACTION_CONDITION blob",
    "ACTION_STATEMENT longtext",
    "ACTION_ORIENTATION varchar(3)",
    "ACTION_TIMING varchar(6)",
    "ACTION_REFERENCE_OLD_TABLE blob",
    "ACTION_REFERENCE_NEW_TABLE blob",
    "ACTION_REFERENCE_OLD_ROW varchar(3)",
    "ACTION_REFERENCE_NEW_ROW varchar(3)",
    "CREATED timestamp(2)",
    "SQL_MODE varchar(100)",
    "DEFINER varchar(288)",
    "CHARACTER_SET_CLIENT varchar(64)",
    "COLLATION_CONNECTION varchar(64)",
    "DATABASE_COLLATION varchar(64)",
];

pub(super) const ROUTINES: [&str; 31] = [
    "SPECIFIC_NAME varchar(64)",
    "ROUTINE_CATALOG varchar(64)",
    "ROUTINE_SCHEMA varchar(64)",
    "ROUTINE_NAME varchar(64)",
    "ROUTINE_TYPE varchar(9)",
    "DATA_TYPE longtext",
    "CHARACTER_MAXIMUM_LENGTH bigint",
    "CHARACTER_OCTET_LENGTH bigint",
    "NUMERIC_PRECISION int unsigned",
    "NUMERIC_SCALE int unsigned",
    "DATETIME_PRECISION int unsigned",
    "CHARACTER_SET_NAME varchar(64)",
    "COLLATION_NAME varchar(64)",
    "DTD_IDENTIFIER longtext",
    "ROUTINE_BODY varchar(8)",
    "ROUTINE_DEFINITION longtext",
    "EXTERNAL_NAME varchar(64)",
    "EXTERNAL_LANGUAGE varchar(64)",
    "PARAMETER_STYLE varchar(3)",
    "IS_DETERMINISTIC varchar(3)",
    "SQL_DATA_ACCESS varchar(17)",
    "SQL_PATH varchar(64)",
    "SECURITY_TYPE varchar(7)",
    "CREATED timestamp",
    "LAST_ALTERED timestamp",
    "SQL_MODE varchar(100)",
    "ROUTINE_COMMENT text",
    "DEFINER varchar(288)",
    "CHARACTER_SET_CLIENT varchar(64)",
    "COLLATION_CONNECTION varchar(64)",
    "DATABASE_COLLATION varchar(64)",
];

pub(super) const EVENTS: [&str; 24] = [
    "EVENT_CATALOG varchar(64)",
    "EVENT_SCHEMA varchar(64)",
    "EVENT_NAME varchar(64)",
    "DEFINER varchar(288)",
    "TIME_ZONE varchar(64)",
    "EVENT_BODY varchar(3)",
    "EVENT_DEFINITION longtext",
    "EVENT_TYPE varchar(9)",
    "EXECUTE_AT datetime",
    "INTERVAL_VALUE varchar(256)",
    "INTERVAL_FIELD varchar(18)",
    "SQL_MODE varchar(100)",
    "STARTS datetime",
    "ENDS datetime",
    "STATUS varchar(21)",
    "ON_COMPLETION varchar(12)",
    "CREATED timestamp",
    "LAST_ALTERED timestamp",
    "LAST_EXECUTED datetime",
    "EVENT_COMMENT varchar(2048)",
    "ORIGINATOR int unsigned",
    "CHARACTER_SET_CLIENT varchar(64)",
    "COLLATION_CONNECTION varchar(64)",
    "DATABASE_COLLATION varchar(64)",
];

/// MySQL 8.0's `VIEWS` columns.
pub(super) const VIEWS: [&str; 10] = [
    "TABLE_CATALOG varchar(64)",
    "TABLE_SCHEMA varchar(64)",
    "TABLE_NAME varchar(64)",
    "VIEW_DEFINITION longtext",
    "CHECK_OPTION varchar(8)",
    "IS_UPDATABLE varchar(3)",
    "DEFINER varchar(288)",
    "SECURITY_TYPE varchar(7)",
    "CHARACTER_SET_CLIENT varchar(64)",
    "COLLATION_CONNECTION varchar(64)",
];

pub(super) const REFERENTIAL_CONSTRAINTS: [&str; 11] = [
    "CONSTRAINT_CATALOG varchar(64)",
    "CONSTRAINT_SCHEMA varchar(64)",
    "CONSTRAINT_NAME varchar(64)",
    "UNIQUE_CONSTRAINT_CATALOG varchar(64)",
    "UNIQUE_CONSTRAINT_SCHEMA varchar(64)",
    "UNIQUE_CONSTRAINT_NAME varchar(64)",
    "MATCH_OPTION varchar(7)",
    "UPDATE_RULE varchar(11)",
    "DELETE_RULE varchar(11)",
    "TABLE_NAME varchar(64)",
    "REFERENCED_TABLE_NAME varchar(64)",
];

pub(super) const ENGINES: [&str; 6] = [
    "ENGINE varchar(64)",
    "SUPPORT varchar(8)",
    "COMMENT varchar(80)",
    "TRANSACTIONS varchar(3)",
    "XA varchar(3)",
    "SAVEPOINTS varchar(3)",
];

/// MySQL 8.0's `PLUGINS` (`plugin_fields_info`, `sql/sql_show.cc`).
pub(super) const PLUGINS: [&str; 11] = [
    "PLUGIN_NAME varchar(64)",
    "PLUGIN_VERSION varchar(20)",
    "PLUGIN_STATUS varchar(10)",
    "PLUGIN_TYPE varchar(80)",
    "PLUGIN_TYPE_VERSION varchar(20)",
    "PLUGIN_LIBRARY varchar(64)",
    "PLUGIN_LIBRARY_VERSION varchar(20)",
    "PLUGIN_AUTHOR varchar(64)",
    "PLUGIN_DESCRIPTION longtext",
    "PLUGIN_LICENSE varchar(80)",
    "LOAD_OPTION varchar(64)",
];

/// The comment `ENGINES` gives SQLite.
const SQLITE_COMMENT: &str = "SQLite through rusqlite: a file per schema, WAL, one writer per file";

/// The rows of `PLUGINS`: what the server has, each compiled in (no library: `PLUGIN_LIBRARY`
/// NULL, as MySQL shows its built-in plugins), active, and loaded whenever the server runs
/// (`FORCE`). It has no plugin API: the versions are the server's, the license the server's.
fn plugins() -> Vec<Vec<Value>> {
    let t = |s: &str| Value::Text(s.to_string());
    let version = concat!(
        env!("CARGO_PKG_VERSION_MAJOR"),
        ".",
        env!("CARGO_PKG_VERSION_MINOR")
    );
    let plugin = |name: &str, kind: &str, description: &str| {
        vec![
            t(name),
            t(version),
            t("ACTIVE"),
            t(kind),
            t(version),
            Value::Null,
            Value::Null,
            Value::Null,
            t(description),
            t(env!("CARGO_PKG_LICENSE")),
            t("FORCE"),
        ]
    };
    vec![
        // The method the handshake names (opensrv-mysql's default); the server has no accounts
        // and takes every login.
        plugin(
            "mysql_native_password",
            "AUTHENTICATION",
            "Native MySQL authentication (every login is accepted: no accounts)",
        ),
        plugin(ENGINE, "STORAGE ENGINE", SQLITE_COMMENT),
        plugin("PERFORMANCE_SCHEMA", "STORAGE ENGINE", "Performance Schema"),
    ]
}

pub(super) const CHARACTER_SETS: [&str; 4] = [
    "CHARACTER_SET_NAME varchar(64)",
    "DEFAULT_COLLATE_NAME varchar(64)",
    "DESCRIPTION varchar(2048)",
    "MAXLEN int unsigned",
];

pub(super) const COLLATIONS: [&str; 7] = [
    "COLLATION_NAME varchar(64)",
    "CHARACTER_SET_NAME varchar(64)",
    "ID bigint unsigned",
    "IS_DEFAULT varchar(3)",
    "IS_COMPILED varchar(3)",
    "SORTLEN int unsigned",
    "PAD_ATTRIBUTE text",
];

/// `information_schema`'s own character set and collation, as MySQL 8.0's.
pub(super) const OWN_CHARSET: &str = "utf8mb3";
pub(super) const OWN_COLLATION: &str = "utf8mb3_general_ci";

/// The rows of the table `name` of this module (no rows for another).
pub(super) fn rows(name: &str) -> Vec<Vec<Value>> {
    let t = |s: &str| Value::Text(s.to_string());
    let n = Value::Integer;
    match name {
        "ENGINES" => vec![
            vec![
                t(ENGINE),
                t("DEFAULT"),
                t(SQLITE_COMMENT),
                t("YES"),
                t("NO"),
                t("YES"),
            ],
            vec![
                t("PERFORMANCE_SCHEMA"),
                t("YES"),
                t("Performance Schema"),
                t("NO"),
                t("NO"),
                t("NO"),
            ],
        ],
        "PLUGINS" => plugins(),
        "CHARACTER_SETS" => vec![
            vec![t(CHARSET), t(COLLATION), t("UTF-8 Unicode"), n(4)],
            vec![t(OWN_CHARSET), t(OWN_COLLATION), t("UTF-8 Unicode"), n(3)],
        ],
        // MySQL's ids: 46 is `utf8mb4_bin`, 33 `utf8mb3_general_ci`.
        "COLLATIONS" => vec![
            vec![
                t(COLLATION),
                t(CHARSET),
                n(46),
                t("Yes"),
                t("Yes"),
                n(1),
                t("PAD SPACE"),
            ],
            vec![
                t(OWN_COLLATION),
                t(OWN_CHARSET),
                n(33),
                t("Yes"),
                t("Yes"),
                n(1),
                t("PAD SPACE"),
            ],
        ],
        _ => Vec::new(),
    }
}
