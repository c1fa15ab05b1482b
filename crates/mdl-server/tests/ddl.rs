//! DDL statements SQLite spells differently: TRUNCATE, RENAME TABLE, a DROP TABLE of several
//! tables and ALTER TABLE of several operations run (rewritten for the engine, all or nothing)
//! and take MySQL's metadata locks.

mod common;

use common::*;
use mysql_async::prelude::*;

async fn count(c: &mut mysql_async::Conn, table: &str) -> i64 {
    c.query_first(format!("SELECT COUNT(*) FROM {table}"))
        .await
        .expect("count")
        .expect("a row")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncate_rename_and_a_drop_of_several_tables_run() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE ddl_a (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO ddl_a (v) VALUES (1), (2)")
        .await
        .unwrap();
    c.query_drop("TRUNCATE TABLE ddl_a").await.unwrap();
    assert_eq!(count(&mut c, "ddl_a").await, 0);
    c.query_drop("INSERT INTO ddl_a (v) VALUES (3)")
        .await
        .unwrap();
    c.query_drop("TRUNCATE ddl_a").await.unwrap();
    c.query_drop("INSERT INTO ddl_a (v) VALUES (4)")
        .await
        .unwrap();
    // The counter starts again, as MySQL's AUTO_INCREMENT does after TRUNCATE.
    let id: i64 = c
        .query_first("SELECT id FROM ddl_a")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(id, 1);

    c.query_drop("RENAME TABLE ddl_a TO ddl_b").await.unwrap();
    assert_eq!(code(c.query_drop("SELECT * FROM ddl_a").await).0, 1146);
    assert_eq!(count(&mut c, "test.ddl_b").await, 1);
    assert_eq!(
        code(c.query_drop("TRUNCATE TABLE ddl_nosuch").await).0,
        1146
    );

    c.query_drop("CREATE TABLE ddl_c (x INT)").await.unwrap();
    c.query_drop("DROP TABLE ddl_b, test.ddl_c").await.unwrap();
    assert_eq!(code(c.query_drop("SELECT * FROM ddl_b").await).0, 1146);
    assert_eq!(code(c.query_drop("SELECT * FROM ddl_c").await).0, 1146);
    c.query_drop("DROP TABLE IF EXISTS ddl_b, ddl_c")
        .await
        .unwrap();
    let (n, _) = code(c.query_drop("DROP TABLE ddl_nosuch").await);
    assert_eq!(n, 1051, "MySQL's ER_BAD_TABLE_ERROR");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncate_rename_and_rebuild_wait_for_a_transaction_on_the_table() {
    let mut setup = conn().await;
    setup
        .query_drop("CREATE TABLE ddl_d (x INT)")
        .await
        .unwrap();
    let mut trx = conn().await;
    trx.query_drop("BEGIN").await.unwrap();
    trx.query_drop("SELECT * FROM ddl_d").await.unwrap();
    let mut ddl = conn().await;
    ddl.query_drop("SET SESSION lock_wait_timeout = 1")
        .await
        .unwrap();
    for stmt in [
        "TRUNCATE TABLE ddl_d",
        "RENAME TABLE ddl_d TO ddl_e",
        "ALTER TABLE ddl_d ENGINE=InnoDB",
    ] {
        assert_eq!(code(ddl.query_drop(stmt).await).0, 1205, "{stmt}");
    }
    trx.query_drop("COMMIT").await.unwrap();
    // A rebuild (nothing for SQLite to do) once the transaction is gone.
    ddl.query_drop("ALTER TABLE ddl_d FORCE").await.unwrap();
    ddl.query_drop("RENAME TABLE ddl_d TO ddl_e").await.unwrap();
    ddl.query_drop("DROP TABLE ddl_e").await.unwrap();
}

/// SQLite compares names without case, so the locks do too (`lower_case_table_names` = 1): a
/// DDL on `CASET` waits for a transaction that read `caset`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ddl_waits_for_a_transaction_whatever_the_case_of_the_name() {
    let mut setup = conn().await;
    setup
        .query_drop("CREATE TABLE CaseT (a INT)")
        .await
        .unwrap();
    let lctn: i64 = setup
        .query_first("SELECT @@lower_case_table_names")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(lctn, 1);
    let mut trx = conn().await;
    trx.query_drop("BEGIN").await.unwrap();
    trx.query_drop("SELECT * FROM caset").await.unwrap();
    let mut ddl = conn().await;
    ddl.query_drop("SET SESSION lock_wait_timeout = 1")
        .await
        .unwrap();
    for stmt in [
        "ALTER TABLE CASET ADD COLUMN b INT",
        "ALTER TABLE TEST.caset ADD COLUMN b INT",
        "DROP TABLE CaseT",
    ] {
        assert_eq!(code(ddl.query_drop(stmt).await).0, 1205, "{stmt}");
    }
    trx.query_drop("SELECT * FROM caset").await.unwrap();
    trx.query_drop("COMMIT").await.unwrap();
    ddl.query_drop("USE TEST").await.unwrap();
    ddl.query_drop("DROP TABLE CASET").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn describe_and_show_columns_list_the_columns() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE ddl_cols (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, v INT DEFAULT 7)",
    )
    .await
    .unwrap();
    let expected = vec![
        (
            "id".to_string(),
            "int".to_string(),
            "NO".to_string(),
            "PRI".to_string(),
        ),
        ("name".into(), "varchar(20)".into(), "NO".into(), "".into()),
        ("v".into(), "int".into(), "YES".into(), "".into()),
    ];
    for stmt in [
        "DESCRIBE ddl_cols",
        "DESC test.ddl_cols",
        "SHOW COLUMNS FROM ddl_cols",
        "SHOW COLUMNS FROM ddl_cols FROM test",
    ] {
        let rows: Vec<(String, String, String, String, Option<String>, String)> = c
            .query(stmt)
            .await
            .unwrap_or_else(|e| panic!("{stmt}: {e}"));
        let got: Vec<_> = rows
            .iter()
            .map(|r| (r.0.clone(), r.1.clone(), r.2.clone(), r.3.clone()))
            .collect();
        assert_eq!(got, expected, "{stmt}");
        assert_eq!(rows[2].4.as_deref(), Some("7"), "{stmt}");
    }
    assert_eq!(code(c.query_drop("DESCRIBE ddl_nosuch").await).0, 1146);
    c.query_drop("DROP TABLE ddl_cols").await.unwrap();
}

/// `ALTER TABLE` with several operations: keys added and dropped as MySQL names them, columns
/// added, dropped and renamed; all or nothing when one fails; MySQL's errors for what is
/// missing, duplicated or beyond SQLite.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alter_table_of_several_operations_is_all_or_nothing() {
    let mut c = conn().await;
    let keys = |rows: Vec<mysql_async::Row>| -> Vec<(String, String)> {
        (rows.into_iter())
            .map(|r| (r.get("Key_name").unwrap(), r.get("Column_name").unwrap()))
            .collect()
    };
    let columns = |rows: Vec<mysql_async::Row>| -> Vec<String> {
        rows.into_iter().map(|r| r.get("Field").unwrap()).collect()
    };
    c.query_drop("CREATE TABLE alt (id INT PRIMARY KEY, v INT, w INT)")
        .await
        .unwrap();
    c.query_drop(
        "ALTER TABLE alt ADD INDEX kv (v), ADD UNIQUE KEY uw (w), ADD KEY (w, v), \
         ALGORITHM=INPLACE, LOCK=NONE",
    )
    .await
    .unwrap();
    let want: Vec<(String, String)> = [
        ("PRIMARY", "id"),
        ("uw", "w"),
        ("kv", "v"),
        ("w", "w"),
        ("w", "v"),
    ]
    .iter()
    .map(|(k, c)| (k.to_string(), c.to_string()))
    .collect();
    assert_eq!(keys(c.query("SHOW INDEX FROM alt").await.unwrap()), want);
    c.query_drop("ALTER TABLE alt DROP INDEX kv, ADD COLUMN x INT, RENAME COLUMN v TO v2")
        .await
        .unwrap();
    assert_eq!(
        columns(c.query("DESCRIBE alt").await.unwrap()),
        ["id", "v2", "w", "x"]
    );
    // The second operation fails: the first is undone.
    for (sql, want) in [
        (
            "ALTER TABLE alt ADD COLUMN y INT, DROP COLUMN nosuch",
            (1091, "42000"),
        ),
        (
            "ALTER TABLE alt ADD COLUMN y INT, ADD INDEX uw (x)",
            (1061, "42000"),
        ),
        (
            "ALTER TABLE alt ADD COLUMN y INT, DROP INDEX nosuch",
            (1091, "42000"),
        ),
        // Rebuilt (`MODIFY`, `AFTER`): the same all or nothing.
        (
            "ALTER TABLE alt ADD COLUMN y INT, MODIFY COLUMN nosuch BIGINT",
            (1054, "42S22"),
        ),
        (
            "ALTER TABLE alt ADD COLUMN y INT AFTER nosuch",
            (1054, "42S22"),
        ),
        (
            "ALTER TABLE alt ADD COLUMN y INT FIRST, DROP INDEX nosuch",
            (1091, "42000"),
        ),
    ] {
        let (code, state) = code(c.query_drop(sql).await);
        assert_eq!((code, state.as_str()), want, "{sql}");
    }
    assert_eq!(
        columns(c.query("DESCRIBE alt").await.unwrap()),
        ["id", "v2", "w", "x"]
    );
    c.query_drop("ALTER TABLE alt RENAME TO alt2")
        .await
        .unwrap();
    assert_eq!(count(&mut c, "alt2").await, 0);
    c.query_drop("DROP TABLE alt2").await.unwrap();
}

/// A DROP TABLE of an unqualified name drops the current schema's table, not a table of that
/// name in another schema (SQLite finds an unqualified name in the first attached database that
/// has it: the rewrite qualifies every name).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_table_drops_the_current_schemas_table_only() {
    let mut c = conn().await;
    for s in ["dd_a", "dd_b"] {
        c.query_drop(format!("CREATE DATABASE {s}")).await.unwrap();
        c.query_drop(format!("CREATE TABLE {s}.t (id INT)"))
            .await
            .unwrap();
    }
    c.query_drop("USE dd_b").await.unwrap();
    c.query_drop("DROP TABLE t").await.unwrap();
    c.query_drop("CREATE TABLE t (id INT)").await.unwrap();
    c.query_drop("DROP TABLE IF EXISTS t").await.unwrap();
    let a: Vec<String> = c.query("SHOW TABLES FROM dd_a").await.unwrap();
    let b: Vec<String> = c.query("SHOW TABLES FROM dd_b").await.unwrap();
    assert_eq!((a, b), (vec!["t".to_string()], vec![]));
    c.query_drop("USE test").await.unwrap();
    for s in ["dd_a", "dd_b"] {
        c.query_drop(format!("DROP DATABASE {s}")).await.unwrap();
    }
}

/// A key on a column prefix (MySQL's way to index a TEXT column) indexes the whole column; a
/// unique one, which would compare whole values where MySQL compares prefixes, is 1235.
/// Unnamed keys are named after their first column, as MySQL names them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_on_column_prefixes() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE pfx (id INT PRIMARY KEY, note TEXT, body TEXT, KEY (note(20)), \
         KEY (note(4), body(4)))",
    )
    .await
    .unwrap();
    c.query_drop("ALTER TABLE pfx ADD INDEX body_k (body(5), note(3))")
        .await
        .unwrap();
    c.query_drop("CREATE INDEX n2 ON pfx (note(8))")
        .await
        .unwrap();
    let keys: Vec<mysql_async::Row> = c.query("SHOW INDEX FROM pfx").await.unwrap();
    let keys: Vec<(String, String)> = (keys.into_iter())
        .map(|r| (r.get("Key_name").unwrap(), r.get("Column_name").unwrap()))
        .collect();
    let want: Vec<(String, String)> = [
        ("PRIMARY", "id"),
        ("note", "note"),
        ("note_2", "note"),
        ("note_2", "body"),
        ("body_k", "body"),
        ("body_k", "note"),
        ("n2", "note"),
    ]
    .iter()
    .map(|(k, c)| (k.to_string(), c.to_string()))
    .collect();
    assert_eq!(keys, want);
    for sql in [
        "CREATE TABLE pfx2 (note TEXT, UNIQUE KEY (note(10)))",
        "ALTER TABLE pfx ADD UNIQUE KEY u (note(4))",
        "CREATE UNIQUE INDEX u ON pfx (note(4))",
    ] {
        let (code, _) = code(c.query_drop(sql).await);
        assert_eq!(code, 1235, "{sql}");
    }
    c.query_drop("DROP TABLE pfx").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_table_like_copies_the_definition_and_waits_for_writers_of_the_source() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE ddl_src (id INT PRIMARY KEY AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, \
         c VARCHAR(20), UNIQUE KEY uk (c), KEY k_1 (k))",
    )
    .await
    .unwrap();
    c.query_drop("INSERT INTO ddl_src (k, c) VALUES (5, 'x')")
        .await
        .unwrap();
    c.query_drop("CREATE TABLE ddl_copy LIKE ddl_src")
        .await
        .unwrap();
    // The same definition under the new name, and none of the rows (nor the counter).
    let show = |t: &'static str| format!("SHOW CREATE TABLE {t}");
    let src: (String, String) = c.query_first(show("ddl_src")).await.unwrap().unwrap();
    let copy: (String, String) = c.query_first(show("ddl_copy")).await.unwrap().unwrap();
    let expected = (src.1.replace("`ddl_src`", "`ddl_copy`")).replace(" AUTO_INCREMENT=2", "");
    assert_eq!(copy.1, expected);
    assert_eq!(count(&mut c, "ddl_copy").await, 0);
    c.query_drop("INSERT INTO ddl_copy (k, c) VALUES (1, 'y')")
        .await
        .unwrap();
    let dup = c
        .query_drop("INSERT INTO ddl_copy (k, c) VALUES (2, 'y')")
        .await
        .unwrap_err();
    assert!(
        dup.to_string().contains("1062"),
        "the unique key came too: {dup}"
    );
    // MySQL's answers for a name taken or a source missing.
    let e = c
        .query_drop("CREATE TABLE ddl_copy LIKE ddl_src")
        .await
        .unwrap_err();
    assert!(e.to_string().contains("1050"), "{e}");
    c.query_drop("CREATE TABLE IF NOT EXISTS ddl_copy LIKE ddl_src")
        .await
        .unwrap();
    let e = c
        .query_drop("CREATE TABLE ddl_none LIKE ddl_nosuch")
        .await
        .unwrap_err();
    assert!(e.to_string().contains("1146"), "{e}");

    // The source is read under SHARED_READ: a LOCK TABLES ... WRITE on it holds the
    // CREATE ... LIKE back until UNLOCK TABLES.
    let mut writer = conn().await;
    writer
        .query_drop("LOCK TABLES ddl_src WRITE")
        .await
        .unwrap();
    let mut other = conn().await;
    let waiter = id(&mut other).await;
    let create = tokio::spawn(async move {
        let r = other.query_drop("CREATE TABLE ddl_late LIKE ddl_src").await;
        (r, other)
    });
    wait_state(&mut c, waiter, "Waiting for table metadata lock").await;
    writer.query_drop("UNLOCK TABLES").await.unwrap();
    let (r, _other) = create.await.unwrap();
    r.unwrap();
    assert_eq!(count(&mut c, "ddl_late").await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enum_and_set_columns_and_index_hints() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE ddl_enum (id INT PRIMARY KEY, status ENUM('new', 'done') NOT NULL \
         DEFAULT 'new', tags SET('a', 'b'), KEY k_status (status))",
    )
    .await
    .unwrap();
    c.query_drop("INSERT INTO ddl_enum (id, tags) VALUES (1, 'a,b')")
        .await
        .unwrap();
    c.query_drop("INSERT INTO ddl_enum VALUES (2, 'done', NULL)")
        .await
        .unwrap();
    let refused = c
        .query_drop("INSERT INTO ddl_enum VALUES (3, 'lost', NULL)")
        .await;
    assert_eq!(
        code(refused),
        (1265, "01000".into()),
        "a value the ENUM lacks"
    );
    let rows: Vec<(i64, String, Option<String>)> = c
        .query(
            "SELECT id, status, tags FROM ddl_enum FORCE INDEX (k_status) \
             USE INDEX (PRIMARY) WHERE status IN ('new', 'done') ORDER BY id",
        )
        .await
        .unwrap();
    assert_eq!(
        rows,
        [
            (1, "new".into(), Some("a,b".into())),
            (2, "done".into(), None)
        ]
    );
    // A rebuild would lose the ENUM's check: refused.
    let rebuild = c
        .query_drop("ALTER TABLE ddl_enum MODIFY tags VARCHAR(10)")
        .await;
    assert_eq!(code(rebuild).0, 1235);
    c.query_drop("DROP TABLE ddl_enum").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alter_table_rebuilds_what_sqlite_cannot_change_in_place() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE ddl_rb (id INT PRIMARY KEY AUTO_INCREMENT, a INT, b VARCHAR(5), KEY kb (b))",
    )
    .await
    .unwrap();
    c.query_drop("INSERT INTO ddl_rb (a, b) VALUES (10, 'x'), (NULL, 'y')")
        .await
        .unwrap();
    c.query_drop(
        "ALTER TABLE ddl_rb MODIFY b VARCHAR(20) NOT NULL DEFAULT 'z', \
         ADD COLUMN c INT DEFAULT 7 AFTER id, CHANGE a a2 BIGINT",
    )
    .await
    .unwrap();
    type Row = (i64, Option<i64>, Option<i64>, String);
    let rows: Vec<Row> = c.query("SELECT * FROM ddl_rb ORDER BY id").await.unwrap();
    assert_eq!(
        rows,
        [
            (1, Some(7), Some(10), "x".into()),
            (2, Some(7), None, "y".into())
        ],
        "the rows kept, the columns in their new order"
    );
    c.query_drop("ALTER TABLE ddl_rb ALTER COLUMN a2 SET DEFAULT 5")
        .await
        .unwrap();
    c.query_drop("INSERT INTO ddl_rb (b) VALUES ('w')")
        .await
        .unwrap();
    let last: (i64, Option<i64>) = c
        .query_first("SELECT id, a2 FROM ddl_rb WHERE b = 'w'")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        last,
        (3, Some(5)),
        "AUTO_INCREMENT goes on, the new default applies"
    );
    let show = "SHOW CREATE TABLE ddl_rb";
    let (_, before): (String, String) = c.query_first(show).await.unwrap().unwrap();
    assert!(before.contains("KEY `kb` (`b`)"), "{before}");
    // A NULL where the new definition wants none: the statement fails, nothing changes.
    let refused = c
        .query_drop("ALTER TABLE ddl_rb MODIFY a2 BIGINT NOT NULL")
        .await;
    assert_eq!(code(refused).0, 1048);
    let (_, after): (String, String) = c.query_first(show).await.unwrap().unwrap();
    assert_eq!(after, before);
    assert_eq!(
        code(c.query_drop("ALTER TABLE ddl_rb MODIFY nosuch INT").await).0,
        1054
    );
    c.query_drop("ALTER TABLE ddl_rb DROP PRIMARY KEY, ADD PRIMARY KEY (id, b)")
        .await
        .unwrap();
    let keys: Vec<(String, String)> = c
        .query(
            "SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS \
             WHERE TABLE_NAME = 'ddl_rb' ORDER BY INDEX_NAME, SEQ_IN_INDEX",
        )
        .await
        .unwrap();
    let keys: Vec<(&str, &str)> = keys.iter().map(|(k, c)| (k.as_str(), c.as_str())).collect();
    assert_eq!(keys, [("PRIMARY", "id"), ("PRIMARY", "b"), ("kb", "b")]);
    // A column whose name holds CHECK is no check.
    c.query_drop("ALTER TABLE ddl_rb ADD COLUMN checked INT")
        .await
        .unwrap();
    c.query_drop("ALTER TABLE ddl_rb MODIFY checked BIGINT FIRST")
        .await
        .unwrap();
    c.query_drop("DROP TABLE ddl_rb").await.unwrap();
}

/// The AUTO_INCREMENT counter as InnoDB keeps it since MySQL 8.0: it starts at the table
/// option's value, never gives a value twice (a deleted largest row is not reused), is set by
/// ALTER TABLE (not below the largest value), survives a rebuild, is shown by SHOW CREATE TABLE
/// and `information_schema.TABLES`, is not copied by LIKE, and starts again after TRUNCATE.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_auto_increment_counter_is_kept_as_innodb_keeps_it() {
    let mut c = conn().await;
    let ids = |t: &'static str| format!("SELECT id FROM {t} ORDER BY id");
    c.query_drop(
        "CREATE TABLE ddl_ai (id INT NOT NULL AUTO_INCREMENT, v INT, PRIMARY KEY (id)) \
         ENGINE=InnoDB AUTO_INCREMENT=100",
    )
    .await
    .unwrap();
    c.query_drop("INSERT INTO ddl_ai (v) VALUES (1), (2)")
        .await
        .unwrap();
    c.query_drop("DELETE FROM ddl_ai WHERE id = 101")
        .await
        .unwrap();
    c.query_drop("INSERT INTO ddl_ai (v) VALUES (3)")
        .await
        .unwrap();
    let got: Vec<i64> = c.query(ids("ddl_ai")).await.unwrap();
    assert_eq!(got, [100, 102], "101 is not given again");

    c.query_drop("ALTER TABLE ddl_ai AUTO_INCREMENT = 1000")
        .await
        .unwrap();
    c.query_drop("INSERT INTO ddl_ai (v) VALUES (4)")
        .await
        .unwrap();
    // Not below the largest value: the next is one past it.
    c.query_drop("ALTER TABLE ddl_ai AUTO_INCREMENT = 5")
        .await
        .unwrap();
    // A rebuild keeps the counter.
    c.query_drop("ALTER TABLE ddl_ai MODIFY v BIGINT NOT NULL")
        .await
        .unwrap();
    let (_, text): (String, String) = c
        .query_first("SHOW CREATE TABLE ddl_ai")
        .await
        .unwrap()
        .unwrap();
    assert!(
        text.contains(") ENGINE=SQLite AUTO_INCREMENT=1001 "),
        "{text}"
    );
    let next: Option<u64> = c
        .query_first(
            "SELECT AUTO_INCREMENT FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'ddl_ai'",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(next, Some(1001));
    c.query_drop("INSERT INTO ddl_ai (v) VALUES (5)")
        .await
        .unwrap();
    let got: Vec<i64> = c.query(ids("ddl_ai")).await.unwrap();
    assert_eq!(got, [100, 102, 1000, 1001]);

    c.query_drop("CREATE TABLE ddl_ai_copy LIKE ddl_ai")
        .await
        .unwrap();
    c.query_drop("INSERT INTO ddl_ai_copy (v) VALUES (1)")
        .await
        .unwrap();
    let got: Vec<i64> = c.query(ids("ddl_ai_copy")).await.unwrap();
    assert_eq!(got, [1], "LIKE copies the definition, not the counter");

    c.query_drop("TRUNCATE TABLE ddl_ai").await.unwrap();
    c.query_drop("INSERT INTO ddl_ai (v) VALUES (6)")
        .await
        .unwrap();
    let got: Vec<i64> = c.query(ids("ddl_ai")).await.unwrap();
    assert_eq!(got, [1]);
    c.query_drop("DROP TABLE ddl_ai, ddl_ai_copy")
        .await
        .unwrap();
}
