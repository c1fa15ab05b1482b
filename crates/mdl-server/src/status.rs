//! MySQL's statement counters: `Com_<command>` and `Questions`, per session and for the server.
//!
//! MySQL counts each statement under its command (`thd->status_var.com_stat[lex->sql_command]++`
//! in `mysql_execute_command`, `sql/sql_parse.cc`: after the parse, before the statement runs,
//! so a statement that fails still counts and one with a syntax error does not), and the
//! protocol's commands where `dispatch_command` serves them (`com_stmt_prepare`,
//! `com_stmt_execute`, `com_stmt_close`; `COM_INIT_DB` counts as `change_db`). An executed
//! prepared statement counts twice: `Com_stmt_execute` (or `Com_execute_sql` for SQL's
//! `EXECUTE`) and its own command. `Questions` counts every command from a client but
//! `COM_STATISTICS`, `COM_PING`, `COM_STMT_PREPARE`, `COM_STMT_CLOSE` and `COM_STMT_RESET`
//! (`CF_SKIP_QUESTIONS`, `sql/sql_parse.cc`).
//!
//! One list, [`Com`], names both a statement's counter and its `performance_schema` class
//! (`statement/sql/<name>`): MySQL derives its statement classes from the same table,
//! `com_status_vars` (`sql/mysqld.cc`, `init_sql_statement_names`). The list has the commands
//! this server runs; `SHOW STATUS` shows each as `Com_<name>`, in MySQL's (sorted) order, and
//! `Com_show_slave_status` and `Com_show_slave_hosts`, the names of before 8.0.22, with the
//! counts of their new names (`admin.rs`).
//!
//! Each connection keeps its own counters ([`SessionStatus`], in its `ConnInfo`), written by
//! the connection's task alone and read by any (`SHOW STATUS` of another session sums them):
//! a plain load and store, no read-modify-write, since there is one writer. A connection that
//! ends adds its counts to the process list's retired ones under the list's lock, so the
//! server's total (`SHOW GLOBAL STATUS`: the retired counts and every live session's, as
//! MySQL's `calc_sum_of_all_status`) never counts a connection twice or drops one. `FLUSH
//! STATUS` does the same for the session that runs it, whose counters then start from 0.

use std::sync::atomic::{AtomicU64, Ordering};

use mdl_sql::StatementKind;
use sqlparser::ast::Statement;

macro_rules! commands {
    ($($variant:ident = $name:literal,)*) => {
        /// A command MySQL counts (`Com_<name>`), as this server tells them apart.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Com {
            $(
                #[doc = concat!("`Com_", $name, "`.")]
                $variant,
            )*
        }

        impl Com {
            /// Every command, in MySQL's order (by name).
            pub const ALL: &'static [Com] = &[$(Com::$variant,)*];

            /// MySQL's name (`select`, `show_fields`, ...).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Com::$variant => $name,)*
                }
            }
        }
    };
}

commands! {
    AlterTable = "alter_table",
    Analyze = "analyze",
    Begin = "begin",
    ChangeDb = "change_db",
    Check = "check",
    Checksum = "checksum",
    Commit = "commit",
    CreateDb = "create_db",
    CreateIndex = "create_index",
    CreateTable = "create_table",
    CreateView = "create_view",
    DeallocSql = "dealloc_sql",
    Delete = "delete",
    DeleteMulti = "delete_multi",
    Do = "do",
    DropDb = "drop_db",
    DropIndex = "drop_index",
    DropTable = "drop_table",
    DropView = "drop_view",
    ExecuteSql = "execute_sql",
    Flush = "flush",
    GetDiagnostics = "get_diagnostics",
    Insert = "insert",
    InsertSelect = "insert_select",
    Kill = "kill",
    LockInstance = "lock_instance",
    LockTables = "lock_tables",
    Optimize = "optimize",
    PrepareSql = "prepare_sql",
    ReleaseSavepoint = "release_savepoint",
    RenameTable = "rename_table",
    Repair = "repair",
    Replace = "replace",
    ReplaceSelect = "replace_select",
    Rollback = "rollback",
    RollbackToSavepoint = "rollback_to_savepoint",
    Savepoint = "savepoint",
    Select = "select",
    SetOption = "set_option",
    ShowBinlogs = "show_binlogs",
    ShowCharsets = "show_charsets",
    ShowCollations = "show_collations",
    ShowCreateDb = "show_create_db",
    ShowCreateTable = "show_create_table",
    ShowDatabases = "show_databases",
    ShowEngineMutex = "show_engine_mutex",
    ShowEngineStatus = "show_engine_status",
    ShowErrors = "show_errors",
    ShowEvents = "show_events",
    ShowFields = "show_fields",
    ShowFunctionStatus = "show_function_status",
    ShowGrants = "show_grants",
    ShowKeys = "show_keys",
    ShowMasterStatus = "show_master_status",
    ShowOpenTables = "show_open_tables",
    ShowPlugins = "show_plugins",
    ShowProcedureStatus = "show_procedure_status",
    ShowProcesslist = "show_processlist",
    ShowReplicaStatus = "show_replica_status",
    ShowReplicas = "show_replicas",
    ShowStatus = "show_status",
    ShowStorageEngines = "show_storage_engines",
    ShowTableStatus = "show_table_status",
    ShowTables = "show_tables",
    ShowTriggers = "show_triggers",
    ShowVariables = "show_variables",
    ShowWarnings = "show_warnings",
    StmtClose = "stmt_close",
    StmtExecute = "stmt_execute",
    StmtPrepare = "stmt_prepare",
    Truncate = "truncate",
    UnlockInstance = "unlock_instance",
    UnlockTables = "unlock_tables",
    Update = "update",
    UpdateMulti = "update_multi",
}

impl Com {
    /// The command MySQL counts a statement under: a `SHOW` by its words (most are rewritten to
    /// a `SELECT` before they are parsed), the rest by their plan's kind and syntax; `None`
    /// for a statement this server does not tell apart (no `Com_` counter).
    pub fn of(kind: Option<StatementKind>, s: Option<&Statement>, text: &str) -> Option<Com> {
        use sqlparser::ast::{FromTable, SetExpr};
        use StatementKind as K;
        if let Some(c) = Com::of_show(text) {
            return Some(c);
        }
        let joined = |from: &[sqlparser::ast::TableWithJoins]| {
            from.len() > 1 || from.iter().any(|t| !t.joins.is_empty())
        };
        Some(match (kind, s) {
            (_, Some(Statement::Insert(i))) => {
                let select =
                    (i.source.as_ref()).is_some_and(|q| !matches!(*q.body, SetExpr::Values(_)));
                match (i.replace_into, select) {
                    (false, false) => Com::Insert,
                    (false, true) => Com::InsertSelect,
                    (true, false) => Com::Replace,
                    (true, true) => Com::ReplaceSelect,
                }
            }
            (_, Some(Statement::Update(u))) if !u.table.joins.is_empty() || u.from.is_some() => {
                Com::UpdateMulti
            }
            (_, Some(Statement::Delete(d))) => {
                let from = match &d.from {
                    FromTable::WithFromKeyword(f) | FromTable::WithoutKeyword(f) => f,
                };
                match d.tables.is_empty() && d.using.is_none() && !joined(from) {
                    true => Com::Delete,
                    false => Com::DeleteMulti,
                }
            }
            // DESCRIBE t, EXPLAIN t: MySQL's SHOW COLUMNS.
            (_, Some(Statement::ExplainTable { .. })) => Com::ShowFields,
            // EXPLAIN counts as the statement it explains (MySQL parses that statement and marks
            // it `describe`); what this server explains is a query.
            (Some(K::Select | K::Explain), _) => Com::Select,
            (Some(K::Insert), _) => Com::Insert,
            (Some(K::Update), _) => Com::Update,
            (Some(K::Delete), _) => Com::Delete,
            (Some(K::Do), _) => Com::Do,
            (Some(K::CreateTable), _) => Com::CreateTable,
            (Some(K::AlterTable), _) => Com::AlterTable,
            (Some(K::DropTable), _) => Com::DropTable,
            (Some(K::TruncateTable), _) => Com::Truncate,
            (Some(K::RenameTable), _) => Com::RenameTable,
            (Some(K::CreateIndex), _) => Com::CreateIndex,
            (Some(K::DropIndex), _) => Com::DropIndex,
            (Some(K::CreateSchema), _) => Com::CreateDb,
            (Some(K::DropSchema), _) => Com::DropDb,
            // ALTER VIEW is MySQL's SQLCOM_CREATE_VIEW too (`sql/sql_yacc.yy`, `alter_view_stmt`).
            (Some(K::CreateView | K::AlterView), _) => Com::CreateView,
            (Some(K::DropView), _) => Com::DropView,
            (Some(K::LockTables), _) => Com::LockTables,
            (Some(K::UnlockTables), _) => Com::UnlockTables,
            (Some(K::FlushTablesWithReadLock | K::Flush), _) => Com::Flush,
            (Some(K::LockInstanceForBackup), _) => Com::LockInstance,
            (Some(K::UnlockInstance), _) => Com::UnlockInstance,
            (Some(K::Begin), _) => Com::Begin,
            (Some(K::Commit), _) => Com::Commit,
            (Some(K::Rollback), _) => Com::Rollback,
            (Some(K::Savepoint), _) => Com::Savepoint,
            (Some(K::RollbackToSavepoint), _) => Com::RollbackToSavepoint,
            (Some(K::ReleaseSavepoint), _) => Com::ReleaseSavepoint,
            (Some(K::Set), _) => Com::SetOption,
            (Some(K::Use), _) => Com::ChangeDb,
            (Some(K::Kill), _) => Com::Kill,
            (Some(K::Analyze), _) => Com::Analyze,
            (Some(K::Check), _) => Com::Check,
            (Some(K::Optimize), _) => Com::Optimize,
            (Some(K::Repair), _) => Com::Repair,
            (Some(K::Checksum), _) => Com::Checksum,
            (_, Some(Statement::ShowProcessList { .. })) => Com::ShowProcesslist,
            (_, Some(Statement::Kill { .. })) => Com::Kill,
            (_, Some(Statement::Query(_))) => Com::Select,
            _ => return None,
        })
    }

    /// MySQL's name of a protocol command (`command_name[]`, `sql/sql_parse.cc`), whose class
    /// is `statement/com/<name>`; `None` for an SQL statement, whose class is
    /// `statement/sql/<name>` (`statement_event.rs`).
    pub fn protocol_name(self) -> Option<&'static str> {
        match self {
            Com::StmtExecute => Some("Execute"),
            Com::StmtPrepare => Some("Prepare"),
            Com::StmtClose => Some("Close stmt"),
            _ => None,
        }
    }

    /// The command of a `SHOW` by its words (`SHOW FULL COLUMNS FROM t` is `show_fields`), as
    /// MySQL's grammar names them (`sql/sql_yacc.yy`, `show_param`); `None` for a text that is
    /// no `SHOW` this server knows. Only the words are read: a comment before `SHOW` makes the
    /// statement count as what it was rewritten to.
    pub fn of_show(text: &str) -> Option<Com> {
        // Every statement asks: most are no SHOW, and the words below cost a split each.
        let start = text.trim_start().as_bytes();
        if !start.get(..4)?.eq_ignore_ascii_case(b"SHOW") {
            return None;
        }
        let mut words = text.split_ascii_whitespace().map(|w| {
            let w = w.trim_end_matches(';');
            w.split('(').next().unwrap_or(w)
        });
        if !words.next()?.eq_ignore_ascii_case("SHOW") {
            return None;
        }
        let mut next = || -> Option<String> {
            words.by_ref().map(str::to_ascii_uppercase).find(|w| {
                // Modifiers that do not change the command.
                !matches!(
                    w.as_str(),
                    "FULL" | "GLOBAL" | "SESSION" | "LOCAL" | "EXTENDED"
                )
            })
        };
        let first = next()?;
        Some(match first.as_str() {
            "PROCESSLIST" => Com::ShowProcesslist,
            "VARIABLES" => Com::ShowVariables,
            "STATUS" => Com::ShowStatus,
            "DATABASES" | "SCHEMAS" => Com::ShowDatabases,
            "TABLES" => Com::ShowTables,
            "COLUMNS" | "FIELDS" => Com::ShowFields,
            "INDEX" | "INDEXES" | "KEYS" => Com::ShowKeys,
            "TRIGGERS" => Com::ShowTriggers,
            "EVENTS" => Com::ShowEvents,
            "GRANTS" => Com::ShowGrants,
            "WARNINGS" => Com::ShowWarnings,
            "ERRORS" => Com::ShowErrors,
            "CHARSET" => Com::ShowCharsets,
            "COLLATION" => Com::ShowCollations,
            "ENGINES" => Com::ShowStorageEngines,
            "PLUGINS" => Com::ShowPlugins,
            "REPLICAS" => Com::ShowReplicas,
            "STORAGE" => return (next()? == "ENGINES").then_some(Com::ShowStorageEngines),
            second => {
                let then = next()?;
                match (second, then.as_str()) {
                    ("TABLE", "STATUS") => Com::ShowTableStatus,
                    ("OPEN", "TABLES") => Com::ShowOpenTables,
                    ("CHARACTER", "SET") => Com::ShowCharsets,
                    ("CREATE", "DATABASE" | "SCHEMA") => Com::ShowCreateDb,
                    // MySQL's SHOW CREATE VIEW is SQLCOM_SHOW_CREATE too.
                    ("CREATE", "TABLE" | "VIEW") => Com::ShowCreateTable,
                    ("FUNCTION", "STATUS") => Com::ShowFunctionStatus,
                    ("PROCEDURE", "STATUS") => Com::ShowProcedureStatus,
                    ("MASTER" | "BINARY", "LOGS") => Com::ShowBinlogs,
                    ("MASTER", "STATUS") => Com::ShowMasterStatus,
                    ("REPLICA" | "SLAVE", "STATUS") => Com::ShowReplicaStatus,
                    ("SLAVE", "HOSTS") => Com::ShowReplicas,
                    ("BINARY", "LOG") => {
                        return (next()? == "STATUS").then_some(Com::ShowMasterStatus)
                    }
                    ("ENGINE", _) => match next()?.as_str() {
                        "STATUS" => Com::ShowEngineStatus,
                        "MUTEX" => Com::ShowEngineMutex,
                        _ => return None,
                    },
                    _ => return None,
                }
            }
        })
    }
}

/// A set of counters: one per [`Com`], and `Questions`.
#[derive(Debug)]
pub struct Counts {
    com: [AtomicU64; Com::ALL.len()],
    questions: AtomicU64,
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            com: std::array::from_fn(|_| AtomicU64::new(0)),
            questions: AtomicU64::new(0),
        }
    }
}

impl Counts {
    /// `Com_<c>`'s value.
    pub fn com(&self, c: Com) -> u64 {
        self.com[c as usize].load(Ordering::Relaxed)
    }

    /// `Questions`' value.
    pub fn questions(&self) -> u64 {
        self.questions.load(Ordering::Relaxed)
    }

    /// Adds `other`'s counts to these (several writers may add at once).
    fn add(&self, other: &Counts) {
        for (mine, theirs) in self.com.iter().zip(&other.com) {
            mine.fetch_add(theirs.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        (self.questions).fetch_add(other.questions(), Ordering::Relaxed);
    }
}

/// A session's counters: written by its connection's task only.
#[derive(Debug, Default)]
pub struct SessionStatus(Counts);

impl SessionStatus {
    /// Counts a statement (or protocol command) of command `c`.
    pub fn count(&self, c: Com) {
        bump(&self.0.com[c as usize]);
    }

    /// Counts a question.
    pub fn question(&self) {
        bump(&self.0.questions);
    }

    /// Starts again from 0 (`FLUSH STATUS`, once the counts went to the server's).
    pub fn clear(&self) {
        let Counts { com, questions } = &self.0;
        for a in com.iter().chain([questions]) {
            a.store(0, Ordering::Relaxed);
        }
    }

    /// The counts so far.
    pub fn counts(&self) -> &Counts {
        &self.0
    }
}

/// One writer: a load and a store, which readers see whole (never torn), cost no locked
/// instruction on the statement path.
fn bump(a: &AtomicU64) {
    a.store(a.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

/// The server's counters: the ended sessions' counts plus the live ones'.
#[derive(Debug, Default)]
pub struct ServerStatus {
    retired: Counts,
}

impl ServerStatus {
    /// Adds an ended session's counts (called under the process list's lock).
    pub fn retire(&self, s: &SessionStatus) {
        self.retired.add(s.counts());
    }

    /// The total: the retired counts and each of `live` (called under the process list's
    /// lock, so that no session is both retired and live, or neither).
    pub fn total<'a>(&self, live: impl Iterator<Item = &'a SessionStatus>) -> Counts {
        let sum = Counts::default();
        sum.add(&self.retired);
        for s in live {
            sum.add(s.counts());
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_and_its_names_unique() {
        let names: Vec<&str> = Com::ALL.iter().map(|c| c.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        assert_eq!(Com::ALL[Com::Select as usize], Com::Select);
    }

    #[test]
    fn show_forms_by_their_words() {
        let cases = [
            ("SHOW PROCESSLIST", Some(Com::ShowProcesslist)),
            ("show full processlist", Some(Com::ShowProcesslist)),
            ("SHOW GLOBAL STATUS LIKE 'Com_%'", Some(Com::ShowStatus)),
            ("SHOW SESSION VARIABLES", Some(Com::ShowVariables)),
            ("SHOW FULL COLUMNS FROM t", Some(Com::ShowFields)),
            ("SHOW INDEXES FROM t", Some(Com::ShowKeys)),
            ("SHOW TABLE STATUS", Some(Com::ShowTableStatus)),
            ("SHOW FULL TABLES", Some(Com::ShowTables)),
            (
                "SHOW OPEN TABLES WHERE In_use > 0",
                Some(Com::ShowOpenTables),
            ),
            ("SHOW CREATE TABLE t", Some(Com::ShowCreateTable)),
            ("SHOW CREATE SCHEMA s", Some(Com::ShowCreateDb)),
            ("SHOW STORAGE ENGINES", Some(Com::ShowStorageEngines)),
            ("SHOW ENGINE INNODB STATUS", Some(Com::ShowEngineStatus)),
            ("SHOW CHARACTER SET", Some(Com::ShowCharsets)),
            ("SHOW BINARY LOG STATUS", Some(Com::ShowMasterStatus)),
            ("SHOW MASTER LOGS", Some(Com::ShowBinlogs)),
            ("SHOW WARNINGS;", Some(Com::ShowWarnings)),
            ("SHOW ERRORS LIMIT 1", Some(Com::ShowErrors)),
            ("SHOW PLUGINS", Some(Com::ShowPlugins)),
            ("SHOW SLAVE STATUS", Some(Com::ShowReplicaStatus)),
            (
                "show replica status for channel ''",
                Some(Com::ShowReplicaStatus),
            ),
            ("SHOW SLAVE HOSTS", Some(Com::ShowReplicas)),
            ("SHOW REPLICAS", Some(Com::ShowReplicas)),
            ("SHOW\n  DATABASES", Some(Com::ShowDatabases)),
            ("SHOW PROFILES", None),
            ("SHOW", None),
            ("SELECT 1", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(Com::of_show(text), want, "{text}");
        }
    }

    #[test]
    fn the_total_is_retired_plus_live() {
        let server = ServerStatus::default();
        let (a, b) = (SessionStatus::default(), SessionStatus::default());
        a.count(Com::Select);
        a.count(Com::Select);
        a.question();
        b.count(Com::Insert);
        server.retire(&b);
        let total = server.total([&a].into_iter());
        assert_eq!(total.com(Com::Select), 2);
        assert_eq!(total.com(Com::Insert), 1);
        assert_eq!(total.questions(), 1);
        assert_eq!(a.counts().com(Com::Insert), 0);
    }
}
