//! Views: SQLite's views, with MySQL's definition kept in them, and the catalog the lock plans
//! read.
//!
//! A view is a SQLite view in its schema's file, `CREATE VIEW "s"."v" ("a", ...) AS
//! /*mdl-view {...}*/ <select in SQLite's dialect>`: SQLite keeps a `CREATE` statement's text
//! as it was written, comments included, so the comment (JSON, every `*/` in it written `*\/`)
//! holds what MySQL shows of a view and SQLite's text cannot say: the select in MySQL's dialect
//! (as sqlparser prints it; MySQL too keeps a re-printed form, not the client's text), the
//! column list, `ALGORITHM`, `DEFINER`, `SQL SECURITY` and the `CHECK OPTION`. One statement
//! creates both, so they cannot disagree; a view made by other means (no comment) shows
//! SQLite's text.
//!
//! [`ViewCatalog`] is every schema's views, read from the files when the server opens them and
//! again for a schema after each view DDL (`execute/view_ddl.rs`). It answers, per statement,
//! whether a name is a view and which tables it reads ([`mdl_sql::view_tables`], computed once
//! per definition), so the statement's plan locks them ([`mdl_sql::Plan::expand_views`]); with
//! no view in the server the answer costs one atomic load.
//!
//! A view over a table that goes (DROP TABLE, or RENAME TABLE, which leaves views naming the old
//! name as MySQL does: connections set SQLite's `legacy_alter_table`) is invalid in MySQL, and
//! a query of it fails with 1356 until the table is back. SQLite would keep such a view, and
//! then refuse every `RENAME COLUMN` and `DROP COLUMN` of the schema; so after each DDL the
//! server makes such a view a stub, one row under the same column names whose first value
//! calls [`INVALID`] (1356), and makes a stub whose tables are all back its select again
//! (`execute/view_ddl.rs`, `follow_tables`). The comment keeps what either needs: SQLite's
//! select and the column names.
//!
//! What differs from MySQL: a view reads the tables of its own schema only (SQLite's rule for a
//! view in an attached database: `view v cannot reference objects in database x`); it is not
//! updatable (SQLite's views are read-only: INSERT is 1471, UPDATE and DELETE 1288); it cannot
//! read the session (user or system variables, `CONNECTION_ID()`, `DATABASE()`, ...: the
//! rewrite makes those literals, which a view would keep); `ALGORITHM` and `SQL SECURITY` are
//! kept and shown, and change nothing (SQLite has one way to run a view, and no privileges);
//! `RENAME COLUMN` rewrites SQLite's text of the view, not the MySQL text `SHOW CREATE VIEW`
//! shows (MySQL makes the view invalid).
//!
//! As in MySQL, a view's `*` is frozen into the columns it stood for when the view was made
//! (`execute/view_star.rs`), and a view a column of which is dropped is invalid (1356, the
//! stub above) until the column is back (`execute/view_ddl.rs`, `follow_tables`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use mdl_sql::TableName;
use serde_json::{json, Value as Json};

use crate::catalog::{CHARSET, COLLATION};
use crate::engine::quote;
use crate::error::ServerError;

/// What MySQL says of a view, kept in its SQLite text (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// Its schema.
    pub schema: String,
    /// Its name, as created.
    pub name: String,
    /// The select, in MySQL's dialect.
    pub select: String,
    /// The column list (`CREATE VIEW v (a, b)`), empty if none was given.
    pub columns: Vec<String>,
    /// `UNDEFINED`, `MERGE` or `TEMPTABLE`.
    pub algorithm: String,
    /// The definer's user and host.
    pub definer: (String, String),
    /// `DEFINER` or `INVOKER`.
    pub security: String,
    /// `NONE`, `CASCADED` or `LOCAL`.
    pub check_option: String,
    /// The tables the select reads (lock keys: lower case).
    pub tables: Vec<TableName>,
    /// The select in SQLite's dialect, its table names unqualified: what the view runs while
    /// they all exist.
    pub sqlite: String,
    /// The names of its columns, in order.
    pub names: Vec<String>,
    /// A table it reads is gone: SQLite's text is a stub that fails with 1356 (see the module
    /// docs).
    pub invalid: bool,
}

const MARK: &str = "/*mdl-view ";

/// The function a stub calls (see the module docs).
pub const INVALID: &str = "MDL_INVALID_VIEW";

/// The start of the error [`INVALID`] raises; `error.rs` makes it MySQL's 1356.
pub const INVALID_ERROR: &str = "invalid view: ";

/// Registers [`INVALID`] on `db`.
///
/// # Errors
/// SQLite errors.
pub fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    db.create_scalar_function(INVALID, 2, FunctionFlags::SQLITE_UTF8, |ctx| {
        let (schema, name): (String, String) = (ctx.get(0)?, ctx.get(1)?);
        Err::<rusqlite::types::Value, _>(rusqlite::Error::UserFunctionError(
            format!("{INVALID_ERROR}{schema}.{name}").into(),
        ))
    })
}

impl View {
    /// The comment SQLite's text keeps (see the module docs).
    pub fn comment(&self) -> String {
        let meta = json!({
            "select": self.select,
            "columns": self.columns,
            "algorithm": self.algorithm,
            "definer": [self.definer.0, self.definer.1],
            "security": self.security,
            "check_option": self.check_option,
            "sqlite": self.sqlite,
            "names": self.names,
        });
        format!("{MARK}{}*/", meta.to_string().replace("*/", "*\\/"))
    }

    /// SQLite's `CREATE VIEW` of this view: its select, or (`stub`) one row that fails with
    /// 1356 under the same column names, so views that read this one stay valid in SQLite.
    pub fn sqlite_create(&self, stub: bool) -> String {
        let (s, v) = (quote(&self.schema), quote(&self.name));
        let list = match stub || !self.columns.is_empty() {
            true if stub => self.names.clone(),
            true => self.columns.clone(),
            false => Vec::new(),
        };
        let list = match list.is_empty() {
            true => String::new(),
            false => {
                let cols: Vec<String> = list.iter().map(|c| quote(c)).collect();
                format!(" ({})", cols.join(", "))
            }
        };
        let body = match stub {
            false => self.sqlite.clone(),
            true => {
                let lit = |x: &str| format!("'{}'", x.replace('\'', "''"));
                let call = format!("{INVALID}({}, {})", lit(&self.schema), lit(&self.name));
                let nulls = (1..self.names.len()).map(|_| ", NULL".to_string());
                format!("SELECT {call}{}", nulls.collect::<String>())
            }
        };
        format!("CREATE VIEW {s}.{v}{list} AS {} {body}", self.comment())
    }

    /// MySQL's `SHOW CREATE VIEW` text (`sql/sql_show.cc`, `view_store_create_info`).
    pub fn create_text(&self) -> String {
        let q = |n: &str| format!("`{}`", n.replace('`', "``"));
        let mut s = format!(
            "CREATE ALGORITHM={} DEFINER={}@{} SQL SECURITY {} VIEW {}",
            self.algorithm,
            q(&self.definer.0),
            q(&self.definer.1),
            self.security,
            q(&self.name)
        );
        if !self.columns.is_empty() {
            let cols: Vec<String> = self.columns.iter().map(|c| q(c)).collect();
            s.push_str(&format!(" ({})", cols.join(",")));
        }
        s.push_str(" AS ");
        s.push_str(&self.select);
        if self.check_option != "NONE" {
            s.push_str(&format!(" WITH {} CHECK OPTION", self.check_option));
        }
        s
    }

    /// `SHOW CREATE VIEW`'s row (and `SHOW CREATE TABLE`'s, for a view).
    pub fn show_create_row(&self) -> Vec<crate::wire::Cell> {
        use crate::wire::Cell;
        vec![
            Cell::Text(self.name.clone()),
            Cell::Text(self.create_text()),
            Cell::Text(CHARSET.into()),
            Cell::Text(COLLATION.into()),
        ]
    }

    /// Its row of `information_schema.VIEWS`.
    pub fn info_schema_row(&self) -> Vec<rusqlite::types::Value> {
        let t = |s: &str| rusqlite::types::Value::Text(s.to_string());
        vec![
            t("def"),
            t(&self.schema),
            t(&self.name),
            t(&self.select),
            t(&self.check_option),
            t("NO"),
            t(&format!("{}@{}", self.definer.0, self.definer.1)),
            t(&self.security),
            t(CHARSET),
            t(COLLATION),
        ]
    }

    /// The view SQLite has as `name` with text `sql` in `schema`.
    fn from_sqlite(schema: &str, name: &str, sql: &str) -> View {
        let meta = (sql.find(MARK))
            .and_then(|at| {
                let rest = &sql[at + MARK.len()..];
                rest.find("*/").map(|end| &rest[..end])
            })
            .and_then(|m| serde_json::from_str::<Json>(m).ok());
        let text = |k: &str, default: &str| {
            (meta.as_ref())
                .and_then(|m| m.get(k))
                .and_then(Json::as_str)
                .unwrap_or(default)
                .to_string()
        };
        let after_as = sql.split_once(" AS ").map_or(sql, |(_, s)| s).trim();
        let definer = meta.as_ref().and_then(|m| m.get("definer"));
        let part = |i: usize, d: &str| {
            (definer.and_then(|d| d.get(i)).and_then(Json::as_str))
                .unwrap_or(d)
                .to_string()
        };
        let list = |k: &str| -> Vec<String> {
            (meta.as_ref().and_then(|m| m.get(k)))
                .and_then(Json::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|c| c.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut v = View {
            schema: schema.to_string(),
            name: name.to_string(),
            select: text("select", after_as),
            columns: list("columns"),
            algorithm: text("algorithm", "UNDEFINED"),
            definer: (part(0, "root"), part(1, "%")),
            security: text("security", "DEFINER"),
            check_option: text("check_option", "NONE"),
            tables: Vec::new(),
            sqlite: text("sqlite", after_as),
            names: list("names"),
            invalid: sql.contains(INVALID),
        };
        v.tables = tables_read(&v).unwrap_or_default();
        v
    }
}

/// The tables `v`'s select reads, as lock keys.
///
/// # Errors
/// A select `mdl-sql` cannot parse, or a name MySQL refuses.
pub fn tables_read(v: &View) -> Result<Vec<TableName>, mdl_sql::SqlError> {
    let parsed = mdl_sql::parse(&v.select)?;
    let view = TableName::new(&v.schema.to_ascii_lowercase(), &v.name.to_ascii_lowercase())?;
    match parsed.first().map(|p| &p.statement) {
        Some(mdl_sql::Statement::Sql { statement, .. }) => match statement.as_ref() {
            sqlparser::ast::Statement::Query(q) => mdl_sql::view_tables(&view, q, true),
            _ => Ok(Vec::new()),
        },
        _ => Ok(Vec::new()),
    }
}

/// Every schema's views (see the module docs).
#[derive(Debug, Default)]
pub struct ViewCatalog {
    /// By lower-cased schema and name.
    views: RwLock<HashMap<(String, String), Arc<View>>>,
    /// How many there are: read without the lock by every statement.
    count: AtomicUsize,
    /// Bumped by every change: a statement whose plan expanded views checks, once its locks
    /// are granted, that none changed in between (`execute.rs`).
    generation: AtomicU64,
}

fn key(schema: &str, name: &str) -> (String, String) {
    (schema.to_ascii_lowercase(), name.to_ascii_lowercase())
}

impl ViewCatalog {
    /// No view in any schema.
    pub fn is_empty(&self) -> bool {
        self.count.load(Ordering::Acquire) == 0
    }

    /// The generation (see the field).
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The view `schema.name`, if that name is one.
    pub fn get(&self, schema: &str, name: &str) -> Option<Arc<View>> {
        if self.is_empty() {
            return None;
        }
        let views = self.views.read().unwrap_or_else(|e| e.into_inner());
        views.get(&key(schema, name)).cloned()
    }

    /// The tables view `t` reads, or `None` if `t` is not a view: what
    /// [`mdl_sql::Plan::expand_views`] asks.
    pub fn tables_of(&self, t: &TableName) -> Option<Vec<TableName>> {
        self.get(&t.schema, &t.name).map(|v| v.tables.clone())
    }

    /// The views of `schema`, by name.
    pub fn of_schema(&self, schema: &str) -> Vec<Arc<View>> {
        let views = self.views.read().unwrap_or_else(|e| e.into_inner());
        let s = schema.to_ascii_lowercase();
        let mut out: Vec<Arc<View>> = (views.iter())
            .filter(|(k, _)| k.0 == s)
            .map(|(_, v)| v.clone())
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// The schemas that have views.
    pub fn schemas(&self) -> Vec<String> {
        let views = self.views.read().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<String> = views.values().map(|v| v.schema.clone()).collect();
        out.sort();
        out.dedup();
        out
    }

    /// Replaces `schema`'s views with what `db` (which has it attached) says they are.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn reload(&self, db: &rusqlite::Connection, schema: &str) -> Result<(), ServerError> {
        let found = read_views(db, schema, schema)?;
        self.replace_schema(schema, found);
        Ok(())
    }

    /// Forgets `schema`'s views (`DROP DATABASE`).
    pub fn drop_schema(&self, schema: &str) {
        self.replace_schema(schema, Vec::new());
    }

    fn replace_schema(&self, schema: &str, found: Vec<View>) {
        let mut views = self.views.write().unwrap_or_else(|e| e.into_inner());
        let s = schema.to_ascii_lowercase();
        views.retain(|k, _| k.0 != s);
        for v in found {
            views.insert(key(&v.schema, &v.name), Arc::new(v));
        }
        self.count.store(views.len(), Ordering::Release);
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}

/// The views SQLite has in `schema`, the database `db` has as `attached`.
fn read_views(
    db: &rusqlite::Connection,
    attached: &str,
    schema: &str,
) -> Result<Vec<View>, ServerError> {
    let sql = format!(
        "SELECT name, sql FROM {}.sqlite_schema WHERE type = 'view'",
        quote(attached)
    );
    let err = |e: rusqlite::Error| ServerError::from_engine(&e, Some(schema));
    let mut st = db.prepare(&sql).map_err(err)?;
    let rows = st
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .map_err(err)?;
    let mut out = Vec::new();
    for row in rows {
        let (name, sql) = row.map_err(err)?;
        out.push(View::from_sqlite(schema, &name, &sql));
    }
    Ok(out)
}

/// Reads the views of the schema file `file` (named `schema`), at the server's start.
///
/// # Errors
/// SQLite errors.
pub fn load_file(
    catalog: &ViewCatalog,
    file: &std::path::Path,
    schema: &str,
) -> Result<(), ServerError> {
    let db = rusqlite::Connection::open(file).map_err(|e| ServerError::from_engine(&e, None))?;
    let found = read_views(&db, "main", schema)?;
    catalog.replace_schema(schema, found);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_comment_round_trips_through_sqlite_text() {
        let v = View {
            schema: "app".into(),
            name: "V1".into(),
            select: "SELECT a /* odd */ FROM t1 WHERE b = '*/'".into(),
            columns: vec!["x".into()],
            algorithm: "MERGE".into(),
            definer: ("root".into(), "localhost".into()),
            security: "INVOKER".into(),
            check_option: "LOCAL".into(),
            tables: Vec::new(),
            sqlite: "SELECT a FROM t1".into(),
            names: vec!["x".into()],
            invalid: false,
        };
        let c = v.comment();
        assert_eq!(c.matches("*/").count(), 1, "{c}");
        let sql = format!("CREATE VIEW \"V1\" (\"x\") AS {c} SELECT a FROM \"app\".t1");
        let back = View::from_sqlite("app", "V1", &sql);
        assert_eq!(back.tables, [TableName::new("app", "t1").unwrap()]);
        assert_eq!(
            View {
                tables: Vec::new(),
                ..back
            },
            v
        );
        assert_eq!(
            v.create_text(),
            "CREATE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY INVOKER VIEW `V1` \
             (`x`) AS SELECT a /* odd */ FROM t1 WHERE b = '*/' WITH LOCAL CHECK OPTION"
        );
    }

    #[test]
    fn a_view_made_elsewhere_shows_sqlites_text() {
        let v = View::from_sqlite("app", "v", "CREATE VIEW v AS SELECT 1 AS one");
        assert_eq!(v.select, "SELECT 1 AS one");
        assert_eq!(
            (v.algorithm.as_str(), v.check_option.as_str()),
            ("UNDEFINED", "NONE")
        );
    }
}
