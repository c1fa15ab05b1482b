//! Where a number becomes a string or a decimal, the calls that do it as MySQL does
//! (`functions/number_text.rs`), for the forms SQLite would do with its own rules:
//!
//! * **`CAST(x AS CHAR)`**, `CAST(x AS NCHAR)`, `CAST(x AS BINARY)` (`Item_typecast_char::
//!   val_str`, `sql/item_timefunc.cc`: the argument's `val_str`) are `MYSQL_TEXT(x)`: a
//!   double is MySQL's text of it (`CAST(1e3 AS CHAR)` is `1000`, SQLite's `CAST(1e3 AS
//!   TEXT)` `1000.0`); `CHAR(n)` and `BINARY(n)` cut that text.
//! * **`x LIKE p`** (`Item_func_like::val_int`, `sql/item_cmpfunc.cc`: `x` as a string) is
//!   `MYSQL_TEXT(x) LIKE p` where `x` is not a column or a string (`1e3 LIKE '1000'` is
//!   true): SQLite's LIKE would read `1000.0`. A column stays as it is, so that SQLite may
//!   use an index for it.
//! * **`CAST(x AS DECIMAL(m, d))`** (`Item_typecast_decimal::val_decimal`) is
//!   `MYSQL_DECIMAL(x, m, d)`: the decimal digits rounded half away from zero (`1.555` to
//!   `1.56`, where SQLite's `ROUND` of the double gives `1.55`), clipped to `m` digits;
//!   `DECIMAL` is `DECIMAL(10,0)`, `DECIMAL(m)` `DECIMAL(m,0)` (`cast_type` in
//!   `sql/sql_yacc.yy`).
//!
//! A `DECIMAL` column here (`CAST(d AS CHAR)`, `d LIKE ...`) gets its scale from the column's
//! declaration after this (`rewrite/decimal_strings.rs`). Each form costs only where it is
//! written: a statement without `CAST`, `CONVERT` or `LIKE` (sysbench's) meets none.

use sqlparser::ast::{ExactNumberInfo, Expr, Value};

use super::{call, num};
use crate::functions::{MYSQL_DECIMAL, MYSQL_TEXT};

/// `MYSQL_TEXT(x)`: `x` as MySQL's string of it.
pub(super) fn text(x: Expr) -> Expr {
    call(MYSQL_TEXT, vec![x])
}

/// `MYSQL_DECIMAL(x, m, d)` for `CAST(x AS DECIMAL...)` of `info`.
pub(super) fn decimal(x: Expr, info: &ExactNumberInfo) -> Expr {
    let (m, d) = match info {
        ExactNumberInfo::None => (10, 0),
        ExactNumberInfo::Precision(m) => (*m, 0),
        ExactNumberInfo::PrecisionAndScale(m, d) => (*m, (*d).max(0) as u64),
    };
    call(MYSQL_DECIMAL, vec![x, num(m), num(d)])
}

/// Whether `LIKE`'s operand `x` may be a number, which is then given as MySQL's text.
#[inline(always)]
pub(super) fn like_operand_may_be_number(x: &Expr) -> bool {
    !matches!(
        x,
        Expr::Identifier(_)
            | Expr::CompoundIdentifier(_)
            | Expr::Value(sqlparser::ast::ValueWithSpan {
                value: Value::SingleQuotedString(_),
                ..
            })
    ) && !is_text_call(x)
}

/// `MYSQL_TEXT(...)` already (a visit may see a rewritten `LIKE` again, or a marked argument:
/// `decimal_strings.rs`).
pub(in crate::rewrite) fn is_text_call(x: &Expr) -> bool {
    matches!(x, Expr::Function(f) if matches!(
        f.name.0.as_slice(),
        [sqlparser::ast::ObjectNamePart::Identifier(n)] if n.value == MYSQL_TEXT
    ))
}
