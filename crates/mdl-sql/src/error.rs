//! The one error type: a MySQL error with its code, SQLSTATE and message text.
//!
//! Codes, SQLSTATEs and message texts are MySQL 8.0's (`share/messages_to_clients.txt`; an
//! empty SQLSTATE there means `HY000`). A lock-manager failure keeps the [`MdlError`] it came
//! from ([`SqlError::mdl`]), so a caller can still name the blockers of a timeout or walk the
//! cycle of a deadlock.

use std::fmt;

use mdl_core::MdlError;

/// A MySQL error: what a server sends to its client (code, SQLSTATE, message), plus the lock
/// manager's error when one caused it.
///
/// ```
/// use mdl_sql::{parse, SqlError};
/// let err: SqlError = parse("SELEC 1").unwrap_err();
/// assert_eq!((err.code(), err.sqlstate()), (SqlError::PARSE_ERROR, "42000"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError {
    code: u16,
    sqlstate: &'static str,
    message: String,
    mdl: Option<MdlError>,
}

impl SqlError {
    /// `ER_NO_DB_ERROR`: an unqualified name with no current schema.
    pub const NO_DB: u16 = 1046;
    /// `ER_TABLE_EXISTS_ERROR`: `CREATE TEMPORARY TABLE` of a temporary table the session has.
    pub const TABLE_EXISTS: u16 = 1050;
    /// `ER_BAD_TABLE_ERROR`: `DROP TEMPORARY TABLE` of a temporary table the session lacks.
    pub const BAD_TABLE: u16 = 1051;
    /// `ER_TOO_LONG_IDENT`: a schema or table name over 64 characters.
    pub const TOO_LONG_IDENT: u16 = 1059;
    /// `ER_PARSE_ERROR`.
    pub const PARSE_ERROR: u16 = 1064;
    /// `ER_EMPTY_QUERY`.
    pub const EMPTY_QUERY: u16 = 1065;
    /// `ER_NO_SUCH_THREAD`: KILL of an unknown connection id.
    pub const NO_SUCH_THREAD: u16 = 1094;
    /// `ER_TABLE_NOT_LOCKED_FOR_WRITE`: a write to a table LOCK TABLES locked for READ.
    pub const TABLE_NOT_LOCKED_FOR_WRITE: u16 = 1099;
    /// `ER_TABLE_NOT_LOCKED`: a table missing from the LOCK TABLES list.
    pub const TABLE_NOT_LOCKED: u16 = 1100;
    /// `ER_WRONG_DB_NAME`: an empty schema name, or one ending in a space.
    pub const WRONG_DB_NAME: u16 = 1102;
    /// `ER_WRONG_TABLE_NAME`: an empty table name, or one ending in a space.
    pub const WRONG_TABLE_NAME: u16 = 1103;
    /// `ER_UNKNOWN_ERROR`: a lock-manager error with no MySQL code (misuse of its API).
    pub const UNKNOWN_ERROR: u16 = 1105;
    /// `ER_CANT_REOPEN_TABLE`: a statement names one temporary table twice.
    pub const CANT_REOPEN_TABLE: u16 = 1137;
    /// `ER_LOCK_OR_ACTIVE_TRANSACTION`.
    pub const LOCK_OR_ACTIVE_TRANSACTION: u16 = 1192;
    /// `ER_LOCK_WAIT_TIMEOUT`.
    pub const LOCK_WAIT_TIMEOUT: u16 = 1205;
    /// `ER_LOCK_DEADLOCK`.
    pub const LOCK_DEADLOCK: u16 = 1213;
    /// `ER_CANT_UPDATE_WITH_READLOCK`: this session holds the global read lock.
    pub const CANT_UPDATE_WITH_READLOCK: u16 = 1223;
    /// `ER_WRONG_VALUE_FOR_VAR`.
    pub const WRONG_VALUE_FOR_VAR: u16 = 1231;
    /// `ER_NOT_SUPPORTED_YET`.
    pub const NOT_SUPPORTED_YET: u16 = 1235;
    /// `ER_QUERY_INTERRUPTED`: killed while waiting.
    pub const QUERY_INTERRUPTED: u16 = 1317;
    /// `ER_SP_DOES_NOT_EXIST` (1305): a savepoint name that does not exist.
    pub const SP_DOES_NOT_EXIST: u16 = 1305;
    /// `ER_VIEW_SELECT_VARIABLE`: a view's select reads a user variable.
    pub const VIEW_SELECT_VARIABLE: u16 = 1351;
    /// `ER_VIEW_SELECT_TMPTABLE`: a view's select reads a temporary table.
    pub const VIEW_SELECT_TMPTABLE: u16 = 1352;
    /// `ER_VIEW_RECURSIVE`: a view reaches itself.
    pub const VIEW_RECURSIVE: u16 = 1462;
    /// `ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION`.
    pub const READ_ONLY_TRANSACTION: u16 = 1792;
    /// `ER_SERVER_OFFLINE_MODE`: grants closed in the request's namespace.
    pub const SERVER_OFFLINE_MODE: u16 = 3032;
    /// `ER_USER_LOCK_WRONG_NAME`: an empty or NULL user-level lock name.
    pub const USER_LOCK_WRONG_NAME: u16 = 3057;
    /// `ER_USER_LOCK_DEADLOCK`: GET_LOCK chosen as a deadlock victim.
    pub const USER_LOCK_DEADLOCK: u16 = 3058;
    /// `ER_LOCK_REFUSED_BY_ENGINE`.
    pub const LOCK_REFUSED_BY_ENGINE: u16 = 3177;
    /// `ER_USER_LOCK_OVERLONG_NAME`: a user-level lock name over 64 characters.
    pub const USER_LOCK_OVERLONG_NAME: u16 = 4163;

    /// An error with MySQL's `code`, `sqlstate` and `message`.
    pub fn new(code: u16, sqlstate: &'static str, message: impl Into<String>) -> SqlError {
        SqlError {
            code,
            sqlstate,
            message: message.into(),
            mdl: None,
        }
    }

    /// MySQL's error code (`1205`, `1213`, ...).
    pub fn code(&self) -> u16 {
        self.code
    }

    /// The SQLSTATE (`HY000`, `40001`, ...).
    pub fn sqlstate(&self) -> &'static str {
        self.sqlstate
    }

    /// The message text, as MySQL words it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The lock manager's error behind this one (timeouts, deadlocks and kills carry what
    /// blocked the request, or the cycle).
    pub fn mdl(&self) -> Option<&MdlError> {
        self.mdl.as_ref()
    }

    pub(crate) fn parse(near: &str, line: u64) -> SqlError {
        let near: String = near.chars().take(80).collect();
        SqlError::new(
            Self::PARSE_ERROR,
            "42000",
            format!(
                "You have an error in your SQL syntax; check the manual that corresponds to \
                 your MySQL server version for the right syntax to use near '{near}' at line {line}"
            ),
        )
    }

    pub(crate) fn empty_query() -> SqlError {
        SqlError::new(Self::EMPTY_QUERY, "42000", "Query was empty")
    }

    pub(crate) fn not_supported(what: &str) -> SqlError {
        SqlError::new(
            Self::NOT_SUPPORTED_YET,
            "42000",
            format!("This version of MySQL doesn't yet support '{what}'"),
        )
    }

    pub(crate) fn no_db() -> SqlError {
        SqlError::new(Self::NO_DB, "3D000", "No database selected")
    }

    pub(crate) fn too_long_ident(name: &str) -> SqlError {
        SqlError::new(Self::TOO_LONG_IDENT, "42000", too_long_ident_text(name))
    }

    pub(crate) fn wrong_db_name(name: &str) -> SqlError {
        SqlError::new(
            Self::WRONG_DB_NAME,
            "42000",
            format!("Incorrect database name '{}'", str_arg(name, 100)),
        )
    }

    pub(crate) fn wrong_table_name(name: &str) -> SqlError {
        SqlError::new(
            Self::WRONG_TABLE_NAME,
            "42000",
            format!("Incorrect table name '{}'", str_arg(name, 100)),
        )
    }

    pub(crate) fn table_not_locked(alias: &str) -> SqlError {
        SqlError::new(
            Self::TABLE_NOT_LOCKED,
            "HY000",
            format!("Table '{alias}' was not locked with LOCK TABLES"),
        )
    }

    pub(crate) fn table_not_locked_for_write(alias: &str) -> SqlError {
        SqlError::new(
            Self::TABLE_NOT_LOCKED_FOR_WRITE,
            "HY000",
            format!("Table '{alias}' was locked with a READ lock and can't be updated"),
        )
    }

    pub(crate) fn lock_or_active_transaction() -> SqlError {
        SqlError::new(
            Self::LOCK_OR_ACTIVE_TRANSACTION,
            "HY000",
            "Can't execute the given command because you have active locked tables or an \
             active transaction",
        )
    }

    pub(crate) fn cant_update_with_readlock() -> SqlError {
        SqlError::new(
            Self::CANT_UPDATE_WITH_READLOCK,
            "HY000",
            "Can't execute the query because you have a conflicting read lock",
        )
    }

    pub(crate) fn view_select_variable() -> SqlError {
        SqlError::new(
            Self::VIEW_SELECT_VARIABLE,
            "HY000",
            "View's SELECT contains a variable or parameter",
        )
    }

    pub(crate) fn table_exists(name: &str) -> SqlError {
        SqlError::new(
            Self::TABLE_EXISTS,
            "42S01",
            format!("Table '{name}' already exists"),
        )
    }

    /// `names`: each missing table as `schema.table` (`append_table_name`, `sql/sql_table.cc`).
    pub(crate) fn bad_table(names: &[String]) -> SqlError {
        SqlError::new(
            Self::BAD_TABLE,
            "42S02",
            format!("Unknown table '{}'", names.join(",")),
        )
    }

    pub(crate) fn cant_reopen_table(alias: &str) -> SqlError {
        SqlError::new(
            Self::CANT_REOPEN_TABLE,
            "HY000",
            format!("Can't reopen table: '{alias}'"),
        )
    }

    pub(crate) fn view_select_tmptable(alias: &str) -> SqlError {
        SqlError::new(
            Self::VIEW_SELECT_TMPTABLE,
            "HY000",
            format!("View's SELECT refers to a temporary table '{alias}'"),
        )
    }

    pub(crate) fn view_recursive(view: &crate::TableName) -> SqlError {
        SqlError::new(
            Self::VIEW_RECURSIVE,
            "HY000",
            format!("`{}`.`{}` contains view recursion", view.schema, view.name),
        )
    }

    pub(crate) fn read_only_transaction() -> SqlError {
        SqlError::new(
            Self::READ_ONLY_TRANSACTION,
            "25006",
            "Cannot execute statement in a READ ONLY transaction.",
        )
    }

    pub(crate) fn wrong_value_for_var(var: &str, value: &str) -> SqlError {
        SqlError::new(
            Self::WRONG_VALUE_FOR_VAR,
            "42000",
            format!("Variable '{var}' can't be set to the value of '{value}'"),
        )
    }

    pub(crate) fn savepoint_does_not_exist(name: &str) -> SqlError {
        SqlError::new(
            Self::SP_DOES_NOT_EXIST,
            "42000",
            format!("SAVEPOINT {name} does not exist"),
        )
    }

    pub(crate) fn user_lock_wrong_name(shown: &str) -> SqlError {
        SqlError::new(
            Self::USER_LOCK_WRONG_NAME,
            "42000",
            format!(
                "Incorrect user-level lock name '{shown}'. The name is empty, NULL, or can not \
                 be expressed in the current character-set."
            ),
        )
    }

    pub(crate) fn user_lock_overlong_name(name: &str) -> SqlError {
        SqlError::new(
            Self::USER_LOCK_OVERLONG_NAME,
            "42000",
            format!("User-level lock name '{name}' should not exceed 64 characters."),
        )
    }

    /// GET_LOCK's deadlock (MySQL's `User_level_lock_wait_error_handler` turns the lock
    /// manager's `ER_LOCK_DEADLOCK` into this one: no transaction is rolled back).
    pub(crate) fn user_lock_deadlock(cause: MdlError) -> SqlError {
        SqlError {
            mdl: Some(cause),
            ..SqlError::new(
                Self::USER_LOCK_DEADLOCK,
                "HY000",
                "Deadlock found when trying to get user-level lock; try rolling back \
                 transaction/releasing locks and restarting lock acquisition.",
            )
        }
    }
}

impl From<MdlError> for SqlError {
    /// The MySQL error a server reports for a lock-manager error. The code is the lock
    /// manager's own ([`MdlError::mysql_error_code`]: 1205, 1213, 1317, 3177 for the outcomes
    /// of a wait, 1059 for a name too long, 1094 for an unknown context id, 3032 for closed
    /// grants), so the two never disagree; the SQLSTATE and the text are MySQL's for that code
    /// (the blockers, the cycle stay in [`SqlError::mdl`]). Misuse of the API, which has no
    /// MySQL code and a correct caller never sees, is `ER_UNKNOWN_ERROR` (1105) with the lock
    /// manager's text.
    fn from(e: MdlError) -> SqlError {
        let code = e.mysql_error_code().and_then(|c| u16::try_from(c).ok());
        let Some(code) = code else {
            let message = e.to_string();
            return SqlError {
                code: Self::UNKNOWN_ERROR,
                sqlstate: "HY000",
                message,
                mdl: Some(e),
            };
        };
        let (sqlstate, message) = match &e {
            MdlError::Timeout(_) => (
                "HY000",
                "Lock wait timeout exceeded; try restarting transaction".to_string(),
            ),
            MdlError::Deadlock(_) => (
                "40001",
                "Deadlock found when trying to get lock; try restarting transaction".to_string(),
            ),
            MdlError::Killed(_) => ("70100", "Query execution was interrupted".to_string()),
            MdlError::RefusedByEngine => (
                "HY000",
                "Lock acquisition refused by storage engine.".to_string(),
            ),
            MdlError::NameTooLong { name, .. } => ("42000", too_long_ident_text(name)),
            MdlError::UnknownContext(id) => ("HY000", format!("Unknown thread id: {id}")),
            MdlError::GrantsClosed(_) => (
                "HY000",
                "The server is currently in offline mode".to_string(),
            ),
            // A code this crate has no text for: MySQL's default SQLSTATE, our text.
            _ => ("HY000", e.to_string()),
        };
        SqlError {
            code,
            sqlstate,
            message,
            mdl: Some(e),
        }
    }
}

/// `ER_TOO_LONG_IDENT`'s text: "Identifier name '%-.100s' is too long".
fn too_long_ident_text(name: &str) -> String {
    format!("Identifier name '{}' is too long", str_arg(name, 100))
}

/// A string argument as MySQL's messages print it with `%-.<max_bytes>s`: at most `max_bytes`
/// bytes, cut before a character that would not fit (`strings/my_vsnprintf.cc`,
/// `process_str_arg`).
fn str_arg(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let end = (0..=max_bytes)
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0);
    &s[..end]
}

impl fmt::Display for SqlError {
    /// `ERROR 1205 (HY000): Lock wait timeout exceeded; try restarting transaction`, as the
    /// `mysql` client prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code, self.sqlstate, self.message
        )
    }
}

impl std::error::Error for SqlError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.mdl.as_ref().map(|e| e as _)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    use mdl_core::{
        EngineRefusal, ErrorKind, KillScope, LockDuration, LockType, MdlConfig, MdlContext, MdlKey,
        MdlManager, MdlOwner, MdlRequest, Namespace,
    };

    /// MySQL's `ER_TOO_LONG_IDENT`: "Identifier name '%-.100s' is too long" (42000), at most
    /// 100 bytes of the name, cut at a character (`strings/my_vsnprintf.cc`,
    /// `process_str_arg`: `strnlen(par, width)`, then `well_formed_len`).
    #[test]
    fn a_name_too_long_for_a_key_is_mysqls_too_long_ident() {
        let message = |name: &str| {
            let e = SqlError::from(MdlKey::new(Namespace::Table, "test", name).unwrap_err());
            assert_eq!((e.code(), e.sqlstate()), (1059, "42000"));
            e.message().to_string()
        };
        let long = "x".repeat(65);
        assert_eq!(
            message(&long),
            format!("Identifier name '{long}' is too long")
        );
        let huge = "é".repeat(80); // 160 bytes: 50 characters fit in 100
        assert_eq!(
            message(&huge),
            format!("Identifier name '{}' is too long", "é".repeat(50))
        );
        let odd = format!("x{}", "é".repeat(80)); // the 100th byte splits a character
        assert_eq!(
            message(&odd),
            format!("Identifier name 'x{}' is too long", "é".repeat(49))
        );
    }

    /// An owner whose storage engine refuses every exclusive lock, as a deadlock or not.
    struct Refusing(bool);
    impl MdlOwner for Refusing {
        fn notify_hton_pre_acquire_exclusive(&self, _: &MdlKey) -> Result<(), EngineRefusal> {
            Err(EngineRefusal { victimized: self.0 })
        }
    }

    /// One real error of every kind the lock manager reports, each made the way a caller meets it.
    fn one_of_each_kind() -> Vec<MdlError> {
        let mgr = MdlManager::new(MdlConfig::default()).unwrap();
        let t = MdlKey::new(Namespace::Table, "test", "t").unwrap();
        let req = |ty| MdlRequest::new(t.clone(), ty, LockDuration::Transaction);
        let quick = Duration::from_millis(1);
        let mut holder = mgr.new_context();
        let held = holder.acquire(&req(LockType::SharedRead), quick).unwrap();
        let mut other = mgr.new_context();
        let refusing = |victimized| mgr.new_context_with_owner(Arc::new(Refusing(victimized)));
        let mut errors = vec![
            other.acquire(&req(LockType::Exclusive), quick).unwrap_err(),
            refusing(true)
                .acquire(&req(LockType::Exclusive), quick)
                .unwrap_err(),
            refusing(false)
                .acquire(&req(LockType::Exclusive), quick)
                .unwrap_err(),
            MdlKey::new(Namespace::Table, "test", &"x".repeat(65)).unwrap_err(),
            MdlKey::new(Namespace::Table, "test", "t\0").unwrap_err(),
            MdlKey::singleton(Namespace::Table).unwrap_err(),
            holder.downgrade(held, LockType::Exclusive).unwrap_err(),
            other.rollback_to_savepoint(holder.savepoint()).unwrap_err(),
            MdlConfig::builder().shards(0).build().unwrap_err(),
            mgr.new_context_with_id(holder.id().as_u64()).unwrap_err(),
            mgr.kill(u64::MAX.into(), KillScope::Query).unwrap_err(),
        ];
        let global = MdlKey::singleton(Namespace::Global).unwrap();
        let sr = MdlRequest::new(global, LockType::SharedRead, LockDuration::Statement);
        errors.push(other.acquire(&sr, quick).unwrap_err());
        holder.release(held).unwrap();
        errors.push(holder.release(held).unwrap_err());
        other.kill_handle().kill(KillScope::Connection);
        holder.acquire(&req(LockType::SharedRead), quick).unwrap();
        errors.push(other.acquire(&req(LockType::Exclusive), quick).unwrap_err());
        mgr.close_grants(&[Namespace::Table]);
        let mut late: MdlContext = mgr.new_context();
        errors.push(late.acquire(&req(LockType::SharedRead), quick).unwrap_err());
        errors
    }

    /// `SqlError::from` reports the code `MdlError::mysql_error_code` gives (1105,
    /// ER_UNKNOWN_ERROR, where it gives none), with MySQL's SQLSTATE for that code.
    #[test]
    fn every_lock_manager_error_keeps_its_mysql_code() {
        let errors = one_of_each_kind();
        for kind in ErrorKind::ALL {
            assert!(
                errors.iter().any(|e| e.kind() == kind),
                "no {kind:?} among {errors:?}"
            );
        }
        for e in errors {
            let sql = SqlError::from(e.clone());
            let code = e.mysql_error_code().unwrap_or(1105);
            assert_eq!(u32::from(sql.code()), code, "{e:?} became {sql}");
            let sqlstate = match code {
                1213 => "40001",
                1317 => "70100",
                1059 => "42000",
                _ => "HY000",
            };
            assert_eq!(sql.sqlstate(), sqlstate, "{e:?} became {sql}");
            assert_eq!(sql.mdl(), Some(&e));
        }
    }

    /// MySQL's texts: `ER_NO_SUCH_THREAD` "Unknown thread id: %lu", `ER_SERVER_OFFLINE_MODE`
    /// "The server is currently in offline mode" (`share/messages_to_clients.txt`).
    #[test]
    fn unknown_context_and_closed_grants_are_worded_as_mysql() {
        let mgr = MdlManager::new(MdlConfig::default()).unwrap();
        let unknown = SqlError::from(mgr.kill(42.into(), KillScope::Query).unwrap_err());
        assert_eq!(
            unknown.to_string(),
            "ERROR 1094 (HY000): Unknown thread id: 42"
        );
        mgr.close_grants(&[Namespace::Table]);
        let t = MdlKey::new(Namespace::Table, "test", "t").unwrap();
        let sr = MdlRequest::new(t, LockType::SharedRead, LockDuration::Transaction);
        let closed = mgr.new_context().acquire(&sr, Duration::ZERO).unwrap_err();
        assert_eq!(
            SqlError::from(closed).to_string(),
            "ERROR 3032 (HY000): The server is currently in offline mode"
        );
    }
}
