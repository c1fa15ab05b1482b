//! `information_schema` (`SCHEMATA`, `TABLES`, `COLUMNS`, `STATISTICS`, the key tables) and
//! `SHOW INDEX`, as a MySQL client sees them: rows read from the catalog at the statement,
//! SQLite's `WHERE`, `ORDER BY` and joins over them, and writes refused with MySQL's 1044. The
//! other `SHOW` statements are in `info_schema_show.rs`.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Row;

/// `(TABLE_NAME, NON_UNIQUE, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NULLABLE)`.
type IndexRow = (String, i64, String, i64, String, String);

async fn statistics(c: &mut mysql_async::Conn, table: &str) -> Vec<IndexRow> {
    c.exec(
        "SELECT TABLE_NAME, NON_UNIQUE, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NULLABLE \
         FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = ?",
        (table,),
    )
    .await
    .expect("statistics")
}

async fn show_index(c: &mut mysql_async::Conn, sql: &str) -> Vec<IndexRow> {
    let rows: Vec<Row> = c.query(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    let cols: Vec<String> = rows[0]
        .columns_ref()
        .iter()
        .map(|c| c.name_str().into_owned())
        .collect();
    assert_eq!(
        cols,
        [
            "Table",
            "Non_unique",
            "Key_name",
            "Seq_in_index",
            "Column_name",
            "Collation",
            "Cardinality",
            "Sub_part",
            "Packed",
            "Null",
            "Index_type",
            "Comment",
            "Index_comment",
            "Visible",
            "Expression"
        ],
        "{sql}"
    );
    rows.into_iter()
        .map(|r| {
            assert_eq!(r.get::<String, _>("Index_type").unwrap(), "BTREE");
            assert_eq!(r.get::<String, _>("Visible").unwrap(), "YES");
            assert_eq!(r.get::<Option<i64>, _>("Sub_part").unwrap(), None);
            (
                r.get("Table").unwrap(),
                r.get("Non_unique").unwrap(),
                r.get("Key_name").unwrap(),
                r.get("Seq_in_index").unwrap(),
                r.get("Column_name").unwrap(),
                r.get("Null").unwrap(),
            )
        })
        .collect()
}

fn row(t: &str, non_unique: i64, index: &str, seq: i64, col: &str, null: &str) -> IndexRow {
    (
        t.into(),
        non_unique,
        index.into(),
        seq,
        col.into(),
        null.into(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_columns_and_statistics_describe_the_tables() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE is_orders (id INT AUTO_INCREMENT PRIMARY KEY, \
         email VARCHAR(40) NOT NULL UNIQUE, customer INT, total DECIMAL(10,2) DEFAULT '0.5', \
         KEY by_customer (customer))",
    )
    .await
    .unwrap();
    c.query_drop("CREATE TABLE is_pair (a INT, b INT, note TEXT, PRIMARY KEY (a, b))")
        .await
        .unwrap();
    c.query_drop("CREATE INDEX by_note ON is_pair (note, a)")
        .await
        .unwrap();
    c.query_drop(
        "INSERT INTO is_orders (email, customer) VALUES ('a@x', 1), ('b@x', 1), ('c@x', 2)",
    )
    .await
    .unwrap();

    let schemas: Vec<String> = c
        .query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY SCHEMA_NAME")
        .await
        .unwrap();
    assert_eq!(
        schemas,
        ["information_schema", "performance_schema", "sys", "test"]
    );

    type TableRow = (
        String,
        String,
        String,
        Option<String>,
        Option<i64>,
        Option<i64>,
    );
    let tables: Vec<TableRow> = c
        .query(
            "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_ROWS, AUTO_INCREMENT \
             FROM information_schema.tables WHERE table_schema = 'test' \
             AND table_name IN ('is_orders', 'is_pair') ORDER BY table_name",
        )
        .await
        .unwrap();
    let t = |name: &str, rows: i64, next: Option<i64>| {
        let (schema, kind) = ("test".to_string(), "BASE TABLE".to_string());
        (
            schema,
            name.to_string(),
            kind,
            Some("SQLite".into()),
            Some(rows),
            next,
        )
    };
    assert_eq!(tables, [t("is_orders", 3, Some(4)), t("is_pair", 0, None)]);
    // Table names are case-insensitive, as MySQL's information_schema's are.
    for q in [
        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'is_orders'",
        "SELECT COUNT(*) FROM information_schema.Tables WHERE table_name = 'is_orders'",
    ] {
        let n: Option<i64> = c.query_first(q).await.unwrap();
        assert_eq!(n, Some(1), "{q}");
    }
    let system: Option<String> = c
        .query_first(
            "SELECT TABLE_TYPE FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME = 'STATISTICS'",
        )
        .await
        .unwrap();
    assert_eq!(system.as_deref(), Some("SYSTEM VIEW"));

    type ColumnRow = (
        String,
        i64,
        Option<String>,
        String,
        String,
        String,
        String,
        String,
    );
    let columns: Vec<ColumnRow> = c
        .query(
            "SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, \
             COLUMN_TYPE, COLUMN_KEY, EXTRA FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'is_orders' ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    let col = |n: &str, p, d: Option<&str>, null: &str, ty: &str, full: &str, key: &str| {
        let extra = if n == "id" { "auto_increment" } else { "" };
        let d = d.map(str::to_string);
        let s = |x: &str| x.to_string();
        (s(n), p, d, s(null), s(ty), s(full), s(key), s(extra))
    };
    assert_eq!(
        columns,
        [
            col("id", 1, None, "NO", "int", "int", "PRI"),
            col("email", 2, None, "NO", "varchar", "varchar(40)", "UNI"),
            col("customer", 3, None, "YES", "int", "int", "MUL"),
            col(
                "total",
                4,
                Some("0.5"),
                "YES",
                "decimal",
                "decimal(10,2)",
                ""
            ),
        ]
    );
    // DESCRIBE says what COLUMNS says.
    type Described = (String, String, String, String, Option<String>, String);
    let described: Vec<Described> = c.query("DESCRIBE is_orders").await.unwrap();
    let keys: Vec<(&str, &str, Option<&str>)> = (described.iter())
        .map(|r| (r.3.as_str(), r.5.as_str(), r.4.as_deref()))
        .collect();
    assert_eq!(
        keys,
        [
            ("PRI", "auto_increment", None),
            ("UNI", "", None),
            ("MUL", "", None),
            ("", "", Some("0.5"))
        ]
    );
    let (len, charset): (Option<i64>, Option<String>) = c
        .query_first(
            "SELECT CHARACTER_MAXIMUM_LENGTH, CHARACTER_SET_NAME FROM information_schema.COLUMNS \
             WHERE TABLE_NAME = 'is_orders' AND COLUMN_NAME = 'email'",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!((len, charset.as_deref()), (Some(40), Some("utf8mb4")));

    assert_eq!(
        statistics(&mut c, "is_orders").await,
        [
            row("is_orders", 0, "PRIMARY", 1, "id", ""),
            row("is_orders", 0, "email", 1, "email", ""),
            row("is_orders", 1, "by_customer", 1, "customer", "YES"),
        ]
    );
    assert_eq!(
        statistics(&mut c, "is_pair").await,
        [
            row("is_pair", 0, "PRIMARY", 1, "a", ""),
            row("is_pair", 0, "PRIMARY", 2, "b", ""),
            row("is_pair", 1, "by_note", 1, "note", "YES"),
            row("is_pair", 1, "by_note", 2, "a", ""),
        ]
    );
    // A snapshot per statement: what a DDL changed shows at once.
    c.query_drop("ALTER TABLE is_pair ADD COLUMN extra INT")
        .await
        .unwrap();
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_NAME = 'is_pair'")
        .await
        .unwrap();
    assert_eq!(n, Some(4));
    c.query_drop("DROP TABLE is_orders, is_pair").await.unwrap();
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 'is_pair'")
        .await
        .unwrap();
    assert_eq!(n, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_index_lists_the_keys_statistics_lists() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE is_keys (id INT PRIMARY KEY, code CHAR(4) UNIQUE, x INT, y INT, \
         INDEX xy (x, y))",
    )
    .await
    .unwrap();
    let want = [
        row("is_keys", 0, "PRIMARY", 1, "id", ""),
        row("is_keys", 0, "code", 1, "code", "YES"),
        row("is_keys", 1, "xy", 1, "x", "YES"),
        row("is_keys", 1, "xy", 2, "y", "YES"),
    ];
    for sql in [
        "SHOW INDEX FROM is_keys",
        "SHOW INDEXES IN is_keys FROM test",
        "SHOW KEYS FROM test.is_keys",
        "show keys in `is_keys` in `test`",
        "SHOW INDEX FROM IS_KEYS",
    ] {
        assert_eq!(show_index(&mut c, sql).await, want, "{sql}");
    }
    assert_eq!(statistics(&mut c, "is_keys").await, want);
    // An index keeps its MySQL name when its table is renamed (SQLite's name keeps the old
    // table's prefix).
    c.query_drop("RENAME TABLE is_keys TO is_keys2")
        .await
        .unwrap();
    let renamed = show_index(&mut c, "SHOW INDEX FROM is_keys2").await;
    let names: Vec<&str> = renamed.iter().map(|r| r.2.as_str()).collect();
    assert_eq!(names, ["PRIMARY", "code", "xy", "xy"]);

    for (sql, want) in [
        ("SHOW INDEX FROM is_keys", (1146, "42S02")),
        ("SHOW INDEX FROM is_nosuch", (1146, "42S02")),
        ("SHOW KEYS FROM is_keys2 FROM nosuchdb", (1049, "42000")),
    ] {
        let (code, state) = code(c.query_drop(sql).await);
        assert_eq!((code, state.as_str()), want, "{sql}");
    }
    c.query_drop("DROP TABLE is_keys2").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_over_information_schema_filter_sort_and_join() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE is_j1 (id INT PRIMARY KEY, a INT, b INT, KEY ka (a))")
        .await
        .unwrap();
    c.query_drop("CREATE TABLE is_j2 (id INT PRIMARY KEY, c INT)")
        .await
        .unwrap();
    c.query_drop("CREATE TABLE is_wanted (name VARCHAR(20))")
        .await
        .unwrap();
    c.query_drop("INSERT INTO is_wanted VALUES ('is_j1'), ('is_j2')")
        .await
        .unwrap();
    // Indexed columns with their types: STATISTICS joined with COLUMNS.
    let indexed: Vec<(String, String, String, String)> = c
        .query(
            "SELECT s.TABLE_NAME, s.INDEX_NAME, s.COLUMN_NAME, c.COLUMN_TYPE \
             FROM information_schema.STATISTICS s JOIN information_schema.COLUMNS c \
               ON c.TABLE_SCHEMA = s.TABLE_SCHEMA AND c.TABLE_NAME = s.TABLE_NAME \
              AND c.COLUMN_NAME = s.COLUMN_NAME \
             WHERE s.TABLE_SCHEMA = 'test' AND s.TABLE_NAME LIKE 'is_j%' \
             ORDER BY s.TABLE_NAME DESC, s.INDEX_NAME",
        )
        .await
        .unwrap();
    let r = |t: &str, i: &str, col: &str| (t.into(), i.into(), col.into(), "int".to_string());
    assert_eq!(
        indexed,
        [
            r("is_j2", "PRIMARY", "id"),
            r("is_j1", "PRIMARY", "id"),
            r("is_j1", "ka", "a")
        ]
    );
    // Columns per table, for the tables a user table names, as a prepared statement.
    let per_table: Vec<(String, i64)> = c
        .exec(
            "SELECT t.TABLE_NAME, COUNT(*) FROM is_wanted w \
             JOIN information_schema.TABLES t ON t.TABLE_NAME = w.name \
             JOIN information_schema.COLUMNS c USING (TABLE_SCHEMA, TABLE_NAME) \
             WHERE t.TABLE_SCHEMA = ? GROUP BY t.TABLE_NAME ORDER BY t.TABLE_NAME",
            ("test",),
        )
        .await
        .unwrap();
    assert_eq!(per_table, [("is_j1".into(), 3), ("is_j2".into(), 2)]);
    // A copy of the catalog into a table of the user's.
    c.query_drop(
        "INSERT INTO is_wanted SELECT COLUMN_NAME FROM information_schema.COLUMNS \
         WHERE TABLE_NAME = 'is_j2'",
    )
    .await
    .unwrap();
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM is_wanted")
        .await
        .unwrap();
    assert_eq!(n, Some(4));
    // Inside a transaction: the snapshot does not disturb the session's transaction.
    c.query_drop("BEGIN").await.unwrap();
    c.query_drop("INSERT INTO is_wanted VALUES ('in_txn')")
        .await
        .unwrap();
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 'is_j1'")
        .await
        .unwrap();
    assert_eq!(n, Some(1));
    c.query_drop("ROLLBACK").await.unwrap();
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM is_wanted")
        .await
        .unwrap();
    assert_eq!(n, Some(4));
    // The schema as the current one.
    c.query_drop("USE information_schema").await.unwrap();
    let names: Vec<String> = c
        .query(
            "SELECT TABLE_NAME FROM tables WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME LIKE 'is_j%'",
        )
        .await
        .unwrap();
    assert_eq!(names, ["is_j1", "is_j2"]);
    let tables: Vec<String> = c.query("SHOW TABLES").await.unwrap();
    assert_eq!(
        tables,
        [
            "CHARACTER_SETS",
            "COLLATIONS",
            "COLUMNS",
            "ENGINES",
            "EVENTS",
            "INNODB_TRX",
            "KEY_COLUMN_USAGE",
            "PLUGINS",
            "PROCESSLIST",
            "REFERENTIAL_CONSTRAINTS",
            "ROUTINES",
            "SCHEMATA",
            "STATISTICS",
            "TABLES",
            "TABLE_CONSTRAINTS",
            "TRIGGERS",
            "VIEWS"
        ]
    );
    c.query_drop("USE test").await.unwrap();
    c.query_drop("DROP TABLE is_j1, is_j2, is_wanted")
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_to_information_schema_are_refused_and_the_connection_goes_on() {
    let mut c = conn().await;
    for sql in [
        "UPDATE information_schema.TABLES SET TABLE_NAME = 'x'",
        "DELETE FROM information_schema.columns",
        "INSERT INTO information_schema.SCHEMATA (SCHEMA_NAME) VALUES ('x')",
        "TRUNCATE TABLE information_schema.STATISTICS",
        "DROP TABLE information_schema.TABLES",
        "CREATE TABLE information_schema.mine (id INT)",
        "CREATE DATABASE information_schema",
        "CREATE DATABASE IF NOT EXISTS information_schema",
        "DROP DATABASE information_schema",
    ] {
        let (code, state) = code(c.query_drop(sql).await);
        assert_eq!((code, state.as_str()), (1044, "42000"), "{sql}");
    }
    let (code, state) = code(
        c.query_drop("SELECT * FROM information_schema.nosuch")
            .await,
    );
    assert_eq!((code, state.as_str()), (1109, "42S02"));
    // Nothing was changed, and the connection works.
    let one: Option<i64> = c.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1));
    let n: Option<i64> = c
        .query_first(
            "SELECT COUNT(*) FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = 'information_schema'",
        )
        .await
        .unwrap();
    assert_eq!(n, Some(17));
    // Its tables describe themselves with MySQL's types.
    let described: Vec<(String, String, String, String, Option<String>, String)> =
        c.query("DESCRIBE information_schema.TABLES").await.unwrap();
    let types: Vec<(&str, &str)> = (described.iter())
        .filter(|r| r.0 == "TABLE_NAME" || r.0 == "TABLE_ROWS")
        .map(|r| (r.0.as_str(), r.1.as_str()))
        .collect();
    assert_eq!(
        types,
        [
            ("TABLE_NAME", "varchar(64)"),
            ("TABLE_ROWS", "bigint unsigned")
        ]
    );
    let tables: Vec<String> = c
        .query("SHOW TABLES FROM information_schema")
        .await
        .unwrap();
    assert!(
        !tables.iter().any(|t| t.eq_ignore_ascii_case("mine")),
        "{tables:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_are_listed_as_orms_read_them() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE is_pk (a INT, b INT, c INT, PRIMARY KEY (a, b), UNIQUE KEY uc (c), KEY kb (b))",
    )
    .await
    .unwrap();
    let constraints: Vec<(String, String)> = c
        .query(
            "SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS \
             WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'is_pk' ORDER BY 1",
        )
        .await
        .unwrap();
    assert_eq!(
        constraints,
        [
            ("PRIMARY".into(), "PRIMARY KEY".into()),
            ("uc".into(), "UNIQUE".into())
        ]
    );
    let columns: Vec<(String, String, u64)> = c
        .query(
            "SELECT CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION \
             FROM information_schema.KEY_COLUMN_USAGE \
             WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'is_pk' ORDER BY 1, 3",
        )
        .await
        .unwrap();
    let columns: Vec<(&str, &str, u64)> = (columns.iter())
        .map(|(k, c, n)| (k.as_str(), c.as_str(), *n))
        .collect();
    assert_eq!(
        columns,
        [("PRIMARY", "a", 1), ("PRIMARY", "b", 2), ("uc", "c", 1)]
    );
    let none: Vec<String> = c
        .query("SELECT CONSTRAINT_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS")
        .await
        .unwrap();
    assert!(none.is_empty(), "no foreign keys are kept");
    c.query_drop("DROP TABLE is_pk").await.unwrap();
}
