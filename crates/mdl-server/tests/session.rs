//! What a session reads of itself and sets, as MySQL answers it: `@user` variables,
//! `ROW_COUNT()`, `LAST_INSERT_ID()`, `USER()` (the login), `lock_wait_timeout` (session,
//! `GLOBAL`, `DEFAULT`, out of range); locking reads (`FOR UPDATE`, `FOR SHARE`, `NOWAIT`); and the
//! engine's faults under MySQL's codes (1136, 1060, 1054, 1305), the connection usable after.

mod common;

use std::time::Duration;

use common::*;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_variables_hold_values_for_text_and_prepared_statements() {
    let mut c = conn().await;
    let unset: Option<i64> = c.query_first("SELECT @sv_never").await.unwrap().unwrap();
    assert_eq!(unset, None, "an unset variable is NULL");
    c.query_drop("SET @sv_a = 40 + 2, @SV_B = CONCAT('x', 'y')")
        .await
        .unwrap();
    let (a, b): (i64, String) = c.query_first("SELECT @sv_a, @sv_b").await.unwrap().unwrap();
    assert_eq!((a, b.as_str()), (42, "xy"));
    // A variable set from another: the value at the time of the SET.
    c.query_drop("SET @sv_c = @sv_a * 2").await.unwrap();
    c.query_drop("SET @sv_a = 1").await.unwrap();
    let stmt = c.prep("SELECT @sv_a + ?, @sv_c").await.unwrap();
    let row: (i64, i64) = c.exec_first(&stmt, (1,)).await.unwrap().unwrap();
    assert_eq!(row, (2, 84));
    // A prepared statement reads the variable's value at each execution, not at its first.
    c.query_drop("SET @sv_a = 10").await.unwrap();
    let row: (i64, i64) = c.exec_first(&stmt, (1,)).await.unwrap().unwrap();
    assert_eq!(row, (11, 84));
    // The column keeps MySQL's name.
    let r: Vec<mysql_async::Row> = c.query("SELECT @sv_c").await.unwrap();
    assert_eq!(r[0].columns_ref()[0].name_str(), "@sv_c");
    // Another session has its own.
    let mut other = conn().await;
    let there: Option<i64> = other.query_first("SELECT @sv_c").await.unwrap().unwrap();
    assert_eq!(there, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_count_last_insert_id_and_user_follow_mysql() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE sv_ai (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO sv_ai (v) VALUES (1), (2)")
        .await
        .unwrap();
    assert_eq!(c.last_insert_id(), Some(2), "the OK packet's id");
    let n: i64 = c.query_first("SELECT ROW_COUNT()").await.unwrap().unwrap();
    assert_eq!(n, 2, "the INSERT's rows");
    let id: i64 = c
        .query_first("SELECT LAST_INSERT_ID()")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(id, 2);
    c.query_drop("UPDATE sv_ai SET v = v + 1").await.unwrap();
    assert_eq!(c.last_insert_id(), None, "an UPDATE generates no id");
    let (rows, id): (i64, i64) = c
        .query_first("SELECT ROW_COUNT(), LAST_INSERT_ID()")
        .await
        .unwrap()
        .unwrap();
    assert_eq!((rows, id), (2, 2), "ROW_COUNT of the UPDATE; the id kept");
    let again: i64 = c.query_first("SELECT ROW_COUNT()").await.unwrap().unwrap();
    assert_eq!(again, -1, "after a SELECT");
    let (user, current): (String, String) = c
        .query_first("SELECT USER(), CURRENT_USER()")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (user.as_str(), current.as_str()),
        ("root@127.0.0.1", "root@%")
    );
    // The keyword without parentheses, as a DBA types it; named as typed.
    let mut r: Vec<mysql_async::Row> = c.query("SELECT CURRENT_USER").await.unwrap();
    let row = r.remove(0);
    assert_eq!(row.columns_ref()[0].name_str(), "CURRENT_USER");
    assert_eq!(row.get::<String, _>(0).as_deref(), Some("root@%"));
}

/// The login is the session's user everywhere a DBA or a client looks: `USER()`,
/// `CURRENT_USER()`, `SHOW PROCESSLIST` and `performance_schema.threads`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_is_the_user_everywhere() {
    let addr = server();
    let url = format!("mysql://alice@{}:{}/test", addr.ip(), addr.port());
    let mut c = Conn::new(Opts::from_url(&url).unwrap()).await.unwrap();
    let me = id(&mut c).await;
    let (user, current): (String, String) = c
        .query_first("SELECT USER(), CURRENT_USER()")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (user.as_str(), current.as_str()),
        ("alice@127.0.0.1", "alice@%")
    );
    let mut dba = conn().await;
    let rows: Vec<mysql_async::Row> = dba.query("SHOW PROCESSLIST").await.unwrap();
    let listed: Vec<(u64, String)> = rows
        .into_iter()
        .map(|r| (r.get("Id").unwrap(), r.get("User").unwrap()))
        .collect();
    assert!(listed.contains(&(me, "alice".to_string())), "{listed:?}");
    let pfs: Option<(String, String)> = dba
        .exec_first(
            "SELECT PROCESSLIST_USER, PROCESSLIST_HOST FROM performance_schema.threads \
             WHERE PROCESSLIST_ID = ?",
            (me,),
        )
        .await
        .unwrap();
    if cfg!(feature = "pfs") {
        assert_eq!(pfs, Some(("alice".to_string(), "127.0.0.1".to_string())));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_wait_timeout_global_default_and_range() {
    let mut c = conn().await;
    let get = "SELECT @@global.lock_wait_timeout, @@session.lock_wait_timeout";
    let (g, s): (u64, u64) = c.query_first(get).await.unwrap().unwrap();
    assert_eq!((g, s), (31_536_000, 31_536_000));
    c.query_drop("SET GLOBAL lock_wait_timeout = 7")
        .await
        .unwrap();
    let (g, s): (u64, u64) = c.query_first(get).await.unwrap().unwrap();
    assert_eq!((g, s), (7, 31_536_000), "the session keeps its own");
    let mut later = conn().await;
    let s: u64 = later
        .query_first("SELECT @@lock_wait_timeout")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(s, 7, "a new session starts with the global value");
    c.query_drop("SET lock_wait_timeout = DEFAULT")
        .await
        .unwrap();
    let s: u64 = c
        .query_first("SELECT @@lock_wait_timeout")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(s, 7, "DEFAULT is the global value");
    c.query_drop("SET @@global.lock_wait_timeout = DEFAULT")
        .await
        .unwrap();
    let g: u64 = c
        .query_first("SELECT @@global.lock_wait_timeout")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(g, 31_536_000, "the global DEFAULT is MySQL's year");
    c.query_drop("SET lock_wait_timeout = -5").await.unwrap();
    let s: u64 = c
        .query_first("SELECT @@lock_wait_timeout")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(s, 1, "clamped to the range's bottom");
    let (n, state) = code(c.query_drop("SET lock_wait_timeout = 1.5").await);
    assert_eq!((n, state.as_str()), (1232, "42000"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locking_read_orders_writers_until_its_transaction_ends() {
    let mut setup = conn().await;
    setup
        .query_drop("CREATE TABLE sv_acct (id INT PRIMARY KEY, bal INT)")
        .await
        .unwrap();
    setup
        .query_drop("INSERT INTO sv_acct VALUES (1, 100)")
        .await
        .unwrap();
    let mut t1 = conn().await;
    t1.query_drop("BEGIN").await.unwrap();
    let bal: i64 = t1
        .query_first("SELECT bal FROM sv_acct WHERE id = 1 FOR UPDATE")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(bal, 100);
    let mut t2 = conn().await;
    let t2_id = id(&mut t2).await;
    let (n, _) = code(
        t2.query_drop("SELECT bal FROM sv_acct WHERE id = 1 FOR SHARE NOWAIT")
            .await,
    );
    assert_eq!(n, 3572, "NOWAIT while another transaction holds the rows");
    let (n, _) = code(t2.query_drop("SELECT * FROM sv_acct SKIP LOCKED").await);
    assert_eq!(n, 1064, "SKIP LOCKED without FOR is MySQL's syntax error");
    let (n, _) = code(
        t2.query_drop("SELECT * FROM sv_acct FOR UPDATE SKIP LOCKED")
            .await,
    );
    assert_eq!(n, 1235);
    // A writer waits for the locking read's transaction, then sees its change.
    let writer = tokio::spawn(async move {
        t2.query_drop("UPDATE sv_acct SET bal = bal * 2 WHERE id = 1")
            .await
            .unwrap();
        t2
    });
    wait_state(&mut setup, t2_id, "waiting for the engine's writer").await;
    t1.query_drop("UPDATE sv_acct SET bal = bal - 30 WHERE id = 1")
        .await
        .unwrap();
    t1.query_drop("COMMIT").await.unwrap();
    let _t2 = tokio::time::timeout(Duration::from_secs(10), writer)
        .await
        .expect("the writer goes on after COMMIT")
        .unwrap();
    let bal: i64 = setup
        .query_first("SELECT bal FROM sv_acct WHERE id = 1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(bal, 140, "(100 - 30) * 2: no lost update");
    // Plain reads never wait for it, and a locking read in autocommit holds nothing after.
    let (v,): (i64,) = setup
        .query_first("SELECT bal FROM sv_acct LOCK IN SHARE MODE")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(v, 140);
    setup
        .query_drop("UPDATE sv_acct SET bal = 0 WHERE id = 1")
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_faults_carry_mysql_codes() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE sv_f (a INT, b INT)")
        .await
        .unwrap();
    for (sql, want) in [
        ("INSERT INTO sv_f VALUES (1)", (1136, "21S01")),
        ("INSERT INTO sv_f (a, b) VALUES (1)", (1136, "21S01")),
        ("INSERT INTO sv_f VALUES (1, 2), (3)", (1136, "21S01")),
        ("CREATE TABLE sv_g (a INT, a INT)", (1060, "42S21")),
        ("ALTER TABLE sv_f ADD COLUMN a INT", (1060, "42S21")),
        ("SELECT nosuch FROM sv_f", (1054, "42S22")),
        ("SELECT NO_SUCH_FUNC(1)", (1305, "42000")),
    ] {
        let (n, state) = code(c.query_drop(sql).await);
        assert_eq!((n, state.as_str()), want, "{sql}");
    }
    let e = c.query_drop("SELECT nosuch FROM sv_f").await.unwrap_err();
    assert!(
        e.to_string()
            .contains("Unknown column 'nosuch' in 'field list'"),
        "{e}"
    );
    let e = c.query_drop("SELECT NO_SUCH_FUNC(1)").await.unwrap_err();
    assert!(
        e.to_string()
            .contains("FUNCTION test.NO_SUCH_FUNC does not exist"),
        "{e}"
    );
    // An index made and dropped by its MySQL name.
    c.query_drop("CREATE INDEX sv_ia ON sv_f (a)")
        .await
        .unwrap();
    c.query_drop("DROP INDEX sv_ia ON sv_f").await.unwrap();
    let (n, _) = code(c.query_drop("DROP INDEX sv_ia ON sv_f").await);
    assert_eq!(n, 1091);
    let one: i64 = c.query_first("SELECT 1").await.unwrap().unwrap();
    assert_eq!(one, 1, "the connection stays usable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_warnings_shows_the_last_error_until_the_next_statement() {
    let mut c = conn().await;
    let (n, _) = code(c.query_drop("SELECT LPAD('x', 2)").await);
    assert_eq!(n, 1582, "MySQL's wrong parameter count");
    for show in ["SHOW WARNINGS", "SHOW ERRORS", "show warnings"] {
        let rows: Vec<(String, u16, String)> = c.query(show).await.unwrap();
        assert_eq!(rows.len(), 1, "{show}: {rows:?}");
        assert_eq!((rows[0].0.as_str(), rows[0].1), ("Error", 1582));
        assert!(rows[0].2.contains("'LPAD'"), "{}", rows[0].2);
    }
    for show in ["SHOW COUNT(*) WARNINGS", "SHOW COUNT(*) ERRORS"] {
        let n: Option<u64> = c.query_first(show).await.unwrap();
        assert_eq!(n, Some(1), "{show}");
    }
    let n: Option<(u64, u64)> = c
        .query_first("SELECT @@warning_count, @@session.error_count")
        .await
        .unwrap();
    assert_eq!(n, Some((1, 1)), "the previous statement's");
    c.query_drop("SELECT 1").await.unwrap();
    let n: Option<u64> = c.query_first("SHOW COUNT(*) ERRORS").await.unwrap();
    assert_eq!(n, Some(0));
    let rows: Vec<(String, u16, String)> = c.query("SHOW WARNINGS").await.unwrap();
    assert!(
        rows.is_empty(),
        "a statement without error clears it: {rows:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_of_an_unknown_system_variable_is_1193_and_sets_nothing() {
    let mut c = conn().await;
    for set in [
        "SET foo_bar = 1",
        "SET SESSION no_such_thing = 'x'",
        "SET @@global.nope = 2",
        "SET @a = 7, nope = 1",
    ] {
        let (n, _) = code(c.query_drop(set).await);
        assert_eq!(n, 1193, "{set}");
    }
    let a: Option<Option<i64>> = c.query_first("SELECT @a").await.unwrap();
    assert_eq!(a, Some(None), "nothing of a refused SET is set");
    // What drivers and dump files set is accepted.
    for set in [
        "SET autocommit = 1",
        "SET @@session.sql_mode = 'NO_AUTO_VALUE_ON_ZERO'",
        "SET SESSION net_write_timeout = 600, net_read_timeout = 60",
        "SET character_set_results = NULL",
        "SET @old = @@unique_checks, unique_checks = 0",
        "SET NAMES utf8mb4",
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
    ] {
        c.query_drop(set)
            .await
            .unwrap_or_else(|e| panic!("{set}: {e}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn last_insert_id_of_an_expression_is_the_sessions_next_value() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE se_seq (id INT NOT NULL)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO se_seq VALUES (41)")
        .await
        .unwrap();
    // MySQL's sequence idiom: the UPDATE's new value is LAST_INSERT_ID() and its insert id.
    c.query_drop("UPDATE se_seq SET id = LAST_INSERT_ID(id + 1)")
        .await
        .unwrap();
    assert_eq!(c.last_insert_id(), Some(42), "the OK packet's insert id");
    let (id, seq): (i64, i64) = c
        .query_first("SELECT LAST_INSERT_ID(), (SELECT id FROM se_seq)")
        .await
        .unwrap()
        .unwrap();
    assert_eq!((id, seq), (42, 42));
    let set: i64 = c
        .query_first("SELECT LAST_INSERT_ID(7)")
        .await
        .unwrap()
        .unwrap();
    let kept: i64 = c
        .query_first("SELECT LAST_INSERT_ID()")
        .await
        .unwrap()
        .unwrap();
    assert_eq!((set, kept), (7, 7));
    c.query_drop("DROP TABLE se_seq").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepare_execute_and_deallocate_in_sql() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE se_prep (id INT PRIMARY KEY, v VARCHAR(10))")
        .await
        .unwrap();
    c.query_drop("PREPARE ins FROM 'INSERT INTO se_prep VALUES (?, ?)'")
        .await
        .unwrap();
    c.query_drop("SET @id = 1, @v = 'one'").await.unwrap();
    c.query_drop("EXECUTE ins USING @id, @v").await.unwrap();
    c.query_drop("SET @id = 2, @v = 'two'").await.unwrap();
    c.query_drop("EXECUTE INS USING @id, @v").await.unwrap();
    c.query_drop("SET @sql = 'SELECT v FROM se_prep WHERE id > ? ORDER BY id'")
        .await
        .unwrap();
    c.query_drop("PREPARE sel FROM @sql").await.unwrap();
    c.query_drop("SET @from = 0").await.unwrap();
    let rows: Vec<String> = c.query("EXECUTE sel USING @from").await.unwrap();
    assert_eq!(rows, ["one", "two"]);
    // MySQL's errors: a count of variables other than the `?`, an unknown name.
    assert_eq!(code(c.query_drop("EXECUTE sel").await).0, 1210);
    c.query_drop("DEALLOCATE PREPARE sel").await.unwrap();
    assert_eq!(code(c.query_drop("EXECUTE sel USING @from").await).0, 1243);
    assert_eq!(code(c.query_drop("DROP PREPARE sel").await).0, 1243);
    assert_eq!(
        code(c.query_drop("PREPARE bad FROM 'SELEC 1'").await).0,
        1064
    );
    c.query_drop("DROP TABLE se_prep").await.unwrap();
}

/// User-level lock calls with `?` arguments in prepared statements, binary protocol and SQL
/// `PREPARE ... USING`: each execution locks the name it is given; the other `?` go to the
/// engine in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_user_lock_calls_take_their_arguments() {
    let mut a = conn().await;
    let mut b = conn().await;
    let get = a.prep("SELECT ? + 1, GET_LOCK(?, ?)").await.unwrap();
    assert_eq!(get.num_params(), 3);
    for name in ["ps_ul_one", "ps_ul_two"] {
        let row: Option<(i64, i64)> = a.exec_first(&get, (41, name, 0)).await.unwrap();
        assert_eq!(row, Some((42, 1)));
    }
    let me = id(&mut a).await;
    let mut used = Vec::new();
    for name in ["ps_ul_one", "ps_ul_two", "ps_ul_none"] {
        let holder: Option<Option<u64>> = b
            .exec_first("SELECT IS_USED_LOCK(?)", (name,))
            .await
            .unwrap();
        used.push(holder.flatten());
    }
    assert_eq!(used, [Some(me), Some(me), None]);
    let busy: Option<i64> = b
        .exec_first("SELECT GET_LOCK(?, 0)", ("ps_ul_one",))
        .await
        .unwrap();
    assert_eq!(busy, Some(0), "held by the other session");
    b.query_drop("SET @n = 'ps_ul_two'").await.unwrap();
    b.query_drop("PREPARE rel FROM 'SELECT RELEASE_LOCK(?)'")
        .await
        .unwrap();
    let not_mine: Option<i64> = b.query_first("EXECUTE rel USING @n").await.unwrap();
    assert_eq!(not_mine, Some(0));
    let released: Option<i64> = a
        .exec_first("SELECT RELEASE_ALL_LOCKS()", ())
        .await
        .unwrap();
    assert_eq!(released, Some(2));
}
