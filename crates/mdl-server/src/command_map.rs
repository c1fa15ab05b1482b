//! Commands `opensrv-mysql` 0.7 does not parse: it answers every command it does not know with
//! OK and does nothing. Two matter:
//!
//! * `COM_RESET_CONNECTION`: a client that resets a pooled connection (`mysql_async`'s pool
//!   does, each time a connection goes back to it) would keep the previous user's open
//!   transaction, LOCK TABLES, user-level locks and global read lock, and the metadata locks that
//!   come with them. `Connection::reset` runs MySQL's `THD::cleanup_connection`.
//! * `COM_STATISTICS` (`mysql_stat()`: `mariadb-admin status` and `version`): its reply is a
//!   line of text, not an OK packet, which the client reads as "Wrong host info".
//!
//! The connection's reader goes through [`CommandMap`], which follows the packets the client
//! sends (a 3-byte length and a sequence id; a command is the first packet of a sequence, id 0,
//! unless the packet before it was a full 16 MiB one that it continues) and turns the payload of
//! either command (its command byte alone) into that of an empty `COM_QUERY` (`0x03`) in place:
//! same length, no copy, a header check per packet. Each empty query, rewritten or sent so,
//! queues what it was sent as in the [`EmptyQueries`] the connection shares; `on_query` takes one
//! entry per empty query, in order, and a client's own empty query stays MySQL's 1065.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

const COM_QUERY: u8 = 0x03;
const COM_STATISTICS: u8 = 0x09;
const COM_RESET_CONNECTION: u8 = 0x1f;
/// A packet of this length is continued by the next one.
const FULL_PACKET: usize = 0xff_ffff;

/// What an empty `COM_QUERY` the connection reads was sent as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmptyQuery {
    /// An empty query (MySQL's 1065).
    Query,
    /// `COM_RESET_CONNECTION`.
    Reset,
    /// `COM_STATISTICS`.
    Statistics,
}

/// For each empty `COM_QUERY` read, in order: what it was sent as.
#[derive(Debug, Clone, Default)]
pub struct EmptyQueries(Arc<Mutex<VecDeque<EmptyQuery>>>);

impl EmptyQueries {
    fn push(&self, q: EmptyQuery) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(q);
    }

    /// What the empty query being run was sent as (see the module docs).
    pub fn next(&self) -> EmptyQuery {
        let mut q = self.0.lock().unwrap_or_else(|e| e.into_inner());
        q.pop_front().unwrap_or(EmptyQuery::Query)
    }
}

/// Where the reader is in the client's packets.
#[derive(Debug, Default)]
struct Framer {
    header: [u8; 4],
    /// Header bytes read of the next packet.
    header_len: usize,
    /// Payload bytes of the current packet still to pass.
    payload_left: usize,
    /// The current packet is a command whose whole payload is one byte, not read yet.
    one_byte_command: bool,
    /// The current packet is followed by a continuation.
    continued: bool,
}

impl Framer {
    /// Follows the packets through `bytes` (the next bytes read), rewriting in place.
    fn scan(&mut self, bytes: &mut [u8], empty: &EmptyQueries) {
        let (mut i, n) = (0, bytes.len());
        while i < n {
            if self.payload_left == 0 {
                // A header: usually whole in one read, else byte by byte across reads.
                if self.header_len == 0 && n - i >= 4 {
                    self.header.copy_from_slice(&bytes[i..i + 4]);
                    i += 4;
                } else {
                    self.header[self.header_len] = bytes[i];
                    self.header_len += 1;
                    i += 1;
                    if self.header_len < 4 {
                        continue;
                    }
                    self.header_len = 0;
                }
                self.start_packet();
                continue;
            }
            if std::mem::take(&mut self.one_byte_command) {
                let sent_as = match bytes[i] {
                    COM_QUERY => Some(EmptyQuery::Query),
                    COM_RESET_CONNECTION => Some(EmptyQuery::Reset),
                    COM_STATISTICS => Some(EmptyQuery::Statistics),
                    _ => None,
                };
                if let Some(q) = sent_as {
                    bytes[i] = COM_QUERY;
                    empty.push(q);
                }
            }
            let k = self.payload_left.min(n - i);
            self.payload_left -= k;
            i += k;
        }
    }

    /// The header read: where the packet's payload ends, and whether it is a command made of
    /// its command byte alone.
    fn start_packet(&mut self) {
        let [a, b, c, seq] = self.header;
        let len = usize::from(a) | usize::from(b) << 8 | usize::from(c) << 16;
        let command = seq == 0 && !self.continued;
        self.continued = len == FULL_PACKET;
        self.payload_left = len;
        self.one_byte_command = command && len == 1;
    }
}

/// The client's bytes, with `COM_RESET_CONNECTION` and `COM_STATISTICS` turned into empty
/// `COM_QUERY`s.
#[derive(Debug)]
pub struct CommandMap<R> {
    inner: R,
    framer: Framer,
    empty: EmptyQueries,
}

impl<R> CommandMap<R> {
    /// Reads `inner`; the empty queries are queued in `empty`.
    pub fn new(inner: R, empty: EmptyQueries) -> CommandMap<R> {
        CommandMap {
            inner,
            framer: Framer::default(),
            empty,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for CommandMap<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = r {
            let (framer, empty) = (&mut this.framer, &this.empty);
            framer.scan(&mut buf.filled_mut()[before..], empty);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
        let n = payload.len();
        let mut p = vec![n as u8, (n >> 8) as u8, (n >> 16) as u8, seq];
        p.extend_from_slice(payload);
        p
    }

    /// `stream` scanned in chunks of `chunk` bytes.
    fn scanned(stream: &[u8], chunk: usize) -> (Vec<u8>, Vec<EmptyQuery>) {
        let (mut f, q) = (Framer::default(), EmptyQueries::default());
        let mut out = stream.to_vec();
        for c in out.chunks_mut(chunk) {
            f.scan(c, &q);
        }
        let queued = q.0.lock().unwrap().iter().copied().collect();
        (out, queued)
    }

    #[test]
    fn a_reset_and_a_stat_become_empty_queries_and_nothing_else_changes() {
        let stream: Vec<u8> = [
            packet(1, &[0x1f, 0x1f, 0x1f]), // a handshake response: not a command
            packet(0, b"\x03SELECT 1"),     // a query
            packet(0, &[COM_RESET_CONNECTION]), // the reset
            packet(1, &[COM_RESET_CONNECTION]), // not the first packet of its sequence
            packet(0, &[COM_QUERY]),        // a client's own empty query
            packet(0, &[0x0e]),             // COM_PING
            packet(0, &[COM_STATISTICS]),   // mysql_stat()
        ]
        .concat();
        let mut want = stream.clone();
        let at = packet(1, &[0; 3]).len() + packet(0, b"\x03SELECT 1").len() + 4;
        want[at] = COM_QUERY;
        let last = want.len() - 1;
        want[last] = COM_QUERY;
        let kinds = vec![EmptyQuery::Reset, EmptyQuery::Query, EmptyQuery::Statistics];
        for chunk in [1, 2, 3, 5, 7, stream.len()] {
            assert_eq!(
                scanned(&stream, chunk),
                (want.clone(), kinds.clone()),
                "{chunk}"
            );
        }
    }

    #[test]
    fn a_continuation_packet_is_not_a_command() {
        let mut stream = packet(0, &vec![b'x'; FULL_PACKET]);
        stream[4] = COM_QUERY;
        // The continuation happens to hold one 0x1F byte, with sequence id 0 after a wrap.
        stream.extend(packet(0, &[COM_RESET_CONNECTION]));
        let (out, queued) = scanned(&stream, 65536);
        assert_eq!(out, stream);
        assert!(queued.is_empty());
    }
}
