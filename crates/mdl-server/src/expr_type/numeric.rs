//! Arithmetic and the merge of several types into one (`IF`, `CASE`, `COALESCE`, ...), as
//! MySQL's `sql/item_func.cc` and `sql/item_cmpfunc.cc` resolve them, and the manual's
//! "Arithmetic Operators": `+`, `-` and `*` of integers are integers, of decimals decimals
//! whose precision holds the result, of a double (or a string, converted to one) doubles; `/`
//! is a decimal with `div_precision_increment` (4) more digits; `DIV` an integer.

use super::ty::{precision_to_length, Class, Ty, MAX_PRECISION, MAX_SCALE, NOT_FIXED_DEC};

/// `div_precision_increment`'s default (this server has no such variable).
pub(crate) const DIV_PRECISION_INCREMENT: u32 = 4;

/// The class of an operator of `a` and `b` (`Item_num_op::set_numeric_type`): a double if
/// either is one (a string is), else a decimal if either is one, else an integer.
fn class_of(a: &Ty, b: &Ty) -> Class {
    match (a.numeric(), b.numeric()) {
        (Class::Real, _) | (_, Class::Real) => Class::Real,
        (Class::Decimal, _) | (_, Class::Decimal) => Class::Decimal,
        _ => Class::Int,
    }
}

/// `DBL_DIG`: a double's decimal digits.
const DBL_DIG: u64 = 15;

/// `decimals` where a double keeps a fixed count of them (`PI()`'s 6, an integer's 0, a
/// decimal's scale); `None` for `NOT_FIXED_DEC` (a double literal or column, a string).
fn fixed_decimals(t: &Ty) -> Option<u32> {
    let number = matches!(
        t.class,
        Class::Int | Class::Decimal | Class::Real | Class::Float
    );
    (number && t.decimals < NOT_FIXED_DEC).then_some(t.decimals)
}

/// A double of `decimals` (`NOT_FIXED_DEC` when `None`), `float_length` characters
/// (`sql/item.h`).
fn real(decimals: Option<u32>) -> Ty {
    match decimals {
        Some(d) => Ty {
            decimals: d,
            ..Ty::new(Class::Real, DBL_DIG + 2 + u64::from(d))
        },
        None => Ty::double(),
    }
}

/// The double of an operation of `a` and `b` (`Item::aggregate_float_properties`,
/// `sql/item.cc`): the larger `decimals` while both are fixed (`PI() + 1` has 6, and is
/// shown with them), else `NOT_FIXED_DEC`.
fn real_of(a: &Ty, b: &Ty) -> Ty {
    real(
        fixed_decimals(a)
            .zip(fixed_decimals(b))
            .map(|(x, y)| x.max(y)),
    )
}

/// A number of class `class` of `precision` digits, `scale` of them after the point.
fn number(class: Class, precision: u64, scale: u32, unsigned: bool) -> Ty {
    match class {
        Class::Real => Ty::double(),
        Class::Int => Ty {
            unsigned,
            ..Ty::int(precision_to_length(precision, 0, unsigned))
        },
        _ => Ty::decimal(precision, scale.min(MAX_SCALE), unsigned),
    }
}

/// Integer operations keep `unsigned_flag` if one of the arguments has it, decimal ones if
/// both have it (`result_precision`).
fn unsigned_of(class: &Class, a: &Ty, b: &Ty) -> bool {
    if *class == Class::Int {
        a.unsigned || b.unsigned
    } else {
        a.unsigned && b.unsigned
    }
}

/// `a + b`, `a - b` (`Item_func_additive_op::result_precision`): the larger integer part, one
/// digit more, the larger scale.
pub(crate) fn additive(a: &Ty, b: &Ty) -> Ty {
    let class = class_of(a, b);
    if class == Class::Real {
        return real_of(a, b);
    }
    let scale = a.scale().max(b.scale());
    let precision = a.int_part().max(b.int_part()) + 1 + u64::from(scale);
    let unsigned = unsigned_of(&class, a, b);
    number(class, precision, scale, unsigned)
}

/// `a * b` (`Item_func_mul::result_precision`): the digits and the scales added.
pub(crate) fn multiply(a: &Ty, b: &Ty) -> Ty {
    let class = class_of(a, b);
    if class == Class::Real {
        return real_of(a, b);
    }
    let scale = (a.scale() + b.scale()).min(MAX_SCALE);
    let precision = (a.precision() + b.precision()).min(MAX_PRECISION);
    let unsigned = unsigned_of(&class, a, b);
    number(class, precision, scale, unsigned)
}

/// `a / b` (`Item_func_div::resolve_type`, `result_precision`): a double if either is one
/// (of `div_precision_increment` more fixed decimals: `PI() / 2` has 10), else a decimal of the dividend's precision, the divisor's scale and
/// `div_precision_increment` more digits, the dividend's scale plus the increment.
pub(crate) fn divide(a: &Ty, b: &Ty) -> Ty {
    if class_of(a, b) == Class::Real {
        let d = fixed_decimals(a).zip(fixed_decimals(b));
        let d = d.map(|(x, y)| x.max(y) + DIV_PRECISION_INCREMENT);
        let Some(d) = d.filter(|d| *d < NOT_FIXED_DEC) else {
            return Ty::double();
        };
        let chars = (a.chars + u64::from(d)).saturating_sub(u64::from(a.decimals));
        return Ty {
            chars: chars.min(DBL_DIG + 2 + u64::from(d)),
            ..real(Some(d))
        };
    }
    let precision = (a.precision() + u64::from(b.scale()) + u64::from(DIV_PRECISION_INCREMENT))
        .min(MAX_PRECISION);
    let scale = (a.scale() + DIV_PRECISION_INCREMENT).min(MAX_SCALE);
    number(Class::Decimal, precision, scale, a.unsigned && b.unsigned)
}

/// `a % b`, `MOD(a, b)` (`Item_func_mod::result_precision`): the longer argument's length, the
/// larger scale, the dividend's sign.
pub(crate) fn modulo(a: &Ty, b: &Ty) -> Ty {
    let class = class_of(a, b);
    if class == Class::Real {
        return Ty::double();
    }
    let mut chars = a.chars.max(b.chars);
    if !a.unsigned && b.unsigned && a.chars <= b.chars {
        chars += 1;
    }
    Ty {
        decimals: if class == Class::Int {
            0
        } else {
            a.scale().max(b.scale())
        },
        unsigned: a.unsigned,
        ..Ty::new(class, chars)
    }
}

/// `a DIV b` (`Item_func_int_div::resolve_type`): an integer as long as the dividend's integer
/// part, at most `MY_INT64_NUM_DECIMAL_DIGITS` (21).
pub(crate) fn int_divide(a: &Ty, b: &Ty) -> Ty {
    let frac = match a.numeric() {
        Class::Int | Class::Decimal if a.decimals > 0 => u64::from(a.decimals) + 1,
        _ => 0,
    };
    Ty {
        unsigned: a.unsigned || b.unsigned,
        ..Ty::int(a.chars.saturating_sub(frac).min(21))
    }
}

/// `-a` (`Item_func_neg`): signed, a character longer if `a` was unsigned.
pub(crate) fn negate(a: &Ty) -> Ty {
    match a.numeric() {
        Class::Real => real(fixed_decimals(a)),
        class => Ty {
            decimals: a.scale(),
            ..Ty::new(class, a.chars + u64::from(a.unsigned))
        },
    }
}

/// `ABS(a)` (`Item_func_abs`): `a`'s type as a number.
pub(crate) fn abs(a: &Ty) -> Ty {
    match a.numeric() {
        Class::Real => real(fixed_decimals(a)),
        class => Ty {
            decimals: a.scale(),
            unsigned: a.unsigned,
            ..Ty::new(class, a.chars)
        },
    }
}

/// `CEILING(a)`, `FLOOR(a)` (`Item_func_int_val::resolve_type`): an integer of an integer, a
/// decimal's integer part (a decimal if that is 20 digits or more), a double's double.
pub(crate) fn int_val(a: &Ty) -> Ty {
    match a.numeric() {
        Class::Real => Ty::double(),
        Class::Int => Ty {
            unsigned: a.unsigned,
            ..Ty::int(a.chars)
        },
        _ => {
            let frac = if a.decimals > 0 {
                u64::from(a.decimals) + 1
            } else {
                0
            };
            let chars = (a.chars.saturating_sub(frac) + 2).min(23);
            if a.chars.saturating_sub(u64::from(a.decimals)) >= 20 {
                Ty::new(Class::Decimal, chars)
            } else {
                Ty {
                    unsigned: a.unsigned,
                    ..Ty::int(chars)
                }
            }
        }
    }
}

/// `ROUND(a[, d])`, `TRUNCATE(a, d)` with a literal `d` (`Item_func_round::resolve_type`):
/// an integer stays one; a decimal gets scale `d` and its integer part (one digit more when
/// rounding may carry); a double stays one. `None`: `d` is not a literal.
pub(crate) fn round(a: &Ty, d: Option<i64>, truncate: bool) -> Ty {
    let d = d.unwrap_or(0);
    match a.numeric() {
        // `Item_func_round::resolve_type`: a double keeps the constant's decimals (0 for
        // none or fewer), written with them (`ROUND(PI(), 2)` is `3.14`).
        Class::Real => real(Some(
            u32::try_from(d.clamp(0, i64::from(MAX_SCALE))).unwrap_or(0),
        )),
        Class::Int if d >= 0 || a.precision() < 20 => Ty {
            unsigned: a.unsigned,
            ..Ty::int(a.chars + u64::from(!truncate && d < 0 && !a.unsigned))
        },
        _ => {
            let to = u32::try_from(d.clamp(0, i64::from(MAX_SCALE))).unwrap_or(0);
            let delta = i64::from(a.scale()) - i64::from(to);
            let increase = i64::from(delta > 0 && !truncate);
            let precision = i64::try_from(a.precision()).unwrap_or(0) - delta + increase;
            let precision = u64::try_from(precision.max(1)).unwrap_or(1);
            Ty::decimal(precision.min(MAX_PRECISION), to, a.unsigned)
        }
    }
}

/// The type of a value that is one of `args` (`COALESCE`, `IFNULL`, `IF`, `CASE`,
/// `GREATEST`, `LEAST`: `Item_func::aggregate_type` and its `aggregate_*_properties`): a `NULL`
/// gives nothing; values of one temporal type are of it (a `DATE` and a `DATETIME` or `TIME`
/// are a `DATETIME`), `JSON` ones `JSON`; numbers the widest number (the larger integer part
/// and scale for a decimal, a double if one is); anything else a string as long as the
/// longest. `None` for no argument.
pub(crate) fn merge(args: &[Ty]) -> Option<Ty> {
    let known: Vec<&Ty> = args.iter().filter(|t| t.class != Class::Null).collect();
    let Some(first) = known.first() else {
        return args.first().map(|_| Ty::new(Class::Null, 0));
    };
    let all = |f: &dyn Fn(&Ty) -> bool| known.iter().all(|t| f(t));
    let max_chars = known.iter().map(|t| t.chars).max().unwrap_or(0);
    let fsp = known.iter().map(|t| t.decimals).max().unwrap_or(0);
    if all(&|t| t.class == first.class) && first.class != Class::Decimal {
        let decimals = if first.is_temporal() {
            fsp
        } else {
            first.decimals
        };
        return Some(Ty {
            decimals,
            unsigned: all(&|t| t.unsigned),
            ..Ty::new(first.class.clone(), max_chars)
        });
    }
    let temporal = |t: &Ty| t.is_temporal();
    if all(&temporal) {
        return Some(Ty::temporal(Class::Datetime, fsp));
    }
    let numeric = |t: &Ty| {
        matches!(
            t.class,
            Class::Int | Class::Decimal | Class::Real | Class::Float
        )
    };
    if !all(&numeric) {
        let binary = known.iter().any(|t| t.class == Class::Binary);
        let class = if binary { Class::Binary } else { Class::Str };
        return Some(Ty::new(class, max_chars));
    }
    if known
        .iter()
        .any(|t| matches!(t.class, Class::Real | Class::Float))
    {
        return Some(Ty::double());
    }
    let scale = known.iter().map(|t| t.scale()).max().unwrap_or(0);
    let int_part = known.iter().map(|t| t.int_part()).max().unwrap_or(0);
    let precision = (int_part + u64::from(scale)).min(MAX_PRECISION);
    Some(Ty::decimal(precision, scale, all(&|t| t.unsigned)))
}

/// `SUM(a)` (`Item_sum_sum::resolve_type`): a decimal of 22 (`DECIMAL_LONGLONG_DIGITS`) more
/// digits for an integer or decimal, else a double.
pub(crate) fn sum(a: &Ty) -> Ty {
    match a.numeric() {
        Class::Real => Ty::double(),
        _ => Ty::decimal((a.precision() + 22).min(MAX_PRECISION), a.scale(), false),
    }
}

/// `AVG(a)` (`Item_sum_avg::resolve_type`): a decimal of `div_precision_increment` more digits
/// and scale for an integer or decimal, else a double.
pub(crate) fn avg(a: &Ty) -> Ty {
    match a.numeric() {
        Class::Real => Ty::double(),
        _ => {
            let inc = DIV_PRECISION_INCREMENT;
            let precision = (a.precision() + u64::from(inc)).min(MAX_PRECISION);
            Ty::decimal(precision, (a.scale() + inc).min(MAX_SCALE), false)
        }
    }
}

/// A numeric literal as written (`Item_int`, `Item_uint`, `Item_decimal`, `Item_float`):
/// digits only an integer (unsigned past `BIGINT`'s range, a decimal past `BIGINT
/// UNSIGNED`'s), with a point a decimal of its digits, with an exponent a double.
pub(crate) fn literal(n: &str) -> Option<Ty> {
    if n.contains(['e', 'E']) {
        return Some(Ty {
            decimals: NOT_FIXED_DEC,
            ..Ty::new(Class::Real, n.len() as u64)
        });
    }
    let (int, frac) = n.split_once('.').unwrap_or((n, ""));
    if !(int.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit()) || n == "." {
        return None;
    }
    if frac.is_empty() && !n.contains('.') {
        let digits = int.len() as u64;
        let int_literal = |t: Ty| Ty { literal: true, ..t };
        return Some(if int.parse::<i64>().is_ok() {
            int_literal(Ty::int(digits))
        } else if int.parse::<u64>().is_ok() {
            int_literal(Ty::uint(digits))
        } else {
            Ty::decimal(digits.min(MAX_PRECISION), 0, false)
        });
    }
    let scale = u32::try_from(frac.len()).ok()?.min(MAX_SCALE);
    let precision = (int.len() + frac.len()) as u64;
    Some(Ty::decimal(precision.clamp(1, MAX_PRECISION), scale, false))
}
