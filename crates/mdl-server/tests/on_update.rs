//! `DEFAULT CURRENT_TIMESTAMP[(fsp)]` and `ON UPDATE CURRENT_TIMESTAMP[(fsp)]` over the wire, as
//! MySQL 8.0 has them: the definitions Prisma and mysqldump write are taken; an auto-updated
//! column takes the statement's time when another column of the row changes (UPDATE, multi-table
//! UPDATE, the update of INSERT ... ON DUPLICATE KEY UPDATE; another auto-updated column too),
//! not for a row left as it was, not when the statement assigns it (even its own value); the affected rows stay MySQL's; every DDL
//! keeps the behaviour; SHOW CREATE TABLE, SHOW COLUMNS and `information_schema.COLUMNS` say
//! what MySQL says; MySQL's 1067 and 1294.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

const OLD: &str = "2000-01-01 00:00:00";

async fn run_all(c: &mut Conn, sql: &[&str]) {
    for q in sql {
        bounded(q, c.query_drop(*q)).await.expect(q);
    }
}

/// `(id, column)` of every row of `table`, by id.
async fn stamps(c: &mut Conn, table: &str, column: &str) -> Vec<(i64, Option<String>)> {
    let q = format!("SELECT id, CAST({column} AS CHAR) FROM {table} ORDER BY id");
    bounded(&q, c.query(&q)).await.expect("select")
}

/// Whether `v` is a time of this statement's era (the test's run), not [`OLD`].
fn fresh_stamp(v: &Option<String>) -> bool {
    v.as_deref().is_some_and(|v| v > "2020-01-01" && v != OLD)
}

async fn row_count(c: &mut Conn) -> i64 {
    c.query_first("SELECT ROW_COUNT()").await.unwrap().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn current_timestamp_defaults_with_a_precision_are_taken() {
    let mut c = conn().await;
    run_all(
        &mut c,
        &[
            "DROP TABLE IF EXISTS od_1, od_2",
            "CREATE TABLE od_1 (id INT PRIMARY KEY, e DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3), \
             f DATETIME DEFAULT NOW(), g DATETIME(2) DEFAULT LOCALTIMESTAMP(2), \
             h DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3))",
            "CREATE TABLE od_2 (id INT PRIMARY KEY, \
             t TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6))",
            "INSERT INTO od_1 (id) VALUES (1)",
        ],
    )
    .await;
    let row: (String, String, String, String) = c
        .query_first(
            "SELECT CAST(e AS CHAR), CAST(f AS CHAR), CAST(g AS CHAR), CAST(h AS CHAR) FROM od_1",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (row.0.len(), row.1.len(), row.2.len(), row.3.len()),
        (23, 19, 22, 23),
        "{row:?}"
    );
    let (_, create): (String, String) = c
        .query_first("SHOW CREATE TABLE od_1")
        .await
        .unwrap()
        .unwrap();
    assert!(
        create.contains("`e` datetime(3) DEFAULT CURRENT_TIMESTAMP(3),")
            && create.contains("`f` datetime DEFAULT CURRENT_TIMESTAMP,")
            && create.contains("`g` datetime(2) DEFAULT CURRENT_TIMESTAMP(2),")
            && create.contains("`h` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),"),
        "{create}"
    );
    run_all(&mut c, &["DROP TABLE od_1, od_2"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_that_changes_a_row_sets_its_auto_updated_column() {
    let mut c = conn().await;
    run_all(
        &mut c,
        &[
            "DROP TABLE IF EXISTS ou_1",
            "CREATE TABLE ou_1 (id INT PRIMARY KEY, v INT, \
             n2 DATETIME DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, \
             n3 DATETIME(3) DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP(3))",
        ],
    )
    .await;
    let reset = format!("UPDATE ou_1 SET n2 = '{OLD}', n3 = '{OLD}'");
    run_all(
        &mut c,
        &[
            "INSERT INTO ou_1 (id, v) VALUES (1, 1), (2, 2), (3, 3)",
            &reset,
        ],
    )
    .await;
    // Rows 2 and 3 change, row 1 keeps its values (and its stamps); 2 rows affected.
    run_all(&mut c, &["UPDATE ou_1 SET v = IF(id = 1, v, v + 10)"]).await;
    assert_eq!(row_count(&mut c).await, 2);
    let n2 = stamps(&mut c, "ou_1", "n2").await;
    let n3 = stamps(&mut c, "ou_1", "n3").await;
    assert_eq!(n2[0].1.as_deref(), Some(OLD));
    assert!(fresh_stamp(&n2[1].1) && fresh_stamp(&n2[2].1), "{n2:?}");
    assert!(fresh_stamp(&n3[1].1), "{n3:?}");
    assert_eq!(n3[1].1.as_ref().map(String::len), Some(23), "{n3:?}");

    // A column the statement assigns is not auto-updated, even given its own value.
    run_all(
        &mut c,
        &[&reset, "UPDATE ou_1 SET v = v + 1, n2 = n2 WHERE id = 1"],
    )
    .await;
    assert_eq!(row_count(&mut c).await, 1);
    assert_eq!(
        stamps(&mut c, "ou_1", "n2").await[0].1.as_deref(),
        Some(OLD)
    );
    assert!(fresh_stamp(&stamps(&mut c, "ou_1", "n3").await[0].1));
    run_all(
        &mut c,
        &[
            &reset,
            "UPDATE ou_1 SET v = 50, n3 = '2011-11-11 11:11:11' WHERE id = 2",
        ],
    )
    .await;
    let row = (
        stamps(&mut c, "ou_1", "n2").await,
        stamps(&mut c, "ou_1", "n3").await,
    );
    assert!(fresh_stamp(&row.0[1].1), "{row:?}");
    assert!(row.1[1]
        .1
        .as_deref()
        .is_some_and(|v| v.starts_with("2011-11-11 11:11:11")));

    // An UPDATE that assigns one auto-updated column only changes the row: the other follows;
    // one that assigns it its own value changes nothing.
    run_all(
        &mut c,
        &[
            &reset,
            "UPDATE ou_1 SET n3 = '2012-12-12 12:12:12' WHERE id = 3",
        ],
    )
    .await;
    let row = (
        stamps(&mut c, "ou_1", "n2").await,
        stamps(&mut c, "ou_1", "n3").await,
    );
    assert!(fresh_stamp(&row.0[2].1), "{row:?}");
    assert!(row.1[2]
        .1
        .as_deref()
        .is_some_and(|v| v.starts_with("2012-12-12 12:12:12")));
    assert_eq!(row.0[1].1.as_deref(), Some(OLD), "{row:?}");
    run_all(&mut c, &[&reset, "UPDATE ou_1 SET n3 = n3 WHERE id = 3"]).await;
    assert_eq!(row_count(&mut c).await, 0);
    assert_eq!(
        stamps(&mut c, "ou_1", "n2").await[2].1.as_deref(),
        Some(OLD)
    );

    // A multi-table UPDATE, and the update of an upsert.
    run_all(
        &mut c,
        &[
            &reset,
            "DROP TABLE IF EXISTS ou_2",
            "CREATE TABLE ou_2 (id INT PRIMARY KEY, w INT)",
            "INSERT INTO ou_2 VALUES (1, 70)",
            "UPDATE ou_1 JOIN ou_2 ON ou_1.id = ou_2.id SET ou_1.v = ou_2.w",
        ],
    )
    .await;
    let n2 = stamps(&mut c, "ou_1", "n2").await;
    assert!(
        fresh_stamp(&n2[0].1) && n2[1].1.as_deref() == Some(OLD),
        "{n2:?}"
    );
    run_all(
        &mut c,
        &[
            &reset,
            "INSERT INTO ou_1 (id, v) VALUES (2, 50) ON DUPLICATE KEY UPDATE v = VALUES(v)",
        ],
    )
    .await;
    assert_eq!(row_count(&mut c).await, 0, "a row left as it was");
    assert_eq!(
        stamps(&mut c, "ou_1", "n2").await[1].1.as_deref(),
        Some(OLD)
    );
    run_all(
        &mut c,
        &["INSERT INTO ou_1 (id, v) VALUES (2, 51) ON DUPLICATE KEY UPDATE v = VALUES(v)"],
    )
    .await;
    assert_eq!(row_count(&mut c).await, 2, "a row updated");
    assert!(fresh_stamp(&stamps(&mut c, "ou_1", "n2").await[1].1));
    run_all(&mut c, &["DROP TABLE ou_1, ou_2"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_ddl_keeps_the_auto_update() {
    let mut c = conn().await;
    run_all(
        &mut c,
        &[
            "DROP TABLE IF EXISTS ok_1, ok_2, ok_3, ok_4",
            "CREATE TABLE ok_1 (id INT PRIMARY KEY, v INT, \
             ts DATETIME DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP)",
            "INSERT INTO ok_1 (id, v) VALUES (1, 1), (2, 2)",
        ],
    )
    .await;
    let reset = |t: &str| format!("UPDATE {t} SET ts = '{OLD}'");
    // Each step: a DDL, then an update of row 1 by a column the DDL left.
    let steps: [(&str, &str, &str); 8] = [
        ("ALTER TABLE ok_1 ADD COLUMN z INT", "ok_1", "z = 5"),
        ("ALTER TABLE ok_1 DROP COLUMN v", "ok_1", "z = 6"),
        ("ALTER TABLE ok_1 RENAME COLUMN z TO y", "ok_1", "y = 7"),
        ("ALTER TABLE ok_1 MODIFY y BIGINT", "ok_1", "y = 8"),
        ("ALTER TABLE ok_1 CHANGE y x INT", "ok_1", "x = 9"),
        (
            "ALTER TABLE ok_1 ALTER COLUMN ts SET DEFAULT '2001-01-01 00:00:00'",
            "ok_1",
            "x = 10",
        ),
        ("RENAME TABLE ok_1 TO ok_2", "ok_2", "x = 11"),
        ("ALTER TABLE ok_2 RENAME TO ok_3", "ok_3", "x = 12"),
    ];
    for (ddl, table, set) in steps {
        run_all(
            &mut c,
            &[
                ddl,
                &reset(table),
                &format!("UPDATE {table} SET {set} WHERE id = 1"),
            ],
        )
        .await;
        let ts = stamps(&mut c, table, "ts").await;
        assert!(
            fresh_stamp(&ts[0].1) && ts[1].1.as_deref() == Some(OLD),
            "{ddl}: {ts:?}"
        );
    }
    let (_, create): (String, String) = c
        .query_first("SHOW CREATE TABLE ok_3")
        .await
        .unwrap()
        .unwrap();
    assert!(
        create.contains("`ts` datetime DEFAULT '2001-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP,"),
        "{create}"
    );
    // CREATE TABLE ... LIKE, TRUNCATE, a column added with one, and one's column dropped.
    run_all(
        &mut c,
        &[
            "CREATE TABLE ok_4 LIKE ok_3",
            "INSERT INTO ok_4 SELECT * FROM ok_3",
            "TRUNCATE ok_3",
            &reset("ok_4"),
            "UPDATE ok_4 SET x = 13 WHERE id = 1",
            "ALTER TABLE ok_4 ADD COLUMN w DATETIME(2) NOT NULL DEFAULT CURRENT_TIMESTAMP(2) \
             ON UPDATE CURRENT_TIMESTAMP(2)",
        ],
    )
    .await;
    let ts = stamps(&mut c, "ok_4", "ts").await;
    assert!(
        fresh_stamp(&ts[0].1) && ts[1].1.as_deref() == Some(OLD),
        "{ts:?}"
    );
    let w = stamps(&mut c, "ok_4", "w").await;
    assert!(
        w.iter()
            .all(|(_, w)| fresh_stamp(w) && w.as_ref().map(String::len) == Some(22)),
        "{w:?}"
    );
    run_all(
        &mut c,
        &["ALTER TABLE ok_4 DROP COLUMN ts", "UPDATE ok_4 SET x = 14"],
    )
    .await;
    let (_, create): (String, String) = c
        .query_first("SHOW CREATE TABLE ok_4")
        .await
        .unwrap()
        .unwrap();
    assert!(
        !create.contains("`ts`") && create.contains("ON UPDATE CURRENT_TIMESTAMP(2)"),
        "{create}"
    );
    run_all(&mut c, &["DROP TABLE ok_3, ok_4"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_columns_and_information_schema_say_what_mysql_says() {
    let mut c = conn().await;
    run_all(
        &mut c,
        &[
            "DROP TABLE IF EXISTS oi_1",
            "CREATE TABLE oi_1 (id INT PRIMARY KEY, \
             a DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3), \
             b TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, \
             d DATETIME(3) NULL ON UPDATE CURRENT_TIMESTAMP(3))",
        ],
    )
    .await;
    let i_s: Vec<(String, Option<String>, String)> = c
        .query(
            "SELECT COLUMN_NAME, COLUMN_DEFAULT, EXTRA FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'oi_1' ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    let want = [
        ("id", None, ""),
        ("a", Some("CURRENT_TIMESTAMP(3)"), "DEFAULT_GENERATED"),
        (
            "b",
            Some("CURRENT_TIMESTAMP"),
            "DEFAULT_GENERATED on update CURRENT_TIMESTAMP",
        ),
        ("d", None, "on update CURRENT_TIMESTAMP(3)"),
    ];
    let got: Vec<(&str, Option<&str>, &str)> = (i_s.iter())
        .map(|(n, d, e)| (n.as_str(), d.as_deref(), e.as_str()))
        .collect();
    assert_eq!(got, want);
    let show: Vec<mysql_async::Row> = c.query("SHOW COLUMNS FROM oi_1").await.unwrap();
    let extra: Vec<String> = show.iter().map(|r| r.get("Extra").unwrap()).collect();
    assert_eq!(extra, want.map(|w| w.2.to_string()));
    let (_, create): (String, String) = c
        .query_first("SHOW CREATE TABLE oi_1")
        .await
        .unwrap()
        .unwrap();
    assert!(
        create.contains(
            "`b` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,"
        ) && create.contains("`d` datetime(3) DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP(3),"),
        "{create}"
    );
    run_all(&mut c, &["DROP TABLE oi_1"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysqls_checks_of_defaults_and_on_update() {
    let mut c = conn().await;
    let refused = [
        (
            "CREATE TABLE oe_1 (c INT ON UPDATE CURRENT_TIMESTAMP)",
            1294,
            "HY000",
        ),
        (
            "CREATE TABLE oe_1 (c DATETIME(3) ON UPDATE NOW())",
            1294,
            "HY000",
        ),
        (
            "CREATE TABLE oe_1 (c DATETIME(3) DEFAULT CURRENT_TIMESTAMP)",
            1067,
            "42000",
        ),
        (
            "CREATE TABLE oe_1 (c INT DEFAULT CURRENT_TIMESTAMP)",
            1067,
            "42000",
        ),
    ];
    for (q, n, state) in refused {
        let e = c.query_drop(q).await;
        assert_eq!(code(e), (n, state.to_string()), "{q}");
    }
    run_all(
        &mut c,
        &["DROP TABLE IF EXISTS oe_2", "CREATE TABLE oe_2 (id INT)"],
    )
    .await;
    let e = c
        .query_drop("ALTER TABLE oe_2 ADD COLUMN c VARCHAR(10) ON UPDATE CURRENT_TIMESTAMP")
        .await;
    assert_eq!(code(e).0, 1294);
    let e = c
        .query_drop("ALTER TABLE oe_2 ADD COLUMN c DATETIME DEFAULT CURRENT_TIMESTAMP(2)")
        .await;
    assert_eq!(code(e).0, 1067);
    run_all(&mut c, &["DROP TABLE oe_2"]).await;
}
