//! The rules: a parsed statement and the session's state in, the statement's metadata-lock plan
//! out. Pure functions, no lock manager.
//!
//! [`plan`] decides, before any lock is taken:
//!
//! * the statement's [`StatementKind`];
//! * whether it commits an open transaction first ([`Plan::commits_before`]: DDL, LOCK TABLES,
//!   FLUSH, BEGIN, as MySQL's `CF_IMPLICIT_COMMIT_BEGIN` and `trans_begin` do) and after
//!   ([`Plan::commits_after`]: DDL, `CF_IMPLICIT_COMMIT_END`, and `SET autocommit = 1` from 0);
//! * the [`MdlRequest`]s MySQL 8.0 takes for it, with their durations ([`Plan::requests`]);
//! * the upgrade step of ALTER TABLE ([`Plan::upgrades`]);
//! * what the statement changes in the session ([`Effect`]: LOCK TABLES, the global read lock,
//!   the backup lock, transaction boundaries, savepoints, variables);
//! * the user-level lock calls to evaluate ([`Plan::user_locks`]);
//! * errors MySQL raises before any lock (1223, 1100, 1099, 1046, 1192, 1792, ...).
//!
//! The rules are in `plan/dml.rs` (SELECT, INSERT, UPDATE, DELETE, DO), `plan/ddl.rs`
//! (tables and schemas), `plan/temporary.rs` (a session's temporary tables, which take no
//! lock), `plan/view.rs` (views, and the tables read through them),
//! `plan/foreign_keys.rs` (the tables a foreign key relates), `plan/maintenance.rs` (ANALYZE, CHECK, OPTIMIZE, REPAIR, CHECKSUM
//! TABLE) and `plan/control.rs` (transactions, LOCK TABLES, FLUSH, LOCK INSTANCE, SET, USE,
//! SHOW, KILL), each rule next to the MySQL function it transcribes. [`crate::Session`]
//! applies a plan to an `MdlContext`.
//!
//! Requests are listed in the order they are taken: MySQL's `acquire_locks` order (by key,
//! stronger type first for one key), one request per key and duration (MySQL asks once per
//! table reference; the context's ticket reuse makes the repeats free, and the strongest
//! request covers the others).

mod control;
mod ddl;
mod dml;
mod foreign_keys;
mod maintenance;
mod temporary;
mod view;

pub use foreign_keys::{generated_fk_name, generated_fk_number, FkRule, ForeignKeyLink};
pub use view::view_tables;

use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

use mdl_core::matrix::is_stronger_or_equal;
use mdl_core::{LockType, MdlKey, MdlRequest};

use crate::error::SqlError;
use crate::names::TableName;
use crate::parse::{Parsed, Statement};
use crate::recognize::TableLockMode;
use crate::user_lock::UserLockCall;

/// What the rules need to know about the session (kept by [`crate::Session`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionState {
    /// The current schema (`USE db`), if any.
    pub current_schema: Option<String>,
    /// `autocommit` (on by default).
    pub autocommit: bool,
    /// A multi-statement transaction is open: started by BEGIN, or by a statement while
    /// autocommit is off.
    pub in_transaction: bool,
    /// The open transaction is `READ ONLY`.
    pub read_only: bool,
    /// The open transaction changed data (its COMMIT takes COMMIT IX).
    pub wrote: bool,
    /// LOCK TABLES mode and its tables.
    pub locked_tables: Option<Vec<LockedTable>>,
    /// This session holds the global read lock (FLUSH TABLES WITH READ LOCK).
    pub global_read_lock: bool,
    /// This session holds the backup lock (LOCK INSTANCE FOR BACKUP).
    pub backup_lock: bool,
    /// MySQL's `lower_case_table_names=1`: schema and table names are folded to lowercase
    /// (ASCII letters) before they become lock keys, so `T` and `t` are one table. A server
    /// whose storage compares names without case (SQLite does, for ASCII) must set it, or a
    /// DDL on `T` would not wait for a transaction on `t`. Off by default (MySQL on Linux).
    pub lower_case_table_names: bool,
    /// The session's temporary tables (`CREATE TEMPORARY TABLE`), named as the session compares
    /// names. One shadows a base table of its name for the session's statements and takes no
    /// metadata lock (MySQL's `open_temporary_tables`, `sql/sql_base.cc`; `plan/temporary.rs`).
    /// [`crate::Session`] keeps it from the plans' [`Plan::temporary_created`] and
    /// [`Plan::temporary_dropped`]; a reset empties it.
    pub temporary_tables: BTreeSet<TableName>,
    /// MySQL's `foreign_key_checks` (on by default): with it off, a DML statement does not lock
    /// the tables a foreign key relates to those it writes (`plan/foreign_keys.rs`). Set with
    /// [`crate::Session::set_foreign_key_checks`].
    pub foreign_key_checks: bool,
}

impl Default for SessionState {
    fn default() -> Self {
        SessionState {
            current_schema: None,
            autocommit: true,
            in_transaction: false,
            read_only: false,
            wrote: false,
            locked_tables: None,
            global_read_lock: false,
            backup_lock: false,
            lower_case_table_names: false,
            temporary_tables: BTreeSet::new(),
            foreign_key_checks: true,
        }
    }
}

impl SessionState {
    /// A session in `schema` with autocommit on.
    pub fn in_schema(schema: &str) -> SessionState {
        SessionState {
            current_schema: Some(schema.to_string()),
            ..SessionState::default()
        }
    }

    /// MySQL's `in_multi_stmt_transaction_mode`: locks of a statement outlive it (autocommit
    /// off, or BEGIN).
    pub fn in_multi_statement_mode(&self) -> bool {
        !self.autocommit || self.in_transaction
    }

    /// Whether `table` (a name as [`TableName`]s of this session's plans have it) is one of the
    /// session's temporary tables.
    pub fn is_temporary(&self, table: &TableName) -> bool {
        !self.temporary_tables.is_empty() && self.temporary_tables.contains(table)
    }
}

/// A table of LOCK TABLES.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedTable {
    /// The table.
    pub table: TableName,
    /// The name statements must use: the alias, or the table's name.
    pub alias: String,
    /// How it is locked.
    pub mode: TableLockMode,
}

/// What a statement is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum StatementKind {
    Select,
    Insert,
    Update,
    Delete,
    Do,
    CreateTable,
    AlterTable,
    DropTable,
    TruncateTable,
    RenameTable,
    CreateIndex,
    DropIndex,
    CreateSchema,
    DropSchema,
    CreateView,
    AlterView,
    DropView,
    LockTables,
    UnlockTables,
    FlushTablesWithReadLock,
    LockInstanceForBackup,
    UnlockInstance,
    Begin,
    Commit,
    Rollback,
    Savepoint,
    RollbackToSavepoint,
    ReleaseSavepoint,
    Set,
    Use,
    Show,
    Kill,
    Explain,
    Analyze,
    Check,
    Optimize,
    Repair,
    Checksum,
    /// Every FLUSH but FLUSH TABLES WITH READ LOCK (`FLUSH TABLES [t, ...]`, `FLUSH TABLES t
    /// FOR EXPORT`, `FLUSH PRIVILEGES`, `FLUSH LOGS`, ...).
    Flush,
}

/// An upgrade step: the server calls [`crate::StatementGuard::upgrade`] when the statement
/// reaches it: ALTER TABLE before the table's definition changes; CREATE TABLE once it knows
/// the table does not exist (MySQL's `open_table` upgrades only then; `CREATE TABLE IF NOT
/// EXISTS` of an existing table keeps S).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upgrade {
    /// The table.
    pub key: MdlKey,
    /// The type held until then.
    pub from: LockType,
    /// The type upgraded to.
    pub to: LockType,
    /// Under LOCK TABLES: the type the lock goes back to when the statement ends.
    pub downgrade_to: Option<LockType>,
}

/// What a `SET` assigns to a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assigned<T> {
    /// A value.
    Value(T),
    /// `DEFAULT`: for a session variable, the global value (`sql/set_var.cc`,
    /// `set_var::update` with no value: `sys_var::set_default`, which for a session variable
    /// copies the global one).
    Default,
}

/// What a statement changes in the session, besides its locks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Effect {
    /// Nothing.
    None,
    /// BEGIN / START TRANSACTION.
    Begin {
        /// `READ ONLY`.
        read_only: bool,
    },
    /// COMMIT.
    Commit {
        /// `AND CHAIN`: a new transaction starts.
        chain: bool,
    },
    /// ROLLBACK.
    Rollback {
        /// `AND CHAIN`.
        chain: bool,
    },
    /// SAVEPOINT name.
    Savepoint(String),
    /// ROLLBACK TO SAVEPOINT name.
    RollbackToSavepoint(String),
    /// RELEASE SAVEPOINT name.
    ReleaseSavepoint(String),
    /// SET of the variables this crate knows.
    #[non_exhaustive]
    Set {
        /// The session's `autocommit`.
        autocommit: Option<bool>,
        /// The session's `lock_wait_timeout`: a value, which [`Session`](crate::Session)
        /// applies, or `DEFAULT`, the server's global value, which the server applies.
        lock_wait_timeout: Option<Assigned<Duration>>,
        /// `SET GLOBAL lock_wait_timeout`: the server's value for sessions that start later
        /// (`DEFAULT` is MySQL's compiled-in year).
        global_lock_wait_timeout: Option<Duration>,
    },
    /// USE schema.
    Use(String),
    /// LOCK TABLES (or FLUSH TABLES t WITH READ LOCK): the tables, locked with
    /// [`Plan::requests`], enter LOCK TABLES mode.
    LockTables(Vec<LockedTable>),
    /// UNLOCK TABLES: leave LOCK TABLES mode, release the global read lock.
    UnlockTables,
    /// FLUSH TABLES WITH READ LOCK: the requests are the global read lock.
    GlobalReadLock,
    /// LOCK INSTANCE FOR BACKUP: the request is the backup lock.
    LockInstance,
    /// UNLOCK INSTANCE.
    UnlockInstance,
    /// DROP DATABASE: the current schema is cleared if it was this one.
    DropSchema(String),
    /// DROP TABLE under LOCK TABLES: the tables leave the locked set.
    DropLockedTables(Vec<TableName>),
}

/// A statement's metadata locks and session effects, decided by [`plan`] before any lock: the
/// kind, the implicit commits before and after, the requests in the order they are taken
/// (MySQL's `acquire_locks` order: by key, the stronger type first for one key; one request
/// per key and duration), the upgrade steps, the effect on the session, and the user-level
/// lock calls.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Plan {
    /// What the statement is.
    pub kind: StatementKind,
    /// Commit an open transaction (and leave LOCK TABLES where MySQL does) before the locks.
    pub commits_before: bool,
    /// Commit the transaction when the statement ends.
    pub commits_after: bool,
    /// The locks to take, in order.
    pub requests: Vec<MdlRequest>,
    /// The upgrade steps (ALTER TABLE's SU -> X, CREATE TABLE's S -> X; DDL under LOCK TABLES:
    /// SNRW -> X).
    pub upgrades: Vec<Upgrade>,
    /// Locks taken at the upgrade step, once [`Plan::upgrades`] are done: ALTER TABLE's X
    /// (STATEMENT) on the tables a foreign key relates, new requests and not upgrades of their
    /// SU, as MySQL's `collect_and_lock_fk_tables_for_complex_alter_table` (`plan/foreign_keys.rs`).
    pub after_upgrades: Vec<MdlRequest>,
    /// The statement changes data: its transaction becomes read-write, and its commit takes
    /// COMMIT IX.
    pub writes: bool,
    /// What the statement changes in the session.
    pub effect: Effect,
    /// User-level lock calls, in evaluation order.
    pub user_locks: Vec<UserLockCall>,
    /// The temporary tables the statement creates (`CREATE TEMPORARY TABLE`, the new name of
    /// an `ALTER TABLE ... RENAME` of one), added to [`SessionState::temporary_tables`] when the
    /// statement finishes.
    pub temporary_created: Vec<TableName>,
    /// The temporary tables the statement drops (`DROP [TEMPORARY] TABLE`, the old name of a
    /// rename), removed when it finishes, before [`Plan::temporary_created`] are added.
    pub temporary_dropped: Vec<TableName>,
    tables_of_schema: Option<String>,
    /// The events of the tables a DML statement writes (`plan/foreign_keys.rs`).
    fk_events: u8,
    /// The keys without a name an ALTER TABLE adds: `<table>_ibfk_<n>` counts on from the
    /// table's existing keys, which only the caller's catalog knows (`plan/foreign_keys.rs`).
    fk_unnamed: Option<Box<foreign_keys::Unnamed>>,
}

impl Plan {
    fn new(kind: StatementKind) -> Plan {
        Plan {
            kind,
            commits_before: false,
            commits_after: false,
            requests: Vec::new(),
            upgrades: Vec::new(),
            after_upgrades: Vec::new(),
            writes: false,
            effect: Effect::None,
            user_locks: Vec::new(),
            temporary_created: Vec::new(),
            temporary_dropped: Vec::new(),
            tables_of_schema: None,
            fk_events: 0,
            fk_unnamed: None,
        }
    }

    /// DROP DATABASE: the schema whose tables must also be locked (MySQL locks each with X,
    /// `mysql_rm_db` through `find_db_tables` and `lock_table_names`). This crate has no
    /// catalog: the caller lists them with [`Plan::add_tables_of_schema`].
    pub fn needs_tables_of_schema(&self) -> Option<&str> {
        self.tables_of_schema.as_deref()
    }

    /// Adds the X locks (TRANSACTION) on the tables of the schema a DROP DATABASE drops.
    ///
    /// # Errors
    /// `ER_TOO_LONG_IDENT` for a name over 64 characters.
    pub fn add_tables_of_schema<S: AsRef<str>>(&mut self, tables: &[S]) -> Result<(), SqlError> {
        let Some(schema) = self.tables_of_schema.clone() else {
            return Ok(());
        };
        for t in tables {
            let name = TableName::new(&schema, t.as_ref())?;
            self.requests
                .push(name.request(LockType::X, mdl_core::LockDuration::Transaction)?);
        }
        self.requests = order(std::mem::take(&mut self.requests));
        Ok(())
    }

    /// Each request as text, in order (`"TABLE test.t1 SR TRANSACTION"`).
    pub fn describe(&self) -> Vec<String> {
        self.requests.iter().map(describe_request).collect()
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: [{}]", self.kind, self.describe().join(", "))?;
        for u in &self.upgrades {
            write!(f, " then {} {} -> {}", u.key, u.from.abbr(), u.to.abbr())?;
        }
        for r in &self.after_upgrades {
            write!(f, " then {}", describe_request(r))?;
        }
        Ok(())
    }
}

/// A request as text: namespace, name, type abbreviation, duration
/// (`"GLOBAL IX STATEMENT"`, `"SCHEMA test IX TRANSACTION"`, `"TABLE test.t1 SR TRANSACTION"`,
/// `"USER LEVEL LOCK a X EXPLICIT"`).
pub fn describe_request(r: &MdlRequest) -> String {
    let k = &r.key;
    let name = match (k.schema(), k.name()) {
        ("", "") => String::new(),
        (s, "") => format!(" {s}"),
        ("", n) => format!(" {n}"),
        (s, n) => format!(" {s}.{n}"),
    };
    format!(
        "{}{name} {} {}",
        k.namespace(),
        r.lock_type.abbr(),
        r.duration.pfs_name()
    )
}

/// One request per key and duration (the one satisfying the others), in `acquire_locks`
/// order: by key as MySQL compares keys, stronger type first.
pub(crate) fn order(reqs: Vec<MdlRequest>) -> Vec<MdlRequest> {
    let mut out: Vec<MdlRequest> = Vec::with_capacity(reqs.len());
    'next: for r in reqs {
        for o in out.iter_mut() {
            if o.key == r.key && o.duration == r.duration {
                let s = r.key.strategy();
                if is_stronger_or_equal(s, o.lock_type, r.lock_type) {
                    continue 'next;
                }
                if is_stronger_or_equal(s, r.lock_type, o.lock_type) {
                    o.lock_type = r.lock_type;
                    continue 'next;
                }
            }
        }
        out.push(r);
    }
    out.sort_by(|a, b| a.key.mysql_cmp(&b.key).then(b.lock_type.cmp(&a.lock_type)));
    out
}

/// The plan of `parsed` in a session in `state`.
///
/// ```
/// use mdl_sql::{parse, plan, SessionState, StatementKind};
/// let state = SessionState::in_schema("test");
/// let p = plan(&parse("UPDATE t1 SET a = a + 1 WHERE id = 7")?[0], &state)?;
/// assert_eq!(p.kind, StatementKind::Update);
/// assert_eq!(p.describe(), ["GLOBAL IX STATEMENT", "TABLE test.t1 SW TRANSACTION"]);
/// # Ok::<(), mdl_sql::SqlError>(())
/// ```
///
/// # Errors
/// The MySQL error the statement fails with before taking any lock.
pub fn plan(parsed: &Parsed, state: &SessionState) -> Result<Plan, SqlError> {
    let mut p = match &parsed.statement {
        Statement::Sql {
            statement,
            modifiers,
        } => plan_sql(statement, *modifiers, state)?,
        Statement::Do(exprs) => dml::do_exprs(exprs, state)?,
        Statement::LockTables(items) => control::lock_tables(items, state)?,
        Statement::UnlockTables => control::unlock_tables(state),
        Statement::AlterTableKeys { schema, table, .. }
        | Statement::AlterTableRebuild { schema, table }
        | Statement::AlterTableRenameIndex { schema, table, .. }
        | Statement::AlterTableOptions { schema, table, .. } => {
            ddl::alter_one_table(schema.as_deref(), table, state)?
        }
        Statement::TableMaintenance { op, tables } => maintenance::maintenance(*op, tables, state)?,
        Statement::KillExpr { id, .. } => control::kill_expr(id)?,
        Statement::LockInstanceForBackup => control::lock_instance(),
        Statement::UnlockInstance => control::unlock_instance(),
    };
    p.requests = order(std::mem::take(&mut p.requests));
    Ok(p)
}

fn plan_sql(
    s: &sqlparser::ast::Statement,
    m: crate::parse::Modifiers,
    state: &SessionState,
) -> Result<Plan, SqlError> {
    use sqlparser::ast::{ShowCreateObject, Statement as S};
    let is_dml = |s: &S| matches!(s, S::Query(_) | S::Insert(_) | S::Update(_) | S::Delete(_));
    match s {
        _ if is_dml(s) => dml::dml(s, m, state),
        S::Explain {
            statement, analyze, ..
        } if is_dml(statement) => dml::explain(statement, *analyze, m, state),
        S::ShowCreate {
            obj_type: ShowCreateObject::Table | ShowCreateObject::View,
            obj_name,
        } => control::show_create_table(obj_name, state),
        S::CreateView(c) => view::create_view(c, m, state),
        S::Drop {
            object_type: sqlparser::ast::ObjectType::View,
            names,
            ..
        } => view::drop_view(names, state),
        S::CreateTable(_)
        | S::AlterTable(_)
        | S::Drop { .. }
        | S::Truncate(_)
        | S::RenameTable(_)
        | S::CreateIndex(_)
        | S::CreateDatabase { .. }
        | S::CreateSchema { .. } => ddl::ddl(s, state),
        _ => control::control(s, state),
    }
}
