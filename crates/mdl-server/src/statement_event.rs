//! A statement's `pfs` event: its class ([`class`]) and digest ([`digest_of`]), and what it
//! carries besides them and its times, as MySQL's `events_statements_*` tables show it
//! (`storage/perfschema/table_events_statements.cc`):
//!
//! * `SQL_TEXT`: a text query's text as the client sent it, kept (up to 1024 bytes, MySQL's
//!   default `performance_schema_max_sql_text_length`) at the statement's start; NULL for a
//!   `COM_STMT_EXECUTE` (see below).
//! * `CURRENT_SCHEMA`, and the digest summary's `SCHEMA_NAME`: the schema the digest is
//!   registered in ([`digest_in`]), the session's at the statement's start.
//!   `events_statements_summary_by_digest` is keyed by (`SCHEMA_NAME`, `DIGEST`) as MySQL's:
//!   one text against two schemas reads different tables, and the registration, made per
//!   text query anyway, costs the statement nothing more.
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
//!
//! # An execution of a prepared statement ([`Origin`])
//!
//! MySQL 8.0 gives a statement event a digest only from a parse made under that event:
//! `parse_sql` hands the tokens to it (`MYSQL_DIGEST_START` / `MYSQL_DIGEST_END`,
//! `sql/sql_parse.cc`, into `PSI_statement_locker_state::m_digest`), and `end_statement`
//! counts the event in `events_statements_summary_by_digest` only when it has one
//! (`pfs_end_statement_v1`: `find_or_create_digest` when `state->m_digest` is set,
//! `storage/perfschema/pfs.cc`). A prepared statement keeps no digest: its parse at
//! preparation sets the statement's locker and digest aside (`Prepared_statement::prepare`,
//! `sql/sql_prepare.cc`: `thd->m_statement_psi = nullptr`, a local `sql_digest_state`, the
//! parent's restored after), and an execution parses nothing. So:
//!
//! * `COM_STMT_EXECUTE` (the binary protocol, sysbench's default): `dispatch_command` refines
//!   the command's event to `statement/com/Execute` (`MYSQL_REFINE_STATEMENT(...,
//!   com_statement_info[command].m_key)`), a class nothing refines further
//!   (`pfs_refine_statement_v1` refines mutable classes only, and `mysqld_stmt_execute` →
//!   `Prepared_statement::execute_loop` → `execute` → `mysql_execute_command` refines
//!   nothing); no text is set on it (`MYSQL_SET_STATEMENT_TEXT` is the text query's, in
//!   `dispatch_command` / `dispatch_sql_command`; the prepared text goes to
//!   `prepared_statements_instances` with `MYSQL_SET_PS_TEXT`). `EVENT_NAME`
//!   `statement/com/Execute`; `SQL_TEXT`, `DIGEST`, `DIGEST_TEXT` NULL; no digest row.
//! * SQL `EXECUTE s USING @a`: a text query, parsed with its digest and refined to
//!   `statement/sql/execute_sql`; `mysql_sql_stmt_execute` runs the prepared statement under
//!   that event, which it binds to the statement's row (`MYSQL_EXECUTE_PS`), and no event of
//!   the executed statement's class is made (`mysql-test/suite/perfschema/r/
//!   prepared_statements.result`: `statement/sql/execute_sql`, `EXECUTE st1 USING @a, @b`).
//!   `SQL_TEXT` the `EXECUTE` as sent; `DIGEST_TEXT` its digest, ``EXECUTE `s` USING @?``,
//!   counted in that row of the session's schema.
//!
//! The same query run as a text query and prepared thus counts in its digest row for its text
//! runs only, as in MySQL; the prepared statement's own row counts every execution
//! (`pfs_views/prepared.rs`). A `COM_STMT_EXECUTE` costs no digest statistics (its class's
//! cell takes them) and no text copy; an SQL `EXECUTE` its text's digest, as any text query.
//! Differences: MySQL's `statement/com/Execute` event has the session's `CURRENT_SCHEMA`;
//! here the schema comes with a digest, so it is NULL.
//!
//! `COM_STMT_PREPARE` and `COM_STMT_CLOSE` are events of `statement/com/Prepare` and
//! `statement/com/Close stmt`, with no text and no digest, as their commands' events in
//! `dispatch_command` (the prepare's parse makes none of its own, above); a failed prepare
//! carries its error. The preparing event owns the statement's row (`OWNER_EVENT_ID`).

mod digest;
pub(crate) use digest::digest_text;

pub(crate) mod engine;
pub(crate) mod plan_scans;

use std::sync::{Arc, OnceLock};

use crate::error::ServerError;
use crate::status::Com;
use crate::wire::Output;

/// The row of `prepared_statements_instances` (`pfs_views/prepared.rs`) of the statement `id`
/// (SQL `PREPARE`'s `name`, `None` for `COM_STMT_PREPARE`) prepared from `text` since
/// `started` by a statement of class `by` (`statement/sql/prepare_sql`,
/// `statement/com/Prepare`), whose event is in progress: made when that class is enabled on an
/// instrumented thread, as MySQL makes one only for a preparing statement it instruments
/// (`MYSQL_CREATE_PS`, `sql/sql_prepare.cc`), and owned by that event.
pub(crate) fn prepared_row(
    thread: &pfs::SessionThread,
    by: pfs::ClassRef,
    name: Option<&str>,
    id: u32,
    text: &str,
    started: std::time::Instant,
) -> pfs::PreparedStatement {
    thread.prepared_statement(Some(by), id.into(), name, text, started.elapsed())
}

/// Where a statement came from, which makes its event (see the module docs).
#[derive(Debug, Clone)]
pub(crate) enum Origin {
    /// A text query: its command's class, its text and digest.
    Text,
    /// `COM_STMT_EXECUTE`: `statement/com/Execute`, no text, no digest.
    StmtExecute,
    /// SQL `EXECUTE` (its text): `statement/sql/execute_sql`, the `EXECUTE`'s text and digest.
    ExecuteSql(Arc<str>),
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
        Err(e) => failed(e),
    }
}

/// The end columns of a statement that failed with `e`.
pub(crate) fn failed(e: &ServerError) -> pfs::StatementOutcome<'_> {
    pfs::StatementOutcome::error(u32::from(e.code), e.sqlstate, &e.message)
}

/// The `pfs` class of a statement's command (`statement/sql/<name>`); `None`, a statement the
/// server does not tell apart, is `statement/sql/other`. Every class is registered at the
/// first statement, as MySQL registers its classes at start (`setup_instruments` lists them).
pub(crate) fn class(c: Option<Com>) -> pfs::ClassRef {
    classes()[c.map_or(Com::ALL.len(), |c| c as usize)]
}

/// `statement/com/Execute`, a `COM_STMT_EXECUTE`'s class (see the module docs).
pub(crate) fn stmt_execute_class() -> pfs::ClassRef {
    class(Some(Com::StmtExecute))
}

/// The classes: one per command, then `statement/sql/other`. A protocol command's is
/// `statement/com/<MySQL's name>`, as MySQL lists them (`Execute`, `Prepare`, `Close stmt`).
fn classes() -> &'static [pfs::ClassRef] {
    static CLASSES: OnceLock<Vec<pfs::ClassRef>> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let register = |name: &str| pfs::register_class(pfs::ClassKind::Statement, name);
        let mut v: Vec<pfs::ClassRef> = (Com::ALL.iter())
            .map(|c| match c.protocol_name() {
                Some(name) => register(&format!("statement/com/{name}")),
                None => register(&format!("statement/sql/{}", c.name())),
            })
            .collect();
        v.push(register("statement/sql/other"));
        v
    })
}

/// The digest of a text query `text` in `schema`: its tokens, literals as `?` (`digest.rs`).
pub(crate) fn digest_of(text: &str, schema: Option<&str>) -> pfs::DigestRef {
    digest::with_digest_text(text, |t| digest_in(schema, t))
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
