//! The server driven by a real client (`mysql_async`) over loopback: the classic pile-up
//! behind an ALTER TABLE and what a DBA sees of it, FLUSH TABLES WITH READ LOCK, LOCK
//! TABLES, GET_LOCK's deadlock, lock_wait_timeout, a client leaving mid-wait, bad
//! statements, prepared statements across changes of the session, the counters `SHOW STATUS`
//! gives a DBA, and `EXPLAIN` in MySQL's table. Every wait is bounded
//! (lock_wait_timeout, or polls of at most 10 s).

mod common;

use std::time::Duration;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Row;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pile_up_behind_alter_is_shown_and_cleared_by_kill() {
    let mut holder = conn().await;
    let mut obs = conn().await;
    holder
        .query_drop("CREATE TABLE pile (id INT PRIMARY KEY, v INT)")
        .await
        .unwrap();
    holder
        .query_drop("INSERT INTO pile VALUES (1, 10)")
        .await
        .unwrap();
    let h = id(&mut holder).await;
    holder.query_drop("BEGIN").await.unwrap();
    let _: Vec<Row> = holder.query("SELECT * FROM pile").await.unwrap();

    // Waits current on each connection's thread (MySQL's default leaves this consumer off).
    obs.query_drop(
        "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' \
         WHERE NAME = 'events_waits_current'",
    )
    .await
    .unwrap();

    let mut alter = conn().await;
    let a = id(&mut alter).await;
    let alter_task = tokio::spawn(async move {
        let r = alter.query_drop("ALTER TABLE pile ADD COLUMN w INT").await;
        (r, alter)
    });
    wait_state(&mut obs, a, "Waiting for table metadata lock").await;

    let mut reader = conn().await;
    let r = id(&mut reader).await;
    let reader_task = tokio::spawn(async move {
        let rows: Result<Vec<Row>, _> = reader.query("SELECT * FROM pile").await;
        rows.map(|rows| rows[0].len())
    });
    wait_state(&mut obs, r, "Waiting for table metadata lock").await;

    // What the DBA sees: MySQL's states and statements in SHOW PROCESSLIST...
    let pl = processlist(&mut obs).await;
    let info = |id| pl.iter().find(|p| p.0 == id).and_then(|p| p.3.clone());
    assert_eq!(
        info(a).as_deref(),
        Some("ALTER TABLE pile ADD COLUMN w INT")
    );
    assert_eq!(info(r).as_deref(), Some("SELECT * FROM pile"));
    // ... the locks in metadata_locks, joined with the process list on the connection id
    // (OWNER_CONTEXT_ID is the connection's id)...
    let rows: Vec<(u64, String, String, Option<String>)> = obs
        .query(
            "SELECT p.ID, ml.LOCK_TYPE, ml.LOCK_STATUS, p.INFO \
             FROM performance_schema.metadata_locks ml \
             JOIN performance_schema.processlist p ON p.ID = ml.OWNER_CONTEXT_ID \
             WHERE ml.OBJECT_TYPE = 'TABLE' AND ml.OBJECT_NAME = 'pile' \
             ORDER BY p.ID, ml.LOCK_TYPE",
        )
        .await
        .unwrap();
    let shown: Vec<(u64, &str, &str)> = rows
        .iter()
        .map(|r| (r.0, r.1.as_str(), r.2.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            (h, "SHARED_READ", "GRANTED"),
            (a, "EXCLUSIVE", "PENDING"),
            (a, "SHARED_UPGRADABLE", "GRANTED"),
            (r, "SHARED_READ", "PENDING"),
        ]
    );
    // ... joined with threads on OWNER_THREAD_ID, every lock row finds its connection's
    // thread (a connection is a pfs thread whichever tokio worker runs it)...
    let owners: Vec<(u64, u64)> = obs
        .query(
            "SELECT ml.OWNER_CONTEXT_ID, t.PROCESSLIST_ID FROM performance_schema.metadata_locks ml \
             JOIN performance_schema.threads t ON t.THREAD_ID = ml.OWNER_THREAD_ID \
             WHERE ml.OBJECT_NAME = 'pile' ORDER BY 1",
        )
        .await
        .unwrap();
    assert_eq!(owners.len(), 4, "{owners:?}");
    assert!(owners.iter().all(|(c, p)| c == p), "{owners:?}");
    // ... the waiting ALTER's metadata-lock wait is current on its connection's thread...
    let current: Vec<String> = obs
        .query(format!(
            "SELECT w.EVENT_NAME FROM performance_schema.events_waits_current w \
             JOIN performance_schema.threads t ON t.THREAD_ID = w.THREAD_ID \
             WHERE t.PROCESSLIST_ID = {a} AND w.EVENT_NAME = 'wait/lock/metadata/sql/mdl'"
        ))
        .await
        .unwrap();
    assert_eq!(current.len(), 1, "{current:?}");
    // ... nested in the ALTER's statement event, in progress on the same thread (the
    // statement's event lives across the task's moves between workers)...
    let statement: Vec<(String, Option<String>)> = obs
        .query(format!(
            "SELECT s.EVENT_NAME, s.DIGEST_TEXT FROM performance_schema.events_waits_current w \
             JOIN performance_schema.threads t ON t.THREAD_ID = w.THREAD_ID \
             JOIN performance_schema.events_statements_current s \
               ON s.THREAD_ID = w.THREAD_ID AND s.EVENT_ID = w.NESTING_EVENT_ID \
             WHERE t.PROCESSLIST_ID = {a} AND w.EVENT_NAME = 'wait/lock/metadata/sql/mdl' \
               AND s.END_EVENT_ID IS NULL"
        ))
        .await
        .unwrap();
    assert_eq!(
        statement,
        [(
            "statement/sql/alter_table".to_string(),
            Some("ALTER TABLE `pile` ADD COLUMN `w` INTEGER".to_string())
        )]
    );
    // ... the DBA's join of metadata_locks with threads alone names each statement...
    let pending: Vec<(u64, String, Option<String>)> = obs
        .query(
            "SELECT PROCESSLIST_ID, PROCESSLIST_STATE, PROCESSLIST_INFO \
             FROM performance_schema.metadata_locks \
             JOIN performance_schema.threads ON THREAD_ID = OWNER_THREAD_ID \
             WHERE OBJECT_NAME = 'pile' AND LOCK_STATUS = 'PENDING' \
               AND PROCESSLIST_ID <> CONNECTION_ID() ORDER BY PROCESSLIST_ID",
        )
        .await
        .unwrap();
    let waiting = "Waiting for table metadata lock".to_string();
    assert_eq!(
        pending,
        [
            (
                a,
                waiting.clone(),
                Some("ALTER TABLE pile ADD COLUMN w INT".into())
            ),
            (r, waiting, Some("SELECT * FROM pile".into())),
        ]
    );
    // ... and who to kill, from sys.
    let kill: Vec<(String, String)> = obs
        .query(format!(
            "SELECT sql_kill_blocking_connection, blocking_account \
             FROM sys.schema_table_lock_waits \
             WHERE object_name = 'pile' AND waiting_pid = {a} AND blocking_lock_type = 'SHARED_READ'"
        ))
        .await
        .unwrap();
    // The account is user@host, without the client's port, as MySQL's.
    assert_eq!(kill, [(format!("KILL {h}"), "root@127.0.0.1".to_string())]);
    // SHOW OPEN TABLES counts the table's locks and requests: SR, SU, X pending, SR pending.
    let open: Vec<(String, String, u64, u64)> = obs
        .query("SHOW OPEN TABLES WHERE `Table` = 'pile' AND In_use > 0")
        .await
        .unwrap();
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!((open[0].1.as_str(), open[0].2, open[0].3), ("pile", 4, 0));

    // KILL of the idle holder closes it, its transaction's locks go, the pile-up clears in
    // order: the ALTER first, then the SELECT that queued behind it sees the new column.
    obs.query_drop(format!("KILL {h}")).await.unwrap();
    let (r1, _alter) = alter_task.await.unwrap();
    r1.unwrap();
    assert_eq!(reader_task.await.unwrap().unwrap(), 3);
    wait_gone(&mut obs, h).await;
    assert!(
        holder.query_drop("SELECT 1").await.is_err(),
        "killed connection is closed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_query_ends_a_waiting_statement_with_1317() {
    let mut holder = conn().await;
    let mut obs = conn().await;
    holder.query_drop("CREATE TABLE kq (id INT)").await.unwrap();
    holder.query_drop("BEGIN").await.unwrap();
    holder.query_drop("SELECT * FROM kq").await.unwrap();
    let mut ddl = conn().await;
    let d = id(&mut ddl).await;
    let t = tokio::spawn(async move {
        let r = ddl.query_drop("DROP TABLE kq").await;
        (r, ddl)
    });
    wait_state(&mut obs, d, "Waiting for table metadata lock").await;
    obs.query_drop(format!("KILL QUERY {d}")).await.unwrap();
    let (r, mut ddl) = t.await.unwrap();
    assert_eq!(code(r), (1317, "70100".into()));
    assert!(locks_of(&mut obs, d).await.is_empty(), "no lock left");
    ddl.query_drop("SELECT 1").await.unwrap(); // the connection goes on
    holder.query_drop("COMMIT").await.unwrap();
    assert_eq!(
        code(obs.query_drop("KILL 999999").await),
        (1094, "HY000".into())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ftwrl_blocks_writes_until_unlock() {
    let mut admin = conn().await;
    let mut obs = conn().await;
    admin.query_drop("CREATE TABLE fw (id INT)").await.unwrap();
    admin
        .query_drop("FLUSH TABLES WITH READ LOCK")
        .await
        .unwrap();
    // The holder's own write: 1223.
    assert_eq!(
        code(admin.query_drop("INSERT INTO fw VALUES (1)").await),
        (1223, "HY000".into())
    );
    let mut writer = conn().await;
    let w = id(&mut writer).await;
    let t = tokio::spawn(async move { writer.query_drop("INSERT INTO fw VALUES (2)").await });
    wait_state(&mut obs, w, "Waiting for global read lock").await;
    // Reads go on.
    let n: u64 = obs
        .query_first("SELECT COUNT(*) FROM fw")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 0);
    admin.query_drop("UNLOCK TABLES").await.unwrap();
    t.await.unwrap().unwrap();
    let n: u64 = obs
        .query_first("SELECT COUNT(*) FROM fw")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_tables_write_blocks_readers_and_checks_its_own_statements() {
    let mut a = conn().await;
    let mut obs = conn().await;
    a.query_drop("CREATE TABLE lt1 (id INT)").await.unwrap();
    a.query_drop("CREATE TABLE lt2 (id INT)").await.unwrap();
    a.query_drop("LOCK TABLES lt1 WRITE").await.unwrap();
    a.query_drop("INSERT INTO lt1 VALUES (1)").await.unwrap();
    // A table not locked: 1100.
    assert_eq!(
        code(a.query_drop("SELECT * FROM lt2").await),
        (1100, "HY000".into())
    );
    let mut b = conn().await;
    let bid = id(&mut b).await;
    let t = tokio::spawn(async move {
        let n: Result<Option<u64>, _> = b.query_first("SELECT COUNT(*) FROM lt1").await;
        n
    });
    wait_state(&mut obs, bid, "Waiting for table metadata lock").await;
    let aid = id(&mut a).await;
    assert!(locks_of(&mut obs, aid)
        .await
        .iter()
        .any(|l| l.1.as_deref() == Some("lt1") && l.2 == "SHARED_NO_READ_WRITE"));
    a.query_drop("UNLOCK TABLES").await.unwrap();
    assert_eq!(t.await.unwrap().unwrap(), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_lock_deadlock_is_3058() {
    let mut a = conn().await;
    let mut b = conn().await;
    let mut obs = conn().await;
    let one: Option<i64> = a.query_first("SELECT GET_LOCK('dl_a', 5)").await.unwrap();
    assert_eq!(one, Some(1));
    let one: Option<i64> = b.query_first("SELECT GET_LOCK('dl_b', 5)").await.unwrap();
    assert_eq!(one, Some(1));
    let aid = id(&mut a).await;
    let t = tokio::spawn(async move {
        let r: Result<Option<i64>, _> = a.query_first("SELECT GET_LOCK('dl_b', 20)").await;
        (r, a)
    });
    wait_state(&mut obs, aid, "User lock").await;
    // b closes the cycle: one of the two is the victim (3058), the other gets its lock once
    // the victim's locks go.
    let rb: Result<Option<i64>, _> = b.query_first("SELECT GET_LOCK('dl_a', 20)").await;
    match rb {
        Err(e) => {
            assert_eq!(code::<()>(Err(e)), (3058, "HY000".into()));
            b.query_drop("DO RELEASE_ALL_LOCKS()").await.unwrap();
            let (ra, _a) = t.await.unwrap();
            assert_eq!(ra.unwrap(), Some(1));
        }
        Ok(v) => {
            let (ra, mut a) = t.await.unwrap();
            assert_eq!(code(ra), (3058, "HY000".into()));
            a.query_drop("DO RELEASE_ALL_LOCKS()").await.unwrap();
            assert_eq!(v, Some(1));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_wait_timeout_is_1205_and_leaves_no_lock() {
    let mut holder = conn().await;
    let mut obs = conn().await;
    holder
        .query_drop("CREATE TABLE lwt (id INT)")
        .await
        .unwrap();
    holder.query_drop("BEGIN").await.unwrap();
    holder.query_drop("SELECT * FROM lwt").await.unwrap();
    let mut ddl = conn().await;
    let d = id(&mut ddl).await;
    ddl.query_drop("SET SESSION lock_wait_timeout = 1")
        .await
        .unwrap();
    let t: Option<u64> = ddl.query_first("SELECT @@lock_wait_timeout").await.unwrap();
    assert_eq!(t, Some(1));
    let r = ddl.query_drop("ALTER TABLE lwt ADD COLUMN x INT").await;
    assert_eq!(code(r), (1205, "HY000".into()));
    assert!(locks_of(&mut obs, d).await.is_empty(), "no lock left");
    holder.query_drop("COMMIT").await.unwrap();
    ddl.query_drop("ALTER TABLE lwt ADD COLUMN x INT")
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_gone_mid_wait_withdraws_its_request_and_releases_its_locks() {
    let mut holder = conn().await;
    let mut obs = conn().await;
    holder
        .query_drop("CREATE TABLE gone (id INT)")
        .await
        .unwrap();
    holder
        .query_drop("CREATE TABLE gone2 (id INT)")
        .await
        .unwrap();
    holder.query_drop("BEGIN").await.unwrap();
    holder.query_drop("SELECT * FROM gone").await.unwrap();

    let mut leaver = conn().await;
    let l = id(&mut leaver).await;
    // It holds a lock of its own (a transaction's read of gone2), then waits for gone.
    leaver.query_drop("BEGIN").await.unwrap();
    leaver.query_drop("SELECT * FROM gone2").await.unwrap();
    let t = tokio::spawn(async move { leaver.query_drop("DROP TABLE gone").await });
    wait_state(&mut obs, l, "Waiting for table metadata lock").await;
    t.abort(); // the client goes away mid-wait: its connection is dropped
    let _ = t.await;
    wait_gone(&mut obs, l).await;
    assert!(
        locks_of(&mut obs, l).await.is_empty(),
        "request withdrawn, locks released"
    );
    // gone2 is free for DDL, and gone was not dropped.
    obs.query_drop("SET SESSION lock_wait_timeout = 5")
        .await
        .unwrap();
    obs.query_drop("DROP TABLE gone2").await.unwrap();
    holder.query_drop("COMMIT").await.unwrap();
    let n: Option<u64> = obs.query_first("SELECT COUNT(*) FROM gone").await.unwrap();
    assert_eq!(n, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_statements_get_mysql_errors_and_leave_nothing_behind() {
    let mut c = conn().await;
    let mut obs = conn().await;
    let me = id(&mut c).await;
    c.query_drop("CREATE TABLE bad (id INT PRIMARY KEY)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO bad VALUES (1)").await.unwrap();
    let cases: [(&str, u16, &str); 11] = [
        ("SELEC 1", 1064, "42000"),
        ("SELECT * FROM ``", 1103, "42000"),
        ("CREATE DATABASE `d `", 1102, "42000"),
        ("SELECT * FROM no_such_table", 1146, "42S02"),
        ("DROP TEMPORARY TABLE no_such_tmp", 1051, "42S02"),
        ("INSERT INTO bad VALUES (1)", 1062, "23000"),
        ("SELECT 1; SELEC 2", 1064, "42000"),
        ("SELECT @@no_such_variable", 1193, "HY000"),
        // MySQL 8.0's defaults: local_infile=OFF, secure_file_priv.
        (
            "LOAD DATA LOCAL INFILE '/tmp/x' INTO TABLE bad",
            3948,
            "42000",
        ),
        ("load data infile '/tmp/x' into table bad", 1290, "HY000"),
        (
            "UPDATE performance_schema.threads SET NAME = 'x'",
            1142,
            "42000",
        ),
    ];
    for (sql, want, state) in cases {
        assert_eq!(code(c.query_drop(sql).await), (want, state.into()), "{sql}");
        assert!(
            locks_of(&mut obs, me).await.is_empty(),
            "no lock left by {sql}"
        );
    }
    // Inside a transaction, a failed statement keeps the transaction and its locks.
    c.query_drop("BEGIN").await.unwrap();
    c.query_drop("SELECT * FROM bad").await.unwrap();
    assert!(c.query_drop("SELECT * FROM no_such_table").await.is_err());
    assert_eq!(locks_of(&mut obs, me).await.len(), 1);
    c.query_drop("COMMIT").await.unwrap();
    let one: Option<i64> = c.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_statements_and_setup_updates() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE ps (id INT PRIMARY KEY, c CHAR(10))")
        .await
        .unwrap();
    c.exec_drop("INSERT INTO ps (id, c) VALUES (?, ?)", (1, "one"))
        .await
        .unwrap();
    c.exec_drop("BEGIN", ()).await.unwrap();
    let v: Option<String> = c
        .exec_first("SELECT c FROM ps WHERE id = ?", (1,))
        .await
        .unwrap();
    assert_eq!(v.as_deref(), Some("one"));
    c.exec_drop("COMMIT", ()).await.unwrap();
    // UPDATE setup_consumers changes the live switch; the snapshot shows it.
    c.query_drop(
        "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' \
         WHERE NAME = 'events_waits_current'",
    )
    .await
    .unwrap();
    let on: Option<String> = c
        .query_first(
            "SELECT ENABLED FROM performance_schema.setup_consumers \
             WHERE NAME = 'events_waits_current'",
        )
        .await
        .unwrap();
    #[cfg(feature = "pfs")]
    assert_eq!(on.as_deref(), Some("YES"));
    let _ = on;
    tokio::time::sleep(Duration::from_millis(1)).await;
}

/// A prepared statement keeps its lock plan and its rewrite between executions; each is made
/// again when what it depends on changed: the schema (`USE`), the transaction (its SR lives
/// until COMMIT), a variable it reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_statement_follows_the_session_between_executions() {
    let (mut c, mut obs) = (conn().await, conn().await);
    let me = id(&mut c).await;
    c.query_drop("CREATE DATABASE IF NOT EXISTS memo_other")
        .await
        .unwrap();
    for (schema, v) in [("test", "here"), ("memo_other", "there")] {
        c.query_drop(format!(
            "CREATE TABLE {schema}.memo_t (id INT PRIMARY KEY, c CHAR(10))"
        ))
        .await
        .unwrap();
        c.query_drop(format!("INSERT INTO {schema}.memo_t VALUES (1, '{v}')"))
            .await
            .unwrap();
    }
    async fn read(c: &mut mysql_async::Conn) -> Option<String> {
        let select = "SELECT c FROM memo_t WHERE id = ?";
        c.exec_first(select, (1,)).await.unwrap()
    }
    assert_eq!(read(&mut c).await.as_deref(), Some("here"));
    assert_eq!(read(&mut c).await.as_deref(), Some("here"));
    c.query_drop("USE memo_other").await.unwrap();
    assert_eq!(read(&mut c).await.as_deref(), Some("there"));
    // Autocommit: the SR went with the statement. In a transaction: it stays until COMMIT.
    assert!(locks_of(&mut obs, me).await.is_empty());
    c.query_drop("BEGIN").await.unwrap();
    assert_eq!(read(&mut c).await.as_deref(), Some("there"));
    let held: Vec<(String, String, String)> = obs
        .query(format!(
            "SELECT OBJECT_SCHEMA, LOCK_TYPE, LOCK_STATUS FROM performance_schema.metadata_locks \
             WHERE OWNER_CONTEXT_ID = {me} AND OBJECT_TYPE = 'TABLE' AND OBJECT_NAME = 'memo_t'"
        ))
        .await
        .unwrap();
    assert_eq!(
        held,
        [("memo_other".into(), "SHARED_READ".into(), "GRANTED".into())]
    );
    c.query_drop("COMMIT").await.unwrap();
    assert!(locks_of(&mut obs, me).await.is_empty());
    // A rewrite that read a variable is made again at each execution.
    async fn timeout(c: &mut mysql_async::Conn) -> Option<u64> {
        let select = "SELECT @@lock_wait_timeout";
        c.exec_first(select, ()).await.unwrap()
    }
    c.query_drop("SET lock_wait_timeout = 7").await.unwrap();
    assert_eq!(timeout(&mut c).await, Some(7));
    c.query_drop("SET lock_wait_timeout = 9").await.unwrap();
    assert_eq!(timeout(&mut c).await, Some(9));
    c.query_drop("DROP DATABASE memo_other").await.unwrap();
}

/// `SHOW [GLOBAL] STATUS`: what a DBA polls, under MySQL's names and in its (sorted) order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_status_counts_statements_connections_and_threads() {
    let mut c = conn().await;
    let status = |rows: &[(String, String)], name: &str| -> u64 {
        (rows.iter())
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} in {rows:?}"))
            .1
            .parse()
            .unwrap()
    };
    let before: Vec<(String, String)> = c.query("SHOW GLOBAL STATUS").await.unwrap();
    let names: Vec<&str> = before.iter().map(|(n, _)| n.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    for _ in 0..3 {
        c.query_drop("SELECT 1").await.unwrap();
    }
    let after: Vec<(String, String)> = c.query("SHOW GLOBAL STATUS").await.unwrap();
    // Other tests share the server: at least this connection's four statements.
    assert!(status(&after, "Questions") >= status(&before, "Questions") + 4);
    assert_eq!(status(&after, "Queries"), status(&after, "Questions"));
    assert!(status(&after, "Threads_running") >= 1, "this SHOW runs");
    assert!(status(&after, "Threads_connected") >= 1);
    assert!(status(&after, "Connections") >= status(&after, "Threads_connected"));
    assert!(status(&after, "Uptime") >= status(&before, "Uptime"));
    let threads: Vec<(String, String)> = c.query("SHOW STATUS LIKE 'Threads%'").await.unwrap();
    let names: Vec<&str> = threads.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Threads_connected", "Threads_running"]);
}

/// `EXPLAIN` answers in MySQL's columns from SQLite's plan: the index used and how.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_names_the_index_and_the_access_type() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE ex_t (id INT PRIMARY KEY, v INT, w INT, KEY kv (v))")
        .await
        .unwrap();
    for (sql, want) in [
        (
            "EXPLAIN SELECT * FROM ex_t WHERE id = 1",
            ("const", Some("PRIMARY"), None),
        ),
        (
            "EXPLAIN SELECT * FROM ex_t WHERE v > 3 ORDER BY w",
            ("range", Some("kv"), Some("Using filesort")),
        ),
        (
            "EXPLAIN SELECT v FROM ex_t",
            ("index", Some("kv"), Some("Using index")),
        ),
        (
            "EXPLAIN SELECT * FROM ex_t WHERE w = 2",
            ("ALL", None, None),
        ),
    ] {
        let rows: Vec<Row> = c.query(sql).await.unwrap();
        assert_eq!(rows.len(), 1, "{sql}");
        let r = &rows[0];
        let got: (String, Option<String>, Option<String>) = (
            r.get("type").unwrap(),
            r.get("key").unwrap(),
            r.get("Extra").unwrap(),
        );
        let want = (
            want.0.to_string(),
            want.1.map(str::to_string),
            want.2.map(str::to_string),
        );
        assert_eq!(got, want, "{sql}");
        assert_eq!(r.get::<String, _>("table").unwrap(), "ex_t");
        assert_eq!(r.columns_ref().len(), 12);
    }
    c.query_drop("DROP TABLE ex_t").await.unwrap();
}
