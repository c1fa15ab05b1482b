//! The one error type: a MySQL error with its code, SQLSTATE and message text.
//!
//! Codes, SQLSTATEs and message texts are MySQL 8.0's (`share/messages_to_clients.txt`; an
//! empty SQLSTATE there means `HY000`). A lock-manager failure keeps the [`MdlError`] it came
//! from ([`SqlError::mdl`]), so a caller can still name the blockers of a timeout or walk the
//! cycle of a deadlock.

use std::fmt;

use mdl_core::{ErrorKind, MdlError};

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
    /// `ER_TOO_LONG_IDENT`: a schema or table name over 64 characters.
    pub const TOO_LONG_IDENT: u16 = 1059;
    /// `ER_PARSE_ERROR`.
    pub const PARSE_ERROR: u16 = 1064;
    /// `ER_EMPTY_QUERY`.
    pub const EMPTY_QUERY: u16 = 1065;
    /// `ER_TABLE_NOT_LOCKED_FOR_WRITE`: a write to a table LOCK TABLES locked for READ.
    pub const TABLE_NOT_LOCKED_FOR_WRITE: u16 = 1099;
    /// `ER_TABLE_NOT_LOCKED`: a table missing from the LOCK TABLES list.
    pub const TABLE_NOT_LOCKED: u16 = 1100;
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
    /// `ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION`.
    pub const READ_ONLY_TRANSACTION: u16 = 1792;
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
        SqlError::new(
            Self::TOO_LONG_IDENT,
            "42000",
            format!("Identifier name '{}' is too long", str_arg(name, 100)),
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
    /// The MySQL error a server reports for a lock-manager error: 1205, 1213, 1317, 3177 for
    /// the outcomes of a wait (with MySQL's message text: the blockers stay in
    /// [`SqlError::mdl`]), 1059 for a name too long, and `ER_UNKNOWN_ERROR` (1105) with the
    /// lock manager's text for misuse of its API, which a correct caller never sees.
    fn from(e: MdlError) -> SqlError {
        if let MdlError::NameTooLong { name, .. } = &e {
            let too_long = SqlError::too_long_ident(name);
            return SqlError {
                mdl: Some(e),
                ..too_long
            };
        }
        let (code, sqlstate, message) = match e.kind() {
            ErrorKind::Timeout => (
                Self::LOCK_WAIT_TIMEOUT,
                "HY000",
                "Lock wait timeout exceeded; try restarting transaction".to_string(),
            ),
            ErrorKind::Deadlock => (
                Self::LOCK_DEADLOCK,
                "40001",
                "Deadlock found when trying to get lock; try restarting transaction".to_string(),
            ),
            ErrorKind::Killed => (
                Self::QUERY_INTERRUPTED,
                "70100",
                "Query execution was interrupted".to_string(),
            ),
            ErrorKind::RefusedByEngine => (
                Self::LOCK_REFUSED_BY_ENGINE,
                "HY000",
                "Lock acquisition refused by storage engine.".to_string(),
            ),
            _ => (1105, "HY000", e.to_string()),
        };
        SqlError {
            code,
            sqlstate,
            message,
            mdl: Some(e),
        }
    }
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
    use mdl_core::{MdlKey, Namespace};

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
}
