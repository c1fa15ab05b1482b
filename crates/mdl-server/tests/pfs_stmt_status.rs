//! What the engine did for a statement, from SQLite's counters, through a real client:
//! `NO_INDEX_USED`, `SELECT_SCAN` and `SORT_SCAN` in `events_statements_history`, their sums
//! in the digest summary, the summaries by event name and `prepared_statements_instances`, and
//! the sys reports built on them (`statements_with_full_table_scans`,
//! `statements_with_sorting`, `statement_analysis.full_scan`). A full scan (a SELECT on an
//! unindexed column) counts; a primary-key lookup does not.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

const PS: &str = "performance_schema";

/// `(NO_INDEX_USED, SELECT_SCAN, SORT_SCAN)` of the last statement of `thread` whose text is
/// `text`.
async fn event(obs: &mut Conn, thread: u64, text: &str) -> (u64, u64, u64) {
    obs.exec_first(
        format!(
            "SELECT NO_INDEX_USED, SELECT_SCAN, SORT_SCAN FROM {PS}.events_statements_history \
             WHERE THREAD_ID = ? AND SQL_TEXT = ? ORDER BY EVENT_ID DESC LIMIT 1"
        ),
        (thread, text),
    )
    .await
    .unwrap()
    .unwrap_or_else(|| panic!("no event for {text}"))
}

/// `(COUNT_STAR, SUM_NO_INDEX_USED, SUM_SELECT_SCAN, SUM_SORT_SCAN)` of the digest `text`.
async fn digest(obs: &mut Conn, text: &str) -> (u64, u64, u64, u64) {
    obs.exec_first(
        format!(
            "SELECT COUNT_STAR, SUM_NO_INDEX_USED, SUM_SELECT_SCAN, SUM_SORT_SCAN \
             FROM {PS}.events_statements_summary_by_digest WHERE DIGEST_TEXT = ?"
        ),
        (text,),
    )
    .await
    .unwrap()
    .unwrap_or_else(|| panic!("no digest {text}"))
}

async fn thread_of(obs: &mut Conn, c: &mut Conn) -> u64 {
    let pid = id(c).await;
    obs.exec_first(
        format!("SELECT THREAD_ID FROM {PS}.threads WHERE PROCESSLIST_ID = ?"),
        (pid,),
    )
    .await
    .unwrap()
    .expect("the connection's thread")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_scans_and_sorts_are_counted() {
    let mut obs = conn().await;
    fresh(
        &mut obs,
        "ssx_t",
        "id INT PRIMARY KEY, k INT, c VARCHAR(10)",
    )
    .await;
    obs.query_drop("INSERT INTO ssx_t VALUES (1, 5, 'a'), (2, 4, 'b'), (3, 3, 'c'), (4, 2, 'd')")
        .await
        .unwrap();
    let mut c = conn().await;
    let thread = thread_of(&mut obs, &mut c).await;

    const SCAN: &str = "SELECT c FROM ssx_t WHERE k = 3";
    const POINT: &str = "SELECT c FROM ssx_t WHERE id = 3";
    const SORTED: &str = "SELECT c FROM ssx_t ORDER BY k";
    const SORTED_DIGEST: &str = "SELECT `c` FROM `ssx_t` ORDER BY `k`";
    const UPDATE: &str = "UPDATE ssx_t SET c = 'z' WHERE k = 9";
    for q in [SCAN, SCAN, POINT, POINT, SORTED, UPDATE] {
        c.query_drop(q).await.unwrap();
    }

    // The events: a scan of the table, not the lookup by its key; the sort; an UPDATE's scan
    // uses no index but is no SELECT.
    assert_eq!(event(&mut obs, thread, SCAN).await, (1, 1, 0));
    assert_eq!(event(&mut obs, thread, POINT).await, (0, 0, 0));
    let sorted = event(&mut obs, thread, SORTED).await;
    assert_eq!((sorted.0, sorted.2), (1, 1), "a scan, then a sort");
    assert_eq!(event(&mut obs, thread, UPDATE).await, (1, 0, 0));

    // The digests' sums.
    assert_eq!(
        digest(&mut obs, "SELECT `c` FROM `ssx_t` WHERE `k` = ?").await,
        (2, 2, 2, 0)
    );
    assert_eq!(
        digest(&mut obs, "SELECT `c` FROM `ssx_t` WHERE `id` = ?").await,
        (2, 0, 0, 0)
    );
    assert_eq!(digest(&mut obs, SORTED_DIGEST).await, (1, 1, 1, 1));

    // The thread's summary by event name has them too.
    let by_thread: (u64, u64, u64) = obs
        .exec_first(
            format!(
                "SELECT SUM_NO_INDEX_USED, SUM_SELECT_SCAN, SUM_SORT_SCAN \
                 FROM {PS}.events_statements_summary_by_thread_by_event_name \
                 WHERE THREAD_ID = ? AND EVENT_NAME = 'statement/sql/select'"
            ),
            (thread,),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_thread, (3, 3, 1));

    // sys.processlist: the idle connection's last statement (the UPDATE) scanned.
    let pid = id(&mut c).await;
    let full: Option<String> = obs
        .exec_first(
            "SELECT full_scan FROM sys.`x$processlist` WHERE conn_id = ?",
            (pid,),
        )
        .await
        .unwrap();
    assert_eq!(
        full.as_deref(),
        Some("NO"),
        "its last statement: SELECT CONNECTION_ID()"
    );
    c.query_drop(UPDATE).await.unwrap();
    let full: Option<String> = obs
        .exec_first(
            "SELECT full_scan FROM sys.`x$processlist` WHERE conn_id = ?",
            (pid,),
        )
        .await
        .unwrap();
    assert_eq!(full.as_deref(), Some("YES"));
    // sys.user_summary_by_statement_type: root's selects (other tests' too) scanned.
    let scans: Option<u64> = obs
        .query_first(
            "SELECT full_scans FROM sys.`x$user_summary_by_statement_type` \
             WHERE user = 'root' AND statement = 'select'",
        )
        .await
        .unwrap();
    assert!(scans.is_some_and(|n| n >= 3), "{scans:?}");

    // sys.statements_with_full_table_scans: the scans, not the lookup.
    let scans: Vec<(String, u64, u64, String)> = obs
        .query(
            "SELECT query, exec_count, no_index_used_count, digest \
             FROM sys.statements_with_full_table_scans WHERE query LIKE '%ssx\\_t%'",
        )
        .await
        .unwrap();
    let texts: Vec<&str> = scans.iter().map(|s| s.0.as_str()).collect();
    assert!(
        texts.contains(&"SELECT `c` FROM `ssx_t` WHERE `k` = ?"),
        "{texts:?}"
    );
    assert!(texts.contains(&SORTED_DIGEST), "{texts:?}");
    assert!(
        !texts.contains(&"SELECT `c` FROM `ssx_t` WHERE `id` = ?"),
        "{texts:?}"
    );
    // DDL's reads of SQLite's catalog are not the statement's: not counted.
    assert!(
        texts
            .iter()
            .all(|t| t.starts_with("SELECT") || t.starts_with("UPDATE")),
        "{texts:?}"
    );
    let scan = scans.iter().find(|s| s.0.ends_with("`k` = ?")).unwrap();
    assert_eq!((scan.1, scan.2), (2, 2));
    let pct: Option<(f64, u64)> = obs
        .exec_first(
            "SELECT no_index_used_pct, total_latency \
             FROM sys.`x$statements_with_full_table_scans` WHERE digest = ?",
            (scan.3.clone(),),
        )
        .await
        .unwrap();
    assert!(pct.is_some_and(|(p, ps)| p == 100.0 && ps > 0), "{pct:?}");

    // sys.statements_with_sorting: the ORDER BY on the unindexed column only.
    let sorting: Vec<(String, u64, u64)> = obs
        .query(
            "SELECT query, exec_count, sorts_using_scans FROM sys.statements_with_sorting \
             WHERE query LIKE '%ssx\\_t%'",
        )
        .await
        .unwrap();
    assert_eq!(sorting, vec![(SORTED_DIGEST.to_string(), 1, 1)]);
    let raw: Vec<(String, Option<u64>)> = obs
        .query(
            "SELECT query, rows_sorted FROM sys.`x$statements_with_sorting` \
             WHERE query LIKE '%ssx\\_t%'",
        )
        .await
        .unwrap();
    assert_eq!(
        raw,
        vec![(SORTED_DIGEST.to_string(), None)],
        "rows sorted: not counted"
    );

    // statement_analysis marks the digests with a full scan.
    let marks: Vec<(String, String)> = obs
        .query(
            "SELECT query, full_scan FROM sys.statement_analysis \
             WHERE query LIKE 'SELECT `c` FROM `ssx\\_t` WHERE%' ORDER BY query",
        )
        .await
        .unwrap();
    assert_eq!(
        marks,
        vec![
            (
                "SELECT `c` FROM `ssx_t` WHERE `id` = ?".to_string(),
                String::new()
            ),
            (
                "SELECT `c` FROM `ssx_t` WHERE `k` = ?".to_string(),
                "*".to_string()
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_executions_count_each_their_own() {
    let mut obs = conn().await;
    fresh(&mut obs, "ssp_t", "id INT PRIMARY KEY, k INT").await;
    obs.query_drop("INSERT INTO ssp_t VALUES (1, 3), (2, 2), (3, 1)")
        .await
        .unwrap();
    let mut c = conn().await;
    // Binary-protocol executions of one cached SQLite statement: each reads its own counts
    // (taken with a reset), so three sorts are three, not 1 + 2 + 3.
    let sorted = c
        .prep("SELECT id FROM ssp_t WHERE k > ? ORDER BY k")
        .await
        .unwrap();
    let point = c.prep("SELECT k FROM ssp_t WHERE id = ?").await.unwrap();
    for i in 0..3 {
        let rows: Vec<i64> = c.exec(&sorted, (i,)).await.unwrap();
        assert_eq!(rows.len(), 3 - i as usize);
        let _: Option<i64> = c.exec_first(&point, (i + 1,)).await.unwrap();
    }
    let rows: Vec<(String, u64, u64, u64, u64)> = obs
        .query(format!(
            "SELECT SQL_TEXT, COUNT_EXECUTE, SUM_NO_INDEX_USED, SUM_SELECT_SCAN, SUM_SORT_SCAN \
             FROM {PS}.prepared_statements_instances WHERE SQL_TEXT LIKE '%ssp\\_t%' \
             ORDER BY SQL_TEXT"
        ))
        .await
        .unwrap();
    assert_eq!(
        rows,
        vec![
            (
                "SELECT id FROM ssp_t WHERE k > ? ORDER BY k".to_string(),
                3,
                3,
                3,
                3
            ),
            ("SELECT k FROM ssp_t WHERE id = ?".to_string(), 3, 0, 0, 0),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_lookup_scans_once_its_index_is_dropped() {
    let mut obs = conn().await;
    fresh(
        &mut obs,
        "ssi_t",
        "id INT PRIMARY KEY, k INT, KEY ssi_k (k)",
    )
    .await;
    obs.query_drop("INSERT INTO ssi_t VALUES (1, 3), (2, 2), (3, 1)")
        .await
        .unwrap();
    let mut c = conn().await;
    // A kept query decided never to scan reads no counter (`plan_scans.rs`); the DROP INDEX
    // moves the DDL epoch, so the next execution decides again, and its scan counts.
    let by_k = c.prep("SELECT id FROM ssi_t WHERE k = ?").await.unwrap();
    for k in 1..=2 {
        let id: Option<i64> = c.exec_first(&by_k, (k,)).await.unwrap();
        assert_eq!(id, Some(4 - k));
    }
    assert_eq!(sums(&mut obs, "ssi\\_t").await, Some((2, 0, 0, 0)));
    obs.query_drop("DROP INDEX ssi_k ON ssi_t").await.unwrap();
    for k in 1..=2 {
        let id: Option<i64> = c.exec_first(&by_k, (k,)).await.unwrap();
        assert_eq!(id, Some(4 - k));
    }
    assert_eq!(sums(&mut obs, "ssi\\_t").await, Some((4, 2, 2, 0)));
    obs.query_drop("CREATE INDEX ssi_k ON ssi_t (k)")
        .await
        .unwrap();
    let _: Option<i64> = c.exec_first(&by_k, (1,)).await.unwrap();
    assert_eq!(sums(&mut obs, "ssi\\_t").await, Some((5, 2, 2, 0)));
}

/// `(COUNT_EXECUTE, SUM_NO_INDEX_USED, SUM_SELECT_SCAN, SUM_SORT_SCAN)` of the prepared
/// statement whose text is like `%like%`.
async fn sums(obs: &mut Conn, like: &str) -> Option<(u64, u64, u64, u64)> {
    let q = format!(
        "SELECT COUNT_EXECUTE, SUM_NO_INDEX_USED, SUM_SELECT_SCAN, SUM_SORT_SCAN \
         FROM {PS}.prepared_statements_instances WHERE SQL_TEXT LIKE '%{like}%'"
    );
    obs.query_first(q).await.unwrap()
}
