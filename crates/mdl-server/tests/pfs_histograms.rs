//! The statement latency histograms through a real client: `events_statements_histogram_global`
//! and `events_statements_histogram_by_digest` list MySQL's 450 buckets, a statement that
//! sleeps 100 ms lands in the bucket of 100 ms, the digest summary's `QUANTILE_95`, `_99` and
//! `_999` are its buckets' high bounds, `sys.statements_with_runtimes_in_95th_percentile` lists
//! the slow digest, and `TRUNCATE TABLE` of each histogram (and of the digest summary) resets
//! what MySQL's resets. One test: the truncates would disturb another's counts.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

const PS: &str = "performance_schema";

/// `bounds[i]`: MySQL's bucket bounds (`pfs::statement_bucket_bounds`).
fn bucket_of(ps: u64) -> u64 {
    pfs::statement_bucket_of(ps) as u64
}

/// `(SUM(COUNT_BUCKET), COUNT(*))` of a histogram table `WHERE cond`.
async fn totals(c: &mut Conn, table: &str, cond: &str) -> (u64, u64) {
    let r: (Option<u64>, u64) = c
        .query_first(format!(
            "SELECT CAST(SUM(COUNT_BUCKET) AS UNSIGNED), COUNT(*) \
             FROM {PS}.events_statements_histogram_{table} WHERE {cond}"
        ))
        .await
        .unwrap()
        .unwrap();
    (r.0.unwrap_or(0), r.1)
}

/// The digest of the statements whose text is `LIKE pattern`, its COUNT_STAR and quantiles.
async fn digest_of(c: &mut Conn, pattern: &str) -> (String, u64, [u64; 3]) {
    let (d, n, q95, q99, q999): (String, u64, u64, u64, u64) = c
        .query_first(format!(
            "SELECT DIGEST, COUNT_STAR, QUANTILE_95, QUANTILE_99, QUANTILE_999 \
             FROM {PS}.events_statements_summary_by_digest \
             WHERE DIGEST_TEXT LIKE '{pattern}'"
        ))
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("no digest LIKE {pattern}"));
    (d, n, [q95, q99, q999])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_latencies_are_histogrammed() {
    let mut c = conn().await;
    fresh(&mut c, "hg_t", "a INT PRIMARY KEY").await;
    c.query_drop("INSERT INTO hg_t VALUES (1), (2), (3)")
        .await
        .unwrap();
    c.query_drop(format!(
        "TRUNCATE TABLE {PS}.events_statements_summary_by_digest"
    ))
    .await
    .unwrap();
    c.query_drop(format!(
        "TRUNCATE TABLE {PS}.events_statements_histogram_global"
    ))
    .await
    .unwrap();
    for i in 0..20 {
        let _: Vec<i64> = c
            .query(format!("SELECT a FROM hg_t WHERE a = {}", i % 3 + 1))
            .await
            .unwrap();
    }
    for _ in 0..3 {
        c.query_drop("SELECT SLEEP(0.1)").await.unwrap();
    }

    // The global histogram: all 450 buckets, MySQL's bounds, every statement since the
    // truncate counted (its own TRUNCATE, 20 SELECTs, 3 sleeps, and the digest summary read
    // by `digest_of` below has not run yet).
    let (n, rows) = totals(&mut c, "global", "1").await;
    assert_eq!(rows, 450);
    assert!(n >= 24, "{n}");
    let edges: Vec<(u32, u64, u64, f64)> = c
        .query(format!(
            "SELECT BUCKET_NUMBER, BUCKET_TIMER_LOW, BUCKET_TIMER_HIGH, BUCKET_QUANTILE \
             FROM {PS}.events_statements_histogram_global \
             WHERE BUCKET_NUMBER IN (0, 1, 42, 449) ORDER BY BUCKET_NUMBER"
        ))
        .await
        .unwrap();
    assert_eq!(edges[0], (0, 0, 10_000_000, edges[0].3));
    assert_eq!(edges[1].1, 10_000_000);
    assert_eq!((edges[2].1, edges[2].2), (66_069_344, 69_183_097));
    // The last bucket's high: MySQL's is u64::MAX, SQLite's integers stop at i64::MAX.
    assert_eq!((edges[3].2, edges[3].3), (i64::MAX as u64, 1.0));
    // Cumulative counts and quantiles agree with the counts.
    let bad: u64 = c
        .query_first(format!(
            "SELECT COUNT(*) FROM {PS}.events_statements_histogram_global h \
             WHERE COUNT_BUCKET_AND_LOWER != (SELECT SUM(COUNT_BUCKET) \
               FROM {PS}.events_statements_histogram_global l \
               WHERE l.BUCKET_NUMBER <= h.BUCKET_NUMBER)"
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(bad, 0);

    // The sleeping digest: 3 statements of at least 100 ms, in the buckets from there up, and
    // its quantiles are a bucket's high bound at least that.
    let (sleep, n, q) = digest_of(&mut c, "SELECT `SLEEP`%").await;
    assert_eq!(n, 3);
    let by_sleep = format!("DIGEST = '{sleep}'");
    assert_eq!(totals(&mut c, "by_digest", &by_sleep).await, (3, 450));
    let low = bucket_of(100_000_000_000);
    let (first, last): (u64, u64) = c
        .query_first(format!(
            "SELECT MIN(BUCKET_NUMBER), MAX(BUCKET_NUMBER) \
             FROM {PS}.events_statements_histogram_by_digest \
             WHERE {by_sleep} AND COUNT_BUCKET > 0"
        ))
        .await
        .unwrap()
        .unwrap();
    assert!(
        first >= low && last < low + 50,
        "{first}..{last}, 100 ms is {low}"
    );
    let high = pfs::statement_bucket_bounds()[last as usize + 1];
    assert_eq!(q, [high; 3], "3 statements: every target is the third");

    // The point SELECT's digest: its histogram counts its 20 statements.
    let (point, n, q) = digest_of(&mut c, "SELECT%hg_t%WHERE%").await;
    assert_eq!(n, 20);
    assert_eq!(
        totals(&mut c, "by_digest", &format!("DIGEST = '{point}'")).await,
        (20, 450)
    );
    assert!(q[0] <= q[1] && q[1] <= q[2] && q[0] > 0, "{q:?}");

    // sys: the sleeping digest's average is above that of 95% of the digests (the point
    // SELECT's is below most of them), so it is in the view, the point SELECT not.
    let slow: Vec<(String, u64, String)> = c
        .query(
            "SELECT digest, exec_count, avg_latency \
             FROM sys.statements_with_runtimes_in_95th_percentile",
        )
        .await
        .unwrap();
    let row = slow.iter().find(|r| r.0 == sleep);
    assert!(
        row.is_some_and(|r| r.1 == 3 && r.2.ends_with(" ms")),
        "{slow:?}"
    );
    assert!(slow.iter().all(|r| r.0 != point), "{slow:?}");
    let x: u64 = c
        .query_first(format!(
            "SELECT avg_latency FROM sys.x$statements_with_runtimes_in_95th_percentile \
             WHERE digest = '{sleep}'"
        ))
        .await
        .unwrap()
        .unwrap();
    assert!(x >= 100_000_000_000, "{x}");

    // TRUNCATE of the global histogram: only it (the digests keep theirs); the TRUNCATE itself
    // is then its one statement.
    c.query_drop(format!(
        "TRUNCATE TABLE {PS}.events_statements_histogram_global"
    ))
    .await
    .unwrap();
    assert_eq!(totals(&mut c, "global", "1").await, (1, 450));
    assert_eq!(totals(&mut c, "by_digest", &by_sleep).await, (3, 450));

    // TRUNCATE of the histograms by digest: every digest's, not the digest summary.
    c.query_drop(format!(
        "TRUNCATE TABLE {PS}.events_statements_histogram_by_digest"
    ))
    .await
    .unwrap();
    assert_eq!(totals(&mut c, "by_digest", &by_sleep).await, (0, 450));
    let (_, n, q) = digest_of(&mut c, "SELECT `SLEEP`%").await;
    assert_eq!((n, q), (3, [0; 3]));
    assert!(totals(&mut c, "global", "1").await.0 >= 3);

    // TRUNCATE of the digest summary: the digests' rows go, with their histograms.
    c.query_drop(format!(
        "TRUNCATE TABLE {PS}.events_statements_summary_by_digest"
    ))
    .await
    .unwrap();
    assert_eq!(totals(&mut c, "by_digest", &by_sleep).await, (0, 0));
    c.query_drop("SELECT SLEEP(0.03)").await.unwrap();
    let (_, n, q) = digest_of(&mut c, "SELECT `SLEEP`%").await;
    assert_eq!(n, 1);
    assert!(q[0] >= 30_000_000_000, "{q:?}");
}
