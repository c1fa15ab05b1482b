//! MySQL's regular expressions (manual, 14.8.2 "Regular Expressions"; source
//! `sql/item_regexp_func.cc`): `expr REGEXP pat` / `RLIKE` (the rewrite spells `RLIKE` as
//! `REGEXP`, which SQLite compiles into a call `regexp(pat, expr)`) and `REGEXP_LIKE(expr, pat
//! [, match_type])`, with the `regex` crate where MySQL uses ICU: the common syntax (classes,
//! anchors, repetition, groups, alternation) reads the same. A match is found anywhere in the
//! string; NULL in gives NULL. Matching is case-sensitive, as this server's `utf8mb4_bin`
//! collation compares (`catalog.rs`); `match_type` `i` makes it case-insensitive, `c`
//! sensitive, `m` multi-line, `n` lets `.` match a line end (the last letter of `c`/`i` wins).
//! A pattern the crate refuses is MySQL's `ER_REGEXP_*` family, error 3685 here.
//! Each statement compiles a pattern once (SQLite's auxiliary data of the argument).

use std::sync::Arc;

use regex::{Regex, RegexBuilder};
use rusqlite::functions::Context;
use rusqlite::types::Value;

use super::{flags, text};

/// Registers `REGEXP` (SQLite's operator) and `REGEXP_LIKE` on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    // `x REGEXP p` is `regexp(p, x)` in SQLite.
    db.create_scalar_function("REGEXP", 2, f, |ctx| matches(ctx, 1, 0, None))?;
    db.create_scalar_function("REGEXP_LIKE", 2, f, |ctx| matches(ctx, 0, 1, None))?;
    db.create_scalar_function("REGEXP_LIKE", 3, f, |ctx| matches(ctx, 0, 1, Some(2)))
}

/// Whether argument `subject` matches the pattern in argument `pattern` (with the match type
/// in argument `how`): 1, 0, or NULL.
fn matches(
    ctx: &Context<'_>,
    subject: usize,
    pattern: usize,
    how: Option<usize>,
) -> rusqlite::Result<Value> {
    let (Some(s), Some(_)) = (text(ctx, subject), text(ctx, pattern)) else {
        return Ok(Value::Null);
    };
    let how = match how {
        Some(i) => match text(ctx, i) {
            Some(h) => h,
            None => return Ok(Value::Null),
        },
        None => String::new(),
    };
    let re: Arc<Regex> = ctx.get_or_create_aux(pattern as i32, |v| {
        let p = v.as_str().map(str::to_string).unwrap_or_default();
        compile(&p, &how)
    })?;
    Ok(Value::Integer(i64::from(re.is_match(&s))))
}

/// The pattern with MySQL's match type applied.
fn compile(pattern: &str, how: &str) -> Result<Regex, rusqlite::Error> {
    let mut b = RegexBuilder::new(pattern);
    for c in how.chars() {
        match c {
            'i' => b.case_insensitive(true),
            'c' => b.case_insensitive(false),
            'm' => b.multi_line(true),
            'n' => b.dot_matches_new_line(true),
            _ => {
                return Err(user_error(format!(
                    "Invalid match mode flag in regular expression: '{c}'"
                )))
            }
        };
    }
    b.build()
        .map_err(|e| user_error(format!("Illegal argument to a regular expression: {e}")))
}

fn user_error(msg: String) -> rusqlite::Error {
    rusqlite::Error::UserFunctionError(msg.into())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use rusqlite::types::Value;

    #[test]
    fn regexp_matches_as_mysql() {
        let db = db();
        let i = Value::Integer;
        assert_eq!(eval(&db, "'Michael!' REGEXP '.*'"), i(1));
        assert_eq!(eval(&db, "'new*\\n*line' REGEXP 'new\\*.\\*line'"), i(0));
        assert_eq!(eval(&db, "'a' REGEXP '^[a-d]'"), i(1));
        assert_eq!(eval(&db, "'abc' REGEXP 'B'"), i(0));
        assert_eq!(eval(&db, "'abc' NOT REGEXP 'x'"), i(1));
        assert_eq!(eval(&db, "NULL REGEXP 'a'"), Value::Null);
        assert_eq!(eval(&db, "REGEXP_LIKE('CamelCase', 'CAMELCASE')"), i(0));
        assert_eq!(
            eval(&db, "REGEXP_LIKE('CamelCase', 'CAMELCASE', 'i')"),
            i(1)
        );
        assert_eq!(eval(&db, "REGEXP_LIKE('a\nb', '^b', 'm')"), i(1));
        assert_eq!(eval(&db, "REGEXP_LIKE('a', 'a', NULL)"), Value::Null);
        let bad = db.query_row("SELECT 'a' REGEXP '('", [], |r| r.get::<_, i64>(0));
        assert!(format!("{bad:?}").contains("Illegal argument"), "{bad:?}");
    }
}
