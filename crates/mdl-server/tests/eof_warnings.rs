//! A statement's warning count in the EOF packets of its result set, for a client without
//! `CLIENT_DEPRECATE_EOF` (the `mariadb` client, libmariadb): both EOFs carry it, as MySQL's
//! `end_result_metadata` and `send_eof` write them (`sql/protocol_classic.cc`), in the text and
//! the binary protocol and in each result of a multi-statement query. Checked with the real
//! `mariadb` client, and packet by packet with a raw connection.

mod common;

use common::clients::{run, tools_or_skip};
use common::packets::{logged_in, read_packet, write_packet};
use common::*;
use tokio::net::TcpStream;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mariadb_client_sees_a_select_s_warnings() {
    let Some([mariadb]) = tools_or_skip(
        "the_mariadb_client_sees_a_select_s_warnings",
        [&["mariadb", "mysql"]],
    ) else {
        return;
    };
    let addr = server();
    let args = |more: &[&str]| -> Vec<String> {
        let mut v = vec![
            "-h127.0.0.1".to_string(),
            format!("-P{}", addr.port()),
            "-uroot".into(),
        ];
        v.extend(more.iter().map(|s| s.to_string()));
        v
    };
    // `--show-warnings` lists them after a statement whose warning count is not 0.
    let out = tokio::task::block_in_place(|| {
        run(
            &mariadb,
            &args(&["--show-warnings", "-N", "-B", "-e", "SELECT 1/0; SELECT 2"]),
            None,
        )
    });
    assert_eq!(
        out, "NULL\nWarning (Code 1365): Division by 0\n2\n",
        "the first select's, not the second's"
    );
    // The status line of the verbose mode counts them.
    let out = tokio::task::block_in_place(|| {
        run(
            &mariadb,
            &args(&["-vvv", "-e", "SELECT 1/0, 2 DIV 0"]),
            None,
        )
    });
    assert!(out.contains("1 row in set, 2 warnings"), "{out}");
    // A statement of several, each result with its own.
    let out = tokio::task::block_in_place(|| {
        run(
            &mariadb,
            &args(&["-vvv", "-e", "SELECT 1/0; SELECT 3; SELECT 1%0, 2%0, 3%0"]),
            None,
        )
    });
    let counts: Vec<&str> = out.lines().filter(|l| l.contains(" in set")).collect();
    assert_eq!(counts.len(), 3, "{out}");
    assert!(counts[0].starts_with("1 row in set, 1 warning ("), "{out}");
    assert!(counts[1].starts_with("1 row in set ("), "{out}");
    assert!(counts[2].starts_with("1 row in set, 3 warnings"), "{out}");
}

/// A connection whose handshake leaves out `CLIENT_DEPRECATE_EOF` (as libmariadb does), with
/// `CLIENT_MULTI_STATEMENTS` and `CLIENT_MULTI_RESULTS`, to schema `test`.
async fn eof_client() -> TcpStream {
    // CLIENT_LONG_PASSWORD, CLIENT_PROTOCOL_41, CLIENT_TRANSACTIONS, CLIENT_SECURE_CONNECTION,
    // CLIENT_MULTI_STATEMENTS, CLIENT_MULTI_RESULTS, CLIENT_PLUGIN_AUTH.
    let flags: u32 = 1 | (1 << 9) | (1 << 13) | (1 << 15) | (1 << 16) | (1 << 17) | (1 << 19);
    logged_in(server(), flags).await
}

/// An EOF payload's (warnings, status).
fn eof(p: &[u8]) -> (u16, u16) {
    assert!(p.len() == 5 && p[0] == 0xFE, "an EOF: {p:?}");
    (
        u16::from_le_bytes([p[1], p[2]]),
        u16::from_le_bytes([p[3], p[4]]),
    )
}

/// Reads one result set of `columns` columns and `rows` rows: the warnings of its EOF after
/// the column definitions, of its EOF after the rows, and that EOF's status.
async fn result_set(s: &mut TcpStream, columns: usize, rows: usize) -> (u16, u16, u16) {
    assert_eq!(read_packet(s).await, [columns as u8], "the column count");
    for _ in 0..columns {
        let def = read_packet(s).await;
        assert_eq!(&def[..4], b"\x03def", "a column definition");
    }
    let (first, _) = eof(&read_packet(s).await);
    for _ in 0..rows {
        let row = read_packet(s).await;
        assert!(row[0] != 0xFE || row.len() >= 9, "a row: {row:?}");
    }
    let (last, status) = eof(&read_packet(s).await);
    (first, last, status)
}

/// `SERVER_MORE_RESULTS_EXISTS`.
const MORE: u16 = 0x08;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_eofs_carry_the_count_in_the_text_protocol() {
    let mut s = eof_client().await;
    write_packet(&mut s, 0, b"\x03SELECT 1/0, 2/0").await;
    assert_eq!(result_set(&mut s, 2, 1).await, (2, 2, 0));
    write_packet(&mut s, 0, b"\x03SELECT 1").await;
    assert_eq!(result_set(&mut s, 1, 1).await, (0, 0, 0), "none left over");
    // Each result of several its own; the last EOF of a result that more follow says so.
    write_packet(&mut s, 0, b"\x03SELECT 1/0; SELECT 1; SELECT 1%0, 2%0, 3%0").await;
    assert_eq!(result_set(&mut s, 1, 1).await, (1, 1, MORE));
    assert_eq!(result_set(&mut s, 1, 1).await, (0, 0, MORE));
    assert_eq!(result_set(&mut s, 3, 1).await, (3, 3, 0));
    // An OK packet between them keeps its own count in its own field.
    write_packet(
        &mut s,
        0,
        b"\x03SELECT 1/0; DROP TABLE IF EXISTS eofw_none; SELECT 1",
    )
    .await;
    assert_eq!(result_set(&mut s, 1, 1).await, (1, 1, MORE));
    let ok = read_packet(&mut s).await;
    assert_eq!(ok[0], 0, "an OK packet: {ok:?}");
    assert_eq!(u16::from_le_bytes([ok[5], ok[6]]), 1, "its note");
    assert_eq!(result_set(&mut s, 1, 1).await, (0, 0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_eofs_carry_the_count_in_the_binary_protocol() {
    let mut s = eof_client().await;
    write_packet(&mut s, 0, b"\x16SELECT 1/0").await;
    // COM_STMT_PREPARE_OK: the id, 1 column, 0 parameters; its column and an EOF of no
    // warnings.
    let ok = read_packet(&mut s).await;
    assert_eq!(ok[0], 0, "{ok:?}");
    let id = &ok[1..5];
    let _def = read_packet(&mut s).await;
    assert_eq!(eof(&read_packet(&mut s).await).0, 0);
    // COM_STMT_EXECUTE: the id, no cursor, one iteration.
    let mut exec = vec![0x17];
    exec.extend_from_slice(id);
    exec.extend_from_slice(&[0, 1, 0, 0, 0]);
    write_packet(&mut s, 0, &exec).await;
    assert_eq!(result_set(&mut s, 1, 1).await, (1, 1, 0));
    // A prepare after it: its EOFs carry nothing of the statement before.
    write_packet(&mut s, 0, b"\x16SELECT 2").await;
    let _ok = read_packet(&mut s).await;
    let _def = read_packet(&mut s).await;
    assert_eq!(eof(&read_packet(&mut s).await).0, 0);
}
