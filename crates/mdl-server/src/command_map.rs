//! Commands `opensrv-mysql` 0.7 does not parse: it answers every command it does not know with
//! OK and does nothing. Three matter:
//!
//! * `COM_RESET_CONNECTION`: a client that resets a pooled connection (`mysql_async`'s pool
//!   does, each time a connection goes back to it) would keep the previous user's open
//!   transaction, LOCK TABLES, user-level locks and global read lock, and the metadata locks that
//!   come with them. `Connection::reset` runs MySQL's `THD::cleanup_connection`.
//! * `COM_CHANGE_USER` (a pool's reset where the server has no `COM_RESET_CONNECTION`, or a
//!   change of login): the same reset, then the schema it names becomes the current one. This
//!   server has no accounts: the login stays the handshake's, and the OK it answers with is
//!   what a client reads after a successful change.
//! * `COM_STATISTICS` (`mysql_stat()`: `mariadb-admin status` and `version`): its reply is a
//!   line of text, not an OK packet, which the client reads as "Wrong host info".
//!
//! The connection's reader goes through [`CommandMap`], which follows the packets the client
//! sends (a 3-byte length and a sequence id; a command is the first packet of a sequence, id 0,
//! unless the packet before it was a full 16 MiB one that it continues) and turns each of these
//! commands into a `COM_QUERY` (`0x03`) of the same length whose text is empty once its
//! trailing NULs go (`Connection::on_query` trims them, as MySQL's lexer ends a query at one):
//! the command byte rewritten in place, a `COM_CHANGE_USER`'s fields kept (for its schema) and
//! overwritten with NULs. No copy, a header check per packet and a look at each command's first
//! byte. Each such empty query queues what it was sent as in the [`EmptyQueries`] the
//! connection shares, and so does a client's own empty `COM_QUERY` (empty, or NULs only: the
//! first byte of any other text ends the look); `on_query` takes one entry per empty query, in
//! order, and a client's own stays MySQL's 1065.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

const COM_QUERY: u8 = 0x03;
const COM_STATISTICS: u8 = 0x09;
const COM_CHANGE_USER: u8 = 0x11;
const COM_RESET_CONNECTION: u8 = 0x1f;
/// A packet of this length is continued by the next one.
const FULL_PACKET: usize = 0xff_ffff;
/// The most of a `COM_CHANGE_USER`'s fields kept to read its schema from.
const CHANGE_USER_KEPT: usize = 64 << 10;

/// What an empty `COM_QUERY` the connection reads was sent as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmptyQuery {
    /// An empty query (MySQL's 1065).
    Query,
    /// `COM_RESET_CONNECTION`.
    Reset,
    /// `COM_STATISTICS`.
    Statistics,
    /// `COM_CHANGE_USER`, with the schema it names, if any.
    ChangeUser {
        /// The schema to be in after the reset.
        schema: Option<String>,
    },
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

/// What the reader watches in the current packet's payload.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Watch {
    /// Nothing.
    #[default]
    Nothing,
    /// The command byte of a command packet of this length is next.
    Command(usize),
    /// A `COM_QUERY`'s text: empty (after its trailing NULs) if every byte so far was NUL.
    QueryText {
        /// Every byte so far was NUL.
        empty: bool,
    },
    /// A `COM_CHANGE_USER`'s fields, kept (`Framer::kept`) and overwritten with NULs.
    ChangeUser,
}

/// Where the reader is in the client's packets.
#[derive(Debug, Default)]
struct Framer {
    header: [u8; 4],
    /// Header bytes read of the next packet.
    header_len: usize,
    /// Payload bytes of the current packet still to pass.
    payload_left: usize,
    /// What the current packet's payload is watched for.
    watch: Watch,
    /// A `COM_CHANGE_USER`'s fields read so far.
    kept: Vec<u8>,
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
                self.start_packet(empty);
                if self.payload_left == 0 || i == n {
                    continue;
                }
            }
            // The payload, in the same pass as its header when the read holds both.
            if let Watch::Command(len) = self.watch {
                self.watch = self.command(&mut bytes[i], len, empty);
                i += 1;
                self.payload_left -= 1;
            }
            let k = self.payload_left.min(n - i);
            if k > 0 {
                let part = &mut bytes[i..i + k];
                match self.watch {
                    Watch::QueryText { empty: true } => {
                        self.watch = Watch::QueryText {
                            empty: part.iter().all(|&b| b == 0),
                        }
                    }
                    Watch::ChangeUser => {
                        let room = CHANGE_USER_KEPT.saturating_sub(self.kept.len());
                        self.kept.extend_from_slice(&part[..k.min(room)]);
                        part.fill(0);
                    }
                    _ => {}
                }
                self.payload_left -= k;
                i += k;
            }
            if self.payload_left == 0 {
                self.end_packet(empty);
            }
        }
    }

    /// The header read: where the packet's payload ends, and what to watch in it.
    fn start_packet(&mut self, empty: &EmptyQueries) {
        let [a, b, c, seq] = self.header;
        let len = usize::from(a) | usize::from(b) << 8 | usize::from(c) << 16;
        let command = seq == 0 && !self.continued;
        if command {
            self.watch = Watch::Command(len);
        } else if !self.continued {
            self.watch = Watch::Nothing;
        }
        self.continued = len == FULL_PACKET;
        self.payload_left = len;
        if len == 0 {
            self.end_packet(empty);
        }
    }

    /// A command packet's first byte, of a payload of `len` bytes: rewritten if it is one of
    /// the module docs' commands; what to watch in the rest.
    fn command(&self, byte: &mut u8, len: usize, empty: &EmptyQueries) -> Watch {
        match *byte {
            COM_QUERY => return Watch::QueryText { empty: true },
            COM_CHANGE_USER => {
                *byte = COM_QUERY;
                return Watch::ChangeUser;
            }
            COM_RESET_CONNECTION if len == 1 => empty.push(EmptyQuery::Reset),
            COM_STATISTICS if len == 1 => empty.push(EmptyQuery::Statistics),
            _ => return Watch::Nothing,
        }
        *byte = COM_QUERY;
        Watch::Nothing
    }

    /// The end of a packet: at the end of a command (no continuation follows), an empty query
    /// or a change of user is queued.
    fn end_packet(&mut self, empty: &EmptyQueries) {
        if self.continued || self.watch == Watch::Nothing {
            return;
        }
        match std::mem::take(&mut self.watch) {
            Watch::QueryText { empty: true } => empty.push(EmptyQuery::Query),
            Watch::ChangeUser => {
                let schema = change_user_schema(&std::mem::take(&mut self.kept));
                empty.push(EmptyQuery::ChangeUser { schema });
            }
            _ => {}
        }
    }
}

/// The schema a `COM_CHANGE_USER`'s fields name (after the command byte: the user, NUL-ended;
/// the auth response, after its length byte; the schema, NUL-ended; MySQL's
/// `parse_com_change_user_packet`, `sql/auth/sql_authentication.cc`); `None` if none.
fn change_user_schema(fields: &[u8]) -> Option<String> {
    let user_end = fields.iter().position(|&b| b == 0)?;
    let (&auth_len, rest) = fields[user_end + 1..].split_first()?;
    let rest = rest.get(usize::from(auth_len)..)?;
    let db = &rest[..rest.iter().position(|&b| b == 0)?];
    let db = std::str::from_utf8(db).ok()?;
    (!db.is_empty()).then(|| db.to_string())
}

/// The client's bytes, with `COM_RESET_CONNECTION`, `COM_CHANGE_USER` and `COM_STATISTICS`
/// turned into empty `COM_QUERY`s (see the module docs).
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
        let queued = q.0.lock().unwrap().iter().cloned().collect();
        (out, queued)
    }

    #[test]
    fn the_mapped_commands_become_empty_queries_and_nothing_else_changes() {
        // COM_CHANGE_USER: user "u", a 2-byte auth response, schema "db", charset, plugin.
        let change_user = b"\x11u\0\x02abdb\0\x21\0mysql_native_password\0";
        let packets = [
            packet(1, &[0x1f, 0x1f, 0x1f]), // a handshake response: not a command
            packet(0, b"\x03SELECT 1"),     // a query
            packet(0, &[COM_RESET_CONNECTION]), // the reset
            packet(1, &[COM_RESET_CONNECTION]), // not the first packet of its sequence
            packet(0, &[COM_QUERY]),        // a client's own empty query
            packet(0, b"\x03\0\0"),         // and one of NULs only
            packet(0, b"\x03\0x"),          // not empty
            packet(0, &[0x0e]),             // COM_PING
            packet(0, &[COM_STATISTICS]),   // mysql_stat()
            packet(0, change_user),
            packet(0, &[COM_RESET_CONNECTION, 0]), // not a reset: too long
        ];
        let stream: Vec<u8> = packets.concat();
        let mut want = packets.clone();
        want[2][4] = COM_QUERY;
        want[8][4] = COM_QUERY;
        want[9] = packet(
            0,
            &[&[COM_QUERY][..], &vec![0; change_user.len() - 1]].concat(),
        );
        let want = want.concat();
        let kinds = vec![
            EmptyQuery::Reset,
            EmptyQuery::Query,
            EmptyQuery::Query,
            EmptyQuery::Statistics,
            EmptyQuery::ChangeUser {
                schema: Some("db".into()),
            },
        ];
        for chunk in [1, 2, 3, 5, 7, stream.len()] {
            assert_eq!(
                scanned(&stream, chunk),
                (want.clone(), kinds.clone()),
                "{chunk}"
            );
        }
        assert_eq!(change_user_schema(b"u\0\0\0"), None);
        assert_eq!(change_user_schema(b"u\0\x05ab"), None, "cut short");
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
