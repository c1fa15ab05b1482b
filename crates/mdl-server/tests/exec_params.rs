//! The parameters of `COM_STMT_EXECUTE`: dates and times bound by a client library arrive as
//! MySQL's text for them, and a malformed parameter block is 1835 (`ER_MALFORMED_PACKET`) on a
//! connection that goes on, holding what it held; no panic of the packet decoder leaves a
//! session in the process list.

mod common;

use common::packets::{logged_in, read_packet, write_packet};
use common::*;
use mysql_async::prelude::*;
use mysql_async::Value;
use tokio::net::TcpStream;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dates_and_times_bind_as_mysql_prints_them() {
    let mut c = conn().await;
    let row: Option<(String, String, String, String)> = c
        .exec_first(
            "SELECT ?, ?, ?, ?",
            (
                Value::Date(2024, 5, 6, 7, 8, 9, 0),
                Value::Date(2024, 5, 6, 0, 0, 0, 0),
                Value::Date(2024, 5, 6, 7, 8, 9, 1500),
                Value::Time(true, 1, 2, 3, 4, 0),
            ),
        )
        .await
        .unwrap();
    let want = (
        "2024-05-06 07:08:09",
        "2024-05-06 00:00:00",
        "2024-05-06 07:08:09.001500",
    );
    let row = row.unwrap();
    assert_eq!((row.0.as_str(), row.1.as_str(), row.2.as_str()), want);
    assert_eq!(row.3, "-26:03:04");
    c.query_drop("CREATE TABLE ep_d (id INT PRIMARY KEY, at DATETIME)")
        .await
        .unwrap();
    c.exec_drop(
        "INSERT INTO ep_d VALUES (1, ?)",
        (Value::Date(2024, 5, 6, 7, 8, 9, 0),),
    )
    .await
    .unwrap();
    let n: Option<i64> = c
        .exec_first(
            "SELECT COUNT(*) FROM ep_d WHERE at = ?",
            (Value::Date(2024, 5, 6, 7, 8, 9, 0),),
        )
        .await
        .unwrap();
    assert_eq!(n, Some(1));
    c.query_drop("DROP TABLE ep_d").await.unwrap();
}

/// A raw connection to schema `test`, logged in: CLIENT_LONG_PASSWORD, CLIENT_PROTOCOL_41,
/// CLIENT_TRANSACTIONS, CLIENT_SECURE_CONNECTION, CLIENT_PLUGIN_AUTH, CLIENT_DEPRECATE_EOF.
async fn raw() -> TcpStream {
    let flags: u32 = 1 | (1 << 9) | (1 << 13) | (1 << 15) | (1 << 19) | (1 << 24);
    logged_in(server(), flags).await
}

/// Sends a text query and reads to its end: its OK or error, or its result set's last packet.
async fn query(s: &mut TcpStream, sql: &str) -> Vec<u8> {
    let mut p = vec![0x03];
    p.extend_from_slice(sql.as_bytes());
    write_packet(s, 0, &p).await;
    let first = read_packet(s).await;
    if first[0] == 0x00 || first[0] == 0xFF {
        return first;
    }
    loop {
        let p = read_packet(s).await;
        if p[0] == 0xFE && p.len() < 0xFF_FFFF {
            return p; // the OK that ends the rows (CLIENT_DEPRECATE_EOF)
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_parameter_block_is_1835_and_the_session_goes_on() {
    let mut s = raw().await;
    let mut obs = conn().await;
    assert_eq!(
        query(&mut s, "SELECT GET_LOCK('ep_held', 0)").await[0],
        0xFE
    );
    // One column, its definition, the row (a length-prefixed text), the ending OK.
    write_packet(&mut s, 0, b"\x03SELECT CONNECTION_ID()").await;
    assert_eq!(read_packet(&mut s).await, [1]);
    let _def = read_packet(&mut s).await;
    let row = read_packet(&mut s).await;
    let id: u64 = std::str::from_utf8(&row[1..]).unwrap().parse().unwrap();
    assert_eq!(read_packet(&mut s).await[0], 0xFE);
    // COM_STMT_PREPARE of one parameter: the OK, the parameter's definition (no EOF).
    write_packet(&mut s, 0, b"\x16SELECT ?").await;
    let ok = read_packet(&mut s).await;
    assert_eq!(ok[0], 0);
    let stmt = u32::from_le_bytes([ok[1], ok[2], ok[3], ok[4]]);
    let _param = read_packet(&mut s).await;
    let _column = read_packet(&mut s).await;
    let bad: [&[u8]; 4] = [
        &[],                    // no NULL bitmap
        &[0, 1],                // types announced, none sent
        &[0, 1, 0xEB, 0],       // a type MySQL does not have
        &[0, 1, 0x08, 0, 1, 2], // a BIGINT of 2 bytes
    ];
    for block in bad {
        let mut p = vec![0x17];
        p.extend_from_slice(&stmt.to_le_bytes());
        p.push(0);
        p.extend_from_slice(&1u32.to_le_bytes());
        p.extend_from_slice(block);
        write_packet(&mut s, 0, &p).await;
        let err = read_packet(&mut s).await;
        assert_eq!(err[0], 0xFF, "{block:?}: {err:?}");
        assert_eq!(u16::from_le_bytes([err[1], err[2]]), 1835, "{block:?}");
    }
    // The same connection runs on, and still holds its lock.
    assert_eq!(query(&mut s, "SELECT 1").await[0], 0xFE);
    let owner: Option<Option<u64>> = obs
        .query_first("SELECT IS_USED_LOCK('ep_held')")
        .await
        .unwrap();
    assert_eq!(owner.flatten(), Some(id));
    drop(s);
    wait_gone(&mut obs, id).await;
}
