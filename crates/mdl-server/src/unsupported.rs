//! The statements `mdl-sql` reads but this server cannot run, refused after parsing with
//! `ER_NOT_SUPPORTED_YET` (1235, 42000: "This version of MySQL doesn't yet support '%s'",
//! MySQL 8.0's `share/messages_to_clients.txt`) naming the feature, before any lock is taken:
//! SQLite would answer them with a syntax error (1064), which tells a client that its valid
//! MySQL is wrong.
//!
//! The statements `mdl-sql` cannot read at all (triggers, stored routines, XA, HANDLER,
//! accounts, `SELECT ... INTO OUTFILE`, ...) are refused by its parser, from its table of
//! statement classes (`mdl-sql`'s `unsupported.rs`); `LOAD DATA` is answered before parsing as
//! MySQL's defaults answer it (`connection.rs`, `load_data`).
//!
//! | statement | here | MySQL 8.0 |
//! |---|---|---|
//! | `EXPLAIN ANALYZE q`, `DESCRIBE ANALYZE q` | 1235 `EXPLAIN ANALYZE`: it runs `q` and reports each iterator's timings, which SQLite does not measure | `sql/sql_yacc.yy`, `explain_stmt` (`describe_command opt_explain_analyze_type explainable_stmt`, 8.0.18) |
//! | `EXPLAIN FORMAT=TREE q`, `EXPLAIN FORMAT=JSON q` | 1235 `EXPLAIN FORMAT=TREE` / `JSON`: MySQL's optimizer's own plan forms; its table, the default, is `explain.rs`'s (sqlparser 0.64 does not read `FORMAT=TRADITIONAL`: 1064) | `explain_stmt`, `opt_explain_format` (`FORMAT_SYM EQ ident_or_text`) |
//! | `SET PASSWORD = 'auth'` | 1235 `SET PASSWORD`: sqlparser reads it as a variable `password` (1193); this server has no accounts and takes every login, so no password changes | `set`, `start_option_value_list`: `PASSWORD equal TEXT_STRING_password` |

use mdl_sql::{Parsed, Statement};
use sqlparser::ast::{self, AnalyzeFormat, AnalyzeFormatKind};

use crate::error::ServerError;

/// `Err` (1235) if this server cannot run `p` (the module's table).
pub(crate) fn refuse(p: &Parsed) -> Result<(), ServerError> {
    let Statement::Sql { statement, .. } = &p.statement else {
        return Ok(());
    };
    let what = match &**statement {
        ast::Statement::Explain { analyze: true, .. } => "EXPLAIN ANALYZE",
        ast::Statement::Explain {
            format: Some(AnalyzeFormatKind::Assignment(f) | AnalyzeFormatKind::Keyword(f)),
            ..
        } => match f {
            AnalyzeFormat::TREE => "EXPLAIN FORMAT=TREE",
            AnalyzeFormat::JSON => "EXPLAIN FORMAT=JSON",
            _ => return Ok(()),
        },
        ast::Statement::Set(ast::Set::SingleAssignment {
            scope: None,
            hivevar: false,
            variable,
            ..
        }) if is_password(variable) => "SET PASSWORD",
        _ => return Ok(()),
    };
    Err(ServerError::not_supported(what))
}

/// `PASSWORD`, unquoted: MySQL's keyword (`` SET `password` = 1 `` is a variable's name).
fn is_password(name: &ast::ObjectName) -> bool {
    match name.0.as_slice() {
        [ast::ObjectNamePart::Identifier(i)] => {
            i.quote_style.is_none() && i.value.eq_ignore_ascii_case("PASSWORD")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(sql: &str) -> Option<String> {
        let p = mdl_sql::parse(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        refuse(&p[0]).err().map(|e| {
            assert_eq!((e.code, e.sqlstate), (1235, "42000"), "{sql}");
            e.message
        })
    }

    #[test]
    fn what_the_engine_cannot_run_is_named() {
        let support = |what: &str| {
            Some(format!(
                "This version of MySQL doesn't yet support '{what}'"
            ))
        };
        for (sql, what) in [
            ("EXPLAIN ANALYZE SELECT * FROM t", "EXPLAIN ANALYZE"),
            ("explain analyze select 1", "EXPLAIN ANALYZE"),
            ("DESCRIBE ANALYZE SELECT * FROM t", "EXPLAIN ANALYZE"),
            ("EXPLAIN FORMAT=TREE SELECT * FROM t", "EXPLAIN FORMAT=TREE"),
            (
                "EXPLAIN FORMAT = JSON SELECT * FROM t",
                "EXPLAIN FORMAT=JSON",
            ),
            ("SET PASSWORD = 'x'", "SET PASSWORD"),
            ("set password='x'", "SET PASSWORD"),
        ] {
            assert_eq!(refused(sql), support(what), "{sql}");
        }
        for sql in [
            "EXPLAIN SELECT * FROM t",
            "DESCRIBE SELECT * FROM t",
            "SET `password` = 'x'",
            "SET @password = 'x'",
            "SET autocommit = 1",
            "SELECT 1",
        ] {
            assert_eq!(refused(sql), None, "{sql}");
        }
    }
}
