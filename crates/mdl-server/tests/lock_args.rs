//! User-level lock calls and `KILL` with expressions as arguments, as MySQL evaluates them
//! (`Item_func_get_lock::val_int`, `sql/item_func.cc`; `SQLCOM_KILL`, `sql/sql_parse.cc`):
//! `@variables`, function calls and arithmetic are evaluated before the locks are planned;
//! an argument that reads rows stays refused (1235).

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Row;

/// A lock taken under an evaluated name is the literal name's: another session's GET_LOCK of
/// it waits, and IS_USED_LOCK names its holder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluated_names_lock_what_they_name() {
    let mut a = conn().await;
    let mut b = conn().await;
    let me = id(&mut a).await;
    a.query_drop("SET @n = 'la_job'").await.unwrap();
    let rows: Vec<Row> = a.query("SELECT GET_LOCK(@n, 0)").await.unwrap();
    assert_eq!(rows[0].columns_ref()[0].name_str(), "GET_LOCK(@n, 0)");
    assert_eq!(rows[0].get::<i64, _>(0), Some(1));
    let busy: Option<i64> = b.query_first("SELECT GET_LOCK('la_job', 0)").await.unwrap();
    assert_eq!(busy, Some(0), "held under the evaluated name");
    let holder: Option<Option<u64>> = (b.query_first("SELECT IS_USED_LOCK(CONCAT('la_', 'JOB'))"))
        .await
        .unwrap();
    assert_eq!(holder, Some(Some(me)));
    let got: Option<i64> = (a.query_first("SELECT GET_LOCK(CONCAT('la_mig:', DATABASE()), 10)"))
        .await
        .unwrap();
    assert_eq!(got, Some(1));
    let holder: Option<Option<u64>> = b
        .query_first("SELECT IS_USED_LOCK('la_mig:test')")
        .await
        .unwrap();
    assert_eq!(holder, Some(Some(me)));
    // The timeout is an expression too: '0' waits no time.
    b.query_drop("SET @t = '0'").await.unwrap();
    let t0 = std::time::Instant::now();
    let timed_out: Option<i64> = (b.query_first("SELECT GET_LOCK(LOWER('LA_MIG:TEST'), @t)"))
        .await
        .unwrap();
    assert_eq!(timed_out, Some(0));
    assert!(t0.elapsed() < std::time::Duration::from_secs(2));
    a.query_drop("DO RELEASE_LOCK(@n)").await.unwrap();
    let free: Option<i64> = b
        .query_first("SELECT IS_FREE_LOCK('la_job')")
        .await
        .unwrap();
    assert_eq!(free, Some(1));
    let nobody: Option<Option<i64>> = (b.query_first("SELECT IS_USED_LOCK(CONCAT('la_', 1 + 1))"))
        .await
        .unwrap();
    assert_eq!(nobody, Some(None));
    // In a SET, and from a prepared statement, with or without a `?` in the expression.
    a.query_drop("SET @r = RELEASE_LOCK(CONCAT('la_mig:', DATABASE()))")
        .await
        .unwrap();
    let r: Option<i64> = a.query_first("SELECT @r").await.unwrap();
    assert_eq!(r, Some(1));
    let get = a
        .prep("SELECT GET_LOCK(CONCAT('la_ps_', ?), 0)")
        .await
        .unwrap();
    let got: Option<i64> = a.exec_first(&get, ("one",)).await.unwrap();
    assert_eq!(got, Some(1));
    let used = b.prep("SELECT IS_USED_LOCK(@which)").await.unwrap();
    for (name, want) in [("la_ps_one", Some(me)), ("la_ps_two", None)] {
        b.query_drop(format!("SET @which = '{name}'"))
            .await
            .unwrap();
        let holder: Option<Option<u64>> = b.exec_first(&used, ()).await.unwrap();
        assert_eq!(holder, Some(want), "{name}");
    }
    let all: Option<i64> = a.query_first("SELECT RELEASE_ALL_LOCKS()").await.unwrap();
    assert_eq!(all, Some(1));
}

/// MySQL's conversions (`check_and_convert_ull_name`): a NULL name is 3057, as a literal
/// NULL's; a name over 64 characters 4163, as a literal's; an argument that reads rows is
/// still refused (1235).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluated_names_are_checked_and_row_arguments_refused() {
    let mut c = conn().await;
    let wrong = c.query_drop("SELECT GET_LOCK(@la_never_set, 0)").await;
    assert_eq!(code(wrong), (3057, "42000".into()));
    c.query_drop(format!("SET @long = '{}'", "x".repeat(65)))
        .await
        .unwrap();
    assert_eq!(code(c.query_drop("DO GET_LOCK(@long, 0)").await).0, 4163);
    let ok: Option<i64> = (c.query_first("SELECT IS_FREE_LOCK(SUBSTRING(@long, 2))"))
        .await
        .unwrap();
    assert_eq!(ok, Some(1), "64 characters");
    fresh(&mut c, "la_rows", "name VARCHAR(20)").await;
    c.query_drop("INSERT INTO la_rows VALUES ('x')")
        .await
        .unwrap();
    let r = c.query_drop("SELECT GET_LOCK(name, 0) FROM la_rows").await;
    let Err(mysql_async::Error::Server(e)) = r else {
        panic!("{r:?}")
    };
    assert_eq!(e.code, 1235);
    assert_eq!(
        e.message,
        "This version of MySQL doesn't yet support 'GET_LOCK with an argument that is not a constant'"
    );
    let sub = c
        .query_drop("SELECT GET_LOCK((SELECT name FROM la_rows), 0)")
        .await;
    assert_eq!(code(sub).0, 1235);
    c.query_drop("DROP TABLE la_rows").await.unwrap();
}

/// `KILL @var` kills the connection the variable names; `KILL QUERY (expr)` ends only its
/// statement.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_takes_an_expression() {
    let mut obs = conn().await;
    let mut victim = conn().await;
    let v = id(&mut victim).await;
    obs.query_drop(format!("SET @victim = {v}")).await.unwrap();
    obs.query_drop("KILL @victim").await.unwrap();
    wait_gone(&mut obs, v).await;
    assert!(victim.query_drop("SELECT 1").await.is_err(), "closed");

    let mut holder = conn().await;
    let got: Option<i64> = holder
        .query_first("SELECT GET_LOCK('la_kq', 0)")
        .await
        .unwrap();
    assert_eq!(got, Some(1));
    let mut waiter = conn().await;
    let w = id(&mut waiter).await;
    let t = tokio::spawn(async move {
        let r: Result<Option<i64>, _> = waiter.query_first("SELECT GET_LOCK('la_kq', 20)").await;
        (r, waiter)
    });
    wait_state(&mut obs, w, "User lock").await;
    obs.query_drop(format!("SET @w = '{}'", w - 1))
        .await
        .unwrap();
    obs.query_drop("KILL QUERY (@w + 1)").await.unwrap();
    let (r, mut waiter) = bounded("the killed GET_LOCK", t).await.unwrap();
    assert_eq!(code(r).0, 1317);
    let one: Option<i64> = waiter.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1), "the connection goes on");
    holder.query_drop("DO RELEASE_LOCK('la_kq')").await.unwrap();
}

/// `SQLCOM_KILL`'s errors: `val_int` of the value, cast to 32 bits, 1094 for no such
/// connection (NULL and a string that is no number are 0, the latter with 1292); a subquery
/// 1235; a row 1241.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_expressions_fail_as_mysqls() {
    let mut c = conn().await;
    for (sql, message) in [
        ("KILL 999990 + 9", "Unknown thread id: 999999"),
        ("KILL CONNECTION NULL", "Unknown thread id: 0"),
        ("KILL -1", "Unknown thread id: 4294967295"),
        ("KILL '999998'", "Unknown thread id: 999998"),
        ("KILL QUERY 'abc'", "Unknown thread id: 0"),
    ] {
        let r = c.query_drop(sql).await;
        let Err(mysql_async::Error::Server(e)) = r else {
            panic!("{sql}: {r:?}")
        };
        assert_eq!((e.code, e.message.as_str()), (1094, message), "{sql}");
    }
    let warnings: Vec<(String, u16, String)> = c.query("SHOW WARNINGS").await.unwrap();
    assert!(
        warnings.contains(&(
            "Warning".into(),
            1292,
            "Truncated incorrect INTEGER value: 'abc'".into()
        )),
        "{warnings:?}"
    );
    let r = c.query_drop("KILL (SELECT 1)").await;
    let Err(mysql_async::Error::Server(e)) = r else {
        panic!("{r:?}")
    };
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            1235,
            "This version of MySQL doesn't yet support 'Usage of subqueries or stored function \
             calls as part of this statement'"
        )
    );
    assert_eq!(
        code(c.query_drop("KILL (1, 2)").await),
        (1241, "21000".into())
    );
    assert_eq!(code(c.query_drop("KILL QUERY").await).0, 1064);
}
