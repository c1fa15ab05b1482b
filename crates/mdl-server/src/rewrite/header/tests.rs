//! Column names of unnamed select items, from the statement's text.

use super::*;

/// The names of the items of the first SELECT of the last statement of `sql`.
fn names(sql: &str) -> Vec<String> {
    let parsed = mdl_sql::parse_prepared(sql).unwrap();
    let p = parsed.last().unwrap();
    let src = Source::new(&p.text, p.start);
    let mdl_sql::Statement::Sql { statement, .. } = &p.statement else {
        panic!("not sql")
    };
    let Statement::Query(q) = &**statement else {
        panic!("not a query")
    };
    let mut body = &*q.body;
    while let SetExpr::SetOperation { left, .. } = body {
        body = left;
    }
    let SetExpr::Select(s) = body else {
        panic!("no select")
    };
    (s.projection.iter())
        .map(|i| match i {
            SelectItem::UnnamedExpr(e) => name(e, Some(&src)),
            other => panic!("named: {other}"),
        })
        .collect()
}

#[test]
fn an_expression_is_named_by_its_text() {
    assert_eq!(
        names("SELECT v+1, v  +  1, CONCAT(name,'x'), (v+1), -v, 1/0, COUNT(*) FROM t"),
        [
            "v+1",
            "v  +  1",
            "CONCAT(name,'x')",
            "(v+1)",
            "-v",
            "1/0",
            "COUNT(*)"
        ]
    );
    assert_eq!(
        names("SELECT CASE WHEN v > 1 THEN 'a' ELSE 'b' END, SUBSTRING(name FROM 1 FOR 2) FROM t"),
        [
            "CASE WHEN v > 1 THEN 'a' ELSE 'b' END",
            "SUBSTRING(name FROM 1 FOR 2)"
        ]
    );
    assert_eq!(
        names("select cast(v as char), v between 1 and 2, now() - interval 1 day, NOT v, v mod 2"),
        [
            "cast(v as char)",
            "v between 1 and 2",
            "now() - interval 1 day",
            "NOT v",
            "v mod 2"
        ]
    );
    assert_eq!(
        names("SELECT DISTINCT SQL_NO_CACHE (SELECT MAX(v) FROM t), EXISTS(SELECT 1), v IS NULL"),
        ["(SELECT MAX(v) FROM t)", "EXISTS(SELECT 1)", "v IS NULL"]
    );
    assert_eq!(
        names("SELECT name COLLATE utf8mb4_bin, TRUE, @a, @@version, DATE '2020-01-01'\nFROM t LOCK IN SHARE MODE"),
        ["name COLLATE utf8mb4_bin", "TRUE", "@a", "@@version", "DATE '2020-01-01'"]
    );
}

#[test]
fn comments_and_lines_inside_an_item_are_kept() {
    assert_eq!(
        names("SELECT 1;\n  SELECT v /* c */ +\n 1 -- x\n, 2"),
        ["v /* c */ +\n 1", "2"]
    );
    assert_eq!(
        names("SELECT 'é' || 'ü', CONCAT('日本', v)"),
        ["'é' || 'ü'", "CONCAT('日本', v)"]
    );
}

#[test]
fn items_that_name_themselves() {
    assert_eq!(
        names("SELECT t.ID, v, 'abc', \"q\", '', NULL, null, 1.50, ?, (1), +2, ('x'), (t.v)"),
        ["ID", "v", "abc", "q", "", "NULL", "NULL", "1.50", "?", "1", "2", "x", "v"]
    );
    assert_eq!(
        names("SELECT 'it''s', '  lead', 'a' 'b'"),
        ["it's", "lead", "a"]
    );
}

#[test]
fn a_name_is_cut_as_mysql_cuts_it() {
    let long = format!("'{}'", "é".repeat(200));
    assert_eq!(names(&format!("SELECT {long}"))[0], "é".repeat(127));
    assert_eq!(names("SELECT CONCAT('😀')"), ["CONCAT('?')"]);
    assert_eq!(mysql_name("a\0b"), "a");
    assert_eq!(mysql_name(" \t\u{7f}x "), "x ");
}

#[test]
fn every_branch_and_subquery_is_named_and_the_first_names_the_columns() {
    assert_eq!(names("SELECT v+1 FROM t UNION SELECT v*2 FROM u"), ["v+1"]);
    assert_eq!(
        names("SELECT (v) + 1 FROM (SELECT v FROM t) d"),
        ["(v) + 1"]
    );
}

#[test]
fn without_text_the_name_is_sqlparsers_rendering() {
    let parsed = mdl_sql::parse("SELECT v+1").unwrap();
    let mdl_sql::Statement::Sql { statement, .. } = &parsed[0].statement else {
        panic!()
    };
    let Statement::Query(q) = &**statement else {
        panic!()
    };
    let SetExpr::Select(s) = &*q.body else {
        panic!()
    };
    let SelectItem::UnnamedExpr(e) = &s.projection[0] else {
        panic!()
    };
    assert_eq!(name(e, None), "v + 1");
    // Text that is not the statement's: the expression found differs, and is not used.
    let other = Source::new("SELECT w-2", Location::new(1, 1));
    assert_eq!(name(e, Some(&other)), "v + 1");
}
