//! `sys.session`, `sys.processlist` and their `x$` forms, as a DBA reads them in a
//! metadata-lock pile-up, and `performance_schema`'s variables and status tables, which must
//! say what `SHOW VARIABLES` and `SHOW STATUS` say.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Row;

/// Whether `s` is a `FORMAT_PICO_TIME` string: a number and a unit.
fn is_latency(s: &str) -> bool {
    let Some((n, unit)) = s.trim().split_once(' ') else {
        return false;
    };
    n.parse::<f64>().is_ok() && ["ps", "ns", "us", "ms", "s", "min", "h", "d"].contains(&unit)
}

/// `sys.x$processlist`'s `(thd_id, conn_id, statement_latency, last_wait_latency,
/// trx_state)`.
type XRow = (Option<u64>, u64, Option<u64>, String, Option<String>);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pile_up_shows_in_sys_session_and_x_processlist() {
    let mut obs = conn().await;
    let mut holder = conn().await;
    let mut ddl = conn().await;
    let (h, a) = (id(&mut holder).await, id(&mut ddl).await);
    obs.query_drop("CREATE TABLE sys_sess_pile (id INT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    obs.query_drop("INSERT INTO sys_sess_pile VALUES (1, 1)")
        .await
        .unwrap();
    // Waits current on each connection's thread: `last_wait` (MySQL's default leaves this
    // consumer off, and `last_wait` NULL).
    obs.query_drop(
        "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' \
         WHERE NAME = 'events_waits_current'",
    )
    .await
    .unwrap();
    // The holder reads the table in a transaction and goes idle: SHARED_READ held.
    holder.query_drop("BEGIN").await.unwrap();
    holder
        .query_drop("SELECT * FROM sys_sess_pile WHERE id = 1")
        .await
        .unwrap();
    let alter = tokio::spawn(async move {
        let r = ddl
            .query_drop("ALTER TABLE sys_sess_pile ADD COLUMN w INT")
            .await;
        (r, ddl)
    });
    wait_state(&mut obs, a, "Waiting for table metadata lock").await;

    // What a DBA types: the waiting statement, its state and its wait.
    let rows: Vec<Row> = obs
        .query(format!(
            "SELECT conn_id, command, state, current_statement, statement_latency, last_wait, \
             last_wait_latency, last_statement, trx_state, trx_autocommit, trx_latency, user, \
             rows_sent, rows_affected, lock_latency \
             FROM sys.session WHERE conn_id IN ({h}, {a}) ORDER BY conn_id"
        ))
        .await
        .unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    let by_id: BTreeMap<u64, &Row> = rows
        .iter()
        .map(|r| (r.get::<u64, _>("conn_id").unwrap(), r))
        .collect();
    let text = |r: &Row, c: &str| r.get::<Option<String>, _>(c).unwrap();
    let w = by_id[&a];
    assert_eq!(text(w, "command").as_deref(), Some("Query"));
    assert_eq!(
        text(w, "state").as_deref(),
        Some("Waiting for table metadata lock")
    );
    assert_eq!(
        text(w, "current_statement").as_deref(),
        Some("ALTER TABLE sys_sess_pile ADD COLUMN w INT")
    );
    assert_eq!(
        text(w, "last_wait").as_deref(),
        Some("wait/lock/metadata/sql/mdl")
    );
    assert_eq!(
        text(w, "last_wait_latency").as_deref(),
        Some("Still Waiting")
    );
    let latency = text(w, "statement_latency").expect("a running statement's latency");
    assert!(is_latency(&latency), "{latency:?}");
    assert_eq!(text(w, "last_statement"), None, "it is still running");
    assert_eq!(text(w, "user").as_deref(), Some("root@127.0.0.1"));
    // The blocker: idle in its transaction, its last statement and how long it has been open.
    let b = by_id[&h];
    assert_eq!(text(b, "command").as_deref(), Some("Sleep"));
    assert_eq!(text(b, "current_statement"), None);
    assert_eq!(text(b, "statement_latency"), None);
    // Its last statement as it was sent (sys 8.0 shows `SQL_TEXT`), with what it returned.
    assert_eq!(
        text(b, "last_statement").as_deref(),
        Some("SELECT * FROM sys_sess_pile WHERE id = 1")
    );
    assert_eq!(b.get::<Option<u64>, _>("rows_sent").unwrap(), Some(1));
    assert_eq!(b.get::<Option<u64>, _>("rows_affected").unwrap(), Some(0));
    let lock = text(b, "lock_latency");
    assert_eq!(
        lock.as_deref().map(str::trim),
        Some("0 ps"),
        "it did not wait"
    );
    assert_eq!(text(b, "trx_state").as_deref(), Some("ACTIVE"));
    assert_eq!(text(b, "trx_autocommit").as_deref(), Some("NO"));
    let trx = text(b, "trx_latency").expect("the open transaction's age");
    assert!(is_latency(&trx), "{trx:?}");

    // WHERE and ORDER BY on the view's columns, as in MySQL.
    let waiting: Vec<(u64, String)> = obs
        .query(
            "SELECT conn_id, state FROM sys.session \
             WHERE state LIKE 'Waiting for%metadata lock' ORDER BY time DESC, conn_id",
        )
        .await
        .unwrap();
    assert!(
        waiting.contains(&(a, "Waiting for table metadata lock".to_string())),
        "{waiting:?}"
    );
    assert!(!waiting.iter().any(|w| w.0 == h), "{waiting:?}");
    // A prepared statement reads it too.
    let state: Option<String> = obs
        .exec_first("SELECT state FROM sys.session WHERE conn_id = ?", (a,))
        .await
        .unwrap();
    assert_eq!(state.as_deref(), Some("Waiting for table metadata lock"));

    // x$processlist: the same rows with raw picoseconds and the threads' ids, which join
    // metadata_locks' owners in one snapshot.
    let raw: Vec<XRow> = obs
        .query(format!(
            "SELECT thd_id, conn_id, statement_latency, last_wait_latency, trx_state \
             FROM sys.x$processlist WHERE conn_id = {a}"
        ))
        .await
        .unwrap();
    assert_eq!(raw.len(), 1, "{raw:?}");
    let (thd, _, ps, wait, trx) = raw[0].clone();
    assert!(ps.is_some_and(|ps| ps > 0), "{raw:?}");
    assert_eq!((wait.as_str(), trx), ("Still Waiting", None));
    let thread: Option<u64> = obs
        .query_first(format!(
            "SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = {a}"
        ))
        .await
        .unwrap();
    assert_eq!(thd, thread);
    let pending: Vec<(u64, String)> = obs
        .query(
            "SELECT s.conn_id, ml.LOCK_TYPE FROM sys.x$session s \
             JOIN performance_schema.metadata_locks ml ON ml.OWNER_THREAD_ID = s.thd_id \
             WHERE ml.OBJECT_NAME = 'sys_sess_pile' AND ml.LOCK_STATUS = 'PENDING'",
        )
        .await
        .unwrap();
    assert_eq!(pending, [(a, "EXCLUSIVE".to_string())]);
    let holder_trx: Option<u64> = obs
        .query_first(format!(
            "SELECT trx_latency FROM sys.x$session WHERE conn_id = {h}"
        ))
        .await
        .unwrap();
    assert!(holder_trx.is_some_and(|ps| ps > 0), "{holder_trx:?}");
    // sys.session is x$processlist's client connections, formatted.
    let counts: (u64, u64, u64) = obs
        .query_first(
            "SELECT (SELECT COUNT(*) FROM sys.session), (SELECT COUNT(*) FROM sys.x$session), \
             (SELECT COUNT(*) FROM sys.x$processlist WHERE conn_id IS NOT NULL)",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!((counts.0, counts.1), (counts.2, counts.2), "{counts:?}");
    assert!(counts.0 >= 3, "{counts:?}");

    // The views are listed where MySQL lists them.
    let tables: Vec<String> = obs.query("SHOW TABLES FROM sys").await.unwrap();
    for t in ["processlist", "session", "x$processlist", "x$session"] {
        assert!(tables.iter().any(|n| n == t), "{t}: {tables:?}");
    }
    let views: Vec<String> = obs
        .query(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sys' \
             AND TABLE_TYPE = 'VIEW' AND TABLE_NAME LIKE '%session' ORDER BY TABLE_NAME",
        )
        .await
        .unwrap();
    assert_eq!(views, ["session", "x$session"]);

    // KILL of the blocker ends the pile-up; the ALTER's row shows it idle again.
    obs.query_drop(format!("KILL {h}")).await.unwrap();
    let (r, mut ddl) = tokio::time::timeout(Duration::from_secs(10), alter)
        .await
        .expect("the ALTER ends")
        .unwrap();
    r.unwrap();
    let after: Option<(String, Option<String>, Option<String>)> = obs
        .query_first(format!(
            "SELECT command, current_statement, last_statement FROM sys.session \
             WHERE conn_id = {a}"
        ))
        .await
        .unwrap();
    assert_eq!(
        after,
        Some((
            "Sleep".to_string(),
            None,
            Some("ALTER TABLE sys_sess_pile ADD COLUMN w INT".to_string())
        ))
    );
    // Its lock time is the metadata-lock wait it just ended.
    let lock: Option<u64> = obs
        .query_first(format!(
            "SELECT lock_latency FROM sys.`x$session` WHERE conn_id = {a}"
        ))
        .await
        .unwrap();
    assert!(lock.is_some_and(|ps| ps > 0), "{lock:?}");
    ddl.query_drop("DROP TABLE sys_sess_pile").await.unwrap();
}

/// `(name, value)` rows of a query, sorted.
async fn pairs(c: &mut mysql_async::Conn, q: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = c.query(q).await.unwrap();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn variables_and_status_tables_say_what_show_says() {
    let mut c = conn().await;
    let mut other = conn().await;
    c.query_drop("SET SESSION lock_wait_timeout = 7")
        .await
        .unwrap();

    // The session's values: SHOW VARIABLES and session_variables, the SET included.
    let shown = pairs(&mut c, "SHOW VARIABLES").await;
    let table = pairs(
        &mut c,
        "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.session_variables",
    )
    .await;
    assert_eq!(shown, table);
    assert!(table.contains(&("lock_wait_timeout".into(), "7".into())));
    let one: Option<String> = c
        .query_first(
            "SELECT VARIABLE_VALUE FROM performance_schema.session_variables \
             WHERE VARIABLE_NAME = 'lock_wait_timeout'",
        )
        .await
        .unwrap();
    assert_eq!(one.as_deref(), Some("7"));
    assert_eq!(
        pairs(&mut c, "SHOW VARIABLES LIKE 'lock_wait%'").await,
        pairs(
            &mut c,
            "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.session_variables \
             WHERE VARIABLE_NAME LIKE 'lock_wait%'"
        )
        .await
    );

    // The global values: unchanged by the session's SET, as another session sees them.
    let global = pairs(
        &mut c,
        "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.global_variables",
    )
    .await;
    assert_eq!(global, pairs(&mut c, "SHOW GLOBAL VARIABLES").await);
    let global_timeout = (global.iter())
        .find(|(n, _)| n == "lock_wait_timeout")
        .map(|(_, v)| v.clone());
    assert_ne!(global_timeout.as_deref(), Some("7"));
    let theirs: Option<String> = other
        .query_first(
            "SELECT VARIABLE_VALUE FROM performance_schema.session_variables \
             WHERE VARIABLE_NAME = 'lock_wait_timeout'",
        )
        .await
        .unwrap();
    assert_eq!(theirs, global_timeout);
    // Joined with @@, as a DBA compares a setting across scopes.
    let scoped: Option<(String, String, i64)> = c
        .query_first(
            "SELECT s.VARIABLE_VALUE, g.VARIABLE_VALUE, @@session.lock_wait_timeout \
             FROM performance_schema.session_variables s \
             JOIN performance_schema.global_variables g USING (VARIABLE_NAME) \
             WHERE VARIABLE_NAME = 'lock_wait_timeout'",
        )
        .await
        .unwrap();
    let scoped = scoped.expect("a row");
    assert_eq!((scoped.0.as_str(), scoped.2), ("7", 7));
    assert_eq!(Some(scoped.1), global_timeout);

    // Status: the same names as SHOW STATUS, the counters only moving forward.
    let before = pairs(&mut c, "SHOW STATUS").await;
    let status = pairs(
        &mut c,
        "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.global_status",
    )
    .await;
    let session = pairs(
        &mut c,
        "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.session_status",
    )
    .await;
    let names = |v: &[(String, String)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&before), names(&status));
    assert_eq!(names(&status), names(&session));
    let value = |v: &[(String, String)], name: &str| -> u64 {
        let found = v.iter().find(|(n, _)| n == name);
        found.expect(name).1.parse().expect("a number")
    };
    let (q0, q1, q2) = (
        value(&before, "Questions"),
        value(&status, "Questions"),
        value(&session, "Questions"),
    );
    // SHOW STATUS and session_status: this session's questions; global_status: every
    // session's, at least this one's.
    assert!(q0 < q2 && q2 <= q1 + 1, "{q0} {q1} {q2}");
    let failed: Option<String> = c
        .query_first(
            "SELECT VARIABLE_VALUE FROM performance_schema.global_status \
             WHERE VARIABLE_NAME = 'Statements_failed_1205'",
        )
        .await
        .unwrap();
    assert_eq!(
        failed.map(|v| v.parse::<u64>().unwrap()),
        Some(value(&before, "Statements_failed_1205"))
    );
    let tables: Vec<String> = c
        .query("SHOW TABLES FROM performance_schema")
        .await
        .unwrap();
    for t in [
        "global_variables",
        "session_variables",
        "global_status",
        "session_status",
    ] {
        assert!(tables.iter().any(|n| n == t), "{t}: {tables:?}");
    }
    // By name, as MySQL lists them, whatever case the schema is named in.
    let mut by_name = tables.clone();
    by_name.sort();
    assert_eq!(tables, by_name);
    for schema in ["PERFORMANCE_SCHEMA", "Sys", "INFORMATION_SCHEMA", "TEST"] {
        let listed: Vec<String> = c.query(format!("SHOW TABLES FROM {schema}")).await.unwrap();
        let mut by_name = listed.clone();
        by_name.sort();
        assert_eq!(listed, by_name, "{schema}");
        if schema != "TEST" {
            assert!(!listed.is_empty(), "{schema}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn format_functions_are_mysqls() {
    let mut c = conn().await;
    let row: Option<(String, String, Option<String>)> = c
        .query_first(
            "SELECT FORMAT_PICO_TIME(1234000000000), FORMAT_BYTES(1536), FORMAT_PICO_TIME(NULL)",
        )
        .await
        .unwrap();
    assert_eq!(
        row,
        Some(("1.23 s".to_string(), "1.50 KiB".to_string(), None))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_reports_rank_digests_and_count_errors() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE sys_stmt_rep (id INT PRIMARY KEY)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO sys_stmt_rep VALUES (1), (2)")
        .await
        .unwrap();
    for _ in 0..3 {
        c.query_drop("SELECT * FROM sys_stmt_rep").await.unwrap();
    }
    for id in [1, 2] {
        let dup = c
            .query_drop(format!("INSERT INTO sys_stmt_rep VALUES ({id})"))
            .await;
        assert!(dup.is_err(), "a duplicate key");
    }

    // One row per digest, its counts summed over its executions.
    type Analysis = (u64, u64, u64, u64, u64, String, String);
    let select: Option<Analysis> = c
        .query_first(
            "SELECT exec_count, err_count, rows_sent, rows_sent_avg, rows_affected, \
             total_latency, digest FROM sys.statement_analysis \
             WHERE query = 'SELECT * FROM `sys_stmt_rep`'",
        )
        .await
        .unwrap();
    let (count, errors, sent, avg, affected, total, digest) = select.expect("the SELECT's row");
    assert_eq!((count, errors, sent, avg, affected), (3, 0, 6, 2, 0));
    assert!(is_latency(&total), "{total:?}");
    // The x$ form: the same digest, its latency in picoseconds.
    let raw: Option<(u64, u64)> = c
        .exec_first(
            "SELECT exec_count, total_latency FROM sys.`x$statement_analysis` WHERE digest = ?",
            (digest,),
        )
        .await
        .unwrap();
    assert!(raw.is_some_and(|(n, ps)| n == 3 && ps > 0), "{raw:?}");
    // Ranked by total latency, as sys's view.
    let latencies: Vec<u64> = c
        .query("SELECT total_latency FROM sys.`x$statement_analysis`")
        .await
        .unwrap();
    assert!(latencies.windows(2).all(|w| w[0] >= w[1]), "{latencies:?}");

    // The failing INSERTs: one digest, two errors in two executions.
    let failed: Vec<(String, u64, u64, f64)> = c
        .query(
            "SELECT query, exec_count, errors, error_pct \
             FROM sys.statements_with_errors_or_warnings WHERE query LIKE '%sys_stmt_rep%'",
        )
        .await
        .unwrap();
    assert_eq!(
        failed,
        [(
            "INSERT INTO `sys_stmt_rep` VALUES (?)".to_string(),
            2,
            2,
            100.0
        )]
    );
}
