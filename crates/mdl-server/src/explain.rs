//! `EXPLAIN <statement>` in MySQL's table (`id`, `select_type`, `table`, `partitions`, `type`,
//! `possible_keys`, `key`, `key_len`, `ref`, `rows`, `filtered`, `Extra`), from SQLite's
//! `EXPLAIN QUERY PLAN` of the rewritten statement: a row per table the plan reads, with what a
//! DBA asks EXPLAIN for, which index serves it and how.
//!
//! How SQLite's plan lines read in MySQL's terms:
//! * `SCAN t` is `ALL`; `SCAN t USING [COVERING] INDEX i` is `index` (a full index scan).
//! * `SEARCH t USING INTEGER PRIMARY KEY (rowid=?)` / `USING [COVERING] INDEX i (a=? AND b=?)`:
//!   `range` if a bound is `<` or `>`; else, on the primary key or a unique index with every
//!   column bound, `const` for the first table and `eq_ref` after it; else `ref`.
//! * `COVERING INDEX` adds `Using index` to `Extra`; `USE TEMP B-TREE FOR ORDER BY` adds `Using
//!   filesort` and `FOR GROUP BY` / `FOR DISTINCT` `Using temporary` to the first table's row.
//! * Index names are MySQL's (`catalog.rs`): `PRIMARY` for the rowid or the primary key's
//!   autoindex, an unnamed unique key's first column, `k` for SQLite's `t__k`.
//! * A table inside a subquery (`LIST SUBQUERY`, `SCALAR SUBQUERY`, ...) is `SUBQUERY`, inside
//!   a `MATERIALIZE` or `CO-ROUTINE` (a derived table or view) `DERIVED`, with the id of its
//!   `SELECT`; the others are `PRIMARY` then, or `SIMPLE` in a plan without subqueries (the
//!   first table of an `UPDATE`, `DELETE`, ... is `UPDATE`, `DELETE`, ...). A table is named
//!   by its name or alias, without its schema.
//!
//! SQLite keeps no statistics and no key lengths: `rows`, `filtered` and `key_len` are NULL,
//! `possible_keys` the chosen key only.

use rusqlite::types::Value;

use crate::engine::{quote, EngineConn};
use crate::error::ServerError;
use crate::wire::{Cell, Output, ResultSet};

const COLUMNS: [&str; 12] = [
    "id",
    "select_type",
    "table",
    "partitions",
    "type",
    "possible_keys",
    "key",
    "key_len",
    "ref",
    "rows",
    "filtered",
    "Extra",
];

/// The statement SQLite would `EXPLAIN`, if `sql` is a plain `EXPLAIN` of one (not `EXPLAIN
/// QUERY PLAN`, which SQLite answers itself). `DESCRIBE` and `DESC` are `EXPLAIN`
/// (`describe_command` in MySQL's `sql/sql_yacc.yy`).
pub fn explained(sql: &str) -> Option<&str> {
    let rest = ["EXPLAIN ", "DESCRIBE ", "DESC "]
        .iter()
        .find_map(|p| after(sql, p))?
        .trim_start();
    after(rest, "QUERY PLAN").is_none().then_some(rest)
}

/// `s` after `prefix` (any case), if it starts with it.
fn after<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// MySQL's `EXPLAIN` of `statement` (SQLite's dialect), run with `params`.
///
/// # Errors
/// SQLite's error for a statement it cannot plan.
pub fn explain(
    db: &mut EngineConn,
    statement: &str,
    params: &[Value],
    schema: Option<&str>,
) -> Result<Output, ServerError> {
    let plan = match db.run(&format!("EXPLAIN QUERY PLAN {statement}"), params, schema)? {
        Output::Rows(rs) => rs.rows,
        _ => Vec::new(),
    };
    let lines: Vec<(i64, i64, String)> = plan
        .into_iter()
        .filter_map(|r| match (r.first(), r.get(1), r.get(3)) {
            (Some(Cell::Int(id)), Some(Cell::Int(parent)), Some(Cell::Text(d))) => {
                Some((*id, *parent, d.clone()))
            }
            _ => None,
        })
        .collect();
    let mut rows = rows_of(&lines);
    // The table a DML statement changes is its own select type, as in MySQL.
    let verb = statement
        .split(' ')
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    if let (Some(first), "UPDATE" | "DELETE" | "INSERT" | "REPLACE") =
        (rows.first_mut(), verb.as_str())
    {
        first.select_type = match verb.as_str() {
            "UPDATE" => "UPDATE",
            "DELETE" => "DELETE",
            "INSERT" => "INSERT",
            _ => "REPLACE",
        };
    }
    for r in &mut rows {
        if let Some(index) = r.sqlite_index.take() {
            let (name, unique, columns) = index_facts(db, schema, &index);
            r.key = Some(name);
            r.unique = unique;
            r.key_columns = columns;
        }
    }
    let out = rows
        .iter()
        .enumerate()
        .map(|(i, r)| r.cells(i == 0))
        .collect();
    Ok(Output::Rows(ResultSet {
        columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
        rows: out,
        kinds: Vec::new(),
    }))
}

/// One row of MySQL's table, as read from the plan.
#[derive(Debug, Default, PartialEq)]
struct Row {
    id: i64,
    select_type: &'static str,
    table: String,
    /// SQLite's name of the index, until `index_facts` names it.
    sqlite_index: Option<String>,
    key: Option<String>,
    unique: bool,
    key_columns: usize,
    covering: bool,
    /// The bounds of a SEARCH (`a=? AND b>?`), None for a SCAN.
    bounds: Option<String>,
    extra: Vec<&'static str>,
}

impl Row {
    fn cells(&self, first: bool) -> Vec<Cell> {
        let text = |s: &str| Cell::Text(s.to_string());
        let access = match &self.bounds {
            None if self.key.is_some() => "index",
            None => "ALL",
            Some(b) if b.contains(['<', '>']) => "range",
            Some(b) => {
                let bound = b.split(" AND ").count();
                if self.unique && bound >= self.key_columns && first {
                    "const"
                } else if self.unique && bound >= self.key_columns {
                    "eq_ref"
                } else {
                    "ref"
                }
            }
        };
        let key = self.key.clone().map_or(Cell::Null, Cell::Text);
        let mut extra = self.extra.clone();
        if self.covering {
            extra.insert(0, "Using index");
        }
        vec![
            Cell::Int(self.id),
            text(self.select_type),
            text(&self.table),
            Cell::Null,
            text(access),
            key.clone(),
            key,
            Cell::Null,
            if access == "const" {
                text("const")
            } else {
                Cell::Null
            },
            Cell::Null,
            Cell::Null,
            if extra.is_empty() {
                Cell::Null
            } else {
                text(&extra.join("; "))
            },
        ]
    }
}

/// The table rows of a plan (`(id, parent, detail)` lines, in SQLite's order).
fn rows_of(lines: &[(i64, i64, String)]) -> Vec<Row> {
    // Each subquery line opens a SELECT: its id, and whether it is a derived table.
    let mut selects: Vec<(i64, i64, &'static str)> = Vec::new(); // (line id, select id, type)
    for (id, _, d) in lines {
        let kind = if d.starts_with("MATERIALIZE") || d.starts_with("CO-ROUTINE") {
            "DERIVED"
        } else if d.contains("SUBQUERY") {
            "SUBQUERY"
        } else {
            continue;
        };
        selects.push((*id, selects.len() as i64 + 2, kind));
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut top_extra: Vec<&'static str> = Vec::new();
    for (_, parent, d) in lines {
        let words: Vec<&str> = d.split(' ').collect();
        match words.as_slice() {
            ["USE", "TEMP", "B-TREE", "FOR", "ORDER", "BY"] => top_extra.push("Using filesort"),
            ["USE", "TEMP", "B-TREE", "FOR", ..] => top_extra.insert(0, "Using temporary"),
            [op @ ("SCAN" | "SEARCH"), table, rest @ ..] => {
                let (id, select_type) = match selects.iter().find(|(line, ..)| line == parent) {
                    Some((_, id, kind)) => (*id, *kind),
                    None if selects.is_empty() => (1, "SIMPLE"),
                    None => (1, "PRIMARY"),
                };
                // SQLite names a table as the rewrite qualified it (`test.t`); MySQL by its
                // name or alias.
                let table = table.rsplit_once('.').map_or(*table, |(_, t)| t);
                let mut r = Row {
                    id,
                    select_type,
                    table: table.to_string(),
                    ..Row::default()
                };
                let rest = rest.join(" ");
                let rest = rest.strip_prefix("USING ").unwrap_or(&rest);
                let (how, bounds) = match rest.split_once(" (") {
                    Some((how, b)) => (how, Some(b.trim_end_matches(')').to_string())),
                    None => (rest, None),
                };
                if let Some(pk) = how.strip_prefix("INTEGER PRIMARY KEY") {
                    debug_assert!(pk.is_empty());
                    (r.key, r.unique, r.key_columns) = (Some("PRIMARY".into()), true, 1);
                } else if let Some(i) = how.strip_prefix("COVERING INDEX ") {
                    (r.covering, r.sqlite_index) = (true, Some(i.to_string()));
                } else if let Some(i) = how.strip_prefix("INDEX ") {
                    r.sqlite_index = Some(i.to_string());
                }
                r.bounds = if *op == "SEARCH" { bounds } else { None };
                rows.push(r);
            }
            _ => {}
        }
    }
    if let Some(first) = rows.first_mut() {
        first.extra = top_extra;
    }
    rows
}

/// MySQL's name of SQLite's index `index` in `schema`, or in SQLite's `temp` for a temporary
/// table's (`temporary.rs`), whether it is unique (or the primary key), and its column count
/// (see `catalog.rs` for the names).
fn index_facts(db: &mut EngineConn, schema: Option<&str>, index: &str) -> (String, bool, usize) {
    (schema.into_iter().chain([crate::temporary::SCHEMA]))
        .find_map(|s| index_facts_in(db, s, index))
        .unwrap_or_else(|| (crate::catalog::mysql_index_name(index, ""), false, 1))
}

/// [`index_facts`] of an index of `schema`; `None` if it has none of the name.
fn index_facts_in(db: &mut EngineConn, schema: &str, index: &str) -> Option<(String, bool, usize)> {
    let sql = format!(
        "SELECT l.\"unique\", l.origin, l.name, (SELECT count(*) FROM pragma_index_info(l.name, \
         ?2)), (SELECT name FROM pragma_index_info(l.name, ?2) WHERE seqno = 0), m.tbl_name \
         FROM {}.sqlite_master AS m, pragma_index_list(m.tbl_name, ?2) AS l \
         WHERE m.type = 'index' AND m.name = ?1 AND l.name = ?1",
        quote(schema)
    );
    let params = [Value::Text(index.into()), Value::Text(schema.into())];
    let Ok(Output::Rows(rs)) = db.run(&sql, &params, None) else {
        return None;
    };
    match rs.rows.first().map(Vec::as_slice) {
        Some(
            [Cell::Int(unique), Cell::Text(origin), _, Cell::Int(n), first, Cell::Text(table)],
        ) => {
            let name = match (origin.as_str(), first) {
                ("pk", _) => "PRIMARY".to_string(),
                ("u", Cell::Text(column)) => column.clone(),
                _ => crate::catalog::mysql_index_name(index, table),
            };
            Some((name, *unique != 0, *n as usize))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(lines: &[(i64, i64, &str)]) -> Vec<Row> {
        let lines: Vec<(i64, i64, String)> = lines
            .iter()
            .map(|(a, b, d)| (*a, *b, d.to_string()))
            .collect();
        rows_of(&lines)
    }

    fn types(rows: &[Row]) -> Vec<String> {
        (rows.iter().enumerate())
            .map(|(i, r)| match &r.cells(i == 0)[4] {
                Cell::Text(t) => t.clone(),
                _ => String::new(),
            })
            .collect()
    }

    #[test]
    fn explain_is_recognized() {
        assert_eq!(explained("EXPLAIN SELECT 1"), Some("SELECT 1"));
        assert_eq!(
            explained("explain  UPDATE t SET a = 1"),
            Some("UPDATE t SET a = 1")
        );
        assert_eq!(explained("EXPLAIN QUERY PLAN SELECT 1"), None);
        assert_eq!(explained("SELECT 1"), None);
        assert_eq!(explained("DESCRIBE SELECT 1"), Some("SELECT 1"));
        assert_eq!(explained("DESC SELECT 1"), Some("SELECT 1"));
        assert_eq!(explained("DESCRIPTION"), None);
    }

    #[test]
    fn plan_lines_read_as_mysql_access_types() {
        let rows = plan(&[(2, 0, "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)")]);
        assert_eq!(types(&rows), ["const"]);
        assert_eq!(rows[0].select_type, "SIMPLE");
        assert_eq!(rows[0].key.as_deref(), Some("PRIMARY"));
        let rows = plan(&[(2, 0, "SEARCH t USING INTEGER PRIMARY KEY (rowid>?)")]);
        assert_eq!(types(&rows), ["range"]);
        let rows = plan(&[
            (4, 0, "SEARCH t USING INDEX t__kv (v>? AND v<?)"),
            (17, 0, "USE TEMP B-TREE FOR ORDER BY"),
        ]);
        assert_eq!(rows[0].sqlite_index.as_deref(), Some("t__kv"));
        assert_eq!(rows[0].extra, ["Using filesort"]);
        let mut rows = plan(&[(2, 0, "SCAN t"), (8, 0, "USE TEMP B-TREE FOR GROUP BY")]);
        assert_eq!(types(&rows), ["ALL"]);
        assert_eq!(
            rows[0].cells(true)[11],
            Cell::Text("Using temporary".into())
        );
        rows = plan(&[(2, 0, "SCAN t USING COVERING INDEX t__kv")]);
        rows[0].key = Some("kv".into());
        assert_eq!(types(&rows), ["index"]);
        assert_eq!(rows[0].cells(true)[11], Cell::Text("Using index".into()));
    }

    #[test]
    fn joins_and_subqueries() {
        let mut rows = plan(&[
            (4, 0, "SEARCH x USING INDEX t__kv (v=?)"),
            (
                9,
                0,
                "SEARCH u USING COVERING INDEX sqlite_autoindex_u_1 (a=?)",
            ),
        ]);
        (rows[0].key, rows[0].key_columns) = (Some("kv".into()), 1);
        (rows[1].key, rows[1].unique, rows[1].key_columns) = (Some("PRIMARY".into()), true, 2);
        assert_eq!(types(&rows), ["ref", "ref"]);
        assert_eq!(rows[0].table, "x");
        assert_eq!(plan(&[(2, 0, "SCAN test.t")])[0].table, "t");
        rows[1].bounds = Some("a=? AND b=?".into());
        assert_eq!(types(&rows), ["ref", "eq_ref"]);
        let rows = plan(&[
            (2, 0, "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"),
            (6, 0, "LIST SUBQUERY 1"),
            (8, 6, "SCAN u"),
        ]);
        let kinds: Vec<(i64, &str)> = rows.iter().map(|r| (r.id, r.select_type)).collect();
        assert_eq!(kinds, [(1, "PRIMARY"), (2, "SUBQUERY")]);
    }
}
