//! One test per foreign-key rule (`plan/foreign_keys.rs`): statement text and the caller's
//! keys -> the lock requests MySQL 8.0 takes on the tables a foreign key relates. Each case
//! names the MySQL 8.0 function it checks.
//!
//! The catalog of these tests: `parent` <- `child` (`ON DELETE CASCADE`, `ON UPDATE RESTRICT`)
//! <- `grandchild` (`ON DELETE SET NULL`), and `parent` <- `audit` (`NO ACTION`).

mod common;

use common::*;
use mdl_sql::{describe_request, FkRule, ForeignKeyLink, Plan, SessionState, TableName};

fn t(name: &str) -> TableName {
    TableName::new("test", name).unwrap()
}

fn catalog() -> Vec<ForeignKeyLink> {
    let key = |name: &str, child: &str, parent: &str, on_delete, on_update| ForeignKeyLink {
        name: name.into(),
        child: t(child),
        parent: t(parent),
        on_delete,
        on_update,
    };
    vec![
        key(
            "child_ibfk_1",
            "child",
            "parent",
            FkRule::Cascade,
            FkRule::Restrict,
        ),
        key(
            "gc_fk",
            "grandchild",
            "child",
            FkRule::SetNull,
            FkRule::NoAction,
        ),
        key(
            "audit_ibfk_1",
            "audit",
            "parent",
            FkRule::NoAction,
            FkRule::NoAction,
        ),
    ]
}

/// The plan of `sql` with the catalog's keys added.
#[track_caller]
fn fk_locks_in(sql: &str, state: &SessionState, expected: &[&str]) -> Plan {
    let mut p = plan_of(sql, state).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let keys = catalog();
    p.add_foreign_keys(|table| {
        (keys.iter())
            .filter(|k| k.child == *table || k.parent == *table)
            .cloned()
            .collect()
    })
    .unwrap();
    assert_eq!(p.describe(), expected, "{sql}");
    p
}

#[track_caller]
fn fk_locks(sql: &str, expected: &[&str]) -> Plan {
    fk_locks_in(sql, &test_schema(), expected)
}

/// sql/sql_base.cc, `DML_prelocking_strategy::handle_table`: a child written by INSERT (or
/// UPDATE) prelocks each parent `TL_READ` (MDL_SHARED_READ) to check the key.
#[test]
fn insert_into_a_child_reads_its_parents() {
    fk_locks(
        "INSERT INTO grandchild VALUES (1, 1)",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.child SR TRANSACTION",
            "TABLE test.grandchild SW TRANSACTION",
        ],
    );
    // A table no key relates: nothing more.
    fk_locks(
        "INSERT INTO other VALUES (1)",
        &["GLOBAL IX STATEMENT", "TABLE test.other SW TRANSACTION"],
    );
}

/// `handle_table`: DELETE of a parent prelocks each child `TL_WRITE_ALLOW_WRITE` (SW) when the
/// rule changes it (`fk_modifies_child`: CASCADE, SET NULL, SET DEFAULT), `TL_READ` (SR) when
/// it only checks it; a child so written is prelocked in turn (its SET NULL child is written,
/// by UPDATE, which also reads its parents).
#[test]
fn delete_of_a_parent_writes_or_reads_its_children() {
    fk_locks(
        "DELETE FROM parent WHERE id = 1",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.audit SR TRANSACTION",
            "TABLE test.child SW TRANSACTION",
            "TABLE test.grandchild SW TRANSACTION",
            "TABLE test.parent SW TRANSACTION",
        ],
    );
}

/// `handle_table`: UPDATE is both: a parent's children per their ON UPDATE rule (RESTRICT:
/// read), the table's own parents read.
#[test]
fn update_reads_parents_and_children_by_rule() {
    fk_locks(
        "UPDATE parent SET id = 2 WHERE id = 1",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.audit SR TRANSACTION",
            "TABLE test.child SR TRANSACTION",
            "TABLE test.parent SW TRANSACTION",
        ],
    );
    fk_locks(
        "UPDATE child SET v = 1",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.child SW TRANSACTION",
            "TABLE test.grandchild SR TRANSACTION",
            "TABLE test.parent SR TRANSACTION",
        ],
    );
}

/// `handle_table`: with FOREIGN_KEY_CHECKS 0 a DML statement prelocks no related table; LOCK
/// TABLES still does ("the prelocking set will be used while in LTM mode, and F_K_C may be
/// turned on later").
#[test]
fn foreign_key_checks_off() {
    let mut state = test_schema();
    state.foreign_key_checks = false;
    fk_locks_in(
        "DELETE FROM parent WHERE id = 1",
        &state,
        &["GLOBAL IX STATEMENT", "TABLE test.parent SW TRANSACTION"],
    );
    fk_locks_in(
        "LOCK TABLES grandchild WRITE",
        &state,
        &[
            "GLOBAL IX STATEMENT",
            "SCHEMA test IX TRANSACTION",
            "TABLE test.child SRO TRANSACTION",
            "TABLE test.grandchild SNRW TRANSACTION",
        ],
    );
}

/// REPLACE is INSERT and DELETE (`trg_event_map`), so a parent's CASCADE child is written; a
/// SELECT ... FOR UPDATE writes nothing and prelocks nothing.
#[test]
fn replace_and_locking_reads() {
    fk_locks(
        "REPLACE INTO parent VALUES (1)",
        &[
            "GLOBAL IX STATEMENT",
            "TABLE test.audit SR TRANSACTION",
            "TABLE test.child SW TRANSACTION",
            "TABLE test.grandchild SW TRANSACTION",
            "TABLE test.parent SW TRANSACTION",
        ],
    );
    fk_locks(
        "SELECT * FROM parent FOR UPDATE",
        &["GLOBAL IX STATEMENT", "TABLE test.parent SW TRANSACTION"],
    );
}

/// The manual's "Foreign Key Locking": LOCK TABLES t WRITE takes SRO (LOCK TABLES READ) on the
/// related tables it checks and SNRW (LOCK TABLES WRITE) on those a cascade writes; READ
/// takes none.
#[test]
fn lock_tables_locks_related_tables() {
    fk_locks(
        "LOCK TABLES child WRITE",
        &[
            "GLOBAL IX STATEMENT",
            "SCHEMA test IX TRANSACTION",
            "TABLE test.child SNRW TRANSACTION",
            "TABLE test.grandchild SNRW TRANSACTION",
            "TABLE test.parent SRO TRANSACTION",
        ],
    );
    fk_locks(
        "LOCK TABLES child READ",
        &["TABLE test.child SRO TRANSACTION"],
    );
}

/// sql/sql_table.cc, `rm_table_do_discovery_and_lock_fk_tables`: DROP TABLE takes X on the
/// parents (`collect_fk_parents_for_all_fks`) and children (`collect_fk_children`) with their
/// schemas' IX, and X on the names of the table's keys (`collect_fk_names`), all STATEMENT.
#[test]
fn drop_table_locks_parents_children_and_key_names() {
    fk_locks(
        "DROP TABLE child",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "SCHEMA test IX STATEMENT",
            "TABLE test.child X TRANSACTION",
            "TABLE test.grandchild X STATEMENT",
            "TABLE test.parent X STATEMENT",
            "FOREIGN KEY test.child_ibfk_1 X STATEMENT",
        ],
    );
    // Dropped together: each is the statement's own.
    fk_locks(
        "DROP TABLE grandchild, child",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "SCHEMA test IX STATEMENT",
            "TABLE test.child X TRANSACTION",
            "TABLE test.grandchild X TRANSACTION",
            "TABLE test.parent X STATEMENT",
            "FOREIGN KEY test.child_ibfk_1 X STATEMENT",
            "FOREIGN KEY test.gc_fk X STATEMENT",
        ],
    );
}

/// `mysql_alter_table`: SU on the parents of the table's keys and of those it adds
/// (`collect_fk_parents_for_all_fks`, `collect_fk_parents_for_new_fks`) and on its children
/// (`collect_fk_children`); X on the names of keys it drops (`collect_fk_names_for_dropped_fks`)
/// and adds. Once the table is X (`wait_while_table_is_used`),
/// `collect_and_lock_fk_tables_for_complex_alter_table` takes X (STATEMENT, new requests) on
/// its children and on the parents of the keys it adds or drops, not on its other parents.
#[test]
fn alter_table_locks_related_tables_su_then_x() {
    let p = fk_locks(
        "ALTER TABLE child ADD COLUMN x INT",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "SCHEMA test IX STATEMENT",
            "TABLE test.child SU TRANSACTION",
            "TABLE test.grandchild SU STATEMENT",
            "TABLE test.parent SU STATEMENT",
        ],
    );
    let upgraded: Vec<String> = p
        .upgrades
        .iter()
        .map(|u| u.key.name().to_string())
        .collect();
    assert_eq!(upgraded, ["child"]);
    let after: Vec<String> = p.after_upgrades.iter().map(describe_request).collect();
    assert_eq!(after, ["TABLE test.grandchild X STATEMENT"]);
    // Dropping its key to `parent`: `parent` too (`collect_fk_parents_for_dropped_fks`).
    let p = fk_locks(
        "ALTER TABLE child DROP FOREIGN KEY child_ibfk_1",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "SCHEMA test IX STATEMENT",
            "TABLE test.child SU TRANSACTION",
            "TABLE test.grandchild SU STATEMENT",
            "TABLE test.parent SU STATEMENT",
            "FOREIGN KEY test.child_ibfk_1 X STATEMENT",
        ],
    );
    let after: Vec<String> = p.after_upgrades.iter().map(describe_request).collect();
    assert_eq!(
        after,
        [
            "TABLE test.grandchild X STATEMENT",
            "TABLE test.parent X STATEMENT"
        ]
    );
    let p = fk_locks(
        "ALTER TABLE other ADD CONSTRAINT o_fk FOREIGN KEY (p) REFERENCES parent (id), \
         DROP FOREIGN KEY old_fk",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "SCHEMA test IX STATEMENT",
            "TABLE test.other SU TRANSACTION",
            "TABLE test.parent SU STATEMENT",
            "FOREIGN KEY test.o_fk X STATEMENT",
            "FOREIGN KEY test.old_fk X STATEMENT",
        ],
    );
    assert_eq!(p.upgrades.len(), 1);
    assert_eq!(p.after_upgrades.len(), 1);
}

/// `collect_fk_names_for_new_fks` with `get_fk_max_generated_name_number`: an unnamed key an
/// ALTER TABLE adds is `<table>_ibfk_<n>`, `n` one more than the largest of the table's
/// existing generated names (names the statement gives do not count; nor does `_ibfk_0...`).
#[test]
fn alter_table_names_unnamed_keys_on_from_the_tables_keys() {
    // `child` has `child_ibfk_1`: the new keys are 2 and 3.
    fk_locks(
        "ALTER TABLE child ADD FOREIGN KEY (a) REFERENCES child (id), \
         ADD CONSTRAINT child_ibfk_7 FOREIGN KEY (b) REFERENCES child (id), \
         ADD FOREIGN KEY (c) REFERENCES child (id)",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "SCHEMA test IX STATEMENT",
            "TABLE test.child SU TRANSACTION",
            "TABLE test.grandchild SU STATEMENT",
            "TABLE test.parent SU STATEMENT",
            "FOREIGN KEY test.child_ibfk_2 X STATEMENT",
            "FOREIGN KEY test.child_ibfk_3 X STATEMENT",
            "FOREIGN KEY test.child_ibfk_7 X STATEMENT",
        ],
    );
    // Dropping the old one while adding: it still counts, and its name stays locked.
    fk_locks(
        "ALTER TABLE child DROP FOREIGN KEY child_ibfk_1, \
         ADD FOREIGN KEY (a) REFERENCES child (id)",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "SCHEMA test IX STATEMENT",
            "TABLE test.child SU TRANSACTION",
            "TABLE test.grandchild SU STATEMENT",
            "TABLE test.parent SU STATEMENT",
            "FOREIGN KEY test.child_ibfk_1 X STATEMENT",
            "FOREIGN KEY test.child_ibfk_2 X STATEMENT",
        ],
    );
    // Without a catalog (no key anywhere): from 1.
    locks(
        "ALTER TABLE t ADD FOREIGN KEY (a) REFERENCES t (id)",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "TABLE test.t SU TRANSACTION",
            "FOREIGN KEY test.t_ibfk_1 X STATEMENT",
        ],
    );
}

/// `mysql_rm_db` (sql/sql_db.cc) -> `rm_table_do_discovery_and_lock_fk_tables`, as DROP
/// TABLE of each table of the schema: X on the names of their keys; related tables of the
/// schema are its own (X TRANSACTION already).
#[test]
fn drop_database_locks_the_names_of_its_keys() {
    let mut p = plan_of("DROP DATABASE test", &test_schema()).unwrap();
    p.add_tables_of_schema(&["audit", "child", "grandchild", "parent"])
        .unwrap();
    let keys = catalog();
    p.add_foreign_keys(|table| {
        (keys.iter())
            .filter(|k| k.child == *table || k.parent == *table)
            .cloned()
            .collect()
    })
    .unwrap();
    assert_eq!(
        p.describe(),
        [
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test X TRANSACTION",
            "TABLE test.audit X TRANSACTION",
            "TABLE test.child X TRANSACTION",
            "TABLE test.grandchild X TRANSACTION",
            "TABLE test.parent X TRANSACTION",
            "FOREIGN KEY test.audit_ibfk_1 X STATEMENT",
            "FOREIGN KEY test.child_ibfk_1 X STATEMENT",
            "FOREIGN KEY test.gc_fk X STATEMENT",
        ]
    );
}

/// A key to a table of another schema: DROP DATABASE of either side locks the other side's
/// table X with its schema's IX (`collect_fk_parents_for_all_fks`, `collect_fk_children`).
#[test]
fn drop_database_locks_related_tables_of_other_schemas() {
    let (child, parent) = (
        TableName::new("shop", "orders").unwrap(),
        TableName::new("crm", "customers").unwrap(),
    );
    let key = ForeignKeyLink {
        name: "orders_ibfk_1".into(),
        child: child.clone(),
        parent: parent.clone(),
        on_delete: FkRule::NoAction,
        on_update: FkRule::NoAction,
    };
    let keys_of = |t: &TableName| {
        if *t == child || *t == parent {
            vec![key.clone()]
        } else {
            vec![]
        }
    };
    let mut p = plan_of("DROP DATABASE crm", &test_schema()).unwrap();
    p.add_tables_of_schema(&["customers"]).unwrap();
    p.add_foreign_keys(keys_of).unwrap();
    assert_eq!(
        p.describe(),
        [
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA crm X TRANSACTION",
            "SCHEMA shop IX STATEMENT",
            "TABLE crm.customers X TRANSACTION",
            "TABLE shop.orders X STATEMENT",
        ]
    );
    let mut p = plan_of("DROP DATABASE shop", &test_schema()).unwrap();
    p.add_tables_of_schema(&["orders"]).unwrap();
    p.add_foreign_keys(keys_of).unwrap();
    assert_eq!(
        p.describe(),
        [
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA crm IX STATEMENT",
            "SCHEMA shop X TRANSACTION",
            "TABLE crm.customers X STATEMENT",
            "TABLE shop.orders X TRANSACTION",
            "FOREIGN KEY shop.orders_ibfk_1 X STATEMENT",
        ]
    );
}

/// `Sql_cmd_truncate_table::truncate_base` (sql/sql_truncate.cc): the table alone, X; its
/// related tables are not locked (no `trg_event_map`, so no foreign-key prelocking).
#[test]
fn truncate_locks_no_related_table() {
    for t in ["parent", "child"] {
        fk_locks(
            &format!("TRUNCATE TABLE {t}"),
            &[
                "GLOBAL IX STATEMENT",
                "BACKUP LOCK IX TRANSACTION",
                "SCHEMA test IX TRANSACTION",
                &format!("TABLE test.{t} X TRANSACTION"),
            ],
        );
    }
}

/// `mysql_create_table`: X on the parents of the new keys (`collect_fk_parents_for_new_fks`),
/// on tables whose keys already name the new table (`collect_fk_children`: orphans made with
/// `foreign_key_checks=0`), and on the new keys' names (`collect_fk_names_for_new_fks` with no
/// pre-existing number; unnamed: `generate_fk_name`'s `<table>_ibfk_<n>`, counting from 1
/// whatever names are given). These come from the statement's text, without a catalog.
#[test]
fn create_table_locks_parents_and_key_names() {
    let expected = [
        "GLOBAL IX STATEMENT",
        "BACKUP LOCK IX TRANSACTION",
        "SCHEMA test IX TRANSACTION",
        "SCHEMA test IX STATEMENT",
        "TABLE test.parent X STATEMENT",
        "TABLE test.t2 S TRANSACTION",
        "FOREIGN KEY test.t2_ibfk_1 X STATEMENT",
        "FOREIGN KEY test.t2_ibfk_2 X STATEMENT",
        "FOREIGN KEY test.t2_ibfk_3 X STATEMENT",
    ];
    let sql = "CREATE TABLE t2 (a INT, b INT, c INT, FOREIGN KEY (a) REFERENCES parent (id), \
               CONSTRAINT T2_ibfk_3 FOREIGN KEY (b) REFERENCES t2 (a), \
               FOREIGN KEY (c) REFERENCES parent (id))";
    locks(sql, &expected);
    // The catalog adds the orphans that name the new table: `child` references `parent`.
    fk_locks(
        "CREATE TABLE parent (id INT PRIMARY KEY)",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "SCHEMA test IX STATEMENT",
            "TABLE test.audit X STATEMENT",
            "TABLE test.child X STATEMENT",
            "TABLE test.parent S TRANSACTION",
        ],
    );
}

/// `collect_and_lock_fk_tables_for_rename_table` (sql/sql_rename.cc): X on the parents and
/// children of the renamed table, and on the tables whose keys name the new name.
#[test]
fn rename_table_locks_related_tables() {
    fk_locks(
        "RENAME TABLE child TO kid",
        &[
            "GLOBAL IX STATEMENT",
            "BACKUP LOCK IX TRANSACTION",
            "SCHEMA test IX TRANSACTION",
            "SCHEMA test IX STATEMENT",
            "TABLE test.child X TRANSACTION",
            "TABLE test.grandchild X STATEMENT",
            "TABLE test.kid X TRANSACTION",
            "TABLE test.parent X STATEMENT",
        ],
    );
}

/// Under LOCK TABLES a DML takes no new lock (`open_table`'s locked-tables branch), so the
/// keys add none either.
#[test]
fn nothing_under_lock_tables() {
    let mut state = test_schema();
    state.locked_tables = Some(vec![mdl_sql::LockedTable {
        table: t("child"),
        alias: "child".into(),
        mode: mdl_sql::TableLockMode::Write,
    }]);
    fk_locks_in("INSERT INTO child VALUES (1, 1)", &state, &[]);
}
