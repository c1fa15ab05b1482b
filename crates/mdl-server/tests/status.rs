//! MySQL's statement counters as a DBA (or a monitoring agent polling `SHOW GLOBAL STATUS`)
//! reads them: `Com_<command>` and `Questions`, per session and for the server, and the
//! `performance_schema` statement classes named by the same commands.

mod common;

use std::collections::BTreeMap;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// `SHOW [GLOBAL] STATUS` as numbers, by name (the non-numeric rows left out).
async fn status(c: &mut Conn, global: bool) -> BTreeMap<String, u64> {
    let q = match global {
        true => "SHOW GLOBAL STATUS",
        false => "SHOW STATUS",
    };
    let rows: Vec<(String, String)> = c.query(q).await.unwrap();
    (rows.into_iter())
        .filter_map(|(n, v)| Some((n, v.parse().ok()?)))
        .collect()
}

/// What moved between two readings, by name (unmoved ones left out).
fn moved(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    (after.iter())
        .filter(|(n, _)| n.starts_with("Com_") || *n == "Questions")
        .map(|(n, v)| (n.clone(), v - before.get(n).copied().unwrap_or(0)))
        .filter(|(_, d)| *d > 0)
        .collect()
}

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_statement_counts_under_its_command_in_its_session() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE status_t (id INT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    c.query_drop("CREATE TABLE status_u (id INT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    let before = status(&mut c, false).await;
    for q in [
        "SELECT 1",
        "SELECT v FROM status_t WHERE id = 1",
        "INSERT INTO status_t VALUES (1, 1), (2, 2)",
        "INSERT INTO status_u SELECT * FROM status_t",
        "REPLACE INTO status_t VALUES (1, 10)",
        "UPDATE status_t SET v = v + 1 WHERE id = 2",
        "BEGIN",
        "DELETE FROM status_u WHERE id = 1",
        "COMMIT",
        "SHOW TABLES",
        "SHOW FULL PROCESSLIST",
        "DESCRIBE status_t",
        "SHOW COLUMNS FROM status_t",
        "SHOW INDEX FROM status_t",
        "SHOW CREATE TABLE status_t",
        "SET @x = 1",
        "EXPLAIN SELECT * FROM status_t",
    ] {
        c.query_drop(q).await.unwrap();
    }
    // A statement that fails still counts (MySQL counts before it runs); one that does not
    // parse does not.
    let _ = c
        .query_drop("SELECT * FROM status_missing")
        .await
        .unwrap_err();
    let _ = c.query_drop("SELEC 1").await.unwrap_err();
    let after = status(&mut c, false).await;
    assert_eq!(
        moved(&before, &after),
        counts(&[
            ("Com_begin", 1),
            ("Com_commit", 1),
            ("Com_delete", 1),
            ("Com_insert", 1),
            ("Com_insert_select", 1),
            ("Com_replace", 1),
            ("Com_select", 4),
            ("Com_set_option", 1),
            ("Com_show_create_table", 1),
            ("Com_show_fields", 2),
            ("Com_show_keys", 1),
            ("Com_show_processlist", 1),
            ("Com_show_status", 1),
            ("Com_show_tables", 1),
            ("Com_update", 1),
            // The 19 statements above and the SHOW STATUS that reads them.
            ("Questions", 20),
        ])
    );
    assert_eq!(after["Queries"], after["Questions"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_statements_count_as_commands_and_as_what_they_run() {
    let mut c = conn().await;
    let before = status(&mut c, false).await;
    let stmt = c.prep("SELECT ? + 1").await.unwrap();
    for i in 0..3 {
        let got: Option<i64> = c.exec_first(&stmt, (i,)).await.unwrap();
        assert_eq!(got, Some(i + 1));
    }
    c.close(stmt).await.unwrap();
    for q in [
        "PREPARE status_p FROM 'SELECT 2'",
        "EXECUTE status_p",
        "DEALLOCATE PREPARE status_p",
    ] {
        c.query_drop(q).await.unwrap();
    }
    let after = status(&mut c, false).await;
    assert_eq!(
        moved(&before, &after),
        counts(&[
            ("Com_dealloc_sql", 1),
            ("Com_execute_sql", 1),
            ("Com_prepare_sql", 1),
            ("Com_select", 4),
            ("Com_show_status", 1),
            ("Com_stmt_close", 1),
            ("Com_stmt_execute", 3),
            ("Com_stmt_prepare", 1),
            // COM_STMT_PREPARE and COM_STMT_CLOSE are no questions: 3 executions, 3 text
            // statements and SHOW STATUS.
            ("Questions", 7),
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_counts_every_session_even_after_it_ends() {
    let mut obs = conn().await;
    let before = status(&mut obs, true).await;
    let mut other = conn().await;
    let other_id = id(&mut other).await;
    for _ in 0..5 {
        other.query_drop("DO 1").await.unwrap();
    }
    let live = status(&mut obs, true).await;
    other.disconnect().await.unwrap();
    wait_gone(&mut obs, other_id).await;
    let ended = status(&mut obs, true).await;
    for now in [&live, &ended] {
        // Other tests share the server: at least these.
        assert!(now["Com_do"] >= before["Com_do"] + 5, "{now:?}");
        assert!(now["Questions"] >= before["Questions"] + 6);
    }
    assert!(ended["Com_do"] >= live["Com_do"]);
    // The session's own view is its own.
    let mine = status(&mut obs, false).await;
    assert!(mine["Com_do"] == 0 && mine["Questions"] < ended["Questions"]);

    // performance_schema's tables say what SHOW STATUS says, per scope.
    let read = |table: &'static str| {
        format!(
            "SELECT VARIABLE_VALUE FROM performance_schema.{table} \
             WHERE VARIABLE_NAME = 'Com_do'"
        )
    };
    let global: Option<String> = obs.query_first(read("global_status")).await.unwrap();
    let session: Option<String> = obs.query_first(read("session_status")).await.unwrap();
    assert!(global.unwrap().parse::<u64>().unwrap() >= ended["Com_do"]);
    assert_eq!(session.as_deref(), Some("0"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_classes_are_the_commands() {
    let mut c = conn().await;
    // Every class is there from the first statement on, as MySQL lists them from its start.
    let classes: Vec<String> = c
        .query(
            "SELECT NAME FROM performance_schema.setup_instruments \
             WHERE NAME IN ('statement/sql/show_fields', 'statement/sql/insert_select', \
             'statement/sql/lock_instance') ORDER BY NAME",
        )
        .await
        .unwrap();
    assert_eq!(
        classes,
        [
            "statement/sql/insert_select",
            "statement/sql/lock_instance",
            "statement/sql/show_fields"
        ]
    );
    let count = |c: &'static str| {
        format!(
            "SELECT COUNT_STAR FROM performance_schema.events_statements_summary_global_by_event_name \
             WHERE EVENT_NAME = 'statement/sql/{c}'"
        )
    };
    let before: Option<u64> = c.query_first(count("show_fields")).await.unwrap();
    c.query_drop("CREATE TABLE status_cls (id INT PRIMARY KEY)")
        .await
        .unwrap();
    c.query_drop("SHOW FULL COLUMNS FROM status_cls")
        .await
        .unwrap();
    let after: Option<u64> = c.query_first(count("show_fields")).await.unwrap();
    assert!(after.unwrap() > before.unwrap_or(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flush_status_moves_the_session_counts_to_the_server() {
    let mut c = conn().await;
    for _ in 0..3 {
        c.query_drop("DO 1").await.unwrap();
    }
    let before = status(&mut c, true).await;
    c.query_drop("FLUSH STATUS").await.unwrap();
    let mine = status(&mut c, false).await;
    // Only the SHOW STATUS since the flush.
    assert_eq!(
        moved(&BTreeMap::new(), &mine),
        counts(&[("Com_show_status", 1), ("Questions", 1)])
    );
    let after = status(&mut c, true).await;
    assert!(after["Com_do"] >= before["Com_do"], "{before:?} {after:?}");
    assert!(after["Questions"] > before["Questions"]);
}
