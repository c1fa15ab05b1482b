//! Foreign keys and DDL through the wire, as MySQL 8.0 has them: the generated names of keys
//! made by CREATE TABLE and ALTER TABLE (`generate_fk_name`, `sql/sql_table.cc`), the locks of
//! ALTER TABLE on the tables a key relates (X STATEMENT once the table is X), TRUNCATE TABLE
//! locking only its table, and DROP DATABASE of a schema with keys.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

/// The names of `table`'s foreign keys, by name.
async fn key_names(c: &mut Conn, schema: &str, table: &str) -> Vec<String> {
    c.query(format!(
        "SELECT CONSTRAINT_NAME FROM information_schema.TABLE_CONSTRAINTS \
         WHERE TABLE_SCHEMA = '{schema}' AND TABLE_NAME = '{table}' \
         AND CONSTRAINT_TYPE = 'FOREIGN KEY' ORDER BY CONSTRAINT_NAME"
    ))
    .await
    .unwrap()
}

/// CREATE TABLE counts unnamed keys from 1 whatever names the others have
/// (`mysql_create_table_no_lock` passes no pre-existing number), so a given name equal to a
/// generated one is 1826 (`prepare_foreign_key`); ALTER TABLE ... ADD FOREIGN KEY counts on
/// from the largest generated number the table has (`get_fk_max_generated_name_number`),
/// the names the statement gives not counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_names_count_as_mysql_counts_them() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE fn_p (id INT PRIMARY KEY); \
         CREATE TABLE fn_c (a INT, b INT, d INT, e INT, \
           CONSTRAINT fn_c_ibfk_5 FOREIGN KEY (a) REFERENCES fn_p (id), \
           FOREIGN KEY (b) REFERENCES fn_p (id))",
    )
    .await
    .unwrap();
    assert_eq!(
        key_names(&mut c, "test", "fn_c").await,
        ["fn_c_ibfk_1", "fn_c_ibfk_5"]
    );
    let e = match c
        .query_drop(
            "CREATE TABLE fn_dup (a INT, b INT, FOREIGN KEY (a) REFERENCES fn_p (id), \
             CONSTRAINT fn_dup_ibfk_1 FOREIGN KEY (b) REFERENCES fn_p (id))",
        )
        .await
    {
        Err(mysql_async::Error::Server(e)) => (e.code, e.message),
        other => panic!("expected 1826, got {other:?}"),
    };
    assert_eq!(
        e,
        (
            1826,
            "Duplicate foreign key constraint name 'fn_dup_ibfk_1'".into()
        )
    );
    // On from 5; the name given here (9) does not count.
    c.query_drop(
        "ALTER TABLE fn_c ADD FOREIGN KEY (d) REFERENCES fn_p (id), \
         ADD CONSTRAINT fn_c_ibfk_9 FOREIGN KEY (e) REFERENCES fn_p (id)",
    )
    .await
    .unwrap();
    assert_eq!(
        key_names(&mut c, "test", "fn_c").await,
        ["fn_c_ibfk_1", "fn_c_ibfk_5", "fn_c_ibfk_6", "fn_c_ibfk_9"]
    );
    // Now on from 9, after the largest is dropped too: the table's keys before the ALTER.
    c.query_drop(
        "ALTER TABLE fn_c DROP FOREIGN KEY fn_c_ibfk_9, ADD FOREIGN KEY (e) REFERENCES fn_p (id)",
    )
    .await
    .unwrap();
    assert_eq!(
        key_names(&mut c, "test", "fn_c").await,
        ["fn_c_ibfk_1", "fn_c_ibfk_10", "fn_c_ibfk_5", "fn_c_ibfk_6"]
    );
    c.query_drop("DROP TABLE fn_c, fn_p").await.unwrap();
}

/// `(OBJECT_NAME, LOCK_TYPE, LOCK_DURATION, LOCK_STATUS)` of connection `id`'s TABLE rows on
/// `fx_` tables.
async fn fx_locks(obs: &mut Conn, id: u64) -> Vec<(String, String, String, String)> {
    obs.query(format!(
        "SELECT OBJECT_NAME, LOCK_TYPE, LOCK_DURATION, LOCK_STATUS FROM \
         performance_schema.metadata_locks WHERE OWNER_CONTEXT_ID = {id} \
         AND OBJECT_TYPE = 'TABLE' AND OBJECT_NAME LIKE 'fx_%' \
         ORDER BY OBJECT_NAME, LOCK_TYPE"
    ))
    .await
    .unwrap()
}

fn rows(r: &[(&str, &str, &str, &str)]) -> Vec<(String, String, String, String)> {
    (r.iter())
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect()
}

/// ALTER TABLE of a parent: SU on the child (STATEMENT), then, once the parent is X, a new
/// EXCLUSIVE request on the child, STATEMENT as MySQL's
/// `collect_and_lock_fk_tables_for_complex_alter_table` makes it (not an upgrade, which MySQL
/// asks as TRANSACTION); it waits for a transaction that read the child. TRUNCATE TABLE of the
/// child locks only the child (`Sql_cmd_truncate_table::truncate_base`): it does not wait
/// for `LOCK TABLES parent WRITE`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alter_waits_for_related_tables_with_statement_locks() {
    let mut a = conn().await;
    let mut b = conn().await;
    let mut obs = conn().await;
    let a_id = id(&mut a).await;
    a.query_drop(
        "CREATE TABLE fx_parent (id INT PRIMARY KEY); \
         CREATE TABLE fx_child (id INT PRIMARY KEY, pid INT, \
           FOREIGN KEY (pid) REFERENCES fx_parent (id)); \
         INSERT INTO fx_parent VALUES (1)",
    )
    .await
    .unwrap();
    b.query_drop("BEGIN; SELECT * FROM fx_child").await.unwrap();
    let alter = tokio::spawn(async move {
        let r = a.query_drop("ALTER TABLE fx_parent ADD COLUMN x INT").await;
        (a, r)
    });
    wait_state(&mut obs, a_id, "Waiting for table metadata lock").await;
    assert_eq!(
        fx_locks(&mut obs, a_id).await,
        rows(&[
            ("fx_child", "EXCLUSIVE", "STATEMENT", "PENDING"),
            ("fx_child", "SHARED_UPGRADABLE", "STATEMENT", "GRANTED"),
            ("fx_parent", "EXCLUSIVE", "TRANSACTION", "GRANTED"),
        ])
    );
    b.query_drop("COMMIT").await.unwrap();
    let (mut a, r) = bounded("ALTER", alter).await.unwrap();
    r.unwrap();

    // TRUNCATE of the child: the parent is not locked (a DROP TABLE of it would wait for the
    // reader of the parent: X on the parent, `rm_table_do_discovery_and_lock_fk_tables`).
    a.query_drop("INSERT INTO fx_child VALUES (1, 1); BEGIN; SELECT * FROM fx_parent")
        .await
        .unwrap();
    bounded("TRUNCATE", b.query_drop("TRUNCATE TABLE fx_child"))
        .await
        .unwrap();
    a.query_drop("COMMIT").await.unwrap();
    let n: Option<u64> = a
        .query_first("SELECT COUNT(*) FROM fx_child")
        .await
        .unwrap();
    assert_eq!(n, Some(0));
    a.query_drop("DROP TABLE fx_child, fx_parent")
        .await
        .unwrap();
}

/// DROP DATABASE of a schema whose tables have keys (`mysql_rm_db` locks them and their keys'
/// names as DROP TABLE does): the keys go with it, so a schema made again with the same names
/// can have them again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_database_drops_its_keys() {
    let mut c = conn().await;
    let make = "CREATE DATABASE fk_dropped; \
                CREATE TABLE fk_dropped.p (id INT PRIMARY KEY); \
                CREATE TABLE fk_dropped.c (pid INT, CONSTRAINT named FOREIGN KEY (pid) \
                  REFERENCES fk_dropped.p (id), FOREIGN KEY (pid) REFERENCES fk_dropped.p (id))";
    c.query_drop(make).await.unwrap();
    assert_eq!(
        key_names(&mut c, "fk_dropped", "c").await,
        ["c_ibfk_1", "named"]
    );
    c.query_drop("DROP DATABASE fk_dropped").await.unwrap();
    assert!(key_names(&mut c, "fk_dropped", "c").await.is_empty());
    c.query_drop(make).await.unwrap();
    assert_eq!(
        key_names(&mut c, "fk_dropped", "c").await,
        ["c_ibfk_1", "named"]
    );
    c.query_drop("DROP DATABASE fk_dropped").await.unwrap();
}

/// A key to a table of another schema is 1235, in MySQL's words, from CREATE TABLE and ALTER
/// TABLE alike (each schema is an SQLite database of its own, and SQLite checks a key within
/// one database), before the parent is looked for in the child's schema.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_to_another_schema_are_1235() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE DATABASE IF NOT EXISTS fk_elsewhere; \
         CREATE TABLE IF NOT EXISTS fk_elsewhere.fo_p (id INT PRIMARY KEY); \
         CREATE TABLE fo_c (a INT)",
    )
    .await
    .unwrap();
    let refused = (
        1235,
        "This version of MySQL doesn't yet support 'a FOREIGN KEY to a table of another \
         schema'"
            .to_string(),
    );
    for sql in [
        "CREATE TABLE fo_c2 (a INT, FOREIGN KEY (a) REFERENCES fk_elsewhere.fo_p (id))",
        "ALTER TABLE fo_c ADD FOREIGN KEY (a) REFERENCES fk_elsewhere.fo_p (id)",
    ] {
        let e = match c.query_drop(sql).await {
            Err(mysql_async::Error::Server(e)) => (e.code, e.message),
            other => panic!("{sql}: expected 1235, got {other:?}"),
        };
        assert_eq!(e, refused, "{sql}");
    }
    c.query_drop("DROP TABLE fo_c; DROP DATABASE fk_elsewhere")
        .await
        .unwrap();
}
