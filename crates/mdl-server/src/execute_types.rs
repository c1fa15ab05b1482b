//! `COM_STMT_EXECUTE` packets sent without their parameters' types, made whole for
//! `opensrv-mysql` 0.7.
//!
//! A client sends a prepared statement's parameter types with the first execution after it
//! binds them (`new_params_bound_flag` 1) and leaves them out of the next ones (flag 0: the
//! server reuses the last types, as MySQL's `mysql_stmt_execute` in `sql/sql_prepare.cc`
//! does). libmysqlclient and libmariadb do so, and with them sysbench, PHP's mysqli and
//! Python's mysqlclient. opensrv-mysql 0.7 (its last release) does not step over a flag of 0
//! (`Params::next`, its `params.rs`), so it reads every value from one byte too early: an
//! `INT` 14 arrived as 3584, and sysbench's later point selects asked for ids past the table's
//! end and found no row. `mysql_async` sends the types with every execution, so it never met
//! this.
//!
//! [`ExecuteTypes`] sits on the connection's reader, under `command_map.rs`'s: it passes the
//! client's bytes on a whole packet at a time, keeps the types of each statement's last
//! execution that sent them, and gives a flag-0 execution of a statement with parameters those
//! types (the flag 1 and the types after the NULL bitmap, the packet 2 bytes per parameter
//! longer), which opensrv reads right. The packet does not say how many parameters there are:
//! the statement's preparation does ([`StatementParams`], kept by `Connection`). A packet it
//! cannot make whole (no types seen yet for its statement, an unknown statement, or one that
//! would outgrow a packet) passes as sent. The cost: each byte the client sends is copied
//! once more, and an execution of a statement with parameters looks its count up.

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

const COM_STMT_EXECUTE: u8 = 0x17;
const COM_STMT_CLOSE: u8 = 0x19;
/// A packet of this length is continued by the next one.
const FULL_PACKET: usize = 0xff_ffff;
/// An execution's payload before its NULL bitmap: the command, the statement id, the cursor
/// flags and the iteration count.
const EXECUTE_HEAD: usize = 1 + 4 + 1 + 4;
/// How much a read asks of the socket at most.
const READ_SIZE: usize = 16 << 10;

/// The number of parameters of each prepared statement of a connection, by statement id: what
/// `Connection` answered `COM_STMT_PREPARE` with, for [`ExecuteTypes`].
#[derive(Debug, Clone, Default)]
pub struct StatementParams(Arc<Mutex<HashMap<u32, u16>>>);

impl StatementParams {
    /// Statement `id` takes `count` parameters.
    pub fn prepared(&self, id: u32, count: usize) {
        let count = u16::try_from(count).unwrap_or(u16::MAX);
        self.lock().insert(id, count);
    }

    /// Statement `id` is closed.
    pub fn closed(&self, id: u32) {
        self.lock().remove(&id);
    }

    fn count(&self, id: u32) -> Option<u16> {
        self.lock().get(&id).copied()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u32, u16>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The client's bytes, whole packets at a time, with each execution's parameter types (see the
/// module docs).
#[derive(Debug)]
pub struct ExecuteTypes<R> {
    inner: R,
    params: StatementParams,
    /// Each statement's last parameter types, 2 bytes per parameter, as the client sent them.
    types: HashMap<u32, Vec<u8>>,
    /// Where a read lands: zeroed once, not at each read.
    chunk: Vec<u8>,
    /// Bytes read that do not make a whole packet yet.
    pending: Vec<u8>,
    /// Whole packets, to be read from `ready_at` on.
    ready: Vec<u8>,
    ready_at: usize,
    /// The last packet passed was a full-length one: the next continues it.
    continued: bool,
}

impl<R> ExecuteTypes<R> {
    /// Reads `inner`; the statements' parameter counts come from `params`.
    pub fn new(inner: R, params: StatementParams) -> ExecuteTypes<R> {
        ExecuteTypes {
            inner,
            params,
            types: HashMap::new(),
            chunk: vec![0; READ_SIZE],
            pending: Vec::new(),
            ready: Vec::new(),
            ready_at: 0,
            continued: false,
        }
    }

    /// Moves the whole packets of `pending` to `ready`, each as it is or made whole.
    fn frame(&mut self) {
        let mut at = 0;
        while let Some(header) = self.pending.get(at..at + 4) {
            let len =
                usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
            let Some(packet) = self.pending.get(at..at + 4 + len) else {
                break;
            };
            let command = packet[3] == 0 && !self.continued;
            self.continued = len == FULL_PACKET;
            let whole = match command {
                true => made_whole(&mut self.types, &self.params, packet),
                false => None,
            };
            self.ready
                .extend_from_slice(whole.as_deref().unwrap_or(packet));
            at += 4 + len;
        }
        self.pending.drain(..at);
    }
}

/// A command packet (header and payload): the execution made whole, or `None` to pass it as it
/// is. Keeps in `types` the types an execution sends; forgets a closed statement's.
fn made_whole(
    types: &mut HashMap<u32, Vec<u8>>,
    params: &StatementParams,
    packet: &[u8],
) -> Option<Vec<u8>> {
    let payload = &packet[4..];
    let id = u32::from_le_bytes(payload.get(1..5)?.try_into().ok()?);
    match payload[0] {
        COM_STMT_CLOSE => {
            types.remove(&id);
            None
        }
        COM_STMT_EXECUTE => {
            let n = usize::from(params.count(id)?);
            if n == 0 {
                return None;
            }
            let flag_at = EXECUTE_HEAD + n.div_ceil(8);
            // Any flag but 0 sends the types (`mysql_stmt_execute`), as opensrv reads it.
            if *payload.get(flag_at)? != 0 {
                let sent = payload.get(flag_at + 1..flag_at + 1 + 2 * n)?;
                types.insert(id, sent.to_vec());
                return None;
            }
            let kept = types.get(&id)?;
            let len = payload.len() + kept.len();
            if len >= FULL_PACKET {
                return None;
            }
            let mut whole = Vec::with_capacity(4 + len);
            whole.extend_from_slice(&(len as u32).to_le_bytes()[..3]);
            whole.push(0);
            whole.extend_from_slice(&payload[..flag_at]);
            whole.push(1);
            whole.extend_from_slice(kept);
            whole.extend_from_slice(&payload[flag_at + 1..]);
            Some(whole)
        }
        _ => None,
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for ExecuteTypes<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.ready_at < this.ready.len() {
                let part = &this.ready[this.ready_at..];
                let k = part.len().min(buf.remaining());
                buf.put_slice(&part[..k]);
                this.ready_at += k;
                if this.ready_at == this.ready.len() {
                    this.ready.clear();
                    this.ready_at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            let mut read = ReadBuf::new(&mut this.chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    // The end of the stream: what is left of a packet passes as it is, for
                    // opensrv to find it cut short.
                    if this.pending.is_empty() {
                        return Poll::Ready(Ok(()));
                    }
                    this.ready.append(&mut this.pending);
                }
                Poll::Ready(Ok(())) => {
                    this.pending.extend_from_slice(read.filled());
                    this.frame();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
        let mut p = (payload.len() as u32).to_le_bytes()[..3].to_vec();
        p.push(seq);
        p.extend_from_slice(payload);
        p
    }

    /// An execution of statement 1 with one `LONGLONG` parameter `v`, with its type (`typed`)
    /// or without.
    fn execute(v: i64, typed: bool) -> Vec<u8> {
        let mut p = vec![COM_STMT_EXECUTE, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0];
        if typed {
            p.extend_from_slice(&[1, 0x08, 0]);
        } else {
            p.push(0);
        }
        p.extend_from_slice(&v.to_le_bytes());
        packet(0, &p)
    }

    /// What the reader passes on of `stream`, read `chunk` bytes at a time.
    async fn passed(stream: &[u8], chunk: usize, params: &StatementParams) -> Vec<u8> {
        let mut r = ExecuteTypes::new(stream, params.clone());
        let mut out = Vec::new();
        let mut buf = vec![0u8; chunk];
        loop {
            let n = r.read(&mut buf).await.unwrap();
            if n == 0 {
                return out;
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    #[tokio::test]
    async fn an_execution_without_types_gets_the_last_ones() {
        let params = StatementParams::default();
        params.prepared(1, 1);
        let query = packet(0, b"\x03SELECT 1");
        let stream = [execute(7, true), execute(14, false), query.clone()].concat();
        for chunk in [1, 5, 64, 4096] {
            let out = passed(&stream, chunk, &params).await;
            // The second execution now carries the type, and its value where opensrv reads it.
            let want = [execute(7, true), execute(14, true), query.clone()].concat();
            assert_eq!(out, want, "read {chunk} at a time");
        }
    }

    #[tokio::test]
    async fn what_cannot_be_made_whole_passes_as_sent() {
        let params = StatementParams::default();
        // An unknown statement, then one whose types were never sent.
        let stream = execute(14, false);
        assert_eq!(passed(&stream, 64, &params).await, stream);
        params.prepared(1, 1);
        assert_eq!(passed(&stream, 64, &params).await, stream);
        // A closed statement's types are forgotten.
        let close = packet(0, &[COM_STMT_CLOSE, 1, 0, 0, 0]);
        let stream = [execute(7, true), close.clone(), execute(14, false)].concat();
        assert_eq!(passed(&stream, 64, &params).await, stream);
        // A statement without parameters, a continuation and a cut packet.
        params.prepared(2, 0);
        let none = packet(0, &[COM_STMT_EXECUTE, 2, 0, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(passed(&none, 64, &params).await, none);
        let cut = execute(7, true)[..9].to_vec();
        assert_eq!(passed(&cut, 64, &params).await, cut);
    }
}
