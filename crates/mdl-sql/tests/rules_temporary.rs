//! Temporary tables (`src/plan/temporary.rs`): one test per rule, each naming the MySQL 8.0
//! function it checks; then sessions on one lock manager, where another session's DDL on a base
//! table does not wait for a session that has a temporary table of that name.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use mdl_core::{MdlConfig, MdlManager};
use mdl_sql::{parse, Session, SessionState, SqlError, StatementKind, TableLockMode, TableName};

/// A session in `test` with the temporary tables `test.<name>` for each of `names`.
fn with_temporary(mut s: SessionState, names: &[&str]) -> SessionState {
    for n in names {
        s.temporary_tables
            .insert(TableName::new("test", n).unwrap());
    }
    s
}

fn tt() -> SessionState {
    with_temporary(test_schema(), &["tt"])
}

fn name(n: &str) -> TableName {
    TableName::new("test", n).unwrap()
}

/// sql/sql_parse.cc, `stmt_causes_implicit_commit`: no commit for `HA_LEX_CREATE_TMP_TABLE`;
/// `create_table_set_open_action_and_adjust_tables`: `OT_TEMPORARY_ONLY`, which
/// sql/sql_base.cc `lock_table_names` skips (`is_temporary_table_being_opened`: no table lock,
/// no GLOBAL IX, no BACKUP_LOCK IX); sql/sql_table.cc `mysql_create_table_no_lock`:
/// `dd::Schema_MDL_locker::ensure_locked`, SCHEMA IX until the creation returns.
#[test]
fn create_temporary_table_takes_only_its_schema_ix_and_does_not_commit() {
    let p = locks(
        "CREATE TEMPORARY TABLE tt (a INT)",
        &["SCHEMA test IX STATEMENT"],
    );
    assert_eq!(p.kind, StatementKind::CreateTable);
    assert!(!p.commits_before && !p.commits_after && !p.writes);
    assert!(p.upgrades.is_empty());
    assert_eq!(p.temporary_created, [name("tt")]);
    locks(
        "CREATE TEMPORARY TABLE IF NOT EXISTS other.tt (a INT)",
        &["SCHEMA other IX STATEMENT"],
    );
    // In a transaction: still no commit (the transaction stays open).
    let mut s = test_schema();
    s.autocommit = false;
    s.in_transaction = true;
    s.wrote = true;
    let p = locks_in(
        "CREATE TEMPORARY TABLE t2 (a INT)",
        &s,
        &["SCHEMA test IX STATEMENT"],
    );
    assert!(!p.commits_before && !p.commits_after);
}

/// `PT_create_table_stmt::make_cmd` (sql/parse_tree_nodes.cc): the LIKE source `TL_READ,
/// MDL_SHARED_READ`; a CREATE ... SELECT opens its select's tables as a SELECT does (SR); a
/// temporary source takes none (`open_temporary_tables`).
#[test]
fn create_temporary_table_like_or_select_reads_base_tables_sr() {
    locks(
        "CREATE TEMPORARY TABLE t2 LIKE d.base",
        &["SCHEMA test IX STATEMENT", "TABLE d.base SR TRANSACTION"],
    );
    locks(
        "CREATE TEMPORARY TABLE t2 AS SELECT b.a FROM base AS b JOIN other.x USING (a)",
        &[
            "SCHEMA test IX STATEMENT",
            "TABLE other.x SR TRANSACTION",
            "TABLE test.base SR TRANSACTION",
        ],
    );
    locks_in(
        "CREATE TEMPORARY TABLE t2 SELECT * FROM tt",
        &tt(),
        &["SCHEMA test IX STATEMENT"],
    );
    // A base table made from a temporary one: the temporary source takes no lock.
    locks_in(
        "CREATE TABLE b2 LIKE tt",
        &tt(),
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE test.b2 S TRANSACTION",
        ],
    );
}

/// sql/sql_table.cc, `create_table_impl`: `ER_TABLE_EXISTS_ERROR` for a temporary table the
/// session has (a note with IF NOT EXISTS, and nothing created), under the SCHEMA IX that
/// `mysql_create_table_no_lock` took (so the plan takes it and the server raises 1050); a base
/// table of the name is no obstacle (`OT_TEMPORARY_ONLY`). sql/sql_parse.cc, `mysql_execute_command`:
/// `CF_DISALLOW_IN_RO_TRANS` for SQLCOM_CREATE_TABLE, checked after the implicit commits,
/// which CREATE TEMPORARY TABLE has none of.
#[test]
fn create_temporary_table_errors() {
    let p = locks_in(
        "CREATE TEMPORARY TABLE tt (a INT)",
        &tt(),
        &["SCHEMA test IX STATEMENT"],
    );
    assert!(p.temporary_created.is_empty());
    error_in("CREATE TEMPORARY TABLE tt SELECT 1", &tt(), 1050);
    error_in("CREATE TEMPORARY TABLE tt LIKE t", &tt(), 1050);
    let p = locks_in(
        "CREATE TEMPORARY TABLE IF NOT EXISTS tt (a INT)",
        &tt(),
        &["SCHEMA test IX STATEMENT"],
    );
    assert!(p.temporary_created.is_empty());
    // A CREATE ... SELECT of one that exists stops before the schema lock.
    locks_in(
        "CREATE TEMPORARY TABLE IF NOT EXISTS tt SELECT 1",
        &tt(),
        &[],
    );
    let mut ro = test_schema();
    ro.in_transaction = true;
    ro.read_only = true;
    error_in("CREATE TEMPORARY TABLE t2 (a INT)", &ro, 1792);
    error_in("DROP TEMPORARY TABLE IF EXISTS t2", &ro, 1792);
    error_in(
        "CREATE TEMPORARY TABLE t2 (a INT)",
        &SessionState::default(),
        1046,
    );
}

/// sql/sql_base.cc, `lock_table_names` (GLOBAL IX through
/// `Global_read_lock::can_acquire_protection`) is never reached for a temporary table: CREATE
/// TEMPORARY TABLE, and DML on temporary tables, run with this session's global read lock.
/// `open_table`'s 1223 and 1792 checks are for base tables; the manual ("START TRANSACTION"):
/// a READ ONLY transaction may still change TEMPORARY tables.
#[test]
fn global_read_lock_and_read_only_transactions_allow_temporary_tables() {
    let mut grl = tt();
    grl.global_read_lock = true;
    locks_in(
        "CREATE TEMPORARY TABLE t2 (a INT)",
        &grl,
        &["SCHEMA test IX STATEMENT"],
    );
    let p = locks_in("INSERT INTO tt VALUES (1)", &grl, &[]);
    assert!(!p.writes);
    error_in("INSERT INTO base VALUES (1)", &grl, 1223);
    let mut ro = tt();
    ro.in_transaction = true;
    ro.read_only = true;
    locks_in("UPDATE tt SET a = 2", &ro, &[]);
    error_in("UPDATE base SET a = 2", &ro, 1792);
}

/// sql/sql_base.cc, `open_temporary_tables` before `open_tables`: no lock on a temporary
/// table; a base table in the same statement as always (SW + GLOBAL IX when written, SR when
/// read). sql/handler.cc, `handler::mark_trx_read_write`: only a base table makes the
/// transaction read-write (`Plan::writes`, COMMIT IX at its commit).
#[test]
fn dml_locks_base_tables_only() {
    let s = tt();
    let p = locks_in("SELECT * FROM tt WHERE a > 1", &s, &[]);
    assert_eq!(p.kind, StatementKind::Select);
    for sql in [
        "INSERT INTO tt VALUES (1)",
        "UPDATE tt SET a = a + 1",
        "DELETE FROM tt WHERE a = 1",
        "REPLACE INTO tt VALUES (1)",
        "SELECT * FROM tt FOR UPDATE",
    ] {
        let p = locks_in(sql, &s, &[]);
        assert!(!p.writes, "{sql}");
    }
    let p = locks_in(
        "INSERT INTO tt SELECT * FROM base",
        &s,
        &["TABLE test.base SR TRANSACTION"],
    );
    assert!(!p.writes);
    let p = locks_in(
        "INSERT INTO base SELECT * FROM tt",
        &s,
        &["GLOBAL IX STATEMENT", "TABLE test.base SW TRANSACTION"],
    );
    assert!(p.writes);
    locks_in(
        "SELECT * FROM tt JOIN base USING (a) JOIN test.other USING (a)",
        &s,
        &[
            "TABLE test.base SR TRANSACTION",
            "TABLE test.other SR TRANSACTION",
        ],
    );
    locks_in(
        "UPDATE base JOIN tt USING (a) SET base.b = tt.b",
        &s,
        &["GLOBAL IX STATEMENT", "TABLE test.base SW TRANSACTION"],
    );
    // The temporary table is `test.tt`: a qualified `test.tt` is it too, `other.tt` is not.
    locks_in("SELECT * FROM test.tt", &s, &[]);
    locks_in(
        "SELECT * FROM other.tt",
        &s,
        &["TABLE other.tt SR TRANSACTION"],
    );
    // DO and EXPLAIN read it as SELECT does.
    locks_in("DO (SELECT COUNT(*) FROM tt)", &s, &[]);
    locks_in("EXPLAIN SELECT * FROM tt", &s, &[]);
}

/// sql/sql_base.cc, `open_temporary_table`: `ER_CANT_REOPEN_TABLE` for a temporary table the
/// statement already opened, named by the alias it was first opened under; the manual
/// ("TEMPORARY Table Problems"): "You cannot refer to a TEMPORARY table more than once in the
/// same query".
#[test]
fn a_temporary_table_named_twice_is_1137() {
    let s = with_temporary(test_schema(), &["tt", "t2"]);
    let reopen = |sql: &str, alias: &str| match plan_of(sql, &s) {
        Err(e) => {
            assert_eq!(e.code(), 1137, "{sql}: {e}");
            assert_eq!(
                e.message(),
                format!("Can't reopen table: '{alias}'"),
                "{sql}"
            );
        }
        Ok(p) => panic!("{sql}: expected 1137, got {p}"),
    };
    reopen("SELECT * FROM tt AS a JOIN tt AS b", "a");
    reopen("SELECT * FROM tt WHERE a IN (SELECT a FROM tt)", "tt");
    reopen("SELECT * FROM tt UNION SELECT * FROM tt", "tt");
    reopen("INSERT INTO tt SELECT * FROM tt AS x", "tt");
    reopen("UPDATE tt SET a = (SELECT MAX(a) FROM tt)", "tt");
    reopen(
        "CREATE TEMPORARY TABLE t3 SELECT * FROM tt JOIN tt AS y",
        "tt",
    );
    // Once each: fine, and a base table twice is no temporary table's business.
    locks_in("SELECT * FROM tt JOIN t2 USING (a)", &s, &[]);
    locks_in("UPDATE tt SET a = 1 WHERE a > 0", &s, &[]);
    locks_in("DELETE x FROM tt AS x JOIN t2 USING (a)", &s, &[]);
    locks_in(
        "SELECT * FROM base AS a JOIN base AS b",
        &s,
        &["TABLE test.base SR TRANSACTION"],
    );
    // A CTE named as the temporary table is the CTE.
    locks_in(
        "WITH tt AS (SELECT 1 AS a) SELECT * FROM tt JOIN tt AS u",
        &s,
        &[],
    );
}

/// sql/sql_parse.cc, `stmt_causes_implicit_commit`: SQLCOM_DROP_TABLE commits unless
/// `drop_temporary`; sql/sql_table.cc, `mysql_rm_table`: no lock with `drop_temporary`, and
/// `lock_table_names` skips the temporary tables of a plain DROP TABLE;
/// `mysql_rm_table_no_locks`: `ER_BAD_TABLE_ERROR` naming every missing table
/// (`append_table_name`: `db.table`), before anything is dropped.
#[test]
fn drop_temporary_table_and_drop_table_of_temporary_tables() {
    let s = with_temporary(test_schema(), &["tt", "t2"]);
    let p = locks_in("DROP TEMPORARY TABLE tt, t2", &s, &[]);
    assert!(!p.commits_before && !p.commits_after && !p.writes);
    assert_eq!(p.temporary_dropped, [name("tt"), name("t2")]);
    let e = plan_of("DROP TEMPORARY TABLE tt, nope, other.x", &s).unwrap_err();
    assert_eq!(
        (e.code(), e.sqlstate(), e.message()),
        (1051, "42S02", "Unknown table 'test.nope,other.x'")
    );
    let p = locks_in("DROP TEMPORARY TABLE IF EXISTS nope, tt", &s, &[]);
    assert_eq!(p.temporary_dropped, [name("tt")]);
    // Plain DROP TABLE: the temporary ones without a lock, the others with DDL's locks.
    let p = locks_in("DROP TABLE tt", &s, &[]);
    assert!(p.commits_before && p.commits_after && !p.writes);
    assert_eq!(p.temporary_dropped, [name("tt")]);
    let p = locks_in(
        "DROP TABLE tt, base",
        &s,
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE test.base X TRANSACTION",
        ],
    );
    assert!(p.writes);
    assert_eq!(p.temporary_dropped, [name("tt")]);
}

/// sql/sql_parse.cc, `stmt_causes_implicit_commit`: ALTER TABLE, CREATE / DROP INDEX and
/// TRUNCATE commit, temporary table or not; sql/sql_table.cc, `mysql_alter_table`:
/// `Schema_MDL_locker` on the old and new schema, `find_temporary_table` for the new name
/// (1050), no lock on the table (`lock_table_names` skips it); sql/sql_truncate.cc,
/// `Sql_cmd_truncate_table::truncate_temporary`: no lock.
#[test]
fn alter_index_and_truncate_of_a_temporary_table() {
    let s = with_temporary(test_schema(), &["tt", "t2"]);
    for (sql, kind) in [
        ("ALTER TABLE tt ADD COLUMN b INT", StatementKind::AlterTable),
        ("ALTER TABLE tt ENGINE = InnoDB", StatementKind::AlterTable),
        ("CREATE INDEX k ON tt (a)", StatementKind::CreateIndex),
        ("DROP INDEX k ON tt", StatementKind::DropIndex),
    ] {
        let p = locks_in(sql, &s, &["SCHEMA test IX STATEMENT"]);
        assert_eq!(p.kind, kind, "{sql}");
        assert!(p.commits_before && p.commits_after && !p.writes, "{sql}");
        assert!(p.upgrades.is_empty(), "{sql}");
    }
    let p = locks_in(
        "ALTER TABLE tt RENAME TO other.t3",
        &s,
        &["SCHEMA other IX STATEMENT", "SCHEMA test IX STATEMENT"],
    );
    assert_eq!(p.temporary_dropped, [name("tt")]);
    assert_eq!(
        p.temporary_created,
        [TableName::new("other", "t3").unwrap()]
    );
    error_in("ALTER TABLE tt RENAME TO t2", &s, 1050);
    let p = locks_in("TRUNCATE TABLE tt", &s, &[]);
    assert!(p.commits_before && p.commits_after && !p.writes);
    // Under the session's global read lock too (no `lock_table_names`).
    let mut grl = s.clone();
    grl.global_read_lock = true;
    locks_in(
        "ALTER TABLE tt ADD COLUMN c INT",
        &grl,
        &["SCHEMA test IX STATEMENT"],
    );
    // RENAME TABLE is for base tables (no CF_PREOPEN_TMP_TABLES).
    locks_in(
        "RENAME TABLE tt TO t9",
        &s,
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE test.t9 X TRANSACTION",
            "TABLE test.tt X TRANSACTION",
        ],
    );
}

/// The manual, "LOCK TABLES and UNLOCK TABLES Statements": "LOCK TABLES is permitted (but
/// ignored) for a TEMPORARY table", and a session uses its temporary tables under LOCK TABLES
/// without locking them (sql/sql_base.cc: `open_table`'s 1100 is for base tables); sql/sql_show.cc,
/// `mysqld_show_create` opens the temporary table (no SH); sql/sql_admin.cc,
/// `mysql_admin_table`: `open_temporary_tables`, then `acquire_shared_backup_lock`.
#[test]
fn lock_tables_show_create_and_maintenance() {
    let s = tt();
    let p = locks_in(
        "LOCK TABLES tt WRITE, base READ",
        &s,
        &["TABLE test.base SRO TRANSACTION"],
    );
    match &p.effect {
        mdl_sql::Effect::LockTables(t) => assert_eq!(t.len(), 1),
        other => panic!("{other:?}"),
    }
    let mut ltm = locked(&[("base", "base", TableLockMode::Read)]);
    ltm.temporary_tables = s.temporary_tables.clone();
    locks_in("INSERT INTO tt SELECT * FROM base", &ltm, &[]);
    locks_in("SHOW CREATE TABLE tt", &ltm, &[]);
    locks_in(
        "ALTER TABLE tt ADD COLUMN b INT",
        &ltm,
        &["SCHEMA test IX STATEMENT"],
    );
    error_in("INSERT INTO base VALUES (1)", &ltm, 1099);
    error_in("SELECT * FROM other", &ltm, 1100);
    locks_in("SHOW CREATE TABLE tt", &s, &[]);
    locks_in(
        "SHOW CREATE TABLE base",
        &s,
        &["TABLE test.base SH STATEMENT"],
    );
    locks_in("ANALYZE TABLE tt", &s, &["BACKUP LOCK IX TRANSACTION"]);
    let p = locks_in("OPTIMIZE TABLE tt", &s, &["BACKUP LOCK IX TRANSACTION"]);
    assert!(p.upgrades.is_empty() && !p.writes);
    locks_in("CHECKSUM TABLE tt", &s, &[]);
}

/// sql/sql_view.cc, `mysql_create_view`: `ER_VIEW_SELECT_TMPTABLE`, named by the reference's
/// alias.
#[test]
fn a_view_cannot_read_a_temporary_table() {
    let e = plan_of("CREATE VIEW v AS SELECT * FROM base JOIN tt AS x", &tt()).unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (1352, "View's SELECT refers to a temporary table 'x'")
    );
}

// --- sessions ---------------------------------------------------------------------------------

fn manager() -> Arc<MdlManager> {
    MdlManager::new(MdlConfig::default()).unwrap()
}

fn session(mgr: &Arc<MdlManager>) -> Session {
    let mut s = Session::new(mgr.new_context());
    s.set_current_schema(Some("test".into()));
    s.set_lower_case_table_names(true);
    s.set_lock_wait_timeout(Duration::ZERO); // a conflict is 1205 at once
    s
}

async fn run(s: &mut Session, sql: &str) -> Result<(), SqlError> {
    for p in parse(sql)? {
        let plan = s.plan(&p)?;
        let mut stmt = s.execute(&plan).await?;
        stmt.upgrade().await?;
        stmt.finish().await?;
    }
    Ok(())
}

async fn ok(s: &mut Session, sql: &str) {
    run(s, sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// The session keeps its temporary tables from the statements that create, rename and drop
/// them (names folded as the session folds them); a reset (COM_RESET_CONNECTION) forgets them,
/// as `THD::cleanup` closes them (`close_temporary_tables`, sql/sql_class.cc). A failed CREATE
/// leaves none.
#[tokio::test]
async fn a_session_keeps_its_temporary_tables() {
    let mgr = manager();
    let mut a = session(&mgr);
    ok(&mut a, "CREATE TEMPORARY TABLE TT (a INT)").await;
    assert!(a.state().is_temporary(&name("tt")));
    ok(&mut a, "ALTER TABLE tt RENAME TO t2").await;
    assert_eq!(
        a.state().temporary_tables.iter().collect::<Vec<_>>(),
        [&name("t2")]
    );
    let plan = a
        .plan(&parse("CREATE TEMPORARY TABLE t3 (a INT)").unwrap()[0])
        .unwrap();
    drop(a.execute(&plan).await.unwrap()); // the engine failed it
    assert!(!a.state().is_temporary(&name("t3")));
    ok(&mut a, "DROP TABLE t2").await;
    assert!(a.state().temporary_tables.is_empty());
    ok(&mut a, "CREATE TEMPORARY TABLE t4 (a INT)").await;
    a.reset();
    assert!(a.state().temporary_tables.is_empty());
    assert!(!a.context().has_locks());
}

/// Session A has a temporary `t` and reads it inside an open transaction: B's DDL on the base
/// table `t` takes its locks at once (A holds none on `t`); once A reads the base table `u`
/// (SR until its commit), B's DROP TABLE u waits for it.
#[tokio::test]
async fn ddl_on_a_base_table_does_not_wait_for_a_temporary_one() {
    let mgr = manager();
    let (mut a, mut b) = (session(&mgr), session(&mgr));
    ok(&mut a, "BEGIN").await;
    ok(&mut a, "CREATE TEMPORARY TABLE t (a INT)").await;
    ok(
        &mut a,
        "INSERT INTO t VALUES (1); SELECT * FROM t; UPDATE t SET a = 2",
    )
    .await;
    assert!(
        a.state().in_transaction,
        "CREATE TEMPORARY TABLE did not commit"
    );
    assert!(
        !a.state().wrote,
        "writes to a temporary table are not read-write"
    );
    ok(&mut b, "ALTER TABLE t ADD COLUMN b INT").await;
    ok(&mut b, "DROP TABLE t").await;
    ok(&mut a, "SELECT * FROM u").await;
    assert_eq!(run(&mut b, "DROP TABLE u").await.unwrap_err().code(), 1205);
    ok(&mut a, "COMMIT").await;
    ok(&mut b, "DROP TABLE u").await;
}
