//! The value arguments of MySQL's JSON-building functions that MySQL takes as JSON and SQLite
//! would not: a boolean and a column declared `JSON`. Runs on the rewritten statement (after
//! the parent's visit: tables are qualified, `CAST(x AS JSON)` is `CAST_AS_JSON(x)`).
//!
//! MySQL reads such an argument with `get_json_atom_wrapper` (`sql/item_json_func.cc`; the
//! aggregates in `sql/item_sum.cc`): a value whose type is JSON is that JSON value (`{"x": 1}`
//! nests as an object, not a string), and a boolean (`boolean.rs`) is JSON `true` / `false`.
//! SQLite has neither type, so the rewrite marks the argument with a call the JSON functions
//! read as JSON (`functions/json_marks.rs`):
//!
//! * a boolean `b` is `MDL_JSON_BOOLEAN(b)`;
//! * a column `c` (`c`, `t.c`, `s.t.c`) of a table the query names is
//!   `MDL_JSON_OF_COLUMN(c, EXISTS (SELECT 1 FROM pragma_table_info('t', 's') WHERE ...))`:
//!   whether `c` is declared `JSON` is asked of SQLite when the statement runs (once: the
//!   subquery is constant), as the rewrite knows no column types. An unqualified column is
//!   looked for in the tables of its own SELECT (or UPDATE), a qualified one by the table's
//!   name or alias there or in an enclosing SELECT.
//!
//! The arguments: every one of `JSON_ARRAY`; the values of `JSON_OBJECT` and `JSON_OBJECTAGG`
//! (not the keys); the values after each path of `JSON_SET`, `JSON_INSERT`, `JSON_REPLACE`,
//! `JSON_ARRAY_APPEND`, `JSON_ARRAY_INSERT` (not the document); `JSON_ARRAYAGG`'s and
//! `CAST(x AS JSON)`'s one.
//!
//! The same visit, with its tables, marks a `DECIMAL` column made a string
//! (`rewrite/decimal_strings.rs`).
//!
//! Differs: a column of a derived table, a common table expression or an outer query
//! referenced without a qualifier is not known to be JSON (it is passed as a string), nor is
//! an expression of JSON type other than a column or a JSON function (`IF(c, doc, NULL)`); a
//! table's definition (a `DEFAULT (JSON_ARRAY(TRUE))`) is left unmarked.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectNamePart, Query, SetExpr,
    Statement, TableFactor, TableWithJoins, UpdateTableFromKind, VisitMut, VisitorMut,
};

use super::boolean::is_boolean;
use crate::functions::{JSON_BOOLEAN_MARK, JSON_COLUMN_MARK};
use crate::rewrite::expr::call;

/// Marks the JSON value arguments of `s`'s JSON functions (see the module docs), in a query,
/// a change of rows, a `SET` or a view; not in a table's definition (a column's `DEFAULT`),
/// which `SHOW CREATE TABLE` gives back. A statement whose text does not say `JSON`
/// (`mentions`) has none, and is not visited.
pub(in crate::rewrite) fn mark(s: &mut Statement, mentioned: bool) {
    if mentioned {
        visit_columns(s, json_call);
    }
}

/// What [`visit_columns`] does to each expression of a query level, with the tables of the
/// levels around it (innermost last).
pub(in crate::rewrite) type Mark = fn(&mut Expr, &[Scope]);

/// Calls `mark` on the expressions of `s`, each with the tables its column references may
/// name (see the module docs: a query, a change of rows, a `SET` or a view; not a table's
/// definition).
pub(in crate::rewrite) fn visit_columns(s: &mut Statement, mark: Mark) {
    let rows = matches!(
        s,
        Statement::Query(_)
            | Statement::Insert(_)
            | Statement::Update(_)
            | Statement::Delete(_)
            | Statement::Set(_)
            | Statement::CreateView(_)
    );
    if !rows {
        return;
    }
    let scope = match s {
        Statement::Update(u) => {
            let mut tables = Vec::new();
            from(std::slice::from_ref(&u.table), &mut tables);
            if let Some(UpdateTableFromKind::BeforeSet(f) | UpdateTableFromKind::AfterSet(f)) =
                &u.from
            {
                from(f, &mut tables);
            }
            tables
        }
        _ => Vec::new(),
    };
    let _ = s.visit(&mut Marker::new(vec![scope], mark));
}

/// A table a query names: by `name` (its alias, else its name), `schema`.`table`.
#[derive(Clone, Debug)]
pub(in crate::rewrite) struct Table {
    name: String,
    aliased: bool,
    schema: String,
    table: String,
}

/// The tables of a FROM clause, innermost query last.
pub(in crate::rewrite) type Scope = Vec<Table>;

/// The tables of a FROM clause (named tables only: not derived tables, table functions or
/// common table expressions, whose names the parent's visit leaves unqualified).
fn from(list: &[TableWithJoins], out: &mut Scope) {
    for t in list {
        factor(&t.relation, out);
        for j in &t.joins {
            factor(&j.relation, out);
        }
    }
}

fn factor(f: &TableFactor, out: &mut Scope) {
    match f {
        TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } => {
            let parts: Vec<&Ident> = (name.0.iter())
                .filter_map(|p| match p {
                    ObjectNamePart::Identifier(i) => Some(i),
                    _ => None,
                })
                .collect();
            if let [schema, table] = parts.as_slice() {
                out.push(Table {
                    name: alias
                        .as_ref()
                        .map_or(&table.value, |a| &a.name.value)
                        .clone(),
                    aliased: alias.is_some(),
                    schema: schema.value.clone(),
                    table: table.value.clone(),
                });
            }
        }
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => from(std::slice::from_ref(table_with_joins), out),
        _ => {}
    }
}

/// Marks the calls of one query level; a nested query is marked with its own tables.
struct Marker {
    scopes: Vec<Scope>,
    /// How deep in queries below this level the visit is (their calls are not this level's).
    depth: usize,
    mark: Mark,
}

impl Marker {
    fn new(scopes: Vec<Scope>, mark: Mark) -> Marker {
        Marker {
            scopes,
            depth: 0,
            mark,
        }
    }
}

impl VisitorMut for Marker {
    type Break = ();

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        if self.depth == 0 {
            query(q, &self.scopes, self.mark);
        }
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if self.depth == 0 {
            (self.mark)(e, &self.scopes);
        }
        ControlFlow::Continue(())
    }
}

/// Marks the JSON value arguments of a JSON-building call `e`.
fn json_call(e: &mut Expr, scopes: &[Scope]) {
    let Expr::Function(f) = e else {
        return;
    };
    let name = match f.name.0.as_slice() {
        [ObjectNamePart::Identifier(n)] => n.value.as_str(),
        _ => "",
    };
    if let (Some((first, step)), FunctionArguments::List(list)) = (value_args(name), &mut f.args) {
        for a in list.args.iter_mut().skip(first).step_by(step) {
            if let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = a {
                json_value(e, scopes);
            }
        }
    }
}

/// Marks query `q`, within the tables of the queries around it.
fn query(q: &mut Query, outer: &[Scope], mark: Mark) {
    if let Some(with) = &mut q.with {
        for cte in &mut with.cte_tables {
            query(&mut cte.query, outer, mark);
        }
    }
    let scope = set_expr(&mut q.body, outer, mark);
    let mut m = Marker::new([outer, &[scope]].concat(), mark);
    let _ = q.order_by.visit(&mut m);
}

/// Marks a query body; the tables of its FROM clause when it is one SELECT.
fn set_expr(body: &mut SetExpr, outer: &[Scope], mark: Mark) -> Scope {
    match body {
        SetExpr::Select(sel) => {
            let mut scope = Vec::new();
            from(&sel.from, &mut scope);
            let _ = sel.visit(&mut Marker::new([outer, &[scope.clone()]].concat(), mark));
            scope
        }
        SetExpr::Query(q) => {
            query(q, outer, mark);
            Vec::new()
        }
        SetExpr::SetOperation { left, right, .. } => {
            set_expr(left, outer, mark);
            set_expr(right, outer, mark);
            Vec::new()
        }
        other => {
            let _ = other.visit(&mut Marker::new(outer.to_vec(), mark));
            Vec::new()
        }
    }
}

/// For a JSON-building function, its first value argument and the step to the next.
fn value_args(name: &str) -> Option<(usize, usize)> {
    const FUNCTIONS: [(&str, usize, usize); 10] = [
        ("JSON_ARRAY", 0, 1),
        ("JSON_OBJECT", 1, 2),
        ("JSON_SET", 2, 2),
        ("JSON_INSERT", 2, 2),
        ("JSON_REPLACE", 2, 2),
        ("JSON_ARRAY_APPEND", 2, 2),
        ("JSON_ARRAY_INSERT", 2, 2),
        ("JSON_ARRAYAGG", 0, 1),
        ("JSON_OBJECTAGG", 1, 2),
        ("CAST_AS_JSON", 0, 1),
    ];
    (FUNCTIONS.iter())
        .find(|(n, ..)| n.eq_ignore_ascii_case(name))
        .map(|&(_, first, step)| (first, step))
}

/// Marks value argument `e` when MySQL takes it as JSON (see the module docs).
fn json_value(e: &mut Expr, scopes: &[Scope]) {
    let mark = if is_boolean(e) {
        call(JSON_BOOLEAN_MARK, vec![take(e)])
    } else if let Some(declared) = declared_json(e, scopes) {
        call(JSON_COLUMN_MARK, vec![take(e), declared])
    } else {
        return;
    };
    *e = mark;
}

fn take(e: &mut Expr) -> Expr {
    std::mem::replace(e, Expr::value(sqlparser::ast::Value::Null))
}

/// For a column of the query's tables, the SQL that tells whether it is declared `JSON`.
fn declared_json(e: &Expr, scopes: &[Scope]) -> Option<Expr> {
    let each = pragma_selects(e, scopes, "1", "AND upper(type) = 'JSON'")?;
    parse_expr(&format!("EXISTS ({})", each.join(" UNION ALL ")))
}

/// For column reference `e` of the query's tables, one `SELECT what FROM pragma_table_info(...)
/// WHERE <it is the column> and_also` for each table it may be of; `None` if it is no column
/// of a table the query names.
pub(in crate::rewrite) fn pragma_selects(
    e: &Expr,
    scopes: &[Scope],
    what: &str,
    and_also: &str,
) -> Option<Vec<String>> {
    let names: Vec<&str> = match e {
        Expr::Identifier(c) => vec![&c.value],
        Expr::CompoundIdentifier(parts) => parts.iter().map(|p| p.value.as_str()).collect(),
        _ => return None,
    };
    let innermost = scopes.last().map_or(&[][..], |s| s.as_slice());
    let (tables, column): (Vec<&Table>, &str) = match names.as_slice() {
        [c] => (innermost.iter().collect(), c),
        [t, c] => {
            let named = |s: &&Scope| s.iter().any(|x| x.name.eq_ignore_ascii_case(t));
            let scope = scopes.iter().rev().find(named)?;
            let found = scope.iter().filter(|x| x.name.eq_ignore_ascii_case(t));
            (found.collect(), c)
        }
        [s, t, c] => {
            let found = (scopes.iter().rev().flatten()).filter(|x| {
                !x.aliased && x.schema.eq_ignore_ascii_case(s) && x.table.eq_ignore_ascii_case(t)
            });
            (found.take(1).collect(), c)
        }
        _ => return None,
    };
    if tables.is_empty() {
        return None;
    }
    let lit = |s: &str| format!("'{}'", s.replace('\'', "''"));
    Some(
        (tables.iter())
            .map(|t| {
                format!(
                    "SELECT {what} FROM pragma_table_info({}, {}) WHERE lower(name) = lower({}) \
                     {and_also}",
                    lit(&t.table),
                    lit(&t.schema),
                    lit(column)
                )
            })
            .collect(),
    )
}

/// `sql` as an expression.
pub(in crate::rewrite) fn parse_expr(sql: &str) -> Option<Expr> {
    let dialect = sqlparser::dialect::MySqlDialect {};
    (sqlparser::parser::Parser::new(&dialect).try_with_sql(sql))
        .and_then(|mut p| p.parse_expr())
        .ok()
}

#[cfg(test)]
mod tests {
    use crate::rewrite::tests::sqlite;

    #[test]
    fn booleans_and_json_columns_are_marked() {
        assert_eq!(
            sqlite("SELECT JSON_OBJECT(1=1, TRUE, 'b', (a IS NULL)) AS j, JSON_ARRAY(1, NOT 1)"),
            ["SELECT JSON_OBJECT(1 = 1, MDL_JSON_BOOLEAN(true), 'b', MDL_JSON_BOOLEAN((a IS NULL))) \
              AS j, JSON_ARRAY(1, MDL_JSON_BOOLEAN(NOT 1)) AS `JSON_ARRAY(1, NOT 1)`"]
        );
        let is_json = |t: &str, c: &str| {
            format!(
                "SELECT 1 FROM pragma_table_info('{t}', 'sbtest') WHERE lower(name) = lower('{c}') \
                 AND upper(type) = 'JSON'"
            )
        };
        // The document of JSON_SET is not a value; an unqualified column may be of either table.
        assert_eq!(
            sqlite("UPDATE t SET j = JSON_SET(j, '$.a', x.d) FROM u AS x"),
            [format!(
                "UPDATE `sbtest`.t SET j = JSON_SET(j, '$.a', MDL_JSON_OF_COLUMN(x.d, EXISTS ({}))) \
                 FROM `sbtest`.u AS x",
                is_json("u", "d")
            )]
        );
        assert_eq!(
            sqlite("SELECT JSON_ARRAYAGG(d) AS a FROM t JOIN u ON t.id = u.id"),
            [format!(
                "SELECT JSON_ARRAYAGG(MDL_JSON_OF_COLUMN(d, EXISTS ({} UNION ALL {}))) AS a \
                 FROM `sbtest`.t JOIN `sbtest`.u ON t.id = u.id",
                is_json("t", "d"),
                is_json("u", "d")
            )]
        );
        // A subquery's unqualified column is of its own tables; a derived table's is not known.
        assert_eq!(
            sqlite(
                "SELECT (SELECT JSON_ARRAY(d) AS a FROM u) AS s, JSON_ARRAY(v.d) AS b \
                    FROM (SELECT d FROM t) AS v"
            ),
            [format!(
                "SELECT (SELECT JSON_ARRAY(MDL_JSON_OF_COLUMN(d, EXISTS ({}))) AS a \
                 FROM `sbtest`.u) AS s, JSON_ARRAY(v.d) AS b \
                 FROM (SELECT d AS `d` FROM `sbtest`.t) AS v",
                is_json("u", "d")
            )]
        );
    }
}
