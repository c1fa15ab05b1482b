//! The tables a DBA reaches for on any MySQL 8.0 server: `sys.version`, `sys.metrics`,
//! `performance_schema.setup_objects` and the synchronization instances
//! (`mutex_instances`, `rwlock_instances`, `cond_instances`), through a real client.

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sys_version_is_the_sys_schemas_and_the_servers() {
    let mut c = conn().await;
    let row: (String, String) = c
        .query_first("SELECT * FROM sys.version")
        .await
        .unwrap()
        .unwrap();
    let version: String = c.query_first("SELECT @@version").await.unwrap().unwrap();
    assert_eq!(row, ("2.1.2".to_string(), version));
    let cols: Vec<(String, String)> = c
        .query(
            "SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS \
                WHERE TABLE_SCHEMA = 'sys' AND TABLE_NAME = 'version' ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    assert_eq!(cols[0], ("sys_version".into(), "varchar(5)".into()));
    assert_eq!(cols[1].0, "mysql_version");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sys_metrics_is_the_global_status_and_the_time() {
    let mut c = conn().await;
    // Every global status variable, lower-cased, and nothing from InnoDB.
    let (metrics, status): (i64, i64) = c
        .query_first(
            "SELECT (SELECT COUNT(*) FROM sys.metrics WHERE Type = 'Global Status' \
                     AND Enabled = 'YES'), \
                    (SELECT COUNT(*) FROM performance_schema.global_status)",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(status > 10);
    assert_eq!(metrics, status);
    let types: Vec<String> = c
        .query("SELECT DISTINCT Type FROM sys.metrics ORDER BY Type")
        .await
        .unwrap();
    assert_eq!(
        types,
        ["Global Status", "Performance Schema", "System Time"]
    );
    let open: Option<String> = c
        .query_first(
            "SELECT Variable_value FROM sys.metrics WHERE Variable_name = 'threads_connected'",
        )
        .await
        .unwrap()
        .unwrap();
    let connected: i64 = open.unwrap().parse().unwrap();
    assert!(connected >= 1);
    // No memory instrument: NULL, not enabled.
    let memory: Vec<(String, Option<String>, String)> = c
        .query(
            "SELECT Variable_name, Variable_value, Enabled FROM sys.metrics \
                WHERE Type = 'Performance Schema'",
        )
        .await
        .unwrap();
    assert_eq!(
        memory,
        [
            ("memory_current_allocated".into(), None, "NO".into()),
            ("memory_total_allocated".into(), None, "NO".into()),
        ]
    );
    // The time rows: the statement's start, to the millisecond.
    let (now, unix, client): (String, String, i64) = c
        .query_first(
            "SELECT (SELECT Variable_value FROM sys.metrics WHERE Variable_name = 'NOW()'), \
                    (SELECT Variable_value FROM sys.metrics \
                     WHERE Variable_name = 'UNIX_TIMESTAMP()'), UNIX_TIMESTAMP()",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(now.len(), "2024-01-01 00:00:00.000".len(), "{now}");
    let unix: f64 = unix.parse().unwrap();
    assert!((unix - client as f64).abs() < 2.0, "{unix} {client}");
    // MySQL's order: by type, then name.
    let all: Vec<(String, String)> = c
        .query("SELECT Type, Variable_name FROM sys.metrics")
        .await
        .unwrap();
    assert_eq!(all.last().unwrap().1, "UNIX_TIMESTAMP()");
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_objects_has_mysqls_defaults_and_takes_no_writes() {
    let mut c = conn().await;
    let rows: Vec<(String, String, String, String, String)> = c
        .query("SELECT * FROM performance_schema.setup_objects WHERE OBJECT_TYPE = 'TABLE'")
        .await
        .unwrap();
    let row = |s: &str, on: &str| {
        let t = |x: &str| x.to_string();
        (t("TABLE"), t(s), t("%"), t(on), t(on))
    };
    assert_eq!(
        rows,
        [
            row("mysql", "NO"),
            row("performance_schema", "NO"),
            row("information_schema", "NO"),
            row("%", "YES"),
        ]
    );
    let n: i64 = c
        .query_first("SELECT COUNT(*) FROM performance_schema.setup_objects")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 20);
    for (q, cmd) in [
        (
            "UPDATE performance_schema.setup_objects SET ENABLED = 'NO'",
            "UPDATE",
        ),
        (
            "INSERT INTO performance_schema.setup_objects VALUES ('TABLE', 'db1', '%', 'NO', 'NO')",
            "INSERT",
        ),
        ("DELETE FROM performance_schema.setup_objects", "DELETE"),
    ] {
        match c.query_drop(q).await {
            Err(mysql_async::Error::Server(e)) => {
                assert_eq!((e.code, e.state.as_str()), (1142, "42000"), "{q}");
                let want = format!("{cmd} command denied");
                assert!(e.message.starts_with(&want), "{}", e.message);
                assert!(
                    e.message.ends_with("for table 'setup_objects'"),
                    "{}",
                    e.message
                );
            }
            other => panic!("{q}: {other:?}"),
        }
    }
    let enabled: i64 = c
        .query_first("SELECT COUNT(*) FROM performance_schema.setup_objects WHERE ENABLED = 'YES'")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(enabled, 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lock_managers_synch_objects_are_listed() {
    let mut obs = conn().await;
    let mut holder = conn().await;
    fresh(&mut obs, "dba_synch", "id INT PRIMARY KEY").await;
    holder.query_drop("BEGIN").await.unwrap();
    holder.query_drop("SELECT * FROM dba_synch").await.unwrap();
    // The map's partitions, numbered from 0; a wait slot per context; nobody shown as owner.
    let partitions: Vec<(u64, Option<u64>)> = obs
        .query(
            "SELECT OBJECT_INSTANCE_BEGIN, LOCKED_BY_THREAD_ID \
             FROM performance_schema.mutex_instances \
             WHERE NAME = 'wait/synch/mutex/mdl/MDL_map::mutex' ORDER BY 1",
        )
        .await
        .unwrap();
    assert!(!partitions.is_empty());
    let expected: Vec<(u64, Option<u64>)> =
        (0..partitions.len() as u64).map(|i| (i, None)).collect();
    assert_eq!(partitions, expected);
    let (slots, conds): (i64, i64) = obs
        .query_first(
            "SELECT (SELECT COUNT(*) FROM performance_schema.mutex_instances \
                     WHERE NAME = 'wait/synch/mutex/sql/MDL_wait::LOCK_wait_status'), \
                    (SELECT COUNT(*) FROM performance_schema.cond_instances \
                     WHERE NAME = 'wait/synch/cond/sql/MDL_context::COND_wait_status')",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(slots >= 2 && conds >= 2, "{slots} {conds}");
    // The held table's lock object is a prlock, listed with the rwlocks.
    let (locks, writers, readers): (i64, i64, Option<i64>) = obs
        .query_first(
            "SELECT COUNT(*), COUNT(WRITE_LOCKED_BY_THREAD_ID), SUM(READ_LOCKED_BY_COUNT) \
             FROM performance_schema.rwlock_instances \
             WHERE NAME = 'wait/synch/prlock/sql/MDL_lock::rwlock'",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(locks >= 1);
    assert_eq!((writers, readers), (0, Some(0)));
    // Each row is an instance of events_waits_summary_by_instance: the join finds them all.
    // The two tables are read one after the other, and the other tests of this binary make
    // and drop instances meanwhile, so one read may see one instance more: some read of a
    // few sees them agree.
    let mut seen = Vec::new();
    for _ in 0..20 {
        let (all, joined): (i64, i64) = obs
            .query_first(
                "SELECT (SELECT COUNT(*) FROM performance_schema.mutex_instances), \
                        (SELECT COUNT(*) FROM performance_schema.mutex_instances m \
                         JOIN performance_schema.events_waits_summary_by_instance s \
                         ON s.EVENT_NAME = m.NAME \
                         AND s.OBJECT_INSTANCE_BEGIN = m.OBJECT_INSTANCE_BEGIN)",
            )
            .await
            .unwrap()
            .unwrap();
        seen.push((all, joined));
        if all == joined {
            break;
        }
    }
    assert!(seen.iter().any(|(a, j)| a == j), "{seen:?}");
    let (code, _) = code(
        obs.query_drop("DELETE FROM performance_schema.rwlock_instances")
            .await,
    );
    assert_eq!(code, 1142);
    holder.query_drop("COMMIT").await.unwrap();
    // With the instruments on, holds are counted and released in pairs: no reader count
    // left behind (a release without its acquire would wrap it).
    let synch = |on: &str| {
        format!(
            "UPDATE performance_schema.setup_instruments SET ENABLED = '{on}' \
             WHERE NAME LIKE 'wait/synch/%'"
        )
    };
    obs.query_drop(synch("YES")).await.unwrap();
    for _ in 0..3 {
        holder.query_drop("BEGIN").await.unwrap();
        holder.query_drop("SELECT * FROM dba_synch").await.unwrap();
        holder.query_drop("COMMIT").await.unwrap();
    }
    let stale: i64 = obs
        .query_first(
            "SELECT COUNT(*) FROM performance_schema.rwlock_instances \
             WHERE READ_LOCKED_BY_COUNT > 1000",
        )
        .await
        .unwrap()
        .unwrap();
    obs.query_drop(synch("NO")).await.unwrap();
    assert_eq!(stale, 0);
}
