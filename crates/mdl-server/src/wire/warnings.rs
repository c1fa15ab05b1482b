//! A statement's warning count on the wire (`diagnostics.rs`), in the packet that ends it:
//!
//! * **An OK packet**: the one that ends a statement without a result set, or (`0xFE` header,
//!   with `CLIENT_DEPRECATE_EOF`) a result set. `opensrv-mysql` 0.7 writes 0 there whatever
//!   `OkResponse::warnings` says, so the count goes into the packet's info as a marker
//!   ([`info`]: `\x01mdl:warnings:`, a key of the process and 5 digits, last in the info), which
//!   [`super::ErrorCodes`] moves into the warnings field ([`patch`]).
//! * **An EOF packet** (a client without `CLIENT_DEPRECATE_EOF`, as the `mariadb` client and
//!   libmariadb's other users): it has no info, so the count goes through a cell the connection
//!   shares with its stream ([`EofWarnings`]), set before the result is written and read by the
//!   stream at each EOF it passes. MySQL writes the statement's count into both EOFs of a result
//!   set, the one after the column definitions (`Protocol_classic::end_result_metadata`) and
//!   the one after the rows (`Protocol_classic::send_eof` -> `net_send_eof` ->
//!   `write_eof_packet`, `sql/protocol_classic.cc`); so does this one. In a multi-statement
//!   query's results, opensrv writes a result's last EOF (with `SERVER_MORE_RESULTS_EXISTS`)
//!   as the next result starts: the cell keeps the previous result's count for it.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::sync::OnceLock;

/// The marker's fixed part, 5 decimal digits after it: `\x01mdl:warnings:`, then a key drawn
/// once per process and `:`. A row's text can end like a marker (a first column `''`, a last
/// that ends with it), and the stream would then rewrite the row; no client can know the key.
fn prefix() -> &'static str {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX.get_or_init(|| {
        // std's `RandomState` keys are random per process.
        let key = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        format!("\u{1}mdl:warnings:{key:016x}:")
    })
}

/// The marker's length.
fn marker_len() -> usize {
    prefix().len() + 5
}

/// The info that carries `warnings` after `more` (the info the packet had: empty, or
/// `MORE_RESULTS`).
pub fn info(more: &str, warnings: u16) -> String {
    format!("{more}{}{warnings:05}", prefix())
}

/// Whether the payload `p` (not a continuation) is an OK packet whose info ends with the
/// marker: its header, and the marker's bytes at its end.
#[inline]
pub fn is_marked(p: &[u8]) -> bool {
    if !matches!(p.first(), Some(0x00 | 0xFE)) {
        return false;
    }
    let len = marker_len();
    p.len() > len
        && p[p.len() - len..p.len() - 5] == *prefix().as_bytes()
        && p[p.len() - 5..].iter().all(u8::is_ascii_digit)
}

/// The warning counts a connection's EOF packets carry (module docs): the running statement's
/// in the low 16 bits, in the high 16 the count of the result before it in a multi-statement
/// query, for that result's last EOF, which is written as the next result starts.
#[derive(Debug, Clone, Default)]
pub struct EofWarnings(Arc<AtomicU32>);

/// `SERVER_MORE_RESULTS_EXISTS` in an EOF payload's status low byte (`p[3]`).
const MORE_RESULTS_EXISTS: u8 = 0x08;

impl EofWarnings {
    /// The statement whose result is written next raised `count` conditions; the result
    /// before it in the same query (if any), `previous`.
    #[inline]
    pub fn set(&self, previous: u16, count: u16) {
        let v = u32::from(previous) << 16 | u32::from(count);
        self.0.store(v, Ordering::Relaxed);
    }

    /// Writes the count into the EOF payload `p` (`0xFE`, warnings, status: 5 bytes); a
    /// payload of another shape is left alone. An EOF that says more results follow ends the
    /// previous result (module docs).
    #[inline]
    pub fn patch(&self, p: &mut [u8]) {
        if p.len() != 5 || p[0] != 0xFE {
            return;
        }
        let v = self.0.load(Ordering::Relaxed);
        let n = match p[3] & MORE_RESULTS_EXISTS {
            0 => v as u16,
            _ => (v >> 16) as u16,
        };
        p[1..3].copy_from_slice(&n.to_le_bytes());
    }
}

/// The length of the length-encoded integer that starts with `b`.
fn lenenc_len(b: u8) -> usize {
    match b {
        0xFC => 3,
        0xFD => 4,
        0xFE => 9,
        _ => 1,
    }
}

/// Moves the marker of the marked OK packet `p` (see [`is_marked`]) into its warnings field;
/// returns the payload's length without the marker (the caller drops the marker's bytes from
/// the end, and fixes the packet's length), or `None` for a packet of another shape.
pub fn patch(p: &mut [u8]) -> Option<usize> {
    let len = p.len();
    let digits = std::str::from_utf8(&p[len - 5..]).ok()?;
    let warnings = digits.parse::<u32>().ok()?.min(u32::from(u16::MAX)) as u16;
    // Header, affected rows, last insert id, status (2), warnings (2), then the info.
    let mut at = 1;
    at += lenenc_len(*p.get(at)?);
    at += lenenc_len(*p.get(at)?);
    let info = at + 4;
    let marker = marker_len();
    if info + marker > len {
        return None;
    }
    p[at + 2..at + 4].copy_from_slice(&warnings.to_le_bytes());
    // The info is bare (it starts with a marker's `\x01`), or after its length
    // (CLIENT_SESSION_TRACK), which loses the marker's bytes.
    if p[info] != 0x01 {
        p[info] = p[info].checked_sub(u8::try_from(marker).ok()?)?;
    }
    Some(len - marker)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_becomes_the_warnings_field() {
        // An OK packet: 0x00, 0 rows, id 0, status 2, warnings 0, the info bare.
        let mut p = vec![0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00];
        p.extend_from_slice(info("", 3).as_bytes());
        assert!(is_marked(&p));
        assert_eq!(patch(&mut p), Some(7));
        assert_eq!(&p[..7], &[0x00, 0x00, 0x00, 0x02, 0x00, 0x03, 0x00]);
        // A result's end with CLIENT_SESSION_TRACK: the info after its length.
        let text = info("more", 300);
        let mut p = vec![0xFE, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, text.len() as u8];
        p.extend_from_slice(text.as_bytes());
        assert!(is_marked(&p));
        let n = patch(&mut p).unwrap();
        assert_eq!(&p[5..8], &[0x2C, 0x01, 4]);
        assert_eq!(&p[8..n], b"more");
        // A row that ends with other text is no OK packet, nor one that ends with a marker
        // without the process's key.
        assert!(!is_marked(b"\x00\x01a\x03abc"));
        assert!(!is_marked(b"\x00\x14\x01mdl:warnings:00001"));
    }

    #[test]
    fn an_eof_gets_its_result_s_count() {
        let cell = EofWarnings::default();
        let eof = |status: u8| [0xFE, 0, 0, status, 0];
        let mut p = eof(0x02);
        cell.patch(&mut p);
        assert_eq!(p, eof(0x02), "no count: nothing written");
        cell.set(7, 300);
        cell.patch(&mut p);
        assert_eq!(p, [0xFE, 0x2C, 0x01, 0x02, 0]);
        // The last EOF of the result before, which more results follow.
        let mut p = eof(0x0A);
        cell.patch(&mut p);
        assert_eq!(p, [0xFE, 7, 0, 0x0A, 0]);
        // A row whose first value is 8 bytes long, an OK packet with a 0xFE header.
        let mut row = [0xFE, 1, 0, 0, 0, 0, 0, 0, 0, b'a'];
        cell.patch(&mut row);
        assert_eq!(row[1..3], [1, 0]);
        let mut ok = [0xFE, 0, 0, 0x02, 0, 0, 0];
        cell.patch(&mut ok);
        assert_eq!(ok, [0xFE, 0, 0, 0x02, 0, 0, 0]);
    }
}
