//! `CREATE [OR REPLACE] VIEW`, `ALTER VIEW` and `DROP VIEW`, run under the statement's locks (X
//! on every view name, SR on the tables a new definition reads: `mdl-sql`'s `plan/view.rs`),
//! and the other statements' encounters with views. How a view is kept: `views.rs`.
//!
//! The checks MySQL makes once the names are locked (`sql/sql_view.cc`, `mysql_create_view`,
//! `mysql_register_view`, `mysql_drop_view`): CREATE of a name taken is 1050; OR REPLACE or
//! ALTER of a table is 1347 (`ER_WRONG_OBJECT`), ALTER of nothing 1146; DROP VIEW of a table is
//! 1347, of names that are nothing 1051 naming them all, and nothing is dropped (MySQL 8.0's
//! atomic DDL), unless `IF EXISTS`. The select must run (its columns and tables resolve: 1054,
//! 1146), its columns' names must differ (1060), and a column list must match it (1353).

use sqlparser::ast::{CreateView, ObjectName, Statement};

use crate::engine::{quote, EngineConn};
use crate::error::ServerError;
use crate::processlist::ConnInfo;
use crate::rewrite::Rewritten;
use crate::views::View;
use crate::wire::Output;

/// Rewrites a select into SQLite's dialect in the statement's session (`execute.rs`).
pub(super) type Write<'a> = dyn Fn(&Statement) -> Result<Rewritten, ServerError> + 'a;

/// What a view DDL runs: the schemas whose views it changes, and SQLite's statements.
pub(super) struct Ddl {
    schemas: Vec<String>,
    sql: Vec<String>,
}

/// The checks and statements of a view DDL `s` whose locks are held (nothing to run for a
/// `DROP VIEW IF EXISTS` of nothing). `definer`: the session's account (`CURRENT_USER()`), for a
/// CREATE without `DEFINER`.
///
/// # Errors
/// Those of the module docs; the rewrite's.
pub(super) fn prepare(
    db: &mut EngineConn,
    s: &Statement,
    modifiers: &mdl_sql::Modifiers,
    current: Option<&str>,
    definer: (String, String),
    write: &Write<'_>,
) -> Result<Option<Ddl>, ServerError> {
    match s {
        Statement::CreateView(c) => create(db, c, modifiers, current, definer, write).map(Some),
        Statement::Drop {
            names, if_exists, ..
        } => drop(db, names, *if_exists, current),
        other => Err(ServerError::not_supported(&other.to_string())),
    }
}

/// Runs what [`prepare`] made, with the engine's writer, all or nothing, and reads the changed
/// schemas' views again.
pub(super) async fn run(
    db: &mut EngineConn,
    info: &ConnInfo,
    ddl: Option<Ddl>,
) -> Result<Output, ServerError> {
    let Some(Ddl { schemas, sql }) = ddl else {
        return Ok(Output::OK);
    };
    db.take_writer(&info.kill).await?;
    db.execute_batch("SAVEPOINT mdl_view")?;
    let done = sql
        .iter()
        .try_for_each(|q| db.execute_batch(q).map_err(view_error));
    let end = match done {
        Ok(()) => "RELEASE mdl_view",
        Err(_) => "ROLLBACK TO mdl_view; RELEASE mdl_view",
    };
    db.execute_batch(end)?;
    let engine = db.engine().clone();
    let reloaded: Result<(), ServerError> =
        (schemas.iter()).try_for_each(|schema| engine.views.reload(db.db(), schema));
    let followed = match (&done, &reloaded) {
        (Ok(()), Ok(())) => follow_tables(db),
        _ => Ok(()),
    };
    db.release_writer();
    done?;
    reloaded?;
    followed.map(|()| Output::OK)
}

/// After a DDL, with the engine's writer: each view a table, view or column of which is now
/// gone becomes a stub that fails with 1356, and each stub whose tables and columns are all back
/// runs its select again (`views.rs`), as a MySQL view turns invalid and valid with them. SQLite
/// itself would keep a view over a dropped table, and then refuse every later `RENAME COLUMN`
/// and `DROP COLUMN` of the schema ("error in view").
///
/// # Errors
/// SQLite errors.
pub(super) fn follow_tables(db: &mut EngineConn) -> Result<(), ServerError> {
    let engine = db.engine().clone();
    if engine.views.is_empty() {
        return Ok(());
    }
    for schema in engine.views.schemas() {
        let views = engine.views.of_schema(&schema);
        let mut there: Vec<String> = db.tables(&schema)?;
        there.extend(views.iter().map(|v| v.name.clone()));
        let exists = |t: &mdl_sql::TableName| there.iter().any(|n| n.eq_ignore_ascii_case(&t.name));
        let mut changed = false;
        for v in &views {
            let tables = v.tables.iter().all(exists);
            // A view whose tables are there but not a column it reads (a `*` is frozen into
            // its columns, `view_star.rs`) is invalid too; a stub whose tables are back is
            // tried, and stays a stub if its select still fails.
            let valid = match (tables, v.invalid) {
                (false, _) => false,
                (true, false) => !broken(db, v),
                (true, true) => {
                    changed |= recreate(db, v, false)?;
                    continue;
                }
            };
            if !valid && !v.invalid {
                recreate(db, v, true)?;
                changed = true;
            }
        }
        if changed {
            engine.views.reload(db.db(), &schema)?;
        }
    }
    Ok(())
}

/// Whether SQLite cannot prepare a read of view `v` (a column it reads is gone).
fn broken(db: &mut EngineConn, v: &View) -> bool {
    let sql = format!("SELECT * FROM {}.{}", quote(&v.schema), quote(&v.name));
    db.db().prepare(&sql).is_err()
}

/// Makes `v` again, as the stub that fails with 1356 (`views.rs`) or as its select, all or
/// nothing, in one savepoint: its select is kept only if it prepares, so that no other
/// connection ever sees a broken view. Returns whether `v` was made again.
fn recreate(db: &mut EngineConn, v: &View, stub: bool) -> Result<bool, ServerError> {
    let sql = format!(
        "SAVEPOINT mdl_follow; DROP VIEW {}.{}; {}",
        quote(&v.schema),
        quote(&v.name),
        v.sqlite_create(stub)
    );
    let undo = "ROLLBACK TO mdl_follow; RELEASE mdl_follow";
    if let Err(e) = db.execute_batch(&sql) {
        let _ = db.execute_batch(undo);
        return Err(e);
    }
    let keep = stub || !broken(db, v);
    db.execute_batch(if keep { "RELEASE mdl_follow" } else { undo })?;
    Ok(keep)
}

/// `ER_VIEW_WRONG_LIST`: a column list that does not match the select.
fn wrong_list() -> ServerError {
    ServerError::new(
        1353,
        "HY000",
        "In definition of view, derived table or common table expression, SELECT list and \
         column names list have different column counts",
    )
}

/// SQLite's word for a column list that does not match the select, as MySQL's.
fn view_error(e: ServerError) -> ServerError {
    match e.message.starts_with("expected ") && e.message.contains(" columns for ") {
        true => wrong_list(),
        false => e,
    }
}

fn not_view(schema: &str, name: &str) -> ServerError {
    ServerError::new(1347, "HY000", format!("'{schema}.{name}' is not VIEW"))
}

fn is_table(db: &mut EngineConn, schema: &str, name: &str) -> Result<bool, ServerError> {
    Ok(db
        .tables(schema)?
        .iter()
        .any(|t| t.eq_ignore_ascii_case(name)))
}

/// What a CREATE / ALTER VIEW runs (see the module docs).
fn create(
    db: &mut EngineConn,
    c: &CreateView,
    modifiers: &mdl_sql::Modifiers,
    current: Option<&str>,
    definer: (String, String),
    write: &Write<'_>,
) -> Result<Ddl, ServerError> {
    let (schema, name) = crate::rewrite::table_name(&c.name, current)?;
    if crate::engine::VIEW_SCHEMAS.contains(&schema.as_str()) {
        return Err(crate::schema_name::access_denied(&schema));
    }
    if !db.engine().has_schema(&schema) {
        return Err(ServerError::unknown_database(&schema));
    }
    let old = db.engine().views.get(&schema, &name);
    let table = old.is_none() && is_table(db, &schema, &name)?;
    match (modifiers.alter_view, c.or_replace) {
        _ if table && (modifiers.alter_view || c.or_replace) => {
            return Err(not_view(&schema, &name))
        }
        (true, _) if old.is_none() => return Err(ServerError::no_such_table(&schema, &name)),
        (false, false) if table || old.is_some() => {
            return Err(ServerError::new(
                1050,
                "42S01",
                format!("Table '{name}' already exists"),
            ))
        }
        _ => {}
    }
    let mut query = c.query.clone();
    super::view_star::freeze(db, &schema, &mut query)?;
    let rw = write(&Statement::Query(query.clone()))?;
    if rw.read_session {
        return Err(ServerError::not_supported(
            "a view that reads the session (variables, CONNECTION_ID(), DATABASE(), ...)",
        ));
    }
    if let Some((s, t)) = rw
        .tables
        .iter()
        .find(|(s, _)| !s.eq_ignore_ascii_case(&schema))
    {
        return Err(ServerError::not_supported(&format!(
            "a view of `{schema}` that reads `{s}`.`{t}`: a view reads its own schema's tables here"
        )));
    }
    let [select] = rw.sql.as_slice() else {
        return Err(ServerError::not_supported("this select in a view"));
    };
    let columns: Vec<String> = c.columns.iter().map(|col| col.name.value.clone()).collect();
    let names = check_columns(db, select, &columns, &schema)?;
    let params = c.params.as_ref();
    let keep = |o: Option<String>, default: &str| o.unwrap_or_else(|| default.to_string());
    let old_or = |f: fn(&View) -> String, default: &str| {
        old.as_deref()
            .filter(|_| modifiers.alter_view)
            .map_or(default.to_string(), f)
    };
    let mut view = View {
        schema: schema.clone(),
        name: name.clone(),
        select: query.to_string(),
        columns: columns.clone(),
        algorithm: keep(
            params
                .and_then(|p| p.algorithm.as_ref())
                .map(|a| a.to_string()),
            &old_or(|v| v.algorithm.clone(), "UNDEFINED"),
        ),
        definer: match params.and_then(|p| p.definer.as_ref()) {
            Some(d) => account(d),
            None => old
                .as_deref()
                .filter(|_| modifiers.alter_view)
                .map_or(definer, |v| v.definer.clone()),
        },
        security: keep(
            params
                .and_then(|p| p.security.as_ref())
                .map(|s| s.to_string()),
            &old_or(|v| v.security.clone(), "DEFINER"),
        ),
        check_option: modifiers
            .view_check
            .map_or("NONE", |c| c.sql_name())
            .to_string(),
        tables: Vec::new(),
        sqlite: unqualified(select, &schema),
        names,
        invalid: false,
    };
    view.tables = crate::views::tables_read(&view).map_err(ServerError::from)?;
    let mut sql = Vec::new();
    if old.is_some() {
        sql.push(format!("DROP VIEW {}.{}", quote(&schema), quote(&name)));
    }
    sql.push(view.sqlite_create(false));
    Ok(Ddl {
        schemas: vec![schema],
        sql,
    })
}

/// `select` without the rewrite's `schema.` before its table names: a view in a SQLite file
/// names the file's tables unqualified (SQLite finds them in the view's own database), so the
/// file opens under any name: as `main` too, where a qualified name would make SQLite call the
/// whole schema malformed. Done on tokens, so a string that spells the name stays as it is.
fn unqualified(select: &str, schema: &str) -> String {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = sqlparser::dialect::MySqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, select).tokenize() else {
        return select.to_string();
    };
    let is_schema =
        |t: &Token| matches!(t, Token::Word(w) if w.quote_style.is_some() && w.value == schema);
    let mut out = String::with_capacity(select.len());
    let mut i = 0;
    while i < tokens.len() {
        if is_schema(&tokens[i]) && tokens.get(i + 1) == Some(&Token::Period) {
            i += 2;
            continue;
        }
        out.push_str(&tokens[i].to_string());
        i += 1;
    }
    out
}

/// `user@host` of a `DEFINER`, `%` for a user without a host (as MySQL's `DEFINER = u`).
fn account(d: &sqlparser::ast::GranteeName) -> (String, String) {
    match d {
        sqlparser::ast::GranteeName::UserHost { user, host } => {
            (user.value.clone(), host.value.clone())
        }
        sqlparser::ast::GranteeName::ObjectName(n) => {
            let text = n.to_string();
            (text.trim_matches(['`', '\'', '"']).to_string(), "%".into())
        }
    }
}

/// The select prepares (its names resolve), its columns' names differ (1060, `ER_DUP_FIELDNAME`,
/// as `mysql_create_view` checks), and a column list has as many names (1353). Returns the
/// view's column names.
fn check_columns(
    db: &mut EngineConn,
    select: &str,
    list: &[String],
    schema: &str,
) -> Result<Vec<String>, ServerError> {
    let names: Vec<String> = {
        let st =
            (db.db().prepare(select)).map_err(|e| ServerError::from_engine(&e, Some(schema)))?;
        st.column_names().into_iter().map(String::from).collect()
    };
    if !list.is_empty() && list.len() != names.len() {
        return Err(wrong_list());
    }
    let shown = if list.is_empty() {
        names
    } else {
        list.to_vec()
    };
    for (i, n) in shown.iter().enumerate() {
        if shown[..i].iter().any(|m| m.eq_ignore_ascii_case(n)) {
            return Err(ServerError::new(
                1060,
                "42S21",
                format!("Duplicate column name '{n}'"),
            ));
        }
    }
    Ok(shown)
}

/// What a DROP VIEW runs, or `None` if there is nothing to drop (see the module docs).
fn drop(
    db: &mut EngineConn,
    names: &[ObjectName],
    if_exists: bool,
    current: Option<&str>,
) -> Result<Option<Ddl>, ServerError> {
    let mut found: Vec<(String, String)> = Vec::new();
    let mut missing = Vec::new();
    for n in names {
        let (schema, name) = crate::rewrite::table_name(n, current)?;
        match db.engine().views.get(&schema, &name) {
            Some(v) => found.push((v.schema.clone(), v.name.clone())),
            None if db.engine().has_schema(&schema) && is_table(db, &schema, &name)? => {
                return Err(not_view(&schema, &name))
            }
            None => missing.push(format!("{schema}.{name}")),
        }
    }
    if !missing.is_empty() && !if_exists {
        return Err(ServerError::new(
            1051,
            "42S02",
            format!("Unknown table '{}'", missing.join(",")),
        ));
    }
    if found.is_empty() {
        return Ok(None);
    }
    let mut schemas: Vec<String> = found.iter().map(|(s, _)| s.clone()).collect();
    schemas.sort();
    schemas.dedup();
    let sql = (found.iter())
        .map(|(s, v)| format!("DROP VIEW {}.{}", quote(s), quote(v)))
        .collect();
    Ok(Some(Ddl { schemas, sql }))
}

/// What [`expand`] did, for [`recheck`].
pub(super) struct Expanded {
    /// The view catalog's generation when the plan was expanded.
    generation: u64,
    /// The plan before, if the server has views.
    original: Option<std::sync::Arc<mdl_sql::Plan>>,
}

/// Adds to `plan` the locks of the tables it reads through views (`mdl-sql`'s
/// `Plan::expand_views`), and refuses a write to a view before any lock: SQLite's views are
/// read-only (1471 for INSERT, `ER_NON_INSERTABLE_TABLE`; 1288 for UPDATE and DELETE,
/// `ER_NON_UPDATABLE_TABLE`).
///
/// # Errors
/// 1471, 1288, 1462 (a view that reaches itself).
pub(super) fn expand(
    engine: &crate::engine::Engine,
    plan: &mut std::sync::Arc<mdl_sql::Plan>,
) -> Result<Expanded, ServerError> {
    let generation = engine.views.generation();
    if engine.views.is_empty() {
        return Ok(Expanded {
            generation,
            original: None,
        });
    }
    let original = plan.clone();
    let mut p = (*original).clone();
    if !p.expand_views(|t| engine.views.tables_of(t))?.is_empty() {
        refuse_writes(engine, &original)?;
        *plan = std::sync::Arc::new(p);
    }
    Ok(Expanded {
        generation,
        original: Some(original),
    })
}

fn refuse_writes(engine: &crate::engine::Engine, p: &mdl_sql::Plan) -> Result<(), ServerError> {
    use mdl_core::LockType;
    let verb = match p.kind {
        mdl_sql::StatementKind::Insert => "INSERT",
        mdl_sql::StatementKind::Update => "UPDATE",
        mdl_sql::StatementKind::Delete => "DELETE",
        _ => return Ok(()),
    };
    let written = (p.requests.iter())
        .filter(|r| matches!(r.lock_type, LockType::SW | LockType::SWLP))
        .find_map(|r| engine.views.get(r.key.schema(), r.key.name()));
    match written {
        Some(v) if verb == "INSERT" => Err(ServerError::new(
            1471,
            "HY000",
            format!(
                "The target table {} of the INSERT is not insertable-into",
                v.name
            ),
        )),
        Some(v) => Err(ServerError::new(
            1288,
            "HY000",
            format!("The target table {} of the {verb} is not updatable", v.name),
        )),
        None => Ok(()),
    }
}

/// How many times a statement takes its locks again after [`recheck`] found its views changed.
pub(super) const TRIES: u32 = 3;

/// Once the locks of `plan` are granted: if a view DDL ran since [`expand`], the views the
/// statement names must still expand to the locks it holds. If not, 1412
/// (`ER_TABLE_DEF_CHANGED`): the caller gives the locks back and takes those of the new
/// definition ([`again`]), as MySQL's statement opens a view under its lock and then locks the
/// view's tables, up to [`TRIES`] times, then ends with 1412 rather than read tables it has no
/// lock on. The names themselves cannot change now: the statement holds their locks.
///
/// # Errors
/// 1412; 1462.
pub(super) fn recheck(
    engine: &crate::engine::Engine,
    e: &Expanded,
    plan: &mdl_sql::Plan,
) -> Result<(), ServerError> {
    if engine.views.generation() == e.generation {
        return Ok(());
    }
    let mut again = e.original.as_deref().unwrap_or(plan).clone();
    again.expand_views(|t| engine.views.tables_of(t))?;
    if again.requests == plan.requests {
        return Ok(());
    }
    Err(ServerError::new(
        1412,
        "HY000",
        "Table definition has changed, please retry transaction",
    ))
}

/// After [`recheck`]'s 1412: `plan` made again from the statement's own, over the views as
/// they are now.
///
/// # Errors
/// Those of [`expand`].
pub(super) fn again(
    engine: &crate::engine::Engine,
    e: &mut Expanded,
    plan: &mut std::sync::Arc<mdl_sql::Plan>,
) -> Result<(), ServerError> {
    if let Some(original) = &e.original {
        *plan = original.clone();
    }
    *e = expand(engine, plan)?;
    Ok(())
}

/// A `RENAME TABLE` of which some pairs rename a view (MySQL renames a view within its
/// schema): SQLite renames no view, so such a pair drops the view and creates it again under the
/// new name, with the same definition, in the statement's savepoint. `rw.sql` has one `ALTER
/// TABLE ... RENAME` per pair, in order (another schema was refused by the rewrite, 1235).
pub(super) fn rename_views(
    engine: &crate::engine::Engine,
    s: &Statement,
    current: Option<&str>,
    rw: &Rewritten,
) -> Option<Rewritten> {
    let Statement::RenameTable(pairs) = s else {
        return None;
    };
    if engine.views.is_empty() || pairs.len() != rw.sql.len() {
        return None;
    }
    let mut renamed = false;
    let mut sql = Vec::with_capacity(rw.sql.len());
    for (pair, q) in pairs.iter().zip(&rw.sql) {
        let old = crate::rewrite::table_name(&pair.old_name, current).ok();
        let new = crate::rewrite::table_name(&pair.new_name, current).ok();
        match (old.and_then(|(s, t)| engine.views.get(&s, &t)), new) {
            (Some(v), Some((_, name))) => {
                let moved = View {
                    name,
                    ..(*v).clone()
                };
                sql.push(format!("DROP VIEW {}.{}", quote(&v.schema), quote(&v.name)));
                sql.push(moved.sqlite_create(v.invalid));
                renamed = true;
            }
            _ => sql.push(q.clone()),
        }
    }
    renamed.then(|| Rewritten { sql, ..rw.clone() })
}

/// A `DROP TABLE IF EXISTS` of names of which some are views: those are left alone, as MySQL's
/// (a note, `Unknown table`), where SQLite's `DROP TABLE IF EXISTS` of a view fails. Dump files
/// drop every name they create so. `rw.sql` has one `DROP TABLE` per name, in order.
pub(super) fn drop_tables_not_views(
    engine: &crate::engine::Engine,
    s: &Statement,
    current: Option<&str>,
    rw: &Rewritten,
) -> Option<Rewritten> {
    let Statement::Drop {
        object_type: sqlparser::ast::ObjectType::Table,
        names,
        if_exists: true,
        ..
    } = s
    else {
        return None;
    };
    if engine.views.is_empty() || names.len() != rw.sql.len() {
        return None;
    }
    let is_view = |n: &ObjectName| {
        crate::rewrite::table_name(n, current)
            .is_ok_and(|(s, t)| engine.views.get(&s, &t).is_some())
    };
    if !names.iter().any(is_view) {
        return None;
    }
    let sql = (names.iter().zip(&rw.sql))
        .filter(|(n, _)| !is_view(n))
        .map(|(_, q)| q.clone())
        .collect();
    Some(Rewritten { sql, ..rw.clone() })
}

/// CREATE, ALTER or DROP VIEW: run by [`run`].
pub(super) fn is_view_ddl(kind: mdl_sql::StatementKind) -> bool {
    use mdl_sql::StatementKind as K;
    matches!(kind, K::CreateView | K::AlterView | K::DropView)
}

/// A table DDL whose table is a view, refused under its locks as MySQL refuses it: ALTER
/// TABLE, CREATE and DROP INDEX are 1347 (`'s.v' is not BASE TABLE`), TRUNCATE 1146 (it opens
/// base tables only), CREATE TABLE 1050 (nothing with IF NOT EXISTS); CREATE TABLE ... LIKE a
/// view is 1347 (its source is opened as a base table only: `PT_create_table_stmt`,
/// `sql/parse_tree_nodes.cc`), before the target's name is looked at.
///
/// # Errors
/// 1347, 1146, 1050.
pub(super) fn refuse_table_ddl(
    engine: &crate::engine::Engine,
    s: Option<&Statement>,
    current: Option<&str>,
) -> Result<(), ServerError> {
    if engine.views.is_empty() {
        return Ok(());
    }
    let view = |n: &ObjectName| {
        crate::rewrite::table_name(n, current)
            .ok()
            .filter(|(s, t)| engine.views.get(s, t).is_some())
    };
    let not_base = |(s, t): (String, String)| {
        ServerError::new(1347, "HY000", format!("'{s}.{t}' is not BASE TABLE"))
    };
    match s {
        Some(Statement::AlterTable(a)) => view(&a.name).map(not_base),
        Some(Statement::CreateIndex(c)) => view(&c.table_name).map(not_base),
        Some(Statement::Drop {
            object_type: sqlparser::ast::ObjectType::Index,
            table: Some(t),
            ..
        }) => view(t).map(not_base),
        Some(Statement::Truncate(t)) => (t.table_names.iter())
            .find_map(|t| view(&t.name))
            .map(|(s, t)| ServerError::no_such_table(&s, &t)),
        Some(Statement::CreateTable(sqlparser::ast::CreateTable {
            like:
                Some(
                    sqlparser::ast::CreateTableLikeKind::Plain(like)
                    | sqlparser::ast::CreateTableLikeKind::Parenthesized(like),
                ),
            ..
        })) if view(&like.name).is_some() => view(&like.name).map(not_base),
        Some(Statement::CreateTable(c)) if c.if_not_exists => None,
        Some(Statement::CreateTable(c)) => view(&c.name)
            .map(|(_, t)| ServerError::new(1050, "42S01", format!("Table '{t}' already exists"))),
        _ => None,
    }
    .map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_schema_goes_from_names_not_from_strings() {
        let sql =
            "SELECT `app`.t.a, 'x `app`.t' FROM `app`.t JOIN `app`.`u` ON 1 WHERE b = `other`.c";
        assert_eq!(
            super::unqualified(sql, "app"),
            "SELECT t.a, 'x `app`.t' FROM t JOIN `u` ON 1 WHERE b = `other`.c"
        );
    }
}
