//! The one error type of the lock manager.

use std::fmt;

use crate::types::{LockType, Namespace};

/// Everything that can go wrong when using the lock manager.
///
/// The first five variants are the outcomes of a lock wait and map to MySQL's error codes
/// (see [`MdlError::mysql_error_code`]); the others report misuse of the API. No operation of
/// the lock manager panics on bad input: it returns one of these instead, and leaves every lock
/// the context held untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MdlError {
    /// The request could not be granted within its timeout (`ER_LOCK_WAIT_TIMEOUT`, 1205).
    Timeout,
    /// The request was chosen as the victim of a deadlock (`ER_LOCK_DEADLOCK`, 1213), or the
    /// storage engine refused an exclusive lock and asked for the request to be victimized.
    Deadlock,
    /// The context was killed (see [`crate::KillHandle`]) or its owner disconnected while waiting
    /// (`ER_QUERY_INTERRUPTED`, 1317).
    Killed,
    /// The storage-engine pre-acquire notification refused an exclusive lock
    /// (`ER_LOCK_REFUSED_BY_ENGINE`, 3177).
    RefusedByEngine,
    /// A schema, object or column name is longer than 64 characters (MySQL's `NAME_CHAR_LEN`).
    NameTooLong {
        /// Which part of the key was too long (`"schema"`, `"name"` or `"column"`).
        part: &'static str,
        /// Its length in characters.
        chars: usize,
    },
    /// A key is malformed: a name contains a NUL byte, or a pre-allocated singleton namespace
    /// (GLOBAL, COMMIT, BACKUP_LOCK, ACL_CACHE) was given a non-empty name.
    InvalidKey(&'static str),
    /// The lock type cannot be used in this namespace: scoped namespaces take only IX, S and X;
    /// object namespaces take every type but IX.
    InvalidLockType {
        /// The namespace of the request.
        namespace: Namespace,
        /// The requested type.
        lock_type: LockType,
    },
    /// The ticket does not belong to this context, or it was already released.
    InvalidTicket,
    /// The savepoint was taken in another context.
    InvalidSavepoint,
    /// A downgrade to a type that is not weaker than the held one, or an upgrade of a
    /// ticket to a weaker type than `clone_ticket` allows.
    InvalidLockChange {
        /// The type the ticket holds.
        held: LockType,
        /// The type that was asked for.
        requested: LockType,
    },
    /// The configuration is out of range (for example `shards` outside 1..=1024).
    InvalidConfig(String),
}

impl MdlError {
    /// The MySQL error code a server would report for this error, where one exists.
    pub fn mysql_error_code(&self) -> Option<u32> {
        match self {
            MdlError::Timeout => Some(1205),
            MdlError::Deadlock => Some(1213),
            MdlError::Killed => Some(1317),
            MdlError::RefusedByEngine => Some(3177),
            _ => None,
        }
    }
}

impl fmt::Display for MdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MdlError::Timeout => {
                f.write_str("Lock wait timeout exceeded; try restarting transaction")
            }
            MdlError::Deadlock => {
                f.write_str("Deadlock found when trying to get lock; try restarting transaction")
            }
            MdlError::Killed => f.write_str("Query execution was interrupted"),
            MdlError::RefusedByEngine => f.write_str("Lock acquisition refused by storage engine."),
            MdlError::NameTooLong { part, chars } => {
                write!(f, "{part} name is {chars} characters long; the limit is 64")
            }
            MdlError::InvalidKey(why) => write!(f, "invalid metadata lock key: {why}"),
            MdlError::InvalidLockType {
                namespace,
                lock_type,
            } => write!(
                f,
                "lock type {lock_type:?} cannot be used in namespace {namespace:?}"
            ),
            MdlError::InvalidTicket => {
                f.write_str("ticket does not belong to this context or was already released")
            }
            MdlError::InvalidSavepoint => f.write_str("savepoint belongs to another context"),
            MdlError::InvalidLockChange { held, requested } => {
                write!(f, "cannot change a {held:?} lock to {requested:?}")
            }
            MdlError::InvalidConfig(why) => write!(f, "invalid lock manager configuration: {why}"),
        }
    }
}

impl std::error::Error for MdlError {}

/// Shorthand for results of the lock manager.
pub type Result<T, E = MdlError> = std::result::Result<T, E>;
