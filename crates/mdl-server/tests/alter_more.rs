//! ALTER TABLE ... RENAME INDEX, ALTER TABLE with table options only, and SHOW INDEX / COLUMNS
//! / TABLES with `FULL`, `LIKE` or `WHERE` over the wire: what they answer, MySQL's error
//! codes, and the metadata lock RENAME INDEX waits for (SU, then X: a transaction that read
//! the table holds it up). Every wait is bounded, so a test fails rather than hangs.

mod common;

use std::future::Future;
use std::time::Duration;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// `fut`, or a failure after 30 s.
async fn bounded<T>(fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), fut)
        .await
        .expect("finished in time")
}

async fn run_all(c: &mut Conn, sql: &[&str]) {
    for q in sql {
        bounded(c.query_drop(*q)).await.expect(q);
    }
}

/// `SHOW INDEX FROM t`'s `(Key_name, Seq_in_index, Column_name, Non_unique)`.
async fn keys(c: &mut Conn, sql: &str) -> Vec<(String, u64, String, i64)> {
    let rows: Vec<mysql_async::Row> = bounded(c.query(sql)).await.expect(sql);
    rows.into_iter()
        .map(|r| {
            (
                r.get::<String, _>("Key_name").expect("Key_name"),
                r.get::<u64, _>("Seq_in_index").expect("Seq_in_index"),
                r.get::<String, _>("Column_name").expect("Column_name"),
                r.get::<i64, _>("Non_unique").expect("Non_unique"),
            )
        })
        .collect()
}

fn key(name: &str, seq: u64, col: &str, non_unique: i64) -> (String, u64, String, i64) {
    (name.into(), seq, col.into(), non_unique)
}

async fn create_text(c: &mut Conn, table: &str) -> String {
    let sql = format!("SHOW CREATE TABLE {table}");
    let row: (String, String) = bounded(c.query_first(sql)).await.unwrap().unwrap();
    row.1
}

async fn error(c: &mut Conn, sql: &str) -> (u16, String) {
    match bounded(c.query_drop(sql)).await {
        Err(mysql_async::Error::Server(e)) => (e.code, e.message),
        other => panic!("{sql}: expected a server error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_index_renames_and_keeps_the_definition() {
    let mut c = conn().await;
    run_all(
        &mut c,
        &[
            "CREATE TABLE am_ren (id INT PRIMARY KEY, a INT, b VARCHAR(10), \
             UNIQUE KEY uk (b), KEY k_ab (a, b))",
            "INSERT INTO am_ren VALUES (1, 10, 'x'), (2, 20, 'y')",
            "ALTER TABLE am_ren RENAME INDEX k_ab TO k_new",
            "ALTER TABLE test.am_ren RENAME KEY uk TO uk2, ALGORITHM=INPLACE, LOCK=NONE",
        ],
    )
    .await;
    assert_eq!(
        keys(&mut c, "SHOW INDEX FROM am_ren").await,
        [
            key("PRIMARY", 1, "id", 0),
            key("uk2", 1, "b", 0),
            key("k_new", 1, "a", 1),
            key("k_new", 2, "b", 1),
        ]
    );
    let text = create_text(&mut c, "am_ren").await;
    assert!(text.contains("UNIQUE KEY `uk2` (`b`)"), "{text}");
    assert!(text.contains("KEY `k_new` (`a`,`b`)"), "{text}");
    assert!(!text.contains("k_ab"), "{text}");
    // Still unique: the index was made again as it was.
    let (dup, _) = code(c.query_drop("INSERT INTO am_ren VALUES (3, 30, 'x')").await);
    assert_eq!(dup, 1062);
    // A case-only rename, and a rename to itself.
    run_all(
        &mut c,
        &[
            "ALTER TABLE am_ren RENAME INDEX k_new TO K_New",
            "ALTER TABLE am_ren RENAME INDEX K_New TO K_New",
        ],
    )
    .await;
    let names: Vec<String> = keys(&mut c, "SHOW INDEX FROM am_ren")
        .await
        .into_iter()
        .map(|k| k.0)
        .collect();
    assert!(names.contains(&"K_New".to_string()), "{names:?}");
    let n: i64 = c
        .query_first("SELECT COUNT(*) FROM am_ren WHERE a = 20")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_index_errors_are_mysqls() {
    let mut c = conn().await;
    run_all(
        &mut c,
        &["CREATE TABLE am_err (id INT PRIMARY KEY, a INT, b INT, KEY ka (a), KEY kb (b))"],
    )
    .await;
    for (sql, want) in [
        (
            "ALTER TABLE am_err RENAME INDEX nope TO x",
            (1176, "Key 'nope' doesn't exist in table 'am_err'"),
        ),
        (
            "ALTER TABLE am_err RENAME INDEX ka TO KB",
            (1061, "Duplicate key name 'KB'"),
        ),
        (
            "ALTER TABLE am_err RENAME INDEX PRIMARY TO x",
            (1280, "Incorrect index name 'PRIMARY'"),
        ),
        (
            "ALTER TABLE am_err RENAME INDEX ka TO primary",
            (1280, "Incorrect index name 'primary'"),
        ),
        (
            "ALTER TABLE am_nosuch RENAME INDEX ka TO kc",
            (1146, "Table 'test.am_nosuch' doesn't exist"),
        ),
    ] {
        let (code, message) = error(&mut c, sql).await;
        assert_eq!((code, message.as_str()), want, "{sql}");
    }
    for sql in [
        "ALTER TABLE am_err RENAME INDEX ka TO kc, ADD COLUMN c INT",
        "ALTER TABLE am_err RENAME INDEX ka TO kc, RENAME INDEX kb TO kd",
    ] {
        assert_eq!(error(&mut c, sql).await.0, 1235, "{sql}");
    }
    // Nothing changed.
    let names: Vec<String> = keys(&mut c, "SHOW INDEX FROM am_err")
        .await
        .into_iter()
        .map(|k| k.0)
        .collect();
    assert_eq!(names, ["PRIMARY", "ka", "kb"]);
}

/// RENAME INDEX takes SU, then X to commit (`mysql_inplace_alter_table`): it waits for a
/// transaction that read the table, shown as MySQL shows it, and goes on after COMMIT.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_index_waits_for_a_transaction_that_read_the_table() {
    let mut setup = conn().await;
    run_all(
        &mut setup,
        &[
            "CREATE TABLE am_wait (id INT PRIMARY KEY, a INT, KEY ka (a))",
            "INSERT INTO am_wait VALUES (1, 1)",
        ],
    )
    .await;
    let mut trx = conn().await;
    trx.query_drop("BEGIN").await.unwrap();
    let n: i64 = bounded(trx.query_first("SELECT COUNT(*) FROM am_wait"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 1);
    let mut alter = conn().await;
    let aid = id(&mut alter).await;
    let task = tokio::spawn(async move {
        let r = bounded(alter.query_drop("ALTER TABLE am_wait RENAME INDEX ka TO kb")).await;
        (alter, r)
    });
    let mut obs = conn().await;
    wait_state(&mut obs, aid, "Waiting for table metadata lock").await;
    let info: Vec<_> = processlist(&mut obs)
        .await
        .into_iter()
        .filter(|r| r.0 == aid)
        .collect();
    assert_eq!(
        info[0].3.as_deref(),
        Some("ALTER TABLE am_wait RENAME INDEX ka TO kb")
    );
    // Not renamed yet.
    let names: Vec<String> = keys(&mut obs, "SHOW INDEX FROM am_wait")
        .await
        .into_iter()
        .map(|k| k.0)
        .collect();
    assert_eq!(names, ["PRIMARY", "ka"]);
    assert!(!task.is_finished());
    trx.query_drop("COMMIT").await.unwrap();
    let (_alter, r) = bounded(task).await.unwrap();
    r.expect("renamed after COMMIT");
    let names: Vec<String> = keys(&mut obs, "SHOW INDEX FROM am_wait")
        .await
        .into_iter()
        .map(|k| k.0)
        .collect();
    assert_eq!(names, ["PRIMARY", "kb"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_options_succeed_and_change_nothing() {
    let mut c = conn().await;
    run_all(
        &mut c,
        &["CREATE TABLE am_opt (id INT PRIMARY KEY, s VARCHAR(10), KEY ks (s))"],
    )
    .await;
    let before = create_text(&mut c, "am_opt").await;
    for sql in [
        "ALTER TABLE am_opt COMMENT 'orders'",
        "ALTER TABLE am_opt COMMENT = 'x' ROW_FORMAT=DYNAMIC",
        "ALTER TABLE am_opt DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci",
        "ALTER TABLE am_opt CHARACTER SET latin1, COLLATE latin1_swedish_ci",
        "ALTER TABLE am_opt KEY_BLOCK_SIZE=8, STATS_PERSISTENT=0 STATS_AUTO_RECALC=DEFAULT",
        "ALTER TABLE am_opt STATS_SAMPLE_PAGES=20 PACK_KEYS=1 CHECKSUM=1 DELAY_KEY_WRITE=0",
        "ALTER TABLE am_opt MAX_ROWS=100 MIN_ROWS=1 AVG_ROW_LENGTH=64, ALGORITHM=INPLACE, LOCK=NONE",
        "ALTER TABLE am_opt CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci",
        "ALTER TABLE test.am_opt CONVERT TO CHARSET utf8",
    ] {
        bounded(c.query_drop(sql)).await.expect(sql);
    }
    assert_eq!(create_text(&mut c, "am_opt").await, before);
    for (sql, want) in [
        (
            "ALTER TABLE am_opt CONVERT TO CHARACTER SET klingon",
            (1115, "Unknown character set: 'klingon'"),
        ),
        (
            "ALTER TABLE am_opt DEFAULT CHARSET = nope",
            (1115, "Unknown character set: 'nope'"),
        ),
        (
            "ALTER TABLE am_nosuch_opt COMMENT 'x'",
            (1146, "Table 'test.am_nosuch_opt' doesn't exist"),
        ),
        (
            "ALTER TABLE am_nosuch_opt FORCE",
            (1146, "Table 'test.am_nosuch_opt' doesn't exist"),
        ),
        (
            "ALTER TABLE am_nosuch_opt ENGINE = InnoDB",
            (1146, "Table 'test.am_nosuch_opt' doesn't exist"),
        ),
        (
            "ALTER TABLE am_nosuch_opt DISABLE KEYS",
            (1146, "Table 'test.am_nosuch_opt' doesn't exist"),
        ),
    ] {
        let (code, message) = error(&mut c, sql).await;
        assert_eq!((code, message.as_str()), want, "{sql}");
    }
    assert_eq!(
        error(&mut c, "ALTER TABLE am_opt CONVERT TO CHARACTER SET latin1")
            .await
            .0,
        1235
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_index_columns_and_tables_filter_as_mysql() {
    let mut c = conn().await;
    run_all(
        &mut c,
        &[
            "CREATE TABLE am_show (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(5), \
             UNIQUE KEY ub (b), KEY kab (a, b))",
            "CREATE TABLE am_show2 (x INT)",
        ],
    )
    .await;
    assert_eq!(
        keys(&mut c, "SHOW INDEX FROM am_show WHERE Key_name = 'kab'").await,
        [key("kab", 1, "a", 1), key("kab", 2, "b", 1)]
    );
    assert_eq!(
        keys(&mut c, "SHOW KEYS FROM test.am_show WHERE Non_unique = 0").await,
        [key("PRIMARY", 1, "id", 0), key("ub", 1, "b", 0)]
    );
    assert_eq!(
        keys(
            &mut c,
            "SHOW INDEXES IN am_show FROM test WHERE Column_name = 'b' AND Seq_in_index = 2"
        )
        .await,
        [key("kab", 2, "b", 1)]
    );
    assert_eq!(
        code(c.query_drop("SHOW INDEX FROM am_none WHERE 1").await).0,
        1146
    );
    assert_eq!(
        code(c.query_drop("SHOW INDEX FROM am_show LIKE 'k%'").await).0,
        1064
    );

    let fields: Vec<(String, String)> = c
        .query_map(
            "SHOW COLUMNS FROM am_show WHERE `Null` = 'NO'",
            |r: mysql_async::Row| {
                let field = r.get::<String, _>("Field").unwrap();
                (field, r.get::<String, _>("Type").unwrap())
            },
        )
        .await
        .unwrap();
    assert_eq!(
        fields,
        [("id".into(), "int".into()), ("a".into(), "int".into())]
    );
    let like: Vec<String> = c
        .query_map(
            "SHOW FIELDS FROM am_show LIKE 'b%'",
            |r: mysql_async::Row| r.get::<String, _>("Field").unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(like, ["b"]);
    let full: Vec<mysql_async::Row> = c
        .query("SHOW FULL COLUMNS FROM am_show WHERE Field = 'b'")
        .await
        .unwrap();
    let names: Vec<String> = (full[0].columns_ref().iter())
        .map(|c| c.name_str().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "Field",
            "Type",
            "Collation",
            "Null",
            "Key",
            "Default",
            "Extra",
            "Privileges",
            "Comment"
        ]
    );
    assert_eq!(full.len(), 1);

    // The columns of performance_schema's tables are in information_schema.COLUMNS: LIKE
    // applies to them too.
    let pfs: Vec<mysql_async::Row> = c
        .query("SHOW COLUMNS FROM performance_schema.metadata_locks LIKE 'OBJECT%'")
        .await
        .unwrap();
    let pfs: Vec<String> = pfs.iter().map(|r| r.get("Field").unwrap()).collect();
    assert_eq!(
        pfs,
        [
            "OBJECT_TYPE",
            "OBJECT_SCHEMA",
            "OBJECT_NAME",
            "OBJECT_INSTANCE_BEGIN"
        ]
    );

    let tables: Vec<String> = c
        .query("SHOW TABLES WHERE Tables_in_test LIKE 'am\\_show%'")
        .await
        .unwrap();
    assert_eq!(tables, ["am_show", "am_show2"]);
    let tables: Vec<String> = c
        .query("SHOW TABLES WHERE Tables_in_test = 'am_show2'")
        .await
        .unwrap();
    assert_eq!(tables, ["am_show2"]);
    let full: Vec<(String, String)> = c
        .query(
            "SHOW FULL TABLES WHERE Table_type = 'BASE TABLE' AND Tables_in_test LIKE 'am_show%'",
        )
        .await
        .unwrap();
    assert_eq!(
        full,
        [
            ("am_show".into(), "BASE TABLE".into()),
            ("am_show2".into(), "BASE TABLE".into())
        ]
    );
    let liked: Vec<mysql_async::Row> = c.query("SHOW TABLES LIKE 'am_show_'").await.unwrap();
    assert_eq!(liked.len(), 1);
    assert_eq!(
        liked[0].columns_ref()[0].name_str(),
        "Tables_in_test (am_show_)"
    );
}
