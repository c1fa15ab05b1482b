//! The digest texts MySQL 8.0's source gives, statement by statement. Where MariaDB 10.11
//! (whose digest code is MySQL 5.7's) prints otherwise, the comment says how.

use super::keywords::{
    self, FUNCTIONS, FUNCTION_PREFIXES, FUNCTION_SLOTS, KEYWORDS, KEYWORD_PREFIXES, KEYWORD_SLOTS,
};
use super::*;

fn check(cases: &[(&str, &str)]) {
    for (sql, want) in cases {
        assert_eq!(digest_text(sql), *want, "{sql}");
    }
}

#[test]
fn byte_classes_are_the_lexers_rules() {
    for c in 0..=255u8 {
        let word = c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
        let keyword = c.is_ascii_alphanumeric() || c == b'_';
        let class = scan::BYTES[usize::from(c)];
        assert_eq!(is_word_byte(c), word, "{c}");
        assert_eq!(class & scan::KEYWORD_BYTE != 0, keyword, "{c}");
        assert_eq!(
            class & scan::WORD_START != 0,
            word && !c.is_ascii_digit(),
            "{c}"
        );
    }
}

#[test]
fn keyword_tables_are_sorted_and_upper_case() {
    for table in [&KEYWORDS[..], &FUNCTIONS[..]] {
        assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(table
            .iter()
            .all(|(k, p)| k.len() <= 40
                && !k.bytes().chain(p.bytes()).any(|c| c.is_ascii_lowercase())));
    }
    assert!(!KEYWORDS
        .iter()
        .any(|k| FUNCTIONS.iter().any(|f| f.0 == k.0)));
    // The prefixes keep the words' order, so the search finds each word, in any case.
    assert!(KEYWORD_PREFIXES.windows(2).all(|w| w[0] <= w[1]));
    assert!(FUNCTION_PREFIXES.windows(2).all(|w| w[0] <= w[1]));
    for (k, p) in KEYWORDS.iter().chain(&FUNCTIONS) {
        let want = if p.is_empty() { *k } else { *p };
        assert_eq!(
            keyword(k.to_lowercase().as_bytes(), true),
            Some(want),
            "{k}"
        );
    }
    // Each keyword sits within a few slots of its hash's.
    let probes = |slots: &[u16], prefixes: &[u128]| {
        (0..slots.len())
            .filter(|&s| slots[s] != 0)
            .map(|s| {
                let home = keywords::slot(prefixes[usize::from(slots[s]) - 1], slots.len());
                (s + slots.len() - home) % slots.len()
            })
            .max()
    };
    assert!(probes(&KEYWORD_SLOTS, &KEYWORD_PREFIXES) < Some(8));
    assert!(probes(&FUNCTION_SLOTS, &FUNCTION_PREFIXES) < Some(8));
    assert_eq!(keyword(b"count", false), None);
    assert_eq!(keyword(b"sbtest1", true), None);
}

/// sysbench's statements (`oltp_*.lua`): identifiers in backquotes, keywords in capitals.
#[test]
fn sysbench_statements() {
    check(&[
        (
            "SELECT c FROM sbtest1 WHERE id=5",
            "SELECT `c` FROM `sbtest1` WHERE `id` = ?",
        ),
        (
            "select c from sbtest1 where id between 1 and 100",
            "SELECT `c` FROM `sbtest1` WHERE `id` BETWEEN ? AND ?",
        ),
        (
            "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 1 AND 100",
            "SELECT SUM ( `k` ) FROM `sbtest1` WHERE `id` BETWEEN ? AND ?",
        ),
        // DISTINCT prints as DISTINCTROW, its token's last synonym in lex.h (MariaDB too).
        (
            "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 1 AND 100 ORDER BY c",
            "SELECT DISTINCTROW `c` FROM `sbtest1` WHERE `id` BETWEEN ? AND ? ORDER BY `c`",
        ),
        (
            "UPDATE sbtest1 SET k=k+1 WHERE id=7",
            "UPDATE `sbtest1` SET `k` = `k` + ? WHERE `id` = ?",
        ),
        (
            "DELETE FROM sbtest1 WHERE id=7",
            "DELETE FROM `sbtest1` WHERE `id` = ?",
        ),
        (
            "INSERT INTO sbtest1 (id, k, c, pad) VALUES (7, 8, 'c', 'pad')",
            "INSERT INTO `sbtest1` ( `id` , `k` , `c` , `pad` ) VALUES (...)",
        ),
    ]);
}

/// `digest_add_token`'s reductions (`sql/sql_digest.cc`).
#[test]
fn literals_lists_and_rows_are_reduced() {
    check(&[
        ("SELECT 1, 2, 3", "SELECT ?, ..."),
        (
            "SELECT * FROM t LIMIT 10, 20",
            "SELECT * FROM `t` LIMIT ?, ...",
        ),
        (
            "INSERT INTO t VALUES (1,'a'),(2,'b'),(3,'c')",
            "INSERT INTO `t` VALUES (...) /* , ... */",
        ),
        (
            "INSERT INTO t VALUES (1),(2),(3)",
            "INSERT INTO `t` VALUES (?) /* , ... */",
        ),
        (
            "INSERT INTO t VALUES (1, NULL)",
            "INSERT INTO `t` VALUES (...)",
        ),
        // TOK_IN_GENERIC_VALUE_EXPRESSION, new in 8.0: MariaDB prints `IN (?)` for one value.
        (
            "SELECT * FROM t WHERE a IN (1, 2, 3) AND b IN (4) AND c NOT IN ('x','y')",
            "SELECT * FROM `t` WHERE `a` IN (...) AND `b` IN (...) AND `c` NOT IN (...)",
        ),
        ("SELECT sleep(1)", "SELECT `sleep` (?)"),
        (
            "SELECT CONCAT(a, 'x'), IFNULL(b, 0) FROM t",
            "SELECT `CONCAT` ( `a` , ? ) , `IFNULL` ( `b` , ? ) FROM `t`",
        ),
        // A sign goes only after a token that starts an expression (`m_start_expr`), which
        // `=` is not.
        (
            "SELECT * FROM t WHERE a = -1 AND b = (-2) AND c = a - 3",
            "SELECT * FROM `t` WHERE `a` = - ? AND `b` = (?) AND `c` = `a` - ?",
        ),
        ("SELECT -1, +2, 3 - -4", "SELECT ?, ... - ?"),
        // LEX_HOSTNAME, a literal: MariaDB prints `(unknown)` for N'b'.
        (
            "SELECT _utf8mb4'a', N'b', x'0A', 0x1F, b'01', 1.5e-3, .5",
            "SELECT (_charset) ?, ...",
        ),
        ("SELECT 'it''s', \"a\\\"b\"", "SELECT ?, ..."),
    ]);
}

/// `NULL` is a value where the grammar reads it as `literal`; TRUE and FALSE stay words.
#[test]
fn null_true_and_false() {
    check(&[
        (
            "SELECT NULL, a IS NULL, b IS NOT NULL FROM t WHERE c = NULL",
            "SELECT ? , `a` IS NULL , `b` IS NOT NULL FROM `t` WHERE `c` = ?",
        ),
        ("SELECT TRUE, FALSE", "SELECT TRUE , FALSE"),
        (
            "ALTER TABLE t1 ADD COLUMN e BIGINT DEFAULT NULL",
            "ALTER TABLE `t1` ADD COLUMN `e` INT8 DEFAULT ?",
        ),
        (
            "ALTER TABLE c ADD FOREIGN KEY (p) REFERENCES p (id) ON DELETE SET NULL",
            "ALTER TABLE `c` ADD FOREIGN KEY ( `p` ) REFERENCES `p` ( `id` ) ON DELETE SET NULL",
        ),
    ]);
}

/// DDL: each token prints its last synonym in lex.h (`INT` as `INTEGER`, `CHAR` as
/// `CHARACTER`), as MariaDB's digests do.
#[test]
fn ddl_prints_the_last_synonym() {
    check(&[
        (
            "CREATE TABLE t1 (id INT NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, \
             c CHAR(120) DEFAULT '' NOT NULL, d VARCHAR(10) NULL, PRIMARY KEY (id)) \
             ENGINE=InnoDB",
            "CREATE TABLE `t1` ( `id` INTEGER NOT NULL AUTO_INCREMENT , `k` INTEGER DEFAULT ? \
             NOT NULL , `c` CHARACTER (?) DEFAULT ? NOT NULL , `d` VARCHARACTER (?) NULL , \
             PRIMARY KEY ( `id` ) ) ENGINE = `InnoDB`",
        ),
        ("DROP TABLE IF EXISTS t1", "DROP TABLE IF EXISTS `t1`"),
        (
            "CREATE DATABASE IF NOT EXISTS sbtest",
            "CREATE SCHEMA IF NOT EXISTS `sbtest`",
        ),
        ("USE sbtest", "USE `sbtest`"),
        ("BEGIN", "BEGIN"),
        ("start transaction", "START TRANSACTION"),
        ("COMMIT;", "COMMIT"),
    ]);
}

#[test]
fn show_and_set() {
    check(&[
        ("SHOW DATABASES", "SHOW SCHEMAS"),
        ("SHOW FULL COLUMNS FROM t1", "SHOW FULL FIELDS FROM `t1`"),
        (
            "SHOW GLOBAL STATUS LIKE 'Threads%'",
            "SHOW GLOBAL STATUS LIKE ?",
        ),
        ("SHOW VARIABLES LIKE 'version'", "SHOW VARIABLES LIKE ?"),
        ("SET NAMES utf8mb4", "SET NAMES `utf8mb4`"),
        ("SET autocommit=1", "SET `autocommit` = ?"),
        ("SELECT DATABASE()", "SELECT SCHEMA ( )"),
    ]);
}

/// `@x` is read as a host name, a literal; `@@x` as a keyword or an identifier, after which
/// `.` and a name follow (`MY_LEX_USER_END`, `MY_LEX_SYSTEM_VAR`, `MY_LEX_IDENT_OR_KEYWORD`).
#[test]
fn variables() {
    check(&[
        ("SET @x = 5", "SET @? = ?"),
        (
            "SET @@session.sql_mode = 'ANSI'",
            "SET @@SESSION . `sql_mode` = ?",
        ),
        (
            "SELECT @x, @@version_comment, @@global.max_connections LIMIT 1",
            "SELECT @? , @@`version_comment` , @@GLOBAL . `max_connections` LIMIT ?",
        ),
        (
            "SELECT @@timestamp, @`v`, @'w'",
            "SELECT @@TIMESTAMP , @`v` , @?",
        ),
    ]);
}

/// Identifiers: quoted ones without their quotes' doubling; around a `.` any word is one
/// (MY_LEX_IDENT_SEP); a function name of lex.h is a keyword only before `(` (MariaDB reads
/// `count (*)` as COUNT and prints a doubled backquote doubled).
#[test]
fn identifiers_and_function_names() {
    check(&[
        (
            "SELECT `weird name`, t.c, `t`.`c`, d.t.c FROM d.t",
            "SELECT `weird name` , `t` . `c` , `t` . `c` , `d` . `t` . `c` FROM `d` . `t`",
        ),
        (
            "SELECT t.key, t.status, status, count FROM t",
            "SELECT `t` . `key` , `t` . `status` , STATUS , `count` FROM `t`",
        ),
        (
            "SELECT COUNT(*), count (*), NOW(), CURRENT_TIMESTAMP, SUBSTR('abc', 1, 2) FROM t",
            "SELECT COUNT ( * ) , `count` ( * ) , NOW ( ) , NOW , SUBSTRING (...) FROM `t`",
        ),
        (
            "SELECT `a``b`, ``, 1abc FROM `t`",
            "SELECT `a`b` , , `1abc` FROM `t`",
        ),
        (
            "SELECT * FROM performance_schema.events_statements_history",
            "SELECT * FROM `performance_schema` . `events_statements_history`",
        ),
        ("SELECT 'é', ü FROM t", "SELECT ? , `ü` FROM `t`"),
    ]);
}

/// Operators print as their token's lex.h symbol (`<>` as `!=`, REGEXP as RLIKE).
#[test]
fn operators() {
    check(&[
        (
            "SELECT a<=>b, a->>'$.x', a<>b, a!=b, a REGEXP 'x' FROM t",
            "SELECT `a` <=> `b` , `a` ->> ? , `a` != `b` , `a` != `b` , `a` RLIKE ? FROM `t`",
        ),
        (
            "SELECT a||b, a&&b, a:=1",
            "SELECT `a` || `b` , `a` && `b` , `a` := ?",
        ),
        (
            "SELECT a FROM t GROUP BY a WITH ROLLUP",
            "SELECT `a` FROM `t` GROUP BY `a` WITH ROLLUP",
        ),
    ]);
}

/// Comments are dropped; `/*!NNNNN` code is read up to this server's version.
#[test]
fn comments() {
    check(&[
        ("SELECT c /* hi */ FROM t -- end", "SELECT `c` FROM `t`"),
        ("SELECT c FROM t # end\n", "SELECT `c` FROM `t`"),
        (
            "CREATE TABLE t (a INT) /*!50100 ENGINE=InnoDB */ /*!90000 ENGINE=MyISAM */",
            "CREATE TABLE `t` ( `a` INTEGER ) ENGINE = `InnoDB`",
        ),
        (
            "SELECT /*! STRAIGHT_JOIN */ a FROM t",
            "SELECT STRAIGHT_JOIN `a` FROM `t`",
        ),
        ("SELECT 1 /*!90000 /* x */ , 2 */", "SELECT ?"),
    ]);
}

/// MySQL's token array holds `max_digest_length` (1024) bytes: a token 2, an identifier 4
/// more than its text; what follows is dropped.
#[test]
fn long_statements_are_truncated() {
    let sql = format!("SELECT {} FROM t", vec!["a"; 400].join(" + "));
    let text = digest_text(&sql);
    // SELECT (2), then `a` (5) and + (2) by turns: 1024 bytes hold 146 of each.
    assert_eq!(text.matches("`a`").count(), 146, "{text}");
    assert!(text.ends_with("`a` +"), "{text}");
    let values = format!("INSERT INTO t VALUES {}", vec!["(1, 2)"; 2000].join(", "));
    assert_eq!(
        digest_text(&values),
        "INSERT INTO `t` VALUES (...) /* , ... */"
    );
}

#[test]
fn unterminated_input_ends_without_a_panic() {
    for sql in [
        "SELECT 'abc",
        "SELECT `a",
        "SELECT `a``",
        "SELECT /* x",
        "SELECT /*!5",
        "SELECT /*!9",
        "x'",
        "-",
        "@",
        "@@",
        "@@`",
        "é",
        "0x",
        "1e",
        "1e+",
        ".",
        "a.",
        "(",
        ")",
        "@@a.",
    ] {
        let _ = digest_text(sql);
    }
}

/// The kept token array keeps its allocation from one statement to the next, and a long
/// text reserves no more than the tokens the digest can keep.
#[test]
fn kept_tokens_keep_their_buffer() {
    let d = tokens("SELECT c FROM sbtest1 WHERE id = 1", Vec::new());
    let (cap, at) = (d.toks.capacity(), d.toks.as_ptr() as usize);
    let again = tokens("SELECT 1", recycle(d.toks));
    assert_eq!(
        (again.toks.capacity(), again.toks.as_ptr() as usize),
        (cap, at)
    );
    let long = format!("SELECT {}", vec!["1"; 100_000].join(", "));
    let d = tokens(&long, recycle(again.toks));
    assert!(
        d.toks.capacity() <= MAX_DIGEST_LENGTH,
        "{}",
        d.toks.capacity()
    );
    assert_eq!(
        digest_text(&long),
        with_digest_text(&long, str::to_string),
        "kept buffers print the same"
    );
}
