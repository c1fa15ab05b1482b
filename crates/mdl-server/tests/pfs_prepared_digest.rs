//! The statement events and digests of a prepared statement's executions, as MySQL 8.0 records
//! them (`statement_event.rs`): a `COM_STMT_EXECUTE` (`mysql_async`'s `exec`, sysbench's
//! default) is `statement/com/Execute` with no `SQL_TEXT` and no digest, so it counts in no
//! row of `events_statements_summary_by_digest`; an SQL `EXECUTE` is
//! `statement/sql/execute_sql` with its own text and digest (``EXECUTE `s` USING @?``), counted in
//! that digest's row of the session's schema. The same query as a text query counts in its
//! own row, with MySQL's digest text, whatever its literals.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// The digest summary's rows of `schema` whose `DIGEST_TEXT` is `like`: `(DIGEST_TEXT,
/// COUNT_STAR, SUM_ROWS_SENT)`, in text order.
async fn digests(c: &mut Conn, schema: &str, like: &str) -> Vec<(String, u64, u64)> {
    c.exec(
        "SELECT DIGEST_TEXT, COUNT_STAR, SUM_ROWS_SENT \
         FROM performance_schema.events_statements_summary_by_digest \
         WHERE SCHEMA_NAME = ? AND DIGEST_TEXT LIKE ? ORDER BY DIGEST_TEXT",
        (schema, like),
    )
    .await
    .unwrap()
}

/// Connection `id`'s statement events of class `class` in `events_statements_history`:
/// `(SQL_TEXT, DIGEST, DIGEST_TEXT, CURRENT_SCHEMA, ROWS_SENT)`, oldest first.
type Event = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    u64,
);
async fn history(c: &mut Conn, id: u64, class: &str) -> Vec<Event> {
    c.exec(
        "SELECT SQL_TEXT, DIGEST, DIGEST_TEXT, CURRENT_SCHEMA, ROWS_SENT \
         FROM performance_schema.events_statements_history \
         WHERE THREAD_ID = (SELECT THREAD_ID FROM performance_schema.threads \
                            WHERE PROCESSLIST_ID = ?) \
           AND EVENT_NAME = ? ORDER BY EVENT_ID",
        (id, class),
    )
    .await
    .unwrap()
}

/// A schema `db` with a table `t` of two rows, `c` using it.
async fn schema_with_t(c: &mut Conn, db: &str) {
    c.query_drop(format!("DROP DATABASE IF EXISTS {db}"))
        .await
        .unwrap();
    c.query_drop(format!("CREATE DATABASE {db}")).await.unwrap();
    c.query_drop(format!("USE {db}")).await.unwrap();
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, c CHAR(10))")
        .await
        .unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
        .await
        .unwrap();
}

/// `STATEMENT_DIGEST_TEXT(text)` and `STATEMENT_DIGEST(text)`: what a text's event shows.
async fn digest_of(c: &mut Conn, text: &str) -> (String, String) {
    c.exec_first(
        "SELECT STATEMENT_DIGEST_TEXT(?), STATEMENT_DIGEST(?)",
        (text, text),
    )
    .await
    .unwrap()
    .expect("a row")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_and_prepared_executions_land_in_mysqls_rows() {
    let (mut text, mut bin, mut sql) = (conn().await, conn().await, conn().await);
    schema_with_t(&mut text, "pd_rows").await;
    // Text queries: one digest whatever the literal.
    for id in [1, 2] {
        let c: Option<String> = text
            .query_first(format!("select c from t where id={id}"))
            .await
            .unwrap();
        assert!(c.is_some());
    }
    // The binary protocol: a statement with a `?` executed twice, and two statements of the
    // same shape with different literals, once each.
    bin.query_drop("USE pd_rows").await.unwrap();
    let bin_id = id(&mut bin).await;
    let param = bin.prep("select c from t where id=?").await.unwrap();
    for id in [1, 2] {
        let _: Vec<String> = bin.exec(&param, (id,)).await.unwrap();
    }
    for literal in ["select c from t where id=1", "select c from t where id=2"] {
        let s = bin.prep(literal).await.unwrap();
        let _: Vec<String> = bin.exec(&s, ()).await.unwrap();
    }
    // SQL PREPARE / EXECUTE, twice with different values.
    sql.query_drop("USE pd_rows").await.unwrap();
    let sql_id = id(&mut sql).await;
    sql.query_drop("prepare s from 'select c from t where id=?'")
        .await
        .unwrap();
    for v in [1, 2] {
        sql.query_drop(format!("set @a={v}")).await.unwrap();
        let c: Option<String> = sql.query_first("execute s using @a").await.unwrap();
        assert!(c.is_some());
    }

    // The text queries' row counts them alone; the EXECUTEs have their own row; no row has
    // the prepared text.
    let (execute_text, execute_digest) = digest_of(&mut text, "execute s using @a").await;
    assert_eq!(execute_text, "EXECUTE `s` USING @?");
    assert_eq!(
        digests(&mut text, "pd_rows", "SELECT `c` FROM `t`%").await,
        [("SELECT `c` FROM `t` WHERE `id` = ?".into(), 2, 2)]
    );
    assert_eq!(
        digests(&mut text, "pd_rows", "EXECUTE%").await,
        [(execute_text.clone(), 2, 2)]
    );
    assert_eq!(digests(&mut text, "pd_rows", "%id=%").await, []);

    // Each binary execution: `statement/com/Execute`, no text, no digest.
    let executed = history(&mut text, bin_id, "statement/com/Execute").await;
    assert_eq!(executed, vec![(None, None, None, None, 1); 4]);
    let counted: u64 = text
        .exec_first(
            "SELECT COUNT_STAR \
             FROM performance_schema.events_statements_summary_by_thread_by_event_name \
             WHERE THREAD_ID = (SELECT THREAD_ID FROM performance_schema.threads \
                                WHERE PROCESSLIST_ID = ?) \
               AND EVENT_NAME = 'statement/com/Execute'",
            (bin_id,),
        )
        .await
        .unwrap()
        .expect("a row");
    assert_eq!(counted, 4);

    // Each SQL EXECUTE: `statement/sql/execute_sql`, its own text and digest, no event of the
    // statement it ran.
    let executed = history(&mut text, sql_id, "statement/sql/execute_sql").await;
    let one = (
        Some("execute s using @a".to_string()),
        Some(execute_digest),
        Some(execute_text),
        Some("pd_rows".to_string()),
        1,
    );
    assert_eq!(executed, [one.clone(), one]);
    let selects = history(&mut text, sql_id, "statement/sql/select").await;
    assert!(
        !selects
            .iter()
            .any(|e| e.2.as_deref().is_some_and(|d| d.contains("`t`"))),
        "{selects:?}"
    );

    // prepared_statements_instances still counts each statement's executions.
    let counts: Vec<(String, u64)> = text
        .exec(
            "SELECT SQL_TEXT, COUNT_EXECUTE FROM performance_schema.prepared_statements_instances \
             WHERE OWNER_THREAD_ID IN (SELECT THREAD_ID FROM performance_schema.threads \
                                       WHERE PROCESSLIST_ID IN (?, ?)) ORDER BY STATEMENT_ID",
            (bin_id, sql_id),
        )
        .await
        .unwrap();
    let counts: Vec<(&str, u64)> = counts.iter().map(|(t, n)| (t.as_str(), *n)).collect();
    assert!(
        counts.contains(&("select c from t where id=?", 2)),
        "{counts:?}"
    );
    assert!(
        counts.contains(&("select c from t where id=1", 1)),
        "{counts:?}"
    );
    assert!(
        counts.contains(&("select c from t where id=2", 1)),
        "{counts:?}"
    );
    text.query_drop("DROP DATABASE pd_rows").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_schema_has_its_own_rows() {
    let mut c = conn().await;
    for db in ["pd_one", "pd_two"] {
        schema_with_t(&mut c, db).await;
        let _: Option<String> = c.query_first("SELECT c FROM t WHERE id = 1").await.unwrap();
        c.query_drop("PREPARE s FROM 'SELECT c FROM t WHERE id = ?'")
            .await
            .unwrap();
        c.query_drop("SET @a = 2").await.unwrap();
        let _: Option<String> = c.query_first("EXECUTE s USING @a").await.unwrap();
    }
    for db in ["pd_one", "pd_two"] {
        assert_eq!(
            digests(&mut c, db, "SELECT `c` FROM `t`%").await,
            [("SELECT `c` FROM `t` WHERE `id` = ?".into(), 1, 1)],
            "{db}"
        );
        assert_eq!(
            digests(&mut c, db, "EXECUTE%").await,
            [("EXECUTE `s` USING @?".into(), 1, 1)],
            "{db}"
        );
        c.query_drop(format!("DROP DATABASE {db}")).await.unwrap();
    }
}
