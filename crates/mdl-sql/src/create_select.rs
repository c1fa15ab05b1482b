//! `CREATE [TEMPORARY] TABLE t ... SELECT` as MySQL 8.0 writes it and sqlparser 0.64 does not
//! read (1064); these steps of [`crate::parse`] write it as sqlparser reads it, meaning the same:
//!
//! * `{IGNORE | REPLACE} [AS] query` (`opt_duplicate_as_qe` and `duplicate` in MySQL's
//!   `sql_yacc.yy`): what to do with a row of the query that duplicates an earlier one on a
//!   unique key of the new table. The word is dropped and kept in [`Modifiers`] (`ignore`,
//!   `replace`); the statement is then the plain `CREATE TABLE ... SELECT`. It is the word
//!   after `TABLE`, at parenthesis depth 0 (so not inside the column definitions or a
//!   subquery), before any depth-0 `AS`, `SELECT`, `WITH` or `LIKE` (where the query, or
//!   `LIKE`, starts), and followed by what starts MySQL's `as_create_query_expression`: `AS`,
//!   `SELECT`, `WITH`, `TABLE`, `VALUES` or `(`.
//! * a query in parentheses without `AS`: `CREATE TABLE t (SELECT 1 a)`, `CREATE TABLE t (a
//!   INT) (SELECT 1 a)` (`as_create_query_expression: query_expression_with_opt_locking_clauses`,
//!   whose `query_expression_body` may be `query_expression_parens`; sqlparser reads the
//!   parentheses as the table's element list) gets its `AS`. It is the first depth-0 `(` whose
//!   first token after its run of `(` is `SELECT`, `WITH`, `TABLE` or `VALUES`, words no table
//!   element, option list or partitioning list starts with; none once a depth-0 word has
//!   started the query or `LIKE`.
//!
//! Anything else is left for sqlparser to read (or refuse).

use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::parse::{is_kw, Modifiers};

/// Where the words after `CREATE [TEMPORARY] TABLE` start in `t`, if it is such a statement.
fn after_table(t: &[TokenWithSpan]) -> Option<usize> {
    let table_at = match (t.first(), t.get(1)) {
        (Some(c), Some(x)) if is_kw(c, "CREATE") && is_kw(x, "TABLE") => 1,
        (Some(c), Some(x)) if is_kw(c, "CREATE") && is_kw(x, "TEMPORARY") => 2,
        _ => return None,
    };
    t.get(table_at)
        .is_some_and(|x| is_kw(x, "TABLE"))
        .then_some(table_at + 1)
}

/// The CREATE TABLE ... SELECT rewrites of the module docs; any other statement is left alone.
pub(crate) fn respell(t: &mut Vec<TokenWithSpan>, m: &mut Modifiers) {
    let Some(from) = after_table(t) else {
        return;
    };
    duplicate_word(t, from, m);
    parenthesized_query(t, from);
}

/// Drops the `IGNORE` / `REPLACE` before the query into `m`.
fn duplicate_word(t: &mut Vec<TokenWithSpan>, from: usize, m: &mut Modifiers) {
    let starts_query = |x: &TokenWithSpan| {
        x.token == Token::LParen
            || ["AS", "SELECT", "WITH", "TABLE", "VALUES"]
                .iter()
                .any(|w| is_kw(x, w))
    };
    let mut depth = 0i32;
    for i in from..t.len() {
        match &t[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ if depth != 0 => {}
            _ if ["AS", "SELECT", "WITH", "LIKE"]
                .iter()
                .any(|w| is_kw(&t[i], w)) =>
            {
                return
            }
            _ if is_kw(&t[i], "IGNORE") || is_kw(&t[i], "REPLACE") => {
                if t.get(i + 1).is_some_and(starts_query) {
                    m.ignore |= is_kw(&t[i], "IGNORE");
                    m.replace |= is_kw(&t[i], "REPLACE");
                    t.remove(i);
                }
                return;
            }
            _ => {}
        }
    }
}

/// Writes `AS` before a query in parentheses that has none (the module docs), e.g. `CREATE
/// TABLE t (a INT) ENGINE=InnoDB ((SELECT 1 a) UNION SELECT 2)`.
fn parenthesized_query(t: &mut Vec<TokenWithSpan>, from: usize) {
    let query_word = |x: &TokenWithSpan| {
        ["SELECT", "WITH", "TABLE", "VALUES"]
            .iter()
            .any(|w| is_kw(x, w))
    };
    let mut depth = 0i32;
    for i in from..t.len() {
        match &t[i].token {
            Token::LParen if depth == 0 => {
                let first = t[i..].iter().find(|x| x.token != Token::LParen);
                if first.is_some_and(query_word) {
                    let at = t[i].span;
                    t.insert(i, TokenWithSpan::new(Token::make_keyword("AS"), at));
                    return;
                }
                depth += 1;
            }
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ if depth != 0 => {}
            _ if ["AS", "SELECT", "WITH", "LIKE", "TABLE", "VALUES"]
                .iter()
                .any(|w| is_kw(&t[i], w)) =>
            {
                return
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{parse, Modifiers, Statement};

    /// The statement sqlparser read and the modifiers kept.
    fn read(sql: &str) -> (String, Modifiers) {
        match parse(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .remove(0)
            .statement
        {
            Statement::Sql {
                statement,
                modifiers,
            } => (statement.to_string(), modifiers),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_word_before_the_query_is_a_modifier() {
        let (sql, m) = read("CREATE TABLE t (id INT PRIMARY KEY) IGNORE SELECT id FROM s");
        assert_eq!(
            sql,
            "CREATE TABLE t (id INT PRIMARY KEY) AS SELECT id FROM s"
        );
        assert!(m.ignore && !m.replace);
        let (sql, m) = read("create temporary table t engine=InnoDB replace as select 1 a");
        assert!(sql.starts_with("CREATE TEMPORARY TABLE t"), "{sql}");
        assert!(sql.ends_with("AS SELECT 1 AS a"), "{sql}");
        assert!(m.replace && !m.ignore);
        let (_, m) = read("CREATE TABLE IF NOT EXISTS t REPLACE SELECT 1 a");
        assert!(m.replace);
    }

    #[test]
    fn other_words_of_that_name_are_left_alone() {
        // In the query, in a string, a name: not the modifier.
        let (_, m) = read("CREATE TABLE t AS SELECT `ignore` FROM s IGNORE INDEX (k)");
        assert_eq!((m.ignore, m.replace), (false, false));
        let (_, m) = read("CREATE TABLE t SELECT REPLACE('a', 'a', 'b') r");
        assert_eq!((m.ignore, m.replace), (false, false));
        // Not before a query: sqlparser's to refuse, as MySQL does.
        assert_eq!(parse("CREATE TABLE t IGNORE").unwrap_err().code(), 1064);
        assert_eq!(
            parse("CREATE TABLE t (a INT) REPLACE").unwrap_err().code(),
            1064
        );
    }

    #[test]
    fn a_query_in_parentheses_is_the_query() {
        let (sql, _) = read("CREATE TABLE t (SELECT 1 AS a)");
        assert_eq!(sql, "CREATE TABLE t AS (SELECT 1 AS a)");
        let (sql, _) = read("create temporary table if not exists t (a INT) (select 1 a)");
        assert!(
            sql.starts_with("CREATE TEMPORARY TABLE IF NOT EXISTS t (a INT)"),
            "{sql}"
        );
        assert!(sql.ends_with("AS (SELECT 1 AS a)"), "{sql}");
        let (sql, _) = read("CREATE TABLE t ENGINE=InnoDB ((SELECT 1 a) UNION SELECT 2)");
        assert!(
            sql.ends_with("AS ((SELECT 1 AS a) UNION SELECT 2)"),
            "{sql}"
        );
        let (sql, m) = read("CREATE TABLE t (id INT PRIMARY KEY) IGNORE (SELECT 1 id)");
        assert!(
            sql.ends_with("(id INT PRIMARY KEY) AS (SELECT 1 AS id)"),
            "{sql}"
        );
        assert!(m.ignore);
    }

    #[test]
    fn other_parentheses_are_left_alone() {
        // A definition list, a parenthesized LIKE, a query that has its AS or its SELECT,
        // a subquery inside a definition.
        let (sql, _) = read("CREATE TABLE t (a INT, b INT DEFAULT 1)");
        assert_eq!(sql, "CREATE TABLE t (a INT, b INT DEFAULT 1)");
        let (sql, _) = read("CREATE TABLE t (LIKE s)");
        assert!(!sql.contains(" AS "), "{sql}");
        let (sql, _) = read("CREATE TABLE t AS (SELECT 1 AS a)");
        assert_eq!(sql, "CREATE TABLE t AS (SELECT 1 AS a)");
        let (sql, _) = read("CREATE TABLE t SELECT a FROM (SELECT 1 AS a) AS d");
        assert!(!sql.contains("AS (SELECT 1 AS a) AS d AS"), "{sql}");
        assert_eq!(sql.matches(" AS ").count(), 3, "{sql}");
        let (sql, _) = read("CREATE TABLE t (a INT CHECK (a > (1)))");
        assert!(!sql.contains("AS ("), "{sql}");
        // Not a query: sqlparser's to refuse, as MySQL does.
        assert_eq!(parse("CREATE TABLE t (SELECT)").unwrap_err().code(), 1064);
        assert_eq!(parse("CREATE TABLE t ((a INT))").unwrap_err().code(), 1064);
    }
}
