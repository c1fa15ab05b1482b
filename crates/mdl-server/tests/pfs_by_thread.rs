//! `performance_schema.status_by_thread`, `variables_by_thread` and
//! `user_variables_by_thread`: a DBA on connection A reads connection B's counters, session
//! variables and `@` variables by B's pfs thread, found through `threads.PROCESSLIST_ID`, as
//! with MySQL 8.0; B's rows go when B disconnects.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// Connection `id`'s rows of `table`, `(VARIABLE_NAME, VARIABLE_VALUE)` by name, as `c` reads
/// them through a join with `threads`; `names` filters by `VARIABLE_NAME` (SQL list).
async fn of(c: &mut Conn, table: &str, id: u64, names: &str) -> Vec<(String, Option<String>)> {
    let filter = match names {
        "" => String::new(),
        n => format!(" AND v.VARIABLE_NAME IN ({n})"),
    };
    c.query(format!(
        "SELECT v.VARIABLE_NAME, v.VARIABLE_VALUE FROM performance_schema.{table} v \
         JOIN performance_schema.threads t ON v.THREAD_ID = t.THREAD_ID \
         WHERE t.PROCESSLIST_ID = {id}{filter} ORDER BY v.VARIABLE_NAME"
    ))
    .await
    .unwrap()
}

/// Connection `id`'s counter `name` in `status_by_thread`, as `c` reads it.
async fn counter(c: &mut Conn, id: u64, name: &str) -> u64 {
    let rows = of(c, "status_by_thread", id, &format!("'{name}'")).await;
    assert_eq!(rows.len(), 1, "{name}: {rows:?}");
    rows[0].1.as_deref().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_sessions_counters_variables_and_user_variables() {
    let (mut a, mut b) = (conn().await, conn().await);
    let bid = id(&mut b).await;
    let (select0, questions0) = (
        counter(&mut a, bid, "Com_select").await,
        counter(&mut a, bid, "Questions").await,
    );
    let set0 = counter(&mut a, bid, "Com_set_option").await;
    let default: String = a
        .query_first("SELECT @@global.lock_wait_timeout")
        .await
        .unwrap()
        .unwrap();
    let lwt = "'lock_wait_timeout'";
    let before = of(&mut a, "variables_by_thread", bid, lwt).await;
    assert_eq!(
        before,
        [("lock_wait_timeout".into(), Some(default.clone()))]
    );

    b.query_drop("SET SESSION lock_wait_timeout = 7")
        .await
        .unwrap();
    b.query_drop("SET @Greeting = 'hi', @n = 42, @nothing = NULL")
        .await
        .unwrap();
    for _ in 0..3 {
        b.query_drop("SELECT 1").await.unwrap();
    }
    b.query_drop("SELECT 5 INTO @picked").await.unwrap();

    // B's counters, as B counted them: 4 selects, 2 SETs, 6 questions.
    assert_eq!(counter(&mut a, bid, "Com_select").await, select0 + 4);
    assert_eq!(counter(&mut a, bid, "Com_set_option").await, set0 + 2);
    assert_eq!(counter(&mut a, bid, "Questions").await, questions0 + 6);
    // Session-scope counters only, as MySQL's: no server-wide rows.
    let server_wide = "'Uptime', 'Threads_connected', 'Connections'";
    assert!(of(&mut a, "status_by_thread", bid, server_wide)
        .await
        .is_empty());

    // B's session variables, as B's SHOW SESSION VARIABLES has them; A's are its own.
    let names = "'autocommit', 'lock_wait_timeout', 'transaction_isolation', 'warning_count'";
    let vars = of(&mut a, "variables_by_thread", bid, names).await;
    let want = [
        ("autocommit", "1"),
        ("lock_wait_timeout", "7"),
        ("transaction_isolation", "READ-COMMITTED"),
    ];
    let want: Vec<(String, Option<String>)> = (want.iter())
        .map(|(n, v)| (n.to_string(), Some(v.to_string())))
        .collect();
    assert_eq!(vars, want);
    let aid = id(&mut a).await;
    let mine = of(&mut a, "variables_by_thread", aid, lwt).await;
    assert_eq!(mine, [("lock_wait_timeout".into(), Some(default))]);
    // Every variable B's SHOW SESSION VARIABLES lists but the two that change per statement.
    let shown: Vec<(String, String)> = b.query("SHOW SESSION VARIABLES").await.unwrap();
    let all = of(&mut a, "variables_by_thread", bid, "").await;
    let shown: Vec<(String, Option<String>)> = (shown.into_iter())
        .filter(|(n, _)| n != "warning_count" && n != "error_count")
        .map(|(n, v)| (n, Some(v)))
        .collect();
    assert_eq!(all, shown);

    // B's `@` variables, names lowercased, values as text.
    let user = of(&mut a, "user_variables_by_thread", bid, "").await;
    let want = [
        ("greeting", Some("hi")),
        ("n", Some("42")),
        ("nothing", None),
        ("picked", Some("5")),
    ];
    let want: Vec<(String, Option<String>)> = (want.iter())
        .map(|(n, v)| (n.to_string(), v.map(str::to_string)))
        .collect();
    assert_eq!(user, want);

    // Gone with B.
    let thread: u64 = a
        .query_first(format!(
            "SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = {bid}"
        ))
        .await
        .unwrap()
        .unwrap();
    b.disconnect().await.unwrap();
    wait_gone(&mut a, bid).await;
    for table in [
        "status_by_thread",
        "variables_by_thread",
        "user_variables_by_thread",
    ] {
        let left: u64 = a
            .query_first(format!(
                "SELECT COUNT(*) FROM performance_schema.{table} WHERE THREAD_ID = {thread}"
            ))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(left, 0, "{table}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_connection_shows_the_new_sessions_values() {
    let (mut a, mut b) = (conn().await, conn().await);
    let bid = id(&mut b).await;
    b.query_drop("SET autocommit = 0, lock_wait_timeout = 9")
        .await
        .unwrap();
    b.query_drop("SET @x = 'y'").await.unwrap();
    let names = "'autocommit', 'lock_wait_timeout'";
    let vars = of(&mut a, "variables_by_thread", bid, names).await;
    let text = |v: &str| Some(v.to_string());
    let want = [
        ("autocommit".to_string(), text("0")),
        ("lock_wait_timeout".to_string(), text("9")),
    ];
    assert_eq!(vars, want);
    assert_eq!(
        of(&mut a, "user_variables_by_thread", bid, "").await,
        [("x".to_string(), text("y"))]
    );
    // COM_RESET_CONNECTION: the session's values are a new connection's again.
    b.reset().await.unwrap();
    let default: String = a
        .query_first("SELECT @@global.lock_wait_timeout")
        .await
        .unwrap()
        .unwrap();
    let vars = of(&mut a, "variables_by_thread", bid, names).await;
    let want = [
        ("autocommit".to_string(), text("1")),
        ("lock_wait_timeout".to_string(), Some(default)),
    ];
    assert_eq!(vars, want);
    assert!(of(&mut a, "user_variables_by_thread", bid, "")
        .await
        .is_empty());
}
