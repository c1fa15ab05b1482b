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
