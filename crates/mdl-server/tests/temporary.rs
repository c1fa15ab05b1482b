//! `CREATE TEMPORARY TABLE` as MySQL 8.0 has it: a session's own table, in the schema it was
//! made in, shadowing a base table of its name for that session's every statement, taking no
//! metadata lock, gone at disconnect and reset; `CREATE` / `DROP TEMPORARY TABLE` do not
//! commit. Each test uses its own table names (the server is shared by the tests).

mod common;

use common::clients::{run, tools_or_skip};
use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

async fn ok(c: &mut Conn, sql: &str) {
    c.query_drop(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

async fn ints(c: &mut Conn, sql: &str) -> Vec<i64> {
    c.query(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"))
}

async fn texts(c: &mut Conn, sql: &str) -> Vec<String> {
    c.query(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"))
}

async fn err(c: &mut Conn, sql: &str) -> u16 {
    code(c.query_drop(sql).await).0
}

/// `DESCRIBE`'s `(Field, Type)` rows.
async fn described(c: &mut Conn, table: &str) -> Vec<(String, String)> {
    let rows: Vec<(String, String, String, String, Option<String>, String)> = c
        .query(format!("DESCRIBE {table}"))
        .await
        .unwrap_or_else(|e| panic!("DESCRIBE {table}: {e}"));
    rows.into_iter().map(|r| (r.0, r.1)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_temporary_table_shadows_the_base_table_for_every_statement() {
    let mut c = conn().await;
    ok(&mut c, "DROP TABLE IF EXISTS tmp_sh, tmp_sh_other").await;
    ok(&mut c, "CREATE TABLE tmp_sh (a INT)").await;
    ok(&mut c, "INSERT INTO tmp_sh VALUES (1), (2)").await;
    ok(
        &mut c,
        "CREATE TABLE tmp_sh_other (k INT PRIMARY KEY, v VARCHAR(10))",
    )
    .await;
    ok(
        &mut c,
        "INSERT INTO tmp_sh_other VALUES (1, 'one'), (2, 'two'), (3, 'three')",
    )
    .await;
    ok(
        &mut c,
        "CREATE TEMPORARY TABLE tmp_sh (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, \
         v VARCHAR(10) NOT NULL DEFAULT 'x', n INT DEFAULT 7, KEY v_k (v))",
    )
    .await;
    // The temporary table, not the base table: SELECT, INSERT (AUTO_INCREMENT, DEFAULT, 0).
    assert_eq!(ints(&mut c, "SELECT COUNT(*) FROM tmp_sh").await, [0]);
    ok(&mut c, "INSERT INTO tmp_sh (v) VALUES ('a'), ('b')").await;
    ok(&mut c, "INSERT INTO tmp_sh VALUES (0, DEFAULT, DEFAULT)").await;
    let rows: Vec<(i64, String, i64)> = c.query("SELECT * FROM tmp_sh ORDER BY id").await.unwrap();
    assert_eq!(
        rows,
        [(1, "a".into(), 7), (2, "b".into(), 7), (3, "x".into(), 7)]
    );
    let last: Option<i64> = c.query_first("SELECT LAST_INSERT_ID()").await.unwrap();
    assert_eq!(last, Some(3));
    // Qualified, aliased, joined with a base table, in a subquery, UPDATE and DELETE.
    assert_eq!(
        texts(&mut c, "SELECT test.tmp_sh.v FROM test.tmp_sh WHERE id = 2").await,
        ["b"]
    );
    assert_eq!(
        texts(
            &mut c,
            "SELECT o.v FROM tmp_sh JOIN tmp_sh_other AS o ON o.k = tmp_sh.id ORDER BY o.k"
        )
        .await,
        ["one", "two", "three"]
    );
    ok(&mut c, "UPDATE tmp_sh SET n = n + id WHERE tmp_sh.id > 1").await;
    ok(&mut c, "DELETE FROM tmp_sh WHERE id = 1").await;
    ok(&mut c, "UPDATE tmp_sh SET v = 'y' ORDER BY id DESC LIMIT 1").await;
    assert_eq!(
        ints(&mut c, "SELECT n FROM tmp_sh ORDER BY id").await,
        [9, 10]
    );
    // INSERT ... SELECT both ways, and a multi-table UPDATE of the base table from it.
    ok(
        &mut c,
        "INSERT INTO tmp_sh (v, n) SELECT v, k FROM tmp_sh_other WHERE k > 2",
    )
    .await;
    ok(
        &mut c,
        "INSERT INTO tmp_sh_other (k, v) SELECT id + 10, v FROM tmp_sh",
    )
    .await;
    ok(
        &mut c,
        "UPDATE tmp_sh_other AS o JOIN tmp_sh AS t ON o.k = t.id SET o.v = t.v",
    )
    .await;
    assert_eq!(
        texts(&mut c, "SELECT v FROM tmp_sh_other ORDER BY k").await,
        ["one", "b", "y", "b", "y", "three"]
    );
    // REPLACE counts as MySQL does on the temporary table's key.
    let r = c
        .query_iter("REPLACE INTO tmp_sh (id, v) VALUES (2, 'r')")
        .await
        .unwrap();
    assert_eq!(r.affected_rows(), 2);
    drop(r);
    // DESCRIBE, SHOW COLUMNS, SHOW INDEX, SHOW CREATE TABLE: the temporary table's.
    assert_eq!(
        described(&mut c, "tmp_sh").await,
        [
            ("id".into(), "int".into()),
            ("v".into(), "varchar(10)".into()),
            ("n".into(), "int".into())
        ]
    );
    let keys: Vec<String> = c
        .query_map("SHOW INDEX FROM tmp_sh", |r: mysql_async::Row| {
            r.get::<String, _>("Key_name").unwrap()
        })
        .await
        .unwrap();
    assert_eq!(keys, ["PRIMARY", "v_k"]);
    let (_, text): (String, String) = c
        .query_first("SHOW CREATE TABLE tmp_sh")
        .await
        .unwrap()
        .unwrap();
    assert!(
        text.starts_with("CREATE TEMPORARY TABLE `tmp_sh` (\n  `id` int NOT NULL AUTO_INCREMENT,"),
        "{text}"
    );
    assert!(
        text.contains("KEY `v_k` (`v`)") && text.contains("AUTO_INCREMENT=5"),
        "{text}"
    );
    // ALTER TABLE (in place and rebuilt), CREATE / DROP INDEX, TRUNCATE.
    ok(&mut c, "ALTER TABLE tmp_sh ADD COLUMN w INT").await;
    ok(&mut c, "ALTER TABLE tmp_sh RENAME INDEX v_k TO v_k2").await;
    ok(&mut c, "ALTER TABLE tmp_sh MODIFY n BIGINT NOT NULL").await;
    ok(&mut c, "CREATE INDEX n_k ON tmp_sh (n)").await;
    ok(&mut c, "DROP INDEX v_k2 ON tmp_sh").await;
    assert_eq!(described(&mut c, "tmp_sh").await.len(), 4);
    assert_eq!(ints(&mut c, "SELECT COUNT(*) FROM tmp_sh").await, [3]);
    ok(&mut c, "TRUNCATE TABLE tmp_sh").await;
    ok(&mut c, "INSERT INTO tmp_sh (n) VALUES (1)").await;
    assert_eq!(ints(&mut c, "SELECT id FROM tmp_sh").await, [1]);
    // The base table is untouched all along; DROP TABLE drops the temporary one first.
    ok(&mut c, "DROP TABLE tmp_sh").await;
    assert_eq!(
        ints(&mut c, "SELECT a FROM tmp_sh ORDER BY a").await,
        [1, 2]
    );
    assert_eq!(
        described(&mut c, "tmp_sh").await,
        [("a".into(), "int".into())]
    );
    ok(&mut c, "DROP TABLE tmp_sh, tmp_sh_other").await;
    assert_eq!(err(&mut c, "SELECT * FROM tmp_sh").await, 1146);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_session_has_its_own_temporary_tables() {
    let (mut a, mut b, mut other) = (conn().await, conn().await, conn().await);
    ok(&mut a, "CREATE TEMPORARY TABLE tmp_own (a INT)").await;
    ok(
        &mut b,
        "CREATE TEMPORARY TABLE tmp_own (b VARCHAR(5), c INT)",
    )
    .await;
    ok(&mut a, "INSERT INTO tmp_own VALUES (1)").await;
    ok(&mut b, "INSERT INTO tmp_own VALUES ('x', 2), ('y', 3)").await;
    assert_eq!(ints(&mut a, "SELECT a FROM tmp_own").await, [1]);
    assert_eq!(
        ints(&mut b, "SELECT c FROM tmp_own ORDER BY c").await,
        [2, 3]
    );
    assert_eq!(described(&mut a, "tmp_own").await.len(), 1);
    assert_eq!(described(&mut b, "tmp_own").await.len(), 2);
    assert_eq!(err(&mut other, "SELECT * FROM tmp_own").await, 1146);
    // In another schema, qualified or current: a table of that schema.
    ok(&mut a, "CREATE DATABASE IF NOT EXISTS tmp_db").await;
    ok(&mut a, "CREATE TEMPORARY TABLE tmp_db.tmp_own (z INT)").await;
    ok(&mut a, "INSERT INTO tmp_db.tmp_own VALUES (9)").await;
    ok(&mut a, "USE tmp_db").await;
    assert_eq!(ints(&mut a, "SELECT z FROM tmp_own").await, [9]);
    assert_eq!(ints(&mut a, "SELECT a FROM test.tmp_own").await, [1]);
    ok(&mut a, "DROP TEMPORARY TABLE tmp_own, test.tmp_own").await;
    assert_eq!(err(&mut a, "SELECT * FROM test.tmp_own").await, 1146);
    assert_eq!(ints(&mut b, "SELECT COUNT(*) FROM tmp_own").await, [2]);
    ok(&mut a, "DROP DATABASE tmp_db").await;
}

/// The brief's scenario: session A has a temporary `t` in an open transaction; B's DDL on the
/// base `t` goes through at once, as in MySQL (no metadata lock is held on `t`); A's read of
/// the base table `tmp_base_u` holds SHARED_READ, which B's DROP TABLE of it waits for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ddl_on_the_base_table_does_not_wait_for_a_temporary_one() {
    let (mut a, mut b, mut obs) = (conn().await, conn().await, conn().await);
    ok(&mut b, "DROP TABLE IF EXISTS tmp_ddl, tmp_ddl_u").await;
    ok(&mut b, "CREATE TABLE tmp_ddl (a INT)").await;
    ok(&mut b, "CREATE TABLE tmp_ddl_u (a INT)").await;
    ok(&mut a, "CREATE TEMPORARY TABLE tmp_ddl (x INT, y INT)").await;
    ok(&mut a, "INSERT INTO tmp_ddl VALUES (1, 2)").await;
    ok(&mut a, "BEGIN").await;
    ok(&mut a, "CREATE TEMPORARY TABLE tmp_ddl_2 (z INT)").await;
    assert_eq!(ints(&mut a, "SELECT x FROM tmp_ddl").await, [1]);
    assert_eq!(ints(&mut a, "SELECT COUNT(*) FROM tmp_ddl_2").await, [0]);
    let a_id = id(&mut a).await;
    let held: Vec<_> = locks_of(&mut obs, a_id).await;
    assert!(
        held.iter().all(|l| l.1.as_deref() != Some("tmp_ddl")),
        "no metadata lock on a temporary table: {held:?}"
    );
    ok(&mut b, "SET SESSION lock_wait_timeout = 1").await;
    bounded("ALTER TABLE of the base table", async {
        ok(&mut b, "ALTER TABLE tmp_ddl ADD COLUMN b INT").await;
        ok(&mut b, "DROP TABLE tmp_ddl").await;
    })
    .await;
    // A's temporary table is as it was.
    assert_eq!(ints(&mut a, "SELECT y FROM tmp_ddl").await, [2]);
    // A reads the base table u: B's DROP TABLE u waits for A's transaction.
    assert_eq!(ints(&mut a, "SELECT COUNT(*) FROM tmp_ddl_u").await, [0]);
    assert_eq!(err(&mut b, "DROP TABLE tmp_ddl_u").await, 1205);
    ok(&mut b, "SET SESSION lock_wait_timeout = 20").await;
    let b_id = id(&mut b).await;
    let dropping = tokio::spawn(async move {
        ok(&mut b, "DROP TABLE tmp_ddl_u").await;
        b
    });
    wait_state(&mut obs, b_id, "Waiting for table metadata lock").await;
    ok(&mut a, "COMMIT").await;
    bounded("DROP TABLE after COMMIT", dropping).await.unwrap();
    ok(&mut a, "DROP TEMPORARY TABLE tmp_ddl, tmp_ddl_2").await;
}

/// MySQL 8.0: CREATE / DROP TEMPORARY TABLE do not commit (`stmt_causes_implicit_commit`); a
/// ROLLBACK does not undo them either, but undoes the rows the transaction wrote, temporary
/// tables' too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_temporary_table_does_not_commit() {
    let mut c = conn().await;
    ok(&mut c, "DROP TABLE IF EXISTS tmp_txn").await;
    ok(&mut c, "CREATE TABLE tmp_txn (a INT)").await;
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_txn_old (a INT)").await;
    ok(&mut c, "INSERT INTO tmp_txn_old VALUES (1)").await;
    ok(&mut c, "BEGIN").await;
    ok(&mut c, "INSERT INTO tmp_txn VALUES (1)").await;
    ok(
        &mut c,
        "CREATE TEMPORARY TABLE tmp_txn_new (a INT PRIMARY KEY, b INT, KEY b_k (b))",
    )
    .await;
    ok(&mut c, "INSERT INTO tmp_txn_new VALUES (1, 1)").await;
    ok(&mut c, "INSERT INTO tmp_txn_old VALUES (2)").await;
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_txn_gone (a INT)").await;
    ok(&mut c, "DROP TEMPORARY TABLE tmp_txn_gone").await;
    let open: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()")
        .await
        .unwrap();
    assert_eq!(open, Some(1), "the transaction is still open");
    ok(&mut c, "ROLLBACK").await;
    // The base table's row is gone: nothing committed it.
    assert_eq!(ints(&mut c, "SELECT COUNT(*) FROM tmp_txn").await, [0]);
    // The tables made in the transaction stay (empty), the one dropped stays dropped.
    assert_eq!(ints(&mut c, "SELECT COUNT(*) FROM tmp_txn_new").await, [0]);
    let (_, text): (String, String) = c
        .query_first("SHOW CREATE TABLE tmp_txn_new")
        .await
        .unwrap()
        .unwrap();
    assert!(text.contains("KEY `b_k` (`b`)"), "{text}");
    assert_eq!(err(&mut c, "SELECT * FROM tmp_txn_gone").await, 1146);
    assert_eq!(ints(&mut c, "SELECT a FROM tmp_txn_old").await, [1]);
    // DROP TEMPORARY of a table made before the transaction is not undone by ROLLBACK; a
    // ROLLBACK TO SAVEPOINT keeps the tables made after the savepoint.
    ok(&mut c, "BEGIN").await;
    ok(&mut c, "INSERT INTO tmp_txn VALUES (2)").await;
    ok(&mut c, "SAVEPOINT s1").await;
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_txn_sp (a INT)").await;
    ok(&mut c, "DROP TEMPORARY TABLE tmp_txn_old").await;
    ok(&mut c, "ROLLBACK TO SAVEPOINT s1").await;
    assert_eq!(ints(&mut c, "SELECT COUNT(*) FROM tmp_txn_sp").await, [0]);
    assert_eq!(err(&mut c, "SELECT * FROM tmp_txn_old").await, 1146);
    ok(&mut c, "COMMIT").await;
    assert_eq!(ints(&mut c, "SELECT a FROM tmp_txn").await, [2]);
    // ALTER TABLE of a temporary table does commit, as in MySQL.
    ok(&mut c, "BEGIN").await;
    ok(&mut c, "INSERT INTO tmp_txn VALUES (3)").await;
    ok(&mut c, "ALTER TABLE tmp_txn_new ADD COLUMN c INT").await;
    ok(&mut c, "ROLLBACK").await;
    assert_eq!(ints(&mut c, "SELECT COUNT(*) FROM tmp_txn").await, [2]);
    ok(&mut c, "DROP TABLE tmp_txn").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_temporary_table_select_and_like() {
    let mut c = conn().await;
    ok(&mut c, "DROP TABLE IF EXISTS tmp_src, tmp_from_temp").await;
    ok(
        &mut c,
        "CREATE TABLE tmp_src (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20), \
         UNIQUE KEY name_u (name))",
    )
    .await;
    ok(
        &mut c,
        "INSERT INTO tmp_src (name) VALUES ('a'), ('b'), ('c')",
    )
    .await;
    let r = c
        .query_iter("CREATE TEMPORARY TABLE tmp_sel AS SELECT id, UPPER(name) AS up FROM tmp_src WHERE id > 1")
        .await
        .unwrap();
    assert_eq!(r.affected_rows(), 2);
    drop(r);
    assert_eq!(
        texts(&mut c, "SELECT up FROM tmp_sel ORDER BY id").await,
        ["B", "C"]
    );
    let (_, text): (String, String) = c
        .query_first("SHOW CREATE TABLE tmp_sel")
        .await
        .unwrap()
        .unwrap();
    assert!(
        text.starts_with("CREATE TEMPORARY TABLE `tmp_sel`"),
        "{text}"
    );
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_like LIKE tmp_src").await;
    ok(&mut c, "INSERT INTO tmp_like (name) VALUES ('x')").await;
    assert_eq!(
        err(&mut c, "INSERT INTO tmp_like (name) VALUES ('x')").await,
        1062
    );
    assert_eq!(ints(&mut c, "SELECT id FROM tmp_like").await, [1]);
    // From a temporary table: a temporary copy, and a base table.
    ok(
        &mut c,
        "CREATE TEMPORARY TABLE tmp_sel2 SELECT * FROM tmp_sel",
    )
    .await;
    assert_eq!(ints(&mut c, "SELECT COUNT(*) FROM tmp_sel2").await, [2]);
    ok(&mut c, "CREATE TABLE tmp_from_temp LIKE tmp_like").await;
    let (_, text): (String, String) = c
        .query_first("SHOW CREATE TABLE tmp_from_temp")
        .await
        .unwrap()
        .unwrap();
    assert!(text.starts_with("CREATE TABLE `tmp_from_temp`"), "{text}");
    // IF NOT EXISTS of one that exists: nothing done.
    ok(
        &mut c,
        "CREATE TEMPORARY TABLE IF NOT EXISTS tmp_sel (q INT)",
    )
    .await;
    ok(
        &mut c,
        "CREATE TEMPORARY TABLE IF NOT EXISTS tmp_sel SELECT 1 AS q",
    )
    .await;
    assert_eq!(ints(&mut c, "SELECT COUNT(*) FROM tmp_sel").await, [2]);
    // Prepared statements on a temporary table.
    let ins = c
        .prep("INSERT INTO tmp_like (id, name) VALUES (?, ?)")
        .await
        .unwrap();
    c.exec_drop(&ins, (0, "p")).await.unwrap();
    c.exec_drop(&ins, (0, "q")).await.unwrap();
    let got: Vec<(i64, String)> = c
        .exec(
            "SELECT id, name FROM tmp_like WHERE id > ? ORDER BY id",
            (1,),
        )
        .await
        .unwrap();
    assert_eq!(got, [(2, "p".into()), (3, "q".into())]);
    ok(&mut c, "DROP TABLE tmp_src, tmp_from_temp").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn temporary_tables_are_listed_nowhere_and_go_with_their_session() {
    let mut c = conn().await;
    let mut obs = conn().await;
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_hidden (a INT)").await;
    let tables = texts(&mut c, "SHOW TABLES").await;
    assert!(!tables.contains(&"tmp_hidden".to_string()), "{tables:?}");
    let n = ints(
        &mut c,
        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 'tmp_hidden'",
    )
    .await;
    assert_eq!(n, [0]);
    let n = ints(
        &mut c,
        "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_NAME = 'tmp_hidden'",
    )
    .await;
    assert_eq!(n, [0]);
    // A base table shadowed in this session is listed with its own columns.
    ok(&mut c, "DROP TABLE IF EXISTS tmp_listed").await;
    ok(&mut c, "CREATE TABLE tmp_listed (base_col INT)").await;
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_listed (temp_col INT)").await;
    let cols = texts(
        &mut c,
        "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 'tmp_listed'",
    )
    .await;
    assert_eq!(cols, ["base_col"]);
    // A reset (COM_RESET_CONNECTION) drops them, as a disconnect does.
    assert!(c.reset().await.unwrap());
    assert_eq!(err(&mut c, "SELECT * FROM tmp_hidden").await, 1146);
    assert_eq!(
        described(&mut c, "tmp_listed").await,
        [("base_col".into(), "int".into())]
    );
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_gone (a INT)").await;
    let me = id(&mut c).await;
    drop(c);
    wait_gone(&mut obs, me).await;
    let mut again = conn().await;
    assert_eq!(err(&mut again, "SELECT * FROM tmp_gone").await, 1146);
    ok(&mut again, "DROP TABLE tmp_listed").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_mysqls() {
    let mut c = conn().await;
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_err (a INT)").await;
    assert_eq!(
        code(c.query_drop("CREATE TEMPORARY TABLE tmp_err (b INT)").await),
        (1050, "42S01".into())
    );
    assert_eq!(
        code(
            c.query_drop("DROP TEMPORARY TABLE tmp_err, tmp_err_none")
                .await
        ),
        (1051, "42S02".into())
    );
    // Nothing was dropped.
    assert_eq!(ints(&mut c, "SELECT COUNT(*) FROM tmp_err").await, [0]);
    ok(&mut c, "DROP TEMPORARY TABLE IF EXISTS tmp_err_none").await;
    assert_eq!(err(&mut c, "DROP TABLE tmp_err, tmp_err_none").await, 1051);
    assert_eq!(
        err(&mut c, "SELECT * FROM tmp_err AS a JOIN tmp_err AS b").await,
        1137
    );
    assert_eq!(
        err(&mut c, "INSERT INTO tmp_err SELECT * FROM tmp_err").await,
        1137
    );
    assert_eq!(
        err(&mut c, "CREATE TEMPORARY TABLE tmp_nodb.t (a INT)").await,
        1049
    );
    assert_eq!(
        err(&mut c, "CREATE VIEW tmp_err_v AS SELECT * FROM tmp_err").await,
        1352
    );
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_err2 (a INT)").await;
    assert_eq!(
        err(&mut c, "ALTER TABLE tmp_err RENAME TO tmp_err2").await,
        1050
    );
    ok(&mut c, "ALTER TABLE tmp_err RENAME TO tmp_err3").await;
    assert_eq!(err(&mut c, "SELECT * FROM tmp_err").await, 1146);
    ok(&mut c, "START TRANSACTION READ ONLY").await;
    assert_eq!(
        err(&mut c, "CREATE TEMPORARY TABLE tmp_err4 (a INT)").await,
        1792
    );
    // A READ ONLY transaction may still write temporary tables.
    ok(&mut c, "INSERT INTO tmp_err3 VALUES (1)").await;
    ok(&mut c, "COMMIT").await;
    assert_eq!(ints(&mut c, "SELECT a FROM tmp_err3").await, [1]);
}

/// LOCK TABLES ignores temporary tables, which the session uses freely under it; the global
/// read lock refuses writes to base tables, not CREATE TEMPORARY TABLE or writes to one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_tables_and_the_global_read_lock() {
    let mut c = conn().await;
    ok(&mut c, "DROP TABLE IF EXISTS tmp_lt").await;
    ok(&mut c, "CREATE TABLE tmp_lt (a INT)").await;
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_lt_t (a INT)").await;
    ok(&mut c, "LOCK TABLES tmp_lt READ").await;
    ok(&mut c, "INSERT INTO tmp_lt_t SELECT * FROM tmp_lt").await;
    ok(&mut c, "INSERT INTO tmp_lt_t VALUES (5)").await;
    assert_eq!(err(&mut c, "INSERT INTO tmp_lt VALUES (1)").await, 1099);
    ok(&mut c, "UNLOCK TABLES").await;
    ok(&mut c, "FLUSH TABLES WITH READ LOCK").await;
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_lt_g (a INT)").await;
    ok(&mut c, "INSERT INTO tmp_lt_g SELECT * FROM tmp_lt_t").await;
    assert_eq!(err(&mut c, "INSERT INTO tmp_lt VALUES (1)").await, 1223);
    ok(&mut c, "UNLOCK TABLES").await;
    assert_eq!(ints(&mut c, "SELECT a FROM tmp_lt_g").await, [5]);
    ok(&mut c, "DROP TABLE tmp_lt").await;
}

/// An ETL script as the `mariadb` client sends it: a staging temporary table, filled, joined
/// into a base table's update, read, dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mariadb_client_runs_a_staging_script() {
    let Some([client]) = tools_or_skip(
        "the_mariadb_client_runs_a_staging_script",
        [&["mariadb", "mysql"]],
    ) else {
        return;
    };
    let addr = server();
    let script = "DROP TABLE IF EXISTS tmp_etl_prices;\n\
        CREATE TABLE tmp_etl_prices (sku VARCHAR(10) PRIMARY KEY, price INT);\n\
        INSERT INTO tmp_etl_prices VALUES ('a', 1), ('b', 2), ('c', 3);\n\
        CREATE TEMPORARY TABLE staging (sku VARCHAR(10), price INT, KEY (sku));\n\
        INSERT INTO staging VALUES ('a', 10), ('c', 30), ('d', 40);\n\
        UPDATE tmp_etl_prices p JOIN staging s ON s.sku = p.sku SET p.price = s.price;\n\
        INSERT INTO tmp_etl_prices SELECT s.sku, s.price FROM staging s \
          LEFT JOIN tmp_etl_prices p ON p.sku = s.sku WHERE p.sku IS NULL;\n\
        SELECT COUNT(*) FROM staging;\n\
        DROP TEMPORARY TABLE staging;\n\
        SELECT sku, price FROM tmp_etl_prices ORDER BY sku;\n";
    let args = [
        "-h127.0.0.1".to_string(),
        format!("-P{}", addr.port()),
        "-uroot".into(),
        "-N".into(),
        "test".into(),
    ];
    let out = tokio::task::spawn_blocking({
        let client = client.clone();
        move || run(&client, &args, Some(script))
    })
    .await
    .unwrap();
    assert_eq!(out, "3\na\t10\nb\t2\nc\t30\nd\t40\n");
    let mut c = conn().await;
    ok(&mut c, "DROP TABLE tmp_etl_prices").await;
    assert_eq!(err(&mut c, "SELECT * FROM staging").await, 1146);
}

/// `SHOW [FULL] COLUMNS` and `SHOW INDEX` with `LIKE` or `WHERE` read a temporary table's own
/// rows (MySQL's `TMP_TABLE_COLUMNS` / `TMP_TABLE_KEYS`), not the base table's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_columns_and_index_forms_of_a_temporary_table() {
    let mut c = conn().await;
    ok(&mut c, "DROP TABLE IF EXISTS tmp_show").await;
    ok(&mut c, "CREATE TABLE tmp_show (base_col INT)").await;
    ok(
        &mut c,
        "CREATE TEMPORARY TABLE tmp_show (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5), \
         n INT, UNIQUE KEY v_u (v), KEY n_k (n, v))",
    )
    .await;
    let full: Vec<(String, String, Option<String>)> = c
        .query_map("SHOW FULL COLUMNS FROM tmp_show", |r: mysql_async::Row| {
            (
                r.get::<String, _>("Field").unwrap(),
                r.get::<String, _>("Key").unwrap(),
                r.get::<Option<String>, _>("Collation").unwrap(),
            )
        })
        .await
        .unwrap();
    assert_eq!(
        full,
        [
            ("id".into(), "PRI".into(), None),
            ("v".into(), "UNI".into(), Some("utf8mb4_bin".into())),
            ("n".into(), "MUL".into(), None)
        ]
    );
    let liked: Vec<String> = c
        .query_map(
            "SHOW COLUMNS FROM tmp_show LIKE 'v%'",
            |r: mysql_async::Row| r.get::<String, _>("Field").unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(liked, ["v"]);
    let keys: Vec<(String, i64)> = c
        .query_map(
            "SHOW INDEX FROM test.tmp_show WHERE Key_name <> 'PRIMARY'",
            |r: mysql_async::Row| {
                (
                    r.get::<String, _>("Key_name").unwrap(),
                    r.get::<i64, _>("Seq_in_index").unwrap(),
                )
            },
        )
        .await
        .unwrap();
    assert_eq!(
        keys,
        [("v_u".into(), 1), ("n_k".into(), 1), ("n_k".into(), 2)]
    );
    ok(&mut c, "DROP TEMPORARY TABLE tmp_show").await;
    let base: Vec<String> = c
        .query_map("SHOW FULL COLUMNS FROM tmp_show", |r: mysql_async::Row| {
            r.get::<String, _>("Field").unwrap()
        })
        .await
        .unwrap();
    assert_eq!(base, ["base_col"]);
    ok(&mut c, "DROP TABLE tmp_show").await;
}

/// A prepared statement means the temporary table once one shadows its table, and the base
/// table again once it is dropped (its kept plan and rewrite are the session's state's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_statements_follow_the_temporary_tables() {
    let mut c = conn().await;
    ok(&mut c, "DROP TABLE IF EXISTS tmp_prep").await;
    ok(&mut c, "CREATE TABLE tmp_prep (a INT)").await;
    ok(&mut c, "INSERT INTO tmp_prep VALUES (1), (2)").await;
    let count = c
        .prep("SELECT COUNT(*) FROM tmp_prep WHERE a > ?")
        .await
        .unwrap();
    let n: Option<i64> = c.exec_first(&count, (0,)).await.unwrap();
    assert_eq!(n, Some(2));
    ok(&mut c, "CREATE TEMPORARY TABLE tmp_prep (a INT)").await;
    ok(&mut c, "INSERT INTO tmp_prep VALUES (5)").await;
    for _ in 0..2 {
        let n: Option<i64> = c.exec_first(&count, (0,)).await.unwrap();
        assert_eq!(n, Some(1));
    }
    ok(&mut c, "DROP TEMPORARY TABLE tmp_prep").await;
    let n: Option<i64> = c.exec_first(&count, (0,)).await.unwrap();
    assert_eq!(n, Some(2));
    ok(&mut c, "DROP TABLE tmp_prep").await;
}

/// Not in `information_schema` or `performance_schema` (MySQL's privilege check refuses
/// `CREATE TEMPORARY TABLES` there: 1044, before any lock); in
/// `sys`, a plain schema to MySQL, it is made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_in_the_system_schemas() {
    let mut c = conn().await;
    for schema in ["information_schema", "PERFORMANCE_SCHEMA"] {
        let sql = format!("CREATE TEMPORARY TABLE {schema}.tt_sys (a INT)");
        assert_eq!(err(&mut c, &sql).await, 1044, "{sql}");
    }
    ok(&mut c, "USE performance_schema").await;
    assert_eq!(
        err(&mut c, "CREATE TEMPORARY TABLE tt_sys (a INT)").await,
        1044
    );
    ok(&mut c, "USE test").await;
    ok(&mut c, "CREATE TEMPORARY TABLE sys.tt_sys (a INT)").await;
    ok(&mut c, "INSERT INTO sys.tt_sys VALUES (1)").await;
    assert_eq!(ints(&mut c, "SELECT a FROM sys.tt_sys").await, [1]);
    ok(&mut c, "DROP TEMPORARY TABLE sys.tt_sys").await;
}
