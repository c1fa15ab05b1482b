//! The `SHOW`s of one schema's tables or one table's columns and keys, with `FULL`, `LIKE` or
//! `WHERE`, as MySQL 8.0 builds them (`sql/dd/info_schema/show.cc`: `build_show_tables_query`,
//! `build_show_columns_query`, `build_show_keys_query`): a `SELECT` over
//! `information_schema.TABLES`, `COLUMNS` or `STATISTICS` under the `SHOW`'s column names, the
//! statement's `LIKE` (on the first column) or `WHERE` (on any of them) applied to those
//! names.
//!
//! * `SHOW [FULL] TABLES [{FROM | IN} db] [LIKE 'p' | WHERE expr]`: `Tables_in_<db>` (with `
//!   (p)` after it for `LIKE`, as MySQL names it), and `Table_type` with `FULL`.
//! * `SHOW [FULL] {COLUMNS | FIELDS} {FROM | IN} t [{FROM | IN} db] [LIKE 'p' | WHERE expr]`:
//!   `Field`, `Type`, `Null`, `Key`, `Default`, `Extra`; with `FULL` also `Collation` (after
//!   `Type`), `Privileges` and `Comment`.
//! * `SHOW {INDEX | INDEXES | KEYS} {FROM | IN} t [{FROM | IN} db] WHERE expr`: the columns of
//!   `SHOW INDEX` (`catalog::SHOW_INDEX_COLUMNS`). MySQL's grammar has no `LIKE` here.
//!
//! A session's temporary table, which `information_schema` does not list, is read from the rows
//! its tables would have for it (`info_schema/temporary.rs`), as MySQL reads it from
//! `TMP_TABLE_COLUMNS` and `TMP_TABLE_KEYS`.
//!
//! The plain forms (no `FULL`, `LIKE` or `WHERE`) are left to `admin.rs` and `show_table.rs`,
//! which answer them from the catalog. A table that does not exist is 1146, as there, and 1109
//! in `information_schema`. The columns of the tables of `information_schema`,
//! `performance_schema` and `sys` are in `information_schema.COLUMNS` from their definitions
//! (`info_schema.rs`, `pfs_views/columns.rs`); they have no keys.

use sqlparser::tokenizer::Token;

use super::{literal, near, tail, ShowEnv};
use crate::catalog::SHOW_INDEX_COLUMNS;
use crate::error::ServerError;

/// The `SELECT` for `tokens` (after `SHOW`) if it is one of the module docs' forms.
pub(super) fn rewrite(tokens: &[&Token], env: &ShowEnv<'_>) -> Option<Result<String, ServerError>> {
    let word = |i: usize| match tokens.get(i) {
        Some(Token::Word(w)) if w.quote_style.is_none() => w.value.to_ascii_uppercase(),
        _ => String::new(),
    };
    let full = word(0) == "FULL";
    let at = usize::from(full);
    let filtered = |rest: &[&Token]| {
        rest.iter()
            .any(|t| matches!(t, Token::Word(w) if w.quote_style.is_none() && (w.value.eq_ignore_ascii_case("LIKE") || w.value.eq_ignore_ascii_case("WHERE"))))
    };
    match word(at).as_str() {
        "TABLES" if full || filtered(&tokens[at + 1..]) => {
            Some(tables(&tokens[at + 1..], full, env))
        }
        "COLUMNS" | "FIELDS" if full || filtered(&tokens[at + 1..]) => {
            Some(columns(&tokens[at + 1..], full, env))
        }
        "INDEX" | "INDEXES" | "KEYS" if !full && filtered(&tokens[1..]) => {
            Some(keys(&tokens[1..], env))
        }
        _ => None,
    }
}

fn is_word(t: Option<&&Token>, words: &[&str]) -> bool {
    matches!(t, Some(Token::Word(w)) if w.quote_style.is_none() && words.iter().any(|k| w.value.eq_ignore_ascii_case(k)))
}

/// `{FROM | IN} db` at `rest[*i]`, if there: the name, lower case.
fn schema_clause(rest: &[&Token], i: &mut usize) -> Result<Option<String>, ServerError> {
    if !is_word(rest.get(*i), &["FROM", "IN"]) {
        return Ok(None);
    }
    match rest.get(*i + 1) {
        Some(Token::Word(db)) => {
            *i += 2;
            Ok(Some(db.value.to_ascii_lowercase()))
        }
        other => Err(near(other.copied())),
    }
}

/// The schema named, else the current one (1046 without), checked (1049).
fn schema_of(named: Option<String>, env: &ShowEnv<'_>) -> Result<String, ServerError> {
    let schema = match named {
        Some(s) => s,
        None => match env.current {
            Some(c) => c.to_ascii_lowercase(),
            None => return Err(ServerError::new(1046, "3D000", "No database selected")),
        },
    };
    if !(env.has_schema)(&schema) {
        return Err(ServerError::unknown_database(&schema));
    }
    Ok(schema)
}

/// `[LIKE 'p' | WHERE expr]` from `rest[i]` on, over `shown`'s column `like`: the `WHERE`
/// of the outer query (`like_ok`: the form takes `LIKE`), and the `LIKE` pattern's text.
fn filter(
    rest: &[&Token],
    i: usize,
    like: &str,
    like_ok: bool,
) -> Result<(String, Option<String>), ServerError> {
    match rest.get(i) {
        None => Ok((String::new(), None)),
        Some(Token::Word(w)) if like_ok && w.value.eq_ignore_ascii_case("LIKE") => {
            let pattern = match rest.get(i + 1) {
                Some(Token::SingleQuotedString(p) | Token::DoubleQuotedString(p)) => {
                    Some(p.clone())
                }
                _ => None,
            };
            let cond = tail(rest[i + 1..].iter().copied());
            Ok((format!(" WHERE `{like}` LIKE {cond}"), pattern))
        }
        Some(Token::Word(w)) if w.value.eq_ignore_ascii_case("WHERE") && rest.len() > i + 1 => {
            Ok((
                format!(" WHERE {}", tail(rest[i + 1..].iter().copied())),
                None,
            ))
        }
        other => Err(near(other.copied())),
    }
}

/// `t` or `db.t`, then `[{FROM | IN} db]`, from `rest[1]` (`rest[0]` is `FROM` / `IN`):
/// `(schema, table, next)`, the table checked (1146; 1109 in `information_schema`).
fn table_of(rest: &[&Token], env: &ShowEnv<'_>) -> Result<(String, String, usize), ServerError> {
    if !is_word(rest.first(), &["FROM", "IN"]) {
        return Err(near(rest.first().copied()));
    }
    let (mut schema, table, mut i) = match (rest.get(1), rest.get(2), rest.get(3)) {
        (Some(Token::Word(s)), Some(Token::Period), Some(Token::Word(t))) => {
            (Some(s.value.to_ascii_lowercase()), t.value.clone(), 4)
        }
        (Some(Token::Word(t)), ..) => (None, t.value.clone(), 2),
        (other, ..) => return Err(near(other.copied())),
    };
    if let Some(db) = schema_clause(rest, &mut i)? {
        schema = Some(db);
    }
    let schema = schema_of(schema, env)?;
    // `performance_schema` and `sys`: from their definitions, not from snapshots.
    if let Some(defined) = crate::pfs_views::columns::of(&schema, &table) {
        return defined.map(|(name, _)| (schema, name.to_string(), i));
    }
    if schema == crate::info_schema::SCHEMA {
        let (name, _) = crate::info_schema::table_named(&table)?;
        return Ok((schema, name.to_string(), i));
    }
    if !(env.has_table)(&schema, &table) {
        return Err(ServerError::no_such_table(&schema, &table));
    }
    Ok((schema, table, i))
}

fn tables(rest: &[&Token], full: bool, env: &ShowEnv<'_>) -> Result<String, ServerError> {
    let mut i = 0;
    let schema = schema_of(schema_clause(rest, &mut i)?, env)?;
    let mut name = format!("Tables_in_{schema}");
    let (filter, pattern) = filter(rest, i, &name, true)?;
    let inner = name.clone();
    if let Some(p) = pattern {
        name = format!("{name} ({p})");
    }
    let q = |s: &str| s.replace('`', "``");
    let ty = if full { ", `Table_type`" } else { "" };
    Ok(format!(
        "SELECT `{}` AS `{}`{ty} FROM (SELECT TABLE_NAME AS `{}`, TABLE_TYPE AS `Table_type` \
         FROM information_schema.TABLES WHERE TABLE_SCHEMA = {}) AS shown{filter} ORDER BY 1",
        q(&inner),
        q(&name),
        q(&inner),
        literal(&schema)
    ))
}

fn columns(rest: &[&Token], full: bool, env: &ShowEnv<'_>) -> Result<String, ServerError> {
    let (schema, table, i) = table_of(rest, env)?;
    let (filter, _) = filter(rest, i, "Field", true)?;
    let shown = if full {
        "`Field`, `Type`, `Collation`, `Null`, `Key`, `Default`, `Extra`, `Privileges`, `Comment`"
    } else {
        "`Field`, `Type`, `Null`, `Key`, `Default`, `Extra`"
    };
    let source = (env.temporary)(&schema, &table, "COLUMNS");
    Ok(format!(
        "SELECT {shown} FROM (SELECT COLUMN_NAME AS `Field`, COLUMN_TYPE AS `Type`, \
         COLLATION_NAME AS `Collation`, IS_NULLABLE AS `Null`, COLUMN_KEY AS `Key`, \
         COLUMN_DEFAULT AS `Default`, EXTRA AS `Extra`, PRIVILEGES AS `Privileges`, \
         COLUMN_COMMENT AS `Comment`, ORDINAL_POSITION AS pos FROM {} \
         WHERE TABLE_SCHEMA = {} AND lower(TABLE_NAME) = lower({})) AS shown{filter} ORDER BY pos",
        source.as_deref().unwrap_or("information_schema.COLUMNS"),
        literal(&schema),
        literal(&table)
    ))
}

fn keys(rest: &[&Token], env: &ShowEnv<'_>) -> Result<String, ServerError> {
    let (schema, table, i) = table_of(rest, env)?;
    let (filter, _) = filter(rest, i, "", false)?;
    const SOURCES: [&str; 15] = [
        "TABLE_NAME",
        "NON_UNIQUE",
        "INDEX_NAME",
        "SEQ_IN_INDEX",
        "COLUMN_NAME",
        "COLLATION",
        "CARDINALITY",
        "SUB_PART",
        "PACKED",
        "NULLABLE",
        "INDEX_TYPE",
        "COMMENT",
        "INDEX_COMMENT",
        "IS_VISIBLE",
        "EXPRESSION",
    ];
    let select: Vec<String> = (SOURCES.iter().zip(SHOW_INDEX_COLUMNS))
        .map(|(s, c)| format!("{s} AS `{c}`"))
        .collect();
    let shown: Vec<String> = SHOW_INDEX_COLUMNS
        .iter()
        .map(|c| format!("`{c}`"))
        .collect();
    // The rows in `STATISTICS`' order, which is `SHOW INDEX`'s (`catalog::indexes`).
    let source = (env.temporary)(&schema, &table, "STATISTICS");
    Ok(format!(
        "SELECT {} FROM (SELECT {}, rowid AS pos FROM {} \
         WHERE TABLE_SCHEMA = {} AND lower(TABLE_NAME) = lower({})) AS shown{filter} ORDER BY pos",
        shown.join(", "),
        select.join(", "),
        source.as_deref().unwrap_or("information_schema.STATISTICS"),
        literal(&schema),
        literal(&table)
    ))
}
