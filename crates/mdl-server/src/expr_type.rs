//! The MySQL type of a select item that is an expression, as MySQL 8.0 makes a column of it:
//! the column of a view (`DESCRIBE`, `SHOW COLUMNS`, `information_schema.COLUMNS`:
//! `view_columns.rs`), the column `CREATE TABLE ... SELECT` creates for it
//! (`execute/create_from.rs`) and a query's result column on the wire (a decimal's scale, a
//! temporal or JSON type: `execute/result_kinds.rs`). SQLite knows the declared type of a column reference only, and
//! none of an expression.
//!
//! MySQL resolves each item to an `Item` with a result class (integer, decimal, double,
//! string, temporal, JSON), a length in characters (`max_length`), a scale (`decimals`) and a
//! sign (`unsigned_flag`); the column is made of those (`create_tmp_field_from_item`,
//! `sql/sql_tmp_table.cc`; the manual's "CREATE TABLE ... SELECT Statement": "the column
//! types of the result"). [`Ty`] keeps the same four facts:
//!
//! * a column reference is its column's declared type, through joins, derived tables and views
//!   ([`Scope`]); a literal is an integer of its digits (`1`: `int`; `bigint` from ten),
//!   a decimal of its digits (`1.5`: `decimal(2,1)`), a double with an exponent, a
//!   `varchar` of its characters (`'abc'`: `varchar(3)`), `NULL` `binary(0)`;
//! * an integer is `int`, or `bigint` from ten characters (`MY_INT32_NUM_DECIMAL_DIGITS - 1`):
//!   `v + 1` of an `INT` `v` (11 characters: its sign and 10 digits) is 12 characters, a
//!   `bigint`, `1 + 1` an `int`; an aggregate's integer is always a `bigint` (`COUNT`);
//! * arithmetic follows the manual's "Arithmetic Operators" and "Type Conversion in Expression
//!   Evaluation" (`numeric.rs`): integers give integers, a decimal a decimal whose precision
//!   holds the result (`DECIMAL(10,2) + 1`: `decimal(11,2)`), a double or a string a double;
//!   `/` a decimal of 4 (`div_precision_increment`) more digits (`v / 2`: `decimal(14,4)`;
//!   also as the rewrite spells it, `CAST(v AS REAL) / 2`, for `rewrite/runtime_type.rs`); a
//!   double keeps fixed decimals while its operands have them (`PI()`: `double(8,6)`, 6
//!   decimals; `PI() + 1` too);
//!   `DIV` an integer; `SUM` of an integer or decimal 22 more digits (`decimal(32,0)`), `AVG`
//!   4 more digits and scale (`decimal(14,4)`);
//! * comparisons and logic are `int` (`Item_bool_func`: one character); bit operations
//!   `bigint unsigned`;
//! * a string function is as long as what it can return (`string.rs`: `CONCAT` the sum of its
//!   arguments' lengths, a number counting its characters); a string up to 512 characters is
//!   a `varchar`, a longer one the `text` type its bytes of `utf8mb4` need (`text`,
//!   `mediumtext`, `longtext`; `blob`s for binary strings);
//! * `IF`, `IFNULL`, `COALESCE`, `CASE`, `GREATEST`, `LEAST` merge their values' types
//!   ([`numeric::merge`]); `CAST` is its target type; date and time functions are `date`,
//!   `datetime`, `time` or a string (`temporal.rs`); JSON functions `json`.
//!
//! An expression this does not know (a function not listed, a subquery, a user variable) has
//! no type, as before: SQLite's column without one, shown `blob`. That keeps `CREATE TABLE ...
//! SELECT`'s values as the select computed them (a column without a type has no affinity),
//! where a guessed `longtext` would turn a number into text.
//!
//! Differs: this server's strings are all `utf8mb4` (4 bytes a character), and
//! `div_precision_increment` and `group_concat_max_len` have their defaults (4, 1,024). A
//! `UNION` column is typed by its first branch (MySQL merges the branches' types).

mod functions;
mod numeric;
mod string;
mod temporal;
mod ty;

#[cfg(test)]
mod tests;

use sqlparser::ast::{BinaryOperator as B, DataType, Expr, UnaryOperator, Value};

pub(crate) use ty::{from_declared, Class, Ty, NOT_FIXED_DEC};

/// Where a select's column references point.
pub(crate) trait Scope {
    /// The declared type of column `column` (of table `qualifier`): `None` if there is none,
    /// or the name is ambiguous or unknown.
    fn column(&self, qualifier: Option<&str>, column: &str) -> Option<String>;
}

/// The MySQL column type (`COLUMN_TYPE`) of select item `e`; `None` if not known.
pub(crate) fn column_type(e: &Expr, scope: &dyn Scope) -> Option<String> {
    infer(e, scope).map(|t| t.column_type())
}

/// The type of expression `e` (see the module docs); `None` if not known.
pub(crate) fn infer(e: &Expr, scope: &dyn Scope) -> Option<Ty> {
    let bool_ty = || Some(Ty::int(1));
    match e {
        Expr::Identifier(i) => from_declared(&scope.column(None, &i.value)?),
        Expr::CompoundIdentifier(p) => match p.as_slice() {
            [.., t, c] => from_declared(&scope.column(Some(&t.value), &c.value)?),
            [c] => from_declared(&scope.column(None, &c.value)?),
            [] => None,
        },
        Expr::Nested(x) | Expr::Collate { expr: x, .. } => infer(x, scope),
        Expr::Value(v) => value(&v.value),
        Expr::Prefixed { prefix, value } => {
            let t = infer(value, scope)?;
            if prefix.value.eq_ignore_ascii_case("_binary") {
                Some(Ty::new(Class::Binary, t.chars))
            } else {
                Some(t)
            }
        }
        Expr::TypedString(t) => cast(&t.data_type, &Ty::string(0)),
        Expr::UnaryOp { op, expr } => match op {
            UnaryOperator::Minus => Some(numeric::negate(&infer(expr, scope)?)),
            UnaryOperator::Plus => infer(expr, scope),
            UnaryOperator::Not | UnaryOperator::BangNot => bool_ty(),
            UnaryOperator::BitwiseNot => Some(Ty::uint(21)),
            _ => None,
        },
        Expr::BinaryOp { left, op, right } => binary(left, op, right, scope),
        Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsTrue(_)
        | Expr::IsNotTrue(_)
        | Expr::IsFalse(_)
        | Expr::IsNotFalse(_)
        | Expr::IsUnknown(_)
        | Expr::IsNotUnknown(_)
        | Expr::IsDistinctFrom(..)
        | Expr::IsNotDistinctFrom(..)
        | Expr::Between { .. }
        | Expr::In { .. }
        | Expr::Like { .. }
        | Expr::ILike { .. }
        | Expr::RLike { .. }
        | Expr::SimilarTo { .. }
        | Expr::Exists { .. }
        | Expr::MemberOf(_) => bool_ty(),
        Expr::Cast {
            expr, data_type, ..
        } => cast(data_type, &infer(expr, scope)?),
        Expr::Convert {
            expr,
            data_type,
            charset,
            ..
        } => {
            let arg = infer(expr, scope)?;
            match (data_type, charset) {
                (Some(t), _) => cast(t, &arg),
                (None, Some(cs)) if cs.to_string().eq_ignore_ascii_case("binary") => {
                    Some(Ty::new(Class::Binary, arg.chars.saturating_mul(4)))
                }
                (None, Some(_)) => Some(Ty::string(arg.chars)),
                (None, None) => None,
            }
        }
        Expr::Extract { field, .. } => Some(temporal::extract(&field.to_string().to_uppercase())),
        Expr::Ceil { expr, .. } | Expr::Floor { expr, .. } => {
            Some(numeric::int_val(&infer(expr, scope)?))
        }
        Expr::Position { .. } => Some(Ty::int(11)),
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            let pos = substring_from.as_deref().and_then(lit_int);
            let len = substring_for.as_deref().map(lit_int);
            Some(string::substring(&infer(expr, scope)?, pos, len))
        }
        Expr::Trim { expr, .. } => Some(string::same(&infer(expr, scope)?)),
        Expr::Case {
            conditions,
            else_result,
            ..
        } => {
            let mut results = (conditions.iter())
                .map(|w| infer(&w.result, scope))
                .collect::<Option<Vec<Ty>>>()?;
            match else_result {
                Some(e) => results.push(infer(e, scope)?),
                None => results.push(Ty::new(Class::Null, 0)),
            }
            numeric::merge(&results)
        }
        Expr::Function(f) => functions::call(f, scope),
        _ => None,
    }
}

/// `a` of the rewrite's `CAST(a AS REAL) / b`, MySQL's `a / b` (`rewrite/expr.rs`), whose
/// operator is spelt as no parsed one is.
pub(crate) fn divided(left: &Expr) -> Option<&Expr> {
    match left {
        Expr::Cast {
            kind: sqlparser::ast::CastKind::Cast,
            expr,
            data_type: DataType::Real,
            format: None,
            ..
        } => Some(expr),
        _ => None,
    }
}

/// A literal's type (see the module docs).
fn value(v: &Value) -> Option<Ty> {
    match v {
        Value::Number(n, _) => numeric::literal(n),
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
            Some(Ty::string(s.chars().count() as u64))
        }
        Value::HexStringLiteral(h) => Some(Ty::new(Class::Binary, h.len().div_ceil(2) as u64)),
        Value::Boolean(_) => Some(Ty::int(1)),
        Value::Null => Some(Ty::new(Class::Null, 0)),
        _ => None,
    }
}

/// `left op right` (see the module docs).
fn binary(left: &Expr, op: &B, right: &Expr, scope: &dyn Scope) -> Option<Ty> {
    // `d + INTERVAL n unit`, `INTERVAL n unit + d`, `d - INTERVAL n unit`.
    let interval = |d: &Expr, i: &sqlparser::ast::Interval| {
        let unit = i
            .leading_field
            .as_ref()
            .map(|u| u.to_string().to_uppercase());
        Some(temporal::add_interval(&infer(d, scope)?, unit.as_deref()))
    };
    match (left, op, right) {
        (d, B::Plus | B::Minus, Expr::Interval(i)) | (Expr::Interval(i), B::Plus, d) => {
            return interval(d, i)
        }
        _ => {}
    }
    let both = || Some((infer(left, scope)?, infer(right, scope)?));
    match op {
        B::Plus | B::Minus => both().map(|(a, b)| numeric::additive(&a, &b)),
        B::Multiply => both().map(|(a, b)| numeric::multiply(&a, &b)),
        B::Divide => both().map(|(a, b)| numeric::divide(&a, &b)),
        B::Modulo => both().map(|(a, b)| numeric::modulo(&a, &b)),
        B::MyIntegerDivide => both().map(|(a, b)| numeric::int_divide(&a, &b)),
        // The rewrite's `a / b` (`rewrite/expr.rs`).
        B::Custom(o) if o == "/" => {
            let a = infer(divided(left)?, scope)?;
            Some(numeric::divide(&a, &infer(right, scope)?))
        }
        B::Eq
        | B::NotEq
        | B::Lt
        | B::LtEq
        | B::Gt
        | B::GtEq
        | B::Spaceship
        | B::And
        | B::Or
        | B::Xor
        | B::Regexp => Some(Ty::int(1)),
        B::BitwiseOr
        | B::BitwiseAnd
        | B::BitwiseXor
        | B::PGBitwiseShiftLeft
        | B::PGBitwiseShiftRight => Some(Ty::uint(21)),
        // `->` is `JSON_EXTRACT`, `->>` `JSON_UNQUOTE(JSON_EXTRACT(...))`.
        B::Arrow => Some(Ty::json()),
        B::LongArrow => Some(Ty::string(ty::MAX_CHARS)),
        _ => None,
    }
}

/// `CAST(arg AS t)`, `CONVERT(arg, t)` (`Item_typecast_*::resolve_type`, `sql/item_func.cc`,
/// `sql/item_timefunc.cc`): an integer as long as `arg` (at most 21 characters), a string of
/// `n` characters (else `arg`'s), a decimal of its precision and scale (`DECIMAL(10,0)` by
/// default), a temporal type of its fractional seconds, a double, `float` up to precision 24,
/// `json`.
fn cast(t: &DataType, arg: &Ty) -> Option<Ty> {
    use sqlparser::ast::{CharacterLength, ExactNumberInfo as N};
    let int_len = arg.chars.clamp(1, 21);
    let fsp = |p: &Option<u64>| u32::try_from(p.unwrap_or(0)).ok().filter(|p| *p <= 6);
    Some(match t {
        DataType::Signed | DataType::SignedInteger => Ty::int(int_len),
        DataType::Unsigned | DataType::UnsignedInteger => Ty::uint(int_len),
        DataType::Char(len) | DataType::Character(len) => match len {
            Some(CharacterLength::IntegerLength { length, .. }) => Ty::string(*length),
            Some(CharacterLength::Max) => return None,
            None => Ty::string(arg.chars),
        },
        DataType::Binary(len) => {
            let bytes = match arg.class {
                Class::Binary => arg.chars,
                _ => arg.chars.saturating_mul(4),
            };
            Ty::new(Class::Binary, len.unwrap_or(bytes))
        }
        DataType::Decimal(info) | DataType::Dec(info) | DataType::Numeric(info) => {
            let (p, s) = match info {
                N::None => (10, 0),
                N::Precision(p) => (*p, 0),
                N::PrecisionAndScale(p, s) => (*p, u32::try_from(*s).ok()?),
            };
            Ty::decimal(p.min(ty::MAX_PRECISION), s.min(ty::MAX_SCALE), false)
        }
        DataType::Date => Ty::temporal(Class::Date, 0),
        DataType::Datetime(p) | DataType::Timestamp(p, _) => Ty::temporal(Class::Datetime, fsp(p)?),
        DataType::Time(p, _) => Ty::temporal(Class::Time, fsp(p)?),
        DataType::JSON => Ty::json(),
        DataType::Double(_) | DataType::DoublePrecision | DataType::Real => Ty::double(),
        DataType::Float(info) => match info {
            N::Precision(p) | N::PrecisionAndScale(p, _) if *p > 24 => Ty::double(),
            _ => Ty::new(Class::Float, 12),
        },
        DataType::Custom(name, mods) if mods.is_empty() => {
            match name.to_string().to_ascii_uppercase().as_str() {
                "YEAR" => Ty::temporal(Class::Year, 0),
                "NCHAR" => Ty::string(arg.chars),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// An integer literal (`3`, `-3`): `SUBSTRING`'s, `LEFT`'s, `ROUND`'s lengths.
fn lit_int(e: &Expr) -> Option<i64> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => lit_int(expr).map(|n| n.saturating_neg()),
        Expr::Nested(x) => lit_int(x),
        _ => None,
    }
}

/// A string literal (`DATE_FORMAT`'s format).
fn lit_str(e: &Expr) -> Option<&str> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}
