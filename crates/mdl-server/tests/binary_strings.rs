//! Binary string columns keep what MySQL keeps: a string as written (`'0123'`, not 123), a
//! number as its text, bytes as bytes, through ALTER TABLE's rebuild, CREATE TABLE ... LIKE and
//! ... SELECT; their types shown as declared.

mod common;

use common::*;
use mysql_async::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_strings_keep_their_bytes() {
    let mut c = conn().await;
    c.query_drop(
        "CREATE TABLE bin_s (id INT PRIMARY KEY, x VARBINARY(10), y BINARY(4), z BLOB, \
         l LONGBLOB)",
    )
    .await
    .unwrap();
    c.query_drop(
        "INSERT INTO bin_s VALUES (1, '0123', '0123', '007', '00'), \
         (2, 123, UNHEX('00FF'), 1.5, X'4142')",
    )
    .await
    .unwrap();
    let hex = "SELECT HEX(x), HEX(y), HEX(z), HEX(l) FROM bin_s ORDER BY id";
    let want = [
        ("30313233", "30313233", "303037", "3030"),
        ("313233", "00FF", "312E35", "4142"),
    ]
    .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()));
    let got: Vec<(String, String, String, String)> = c.query(hex).await.unwrap();
    assert_eq!(got, want);
    let types = "SELECT COLUMN_TYPE FROM information_schema.COLUMNS \
                 WHERE TABLE_NAME = 'bin_s' ORDER BY ORDINAL_POSITION";
    let shown: Vec<String> = c.query(types).await.unwrap();
    assert_eq!(
        shown,
        ["int", "varbinary(10)", "binary(4)", "blob", "longblob"]
    );
    // A rebuild (MODIFY) and a copy keep the values and the types.
    c.query_drop("ALTER TABLE bin_s MODIFY x VARBINARY(20)")
        .await
        .unwrap();
    c.query_drop("INSERT INTO bin_s (id, x) VALUES (3, '007')")
        .await
        .unwrap();
    c.query_drop("CREATE TABLE bin_s2 LIKE bin_s")
        .await
        .unwrap();
    c.query_drop("INSERT INTO bin_s2 (id, x) VALUES (1, '0042')")
        .await
        .unwrap();
    c.query_drop("CREATE TABLE bin_s3 AS SELECT id, x FROM bin_s")
        .await
        .unwrap();
    let xs: Vec<String> = c
        .query(
            "SELECT HEX(x) FROM bin_s WHERE id = 3 UNION ALL SELECT HEX(x) FROM bin_s2 \
             UNION ALL SELECT HEX(x) FROM bin_s3 WHERE id = 1",
        )
        .await
        .unwrap();
    assert_eq!(xs, ["303037", "30303432", "30313233"]);
    let copied: String = c
        .query_first(
            "SELECT COLUMN_TYPE FROM information_schema.COLUMNS \
             WHERE TABLE_NAME = 'bin_s3' AND COLUMN_NAME = 'x'",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(copied, "varbinary(20)");
}
