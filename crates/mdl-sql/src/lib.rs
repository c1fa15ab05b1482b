//! # mdl-sql: MySQL 8.0's statement -> metadata-lock rules, and the lock side of a session
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod comments;
mod error;
mod names;
mod parse;
mod plan;
mod recognize;
mod session;
mod tables;
mod user_lock;

pub use comments::MYSQL_VERSION_ID;
pub use error::SqlError;
pub use names::{is_lock_free_schema, TableName};
pub use parse::{parse, Modifiers, Parsed, Statement};
pub use plan::{
    describe_request, plan, Effect, LockedTable, Plan, SessionState, StatementKind, Upgrade,
};
pub use recognize::{TableLock, TableLockMode};
pub use session::{Session, StatementGuard};
pub use user_lock::{
    user_lock_key, UserLockCall, UserLockFunction, UserLockValue, MAX_USER_LOCK_TIMEOUT,
};
