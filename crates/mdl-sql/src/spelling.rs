//! MySQL's spellings of expressions that sqlparser 0.64 does not parse, respelled as tokens it
//! parses into the AST of the same meaning (step 4 of [`crate::parse`]):
//!
//! * `a MOD b` is `a % b` (`sql_yacc.yy`: `bit_expr MOD_SYM bit_expr` and `bit_expr '%'
//!   bit_expr` are both `Item_func_mod`). sqlparser reads a `MOD` after an operand as an alias.
//!   `MOD` is the operator when the token before it ends an operand (a literal, a name, a `)`,
//!   a `?`); `MOD(a, b)` elsewhere stays the function.
//! * `INTERVAL n HOUR_MINUTE` and the other compound units (`interval` in `sql_yacc.yy`) are
//!   `INTERVAL n HOUR TO MINUTE`, the standard spelling sqlparser parses into an interval whose
//!   leading and last fields are the unit's two parts. sqlparser takes no `TO` after `SECOND`
//!   (it reads `SECOND [(p, s)]` as the standard's own form), so `SECOND_MICROSECOND` is
//!   `SECONDS TO MICROSECOND`: the one spelling of it sqlparser parses as an interval with
//!   two fields, which the server reads back as `SECOND_MICROSECOND` (MySQL itself has no
//!   `SECONDS`, so no statement of MySQL's means anything else by it).
//! * `EXTRACT(HOUR_MINUTE FROM x)` and the other compound units (`EXTRACT_SYM '(' interval
//!   FROM expr ')'` in `sql_yacc.yy`) are the call `EXTRACT('HOUR_MINUTE', x)`: sqlparser's
//!   `MySqlDialect` reads no compound unit after `EXTRACT (`, and no `TO` there either. The
//!   call has the operands of MySQL's `Item_extract` in order, unit first.
//! * `SIGNED INT` and `UNSIGNED INT` (`cast_type` in `sql_yacc.yy`: `INT_SYM` is optional after
//!   either) are `SIGNED INTEGER` and `UNSIGNED INTEGER`.
//! * `CHAR[(n)] {CHARACTER SET | CHARSET} cs` as a `CAST` / `CONVERT` type (after `AS` or a
//!   comma) loses the character set: sqlparser takes none there. The cast's result is a
//!   string either way; which character set it is in is no metadata lock's business.
//! * `[DEFAULT] ENCRYPTION [=] 'N'` of `CREATE {DATABASE | SCHEMA}` (`create_database_option`
//!   in `sql_yacc.yy`), which `SHOW CREATE DATABASE` prints and dump files carry, is dropped:
//!   sqlparser reads no such option, and `'N'`, no encryption, is what every schema here has.
//!   `'Y'` is kept, and stays a syntax error: this server encrypts nothing.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

use crate::parse::is_kw;

/// MySQL's compound interval units, with the fields sqlparser spells them with (the first
/// with `SECONDS`, see the module docs).
const COMPOUND_UNITS: [(&str, &str, &str); 11] = [
    ("SECOND_MICROSECOND", "SECONDS", "MICROSECOND"),
    ("MINUTE_MICROSECOND", "MINUTE", "MICROSECOND"),
    ("MINUTE_SECOND", "MINUTE", "SECOND"),
    ("HOUR_MICROSECOND", "HOUR", "MICROSECOND"),
    ("HOUR_SECOND", "HOUR", "SECOND"),
    ("HOUR_MINUTE", "HOUR", "MINUTE"),
    ("DAY_MICROSECOND", "DAY", "MICROSECOND"),
    ("DAY_SECOND", "DAY", "SECOND"),
    ("DAY_MINUTE", "DAY", "MINUTE"),
    ("DAY_HOUR", "DAY", "HOUR"),
    ("YEAR_MONTH", "YEAR", "MONTH"),
];

/// Keywords after which an expression starts: a `MOD` after one of them is the function.
const BEFORE_EXPRESSIONS: [Keyword; 30] = [
    Keyword::SELECT,
    Keyword::WHERE,
    Keyword::AND,
    Keyword::OR,
    Keyword::NOT,
    Keyword::XOR,
    Keyword::ON,
    Keyword::BY,
    Keyword::HAVING,
    Keyword::WHEN,
    Keyword::THEN,
    Keyword::ELSE,
    Keyword::CASE,
    Keyword::SET,
    Keyword::IN,
    Keyword::IS,
    Keyword::LIKE,
    Keyword::BETWEEN,
    Keyword::DISTINCT,
    Keyword::ALL,
    Keyword::ANY,
    Keyword::SOME,
    Keyword::EXISTS,
    Keyword::INTERVAL,
    Keyword::LIMIT,
    Keyword::OFFSET,
    Keyword::VALUES,
    Keyword::DIV,
    Keyword::MOD,
    Keyword::REGEXP,
];

/// Respells `t` in place (see the module docs).
pub(crate) fn respell(t: &mut Vec<TokenWithSpan>) {
    let mut i = 1;
    while i < t.len() {
        if is_kw(&t[i], "MOD") && ends_operand(&t[i - 1]) {
            t[i].token = Token::Mod;
        } else if is_kw(&t[i], "EXTRACT") && is_compound_extract(t, i) {
            t[i].token = Token::Word(Word {
                value: "EXTRACT".into(),
                quote_style: None,
                keyword: Keyword::NoKeyword,
            });
            t[i + 2].token =
                Token::SingleQuotedString(compound_unit(&t[i + 2]).map_or("", |u| u.0).into());
            t[i + 3].token = Token::Comma;
            i += 3;
        } else if let Some((_, lead, last)) = compound_unit(&t[i]) {
            if follows_interval_operand(t, i) {
                let to = |w: &str| TokenWithSpan::new(Token::make_keyword(w), t[i].span);
                let spelt = [to(lead), to("TO"), to(last)];
                t.splice(i..=i, spelt);
                i += 2;
            }
        } else if is_kw(&t[i], "INT")
            && (is_kw(&t[i - 1], "SIGNED") || is_kw(&t[i - 1], "UNSIGNED"))
        {
            t[i].token = Token::make_keyword("INTEGER");
        } else if is_kw(&t[i], "CHAR") && (t[i - 1].token == Token::Comma || is_kw(&t[i - 1], "AS"))
        {
            drop_charset(t, i);
        } else if is_kw(&t[i], "ENCRYPTION") && creates_schema(t) {
            i -= drop_no_encryption(t, i);
        }
        i += 1;
    }
}

/// Whether `t` starts `CREATE DATABASE` or `CREATE SCHEMA`.
fn creates_schema(t: &[TokenWithSpan]) -> bool {
    t.first().is_some_and(|c| is_kw(c, "CREATE"))
        && t.get(1)
            .is_some_and(|d| is_kw(d, "DATABASE") || is_kw(d, "SCHEMA"))
}

/// Drops `[DEFAULT] ENCRYPTION [=] 'N'` around the `ENCRYPTION` at `t[at]`; how many tokens
/// before `at` went (the `DEFAULT`).
fn drop_no_encryption(t: &mut Vec<TokenWithSpan>, at: usize) -> usize {
    let mut value = at + 1;
    if t.get(value).is_some_and(|e| e.token == Token::Eq) {
        value += 1;
    }
    let no = matches!(t.get(value).map(|v| &v.token),
        Some(Token::SingleQuotedString(v) | Token::DoubleQuotedString(v)) if v.eq_ignore_ascii_case("n"));
    if !no {
        return 0;
    }
    let default = usize::from(is_kw(&t[at - 1], "DEFAULT"));
    t.drain(at - default..=value);
    default + 1
}

/// Whether `t` ends an operand: a literal, a name, a `)`, a `?`.
fn ends_operand(t: &TokenWithSpan) -> bool {
    match &t.token {
        Token::Number(..)
        | Token::SingleQuotedString(_)
        | Token::DoubleQuotedString(_)
        | Token::RParen
        | Token::Placeholder(_) => true,
        Token::Word(w) => w.quote_style.is_some() || !BEFORE_EXPRESSIONS.contains(&w.keyword),
        _ => false,
    }
}

/// The compound unit `t` names, unquoted.
fn compound_unit(t: &TokenWithSpan) -> Option<&'static (&'static str, &'static str, &'static str)> {
    (COMPOUND_UNITS.iter()).find(|(name, _, _)| is_kw(t, name))
}

/// Whether `t[at]` (an `EXTRACT`) starts `EXTRACT ( compound-unit FROM`.
fn is_compound_extract(t: &[TokenWithSpan], at: usize) -> bool {
    t.get(at + 1).is_some_and(|p| p.token == Token::LParen)
        && t.get(at + 2).is_some_and(|u| compound_unit(u).is_some())
        && t.get(at + 3).is_some_and(|f| is_kw(f, "FROM"))
}

/// Whether the tokens before `t[unit]` are `INTERVAL` and an operand: a literal, a name or a
/// `?`, with an optional sign, or a parenthesized expression.
fn follows_interval_operand(t: &[TokenWithSpan], unit: usize) -> bool {
    let mut at = unit - 1;
    if t[at].token == Token::RParen {
        let mut depth = 0;
        loop {
            match t[at].token {
                Token::RParen => depth += 1,
                Token::LParen => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
            if at == 0 {
                return false;
            }
            at -= 1;
        }
    } else if !ends_operand(&t[at]) {
        return false;
    }
    if at > 0 && matches!(t[at - 1].token, Token::Minus | Token::Plus) {
        at -= 1;
    }
    at > 0 && is_kw(&t[at - 1], "INTERVAL")
}

/// Drops `CHARACTER SET cs` or `CHARSET cs` after the `CHAR` or `CHAR(n)` at `t[char]`.
fn drop_charset(t: &mut Vec<TokenWithSpan>, char: usize) {
    let mut at = char + 1;
    if t.get(at).is_some_and(|l| l.token == Token::LParen)
        && t.get(at + 2).is_some_and(|r| r.token == Token::RParen)
    {
        at += 3;
    }
    let words = match t.get(at) {
        Some(c) if is_kw(c, "CHARSET") => 2,
        Some(c) if is_kw(c, "CHARACTER") && t.get(at + 1).is_some_and(|s| is_kw(s, "SET")) => 3,
        _ => return,
    };
    if t.get(at + words - 1)
        .is_some_and(|n| matches!(n.token, Token::Word(_)))
    {
        t.drain(at..at + words);
    }
}

#[cfg(test)]
mod tests {
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::tokenizer::Tokenizer;

    use super::*;

    fn respelt(sql: &str) -> String {
        let mut t: Vec<TokenWithSpan> = (Tokenizer::new(&MySqlDialect {}, sql))
            .tokenize_with_location()
            .unwrap()
            .into_iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .collect();
        respell(&mut t);
        let words: Vec<String> = t.iter().map(|t| t.token.to_string()).collect();
        words.join(" ")
    }

    #[test]
    fn mod_is_the_operator_after_an_operand_only() {
        assert_eq!(respelt("SELECT 5 MOD 2"), "SELECT 5 % 2");
        assert_eq!(
            respelt("SELECT a mod (b + 1) FROM t"),
            "SELECT a % ( b + 1 ) FROM t"
        );
        assert_eq!(respelt("SELECT (a) MOD ?"), "SELECT ( a ) % ?");
        assert_eq!(respelt("SELECT MOD(5, 2)"), "SELECT MOD ( 5 , 2 )");
        assert_eq!(
            respelt("SELECT 1 WHERE MOD(a, 2) = 1"),
            "SELECT 1 WHERE MOD ( a , 2 ) = 1"
        );
        assert_eq!(respelt("SELECT `mod` FROM t"), "SELECT `mod` FROM t");
    }

    #[test]
    fn compound_units_after_an_interval_operand() {
        assert_eq!(
            respelt("SELECT d + INTERVAL '1:30' HOUR_MINUTE"),
            "SELECT d + INTERVAL '1:30' HOUR TO MINUTE"
        );
        assert_eq!(
            respelt("SELECT DATE_ADD(d, INTERVAL -? year_month)"),
            "SELECT DATE_ADD ( d , INTERVAL - ? YEAR TO MONTH )"
        );
        assert_eq!(
            respelt("SELECT d - INTERVAL (n + 1) DAY_SECOND"),
            "SELECT d - INTERVAL ( n + 1 ) DAY TO SECOND"
        );
        assert_eq!(respelt("SELECT day_hour FROM t"), "SELECT day_hour FROM t");
        assert_eq!(
            respelt("SELECT d + INTERVAL '1.5' SECOND_MICROSECOND"),
            "SELECT d + INTERVAL '1.5' SECONDS TO MICROSECOND"
        );
    }

    #[test]
    fn extract_of_a_compound_unit_is_a_call() {
        assert_eq!(
            respelt("SELECT EXTRACT(hour_minute FROM d), EXTRACT(SECOND_MICROSECOND FROM ?)"),
            "SELECT EXTRACT ( 'HOUR_MINUTE' , d ) , EXTRACT ( 'SECOND_MICROSECOND' , ? )"
        );
        assert_eq!(
            respelt("SELECT EXTRACT(HOUR FROM d)"),
            "SELECT EXTRACT ( HOUR FROM d )"
        );
    }

    #[test]
    fn no_encryption_of_a_new_schema_is_dropped() {
        assert_eq!(
            respelt("CREATE DATABASE d DEFAULT CHARACTER SET utf8mb4 DEFAULT ENCRYPTION='N'"),
            "CREATE DATABASE d DEFAULT CHARACTER SET utf8mb4"
        );
        assert_eq!(
            respelt("CREATE SCHEMA d ENCRYPTION 'n' COLLATE utf8mb4_bin"),
            "CREATE SCHEMA d COLLATE utf8mb4_bin"
        );
        assert_eq!(
            respelt("CREATE DATABASE d ENCRYPTION = 'Y'"),
            "CREATE DATABASE d ENCRYPTION = 'Y'"
        );
        assert_eq!(
            respelt("SELECT encryption FROM t"),
            "SELECT encryption FROM t"
        );
    }

    #[test]
    fn cast_types() {
        assert_eq!(
            respelt("SELECT CAST(a AS UNSIGNED INT), CONVERT(b, SIGNED INT)"),
            "SELECT CAST ( a AS UNSIGNED INTEGER ) , CONVERT ( b , SIGNED INTEGER )"
        );
        assert_eq!(
            respelt(
                "SELECT CAST(a AS CHAR CHARACTER SET utf8mb4), CONVERT(b, CHAR(3) CHARSET latin1)"
            ),
            "SELECT CAST ( a AS CHAR ) , CONVERT ( b , CHAR ( 3 ) )"
        );
        assert_eq!(
            respelt("CREATE TABLE t (c CHAR(3) CHARACTER SET utf8mb4)"),
            "CREATE TABLE t ( c CHAR ( 3 ) CHARACTER SET utf8mb4 )"
        );
    }
}
