//! Foreign keys, as InnoDB in MySQL 8.0 keeps them, on SQLite's own.
//!
//! **Kept.** A table-level `[CONSTRAINT [name]] FOREIGN KEY [index] (cols) REFERENCES parent
//! (cols) [ON DELETE action] [ON UPDATE action]` of `CREATE TABLE` or `ALTER TABLE ... ADD` is
//! written into SQLite's definition of the table as `CONSTRAINT name FOREIGN KEY ...`
//! (`define.rs`), so SQLite checks it and runs its actions: `CASCADE`, `SET NULL`, `RESTRICT`,
//! `NO ACTION` (the default). `SET DEFAULT`, which InnoDB refuses, is refused (1215, "Cannot
//! add foreign key constraint", as MySQL answers it), and `SET NULL` on a `NOT NULL` column is
//! 1830 (InnoDB's `innobase_check_fk_option`). The name is the
//! given one, or `<table>_ibfk_<n>` (MySQL's `generate_fk_name`, `sql/sql_table.cc`): in
//! CREATE TABLE `n` counts from 1 whatever names the others have (a given name equal to a
//! generated one is 1826, as MySQL's), in ALTER TABLE on from the largest such number the
//! table had (`get_fk_max_generated_name_number`; `execute/rebuild.rs`). A column's inline `REFERENCES` is read and
//! ignored, as MySQL 8.0 does (its manual: "MySQL parses but ignores inline REFERENCES
//! specifications"). The child's columns get an index when no index starts with them, named
//! after the constraint's name, else the `FOREIGN KEY` index name, else the first column (the
//! manual's "FOREIGN KEY Constraints"). The parent must be in the child's schema: each schema
//! is a database file of its own, attached to every connection (`engine.rs`), and SQLite
//! checks a key within one database only (its `REFERENCES` names no schema), so a key to
//! another schema's table could not be enforced; it is 1235 (`define::other_schema`).
//!
//! **Read back.** This module reads a schema's keys from SQLite (`pragma_foreign_key_list`,
//! whose ids run opposite to the order of declaration; the names from the definition's text,
//! which SQLite keeps as written and edits on RENAME: a renamed parent is renamed in its
//! children's keys, with SQLite's checks on for the rename whatever `foreign_key_checks` says,
//! as MySQL renames it) into the [`FkCatalog`] every connection
//! shares, reloaded after each DDL. `SHOW CREATE TABLE` prints each key as MySQL's
//! `store_create_info` (`sql/sql_show.cc`) does ([`ForeignKey::definition`]: no `ON DELETE`
//! or `ON UPDATE` for `NO ACTION`); `information_schema` lists them (`info_schema/keys.rs`).
//!
//! **Locked.** A statement that writes or changes a table a key relates also locks the related
//! tables as MySQL 8.0 does: [`expand`] hands the catalog's keys to `mdl-sql`'s
//! `Plan::add_foreign_keys`, which has the rules (an INSERT into a child reads its parents, a
//! DELETE of a parent writes its CASCADE children, an ALTER TABLE locks parents and children SU
//! then X, ..., DROP DATABASE locks its keys' names). The server calls it only when some
//! schema has a key: a statement of a server without foreign keys pays one atomic load.
//!
//! **Checked.** `foreign_key_checks` (`checks.rs`) is SQLite's `PRAGMA foreign_keys` of the
//! session's connection. SQLite ignores that pragma inside a transaction, so a change made in
//! one applies when the transaction ends, before the session's next statement; MySQL applies
//! it at once. A failed check is MySQL's 1452 or 1451 naming the constraint (`errors.rs`); the
//! DDL checks (1824, 1822, 3734, 3730, 1701; 1828, 1829, 1553 for an ALTER TABLE or DROP
//! INDEX that takes away a key's column or its last index) are in `checks.rs`.
//!
//! Not kept: foreign keys of temporary tables (InnoDB refuses them, as here: 1215), keys to
//! another schema, a parent key that is not the parent's primary key or a unique key of
//! exactly those columns (InnoDB takes any index that starts with them; SQLite needs a unique
//! one: 1235).

mod checks;
mod define;
mod errors;

pub use checks::{
    assigned as assigned_checks, broken_key, check_alter, check_create, check_drop, check_truncate,
    follow, reload_after_ddl, with_foreign_keys, Dropped,
};
pub use define::foreign_key_sql;
pub use errors::explain;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use mdl_sql::{FkRule, ForeignKeyLink, StatementKind, TableName};

use crate::engine::{quote, Engine};
use crate::error::ServerError;

/// A rule as SQLite's `pragma_foreign_key_list` writes it (`NO ACTION` also when none is
/// given: MySQL stores it so, `RESTRICT` in effect). SQLite keeps no `SET DEFAULT` here: it is
/// refused when a key is made (`define.rs`).
fn rule_from_sqlite(s: &str) -> FkRule {
    match s.to_ascii_uppercase().as_str() {
        "RESTRICT" => FkRule::Restrict,
        "CASCADE" => FkRule::Cascade,
        "SET NULL" => FkRule::SetNull,
        _ => FkRule::NoAction,
    }
}

/// A rule as MySQL writes it (`SHOW CREATE TABLE`, `information_schema.REFERENTIAL_CONSTRAINTS`).
pub fn rule_name(rule: FkRule) -> &'static str {
    match rule {
        FkRule::NoAction => "NO ACTION",
        FkRule::Restrict => "RESTRICT",
        FkRule::Cascade => "CASCADE",
        FkRule::SetNull => "SET NULL",
        FkRule::SetDefault => "SET DEFAULT",
    }
}

/// A foreign key of a table of the server's (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKey {
    /// The constraint's name.
    pub name: String,
    /// The schema of both tables.
    pub schema: String,
    /// The child.
    pub table: String,
    /// The child's columns.
    pub columns: Vec<String>,
    /// The parent.
    pub parent: String,
    /// The parent's columns.
    pub parent_columns: Vec<String>,
    /// `ON DELETE`.
    pub on_delete: FkRule,
    /// `ON UPDATE`.
    pub on_update: FkRule,
    /// SQLite's id of the key among the child's (`foreign_key_check`'s `fkid`).
    pub id: i64,
}

impl ForeignKey {
    /// `CONSTRAINT `name` FOREIGN KEY (`c`) REFERENCES `parent` (`id`) [ON DELETE ...] [ON
    /// UPDATE ...]`, as `SHOW CREATE TABLE` prints it (`store_create_info`,
    /// `sql/sql_show.cc`: no clause for `NO ACTION`, names joined by `, `).
    pub fn definition(&self) -> String {
        let list = |cols: &[String]| {
            let q: Vec<String> = cols.iter().map(|c| quote(c)).collect();
            q.join(", ")
        };
        let mut s = format!(
            "CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})",
            quote(&self.name),
            list(&self.columns),
            quote(&self.parent),
            list(&self.parent_columns)
        );
        for (what, rule) in [("DELETE", self.on_delete), ("UPDATE", self.on_update)] {
            if rule != FkRule::NoAction {
                s.push_str(&format!(" ON {what} {}", rule_name(rule)));
            }
        }
        s
    }

    /// What MySQL's 1451 and 1452 say of the key: `` `schema`.`child`, CONSTRAINT ... ``
    /// (InnoDB's `row_ins_foreign_report_err` text through `ER_ROW_IS_REFERENCED_2` /
    /// `ER_NO_REFERENCED_ROW_2`).
    pub fn in_message(&self) -> String {
        format!(
            "{}.{}, {}",
            quote(&self.schema),
            quote(&self.table),
            self.definition()
        )
    }

    /// Whether `table` is the child.
    pub fn is_child(&self, table: &str) -> bool {
        self.table.eq_ignore_ascii_case(table)
    }

    /// Whether `table` is the parent.
    pub fn is_parent(&self, table: &str) -> bool {
        self.parent.eq_ignore_ascii_case(table)
    }
}

/// Every schema's foreign keys, shared by the connections (see the module docs).
#[derive(Debug, Default)]
pub struct FkCatalog {
    keys: Mutex<BTreeMap<String, Arc<Vec<ForeignKey>>>>,
    /// Some schema has a foreign key: read without the mutex, so that a statement of a server
    /// without foreign keys (sysbench's) pays one atomic load.
    any: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl FkCatalog {
    /// No schema has a foreign key.
    pub fn is_empty(&self) -> bool {
        !self.any.load(Ordering::Acquire)
    }

    /// The keys of `schema`.
    pub fn of_schema(&self, schema: &str) -> Arc<Vec<ForeignKey>> {
        (lock(&self.keys).get(schema).cloned()).unwrap_or_default()
    }

    /// The keys of which `schema.table` is the child.
    pub fn of_child(&self, schema: &str, table: &str) -> Vec<ForeignKey> {
        let keys = self.of_schema(schema);
        keys.iter().filter(|k| k.is_child(table)).cloned().collect()
    }

    /// The keys of which `schema.table` is the parent.
    pub fn of_parent(&self, schema: &str, table: &str) -> Vec<ForeignKey> {
        let keys = self.of_schema(schema);
        keys.iter()
            .filter(|k| k.is_parent(table))
            .cloned()
            .collect()
    }

    /// Reads `schema`'s keys again from `db`.
    ///
    /// # Errors
    /// SQLite's.
    pub fn reload(&self, db: &rusqlite::Connection, schema: &str) -> Result<(), ServerError> {
        let found = load(db, schema).map_err(|e| ServerError::from_engine(&e, None))?;
        self.set(schema, found);
        Ok(())
    }

    fn set(&self, schema: &str, found: Vec<ForeignKey>) {
        let mut keys = lock(&self.keys);
        match found.is_empty() {
            true => keys.remove(schema),
            false => keys.insert(schema.to_string(), Arc::new(found)),
        };
        self.any.store(!keys.is_empty(), Ordering::Release);
    }

    /// A dropped schema's keys go.
    pub fn drop_schema(&self, schema: &str) {
        self.set(schema, Vec::new());
    }

    /// Reads the keys of the schema file at `path` (at start).
    ///
    /// # Errors
    /// SQLite's.
    pub fn load_file(&self, path: &std::path::Path, schema: &str) -> rusqlite::Result<()> {
        let db = rusqlite::Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )?;
        let found = load_main(&db, "main", schema)?;
        self.set(schema, found);
        Ok(())
    }
}

/// Adds to `plan` the locks MySQL takes on the tables a foreign key relates to those it writes
/// or changes (`mdl-sql`'s [`mdl_sql::Plan::add_foreign_keys`] has the rules), from the
/// catalog. The caller skips it when no schema has a key.
///
/// # Errors
/// `mdl-sql`'s, for a name it refuses.
pub fn expand(engine: &Engine, plan: &mut Arc<mdl_sql::Plan>) -> Result<(), ServerError> {
    use StatementKind as K;
    let related = matches!(
        plan.kind,
        K::Insert
            | K::Update
            | K::Delete
            | K::LockTables
            | K::CreateTable
            | K::AlterTable
            | K::DropTable
            | K::DropSchema
            | K::RenameTable
    );
    if !related {
        return Ok(());
    }
    let links = |t: &TableName| -> Vec<ForeignKeyLink> {
        let keys = engine.foreign_keys.of_schema(&t.schema);
        (keys.iter())
            .filter(|k| k.is_child(&t.name) || k.is_parent(&t.name))
            .filter_map(|k| {
                // Names as the session folds them (lower_case_table_names = 1).
                let name = |n: &str| TableName::new(&k.schema, &n.to_ascii_lowercase()).ok();
                Some(ForeignKeyLink {
                    name: k.name.clone(),
                    child: name(&k.table)?,
                    parent: name(&k.parent)?,
                    on_delete: k.on_delete,
                    on_update: k.on_update,
                })
            })
            .collect()
    };
    Arc::make_mut(plan).add_foreign_keys(links)?;
    Ok(())
}

/// The keys of `schema` (attached under its name to `db`).
fn load(db: &rusqlite::Connection, schema: &str) -> rusqlite::Result<Vec<ForeignKey>> {
    load_main(db, schema, schema)
}

/// The keys of the database `db` has attached as `attached`, the schema `schema`.
fn load_main(
    db: &rusqlite::Connection,
    attached: &str,
    schema: &str,
) -> rusqlite::Result<Vec<ForeignKey>> {
    let mut tables = db.prepare(&format!(
        "SELECT name, sql FROM {}.sqlite_master WHERE type = 'table' \
         AND sql LIKE '%FOREIGN KEY%' ORDER BY name",
        quote(attached)
    ))?;
    let tables: Vec<(String, String)> = tables
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::new();
    for (table, sql) in tables {
        let names = constraint_names(&sql);
        let mut list = db.prepare(
            "SELECT id, \"table\", \"from\", \"to\", on_update, on_delete \
             FROM pragma_foreign_key_list(?1, ?2) ORDER BY id DESC, seq",
        )?;
        type Row = (i64, String, String, Option<String>, String, String);
        let rows: Vec<Row> = list
            .query_map([&table, &attached.to_string()], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let mut keys: Vec<(i64, ForeignKey)> = Vec::new();
        for (id, parent, from, to, on_update, on_delete) in rows {
            if keys.last().is_none_or(|(last, _)| *last != id) {
                let n = keys.len();
                let name = (names.get(n).cloned())
                    .unwrap_or_else(|| mdl_sql::generated_fk_name(&table, n as u64 + 1));
                keys.push((
                    id,
                    ForeignKey {
                        name,
                        schema: schema.to_string(),
                        table: table.clone(),
                        columns: Vec::new(),
                        parent,
                        parent_columns: Vec::new(),
                        on_delete: rule_from_sqlite(&on_delete),
                        on_update: rule_from_sqlite(&on_update),
                        id,
                    },
                ));
            }
            if let Some((_, k)) = keys.last_mut() {
                k.columns.push(from);
                k.parent_columns.extend(to);
            }
        }
        out.extend(keys.into_iter().map(|(_, k)| k));
    }
    Ok(out)
}

/// The names of `CONSTRAINT name FOREIGN KEY` in a definition's text, in order: a scan of its
/// words that skips string literals and keeps quoted names whole.
pub(crate) fn constraint_names(sql: &str) -> Vec<String> {
    let words = words(sql);
    let is = |w: &(String, bool), k: &str| !w.1 && w.0.eq_ignore_ascii_case(k);
    (words.windows(4))
        .filter(|w| is(&w[0], "CONSTRAINT") && is(&w[2], "FOREIGN") && is(&w[3], "KEY"))
        .map(|w| w[1].0.clone())
        .collect()
}

/// The words of `sql`: (text, quoted). String literals are left out, punctuation is a word.
fn words(sql: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' | '`' | '[' => {
                let close = if c == '[' { ']' } else { c };
                let mut s = String::new();
                while let Some(d) = chars.next() {
                    if d == close {
                        if chars.peek() == Some(&close) && close != ']' {
                            chars.next();
                            s.push(d);
                            continue;
                        }
                        break;
                    }
                    s.push(d);
                }
                if c != '\'' {
                    out.push((s, true));
                }
            }
            c if c.is_alphanumeric() || c == '_' || c == '$' => {
                let mut s = c.to_string();
                while let Some(&d) = chars.peek() {
                    if !(d.is_alphanumeric() || d == '_' || d == '$') {
                        break;
                    }
                    s.push(d);
                    chars.next();
                }
                out.push((s, false));
            }
            c if c.is_whitespace() => {}
            c => out.push((c.to_string(), false)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_in_order_past_literals() {
        let sql = "CREATE TABLE `c` (`a` INT DEFAULT 'CONSTRAINT x FOREIGN KEY', \
                   CONSTRAINT `c_ibfk_1` FOREIGN KEY (`a`) REFERENCES `p` (`id`), \
                   CONSTRAINT \"we\"\"ird\" FOREIGN KEY (`b`) REFERENCES `p` (`u`), \
                   CONSTRAINT `mdl_enum_e` CHECK (`e` IN ('x')))";
        assert_eq!(constraint_names(sql), ["c_ibfk_1", "we\"ird"]);
    }

    #[test]
    fn definitions_print_as_mysql_prints_them() {
        let k = ForeignKey {
            name: "child_ibfk_1".into(),
            schema: "test".into(),
            table: "child".into(),
            columns: vec!["pid".into()],
            parent: "parent".into(),
            parent_columns: vec!["id".into()],
            on_delete: FkRule::Cascade,
            on_update: FkRule::NoAction,
            id: 0,
        };
        assert_eq!(
            k.in_message(),
            "`test`.`child`, CONSTRAINT `child_ibfk_1` FOREIGN KEY (`pid`) REFERENCES \
             `parent` (`id`) ON DELETE CASCADE"
        );
    }
}
