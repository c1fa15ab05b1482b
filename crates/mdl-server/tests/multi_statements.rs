//! A query of several statements (`CLIENT_MULTI_STATEMENTS`, which `mysql_async` sets and
//! Rust migration tools rely on: a migration file sent as one query): the statements run in
//! order, each with its own locks and counters, their results come back in turn, and the
//! first that fails ends the query with its error.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Row;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_statement_runs_and_answers_in_turn() {
    let mut c = conn().await;
    // A migration as a tool sends it: comments, a versioned comment, DDL, DML, a query.
    let script = "/*!40101 SET NAMES utf8mb4 */;\n\
                  -- the table\n\
                  CREATE TABLE multi_t (id INT PRIMARY KEY, v VARCHAR(10));\n\
                  INSERT INTO multi_t VALUES (1, 'a;b'), (2, 'c');\n\
                  SELECT id, v FROM multi_t ORDER BY id;\n\
                  UPDATE multi_t SET v = 'd' WHERE id = 2;\n\
                  SELECT COUNT(*) AS n FROM multi_t;";
    let mut result = c.query_iter(script).await.unwrap();
    let mut sets: Vec<(Vec<String>, Vec<Row>, u64)> = Vec::new();
    while !result.is_empty() {
        let columns = (result.columns_ref().iter())
            .map(|c| c.name_str().to_string())
            .collect();
        let rows: Vec<Row> = result.collect().await.unwrap();
        sets.push((columns, rows, result.affected_rows()));
    }
    drop(result);
    let shapes: Vec<(Vec<String>, usize)> =
        sets.iter().map(|(c, r, _)| (c.clone(), r.len())).collect();
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        shapes,
        [
            (vec![], 0),
            (vec![], 0),
            (vec![], 0),
            (names(&["id", "v"]), 2),
            (vec![], 0),
            (names(&["n"]), 1),
        ]
    );
    let first: (i64, String) = mysql_async::from_row(sets[3].1[0].clone());
    assert_eq!(first, (1, "a;b".to_string()));
    assert_eq!(sets[2].2, 2, "the INSERT's affected rows");
    assert_eq!(sets[4].2, 1, "the UPDATE's");
    // The connection goes on as usual.
    let v: Option<String> = c
        .query_first("SELECT v FROM multi_t WHERE id = 2")
        .await
        .unwrap();
    assert_eq!(v.as_deref(), Some("d"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_failure_ends_the_query() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE multi_f (id INT PRIMARY KEY)")
        .await
        .unwrap();
    let r = c
        .query_drop(
            "INSERT INTO multi_f VALUES (1); SELECT nope FROM multi_f; \
             INSERT INTO multi_f VALUES (2)",
        )
        .await;
    assert_eq!(code(r).0, 1054);
    let ids: Vec<i64> = c.query("SELECT id FROM multi_f").await.unwrap();
    assert_eq!(ids, [1], "the statement after the failure did not run");
    // A syntax error in the second statement: the first ran, the third did not.
    let r = c
        .query_drop("INSERT INTO multi_f VALUES (3); SELEC 1; INSERT INTO multi_f VALUES (4)")
        .await;
    assert_eq!(code(r).0, 1064);
    let ids: Vec<i64> = c.query("SELECT id FROM multi_f ORDER BY id").await.unwrap();
    assert_eq!(ids, [1, 3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transaction_across_the_statements_holds_its_locks() {
    let mut c = conn().await;
    let mut obs = conn().await;
    c.query_drop("CREATE TABLE multi_l (id INT PRIMARY KEY)")
        .await
        .unwrap();
    let me = id(&mut c).await;
    c.query_drop("BEGIN; SELECT * FROM multi_l; SELECT 1")
        .await
        .unwrap();
    let locks = locks_of(&mut obs, me).await;
    assert!(
        locks
            .iter()
            .any(|(_, name, ty, _)| name.as_deref() == Some("multi_l") && ty == "SHARED_READ"),
        "{locks:?}"
    );
    c.query_drop("COMMIT").await.unwrap();
    assert!(locks_of(&mut obs, me).await.is_empty());

    // Each statement is a question and counts as its command.
    let com = |rows: Vec<(String, String)>| -> Vec<u64> {
        rows.into_iter().map(|(_, v)| v.parse().unwrap()).collect()
    };
    let q = "SHOW STATUS WHERE Variable_name IN ('Com_do', 'Questions')";
    let before = com(c.query(q).await.unwrap());
    c.query_drop("DO 1; DO 2; DO 3").await.unwrap();
    let after = com(c.query(q).await.unwrap());
    assert_eq!((after[0] - before[0], after[1] - before[1]), (3, 4));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_statement_ends_the_query_and_shows_as_itself() {
    let mut holder = conn().await;
    let mut ddl = conn().await;
    let mut obs = conn().await;
    holder
        .query_drop("CREATE TABLE multi_k (id INT PRIMARY KEY)")
        .await
        .unwrap();
    holder
        .query_drop("CREATE TABLE multi_k_log (id INT PRIMARY KEY)")
        .await
        .unwrap();
    holder
        .query_drop("BEGIN; SELECT * FROM multi_k")
        .await
        .unwrap();
    let d = id(&mut ddl).await;
    let waiting = tokio::spawn(async move {
        let r = ddl
            .query_drop(
                "INSERT INTO multi_k_log VALUES (1); ALTER TABLE multi_k ADD COLUMN x INT; \
                 INSERT INTO multi_k_log VALUES (2)",
            )
            .await;
        (code(r), ddl)
    });
    wait_state(&mut obs, d, "Waiting for table metadata lock").await;
    // The process list shows the statement that waits, not the whole query.
    let info = processlist(&mut obs).await.into_iter().find(|p| p.0 == d);
    assert_eq!(
        info.and_then(|p| p.3).as_deref(),
        Some("ALTER TABLE multi_k ADD COLUMN x INT")
    );
    obs.query_drop(format!("KILL QUERY {d}")).await.unwrap();
    let (err, mut ddl) = bounded("the killed query", waiting).await.unwrap();
    assert_eq!(err.0, 1317);
    holder.query_drop("COMMIT").await.unwrap();
    let ids: Vec<i64> = obs.query("SELECT id FROM multi_k_log").await.unwrap();
    assert_eq!(ids, [1], "the statement before ran, the one after did not");
    let one: Option<i64> = ddl.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1));
}
