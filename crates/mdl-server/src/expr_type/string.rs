//! String functions' lengths, as `sql/item_strfunc.cc` resolves them: a result is as long as
//! what it can hold, in characters (`fix_char_length`); a number or a temporal value in a
//! string function counts its characters (`v` of an `INT` column: 11).

use super::ty::{Class, Ty, MAX_CHARS};

/// A string of `chars` characters, binary if any of `args` is (`agg_arg_charsets`).
fn of(args: &[Ty], chars: u64) -> Ty {
    let binary = args.iter().any(|t| t.class == Class::Binary);
    Ty::new(
        if binary { Class::Binary } else { Class::Str },
        chars.min(MAX_CHARS),
    )
}

/// `CONCAT(a, ...)` (`Item_func_concat::resolve_type`): the lengths added.
pub(crate) fn concat(args: &[Ty]) -> Ty {
    let sum = args.iter().fold(0u64, |n, t| n.saturating_add(t.chars));
    of(args, sum)
}

/// `CONCAT_WS(sep, a, ...)` (`Item_func_concat_ws::resolve_type`): the values' lengths and a
/// separator between each two.
pub(crate) fn concat_ws(args: &[Ty]) -> Option<Ty> {
    let (sep, rest) = args.split_first()?;
    let seps = sep
        .chars
        .saturating_mul(rest.len().saturating_sub(1) as u64);
    let sum = rest.iter().fold(seps, |n, t| n.saturating_add(t.chars));
    Some(of(args, sum))
}

/// A function whose result is no longer than its first argument: `UPPER`, `LOWER`, `TRIM`,
/// `REVERSE`, `SUBSTRING_INDEX`, ... (`Item_str_conv`: `utf8mb4`'s case mapping keeps the
/// length).
pub(crate) fn same(a: &Ty) -> Ty {
    of(std::slice::from_ref(a), a.chars)
}

/// `SUBSTRING(s, pos[, len])` with literal `pos` / `len` (`Item_func_substr::resolve_type`):
/// what is left from `pos` (the last `-pos` characters), at most `len`.
pub(crate) fn substring(s: &Ty, pos: Option<i64>, len: Option<Option<i64>>) -> Ty {
    let mut chars = s.chars;
    if let Some(p) = pos {
        chars = if p < 0 {
            chars.min(p.unsigned_abs())
        } else {
            chars.saturating_sub(p.unsigned_abs().saturating_sub(1))
        };
    }
    if let Some(Some(l)) = len {
        chars = chars.min(u64::try_from(l).unwrap_or(0));
    }
    of(std::slice::from_ref(s), chars)
}

/// `LEFT(s, n)`, `RIGHT(s, n)` (`Item_str_func::left_right_max_length`): at most `n` (a
/// literal) characters of `s`.
pub(crate) fn left_right(s: &Ty, n: Option<i64>) -> Ty {
    let chars = match n {
        Some(n) => s.chars.min(u64::try_from(n).unwrap_or(0)),
        None => s.chars,
    };
    of(std::slice::from_ref(s), chars)
}

/// `REPLACE(s, from, to)` (`Item_func_replace::resolve_type`): each possible `from` in `s`
/// made `to`.
pub(crate) fn replace(s: &Ty, from: &Ty, to: &Ty) -> Ty {
    let mut chars = s.chars;
    if to.chars > from.chars && from.chars > 0 {
        let times = chars / from.chars;
        chars = chars.saturating_add(times.saturating_mul(to.chars - from.chars));
    }
    of(&[s.clone(), from.clone(), to.clone()], chars)
}

/// `LPAD(s, n, pad)`, `RPAD(...)` (`Item_func_lpad::resolve_type`): `n` characters for a
/// literal `n`, else the longest string.
pub(crate) fn pad(args: &[Ty], n: Option<i64>) -> Ty {
    let chars = n.map_or(MAX_CHARS, |n| u64::try_from(n).unwrap_or(0));
    of(args, chars)
}

/// `REPEAT(s, n)` (`Item_func_repeat::resolve_type`): `n` (a literal) times `s`, else the
/// longest string.
pub(crate) fn repeat(s: &Ty, n: Option<i64>) -> Ty {
    let chars = n.map_or(MAX_CHARS, |n| {
        s.chars.saturating_mul(u64::try_from(n).unwrap_or(0))
    });
    of(std::slice::from_ref(s), chars)
}

/// `INSERT(s, pos, len, new)` (`Item_func_insert::resolve_type`): `s` and `new`.
pub(crate) fn insert(s: &Ty, new: &Ty) -> Ty {
    of(&[s.clone(), new.clone()], s.chars.saturating_add(new.chars))
}
