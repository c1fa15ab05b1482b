//! What MySQL says of a view's columns beyond their names: `Null`, `Default` and, for
//! expressions, `Type`, derived from the view's select, for `DESCRIBE` / `SHOW COLUMNS` and
//! `information_schema.COLUMNS` alike (`catalog::columns` calls [`refine`]).
//!
//! SQLite says every column of a view may be NULL and has no default; its type is the declared
//! type of the column a result column reads, and none for an expression (shown `blob`): an
//! expression's type is MySQL's, from `expr_type.rs`, where it knows it. MySQL
//! keeps, when it creates a view, a column per item of the select, made as a temporary table's
//! column is made of that item (`fill_dd_view_columns`, `sql/dd/dd_view.cc`):
//!
//! * a column reference is the column's nullability, unless its table is the inner side of an
//!   outer join (`Item_field::maybe_null`), and its default (`Create_field(tmp_field,
//!   orig_field)` copies the base column's);
//! * an integer literal is `int` (`bigint` from 10 characters: `create_tmp_field_from_item`'s
//!   `MY_INT32_NUM_DECIMAL_DIGITS - 1`), a string literal of up to 512 characters
//!   `varchar(n)` (`CONVERT_IF_BIGGER_TO_BLOB`), `COUNT(...)` `bigint`: all NOT NULL, with the
//!   zero of their type as default (`0`, the empty string), as no base column gives one;
//! * `MIN` and `MAX` of a column are of the column's type, nullable, without a default;
//! * any other expression here stays nullable, with no default, its type `expr_type.rs`'s
//!   (`a + 1` of an `INT` `a`: `bigint`). MySQL says NOT NULL for more of them (`a + 1` of a
//!   NOT NULL `a`, `COALESCE(a, 0)`, ...).
//!
//! The select is read as MySQL resolves it: each name of the `FROM` (a table, a view, whose
//! columns come from this module again, a derived table, a `WITH` query) gives its columns, a
//! `LEFT JOIN` makes its right side's columns nullable (`RIGHT` the left's, `FULL` both's), `*`
//! and `t.*` list them in order. A `UNION` column is NOT NULL if it is in every branch. An
//! implicitly grouped select (an aggregate without `GROUP BY`) and `WITH ROLLUP` make column
//! references nullable (an empty input gives one row of NULLs). What this cannot read (a
//! recursive `WITH`, a table function, `*` over a `USING` or `NATURAL` join, whose columns
//! merge) leaves the whole view as SQLite says, as does a count of columns that does not match
//! SQLite's.

use sqlparser::ast::{
    Expr, GroupByExpr, JoinOperator, ObjectName, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, TableFactor, TableWithJoins, UnaryOperator, Value,
};

use crate::catalog::{self, Column};
use crate::engine::EngineConn;
use crate::views::View;

/// Views read through views no deeper than this (SQLite refuses a cycle anyway).
const MAX_DEPTH: usize = 16;

/// What a column of a select says, as MySQL would.
#[derive(Debug, Clone, Default, PartialEq)]
struct Col {
    /// Its name, as a reference from outside names it (empty if not known).
    name: String,
    not_null: bool,
    /// The default MySQL shows.
    default: Option<String>,
    /// The type (SQLite's declared text, as `Column::decl_type`), if this module knows it.
    ty: Option<String>,
}

/// A name of a `FROM` clause and its columns.
struct Rel {
    /// Its alias, else its table's name.
    name: String,
    /// `None`: not known.
    cols: Option<Vec<Col>>,
    /// On the inner side of an outer join.
    nullable: bool,
}

/// A select's `WITH` queries, by name.
type Ctes<'q> = Vec<(String, &'q Query)>;

/// Sets `cols` (SQLite's columns of view `v`, in order) to what MySQL says of them (the module
/// docs); leaves them as they are where this cannot tell.
pub(crate) fn refine(db: &mut EngineConn, v: &View, cols: &mut [Column], depth: usize) {
    if v.invalid || depth > MAX_DEPTH {
        return;
    }
    let dialect = sqlparser::dialect::MySqlDialect {};
    let Ok(parsed) = sqlparser::parser::Parser::parse_sql(&dialect, &v.select) else {
        return;
    };
    let Some(sqlparser::ast::Statement::Query(q)) = parsed.first() else {
        return;
    };
    let mut r = Resolver {
        db,
        schema: &v.schema,
        depth,
    };
    let Some(found) = r.query(q, &Vec::new()) else {
        return;
    };
    if found.len() != cols.len() {
        return;
    }
    for (c, f) in cols.iter_mut().zip(found) {
        c.not_null = f.not_null;
        c.default = f.default;
        if let Some(ty) = f.ty {
            c.decl_type = ty;
        }
    }
}

/// The MySQL types of the columns of select `q` read in schema `schema` (the module docs, and
/// `expr_type.rs` for an expression), `None` for one not known; `None` for a select this
/// cannot read (`CREATE TABLE ... SELECT`'s columns: `execute/create_from.rs`; a query's
/// result columns on the wire: `execute/result_kinds.rs`).
pub(crate) fn query_types(
    db: &mut EngineConn,
    schema: &str,
    q: &Query,
) -> Option<Vec<Option<String>>> {
    let mut r = Resolver {
        db,
        schema,
        depth: 0,
    };
    let cols = r.query(q, &Vec::new())?;
    let typed = |c: Col| c.ty.filter(|t| !t.trim().is_empty());
    Some(cols.into_iter().map(typed).collect())
}

struct Resolver<'a> {
    db: &'a mut EngineConn,
    /// The view's schema: what an unqualified table name names.
    schema: &'a str,
    depth: usize,
}

impl Resolver<'_> {
    fn query<'q>(&mut self, q: &'q Query, outer: &Ctes<'q>) -> Option<Vec<Col>> {
        let mut ctes = outer.clone();
        if let Some(with) = &q.with {
            if with.recursive {
                return None;
            }
            for cte in &with.cte_tables {
                ctes.push((cte.alias.name.value.clone(), &*cte.query));
            }
        }
        self.set_expr(&q.body, &ctes)
    }

    fn set_expr<'q>(&mut self, body: &'q SetExpr, ctes: &Ctes<'q>) -> Option<Vec<Col>> {
        match body {
            SetExpr::Select(s) => self.select(s, ctes),
            SetExpr::Query(q) => self.query(q, ctes),
            SetExpr::SetOperation { left, right, .. } => {
                let (l, r) = (self.set_expr(left, ctes)?, self.set_expr(right, ctes)?);
                if l.len() != r.len() {
                    return None;
                }
                // The first branch names the columns and gives their types (as SQLite's
                // do); NOT NULL only if NOT NULL in each (`Item_type_holder`).
                let both = |(a, b): (Col, Col)| Col {
                    not_null: a.not_null && b.not_null,
                    ..a
                };
                Some(l.into_iter().zip(r).map(both).collect())
            }
            _ => None,
        }
    }

    fn select<'q>(&mut self, s: &'q Select, ctes: &Ctes<'q>) -> Option<Vec<Col>> {
        let mut rels = Vec::new();
        let mut merged = false;
        for t in &s.from {
            self.table_with_joins(t, ctes, &mut rels, &mut merged)?;
        }
        // One row of NULLs for an empty input, or a rollup's super-aggregate rows.
        let grouped_nulls = match &s.group_by {
            GroupByExpr::Expressions(e, modifiers) => {
                !modifiers.is_empty() || (e.is_empty() && (s.having.is_some() || aggregates(s)))
            }
            GroupByExpr::All(_) => true,
        };
        let mut out = Vec::new();
        for item in &s.projection {
            match item {
                SelectItem::UnnamedExpr(e) => out.push(expr(e, &rels, grouped_nulls)),
                SelectItem::ExprWithAlias { expr: e, alias } => out.push(Col {
                    name: alias.value.clone(),
                    ..expr(e, &rels, grouped_nulls)
                }),
                SelectItem::Wildcard(_) if merged => return None,
                SelectItem::Wildcard(_) => {
                    for r in &rels {
                        out.extend(of_rel(r, grouped_nulls)?);
                    }
                }
                SelectItem::QualifiedWildcard(
                    SelectItemQualifiedWildcardKind::ObjectName(n),
                    _,
                ) => {
                    let name = last(n)?;
                    let r = rels.iter().find(|r| r.name.eq_ignore_ascii_case(&name))?;
                    out.extend(of_rel(r, grouped_nulls)?);
                }
                _ => return None,
            }
        }
        Some(out)
    }

    /// Adds the names of `t` to `rels`; `merged`: a `USING` or `NATURAL` join was met.
    fn table_with_joins<'q>(
        &mut self,
        t: &'q TableWithJoins,
        ctes: &Ctes<'q>,
        rels: &mut Vec<Rel>,
        merged: &mut bool,
    ) -> Option<()> {
        let start = rels.len();
        self.factor(&t.relation, ctes, rels, merged)?;
        for j in &t.joins {
            use JoinOperator as J;
            let (constraint, left_nullable, right_nullable) = match &j.join_operator {
                J::Join(c) | J::Inner(c) | J::CrossJoin(c) | J::StraightJoin(c) => {
                    (c, false, false)
                }
                J::Left(c) | J::LeftOuter(c) => (c, false, true),
                J::Right(c) | J::RightOuter(c) => (c, true, false),
                J::FullOuter(c) => (c, true, true),
                _ => return None,
            };
            if matches!(
                constraint,
                sqlparser::ast::JoinConstraint::Using(_) | sqlparser::ast::JoinConstraint::Natural
            ) {
                *merged = true;
            }
            if left_nullable {
                rels[start..].iter_mut().for_each(|r| r.nullable = true);
            }
            let at = rels.len();
            self.factor(&j.relation, ctes, rels, merged)?;
            if right_nullable {
                rels[at..].iter_mut().for_each(|r| r.nullable = true);
            }
        }
        Some(())
    }

    fn factor<'q>(
        &mut self,
        f: &'q TableFactor,
        ctes: &Ctes<'q>,
        rels: &mut Vec<Rel>,
        merged: &mut bool,
    ) -> Option<()> {
        let alias_of =
            |a: &Option<sqlparser::ast::TableAlias>| a.as_ref().map(|a| a.name.value.clone());
        match f {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                if args.is_some() {
                    return None;
                }
                let parts: Vec<String> = (name.0.iter())
                    .map(|p| p.as_ident().map(|i| i.value.clone()))
                    .collect::<Option<_>>()?;
                let (schema, table) = match parts.as_slice() {
                    [t] => (None, t.clone()),
                    [s, t] => (Some(s.clone()), t.clone()),
                    _ => return None,
                };
                let cte = (ctes.iter().rev())
                    .find(|(n, _)| schema.is_none() && n.eq_ignore_ascii_case(&table));
                let cols = match cte {
                    Some((_, q)) => self.query(q, ctes),
                    None => self.stored(schema.as_deref().unwrap_or(self.schema), &table),
                };
                rels.push(Rel {
                    name: alias_of(alias).unwrap_or(table),
                    cols,
                    nullable: false,
                });
            }
            TableFactor::Derived {
                subquery, alias, ..
            } => {
                let mut cols = self.query(subquery, ctes);
                let renamed = alias.as_ref().map(|a| &a.columns).filter(|c| !c.is_empty());
                if let (Some(cols), Some(names)) = (cols.as_mut(), renamed) {
                    if cols.len() != names.len() {
                        return None;
                    }
                    for (c, n) in cols.iter_mut().zip(names) {
                        c.name = n.name.value.clone();
                    }
                }
                rels.push(Rel {
                    name: alias_of(alias).unwrap_or_default(),
                    cols,
                    nullable: false,
                });
            }
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => self.table_with_joins(table_with_joins, ctes, rels, merged)?,
            _ => rels.push(Rel {
                name: String::new(),
                cols: None,
                nullable: false,
            }),
        }
        Some(())
    }

    /// The columns of table or view `schema.table` as MySQL shows them; `None` if there is no
    /// such thing.
    fn stored(&mut self, schema: &str, table: &str) -> Option<Vec<Col>> {
        let mut cols = catalog::sqlite_columns(self.db, schema, table).ok()?;
        if cols.is_empty() {
            return None;
        }
        if let Some(v) = self.db.engine().views.get(schema, table) {
            refine(self.db, &v, &mut cols, self.depth + 1);
        }
        let col = |c: Column| Col {
            not_null: c.nullable() == "NO",
            ty: Some(c.decl_type),
            default: c.default,
            name: c.name,
        };
        Some(cols.into_iter().map(col).collect())
    }
}

/// The columns `*` takes from `r`.
fn of_rel(r: &Rel, grouped_nulls: bool) -> Option<Vec<Col>> {
    let cols = r.cols.as_ref()?;
    let nullable = r.nullable || grouped_nulls;
    Some(cols.iter().map(|c| referenced(c, nullable)).collect())
}

/// Column `c` read through a name whose rows may all be NULL (`nullable`).
fn referenced(c: &Col, nullable: bool) -> Col {
    Col {
        not_null: c.not_null && !nullable,
        ..c.clone()
    }
}

fn last(n: &ObjectName) -> Option<String> {
    n.0.last()?.as_ident().map(|i| i.value.clone())
}

/// The names of a select's `FROM`, where `expr_type` looks its column references up.
struct Names<'r>(&'r [Rel]);

impl crate::expr_type::Scope for Names<'_> {
    fn column(&self, qualifier: Option<&str>, column: &str) -> Option<String> {
        let mut found = (self.0.iter())
            .filter(|r| qualifier.is_none_or(|q| r.name.eq_ignore_ascii_case(q)))
            .filter_map(|r| {
                (r.cols.as_ref()?.iter()).find(|c| c.name.eq_ignore_ascii_case(column))
            });
        match (found.next(), found.next()) {
            (Some(c), None) => c.ty.clone().filter(|t| !t.trim().is_empty()),
            _ => None,
        }
    }
}

/// What a select item `e` says (the module docs): its nullability and default, its type
/// from `expr_type` where that is not a column's.
fn expr(e: &Expr, rels: &[Rel], grouped_nulls: bool) -> Col {
    let mut c = facts(e, rels, grouped_nulls);
    if c.ty.is_none() {
        c.ty = crate::expr_type::column_type(e, &Names(rels));
    }
    c
}

/// What a select item `e` says of its nullability and default, and of the types of column
/// references, literals, `COUNT`, `MIN` and `MAX` of a column.
fn facts(e: &Expr, rels: &[Rel], grouped_nulls: bool) -> Col {
    let name = match e {
        Expr::Identifier(i) => i.value.clone(),
        Expr::CompoundIdentifier(p) => p.last().map(|i| i.value.clone()).unwrap_or_default(),
        _ => e.to_string(),
    };
    let unknown = Col {
        name: name.clone(),
        ..Col::default()
    };
    let from = |qualifier: Option<&str>, column: &str| {
        let mut found = (rels.iter())
            .filter(|r| qualifier.is_none_or(|q| r.name.eq_ignore_ascii_case(q)))
            .filter_map(|r| {
                let c = r
                    .cols
                    .as_ref()?
                    .iter()
                    .find(|c| c.name.eq_ignore_ascii_case(column))?;
                Some(referenced(c, r.nullable || grouped_nulls))
            });
        match (found.next(), found.next()) {
            (Some(c), None) => Col {
                name: name.clone(),
                ..c
            },
            _ => unknown.clone(),
        }
    };
    let zero = |ty: String, default: &str| Col {
        name: name.clone(),
        not_null: true,
        default: Some(default.to_string()),
        ty: Some(ty),
    };
    match e {
        Expr::Identifier(i) => from(None, &i.value),
        Expr::CompoundIdentifier(p) => match p.as_slice() {
            [.., t, c] => from(Some(&t.value), &c.value),
            _ => unknown,
        },
        Expr::Nested(inner) => Col {
            name,
            ..expr(inner, rels, grouped_nulls)
        },
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) if n.bytes().all(|b| b.is_ascii_digit()) => zero(int(n.len()), "0"),
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s)
                if s.chars().count() <= 512 =>
            {
                zero(format!("varchar({})", s.chars().count()), "")
            }
            _ => unknown,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr: inner,
        } => match inner.as_ref() {
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) if n.bytes().all(|b| b.is_ascii_digit()) => {
                    zero(int(n.len() + 1), "0")
                }
                _ => unknown,
            },
            _ => unknown,
        },
        Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("COUNT") => {
            zero("bigint".into(), "0")
        }
        // MIN and MAX of a column are of its type (`Item_sum_hybrid::create_tmp_field`), and
        // NULL over no rows.
        Expr::Function(f)
            if ["MIN", "MAX"]
                .iter()
                .any(|m| f.name.to_string().eq_ignore_ascii_case(m)) =>
        {
            use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
            let arg = match &f.args {
                FunctionArguments::List(l) => match l.args.as_slice() {
                    [FunctionArg::Unnamed(FunctionArgExpr::Expr(
                        a @ (Expr::Identifier(_) | Expr::CompoundIdentifier(_)),
                    ))] => Some(a),
                    _ => None,
                },
                _ => None,
            };
            Col {
                ty: arg.and_then(|a| expr(a, rels, false).ty),
                ..unknown
            }
        }
        _ => unknown,
    }
}

/// The type of an integer literal of `chars` characters (the module docs).
fn int(chars: usize) -> String {
    if chars >= 10 { "bigint" } else { "int" }.into()
}

/// `s`'s items call an aggregate function (outside a window): without `GROUP BY`, the select
/// is implicitly grouped.
fn aggregates(s: &Select) -> bool {
    let mut found = false;
    let _ = sqlparser::ast::visit_expressions(&s.projection, |e| {
        if let Expr::Function(f) = e {
            let name = f.name.to_string();
            let aggregate =
                (mdl_sql::AGGREGATE_FUNCTIONS.iter()).any(|a| name.eq_ignore_ascii_case(a));
            if aggregate && f.over.is_none() {
                found = true;
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(name: &str, not_null: bool, default: Option<&str>, ty: &str) -> Col {
        Col {
            name: name.into(),
            not_null,
            default: default.map(String::from),
            ty: Some(ty.into()),
        }
    }

    fn select(sql: &str) -> Box<Select> {
        let dialect = sqlparser::dialect::MySqlDialect {};
        let parsed = sqlparser::parser::Parser::parse_sql(&dialect, sql).unwrap();
        let Some(sqlparser::ast::Statement::Query(q)) = parsed.into_iter().next() else {
            panic!("{sql}");
        };
        let SetExpr::Select(s) = *q.body else {
            panic!("{sql}");
        };
        s
    }

    fn rels() -> Vec<Rel> {
        vec![
            Rel {
                name: "t".into(),
                cols: Some(vec![
                    col("id", true, None, "INTEGER"),
                    col("a", true, Some("5"), "int"),
                    col("b", false, None, "varchar(10)"),
                ]),
                nullable: false,
            },
            Rel {
                name: "u".into(),
                cols: Some(vec![col("x", true, None, "int")]),
                nullable: true,
            },
        ]
    }

    fn items(sql: &str, grouped: bool) -> Vec<(bool, Option<String>, Option<String>)> {
        let s = select(sql);
        (s.projection.iter())
            .map(|i| match i {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    let c = expr(e, &rels(), grouped);
                    (c.not_null, c.default, c.ty)
                }
                _ => panic!("{sql}"),
            })
            .collect()
    }

    fn some(s: &str) -> Option<String> {
        Some(s.to_string())
    }

    #[test]
    fn references_keep_their_columns_facts_unless_outer_joined() {
        assert_eq!(
            items("SELECT a, t.b, id, u.x, (a), y FROM t", false),
            [
                (true, some("5"), some("int")),
                (false, None, some("varchar(10)")),
                (true, None, some("INTEGER")),
                (false, None, some("int")),
                (true, some("5"), some("int")),
                (false, None, None),
            ]
        );
        // Implicitly grouped: a column may be NULL on an empty table.
        assert_eq!(
            items("SELECT a FROM t", true),
            [(false, some("5"), some("int"))]
        );
    }

    #[test]
    fn literals_and_count_are_not_null_with_their_types_zero() {
        assert_eq!(
            items(
                "SELECT 1, 123456789, 1234567890, -5, 'abc', '', 1.5, NULL, COUNT(*), a + 1, \
                 MAX(t.b), MIN(a + 1)",
                false
            ),
            [
                (true, some("0"), some("int")),
                (true, some("0"), some("int")),
                (true, some("0"), some("bigint")),
                (true, some("0"), some("int")),
                (true, some(""), some("varchar(3)")),
                (true, some(""), some("varchar(0)")),
                (false, None, some("decimal(2,1)")),
                (false, None, some("binary(0)")),
                (true, some("0"), some("bigint")),
                (false, None, some("bigint")),
                (false, None, some("varchar(10)")),
                (false, None, some("bigint")),
            ]
        );
    }

    #[test]
    fn an_aggregate_without_group_by_groups_implicitly() {
        assert!(aggregates(&select("SELECT a, max(b) FROM t")));
        assert!(aggregates(&select("SELECT 1 + COUNT(*) FROM t")));
        assert!(!aggregates(&select("SELECT a, COUNT(*) OVER () FROM t")));
        assert!(!aggregates(&select("SELECT a, lower(b) FROM t")));
    }
}
