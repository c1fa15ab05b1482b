//! The MySQL protocol's packets read and written by hand (a 3-byte length, a sequence byte,
//! the payload), for tests that speak to the server below a client library: what a client
//! advertises, what each packet carries.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The next packet's payload.
pub async fn read_packet(s: &mut TcpStream) -> Vec<u8> {
    let mut h = [0u8; 4];
    s.read_exact(&mut h).await.unwrap();
    let len = usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16;
    let mut p = vec![0; len];
    s.read_exact(&mut p).await.unwrap();
    p
}

/// Writes payload `p` (under 16 MiB) as packet `seq`.
pub async fn write_packet(s: &mut TcpStream, seq: u8, p: &[u8]) {
    let n = p.len();
    let mut out = vec![n as u8, (n >> 8) as u8, (n >> 16) as u8, seq];
    out.extend_from_slice(p);
    s.write_all(&out).await.unwrap();
}

/// A connection to `addr` logged in as `root` without a password to schema `test`, its
/// handshake response advertising `flags` (with `CLIENT_CONNECT_WITH_DB`): the first packet
/// after is the next command's answer.
pub async fn logged_in(addr: std::net::SocketAddr, flags: u32) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let _greeting = read_packet(&mut s).await;
    let mut p = (flags | (1 << 3)).to_le_bytes().to_vec();
    p.extend_from_slice(&(1u32 << 24).to_le_bytes()); // max packet
    p.push(0x21); // utf8mb3_general_ci
    p.extend_from_slice(&[0; 23]);
    p.extend_from_slice(b"root\0\0test\0mysql_native_password\0");
    write_packet(&mut s, 1, &p).await;
    assert_eq!(read_packet(&mut s).await[0], 0, "logged in");
    s
}
