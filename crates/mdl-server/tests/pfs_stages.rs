//! The stages the server records, through a real client: a rebuilding ALTER TABLE counts in
//! `stage/sql/copy to tmp table` (enabled by default, as MySQL's), CREATE TABLE and an in-place
//! ALTER TABLE in their classes once enabled; the stage summaries by thread, account, user and
//! host and the global one have them, `events_stages_history` nests each in its statement, and
//! `TRUNCATE TABLE` of the by-thread summary moves the counts into the account. One test (it
//! changes the instruments and consumers of the binary's server).

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};

const COPY: &str = "stage/sql/copy to tmp table";
const ALTER: &str = "stage/sql/altering table";
const CREATE: &str = "stage/sql/creating table";

/// A connection logged in as `user`.
async fn conn_as(user: &str) -> Conn {
    let addr = server();
    let url = format!("mysql://{user}@{}:{}/test", addr.ip(), addr.port());
    Conn::new(Opts::from_url(&url).unwrap()).await.unwrap()
}

/// `COUNT_STAR` of stage `class` in connection `id`'s row of the by-thread summary (`None`
/// without a row).
async fn thread_count(obs: &mut Conn, id: u64, class: &str) -> Option<i64> {
    obs.query_first(format!(
        "SELECT s.COUNT_STAR \
         FROM performance_schema.events_stages_summary_by_thread_by_event_name s \
         JOIN performance_schema.threads t ON s.THREAD_ID = t.THREAD_ID \
         WHERE t.PROCESSLIST_ID = {id} AND s.EVENT_NAME = '{class}'"
    ))
    .await
    .unwrap()
}

/// `COUNT_STAR` of stage `class` in `events_stages_summary_by_<by>_by_event_name` where `key`.
async fn count_by(obs: &mut Conn, by: &str, key: &str, class: &str) -> i64 {
    obs.query_first(format!(
        "SELECT COUNT_STAR FROM performance_schema.events_stages_summary_by_{by}_by_event_name \
         WHERE {key} AND EVENT_NAME = '{class}'"
    ))
    .await
    .unwrap()
    .unwrap_or(-1)
}

async fn global_count(obs: &mut Conn, class: &str) -> i64 {
    obs.query_first(format!(
        "SELECT COUNT_STAR \
         FROM performance_schema.events_stages_summary_global_by_event_name \
         WHERE EVENT_NAME = '{class}'"
    ))
    .await
    .unwrap()
    .unwrap_or(-1)
}

#[tokio::test]
async fn ddl_stages_count_and_nest_in_their_statements() {
    let mut obs = conn().await;
    let mut w = conn_as("stager").await;
    let wid = id(&mut w).await;

    // Every stage class has a row for the thread from its first statement on, zeros included.
    for class in [COPY, ALTER, CREATE] {
        assert_eq!(thread_count(&mut obs, wid, class).await, Some(0), "{class}");
    }

    // Defaults: only the copy stage is enabled, so a rebuilding ALTER counts and the rest not.
    w.query_drop("DROP TABLE IF EXISTS stage_t").await.unwrap();
    w.query_drop("CREATE TABLE stage_t (a INT PRIMARY KEY, b INT)")
        .await
        .unwrap();
    w.query_drop("ALTER TABLE stage_t MODIFY b BIGINT")
        .await
        .unwrap();
    w.query_drop("ALTER TABLE stage_t ADD COLUMN c INT")
        .await
        .unwrap();
    assert_eq!(thread_count(&mut obs, wid, COPY).await, Some(1));
    assert_eq!(thread_count(&mut obs, wid, ALTER).await, Some(0));
    assert_eq!(thread_count(&mut obs, wid, CREATE).await, Some(0));
    let copies = global_count(&mut obs, COPY).await;
    assert!(copies >= 1, "global copies {copies}");

    // Every stage/sql instrument and the stage consumers on: each DDL counts, timed, and its
    // stage sits in events_stages_history nested in its statement.
    obs.query_drop(
        "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' \
         WHERE NAME LIKE 'stage/sql/%'",
    )
    .await
    .unwrap();
    obs.query_drop(
        "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' \
         WHERE NAME LIKE 'events_stages_%' OR NAME LIKE 'events_statements_history%'",
    )
    .await
    .unwrap();
    w.query_drop("CREATE TABLE stage_u (a INT)").await.unwrap();
    w.query_drop("ALTER TABLE stage_u ADD COLUMN b INT")
        .await
        .unwrap();
    assert_eq!(thread_count(&mut obs, wid, CREATE).await, Some(1));
    assert_eq!(thread_count(&mut obs, wid, ALTER).await, Some(1));
    let timed: i64 = obs
        .query_first(format!(
            "SELECT s.SUM_TIMER_WAIT \
             FROM performance_schema.events_stages_summary_by_thread_by_event_name s \
             JOIN performance_schema.threads t ON s.THREAD_ID = t.THREAD_ID \
             WHERE t.PROCESSLIST_ID = {wid} AND s.EVENT_NAME = '{CREATE}'"
        ))
        .await
        .unwrap()
        .unwrap();
    assert!(timed > 0, "creating table timed {timed}");
    let nested: Vec<(String, String, String)> = obs
        .query(format!(
            "SELECT g.EVENT_NAME, g.NESTING_EVENT_TYPE, s.SQL_TEXT \
             FROM performance_schema.events_stages_history g \
             JOIN performance_schema.events_statements_history s \
               ON s.THREAD_ID = g.THREAD_ID AND s.EVENT_ID = g.NESTING_EVENT_ID \
             JOIN performance_schema.threads t ON g.THREAD_ID = t.THREAD_ID \
             WHERE t.PROCESSLIST_ID = {wid} ORDER BY g.EVENT_ID"
        ))
        .await
        .unwrap();
    assert_eq!(
        nested,
        vec![
            (
                CREATE.to_string(),
                "STATEMENT".to_string(),
                "CREATE TABLE stage_u (a INT)".to_string()
            ),
            (
                ALTER.to_string(),
                "STATEMENT".to_string(),
                "ALTER TABLE stage_u ADD COLUMN b INT".to_string()
            ),
        ]
    );

    // The account, user and host have the thread's counts; TRUNCATE of the by-thread table
    // moves them there, so they stay while the thread's go to 0.
    let key = "USER = 'stager'";
    assert_eq!(count_by(&mut obs, "user", key, CREATE).await, 1);
    assert_eq!(count_by(&mut obs, "account", key, COPY).await, 1);
    assert_eq!(
        count_by(&mut obs, "host", "HOST = '127.0.0.1'", CREATE).await,
        1
    );
    obs.query_drop(
        "TRUNCATE TABLE performance_schema.events_stages_summary_by_thread_by_event_name",
    )
    .await
    .unwrap();
    assert_eq!(thread_count(&mut obs, wid, CREATE).await, Some(0));
    assert_eq!(count_by(&mut obs, "user", key, CREATE).await, 1);
    assert_eq!(count_by(&mut obs, "account", key, ALTER).await, 1);

    // Statements other than CREATE and ALTER TABLE run no stage.
    let stages = format!(
        "SELECT SUM(s.COUNT_STAR) \
         FROM performance_schema.events_stages_summary_by_thread_by_event_name s \
         JOIN performance_schema.threads t ON s.THREAD_ID = t.THREAD_ID \
         WHERE t.PROCESSLIST_ID = {wid}"
    );
    let before: i64 = obs.query_first(&stages).await.unwrap().unwrap();
    w.query_drop("INSERT INTO stage_u VALUES (1, 2)")
        .await
        .unwrap();
    let _: Option<i64> = w
        .query_first("SELECT a FROM stage_u WHERE a = 1")
        .await
        .unwrap();
    let after: i64 = obs.query_first(&stages).await.unwrap().unwrap();
    assert_eq!(after, before);

    w.query_drop("DROP TABLE stage_t, stage_u").await.unwrap();
    w.disconnect().await.unwrap();
}
