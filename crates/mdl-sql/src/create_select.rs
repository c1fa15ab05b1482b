//! `CREATE [TEMPORARY] TABLE t ... {IGNORE | REPLACE} [AS] query` (`opt_duplicate_as_qe` and
//! `duplicate` in MySQL 8.0's `sql_yacc.yy`): what to do with a row of the query that
//! duplicates an earlier one on a unique key of the new table. sqlparser 0.64 reads no word
//! there (1064), so this step of [`crate::parse`] drops it and keeps it in [`Modifiers`]
//! (`ignore`, `replace`); the statement is then the plain `CREATE TABLE ... SELECT`.
//!
//! The word is found by the grammar's shape, not by a search of the text: after `TABLE`, at
//! parenthesis depth 0 (so not inside the column definitions or a subquery), before any
//! depth-0 `AS`, `SELECT`, `WITH` or `LIKE` (where the query, or `LIKE`, starts), and followed
//! by what starts MySQL's `as_create_query_expression`: `AS`, `SELECT`, `WITH`, `TABLE`,
//! `VALUES` or `(`. Anything else is left for sqlparser to read (or refuse).

use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::parse::{is_kw, Modifiers};

/// Drops the `IGNORE` / `REPLACE` of a `CREATE TABLE ... SELECT` from `t` into `m` (see the
/// module docs); leaves any other statement alone.
pub(crate) fn respell(t: &mut Vec<TokenWithSpan>, m: &mut Modifiers) {
    let table_at = match (t.first(), t.get(1)) {
        (Some(c), Some(x)) if is_kw(c, "CREATE") && is_kw(x, "TABLE") => 1,
        (Some(c), Some(x)) if is_kw(c, "CREATE") && is_kw(x, "TEMPORARY") => 2,
        _ => return,
    };
    if !t.get(table_at).is_some_and(|x| is_kw(x, "TABLE")) {
        return;
    }
    let starts_query = |x: &TokenWithSpan| {
        x.token == Token::LParen
            || ["AS", "SELECT", "WITH", "TABLE", "VALUES"]
                .iter()
                .any(|w| is_kw(x, w))
    };
    let mut depth = 0i32;
    for i in table_at + 1..t.len() {
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
}
