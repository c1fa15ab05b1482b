//! MySQL's expression syntax that SQLite spells otherwise, rewritten on the AST (see the parent
//! module's docs). Each rule names the MySQL 8.0 source it follows (`sql/sql_yacc.yy` for the
//! grammar, `sql/item_*.cc` for the meaning) and says what differs here.
//!
//! * **Date arithmetic** (`function_call_nonkeyword` and `bit_expr '+' INTERVAL_SYM expr
//!   interval` in `sql_yacc.yy`, all one `Item_date_add_interval` in `item_timefunc.cc`):
//!   `x + INTERVAL n UNIT`, `INTERVAL n UNIT + x`, `DATE_ADD(x, INTERVAL n UNIT)`,
//!   `ADDDATE(x, INTERVAL n UNIT)` and `ADDDATE(x, n)` (days) are `DATE_ADD(x, n, 'UNIT')`;
//!   `x - INTERVAL n UNIT`, `DATE_SUB(...)` and `SUBDATE(...)` are `DATE_SUB(x, n, 'UNIT')`:
//!   calls of this server's functions (`functions`), `n` as written (a number, a string such as
//!   `'1:30'`, a column, a `?`), `UNIT` MySQL's upper-case name. `INTERVAL n UNIT + x` moves `x`
//!   before `n`; the `?` placeholders in them get their numbers (`?3`), so that a prepared
//!   statement binds its parameters in the order the client wrote them.
//! * **Units as words** (`interval_time_stamp` in `sql_yacc.yy`; `Item_func_timestamp_diff`,
//!   `Item_extract` in `item_timefunc.cc`): `TIMESTAMPDIFF(UNIT, a, b)` is
//!   `TIMESTAMPDIFF('UNIT', a, b)`, `TIMESTAMPADD(UNIT, n, x)` is `TIMESTAMPADD('UNIT', n, x)`
//!   (also with MySQL's `SQL_TSI_` prefix: `SQL_TSI_DAY` is `'DAY'`), `EXTRACT(UNIT FROM x)` is
//!   `EXTRACT('UNIT', x)`. A unit MySQL does not know (`DAYS`, `EPOCH`) is left as written for
//!   SQLite to refuse (1064, or 1054 for a word SQLite reads as a column, where MySQL says 1064).
//!   The compound units (`HOUR_MINUTE`, `YEAR_MONTH`, ...) reach this module as `mdl-sql`
//!   spells them for `sqlparser` 0.64 (`HOUR TO MINUTE`; `SECONDS TO MICROSECOND` for
//!   `SECOND_MICROSECOND`, as sqlparser takes no `TO` after `SECOND`), or as words (in
//!   `EXTRACT`).
//! * **`a / b`** (`Item_func_div` in `item_func.cc`: a DECIMAL or DOUBLE quotient even of two
//!   integers, NULL for a zero divisor) is `CAST(a AS REAL) / b`: SQLite's `/` truncates two
//!   integers (`7 / 2` is 3 there, 3.5000 in MySQL). The quotient is a DOUBLE, not a DECIMAL of
//!   the dividend's scale + 4 (`div_precision_increment`); it is shown as the DECIMAL (3.5000)
//!   on the wire (`execute/result_kinds.rs`) and as a string (`decimal_strings.rs`), whose
//!   types read the custom `/` as MySQL's division (`expr_type.rs`).
//! * **`a DIV b`** (`Item_func_int_div::val_int` in `item_func.cc`: the quotient truncated toward
//!   zero, NULL for a zero divisor) is `CAST(a / b AS INTEGER)`, with SQLite's own `/` (which the
//!   rule above leaves alone: it is written as a custom operator): SQLite's `/` truncates two
//!   integers and gives NULL for a zero divisor; a real quotient is truncated by the cast.
//!   Differs: MySQL divides non-integers as DECIMALs, SQLite as doubles (`0.3 DIV 0.1` is 3 in
//!   MySQL, 2 here); a quotient past BIGINT is error 1690 in MySQL and the nearest BIGINT here.
//! * **`a -> path`** is `JSON_EXTRACT(a, path)` and **`a ->> path`** `JSON_UNQUOTE(JSON_EXTRACT(a,
//!   path))`, as MySQL defines them: this server's functions write JSON as MySQL does
//!   (`functions/json.rs`), SQLite's operators their own text.
//! * **`a XOR b`** (`Item_func_xor` in `item_cmpfunc.cc`: 1 if exactly one operand is true,
//!   NULL if either is NULL) is `((CAST(a AS REAL) <> 0) <> (CAST(b AS REAL) <> 0))`: an
//!   operand is true as MySQL reads a number from it (`'abc'` is 0, `'2x'` is 2). **`a ^ b`**
//!   (`Item_func_bit_xor`) is `((a | b) & ~(a & b))`. Differs: SQLite's bit operators work on
//!   signed 64-bit integers, so a result with the top bit set is negative (MySQL's are
//!   unsigned: `~0` is 18446744073709551615 there, -1 here), as for `|`, `&` and `~`.
//! * **`a % b`** (and `a MOD b`, should the parser give it: `sqlparser` 0.64 reads `MOD` after
//!   an operand as an alias, so `5 MOD 2` gets 1064; `MOD(5, 2)` works) is `MOD(a, b)`, this
//!   server's function with `Item_func_mod`'s meaning (`fmod` for reals, NULL for a zero
//!   divisor): SQLite's `%` casts reals to integers (`5.5 % 2` is 1.0 there, 1.5 in MySQL).
//! * **`GROUP_CONCAT`** (`Item_func_group_concat` in `item_sum.cc`): `SEPARATOR s` is SQLite's
//!   second argument, after which `ORDER BY` stays where it is (SQLite 3.44+); several values
//!   are one `CONCAT(a, b)` per row (NULL if any is NULL: MySQL skips such a row too). SQLite's
//!   `DISTINCT` takes one argument only, so `DISTINCT` with a separator or several values
//!   aggregates an escaped text (0x01 -> 0x01 0x02, `,` -> 0x01 0x03, values joined by 0x01
//!   0x04) with SQLite's `,` and unescapes the result (`replace()`): duplicates and order are
//!   MySQL's, on the values' text. A separator holding the byte 0x01 with `DISTINCT` gets 1235.
//!   Differs: no truncation at `group_concat_max_len` (MySQL cuts the result at 1,024 bytes by
//!   default, with a warning).
//! * **`CAST(x AS type)` and `CONVERT(x, type)`** (`cast_type` in `sql_yacc.yy`;
//!   `Item_typecast_*` in `item_func.cc` and `item_timefunc.cc`). SQLite casts by type *name*
//!   (a name holding `INT` is INTEGER, `CHAR` TEXT, `DOUB`/`FLOA`/`REAL` REAL, else NUMERIC), so
//!   MySQL's names mean otherwise there (`CAST('12.5' AS SIGNED)` is 12.5, `CAST('2024-01-31'
//!   AS DATE)` is 2024):
//!   - `SIGNED [INTEGER]`, `UNSIGNED [INTEGER]` -> `CAST(x AS INTEGER)`: integers and strings as
//!     MySQL (a string's integer prefix, `strtoll10`). Differs: a REAL is truncated where MySQL
//!     rounds it (`val_int`: 1.7 gives 1 here, 2 in MySQL); `UNSIGNED` of a negative number
//!     stays negative (MySQL gives 2^64 + x, past SQLite's 64-bit signed integers), and a value
//!     past BIGINT is the nearest BIGINT.
//!   - `CHAR`, `NCHAR`, `BINARY` -> `MYSQL_TEXT(x)`, MySQL's text of a number (`1000` for
//!     `1e3`: `numbers.rs`); `CHAR(n)` -> `substr(MYSQL_TEXT(x), 1, n)` (the first n
//!     characters, as MySQL's with warning 1292), `BINARY(n)` the first n bytes. `BINARY`
//!     (also the `BINARY x` operator) is text: this server's strings compare byte for byte
//!     already, so `BINARY a = 'X'` and `ORDER BY BINARY a` give MySQL's results (a SQLite
//!     BLOB would equal no string). Differs: the column is sent as text, not VARBINARY, and
//!     `BINARY(n)` does not pad with 0x00 bytes to n.
//!   - `DECIMAL[(m[,d])]` -> `MYSQL_DECIMAL(x, m, d)`, rounded on the decimal digits
//!     (`numbers.rs`). Differs: the value is a double again (integers past 2^53 lose
//!     digits).
//!   - `DATE` -> `DATE(x)`; `DATETIME` -> `DATETIME(x)`; `TIME` -> `TIME(x)`: the text forms
//!     MySQL sends (`2024-01-31`, `2024-01-31 10:00:00`, `10:00:00`). With a fractional
//!     precision p (1..6) the text has p digits after the second, from SQLite's milliseconds
//!     (truncated, digits 4..6 are 0). Differs: SQLite's parser reads a number as a Julian day
//!     (MySQL reads `20240131` as a date) and `'now'` as the clock, wants two-digit months and
//!     days, reads `2024-02-30` as `2024-03-01` (MySQL: NULL), and has no TIME past 24 hours.
//!   - `JSON` -> `CAST_AS_JSON(x)`: a string read as JSON text, in MySQL's text
//!     (`functions/json_more.rs`).
//!   - `DOUBLE`, `FLOAT`, `REAL` are SQLite's REAL already; other names (`YEAR`, ...) are cast
//!     by SQLite's rules as written.
//! * **`DATE 'str'`, `TIME 'str'`, `TIMESTAMP 'str'`** (MySQL's temporal literals, `literal` in
//!   `sql_yacc.yy`) are `CAST('str' AS DATE)`, `AS TIME`, `AS DATETIME`, with the cast's rules
//!   above (so a month needs two digits here).
//! * **`x LIKE p`** with `x` not a column or a string is `MYSQL_TEXT(x) LIKE p` (`numbers.rs`).
//! * **`x COLLATE name`** (`Item_func_set_collation`): a `_bin` or `_cs` collation, or
//!   `binary`, is SQLite's `BINARY` (how the server compares already), a `_ci` one SQLite's
//!   `NOCASE`; another name is 1273 (`ER_UNKNOWN_COLLATION`). Differs: `NOCASE` folds ASCII
//!   letters only, and no collation here ignores accents (`_ai_ci` is `NOCASE` too).
//! * **`TRIM([BOTH | LEADING | TRAILING] remstr FROM str)`** (`Item_func_trim` in
//!   `item_strfunc.cc`: the whole `remstr`, repeatedly, not a set of characters as SQLite's
//!   `trim(str, chars)`) is this server's `MYSQL_TRIM('BOTH', remstr, str)` (`functions`).
//!   `TRIM(str)` is SQLite's, which removes spaces as MySQL's does.
//! * **`a <=> b`** (`Item_func_equal`: NULL-safe equality) is `a IS NOT DISTINCT FROM b`;
//!   **`_charset'str'`** (an introducer) is `'str'`, and `N'str'` too (`rewrite.rs`).
//! * **`CONVERT(x USING charset)`** (`Item_func_conv_charset` in `item_strfunc.cc`) is `(x)`:
//!   the engine keeps every string as UTF-8.

use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, CastKind, CharacterLength, DataType, DateTimeField, Expr, ExtractSyntax,
    Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
    Interval, ObjectName, ObjectNamePart, TimezoneInfo, TrimWhereField, Value, VisitMut,
    VisitorMut,
};

use crate::error::ServerError;

/// MySQL's interval units (`interval` in `sql_yacc.yy`); the first nine are also
/// `interval_time_stamp`'s, which `TIMESTAMPDIFF` and `TIMESTAMPADD` take.
const UNITS: [&str; 20] = [
    "MICROSECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
    "SECOND_MICROSECOND",
    "MINUTE_MICROSECOND",
    "MINUTE_SECOND",
    "HOUR_MICROSECOND",
    "HOUR_SECOND",
    "HOUR_MINUTE",
    "DAY_MICROSECOND",
    "DAY_SECOND",
    "DAY_MINUTE",
    "DAY_HOUR",
    "YEAR_MONTH",
];
const SIMPLE_UNITS: usize = 9;

/// Rewrites `e` in place when it is a form of the module docs; `placeholders_before` counts the
/// `?` the statement's text has before `e`. Any other expression costs a match on its kind (and
/// on a function name's length), inlined in the caller: no call, no allocation.
///
/// # Errors
/// 1235 for `GROUP_CONCAT(DISTINCT ... SEPARATOR s)` with the byte 0x01 in `s`, and for
/// `@a := x`.
#[inline(always)]
pub(super) fn mysql_syntax(e: &mut Expr, placeholders_before: usize) -> Result<(), ServerError> {
    let maybe = match e {
        Expr::BinaryOp { left, op, right } => match op {
            BinaryOperator::Plus | BinaryOperator::Minus => {
                matches!(**right, Expr::Interval(_)) || matches!(**left, Expr::Interval(_))
            }
            BinaryOperator::Divide
            | BinaryOperator::MyIntegerDivide
            | BinaryOperator::Modulo
            | BinaryOperator::Xor
            | BinaryOperator::BitwiseXor
            | BinaryOperator::Arrow
            | BinaryOperator::LongArrow
            | BinaryOperator::Spaceship
            | BinaryOperator::Assignment => true,
            _ => false,
        },
        Expr::Function(f) => match f.name.0.last() {
            Some(ObjectNamePart::Identifier(n)) => {
                let len = n.value.len();
                len < 32 && CALL_LENGTHS & (1 << len) != 0
            }
            _ => false,
        },
        Expr::Cast { .. }
        | Expr::Convert { .. }
        | Expr::Extract { .. }
        | Expr::TypedString(_)
        | Expr::Collate { .. }
        | Expr::Trim {
            trim_what: Some(_), ..
        }
        | Expr::Substring { special: false, .. }
        | Expr::MemberOf(_)
        | Expr::Prefixed { .. } => true,
        Expr::Like { expr, .. } => numbers::like_operand_may_be_number(expr),
        _ => false,
    };
    if maybe {
        rewrite_form(e, placeholders_before)
    } else {
        Ok(())
    }
}

/// [`mysql_syntax`] for an expression that may be one of the forms.
#[inline(never)]
fn rewrite_form(e: &mut Expr, placeholders_before: usize) -> Result<(), ServerError> {
    let new = match e {
        Expr::BinaryOp { left, op, right } => match op {
            BinaryOperator::Plus | BinaryOperator::Minus => {
                date_arithmetic(left, op, right, placeholders_before)
            }
            BinaryOperator::Divide => Some(Expr::BinaryOp {
                left: Box::new(cast_as(take(left), DataType::Real)),
                op: BinaryOperator::Custom("/".into()),
                right: Box::new(take(right)),
            }),
            BinaryOperator::MyIntegerDivide => Some(Expr::Cast {
                kind: CastKind::Cast,
                expr: Box::new(Expr::BinaryOp {
                    left: Box::new(take(left)),
                    op: BinaryOperator::Custom("/".into()),
                    right: Box::new(take(right)),
                }),
                data_type: DataType::Integer(None),
                format: None,
            }),
            BinaryOperator::Modulo => Some(call("MOD", vec![take(left), take(right)])),
            // `Item_func_json_extract` / `Item_func_json_unquote` (`sql/item_json_func.cc`):
            // SQLite's operators give its own JSON text, without MySQL's spaces.
            BinaryOperator::Arrow => Some(call("JSON_EXTRACT", vec![take(left), take(right)])),
            BinaryOperator::LongArrow => Some(call(
                "JSON_UNQUOTE",
                vec![call("JSON_EXTRACT", vec![take(left), take(right)])],
            )),
            // `@a := x` in an expression (deprecated in MySQL 8.0) sets a variable row by row:
            // SQLite has no such thing.
            BinaryOperator::Assignment => {
                return Err(ServerError::not_supported(
                    "setting a user variable within an expression (:=)",
                ))
            }
            // `Item_func_equal`: NULL-safe equality, SQLite's IS NOT DISTINCT FROM.
            BinaryOperator::Spaceship => Some(Expr::IsNotDistinctFrom(
                Box::new(take(left)),
                Box::new(take(right)),
            )),
            BinaryOperator::Xor => {
                let truth = |e: &mut Expr| {
                    let real = cast_as(Expr::Nested(Box::new(take(e))), DataType::Real);
                    nested(real, BinaryOperator::NotEq, num(0))
                };
                Some(nested(truth(left), BinaryOperator::NotEq, truth(right)))
            }
            BinaryOperator::BitwiseXor => {
                let (a, b) = (
                    Expr::Nested(Box::new(take(left))),
                    Expr::Nested(Box::new(take(right))),
                );
                let both = nested(a.clone(), BinaryOperator::BitwiseAnd, b.clone());
                let not_both = Expr::UnaryOp {
                    op: sqlparser::ast::UnaryOperator::BitwiseNot,
                    expr: Box::new(both),
                };
                Some(nested(
                    nested(a, BinaryOperator::BitwiseOr, b),
                    BinaryOperator::BitwiseAnd,
                    not_both,
                ))
            }
            _ => None,
        },
        Expr::TypedString(t) => {
            let ty = match &t.data_type {
                DataType::Timestamp(p, _) => DataType::Datetime(*p),
                DataType::Time(p, _) => DataType::Time(*p, TimezoneInfo::None),
                other => other.clone(),
            };
            cast(&mut Expr::Value(t.value.clone()), &ty)
        }
        Expr::Trim {
            trim_where,
            trim_what: Some(what),
            expr,
            trim_characters: None,
        } => {
            let mode = match trim_where {
                Some(TrimWhereField::Leading) => "LEADING",
                Some(TrimWhereField::Trailing) => "TRAILING",
                _ => "BOTH",
            };
            Some(call("MYSQL_TRIM", vec![text(mode), take(what), take(expr)]))
        }
        // A character set introducer (`_utf8mb4'x'`, `_binary'x'`): the engine's strings are
        // all UTF-8, so the string as it is.
        Expr::Prefixed { prefix, value } if prefix.value.starts_with('_') => Some(take(value)),
        // `Item_func_member_of` (`sql/item_json_func.cc`): a function of this server's.
        Expr::MemberOf(m) => Some(call(
            "JSON_MEMBER_OF",
            vec![take(&mut m.value), take(&mut m.array)],
        )),
        // `SUBSTRING(s FROM p FOR n)`: SQLite takes only the call form.
        Expr::Substring {
            special: special @ false,
            substring_from: Some(_),
            ..
        } => {
            *special = true;
            None
        }
        Expr::Collate { collation, .. } => {
            let name = collation.to_string().trim_matches('`').to_ascii_lowercase();
            let sqlite = match name.as_str() {
                "binary" => "BINARY",
                n if n.ends_with("_bin") || n.ends_with("_cs") => "BINARY",
                n if n.ends_with("_ci") => "NOCASE",
                _ => {
                    return Err(ServerError::new(
                        1273,
                        "HY000",
                        format!("Unknown collation: '{name}'"),
                    ))
                }
            };
            *collation = ObjectName(vec![ObjectNamePart::Identifier(Ident::new(sqlite))]);
            None
        }
        Expr::Function(f) => function(f)?,
        Expr::Like { expr, .. } => {
            **expr = numbers::text(take(expr));
            None
        }
        Expr::Cast {
            kind: CastKind::Cast,
            expr,
            data_type,
            format: None,
        } => cast(expr, data_type),
        Expr::Convert {
            is_try: false,
            expr,
            data_type,
            target_before_value: false,
            styles,
            ..
        } if styles.is_empty() => match data_type {
            Some(ty) => cast(expr, ty),
            // `USING charset`: the engine's strings are all UTF-8.
            None => Some(Expr::Nested(Box::new(take(expr)))),
        },
        Expr::Extract {
            field,
            syntax: ExtractSyntax::From,
            expr,
        } => field_unit(field).map(|u| call("EXTRACT", vec![text(u), take(expr)])),
        _ => None,
    };
    if let Some(new) = new {
        *e = new;
    }
    Ok(())
}

/// `x ± INTERVAL n UNIT`, `INTERVAL n UNIT + x` -> `DATE_ADD` / `DATE_SUB(x, n, 'UNIT')`.
fn date_arithmetic(
    left: &mut Expr,
    op: &BinaryOperator,
    right: &mut Expr,
    placeholders_before: usize,
) -> Option<Expr> {
    let name = if *op == BinaryOperator::Plus {
        "DATE_ADD"
    } else {
        "DATE_SUB"
    };
    if let Expr::Interval(i) = right {
        let unit = interval_unit(i)?;
        return Some(call(name, vec![take(left), take(&mut i.value), text(unit)]));
    }
    match left {
        Expr::Interval(i) if name == "DATE_ADD" => {
            let unit = interval_unit(i)?;
            // `x` moves before `n`: the placeholders take the numbers of the client's order.
            let mut numbers = NumberPlaceholders(placeholders_before);
            let _ = i.value.visit(&mut numbers);
            let _ = right.visit(&mut numbers);
            Some(call(
                name,
                vec![take(right), take(&mut i.value), text(unit)],
            ))
        }
        _ => None,
    }
}

/// The calls [`function`] rewrites.
#[derive(Clone, Copy)]
enum Call {
    /// `DATE_ADD` / `DATE_SUB` (the name SQLite calls), whose second argument may be days.
    Date(&'static str, bool),
    /// A unit as a word first: `TIMESTAMPDIFF`, `TIMESTAMPADD`.
    UnitFirst,
    GroupConcat,
}

const CALLS: [(&str, Call); 7] = [
    ("DATE_ADD", Call::Date("DATE_ADD", false)),
    ("ADDDATE", Call::Date("DATE_ADD", true)),
    ("DATE_SUB", Call::Date("DATE_SUB", false)),
    ("SUBDATE", Call::Date("DATE_SUB", true)),
    ("TIMESTAMPDIFF", Call::UnitFirst),
    ("TIMESTAMPADD", Call::UnitFirst),
    ("GROUP_CONCAT", Call::GroupConcat),
];

/// Bit n is set when a name of [`CALLS`] has n bytes: most calls are told apart by length.
const CALL_LENGTHS: u32 = {
    let mut bits = 0;
    let mut i = 0;
    while i < CALLS.len() {
        bits |= 1 << CALLS[i].0.len();
        i += 1;
    }
    bits
};

/// The calls of [`CALLS`]: a new expression when the call becomes another, else changed in place.
fn function(f: &mut Function) -> Result<Option<Expr>, ServerError> {
    let Some(ObjectNamePart::Identifier(name)) = f.name.0.last() else {
        return Ok(None);
    };
    let Some(&(_, call_kind)) = (CALLS.iter()).find(|(n, _)| n.eq_ignore_ascii_case(&name.value))
    else {
        return Ok(None);
    };
    let FunctionArguments::List(list) = &mut f.args else {
        return Ok(None);
    };
    let (to, by_days) = match call_kind {
        Call::GroupConcat => return group_concat::group_concat_call(list),
        Call::Date(to, by_days) => (to, by_days),
        Call::UnitFirst => {
            unit_word(list);
            return Ok(None);
        }
    };
    let [_, FunctionArg::Unnamed(FunctionArgExpr::Expr(n))] = list.args.as_mut_slice() else {
        return Ok(None);
    };
    let (n, unit) = match n {
        Expr::Interval(i) => match interval_unit(i) {
            Some(unit) => (take(&mut i.value), unit),
            None => return Ok(None),
        },
        // `ADDDATE(x, n)`: n days (`Item_date_add_interval(..., INTERVAL_DAY, ...)`).
        n if by_days => (take(n), "DAY"),
        _ => return Ok(None),
    };
    list.args.truncate(1);
    list.args.extend([arg(n), arg(text(unit))]);
    f.name = ObjectName(vec![ObjectNamePart::Identifier(Ident::new(to))]);
    Ok(None)
}

/// `TIMESTAMPDIFF(DAY, ...)`: the first argument, a unit as an unquoted word (also with
/// MySQL's `SQL_TSI_` prefix), as a string.
fn unit_word(list: &mut FunctionArgumentList) {
    let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(unit))) = list.args.first_mut() else {
        return;
    };
    let Expr::Identifier(id) = unit else {
        return;
    };
    let word = id.value.as_str();
    let word = match word.get(..8) {
        Some(p) if p.eq_ignore_ascii_case("SQL_TSI_") => &word[8..],
        _ => word,
    };
    if let (None, Some(u)) = (id.quote_style, unit_named(word, SIMPLE_UNITS)) {
        *unit = text(u);
    }
}

/// `CAST(x AS ty)` in SQLite's types (module docs); None for a type SQLite casts as MySQL.
fn cast(x: &mut Expr, ty: &DataType) -> Option<Expr> {
    let frac = |p: &Option<u64>| p.unwrap_or(0).min(6);
    Some(match ty {
        DataType::Signed
        | DataType::SignedInteger
        | DataType::Unsigned
        | DataType::UnsignedInteger => cast_as(take(x), DataType::Integer(None)),
        DataType::Char(len) | DataType::Character(len) => {
            let t = numbers::text(take(x));
            match len {
                None => t,
                Some(CharacterLength::IntegerLength { length, .. }) => {
                    call("substr", vec![t, num(1), num(*length)])
                }
                Some(CharacterLength::Max) => return None,
            }
        }
        DataType::Custom(name, mods) if mods.is_empty() && is_name(name, "NCHAR") => {
            numbers::text(take(x))
        }
        DataType::Binary(None) => numbers::text(take(x)),
        DataType::Binary(Some(n)) => {
            let bytes = cast_as(numbers::text(take(x)), DataType::Blob(None));
            cast_as(call("substr", vec![bytes, num(1), num(*n)]), DataType::Text)
        }
        DataType::Decimal(info) | DataType::Dec(info) | DataType::Numeric(info) => {
            numbers::decimal(take(x), info)
        }
        DataType::Date => call("DATE", vec![take(x)]),
        DataType::Datetime(p) => match frac(p) {
            0 => call("DATETIME", vec![take(x)]),
            p => fraction("%Y-%m-%d %H:%M:%f", take(x), 19, p),
        },
        DataType::Time(p, TimezoneInfo::None) => match frac(p) {
            0 => call("TIME", vec![take(x)]),
            p => fraction("%H:%M:%f", take(x), 8, p),
        },
        DataType::JSON => call("CAST_AS_JSON", vec![take(x)]),
        _ => return None,
    })
}

/// `strftime(format, x)` (seconds with SQLite's three decimals) cut or padded to `p` decimals
/// after a whole part of `whole` characters.
fn fraction(format: &str, x: Expr, whole: u64, p: u64) -> Expr {
    let t = call("strftime", vec![text(format), x]);
    if p <= 3 {
        return call("substr", vec![t, num(1), num(whole + 1 + p)]);
    }
    Expr::Nested(Box::new(Expr::BinaryOp {
        left: Box::new(t),
        op: BinaryOperator::StringConcat,
        right: Box::new(text(&"0".repeat(p as usize - 3))),
    }))
}

/// The MySQL unit an interval names, if it is one MySQL knows, written as MySQL writes it.
fn interval_unit(i: &Interval) -> Option<&'static str> {
    match i {
        Interval {
            leading_field: Some(f),
            leading_precision: None,
            last_field: None,
            fractional_seconds_precision: None,
            ..
        } => field_unit(f),
        // `HOUR TO MINUTE`: `mdl-sql`'s spelling of MySQL's `HOUR_MINUTE`.
        Interval {
            leading_field: Some(lead),
            leading_precision: None,
            last_field: Some(last),
            fractional_seconds_precision: None,
            ..
        } => {
            // `SECONDS TO MICROSECOND`: `mdl-sql`'s spelling of `SECOND_MICROSECOND`.
            let lead = match lead {
                DateTimeField::Seconds => "SECOND",
                f => field_unit(f)?,
            };
            let last = field_unit(last)?;
            UNITS[SIMPLE_UNITS..]
                .iter()
                .copied()
                .find(|u| u.split_once('_') == Some((lead, last)))
        }
        _ => None,
    }
}

fn field_unit(f: &DateTimeField) -> Option<&'static str> {
    let i = match f {
        DateTimeField::Microsecond => 0,
        DateTimeField::Second => 1,
        DateTimeField::Minute => 2,
        DateTimeField::Hour => 3,
        DateTimeField::Day => 4,
        DateTimeField::Week(None) => 5,
        DateTimeField::Month => 6,
        DateTimeField::Quarter => 7,
        DateTimeField::Year => 8,
        DateTimeField::Custom(id) if id.quote_style.is_none() => {
            return unit_named(&id.value, UNITS.len())
        }
        _ => return None,
    };
    Some(UNITS[i])
}

/// The unit among MySQL's first `among` that `word` names, without regard to case.
fn unit_named(word: &str, among: usize) -> Option<&'static str> {
    UNITS[..among]
        .iter()
        .copied()
        .find(|u| u.eq_ignore_ascii_case(word))
}

/// Numbers the `?` placeholders it visits, from the count before them: SQLite gives a later
/// plain `?` the number after the largest before it, so the rest of the statement stays in order.
struct NumberPlaceholders(usize);

impl VisitorMut for NumberPlaceholders {
    type Break = ();

    fn pre_visit_value(&mut self, v: &mut sqlparser::ast::ValueWithSpan) -> ControlFlow<()> {
        if let Value::Placeholder(p) = &mut v.value {
            if p == "?" {
                self.0 += 1;
                *p = format!("?{}", self.0);
            }
        }
        ControlFlow::Continue(())
    }
}

fn is_name(n: &ObjectName, want: &str) -> bool {
    matches!(n.0.as_slice(), [ObjectNamePart::Identifier(i)] if i.value.eq_ignore_ascii_case(want))
}

/// `(left op right)`.
fn nested(left: Expr, op: BinaryOperator, right: Expr) -> Expr {
    Expr::Nested(Box::new(Expr::BinaryOp {
        left: Box::new(left),
        op,
        right: Box::new(right),
    }))
}

fn take(e: &mut Expr) -> Expr {
    std::mem::replace(e, Expr::value(Value::Null))
}

fn text(s: &str) -> Expr {
    Expr::value(Value::SingleQuotedString(s.to_string()))
}

fn num(n: u64) -> Expr {
    Expr::value(Value::Number(n.to_string(), false))
}

fn arg(e: Expr) -> FunctionArg {
    FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
}

fn cast_as(e: Expr, ty: DataType) -> Expr {
    Expr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(e),
        data_type: ty,
        format: None,
    }
}

fn empty_list() -> FunctionArgumentList {
    FunctionArgumentList {
        duplicate_treatment: None,
        args: Vec::new(),
        clauses: Vec::new(),
    }
}

/// `name(args...)`.
pub(super) fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Function(Function {
        name: ObjectName(vec![ObjectNamePart::Identifier(Ident::new(name))]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            args: args.into_iter().map(arg).collect(),
            ..empty_list()
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    })
}

mod group_concat;
mod numbers;
pub(super) use numbers::is_text_call;
#[cfg(test)]
mod tests;
