//! `GET [CURRENT | STACKED] DIAGNOSTICS` at top level through the real server, as MySQL 8.0
//! runs it (`sql/sql_get_diagnostics.cc`): user variables get the statement's or a
//! condition's items, the area stays as it was, a condition number out of range is an
//! Error-level condition appended to the area, `STACKED` outside a handler is error 3004.

mod common;

use common::{code, conn};
use mysql_async::prelude::*;
use mysql_async::Conn;

/// `@n, @r, @e, @m, @s, @c, @sc, @t`.
type Items = (u64, i64, u16, String, String, String, String, String);

/// `SHOW WARNINGS`' rows.
async fn shown(c: &mut Conn) -> Vec<(String, u16, String)> {
    c.query("SHOW WARNINGS").await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_statement_s_and_a_condition_s_items_into_user_variables() {
    let mut c = conn().await;
    c.query_drop("DROP TABLE IF EXISTS gd_none1, gd_none2")
        .await
        .unwrap();
    c.query_drop("GET DIAGNOSTICS @n = NUMBER, @r = ROW_COUNT")
        .await
        .unwrap();
    assert_eq!(c.get_warnings(), 0, "it raises nothing");
    c.query_drop("GET CURRENT DIAGNOSTICS CONDITION 2 @e = MYSQL_ERRNO, @m = MESSAGE_TEXT, @s = RETURNED_SQLSTATE, @c = CLASS_ORIGIN, @sc = SUBCLASS_ORIGIN, @t = TABLE_NAME")
        .await
        .unwrap();
    // Read by a select, which clears the area: the area was kept for each GET DIAGNOSTICS.
    let row: Option<Items> = c
        .query_first("SELECT @n, @r, @e, @m, @s, @c, @sc, @t")
        .await
        .unwrap();
    assert_eq!(
        row,
        Some((
            2,
            0,
            1051,
            "Unknown table 'test.gd_none2'".into(),
            "42S02".into(),
            "ISO 9075".into(),
            "MySQL".into(),
            String::new()
        ))
    );
    // A warning's, by a variable's number; an error's.
    let _: Vec<Option<f64>> = c.query("SELECT 1/0").await.unwrap();
    c.query_drop("SET @k = 1").await.unwrap();
    let _: Vec<Option<f64>> = c.query("SELECT 1/0").await.unwrap();
    c.query_drop("GET DIAGNOSTICS CONDITION @k @e = MYSQL_ERRNO, @s = RETURNED_SQLSTATE")
        .await
        .unwrap();
    let row: Option<(u16, String)> = c.query_first("SELECT @e, @s").await.unwrap();
    assert_eq!(row, Some((1365, "22012".into())));
    let (n, _) = code(c.query_drop("SELECT * FROM gd_missing").await);
    assert_eq!(n, 1146);
    c.query_drop("GET DIAGNOSTICS CONDITION 1 @e = MYSQL_ERRNO, @c = CLASS_ORIGIN")
        .await
        .unwrap();
    let rows = shown(&mut c).await;
    assert_eq!(rows.len(), 1, "still the error: {rows:?}");
    let row: Option<(u16, String)> = c.query_first("SELECT @e, @c").await.unwrap();
    assert_eq!(row, Some((1146, "ISO 9075".into())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_out_of_range_condition_is_appended_and_stacked_is_an_error() {
    let mut c = conn().await;
    let _: Vec<Option<f64>> = c.query("SELECT 1/0").await.unwrap();
    c.query_drop("GET DIAGNOSTICS CONDITION 5 @m = MESSAGE_TEXT")
        .await
        .unwrap();
    assert_eq!(
        c.get_warnings(),
        1,
        "the statement succeeds with one warning"
    );
    let rows = shown(&mut c).await;
    assert_eq!(
        rows,
        [
            ("Warning".to_string(), 1365, "Division by 0".to_string()),
            (
                "Error".to_string(),
                1758,
                "Invalid condition number".to_string()
            )
        ]
    );
    let m: Option<Option<String>> = c.query_first("SELECT @m").await.unwrap();
    assert_eq!(m, Some(None), "no value assigned");
    let _: Vec<Option<f64>> = c.query("SELECT 1/0").await.unwrap();
    let (n, state) = code(c.query_drop("GET STACKED DIAGNOSTICS @n = NUMBER").await);
    assert_eq!((n, state.as_str()), (3004, "0Z002"));
    assert_eq!(shown(&mut c).await.len(), 1, "the area as it was");
    // Malformed: a syntax error, which the area then holds; a target that is no user
    // variable.
    let (n, _) = code(c.query_drop("GET DIAGNOSTICS @n = MESSAGE_TEXT").await);
    assert_eq!(n, 1064);
    let rows = shown(&mut c).await;
    assert_eq!((rows.len(), rows[0].1), (1, 1064));
    let (n, _) = code(c.query_drop("GET DIAGNOSTICS n = NUMBER").await);
    assert_eq!(n, 1327);
    // Condition 0 is out of range too.
    c.query_drop("GET DIAGNOSTICS CONDITION 0 @m = MESSAGE_TEXT")
        .await
        .unwrap();
    let rows = shown(&mut c).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].1, 1758);
}

/// `Com_get_diagnostics` of this session.
async fn counted(c: &mut Conn) -> u64 {
    let row: Option<(String, String)> = c
        .query_first("SHOW SESSION STATUS LIKE 'Com_get_diagnostics'")
        .await
        .unwrap();
    row.expect("the counter").1.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn it_is_not_prepared_and_counts_as_its_command() {
    let mut c = conn().await;
    let before = counted(&mut c).await;
    // The binary protocol's prepare (mysql_async's `exec`): MySQL's 1295, which the area then
    // holds.
    let (n, state) = code(c.exec_drop("GET DIAGNOSTICS @n = NUMBER", ()).await);
    assert_eq!((n, state.as_str()), (1295, "HY000"));
    let message = "This command is not supported in the prepared statement protocol yet";
    assert_eq!(
        shown(&mut c).await,
        [("Error".to_string(), 1295, message.to_string())]
    );
    // SQL's PREPARE too, STACKED as well; a malformed one is its syntax error, found first.
    let (n, _) = code(
        c.query_drop("PREPARE gd FROM 'GET STACKED DIAGNOSTICS CONDITION 1 @m = MESSAGE_TEXT'")
            .await,
    );
    assert_eq!(n, 1295);
    let (n, _) = code(
        c.query_drop("PREPARE gd FROM 'GET DIAGNOSTICS @n = MESSAGE_TEXT'")
            .await,
    );
    assert_eq!(n, 1064);
    let (n, _) = code(c.query_drop("EXECUTE gd").await);
    assert_eq!(n, 1243, "nothing was prepared");
    // Each parsed one counts, a failing STACKED too; a syntax error and the prepares do not.
    c.query_drop("GET DIAGNOSTICS @n = NUMBER").await.unwrap();
    let _ = c.query_drop("GET STACKED DIAGNOSTICS @n = NUMBER").await;
    let _ = c.query_drop("GET DIAGNOSTICS @n = MESSAGE_TEXT").await;
    assert_eq!(counted(&mut c).await - before, 2);
}
