//! Result sets and how they are written: what a statement returns ([`Output`]: an OK, or a
//! [`ResultSet`] of [`Cell`]s), each column's wire type, and the writers that send it through
//! `opensrv-mysql`'s `QueryResultWriter`, one result or a multi-statement query's several.
//! Apart from the output stream ([`super::ErrorCodes`]): these write values as opensrv does,
//! the stream then rewrites the bytes packet by packet.

use std::future::Future;
use std::io;

use opensrv_mysql::{Column, ColumnFlags, ColumnType, QueryResultWriter};
use tokio::io::AsyncWrite;

use super::kind::{self, decimal_text, Double, FixedDouble, Kind, Temporal};
use super::{warnings, write_error, EofWarnings, MORE_RESULTS};
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
    /// The type of each column where it changes the wire (`kind.rs`), from its declared or
    /// expression type; empty when no column has one (the values type the columns).
    pub kinds: Vec<Option<Kind>>,
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
            kinds: Vec::new(),
        }
    }

    /// The MySQL type of each column: its kind's, else from its values: integers, reals,
    /// bytes, else text.
    fn column_types(&self) -> Vec<ColumnType> {
        (0..self.columns.len())
            .map(|i| {
                if let Some(Some(k)) = self.kinds.get(i) {
                    return k.column_type();
                }
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

/// `opensrv` columns for a result set's columns of types `types`; a column of a kind
/// (`kinds`, empty if none has one) carries its definition's metadata in its table name
/// (`kind::definition_marker`).
pub fn columns(names: Vec<String>, types: &[ColumnType], kinds: &[Option<Kind>]) -> Vec<Column> {
    let mut kinds = kinds.iter();
    names
        .into_iter()
        .zip(types)
        .map(|(n, t)| {
            let kind = kinds.next().copied().flatten();
            Column {
                table: kind.map_or_else(String::new, kind::definition_marker),
                column: n,
                coltype: *t,
                colflags: kind.map_or(ColumnFlags::empty(), Kind::flags),
            }
        })
        .collect()
}

/// Writes `out` (or `err`) as the answer to a query.
pub fn write_result<W: AsyncWrite + Send + Unpin>(
    w: QueryResultWriter<'_, W>,
    out: Result<Output, ServerError>,
) -> impl Future<Output = io::Result<()>> + '_ {
    write_counted(w, out, 0)
}

/// [`write_result`] of a statement that raised `count` conditions (`warnings.rs`), which the
/// EOF packets of its result set carry through `eof` (a store: the point select's cost). Both
/// return `write_counted`'s future: a future around it would be one more to move.
pub fn write_warned<'a, W: AsyncWrite + Send + Unpin>(
    w: QueryResultWriter<'a, W>,
    out: Result<Output, ServerError>,
    count: u16,
    eof: &EofWarnings,
) -> impl Future<Output = io::Result<()>> + 'a {
    eof.set(0, count);
    write_counted(w, out, count)
}

/// [`write_warned`] without setting the EOF packets' count.
async fn write_counted<W: AsyncWrite + Send + Unpin>(
    w: QueryResultWriter<'_, W>,
    out: Result<Output, ServerError>,
    count: u16,
) -> io::Result<()> {
    // No allocation without warnings: the point select's path.
    let info = || match count {
        0 => String::new(),
        n => warnings::info("", n),
    };
    match out {
        Err(e) => write_error(w, &e).await,
        Ok(Output::Done {
            affected,
            last_insert_id,
        }) => {
            w.completed(opensrv_mysql::OkResponse {
                affected_rows: affected,
                last_insert_id,
                info: info(),
                ..Default::default()
            })
            .await
        }
        Ok(Output::Rows(mut rs)) => {
            let types = rs.column_types();
            // The names move into the columns: no copy per query.
            let cols = columns(std::mem::take(&mut rs.columns), &types, &rs.kinds);
            let mut rw = w.start(&cols).await?;
            write_rows(&mut rw, &rs, &types).await?;
            match count {
                0 => rw.finish().await,
                _ => rw.finish_with_info(&info()).await,
            }
        }
    }
}

/// Writes the results of a multi-statement query, each with the warnings its statement raised
/// (through `eof` for EOF packets: `warnings.rs`), each flagged that more follow but the last
/// (an error, if a statement failed, is the last). The results are all there before the first
/// is written: opensrv-mysql's writer borrows each result's columns for as long as it lives.
pub async fn write_results<W: AsyncWrite + Send + Unpin>(
    mut w: QueryResultWriter<'_, W>,
    mut outs: Vec<(Result<Output, ServerError>, u16)>,
    eof: &EofWarnings,
) -> io::Result<()> {
    let shapes: Vec<(Vec<ColumnType>, Vec<Column>)> = (outs.iter_mut())
        .map(|(o, _)| match o {
            Ok(Output::Rows(rs)) => {
                let types = rs.column_types();
                let cols = columns(std::mem::take(&mut rs.columns), &types, &rs.kinds);
                (types, cols)
            }
            _ => Default::default(),
        })
        .collect();
    let last = outs.len().saturating_sub(1);
    let mut previous = 0;
    for (i, ((out, warned), (types, cols))) in outs.into_iter().zip(&shapes).enumerate() {
        // The previous result's last EOF is written as this one starts.
        eof.set(previous, warned);
        previous = warned;
        let status = match i < last {
            true => opensrv_mysql::StatusFlags::SERVER_MORE_RESULTS_EXISTS,
            false => opensrv_mysql::StatusFlags::empty(),
        };
        let more = if status.is_empty() { "" } else { MORE_RESULTS };
        let info = |more: &str| match warned {
            0 => more.to_string(),
            n => warnings::info(more, n),
        };
        w = match out {
            Err(e) => return write_error(w, &e).await,
            Ok(Output::Done {
                affected,
                last_insert_id,
            }) => {
                w.complete_one(opensrv_mysql::OkResponse {
                    affected_rows: affected,
                    last_insert_id,
                    status_flags: status,
                    info: info(""),
                    ..Default::default()
                })
                .await?
            }
            Ok(Output::Rows(rs)) => {
                let mut rw = w.start(cols).await?;
                write_rows(&mut rw, &rs, types).await?;
                rw.finish_one_with_info(&info(more)).await?
            }
        };
    }
    w.no_more_results().await
}

async fn write_rows<W: AsyncWrite + Send + Unpin>(
    rw: &mut opensrv_mysql::RowWriter<'_, W>,
    rs: &ResultSet,
    types: &[ColumnType],
) -> io::Result<()> {
    if rs.kinds.is_empty() {
        // Most results (a point select's INT and CHAR columns): no kind to look at.
        for row in &rs.rows {
            for (cell, ty) in row.iter().zip(types) {
                write_cell(rw, cell, *ty)?;
            }
            rw.end_row().await?;
        }
        return Ok(());
    }
    for row in &rs.rows {
        for ((cell, ty), kind) in row.iter().zip(types).zip(&rs.kinds) {
            match kind {
                Some(k) => write_kind_cell(rw, cell, *k)?,
                None => write_cell(rw, cell, *ty)?,
            }
        }
        rw.end_row().await?;
    }
    Ok(())
}

/// A value of a column of kind `kind` (`kind.rs`).
fn write_kind_cell<W: AsyncWrite + Send + Unpin>(
    rw: &mut opensrv_mysql::RowWriter<'_, W>,
    cell: &Cell,
    kind: Kind,
) -> io::Result<()> {
    if let Kind::FixedDouble { decimals, .. } = kind {
        if let Some(x) = FixedDouble::of(cell, decimals) {
            return rw.write_col(x);
        }
    }
    let text = match cell {
        Cell::Null => return rw.write_col(None::<i64>),
        Cell::Text(t) => std::borrow::Cow::Borrowed(t.as_str()),
        other => std::borrow::Cow::Owned(other.text().unwrap_or_default()),
    };
    match kind {
        Kind::Decimal { scale, .. } => match decimal_text(&text, scale) {
            Some(d) => rw.write_col(d.as_str()),
            None => rw.write_col(&*text),
        },
        Kind::Json | Kind::FixedDouble { .. } => rw.write_col(&*text),
        Kind::Date | Kind::Datetime(_) | Kind::Timestamp(_) | Kind::Time(_) => {
            rw.write_col(Temporal(&text))
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
        (Cell::Int(i), ColumnType::MYSQL_TYPE_DOUBLE) => rw.write_col(Double(*i as f64)),
        (Cell::Real(r), ColumnType::MYSQL_TYPE_DOUBLE) => rw.write_col(Double(*r)),
        (Cell::Blob(b), _) => rw.write_col(&b[..]),
        // Borrowed: `Cell::text` would copy it.
        (Cell::Text(t), _) => rw.write_col(t.as_str()),
        (c, _) => rw.write_col(c.text().unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_types_follow_the_values() {
        let rs = ResultSet {
            columns: vec!["a".into(), "b".into(), "c".into()],
            rows: vec![
                vec![Cell::Int(1), Cell::Int(2), Cell::Null],
                vec![Cell::Real(1.5), Cell::Text("x".into()), Cell::Null],
            ],
            kinds: Vec::new(),
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
