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
//! statement's table locks (MySQL evaluates expressions after `open_tables`). They are planned
//! from constant arguments (literals or NULL). An argument that reads no row (a `?`, a
//! `@variable`, `CONCAT('a:', DATABASE())`, arithmetic, ...: [`LockArgument::Evaluated`]) is
//! evaluated by the caller and bound as a literal in a copy of the statement before it is
//! planned, as MySQL evaluates it (`Item_func_get_lock::val_int` calls `args[0]->val_str`);
//! [`lock_argument`] is the one rule that says which. A call whose arguments depend on rows (a
//! column, a subquery, an aggregate or window function) is refused with
//! `ER_NOT_SUPPORTED_YET` (1235), and so is one not bound. A call in a WHERE clause is
//! evaluated once even if MySQL would evaluate it per row, or not at all.

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

/// What an argument of a user-level lock call is to the planner ([`lock_argument`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockArgument {
    /// A literal or NULL (negated, in parentheses): planned as it is.
    Constant,
    /// An expression that reads no row (a `?`, a `@variable`, `@@variable`, a function of
    /// those, arithmetic, `CAST`, ...): its value must be bound as a literal before planning.
    Evaluated,
    /// It depends on rows (a column, a subquery, an aggregate or window function) or holds
    /// another user-level lock call: refused (1235).
    RowDependent,
}

/// The aggregate functions of MySQL 8.0 (`sql/item_sum.h`): a value over rows. Upper case.
pub const AGGREGATE_FUNCTIONS: &[&str] = &[
    "AVG",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "COUNT",
    "GROUP_CONCAT",
    "JSON_ARRAYAGG",
    "JSON_OBJECTAGG",
    "MAX",
    "MIN",
    "STD",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "SUM",
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
];

/// Which kind of argument `e` is (see [`LockArgument`]).
///
/// ```
/// use mdl_sql::{lock_argument, parse, LockArgument, Statement};
/// let arg = |sql: &str| match parse(sql).unwrap().remove(0).statement {
///     Statement::Do(mut e) => lock_argument(&e.remove(0)),
///     _ => unreachable!(),
/// };
/// assert_eq!(arg("DO 'a'"), LockArgument::Constant);
/// assert_eq!(arg("DO CONCAT('m:', @n)"), LockArgument::Evaluated);
/// assert_eq!(arg("DO (SELECT 1)"), LockArgument::RowDependent);
/// ```
pub fn lock_argument(e: &Expr) -> LockArgument {
    struct Rows(bool);
    impl Visitor for Rows {
        type Break = ();
        fn pre_visit_query(&mut self, _: &sqlparser::ast::Query) -> ControlFlow<()> {
            self.0 = true;
            ControlFlow::Break(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            let rows = match e {
                // `@x` and `@@x` are identifiers to sqlparser; MySQL's CURRENT_USER keyword too.
                Expr::Identifier(i) => {
                    !(i.value.starts_with('@')
                        || i.quote_style.is_none() && i.value.eq_ignore_ascii_case("CURRENT_USER"))
                }
                Expr::CompoundIdentifier(parts) => {
                    !parts.first().is_some_and(|p| p.value.starts_with("@@"))
                }
                Expr::Subquery(_) | Expr::Exists { .. } => true, // and `pre_visit_query`
                Expr::Function(f) => {
                    let name = f.name.to_string().to_ascii_uppercase();
                    f.over.is_some()
                        || AGGREGATE_FUNCTIONS.contains(&name.as_str())
                        || UserLockFunction::from_name(&name).is_some()
                }
                _ => false,
            };
            if rows {
                self.0 = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
    }
    if constant(e).is_some() {
        return LockArgument::Constant;
    }
    let mut rows = Rows(false);
    let _ = e.visit(&mut rows);
    match rows.0 {
        true => LockArgument::RowDependent,
        false => LockArgument::Evaluated,
    }
}

/// The arguments of a user-level lock call, if `e` is one (`None` for a subquery argument).
pub fn lock_call_arguments(e: &Expr) -> Option<Vec<&Expr>> {
    let Expr::Function(f) = e else {
        return None;
    };
    UserLockFunction::from_name(&f.name.to_string())?;
    match &f.args {
        FunctionArguments::List(l) => Some(
            (l.args.iter())
                .filter_map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                })
                .collect(),
        ),
        FunctionArguments::None => Some(Vec::new()),
        FunctionArguments::Subquery(_) => None,
    }
}

/// [`lock_call_arguments`], to replace them.
pub fn lock_call_arguments_mut(e: &mut Expr) -> Option<Vec<&mut Expr>> {
    let Expr::Function(f) = e else {
        return None;
    };
    UserLockFunction::from_name(&f.name.to_string())?;
    match &mut f.args {
        FunctionArguments::List(l) => Some(
            (l.args.iter_mut())
                .filter_map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                })
                .collect(),
        ),
        FunctionArguments::None => Some(Vec::new()),
        FunctionArguments::Subquery(_) => None,
    }
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

    /// `Item_func_get_lock::val_int` (item_func.cc) evaluates its arguments as any expression
    /// (`args[0]->val_str`, `args[1]->val_int`): one that reads no row is bound before
    /// planning; a column, subquery, aggregate or window function is not (1235 here).
    #[test]
    fn argument_kinds() {
        use LockArgument as A;
        let arg = |sql: &str| match parse(sql).unwrap().remove(0).statement {
            Statement::Do(mut e) => lock_argument(&e.remove(0)),
            _ => panic!(),
        };
        for (sql, kind) in [
            ("DO 'a'", A::Constant),
            ("DO -(1)", A::Constant),
            ("DO NULL", A::Constant),
            ("DO @n", A::Evaluated),
            ("DO @@session.lock_wait_timeout", A::Evaluated),
            ("DO CONCAT('migrate:', DATABASE())", A::Evaluated),
            ("DO LOWER(CONCAT('a', 'B'))", A::Evaluated),
            ("DO 1 + 1", A::Evaluated),
            ("DO CAST(@t AS SIGNED)", A::Evaluated),
            ("DO CURRENT_USER", A::Evaluated),
            ("DO name", A::RowDependent),
            ("DO t.name", A::RowDependent),
            ("DO CONCAT(name, 'x')", A::RowDependent),
            ("DO (SELECT 'a')", A::RowDependent),
            ("DO EXISTS (SELECT 1)", A::RowDependent),
            ("DO 1 IN (SELECT 1)", A::RowDependent),
            ("DO COUNT(*)", A::RowDependent),
            ("DO ROW_NUMBER() OVER ()", A::RowDependent),
            ("DO IS_FREE_LOCK('a')", A::RowDependent),
        ] {
            assert_eq!(arg(sql), kind, "{sql}");
        }
        let Statement::Do(mut e) = parse("DO GET_LOCK(@n, 1 + 1), SLEEP(1)")
            .unwrap()
            .remove(0)
            .statement
        else {
            panic!()
        };
        assert_eq!(lock_call_arguments(&e[0]).unwrap().len(), 2);
        assert!(lock_call_arguments(&e[1]).is_none());
        *lock_call_arguments_mut(&mut e[0]).unwrap()[0] = Expr::value(Value::Null);
        assert_eq!(e[0].to_string(), "GET_LOCK(NULL, 1 + 1)");
    }
}
