//! Real command-line clients, unmodified, beyond the dump of `tests/dump.rs`: `mysqlslap`
//! (`mariadb-slap`), whose auto-generated loads run at concurrency 4 and leave no schema and no
//! metadata lock behind, and `mariadb-admin` (`mysqladmin`), whose `status` and `version` read
//! `COM_STATISTICS`. `mysqlslap` sends each statement with the C string's NUL terminator inside
//! the packet and creates its table with a `SERIAL` column; both are also checked with
//! `mysql_async`, so they hold where the tools are missing. `sysbench` runs prepared statements
//! through libmariadb, which sends a statement's parameter types with its first execution only
//! (`mysql_async` sends them every time). The tools' runs are skipped, loudly, without them
//! (Debian's `mariadb-client`, `sysbench`); `MDL_SERVER_REQUIRE_CLIENTS=1` (CI) makes that a
//! failure. Every run is bounded in time.

mod common;

use common::clients::{run, sysbench_script, tools_or_skip};
use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nul_terminator_ends_the_statement() {
    let mut c = conn().await;
    let one: Option<i64> = c.query_first("SELECT 1\0").await.unwrap();
    assert_eq!(one, Some(1));
    let v: Option<i64> = c.exec_first("SELECT ? + 1\0", (41,)).await.unwrap();
    assert_eq!(v, Some(42));
    // Inside the text it is not the end: a syntax error, and the connection goes on.
    assert_eq!(code(c.query_drop("SELECT 1\0 + 1").await).0, 1064);
    let two: Option<i64> = c.query_first("SELECT 2").await.unwrap();
    assert_eq!(two, Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serial_counts_as_a_bigint_unsigned_auto_increment_unique() {
    let mut c = conn().await;
    c.query_drop("CREATE TABLE slap_serial (id SERIAL, v INT)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO slap_serial VALUES (NULL, 1), (NULL, 2)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO slap_serial (v) VALUES (3)")
        .await
        .unwrap();
    let rows: Vec<(u64, i64)> = c
        .query("SELECT id, v FROM slap_serial ORDER BY id")
        .await
        .unwrap();
    assert_eq!(rows, [(1, 1), (2, 2), (3, 3)]);
    let last: Option<u64> = c.query_first("SELECT LAST_INSERT_ID()").await.unwrap();
    assert_eq!(last, Some(3));
    // No primary key besides: the column is the one InnoDB clusters by, `PRI` in DESCRIBE.
    let (_, _, null, key, _, extra): (String, String, String, String, Option<String>, String) = c
        .query_first("DESCRIBE slap_serial")
        .await
        .unwrap()
        .unwrap();
    assert_eq!((null.as_str(), key.as_str()), ("NO", "PRI"));
    assert_eq!(extra, "auto_increment");
    // Beside another primary key, it is a NOT NULL unique column.
    c.query_drop("CREATE TABLE slap_serial2 (id SERIAL, k INT PRIMARY KEY)")
        .await
        .unwrap();
    let (_, create): (String, String) = c
        .query_first("SHOW CREATE TABLE slap_serial2")
        .await
        .unwrap()
        .unwrap();
    assert!(create.contains("`id` bigint unsigned NOT NULL"), "{create}");
    assert!(create.contains("UNIQUE KEY `id` (`id`)"), "{create}");
    c.query_drop("DROP TABLE slap_serial, slap_serial2")
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysqlslap_auto_generated_loads_run() {
    let Some([slap]) = tools_or_skip(
        "mysqlslap_auto_generated_loads_run",
        [&["mariadb-slap", "mysqlslap"]],
    ) else {
        return;
    };
    let addr = server();
    let loads: [(&str, &[&str]); 6] = [
        ("mixed", &["--auto-generate-sql-add-autoincrement"]),
        ("key", &["--auto-generate-sql-add-autoincrement"]),
        ("update", &["--auto-generate-sql-add-autoincrement"]),
        ("write", &["--auto-generate-sql-secondary-indexes=2"]),
        ("read", &["--commit=10"]),
        ("key", &["--auto-generate-sql-guid-primary"]),
    ];
    for (i, (load, extra)) in loads.iter().enumerate() {
        let schema = format!("slap{i}");
        let mut args: Vec<String> = [
            "-h127.0.0.1".to_string(),
            format!("-P{}", addr.port()),
            "-uroot".into(),
            format!("--create-schema={schema}"),
            "--auto-generate-sql".into(),
            format!("--auto-generate-sql-load-type={load}"),
            "--concurrency=4".into(),
            "--iterations=1".into(),
            "--number-of-queries=200".into(),
        ]
        .into();
        args.extend(extra.iter().map(|a| a.to_string()));
        let out = tokio::task::block_in_place(|| run(&slap, &args, None));
        assert!(
            out.contains("Number of clients running queries: 4"),
            "{load} {extra:?}: {out}"
        );
        let mut c = conn().await;
        let schemas: Vec<String> = c.query("SHOW DATABASES").await.unwrap();
        assert!(!schemas.contains(&schema), "{load}: {schemas:?}");
        let left: Vec<(String, String)> = c
            .query(format!(
                "SELECT OBJECT_TYPE, LOCK_TYPE FROM performance_schema.metadata_locks \
                 WHERE OBJECT_SCHEMA = '{schema}'"
            ))
            .await
            .unwrap();
        assert!(left.is_empty(), "{load}: {left:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysqladmin_status_and_version_read_com_statistics() {
    let Some([admin]) = tools_or_skip(
        "mysqladmin_status_and_version_read_com_statistics",
        [&["mariadb-admin", "mysqladmin"]],
    ) else {
        return;
    };
    let addr = server();
    let args = |command: &str| -> Vec<String> {
        vec![
            "-h127.0.0.1".into(),
            format!("-P{}", addr.port()),
            "-uroot".into(),
            command.into(),
        ]
    };
    let status = tokio::task::block_in_place(|| run(&admin, &args("status"), None));
    assert!(status.starts_with("Uptime: "), "{status}");
    for part in ["  Threads: ", "  Questions: ", "  Queries per second avg: "] {
        assert!(status.contains(part), "{part}: {status}");
    }
    let version = tokio::task::block_in_place(|| run(&admin, &args("version"), None));
    assert!(version.contains("8.0.45-mdl"), "{version}");
    assert!(
        version.contains("Uptime:") && version.contains("Threads: "),
        "{version}"
    );
    assert!(!version.contains("Wrong"), "{version}");
    let ping = tokio::task::block_in_place(|| run(&admin, &args("ping"), None));
    assert!(ping.contains("is alive"), "{ping}");
}

/// A sysbench script: three statements prepared on one connection, executed in turn 15 times
/// with an id each, printing the rows each execution returned.
const INTERLEAVED_EXECUTIONS: &str = r#"
function event()
  local con = sysbench.sql.driver():connect()
  local st, ps = {}, {}
  for t = 1, 3 do
    st[t] = con:prepare("SELECT v FROM sb_params WHERE id = ? AND t = " .. t)
    ps[t] = st[t]:bind_create(sysbench.sql.type.INT)
    st[t]:bind_param(ps[t])
  end
  for i = 1, 15 do
    local t = (i % 3) + 1
    ps[t]:set(i * 7)
    local rs = st[t]:execute()
    print(string.format("execution %d rows %d", i, rs.nrows))
  end
  con:disconnect()
end
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn later_executions_of_libmariadb_keep_their_parameters() {
    let Some([sysbench]) = tools_or_skip(
        "later_executions_of_libmariadb_keep_their_parameters",
        [&["sysbench"]],
    ) else {
        return;
    };
    let addr = server();
    let mut c = conn().await;
    c.query_drop("CREATE DATABASE sb_exec").await.unwrap();
    c.query_drop("CREATE TABLE sb_exec.sb_params (id INT, t INT, v INT, PRIMARY KEY (id, t))")
        .await
        .unwrap();
    // Ids 7, 14, ..., 105 in each of the three: one row per execution. Read one byte early, as
    // they were, 14 is 3584: no row.
    let rows: Vec<String> = (1..=15)
        .flat_map(|i| (1..=3).map(move |t| format!("({}, {t}, {i})", i * 7)))
        .collect();
    c.query_drop(format!(
        "INSERT INTO sb_exec.sb_params VALUES {}",
        rows.join(", ")
    ))
    .await
    .unwrap();
    let out = sysbench_script(sysbench, addr.port(), "sb_exec", INTERLEAVED_EXECUTIONS).await;
    let counts: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("execution "))
        .collect();
    assert_eq!(counts.len(), 15, "{out}");
    for line in counts {
        assert!(line.ends_with(" rows 1"), "{line}\n{out}");
    }
    c.query_drop("DROP DATABASE sb_exec").await.unwrap();
}

/// A client with `CLIENT_FOUND_ROWS` (Connector/J's default) counts an UPDATE's matched rows
/// and an upsert's row left as it was as 1; without it, the changed rows (the other tests).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn found_rows_clients_count_the_matched_rows() {
    let addr = server();
    let url = format!("mysql://root@{}:{}/test", addr.ip(), addr.port());
    let opts = mysql_async::OptsBuilder::from_opts(mysql_async::Opts::from_url(&url).unwrap())
        .client_found_rows(true);
    let mut c = mysql_async::Conn::new(opts).await.unwrap();
    let mut plain = conn().await;
    fresh(&mut c, "found_rows", "id INT PRIMARY KEY, v INT").await;
    c.query_drop("INSERT INTO found_rows VALUES (1, 1), (2, 2), (3, 3)")
        .await
        .unwrap();
    for (sql, found) in [
        ("UPDATE found_rows SET v = v", 3),
        // Row 1 changes, row 2 is matched as it is.
        ("UPDATE found_rows SET v = 2 WHERE id <= 2", 2),
        (
            "INSERT INTO found_rows VALUES (1, 2) ON DUPLICATE KEY UPDATE v = 2",
            1,
        ),
        (
            "INSERT INTO found_rows VALUES (4, 4) ON DUPLICATE KEY UPDATE v = 4",
            1,
        ),
    ] {
        c.query_drop(sql).await.unwrap();
        assert_eq!(c.affected_rows(), found, "found rows: {sql}");
        // The same again without the flag: every row it matches is as it was, so 0.
        plain.query_drop(sql).await.unwrap();
        assert_eq!(plain.affected_rows(), 0, "changed rows: {sql}");
    }
}
