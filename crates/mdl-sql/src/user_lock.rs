//! User-level lock functions: `GET_LOCK`, `RELEASE_LOCK`, `IS_FREE_LOCK`, `IS_USED_LOCK`,
//! `RELEASE_ALL_LOCKS`, found anywhere in a statement's expressions.
//!
//! MySQL 8.0 (`sql/item_func.cc`):
//!
//! * A lock is an EXCLUSIVE lock of EXPLICIT duration in the USER_LEVEL_LOCK namespace on the
//!   lowercased name (`Item_func_get_lock::val_int`, `check_and_convert_ull_name`).
//! * A name that is empty or NULL is `ER_USER_LOCK_WRONG_NAME` (3057); one over 64 characters
//!   is `ER_USER_LOCK_OVERLONG_NAME` (4163) (`check_and_convert_ull_name`).
//! * `GET_LOCK(name, timeout)`: 1 when granted; a name this session already holds only counts
//!   one more reference (`thd->ull_hash`, `User_level_lock::refs`) and returns 1 at once; 0 on
//!   timeout (not an error); a deadlock is `ER_USER_LOCK_DEADLOCK` (3058) and no transaction is
//!   rolled back (`User_level_lock_wait_error_handler`); a kill is 1317. A negative or huge
//!   timeout waits `INT_MAX32` seconds.
//! * `RELEASE_LOCK(name)`: 1 and one reference less (the lock goes with the last); 0 if
//!   another session holds it; NULL if nobody does (`Item_func_release_lock::val_int`, through
//!   `MDL_context::find_lock_owner`).
//! * `IS_FREE_LOCK(name)`: 1 or 0; `IS_USED_LOCK(name)`: the holder's connection id or NULL
//!   (`Item_func_is_free_lock::val_int`, `Item_func_is_used_lock::val_int`); here the holder's
//!   context id ([`mdl_core::MdlManager::find_lock_owner`]).
//! * `RELEASE_ALL_LOCKS()`: releases every user-level lock of the session and returns the
//!   number of references released (`Item_func_release_all_locks::val_int`).
//!
//! Calls are evaluated once each, in the order they appear in the statement's text, after the
//! statement's table locks (MySQL evaluates expressions after `open_tables`). Their arguments
//! must be constants (literals or NULL): a call whose arguments depend on rows is refused with
//! `ER_NOT_SUPPORTED_YET` (1235). A call in a WHERE clause is evaluated once even if MySQL would
//! evaluate it per row, or not at all.

use std::ops::ControlFlow;
use std::time::Duration;

use mdl_core::{MdlKey, Namespace, NAME_CHAR_LEN};
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, UnaryOperator, Value, Visit, Visitor,
};

use crate::error::SqlError;

/// A user-level lock function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserLockFunction {
    /// `GET_LOCK(name, timeout)`.
    GetLock,
    /// `RELEASE_LOCK(name)`.
    ReleaseLock,
    /// `IS_FREE_LOCK(name)`.
    IsFreeLock,
    /// `IS_USED_LOCK(name)`.
    IsUsedLock,
    /// `RELEASE_ALL_LOCKS()`.
    ReleaseAllLocks,
}

impl UserLockFunction {
    /// The function an SQL function name calls (any case), if it is one of these.
    pub fn from_name(name: &str) -> Option<UserLockFunction> {
        Some(match name.to_ascii_uppercase().as_str() {
            "GET_LOCK" => UserLockFunction::GetLock,
            "RELEASE_LOCK" => UserLockFunction::ReleaseLock,
            "IS_FREE_LOCK" => UserLockFunction::IsFreeLock,
            "IS_USED_LOCK" => UserLockFunction::IsUsedLock,
            "RELEASE_ALL_LOCKS" => UserLockFunction::ReleaseAllLocks,
            _ => return None,
        })
    }

    /// The SQL name.
    pub fn sql_name(self) -> &'static str {
        match self {
            UserLockFunction::GetLock => "GET_LOCK",
            UserLockFunction::ReleaseLock => "RELEASE_LOCK",
            UserLockFunction::IsFreeLock => "IS_FREE_LOCK",
            UserLockFunction::IsUsedLock => "IS_USED_LOCK",
            UserLockFunction::ReleaseAllLocks => "RELEASE_ALL_LOCKS",
        }
    }

    fn arity(self) -> usize {
        match self {
            UserLockFunction::GetLock => 2,
            UserLockFunction::ReleaseAllLocks => 0,
            _ => 1,
        }
    }
}

/// One call of a user-level lock function, with its checked arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UserLockCall {
    /// Which function.
    pub function: UserLockFunction,
    /// The lock's key (USER_LEVEL_LOCK namespace, lowercased name); `None` for
    /// `RELEASE_ALL_LOCKS()`.
    pub key: Option<MdlKey>,
    /// GET_LOCK's timeout.
    pub timeout: Duration,
}

/// The value a call returns: `None` is SQL NULL.
pub type UserLockValue = Option<i64>;

/// GET_LOCK's longest wait: `INT_MAX32` seconds (`Item_func_get_lock::val_int`).
pub const MAX_USER_LOCK_TIMEOUT: Duration = Duration::from_secs(i32::MAX as u64);

/// The user-level lock calls of `node`, in text order.
pub(crate) fn user_lock_calls<V: Visit>(node: &V) -> Result<Vec<UserLockCall>, SqlError> {
    struct Find(Vec<Result<UserLockCall, SqlError>>);
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            if let Expr::Function(f) = e {
                let name = f.name.to_string();
                if let Some(function) = UserLockFunction::from_name(&name) {
                    self.0.push(call(function, &f.args));
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut find = Find(Vec::new());
    let _ = node.visit(&mut find);
    find.0.into_iter().collect()
}

/// A constant argument: a string, a number (as MySQL converts it to a string or an integer) or
/// NULL.
#[derive(Debug)]
enum Constant {
    Null,
    Text(String),
}

fn constant(e: &Expr) -> Option<Constant> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Null => Some(Constant::Null),
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                Some(Constant::Text(s.clone()))
            }
            Value::Number(n, _) => Some(Constant::Text(n.to_string())),
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match constant(expr)? {
            Constant::Text(t) => Some(Constant::Text(format!("-{t}"))),
            Constant::Null => Some(Constant::Null),
        },
        Expr::Nested(e) => constant(e),
        _ => None,
    }
}

fn call(function: UserLockFunction, args: &FunctionArguments) -> Result<UserLockCall, SqlError> {
    let list: Vec<&FunctionArg> = match args {
        FunctionArguments::List(l) => l.args.iter().collect(),
        FunctionArguments::None => Vec::new(),
        FunctionArguments::Subquery(_) => return Err(non_constant(function)),
    };
    if list.len() != function.arity() {
        return Err(SqlError::new(
            1582,
            "42000",
            format!(
                "Incorrect parameter count in the call to native function '{}'",
                function.sql_name()
            ),
        ));
    }
    let mut values = Vec::new();
    for a in list {
        let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = a else {
            return Err(non_constant(function));
        };
        values.push(constant(e).ok_or_else(|| non_constant(function))?);
    }
    let key = match values.first() {
        None => None,
        Some(Constant::Null) => return Err(SqlError::user_lock_wrong_name("NULL")),
        Some(Constant::Text(name)) => Some(user_lock_key(name)?),
    };
    let timeout = match values.get(1) {
        Some(Constant::Text(t)) => timeout_of(t),
        // NULL converts to 0 (`val_int` of NULL).
        _ => Duration::ZERO,
    };
    Ok(UserLockCall {
        function,
        key,
        timeout,
    })
}

/// MySQL's conversion of GET_LOCK's timeout: `val_int` (a number rounds, a string's leading
/// number), negative or over `INT_MAX32` waits `INT_MAX32` seconds.
fn timeout_of(t: &str) -> Duration {
    let t = t.trim();
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    let secs: f64 = t[..end].parse().unwrap_or(0.0);
    let secs = secs.round();
    if !(0.0..=f64::from(i32::MAX)).contains(&secs) {
        MAX_USER_LOCK_TIMEOUT
    } else {
        Duration::from_secs(secs as u64)
    }
}

/// The key of a user-level lock name, checked and lowercased as `check_and_convert_ull_name`
/// does.
///
/// # Errors
/// 3057 for an empty name, 4163 for a name over 64 characters.
pub fn user_lock_key(name: &str) -> Result<MdlKey, SqlError> {
    if name.is_empty() {
        return Err(SqlError::user_lock_wrong_name(""));
    }
    if name.chars().count() > NAME_CHAR_LEN {
        return Err(SqlError::user_lock_overlong_name(name));
    }
    if name.contains('\0') {
        return Err(SqlError::user_lock_wrong_name(name));
    }
    Ok(MdlKey::new(
        Namespace::UserLevelLock,
        "",
        &name.to_lowercase(),
    )?)
}

fn non_constant(f: UserLockFunction) -> SqlError {
    SqlError::not_supported(&format!(
        "{} with an argument that is not a constant",
        f.sql_name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Statement};

    fn calls(sql: &str) -> Result<Vec<UserLockCall>, SqlError> {
        match parse(sql).unwrap().remove(0).statement {
            Statement::Sql { statement, .. } => user_lock_calls(&statement),
            Statement::Do(e) => user_lock_calls(&e),
            _ => panic!(),
        }
    }

    /// item_func.cc: check_and_convert_ull_name lowercases and checks the name.
    #[test]
    fn names() {
        let c = calls("SELECT GET_LOCK('MyLock', 10), IS_USED_LOCK(\"x\")").unwrap();
        assert_eq!(c[0].key.as_ref().unwrap().name(), "mylock");
        assert_eq!(c[0].timeout, Duration::from_secs(10));
        assert_eq!(c[1].function, UserLockFunction::IsUsedLock);
        assert_eq!(calls("SELECT GET_LOCK('', 1)").unwrap_err().code(), 3057);
        assert_eq!(calls("SELECT GET_LOCK(NULL, 1)").unwrap_err().code(), 3057);
        let long = format!("SELECT RELEASE_LOCK('{}')", "a".repeat(65));
        assert_eq!(calls(&long).unwrap_err().code(), 4163);
        let ok = format!("SELECT RELEASE_LOCK('{}')", "a".repeat(64));
        assert!(calls(&ok).is_ok());
    }

    /// Item_func_get_lock::val_int: negative or huge timeouts become INT_MAX32.
    #[test]
    fn timeouts_and_arguments() {
        let t = |sql: &str| calls(sql).unwrap()[0].timeout;
        assert_eq!(t("DO GET_LOCK('a', -1)"), MAX_USER_LOCK_TIMEOUT);
        assert_eq!(t("DO GET_LOCK('a', 1.6)"), Duration::from_secs(2));
        assert_eq!(t("DO GET_LOCK('a', NULL)"), Duration::ZERO);
        assert_eq!(t("DO GET_LOCK('a', 99999999999)"), MAX_USER_LOCK_TIMEOUT);
        assert_eq!(
            calls("SELECT GET_LOCK(c, 1) FROM t").unwrap_err().code(),
            1235
        );
        assert_eq!(calls("SELECT GET_LOCK('a')").unwrap_err().code(), 1582);
        let c =
            calls("SELECT 1 FROM t WHERE RELEASE_ALL_LOCKS() > 0 AND IS_FREE_LOCK(12)").unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].key.as_ref().unwrap().name(), "12");
    }
}
