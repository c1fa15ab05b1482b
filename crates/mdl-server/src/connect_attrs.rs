//! Connection attributes: the key/value pairs a client sends at the end of its handshake
//! response (`CLIENT_CONNECT_ATTRS`: libmariadb's `_client_name`, `_os`, `_pid`,
//! `program_name`, ...), which `performance_schema.session_connect_attrs` and
//! `session_account_connect_attrs` show and sys 8.0's `processlist` reads `pid` and
//! `program_name` from (`pfs_views/connect_attrs.rs`).
//!
//! `opensrv-mysql` 0.7 parses the handshake response itself and drops the attributes, so the
//! connection's reader (`command_map.rs`) keeps the response's bytes as they pass and hands
//! them to [`block`] once, at the end of that packet: no cost per statement.
//!
//! As in MySQL:
//!
//! * [`block`] walks the HandshakeResponse41 as `parse_client_handshake_packet` does
//!   (`sql/auth/sql_authentication.cc`): the 32 fixed bytes, the user (NUL-ended), the auth
//!   response (length-encoded with `CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA`, else one length
//!   byte with `CLIENT_SECURE_CONNECTION`, else NUL-ended, the forms `opensrv-mysql` accepts),
//!   the schema (`CLIENT_CONNECT_WITH_DB`), the auth plugin's name (`CLIENT_PLUGIN_AUTH`), then
//!   the block: its length-encoded length and its bytes. `read_client_connect_attrs` refuses a
//!   block longer than the rest of the packet or than 64 KiB.
//! * The performance schema keeps the block's first
//!   `performance_schema_session_connect_attrs_size` bytes (autosized to 512,
//!   `storage/perfschema/pfs_autosize.cc`; `pfs_set_thread_connect_attrs` copies no more), and
//!   each read of the table parses them again (`read_nth_attr`,
//!   `storage/perfschema/table_session_connect_attrs.cc`): pairs of length-encoded strings,
//!   until the block ends, a length runs past it (`parse_length_encoded_string`), or a name is
//!   empty. A pair cut by the 512 bytes is so lost with all after it; those before it stay.
//!   Names keep their first 32 characters, values their first 1024; an empty value is NULL.
//!
//! Where this differs: MySQL refuses the connection (1043, bad handshake) whose block is
//! malformed; here `opensrv-mysql` has already accepted it, and the connection keeps no
//! attributes. The text is read as UTF-8 up to its first malformed sequence (MySQL converts
//! from the client's character set with `well_formed_copy_nchars`, which stops there too).
//! `COM_CHANGE_USER`'s attributes do not replace the handshake's.

use std::sync::{Arc, OnceLock};

/// `CLIENT_CONNECT_ATTRS`: the handshake response ends with the attributes.
pub const CLIENT_CONNECT_ATTRS: u32 = 1 << 20;
const CLIENT_CONNECT_WITH_DB: u32 = 1 << 3;
const CLIENT_PROTOCOL_41: u32 = 1 << 9;
const CLIENT_SSL: u32 = 1 << 11;
const CLIENT_SECURE_CONNECTION: u32 = 1 << 15;
const CLIENT_PLUGIN_AUTH: u32 = 1 << 19;
const CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;

/// `read_client_connect_attrs`' limit on the block.
pub const MAX_BLOCK: usize = 65535;
/// The most of the block kept: `performance_schema_session_connect_attrs_size`, autosized.
pub const KEPT: usize = 512;
/// The longest name and value shown, in characters (`read_nth_attr`).
const NAME_CHARS: usize = 32;
const VALUE_CHARS: usize = 1024;

/// A connection's attributes block (its first [`KEPT`] bytes), shared by its reader, which
/// sets it once, and its process-list entry, which shows it.
#[derive(Debug, Clone, Default)]
pub struct ConnectAttrs(Arc<OnceLock<Box<[u8]>>>);

/// One attribute, as `session_connect_attrs` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attr {
    /// `ATTR_NAME`.
    pub name: String,
    /// `ATTR_VALUE`: NULL when empty.
    pub value: Option<String>,
    /// `ORDINAL_POSITION`, from 0.
    pub ordinal: u32,
}

impl ConnectAttrs {
    /// Keeps the attributes of the handshake response `packet` (its payload), if it has a
    /// well-formed block; the first call only.
    pub fn set_from_handshake(&self, packet: &[u8]) {
        if let Some(b) = block(packet) {
            let _ = self.0.set(b[..b.len().min(KEPT)].into());
        }
    }

    /// The attributes, parsed from the kept bytes (see the module docs).
    pub fn attrs(&self) -> Vec<Attr> {
        self.0.get().map_or_else(Vec::new, |b| parse(b))
    }
}

/// The attributes block of the HandshakeResponse41 `p` (see the module docs); `None` when the
/// client sent none or the response is malformed.
pub fn block(p: &[u8]) -> Option<&[u8]> {
    let flags = u32::from_le_bytes(p.get(..4)?.try_into().ok()?);
    let has = |f: u32| flags & f != 0;
    if !has(CLIENT_PROTOCOL_41) || !has(CLIENT_CONNECT_ATTRS) || has(CLIENT_SSL) {
        return None;
    }
    // Capabilities, max packet size, character set, 23 bytes of filler.
    let rest = p.get(32..)?;
    let (_user, rest) = nul_string(rest)?;
    let rest = if has(CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) {
        let (n, rest) = lenenc(rest)?;
        rest.get(usize::try_from(n).ok()?..)?
    } else if has(CLIENT_SECURE_CONNECTION) {
        let (&n, rest) = rest.split_first()?;
        rest.get(usize::from(n)..)?
    } else {
        nul_string(rest)?.1
    };
    let rest = if has(CLIENT_CONNECT_WITH_DB) {
        nul_string(rest)?.1
    } else {
        rest
    };
    let rest = if has(CLIENT_PLUGIN_AUTH) {
        nul_string(rest)?.1
    } else {
        rest
    };
    let (len, rest) = lenenc(rest)?;
    let len = usize::try_from(len).ok().filter(|&n| n <= MAX_BLOCK)?;
    rest.get(..len)
}

/// The attributes of `block` (`read_nth_attr`, see the module docs).
pub fn parse(mut block: &[u8]) -> Vec<Attr> {
    let mut out = Vec::new();
    while !block.is_empty() {
        let Some((name, rest)) = lenenc_string(block) else {
            break;
        };
        let Some((value, rest)) = lenenc_string(rest) else {
            break;
        };
        let name = chars(name, NAME_CHARS);
        if name.is_empty() {
            break;
        }
        let value = chars(value, VALUE_CHARS);
        out.push(Attr {
            name,
            value: (!value.is_empty()).then_some(value),
            ordinal: out.len() as u32,
        });
        block = rest;
    }
    out
}

/// A NUL-ended string and what follows it.
fn nul_string(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let end = b.iter().position(|&c| c == 0)?;
    Some((&b[..end], &b[end + 1..]))
}

/// A length-encoded integer (`net_field_length_ll`); NULL (`0xFB`) and `0xFF` are none.
fn lenenc(b: &[u8]) -> Option<(u64, &[u8])> {
    let (&first, rest) = b.split_first()?;
    let size = match first {
        0..=0xFA => return Some((u64::from(first), rest)),
        0xFC => 2,
        0xFD => 3,
        0xFE => 8,
        _ => return None,
    };
    let bytes = rest.get(..size)?;
    let n = (bytes.iter().rev()).fold(0u64, |n, &c| n << 8 | u64::from(c));
    Some((n, &rest[size..]))
}

/// A length-encoded string and what follows it (`parse_length_encoded_string`: no NULL, no
/// length past the end).
fn lenenc_string(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let (n, rest) = lenenc(b)?;
    let n = usize::try_from(n).ok()?;
    Some((rest.get(..n)?, &rest[n..]))
}

/// The first `max` characters of `b`, up to its first malformed UTF-8 sequence.
fn chars(b: &[u8], max: usize) -> String {
    let text = match std::str::from_utf8(b) {
        Ok(t) => t,
        // The valid prefix is valid UTF-8 by definition.
        Err(e) => std::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or_default(),
    };
    text.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(kv: &[(&str, &str)]) -> Vec<u8> {
        let mut b = Vec::new();
        for (k, v) in kv {
            b.push(k.len() as u8);
            b.extend_from_slice(k.as_bytes());
            b.push(v.len() as u8);
            b.extend_from_slice(v.as_bytes());
        }
        b
    }

    /// A handshake response of `flags`, user `root`, a 20-byte auth response, schema `db`,
    /// plugin `mysql_native_password`, then `tail`.
    fn response(flags: u32, tail: &[u8]) -> Vec<u8> {
        let mut p = flags.to_le_bytes().to_vec();
        p.extend_from_slice(&[0, 0, 0, 1, 0x21]);
        p.extend_from_slice(&[0; 23]);
        p.extend_from_slice(b"root\0");
        if flags & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0
            || flags & CLIENT_SECURE_CONNECTION != 0
        {
            p.push(20);
            p.extend_from_slice(&[7; 20]);
        } else {
            p.extend_from_slice(b"secret\0");
        }
        if flags & CLIENT_CONNECT_WITH_DB != 0 {
            p.extend_from_slice(b"db\0");
        }
        if flags & CLIENT_PLUGIN_AUTH != 0 {
            p.extend_from_slice(b"mysql_native_password\0");
        }
        p.extend_from_slice(tail);
        p
    }

    const BASE: u32 = CLIENT_PROTOCOL_41 | CLIENT_CONNECT_ATTRS;

    fn with_len(b: &[u8]) -> Vec<u8> {
        [&[b.len() as u8][..], b].concat()
    }

    #[test]
    fn the_block_is_found_whatever_the_fields_before_it() {
        let attrs = pairs(&[("_client_name", "libmariadb"), ("program_name", "mariadb")]);
        for more in [
            CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_WITH_DB,
            CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH,
            CLIENT_SECURE_CONNECTION | CLIENT_CONNECT_WITH_DB,
            0,
        ] {
            let p = response(BASE | more, &with_len(&attrs));
            assert_eq!(block(&p), Some(&attrs[..]), "{more:#x}");
        }
        let got = parse(&attrs);
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[1],
            Attr {
                name: "program_name".into(),
                value: Some("mariadb".into()),
                ordinal: 1
            }
        );
    }

    #[test]
    fn no_block_without_the_flag_or_when_malformed() {
        let attrs = with_len(&pairs(&[("a", "b")]));
        assert_eq!(block(&response(CLIENT_PROTOCOL_41, &attrs)), None);
        assert_eq!(block(&response(BASE | CLIENT_SSL, &attrs)), None);
        // Cut short anywhere: never a panic, never a block.
        let full = response(BASE | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_WITH_DB, &attrs);
        for n in 0..full.len() {
            assert_eq!(block(&full[..n]), None, "{n}");
        }
        // A length past the packet, NULL as a length, a block over 64 KiB.
        let p = response(BASE, &[9, 1, b'a']);
        assert_eq!(block(&p), None);
        assert_eq!(block(&response(BASE, &[0xFB])), None);
        let big = vec![0u8; MAX_BLOCK + 1];
        let tail = [
            &[0xFD][..],
            &((MAX_BLOCK + 1) as u32).to_le_bytes()[..3],
            &big[..],
        ]
        .concat();
        assert_eq!(block(&response(BASE, &tail)), None);
        let ok = [
            &[0xFC][..],
            &(MAX_BLOCK as u16).to_le_bytes()[..],
            &big[1..],
        ]
        .concat();
        assert_eq!(
            block(&response(BASE, &ok)).map(<[u8]>::len),
            Some(MAX_BLOCK)
        );
        // Garbage of every length after the fixed part.
        for n in 0..64u8 {
            let junk: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37) ^ 0xA5).collect();
            let _ = block(&response(
                BASE | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
                &junk,
            ));
            let _ = parse(&junk);
        }
    }

    #[test]
    fn parsing_follows_read_nth_attr() {
        // A pair cut short: the pairs before it stay.
        let mut b = pairs(&[("k1", "v1"), ("k2", "")]);
        assert_eq!(parse(&b).len(), 2);
        assert_eq!(parse(&b)[1].value, None, "an empty value is NULL");
        b.extend_from_slice(&[3, b'k', b'3']);
        assert_eq!(parse(&b).len(), 2);
        // An empty name ends the list.
        let b = pairs(&[("k1", "v1"), ("", "x"), ("k3", "v3")]);
        assert_eq!(parse(&b).len(), 1);
        // Names keep 32 characters, values 1024; UTF-8 up to a malformed byte.
        let long = "n".repeat(40);
        let b = [&[40][..], long.as_bytes(), &[3, b'a', 0xFF, b'b'][..]].concat();
        let got = parse(&b);
        assert_eq!(got[0].name.len(), 32);
        assert_eq!(got[0].value.as_deref(), Some("a"));
        let v = "é".repeat(1100);
        let b = [
            &[1, b'k', 0xFC][..],
            &(v.len() as u16).to_le_bytes()[..],
            v.as_bytes(),
        ]
        .concat();
        assert_eq!(
            parse(&b)[0].value.as_ref().map(|v| v.chars().count()),
            Some(1024)
        );
    }

    #[test]
    fn only_the_first_512_bytes_are_kept() {
        let kv: Vec<(String, String)> = (0..40)
            .map(|i| (format!("key{i:02}"), "v".repeat(10)))
            .collect();
        let kv: Vec<(&str, &str)> = kv.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let attrs = pairs(&kv);
        assert!(attrs.len() > KEPT);
        let len = (attrs.len() as u16).to_le_bytes();
        let p = response(BASE, &[&[0xFC][..], &len[..], &attrs[..]].concat());
        let kept = ConnectAttrs::default();
        kept.set_from_handshake(&p);
        // 17 bytes a pair: 30 whole pairs in 512 bytes.
        assert_eq!(kept.attrs().len(), KEPT / 17);
        assert_eq!(kept.attrs()[29].name, "key29");
        // Set once.
        kept.set_from_handshake(&response(BASE, &with_len(&pairs(&[("a", "b")]))));
        assert_eq!(kept.attrs().len(), KEPT / 17);
        assert!(ConnectAttrs::default().attrs().is_empty());
    }
}
