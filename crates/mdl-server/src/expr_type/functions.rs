//! Function calls' types by name: aggregates (`sql/item_sum.cc`), control flow
//! (`sql/item_cmpfunc.cc`), numbers (`sql/item_func.cc`), strings (`sql/item_strfunc.cc`),
//! dates and times (`sql/item_timefunc.cc`), JSON (`sql/item_json_func.cc`).
//!
//! An integer function MySQL gives no length of its own is `Item_int_func`'s 21 characters
//! (`bigint`); a boolean one (`JSON_VALID`, `JSON_CONTAINS`) is `Item_bool_func`'s one
//! (`int`).

use sqlparser::ast::{Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments};

use super::numeric::{self, merge};
use super::string as s;
use super::temporal as t;
use super::ty::{Class, Ty, MAX_CHARS};
use super::{infer, lit_int, lit_str, Scope};

/// `group_concat_max_len`'s default: this server has no such variable. `GROUP_CONCAT` is as
/// long as it (`Item_func_group_concat::resolve_type`: bytes of `utf8mb4`, so 1,024
/// characters), a `text` column (`make_string_field`: past 512 characters).
const GROUP_CONCAT_MAX_LEN: u64 = 1024;

/// The unnamed arguments of `f` (`None` for a call with `*`, `COUNT(*)`).
fn arguments(f: &Function) -> Option<Vec<&Expr>> {
    match &f.args {
        FunctionArguments::None => Some(Vec::new()),
        FunctionArguments::Subquery(_) => None,
        FunctionArguments::List(l) => (l.args.iter())
            .map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect(),
    }
}

/// The type of call `f` (see the module docs); `None` for a function this does not know.
pub(super) fn call(f: &Function, scope: &dyn Scope) -> Option<Ty> {
    let [name] = f.name.0.as_slice() else {
        return None;
    };
    let name = name.as_ident()?.value.to_ascii_uppercase();
    if name == "COUNT" {
        return Some(Ty::int(21));
    }
    let args = arguments(f)?;
    let ty = |i: usize| args.get(i).and_then(|a| infer(a, scope));
    let all = || {
        args.iter()
            .map(|a| infer(a, scope))
            .collect::<Option<Vec<Ty>>>()
    };
    let int_arg = |i: usize| args.get(i).and_then(|a| lit_int(a));
    let aggregate = |t: Ty| Ty {
        wide_int: true,
        ..t.computed()
    };
    Some(match name.as_str() {
        // Aggregates and window functions.
        "SUM" => aggregate(numeric::sum(&ty(0)?)),
        "AVG" => aggregate(numeric::avg(&ty(0)?)),
        // Of a column, the column's type (`Item_sum_hybrid::create_tmp_field`).
        "MIN" | "MAX" => match args.first() {
            Some(Expr::Identifier(_) | Expr::CompoundIdentifier(_)) => ty(0)?,
            _ => aggregate(ty(0)?),
        },
        "BIT_AND" | "BIT_OR" | "BIT_XOR" => Ty::uint(21),
        "STD" | "STDDEV" | "STDDEV_POP" | "STDDEV_SAMP" | "VARIANCE" | "VAR_POP" | "VAR_SAMP"
        | "PERCENT_RANK" | "CUME_DIST" => Ty::double(),
        "GROUP_CONCAT" => {
            let binary = all()?.iter().any(|t| t.class == Class::Binary);
            let class = if binary { Class::Binary } else { Class::Str };
            Ty::new(class, GROUP_CONCAT_MAX_LEN)
        }
        "JSON_ARRAYAGG" | "JSON_OBJECTAGG" => Ty::json(),
        // `Item_row_number`, `Item_rank`, `Item_ntile`: unsigned `longlong`s.
        "ROW_NUMBER" | "RANK" | "DENSE_RANK" | "NTILE" => Ty::uint(21),
        "LAG" | "LEAD" | "FIRST_VALUE" | "LAST_VALUE" | "NTH_VALUE" => ty(0)?.computed(),
        // Control flow: the arguments' merged type.
        "IF" => merge(&[ty(1)?, ty(2)?])?,
        "IFNULL" | "COALESCE" | "GREATEST" | "LEAST" => merge(&all()?)?,
        "NULLIF" => ty(0)?.computed(),
        // Numbers.
        "ABS" => numeric::abs(&ty(0)?),
        "CEIL" | "CEILING" | "FLOOR" => numeric::int_val(&ty(0)?),
        "ROUND" => numeric::round(&ty(0)?, round_digits(&args)?, false),
        "TRUNCATE" => numeric::round(&ty(0)?, round_digits(&args)?, true),
        "MOD" => numeric::modulo(&ty(0)?, &ty(1)?),
        "SQRT" | "POW" | "POWER" | "EXP" | "LN" | "LOG" | "LOG2" | "LOG10" | "SIN" | "COS"
        | "TAN" | "ASIN" | "ACOS" | "ATAN" | "ATAN2" | "COT" | "RAND" | "DEGREES" | "RADIANS" => {
            Ty::double()
        }
        // `Item_func_pi` (`sql/item.h`): an `Item_float` of `M_PI` with 6 decimals, 8
        // characters, shown `3.141593` (its value keeps every digit).
        "PI" => Ty {
            decimals: 6,
            ..Ty::new(Class::Real, 8)
        },
        "SIGN" => Ty::int(2),
        // The rewrite's `CAST(x AS DECIMAL(m, d))` (`rewrite/expr/numbers.rs`).
        "MYSQL_DECIMAL" => {
            let (m, d) = (
                u64::try_from(int_arg(1)?).ok()?,
                u32::try_from(int_arg(2)?).ok()?,
            );
            Ty::decimal(
                m.min(super::ty::MAX_PRECISION),
                d.min(super::ty::MAX_SCALE),
                false,
            )
        }
        "CRC32" => Ty::uint(10),
        "LAST_INSERT_ID" => Ty::uint(21),
        // Strings.
        "CONCAT" => s::concat(&all()?),
        "CONCAT_WS" => s::concat_ws(&all()?)?,
        "UPPER" | "UCASE" | "LOWER" | "LCASE" | "REVERSE" | "LTRIM" | "RTRIM" | "TRIM"
        | "SUBSTRING_INDEX" => s::same(&ty(0)?),
        "SUBSTRING" | "SUBSTR" | "MID" => {
            let len = (args.len() > 2).then(|| int_arg(2));
            s::substring(&ty(0)?, int_arg(1), len)
        }
        "LEFT" | "RIGHT" => s::left_right(&ty(0)?, int_arg(1)),
        "REPLACE" => s::replace(&ty(0)?, &ty(1)?, &ty(2)?),
        "LPAD" | "RPAD" => s::pad(&all()?, int_arg(1)),
        "REPEAT" => s::repeat(&ty(0)?, int_arg(1)),
        "SPACE" => Ty::string(int_arg(0).map_or(MAX_CHARS, |n| n.max(0).unsigned_abs())),
        "INSERT" => s::insert(&ty(0)?, &ty(3)?),
        "QUOTE" => Ty::string(ty(0)?.chars.saturating_mul(2).saturating_add(2)),
        "MD5" => Ty::string(32),
        "SHA" | "SHA1" => Ty::string(40),
        "SHA2" => Ty::string(128),
        "STATEMENT_DIGEST" => Ty::string(16),
        "STATEMENT_DIGEST_TEXT" => Ty::string(MAX_CHARS),
        "UUID" => Ty::string(36),
        "LENGTH" | "CHAR_LENGTH" | "CHARACTER_LENGTH" | "OCTET_LENGTH" | "BIT_LENGTH" => {
            Ty::int(10)
        }
        "LOCATE" | "INSTR" => Ty::int(11),
        "ASCII" | "FIELD" | "FIND_IN_SET" => Ty::int(3),
        "STRCMP" => Ty::int(2),
        "ORD" => Ty::int(21),
        // Dates and times.
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE"
        | "UTC_TIMESTAMP" => Ty::temporal(Class::Datetime, t::fsp_arg(int_arg(0))),
        "CURDATE" | "CURRENT_DATE" | "UTC_DATE" | "DATE" | "LAST_DAY" | "MAKEDATE"
        | "FROM_DAYS" => Ty::temporal(Class::Date, 0),
        "CURTIME" | "CURRENT_TIME" | "UTC_TIME" => {
            Ty::temporal(Class::Time, t::fsp_arg(int_arg(0)))
        }
        "TIME" | "TIMESTAMP" | "CONVERT_TZ" => {
            let arg = ty(0)?;
            let fsp = if arg.is_temporal() { arg.decimals } else { 0 };
            let class = if name == "TIME" {
                Class::Time
            } else {
                Class::Datetime
            };
            Ty::temporal(class, fsp)
        }
        "SEC_TO_TIME" | "MAKETIME" => Ty::temporal(Class::Time, 0),
        "FROM_UNIXTIME" if args.len() == 1 && ty(0)?.numeric() == Class::Int => {
            Ty::temporal(Class::Datetime, 0)
        }
        "UNIX_TIMESTAMP" if args.is_empty() || ty(0)?.numeric() == Class::Int => Ty::int(11),
        "YEAR" => Ty::int(4),
        "MONTH" | "DAY" | "DAYOFMONTH" | "HOUR" | "MINUTE" | "SECOND" | "QUARTER" | "WEEK"
        | "DAYOFWEEK" | "WEEKDAY" | "WEEKOFYEAR" => Ty::int(2),
        "DAYOFYEAR" => Ty::int(3),
        "MICROSECOND" | "YEARWEEK" | "TO_DAYS" => Ty::int(6),
        "TIME_TO_SEC" => Ty::int(10),
        // `EXTRACT(HOUR_MINUTE FROM d)` as `mdl-sql` respells it: `EXTRACT('HOUR_MINUTE', d)`.
        "EXTRACT" => t::extract(&lit_str(args.first()?)?.to_ascii_uppercase()),
        "DATEDIFF" | "TIMESTAMPDIFF" => Ty::int(21),
        // `Item_func_dayname`, `Item_func_monthname`: the locale's longest name (`en_US`'s
        // "Wednesday", "September").
        "DAYNAME" | "MONTHNAME" => Ty::string(9),
        "DATE_FORMAT" | "TIME_FORMAT" => {
            let fmt = args.get(1).and_then(|a| lit_str(a));
            t::date_format(fmt, &ty(1)?)
        }
        "DATE_ADD" | "ADDDATE" | "DATE_SUB" | "SUBDATE" => match args.get(1) {
            Some(Expr::Interval(i)) => {
                let unit = i
                    .leading_field
                    .as_ref()
                    .map(|u| u.to_string().to_uppercase());
                t::add_interval(&ty(0)?, unit.as_deref())
            }
            // `ADDDATE(d, n)`: `n` days.
            Some(_) => t::add_interval(&ty(0)?, Some("DAY")),
            None => return None,
        },
        "STR_TO_DATE" => t::str_to_date(args.get(1).and_then(|a| lit_str(a))?),
        // JSON.
        "JSON_ARRAY"
        | "JSON_OBJECT"
        | "JSON_EXTRACT"
        | "JSON_SET"
        | "JSON_INSERT"
        | "JSON_REPLACE"
        | "JSON_REMOVE"
        | "JSON_MERGE"
        | "JSON_MERGE_PATCH"
        | "JSON_MERGE_PRESERVE"
        | "JSON_ARRAY_APPEND"
        | "JSON_ARRAY_INSERT"
        | "JSON_KEYS"
        | "JSON_SEARCH" => Ty::json(),
        "JSON_UNQUOTE" | "JSON_PRETTY" => Ty::string(MAX_CHARS),
        "JSON_VALID" | "JSON_CONTAINS" | "JSON_CONTAINS_PATH" | "JSON_OVERLAPS" => Ty::int(1),
        "JSON_LENGTH" | "JSON_DEPTH" => Ty::int(21),
        _ => return None,
    })
}

/// `ROUND(a, d)`'s `d`: `Some(None)` without one, `None` if it is not a literal.
fn round_digits(args: &[&Expr]) -> Option<Option<i64>> {
    match args.get(1) {
        None => Some(None),
        Some(d) => lit_int(d).map(Some),
    }
}
