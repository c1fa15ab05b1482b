//! A statement's `pfs` event: its class ([`class`]) and digest ([`digest_of`]), and what it
//! carries besides them and its times, as MySQL's `events_statements_*` tables show it
//! (`storage/perfschema/table_events_statements.cc`):
//!
//! * `SQL_TEXT`: a text query's text as the client sent it, kept (up to 1024 bytes, MySQL's
//!   default `performance_schema_max_sql_text_length`) at the statement's start; a prepared
//!   statement's execution shows the text it was prepared from, which is its digest's, so it
//!   copies nothing.
//! * `CURRENT_SCHEMA`, and the digest summary's `SCHEMA_NAME`: the schema the digest is
//!   registered in ([`digest_in`]), the session's at the statement's start, or at its
//!   preparation for a prepared statement (MySQL runs a prepared statement in the schema it
//!   was prepared in: `Prepared_statement::m_db`). `events_statements_summary_by_digest` is
//!   keyed by (`SCHEMA_NAME`, `DIGEST`) as MySQL's: one text against two schemas reads
//!   different tables, and the registration, made per text query anyway (and once per
//!   prepared statement), costs the statement nothing more.
//! * At the statement's end ([`outcome`]): `ROWS_SENT` (a result set's rows), `ROWS_AFFECTED`
//!   (an OK packet's affected rows), and for a failed statement `ERRORS` = 1, `MYSQL_ERRNO`,
//!   `RETURNED_SQLSTATE`, `MESSAGE_TEXT`. `WARNINGS` is 0: the server raises no warnings
//!   (`session_values.rs`).
//! * `NO_INDEX_USED`, `SELECT_SCAN` and `SORT_SCAN`: what SQLite's statements did, from their
//!   counters ([`engine`], which says what else stays 0 and why).
//! * `LOCK_TIME`: `pfs` takes it from the metadata-lock waits nested in the statement (the end
//!   of the last one, less the statement's start), so it is 0 for a statement that did not
//!   wait and costs no timer read. MySQL's is the time to `THD::set_time_after_lock`
//!   (`sql/sql_class.h`), table locks included, at microsecond resolution; this one is the
//!   metadata locks' wait, at the statement timer's resolution.
//!
//! A statement ended by a kill or a client that left mid-statement has its future dropped:
//! its event ends without these end columns (0 and NULL).

mod digest;
pub(crate) use digest::digest_text;

pub(crate) mod engine;
pub(crate) mod plan_scans;

use std::sync::OnceLock;

use crate::error::ServerError;
use crate::status::Com;
use crate::wire::Output;

/// The row of `prepared_statements_instances` (`pfs_views/prepared.rs`) of the statement `id`
/// prepared from `text` since `started`: SQL `PREPARE`'s (`name`) when its class
/// (`statement/sql/prepare_sql`) is enabled, as MySQL makes one only for a preparing statement
/// it instruments (`MYSQL_CREATE_PS`, `sql/sql_prepare.cc`); a `COM_STMT_PREPARE`'s
/// (`statement/com/Prepare` in MySQL, a class the server does not have) when the global
/// instrumentation is on. Both on an instrumented thread.
pub(crate) fn prepared_row(
    thread: &pfs::SessionThread,
    name: Option<&str>,
    id: u32,
    text: &str,
    started: std::time::Instant,
) -> pfs::PreparedStatement {
    let class = name.map(|_| class(Some(Com::PrepareSql)));
    thread.prepared_statement(class, id.into(), name, text, started.elapsed())
}

/// The digest of `text` in `schema` (see the module docs).
pub(crate) fn digest_in(schema: Option<&str>, text: &str) -> pfs::DigestRef {
    pfs::register_digest_in(schema, text)
}

/// What the statement that returned `out` did, for its event's end columns.
pub(crate) fn outcome(out: &Result<Output, ServerError>) -> pfs::StatementOutcome<'_> {
    match out {
        Ok(Output::Rows(r)) => pfs::StatementOutcome::ok(r.rows.len() as u64, 0),
        Ok(Output::Done { affected, .. }) => pfs::StatementOutcome::ok(0, *affected),
        Err(e) => pfs::StatementOutcome::error(u32::from(e.code), e.sqlstate, &e.message),
    }
}

/// The `pfs` class of a statement's command (`statement/sql/<name>`); `None`, a statement the
/// server does not tell apart, is `statement/sql/other`. Every class is registered at the
/// first statement, as MySQL registers its classes at start (`setup_instruments` lists them).
pub(crate) fn class(c: Option<Com>) -> pfs::ClassRef {
    static CLASSES: OnceLock<Vec<pfs::ClassRef>> = OnceLock::new();
    let classes = CLASSES.get_or_init(|| {
        let named = |name: &str| {
            pfs::register_class(pfs::ClassKind::Statement, &format!("statement/sql/{name}"))
        };
        let mut v: Vec<pfs::ClassRef> = Com::ALL.iter().map(|c| named(c.name())).collect();
        v.push(named("other"));
        v
    });
    classes[c.map_or(Com::ALL.len(), |c| c as usize)]
}

/// The digest of a text query `text` in `schema`: its tokens, literals as `?` (`digest.rs`).
pub(crate) fn digest_of(text: &str, schema: Option<&str>) -> pfs::DigestRef {
    digest_in(schema, &digest::digest_text(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_follow_the_result() {
        let done = Ok(Output::Done {
            affected: 3,
            last_insert_id: 0,
        });
        assert_eq!(outcome(&done), pfs::StatementOutcome::ok(0, 3));
        let failed = Err(ServerError::no_such_table("test", "t"));
        let o = outcome(&failed);
        assert_eq!((o.errno(), o.sqlstate()), (1146, "42S02"));
        assert!(o.message().contains("doesn't exist"), "{}", o.message());
    }
}
