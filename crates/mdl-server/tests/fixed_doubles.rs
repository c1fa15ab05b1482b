//! A double of fixed decimals on the wire (`wire/kind.rs`): `PI()` is a `DOUBLE` of 6
//! decimals (`Item_func_pi`), which MySQL's text protocol writes with them
//! (`Protocol_text::store_double`, `my_fcvt`: `3.141593`) and whose column definition says
//! them; the binary protocol sends the double itself.

mod common;

use common::clients::{run, tools_or_skip};
use common::*;
use mysql_async::prelude::*;
use mysql_async::{Row, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_is_sent_with_six_decimals() {
    let mut c = conn().await;
    let sql = "SELECT PI(), PI() * 2, PI() + 0.0000000, ROUND(PI(), 2), -PI(), 1e0 / 4";
    let rows: Vec<Row> = c.query(sql).await.unwrap();
    let texts: Vec<String> = (0..rows[0].len())
        .map(|i| match &rows[0][i] {
            Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        texts,
        [
            "3.141593",
            "6.283185",
            "3.1415927",
            "3.14",
            "-3.141593",
            "0.25"
        ]
    );
    let decimals: Vec<u8> = rows[0].columns_ref().iter().map(|c| c.decimals()).collect();
    assert_eq!(decimals[..5], [6, 6, 7, 2, 6]);
    // Prepared: the double itself, the same definition.
    let rows: Vec<Row> = c.exec("SELECT PI(), ROUND(PI(), 2)", ()).await.unwrap();
    assert_eq!(rows[0][0], Value::Double(std::f64::consts::PI));
    let decimals: Vec<u8> = rows[0].columns_ref().iter().map(|c| c.decimals()).collect();
    assert_eq!(decimals, [6, 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mariadb_client_prints_pi_with_six_decimals() {
    let Some([mariadb]) = tools_or_skip(
        "the_mariadb_client_prints_pi_with_six_decimals",
        [&["mariadb", "mysql"]],
    ) else {
        return;
    };
    let port = format!("-P{}", server().port());
    let args: Vec<String> = [
        "-h127.0.0.1",
        &port,
        "-uroot",
        "-N",
        "-B",
        "-e",
        "SELECT PI()",
    ]
    .map(String::from)
    .into();
    let out = tokio::task::block_in_place(|| run(&mariadb, &args, None));
    assert_eq!(out, "3.141593\n");
}
