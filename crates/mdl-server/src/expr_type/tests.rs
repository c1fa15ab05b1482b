//! The rules of the module docs, item by item, against MySQL 8.0's answers for a table
//! `t (id INT AUTO_INCREMENT, v INT, s VARCHAR(10), d DECIMAL(10,2), f DOUBLE, dt DATETIME,
//! dd DATE, tx TEXT, u INT UNSIGNED, j JSON, tm TIME(3), b VARBINARY(8), ti TINYINT)`.

use super::*;

struct Table;

impl Scope for Table {
    fn column(&self, qualifier: Option<&str>, column: &str) -> Option<String> {
        if qualifier.is_some_and(|q| q != "t") {
            return None;
        }
        let ty = match column {
            "id" => "INTEGER",
            "v" => "INT",
            "s" => "VARCHAR(10)",
            "d" => "DECIMAL(10,2)",
            "f" => "DOUBLE",
            "dt" => "DATETIME",
            "dd" => "DATE",
            "tx" => "TEXT",
            "u" => "INT UNSIGNED",
            "j" => "JSON",
            "tm" => "TIME(3)",
            "b" => "VARBINARY(8)",
            "ti" => "TINYINT",
            _ => return None,
        };
        Some(ty.into())
    }
}

/// The column type of each item of `SELECT <items> FROM t`.
fn types(items: &str) -> Vec<Option<String>> {
    let sql = format!("SELECT {items} FROM t");
    let dialect = sqlparser::dialect::MySqlDialect {};
    let parsed = sqlparser::parser::Parser::parse_sql(&dialect, &sql).unwrap();
    let Some(sqlparser::ast::Statement::Query(q)) = parsed.into_iter().next() else {
        panic!("{sql}");
    };
    let sqlparser::ast::SetExpr::Select(s) = *q.body else {
        panic!("{sql}");
    };
    (s.projection.iter())
        .map(|i| match i {
            sqlparser::ast::SelectItem::UnnamedExpr(e)
            | sqlparser::ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                column_type(e, &Table).map(|t| t.to_ascii_lowercase())
            }
            _ => panic!("{sql}"),
        })
        .collect()
}

/// `types`, each known.
fn known(items: &str) -> Vec<String> {
    (types(items).into_iter())
        .map(|t| t.unwrap_or_else(|| panic!("{items}")))
        .collect()
}

#[test]
fn column_references_keep_their_declared_types() {
    assert_eq!(
        known("v, t.s, d, (f), dt, tm, j"),
        [
            "int",
            "varchar(10)",
            "decimal(10,2)",
            "double",
            "datetime",
            "time(3)",
            "json"
        ]
    );
    assert_eq!(types("nope, x.v"), [None, None]);
}

#[test]
fn literals_are_typed_by_what_they_write() {
    assert_eq!(
        known("1, 123456789, 1234567890, -5, 1.5, 0.25, 1e3, 'abc', '', NULL, TRUE, 18446744073709551615"),
        [
            "int",
            "int",
            "bigint",
            "int",
            "decimal(2,1)",
            "decimal(3,2)",
            "double",
            "varchar(3)",
            "varchar(0)",
            "binary(0)",
            "int",
            "bigint unsigned"
        ]
    );
}

#[test]
fn arithmetic_follows_the_precision_rules() {
    assert_eq!(
        known("v + 1, 1 + 1, v - v, v * 2, u + 1, ti + 1, -v, v + 1.5, d + 1, d * d, d + f, v + f, s + 1"),
        [
            "bigint",
            "int",
            "bigint",
            "bigint",
            "bigint unsigned",
            "int",
            "bigint",
            "decimal(12,1)",
            "decimal(11,2)",
            "decimal(20,4)",
            "double",
            "double",
            "double"
        ]
    );
    // `/`: `div_precision_increment` more digits; `DIV`, `%`.
    assert_eq!(
        known("v / 2, d / 3, 1 / 3, f / 2, v DIV 2, 7 DIV 2, v % 3, d % 3, MOD(v, 2)"),
        [
            "decimal(14,4)",
            "decimal(14,6)",
            "decimal(5,4)",
            "double",
            "bigint",
            "int",
            "bigint",
            "decimal(10,2)",
            "bigint"
        ]
    );
}

#[test]
fn comparisons_and_logic_are_int_bits_unsigned() {
    assert_eq!(
        known("v = 1, v > 2 AND s LIKE 'a%', NOT v, v IS NULL, v IN (1, 2), v BETWEEN 1 AND 2, v <=> 1"),
        ["int"; 7]
    );
    assert_eq!(known("v & 1, v | 2, ~v"), ["bigint unsigned"; 3]);
}

#[test]
fn string_functions_keep_a_length() {
    assert_eq!(
        known(
            "CONCAT(s, 'x'), CONCAT(v, s), UPPER(s), LOWER(s), SUBSTRING(s, 3), \
             SUBSTRING(s, 2, 3), SUBSTR(s FROM 4 FOR 20), LEFT(s, 4), RIGHT(s, 40), TRIM(s), \
             REPLACE(s, 'a', 'bc'), LPAD(s, 20, '*'), REPEAT(s, 3), CONCAT_WS(',', s, s), MD5(s)"
        ),
        [
            "varchar(11)",
            "varchar(21)",
            "varchar(10)",
            "varchar(10)",
            "varchar(8)",
            "varchar(3)",
            "varchar(7)",
            "varchar(4)",
            "varchar(10)",
            "varchar(10)",
            "varchar(20)",
            "varchar(20)",
            "varchar(30)",
            "varchar(21)",
            "varchar(32)"
        ]
    );
    // Past 512 characters, the text type its bytes need.
    assert_eq!(
        known("REPEAT(s, 60), CONCAT(tx, 'x'), UPPER(tx), LPAD(s, v, 'x'), CONCAT(b, b)"),
        ["text", "mediumtext", "text", "longtext", "varbinary(16)"]
    );
    assert_eq!(
        known("LENGTH(s), CHAR_LENGTH(s), LOCATE('a', s), ASCII(s)"),
        ["bigint", "bigint", "bigint", "int"]
    );
}

#[test]
fn aggregates_are_typed_as_mysql_sums() {
    assert_eq!(
        known(
            "COUNT(*), COUNT(v), SUM(v), SUM(d), SUM(f), AVG(v), AVG(d), MIN(s), MAX(dt), \
             MAX(v + 1), MIN(1), GROUP_CONCAT(s), BIT_OR(v), STDDEV(v), JSON_ARRAYAGG(v)"
        ),
        [
            "bigint",
            "bigint",
            "decimal(32,0)",
            "decimal(32,2)",
            "double",
            "decimal(14,4)",
            "decimal(14,6)",
            "varchar(10)",
            "datetime",
            "bigint",
            "bigint",
            "text",
            "bigint unsigned",
            "double",
            "json"
        ]
    );
}

#[test]
fn control_flow_merges_its_values_types() {
    assert_eq!(
        known(
            "IFNULL(v, 0), COALESCE(s, 'abcdefghijklmnop'), IF(v > 1, v, 1.5), \
             CASE WHEN v THEN 'a' ELSE 'bcd' END, CASE v WHEN 1 THEN dd END, IF(v, dd, dt), \
             COALESCE(ti, 1), IF(v, 1, 'abc'), COALESCE(NULL, d), NULLIF(s, 'a'), \
             GREATEST(v, f), IF(v, dt, 'x'), COALESCE(NULL, NULL)"
        ),
        [
            "bigint",
            "varchar(16)",
            "decimal(11,1)",
            "varchar(3)",
            "date",
            "datetime",
            "int",
            "varchar(3)",
            "decimal(10,2)",
            "varchar(10)",
            "double",
            "varchar(19)",
            "binary(0)"
        ]
    );
}

#[test]
fn casts_are_their_targets() {
    assert_eq!(
        known(
            "CAST(v AS SIGNED), CAST('5' AS SIGNED), CAST(v AS UNSIGNED), CAST(v AS CHAR(5)), \
             CAST(v AS CHAR), CAST(s AS DECIMAL(8,3)), CAST(s AS DECIMAL), CAST(s AS DATE), \
             CAST(s AS DATETIME(3)), CAST(s AS TIME), CAST(s AS JSON), CAST(v AS DOUBLE), \
             CONVERT(s, CHAR(4)), CONVERT(s USING utf8mb4), CAST(s AS BINARY(3))"
        ),
        [
            "bigint",
            "int",
            "bigint unsigned",
            "varchar(5)",
            "varchar(11)",
            "decimal(8,3)",
            "decimal(10,0)",
            "date",
            "datetime(3)",
            "time",
            "json",
            "double",
            "varchar(4)",
            "varchar(10)",
            "varbinary(3)"
        ]
    );
}

#[test]
fn dates_and_times() {
    assert_eq!(
        known(
            "NOW(), NOW(3), CURRENT_TIMESTAMP, CURDATE(), CURTIME(), DATE(dt), TIME(dt), \
             YEAR(dt), MONTH(dt), DATE_FORMAT(dt, '%Y-%m-%d'), DATE_FORMAT(dt, '%W %M'), \
             DATE_ADD(dd, INTERVAL 1 DAY), dd + INTERVAL 1 HOUR, dt - INTERVAL 1 DAY, \
             DATE_ADD(s, INTERVAL 1 DAY), DAYNAME(dt), STR_TO_DATE(s, '%d/%m/%Y'), \
             UNIX_TIMESTAMP(), EXTRACT(YEAR FROM dt), DATEDIFF(dt, dd)"
        ),
        [
            "datetime",
            "datetime(3)",
            "datetime",
            "date",
            "time",
            "date",
            "time",
            "int",
            "int",
            "varchar(10)",
            "varchar(129)",
            "date",
            "datetime",
            "datetime",
            "varchar(29)",
            "varchar(9)",
            "date",
            "bigint",
            "int",
            "bigint"
        ]
    );
    assert_eq!(
        temporal::format_length("%H:%i:%s.%f"),
        7 + 1 + 2 + 1 + 2 + 1 + 6
    );
    // A compound unit, as `mdl-sql` respells it.
    assert_eq!(
        known("EXTRACT('HOUR_MINUTE', dt), EXTRACT('DAY_MICROSECOND', dt)"),
        ["int", "bigint"]
    );
}

#[test]
fn json_functions_are_json() {
    assert_eq!(
        known(
            "JSON_OBJECT('a', v), JSON_ARRAY(v, s), JSON_EXTRACT(j, '$.a'), j -> '$.a', \
             j ->> '$.a', JSON_UNQUOTE(j), JSON_VALID(s), JSON_LENGTH(j)"
        ),
        ["json", "json", "json", "json", "longtext", "longtext", "int", "bigint"]
    );
}

#[test]
fn unknown_expressions_have_no_type() {
    assert_eq!(
        types("some_udf(v), @x, (SELECT 1), v + some_udf(v), CONCAT(s, @x), ROUND(v, @x)"),
        [None, None, None, None, None, None]
    );
}

#[test]
fn numbers_round_and_truncate() {
    assert_eq!(
        known("ROUND(d), ROUND(d, 1), TRUNCATE(d, 1), ROUND(v), ROUND(f, 2), FLOOR(d), CEIL(f), ABS(v), ABS(d), SQRT(v)"),
        [
            "decimal(9,0)",
            "decimal(10,1)",
            "decimal(9,1)",
            "bigint",
            "double(19,2)",
            "bigint",
            "double",
            "bigint",
            "decimal(10,2)",
            "double"
        ]
    );
}

#[test]
fn declared_types_read_back() {
    let t = |d: &str| from_declared(d).map(|t| (t.class, t.chars, t.decimals, t.unsigned));
    assert_eq!(t("INT"), Some((Class::Int, 11, 0, false)));
    assert_eq!(t("int unsigned"), Some((Class::Int, 10, 0, true)));
    assert_eq!(t("BIGINT"), Some((Class::Int, 20, 0, false)));
    assert_eq!(t("decimal(10,2)"), Some((Class::Decimal, 12, 2, false)));
    assert_eq!(t("varchar(10)"), Some((Class::Str, 10, 0, false)));
    assert_eq!(t("DATETIME(6)"), Some((Class::Datetime, 26, 6, false)));
    assert_eq!(t(""), None);
    assert_eq!(t("geometry"), None);
    assert_eq!(t("decimal(x)"), None);
    // A column keeps its declared text; an expression of it is MySQL's.
    assert_eq!(from_declared("INTEGER").unwrap().column_type(), "INTEGER");
    assert_eq!(
        from_declared("INTEGER").unwrap().computed().column_type(),
        "bigint"
    );
}
