use super::*;

fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
    let n = payload.len();
    let mut v = vec![n as u8, (n >> 8) as u8, (n >> 16) as u8, seq];
    v.extend_from_slice(payload);
    v
}

/// What opensrv writes for `e`: `ER_UNKNOWN_ERROR` with the marked message.
fn opensrv_error(e: &ServerError) -> Vec<u8> {
    let mut p = vec![0xFF];
    p.extend_from_slice(&1105u16.to_le_bytes());
    p.extend_from_slice(b"#HY000");
    p.extend_from_slice(&marked(e));
    p
}

fn write(w: &mut ErrorCodes<Vec<u8>>, bytes: &[u8]) {
    let mut cx = Context::from_waker(std::task::Waker::noop());
    let r = Pin::new(w).poll_write(&mut cx, bytes);
    assert!(matches!(r, Poll::Ready(Ok(n)) if n == bytes.len()));
}

fn flush(w: &mut ErrorCodes<Vec<u8>>) {
    let mut cx = Context::from_waker(std::task::Waker::noop());
    assert!(matches!(
        Pin::new(w).poll_flush(&mut cx),
        Poll::Ready(Ok(()))
    ));
}

/// `stream` written in pieces of `chunk` bytes, then flushed: what was sent.
fn sent(stream: &[u8], chunk: usize) -> Vec<u8> {
    let mut w = ErrorCodes::new(Vec::new());
    for c in stream.chunks(chunk) {
        write(&mut w, c);
    }
    flush(&mut w);
    assert!(w.out.is_empty());
    w.inner
}

#[test]
fn marked_errors_get_their_code_and_sqlstate() {
    let e = ServerError::new(3058, "HY000", "Deadlock found");
    let ok = packet(1, &[0, 0, 0, 2, 0, 0, 0]);
    let eof = packet(3, &[0xFE, 0, 0, 2, 0]);
    let stream = [ok.clone(), packet(2, &opensrv_error(&e)), eof.clone()].concat();
    let mut err = vec![0xFF];
    err.extend_from_slice(&3058u16.to_le_bytes());
    err.extend_from_slice(b"#HY000Deadlock found");
    let want = [ok, packet(2, &err), eof].concat();
    // Every split of the error packet, and the packet after it in the same write.
    for chunk in [1, 2, 3, 5, 7, 13, stream.len()] {
        assert_eq!(sent(&stream, chunk), want, "{chunk}");
    }
    // As opensrv writes: a header and a payload in one vectored write.
    let mut w = ErrorCodes::new(Vec::new());
    let payload = opensrv_error(&e);
    let header = &packet(2, &payload)[..4];
    let bufs = [io::IoSlice::new(header), io::IoSlice::new(&payload)];
    let mut cx = Context::from_waker(std::task::Waker::noop());
    let r = Pin::new(&mut w).poll_write_vectored(&mut cx, &bufs);
    assert!(matches!(r, Poll::Ready(Ok(n)) if n == 4 + payload.len()));
    flush(&mut w);
    assert_eq!(w.inner, packet(2, &err));
}

#[test]
fn unmarked_errors_and_other_packets_pass_as_they_are() {
    let mut own = vec![0xFF];
    own.extend_from_slice(&1064u16.to_le_bytes());
    own.extend_from_slice(b"#42000You have an error in your SQL syntax");
    let stream = [
        packet(1, &own),
        packet(0, &[0xFF, 0x51, 0x04, b'#']), // too short to hold a marker
        packet(0, b""),
        packet(1, b"\x03SELECT 1"),
    ]
    .concat();
    for chunk in [1, 4, 6, stream.len()] {
        assert_eq!(sent(&stream, chunk), stream, "{chunk}");
    }
}

#[test]
fn a_raw_reply_is_its_text_alone() {
    let text = "Uptime: 5  Threads: 1  Questions: 2";
    let e = raw_reply(text.to_string());
    let stream = [packet(1, &opensrv_error(&e)), packet(2, b"next")].concat();
    let want = [packet(1, text.as_bytes()), packet(2, b"next")].concat();
    for chunk in [1, 3, stream.len()] {
        assert_eq!(sent(&stream, chunk), want, "{chunk}");
    }
}

#[test]
fn a_continuation_is_never_rewritten() {
    // A full-length packet, and its continuation that looks like a marked ERR packet.
    let e = ServerError::new(3057, "42000", "Incorrect user-level lock name");
    let mut full = packet(1, &vec![b'x'; MAX_PAYLOAD]);
    full[4] = 0xFF;
    let stream = [full, packet(2, &opensrv_error(&e))].concat();
    for chunk in [1 << 20, 4093, stream.len()] {
        assert!(sent(&stream, chunk) == stream, "{chunk}");
    }
    // The packet after the continuation is a new one again.
    let after = [stream.clone(), packet(3, &opensrv_error(&e))].concat();
    let got = sent(&after, 1 << 20);
    assert!(got[..stream.len()] == stream[..]);
    let code = 3057u16.to_le_bytes();
    assert_eq!(got[stream.len() + 4], 0xFF);
    assert_eq!(&got[stream.len() + 5..stream.len() + 7], code);
    assert_eq!(&got[stream.len() + 7..stream.len() + 13], b"#42000");
}

#[test]
fn an_incomplete_packet_waits_for_its_end() {
    let e = ServerError::new(4163, "HY000", "deadlock");
    let (a, b) = (packet(1, b"row"), packet(2, &opensrv_error(&e)));
    let mut w = ErrorCodes::new(Vec::new());
    write(&mut w, &[&a[..], &b[..7]].concat());
    flush(&mut w);
    assert_eq!(w.inner, a);
    write(&mut w, &b[7..]);
    flush(&mut w);
    assert_eq!(&w.inner[a.len() + 4..a.len() + 7], [0xFF, 0x43, 0x10]);
    assert_eq!(&w.inner[a.len() + 13..], b"deadlock");
    assert!(w.out.is_empty());
}

#[test]
fn the_greeting_advertises_multi_statements_results_found_rows_and_attrs() {
    // Protocol 10, version "8.0", connection id, scramble, filler, low capabilities, charset,
    // status, high capabilities (CLIENT_PLUGIN_AUTH's 0x08), then the rest.
    let mut hello = vec![10];
    hello.extend_from_slice(b"8.0\0");
    hello.extend_from_slice(&[7, 0, 0, 0]);
    hello.extend_from_slice(b"scramble");
    hello.extend_from_slice(&[0, 0x00, 0xA2, 0x21, 2, 0, 0x08, 0x00, 21]);
    let mut want = hello.clone();
    // CLIENT_MULTI_STATEMENTS, CLIENT_MULTI_RESULTS, CLIENT_CONNECT_ATTRS.
    want[4 + 4 + 8 + 1 + 2 + 1 + 2 + 1] = 0x08 | 0b1_0011;
    want[4 + 4 + 8 + 1 + 1] = 0b10; // CLIENT_FOUND_ROWS
    let next = packet(0, &hello); // a second packet of that shape is not the greeting
    let stream = [packet(0, &hello), next.clone()].concat();
    let mut w = ErrorCodes::with_multi_statements(Vec::new());
    write(&mut w, &stream);
    flush(&mut w);
    assert_eq!(w.inner, [packet(0, &want), next].concat());
    assert_eq!(
        sent(&stream, 3),
        stream,
        "without the option, nothing changes"
    );
}

#[test]
fn a_result_that_more_follow_ends_with_the_flag() {
    let marked = |session_track: bool| {
        let mut p = vec![0xFE, 0, 0, 0x02, 0x00, 0, 0];
        if session_track {
            p.push(MORE_RESULTS.len() as u8);
        }
        p.extend_from_slice(MORE_RESULTS.as_bytes());
        p
    };
    let row = packet(3, b"\x011");
    let end = vec![0xFE, 0, 0, 0x0A, 0x00, 0, 0];
    {
        let stream = [row.clone(), packet(4, &marked(false)), row.clone()].concat();
        let want = [row.clone(), packet(4, &end), row.clone()].concat();
        for chunk in [1, 5, stream.len()] {
            assert_eq!(sent(&stream, chunk), want, "{chunk}");
        }
    }
    let stream = packet(4, &marked(true));
    assert_eq!(
        sent(&stream, 64),
        packet(4, &[0xFE, 0, 0, 0x0A, 0x00, 0, 0, 0])
    );
    // The last result's end, without the info, passes as it is.
    let last = packet(4, &[0xFE, 0, 0, 0x02, 0x00, 0, 0]);
    assert_eq!(sent(&last, 64), last);
}

/// A column definition as opensrv-mysql 0.7 writes it (`write_column_definitions_41`).
fn opensrv_definition(table: &str, name: &str, ty: u8) -> Vec<u8> {
    let mut p = Vec::new();
    for s in ["def", "", table, "", name, ""] {
        p.push(s.len() as u8);
        p.extend_from_slice(s.as_bytes());
    }
    p.push(0x0C);
    p.extend_from_slice(&33u16.to_le_bytes());
    p.extend_from_slice(&1024u32.to_le_bytes());
    p.push(ty);
    p.extend_from_slice(&[0, 0, 0, 0, 0]);
    p
}

#[test]
fn marked_definitions_get_mysqls_length_decimals_and_charset() {
    let k = Kind::from_declared("decimal(10,2)").unwrap();
    let marked = opensrv_definition(&kind::definition_marker(k), "d", 246);
    let mut want = opensrv_definition("", "d", 246);
    let at = want.len() - 13; // 0x0C, then 12 bytes of fixed fields
    want[at + 1..at + 3].copy_from_slice(&63u16.to_le_bytes());
    want[at + 3..at + 7].copy_from_slice(&12u32.to_le_bytes());
    want[at + 10] = 2;
    let plain = opensrv_definition("", "x", 8);
    let stream = [packet(2, &marked), packet(3, &plain)].concat();
    let expected = [packet(2, &want), packet(3, &plain)].concat();
    for chunk in [1, 5, 17, stream.len()] {
        assert_eq!(sent(&stream, chunk), expected, "{chunk}");
    }
}
