//! The one error type of the lock manager.
//!
//! A failed wait explains itself: [`MdlError::Timeout`] and [`MdlError::Killed`] carry the
//! request and what blocked it when the wait ended ([`WaitError`]); [`MdlError::Deadlock`]
//! carries the cycle and the weights that chose the victim ([`DeadlockError`]). The payloads are
//! boxed (a `Result<Ticket>` stays small) and `#[non_exhaustive]`, so fields can be added later;
//! match on [`MdlError::kind`] where only the kind matters.

use std::fmt;
use std::time::Duration;

use crate::blocking::{Blocker, DeadlockCause, DeadlockEdge, DeadlockRecord};
use crate::key::MdlKey;
use crate::types::{ContextId, LockDuration, LockType, Namespace};

/// Everything that can go wrong when using the lock manager.
///
/// The first four variants are the outcomes of a lock wait and map to MySQL's error codes
/// (see [`MdlError::mysql_error_code`]), as do a name too long, an unknown context id and
/// closed grants; the others report misuse of the API. No operation of
/// the lock manager panics on bad input: it returns one of these instead, and leaves every lock
/// the context held untouched.
///
/// ```
/// use std::time::Duration;
/// use mdl_core::*;
///
/// let mgr = MdlManager::new(MdlConfig::default())?;
/// let t1 = MdlKey::new(Namespace::Table, "test", "t1")?;
/// let mut reader = mgr.new_context();
/// reader.set_label("app@10.0.0.7: SELECT * FROM t1");
/// reader.acquire(&MdlRequest::new(t1.clone(), LockType::SharedRead, LockDuration::Transaction),
///                Duration::from_secs(1))?;
///
/// let mut ddl = mgr.new_context();
/// let drop = MdlRequest::new(t1, LockType::Exclusive, LockDuration::Transaction);
/// let err = ddl.acquire(&drop, Duration::from_millis(10)).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Timeout);
/// let MdlError::Timeout(wait) = &err else { unreachable!() };
/// assert_eq!(wait.blockers[0].context, Some(reader.id()));
/// // "Lock wait timeout exceeded; ... blocked by context 1 (app@10.0.0.7: ...) holding SHARED_READ (TRANSACTION)"
/// println!("{err}");
/// # Ok::<(), MdlError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum MdlError {
    /// The request could not be granted within its timeout (`ER_LOCK_WAIT_TIMEOUT`, 1205).
    Timeout(Box<WaitError>),
    /// The request was chosen as the victim of a deadlock (`ER_LOCK_DEADLOCK`, 1213), or the
    /// storage engine refused an exclusive lock and asked for the request to be victimized.
    Deadlock(Box<DeadlockError>),
    /// The context was killed (see [`crate::KillHandle`]) or its owner disconnected while waiting
    /// (`ER_QUERY_INTERRUPTED`, 1317).
    Killed(Box<WaitError>),
    /// The storage-engine pre-acquire notification refused an exclusive lock
    /// (`ER_LOCK_REFUSED_BY_ENGINE`, 3177).
    RefusedByEngine,
    /// A schema, object or column name is longer than 64 characters (MySQL's `NAME_CHAR_LEN`;
    /// reported as `ER_TOO_LONG_IDENT`, 1059).
    NameTooLong {
        /// Which of the key's names was too long.
        part: KeyPart,
        /// The name.
        name: Box<str>,
        /// Its length in characters.
        chars: usize,
    },
    /// A key is malformed: a name contains a NUL byte (the text says which), or a pre-allocated
    /// singleton namespace (GLOBAL, COMMIT, BACKUP_LOCK, ACL_CACHE) was given a non-empty name.
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
    /// [`MdlManager::new_context_with_id`](crate::MdlManager::new_context_with_id): a live
    /// context of this manager already has the id.
    ContextIdInUse(ContextId),
    /// [`MdlManager::kill`](crate::MdlManager::kill): no live context has the id (MySQL's
    /// `ER_NO_SUCH_THREAD`, 1094).
    UnknownContext(ContextId),
    /// Grants in the request's namespace are refused ([`MdlManager::close_grants`](crate::MdlManager::close_grants))
    /// and the context is not gate-exempt. Reported as MySQL's `ER_SERVER_OFFLINE_MODE` (3032):
    /// the manager is not serving locks there for now.
    /// The payload names the request (no blockers, no wait).
    GrantsClosed(Box<WaitError>),
}

/// Which of a key's names an error is about ([`MdlError::NameTooLong`]): the parts of
/// [`MdlKey::schema`], [`MdlKey::name`] and [`MdlKey::column`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum KeyPart {
    /// The schema (database) name.
    Schema,
    /// The object's name (a table's, a function's, a user-level lock's...).
    Name,
    /// The column name of a COLUMN_STATISTICS key.
    Column,
}

impl fmt::Display for KeyPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyPart::Schema => "schema",
            KeyPart::Name => "name",
            KeyPart::Column => "column",
        })
    }
}

/// The kind of an [`MdlError`], without its payload: for matching and comparing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "SCREAMING_SNAKE_CASE"))]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum ErrorKind {
    Timeout,
    Deadlock,
    Killed,
    RefusedByEngine,
    NameTooLong,
    InvalidKey,
    InvalidLockType,
    InvalidTicket,
    InvalidSavepoint,
    InvalidLockChange,
    InvalidConfig,
    ContextIdInUse,
    UnknownContext,
    GrantsClosed,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 14] = [
        ErrorKind::Timeout,
        ErrorKind::Deadlock,
        ErrorKind::Killed,
        ErrorKind::RefusedByEngine,
        ErrorKind::NameTooLong,
        ErrorKind::InvalidKey,
        ErrorKind::InvalidLockType,
        ErrorKind::InvalidTicket,
        ErrorKind::InvalidSavepoint,
        ErrorKind::InvalidLockChange,
        ErrorKind::InvalidConfig,
        ErrorKind::ContextIdInUse,
        ErrorKind::UnknownContext,
        ErrorKind::GrantsClosed,
    ];

    /// The MySQL error code of errors of this kind, where one exists.
    pub fn mysql_error_code(self) -> Option<u32> {
        match self {
            ErrorKind::Timeout => Some(1205),
            ErrorKind::Deadlock => Some(1213),
            ErrorKind::Killed => Some(1317),
            ErrorKind::RefusedByEngine => Some(3177),
            ErrorKind::NameTooLong => Some(1059),
            ErrorKind::UnknownContext => Some(1094),
            ErrorKind::GrantsClosed => Some(3032),
            _ => None,
        }
    }
}

/// A wait that ended without the lock ([`MdlError::Timeout`], [`MdlError::Killed`]): the
/// request, how long it waited, and what blocked it at that moment.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct WaitError {
    /// The object waited for.
    pub key: MdlKey,
    /// The requested type.
    pub lock_type: LockType,
    /// The requested duration.
    pub duration: LockDuration,
    /// How long the request waited (zero for a request that was only tried).
    pub waited: Duration,
    /// What blocked it when the wait ended.
    pub blockers: Vec<Blocker>,
}

impl WaitError {
    pub(crate) fn new(key: &MdlKey, lock_type: LockType, duration: LockDuration) -> WaitError {
        WaitError {
            key: key.clone(),
            lock_type,
            duration,
            waited: Duration::ZERO,
            blockers: Vec::new(),
        }
    }
}

/// A deadlock victim's request, the cycle it was on, and why it was chosen
/// ([`MdlError::Deadlock`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct DeadlockError {
    /// The victim's request: the object.
    pub key: MdlKey,
    /// The victim's request: the type.
    pub lock_type: LockType,
    /// The victim (this context).
    pub victim: ContextId,
    /// A cycle, a too-deep path, or a storage engine's refusal.
    pub cause: DeadlockCause,
    /// The cycle's edges, each with the waiter's weight (empty for an engine's refusal).
    pub cycle: Vec<DeadlockEdge>,
}

impl DeadlockError {
    pub(crate) fn from_record(r: &DeadlockRecord, key: &MdlKey, ty: LockType) -> DeadlockError {
        DeadlockError {
            key: key.clone(),
            lock_type: ty,
            victim: r.victim,
            cause: r.cause,
            cycle: r.cycle.clone(),
        }
    }
}

impl MdlError {
    /// The kind of error, without its payload.
    pub fn kind(&self) -> ErrorKind {
        match self {
            MdlError::Timeout(_) => ErrorKind::Timeout,
            MdlError::Deadlock(_) => ErrorKind::Deadlock,
            MdlError::Killed(_) => ErrorKind::Killed,
            MdlError::RefusedByEngine => ErrorKind::RefusedByEngine,
            MdlError::NameTooLong { .. } => ErrorKind::NameTooLong,
            MdlError::InvalidKey(_) => ErrorKind::InvalidKey,
            MdlError::InvalidLockType { .. } => ErrorKind::InvalidLockType,
            MdlError::InvalidTicket => ErrorKind::InvalidTicket,
            MdlError::InvalidSavepoint => ErrorKind::InvalidSavepoint,
            MdlError::InvalidLockChange { .. } => ErrorKind::InvalidLockChange,
            MdlError::InvalidConfig(_) => ErrorKind::InvalidConfig,
            MdlError::ContextIdInUse(_) => ErrorKind::ContextIdInUse,
            MdlError::UnknownContext(_) => ErrorKind::UnknownContext,
            MdlError::GrantsClosed(_) => ErrorKind::GrantsClosed,
        }
    }

    /// The MySQL error code a server would report for this error, where one exists.
    pub fn mysql_error_code(&self) -> Option<u32> {
        self.kind().mysql_error_code()
    }

    pub(crate) fn timeout(w: WaitError) -> MdlError {
        MdlError::Timeout(Box::new(w))
    }

    pub(crate) fn killed(w: WaitError) -> MdlError {
        MdlError::Killed(Box::new(w))
    }

    /// A storage engine's victimizing refusal of an exclusive lock.
    pub(crate) fn engine_victim(key: &MdlKey, ty: LockType, victim: ContextId) -> MdlError {
        MdlError::Deadlock(Box::new(DeadlockError {
            key: key.clone(),
            lock_type: ty,
            victim,
            cause: DeadlockCause::Engine,
            cycle: Vec::new(),
        }))
    }
}

fn write_wait(f: &mut fmt::Formatter<'_>, w: &WaitError) -> fmt::Result {
    write!(f, " ({} on {}", w.lock_type, w.key)?;
    if !w.waited.is_zero() {
        write!(f, ", waited {:.3} s", w.waited.as_secs_f64())?;
    }
    for (i, b) in w.blockers.iter().enumerate() {
        f.write_str(if i == 0 { "; blocked by " } else { ", " })?;
        write!(f, "{b}")?;
    }
    f.write_str(")")
}

impl fmt::Display for ErrorKind {
    /// The kind's name as the `serde` feature writes it (`TIMEOUT`, `DEADLOCK`, ...).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = format!("{self:?}");
        let mut out = String::with_capacity(name.len() + 4);
        for (i, c) in name.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
        }
        f.write_str(&out)
    }
}

impl fmt::Display for MdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MdlError::Timeout(w) => {
                f.write_str("Lock wait timeout exceeded; try restarting transaction")?;
                write_wait(f, w)
            }
            MdlError::Deadlock(d) => {
                f.write_str("Deadlock found when trying to get lock; try restarting transaction")?;
                write!(f, " ({} on {}", d.lock_type, d.key)?;
                match d.cause {
                    DeadlockCause::Engine => f.write_str("; victimized by a storage engine")?,
                    DeadlockCause::TooDeep => f.write_str("; wait-for path too deep")?,
                    DeadlockCause::Cycle => {}
                }
                for (i, e) in d.cycle.iter().enumerate() {
                    f.write_str(if i == 0 { "; cycle: " } else { "; " })?;
                    write!(f, "{e} (weight {})", e.weight)?;
                }
                write!(f, "; victim context {})", d.victim)
            }
            MdlError::Killed(w) => {
                f.write_str("Query execution was interrupted")?;
                write_wait(f, w)
            }
            MdlError::RefusedByEngine => f.write_str("Lock acquisition refused by storage engine."),
            // MySQL's ER_TOO_LONG_IDENT, with which name and how long.
            MdlError::NameTooLong { part, name, chars } => write!(
                f,
                "Identifier name '{name}' is too long (the key's {part} has {chars} characters; \
                 the limit is 64)"
            ),
            MdlError::InvalidKey(why) => write!(f, "invalid metadata lock key: {why}"),
            MdlError::InvalidLockType {
                namespace,
                lock_type,
            } => write!(
                f,
                "lock type {lock_type} cannot be used in namespace {namespace}"
            ),
            MdlError::InvalidTicket => {
                f.write_str("ticket does not belong to this context or was already released")
            }
            MdlError::InvalidSavepoint => f.write_str("savepoint belongs to another context"),
            MdlError::InvalidLockChange { held, requested } => {
                write!(f, "cannot change a {held} lock to {requested}")
            }
            MdlError::InvalidConfig(why) => write!(f, "invalid lock manager configuration: {why}"),
            MdlError::ContextIdInUse(id) => write!(f, "context id {id} is in use"),
            MdlError::UnknownContext(id) => write!(f, "Unknown thread id: {id}"),
            MdlError::GrantsClosed(w) => write!(
                f,
                "The server is currently in offline mode: grants of {} on {} are closed",
                w.lock_type, w.key
            ),
        }
    }
}

impl std::error::Error for MdlError {}

/// Shorthand for results of the lock manager.
pub type Result<T, E = MdlError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_stay_small() {
        // Every `Result` of the lock manager carries one: large payloads are boxed, and a name
        // too long is a `Box<str>` next to a one-byte part.
        assert!(std::mem::size_of::<MdlError>() <= 32);
        assert!(std::mem::size_of::<Result<crate::Ticket>>() <= 32);
    }

    #[test]
    fn kinds_display_as_serde_names() {
        assert_eq!(ErrorKind::Timeout.to_string(), "TIMEOUT");
        assert_eq!(ErrorKind::RefusedByEngine.to_string(), "REFUSED_BY_ENGINE");
        assert_eq!(ErrorKind::ContextIdInUse.to_string(), "CONTEXT_ID_IN_USE");
    }
}
