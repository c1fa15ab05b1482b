//! The wire: result sets and errors written through `opensrv-mysql`, and what it cannot
//! write.
//!
//! `opensrv-mysql` 0.7 writes an error from its `ErrorKind` enum, which stops at MySQL 5.6's
//! code 1885 and derives the SQLSTATE from the code. MySQL 8.0's user-level lock errors (3057,
//! 3058, 4163) and the lock manager's 3177 are beyond it. So every error is written as
//! `ER_UNKNOWN_ERROR` with its real code and SQLSTATE in a 10-byte marker in front of the
//! message (`\x01` + 4 digits + 5 SQLSTATE characters), and [`ErrorCodes`], the connection's
//! output stream, rewrites each ERR packet (payload starting with `0xFF`, which no other
//! packet of a result can start with) to carry them: the code field, the SQLSTATE after `#`,
//! the message without the marker, and the packet's length.
//!
//! The same path carries the one reply that is no result and no error: `COM_STATISTICS`'s line
//! of text (`command_map.rs`). Marked with code 0000, which no error has, the packet becomes a
//! payload of that text alone ([`raw_reply`]).
//!
//! Two more things opensrv leaves out, for queries of several statements
//! (`Connection::several`): the server's greeting gets `CLIENT_MULTI_STATEMENTS` and
//! `CLIENT_MULTI_RESULTS` among its capabilities (engine mode,
//! [`ErrorCodes::with_multi_statements`]; with `CLIENT_FOUND_ROWS`, and `CLIENT_CONNECT_ATTRS`,
//! which MySQL advertises and clients send their attributes only to: `connect_attrs.rs`),
//! and a row result that more results follow ends with an OK packet whose info is
//! [`MORE_RESULTS`], which the stream turns into the status flag `SERVER_MORE_RESULTS_EXISTS`
//! (opensrv writes that packet without it).
//!
//! A statement's warning count rides the same way, as a marker in the info of the OK packet
//! that ends it, which the stream moves into the packet's warnings field; an EOF packet (no
//! info) gets it from a cell the connection shares with the stream ([`EofWarnings`]), read at
//! each 5-byte packet that starts with `0xFE` (`warnings.rs`).
//!
//! A column's wire type is its values' (integers `LONGLONG`, reals `DOUBLE`, bytes `BLOB`,
//! text `VAR_STRING`) unless its declared or expression type is one whose values SQLite
//! cannot say (`DECIMAL`, `DATE`, `DATETIME`, `TIMESTAMP`, `TIME`, `JSON`, `DOUBLE(m,d)`:
//! `kind.rs`, which also formats a decimal's values to its scale, a double's to its d
//! decimals). opensrv-mysql writes every column definition with length 1024, no decimals and
//! `utf8_general_ci`; such a column's definition carries MySQL's in its (otherwise empty)
//! table name, which the stream moves into place ([`ErrorCodes`]), as it does an error's code.
//!
//! What a statement returns ([`Output`], [`ResultSet`], [`Cell`]) and the writers that send it
//! ([`write_result`], [`write_warned`], [`write_results`]) are `result.rs`; this file keeps the
//! errors' marker and the output stream that rewrites the packets they write.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use opensrv_mysql::{ErrorKind, QueryResultWriter};
use tokio::io::AsyncWrite;

use crate::error::ServerError;

mod kind;
mod result;
mod warnings;

pub use kind::{decimal_text, Kind};
pub use result::{write_result, write_results, write_warned, Cell, Output, ResultSet};
pub use warnings::EofWarnings;

/// Writes `e` (see the module docs for how the code and SQLSTATE get through).
pub async fn write_error<W: AsyncWrite + Send + Unpin>(
    w: QueryResultWriter<'_, W>,
    e: &ServerError,
) -> io::Result<()> {
    w.error(ErrorKind::ER_UNKNOWN_ERROR, &marked(e)).await
}

/// A reply whose whole payload is `text` (see the module docs), written as an error.
pub fn raw_reply(text: String) -> ServerError {
    ServerError::new(RAW_REPLY, "00000", text)
}

/// The code that marks a [`raw_reply`].
const RAW_REPLY: u16 = 0;

/// The message with the marker of the module docs in front.
pub fn marked(e: &ServerError) -> Vec<u8> {
    let mut m = Vec::with_capacity(MARKER_LEN + e.message.len());
    m.push(MARKER);
    m.extend_from_slice(format!("{:04}", e.code.min(9999)).as_bytes());
    let state = e.sqlstate.as_bytes();
    m.extend((0..5).map(|i| state.get(i).copied().unwrap_or(b'0')));
    m.extend_from_slice(e.message.as_bytes());
    m
}

/// The info of the OK packet that ends a result which more results follow: opensrv-mysql
/// 0.7 writes that packet (`RowWriter::finish_one`) without `SERVER_MORE_RESULTS_EXISTS`, and
/// [`ErrorCodes`] sets it where it finds this.
pub const MORE_RESULTS: &str = "\u{1}mdl:more-results";
/// The status flag's bit (in the status' low byte).
const SERVER_MORE_RESULTS_EXISTS: u8 = 0x08;

/// Adds what `g` says to the server's greeting `p` (protocol 10: version, 0, connection id,
/// 8 bytes of scramble, a filler, the capabilities' low 2 bytes, charset, status, their high 2
/// bytes); a packet of another shape is left alone.
fn greet(p: &mut [u8], g: Greeting) {
    let Greeting::MultiStatements = g;
    let Some(nul) = p.iter().position(|&b| b == 0) else {
        return;
    };
    if p[0] != 10 || p.len() < nul + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 1 {
        return;
    }
    // CLIENT_FOUND_ROWS (1 << 1), in the low bytes.
    p[nul + 1 + 4 + 8 + 1] |= 0b10;
    // CLIENT_MULTI_STATEMENTS (1 << 16), CLIENT_MULTI_RESULTS (1 << 17) and
    // CLIENT_CONNECT_ATTRS (1 << 20), in the high ones.
    p[nul + 1 + 4 + 8 + 1 + 2 + 1 + 2] |= 0b1_0011;
}

const MARKER: u8 = 0x01;
const MARKER_LEN: usize = 10;
/// A packet of this length continues in the next one.
const MAX_PAYLOAD: usize = 0xFF_FFFF;

/// The connection's output stream: passes packets through, rewriting marked ERR packets and
/// marked column definitions (see the module docs). Each written byte is copied once, to the end of `out`; each packet is
/// looked at in place once complete (a marked ERR packet, which only shrinks, rewritten there);
/// complete packets are sent on flush, and an incomplete one waits there for the rest.
#[derive(Debug)]
pub struct ErrorCodes<W> {
    inner: W,
    /// Complete packets (`..scanned`), then the start of an incomplete one.
    out: Vec<u8>,
    /// Where the first packet not yet complete starts in `out`.
    scanned: usize,
    /// Bytes of `out` already sent.
    sent: usize,
    /// The previous packet was a full-length one: the next continues it.
    continuation: bool,
    /// The server's greeting is still to come, and advertises multi-statements.
    greeting: Option<Greeting>,
    /// The warning count of the EOF packets (`warnings.rs`), which the connection sets.
    eof: EofWarnings,
}

/// What the server's greeting (opensrv's handshake packet) says besides what opensrv writes.
#[derive(Debug, Clone, Copy)]
enum Greeting {
    /// `CLIENT_MULTI_STATEMENTS` and `CLIENT_MULTI_RESULTS`: the connection runs a query of
    /// several statements (`Connection::several`) and answers with several results; and
    /// `CLIENT_FOUND_ROWS`, which MySQL advertises and a client's libraries only ask for when
    /// the server does (`execute/engine_step.rs` counts the matched rows for it); and
    /// `CLIENT_CONNECT_ATTRS`, which MySQL advertises too (`connect_attrs.rs` reads them).
    MultiStatements,
}

/// The most of `out`'s capacity kept once sent: one huge result does not hold its buffer for
/// the rest of the connection.
const KEPT_CAPACITY: usize = 1 << 20;

impl<W> ErrorCodes<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> ErrorCodes<W> {
        ErrorCodes {
            inner,
            out: Vec::new(),
            scanned: 0,
            sent: 0,
            continuation: false,
            greeting: None,
            eof: EofWarnings::default(),
        }
    }

    /// The cell through which the connection gives the EOF packets their warning count
    /// (`warnings.rs`).
    pub fn eof_warnings(&self) -> EofWarnings {
        self.eof.clone()
    }

    /// Wraps `inner`, whose first packet, the server's greeting, gets
    /// `CLIENT_MULTI_STATEMENTS`, `CLIENT_MULTI_RESULTS`, `CLIENT_FOUND_ROWS` and
    /// `CLIENT_CONNECT_ATTRS` among its capabilities (opensrv advertises none of them).
    pub fn with_multi_statements(inner: W) -> ErrorCodes<W> {
        ErrorCodes {
            greeting: Some(Greeting::MultiStatements),
            ..ErrorCodes::new(inner)
        }
    }

    /// Looks at every packet of `out` completed since the last call, rewriting marked ones.
    #[inline]
    fn scan(&mut self) {
        while let Some(h) = self.out.get(self.scanned..self.scanned + 4) {
            let len = usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16;
            let at = self.scanned + 4;
            if self.out.len() - at < len {
                break;
            }
            if let Some(g) = self.greeting.take() {
                greet(&mut self.out[at..at + len], g);
            }
            // An EOF's warning count (`warnings.rs`): one more comparison per packet.
            if !self.continuation && len == 5 {
                self.eof.patch(&mut self.out[at..at + len]);
            }
            // A statement's warning count (`warnings.rs`), before the marker after it goes.
            let len = match !self.continuation && warnings::is_marked(&self.out[at..at + len]) {
                true => self.warnings(at, len),
                false => len,
            };
            let p = &self.out[at..at + len];
            let marked = !self.continuation
                && len >= 9 + MARKER_LEN
                && p[0] == 0xFF
                && p[3] == b'#'
                && p[9] == MARKER;
            let more = !self.continuation
                && p.first() == Some(&0xFE)
                && p.ends_with(MORE_RESULTS.as_bytes());
            let definition = !self.continuation && kind::is_marked_definition(p);
            self.continuation = len == MAX_PAYLOAD;
            let len = match (marked, more, definition) {
                (true, _, _) => self.rewrite(at, len),
                (_, true, _) => self.more_results(at, len),
                (_, _, true) => self.definition(at, len),
                _ => len,
            };
            self.scanned = at + len;
        }
    }

    /// Rewrites in place the marked ERR packet whose payload of `len` bytes starts at `at`
    /// (opensrv's `0xFF`, code, `#`, SQLSTATE, then the marker and the message); returns the
    /// payload's new length. Whatever follows in `out` moves down with the message.
    #[cold]
    fn rewrite(&mut self, at: usize, len: usize) -> usize {
        let p = &mut self.out[at..];
        let code: u16 = std::str::from_utf8(&p[10..14])
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1105);
        // (bytes kept before the message, bytes dropped)
        let (head, dropped) = if code == RAW_REPLY {
            (0, 19)
        } else {
            p[1..3].copy_from_slice(&code.to_le_bytes());
            p.copy_within(14..19, 4);
            (9, MARKER_LEN)
        };
        p.copy_within(19.., head);
        self.out.truncate(self.out.len() - dropped);
        let n = len - dropped;
        self.out[at - 4..at - 1].copy_from_slice(&[n as u8, (n >> 8) as u8, (n >> 16) as u8]);
        n
    }

    /// Moves the warnings marker of the OK packet whose payload of `len` bytes starts at `at`
    /// into its warnings field (`warnings.rs`); returns the payload's new length.
    #[cold]
    fn warnings(&mut self, at: usize, len: usize) -> usize {
        let Some(n) = warnings::patch(&mut self.out[at..at + len]) else {
            return len;
        };
        self.out.drain(at + n..at + len);
        self.out[at - 4..at - 1].copy_from_slice(&[n as u8, (n >> 8) as u8, (n >> 16) as u8]);
        n
    }

    /// Rewrites in place the OK packet (`0xFE` header: a result's end) whose payload of `len`
    /// bytes starts at `at` and whose info is [`MORE_RESULTS`]: the status gets
    /// `SERVER_MORE_RESULTS_EXISTS`, the info goes; returns the payload's new length.
    #[cold]
    fn more_results(&mut self, at: usize, len: usize) -> usize {
        // Header, affected rows and last insert id (0: one byte each), status, warnings; the
        // info after them bare, or after its length with CLIENT_SESSION_TRACK.
        let keep = match len - MORE_RESULTS.len() {
            n @ (7 | 8) => n,
            _ => return len,
        };
        let p = &mut self.out[at..];
        p[3] |= SERVER_MORE_RESULTS_EXISTS;
        if keep == 8 {
            p[7] = 0;
        }
        p.copy_within(len.., keep);
        self.out.truncate(self.out.len() - (len - keep));
        self.out[at - 4..at - 1].copy_from_slice(&[keep as u8, 0, 0]);
        keep
    }

    /// Rewrites in place the column definition whose payload of `len` bytes starts at `at` and
    /// whose table name is a marker (`kind::definition_marker`): its metadata goes into the
    /// definition's fields, the name becomes empty; returns the payload's new length.
    #[cold]
    fn definition(&mut self, at: usize, len: usize) -> usize {
        if !kind::patch_definition(&mut self.out[at..at + len]) {
            return len;
        }
        let marker = at + 6..at + 6 + kind::DEFINITION_MARKER_LEN;
        self.out[at + 5] = 0;
        self.out.drain(marker);
        let n = len - kind::DEFINITION_MARKER_LEN;
        self.out[at - 4..at - 1].copy_from_slice(&[n as u8, (n >> 8) as u8, (n >> 16) as u8]);
        n
    }

    /// Appends `bufs` and scans them; all of them are taken.
    #[inline]
    fn take<B: std::ops::Deref<Target = [u8]>>(&mut self, bufs: &[B]) -> usize {
        let n = bufs.iter().map(|b| b.len()).sum();
        self.out.reserve(n);
        for b in bufs {
            self.out.extend_from_slice(b);
        }
        self.scan();
        n
    }
}

impl<W: AsyncWrite + Unpin> ErrorCodes<W> {
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.scanned {
            let buf = &self.out[self.sent..self.scanned];
            let n = match Pin::new(&mut self.inner).poll_write(cx, buf) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            };
            self.sent += n;
        }
        if self.scanned == self.out.len() {
            self.out.clear();
        } else {
            // An incomplete packet's start stays (rare: opensrv flushes after whole packets).
            self.out.drain(..self.scanned);
        }
        if self.out.capacity() > KEPT_CAPACITY {
            self.out.shrink_to(KEPT_CAPACITY);
        }
        self.sent = 0;
        self.scanned = 0;
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for ErrorCodes<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(self.get_mut().take(&[buf])))
    }

    /// Takes every slice: opensrv writes a packet as its header and its payload, and copies
    /// byte by byte whatever a write leaves of them (`PacketWriter::end_packet`).
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(self.get_mut().take(bufs)))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match this.poll_drain(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut this.inner).poll_flush(cx),
            other => other,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match this.poll_drain(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut this.inner).poll_shutdown(cx),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests;
