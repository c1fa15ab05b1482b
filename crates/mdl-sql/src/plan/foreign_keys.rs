//! Foreign keys: the locks MySQL 8.0 takes on the tables a foreign key relates.
//!
//! This crate has no catalog: what a statement's text says (the keys a `CREATE TABLE` or an
//! `ALTER TABLE ... ADD FOREIGN KEY` defines, the keys an `ALTER TABLE ... DROP FOREIGN KEY`
//! names) is planned by [`super::plan`]; the keys that exist are the caller's, who lists them
//! per table ([`ForeignKeyLink`]: each key of which the table is the child or the parent) to
//! [`Plan::add_foreign_keys`].
//!
//! | statement | locks | MySQL 8.0 |
//! |---|---|---|
//! | INSERT (REPLACE, `ON DUPLICATE KEY UPDATE`), UPDATE into a child | each parent SR (TRANSACTION) | `sql/sql_base.cc`, `DML_prelocking_strategy::handle_table` -> the foreign-key prelocking of the written table: a parent is added `TL_READ` (`MDL_SHARED_READ`) for the INSERT and UPDATE events of `trg_event_map` |
//! | UPDATE, DELETE (REPLACE) of a parent | each child SW (TRANSACTION) when the key's rule for the event changes the child (`CASCADE`, `SET NULL`, `SET DEFAULT`), else SR; a child so written is handled in turn as written (its parents, its children), as MySQL's prelocking list is | the same, `fk_modifies_child(rule)` -> `TL_WRITE_ALLOW_WRITE` (`MDL_SHARED_WRITE`), else `TL_READ` |
//! | LOCK TABLES t WRITE | t's parents SRO, its children SNRW when a rule changes them, else SRO (EXPLICIT, as the locked tables'; not usable by the session's statements) | the manual's "Foreign Key Locking" ("For foreign key checks, a shared read-only lock (LOCK TABLES READ) is taken on related tables. For cascading updates, a shared-nothing write lock (LOCK TABLES WRITE) is taken"): `Lock_tables_prelocking_strategy` with every event |
//! | CREATE TABLE t with foreign keys | each parent X and its SCHEMA IX (STATEMENT), the tables whose keys already reference t's name X (orphans made with `foreign_key_checks=0`), each key's name X in the FOREIGN_KEY namespace (STATEMENT; lowercase; unnamed: `t_ibfk_<n>`, `n` from 1 whatever names are given) | `sql/sql_table.cc`, `mysql_create_table`: `collect_fk_parents_for_new_fks(... MDL_EXCLUSIVE ...)`, `collect_fk_children(... MDL_EXCLUSIVE ...)`, `collect_fk_names_for_new_fks(..., 0, ...)` (`generate_fk_name`) |
//! | ALTER TABLE t | t's parents (of its keys, and of the keys it adds) and its children SU (STATEMENT); once t is X, X (STATEMENT, new requests: [`Plan::after_upgrades`]) on its children and the parents of the keys it adds or drops; the names of the keys it drops or adds X (FOREIGN_KEY, STATEMENT; unnamed: `t_ibfk_<n>`, `n` on from t's largest) | `mysql_alter_table`: `collect_fk_parents_for_new_fks(... MDL_SHARED_UPGRADABLE ...)`, `collect_fk_parents_for_all_fks` and `collect_fk_children` (SU), `collect_fk_names_for_dropped_fks`, `collect_fk_names_for_new_fks(..., get_fk_max_generated_name_number(...))`; after `wait_while_table_is_used`, `collect_and_lock_fk_tables_for_complex_alter_table` (`MDL_EXCLUSIVE`, `MDL_STATEMENT`) |
//! | DROP TABLE t | t's parents and children X, the names of t's keys X (FOREIGN_KEY), all STATEMENT | `sql/sql_table.cc`, `rm_table_do_discovery_and_lock_fk_tables`: `collect_fk_parents_for_all_fks`, `collect_fk_children`, `collect_fk_names` (`MDL_EXCLUSIVE`) |
//! | DROP DATABASE d | as DROP TABLE of each of d's tables (the caller's `Plan::add_tables_of_schema`): related tables outside d X, the names of d's keys X (FOREIGN_KEY), STATEMENT | `sql/sql_db.cc`, `mysql_rm_db` -> `rm_table_do_discovery_and_lock_fk_tables` |
//! | TRUNCATE TABLE t | nothing more than t's X | `sql/sql_truncate.cc`, `Sql_cmd_truncate_table::truncate_base`: `lock_table` takes t alone (`lock_table_names`), and `handler_truncate_base` opens it with no `trg_event_map`, so no foreign-key prelocking; a parent of another table is refused (1701, `fk_truncate_illegal_if_parent`) by the caller |
//! | RENAME TABLE a TO b | a's parents and children, and the tables whose keys reference b, X (STATEMENT) | `sql/sql_rename.cc` -> `collect_and_lock_fk_tables_for_rename_table` |
//!
//! Each related table's SCHEMA IX (STATEMENT) comes with it in the DDL rows, as the
//! `collect_fk_*` functions add it. With `foreign_key_checks` off
//! ([`super::SessionState::foreign_key_checks`]) a DML statement locks no related table
//! (`handle_table`: "When FOREIGN_KEY_CHECKS is 0 we are not going to do any foreign key
//! checks so we don't need to add child and parent tables to the prelocking list"); LOCK
//! TABLES and the DDL lock them whatever it says, as MySQL's do. The DML rules are
//! `process_table_fks` (`sql/sql_base.cc`): a parent is `FK_TABLE_ROLE_PARENT_CHECK`, a child
//! `..._CHILD_CHECK` (SR; SRO under LOCK TABLES) or `..._CHILD_UPDATE` / `..._CHILD_DELETE`
//! (SW; SNRW under LOCK TABLES), all `MDL_TRANSACTION` (`open_and_process_routine`); a child
//! updated or deleted is processed in turn with that event. Not modelled: `ALTER TABLE`'s
//! distinction of a plain rename or index change (`is_simple_rename_or_index_change`, which
//! locks fewer tables).

use std::collections::BTreeSet;

use sqlparser::ast::{AlterTable, AlterTableOperation, CreateTable, TableConstraint};

use mdl_core::{LockDuration, LockType, MdlKey, MdlRequest, Namespace};

use super::{order, Plan, StatementKind};
use crate::error::SqlError;
use crate::names::{resolve_object, schema_request, TableName};
use crate::plan::SessionState;

/// A key's `ON DELETE` / `ON UPDATE` rule (`dd::Foreign_key::enum_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FkRule {
    /// `NO ACTION` (the default).
    NoAction,
    /// `RESTRICT`.
    Restrict,
    /// `CASCADE`.
    Cascade,
    /// `SET NULL`.
    SetNull,
    /// `SET DEFAULT`.
    SetDefault,
}

impl FkRule {
    /// MySQL's `fk_modifies_child`: the rule changes the child's rows.
    pub fn modifies_child(self) -> bool {
        matches!(self, FkRule::Cascade | FkRule::SetNull | FkRule::SetDefault)
    }
}

/// A foreign key as the caller's catalog has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKeyLink {
    /// The constraint's name.
    pub name: String,
    /// The table that has the key.
    pub child: TableName,
    /// The table it references.
    pub parent: TableName,
    /// `ON DELETE`.
    pub on_delete: FkRule,
    /// `ON UPDATE`.
    pub on_update: FkRule,
}

/// The events of a write (`trg_event_map`'s bits).
pub(crate) const INSERT: u8 = 1;
/// UPDATE.
pub(crate) const UPDATE: u8 = 2;
/// DELETE.
pub(crate) const DELETE: u8 = 4;

/// The events a DML statement's written tables have: INSERT (REPLACE adds DELETE, `ON
/// DUPLICATE KEY UPDATE` adds UPDATE), UPDATE, DELETE.
pub(crate) fn events(s: &sqlparser::ast::Statement) -> u8 {
    use sqlparser::ast::Statement as S;
    match s {
        S::Insert(i) => {
            let mut e = INSERT;
            if i.replace_into {
                e |= DELETE;
            }
            if i.on.is_some() {
                e |= UPDATE;
            }
            e
        }
        S::Update(_) => UPDATE,
        S::Delete(_) => DELETE,
        _ => 0,
    }
}

fn fk_name_request(schema: &str, name: &str) -> Result<MdlRequest, SqlError> {
    // `collect_fk_names`: "foreign key names are case-insensitive", lowercased for MDL.
    let key = MdlKey::new(Namespace::ForeignKey, schema, &name.to_lowercase())?;
    Ok(MdlRequest::new(key, LockType::X, LockDuration::Statement))
}

/// A related table of a DDL: `ty` and its schema's IX, STATEMENT (`collect_fk_*`).
fn related(p: &mut Plan, t: &TableName, ty: LockType) -> Result<(), SqlError> {
    p.requests.push(t.request(ty, LockDuration::Statement)?);
    p.requests.push(schema_request(
        &t.schema,
        LockType::IX,
        LockDuration::Statement,
    )?);
    Ok(())
}

/// ALTER TABLE's X on a related table once the table itself is X: a new STATEMENT request,
/// as `collect_and_lock_fk_tables_for_complex_alter_table` makes (not an upgrade of the SU,
/// which would be TRANSACTION, as `MDL_context::upgrade_shared_lock` asks).
fn then_x(p: &mut Plan, t: &TableName) -> Result<(), SqlError> {
    p.after_upgrades
        .push(t.request(LockType::X, LockDuration::Statement)?);
    Ok(())
}

/// The name MySQL gives the `n`th unnamed foreign key of `table`, `<table>_ibfk_<n>`
/// (`generate_fk_name`, `sql/sql_table.cc`): the one definition the server's catalog and these
/// plans share. CREATE TABLE counts `n` from 1 whatever names are given, ALTER TABLE on from
/// [`generated_fk_number`]'s largest of the table's keys.
pub fn generated_fk_name(table: &str, n: u64) -> String {
    format!("{table}{GENERATED}{n}")
}

/// What joins a table's name and the number in [`generated_fk_name`].
const GENERATED: &str = "_ibfk_";

/// The number `n` of a generated name `<table>_ibfk_<n>` ([`generated_fk_name`]), as MySQL's
/// `get_fk_max_generated_name_number` (`sql/sql_table.cc`) reads it, case-insensitively:
/// digits only, not starting with `0`.
pub fn generated_fk_number(table: &str, name: &str) -> Option<u64> {
    let prefix = format!("{}{GENERATED}", table.to_lowercase());
    let rest = name.to_lowercase().strip_prefix(&prefix)?.to_string();
    if rest.starts_with('0') || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    rest.parse().ok()
}

/// The keys without a name an ALTER TABLE adds: their names count on from the table's
/// existing keys, which the caller's catalog has ([`Plan::add_foreign_keys`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unnamed {
    table: TableName,
    count: u64,
    /// The names the statement gives (added or dropped), lowercased: their locks stay.
    named: Vec<String>,
}

/// The keys `c` defines: (name, parent).
fn new_keys<'a>(
    constraints: impl Iterator<Item = &'a TableConstraint>,
    state: &SessionState,
) -> Result<Vec<(Option<String>, TableName)>, SqlError> {
    let mut out = Vec::new();
    for k in constraints {
        if let TableConstraint::ForeignKey(f) = k {
            let name = f.name.as_ref().map(|n| n.value.clone());
            out.push((name, resolve_object(&f.foreign_table, state)?));
        }
    }
    Ok(out)
}

/// CREATE TABLE `t` (not temporary, not under LOCK TABLES): the parents of its keys X, their
/// names X (see the module docs).
pub(super) fn create(
    p: &mut Plan,
    c: &CreateTable,
    t: &TableName,
    state: &SessionState,
) -> Result<(), SqlError> {
    let keys = new_keys(c.constraints.iter(), state)?;
    if keys.is_empty() || state.locked_tables.is_some() {
        return Ok(());
    }
    // `generate_fk_name`: `<table>_ibfk_<n>`, counting from 0 whatever names are given
    // (`mysql_create_table_no_lock` passes no pre-existing number; a given name equal to a
    // generated one is 1826, `prepare_foreign_key`).
    let mut n = 0;
    for (name, parent) in &keys {
        let name = name.clone().unwrap_or_else(|| {
            n += 1;
            generated_fk_name(&t.name.to_lowercase(), n)
        });
        p.requests.push(fk_name_request(&t.schema, &name)?);
        // A key to the table itself needs no other lock.
        if parent != t && !parent.is_lock_free() {
            related(p, parent, LockType::X)?;
        }
    }
    p.requests = order(std::mem::take(&mut p.requests));
    Ok(())
}

/// ALTER TABLE `t`: the parents of the keys it adds SU, then X; the names of the keys it adds
/// or drops X (unnamed ones counted from 0 here, from the table's keys by
/// [`Plan::add_foreign_keys`]).
pub(super) fn alter(
    p: &mut Plan,
    a: &AlterTable,
    t: &TableName,
    state: &SessionState,
) -> Result<(), SqlError> {
    if state.locked_tables.is_some() {
        return Ok(());
    }
    let added = (a.operations.iter()).filter_map(|op| match op {
        AlterTableOperation::AddConstraint { constraint, .. } => Some(constraint),
        _ => None,
    });
    let keys = new_keys(added, state)?;
    let mut named = Vec::new();
    let mut unnamed = 0;
    for (name, parent) in &keys {
        match name {
            Some(name) => {
                p.requests.push(fk_name_request(&t.schema, name)?);
                named.push(name.to_lowercase());
            }
            None => unnamed += 1,
        }
        if parent != t && !parent.is_lock_free() {
            related(p, parent, LockType::SU)?;
            then_x(p, parent)?;
        }
    }
    for op in &a.operations {
        if let AlterTableOperation::DropForeignKey { name, .. } = op {
            p.requests.push(fk_name_request(&t.schema, &name.value)?);
            named.push(name.value.to_lowercase());
        }
    }
    // `collect_fk_names_for_new_fks` with `get_fk_max_generated_name_number`: 0 without a
    // catalog (then the table has no key).
    for i in 1..=unnamed {
        let name = generated_fk_name(&t.name.to_lowercase(), i);
        p.requests.push(fk_name_request(&t.schema, &name)?);
    }
    if unnamed > 0 {
        p.fk_unnamed = Some(Box::new(Unnamed {
            table: t.clone(),
            count: unnamed,
            named,
        }));
    }
    if !keys.is_empty() || p.requests.iter().any(is_fk_name) {
        p.requests = order(std::mem::take(&mut p.requests));
        p.after_upgrades = order(std::mem::take(&mut p.after_upgrades));
    }
    Ok(())
}

fn is_fk_name(r: &MdlRequest) -> bool {
    r.key.namespace() == Namespace::ForeignKey
}

impl Plan {
    /// Adds the locks MySQL 8.0 takes on the tables related by foreign keys to those the
    /// statement writes or changes (the rules: the module docs of `plan/foreign_keys.rs`).
    /// `keys_of(table)` lists the keys of which `table` is the child or the parent, from the
    /// caller's catalog; it is asked only for the tables the rules need. A caller whose catalog
    /// has no foreign key need not call it.
    ///
    /// ```
    /// use mdl_sql::{parse, plan, FkRule, ForeignKeyLink, SessionState, TableName};
    /// let state = SessionState::in_schema("test");
    /// let (parent, child) = (TableName::new("test", "parent")?, TableName::new("test", "child")?);
    /// let key = ForeignKeyLink {
    ///     name: "child_ibfk_1".into(),
    ///     child: child.clone(),
    ///     parent: parent.clone(),
    ///     on_delete: FkRule::Cascade,
    ///     on_update: FkRule::Restrict,
    /// };
    /// let keys_of = |t: &TableName| {
    ///     if *t == parent || *t == child { vec![key.clone()] } else { vec![] }
    /// };
    /// let mut p = plan(&parse("INSERT INTO child VALUES (1, 1)")?[0], &state)?;
    /// p.add_foreign_keys(keys_of)?;
    /// assert_eq!(p.describe(), [
    ///     "GLOBAL IX STATEMENT",
    ///     "TABLE test.child SW TRANSACTION",
    ///     "TABLE test.parent SR TRANSACTION",
    /// ]);
    /// let mut p = plan(&parse("DELETE FROM parent WHERE id = 1")?[0], &state)?;
    /// p.add_foreign_keys(keys_of)?;
    /// assert_eq!(p.describe(), [
    ///     "GLOBAL IX STATEMENT",
    ///     "TABLE test.child SW TRANSACTION",
    ///     "TABLE test.parent SW TRANSACTION",
    /// ]);
    /// # Ok::<(), mdl_sql::SqlError>(())
    /// ```
    ///
    /// # Errors
    /// `ER_TOO_LONG_IDENT` for a name the caller gives over 64 characters.
    pub fn add_foreign_keys<F>(&mut self, mut keys_of: F) -> Result<(), SqlError>
    where
        F: FnMut(&TableName) -> Vec<ForeignKeyLink>,
    {
        let before = self.requests.len();
        let mut renamed = false;
        // The statement's own tables: a DDL's are TRANSACTION, the related ones STATEMENT.
        let tables = |p: &Plan, types: &[LockType]| -> Vec<TableName> {
            (p.requests.iter())
                .filter(|r| r.key.namespace() == Namespace::Table && types.contains(&r.lock_type))
                .filter(|r| r.duration != LockDuration::Statement)
                .map(|r| TableName {
                    schema: r.key.schema().to_string(),
                    name: r.key.name().to_string(),
                })
                .collect()
        };
        match self.kind {
            StatementKind::Insert | StatementKind::Update | StatementKind::Delete
                if self.fk_events != 0 =>
            {
                let written = tables(self, &[LockType::SW, LockType::SWLP]);
                let mut w = Prelock {
                    keys_of: &mut keys_of,
                    done: BTreeSet::new(),
                    read: LockType::SR,
                    write: LockType::SW,
                    duration: LockDuration::Transaction,
                    added: Vec::new(),
                };
                for t in &written {
                    w.visit(t, self.fk_events)?;
                }
                self.requests.extend(w.added);
            }
            StatementKind::LockTables => {
                let written = tables(self, &[LockType::SNRW]);
                let mut w = Prelock {
                    keys_of: &mut keys_of,
                    done: BTreeSet::new(),
                    read: LockType::SRO,
                    write: LockType::SNRW,
                    // As the locked tables' own: EXPLICIT once LOCK TABLES mode is entered.
                    duration: LockDuration::Transaction,
                    added: Vec::new(),
                };
                for t in &written {
                    w.visit(t, INSERT | UPDATE | DELETE)?;
                }
                self.requests.extend(w.added);
            }
            StatementKind::CreateTable => {
                for t in tables(self, &[LockType::S]) {
                    for k in keys_of(&t).iter().filter(|k| k.parent == t && k.child != t) {
                        related(self, &k.child, LockType::X)?;
                    }
                }
            }
            StatementKind::AlterTable => {
                for t in tables(self, &[LockType::SU]) {
                    let keys = keys_of(&t);
                    for k in &keys {
                        let other = if k.child == t { &k.parent } else { &k.child };
                        if *other == t {
                            continue;
                        }
                        related(self, other, LockType::SU)?;
                        // `collect_and_lock_fk_tables_for_complex_alter_table`: X on the
                        // children and on the parents of the keys dropped (named in the plan).
                        let dropped = k.child == t && {
                            let name = k.name.to_lowercase();
                            (self.requests.iter()).any(|r| is_fk_name(r) && r.key.name() == name)
                        };
                        if k.parent == t || dropped {
                            then_x(self, other)?;
                        }
                    }
                    renamed |= self.name_unnamed(&t, &keys)?;
                }
            }
            StatementKind::DropTable | StatementKind::DropSchema | StatementKind::RenameTable => {
                let own = tables(self, &[LockType::X]);
                for t in &own {
                    for k in keys_of(t) {
                        let other = if k.child == *t { &k.parent } else { &k.child };
                        if other != t && !own.contains(other) {
                            related(self, other, LockType::X)?;
                        }
                        if self.kind != StatementKind::RenameTable && k.child == *t {
                            let name = fk_name_request(&t.schema, &k.name)?;
                            self.requests.push(name);
                        }
                    }
                }
            }
            _ => {}
        }
        if self.requests.len() != before || renamed {
            self.requests = order(std::mem::take(&mut self.requests));
        }
        if !self.after_upgrades.is_empty() {
            self.after_upgrades = order(std::mem::take(&mut self.after_upgrades));
        }
        Ok(())
    }

    /// ALTER TABLE `t`'s unnamed new keys: `<t>_ibfk_<n>` with `n` on from the largest of
    /// `t`'s existing generated names (`get_fk_max_generated_name_number`), in place of the
    /// names [`alter`] counted from 0. Whether it changed them.
    fn name_unnamed(&mut self, t: &TableName, keys: &[ForeignKeyLink]) -> Result<bool, SqlError> {
        let Some(u) = self
            .fk_unnamed
            .as_deref()
            .filter(|u| u.table == *t)
            .cloned()
        else {
            return Ok(false);
        };
        let max = (keys.iter())
            .filter(|k| k.child == *t)
            .filter_map(|k| generated_fk_number(&t.name, &k.name))
            .max()
            .unwrap_or(0);
        if max == 0 {
            return Ok(false);
        }
        let name = |i: u64| generated_fk_name(&t.name.to_lowercase(), i);
        let counted: Vec<String> = (1..=u.count).map(name).collect();
        self.requests.retain(|r| {
            !(is_fk_name(r)
                && r.key.schema() == t.schema
                && counted.iter().any(|c| c == r.key.name())
                && !u.named.iter().any(|n| n == r.key.name()))
        });
        for i in 1..=u.count {
            self.requests
                .push(fk_name_request(&t.schema, &name(max + i))?);
        }
        Ok(true)
    }
}

/// The prelocking walk of a DML statement (or LOCK TABLES): a written table's parents and
/// children, and the children a rule writes in turn.
struct Prelock<'a, F> {
    keys_of: &'a mut F,
    /// Tables already walked with these events.
    done: BTreeSet<(TableName, u8)>,
    read: LockType,
    write: LockType,
    duration: LockDuration,
    added: Vec<MdlRequest>,
}

impl<F> Prelock<'_, F>
where
    F: FnMut(&TableName) -> Vec<ForeignKeyLink>,
{
    fn visit(&mut self, t: &TableName, events: u8) -> Result<(), SqlError> {
        if !self.done.insert((t.clone(), events)) {
            return Ok(());
        }
        for k in (self.keys_of)(t) {
            // A child written: its parents are read (the INSERT and UPDATE events).
            if k.child == *t && events & (INSERT | UPDATE) != 0 && k.parent != *t {
                self.added.push(k.parent.request(self.read, self.duration)?);
            }
            // A parent written: its children are read, or written by the rule.
            if k.parent == *t && events & (UPDATE | DELETE) != 0 {
                let mut child_events = 0;
                if events & DELETE != 0 && k.on_delete.modifies_child() {
                    child_events |= if k.on_delete == FkRule::Cascade {
                        DELETE
                    } else {
                        UPDATE
                    };
                }
                if events & UPDATE != 0 && k.on_update.modifies_child() {
                    child_events |= UPDATE;
                }
                let ty = if child_events != 0 {
                    self.write
                } else {
                    self.read
                };
                self.added.push(k.child.request(ty, self.duration)?);
                if child_events != 0 {
                    let child = k.child.clone();
                    self.visit(&child, child_events)?;
                }
            }
        }
        Ok(())
    }
}
