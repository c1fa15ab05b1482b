//! One test per view rule (`plan/view.rs`): statement text -> the lock requests MySQL 8.0
//! takes, or the error it raises first. Each case names the MySQL 8.0.45 function it checks.

mod common;

use common::*;
use mdl_sql::{parse, plan, view_tables, Statement, StatementKind, TableLockMode, TableName};

const DDL_SCOPED: [&str; 3] = [
    "GLOBAL IX STATEMENT",
    "BACKUP LOCK IX TRANSACTION",
    "SCHEMA test IX TRANSACTION",
];

/// sql/sql_yacc.yy, `view_tail`: the view `MDL_EXCLUSIVE`, the select's tables `TL_READ` (SR);
/// sql/sql_view.cc, `mysql_create_view` -> `open_and_lock_tables` -> `lock_table_names` (the
/// scoped locks of a DDL). sql/sql_parse.cc: CREATE VIEW is CF_AUTO_COMMIT_TRANS.
#[test]
fn create_view() {
    let mut expected = DDL_SCOPED.to_vec();
    expected.extend([
        "TABLE test.t1 SR TRANSACTION",
        "TABLE test.v1 X TRANSACTION",
    ]);
    let p = locks(
        "CREATE VIEW v1 AS SELECT id FROM t1 WHERE id > 0",
        &expected,
    );
    assert_eq!(p.kind, StatementKind::CreateView);
    assert!(p.commits_before && p.commits_after && p.writes);
    // MySQL's own form, as SHOW CREATE VIEW and mysqldump write it.
    let p = locks(
        "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`%` SQL SECURITY DEFINER VIEW `v1` AS \
         select `t1`.`id` AS `id` from `t1`",
        &expected,
    );
    assert_eq!(p.kind, StatementKind::CreateView);
    let p = locks(
        "CREATE OR REPLACE VIEW v1 (a) AS SELECT id FROM t1 WITH CHECK OPTION",
        &expected,
    );
    assert_eq!(p.kind, StatementKind::CreateView);
    // Tables of other schemas and of subqueries are read too; I_S takes none.
    locks(
        "CREATE VIEW v1 AS SELECT * FROM other.t2 WHERE a IN (SELECT b FROM t3) \
         AND c IN (SELECT table_name FROM information_schema.tables)",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE other.t2 SR TRANSACTION",
            "TABLE test.t3 SR TRANSACTION",
            "TABLE test.v1 X TRANSACTION",
        ],
    );
}

/// sql/sql_yacc.yy, `alter_view_stmt`: `view_tail` with `VIEW_ALTER`; the same locks.
#[test]
fn alter_view() {
    let mut expected = DDL_SCOPED.to_vec();
    expected.extend([
        "TABLE test.t1 SR TRANSACTION",
        "TABLE test.v1 X TRANSACTION",
    ]);
    for sql in [
        "ALTER VIEW v1 AS SELECT id FROM t1",
        "ALTER ALGORITHM=MERGE DEFINER=root@localhost SQL SECURITY INVOKER VIEW v1 (x) AS \
         SELECT id FROM t1 WITH LOCAL CHECK OPTION",
    ] {
        let p = locks(sql, &expected);
        assert_eq!(p.kind, StatementKind::AlterView, "{sql}");
    }
}

/// sql/sql_yacc.yy, `drop_view_stmt` (`MDL_EXCLUSIVE`); sql/sql_view.cc, `mysql_drop_view` ->
/// `lock_table_names`.
#[test]
fn drop_view() {
    let p = locks(
        "DROP VIEW IF EXISTS v1, other.v2 CASCADE",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA other IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE other.v2 X TRANSACTION",
            "TABLE test.v1 X TRANSACTION",
        ],
    );
    assert_eq!(p.kind, StatementKind::DropView);
    assert!(p.commits_before && p.commits_after);
}

/// sql/sql_view.cc, `mysql_create_view` and `mysql_drop_view`: "we simply prohibit
/// creation/alteration of views under LOCK TABLES" (1192); `lock_table_names` ->
/// `Global_read_lock::can_acquire_protection` (1223); `mysql_create_view`:
/// `ER_VIEW_SELECT_VARIABLE` (1351) for a user variable, not for a system variable.
#[test]
fn view_ddl_errors() {
    let lt = locked(&[("t1", "t1", TableLockMode::Write)]);
    for sql in [
        "CREATE VIEW v AS SELECT 1",
        "ALTER VIEW v AS SELECT 1",
        "DROP VIEW v",
    ] {
        error_in(sql, &lt, 1192);
    }
    let mut ftwrl = test_schema();
    ftwrl.global_read_lock = true;
    error_in("CREATE VIEW v AS SELECT 1", &ftwrl, 1223);
    error_in("DROP VIEW v", &ftwrl, 1223);
    error_in("CREATE VIEW v AS SELECT @a", &test_schema(), 1351);
    error_in(
        "CREATE VIEW v AS SELECT 1 FROM t1 WHERE id = @id",
        &test_schema(),
        1351,
    );
    assert!(plan_of("CREATE VIEW v AS SELECT @@version", &test_schema()).is_ok());
    // Not MySQL's syntax.
    error_in(
        "CREATE MATERIALIZED VIEW v AS SELECT 1",
        &test_schema(),
        1064,
    );
    error_in(
        "CREATE VIEW IF NOT EXISTS v AS SELECT 1",
        &test_schema(),
        1064,
    );
}

/// sql/sql_show.cc, `mysqld_show_create`: SHOW CREATE VIEW opens the view as SHOW CREATE TABLE
/// does, SH for the statement.
#[test]
fn show_create_view() {
    locks("SHOW CREATE VIEW v1", &["TABLE test.v1 SH STATEMENT"]);
}

fn query_of(sql: &str) -> Box<sqlparser::ast::Query> {
    let Statement::Sql { statement, .. } = &parse(sql).unwrap()[0].statement else {
        panic!("{sql}")
    };
    let sqlparser::ast::Statement::Query(q) = statement.as_ref() else {
        panic!("{sql}")
    };
    q.clone()
}

fn t(schema: &str, name: &str) -> TableName {
    TableName::new(schema, name).unwrap()
}

/// `view_tables`: a view's names resolve in the view's schema (sql/sql_view.cc,
/// `mysql_register_view` stores them qualified), CTEs and I_S left out, each table once.
#[test]
fn tables_of_a_view() {
    let v = t("app", "v");
    let q = query_of(
        "WITH c AS (SELECT 1) SELECT * FROM t1 JOIN T2 ON 1 JOIN c \
         WHERE x IN (SELECT y FROM t1) AND z IN (SELECT 1 FROM information_schema.tables)",
    );
    assert_eq!(
        view_tables(&v, &q, false).unwrap(),
        [t("app", "t1"), t("app", "T2")]
    );
    assert_eq!(
        view_tables(&v, &q, true).unwrap(),
        [t("app", "t1"), t("app", "t2")]
    );
}

/// sql/sql_base.cc, `open_and_process_table` -> sql/sql_view.cc, `mysql_make_view`: the view is
/// locked by name as the statement's reference asks, then its tables, with the same type and
/// duration ("set proper lock type for tables of the view's main select"), views in it in
/// turn; a view that reaches itself is `ER_VIEW_RECURSIVE` (1462).
#[test]
fn statements_through_views() {
    let catalog = |name: &TableName| -> Option<Vec<TableName>> {
        match name.name.as_str() {
            "v1" => Some(vec![t("test", "t1"), t("test", "v2")]),
            "v2" => Some(vec![t("test", "t2"), t("performance_schema", "threads")]),
            "loop1" => Some(vec![t("test", "loop2")]),
            "loop2" => Some(vec![t("test", "t1"), t("test", "loop1")]),
            _ => None,
        }
    };
    let expand = |sql: &str, state: &mdl_sql::SessionState| {
        let mut p = plan(&parse(sql).unwrap()[0], state).unwrap();
        p.expand_views(catalog).map(|v| (v, p.describe()))
    };
    let (views, locks) = expand("SELECT * FROM v1 JOIN t3", &test_schema()).unwrap();
    assert_eq!(views, [t("test", "v1"), t("test", "v2")]);
    assert_eq!(
        locks,
        [
            "TABLE test.t1 SR TRANSACTION",
            "TABLE test.t2 SR TRANSACTION",
            "TABLE test.t3 SR TRANSACTION",
            "TABLE test.v1 SR TRANSACTION",
            "TABLE test.v2 SR TRANSACTION",
        ]
    );
    // A write names the view SW: its tables too (and GLOBAL IX, as any write).
    let (_, locks) = expand("INSERT INTO v2 VALUES (1)", &test_schema()).unwrap();
    assert_eq!(
        locks,
        [
            "GLOBAL IX STATEMENT",
            "TABLE test.t2 SW TRANSACTION",
            "TABLE test.v2 SW TRANSACTION",
        ]
    );
    // LOCK TABLES v READ locks the view's tables as the view.
    let (_, locks) = expand("LOCK TABLES v2 READ", &test_schema()).unwrap();
    assert_eq!(
        locks,
        [
            "TABLE test.t2 SRO TRANSACTION",
            "TABLE test.v2 SRO TRANSACTION"
        ]
    );
    // DDL on a view's name is about the name: nothing added.
    let (views, _) = expand("DROP VIEW v1", &test_schema()).unwrap();
    assert!(views.is_empty());
    let (views, _) = expand("ALTER TABLE v1 ADD COLUMN c INT", &test_schema()).unwrap();
    assert!(views.is_empty());
    let e = expand("SELECT * FROM loop1", &test_schema()).unwrap_err();
    assert_eq!(e.code(), 1462);
    assert_eq!(e.message(), "`test`.`loop1` contains view recursion");
}
