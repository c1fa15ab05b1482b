//! MySQL's expression syntax where SQLite's differs, through the wire (`rewrite/expr.rs`, and
//! the rewrite's own passes it names): `LIKE`'s default escape, `DIV` and `%`, `GROUP_CONCAT
//! ... SEPARATOR`, `CAST` and `CONVERT`, `XOR`, temporal literals and `COLLATE`, spellings
//! sqlparser lacks, `TRIM` and `SUBSTRING` in their `FROM` forms, introducers and `<=>`. Apart
//! from `dialect.rs`, which has the statements' forms.

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn like_escapes_with_a_backslash_as_mysql() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE di_like (c TEXT)").await.unwrap();
    c.query_drop("INSERT INTO di_like VALUES ('a_b'), ('axb'), ('a%')")
        .await
        .unwrap();
    let hits: Vec<String> = c
        .query("SELECT c FROM di_like WHERE c LIKE 'a\\_b' ORDER BY c")
        .await
        .unwrap();
    assert_eq!(hits, ["a_b"], "\\_ is a literal underscore");
    let hits: Vec<String> = c
        .query("SELECT c FROM di_like WHERE c LIKE 'a|%' ESCAPE '|'")
        .await
        .unwrap();
    assert_eq!(hits, ["a%"]);
    let all: Vec<String> = c
        .query("SELECT c FROM di_like WHERE c LIKE 'a_b' ORDER BY c")
        .await
        .unwrap();
    assert_eq!(all, ["a_b", "axb"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn div_and_modulo_answer_as_mysql() {
    let mut c = conn().await;
    type Row6 = (i64, i64, i64, i64, Option<i64>, Option<i64>);
    let div: Row6 = c
        .query_first("SELECT 5 DIV 2, -7 DIV 2, 7.9 DIV 2, '7' DIV '2', 5 DIV 0, NULL DIV 2")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        div,
        (2, -3, 3, 3, None, None),
        "truncated toward zero, NULL by 0"
    );
    let modulo: (i64, i64, f64, f64, Option<i64>, Option<f64>) = c
        .query_first("SELECT 5 % 2, -5 % 2, 5.5 % 2, -5.5 % 2, 5 % 0, 5.5 % 0")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        modulo,
        (1, -1, 1.5, -1.5, None, None),
        "the dividend's sign, fmod"
    );
    // `/` of integers is MySQL's exact quotient (a DOUBLE here), not SQLite's truncation.
    let quotient: (f64, f64, f64, Option<f64>, f64) = c
        .query_first("SELECT 7 / 2, -7 / 2, '9' / 4, 1 / 0, 2 * 3 / 4")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(quotient, (3.5, -3.5, 2.25, None, 1.5));
    let stmt = c.prep("SELECT ? / ?").await.unwrap();
    let prepared: f64 = c.exec_first(&stmt, (7, 2)).await.unwrap().unwrap();
    assert_eq!(prepared, 3.5);
    let stmt = c.prep("SELECT ? DIV ?, ? % ?").await.unwrap();
    let prepared: (i64, i64) = c.exec_first(&stmt, (7, 2, 7, 3)).await.unwrap().unwrap();
    assert_eq!(prepared, (3, 1));
    let row: mysql_async::Row = c.query_first("SELECT 5 DIV 2").await.unwrap().unwrap();
    assert_eq!(
        row.columns_ref()[0].name_str(),
        "5 DIV 2",
        "MySQL's column name"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_concat_separator_order_by_and_distinct() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE di_gc (g INT, v TEXT)")
        .await
        .unwrap();
    c.query_drop(
        "INSERT INTO di_gc VALUES (1, 'b'), (1, 'a,b'), (1, 'b'), (1, NULL), \
         (2, 'x'), (2, 'x\u{1}y'), (2, 'x')",
    )
    .await
    .unwrap();
    let q = |select: &str| format!("SELECT {select} FROM di_gc GROUP BY g ORDER BY g");
    let sep: Vec<String> = c
        .query(q("GROUP_CONCAT(v ORDER BY v SEPARATOR ';')"))
        .await
        .unwrap();
    assert_eq!(sep, ["a,b;b;b", "x;x;x\u{1}y"], "NULLs skipped, ordered");
    let distinct: Vec<String> = c
        .query(q(
            "GROUP_CONCAT(DISTINCT v ORDER BY v DESC SEPARATOR ' | ')",
        ))
        .await
        .unwrap();
    assert_eq!(distinct, ["b | a,b", "x\u{1}y | x"]);
    let default_sep: Vec<String> = c
        .query(q("GROUP_CONCAT(DISTINCT v ORDER BY v)"))
        .await
        .unwrap();
    assert_eq!(default_sep, ["a,b,b", "x,x\u{1}y"]);
    let several: Vec<String> = c
        .query(q("GROUP_CONCAT(g, v ORDER BY v SEPARATOR '')"))
        .await
        .unwrap();
    assert_eq!(several, ["1a,b1b1b", "2x2x2x\u{1}y"]);
    let several_distinct: Vec<String> = c
        .query(q("GROUP_CONCAT(DISTINCT g, v ORDER BY v)"))
        .await
        .unwrap();
    assert_eq!(several_distinct, ["1a,b,1b", "2x,2x\u{1}y"]);
    let none: Option<String> = c
        .query_first("SELECT GROUP_CONCAT(v SEPARATOR ';') FROM di_gc WHERE g = 3")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(none, None, "no rows: NULL");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cast_and_convert_answer_as_mysql() {
    let mut c = conn().await;
    let ints: (i64, i64, i64, i64, i64, Option<i64>) = c
        .query_first(
            "SELECT CAST('12.5' AS SIGNED), CAST(' 12abc' AS SIGNED INTEGER), CAST(-3 AS SIGNED), \
             CAST('7' AS UNSIGNED), CONVERT('5', UNSIGNED), CAST(NULL AS SIGNED)",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ints, (12, 12, -3, 7, 5, None));
    let texts: (String, String, String, String, i64, i64) = c
        .query_first(
            "SELECT CAST(12 AS CHAR), CAST('abcdef' AS CHAR(3)), CONVERT('héllo' USING utf8mb4), \
             CONVERT(1.5, CHAR), BINARY 'abc' = 'abc', CAST('abc' AS BINARY) = 'ABC'",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        texts,
        (
            "12".into(),
            "abc".into(),
            "héllo".into(),
            "1.5".into(),
            1,
            0
        )
    );
    let dates: (String, String, String, String, i64, f64) = c
        .query_first(
            "SELECT CAST('2024-01-31 10:11:12' AS DATE), CAST('2024-01-31' AS DATETIME), \
             CAST('2024-01-31 10:11:12.345' AS DATETIME(3)), CAST('2024-01-31 10:11:12' AS TIME), \
             CAST(2.5 AS DECIMAL), CAST('1.23456' AS DECIMAL(6,2))",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        dates,
        (
            "2024-01-31".into(),
            "2024-01-31 00:00:00".into(),
            "2024-01-31 10:11:12.345".into(),
            "10:11:12".into(),
            3,
            1.23
        )
    );
    let stmt = c
        .prep("SELECT CAST(? AS SIGNED), CAST(? AS CHAR(2))")
        .await
        .unwrap();
    let prepared: (i64, String) = c.exec_first(&stmt, ("42.9", "xyz")).await.unwrap().unwrap();
    assert_eq!(prepared, (42, "xy".into()));
    c.query_drop("CREATE TABLE di_cast (s TEXT)").await.unwrap();
    c.query_drop("INSERT INTO di_cast VALUES ('10'), ('9'), ('100')")
        .await
        .unwrap();
    let sorted: Vec<String> = c
        .query("SELECT s FROM di_cast ORDER BY CAST(s AS UNSIGNED)")
        .await
        .unwrap();
    assert_eq!(sorted, ["9", "10", "100"], "numeric order, not text order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xor_temporal_literals_and_collate() {
    let mut c = conn().await;
    type Xor = (i64, i64, i64, Option<i64>, i64, i64);
    let xor: Xor = c
        .query_first("SELECT 1 XOR 1, 1 XOR 0, 0 XOR 0, 1 XOR NULL, 'abc' XOR 1, '2x' XOR 0")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(xor, (0, 1, 0, None, 1, 1));
    let bits: (i64, i64, i64) = c
        .query_first("SELECT 5 ^ 3, 6 ^ 6, 12 ^ 10 ^ 6")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(bits, (6, 0, 0));
    c.query_drop("CREATE TABLE di_lit (d DATE, c VARCHAR(10))")
        .await
        .unwrap();
    c.query_drop(
        "INSERT INTO di_lit VALUES (DATE '2024-01-31', 'b'), (DATE '2024-02-01', 'A'), \
         ('2024-02-02', 'a')",
    )
    .await
    .unwrap();
    let after: Vec<String> = c
        .query(
            "SELECT c FROM di_lit WHERE d > DATE '2024-01-31' AND d <= DATE '2024-02-01' \
             AND TIMESTAMP '2024-02-01 10:00:00' > d",
        )
        .await
        .unwrap();
    assert_eq!(after, ["A"]);
    let bin: Vec<String> = c
        .query("SELECT c FROM di_lit ORDER BY c COLLATE utf8mb4_bin")
        .await
        .unwrap();
    assert_eq!(bin, ["A", "a", "b"]);
    let ci: i64 = c
        .query_first("SELECT COUNT(*) FROM di_lit WHERE c = 'a' COLLATE utf8mb4_general_ci")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ci, 2, "a case-insensitive collation folds case");
    let (n, _) = code(
        c.query_drop("SELECT c COLLATE no_such_collation FROM di_lit")
            .await,
    );
    assert_eq!(n, 1273);
    c.query_drop("DROP TABLE di_lit").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spellings_sqlparser_lacks_reach_the_engine() {
    let mut c = conn().await;
    let row: (String, String, i64, i64, i64) = c
        .query_first(
            "SELECT '2024-01-01 10:00:00' + INTERVAL '1:30' HOUR_MINUTE, \
             DATE_SUB('2024-03-01', INTERVAL '1-1' YEAR_MONTH), 7 MOD 3, \
             CAST('-2' AS SIGNED INT), CONVERT('5', UNSIGNED INT)",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        ("2024-01-01 11:30:00".into(), "2023-02-01".into(), 1, -2, 5)
    );
    let cut: String = c
        .query_first("SELECT CAST('abc' AS CHAR(2) CHARACTER SET utf8mb4)")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(cut, "ab");
    let stmt = c
        .prep("SELECT ? MOD ?, DATE_ADD('2024-01-01', INTERVAL ? DAY_HOUR)")
        .await
        .unwrap();
    let prepared: (i64, String) = c.exec_first(&stmt, (10, 4, "1 2")).await.unwrap().unwrap();
    assert_eq!(prepared, (2, "2024-01-02 02:00:00".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trim_and_substring_in_their_from_forms() {
    let mut c = conn().await;
    let row: (String, String, String, String, String) = c
        .query_first(
            "SELECT TRIM(LEADING 'xy' FROM 'xyxyAxy'), TRIM(TRAILING 'xy' FROM 'xyAxyxy'), \
             TRIM(BOTH 'x' FROM 'xxAxx'), TRIM('ab' FROM 'abbaab'), TRIM('  a  ')",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row,
        (
            "Axy".into(),
            "xyA".into(),
            "A".into(),
            "ba".into(),
            "a".into()
        )
    );
    let sub: (String, String) = c
        .query_first("SELECT SUBSTRING('Quadratically' FROM 5 FOR 6), SUBSTRING('Sakila' FROM -4)")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        sub,
        ("ratica".into(), "kila".into()),
        "SUBSTRING's FROM form"
    );
    let null: Option<String> = c
        .query_first("SELECT TRIM(LEADING NULL FROM 'a')")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(null, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introducers_null_safe_equality_and_charsets() {
    let mut c = conn().await;
    let strings: (String, String, String) = c
        .query_first("SELECT _utf8mb4'abc', N'déjà', _binary'x' COLLATE binary")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(strings, ("abc".into(), "déjà".into(), "x".into()));
    let eq: (i64, i64, i64, i64) = c
        .query_first("SELECT 1 <=> 1, 1 <=> NULL, NULL <=> NULL, 'a' <=> 'b'")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(eq, (1, 0, 1, 0));
    let cs: (String, String, String) = c
        .query_first("SELECT CHARSET('a'), COLLATION(_utf8mb4'a'), CHARSET(1)")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        cs,
        ("utf8mb4".into(), "utf8mb4_bin".into(), "binary".into())
    );
}
