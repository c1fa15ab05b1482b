//! The sys schema's functions a DBA calls by hand, with the values MySQL's manual and
//! MariaDB 10.11's sys schema give, and `sys.schema_table_lock_waits` beside its `x$` form:
//! the waiting statement through `sys.format_statement`, then whole.

mod common;

use common::*;
use mysql_async::prelude::*;
use mysql_async::Row;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sys_functions_format_as_mysqls() {
    let mut c = conn().await;
    let row: Row = c
        .query_first(
            "SELECT sys.format_time(3501), SYS.FORMAT_TIME(188732396662000), \
             sys.format_time(43), sys.format_time(NULL), sys.format_bytes(1500), \
             sys.format_bytes(100), sys.format_statement(REPEAT('a', 100)), \
             sys.quote_identifier('a`b'), \
             sys.ps_thread_id(NULL) = PS_CURRENT_THREAD_ID()",
        )
        .await
        .unwrap()
        .unwrap();
    let text = |i: usize| row.get::<Option<String>, _>(i).unwrap();
    assert_eq!(text(0).as_deref(), Some("3.50 ns"));
    assert_eq!(text(1).as_deref(), Some("3.15 m"));
    assert_eq!(text(2).as_deref(), Some("43 ps"));
    assert_eq!(text(3), None);
    assert_eq!(text(4).as_deref(), Some("1.46 KiB"));
    assert_eq!(text(5).as_deref(), Some("100 bytes"));
    let a30 = "a".repeat(30);
    assert_eq!(text(6), Some(format!("{a30} ... {a30}")));
    assert_eq!(text(7).as_deref(), Some("`a``b`"));
    assert_eq!(row.get::<i64, _>(8), Some(1));
    let version: (i64, i64, i64, String) = c
        .query_first(
            "SELECT sys.version_major(), sys.version_minor(), sys.version_patch(), VERSION()",
        )
        .await
        .unwrap()
        .unwrap();
    assert!(
        version
            .3
            .starts_with(&format!("{}.{}.{}", version.0, version.1, version.2)),
        "{version:?}"
    );
    let err = c.query_drop("SELECT sys.no_such(1)").await.unwrap_err();
    assert!(err.to_string().contains("1305"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_table_lock_waits_formats_the_statement_and_x_keeps_it() {
    let mut holder = conn().await;
    let mut obs = conn().await;
    holder
        .query_drop("CREATE TABLE sysfn_wait (id INT PRIMARY KEY)")
        .await
        .unwrap();
    holder.query_drop("BEGIN").await.unwrap();
    holder.query_drop("SELECT * FROM sysfn_wait").await.unwrap();
    let mut ddl = conn().await;
    let d = id(&mut ddl).await;
    let alter = "ALTER TABLE sysfn_wait ADD COLUMN a_rather_long_column_name INT, \
                 ADD COLUMN another_rather_long_column_name INT";
    let t = tokio::spawn(async move {
        let r = ddl.query_drop(alter).await;
        (r, ddl)
    });
    wait_state(&mut obs, d, "Waiting for table metadata lock").await;
    let shown = |view: &str| {
        format!(
            "SELECT DISTINCT waiting_query FROM sys.{view} \
             WHERE object_name = 'sysfn_wait' AND waiting_pid = {d}"
        )
    };
    let short: Vec<String> = obs.query(shown("schema_table_lock_waits")).await.unwrap();
    let whole: Vec<String> = obs.query(shown("x$schema_table_lock_waits")).await.unwrap();
    assert_eq!(whole, [alter]);
    let (head, tail) = (&alter[..30], &alter[alter.len() - 30..]);
    assert_eq!(short, [format!("{head} ... {tail}")]);
    holder.query_drop("COMMIT").await.unwrap();
    let (r, _ddl) = t.await.unwrap();
    r.unwrap();
}
