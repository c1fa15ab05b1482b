//! Views: `CREATE` / `ALTER` / `DROP VIEW`, and the tables a statement reads through a view.
//!
//! A view's name is a TABLE-namespace key, as a table's: MySQL locks a view by name exactly as
//! a table, before it knows which one the name is.
//!
//! | statement | locks | MySQL 8.0 |
//! |---|---|---|
//! | `CREATE [OR REPLACE] VIEW v AS q`, `ALTER VIEW v AS q` | v X (TRANSACTION); each table q reads SR (TRANSACTION); BACKUP_LOCK IX (TRANSACTION), GLOBAL IX (STATEMENT), SCHEMA IX (TRANSACTION) of v's schema | `sql/sql_yacc.yy`, `view_tail`: the view is added with `TL_IGNORE, MDL_EXCLUSIVE`, the select's tables with the parser's `TL_READ` (SR); `sql/sql_view.cc`, `mysql_create_view` opens them all with `open_and_lock_tables`, whose `lock_table_names` adds the scoped locks of a DDL |
//! | `DROP VIEW [IF EXISTS] v, ...` | each X (TRANSACTION), and the scoped locks | `sql_yacc.yy`, `drop_view_stmt` (`MDL_EXCLUSIVE`); `sql/sql_view.cc`, `mysql_drop_view` -> `lock_table_names` |
//! | the three under LOCK TABLES | 1192, before any lock | `mysql_create_view` and `mysql_drop_view`: "we simply prohibit creation/alteration of views under LOCK TABLES" (`ER_LOCK_OR_ACTIVE_TRANSACTION`) |
//! | the three with this session's global read lock | 1223 | `lock_table_names` -> `Global_read_lock::can_acquire_protection` |
//! | a user variable in the view's select | 1351 | `mysql_create_view`: `ER_VIEW_SELECT_VARIABLE` |
//! | a temporary table in the view's select | 1352 | `mysql_create_view`: `ER_VIEW_SELECT_TMPTABLE` (`plan/temporary.rs`) |
//! | a statement that names a view | the view's own lock (as a table), then every table the view reads, views in it expanded in turn, with the view's lock type and duration | `sql/sql_base.cc`, `open_and_process_table` -> `sql/sql_view.cc`, `mysql_make_view` / `parse_view_definition`: the view's tables join the statement's table list right after the view and are opened (locked) as its tables; "set proper lock type for tables of the view's main select" |
//! | a view that reaches itself | 1462 | `mysql_make_view`: `ER_VIEW_RECURSIVE` |
//!
//! What differs: MySQL gives the tables of a written view's subqueries SR, and those of a view
//! with a UNION the read type; here every table of the view takes the view's type (a server
//! that, as ours, refuses writes through views sees the difference only under `LOCK TABLES v
//! WRITE`, where they take SNRW, not SRO).
//!
//! This crate has no catalog: the caller says which names are views and lists their tables
//! ([`view_tables`], once per definition), and [`Plan::expand_views`] adds their locks.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{CreateView, Expr, ObjectName, Query, Visit, Visitor};

use mdl_core::{LockDuration, LockType, MdlRequest, Namespace};

use super::{ddl, order, Plan, SessionState, StatementKind};
use crate::error::SqlError;
use crate::names::{resolve_in, resolve_object, TableName};
use crate::parse::Modifiers;
use crate::tables::read_refs;

/// `CREATE [OR REPLACE] VIEW` / `ALTER VIEW` (`m.alter_view`).
pub(super) fn create_view(
    c: &CreateView,
    m: Modifiers,
    state: &SessionState,
) -> Result<Plan, SqlError> {
    let mysql_form = !(c.materialized
        || c.secure
        || c.temporary
        || c.if_not_exists
        || c.or_alter
        || c.to.is_some()
        || c.comment.is_some()
        || c.with_no_schema_binding
        || c.copy_grants
        || !c.cluster_by.is_empty()
        || c.columns
            .iter()
            .any(|col| col.data_type.is_some() || col.options.is_some()));
    if !mysql_form {
        return Err(SqlError::parse(&c.to_string(), 1));
    }
    if has_user_variable(&c.query) {
        return Err(SqlError::view_select_variable());
    }
    let view = resolve_object(&c.name, state)?;
    let reads = read_refs(c.query.as_ref());
    super::temporary::refuse_in_view(&reads, state)?;
    let kind = if m.alter_view {
        StatementKind::AlterView
    } else {
        StatementKind::CreateView
    };
    let mut p = view_ddl(kind, &[view], state)?;
    for r in reads {
        let t = resolve_object(&r.name, state)?;
        if !t.is_lock_free() {
            p.requests
                .push(t.request(LockType::SR, LockDuration::Transaction)?);
        }
    }
    Ok(p)
}

/// `DROP VIEW [IF EXISTS] v, ...`.
pub(super) fn drop_view(names: &[ObjectName], state: &SessionState) -> Result<Plan, SqlError> {
    let views = names
        .iter()
        .map(|n| resolve_object(n, state))
        .collect::<Result<Vec<_>, _>>()?;
    view_ddl(StatementKind::DropView, &views, state)
}

/// X on each view and the scoped locks; 1192 under LOCK TABLES, 1223 with the global read lock.
fn view_ddl(
    kind: StatementKind,
    views: &[TableName],
    state: &SessionState,
) -> Result<Plan, SqlError> {
    if state.locked_tables.is_some() {
        return Err(SqlError::lock_or_active_transaction());
    }
    let mut p = Plan::new(kind);
    p.commits_before = true;
    p.commits_after = true;
    p.writes = true;
    let locked: Vec<&TableName> = views.iter().filter(|v| !v.is_lock_free()).collect();
    for v in &locked {
        p.requests
            .push(v.request(LockType::X, LockDuration::Transaction)?);
    }
    if !locked.is_empty() {
        ddl::scoped_for_tables(&mut p, &locked, state)?;
    }
    Ok(p)
}

/// Whether `q` reads a user variable (`@a`; `@@system` variables are allowed).
fn has_user_variable(q: &Query) -> bool {
    struct Find;
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Identifier(i) if i.quote_style.is_none() && is_user_variable(&i.value) => {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    q.visit(&mut Find).is_break()
}

fn is_user_variable(name: &str) -> bool {
    name.starts_with('@') && !name.starts_with("@@")
}

/// The tables the select `query` of view `view` reads, resolved in the view's schema (MySQL
/// stores a view's definition with every name qualified, `mysql_register_view`), CTE names left
/// out; those of the lock-free schemas too. The caller keeps them with the view's definition
/// and hands them to [`Plan::expand_views`].
///
/// ```
/// use mdl_sql::{parse, view_tables, Statement, TableName};
/// let Statement::Sql { statement, .. } = &parse("SELECT * FROM t1 JOIN other.t2 USING (id)")?[0].statement
/// else { unreachable!() };
/// let sqlparser::ast::Statement::Query(q) = statement.as_ref() else { unreachable!() };
/// let view = TableName::new("test", "v1")?;
/// let tables = view_tables(&view, q, false)?;
/// assert_eq!(tables, [TableName::new("test", "t1")?, TableName::new("other", "t2")?]);
/// # Ok::<(), mdl_sql::SqlError>(())
/// ```
///
/// # Errors
/// Those of [`TableName::new`] for a name MySQL refuses.
pub fn view_tables(
    view: &TableName,
    query: &Query,
    lower_case_table_names: bool,
) -> Result<Vec<TableName>, SqlError> {
    let mut state = SessionState::in_schema(&view.schema);
    state.lower_case_table_names = lower_case_table_names;
    let mut out: Vec<TableName> = Vec::new();
    for r in read_refs(query) {
        let (schema, name) = crate::names::split_name(&r.name)?;
        let t = resolve_in(schema.as_deref(), &name, &state)?;
        if !t.is_lock_free() && !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

/// The lock types a table reference takes when a statement reads or writes it, or LOCK TABLES
/// locks it: a view named with one of these passes it on to its tables. The DDL types (S, SH,
/// SU, SNW, X) are not: a DDL on a view's name is about the view itself.
fn passes_to_view_tables(t: LockType) -> bool {
    matches!(
        t,
        LockType::SR | LockType::SW | LockType::SWLP | LockType::SRO | LockType::SNRW
    )
}

impl Plan {
    /// Adds the locks of the tables the statement reads through views (the module docs of
    /// `plan/view.rs` give MySQL's rule): `tables_of(name)` is `Some` (the view's tables, from
    /// [`view_tables`]) for a name that is a view, `None` for a table. Returns the views met,
    /// for a caller that checks, once the locks are granted, that they are still the views it
    /// expanded (no name can become or stop being a view while its lock is held).
    ///
    /// ```
    /// use mdl_sql::{parse, plan, SessionState, TableName};
    /// let state = SessionState::in_schema("test");
    /// let mut p = plan(&parse("SELECT * FROM v1")?[0], &state)?;
    /// let v1 = TableName::new("test", "v1")?;
    /// let views = p.expand_views(|t| (*t == v1).then(|| vec![TableName::new("test", "t1").unwrap()]))?;
    /// assert_eq!(views, [v1]);
    /// assert_eq!(p.describe(), ["TABLE test.t1 SR TRANSACTION", "TABLE test.v1 SR TRANSACTION"]);
    /// # Ok::<(), mdl_sql::SqlError>(())
    /// ```
    ///
    /// # Errors
    /// `ER_VIEW_RECURSIVE` (1462) for a view that reaches itself.
    pub fn expand_views<F>(&mut self, mut tables_of: F) -> Result<Vec<TableName>, SqlError>
    where
        F: FnMut(&TableName) -> Option<Vec<TableName>>,
    {
        let mut walk = Walk {
            tables_of: &mut tables_of,
            views: Vec::new(),
            added: Vec::new(),
            done: HashSet::new(),
            path: Vec::new(),
        };
        for r in &self.requests {
            if r.key.namespace() == Namespace::Table && passes_to_view_tables(r.lock_type) {
                let name = TableName {
                    schema: r.key.schema().to_string(),
                    name: r.key.name().to_string(),
                };
                walk.visit(&name, r.lock_type, r.duration)?;
            }
        }
        let Walk { views, added, .. } = walk;
        if !added.is_empty() {
            self.requests.extend(added);
            self.requests = order(std::mem::take(&mut self.requests));
        }
        Ok(views)
    }
}

/// A depth-first walk of the views a statement names.
struct Walk<'a, F> {
    tables_of: &'a mut F,
    views: Vec<TableName>,
    added: Vec<MdlRequest>,
    /// Views already expanded with a type and duration: a view met twice (a diamond) adds
    /// nothing new.
    done: HashSet<(TableName, LockType, LockDuration)>,
    /// The views being expanded, outermost first: one met again is a cycle.
    path: Vec<TableName>,
}

impl<F> Walk<'_, F>
where
    F: FnMut(&TableName) -> Option<Vec<TableName>>,
{
    fn visit(&mut self, name: &TableName, ty: LockType, d: LockDuration) -> Result<(), SqlError> {
        if self.path.contains(name) {
            return Err(SqlError::view_recursive(&self.path[0]));
        }
        if self.done.contains(&(name.clone(), ty, d)) {
            return Ok(());
        }
        let Some(tables) = (self.tables_of)(name) else {
            return Ok(());
        };
        if !self.views.contains(name) {
            self.views.push(name.clone());
        }
        self.path.push(name.clone());
        for t in tables.iter().filter(|t| !t.is_lock_free()) {
            self.added.push(t.request(ty, d)?);
            self.visit(t, ty, d)?;
        }
        self.path.pop();
        self.done.insert((name.clone(), ty, d));
        Ok(())
    }
}
