//! `--mode constant`: the protocol floor. Every query that starts with `SELECT` gets one
//! constant row, anything else an OK packet; prepared statements report their `?` count and
//! one column. No parsing, no engine, no locks, no instrumentation: what is left of a query's
//! cost is the protocol, tokio and the client.

use std::io;

use async_trait::async_trait;
use opensrv_mysql::{
    AsyncMysqlShim, Column, ColumnFlags, ColumnType, InitWriter, OkResponse, ParamParser,
    QueryResultWriter, StatementMetaWriter,
};
use tokio::io::AsyncWrite;

/// The constant-answer shim.
#[derive(Debug)]
pub struct Constant {
    id: u32,
    /// Per prepared statement id: whether it is a SELECT.
    selects: Vec<bool>,
    /// The constant row's column, built once: not a per-query allocation of the floor.
    column: [Column; 1],
}

impl Constant {
    /// A shim for connection `id`.
    pub fn new(id: u32) -> Constant {
        Constant {
            id,
            selects: Vec::new(),
            column: column(),
        }
    }
}

fn column() -> [Column; 1] {
    [Column {
        table: String::new(),
        column: "c".into(),
        coltype: ColumnType::MYSQL_TYPE_VAR_STRING,
        colflags: ColumnFlags::empty(),
    }]
}

fn is_select(q: &str) -> bool {
    q.trim_start()
        .get(..6)
        .is_some_and(|w| w.eq_ignore_ascii_case("select"))
}

/// The number of `?` outside quotes.
fn placeholders(q: &str) -> usize {
    let mut quote = None;
    let mut n = 0;
    for c in q.chars() {
        match (quote, c) {
            (None, '\'' | '"' | '`') => quote = Some(c),
            (Some(o), c) if c == o => quote = None,
            (None, '?') => n += 1,
            _ => {}
        }
    }
    n
}

const ROW: &str = "60297405153-18294893457-75283920745-50928374098-13527890427";

async fn answer<W: AsyncWrite + Send + Unpin>(
    select: bool,
    cols: &[Column],
    w: QueryResultWriter<'_, W>,
) -> io::Result<()> {
    if !select {
        return w.completed(OkResponse::default()).await;
    }
    let mut rw = w.start(cols).await?;
    rw.write_col(ROW)?;
    rw.end_row().await?;
    rw.finish().await
}

#[async_trait]
impl<W: AsyncWrite + Send + Unpin> AsyncMysqlShim<W> for Constant {
    type Error = io::Error;

    fn version(&self) -> String {
        crate::admin::VERSION.to_string()
    }

    fn connect_id(&self) -> u32 {
        self.id
    }

    async fn on_prepare<'a>(
        &'a mut self,
        query: &'a str,
        info: StatementMetaWriter<'a, W>,
    ) -> io::Result<()> {
        let select = is_select(query);
        self.selects.push(select);
        let id = self.selects.len() as u32;
        let params: Vec<Column> = (0..placeholders(query))
            .map(|_| Column {
                table: String::new(),
                column: "?".into(),
                coltype: ColumnType::MYSQL_TYPE_VAR_STRING,
                colflags: ColumnFlags::empty(),
            })
            .collect();
        let cols = if select {
            self.column.to_vec()
        } else {
            Vec::new()
        };
        info.reply(id, &params, &cols).await
    }

    async fn on_execute<'a>(
        &'a mut self,
        id: u32,
        _params: ParamParser<'a>,
        results: QueryResultWriter<'a, W>,
    ) -> io::Result<()> {
        let select = self.selects.get(id as usize - 1).copied().unwrap_or(false);
        answer(select, &self.column, results).await
    }

    async fn on_close<'a>(&'a mut self, _stmt: u32)
    where
        W: 'async_trait,
    {
    }

    async fn on_query<'a>(
        &'a mut self,
        query: &'a str,
        results: QueryResultWriter<'a, W>,
    ) -> io::Result<()> {
        answer(is_select(query), &self.column, results).await
    }

    async fn on_init<'a>(&'a mut self, _db: &'a str, w: InitWriter<'a, W>) -> io::Result<()> {
        w.ok().await
    }
}
