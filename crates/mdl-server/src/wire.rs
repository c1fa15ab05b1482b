//! The wire: result sets and errors written through `opensrv-mysql`, and the one thing it
//! cannot write.
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

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use opensrv_mysql::{Column, ColumnFlags, ColumnType, ErrorKind, QueryResultWriter};
use tokio::io::AsyncWrite;

use crate::error::ServerError;

/// One value of a result row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// NULL.
    Null,
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

impl Cell {
    /// The value as text, as the text protocol sends it (`None` for NULL).
    pub fn text(&self) -> Option<String> {
        match self {
            Cell::Null => None,
            Cell::Int(i) => Some(i.to_string()),
            Cell::Real(r) => Some(r.to_string()),
            Cell::Text(t) => Some(t.clone()),
            Cell::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
        }
    }
}

/// A result set: column names and rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultSet {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

impl ResultSet {
    /// A result of text columns.
    pub fn text(columns: &[&str], rows: Vec<Vec<Option<String>>>) -> ResultSet {
        ResultSet {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: rows
                .into_iter()
                .map(|r| {
                    r.into_iter()
                        .map(|c| c.map_or(Cell::Null, Cell::Text))
                        .collect()
                })
                .collect(),
        }
    }

    /// The MySQL type of each column, from its values: integers, reals, bytes, else text.
    fn column_types(&self) -> Vec<ColumnType> {
        (0..self.columns.len())
            .map(|i| {
                let mut ty = None;
                for r in &self.rows {
                    let t = match r.get(i) {
                        Some(Cell::Int(_)) => ColumnType::MYSQL_TYPE_LONGLONG,
                        Some(Cell::Real(_)) => ColumnType::MYSQL_TYPE_DOUBLE,
                        Some(Cell::Blob(_)) => ColumnType::MYSQL_TYPE_BLOB,
                        Some(Cell::Text(_)) => ColumnType::MYSQL_TYPE_VAR_STRING,
                        _ => continue,
                    };
                    ty = Some(match (ty, t) {
                        (None, t) => t,
                        (Some(a), b) if a == b => a,
                        (Some(ColumnType::MYSQL_TYPE_LONGLONG), ColumnType::MYSQL_TYPE_DOUBLE)
                        | (Some(ColumnType::MYSQL_TYPE_DOUBLE), ColumnType::MYSQL_TYPE_LONGLONG) => {
                            ColumnType::MYSQL_TYPE_DOUBLE
                        }
                        _ => ColumnType::MYSQL_TYPE_VAR_STRING,
                    });
                }
                ty.unwrap_or(ColumnType::MYSQL_TYPE_VAR_STRING)
            })
            .collect()
    }
}

/// What a statement returns.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// An OK packet.
    Done {
        /// Rows changed.
        affected: u64,
        /// `LAST_INSERT_ID()`.
        last_insert_id: u64,
    },
    /// A result set.
    Rows(ResultSet),
}

impl Output {
    /// OK, nothing changed.
    pub const OK: Output = Output::Done {
        affected: 0,
        last_insert_id: 0,
    };
}

/// `opensrv` columns for a result set's columns of types `types`.
pub fn columns(names: &[String], types: &[ColumnType]) -> Vec<Column> {
    names
        .iter()
        .zip(types)
        .map(|(n, t)| Column {
            table: String::new(),
            column: n.clone(),
            coltype: *t,
            colflags: ColumnFlags::empty(),
        })
        .collect()
}

/// Writes `out` (or `err`) as the answer to a query; `binary` for an executed prepared
/// statement.
pub async fn write_result<W: AsyncWrite + Send + Unpin>(
    w: QueryResultWriter<'_, W>,
    out: Result<Output, ServerError>,
) -> io::Result<()> {
    match out {
        Err(e) => write_error(w, &e).await,
        Ok(Output::Done {
            affected,
            last_insert_id,
        }) => {
            w.completed(opensrv_mysql::OkResponse {
                affected_rows: affected,
                last_insert_id,
                ..Default::default()
            })
            .await
        }
        Ok(Output::Rows(rs)) => {
            let types = rs.column_types();
            let cols = columns(&rs.columns, &types);
            let mut rw = w.start(&cols).await?;
            for row in &rs.rows {
                for (cell, ty) in row.iter().zip(&types) {
                    write_cell(&mut rw, cell, *ty)?;
                }
                rw.end_row().await?;
            }
            rw.finish().await
        }
    }
}

fn write_cell<W: AsyncWrite + Send + Unpin>(
    rw: &mut opensrv_mysql::RowWriter<'_, W>,
    cell: &Cell,
    ty: ColumnType,
) -> io::Result<()> {
    match (cell, ty) {
        (Cell::Null, _) => rw.write_col(None::<i64>),
        (Cell::Int(i), ColumnType::MYSQL_TYPE_LONGLONG) => rw.write_col(*i),
        (Cell::Int(i), ColumnType::MYSQL_TYPE_DOUBLE) => rw.write_col(*i as f64),
        (Cell::Real(r), ColumnType::MYSQL_TYPE_DOUBLE) => rw.write_col(*r),
        (Cell::Blob(b), _) => rw.write_col(&b[..]),
        (c, _) => rw.write_col(c.text().unwrap_or_default()),
    }
}

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

const MARKER: u8 = 0x01;
const MARKER_LEN: usize = 10;
/// A packet of this length continues in the next one.
const MAX_PAYLOAD: usize = 0xFF_FFFF;

/// The connection's output stream: passes packets through, rewriting marked ERR packets (see
/// the module docs). Bytes are held until a packet is complete and sent on flush.
#[derive(Debug)]
pub struct ErrorCodes<W> {
    inner: W,
    input: Vec<u8>,
    out: Vec<u8>,
    sent: usize,
    /// The previous packet was a full-length one: the next continues it.
    continuation: bool,
}

impl<W> ErrorCodes<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> ErrorCodes<W> {
        ErrorCodes {
            inner,
            input: Vec::new(),
            out: Vec::new(),
            sent: 0,
            continuation: false,
        }
    }

    /// Moves every complete packet of `input` to `out`, rewritten.
    fn process(&mut self) {
        let mut at = 0;
        while self.input.len() - at >= 4 {
            let h = &self.input[at..at + 4];
            let len = h[0] as usize | (h[1] as usize) << 8 | (h[2] as usize) << 16;
            if self.input.len() - at - 4 < len {
                break;
            }
            let seq = h[3];
            let payload = &self.input[at + 4..at + 4 + len];
            let marked = !self.continuation
                && len >= 9 + MARKER_LEN
                && payload[0] == 0xFF
                && payload[3] == b'#'
                && payload[9] == MARKER;
            if marked {
                let code: u16 = std::str::from_utf8(&payload[10..14])
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(1105);
                let mut p = Vec::with_capacity(len - MARKER_LEN);
                if code != RAW_REPLY {
                    p.push(0xFF);
                    p.extend_from_slice(&code.to_le_bytes());
                    p.push(b'#');
                    p.extend_from_slice(&payload[14..19]);
                }
                p.extend_from_slice(&payload[19..]);
                let n = p.len();
                self.out
                    .extend_from_slice(&[n as u8, (n >> 8) as u8, (n >> 16) as u8, seq]);
                self.out.extend_from_slice(&p);
            } else {
                self.out.extend_from_slice(&self.input[at..at + 4 + len]);
            }
            self.continuation = len == MAX_PAYLOAD;
            at += 4 + len;
        }
        self.input.drain(..at);
    }
}

impl<W: AsyncWrite + Unpin> ErrorCodes<W> {
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.out.len() {
            let n = match Pin::new(&mut self.inner).poll_write(cx, &self.out[self.sent..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            };
            self.sent += n;
        }
        self.out.clear();
        self.sent = 0;
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for ErrorCodes<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.input.extend_from_slice(buf);
        this.process();
        Poll::Ready(Ok(buf.len()))
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
mod tests {
    use super::*;

    fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
        let n = payload.len();
        let mut v = vec![n as u8, (n >> 8) as u8, (n >> 16) as u8, seq];
        v.extend_from_slice(payload);
        v
    }

    #[test]
    fn marked_errors_get_their_code_and_sqlstate() {
        let e = ServerError::new(3058, "HY000", "Deadlock found");
        let mut opensrv = vec![0xFF];
        opensrv.extend_from_slice(&1105u16.to_le_bytes());
        opensrv.extend_from_slice(b"#HY000");
        opensrv.extend_from_slice(&marked(&e));
        let ok = packet(1, &[0, 0, 0, 2, 0, 0, 0]);
        let mut w = ErrorCodes::new(Vec::<u8>::new());
        // Fed in two pieces that split the error packet.
        let all = [ok.clone(), packet(2, &opensrv)].concat();
        let (a, b) = all.split_at(ok.len() + 6);
        w.input.extend_from_slice(a);
        w.process();
        w.input.extend_from_slice(b);
        w.process();
        let mut want = vec![0xFF];
        want.extend_from_slice(&3058u16.to_le_bytes());
        want.extend_from_slice(b"#HY000Deadlock found");
        assert_eq!(w.out, [ok, packet(2, &want)].concat());
        assert!(w.input.is_empty());
    }

    #[test]
    fn column_types_follow_the_values() {
        let rs = ResultSet {
            columns: vec!["a".into(), "b".into(), "c".into()],
            rows: vec![
                vec![Cell::Int(1), Cell::Int(2), Cell::Null],
                vec![Cell::Real(1.5), Cell::Text("x".into()), Cell::Null],
            ],
        };
        assert_eq!(
            rs.column_types(),
            [
                ColumnType::MYSQL_TYPE_DOUBLE,
                ColumnType::MYSQL_TYPE_VAR_STRING,
                ColumnType::MYSQL_TYPE_VAR_STRING
            ]
        );
    }
}
