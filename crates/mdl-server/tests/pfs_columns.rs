//! The column types of `performance_schema`'s tables and of the `sys` views, as a DBA or a GUI
//! tool reads them: `DESCRIBE`, `SHOW [FULL] COLUMNS`, `SHOW CREATE TABLE`, `SHOW INDEX` and
//! `information_schema.COLUMNS` say what MySQL 8.0 says, and every table still fills its
//! snapshot (no `NOT NULL` a row breaks) while locks are held, waited for and deadlocked.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::{Conn, Row};

/// The column names of `q`'s result and its rows.
async fn shown(c: &mut Conn, q: &str) -> (Vec<String>, Vec<Row>) {
    let mut r = c.query_iter(q).await.unwrap_or_else(|e| panic!("{q}: {e}"));
    let columns = (r.columns())
        .map(|cs| cs.iter().map(|c| c.name_str().into_owned()).collect())
        .unwrap_or_default();
    let rows: Vec<Row> = r.collect().await.unwrap_or_else(|e| panic!("{q}: {e}"));
    (columns, rows)
}

/// `(Field, Type, Null, Key, Default, Extra)` rows of `DESCRIBE` or `SHOW COLUMNS`.
type Described = Vec<(String, String, String, String, Option<String>, String)>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn describe_metadata_locks_is_mysqls() {
    let mut c = conn().await;
    let rows: Described = c
        .query("DESC performance_schema.metadata_locks")
        .await
        .unwrap();
    let got: Vec<(&str, &str, &str)> = (rows.iter())
        .map(|r| (r.0.as_str(), r.1.as_str(), r.2.as_str()))
        .collect();
    // MySQL 8.0's eleven columns, then the lock manager's two.
    assert_eq!(
        got,
        [
            ("OBJECT_TYPE", "varchar(64)", "NO"),
            ("OBJECT_SCHEMA", "varchar(64)", "YES"),
            ("OBJECT_NAME", "varchar(64)", "YES"),
            ("COLUMN_NAME", "varchar(64)", "YES"),
            ("OBJECT_INSTANCE_BEGIN", "bigint unsigned", "NO"),
            ("LOCK_TYPE", "varchar(32)", "NO"),
            ("LOCK_DURATION", "varchar(32)", "NO"),
            ("LOCK_STATUS", "varchar(32)", "NO"),
            ("SOURCE", "varchar(64)", "YES"),
            ("OWNER_THREAD_ID", "bigint unsigned", "YES"),
            ("OWNER_EVENT_ID", "bigint unsigned", "YES"),
            ("OWNER_CONTEXT_ID", "bigint unsigned", "YES"),
            ("OWNER_CONTEXT_LABEL", "varchar(128)", "YES"),
        ]
    );
    assert!(rows
        .iter()
        .all(|r| r.3.is_empty() && r.4.is_none() && r.5.is_empty()));
    // The same from SHOW COLUMNS, and with LIKE (a query over information_schema.COLUMNS).
    let same: Described = c
        .query("SHOW COLUMNS FROM metadata_locks FROM performance_schema")
        .await
        .unwrap();
    assert_eq!(same, rows);
    let like: Described = c
        .query("SHOW COLUMNS FROM performance_schema.metadata_locks LIKE 'LOCK%'")
        .await
        .unwrap();
    assert_eq!(like, rows[5..8]);
    // An ENUM keeps its values' case; a default is MySQL's.
    let (cols, actors) = shown(
        &mut c,
        "SHOW FULL COLUMNS FROM performance_schema.setup_actors",
    )
    .await;
    assert_eq!(cols[..4], ["Field", "Type", "Collation", "Null"]);
    let enabled = &actors[3];
    assert_eq!(
        enabled.get::<String, _>("Type").unwrap(),
        "enum('YES','NO')"
    );
    assert_eq!(enabled.get::<String, _>("Null").unwrap(), "NO");
    assert_eq!(
        enabled
            .get::<Option<String>, _>("Default")
            .unwrap()
            .as_deref(),
        Some("YES")
    );
    let (n, _) = code(c.query_drop("DESC performance_schema.no_such_table").await);
    assert_eq!(n, 1146);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_create_table_and_show_index_answer_without_a_snapshot() {
    // A fresh connection: no statement of it has made the snapshot of `threads`.
    let mut c = conn().await;
    let row: (String, String) = c
        .query_first("SHOW CREATE TABLE performance_schema.threads")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.0, "threads");
    assert_eq!(
        row.1,
        "CREATE TABLE `threads` (\n  \
         `THREAD_ID` bigint unsigned NOT NULL,\n  \
         `NAME` varchar(128) DEFAULT NULL,\n  \
         `TYPE` varchar(10) NOT NULL,\n  \
         `PROCESSLIST_ID` bigint unsigned DEFAULT NULL,\n  \
         `PROCESSLIST_USER` varchar(32) DEFAULT NULL,\n  \
         `PROCESSLIST_HOST` varchar(255) DEFAULT NULL,\n  \
         `PROCESSLIST_DB` varchar(64) DEFAULT NULL,\n  \
         `PROCESSLIST_COMMAND` varchar(16) DEFAULT NULL,\n  \
         `PROCESSLIST_TIME` bigint DEFAULT NULL,\n  \
         `PROCESSLIST_STATE` varchar(64) DEFAULT NULL,\n  \
         `PROCESSLIST_INFO` longtext DEFAULT NULL,\n  \
         `INSTRUMENTED` enum('YES','NO') NOT NULL,\n  \
         `HISTORY` enum('YES','NO') NOT NULL\n\
         ) ENGINE=PERFORMANCE_SCHEMA DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
    );
    let mut fresh = conn().await;
    let (cols, rows) = shown(&mut fresh, "SHOW INDEX FROM performance_schema.threads").await;
    assert_eq!(cols.len(), 15);
    assert!(rows.is_empty(), "no keys");
    let (_, rows) = shown(
        &mut fresh,
        "SHOW KEYS FROM threads IN performance_schema WHERE 1",
    )
    .await;
    assert!(rows.is_empty());
    // A sys view is described from its definition too.
    let rows: Described = fresh.query("DESC sys.session").await.unwrap();
    assert_eq!(rows.len(), 30);
    assert_eq!(
        (rows[1].0.as_str(), rows[1].1.as_str()),
        ("conn_id", "bigint unsigned")
    );
    for bad in [
        "SHOW CREATE TABLE performance_schema.no_such_table",
        "SHOW INDEX FROM performance_schema.no_such_table",
        "SHOW FULL COLUMNS FROM sys.no_such_view",
    ] {
        assert_eq!(code(fresh.query_drop(bad).await).0, 1146, "{bad}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn information_schema_columns_lists_performance_schema_and_sys() {
    let mut c = conn().await;
    let counts: Vec<(String, i64, i64)> = c
        .query(
            "SELECT TABLE_SCHEMA, COUNT(DISTINCT TABLE_NAME), COUNT(*) \
             FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA IN ('performance_schema', 'sys') GROUP BY 1 ORDER BY 1",
        )
        .await
        .unwrap();
    assert_eq!(counts.len(), 2, "{counts:?}");
    assert_eq!(
        (counts[0].0.as_str(), counts[0].1),
        ("performance_schema", 71)
    );
    assert_eq!((counts[1].0.as_str(), counts[1].1), ("sys", 27));
    // Every table of information_schema.TABLES in these schemas has its columns there.
    let orphans: i64 = c
        .query_first(
            "SELECT COUNT(*) FROM information_schema.TABLES t \
             WHERE t.TABLE_SCHEMA IN ('performance_schema', 'sys') AND NOT EXISTS \
             (SELECT 1 FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = t.TABLE_SCHEMA \
              AND c.TABLE_NAME = t.TABLE_NAME)",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(orphans, 0);
    for (schema, table, column, want) in [
        (
            "performance_schema",
            "metadata_locks",
            "OBJECT_INSTANCE_BEGIN",
            ("bigint", "bigint unsigned", "NO", None, Some(20)),
        ),
        (
            "performance_schema",
            "setup_instruments",
            "ENABLED",
            ("enum", "enum('YES','NO')", "NO", Some(3), None),
        ),
        (
            "performance_schema",
            "events_statements_current",
            "DIGEST_TEXT",
            ("longtext", "longtext", "YES", Some(4_294_967_295), None),
        ),
        (
            "performance_schema",
            "events_statements_summary_by_user_by_event_name",
            "SUM_ROWS_SENT",
            ("bigint", "bigint unsigned", "NO", None, Some(20)),
        ),
        (
            "performance_schema",
            "events_transactions_summary_by_host_by_event_name",
            "COUNT_READ_ONLY",
            ("bigint", "bigint unsigned", "NO", None, Some(20)),
        ),
        (
            "sys",
            "session",
            "conn_id",
            ("bigint", "bigint unsigned", "YES", None, Some(20)),
        ),
        (
            "sys",
            "schema_table_lock_waits",
            "sql_kill_blocking_query",
            ("varchar", "varchar(31)", "YES", Some(31), None),
        ),
        (
            "sys",
            "innodb_lock_waits",
            "wait_started",
            ("datetime", "datetime", "YES", None, None),
        ),
    ] {
        type Facts = (String, String, String, Option<i64>, Option<i64>);
        let got: Facts = c
            .exec_first(
                "SELECT DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, CHARACTER_MAXIMUM_LENGTH, \
                 NUMERIC_PRECISION FROM information_schema.COLUMNS \
                 WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?",
                (schema, table, column),
            )
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{schema}.{table}.{column}"));
        let got = (got.0.as_str(), got.1.as_str(), got.2.as_str(), got.3, got.4);
        assert_eq!(got, want, "{schema}.{table}.{column}");
    }
}

/// Every table and view of both schemas, as `information_schema.TABLES` lists them.
async fn all_tables(c: &mut Conn) -> Vec<(String, String)> {
    c.query(
        "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA IN ('performance_schema', 'sys') ORDER BY 1, 2",
    )
    .await
    .unwrap()
}

/// Reads every table and view in full: each fills its snapshot, with the columns
/// `information_schema.COLUMNS` lists, in its order.
async fn read_all(c: &mut Conn, tables: &[(String, String)]) {
    for (schema, table) in tables {
        let (cols, _) = shown(c, &format!("SELECT * FROM {schema}.`{table}`")).await;
        let listed: Vec<String> = c
            .exec(
                "SELECT COLUMN_NAME FROM information_schema.COLUMNS \
                 WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
                (schema, table),
            )
            .await
            .unwrap();
        assert_eq!(cols, listed, "{schema}.{table}");
        let (_, one) = shown(c, &format!("SELECT * FROM {schema}.`{table}` LIMIT 1")).await;
        assert!(one.len() <= 1, "{schema}.{table}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_table_fills_its_snapshot_under_activity() {
    let mut obs = conn().await;
    let tables = all_tables(&mut obs).await;
    assert_eq!(tables.len(), 98);
    // Everything recorded, so that every table has rows (and their NULLs).
    obs.query_drop(
        "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES'",
    )
    .await
    .unwrap();
    obs.query_drop("UPDATE performance_schema.setup_consumers SET ENABLED = 'YES'")
        .await
        .unwrap();
    read_all(&mut obs, &tables).await;

    // A deadlock of user-level locks: `metadata_deadlocks` has a cycle.
    let (mut a, mut b) = (conn().await, conn().await);
    let got: Option<i64> = a
        .query_first("SELECT GET_LOCK('pfs_col_a', 5)")
        .await
        .unwrap();
    assert_eq!(got, Some(1));
    let got: Option<i64> = b
        .query_first("SELECT GET_LOCK('pfs_col_b', 5)")
        .await
        .unwrap();
    assert_eq!(got, Some(1));
    // Each waits for the other's; the victim (3058) lets its locks go, the other gets its own.
    let take = |mut c: Conn, name: &'static str| async move {
        let r: Result<Option<i64>, _> = c
            .query_first(format!("SELECT GET_LOCK('{name}', 20)"))
            .await;
        if r.is_err() {
            c.query_drop("DO RELEASE_ALL_LOCKS()").await.unwrap();
        }
        (r, c)
    };
    let aid = id(&mut a).await;
    let ta = tokio::spawn(take(a, "pfs_col_b"));
    wait_state(&mut obs, aid, "User lock").await;
    let tb = tokio::spawn(take(b, "pfs_col_a"));
    let ((ra, a), (rb, b)) = (ta.await.unwrap(), tb.await.unwrap());
    assert!(ra.is_err() != rb.is_err(), "one victim: {ra:?} {rb:?}");
    for mut c in [a, b] {
        c.query_drop("DO RELEASE_ALL_LOCKS()").await.unwrap();
    }
    let edges: i64 = obs
        .query_first("SELECT COUNT(*) FROM performance_schema.metadata_deadlocks")
        .await
        .unwrap()
        .unwrap();
    assert!(edges >= 2, "{edges}");

    // A metadata-lock wait: a reader's open transaction holds SHARED_READ, an ALTER waits.
    let mut holder = conn().await;
    let mut ddl = conn().await;
    let d = id(&mut ddl).await;
    holder
        .query_drop("CREATE TABLE pfs_col_wait (id INT PRIMARY KEY)")
        .await
        .unwrap();
    holder.query_drop("BEGIN").await.unwrap();
    holder
        .query_drop("SELECT * FROM pfs_col_wait")
        .await
        .unwrap();
    let alter = tokio::spawn(async move {
        let r = ddl
            .query_drop("ALTER TABLE pfs_col_wait ADD COLUMN v INT")
            .await;
        (r, ddl)
    });
    wait_state(&mut obs, d, "Waiting for table metadata lock").await;
    read_all(&mut obs, &tables).await;
    let waits: Vec<(String, String, String)> = obs
        .query(
            "SELECT waiting_lock_type, blocking_lock_type, sql_kill_blocking_query \
             FROM sys.schema_table_lock_waits WHERE object_name = 'pfs_col_wait'",
        )
        .await
        .unwrap();
    assert!(
        waits
            .iter()
            .any(|w| w.1 == "SHARED_READ" && w.2.starts_with("KILL QUERY ")),
        "{waits:?}"
    );
    let pending: i64 = obs
        .query_first(
            "SELECT COUNT(*) FROM performance_schema.metadata_locks \
             WHERE OBJECT_NAME = 'pfs_col_wait' AND LOCK_STATUS = 'PENDING'",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(pending >= 1);
    let blocked: i64 = obs
        .query_first(
            "SELECT COUNT(*) FROM performance_schema.metadata_lock_waits \
             WHERE OBJECT_NAME = 'pfs_col_wait'",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(blocked >= 1);
    holder.query_drop("COMMIT").await.unwrap();
    let (r, _ddl) = alter.await.unwrap();
    r.unwrap();
    read_all(&mut obs, &tables).await;
}
