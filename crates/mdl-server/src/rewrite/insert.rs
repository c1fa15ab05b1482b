//! MySQL's INSERT forms in SQLite's (see the parent module's docs):
//!
//! * `INSERT t ...` / `REPLACE t ...` is `INSERT INTO t ...`: `INTO` is optional in MySQL only,
//!   and its priority (`LOW_PRIORITY`, `HIGH_PRIORITY`, `DELAYED`) goes.
//! * `INSERT ... SET a = x, b = y` is `INSERT ... (a, b) VALUES (x, y)`.
//! * `INSERT IGNORE` is `INSERT OR IGNORE`: a row that would break a unique key is skipped (MySQL
//!   also turns other errors into warnings; SQLite's IGNORE covers constraints only).
//! * `ON DUPLICATE KEY UPDATE a = VALUES(a) + 1` is `ON CONFLICT DO UPDATE SET a = excluded.a + 1`:
//!   SQLite's upsert without a conflict target fires on any uniqueness constraint, as MySQL's
//!   fires on any unique key. The affected rows are MySQL's: 1 per row inserted, 2 per row
//!   updated, 0 per row left as it was (`changed.rs`).

use std::fmt::Write as _;
use std::ops::{ControlFlow, Range};

use sqlparser::ast::{
    Assignment, AssignmentTarget, DoUpdate, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    Ident, Insert, OnConflict, OnConflictAction, OnInsert, Parens, Query, SetExpr,
    SqliteOnConflict, Values, VisitMut, VisitorMut,
};

use super::last;

/// Rewrites `ins` in place (see the module docs).
pub(super) fn mysql_insert(ins: &mut Insert) {
    ins.into = true;
    // `LOW_PRIORITY`, `HIGH_PRIORITY`, `DELAYED`: how MyISAM queued the statement; InnoDB
    // ignores them, as does this server (`LOW_PRIORITY` still takes MySQL's SWLP: `mdl-sql`).
    ins.priority = None;
    if !ins.assignments.is_empty() && ins.source.is_none() {
        let (columns, values): (Vec<_>, Vec<_>) = (ins.assignments.drain(..))
            .filter_map(|a| match a.target {
                AssignmentTarget::ColumnName(c) => Some((c, a.value)),
                AssignmentTarget::Tuple(_) => None,
            })
            .unzip();
        ins.columns = columns;
        ins.source = Some(Box::new(one_row(values)));
    }
    if ins.ignore {
        ins.ignore = false;
        ins.or = Some(SqliteOnConflict::Ignore);
    }
    if matches!(ins.on, Some(OnInsert::DuplicateKeyUpdate(_))) {
        super::changed::number_parameters(ins);
    }
    if let Some(OnInsert::DuplicateKeyUpdate(assignments)) = &mut ins.on {
        if let Some(q) = ins.source.as_deref_mut() {
            where_true(q);
        }
        let mut assignments: Vec<Assignment> = std::mem::take(assignments);
        let _ = assignments.visit(&mut ExcludedValues);
        super::changed::count_rows(&mut assignments);
        ins.on = Some(OnInsert::OnConflict(OnConflict {
            conflict_target: None,
            action: OnConflictAction::DoUpdate(DoUpdate {
                assignments,
                selection: None,
            }),
        }));
    }
}

/// Whether `ins` inserts the rows of a query (not `VALUES`, nor `SET`).
pub(crate) fn of_query(ins: &Insert) -> bool {
    ins.assignments.is_empty()
        && (ins.source.as_deref()).is_some_and(|q| !matches!(q.body.as_ref(), SetExpr::Values(_)))
}

/// `ins`'s text, as `ins.to_string()` writes it, and where its query is in it: written in
/// parts, the statement without its query and `ON` clause (which writes `DEFAULT VALUES` in
/// the query's place without a column list), then those. `None` for the place of an INSERT
/// with more after its query than the `ON` clause (a `RETURNING` or a row alias, which MySQL's
/// INSERT ... SELECT does not have), written whole.
pub(super) fn text_of_query_rows(ins: &mut Insert) -> (String, Option<Range<usize>>) {
    if ins.returning.is_some() || ins.insert_alias.is_some() {
        return (ins.to_string(), None);
    }
    let (source, on) = (ins.source.take(), ins.on.take());
    let mut sql = ins.to_string();
    if ins.columns.is_empty() {
        let head = sql.strip_suffix("DEFAULT VALUES").map(str::len);
        sql.truncate(head.unwrap_or(sql.len()));
    }
    let start = sql.len();
    if let Some(q) = &source {
        let _ = write!(sql, "{q}");
    }
    let rows = start..sql.len();
    if let Some(on) = &on {
        let _ = write!(sql, "{on}");
    }
    (ins.source, ins.on) = (source, on);
    debug_assert_eq!(sql, ins.to_string());
    (sql, Some(rows))
}

/// SQLite would read `INSERT ... SELECT ... FROM t ON CONFLICT` as a join's `ON` (its UPSERT
/// docs, "Parsing Ambiguity"): the select's last part gets `WHERE true` if it has no `WHERE`.
fn where_true(q: &mut Query) {
    let mut body = q.body.as_mut();
    while let SetExpr::SetOperation { right, .. } = body {
        body = right.as_mut();
    }
    if let SetExpr::Select(s) = body {
        if !s.from.is_empty() && s.selection.is_none() {
            s.selection = Some(Expr::Value(sqlparser::ast::Value::Boolean(true).into()));
        }
    }
}

/// `VALUES (x, y)` as a query.
fn one_row(values: Vec<Expr>) -> Query {
    Query {
        with: None,
        body: Box::new(SetExpr::Values(Values {
            explicit_row: false,
            value_keyword: false,
            rows: vec![Parens::with_empty_span(values)],
        })),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks: Vec::new(),
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: Vec::new(),
    }
}

/// `VALUES(col)` (the value the row would have inserted, `Item_insert_value` in MySQL's
/// `sql/item.cc`) is SQLite's `excluded.col`.
struct ExcludedValues;

impl VisitorMut for ExcludedValues {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let Expr::Function(f) = e else {
            return ControlFlow::Continue(());
        };
        if !last(&f.name).eq_ignore_ascii_case("VALUES") {
            return ControlFlow::Continue(());
        }
        let FunctionArguments::List(l) = &f.args else {
            return ControlFlow::Continue(());
        };
        if let [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(col)))] =
            l.args.as_slice()
        {
            *e = Expr::CompoundIdentifier(vec![Ident::new("excluded"), col.clone()]);
        }
        ControlFlow::Continue(())
    }
}
