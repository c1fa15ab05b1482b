//! `ALTER TABLE t RENAME {INDEX | KEY} a TO b` and `ALTER TABLE t <table options>`, which
//! sqlparser 0.64 (`MySqlDialect`) rejects.
//!
//! The grammar is MySQL's `sql/sql_yacc.yy`: `alter_list` is comma-separated items, an item
//! `RENAME key_or_index ident TO_SYM ident` (`alter_list_item`), `CONVERT_SYM TO_SYM charset
//! charset_name_or_default opt_collate`, `alter_commands_modifier` (`ALGORITHM_SYM opt_equal
//! ident`, `LOCK_SYM opt_equal ident`), or a space-separated run of table options
//! (`create_table_options_space_separated`, `create_table_option`): the ones recognized here
//! are `COMMENT`, `ROW_FORMAT`, `[DEFAULT] {CHARSET | CHARACTER SET | CHAR SET}`, `[DEFAULT]
//! COLLATE`, `KEY_BLOCK_SIZE`, `STATS_PERSISTENT`, `STATS_AUTO_RECALC`, `STATS_SAMPLE_PAGES`,
//! `PACK_KEYS`, `CHECKSUM`, `TABLE_CHECKSUM`, `DELAY_KEY_WRITE`, `MAX_ROWS`, `MIN_ROWS`,
//! `AVG_ROW_LENGTH` and `ENGINE`, each `[=] value`.
//!
//! A statement of only those items is recognized; one with a `RENAME INDEX` and anything but
//! `ALGORITHM` / `LOCK` is refused with 1235 (several operations in one ALTER TABLE are
//! supported by sqlparser's statement, which has no `RENAME INDEX`); anything else is left to
//! sqlparser. A character set MySQL does not know is its parser's 1115
//! (`ER_UNKNOWN_CHARACTER_SET`, `charset_name` in `sql_yacc.yy`: `get_charset_by_csname`).

use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::error::SqlError;
use crate::parse::{is_kw, Statement};

/// MySQL 8.0's character sets (`SHOW CHARACTER SET`), with `utf8` (`utf8mb3`'s alias).
const CHARSETS: [&str; 42] = [
    "armscii8", "ascii", "big5", "binary", "cp1250", "cp1251", "cp1256", "cp1257", "cp850",
    "cp852", "cp866", "cp932", "dec8", "eucjpms", "euckr", "gb18030", "gb2312", "gbk", "geostd8",
    "greek", "hebrew", "hp8", "keybcs2", "koi8r", "koi8u", "latin1", "latin2", "latin5", "latin7",
    "macce", "macroman", "sjis", "swe7", "tis620", "ucs2", "ujis", "utf16", "utf16le", "utf32",
    "utf8", "utf8mb3", "utf8mb4",
];

/// Table options whose value is a number (`ulong_num`).
const NUMBER_OPTIONS: [&str; 7] = [
    "KEY_BLOCK_SIZE",
    "CHECKSUM",
    "TABLE_CHECKSUM",
    "DELAY_KEY_WRITE",
    "MAX_ROWS",
    "MIN_ROWS",
    "AVG_ROW_LENGTH",
];

/// Table options whose value is a number or `DEFAULT` (`ternary_option`).
const TERNARY_OPTIONS: [&str; 4] = [
    "STATS_PERSISTENT",
    "STATS_AUTO_RECALC",
    "STATS_SAMPLE_PAGES",
    "PACK_KEYS",
];

/// `row_types`.
const ROW_FORMATS: [&str; 6] = [
    "DEFAULT",
    "FIXED",
    "DYNAMIC",
    "COMPRESSED",
    "REDUNDANT",
    "COMPACT",
];

/// One item of the statement's `alter_list`.
enum Item {
    /// `ALGORITHM` or `LOCK`.
    Modifier,
    /// `RENAME {INDEX | KEY} a TO b`.
    Rename(String, String),
    /// `CONVERT TO CHARACTER SET x`: the character set, lower case.
    Convert(String),
    /// Table options.
    Options,
}

/// `Some` if the statement is one of the module docs'.
pub(crate) fn recognize(t: &[TokenWithSpan]) -> Option<Result<Statement, SqlError>> {
    let kw = |i: usize, k: &str| t.get(i).is_some_and(|x| is_kw(x, k));
    if !(kw(0, "ALTER") && kw(1, "TABLE")) {
        return None;
    }
    let (schema, table, next) = match (super::ident(t, 2), t.get(3).map(|x| &x.token)) {
        (Some(s), Some(Token::Period)) => (Some(s), super::ident(t, 4)?, 5),
        (Some(n), _) => (None, n, 3),
        _ => return None,
    };
    if next >= t.len() {
        return None;
    }
    let mut items = Vec::new();
    let mut unknown = false;
    for segment in t[next..].split(|x| x.token == Token::Comma) {
        match item(segment) {
            Some(Ok(i)) => items.push(i),
            Some(Err(e)) => return Some(Err(e)),
            None => unknown = true,
        }
    }
    let renames: Vec<(String, String)> = (items.iter())
        .filter_map(|i| match i {
            Item::Rename(a, b) => Some((a.clone(), b.clone())),
            _ => None,
        })
        .collect();
    let others = (items.iter()).any(|i| matches!(i, Item::Options | Item::Convert(_)));
    if !renames.is_empty() {
        if unknown || others || renames.len() > 1 {
            return Some(Err(SqlError::not_supported(
                "RENAME INDEX with other ALTER TABLE operations",
            )));
        }
        let (from, to) = renames.into_iter().next()?;
        return Some(Ok(Statement::AlterTableRenameIndex {
            schema,
            table,
            from,
            to,
        }));
    }
    if unknown || !others {
        return None;
    }
    let mut converts = items.iter().filter_map(|i| match i {
        Item::Convert(c) => Some(c.clone()),
        _ => None,
    });
    let convert_to = converts.next();
    if converts.next().is_some() {
        return Some(Err(SqlError::not_supported(
            "more than one CONVERT TO CHARACTER SET",
        )));
    }
    Some(Ok(Statement::AlterTableOptions {
        schema,
        table,
        convert_to,
    }))
}

/// What one comma-separated segment is (`None`: not one of ours).
fn item(s: &[TokenWithSpan]) -> Option<Result<Item, SqlError>> {
    let kw = |i: usize, k: &str| s.get(i).is_some_and(|x| is_kw(x, k));
    if kw(0, "ALGORITHM") || kw(0, "LOCK") {
        let v = if s.get(1)?.token == Token::Eq { 2 } else { 1 };
        return (v + 1 == s.len() && word(s, v).is_some()).then_some(Ok(Item::Modifier));
    }
    if kw(0, "RENAME") && (kw(1, "INDEX") || kw(1, "KEY")) && kw(3, "TO") && s.len() == 5 {
        let (a, b) = (super::ident(s, 2)?, super::ident(s, 4)?);
        return Some(Ok(Item::Rename(a, b)));
    }
    if kw(0, "CONVERT") && kw(1, "TO") {
        let mut i = 2;
        let cs = match charset(s, &mut i)? {
            Ok(cs) => cs,
            Err(e) => return Some(Err(e)),
        };
        if kw(i, "COLLATE") {
            i += 1;
            value(s, &mut i)?;
        }
        return (i == s.len()).then_some(Ok(Item::Convert(cs)));
    }
    let mut i = 0;
    while i < s.len() {
        if let Err(e) = option(s, &mut i)? {
            return Some(Err(e));
        }
    }
    Some(Ok(Item::Options))
}

/// One table option from `*i`, `*i` moved past it (`None`: not one).
fn option(s: &[TokenWithSpan], i: &mut usize) -> Option<Result<(), SqlError>> {
    let kw = |i: usize, k: &str| s.get(i).is_some_and(|x| is_kw(x, k));
    let is_charset =
        |i: usize| kw(i, "CHARSET") || ((kw(i, "CHARACTER") || kw(i, "CHAR")) && kw(i + 1, "SET"));
    if kw(*i, "DEFAULT") && (is_charset(*i + 1) || kw(*i + 1, "COLLATE")) {
        *i += 1;
    }
    if is_charset(*i) {
        return Some(charset(s, i)?.map(drop));
    }
    let name = s.get(*i).and_then(|x| match &x.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    })?;
    *i += 1;
    let v = value(s, i)?;
    let ok = match name.as_str() {
        "COMMENT" => matches!(
            v,
            Token::SingleQuotedString(_) | Token::DoubleQuotedString(_)
        ),
        "ROW_FORMAT" => {
            matches!(v, Token::Word(w) if ROW_FORMATS.contains(&w.value.to_ascii_uppercase().as_str()))
        }
        "COLLATE" | "ENGINE" => matches!(v, Token::Word(_) | Token::SingleQuotedString(_)),
        n if NUMBER_OPTIONS.contains(&n) => matches!(v, Token::Number(..)),
        n if TERNARY_OPTIONS.contains(&n) => {
            matches!(v, Token::Number(..))
                || matches!(v, Token::Word(w) if w.value.eq_ignore_ascii_case("DEFAULT"))
        }
        _ => false,
    };
    ok.then_some(Ok(()))
}

/// `{CHARSET | CHARACTER SET | CHAR SET} [=] name` from `*i`: the name, lower case (`utf8`
/// as `utf8mb3`; `default` as is). `None`: not that; 1115 for a name MySQL does not know.
fn charset(s: &[TokenWithSpan], i: &mut usize) -> Option<Result<String, SqlError>> {
    if s.get(*i).is_some_and(|x| is_kw(x, "CHARSET")) {
        *i += 1;
    } else if s
        .get(*i)
        .is_some_and(|x| is_kw(x, "CHARACTER") || is_kw(x, "CHAR"))
        && s.get(*i + 1).is_some_and(|x| is_kw(x, "SET"))
    {
        *i += 2;
    } else {
        return None;
    }
    let name = match value(s, i)? {
        Token::Word(w) => w.value.to_ascii_lowercase(),
        Token::SingleQuotedString(v) => v.to_ascii_lowercase(),
        _ => return None,
    };
    if name == "default" {
        return Some(Ok(name));
    }
    if !CHARSETS.contains(&name.as_str()) {
        return Some(Err(SqlError::new(
            1115,
            "42000",
            format!("Unknown character set: '{name}'"),
        )));
    }
    Some(Ok(if name == "utf8" {
        "utf8mb3".into()
    } else {
        name
    }))
}

/// `[=] value` from `*i`: the value's token, `*i` moved past it.
fn value<'a>(s: &'a [TokenWithSpan], i: &mut usize) -> Option<&'a Token> {
    if s.get(*i)?.token == Token::Eq {
        *i += 1;
    }
    let v = &s.get(*i)?.token;
    *i += 1;
    Some(v)
}

fn word(s: &[TokenWithSpan], i: usize) -> Option<&str> {
    match &s.get(i)?.token {
        Token::Word(w) => Some(&w.value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse, Statement};
    use crate::recognize::tests::stmt;

    #[test]
    fn rename_index() {
        assert_eq!(
            stmt("ALTER TABLE db.t RENAME INDEX a TO `b c`"),
            Statement::AlterTableRenameIndex {
                schema: Some("db".into()),
                table: "t".into(),
                from: "a".into(),
                to: "b c".into(),
            }
        );
        for sql in [
            "alter table t rename key a to b, algorithm = inplace",
            "ALTER TABLE t ALGORITHM=INPLACE, LOCK=NONE, RENAME INDEX a TO b",
        ] {
            assert!(
                matches!(
                    stmt(sql),
                    Statement::AlterTableRenameIndex { schema: None, .. }
                ),
                "{sql}"
            );
        }
        for sql in [
            "ALTER TABLE t RENAME INDEX a TO b, RENAME INDEX c TO d",
            "ALTER TABLE t RENAME INDEX a TO b, ADD COLUMN c INT",
            "ALTER TABLE t RENAME INDEX a TO b, COMMENT 'x'",
        ] {
            assert_eq!(parse(sql).unwrap_err().code(), 1235, "{sql}");
        }
        for sql in [
            "ALTER TABLE t RENAME INDEX a",
            "ALTER TABLE t RENAME INDEX a TO",
        ] {
            assert_eq!(parse(sql).unwrap_err().code(), 1064, "{sql}");
        }
    }

    #[test]
    fn table_options() {
        let options = |sql: &str| match stmt(sql) {
            Statement::AlterTableOptions { convert_to, .. } => convert_to,
            other => panic!("{sql}: {other:?}"),
        };
        for sql in [
            "ALTER TABLE t COMMENT 'orders'",
            "ALTER TABLE t COMMENT = 'x' ROW_FORMAT=DYNAMIC",
            "ALTER TABLE t DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci",
            "ALTER TABLE t CHARACTER SET latin1, COLLATE latin1_swedish_ci",
            "ALTER TABLE t KEY_BLOCK_SIZE=8, STATS_PERSISTENT=DEFAULT STATS_AUTO_RECALC 1",
            "ALTER TABLE t STATS_SAMPLE_PAGES=20 PACK_KEYS=0 CHECKSUM=1 DELAY_KEY_WRITE=1",
            "ALTER TABLE t MAX_ROWS=10 MIN_ROWS=1 AVG_ROW_LENGTH=100, ALGORITHM=INPLACE",
            "ALTER TABLE t ENGINE=InnoDB DEFAULT CHARSET=utf8mb4, LOCK=NONE",
        ] {
            assert_eq!(options(sql), None, "{sql}");
        }
        assert_eq!(
            options("ALTER TABLE t CONVERT TO CHARACTER SET utf8 COLLATE utf8_general_ci")
                .as_deref(),
            Some("utf8mb3")
        );
        assert_eq!(
            options("alter table t convert to charset LATIN1, algorithm=copy").as_deref(),
            Some("latin1")
        );
        for sql in [
            "ALTER TABLE t CONVERT TO CHARACTER SET klingon",
            "ALTER TABLE t DEFAULT CHARSET = 'nope'",
        ] {
            let e = parse(sql).unwrap_err();
            assert_eq!(e.code(), 1115, "{sql}");
        }
        assert_eq!(
            parse("ALTER TABLE t CHARSET nope").unwrap_err().message(),
            "Unknown character set: 'nope'"
        );
        // Not ours: left to sqlparser.
        for sql in [
            "ALTER TABLE t ROW_FORMAT=SIDEWAYS",
            "ALTER TABLE t COMMENT 5",
        ] {
            assert_eq!(parse(sql).unwrap_err().code(), 1064, "{sql}");
        }
        assert!(matches!(
            stmt("ALTER TABLE t ADD COLUMN c INT"),
            Statement::Sql { .. }
        ));
    }
}
