//! ANALYZE, CHECK, OPTIMIZE, REPAIR, CHECKSUM TABLE and FLUSH over the wire: their result rows,
//! the metadata locks they wait for (MySQL 8.0's: SR for ANALYZE, CHECK and CHECKSUM; SNRW
//! then X for OPTIMIZE and REPAIR; none for FLUSH TABLES; SNW for FLUSH TABLES ... FOR
//! EXPORT), and their implicit commits. Every wait is bounded, so a test fails rather than
//! hangs.

mod common;

use std::future::Future;
use std::time::Duration;

use common::*;
use mysql_async::prelude::*;

type Row4 = (String, String, String, String);

/// `fut`, or a failure after 30 s.
async fn bounded<T>(fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), fut)
        .await
        .expect("finished in time")
}

fn rows(v: &[(&str, &str, &str, &str)]) -> Vec<Row4> {
    v.iter()
        .map(|r| (r.0.into(), r.1.into(), r.2.into(), r.3.into()))
        .collect()
}

/// A maintenance statement's rows, without the note ANALYZE adds when another test's
/// transaction holds the engine's writer (the statistics are then left as they were).
async fn admin(c: &mut mysql_async::Conn, sql: &str) -> Vec<Row4> {
    let got: Vec<Row4> = bounded(c.query(sql)).await.expect(sql);
    got.into_iter()
        .filter(|r| !r.3.starts_with("Statistics not updated"))
        .collect()
}

/// Runs each statement of `sql` (separated by `;`) in turn.
async fn run_all(c: &mut mysql_async::Conn, sql: &str) {
    for q in sql.split(';') {
        bounded(c.query_drop(q)).await.expect(q);
    }
}

async fn count(c: &mut mysql_async::Conn, table: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    bounded(c.query_first(sql)).await.unwrap().unwrap()
}

async fn checksums(c: &mut mysql_async::Conn, sql: &str) -> Vec<(String, Option<i64>)> {
    bounded(c.query(sql)).await.expect(sql)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_statement_answers_as_mysql_with_innodb() {
    let mut c = conn().await;
    run_all(
        &mut c,
        "CREATE TABLE mt_rows (id INT PRIMARY KEY, v VARCHAR(10)); \
         INSERT INTO mt_rows VALUES (1, 'a'), (2, NULL), (3, 'c')",
    )
    .await;
    assert_eq!(
        admin(&mut c, "ANALYZE TABLE mt_rows, mt_missing, mt_nodb.t").await,
        rows(&[
            ("test.mt_rows", "analyze", "status", "OK"),
            (
                "test.mt_missing",
                "analyze",
                "Error",
                "Table 'test.mt_missing' doesn't exist"
            ),
            ("test.mt_missing", "analyze", "status", "Operation failed"),
            (
                "mt_nodb.t",
                "analyze",
                "Error",
                "Table 'mt_nodb.t' doesn't exist"
            ),
            ("mt_nodb.t", "analyze", "status", "Operation failed"),
        ])
    );
    assert_eq!(
        admin(&mut c, "CHECK TABLE mt_rows FOR UPGRADE QUICK").await,
        rows(&[("test.mt_rows", "check", "status", "OK")])
    );
    assert_eq!(
        admin(&mut c, "OPTIMIZE TABLE mt_rows").await,
        rows(&[
            (
                "test.mt_rows",
                "optimize",
                "note",
                "Table does not support optimize, doing recreate + analyze instead"
            ),
            ("test.mt_rows", "optimize", "status", "OK"),
        ])
    );
    assert_eq!(count(&mut c, "mt_rows").await, 3);
    assert_eq!(
        admin(
            &mut c,
            "REPAIR NO_WRITE_TO_BINLOG TABLE mt_rows, mt_missing"
        )
        .await,
        rows(&[
            (
                "test.mt_rows",
                "repair",
                "note",
                "The storage engine for the table doesn't support repair"
            ),
            (
                "test.mt_missing",
                "repair",
                "Error",
                "Table 'test.mt_missing' doesn't exist"
            ),
            ("test.mt_missing", "repair", "status", "Operation failed"),
        ])
    );
    // CHECKSUM: the server's own sum over the rows, whatever their order; NULL when missing.
    run_all(
        &mut c,
        "CREATE TABLE mt_rows_copy (id INT PRIMARY KEY, v VARCHAR(10)); \
         INSERT INTO mt_rows_copy VALUES (3, 'c'), (2, NULL), (1, 'a')",
    )
    .await;
    let got = checksums(&mut c, "CHECKSUM TABLE mt_rows, mt_rows_copy, mt_missing").await;
    let names: Vec<&str> = got.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        ["test.mt_rows", "test.mt_rows_copy", "test.mt_missing"]
    );
    assert!(got[0].1.is_some() && got[0].1 == got[1].1, "{got:?}");
    assert_eq!(got[2].1, None);
    c.query_drop("UPDATE mt_rows SET v = 'b' WHERE id = 2")
        .await
        .unwrap();
    let after = checksums(&mut c, "CHECKSUM TABLES mt_rows EXTENDED").await;
    assert_ne!(after[0].1, got[0].1);
    // performance_schema's engine supports none of them (MySQL's note).
    assert_eq!(
        admin(&mut c, "CHECK TABLE performance_schema.threads").await,
        rows(&[(
            "performance_schema.threads",
            "check",
            "note",
            "The storage engine for the table doesn't support check"
        )])
    );
    // The histogram forms are refused before any lock.
    let e = c
        .query_drop("ANALYZE TABLE mt_rows UPDATE HISTOGRAM ON v")
        .await;
    assert_eq!(code(e).0, 1235);
}

/// OPTIMIZE and REPAIR take SNRW, which waits for a transaction's SR (`mysql_admin_table`
/// with `TL_WRITE`), and show it in the process list; they go on after COMMIT.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optimize_and_repair_wait_for_a_transaction_that_read_the_table() {
    let mut setup = conn().await;
    run_all(
        &mut setup,
        "CREATE TABLE mt_read (x INT); INSERT INTO mt_read VALUES (1)",
    )
    .await;
    let mut obs = conn().await;
    for (sql, last) in [
        ("OPTIMIZE TABLE mt_read", "OK"),
        (
            "REPAIR TABLE mt_read",
            "The storage engine for the table doesn't support repair",
        ),
    ] {
        let mut trx = conn().await;
        trx.query_drop("BEGIN").await.unwrap();
        assert_eq!(count(&mut trx, "mt_read").await, 1);
        let mut m = conn().await;
        let mid = id(&mut m).await;
        let task = tokio::spawn(async move { admin(&mut m, sql).await });
        wait_state(&mut obs, mid, "Waiting for table metadata lock").await;
        assert!(!task.is_finished(), "{sql}");
        trx.query_drop("COMMIT").await.unwrap();
        let got = bounded(task).await.unwrap();
        assert_eq!(got.last().map(|r| r.3.as_str()), Some(last), "{sql}");
    }
}

/// ANALYZE, CHECK and CHECKSUM take SR, compatible with a writing transaction's SW: they do
/// not wait for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyze_check_and_checksum_do_not_wait_for_a_writer() {
    let mut setup = conn().await;
    setup
        .query_drop("CREATE TABLE mt_write (x INT)")
        .await
        .unwrap();
    let mut trx = conn().await;
    trx.query_drop("BEGIN").await.unwrap();
    trx.query_drop("INSERT INTO mt_write VALUES (1)")
        .await
        .unwrap();
    let mut c = conn().await;
    c.query_drop("SET SESSION lock_wait_timeout = 1")
        .await
        .unwrap();
    // The transaction holds the engine's writer: SQLite's statistics are left as they were,
    // and a note says so, rather than a wait MySQL would not make.
    for (sql, expected) in [
        (
            "ANALYZE TABLE mt_write",
            rows(&[
                (
                    "test.mt_write",
                    "analyze",
                    "note",
                    "Statistics not updated: another transaction holds the engine's writer",
                ),
                ("test.mt_write", "analyze", "status", "OK"),
            ]),
        ),
        (
            "CHECK TABLE mt_write",
            rows(&[("test.mt_write", "check", "status", "OK")]),
        ),
    ] {
        let got: Vec<Row4> = tokio::time::timeout(Duration::from_secs(3), c.query(sql))
            .await
            .expect("no wait")
            .expect(sql);
        assert_eq!(got, expected, "{sql}");
    }
    let got = checksums(&mut c, "CHECKSUM TABLE mt_write").await;
    assert_eq!(got.len(), 1);
    trx.query_drop("COMMIT").await.unwrap();
}

/// ANALYZE, CHECK, OPTIMIZE, REPAIR and FLUSH are `CF_AUTO_COMMIT_TRANS`: the session's open
/// transaction is committed first (a later ROLLBACK keeps its rows). CHECKSUM TABLE is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maintenance_and_flush_commit_first_checksum_does_not() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE mt_commit (x INT)")
        .await
        .unwrap();
    let mut n = 0;
    for sql in [
        "ANALYZE TABLE mt_commit",
        "CHECK TABLE mt_commit",
        "OPTIMIZE TABLE mt_commit",
        "REPAIR TABLE mt_commit",
        "FLUSH TABLES",
        "FLUSH STATUS",
    ] {
        n += 1;
        c.query_drop("BEGIN").await.unwrap();
        c.query_drop(format!("INSERT INTO mt_commit VALUES ({n})"))
            .await
            .unwrap();
        bounded(c.query_drop(sql)).await.expect(sql);
        c.query_drop("ROLLBACK").await.unwrap();
        assert_eq!(count(&mut c, "mt_commit").await, n, "{sql}");
    }
    c.query_drop("BEGIN").await.unwrap();
    c.query_drop("INSERT INTO mt_commit VALUES (0)")
        .await
        .unwrap();
    checksums(&mut c, "CHECKSUM TABLE mt_commit").await;
    c.query_drop("ROLLBACK").await.unwrap();
    assert_eq!(count(&mut c, "mt_commit").await, n);
}

/// FLUSH TABLES takes no metadata lock (`handle_reload_request`; there is no table cache here
/// to wait for): it does not wait for another session's transaction. The reloads this server
/// has nothing for answer OK.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flush_tables_and_reloads_do_not_wait() {
    let mut setup = conn().await;
    run_all(
        &mut setup,
        "CREATE TABLE mt_flush (x INT); CREATE TABLE mt_flush2 (x INT)",
    )
    .await;
    let mut trx = conn().await;
    trx.query_drop("BEGIN").await.unwrap();
    trx.query_drop("INSERT INTO mt_flush VALUES (1)")
        .await
        .unwrap();
    assert_eq!(count(&mut trx, "mt_flush2").await, 0);
    let mut c = conn().await;
    c.query_drop("SET SESSION lock_wait_timeout = 1")
        .await
        .unwrap();
    for sql in [
        "FLUSH TABLES",
        "FLUSH TABLES mt_flush, mt_flush2",
        "FLUSH LOCAL TABLES mt_flush",
        "FLUSH PRIVILEGES",
        "FLUSH LOGS",
        "FLUSH BINARY LOGS",
        "FLUSH STATUS",
    ] {
        tokio::time::timeout(Duration::from_secs(3), c.query_drop(sql))
            .await
            .expect("no wait")
            .expect(sql);
    }
    trx.query_drop("COMMIT").await.unwrap();
}

/// FLUSH TABLES t FOR EXPORT locks as FLUSH TABLES t WITH READ LOCK
/// (`flush_tables_for_export`): it waits for a transaction that wrote t, then holds SNW until
/// UNLOCK TABLES, and writers wait meanwhile; a second one under LOCK TABLES is 1192.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flush_tables_for_export_holds_snw_until_unlock_tables() {
    let mut setup = conn().await;
    setup
        .query_drop("CREATE TABLE mt_export (x INT)")
        .await
        .unwrap();
    let mut trx = conn().await;
    trx.query_drop("BEGIN").await.unwrap();
    trx.query_drop("INSERT INTO mt_export VALUES (1)")
        .await
        .unwrap();
    let mut exp = conn().await;
    let eid = id(&mut exp).await;
    let task = tokio::spawn(async move {
        let r = bounded(exp.query_drop("FLUSH TABLES mt_export FOR EXPORT")).await;
        (exp, r)
    });
    let mut obs = conn().await;
    wait_state(&mut obs, eid, "Waiting for table metadata lock").await;
    assert!(!task.is_finished());
    trx.query_drop("COMMIT").await.unwrap();
    let (mut exp, r) = bounded(task).await.unwrap();
    r.unwrap();
    let held = locks_of(&mut obs, eid).await;
    assert!(
        held.iter().any(|l| l.1.as_deref() == Some("mt_export")
            && l.2 == "SHARED_NO_WRITE"
            && l.3 == "GRANTED"),
        "{held:?}"
    );
    let mut w = conn().await;
    w.query_drop("SET SESSION lock_wait_timeout = 1")
        .await
        .unwrap();
    let e = bounded(w.query_drop("INSERT INTO mt_export VALUES (2)")).await;
    assert_eq!(code(e).0, 1205);
    assert_eq!(count(&mut exp, "mt_export").await, 1);
    let e = exp.query_drop("FLUSH TABLES mt_export FOR EXPORT").await;
    assert_eq!(code(e).0, 1192);
    exp.query_drop("UNLOCK TABLES").await.unwrap();
    let held = locks_of(&mut obs, eid).await;
    assert!(
        !held.iter().any(|l| l.1.as_deref() == Some("mt_export")),
        "{held:?}"
    );
    bounded(w.query_drop("INSERT INTO mt_export VALUES (2)"))
        .await
        .unwrap();
}
