//! One test per rule (DML): statement text -> the lock requests MySQL 8.0 takes, with their
//! types and durations, or the error it raises first. Each case names the MySQL 8.0.45 function
//! it checks (file and function).

mod common;

use common::*;
use mdl_sql::{SessionState, StatementKind, TableLockMode};

// --- DML ------------------------------------------------------------------------------------

/// sql/table.h, `mdl_type_for_dml` and the `Table_ref` request (MDL_TRANSACTION): a read is SR.
#[test]
fn select_takes_shared_read_for_the_transaction() {
    let p = locks(
        "SELECT c FROM sbtest1 WHERE id = 5",
        &["TABLE test.sbtest1 SR TRANSACTION"],
    );
    assert_eq!(p.kind, StatementKind::Select);
    assert!(!p.commits_before && !p.commits_after && !p.writes);
}

/// sql/sql_yacc.yy, `from_clause: FROM DUAL_SYM`: DUAL is no table and takes no lock; a quoted
/// `dual` is a table.
#[test]
fn from_dual_takes_nothing() {
    locks("SELECT 1 FROM DUAL", &[]);
    locks("SELECT 1 FROM dual WHERE 1 = 1", &[]);
    locks("SELECT 1 FROM `dual`", &["TABLE test.dual SR TRANSACTION"]);
}

/// sql/sql_parse.cc, `Query_block::add_table_to_list`: every table of joins, subqueries and
/// derived tables gets its own request; CTE names are not tables.
#[test]
fn every_referenced_table_is_locked() {
    locks(
        "WITH c AS (SELECT * FROM t0) SELECT * FROM t1 JOIN d2.t2 ON t1.a = t2.a \
         WHERE t1.b IN (SELECT b FROM t3) AND EXISTS (SELECT 1 FROM (SELECT 1 FROM t4) x) \
         UNION SELECT * FROM c",
        &[
            "TABLE d2.t2 SR TRANSACTION",
            "TABLE test.t0 SR TRANSACTION",
            "TABLE test.t1 SR TRANSACTION",
            "TABLE test.t3 SR TRANSACTION",
            "TABLE test.t4 SR TRANSACTION",
        ],
    );
}

/// sql/parse_tree_nodes.cc, `PT_query_block_locking_clause::set_lock_for_tables` ->
/// `Query_block::set_lock_for_table`: FOR UPDATE is TL_WRITE (SW, and GLOBAL IX from
/// sql/sql_base.cc `open_table`); FOR SHARE / LOCK IN SHARE MODE is TL_READ_WITH_SHARED_LOCKS
/// (SR).
#[test]
fn for_update_and_for_share() {
    locks(
        "SELECT * FROM t1 WHERE a IN (SELECT a FROM t2) FOR UPDATE",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.t1 SW TRANSACTION",
            "TABLE test.t2 SR TRANSACTION",
        ],
    );
    locks(
        "SELECT * FROM t1 FOR SHARE",
        &["TABLE test.t1 SR TRANSACTION"],
    );
    locks(
        "SELECT * FROM t1 LOCK IN SHARE MODE",
        &["TABLE test.t1 SR TRANSACTION"],
    );
    locks(
        "SELECT * FROM t1 a JOIN t2 b FOR UPDATE OF b",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.t1 SR TRANSACTION",
            "TABLE test.t2 SW TRANSACTION",
        ],
    );
}

/// sql/parse_tree_nodes.cc, `PT_insert::make_cmd` (`set_lock_for_tables` on the target only) and
/// sql/sql_base.cc, `open_table` (GLOBAL IX, MDL_STATEMENT, for a write lock request).
#[test]
fn insert_and_replace() {
    for sql in [
        "INSERT INTO sbtest1 (id, k, c, pad) VALUES (1, 2, 'c', 'p')",
        "REPLACE INTO sbtest1 VALUES (1, 2, 'c', 'p')",
        "INSERT INTO sbtest1 VALUES (1) ON DUPLICATE KEY UPDATE k = k + 1",
    ] {
        let p = locks(
            sql,
            &["GLOBAL IX STATEMENT", "TABLE test.sbtest1 SW TRANSACTION"],
        );
        assert!(p.writes);
    }
    locks(
        "INSERT INTO t1 SELECT * FROM t2",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.t1 SW TRANSACTION",
            "TABLE test.t2 SR TRANSACTION",
        ],
    );
}

/// sql/table.h, `mdl_type_for_dml`: TL_WRITE_LOW_PRIORITY gives SWLP
/// (`PT_insert`, `PT_update`, `PT_delete::add_table` with LOW_PRIORITY).
#[test]
fn low_priority_writes() {
    for sql in [
        "INSERT LOW_PRIORITY INTO t1 VALUES (1)",
        "UPDATE LOW_PRIORITY t1 SET a = 1",
        "DELETE LOW_PRIORITY QUICK FROM t1 WHERE a = 1",
    ] {
        locks(
            sql,
            &["GLOBAL IX STATEMENT", "TABLE test.t1 SWLP TRANSACTION"],
        );
    }
}

/// sql/parse_tree_nodes.cc, `PT_update::make_cmd`: one table SW, subqueries SR; several tables:
/// every table of the join SW ("setting write lock for all tables").
#[test]
fn update_single_and_multi_table() {
    locks(
        "UPDATE sbtest1 SET k = k + 1 WHERE id = (SELECT max(id) FROM t2)",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.sbtest1 SW TRANSACTION",
            "TABLE test.t2 SR TRANSACTION",
        ],
    );
    locks(
        "UPDATE t1, d.t2 SET t1.a = t2.a WHERE t1.id = t2.id",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE d.t2 SW TRANSACTION",
            "TABLE test.t1 SW TRANSACTION",
        ],
    );
    locks(
        "UPDATE t1 JOIN t2 ON t1.id = t2.id SET t1.a = 1",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.t1 SW TRANSACTION",
            "TABLE test.t2 SW TRANSACTION",
        ],
    );
}

/// sql/parse_tree_nodes.cc, `PT_delete::add_table` and `multi_delete_link_tables`: the tables
/// deleted from are SW, the other tables of the join SR.
#[test]
fn delete_single_and_multi_table() {
    locks(
        "DELETE FROM sbtest1 WHERE id = 5",
        &["GLOBAL IX STATEMENT", "TABLE test.sbtest1 SW TRANSACTION"],
    );
    locks(
        "DELETE t1 FROM t1 JOIN t2 ON t1.a = t2.a",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.t1 SW TRANSACTION",
            "TABLE test.t2 SR TRANSACTION",
        ],
    );
    locks(
        "DELETE FROM a USING t1 AS a, t2 WHERE a.x = t2.x",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.t1 SW TRANSACTION",
            "TABLE test.t2 SR TRANSACTION",
        ],
    );
}

/// sql/sql_parse.cc, `Query_block::add_table_to_list` -> `LEX::copy_db_to` -> `THD::copy_db_to`
/// (sql/sql_class.h): an unqualified name without a current schema is ER_NO_DB_ERROR; a
/// qualified one needs none.
#[test]
fn unqualified_names_need_a_current_schema() {
    let none = SessionState::default();
    error_in("SELECT * FROM t1", &none, 1046);
    error_in("DROP TABLE t1", &none, 1046);
    error_in("LOCK TABLES t1 READ", &none, 1046);
    locks_in("SELECT * FROM d.t1", &none, &["TABLE d.t1 SR TRANSACTION"]);
    error_in(
        &format!("SELECT * FROM {}", "x".repeat(65)),
        &test_schema(),
        1059,
    );
}

/// sql/sql_parse.cc, `Query_block::add_table_to_list`: a name `check_table_name` /
/// `check_and_convert_db_name` (sql/table.cc) calls wrong is ER_WRONG_TABLE_NAME (1103) or
/// ER_WRONG_DB_NAME (1102) before any lock; CREATE / DROP DATABASE check the schema name the
/// same way, and `mysql_change_db` (sql/sql_db.cc) refuses an empty one with 1046. A NUL byte
/// ends a quoted identifier in MySQL's lexer: a syntax error.
#[test]
fn names_mysql_rejects_take_no_locks() {
    let t = test_schema();
    error_in("SELECT * FROM ``", &t, 1103);
    error_in("SELECT * FROM `t1 `", &t, 1103);
    error_in("UPDATE ``.t1 SET a = 1", &t, 1102);
    error_in("CREATE DATABASE ``", &t, 1102);
    error_in("DROP DATABASE `d `", &t, 1102);
    error_in("USE ``", &t, 1046);
    error_in("USE `d `", &t, 1102);
    error_in("SELECT * FROM `a\0b`", &t, 1064);
    error_in("LOCK TABLES `` READ", &t, 1103);
}

/// Our server: performance_schema, information_schema and sys take no locks (MySQL's
/// sql/sql_base.cc `open_table` exempts P_S and system views from the LOCK TABLES check).
#[test]
fn system_schemas_take_no_locks() {
    locks("SELECT * FROM performance_schema.metadata_locks", &[]);
    let p = locks(
        "UPDATE performance_schema.setup_consumers SET enabled = 'YES'",
        &[],
    );
    assert!(!p.writes, "no COMMIT IX for a lock-free table");
    locks(
        "SELECT * FROM information_schema.tables JOIN sys.x JOIN t1",
        &["TABLE test.t1 SR TRANSACTION"],
    );
    let ltm = locked(&[("t1", "t1", TableLockMode::Read)]);
    locks_in("SELECT * FROM performance_schema.threads", &ltm, &[]);
}

/// sql/sql_base.cc, `open_table` -> `Global_read_lock::can_acquire_protection`
/// (sql/sql_class.h): a write while this session holds the global read lock is
/// ER_CANT_UPDATE_WITH_READLOCK before any lock; reads are fine.
#[test]
fn writes_under_own_global_read_lock_fail_1223() {
    let mut s = test_schema();
    s.global_read_lock = true;
    error_in("INSERT INTO t1 VALUES (1)", &s, 1223);
    error_in("SELECT * FROM t1 FOR UPDATE", &s, 1223);
    error_in("ALTER TABLE t1 ADD COLUMN b INT", &s, 1223);
    error_in("CREATE DATABASE d", &s, 1223);
    error_in("LOCK TABLES t1 WRITE", &s, 1223);
    locks_in("SELECT * FROM t1", &s, &["TABLE test.t1 SR TRANSACTION"]);
    locks_in(
        "LOCK TABLES t1 READ",
        &s,
        &["TABLE test.t1 SRO TRANSACTION"],
    );
}

/// sql/sql_base.cc, `open_table`: a write lock request in a READ ONLY transaction is
/// ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION.
#[test]
fn writes_in_read_only_transactions_fail_1792() {
    let mut s = test_schema();
    s.in_transaction = true;
    s.read_only = true;
    error_in("UPDATE t1 SET a = 1", &s, 1792);
    locks_in("SELECT * FROM t1", &s, &["TABLE test.t1 SR TRANSACTION"]);
}

/// sql/sql_base.cc, `open_table` (locked-tables branch: ER_TABLE_NOT_LOCKED, matched by name
/// and alias) and `check_lock_and_start_stmt` (ER_TABLE_NOT_LOCKED_FOR_WRITE): under LOCK
/// TABLES a statement takes no new lock.
#[test]
fn statements_under_lock_tables() {
    let s = locked(&[
        ("t1", "t1", TableLockMode::Read),
        ("t2", "t2", TableLockMode::Write),
        ("t3", "x", TableLockMode::ReadLocal),
    ]);
    locks_in("SELECT * FROM t1 JOIN t2", &s, &[]);
    locks_in("UPDATE t2 SET a = 1", &s, &[]);
    locks_in("SELECT * FROM t3 AS x", &s, &[]);
    error_in("SELECT * FROM t4", &s, 1100);
    error_in("SELECT * FROM t3", &s, 1100);
    error_in("SELECT * FROM t1 AS y", &s, 1100);
    error_in("INSERT INTO t1 VALUES (1)", &s, 1099);
    error_in("DELETE FROM t3 AS x", &s, 1099);
    let e = plan_of("SELECT * FROM t9", &s).unwrap_err();
    assert_eq!(e.message(), "Table 't9' was not locked with LOCK TABLES");
}

/// Every statement sysbench 1.0's oltp_read_write sends (prepared, with `?` placeholders)
/// parses and plans: reads SR, writes SW + GLOBAL IX, all on test.sbtest1.
#[test]
fn sysbench_oltp_read_write() {
    let sr: &[&str] = &["TABLE test.sbtest1 SR TRANSACTION"];
    let sw: &[&str] = &["GLOBAL IX STATEMENT", "TABLE test.sbtest1 SW TRANSACTION"];
    for (sql, expected) in [
        ("SELECT c FROM sbtest1 WHERE id=?", sr),
        ("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?", sr),
        ("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?", sr),
        (
            "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
            sr,
        ),
        (
            "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
            sr,
        ),
        ("UPDATE sbtest1 SET k=k+1 WHERE id=?", sw),
        ("UPDATE sbtest1 SET c=? WHERE id=?", sw),
        ("DELETE FROM sbtest1 WHERE id=?", sw),
        (
            "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
            sw,
        ),
        (
            "INSERT INTO sbtest1(k, c, pad) VALUES(1, 'a', 'b'),(2, 'c', 'd')",
            sw,
        ),
        ("BEGIN", &[]),
        ("COMMIT", &[]),
    ] {
        locks(sql, expected);
    }
}

// --- Names ----------------------------------------------------------------------------------

/// sql/sql_parse.cc, `Query_block::add_table_to_list` (and `sql/sql_db.cc` for schemas): with
/// `lower_case_table_names=1` the schema and table names are folded before they become the
/// MDL key, so `T` and `t` are one table; with 0 (MySQL on Linux) they are two.
#[test]
fn lower_case_table_names_folds_schema_and_table_names() {
    let mut folded = SessionState::in_schema("Test");
    folded.lower_case_table_names = true;
    locks_in(
        "SELECT * FROM CaseT JOIN Other.T2 ON 1",
        &folded,
        &[
            "TABLE other.t2 SR TRANSACTION",
            "TABLE test.caset SR TRANSACTION",
        ],
    );
    locks_in(
        "ALTER TABLE TEST.caset ADD COLUMN b INT",
        &folded,
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE test.caset SU TRANSACTION",
        ],
    );
    locks("SELECT * FROM CaseT", &["TABLE test.CaseT SR TRANSACTION"]);
}
