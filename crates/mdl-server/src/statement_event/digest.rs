//! The digest text of a text query, as MySQL makes it from the statement's tokens
//! (`sql/sql_digest.cc`, `compute_digest_text`): comments and spacing dropped, each literal
//! (string, number, hex, bit; `NULL` and `TRUE` stay words) a `?`, a parenthesized list of
//! literals `(?)` or `(...)`, the tokens joined by single spaces, reserved words in capitals,
//! every other word as the client spelled it (MySQL's lexer reads every keyword whatever its
//! case, and its digest quotes identifiers with backquotes; this one does neither).
//! Executable comments (`/*! ... */`) are read as code, as MySQL's lexer reads them.
//!
//! A lexer over the bytes, not the parsed statement: the parse is the statement's already, and
//! printing a normalized copy of its tree cost a text query 15,000 instructions (clone, visit,
//! print) where this costs a few per byte.

/// MySQL 8.0's reserved words (the `(R)` entries of the manual's "Keywords and Reserved Words"),
/// upper case, sorted.
#[rustfmt::skip]
const RESERVED: [&str; 262] = [
    "ACCESSIBLE", "ADD", "ALL", "ALTER", "ANALYZE", "AND", "AS", "ASC", "ASENSITIVE", "BEFORE",
    "BETWEEN", "BIGINT", "BINARY", "BLOB", "BOTH", "BY", "CALL", "CASCADE", "CASE", "CHANGE",
    "CHAR", "CHARACTER", "CHECK", "COLLATE", "COLUMN", "CONDITION", "CONSTRAINT", "CONTINUE",
    "CONVERT", "CREATE", "CROSS", "CUBE", "CUME_DIST", "CURRENT_DATE", "CURRENT_TIME",
    "CURRENT_TIMESTAMP", "CURRENT_USER", "CURSOR", "DATABASE", "DATABASES", "DAY_HOUR",
    "DAY_MICROSECOND", "DAY_MINUTE", "DAY_SECOND", "DEC", "DECIMAL", "DECLARE", "DEFAULT",
    "DELAYED", "DELETE", "DENSE_RANK", "DESC", "DESCRIBE", "DETERMINISTIC", "DISTINCT",
    "DISTINCTROW", "DIV", "DOUBLE", "DROP", "DUAL", "EACH", "ELSE", "ELSEIF", "EMPTY", "ENCLOSED",
    "ESCAPED", "EXCEPT", "EXISTS", "EXIT", "EXPLAIN", "FALSE", "FETCH", "FIRST_VALUE", "FLOAT",
    "FLOAT4", "FLOAT8", "FOR", "FORCE", "FOREIGN", "FROM", "FULLTEXT", "FUNCTION", "GENERATED",
    "GET", "GRANT", "GROUP", "GROUPING", "GROUPS", "HAVING", "HIGH_PRIORITY", "HOUR_MICROSECOND",
    "HOUR_MINUTE", "HOUR_SECOND", "IF", "IGNORE", "IN", "INDEX", "INFILE", "INNER", "INOUT",
    "INSENSITIVE", "INSERT", "INT", "INT1", "INT2", "INT3", "INT4", "INT8", "INTEGER", "INTERSECT",
    "INTERVAL", "INTO", "IO_AFTER_GTIDS", "IO_BEFORE_GTIDS", "IS", "ITERATE", "JOIN", "JSON_TABLE",
    "KEY", "KEYS", "KILL", "LAG", "LAST_VALUE", "LATERAL", "LEAD", "LEADING", "LEAVE", "LEFT",
    "LIKE", "LIMIT", "LINEAR", "LINES", "LOAD", "LOCALTIME", "LOCALTIMESTAMP", "LOCK", "LONG",
    "LONGBLOB", "LONGTEXT", "LOOP", "LOW_PRIORITY", "MASTER_BIND", "MASTER_SSL_VERIFY_SERVER_CERT",
    "MATCH", "MAXVALUE", "MEDIUMBLOB", "MEDIUMINT", "MEDIUMTEXT", "MIDDLEINT", "MINUTE_MICROSECOND",
    "MINUTE_SECOND", "MOD", "MODIFIES", "NATURAL", "NOT", "NO_WRITE_TO_BINLOG", "NTH_VALUE",
    "NTILE", "NULL", "NUMERIC", "OF", "ON", "OPTIMIZE", "OPTIMIZER_COSTS", "OPTION", "OPTIONALLY",
    "OR", "ORDER", "OUT", "OUTER", "OUTFILE", "OVER", "PARTITION", "PERCENT_RANK", "PRECISION",
    "PRIMARY", "PROCEDURE", "PURGE", "RANGE", "RANK", "READ", "READS", "READ_WRITE", "REAL",
    "RECURSIVE", "REFERENCES", "REGEXP", "RELEASE", "RENAME", "REPEAT", "REPLACE", "REQUIRE",
    "RESIGNAL", "RESTRICT", "RETURN", "REVOKE", "RIGHT", "RLIKE", "ROW", "ROWS", "ROW_NUMBER",
    "SCHEMA", "SCHEMAS", "SECOND_MICROSECOND", "SELECT", "SENSITIVE", "SEPARATOR", "SET", "SHOW",
    "SIGNAL", "SMALLINT", "SPATIAL", "SPECIFIC", "SQL", "SQLEXCEPTION", "SQLSTATE", "SQLWARNING",
    "SQL_BIG_RESULT", "SQL_CALC_FOUND_ROWS", "SQL_SMALL_RESULT", "SSL", "STARTING", "STORED",
    "STRAIGHT_JOIN", "SYSTEM", "TABLE", "TERMINATED", "THEN", "TINYBLOB", "TINYINT", "TINYTEXT",
    "TO", "TRAILING", "TRIGGER", "TRUE", "UNDO", "UNION", "UNIQUE", "UNLOCK", "UNSIGNED", "UPDATE",
    "USAGE", "USE", "USING", "UTC_DATE", "UTC_TIME", "UTC_TIMESTAMP", "VALUES", "VARBINARY",
    "VARCHAR", "VARCHARACTER", "VARYING", "VIRTUAL", "WHEN", "WHERE", "WHILE", "WINDOW", "WITH",
    "WRITE", "XOR", "YEAR_MONTH", "ZEROFILL",
];

/// Operators of two or three characters, longest first (`sql/lex.h`'s symbols).
const OPERATORS: [&str; 12] = [
    "<=>", "->>", "<=", ">=", "<>", "!=", ":=", "||", "&&", "<<", ">>", "->",
];

/// The digest text of `sql` (see the module docs).
pub(crate) fn digest_text(sql: &str) -> String {
    let b = sql.as_bytes();
    let mut upper = String::new(); // the reserved words typed in small letters, in capitals
    let mut tokens: Vec<&str> = Vec::with_capacity(b.len() / 3);
    let mut uppers: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    let mut i = 0;
    let mut in_code_comment = false;
    while i < b.len() {
        let c = b[i];
        let start = i;
        match c {
            _ if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'#' => {
                i = line_end(b, i);
                continue;
            }
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2)
                    .is_none_or(|c| c.is_ascii_whitespace() || c.is_ascii_control()) =>
            {
                i = line_end(b, i);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                if b.get(i + 2) == Some(&b'!') {
                    // `/*!80000 code */`: the code, without its version.
                    i += 3;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                    in_code_comment = true;
                } else {
                    i = (sql[i + 2..].find("*/")).map_or(b.len(), |e| i + 2 + e + 2);
                }
                continue;
            }
            b'*' if in_code_comment && b.get(i + 1) == Some(&b'/') => {
                in_code_comment = false;
                i += 2;
                continue;
            }
            b'\'' | b'"' => {
                i = quoted_end(b, i);
                tokens.push("?");
            }
            b'`' => {
                i = quoted_end(b, i);
                tokens.push(&sql[start..i]);
            }
            b'?' => {
                i += 1;
                tokens.push("?");
            }
            b'0'..=b'9' => {
                i = number_end(b, i);
                tokens.push("?");
            }
            b'.' if b.get(i + 1).is_some_and(u8::is_ascii_digit)
                && !tokens.last().is_some_and(|t| is_word(t)) =>
            {
                i = number_end(b, i);
                tokens.push("?");
            }
            b'@' => {
                i += 1;
                if b.get(i) == Some(&b'@') {
                    i += 1;
                }
                i = word_end(b, i);
                tokens.push(&sql[start..i]);
            }
            _ if is_word_byte(c) => {
                i = word_end(b, i);
                let word = &sql[start..i];
                // A hex, bit or charset-introduced string literal: `x'0A'`, `b'01'`,
                // `_utf8mb4'a'`, `N'a'`.
                if b.get(i) == Some(&b'\'')
                    && (word.len() == 1 && b"xXbBnN".contains(&c) || c == b'_')
                {
                    i = quoted_end(b, i);
                    tokens.push("?");
                    continue;
                }
                if !word.bytes().all(|c| c.is_ascii_uppercase() || c == b'_') && reserved(word) {
                    let at = upper.len();
                    upper.extend(word.chars().map(|c| c.to_ascii_uppercase()));
                    uppers.push((tokens.len(), at..upper.len()));
                }
                tokens.push(word);
            }
            _ => {
                // An ASCII byte: the others are words'.
                let op = OPERATORS.iter().find(|op| sql[i..].starts_with(**op));
                i += op.map_or(1, |op| op.len());
                tokens.push(&sql[start..i]);
            }
        }
    }
    for (at, range) in uppers {
        tokens[at] = &upper[range];
    }
    join_collapsed(&tokens)
}

/// The tokens joined by spaces, each parenthesized list of literals `(?)` (one) or `(...)`
/// (more), and a run of such lists after the first, `, (...)` each, written once as
/// ` /* , ... */`: MySQL's `TOK_ROW_SINGLE_VALUE`, `TOK_ROW_MULTIPLE_VALUE` and their `_LIST`
/// forms (`sql/sql_digest.cc`, `reduce_digest_token`).
fn join_collapsed(tokens: &[&str]) -> String {
    let mut out = String::with_capacity(tokens.iter().map(|t| t.len() + 1).sum());
    let mut i = 0;
    let mut last_list = false;
    while i < tokens.len() {
        if let Some((n, values)) = literal_list(&tokens[i..]) {
            if last_list && out.ends_with(" ,") {
                out.truncate(out.len() - 2);
                if !out.ends_with(" /* , ... */") {
                    out.push_str(" /* , ... */");
                }
            } else {
                push(&mut out, if values == 1 { "(?)" } else { "(...)" });
            }
            i += n;
            last_list = true;
            continue;
        }
        last_list = last_list && tokens[i] == ",";
        push(&mut out, tokens[i]);
        i += 1;
    }
    out
}

fn push(out: &mut String, t: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(t);
}

/// The length of `( ? [, ?]... )` at the start of `t`, and its literals.
fn literal_list(t: &[&str]) -> Option<(usize, usize)> {
    if t.first() != Some(&"(") {
        return None;
    }
    let mut n = 1;
    let mut values = 0;
    loop {
        if t.get(n) != Some(&"?") {
            return None;
        }
        values += 1;
        match t.get(n + 1) {
            Some(&",") => n += 2,
            Some(&")") => return Some((n + 2, values)),
            _ => return None,
        }
    }
}

/// Whether `word`, in capitals, is one of [`RESERVED`] (compared byte by byte, no copy).
fn reserved(word: &str) -> bool {
    let upper = || word.bytes().map(|c| c.to_ascii_uppercase());
    RESERVED
        .binary_search_by(|r| r.bytes().cmp(upper()))
        .is_ok()
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

fn is_word(t: &str) -> bool {
    t.bytes().next().is_some_and(is_word_byte) || t.starts_with('`')
}

fn word_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_word_byte(b[i]) {
        i += 1;
    }
    i
}

/// After a number: digits, a point, an exponent and its sign, or `0x1F` / `0b01`.
fn number_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'e' | b'E' if matches!(b.get(i + 1), Some(b'+' | b'-')) => i += 2,
            c if c.is_ascii_alphanumeric() || c == b'.' || c == b'_' => i += 1,
            _ => break,
        }
    }
    i
}

/// After the quoted string or identifier opened at `i`: its quote doubled or (not for a
/// backquote) escaped by a backslash stays inside.
fn quoted_end(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' if q != b'`' => j += 2,
            c if c == q && b.get(j + 1) == Some(&q) => j += 2,
            c if c == q => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

fn line_end(b: &[u8], i: usize) -> usize {
    (b[i..].iter().position(|&c| c == b'\n')).map_or(b.len(), |e| i + e + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_words_are_sorted_and_upper_case() {
        assert!(RESERVED.windows(2).all(|w| w[0] < w[1]));
        assert!(RESERVED
            .iter()
            .all(|w| w.bytes().all(|c| !c.is_ascii_lowercase())));
    }

    #[test]
    fn literals_spacing_comments_and_case_are_normalized() {
        let cases = [
            (
                "SELECT c FROM sbtest1 WHERE id=5",
                "SELECT c FROM sbtest1 WHERE id = ?",
            ),
            (
                "select c from sbtest1 where id = 42",
                "SELECT c FROM sbtest1 WHERE id = ?",
            ),
            (
                "SELECT  c\n FROM sbtest1 /* x */ WHERE id = ? -- y",
                "SELECT c FROM sbtest1 WHERE id = ?",
            ),
            ("SELECT COUNT(*) FROM t # end", "SELECT COUNT ( * ) FROM t"),
            (
                "SELECT 'it''s', \"a\\\"b\", x'0A', 1.5e-3, .5, _utf8mb4'z'",
                "SELECT ? , ? , ? , ? , ? , ?",
            ),
            (
                "SELECT * FROM t WHERE a IN (1, 2, 3) AND b IN (4)",
                "SELECT * FROM t WHERE a IN (...) AND b IN (?)",
            ),
            (
                "INSERT INTO t VALUES (1,'a'),(2,'b'),(3,'c')",
                "INSERT INTO t VALUES (...) /* , ... */",
            ),
            (
                "INSERT INTO t (a, b) VALUES (1, 2)",
                "INSERT INTO t ( a , b ) VALUES (...)",
            ),
            (
                "SELECT `weird name`, t.c, @v, @@session.x FROM d.t",
                "SELECT `weird name` , t . c , @v , @@session . x FROM d . t",
            ),
            (
                "SELECT a<=>b, a->>'$.x', a<>b",
                "SELECT a <=> b , a ->> ? , a <> b",
            ),
            (
                "CREATE TABLE t (a INT) /*!50100 ENGINE=InnoDB */",
                "CREATE TABLE t ( a INT ) ENGINE = InnoDB",
            ),
            ("SELECT 'é', ü FROM t", "SELECT ? , ü FROM t"),
            ("SELECT NULL, null, tRuE", "SELECT NULL , NULL , TRUE"),
        ];
        for (sql, want) in cases {
            assert_eq!(digest_text(sql), want, "{sql}");
        }
    }

    #[test]
    fn unterminated_input_ends_without_a_panic() {
        for sql in [
            "SELECT 'abc",
            "SELECT `a",
            "SELECT /* x",
            "SELECT /*!5",
            "x'",
            "-",
            "@",
            "é",
        ] {
            let _ = digest_text(sql);
        }
    }
}
