//! Connection attributes: what a client sends at the end of its handshake response
//! (`CLIENT_CONNECT_ATTRS`), shown in `performance_schema.session_connect_attrs` and
//! `session_account_connect_attrs`, and in sys 8.0's `session` / `processlist` as `pid` and
//! `program_name`. Sent by `mysql_async` (only those its options name: it sends none by
//! default), the real `mariadb` client (libmariadb's `_client_name`, `_pid`, ..., and its
//! `program_name`, `mysql`), `sysbench` (libmariadb's, without `program_name`), and by hand
//! over a raw socket, where a malformed or missing block still lets the connection work.

mod common;

use std::collections::BTreeMap;

use common::clients::{run, sysbench_script, tools_or_skip};
use common::packets::{read_packet, write_packet};
use common::*;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts, OptsBuilder};
use tokio::net::TcpStream;

/// A connection to `test` sending the attributes `attrs`.
async fn conn_with(attrs: &[(&str, &str)]) -> Conn {
    let addr = server();
    let url = format!("mysql://root@{}:{}/test", addr.ip(), addr.port());
    let mut b = OptsBuilder::from_opts(Opts::from_url(&url).unwrap());
    for (k, v) in attrs {
        b = b.connect_attribute(*k, *v);
    }
    Conn::new(b).await.expect("connects")
}

/// The connection `id`'s attributes, `name -> (value, ordinal)`, as `table` shows them to `c`.
async fn attrs_of(c: &mut Conn, table: &str, id: u64) -> BTreeMap<String, (Option<String>, i64)> {
    let rows: Vec<(String, Option<String>, i64)> = c
        .query(format!(
            "SELECT ATTR_NAME, ATTR_VALUE, ORDINAL_POSITION \
             FROM performance_schema.{table} WHERE PROCESSLIST_ID = {id}"
        ))
        .await
        .unwrap();
    rows.into_iter().map(|(n, v, o)| (n, (v, o))).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_async_attributes_show_in_both_tables_and_sys_session() {
    let mut c = conn_with(&[
        ("program_name", "attrs_test"),
        ("_pid", "4242"),
        ("empty", ""),
    ])
    .await;
    let me = id(&mut c).await;
    // Its own, through CONNECTION_ID() as a DBA writes it.
    let rows: Vec<(u64, String, Option<String>, i64)> = c
        .query(
            "SELECT PROCESSLIST_ID, ATTR_NAME, ATTR_VALUE, ORDINAL_POSITION \
             FROM performance_schema.session_connect_attrs \
             WHERE PROCESSLIST_ID = CONNECTION_ID() ORDER BY ATTR_NAME",
        )
        .await
        .unwrap();
    let names: Vec<(&str, Option<&str>)> = (rows.iter())
        .map(|(_, n, v, _)| (n.as_str(), v.as_deref()))
        .collect();
    assert_eq!(
        names,
        [
            ("_pid", Some("4242")),
            ("empty", None),
            ("program_name", Some("attrs_test"))
        ],
        "an empty value is NULL"
    );
    assert!(rows.iter().all(|r| r.0 == me));
    let mut ordinals: Vec<i64> = rows.iter().map(|r| r.3).collect();
    ordinals.sort();
    assert_eq!(ordinals, [0, 1, 2], "in the order sent");

    // sys 8.0's views read `_pid` and `program_name`.
    for view in ["session", "x$session", "processlist", "x$processlist"] {
        let got: Option<(Option<String>, Option<String>)> = c
            .query_first(format!(
                "SELECT pid, program_name FROM sys.`{view}` WHERE conn_id = CONNECTION_ID()"
            ))
            .await
            .unwrap();
        assert_eq!(
            got,
            Some((Some("4242".into()), Some("attrs_test".into()))),
            "{view}"
        );
    }

    // Another connection of the same account (root from 127.0.0.1) sees them in both tables;
    // a client that sent none has none, and NULL pid and program_name.
    let mut other = conn().await;
    let plain = id(&mut other).await;
    for table in ["session_connect_attrs", "session_account_connect_attrs"] {
        let seen = attrs_of(&mut other, table, me).await;
        let pid = seen.get("_pid").map(|(v, _)| v.as_deref());
        assert_eq!(pid, Some(Some("4242")), "{table}");
        assert!(
            attrs_of(&mut other, table, plain).await.is_empty(),
            "{table}"
        );
    }
    // Another account's connection sees them in `session_connect_attrs` only.
    let addr = server();
    let url = format!("mysql://someone@{}:{}/test", addr.ip(), addr.port());
    let mut stranger = Conn::new(Opts::from_url(&url).unwrap()).await.unwrap();
    assert_eq!(
        attrs_of(&mut stranger, "session_connect_attrs", me)
            .await
            .len(),
        3
    );
    assert!(attrs_of(&mut stranger, "session_account_connect_attrs", me)
        .await
        .is_empty());
    let none: Option<(Option<String>, Option<String>)> = other
        .query_first("SELECT pid, program_name FROM sys.session WHERE conn_id = CONNECTION_ID()")
        .await
        .unwrap();
    assert_eq!(none, Some((None, None)));

    // The tables are listed where the other performance_schema tables are, with MySQL's types.
    let cols: Vec<(String, String, String)> = other
        .query(
            "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'performance_schema' \
             AND TABLE_NAME = 'session_account_connect_attrs' ORDER BY ORDINAL_POSITION",
        )
        .await
        .unwrap();
    let cols: Vec<(&str, &str, &str)> = (cols.iter())
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    assert_eq!(
        cols,
        [
            ("PROCESSLIST_ID", "bigint unsigned", "NO"),
            ("ATTR_NAME", "varchar(32)", "NO"),
            ("ATTR_VALUE", "varchar(1024)", "YES"),
            ("ORDINAL_POSITION", "int", "YES"),
        ]
    );
    let tables: Vec<String> = other
        .query("SHOW TABLES FROM performance_schema")
        .await
        .unwrap();
    let tables: Vec<&String> = tables
        .iter()
        .filter(|t| t.ends_with("connect_attrs"))
        .collect();
    assert_eq!(
        tables,
        ["session_account_connect_attrs", "session_connect_attrs"]
    );
    let listed: i64 = other
        .query_first(
            "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = \
             'performance_schema' AND TABLE_NAME LIKE 'session%connect_attrs'",
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(listed, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_first_512_bytes_of_attributes_are_kept() {
    // 40 pairs of 15 bytes each (1 + 3 + 1 + 10): 34 whole pairs fit in 512 bytes, whichever
    // order the client sends them in.
    let kv: Vec<(String, String)> = (0..40)
        .map(|i| (format!("k{i:02}"), "v".repeat(10)))
        .collect();
    let kv: Vec<(&str, &str)> = kv.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut c = conn_with(&kv).await;
    let me = id(&mut c).await;
    let got = attrs_of(&mut c, "session_connect_attrs", me).await;
    assert_eq!(got.len(), 34);
    let mut ordinals: Vec<i64> = got.values().map(|(_, o)| *o).collect();
    ordinals.sort();
    assert_eq!(ordinals, (0..34).collect::<Vec<i64>>());
    // A name past 32 characters keeps its first 32.
    let long = "n".repeat(40);
    let mut c = conn_with(&[(long.as_str(), "x")]).await;
    let me = id(&mut c).await;
    let got = attrs_of(&mut c, "session_connect_attrs", me).await;
    assert_eq!(got.keys().collect::<Vec<_>>(), [&"n".repeat(32)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mariadb_client_sends_libmariadb_s_attributes() {
    let Some([mariadb]) = tools_or_skip(
        "the_mariadb_client_sends_libmariadb_s_attributes",
        [&["mariadb", "mysql"]],
    ) else {
        return;
    };
    let addr = server();
    let args: Vec<String> = [
        "-h127.0.0.1".to_string(),
        format!("-P{}", addr.port()),
        "-uroot".into(),
        "-N".into(),
        "-B".into(),
        "-e".into(),
        "SELECT ATTR_NAME, ATTR_VALUE FROM performance_schema.session_connect_attrs \
         WHERE PROCESSLIST_ID = CONNECTION_ID() ORDER BY ORDINAL_POSITION; \
         SELECT 'sys', pid, program_name FROM sys.session WHERE conn_id = CONNECTION_ID()"
            .into(),
    ]
    .into();
    let out = tokio::task::block_in_place(|| run(&mariadb, &args, None));
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    let attr = |name: &str| {
        (lines.iter())
            .find(|l| l.len() == 2 && l[0] == name)
            .map(|l| l[1])
    };
    assert_eq!(attr("_client_name"), Some("libmariadb"), "{out}");
    let pid = attr("_pid").expect("_pid");
    assert!(pid.parse::<u32>().is_ok(), "{out}");
    // MariaDB 10.11's client names itself `mysql` (`client/mysql.cc`).
    let program = attr("program_name").expect("program_name");
    assert!(["mysql", "mariadb"].contains(&program), "{out}");
    // The row of sys.session: the same pid and program name.
    let sys = (lines.iter())
        .find(|l| l[0] == "sys")
        .expect("sys.session's row");
    assert_eq!(sys[1..], [pid, program], "{out}");
}

/// Prints the attributes of sysbench's own connection.
const SYSBENCH_ATTRS: &str = r#"
function event()
  local con = sysbench.sql.driver():connect()
  local rs = con:query("SELECT ATTR_NAME, ATTR_VALUE FROM " ..
    "performance_schema.session_connect_attrs WHERE PROCESSLIST_ID = CONNECTION_ID()")
  for i = 1, rs.nrows do
    local row = rs:fetch_row()
    print(string.format("attr %s=%s", row[1], tostring(row[2])))
  end
  con:disconnect()
end
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sysbench_s_libmariadb_sends_its_attributes() {
    let Some([sysbench]) = tools_or_skip(
        "sysbench_s_libmariadb_sends_its_attributes",
        [&["sysbench"]],
    ) else {
        return;
    };
    let addr = server();
    let out = sysbench_script(sysbench, addr.port(), "test", SYSBENCH_ATTRS).await;
    assert!(out.contains("attr _client_name=libmariadb"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("attr _pid=")), "{out}");
}

/// A raw connection: the greeting's connection id, after a handshake response whose tail after
/// the user's fields is `attrs`; `ok` says whether the server answered OK, then a ping too.
async fn raw_handshake(attrs: &[u8]) -> (u64, bool) {
    let mut s = TcpStream::connect(server()).await.unwrap();
    let greeting = read_packet(&mut s).await;
    // Protocol 10, the version (NUL-ended), then the 4-byte connection id.
    let nul = greeting.iter().position(|&b| b == 0).unwrap();
    let id = u32::from_le_bytes(greeting[nul + 1..nul + 5].try_into().unwrap());
    // CLIENT_PROTOCOL_41, CLIENT_SECURE_CONNECTION, CLIENT_PLUGIN_AUTH, CLIENT_CONNECT_ATTRS.
    let flags: u32 = (1 << 9) | (1 << 15) | (1 << 19) | (1 << 20);
    let mut p = flags.to_le_bytes().to_vec();
    p.extend_from_slice(&(1u32 << 24).to_le_bytes());
    p.push(0x21);
    p.extend_from_slice(&[0; 23]);
    p.extend_from_slice(b"root\0\0mysql_native_password\0");
    p.extend_from_slice(attrs);
    write_packet(&mut s, 1, &p).await;
    let ok = matches!(read_packet(&mut s).await[..], [0, ..]);
    // COM_PING.
    write_packet(&mut s, 0, &[0x0e]).await;
    let pong = matches!(read_packet(&mut s).await[..], [0, ..]);
    // Kept open while the caller looks: leaked into a task that holds it a little.
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_secs(5)).await;
        drop(s);
    });
    (u64::from(id), ok && pong)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_or_missing_block_still_connects_with_no_attributes() {
    let mut c = conn().await;
    let cases: [(&str, &[u8]); 5] = [
        ("well formed", b"\x0b\x04_pid\x0542424"),
        ("no block at all", b""),
        ("a length past the packet", b"\x20\x04_pid"),
        ("NULL as the length", b"\xfb"),
        ("a pair cut short", b"\x06\x04_pid\x09ab"),
    ];
    for (what, tail) in cases {
        let (raw, ok) = raw_handshake(tail).await;
        assert!(ok, "{what}: the connection works");
        let got = attrs_of(&mut c, "session_connect_attrs", raw).await;
        if what == "well formed" {
            assert_eq!(got.len(), 1, "{what}");
            assert_eq!(got["_pid"].0.as_deref(), Some("42424"));
        } else if what == "a pair cut short" {
            // The block is whole; its one pair is not: nothing to show (`read_nth_attr`).
            assert!(got.is_empty(), "{what}: {got:?}");
        } else {
            assert!(got.is_empty(), "{what}: {got:?}");
        }
        let listed: Vec<u64> = c
            .query(format!(
                "SELECT ID FROM information_schema.PROCESSLIST WHERE ID = {raw}"
            ))
            .await
            .unwrap();
        assert_eq!(listed, [raw], "{what}: still connected");
    }
}
