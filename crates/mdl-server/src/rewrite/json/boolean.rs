//! Which expressions MySQL 8.0 takes as a JSON boolean where a JSON function reads a value.
//!
//! MySQL's rule (`extract_boolean`, called by `get_json_atom_wrapper` in
//! `sql/item_json_func.cc`): an argument is JSON `true` / `false` when `is_bool_func()` holds of
//! it (`Item_bool_func` and its kin in `sql/item_cmpfunc.h`: the comparisons, `<=>`, `AND`,
//! `OR`, `XOR`, `NOT`, `IS [NOT] NULL`, `IS [NOT] TRUE | FALSE | UNKNOWN`, `ISNULL()`, `LIKE`,
//! `[NOT] IN`, `[NOT] BETWEEN`, `MEMBER OF`), when it is an `EXISTS`, `IN`, `ALL` or `ANY`
//! subquery, or when it is the literal `TRUE` or `FALSE`. Anything else, `1`, an integer
//! column, `IF(...)`, `REGEXP` (`Item_func_regexp_like` is no `Item_bool_func`) stays a number.
//! Parentheses do not count: MySQL's parser keeps no item for them.
//!
//! The expression seen here is the rewrite's (after `expr.rs`): `a XOR b` is a comparison
//! there, `a <=> b` an `IS NOT DISTINCT FROM`, `MEMBER OF` a call of `JSON_MEMBER_OF`,
//! `ISNULL(x)` one of `MYSQL_ISNULL`; each is still a boolean.

use sqlparser::ast::{BinaryOperator as Op, Expr, ObjectNamePart, UnaryOperator, Value};

/// Whether MySQL's JSON functions take `e` as JSON `true` / `false` (see the module docs).
pub(super) fn is_boolean(e: &Expr) -> bool {
    match e {
        Expr::Nested(inner) => is_boolean(inner),
        Expr::Value(v) => matches!(v.value, Value::Boolean(_)),
        Expr::BinaryOp { op, .. } => matches!(
            op,
            Op::Eq
                | Op::NotEq
                | Op::Lt
                | Op::LtEq
                | Op::Gt
                | Op::GtEq
                | Op::Spaceship
                | Op::And
                | Op::Or
                | Op::Xor
        ),
        Expr::UnaryOp { op, .. } => matches!(op, UnaryOperator::Not | UnaryOperator::BangNot),
        Expr::IsFalse(_)
        | Expr::IsNotFalse(_)
        | Expr::IsTrue(_)
        | Expr::IsNotTrue(_)
        | Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsUnknown(_)
        | Expr::IsNotUnknown(_)
        | Expr::IsDistinctFrom(..)
        | Expr::IsNotDistinctFrom(..)
        | Expr::In { .. }
        | Expr::Between { .. }
        | Expr::Like { .. }
        | Expr::AnyOp { .. }
        | Expr::AllOp { .. }
        | Expr::Exists { .. }
        | Expr::MemberOf(_) => true,
        Expr::Function(f) => match f.name.0.as_slice() {
            [ObjectNamePart::Identifier(n)] => ["JSON_MEMBER_OF", "MYSQL_ISNULL", "ISNULL"]
                .iter()
                .any(|b| n.value.eq_ignore_ascii_case(b)),
            _ => false,
        },
        _ => false,
    }
}
