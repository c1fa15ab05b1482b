//! Foreign keys through the wire, as InnoDB in MySQL 8.0 has them: kept with their names and
//! rules, enforced (1452, 1451 naming the constraint; CASCADE and SET NULL), following
//! `foreign_key_checks`; DDL's checks (1824, 1822, 3730, 1701, 1215); ALTER TABLE ... ADD / DROP
//! FOREIGN KEY; SHOW CREATE TABLE and `information_schema`; and the metadata locks MySQL takes
//! on the tables a foreign key relates.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Conn;

async fn err(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql).await {
        Err(mysql_async::Error::Server(e)) => (e.code, e.message),
        other => panic!("{sql}: expected a server error, got {other:?}"),
    }
}

async fn show_create(c: &mut Conn, t: &str) -> String {
    let row: (String, String) = c
        .query_first(format!("SHOW CREATE TABLE {t}"))
        .await
        .unwrap()
        .unwrap();
    row.1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_keys_are_kept_and_enforced() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE fk_p (id INT PRIMARY KEY, u INT, UNIQUE KEY uu (u)); \
         CREATE TABLE fk_c (id INT PRIMARY KEY, pid INT, pu INT, \
           FOREIGN KEY (pid) REFERENCES fk_p (id) ON DELETE CASCADE, \
           CONSTRAINT by_u FOREIGN KEY (pu) REFERENCES fk_p (u) ON DELETE SET NULL \
             ON UPDATE RESTRICT); \
         INSERT INTO fk_p VALUES (1, 10), (2, 20); \
         INSERT INTO fk_c VALUES (1, 1, 10), (2, 2, 20)",
    )
    .await
    .unwrap();
    assert_eq!(
        show_create(&mut c, "fk_c").await,
        "CREATE TABLE `fk_c` (\n  `id` int NOT NULL,\n  `pid` int DEFAULT NULL,\n  \
         `pu` int DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  KEY `pid` (`pid`),\n  \
         KEY `by_u` (`pu`),\n  \
         CONSTRAINT `fk_c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `fk_p` (`id`) ON DELETE CASCADE,\n  \
         CONSTRAINT `by_u` FOREIGN KEY (`pu`) REFERENCES `fk_p` (`u`) ON DELETE SET NULL \
         ON UPDATE RESTRICT\n) ENGINE=SQLite DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
    );
    // A child without its parent: 1452 naming the constraint.
    assert_eq!(
        err(&mut c, "INSERT INTO fk_c VALUES (3, 9, NULL)").await,
        (
            1452,
            "Cannot add or update a child row: a foreign key constraint fails (`test`.`fk_c`, \
             CONSTRAINT `fk_c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `fk_p` (`id`) ON DELETE \
             CASCADE)"
                .into()
        )
    );
    assert_eq!(
        err(&mut c, "UPDATE fk_c SET pu = 99 WHERE id = 1").await.0,
        1452
    );
    // A parent's key with children under RESTRICT: 1451.
    assert_eq!(
        err(&mut c, "UPDATE fk_p SET u = 11 WHERE id = 1").await,
        (
            1451,
            "Cannot delete or update a parent row: a foreign key constraint fails (`test`.`fk_c`, \
             CONSTRAINT `by_u` FOREIGN KEY (`pu`) REFERENCES `fk_p` (`u`) ON DELETE SET NULL \
             ON UPDATE RESTRICT)"
                .into()
        )
    );
    // CASCADE: the child row goes with its parent.
    c.query_drop("DELETE FROM fk_p WHERE id = 1").await.unwrap();
    let left: Vec<i64> = c.query("SELECT id FROM fk_c ORDER BY id").await.unwrap();
    assert_eq!(left, [2]);
    // A NO ACTION key in a transaction: the statement fails, the transaction goes on.
    c.query_drop(
        "CREATE TABLE fk_gc (id INT PRIMARY KEY, cid INT, FOREIGN KEY (cid) REFERENCES fk_c (id))",
    )
    .await
    .unwrap();
    c.query_drop("BEGIN; INSERT INTO fk_gc VALUES (1, 2)")
        .await
        .unwrap();
    assert_eq!(
        err(&mut c, "DELETE FROM fk_c WHERE id = 2").await,
        (
            1451,
            "Cannot delete or update a parent row: a foreign key constraint fails (`test`.`fk_gc`, \
             CONSTRAINT `fk_gc_ibfk_1` FOREIGN KEY (`cid`) REFERENCES `fk_c` (`id`))"
                .into()
        )
    );
    c.query_drop("COMMIT").await.unwrap();
    let kept: Option<i64> = c.query_first("SELECT cid FROM fk_gc").await.unwrap();
    assert_eq!(kept, Some(2));

    // foreign_key_checks = 0: nothing is checked, as in a dump's load.
    c.query_drop("SET foreign_key_checks = 0").await.unwrap();
    let v: Option<i64> = c.query_first("SELECT @@foreign_key_checks").await.unwrap();
    assert_eq!(v, Some(0));
    c.query_drop("INSERT INTO fk_c VALUES (7, 77, NULL)")
        .await
        .unwrap();
    c.query_drop("DELETE FROM fk_c WHERE id = 7; SET foreign_key_checks = DEFAULT")
        .await
        .unwrap();
    assert_eq!(
        err(&mut c, "INSERT INTO fk_c VALUES (7, 77, NULL)").await.0,
        1452
    );
    // A value that is no boolean is 1231, and leaves the variable as it was.
    for bad in [
        "SET foreign_key_checks = 2",
        "SET foreign_key_checks = 'maybe'",
    ] {
        assert_eq!(err(&mut c, bad).await.0, 1231, "{bad}");
    }
    let v: Option<i64> = c.query_first("SELECT @@foreign_key_checks").await.unwrap();
    assert_eq!(v, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ddl_checks_foreign_keys_as_mysql() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE fd_p (id INT PRIMARY KEY, v INT, KEY (v)); \
         CREATE TABLE fd_c (id INT PRIMARY KEY, pid INT, \
           CONSTRAINT fd_c_p FOREIGN KEY (pid) REFERENCES fd_p (id))",
    )
    .await
    .unwrap();
    assert_eq!(
        err(
            &mut c,
            "CREATE TABLE fd_x (a INT, FOREIGN KEY (a) REFERENCES fd_none (id))"
        )
        .await,
        (1824, "Failed to open the referenced table 'fd_none'".into())
    );
    assert_eq!(
        err(
            &mut c,
            "CREATE TABLE fd_x (a INT, CONSTRAINT k FOREIGN KEY (a) REFERENCES fd_c (pid))"
        )
        .await
        .0,
        1235 // a plain index: InnoDB takes it, SQLite needs a unique one
    );
    assert_eq!(
        err(
            &mut c,
            "CREATE TABLE fd_x (a INT, CONSTRAINT k FOREIGN KEY (a) REFERENCES fd_p (nope))"
        )
        .await
        .0,
        3734
    );
    assert_eq!(
        err(
            &mut c,
            "CREATE TABLE fd_x (a INT, FOREIGN KEY (a) REFERENCES fd_p (id) ON DELETE SET DEFAULT)"
        )
        .await
        .0,
        1215
    );
    assert_eq!(
        err(&mut c, "DROP TABLE fd_p").await,
        (
            3730,
            "Cannot drop table 'fd_p' referenced by a foreign key constraint 'fd_c_p' on table \
             'fd_c'."
                .into()
        )
    );
    assert_eq!(err(&mut c, "TRUNCATE TABLE fd_p").await.0, 1701);
    assert_eq!(
        err(
            &mut c,
            "CREATE TABLE fd_x (a INT, CONSTRAINT FD_C_P FOREIGN KEY (a) REFERENCES fd_p (id))"
        )
        .await,
        (
            1826,
            "Duplicate foreign key constraint name 'FD_C_P'".into()
        )
    );
    // What a key needs stays: its columns (1828, 1829) and its last index (1553).
    assert_eq!(
        err(&mut c, "ALTER TABLE fd_c DROP COLUMN pid").await,
        (
            1828,
            "Cannot drop column 'pid': needed in a foreign key constraint 'fd_c_p'".into()
        )
    );
    assert_eq!(err(&mut c, "ALTER TABLE fd_p DROP COLUMN id").await.0, 1829);
    assert_eq!(
        err(&mut c, "DROP INDEX fd_c_p ON fd_c").await,
        (
            1553,
            "Cannot drop index 'fd_c_p': needed in a foreign key constraint".into()
        )
    );
    assert_eq!(
        err(&mut c, "ALTER TABLE fd_p DROP PRIMARY KEY").await.0,
        1553
    );
    c.query_drop("INSERT INTO fd_p VALUES (1, 1); INSERT INTO fd_c VALUES (1, 1), (2, NULL)")
        .await
        .unwrap();
    // DROP FOREIGN KEY keeps the index; ADD checks the rows there.
    c.query_drop("ALTER TABLE fd_c DROP FOREIGN KEY fd_c_p")
        .await
        .unwrap();
    assert!(!show_create(&mut c, "fd_c").await.contains("CONSTRAINT"));
    assert!(show_create(&mut c, "fd_c")
        .await
        .contains("KEY `fd_c_p` (`pid`)"));
    assert_eq!(
        err(&mut c, "ALTER TABLE fd_c DROP FOREIGN KEY fd_c_p")
            .await
            .0,
        1091
    );
    c.query_drop("INSERT INTO fd_c VALUES (3, 5)")
        .await
        .unwrap();
    assert_eq!(
        err(
            &mut c,
            "ALTER TABLE fd_c ADD FOREIGN KEY (pid) REFERENCES fd_p (id)"
        )
        .await
        .0,
        1452
    );
    c.query_drop("DELETE FROM fd_c WHERE id = 3").await.unwrap();
    c.query_drop("ALTER TABLE fd_c ADD FOREIGN KEY (pid) REFERENCES fd_p (id) ON UPDATE CASCADE")
        .await
        .unwrap();
    assert!(show_create(&mut c, "fd_c").await.contains(
        "CONSTRAINT `fd_c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `fd_p` (`id`) ON UPDATE CASCADE"
    ));
    // A rebuild of the parent keeps its children's keys and rows.
    c.query_drop("ALTER TABLE fd_p MODIFY v BIGINT")
        .await
        .unwrap();
    c.query_drop("UPDATE fd_p SET id = 5 WHERE id = 1")
        .await
        .unwrap();
    let pid: Option<i64> = c
        .query_first("SELECT pid FROM fd_c WHERE id = 1")
        .await
        .unwrap();
    assert_eq!(pid, Some(5));
    // Dropped with its child, or with checks off: no error.
    c.query_drop("DROP TABLE fd_p, fd_c").await.unwrap();
    c.query_drop(
        "SET foreign_key_checks = 0; \
         CREATE TABLE fd_c2 (a INT, FOREIGN KEY (a) REFERENCES fd_p2 (id)); \
         SET foreign_key_checks = 1; \
         CREATE TABLE fd_p2 (id INT PRIMARY KEY)",
    )
    .await
    .unwrap();
    assert_eq!(err(&mut c, "INSERT INTO fd_c2 VALUES (1)").await.0, 1452);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn information_schema_lists_foreign_keys() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE fi_p (id INT PRIMARY KEY); \
         CREATE TABLE fi_c (id INT PRIMARY KEY, pid INT, \
           CONSTRAINT fi_k FOREIGN KEY (pid) REFERENCES fi_p (id) ON DELETE CASCADE)",
    )
    .await
    .unwrap();
    let tc: Vec<(String, String)> = c
        .query(
            "SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS \
             WHERE TABLE_NAME = 'fi_c' ORDER BY CONSTRAINT_NAME",
        )
        .await
        .unwrap();
    assert_eq!(
        tc,
        [
            ("PRIMARY".to_string(), "PRIMARY KEY".to_string()),
            ("fi_k".to_string(), "FOREIGN KEY".to_string())
        ]
    );
    let kcu: Vec<(String, String, String, String)> = c
        .query(
            "SELECT COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, \
             REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE \
             WHERE CONSTRAINT_NAME = 'fi_k'",
        )
        .await
        .unwrap();
    assert_eq!(
        kcu,
        [("pid".into(), "test".into(), "fi_p".into(), "id".into())]
    );
    let rc: Vec<(String, String, String, String)> = c
        .query(
            "SELECT UNIQUE_CONSTRAINT_NAME, UPDATE_RULE, DELETE_RULE, REFERENCED_TABLE_NAME \
             FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_NAME = 'fi_k'",
        )
        .await
        .unwrap();
    assert_eq!(
        rc,
        [(
            "PRIMARY".into(),
            "NO ACTION".into(),
            "CASCADE".into(),
            "fi_p".into()
        )]
    );
    c.query_drop("DROP TABLE fi_c, fi_p").await.unwrap();
}

/// The TABLE rows of `metadata_locks` of connection `id` on `fm_` tables: `(OBJECT_NAME,
/// LOCK_TYPE, LOCK_STATUS)`, by name.
async fn fm_locks(obs: &mut Conn, id: u64) -> Vec<(String, String, String)> {
    (locks_of(obs, id).await.into_iter())
        .filter(|l| l.0 == "TABLE" && l.1.as_deref().is_some_and(|n| n.starts_with("fm_")))
        .map(|l| (l.1.unwrap_or_default(), l.2, l.3))
        .collect()
}

fn rows(r: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    (r.iter())
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

/// MySQL's prelocking of the tables a foreign key relates (`mdl-sql`'s `plan/foreign_keys.rs`):
/// an INSERT into a child reads its parent, so it waits behind `LOCK TABLES parent WRITE`; a
/// transaction that wrote the child holds SHARED_READ on the parent, and an ALTER TABLE of the
/// parent waits for it; one that only read the child holds the child, which the parent's
/// ALTER TABLE locks too (SU, then X), so it waits as well.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_lock_the_tables_a_foreign_key_relates() {
    let mut a = conn().await;
    let mut b = conn().await;
    let mut obs = conn().await;
    let b_id = id(&mut b).await;
    let a_id = id(&mut a).await;
    a.query_drop(
        "CREATE TABLE fm_a_parent (id INT PRIMARY KEY); \
         CREATE TABLE fm_b_child (id INT PRIMARY KEY, pid INT, \
           FOREIGN KEY (pid) REFERENCES fm_a_parent (id)); \
         INSERT INTO fm_a_parent VALUES (1), (2)",
    )
    .await
    .unwrap();

    // LOCK TABLES parent WRITE: the child's INSERT waits for SHARED_READ on the parent.
    a.query_drop("LOCK TABLES fm_a_parent WRITE").await.unwrap();
    let insert = tokio::spawn(async move {
        let r = b.query_drop("INSERT INTO fm_b_child VALUES (1, 1)").await;
        (b, r)
    });
    wait_state(&mut obs, b_id, "Waiting for table metadata lock").await;
    assert_eq!(
        fm_locks(&mut obs, b_id).await,
        rows(&[("fm_a_parent", "SHARED_READ", "PENDING")])
    );
    a.query_drop("UNLOCK TABLES").await.unwrap();
    let (mut b, r) = bounded("INSERT", insert).await.unwrap();
    r.unwrap();

    // A transaction that wrote the child holds the parent: the parent's ALTER TABLE waits.
    b.query_drop("BEGIN; INSERT INTO fm_b_child VALUES (2, 2)")
        .await
        .unwrap();
    assert_eq!(
        fm_locks(&mut obs, b_id).await,
        rows(&[
            ("fm_a_parent", "SHARED_READ", "GRANTED"),
            ("fm_b_child", "SHARED_WRITE", "GRANTED"),
        ])
    );
    let alter = tokio::spawn(async move {
        let r = a
            .query_drop("ALTER TABLE fm_a_parent ADD COLUMN x INT")
            .await;
        (a, r)
    });
    wait_state(&mut obs, a_id, "Waiting for table metadata lock").await;
    b.query_drop("COMMIT").await.unwrap();
    let (mut a, r) = bounded("ALTER", alter).await.unwrap();
    r.unwrap();

    // One that only read the child: the parent's ALTER TABLE waits for the child.
    b.query_drop("BEGIN; SELECT * FROM fm_b_child")
        .await
        .unwrap();
    let alter = tokio::spawn(async move {
        let r = a
            .query_drop("ALTER TABLE fm_a_parent ADD COLUMN y INT")
            .await;
        (a, r)
    });
    wait_state(&mut obs, a_id, "Waiting for table metadata lock").await;
    let waiting = fm_locks(&mut obs, a_id).await;
    assert!(
        waiting.contains(&("fm_b_child".into(), "EXCLUSIVE".into(), "PENDING".into())),
        "{waiting:?}"
    );
    b.query_drop("COMMIT").await.unwrap();
    let (mut a, r) = bounded("ALTER", alter).await.unwrap();
    r.unwrap();

    // With foreign_key_checks = 0 a write locks no related table (`handle_table`).
    b.query_drop("SET foreign_key_checks = 0; BEGIN; INSERT INTO fm_b_child VALUES (3, 1)")
        .await
        .unwrap();
    assert_eq!(
        fm_locks(&mut obs, b_id).await,
        rows(&[("fm_b_child", "SHARED_WRITE", "GRANTED")])
    );
    b.query_drop("COMMIT; SET foreign_key_checks = 1")
        .await
        .unwrap();
    a.query_drop("DROP TABLE fm_b_child, fm_a_parent")
        .await
        .unwrap();
}

/// MySQL renames a parent in its children's keys whatever `foreign_key_checks` says; a SET
/// NULL key on a NOT NULL column is 1830 (`innobase_check_fk_option`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renamed_parents_and_set_null() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE fr_p (id INT PRIMARY KEY); \
         CREATE TABLE fr_c (id INT PRIMARY KEY, pid INT, \
           CONSTRAINT fr_k FOREIGN KEY (pid) REFERENCES fr_p (id)); \
         SET foreign_key_checks = 0; RENAME TABLE fr_p TO fr_p2; SET foreign_key_checks = 1; \
         ALTER TABLE fr_p2 RENAME TO fr_p3; INSERT INTO fr_p3 VALUES (1)",
    )
    .await
    .unwrap();
    assert!(show_create(&mut c, "fr_c")
        .await
        .contains("REFERENCES `fr_p3` (`id`)"));
    c.query_drop("INSERT INTO fr_c VALUES (1, 1)")
        .await
        .unwrap();
    assert_eq!(err(&mut c, "INSERT INTO fr_c VALUES (2, 2)").await.0, 1452);
    assert_eq!(
        err(
            &mut c,
            "CREATE TABLE fr_x (a INT NOT NULL, CONSTRAINT fr_x_k FOREIGN KEY (a) \
             REFERENCES fr_p3 (id) ON DELETE SET NULL)"
        )
        .await,
        (
            1830,
            "Column 'a' cannot be NOT NULL: needed in a foreign key constraint 'fr_x_k' SET NULL"
                .into()
        )
    );
    c.query_drop("DROP TABLE fr_c, fr_p3").await.unwrap();
}
