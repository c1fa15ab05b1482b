//! The rewritten text of each form of the parent module's docs.

use crate::rewrite::tests::sqlite;

/// The one statement `sql` becomes.
fn one(sql: &str) -> String {
    let mut out = sqlite(sql);
    assert_eq!(out.len(), 1, "{out:?}");
    out.remove(0)
}

#[test]
fn date_arithmetic_calls_date_add_and_date_sub() {
    assert_eq!(
        one("SELECT NOW() - INTERVAL 1 DAY"),
        "SELECT DATE_SUB(NOW(), 1, 'DAY') AS `NOW() - INTERVAL 1 DAY`"
    );
    assert_eq!(
        one("SELECT d + INTERVAL '1' MONTH, INTERVAL 2 week + d FROM t WHERE d > NOW() - INTERVAL c HOUR"),
        "SELECT DATE_ADD(d, '1', 'MONTH') AS `d + INTERVAL '1' MONTH`, \
         DATE_ADD(d, 2, 'WEEK') AS `INTERVAL 2 week + d` FROM `sbtest`.t \
         WHERE d > DATE_SUB(NOW(), c, 'HOUR')"
    );
    assert_eq!(
        one("SELECT DATE_ADD('2024-01-31', INTERVAL 1 MONTH) AS a, date_sub(x, INTERVAL 1+2 MICROSECOND) AS b"),
        "SELECT DATE_ADD('2024-01-31', 1, 'MONTH') AS a, DATE_SUB(x, 1 + 2, 'MICROSECOND') AS b"
    );
    assert_eq!(
        one("SELECT ADDDATE(x, INTERVAL -1 QUARTER) a, ADDDATE(x, 3) b, SUBDATE(x, ?) c, subdate(x, INTERVAL 1 YEAR) d"),
        "SELECT DATE_ADD(x, -1, 'QUARTER') AS a, DATE_ADD(x, 3, 'DAY') AS b, \
         DATE_SUB(x, ?, 'DAY') AS c, DATE_SUB(x, 1, 'YEAR') AS d"
    );
    // Nested: the outer call first, then its arguments.
    assert_eq!(
        one("SELECT x + INTERVAL 1 DAY - INTERVAL 2 SECOND a"),
        "SELECT DATE_SUB(DATE_ADD(x, 1, 'DAY'), 2, 'SECOND') AS a"
    );
    // Not MySQL: left for SQLite to refuse, as MySQL does.
    assert_eq!(
        one("SELECT x - INTERVAL 1 DAYS a"),
        "SELECT x - INTERVAL 1 DAYS AS a"
    );
    assert_eq!(one("SELECT DATE_ADD(x, 1) a"), "SELECT DATE_ADD(x, 1) AS a");
    // Compound units, `SECOND_MICROSECOND` among them, as `mdl-sql` respells them.
    assert_eq!(
        one("SELECT d + INTERVAL '1.5' SECOND_MICROSECOND, DATE_SUB(d, INTERVAL '1:30' HOUR_MINUTE) b"),
        "SELECT DATE_ADD(d, '1.5', 'SECOND_MICROSECOND') AS `d + INTERVAL '1.5' SECOND_MICROSECOND`, \
         DATE_SUB(d, '1:30', 'HOUR_MINUTE') AS b"
    );
}

#[test]
fn a_moved_value_keeps_its_placeholder_number() {
    // `INTERVAL ? DAY + ?`: the second `?` moves first, so both are numbered as written;
    // SQLite numbers the plain `?` after them from the largest.
    assert_eq!(
        one("SELECT ? a, INTERVAL ? DAY + ? b, ? c FROM t WHERE id = ?"),
        "SELECT ? AS a, DATE_ADD(?3, ?2, 'DAY') AS b, ? AS c FROM `sbtest`.t WHERE id = ?"
    );
    assert_eq!(
        one("SELECT INTERVAL ? DAY + (INTERVAL ? HOUR + ?) a"),
        "SELECT DATE_ADD((DATE_ADD(?3, ?2, 'HOUR')), ?1, 'DAY') AS a"
    );
    // SQLite binds them so: `printf` stands in for DATE_ADD, the moved value is the format.
    let sql = one("SELECT ? a, INTERVAL ? DAY + ? b, ? c FROM t WHERE id = ?")
        .replace("DATE_ADD", "printf")
        .replace("`sbtest`.t", "(SELECT 5 AS id)");
    let db = rusqlite::Connection::open_in_memory().unwrap();
    let mut stmt = db.prepare(&sql).unwrap();
    assert_eq!(stmt.parameter_count(), 5);
    let row: (i64, String, i64) = stmt
        .query_row(rusqlite::params![1, 2, "%s-%s", 4, 5], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(row, (1, "2-DAY".to_string(), 4));
}

#[test]
fn units_as_words_are_strings() {
    assert_eq!(
        one("SELECT TIMESTAMPDIFF(DAY, '2024-01-01', '2024-02-01') a, timestampdiff(sql_tsi_month, a, b) b"),
        "SELECT TIMESTAMPDIFF('DAY', '2024-01-01', '2024-02-01') AS a, timestampdiff('MONTH', a, b) AS b"
    );
    assert_eq!(
        one("SELECT TIMESTAMPADD(MINUTE, 5, x) a, TIMESTAMPADD(year, ?, x) b, TIMESTAMPADD(MICROSECOND, 1, x) c"),
        "SELECT TIMESTAMPADD('MINUTE', 5, x) AS a, TIMESTAMPADD('YEAR', ?, x) AS b, \
         TIMESTAMPADD('MICROSECOND', 1, x) AS c"
    );
    assert_eq!(
        one("SELECT EXTRACT(YEAR FROM x) a, EXTRACT(WEEK FROM '2024-01-01') b FROM t"),
        "SELECT EXTRACT('YEAR', x) AS a, EXTRACT('WEEK', '2024-01-01') AS b FROM `sbtest`.t"
    );
    // A column named like no unit, or quoted, stays a column.
    assert_eq!(
        one("SELECT TIMESTAMPDIFF(days, a, b) a, TIMESTAMPDIFF(`DAY`, a, b) b"),
        "SELECT TIMESTAMPDIFF(days, a, b) AS a, TIMESTAMPDIFF(`DAY`, a, b) AS b"
    );
}

#[test]
fn compound_units_are_mapped_should_the_parser_give_them() {
    use sqlparser::ast::{DateTimeField, Expr, Ident, Interval, Value};
    let interval = Expr::Interval(Interval {
        value: Box::new(Expr::value(Value::SingleQuotedString("1:30".into()))),
        leading_field: Some(DateTimeField::Custom(Ident::new("hour_minute"))),
        leading_precision: None,
        last_field: None,
        fractional_seconds_precision: None,
    });
    let mut e = Expr::BinaryOp {
        left: Box::new(Expr::Identifier(Ident::new("x"))),
        op: sqlparser::ast::BinaryOperator::Plus,
        right: Box::new(interval),
    };
    super::mysql_syntax(&mut e, 0).unwrap();
    assert_eq!(e.to_string(), "DATE_ADD(x, '1:30', 'HOUR_MINUTE')");
}

#[test]
fn div_and_modulo() {
    assert_eq!(
        one("SELECT 5 DIV 2, a % b FROM t WHERE a DIV 2 * 2 = a"),
        "SELECT CAST(5 / 2 AS INTEGER) AS `5 DIV 2`, MOD(a, b) AS `a % b` FROM `sbtest`.t \
         WHERE CAST(a / 2 AS INTEGER) * 2 = a"
    );
    assert_eq!(
        one("SELECT (a + 1) DIV -2 x, MOD(a, 2) y"),
        "SELECT CAST((a + 1) / -2 AS INTEGER) AS x, MOD(a, 2) AS y"
    );
}

#[test]
fn division_is_real() {
    // A DIV's own `/` is SQLite's integer one; a `/` divides as reals, however nested.
    assert_eq!(
        one("SELECT a / b / 2, a DIV b, a - b / (c + 1) FROM t"),
        "SELECT CAST(CAST(a AS REAL) / b AS REAL) / 2 AS `a / b / 2`, \
         CAST(a / b AS INTEGER) AS `a DIV b`, a - CAST(b AS REAL) / (c + 1) AS `a - b / (c + 1)` \
         FROM `sbtest`.t"
    );
}

#[test]
fn group_concat_in_sqlite_terms() {
    // A column's value is a string as MySQL writes it (`decimal_strings.rs`).
    let m = |c: &str| {
        format!(
            "MYSQL_TEXT({c}, (SELECT type FROM pragma_table_info('t', 'sbtest') WHERE \
             lower(name) = lower('{c}') LIMIT 1))"
        )
    };
    let (c, a, b, d) = (m("c"), m("a"), m("b"), m("d"));
    // Plain forms are SQLite's already.
    assert_eq!(
        one("SELECT GROUP_CONCAT(c), GROUP_CONCAT(DISTINCT c ORDER BY c DESC) FROM t"),
        format!(
            "SELECT GROUP_CONCAT({c}) AS `GROUP_CONCAT(c)`, GROUP_CONCAT(DISTINCT {c} ORDER BY \
             c DESC) AS `GROUP_CONCAT(DISTINCT c ORDER BY c DESC)` FROM `sbtest`.t"
        )
    );
    assert_eq!(
        one("SELECT GROUP_CONCAT(c ORDER BY id SEPARATOR ';') a, GROUP_CONCAT(c, d SEPARATOR \"\") b, GROUP_CONCAT(c SEPARATOR ',') x FROM t"),
        format!(
            "SELECT GROUP_CONCAT({c}, ';' ORDER BY id) AS a, GROUP_CONCAT(CONCAT({c}, {d}), '') \
             AS b, GROUP_CONCAT({c}) AS x FROM `sbtest`.t"
        )
    );
    // DISTINCT with a separator or several values: escaped, aggregated, unescaped.
    assert_eq!(
        one("SELECT GROUP_CONCAT(DISTINCT c ORDER BY c SEPARATOR '; ') a FROM t"),
        format!(
            "SELECT replace(replace(replace(GROUP_CONCAT(DISTINCT replace(replace({c}, '\u{1}', \
             '\u{1}\u{2}'), ',', '\u{1}\u{3}') ORDER BY c), ',', '; '), '\u{1}\u{3}', ','), \
             '\u{1}\u{2}', '\u{1}') AS a FROM `sbtest`.t"
        )
    );
    assert_eq!(
        one("SELECT GROUP_CONCAT(DISTINCT a, b) x FROM t"),
        format!(
            "SELECT replace(replace(replace(GROUP_CONCAT(DISTINCT CONCAT(replace(replace({a}, \
             '\u{1}', '\u{1}\u{2}'), ',', '\u{1}\u{3}'), '\u{1}\u{4}', replace(replace({b}, \
             '\u{1}', '\u{1}\u{2}'), ',', '\u{1}\u{3}'))), '\u{1}\u{4}', ''), '\u{1}\u{3}', \
             ','), '\u{1}\u{2}', '\u{1}') AS x FROM `sbtest`.t"
        )
    );
    let parsed = mdl_sql::parse("SELECT GROUP_CONCAT(DISTINCT c SEPARATOR '\u{1}') FROM t");
    let mdl_sql::Statement::Sql { statement, .. } = &parsed.unwrap()[0].statement else {
        panic!("not sql")
    };
    let env = crate::rewrite::Env {
        schema: Some("test"),
        values: &crate::session_values::SessionValues::new(1, "root", "127.0.0.1:1"),
        user_locks: &[],
        variable: &|_| None,
        source: None,
        temporary: &Default::default(),
    };
    let e = crate::rewrite::rewrite(statement, &env).unwrap_err();
    assert_eq!(e.code, 1235);
}

#[test]
fn casts_in_sqlite_types() {
    assert_eq!(
        one("SELECT CAST(a AS SIGNED) a, CAST(a AS UNSIGNED) b, CAST(a AS SIGNED INTEGER) c, CONVERT('5', UNSIGNED) d"),
        "SELECT CAST(a AS INTEGER) AS a, CAST(a AS INTEGER) AS b, CAST(a AS INTEGER) AS c, \
         CAST('5' AS INTEGER) AS d"
    );
    assert_eq!(
        one("SELECT CAST(a AS CHAR) a, CAST(a AS CHAR(3)) b, CONVERT(a, NCHAR) c, CAST(a AS BINARY) d, BINARY a e, CAST(a AS BINARY(2)) f"),
        "SELECT MYSQL_TEXT(a) AS a, substr(MYSQL_TEXT(a), 1, 3) AS b, MYSQL_TEXT(a) AS c, \
         MYSQL_TEXT(a) AS d, MYSQL_TEXT(a) AS e, \
         CAST(substr(CAST(MYSQL_TEXT(a) AS BLOB), 1, 2) AS TEXT) AS f"
    );
    assert_eq!(
        one("SELECT CAST(a AS DECIMAL) a, CAST(a AS DECIMAL(10,2)) b, CONVERT(a, DECIMAL(5)) c"),
        "SELECT MYSQL_DECIMAL(a, 10, 0) AS a, MYSQL_DECIMAL(a, 10, 2) AS b, \
         MYSQL_DECIMAL(a, 5, 0) AS c"
    );
    // `LIKE` of what may be a number reads MySQL's text of it; a column or a string as is.
    assert_eq!(
        one("SELECT 1e3 LIKE '1000', a + 1 NOT LIKE '2%' x, a LIKE 'b', 'c' LIKE 'c' y"),
        "SELECT MYSQL_TEXT(1e3) LIKE '1000' ESCAPE '\\' AS `1e3 LIKE '1000'`, \
         MYSQL_TEXT(a + 1) NOT LIKE '2%' ESCAPE '\\' AS x, a LIKE 'b' ESCAPE '\\' AS `a LIKE 'b'`, \
         'c' LIKE 'c' ESCAPE '\\' AS y"
    );
    assert_eq!(
        one("SELECT CAST(a AS DATE) a, CAST(a AS DATETIME) b, CAST(a AS DATETIME(2)) c, CAST(a AS DATETIME(6)) d, CAST(a AS TIME) e, CAST(a AS TIME(3)) f"),
        "SELECT DATE(a) AS a, DATETIME(a) AS b, substr(strftime('%Y-%m-%d %H:%M:%f', a), 1, 22) AS c, \
         (strftime('%Y-%m-%d %H:%M:%f', a) || '000') AS d, TIME(a) AS e, \
         substr(strftime('%H:%M:%f', a), 1, 12) AS f"
    );
    assert_eq!(
        one("SELECT CAST(a AS JSON) a, CAST(a AS DOUBLE) b, CAST(a AS YEAR) c, CONVERT(a + 1 USING utf8mb4) * 2 d"),
        "SELECT CAST_AS_JSON(a) AS a, CAST(a AS DOUBLE) AS b, CAST(a AS YEAR) AS c, (a + 1) * 2 AS d"
    );
}

#[test]
fn xor_literals_and_collations() {
    assert_eq!(
        one("SELECT a XOR b, a ^ 3 FROM t"),
        "SELECT ((CAST((a) AS REAL) <> 0) <> (CAST((b) AS REAL) <> 0)) AS `a XOR b`, \
         (((a) | (3)) & ~ ((a) & (3))) AS `a ^ 3` FROM `sbtest`.t"
    );
    assert_eq!(
        one("SELECT 1 FROM t WHERE d >= DATE '2024-01-31' AND s < TIMESTAMP '2024-01-31 10:00:00'"),
        "SELECT 1 AS `1` FROM `sbtest`.t WHERE d >= DATE('2024-01-31') \
         AND s < DATETIME('2024-01-31 10:00:00')"
    );
    assert_eq!(
        one("SELECT c FROM t ORDER BY c COLLATE utf8mb4_0900_ai_ci, c COLLATE utf8mb4_bin"),
        "SELECT c AS `c` FROM `sbtest`.t ORDER BY c COLLATE NOCASE, c COLLATE BINARY"
    );
}

#[test]
fn assignment_in_an_expression_is_refused() {
    let mut e = sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
        .try_with_sql("@r := @r + 1")
        .unwrap()
        .parse_expr()
        .unwrap();
    assert_eq!(super::mysql_syntax(&mut e, 0).unwrap_err().code, 1235);
}
