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
//! It also keeps what the connection needs of the client's capability flags
//! (`CLIENT_MULTI_STATEMENTS`, `CLIENT_FOUND_ROWS`, [`ClientFlags`]): from its handshake response, and from each
//! `COM_SET_OPTION` that turns multi-statements on or off (opensrv answers that command with
//! OK and forgets it). The handshake response's bytes are kept (at most [`HANDSHAKE_KEPT`])
//! until it ends, for the connection attributes at its end (`connect_attrs.rs`), read once.
//!
//! The connection's reader goes through [`CommandMap`], which follows the packets the client
//! sends (a 3-byte length and a sequence id; a command is the first packet of a sequence, id 0,
//! unless the packet before it was a full 16 MiB one that it continues) and turns each of these
//! commands into a `COM_QUERY` (`0x03`) of the same length whose text is empty once its
//! trailing NULs go (`Connection::on_query` trims them, as MySQL's lexer ends a query at one):
//! the command byte rewritten in place, a `COM_CHANGE_USER`'s fields kept (for its schema) and
//! overwritten with NULs. A header check per packet and a look at each command's first byte.
//! Each such empty query queues what it was sent as in the [`EmptyQueries`] the connection
//! shares, and so does a client's own empty `COM_QUERY` (empty, or NULs only: the first byte of
//! any other text ends the look); `on_query` takes one entry per empty query, in order, and a
//! client's own stays MySQL's 1065.
//!
//! The reader also hands `opensrv-mysql` one packet per read, which its packet reader needs
//! ([`CommandMap`]; the constant mode reads through it too, mapping nothing): bytes read past
//! a packet's end are kept for the next read, the only bytes it copies.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

use crate::connect_attrs::ConnectAttrs;

const COM_QUERY: u8 = 0x03;
const COM_STATISTICS: u8 = 0x09;
const COM_CHANGE_USER: u8 = 0x11;
const COM_RESET_CONNECTION: u8 = 0x1f;
const COM_SET_OPTION: u8 = 0x1b;
/// A packet of this length is continued by the next one.
const FULL_PACKET: usize = 0xff_ffff;
/// The most of a `COM_CHANGE_USER`'s fields kept to read its schema from.
const CHANGE_USER_KEPT: usize = 64 << 10;
/// The most of the handshake response kept: its attributes block may take 64 KiB
/// (`connect_attrs::MAX_BLOCK`), the fields before it a few hundred bytes. A longer response
/// is cut, and its attributes are not read.
const HANDSHAKE_KEPT: usize = 68 << 10;

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

/// The capability flags the client's handshake response sets (0 until the reader has read
/// them), and where its connection attributes go: opensrv-mysql keeps the one to itself and
/// drops the other.
#[derive(Debug, Clone, Default)]
pub struct ClientFlags {
    bits: Arc<AtomicU32>,
    attrs: ConnectAttrs,
}

/// `CLIENT_MULTI_STATEMENTS`: the client may send several statements in one `COM_QUERY`.
const CLIENT_MULTI_STATEMENTS: u32 = 1 << 16;
/// `CLIENT_FOUND_ROWS`: the client's affected rows are the rows a write matched.
const CLIENT_FOUND_ROWS: u32 = 1 << 1;

impl ClientFlags {
    /// Flags whose handshake's connection attributes go to `attrs` (the connection's
    /// process-list entry's).
    pub fn new(attrs: ConnectAttrs) -> ClientFlags {
        ClientFlags {
            attrs,
            ..ClientFlags::default()
        }
    }

    /// Whether the client set `CLIENT_MULTI_STATEMENTS` (MySQL refuses a second statement in
    /// a query of a client that did not, as a syntax error).
    pub fn multi_statements(&self) -> bool {
        self.bits.load(Ordering::Relaxed) & CLIENT_MULTI_STATEMENTS != 0
    }

    /// Whether the client set `CLIENT_FOUND_ROWS` (Connector/J does by default): an UPDATE's
    /// affected rows are the rows it matched, not those it changed (`rewrite/changed.rs`).
    pub fn found_rows(&self) -> bool {
        self.bits.load(Ordering::Relaxed) & CLIENT_FOUND_ROWS != 0
    }

    /// `COM_SET_OPTION` (`mysql_set_server_option`): `MYSQL_OPTION_MULTI_STATEMENTS_ON` (0)
    /// or `_OFF` (1) turns the flag on or off for the rest of the connection, as MySQL's
    /// `dispatch_command` does; another option changes nothing.
    fn set_option(&self, option: u16) {
        match option {
            0 => self
                .bits
                .fetch_or(CLIENT_MULTI_STATEMENTS, Ordering::Relaxed),
            1 => self
                .bits
                .fetch_and(!CLIENT_MULTI_STATEMENTS, Ordering::Relaxed),
            _ => 0,
        };
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
    /// The handshake response: its first 4 bytes are its capability flags, its end the
    /// connection attributes (kept in `Framer::kept`).
    Handshake,
    /// A `COM_SET_OPTION`'s 2-byte option (kept in `Framer::kept`).
    SetOption,
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
    /// A `COM_CHANGE_USER`'s fields, or the handshake response, read so far.
    kept: Vec<u8>,
    /// The current packet is followed by a continuation.
    continued: bool,
    /// The client's first packet, its handshake response, has started.
    greeted: bool,
    /// Where the handshake response's flags go.
    flags: ClientFlags,
}

impl Framer {
    /// Follows the packets through `bytes` (the next bytes read), rewriting in place; returns
    /// how many it took: all of them, or those up to the end of the first packet that ends in
    /// them (see [`CommandMap`] for why no more).
    fn scan(&mut self, bytes: &mut [u8], empty: Option<&EmptyQueries>) -> usize {
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
                if self.payload_left == 0 {
                    // An empty packet, ended with its header.
                    return i;
                }
                if i == n {
                    continue;
                }
            }
            // The payload, in the same pass as its header when the read holds both.
            if let Watch::Command(len) = self.watch {
                self.watch = match empty {
                    Some(empty) => self.command(&mut bytes[i], len, empty),
                    None => Watch::Nothing,
                };
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
                    Watch::SetOption => {
                        let room = 2 - self.kept.len();
                        self.kept.extend_from_slice(&part[..k.min(room)]);
                        if let Ok(option) = <[u8; 2]>::try_from(&self.kept[..]) {
                            self.flags.set_option(u16::from_le_bytes(option));
                            self.kept.clear();
                            self.watch = Watch::Nothing;
                        }
                    }
                    Watch::Handshake => {
                        let had = self.kept.len();
                        let room = HANDSHAKE_KEPT.saturating_sub(had);
                        self.kept.extend_from_slice(&part[..k.min(room)]);
                        // The flags, as soon as their 4 bytes are in.
                        let flags = self.kept.get(..4).filter(|_| had < 4);
                        if let Some(Ok(b)) = flags.map(<[u8; 4]>::try_from) {
                            self.flags
                                .bits
                                .store(u32::from_le_bytes(b), Ordering::Relaxed);
                        }
                    }
                    _ => {}
                }
                self.payload_left -= k;
                i += k;
            }
            if self.payload_left == 0 {
                self.end_packet(empty);
                return i;
            }
        }
        n
    }

    /// The header read: where the packet's payload ends, and what to watch in it.
    fn start_packet(&mut self, empty: Option<&EmptyQueries>) {
        let [a, b, c, seq] = self.header;
        let len = usize::from(a) | usize::from(b) << 8 | usize::from(c) << 16;
        let command = seq == 0 && !self.continued;
        if !self.greeted {
            self.greeted = true;
            self.watch = Watch::Handshake;
        } else if command {
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
            // opensrv answers it with OK (MySQL with EOF, which clients read alike).
            COM_SET_OPTION if len == 3 => return Watch::SetOption,
            _ => return Watch::Nothing,
        }
        *byte = COM_QUERY;
        Watch::Nothing
    }

    /// The end of a packet: at the end of a command (no continuation follows), an empty query
    /// or a change of user is queued.
    fn end_packet(&mut self, empty: Option<&EmptyQueries>) {
        if self.watch == Watch::Handshake && !self.continued {
            // Once: the bytes (and their buffer) go.
            self.watch = Watch::Nothing;
            let response = std::mem::take(&mut self.kept);
            self.flags.attrs.set_from_handshake(&response);
            return;
        }
        let Some(empty) = empty else { return };
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
/// turned into empty `COM_QUERY`s (see the module docs), at most one packet per read.
///
/// One packet per read, because `opensrv-mysql` 0.7's packet reader frees its buffer while the
/// packet it returns still points into it when a read brought the start of the next packet
/// too (`PacketReader::next_async`: `self.bytes = rest.to_vec()`; upstream's issue
/// databendlabs/opensrv#66, fixed after 0.7.0, which is the last release). A client that sends
/// a command it expects no reply to, then the next (`COM_STMT_CLOSE` and a query: what
/// `mysql_async` does when it closes a statement), had the first parsed from freed memory:
/// opensrv answered an OK to no command, and every later reply went to the command after
/// the one that asked. Bytes past a packet's end wait here for the next read, so opensrv's
/// buffer never holds more than the packet it parses, and it never takes that path.
#[derive(Debug)]
pub struct CommandMap<R> {
    inner: R,
    framer: Framer,
    /// `None`: the commands pass as they are (the constant mode, which answers no statement).
    empty: Option<EmptyQueries>,
    /// Bytes read past a packet's end, from `held_at` on, for the next reads.
    held: Vec<u8>,
    held_at: usize,
}

impl<R> CommandMap<R> {
    /// Reads `inner`; the empty queries are queued in `empty`, the client's capability flags
    /// kept in `flags`.
    pub fn new(inner: R, empty: EmptyQueries, flags: ClientFlags) -> CommandMap<R> {
        CommandMap::with(inner, Some(empty), flags)
    }

    /// Reads `inner` a packet at a time and maps no command.
    pub fn unmapped(inner: R) -> CommandMap<R> {
        CommandMap::with(inner, None, ClientFlags::default())
    }

    fn with(inner: R, empty: Option<EmptyQueries>, flags: ClientFlags) -> CommandMap<R> {
        CommandMap {
            inner,
            framer: Framer {
                flags,
                ..Framer::default()
            },
            empty,
            held: Vec::new(),
            held_at: 0,
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
        let empty = this.empty.as_ref();
        if this.held_at < this.held.len() {
            if buf.remaining() == 0 {
                return Poll::Ready(Ok(()));
            }
            let part = &mut this.held[this.held_at..];
            let k = part.len().min(buf.remaining());
            let took = this.framer.scan(&mut part[..k], empty);
            buf.put_slice(&part[..took]);
            this.held_at += took;
            if this.held_at == this.held.len() {
                this.held.clear();
                this.held_at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        let r = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = r {
            let read = &mut buf.filled_mut()[before..];
            let took = this.framer.scan(read, empty);
            if took < read.len() {
                this.held.extend_from_slice(&read[took..]);
                buf.set_filled(before + took);
            }
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
            let mut at = 0;
            while at < c.len() {
                at += f.scan(&mut c[at..], Some(&q));
            }
        }
        let queued = q.0.lock().unwrap().iter().cloned().collect();
        (out, queued)
    }

    #[test]
    fn the_mapped_commands_become_empty_queries_and_nothing_else_changes() {
        // COM_CHANGE_USER: user "u", a 2-byte auth response, schema "db", charset, plugin.
        let change_user = b"\x11u\0\x02abdb\0\x21\0mysql_native_password\0";
        let packets = [
            packet(1, &[0x1f, 0x1f, 0x1f, 0]), // the handshake response: not a command
            packet(0, b"\x03SELECT 1"),        // a query
            packet(0, &[COM_RESET_CONNECTION]), // the reset
            packet(1, &[COM_RESET_CONNECTION]), // not the first packet of its sequence
            packet(0, &[COM_QUERY]),           // a client's own empty query
            packet(0, b"\x03\0\0"),            // and one of NULs only
            packet(0, b"\x03\0x"),             // not empty
            packet(0, &[0x0e]),                // COM_PING
            packet(0, &[COM_STATISTICS]),      // mysql_stat()
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

    /// A handshake response of a client whose capability flags are `flags` (the rest of it
    /// does not matter to the reader).
    fn handshake(flags: u32) -> Vec<u8> {
        packet(1, &[&flags.to_le_bytes()[..], &[0x21; 28][..]].concat())
    }

    /// What each read of a `CommandMap` over `stream` returns, with a buffer of `room` bytes,
    /// after a handshake response with `CLIENT_MULTI_STATEMENTS`; and whether the reader
    /// found that flag.
    fn reads(stream: &[u8], room: usize, map: bool) -> Vec<Vec<u8>> {
        use tokio::io::AsyncReadExt;
        let hello = handshake(CLIENT_MULTI_STATEMENTS);
        let stream = [hello.clone(), stream.to_vec()].concat();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let flags = ClientFlags::default();
        let mut out = rt.block_on(async {
            let mut r = match map {
                true => CommandMap::new(&stream[..], EmptyQueries::default(), flags.clone()),
                false => CommandMap::unmapped(&stream[..]),
            };
            let (mut out, mut buf) = (Vec::new(), vec![0; room]);
            loop {
                match r.read(&mut buf).await.unwrap() {
                    0 => return out,
                    n => out.push(buf[..n].to_vec()),
                }
            }
        });
        assert_eq!(
            flags.multi_statements(),
            map,
            "the flags are read when mapping"
        );
        // The handshake's own reads: a read never goes past a packet's end.
        let mut seen = 0;
        while seen < hello.len() {
            seen += out.remove(0).len();
        }
        assert_eq!(seen, hello.len());
        out
    }

    #[test]
    fn a_read_ends_where_a_packet_ends() {
        let close = packet(0, &[0x19, 1, 0, 0, 0]);
        let query = packet(0, b"\x03SELECT 1");
        let empty = packet(0, b"");
        let stream = [close.clone(), empty.clone(), query.clone()].concat();
        for map in [true, false] {
            // One read of the socket brings all three: the reader hands them over one by one.
            assert_eq!(
                reads(&stream, 4096, map),
                [close.clone(), empty.clone(), query.clone()]
            );
            // A small buffer cuts a packet, never joins two.
            let small = reads(&stream, 3, map);
            assert_eq!(small.concat(), stream);
            let mut at = 0;
            for r in &small {
                let ends = [close.len(), close.len() + empty.len(), stream.len()];
                assert!(
                    ends.iter().all(|&e| at >= e || at + r.len() <= e),
                    "{small:?}"
                );
                at += r.len();
            }
        }
        // Unmapped, a reset passes as it is.
        let reset = packet(0, &[COM_RESET_CONNECTION]);
        assert_eq!(reads(&reset, 64, false), std::slice::from_ref(&reset));
        assert_ne!(reads(&reset, 64, true), [reset]);
    }

    #[test]
    fn set_option_turns_multi_statements_on_and_off() {
        let flags = ClientFlags::default();
        let mut f = Framer {
            flags: flags.clone(),
            ..Framer::default()
        };
        let q = EmptyQueries::default();
        let mut scan = |bytes: &[u8], chunk: usize| {
            let mut b = bytes.to_vec();
            for c in b.chunks_mut(chunk) {
                let mut at = 0;
                while at < c.len() {
                    at += f.scan(&mut c[at..], Some(&q));
                }
            }
            assert_eq!(b, bytes, "passed as it is");
            flags.multi_statements()
        };
        assert!(scan(&handshake(CLIENT_MULTI_STATEMENTS), 64));
        assert!(!scan(&packet(0, &[COM_SET_OPTION, 1, 0]), 1), "OFF");
        assert!(
            !scan(&packet(0, &[COM_SET_OPTION, 7, 0]), 64),
            "another option"
        );
        assert!(scan(&packet(0, &[COM_SET_OPTION, 0, 0]), 2), "ON");
        assert!(scan(&packet(0, b"\x03SELECT 1"), 64));
    }

    #[test]
    fn the_handshake_s_attributes_are_kept_once_whatever_the_reads() {
        // CLIENT_PROTOCOL_41, CLIENT_SECURE_CONNECTION, CLIENT_CONNECT_ATTRS; user "u", no
        // auth response, then one attribute.
        let flags: u32 = (1 << 9) | (1 << 15) | (1 << 20) | CLIENT_MULTI_STATEMENTS;
        let tail = b"u\0\0\x0b\x04_pid\x0542424";
        let hello = packet(
            1,
            &[&flags.to_le_bytes()[..], &[0; 28][..], &tail[..]].concat(),
        );
        let stream = [hello, packet(0, b"\x03SELECT 1")].concat();
        for chunk in [1, 3, stream.len()] {
            let client = ClientFlags::default();
            let mut f = Framer {
                flags: client.clone(),
                ..Framer::default()
            };
            let mut out = stream.clone();
            for c in out.chunks_mut(chunk) {
                let mut at = 0;
                while at < c.len() {
                    at += f.scan(&mut c[at..], Some(&EmptyQueries::default()));
                }
            }
            assert_eq!(out, stream, "passed as it is");
            assert!(client.multi_statements());
            let attrs = client.attrs.attrs();
            assert_eq!(attrs.len(), 1, "{chunk}");
            assert_eq!(attrs[0].value.as_deref(), Some("42424"));
            assert!(f.kept.capacity() == 0, "the response's bytes go");
        }
    }

    #[test]
    fn a_continuation_packet_is_not_a_command() {
        let mut stream = packet(0, &vec![b'x'; FULL_PACKET]);
        stream[4] = COM_QUERY;
        let stream = [handshake(0), stream].concat();
        let mut stream = stream;
        // The continuation happens to hold one 0x1F byte, with sequence id 0 after a wrap.
        stream.extend(packet(0, &[COM_RESET_CONNECTION]));
        let (out, queued) = scanned(&stream, 65536);
        assert_eq!(out, stream);
        assert!(queued.is_empty());
    }
}
