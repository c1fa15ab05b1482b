//! MySQL's scalar functions the engine lacks, through the wire: text queries and prepared
//! statements, the column names MySQL gives them, `CURRENT_TIMESTAMP()` renamed for SQLite,
//! the date, digest and comparison functions, `INTERVAL` arithmetic and the unit-word functions
//! (the rewrite's calls of them), `NOW()` fixed for a statement, and an unknown function still
//! refused with 1305.

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_answer_as_mysql_over_text_queries() {
    let mut c = conn().await;
    let row: (String, String, String, i64, String) = c
        .query_first("SELECT IF(1, 'a', 'b'), LPAD('x', 3, '0'), REPEAT('ab', 2), LOCATE('b', 'abc'), CONCAT_WS(',', 'a', NULL, 'b')")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        ("a".into(), "00x".into(), "abab".into(), 2, "a,b".into())
    );
    let row: (Option<String>, i64, i64, String) = c
        .query_first(
            "SELECT CONCAT('a', NULL), LENGTH('é'), CHAR_LENGTH('é'), FROM_UNIXTIME(1447430881)",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row, (None, 2, 1, "2015-11-13 16:08:01".into()));
    let r: f64 = c.query_first("SELECT RAND(3)").await.unwrap().unwrap();
    assert!((r - 0.905_769_755_976_060_1).abs() < 1e-12, "{r}");
    let (m, t): (i64, f64) = c
        .query_first("SELECT MOD(29, 9), TRUNCATE(1.999, 1)")
        .await
        .unwrap()
        .unwrap();
    assert_eq!((m, t), (2, 1.9));
    // The clock: MySQL's forms, with and without parentheses, one second apart at most.
    let (now, ts, bare, date): (String, String, String, String) = c
        .query_first("SELECT NOW(), CURRENT_TIMESTAMP(), CURRENT_TIMESTAMP, CURDATE()")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(now.len(), 19, "{now}");
    assert_eq!(ts.len(), 19, "{ts}");
    assert_eq!(bare.len(), 19, "{bare}");
    assert_eq!(&now[..10], &date[..], "today, unless midnight passed");
    let back: i64 = c
        .query_first(format!("SELECT UNIX_TIMESTAMP() - UNIX_TIMESTAMP('{now}')"))
        .await
        .unwrap()
        .unwrap();
    assert!((0..=2).contains(&back), "{back}");
    // Columns keep the name MySQL gives them, the renamed call included.
    let rows: Vec<mysql_async::Row> = c
        .query("SELECT CURRENT_TIMESTAMP(), UCASE('a')")
        .await
        .unwrap();
    let names: Vec<String> = rows[0]
        .columns_ref()
        .iter()
        .map(|col| col.name_str().into_owned())
        .collect();
    assert_eq!(names, ["CURRENT_TIMESTAMP()", "UCASE('a')"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_take_prepared_arguments() {
    let mut c = conn().await;
    let stmt = c
        .prep("SELECT RPAD(?, ?, '.'), FIND_IN_SET(?, 'a,b,c'), LEFT(?, 2), FROM_UNIXTIME(?)")
        .await
        .unwrap();
    let row: (String, i64, String, String) = c
        .exec_first(&stmt, ("ab", 4, "c", "héllo", 86_400))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        ("ab..".into(), 3, "hé".into(), "1970-01-02 00:00:00".into())
    );
    let nulls: (Option<String>, Option<i64>, Option<String>, Option<String>) = c
        .exec_first(
            &stmt,
            (
                None::<String>,
                4,
                None::<String>,
                None::<String>,
                None::<i64>,
            ),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(nulls, (None, None, None, None));
    let stmt = c.prep("SELECT IF(? > 1, UUID(), NOW(3))").await.unwrap();
    let uuid: String = c.exec_first(&stmt, (2,)).await.unwrap().unwrap();
    assert_eq!((uuid.len(), &uuid[14..15]), (36, "1"), "{uuid}");
    let now: String = c.exec_first(&stmt, (0,)).await.unwrap().unwrap();
    assert_eq!(now.len(), 23, "{now}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_function_is_still_1305() {
    let mut c = conn().await;
    let e = code(c.query_drop("SELECT NO_SUCH_FN_XYZ(1)").await);
    assert_eq!(e, (1305, "42000".into()));
    let one: i64 = c.query_first("SELECT 1").await.unwrap().unwrap();
    assert_eq!(one, 1, "the connection goes on");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dates_digests_and_comparisons_answer_as_mysql() {
    let mut c = conn().await;
    let row: (String, i64, Option<i64>, i64, String, String) = c
        .query_first(
            "SELECT DATE_FORMAT('2009-10-04 22:23:00', '%W %M %D %Y %r'), \
             DATEDIFF('2007-12-31 23:59:59', '2007-12-30'), GREATEST(1, NULL, 3), \
             LEAST(34, 3, 5, 767), DAYNAME('2007-02-03'), LAST_DAY('2004-02-05')",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            "Sunday October 4th 2009 10:23:00 PM".into(),
            1,
            None,
            3,
            "Saturday".into(),
            "2004-02-29".into()
        )
    );
    let row: (String, String, String, i64) = c
        .query_first("SELECT MD5('testing'), SHA1('abc'), SHA2('abc', 256), CRC32('MySQL')")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            "ae2b1fca515949e5d54fb22b8ed95575".into(),
            "a9993e364706816aba3e25717850c26c9cd0d89d".into(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".into(),
            3_259_397_556
        )
    );
    let row: (i64, i64, i64, String, String, Option<String>) = c
        .query_first(
            "SELECT YEAR('2024-02-29'), WEEK('2008-02-20', 1), TIME_TO_SEC('22:23:00'), \
             TIMEDIFF('2008-12-31 23:59:59.000001', '2008-12-30 01:01:01.000002'), \
             STR_TO_DATE('May 1, 2013', '%M %d,%Y'), SHA2('abc', 100)",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            2024,
            8,
            80_580,
            "46:58:57.999999".into(),
            "2013-05-01".into(),
            None
        )
    );
    // The forms the rewrite gives `+ INTERVAL`, `TIMESTAMPDIFF(unit, ...)` and `EXTRACT`.
    let row: (String, String, i64, i64) = c
        .query_first(
            "SELECT DATE_ADD('2024-01-31', 1, 'MONTH'), DATE_SUB('2024-01-01', '1:30', 'HOUR_MINUTE'), \
             TIMESTAMPDIFF('MONTH', '2003-02-01', '2003-05-01'), EXTRACT('DAY_MINUTE', '2019-07-02 01:02:03')",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        ("2024-02-29".into(), "2023-12-31 22:30:00".into(), 3, 20_102)
    );
    // Prepared, with NULLs.
    let stmt = c
        .prep("SELECT DATE_FORMAT(?, '%Y/%m/%d'), MD5(?), GREATEST(?, ?)")
        .await
        .unwrap();
    let row: (String, String, i64) = c
        .exec_first(&stmt, ("2024-02-29 10:00:00", "testing", 2, 7))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            "2024/02/29".into(),
            "ae2b1fca515949e5d54fb22b8ed95575".into(),
            7
        )
    );
    let nulls: (Option<String>, Option<String>, Option<i64>) = c
        .exec_first(&stmt, (None::<String>, None::<String>, 2, None::<i64>))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(nulls, (None, None, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn now_is_fixed_for_a_statement_and_sysdate_is_not() {
    let mut c = conn().await;
    // The server sleeps after the statement started, before the engine runs it.
    let (now, slept, again, sys, stamp): (String, i64, String, String, String) = c
        .query_first("SELECT NOW(6), SLEEP(1), NOW(6), SYSDATE(6), CURRENT_TIMESTAMP")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(slept, 0);
    assert_eq!(now, again, "NOW() reads the statement's start");
    assert_eq!(&now[..19], stamp, "so does CURRENT_TIMESTAMP");
    let seconds_between =
        |a: &str, b: &str| format!("SELECT UNIX_TIMESTAMP('{b}') - UNIX_TIMESTAMP('{a}')");
    let waited: f64 = c
        .query_first(seconds_between(&now, &sys))
        .await
        .unwrap()
        .unwrap();
    assert!(waited >= 1.0, "SYSDATE() reads the clock: {now} {sys}");
    // The next statement starts later.
    let next: String = c.query_first("SELECT NOW(6)").await.unwrap().unwrap();
    let later: f64 = c
        .query_first(seconds_between(&sys, &next))
        .await
        .unwrap()
        .unwrap();
    assert!(later >= 0.0, "{sys} {next}");
    // Every row of a statement sees the same NOW().
    let distinct: i64 = c
        .query_first(
            "SELECT COUNT(DISTINCT t) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL \
             SELECT i + 1 FROM n WHERE i < 20000) SELECT NOW(6) AS t FROM n) AS x",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(distinct, 1);
}

/// MySQL's interval syntax end to end: the rewrite (`rewrite/expr.rs`) turns it into calls of
/// the functions (`functions/interval.rs`), in text queries and prepared statements alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interval_arithmetic_answers_as_mysql() {
    let mut c = conn().await;
    let row: (String, String, String, String) = c
        .query_first(
            "SELECT DATE_ADD('2024-01-31', INTERVAL 1 MONTH), '2024-03-01' - INTERVAL 1 DAY, \
             INTERVAL 2 HOUR + '2024-01-01 23:00:00', SUBDATE('2024-01-10', 3)",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            "2024-02-29".into(),
            "2024-02-29".into(),
            "2024-01-02 01:00:00".into(),
            "2024-01-07".into()
        )
    );
    let row: (i64, i64, String) = c
        .query_first(
            "SELECT TIMESTAMPDIFF(MONTH, '2024-01-31', '2024-03-30'), \
             EXTRACT(YEAR FROM '2024-05-06'), TIMESTAMPADD(MINUTE, 90, '2024-01-01 00:00:00')",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row, (1, 2024, "2024-01-01 01:30:00".into()));
    // Compound units, which sqlparser reads only after `mdl-sql` respells them.
    let row: (i64, i64, i64) = c
        .exec_first(
            "SELECT EXTRACT(HOUR_MINUTE FROM '2024-01-02 10:11:12'), \
             EXTRACT(day_second FROM ?), EXTRACT(SECOND_MICROSECOND FROM '10:11:12.5')",
            ("2024-01-02 10:11:12",),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row, (1011, 2_101_112, 12_500_000));
    // Every compound unit after `INTERVAL`, `SECOND_MICROSECOND` too (the manual's values).
    let row: (String, String, String, String) = c
        .exec_first(
            "SELECT DATE_ADD('2020-01-01 00:00:00', INTERVAL '1.5' SECOND_MICROSECOND), \
             '2020-01-01' + INTERVAL '1:1.000002' MINUTE_MICROSECOND, \
             DATE_SUB('2020-01-01', INTERVAL '1 1:1:1.5' DAY_MICROSECOND), \
             ? - INTERVAL ? second_microsecond",
            ("2020-01-01 00:00:00", "0.000001"),
        )
        .await
        .unwrap()
        .unwrap();
    let want = [
        "2020-01-01 00:00:01.500000",
        "2020-01-01 00:01:01.000002",
        "2019-12-30 22:58:58.500000",
        "2019-12-31 23:59:59.999999",
    ];
    assert_eq!([row.0, row.1, row.2, row.3], want);
    // Parameters bind in the order the client wrote them, though the rewrite reorders them.
    let day: String = c
        .exec_first("SELECT INTERVAL ? DAY + ?", (2, "2024-02-28"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(day, "2024-03-01");
    c.query_drop("CREATE TABLE fn_iv (id INT PRIMARY KEY, at DATETIME)")
        .await
        .unwrap();
    c.query_drop(
        "INSERT INTO fn_iv VALUES (1, NOW() - INTERVAL 2 DAY), (2, NOW() - INTERVAL 1 HOUR)",
    )
    .await
    .unwrap();
    let recent: Vec<i64> = c
        .query("SELECT id FROM fn_iv WHERE at > NOW() - INTERVAL 1 DAY")
        .await
        .unwrap();
    assert_eq!(recent, [2]);
    c.query_drop("DROP TABLE fn_iv").await.unwrap();
}

/// `REGEXP`, `RLIKE` (SQLite has only the first), `NOT REGEXP`, `REGEXP_LIKE` with a match type,
/// over a table, and MySQL's codes for a bad pattern (3685) and a too-big precision (1426).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regular_expressions_match_as_mysql() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE fn_re (id INT PRIMARY KEY, name VARCHAR(20))")
        .await
        .unwrap();
    c.query_drop("INSERT INTO fn_re VALUES (1, 'apple'), (2, 'Banana'), (3, 'cherry')")
        .await
        .unwrap();
    for (sql, want) in [
        (
            "SELECT id FROM fn_re WHERE name REGEXP '^[ab]' ORDER BY id",
            vec![1],
        ),
        (
            "SELECT id FROM fn_re WHERE name RLIKE 'an+a$' ORDER BY id",
            vec![2],
        ),
        (
            "SELECT id FROM fn_re WHERE name NOT RLIKE 'a' ORDER BY id",
            vec![3],
        ),
        (
            "SELECT id FROM fn_re WHERE REGEXP_LIKE(name, '^B', 'i') ORDER BY id",
            vec![2],
        ),
    ] {
        let got: Vec<i64> = c.query(sql).await.unwrap();
        assert_eq!(got, want, "{sql}");
    }
    let (bad, _) = code(c.query_drop("SELECT 'a' REGEXP '('").await);
    assert_eq!(bad, 3685);
    let (big, state) = code(c.query_drop("SELECT NOW(7)").await);
    assert_eq!((big, state.as_str()), (1426, "42000"));
    c.query_drop("DROP TABLE fn_re").await.unwrap();
}
