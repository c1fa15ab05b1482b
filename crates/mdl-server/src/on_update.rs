//! `TIMESTAMP` / `DATETIME` auto-initialization and auto-update, as MySQL 8.0 does them (the
//! manual's "Automatic Initialization and Updating for TIMESTAMP and DATETIME").
//!
//! * `DEFAULT CURRENT_TIMESTAMP[(fsp)]` (and its synonyms `NOW()`, `LOCALTIME`,
//!   `LOCALTIMESTAMP`) is SQLite's `DEFAULT (NOW(fsp))`: SQLite takes a call as a default
//!   only in parentheses, and this server's `NOW` reads the statement's time in the session's
//!   time zone, as MySQL's does (`functions/clock.rs`). The catalog shows it as
//!   `CURRENT_TIMESTAMP[(fsp)]` again (`catalog.rs`).
//! * `ON UPDATE CURRENT_TIMESTAMP[(fsp)]` is kept by SQLite triggers made with the table
//!   ([`triggers`]), named `mdl_on_update_<id>` (`<id>` unique, so that a table renamed and
//!   another made under its old name never meet):
//!   - for each such column `c`, a `BEFORE UPDATE OF c` trigger, which marks the row as one
//!     whose `c` the statement assigns (`MDL_ON_UPDATE_MARK`, `functions/on_update_marks.rs`);
//!     SQLite fires an `UPDATE OF c` trigger exactly when the statement's `SET` names `c`.
//!     These triggers are also what the catalog reads to know the column auto-updates
//!     ([`columns`]);
//!   - one `AFTER UPDATE OF <every other column>` trigger, when one of those columns changed
//!     value (`NEW.a IS NOT OLD.a OR ...`, compared under the column's affinity as
//!     `rewrite/changed.rs` compares for the affected rows), that sets each auto-updated
//!     column to `NOW(fsp)` unless the statement assigned it (a new value: `NEW.c IS NOT
//!     OLD.c`; its current one: the mark). That is MySQL's rule (`sql/sql_update.cc` calls
//!     `COPY_INFO::set_function_defaults`, `sql/sql_data_change.cc`, for the columns the
//!     statement does not assign once `compare_records` finds the row changed; `sql/field.cc`
//!     `Field::has_update_default_datetime_value_expression`): a row whose values all stay
//!     keeps it, and `SET v = v + 1, ts = ts` keeps `ts`, MySQL's documented way to prevent
//!     the update. It applies to UPDATE (single- and multi-table) and to the update of
//!     `INSERT ... ON DUPLICATE KEY UPDATE`, which SQLite runs as an UPDATE. The trigger's own
//!     UPDATE assigns only auto-updated columns, so it fires no `UPDATE OF <other columns>`
//!     trigger again (the engine runs with `recursive_triggers` on: `replace_rows.rs`), and
//!     SQLite does not count a trigger's rows in `changes()`: the affected rows stay MySQL's.
//!     A table without such a column has no trigger: its UPDATE costs what it did.
//! * Every DDL keeps them: `CREATE TABLE` (and the definition of `CREATE TABLE ... SELECT`),
//!   `CREATE TABLE ... LIKE` and the table rebuild (`execute/rebuild.rs`, `MODIFY`, `CHANGE`,
//!   `ALTER COLUMN`, ...) write them from the definition (`SHOW CREATE TABLE` shows `ON
//!   UPDATE`); an in-place `ALTER TABLE` (`ADD`, `DROP`, `RENAME COLUMN`, `RENAME TO`, keys) of
//!   a table with them drops them first and writes them again for the new columns and name
//!   ([`refresh`]); `RENAME TABLE` writes them again for each new name ([`renamed`]: the engine
//!   runs with `legacy_alter_table`, under which SQLite renames a trigger's table but not the
//!   one its body updates); `DROP TABLE` drops them with the table; `TRUNCATE` (a DELETE) and
//!   the rows a rebuild copies (INSERTs) fire none.
//!
//! MySQL's checks (`Alter_info::add_field`, `sql/sql_parse.cc`): a `CURRENT_TIMESTAMP` default
//! of a column that is not `TIMESTAMP` / `DATETIME`, or whose precision is not the column's,
//! is 1067 (`ER_INVALID_DEFAULT`); such an `ON UPDATE` is 1294 (`ER_INVALID_ON_UPDATE`).
//!
//! With two auto-updated columns or more, each also has an `AFTER UPDATE OF c` trigger that,
//! when `c` changed (an UPDATE that assigns only `c` changes the row too), sets the others as
//! above; their UPDATEs fire these again (`recursive_triggers`), which find the columns the
//! UPDATE before set marked (its own `BEFORE UPDATE OF` triggers fired) and stop once nothing
//! changes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use sqlparser::ast::{
    AlterTable, AlterTableOperation as Op, ColumnDef, ColumnOption, DataType, Expr, FunctionArg,
    FunctionArgExpr, FunctionArguments, Value,
};

use crate::engine::{quote, EngineConn, ROWID};
use crate::error::ServerError;
pub use crate::functions::{ON_UPDATE_MARK as MARK, ON_UPDATE_MARKED as MARKED};
use crate::rewrite::Rewritten;

/// What the names of this module's triggers start with.
pub const TRIGGER: &str = "mdl_on_update_";

/// The names MySQL reads as `NOW()` (`NOW_FUNC`), as written or as the rewrite renamed them.
const NOW_NAMES: [&str; 4] = ["NOW", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP"];

/// The precision of `e` if it is `NOW([fsp])` or a synonym (0 without one).
pub(crate) fn now_fsp(e: &Expr) -> Option<u64> {
    let Expr::Function(f) = e else {
        return None;
    };
    let name = f.name.to_string();
    if !NOW_NAMES.iter().any(|n| name.eq_ignore_ascii_case(n)) {
        return None;
    }
    match &f.args {
        FunctionArguments::None => Some(0),
        FunctionArguments::List(l) => match l.args.as_slice() {
            [] => Some(0),
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))] => match &v.value {
                Value::Number(n, _) => n.parse().ok(),
                _ => None,
            },
            _ => None,
        },
        FunctionArguments::Subquery(_) => None,
    }
}

/// The precision of a `TIMESTAMP` or `DATETIME` type; `None` for another type.
fn temporal_fsp(t: &DataType) -> Option<u64> {
    match t {
        DataType::Datetime(p) | DataType::Timestamp(p, _) => Some(p.unwrap_or(0)),
        _ => None,
    }
}

/// The column's `ON UPDATE` precision, if it has one.
pub(crate) fn on_update_fsp(col: &ColumnDef) -> Option<u64> {
    col.options.iter().find_map(|o| match &o.option {
        ColumnOption::OnUpdate(e) => Some(now_fsp(e).unwrap_or(u64::MAX)),
        _ => None,
    })
}

/// MySQL's checks of a column's `CURRENT_TIMESTAMP` default and `ON UPDATE` (see the module
/// docs).
///
/// # Errors
/// 1067, 1294.
pub(crate) fn check(col: &ColumnDef) -> Result<(), ServerError> {
    let fsp = temporal_fsp(&col.data_type);
    let name = &col.name.value;
    for o in &col.options {
        match &o.option {
            ColumnOption::Default(e) if now_fsp(e).is_some_and(|n| fsp != Some(n)) => {
                return Err(ServerError::new(
                    1067,
                    "42000",
                    format!("Invalid default value for '{name}'"),
                ));
            }
            ColumnOption::OnUpdate(e) if fsp.is_none() || now_fsp(e) != fsp => {
                return Err(ServerError::new(
                    1294,
                    "HY000",
                    format!("Invalid ON UPDATE clause for '{name}' column"),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A default as SQLite takes it: `NOW(fsp)` and any other call in parentheses.
pub(crate) fn default_sql(e: &Expr) -> String {
    match now_fsp(e) {
        Some(0) => "(NOW())".to_string(),
        Some(n) => format!("(NOW({n}))"),
        None if matches!(e, Expr::Function(_)) => format!("({e})"),
        None => e.to_string(),
    }
}

/// A name for a new table's triggers, never given before.
fn new_id() -> String {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    format!("{TRIGGER}{nanos:x}_{seq:x}")
}

/// The triggers that auto-update `schema.table`'s columns `on_update` (name, precision), its
/// columns being `columns` (see the module docs); none if `on_update` is empty.
pub(crate) fn triggers(
    schema: &str,
    table: &str,
    columns: &[String],
    on_update: &[(String, u64)],
) -> Vec<String> {
    if on_update.is_empty() {
        return Vec::new();
    }
    let id = new_id();
    let (s, t) = (quote(schema), quote(table));
    let mut out: Vec<String> = (on_update.iter().enumerate())
        .map(|(i, (c, _))| {
            format!(
                "CREATE TRIGGER {s}.{} BEFORE UPDATE OF {} ON {t} FOR EACH ROW \
                 BEGIN SELECT {MARK}('{id}', {i}, NEW.{ROWID}); END",
                quote(&format!("{id}_{i}")),
                quote(c)
            )
        })
        .collect();
    let now = |fsp: u64| match fsp {
        0 => "NOW()".to_string(),
        n => format!("NOW({n})"),
    };
    // `NOW(fsp)` for each auto-updated column but `but` that the statement did not assign.
    let sets = |but: Option<usize>| -> Vec<String> {
        (on_update.iter().enumerate())
            .filter(|(i, _)| Some(*i) != but)
            .map(|(i, (c, fsp))| {
                let c = quote(c);
                format!(
                    "{c} = CASE WHEN NEW.{c} IS OLD.{c} AND NOT {MARKED}('{id}', {i}, NEW.{ROWID}) \
                     THEN {} ELSE {c} END",
                    now(*fsp)
                )
            })
            .collect()
    };
    // An auto-updated column the statement changed changes the row too: the others follow.
    if on_update.len() > 1 {
        for (i, (c, _)) in on_update.iter().enumerate() {
            let c = quote(c);
            out.push(format!(
                "CREATE TRIGGER {s}.{} AFTER UPDATE OF {c} ON {t} FOR EACH ROW \
                 WHEN NEW.{c} IS NOT OLD.{c} BEGIN UPDATE {t} SET {} WHERE {ROWID} = NEW.{ROWID}; END",
                quote(&format!("{id}_u{i}")),
                sets(Some(i)).join(", ")
            ));
        }
    }
    let others: Vec<String> = (columns.iter())
        .filter(|c| !on_update.iter().any(|(u, _)| u.eq_ignore_ascii_case(c)))
        .map(|c| quote(c))
        .collect();
    if others.is_empty() {
        return out; // nothing else can change
    }
    let changed: Vec<String> = (others.iter())
        .map(|c| format!("NEW.{c} IS NOT OLD.{c}"))
        .collect();
    out.push(format!(
        "CREATE TRIGGER {s}.{} AFTER UPDATE OF {} ON {t} FOR EACH ROW WHEN {} \
         BEGIN UPDATE {t} SET {} WHERE {ROWID} = NEW.{ROWID}; END",
        quote(&id),
        others.join(", "),
        changed.join(" OR "),
        sets(None).join(", ")
    ));
    out
}

/// The triggers of a `CREATE TABLE` definition's auto-updated columns.
pub(crate) fn of_definition(schema: &str, table: &str, cols: &[ColumnDef]) -> Vec<String> {
    let on_update: Vec<(String, u64)> = (cols.iter())
        .filter_map(|c| on_update_fsp(c).map(|fsp| (c.name.value.clone(), fsp)))
        .collect();
    let names: Vec<String> = cols.iter().map(|c| c.name.value.clone()).collect();
    triggers(schema, table, &names, &on_update)
}

/// This module's triggers on the table SQLite keeps as `schema.table`: `(name, sql)`.
fn table_triggers(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Vec<(String, String)>, ServerError> {
    let sql = format!(
        "SELECT name, sql FROM {}.sqlite_schema WHERE type = 'trigger' \
         AND tbl_name = ?1 COLLATE NOCASE AND substr(name, 1, {}) = '{TRIGGER}'",
        quote(schema),
        TRIGGER.len()
    );
    let err = |e: rusqlite::Error| ServerError::from_engine(&e, None);
    let mut st = db.db().prepare_cached(&sql).map_err(err)?;
    let rows = st
        .query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(err)?;
    rows.collect::<Result<_, _>>().map_err(err)
}

/// The auto-updated columns of the table SQLite keeps as `schema.table`, by name: those a
/// marking trigger names (`BEFORE UPDATE OF c`, see the module docs).
///
/// # Errors
/// SQLite errors.
pub(crate) fn columns(
    db: &mut EngineConn,
    schema: &str,
    table: &str,
) -> Result<Vec<String>, ServerError> {
    Ok((table_triggers(db, schema, table)?.iter())
        .filter_map(|(_, sql)| marked_column(sql))
        .collect())
}

/// The column of a marking trigger's `BEFORE UPDATE OF c ON`, as written here (backquoted) or
/// as SQLite wrote it again (double-quoted, after a rename).
fn marked_column(sql: &str) -> Option<String> {
    let at = sql.find(" BEFORE UPDATE OF ")? + " BEFORE UPDATE OF ".len();
    let rest = &sql[at..];
    let q = rest.chars().next()?;
    if q != '`' && q != '"' {
        return rest.split_whitespace().next().map(str::to_string);
    }
    let mut name = String::new();
    let mut chars = rest[1..].chars().peekable();
    while let Some(ch) = chars.next() {
        if ch == q {
            if chars.peek() == Some(&q) {
                chars.next();
            } else {
                return Some(name);
            }
        }
        name.push(ch);
    }
    None
}

/// The statements run before and after a DDL's own.
type Around = (Vec<String>, Vec<String>);

/// The statements an in-place `ALTER TABLE a` of the table SQLite keeps as `schema.table`
/// runs before and after its own, if the table has auto-updated columns: their triggers
/// dropped (they name every column, which SQLite's `DROP COLUMN` refuses) and written again
/// for the columns the statement leaves (`ADD`, `DROP`, `RENAME COLUMN`; a `RENAME TO` names
/// the table). `None` for a table without them.
///
/// # Errors
/// SQLite errors.
pub(crate) fn refresh(
    db: &mut EngineConn,
    a: &AlterTable,
    schema: &str,
    table: &str,
) -> Result<Option<Around>, ServerError> {
    let Some((existing, mut names, mut on_update)) = kept(db, schema, table)? else {
        return Ok(None);
    };
    let mut target = table.to_string();
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    for op in &a.operations {
        match op {
            Op::AddColumn { column_def, .. } => {
                names.push(column_def.name.value.clone());
            }
            Op::DropColumn { column_names, .. } => {
                for c in column_names {
                    names.retain(|n| !same(n, &c.value));
                    on_update.retain(|(n, _)| !same(n, &c.value));
                }
            }
            Op::RenameColumn {
                old_column_name,
                new_column_name,
            } => {
                for n in names.iter_mut().chain(on_update.iter_mut().map(|(n, _)| n)) {
                    if same(n, &old_column_name.value) {
                        *n = new_column_name.value.clone();
                    }
                }
            }
            Op::RenameTable { table_name } => {
                let named = match table_name {
                    sqlparser::ast::RenameTableNameKind::As(n)
                    | sqlparser::ast::RenameTableNameKind::To(n) => n,
                };
                target = crate::rewrite::table_name(named, Some(schema))?.1;
            }
            _ => {}
        }
    }
    let s = quote(schema);
    let drops = (existing.iter())
        .map(|name| format!("DROP TRIGGER {s}.{}", quote(name)))
        .collect();
    Ok(Some((drops, triggers(schema, &target, &names, &on_update))))
}

/// The statements of an in-place `ALTER TABLE` or a `RENAME TABLE` `s` (`rw`) with those that
/// keep the auto-update triggers of its tables ([`refresh`], [`renamed`]); `current`: the
/// session's schema.
///
/// # Errors
/// 1046 for a name without a schema; SQLite errors.
pub(crate) fn after_ddl(
    db: &mut EngineConn,
    s: &sqlparser::ast::Statement,
    current: Option<&str>,
    rw: Option<Arc<Rewritten>>,
) -> Result<Option<Arc<Rewritten>>, ServerError> {
    let (before, after) = match s {
        sqlparser::ast::Statement::AlterTable(a) => {
            let (s, t) = crate::temporary::located_name(db, &a.name, current)?;
            match refresh(db, a, &s, &t)? {
                Some(both) => both,
                None => return Ok(rw),
            }
        }
        sqlparser::ast::Statement::RenameTable(pairs) => {
            let mut renames = Vec::new();
            for r in pairs {
                let (s, old) = crate::rewrite::table_name(&r.old_name, current)?;
                let new = crate::rewrite::table_name(&r.new_name, current)?.1;
                renames.push((s, old, new));
            }
            (Vec::new(), renamed(db, &renames)?)
        }
        _ => return Ok(rw),
    };
    let Some(mut rw) = rw else {
        return Ok(None);
    };
    if before.is_empty() && after.is_empty() {
        return Ok(Some(rw));
    }
    let sql = &mut Arc::make_mut(&mut rw).sql;
    let own = std::mem::take(sql);
    *sql = before.into_iter().chain(own).chain(after).collect();
    Ok(Some(rw))
}

/// The statements a `RENAME TABLE` of `renames` (`(schema, old, new)`, in order) runs after
/// its own: SQLite renames the table in a trigger's `ON` but not in its body (the engine runs
/// with `legacy_alter_table`: `engine.rs`), so the auto-update triggers of a renamed table are
/// dropped and written again for its new name.
///
/// # Errors
/// SQLite errors.
pub(crate) fn renamed(
    db: &mut EngineConn,
    renames: &[(String, String, String)],
) -> Result<Vec<String>, ServerError> {
    type Held = Option<(Kept, String)>;
    let key = |s: &str, t: &str| (s.to_string(), t.to_ascii_lowercase());
    // What each name holds after the pairs so far (a name not listed: what the catalog says).
    let mut holds: Vec<((String, String), Held)> = Vec::new();
    for (schema, old, new) in renames {
        let held = match holds.iter().position(|(k, _)| *k == key(schema, old)) {
            Some(i) => holds.remove(i).1.map(|(k, _)| k),
            None => kept(db, schema, old)?,
        };
        holds.retain(|(k, _)| *k != key(schema, new));
        holds.push((key(schema, old), None));
        holds.push((key(schema, new), held.map(|k| (k, new.clone()))));
    }
    let mut out = Vec::new();
    for ((schema, _), held) in holds {
        let Some(((names, cols, on_update), table)) = held else {
            continue;
        };
        let s = quote(&schema);
        out.extend((names.iter()).map(|n| format!("DROP TRIGGER {s}.{}", quote(n))));
        out.extend(triggers(&schema, &table, &cols, &on_update));
    }
    Ok(out)
}

/// A table's auto-update triggers: their names, the table's columns, its auto-updated columns.
type Kept = (Vec<String>, Vec<String>, Vec<(String, u64)>);

/// The auto-update triggers of `schema.table`: their names, the table's columns, its
/// auto-updated columns; `None` for a table without them.
fn kept(db: &mut EngineConn, schema: &str, table: &str) -> Result<Option<Kept>, ServerError> {
    let existing = table_triggers(db, schema, table)?;
    if existing.is_empty() {
        return Ok(None);
    }
    let cols = crate::catalog::sqlite_columns(db, schema, table)?;
    let marked: Vec<String> = existing
        .iter()
        .filter_map(|(_, s)| marked_column(s))
        .collect();
    let names = cols.iter().map(|c| c.name.clone()).collect();
    let on_update = (cols.iter())
        .filter(|c| marked.iter().any(|m| m.eq_ignore_ascii_case(&c.name)))
        .map(|c| {
            (
                c.name.clone(),
                c.type_args().first().map_or(0, |n| *n as u64),
            )
        })
        .collect();
    Ok(Some((
        existing.into_iter().map(|(n, _)| n).collect(),
        names,
        on_update,
    )))
}

/// What `information_schema.COLUMNS.EXTRA` and `SHOW COLUMNS` say of a column's
/// `CURRENT_TIMESTAMP` default and `ON UPDATE` (MySQL 8.0: `DEFAULT_GENERATED` for an
/// expression default, `on update CURRENT_TIMESTAMP[(fsp)]`).
pub(crate) fn extra(default: Option<&str>, on_update: Option<&str>) -> String {
    let generated = default.is_some_and(|d| d.starts_with("CURRENT_TIMESTAMP"));
    match (generated, on_update) {
        (true, Some(u)) => format!("DEFAULT_GENERATED on update {u}"),
        (true, None) => "DEFAULT_GENERATED".to_string(),
        (false, Some(u)) => format!("on update {u}"),
        (false, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marked_columns_are_read_back_however_quoted() {
        let sql = "CREATE TRIGGER `s`.`x` BEFORE UPDATE OF `a``b` ON `t` FOR EACH ROW";
        assert_eq!(marked_column(sql).as_deref(), Some("a`b"));
        let sql = "CREATE TRIGGER `s`.`x` BEFORE UPDATE OF \"c\" ON \"u\" FOR EACH ROW";
        assert_eq!(marked_column(sql).as_deref(), Some("c"));
    }

    #[test]
    fn a_table_without_other_columns_has_marks_only() {
        let on = vec![("c".to_string(), 3)];
        assert_eq!(triggers("s", "t", &["c".into()], &on).len(), 1);
        let all = triggers("s", "t", &["id".into(), "c".into()], &on);
        assert_eq!(all.len(), 2);
        assert!(all[1].contains("NOW(3)"), "{}", all[1]);
    }
}
