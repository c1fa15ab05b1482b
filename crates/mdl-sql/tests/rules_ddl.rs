//! One test per rule (DDL, LOCK TABLES, FTWRL, backup lock, transactions): statement text -> the lock requests MySQL 8.0 takes, with their
//! types and durations, or the error it raises first. Each case names the MySQL 8.0.45 function
//! it checks (file and function).

mod common;

use common::*;
use mdl_sql::{Assigned, Effect, SessionState, StatementKind, TableLockMode};

// --- DDL ------------------------------------------------------------------------------------

/// sql/sql_base.cc, `lock_table_names`: BACKUP_LOCK IX (TRANSACTION, for an `OPEN_FOR_CREATE`
/// table), GLOBAL IX (STATEMENT), SCHEMA IX (TRANSACTION); sql/parse_tree_nodes.cc,
/// `PT_create_table_stmt::make_cmd`: the table S, which `open_table` upgrades to X when the
/// table does not exist; the LIKE source SR. sql/sql_parse.cc: CREATE TABLE is
/// CF_AUTO_COMMIT_TRANS.
#[test]
fn create_table() {
    let p = locks(
        "CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, PRIMARY KEY (id)) \
         /*! ENGINE = innodb */",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE test.sbtest1 S TRANSACTION",
        ],
    );
    assert!(p.commits_before && p.commits_after && p.writes);
    let u = &p.upgrades[0];
    assert_eq!(
        (u.key.name(), u.from.abbr(), u.to.abbr()),
        ("sbtest1", "S", "X")
    );
    locks(
        "CREATE TABLE a LIKE d.b",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE d.b SR TRANSACTION",
            "TABLE test.a S TRANSACTION",
        ],
    );
    locks(
        "CREATE TABLE a AS SELECT * FROM b",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE test.a S TRANSACTION",
            "TABLE test.b SR TRANSACTION",
        ],
    );
}

/// sql/sql_table.cc, `mysql_alter_table` (SU from the parser) and `mysql_inplace_alter_table`
/// ("Upgrade to EXCLUSIVE before commit", `wait_while_table_is_used`); CREATE INDEX and DROP
/// INDEX are ALTER TABLE (`Sql_cmd_create_index`, `Sql_cmd_drop_index`).
#[test]
fn alter_table_and_indexes_take_su_then_x() {
    for sql in [
        "ALTER TABLE t1 ADD COLUMN b INT",
        "CREATE INDEX k_1 ON t1 (k)",
        "DROP INDEX k_1 ON t1",
    ] {
        let p = locks(
            sql,
            &[
                "GLOBAL IX STATEMENT",
                "BACKUP LOCK IX TRANSACTION",
                "SCHEMA test IX TRANSACTION",
                "TABLE test.t1 SU TRANSACTION",
            ],
        );
        assert_eq!(p.upgrades.len(), 1, "{sql}");
        let u = &p.upgrades[0];
        assert_eq!(
            (u.key.name(), u.from.abbr(), u.to.abbr()),
            ("t1", "SU", "X")
        );
        assert!(p.commits_before && p.commits_after);
    }
    // sql/sql_table.cc, simple_rename_or_index_change: DISABLE / ENABLE KEYS (mysqldump) is
    // an ALTER TABLE with the same SU -> X.
    let p = locks(
        "/*!40000 ALTER TABLE `d`.`t1` DISABLE KEYS */",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA d IX TRANSACTION",
            "TABLE d.t1 SU TRANSACTION",
        ],
    );
    assert_eq!(p.upgrades[0].to.abbr(), "X");
    // A rebuild (MySQL's null ALTER: ENGINE = the same, FORCE) is an ALTER TABLE too.
    for sql in [
        "ALTER TABLE d.t1 ENGINE=InnoDB",
        "ALTER TABLE d.t1 ENGINE InnoDB, ALGORITHM=INPLACE, LOCK=NONE",
        "ALTER TABLE `d`.`t1` FORCE",
    ] {
        let p = locks(
            sql,
            &[
                "GLOBAL IX STATEMENT",
                "BACKUP LOCK IX TRANSACTION",
                "SCHEMA d IX TRANSACTION",
                "TABLE d.t1 SU TRANSACTION",
            ],
        );
        assert_eq!(p.upgrades[0].to.abbr(), "X", "{sql}");
    }
    // sql/sql_table.cc, mysql_inplace_alter_table: RENAME INDEX and the table options InnoDB
    // changes in place (COMMENT, STATS_*, ...) take SU, then X to commit the new definition;
    // CONVERT TO CHARACTER SET copies (mysql_alter_table), with the same SU -> X.
    for sql in [
        "ALTER TABLE d.t1 RENAME INDEX a TO b",
        "ALTER TABLE d.t1 RENAME KEY a TO b, ALGORITHM=INPLACE, LOCK=NONE",
        "ALTER TABLE d.t1 COMMENT 'orders' ROW_FORMAT=DYNAMIC",
        "ALTER TABLE d.t1 DEFAULT CHARSET=utf8mb4, COLLATE utf8mb4_bin, STATS_PERSISTENT=0",
        "ALTER TABLE d.t1 CONVERT TO CHARACTER SET latin1",
    ] {
        let p = locks(
            sql,
            &[
                "GLOBAL IX STATEMENT",
                "BACKUP LOCK IX TRANSACTION",
                "SCHEMA d IX TRANSACTION",
                "TABLE d.t1 SU TRANSACTION",
            ],
        );
        assert_eq!(p.upgrades[0].to.abbr(), "X", "{sql}");
    }
    // mysql_alter_table: the new name of a rename is locked X (target_mdl_request).
    locks(
        "ALTER TABLE t1 RENAME TO d.t2",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA d IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE d.t2 X TRANSACTION",
            "TABLE test.t1 SU TRANSACTION",
        ],
    );
}

/// sql/sql_table.cc, `mysql_rm_table` -> `lock_table_names` with MDL_EXCLUSIVE from
/// `drop_table_stmt`; sql/sql_truncate.cc, `Sql_cmd_truncate_table::lock_table`.
#[test]
fn drop_and_truncate_take_x() {
    locks(
        "DROP TABLE IF EXISTS t1, d.t2",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA d IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE d.t2 X TRANSACTION",
            "TABLE test.t1 X TRANSACTION",
        ],
    );
    for sql in ["TRUNCATE TABLE t1", "TRUNCATE t1"] {
        locks(
            sql,
            &[
                "GLOBAL IX STATEMENT",
                "BACKUP LOCK IX TRANSACTION",
                "SCHEMA test IX TRANSACTION",
                "TABLE test.t1 X TRANSACTION",
            ],
        );
    }
}

/// sql/sql_rename.cc, `mysql_rename_tables` -> `lock_table_names`; `table_to_table` in
/// sql_yacc.yy asks MDL_EXCLUSIVE for both names.
#[test]
fn rename_locks_old_and_new_names() {
    locks(
        "RENAME TABLE a TO b, c TO d.e",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA d IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE d.e X TRANSACTION",
            "TABLE test.a X TRANSACTION",
            "TABLE test.b X TRANSACTION",
            "TABLE test.c X TRANSACTION",
        ],
    );
}

/// sql/lock.cc, `lock_schema_name`: GLOBAL IX (STATEMENT), SCHEMA X (TRANSACTION), BACKUP_LOCK
/// IX (TRANSACTION); ER_LOCK_OR_ACTIVE_TRANSACTION under LOCK TABLES. sql/sql_db.cc,
/// `mysql_rm_db`: every table of the schema X (`find_db_tables`, `lock_table_names`).
#[test]
fn create_and_drop_schema() {
    let schema_locks = [
        "GLOBAL IX STATEMENT",
        "BACKUP LOCK IX TRANSACTION",
        "SCHEMA d X TRANSACTION",
    ];
    for sql in ["CREATE DATABASE d", "CREATE SCHEMA IF NOT EXISTS d"] {
        locks_in(sql, &SessionState::default(), &schema_locks);
    }
    let mut p = locks("DROP DATABASE d", &schema_locks);
    assert_eq!(p.needs_tables_of_schema(), Some("d"));
    p.add_tables_of_schema(&["t1", "t2"]).unwrap();
    assert_eq!(
        p.describe(),
        [
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA d X TRANSACTION",
            "TABLE d.t1 X TRANSACTION",
            "TABLE d.t2 X TRANSACTION",
        ]
    );
    assert_eq!(p.effect, Effect::DropSchema("d".into()));
    let ltm = locked(&[("t1", "t1", TableLockMode::Write)]);
    error_in("CREATE DATABASE d", &ltm, 1192);
    error_in("DROP SCHEMA d", &ltm, 1192);
}

/// sql/sql_base.cc, `open_tables_check_upgradable_mdl`, `find_table_for_mdl_upgrade` and
/// `acquire_backup_lock_in_lock_tables_mode`: DDL under LOCK TABLES needs the table locked
/// WRITE, takes BACKUP_LOCK IX and upgrades SNRW -> X; sql/sql_table.cc `mysql_alter_table`
/// downgrades back to SNRW.
#[test]
fn ddl_under_lock_tables() {
    let s = locked(&[
        ("t1", "t1", TableLockMode::Write),
        ("t2", "t2", TableLockMode::Read),
    ]);
    let p = locks_in(
        "ALTER TABLE t1 ENABLE KEYS",
        &s,
        &["BACKUP LOCK IX TRANSACTION"],
    );
    let u = &p.upgrades[0];
    assert_eq!(
        (u.from.abbr(), u.to.abbr(), u.downgrade_to.map(|t| t.abbr())),
        ("SNRW", "X", Some("SNRW"))
    );
    let p = locks_in("DROP TABLE t1", &s, &["BACKUP LOCK IX TRANSACTION"]);
    assert_eq!(p.upgrades[0].downgrade_to, None);
    error_in("ALTER TABLE t2 ADD COLUMN c INT", &s, 1099);
    error_in("TRUNCATE TABLE t3", &s, 1100);
    error_in("CREATE TABLE t9 (a INT)", &s, 1100);
    error_in("RENAME TABLE t1 TO t9", &s, 1192);
}

// --- LOCK TABLES, FTWRL, backup lock -------------------------------------------------------------

/// sql_yacc.yy `table_lock`: READ is SRO, READ LOCAL SR, [LOW_PRIORITY] WRITE SNRW; sql/sql_base.cc
/// `lock_table_names`: GLOBAL IX and SCHEMA IX for the SNRW tables, no BACKUP_LOCK for
/// SQLCOM_LOCK_TABLES, nothing scoped for SRO; sql/sql_parse.cc SQLCOM_LOCK_TABLES commits
/// first.
#[test]
fn lock_tables_types() {
    let p = locks(
        "LOCK TABLES t1 READ, t2 READ LOCAL, d.t3 WRITE, t4 AS x LOW_PRIORITY WRITE",
        &[
            "GLOBAL IX STATEMENT",
            "SCHEMA d IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE d.t3 SNRW TRANSACTION",
            "TABLE test.t1 SRO TRANSACTION",
            "TABLE test.t2 SR TRANSACTION",
            "TABLE test.t4 SNRW TRANSACTION",
        ],
    );
    assert!(p.commits_before && !p.commits_after);
    let Effect::LockTables(t) = &p.effect else {
        panic!("{:?}", p.effect)
    };
    assert_eq!(t[3].alias, "x");
    locks("LOCK TABLE t1 READ", &["TABLE test.t1 SRO TRANSACTION"]);
}

/// sql/sql_parse.cc SQLCOM_UNLOCK_TABLES: commits only under LOCK TABLES ("critical for
/// mysqldump"); also ends the global read lock.
#[test]
fn unlock_tables_commits_only_under_lock_tables() {
    let p = locks("UNLOCK TABLES", &[]);
    assert!(!p.commits_before);
    assert_eq!(p.effect, Effect::UnlockTables);
    let s = locked(&[("t1", "t1", TableLockMode::Read)]);
    assert!(plan_of("UNLOCK TABLES", &s).unwrap().commits_before);
}

/// sql/lock.cc, `Global_read_lock::lock_global_read_lock` (GLOBAL S, MDL_EXPLICIT) and
/// `make_global_read_lock_block_commit` (COMMIT S, MDL_EXPLICIT); sql/sql_reload.cc,
/// `handle_reload_request`: ER_LOCK_OR_ACTIVE_TRANSACTION under LOCK TABLES.
#[test]
fn flush_tables_with_read_lock() {
    let p = locks(
        "FLUSH TABLES WITH READ LOCK",
        &["GLOBAL S EXPLICIT", "COMMIT S EXPLICIT"],
    );
    assert_eq!(p.kind, StatementKind::FlushTablesWithReadLock);
    assert!(p.commits_before);
    let mut held = test_schema();
    held.global_read_lock = true;
    locks_in("FLUSH TABLES WITH READ LOCK", &held, &[]);
    error_in(
        "FLUSH TABLES WITH READ LOCK",
        &locked(&[("t1", "t1", TableLockMode::Read)]),
        1192,
    );
    // sql/sql_reload.cc, flush_tables_with_read_lock: SNW, no scoped locks.
    locks(
        "FLUSH TABLES t1, t2 WITH READ LOCK",
        &[
            "TABLE test.t1 SNW TRANSACTION",
            "TABLE test.t2 SNW TRANSACTION",
        ],
    );
}

/// sql/sql_backup_lock.cc, `Sql_cmd_lock_instance::execute` -> `acquire_exclusive_backup_lock`:
/// BACKUP_LOCK S, MDL_EXPLICIT, no implicit commit.
#[test]
fn lock_instance_for_backup() {
    let p = locks("LOCK INSTANCE FOR BACKUP", &["BACKUP LOCK S EXPLICIT"]);
    assert!(!p.commits_before && !p.commits_after);
    assert_eq!(locks("UNLOCK INSTANCE", &[]).effect, Effect::UnlockInstance);
}

// --- transactions, SET, and the rest ---------------------------------------------------------

/// sql/transaction.cc, `trans_begin`: commits first; sql/sql_parse.cc SQLCOM_COMMIT /
/// SQLCOM_ROLLBACK; sql/sys_vars.cc `fix_autocommit`: SET autocommit = 1 from 0 commits.
#[test]
fn transaction_statements() {
    let p = locks("START TRANSACTION WITH CONSISTENT SNAPSHOT", &[]);
    assert!(p.commits_before);
    assert_eq!(p.effect, Effect::Begin { read_only: false });
    assert_eq!(
        locks("START TRANSACTION READ ONLY", &[]).effect,
        Effect::Begin { read_only: true }
    );
    assert_eq!(locks("BEGIN", &[]).kind, StatementKind::Begin);
    assert_eq!(
        locks("COMMIT AND CHAIN", &[]).effect,
        Effect::Commit { chain: true }
    );
    assert_eq!(
        locks("ROLLBACK", &[]).effect,
        Effect::Rollback { chain: false }
    );
    assert_eq!(
        locks("ROLLBACK TO SAVEPOINT s1", &[]).effect,
        Effect::RollbackToSavepoint("s1".into())
    );
    let mut off = test_schema();
    off.autocommit = false;
    assert!(plan_of("SET autocommit = 1", &off).unwrap().commits_after);
    assert!(
        !plan_of("SET autocommit = 1", &test_schema())
            .unwrap()
            .commits_after
    );
    let set = |sql: &str| match locks(sql, &[]).effect {
        Effect::Set {
            autocommit,
            lock_wait_timeout,
            global_lock_wait_timeout,
            ..
        } => (autocommit, lock_wait_timeout, global_lock_wait_timeout),
        other => panic!("{sql}: {other:?}"),
    };
    let secs = std::time::Duration::from_secs;
    assert_eq!(set("SET GLOBAL autocommit = 1"), (None, None, None));
    assert_eq!(
        set("SET SESSION autocommit = OFF, @@lock_wait_timeout = 5"),
        (Some(false), Some(Assigned::Value(secs(5))), None)
    );
    // sql/sys_vars.cc, `Sys_lock_wait_timeout`: VALID_RANGE(1, LONG_TIMEOUT), out of range
    // clamped; `sys_var::check_update_type`: an integer variable refuses a decimal (1232).
    assert_eq!(
        set("SET lock_wait_timeout = -5").1,
        Some(Assigned::Value(secs(1)))
    );
    assert_eq!(
        set("SET lock_wait_timeout = 99999999999999999999999").1,
        Some(Assigned::Value(secs(31_536_000)))
    );
    error_in("SET lock_wait_timeout = 1.5", &test_schema(), 1232);
    error_in("SET lock_wait_timeout = 'abc'", &test_schema(), 1232);
    // sql/set_var.cc, `set_var::update`: DEFAULT of a session variable is the global value
    // (the server's to apply); of a global one, the compiled-in default.
    assert_eq!(
        set("SET lock_wait_timeout = DEFAULT").1,
        Some(Assigned::Default)
    );
    assert_eq!(
        set("SET GLOBAL lock_wait_timeout = 7"),
        (None, None, Some(secs(7)))
    );
    assert_eq!(
        set("SET @@global.lock_wait_timeout = DEFAULT").2,
        Some(secs(31_536_000))
    );
    assert_eq!(
        set("SET @x = 5, @@session.autocommit = DEFAULT").0,
        Some(true)
    );
    error_in("SET autocommit = 7", &test_schema(), 1231);
}

/// sql/item_func.cc, `Item_func_get_lock::val_int` and the other user-level lock functions: the
/// calls are found anywhere in a statement's expressions, in text order.
#[test]
fn user_lock_calls_are_planned() {
    let p = locks(
        "SELECT GET_LOCK('A', 5), RELEASE_LOCK('b') FROM t1",
        &["TABLE test.t1 SR TRANSACTION"],
    );
    let names: Vec<_> = p
        .user_locks
        .iter()
        .map(|c| c.key.as_ref().unwrap().name().to_string())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(locks("DO RELEASE_ALL_LOCKS()", &[]).user_locks.len(), 1);
    assert_eq!(locks("SET @x = IS_USED_LOCK('a')", &[]).user_locks.len(), 1);
}

/// sql/sql_select.cc, `Sql_cmd_dml::prepare`: EXPLAIN opens the statement's tables with the
/// statement's lock types; sql/sql_show.cc, `mysqld_show_create`: SHOW CREATE TABLE takes SH
/// (`MYSQL_OPEN_FORCE_SHARED_HIGH_PRIO_MDL`) and gives it back at the end of the statement.
#[test]
fn explain_and_show_create_table() {
    let p = locks(
        "EXPLAIN UPDATE t1 SET a = GET_LOCK('x', 1)",
        &["GLOBAL IX STATEMENT", "TABLE test.t1 SW TRANSACTION"],
    );
    assert_eq!(p.kind, StatementKind::Explain);
    assert!(p.user_locks.is_empty() && !p.writes);
    locks("SHOW CREATE TABLE d.t1", &["TABLE d.t1 SH STATEMENT"]);
    error_in(
        "SHOW CREATE TABLE t2",
        &locked(&[("t1", "t1", TableLockMode::Read)]),
        1100,
    );
}

/// sql/sql_db.cc, `mysql_change_db` -> `dd::Schema_MDL_locker::ensure_locked` (`mdl_lock_schema`,
/// sql/dd/dd_schema.cc): USE takes SCHEMA IX while it checks the schema.
#[test]
fn use_takes_schema_ix() {
    let p = locks_in(
        "USE d",
        &SessionState::default(),
        &["SCHEMA d IX STATEMENT"],
    );
    assert_eq!(p.effect, Effect::Use("d".into()));
    locks("USE information_schema", &[]);
}

/// Statements that take no lock, and those not supported (a clear error).
#[test]
fn lockless_and_unsupported_statements() {
    for sql in [
        "SHOW FULL PROCESSLIST",
        "KILL QUERY 7",
        "KILL 7",
        "SELECT 1",
        // What the mysql client, mysql_async and sysbench send on connect.
        "SELECT @@version_comment LIMIT 1",
        "SET NAMES utf8mb4",
        "SET character_set_results = NULL",
        "SET @@session.sql_mode = 'TRADITIONAL'",
        "SELECT DATABASE(), USER()",
        "SHOW WARNINGS",
        // sqlparser keeps their words only; the server reads the LIMIT from the text.
        "SHOW WARNINGS LIMIT 1, 2",
        "SHOW ERRORS LIMIT 1 OFFSET 2",
        "SHOW COUNT(*) ERRORS",
        "SHOW TABLES",
        "SHOW DATABASES",
        // sql/dd/info_schema/show.cc, build_show_columns_query: an I_S query, no table lock.
        "DESCRIBE t1",
        "SHOW FULL COLUMNS FROM t1",
        "SHOW VARIABLES",
    ] {
        assert!(locks(sql, &[]).requests.is_empty(), "{sql}");
    }
    for sql in [
        "GRANT SELECT ON *.* TO u",
        "ANALYZE TABLE t1 UPDATE HISTOGRAM ON a WITH 8 BUCKETS",
        "ANALYZE TABLE t1 DROP HISTOGRAM ON a",
    ] {
        error_in(sql, &test_schema(), 1235);
    }
}
