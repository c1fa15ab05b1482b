//! `GET [CURRENT | STACKED] DIAGNOSTICS` at top level, as MySQL 8.0 runs it outside a stored
//! program (`Sql_cmd_get_diagnostics::execute`, `sql/sql_get_diagnostics.cc`): it copies what
//! the diagnostics area (the parent module) holds into user variables, and leaves the area as
//! it was (a diagnostic statement, like `SHOW WARNINGS`).
//!
//! * `GET DIAGNOSTICS @a = NUMBER, @b = ROW_COUNT`: how many conditions the area lists
//!   (`Diagnostics_area::cond_count`, at most `max_error_count`), and `ROW_COUNT()`.
//! * `GET DIAGNOSTICS CONDITION n @c = MYSQL_ERRNO, @m = MESSAGE_TEXT, ...`: the `n`th listed
//!   condition's items (`Condition_information_item::get_value`); `n` a number, a string, or a
//!   user variable. `CLASS_ORIGIN` / `SUBCLASS_ORIGIN` are `ISO 9075` or `MySQL` by the
//!   SQLSTATE (`Sql_condition::set_class_origins`, `sql/sql_error.cc`); the catalog, schema,
//!   table, column, constraint and cursor names are empty, as MySQL's are for a condition no
//!   `SIGNAL` named.
//! * A condition number out of range is not the statement's error: MySQL appends
//!   `ER_DA_INVALID_CONDITION_NUMBER` (1758) to the area as an Error-level condition and the
//!   statement succeeds with 1 warning (`Condition_information::aggregate`'s error is not
//!   fatal). `STACKED` outside a handler (there are none here) fails with
//!   `ER_GET_STACKED_DA_WITHOUT_ACTIVE_HANDLER` (3004), a fatal error MySQL sets as the status
//!   without listing it, so the area still lists what it did.
//! * `sqlparser` has no `GET DIAGNOSTICS`: [`recognize`] reads the text with its tokenizer
//!   (as `sql_prepare.rs` does `PREPARE`); a malformed one is 1064, a target that is not a
//!   user variable 1327 (`ER_SP_UNDECLARED_VAR`), and either clears the area to hold it, as
//!   other parse errors do.
//! * It cannot be prepared (`COM_STMT_PREPARE`, `PREPARE s FROM '...'`): MySQL 8.0 refuses to
//!   prepare a statement that keeps the diagnostics area (`check_prepared_statement`,
//!   `sql/sql_prepare.cc`: `keep_diagnostics` is `DA_KEEP_DIAGNOSTICS`, and
//!   `sql_command_flags[SQLCOM_GET_DIAGNOSTICS]` is `CF_DIAGNOSTIC_STMT`, not a status command)
//!   with `ER_UNSUPPORTED_PS` (1295), after the parse: a malformed one is its syntax error
//!   ([`refuse_prepare`]). Preparing clears the area, so a prepared one would read nothing.
//! * It counts as `Com_get_diagnostics` once parsed (`connection.rs`), as MySQL counts
//!   `com_stat[SQLCOM_GET_DIAGNOSTICS]` in `mysql_execute_command`, even when it then fails.

use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use super::{Condition, Level};
use crate::error::ServerError;
use crate::session_values::SessionValues;
use crate::wire::{Cell, Output};

/// A parsed `GET DIAGNOSTICS` (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct GetDiagnostics {
    /// `STACKED` (rather than `[CURRENT]`).
    stacked: bool,
    /// `CONDITION n`: `n`; `None` for the statement's items.
    condition: Option<Number>,
    /// The targets (`@name`) and the items they get.
    items: Vec<(String, Item)>,
}

/// A condition number.
#[derive(Debug, Clone, PartialEq)]
enum Number {
    /// A literal (a string's leading digits, as `val_int` reads it).
    Literal(i64),
    /// A user variable's value.
    Variable(String),
}

/// The statement's items.
const STATEMENT_ITEMS: [&str; 2] = ["NUMBER", "ROW_COUNT"];
/// A condition's items.
const CONDITION_ITEMS: [&str; 13] = [
    "CLASS_ORIGIN",
    "SUBCLASS_ORIGIN",
    "RETURNED_SQLSTATE",
    "MESSAGE_TEXT",
    "MYSQL_ERRNO",
    "CONSTRAINT_CATALOG",
    "CONSTRAINT_SCHEMA",
    "CONSTRAINT_NAME",
    "CATALOG_NAME",
    "SCHEMA_NAME",
    "TABLE_NAME",
    "COLUMN_NAME",
    "CURSOR_NAME",
];

/// An item: one of [`STATEMENT_ITEMS`] or [`CONDITION_ITEMS`].
type Item = &'static str;

/// `Some` if `text` is a `GET ... DIAGNOSTICS` statement (module docs): what it asks, or its
/// syntax error. Every text query passes here: a look at three bytes.
pub fn recognize(text: &str) -> Option<Result<GetDiagnostics, ServerError>> {
    let head = text.trim_start().get(..3)?;
    if !head.eq_ignore_ascii_case("GET") {
        return None;
    }
    let tokens = Tokenizer::new(&MySqlDialect {}, text).tokenize().ok()?;
    let t: Vec<&Token> = (tokens.iter())
        .filter(|t| !matches!(t, Token::Whitespace(_) | Token::SemiColon))
        .collect();
    let word = |i: usize| match t.get(i) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.as_str()),
        _ => None,
    };
    let is = |i: usize, kw: &str| word(i).is_some_and(|w| w.eq_ignore_ascii_case(kw));
    if !is(0, "GET") {
        return None;
    }
    // 1064 near the `i`th token and what follows, as MySQL quotes it.
    let near = |i: usize| {
        let rest: Vec<String> = t.iter().skip(i).map(|t| t.to_string()).collect();
        ServerError::parse(&rest.join(" "))
    };
    let mut i = 1;
    let stacked = is(i, "STACKED");
    if stacked || is(i, "CURRENT") {
        i += 1;
    }
    if !is(i, "DIAGNOSTICS") {
        return Some(Err(near(i)));
    }
    i += 1;
    let mut condition = None;
    let mut names: &[&str] = &STATEMENT_ITEMS;
    if is(i, "CONDITION") {
        condition = Some(match t.get(i + 1) {
            Some(Token::Number(n, _)) => Number::Literal(leading_int(n)),
            Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => {
                Number::Literal(leading_int(s))
            }
            Some(Token::Word(w)) if w.value.starts_with('@') && w.value.len() > 1 => {
                Number::Variable(w.value.clone())
            }
            _ => return Some(Err(near(i + 1))),
        });
        names = &CONDITION_ITEMS;
        i += 2;
    }
    let mut items = Vec::new();
    loop {
        let target = match t.get(i) {
            Some(Token::Word(w)) if w.value.starts_with('@') && w.value.len() > 1 => {
                w.value.clone()
            }
            // A routine's variable, of which the top level has none.
            Some(Token::Word(w))
                if w.quote_style.is_none() && t.get(i + 1) == Some(&&Token::Eq) =>
            {
                let message = format!("Undeclared variable: {}", w.value);
                return Some(Err(ServerError::new(1327, "42000", message)));
            }
            _ => return Some(Err(near(i))),
        };
        if t.get(i + 1) != Some(&&Token::Eq) {
            return Some(Err(near(i + 1)));
        }
        let Some(item) =
            (names.iter()).find(|n| word(i + 2).is_some_and(|w| w.eq_ignore_ascii_case(n)))
        else {
            return Some(Err(near(i + 2)));
        };
        items.push((target, *item));
        i += 3;
        match t.get(i) {
            None => break,
            Some(Token::Comma) => i += 1,
            Some(_) => return Some(Err(near(i))),
        }
    }
    Some(Ok(GetDiagnostics {
        stacked,
        condition,
        items,
    }))
}

/// What preparing `get` fails with (module docs): its own syntax error, else 1295.
pub fn refuse_prepare(get: Result<GetDiagnostics, ServerError>) -> ServerError {
    match get {
        Ok(_) => ServerError::new(
            1295,
            "HY000",
            "This command is not supported in the prepared statement protocol yet",
        ),
        Err(e) => e,
    }
}

/// The integer `s` starts with (0 if none), as MySQL's `val_int` of a string or a number
/// literal reads it (a fraction rounds: `1.5` is 2).
fn leading_int(s: &str) -> i64 {
    let s = s.trim_start();
    if let Ok(f) = s.parse::<f64>() {
        return f.round() as i64;
    }
    let end = (s.char_indices())
        .find(|&(k, c)| !(c.is_ascii_digit() || (k == 0 && (c == '-' || c == '+'))))
        .map_or(s.len(), |(k, _)| k);
    s[..end].parse().unwrap_or(0)
}

/// `CLASS_ORIGIN` and `SUBCLASS_ORIGIN` of `sqlstate` (`Sql_condition::set_class_origins`): a
/// class of SQL's (first character `0`-`4` or `A`-`H`, second `0`-`9` or `A`-`Z`) is `ISO
/// 9075`'s, and so is its subclass if that is `000`; the rest are `MySQL`'s.
fn origins(sqlstate: &str) -> (&'static str, &'static str) {
    let b = sqlstate.as_bytes();
    let (c0, c1) = (
        b.first().copied().unwrap_or(0),
        b.get(1).copied().unwrap_or(0),
    );
    let standard = matches!(c0, b'0'..=b'4' | b'A'..=b'H') && c1.is_ascii_alphanumeric();
    match (standard, b.get(2..5) == Some(b"000")) {
        (true, true) => ("ISO 9075", "ISO 9075"),
        (true, false) => ("ISO 9075", "MySQL"),
        (false, _) => ("MySQL", "MySQL"),
    }
}

/// Runs `get` (or answers its syntax error) on the session's `values`: the area kept, its
/// items into the targets (module docs).
///
/// # Errors
/// 3004 for `STACKED`; `get`'s own syntax error.
pub fn run(
    get: Result<GetDiagnostics, ServerError>,
    values: &mut SessionValues,
) -> Result<Output, ServerError> {
    let get = match get {
        Ok(g) => g,
        Err(e) => {
            values.diagnostics.begin(false);
            values.diagnostics.error(&e);
            return Err(e);
        }
    };
    values.diagnostics.begin(true);
    if get.stacked {
        return Err(ServerError::new(
            3004,
            "0Z002",
            "GET STACKED DIAGNOSTICS when handler not active",
        ));
    }
    let area = &values.diagnostics;
    let listed = area.conditions(false).count();
    let mut assigned: Vec<(String, Cell)> = Vec::with_capacity(get.items.len());
    match &get.condition {
        None => {
            for (target, item) in &get.items {
                let v = match *item {
                    "NUMBER" => Cell::Int(listed as i64),
                    _ => Cell::Int(values.row_count),
                };
                assigned.push((target.clone(), v));
            }
        }
        Some(n) => {
            let n = match n {
                Number::Literal(n) => *n,
                Number::Variable(v) => match values.user_var(v) {
                    Cell::Int(i) => i,
                    Cell::Real(r) => r.round() as i64,
                    Cell::Null => 0,
                    other => leading_int(&other.text().unwrap_or_default()),
                },
            };
            let found = usize::try_from(n)
                .ok()
                .filter(|&n| n >= 1 && n <= listed)
                .and_then(|n| area.conditions(false).nth(n - 1));
            let Some(c) = found else {
                // Appended to the area, not the statement's error (module docs).
                values.diagnostics.raise(Condition {
                    level: Level::Error,
                    code: 1758,
                    sqlstate: "35000",
                    message: "Invalid condition number".to_string(),
                });
                return Ok(Output::OK);
            };
            let (class, subclass) = origins(c.sqlstate);
            for (target, item) in &get.items {
                let text = |s: &str| Cell::Text(s.to_string());
                let v = match *item {
                    "CLASS_ORIGIN" => text(class),
                    "SUBCLASS_ORIGIN" => text(subclass),
                    "RETURNED_SQLSTATE" => text(c.sqlstate),
                    "MESSAGE_TEXT" => text(&c.message),
                    "MYSQL_ERRNO" => Cell::Int(i64::from(c.code)),
                    _ => text(""),
                };
                assigned.push((target.clone(), v));
            }
        }
    }
    for (target, v) in assigned {
        values.set_user_var(&target, v);
    }
    Ok(Output::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Option<Result<GetDiagnostics, u16>> {
        recognize(text).map(|r| r.map_err(|e| e.code))
    }

    #[test]
    fn the_statement_s_forms() {
        let g = parsed("get diagnostics @n = NUMBER, @r = row_count;")
            .unwrap()
            .unwrap();
        assert!(!g.stacked && g.condition.is_none());
        assert_eq!(
            g.items,
            [("@n".into(), "NUMBER"), ("@r".into(), "ROW_COUNT")]
        );
        let g = parsed("GET CURRENT DIAGNOSTICS CONDITION 2 @e = MYSQL_ERRNO").unwrap();
        assert_eq!(g.unwrap().condition, Some(Number::Literal(2)));
        let g = parsed("GET STACKED DIAGNOSTICS CONDITION @k @m = MESSAGE_TEXT").unwrap();
        let g = g.unwrap();
        assert!(g.stacked);
        assert_eq!(g.condition, Some(Number::Variable("@k".into())));
        for bad in [
            "GET DIAGNOSTIC @n = NUMBER",
            "GET DIAGNOSTICS @n = MESSAGE_TEXT",
            "GET DIAGNOSTICS CONDITION 1 @n = NUMBER",
            "GET DIAGNOSTICS @n = NUMBER,",
            "GET DIAGNOSTICS @n NUMBER",
            "GET DIAGNOSTICS CONDITION @e = MYSQL_ERRNO",
        ] {
            assert_eq!(parsed(bad), Some(Err(1064)), "{bad}");
        }
        assert_eq!(parsed("GET DIAGNOSTICS n = NUMBER"), Some(Err(1327)));
        assert_eq!(parsed("SELECT 1"), None);
        assert_eq!(parsed("GETX"), None);
    }

    #[test]
    fn origins_follow_the_sqlstate_s_class() {
        assert_eq!(origins("22012"), ("ISO 9075", "MySQL"));
        assert_eq!(origins("42000"), ("ISO 9075", "ISO 9075"));
        // `H` is among SQL's class letters: MySQL says `ISO 9075` for `HY000` too.
        assert_eq!(origins("HY000"), ("ISO 9075", "ISO 9075"));
        assert_eq!(origins("XAE05"), ("MySQL", "MySQL"));
        assert_eq!(origins("42S02"), ("ISO 9075", "MySQL"));
    }

    #[test]
    fn numbers_read_as_val_int_reads_them() {
        assert_eq!(leading_int("3"), 3);
        assert_eq!(leading_int("1.5"), 2);
        assert_eq!(leading_int("2abc"), 2);
        assert_eq!(leading_int("x"), 0);
    }
}
