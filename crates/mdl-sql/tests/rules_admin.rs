//! One test per rule of the table maintenance statements (`ANALYZE`, `CHECK`, `OPTIMIZE`,
//! `REPAIR`, `CHECKSUM TABLE`) and of FLUSH (but FLUSH TABLES WITH READ LOCK, in
//! `rules_ddl.rs`): statement text -> the lock requests MySQL 8.0 takes, or its error. Each
//! case names the MySQL 8.0.45 function it checks (file and function).

mod common;

use common::*;
use mdl_sql::{Effect, StatementKind, TableLockMode};

/// sql/sql_admin.cc, `mysql_admin_table` with `TL_READ_NO_INSERT`: SR per table (the
/// parser's `MDL_SHARED_READ`, `PT_analyze_table_stmt::make_cmd`), `acquire_shared_backup_lock`,
/// no GLOBAL or SCHEMA lock; sql/sql_parse.cc: CF_AUTO_COMMIT_TRANS.
#[test]
fn analyze_and_check_take_sr() {
    for (sql, kind) in [
        ("ANALYZE TABLE t1, d.t2", StatementKind::Analyze),
        (
            "ANALYZE NO_WRITE_TO_BINLOG TABLES t1, d.t2",
            StatementKind::Analyze,
        ),
        ("analyze local table t1, d.t2", StatementKind::Analyze),
        ("CHECK TABLE t1, d.t2", StatementKind::Check),
        (
            "CHECK TABLES t1, d.t2 FOR UPGRADE QUICK EXTENDED",
            StatementKind::Check,
        ),
    ] {
        let p = locks(
            sql,
            &[
                "BACKUP LOCK IX TRANSACTION",
                "TABLE d.t2 SR TRANSACTION",
                "TABLE test.t1 SR TRANSACTION",
            ],
        );
        assert_eq!(p.kind, kind, "{sql}");
        assert!(p.commits_before && p.commits_after && !p.writes, "{sql}");
        assert!(p.upgrades.is_empty(), "{sql}");
    }
}

/// `mysql_admin_table` with `TL_WRITE`: SNRW per table, upgraded to X by
/// `wait_while_table_is_used`; sql/sql_base.cc, `lock_table_names`: GLOBAL IX (STATEMENT),
/// SCHEMA IX, BACKUP_LOCK IX; 1223 with this session's global read lock
/// (`Global_read_lock::can_acquire_protection`).
#[test]
fn optimize_and_repair_take_snrw_then_x() {
    for (sql, kind) in [
        ("OPTIMIZE TABLE t1, d.t2", StatementKind::Optimize),
        ("OPTIMIZE LOCAL TABLES t1, d.t2", StatementKind::Optimize),
        ("REPAIR TABLE t1, d.t2", StatementKind::Repair),
        (
            "REPAIR NO_WRITE_TO_BINLOG TABLE t1, d.t2 QUICK EXTENDED USE_FRM",
            StatementKind::Repair,
        ),
    ] {
        let p = locks(
            sql,
            &[
                "GLOBAL IX STATEMENT",
                "BACKUP LOCK IX TRANSACTION",
                "SCHEMA d IX TRANSACTION",
                "SCHEMA test IX TRANSACTION",
                "TABLE d.t2 SNRW TRANSACTION",
                "TABLE test.t1 SNRW TRANSACTION",
            ],
        );
        assert_eq!(p.kind, kind, "{sql}");
        assert!(p.commits_before && p.commits_after && p.writes, "{sql}");
        let ups: Vec<_> = (p.upgrades.iter())
            .map(|u| (u.key.name().to_string(), u.from.abbr(), u.to.abbr()))
            .collect();
        assert_eq!(
            ups,
            [
                ("t1".to_string(), "SNRW", "X"),
                ("t2".to_string(), "SNRW", "X")
            ],
            "{sql}"
        );
        let mut held = test_schema();
        held.global_read_lock = true;
        error_in(sql, &held, 1223);
    }
}

/// sql_yacc.yy, `checksum` (`MDL_SHARED_READ`); sql/sql_table.cc, `mysql_checksum_table`
/// (`TL_READ`); SQLCOM_CHECKSUM is not CF_AUTO_COMMIT_TRANS.
#[test]
fn checksum_takes_sr_only() {
    for sql in [
        "CHECKSUM TABLE t1, d.t2",
        "CHECKSUM TABLES t1, d.t2 EXTENDED",
        "checksum table t1, d.t2 quick",
    ] {
        let p = locks(
            sql,
            &["TABLE d.t2 SR TRANSACTION", "TABLE test.t1 SR TRANSACTION"],
        );
        assert_eq!(p.kind, StatementKind::Checksum);
        assert!(!p.commits_before && !p.commits_after && !p.writes);
    }
}

/// Under LOCK TABLES (`open_tables`, sql/sql_base.cc): the tables must be locked (1100),
/// OPTIMIZE and REPAIR WRITE (1099), and upgrade SNRW -> X, back to SNRW when done.
#[test]
fn maintenance_under_lock_tables() {
    let s = locked(&[
        ("t1", "t1", TableLockMode::Write),
        ("t2", "t2", TableLockMode::Read),
    ]);
    locks_in("CHECKSUM TABLE t1, t2", &s, &[]);
    locks_in("ANALYZE TABLE t2", &s, &["BACKUP LOCK IX TRANSACTION"]);
    let p = locks_in("OPTIMIZE TABLE t1", &s, &["BACKUP LOCK IX TRANSACTION"]);
    let u = &p.upgrades[0];
    assert_eq!(
        (u.from.abbr(), u.to.abbr(), u.downgrade_to.map(|d| d.abbr())),
        ("SNRW", "X", Some("SNRW"))
    );
    error_in("CHECK TABLE t3", &s, 1100);
    error_in("REPAIR TABLE t2", &s, 1099);
}

/// Errors decided before any lock: no current schema (1046), the histogram forms (1235), and
/// syntax (1064).
#[test]
fn maintenance_errors() {
    let mut none = test_schema();
    none.current_schema = None;
    error_in("ANALYZE TABLE t1", &none, 1046);
    locks_in("CHECKSUM TABLE d.t1", &none, &["TABLE d.t1 SR TRANSACTION"]);
    error_in(
        "ANALYZE TABLE t1 UPDATE HISTOGRAM ON c",
        &test_schema(),
        1235,
    );
    for sql in [
        "ANALYZE",
        "ANALYZE TABLE",
        "CHECK TABLE t1,",
        "CHECK TABLE t1 FOR",
        "OPTIMIZE TABLE t1 QUICK",
        "CHECKSUM TABLE t1 QUICK EXTENDED",
        "CHECK TABLE t1 USE_FRM",
        "CHECKSUM LOCAL TABLE t1",
    ] {
        let e = mdl_sql::parse(sql).unwrap_err();
        assert_eq!(e.code(), 1064, "{sql}");
    }
    // Tables of performance_schema and information_schema take no lock.
    locks("CHECK TABLE performance_schema.metadata_locks", &[]);
}

/// sql/sql_reload.cc, `handle_reload_request`: FLUSH TABLES (with or without a list), and the
/// other flushes, take no metadata lock; FLUSH is CF_AUTO_COMMIT_TRANS.
#[test]
fn flush_takes_no_lock() {
    for sql in [
        "FLUSH TABLES",
        "FLUSH TABLES t1, d.t2",
        "FLUSH LOCAL TABLES t1",
        "FLUSH TABLE t1",
        "FLUSH NO_WRITE_TO_BINLOG TABLE",
        "FLUSH NO_WRITE_TO_BINLOG TABLES",
        "FLUSH PRIVILEGES",
        "FLUSH LOGS",
        "FLUSH BINARY LOGS",
        "FLUSH ENGINE LOGS",
        "FLUSH ERROR LOGS",
        "FLUSH GENERAL LOGS",
        "FLUSH SLOW LOGS",
        "FLUSH RELAY LOGS",
        "FLUSH RELAY LOGS FOR CHANNEL c",
        "FLUSH STATUS",
        "FLUSH HOSTS",
        "FLUSH OPTIMIZER_COSTS",
        "FLUSH USER_RESOURCES",
    ] {
        let p = locks(sql, &[]);
        assert_eq!(p.kind, StatementKind::Flush, "{sql}");
        assert!(p.commits_before && p.commits_after, "{sql}");
        assert_eq!(p.effect, Effect::None, "{sql}");
    }
    let mut none = test_schema();
    none.current_schema = None;
    error_in("FLUSH TABLES t1", &none, 1046);
}

/// sql/sql_reload.cc, `flush_tables_for_export`: the tables SNW, no scoped lock
/// (`MYSQL_OPEN_SKIP_SCOPED_MDL_LOCK`), LOCK TABLES mode; 1192 under LOCK TABLES
/// (`handle_reload_request`: ER_LOCK_OR_ACTIVE_TRANSACTION).
#[test]
fn flush_tables_for_export() {
    let p = locks(
        "FLUSH TABLES t1, d.t2 FOR EXPORT",
        &[
            "TABLE d.t2 SNW TRANSACTION",
            "TABLE test.t1 SNW TRANSACTION",
        ],
    );
    assert_eq!(p.kind, StatementKind::Flush);
    assert!(p.commits_before);
    let Effect::LockTables(tables) = &p.effect else {
        panic!("{:?}", p.effect)
    };
    let names: Vec<_> = tables.iter().map(|t| t.table.to_string()).collect();
    assert_eq!(names, ["test.t1", "d.t2"]);
    error_in(
        "FLUSH TABLES t1 FOR EXPORT",
        &locked(&[("t1", "t1", TableLockMode::Read)]),
        1192,
    );
    error_in("FLUSH TABLES FOR EXPORT", &test_schema(), 1064);
    error_in(
        "FLUSH TABLES t1 WITH READ LOCK FOR EXPORT",
        &test_schema(),
        1064,
    );
    locks(
        "FLUSH LOCAL TABLE t1 FOR EXPORT",
        &["TABLE test.t1 SNW TRANSACTION"],
    );
    // The binary-log option changes nothing for FLUSH TABLES WITH READ LOCK either.
    locks(
        "FLUSH NO_WRITE_TO_BINLOG TABLES WITH READ LOCK",
        &["GLOBAL S EXPLICIT", "COMMIT S EXPLICIT"],
    );
}
