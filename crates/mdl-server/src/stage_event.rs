//! The stages the server records: MySQL 8.0's `stage/sql/...` classes of the DDL the engine
//! runs, each around the engine's work of its statement (`execute/engine_step.rs`), nested in
//! the statement as MySQL's are (`THD_STAGE_INFO` in `sql/sql_table.cc`):
//!
//! * `stage/sql/copy to tmp table`: an ALTER TABLE the engine does by copying the table
//!   (`execute/rebuild.rs`), as MySQL's `ALGORITHM=COPY` (`mysql_alter_table`,
//!   `stage_copy_to_tmp_table`); enabled and timed by default, as in MySQL.
//! * `stage/sql/altering table`: any other ALTER TABLE (MySQL's in-place ALTER,
//!   `mysql_inplace_alter_table`, `stage_alter_inplace`).
//! * `stage/sql/creating table`: CREATE TABLE (`stage_creating_table`).
//!
//! The other statements run no stage here: nothing on the point-select path. Every class is
//! registered when the server starts ([`register`]), as MySQL registers its stages at start,
//! so the stage summaries have a row per thread (account, user, host) and class from the first
//! connection on.

use std::sync::OnceLock;

use mdl_sql::StatementKind;
use sqlparser::ast::Statement;

/// The stage names, after `stage/sql/`.
const NAMES: [&str; 3] = ["copy to tmp table", "altering table", "creating table"];

fn classes() -> &'static [pfs::ClassRef; 3] {
    static CLASSES: OnceLock<[pfs::ClassRef; 3]> = OnceLock::new();
    CLASSES.get_or_init(|| {
        NAMES.map(|n| pfs::register_class(pfs::ClassKind::Stage, &format!("stage/sql/{n}")))
    })
}

/// Registers the stage classes (at the server's start).
pub(crate) fn register() {
    classes();
}

/// The stage of the engine's work for a statement of `kind` (`s`), if it runs one.
pub(crate) fn stage(kind: StatementKind, s: Option<&Statement>) -> Option<pfs::ClassRef> {
    let i = match (kind, s) {
        (StatementKind::AlterTable, Some(Statement::AlterTable(a)))
            if crate::rewrite::needs_rebuild(a) =>
        {
            0
        }
        (StatementKind::AlterTable, _) => 1,
        (StatementKind::CreateTable, _) => 2,
        _ => return None,
    };
    Some(classes()[i])
}
