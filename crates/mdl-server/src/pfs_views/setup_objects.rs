//! `performance_schema.setup_objects`: MySQL 8.0's default rows (manual, "The setup_objects
//! Table"; `storage/perfschema/pfs_defaults.cc`, `install_default_setup`): for each object
//! type, the `mysql`, `performance_schema` and `information_schema` schemas not monitored and
//! every other object monitored and timed. Its columns are `table_setup_objects.cc`'s.
//!
//! In MySQL the rows filter the table I/O and table lock waits (`wait/io/table/%`,
//! `wait/lock/table/%`) and the stored program statements of the objects they match. This
//! server has none of those instruments (and no stored programs), so no row could change what
//! it records: the table is read-only here. MySQL lets `INSERT`, `UPDATE` and `DELETE` edit it
//! (`TRUNCATE TABLE` empties it); here each is refused with 1142, MySQL's error for a
//! Performance Schema table that takes no writes (`pfs_readonly_acl`), so a script that tunes
//! it learns the change did not happen instead of believing it did (`write.rs`).

use rusqlite::types::Value;

use super::columns::Def;
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The table's name.
pub(super) const TABLE: &str = "setup_objects";

/// `table_setup_objects.cc` (8.0).
pub(super) const COLUMNS: [Def; 5] = [
    (
        "OBJECT_TYPE",
        "enum('EVENT','FUNCTION','PROCEDURE','TABLE','TRIGGER') NOT NULL DEFAULT 'TABLE'",
    ),
    ("OBJECT_SCHEMA", "varchar(64) DEFAULT '%'"),
    ("OBJECT_NAME", "varchar(64) NOT NULL DEFAULT '%'"),
    ("ENABLED", "enum('YES','NO') NOT NULL DEFAULT 'YES'"),
    ("TIMED", "enum('YES','NO') NOT NULL DEFAULT 'YES'"),
];

/// The object types, in the manual's order.
const TYPES: [&str; 5] = ["EVENT", "FUNCTION", "PROCEDURE", "TABLE", "TRIGGER"];

/// The schemas of each type's rows, with whether they are monitored.
const SCHEMAS: [(&str, bool); 4] = [
    ("mysql", false),
    ("performance_schema", false),
    ("information_schema", false),
    ("%", true),
];

/// The default rows, in the manual's order.
fn rows() -> Vec<Vec<Value>> {
    let text = |s: &str| Value::Text(s.to_string());
    let yes_no = |on: bool| text(if on { "YES" } else { "NO" });
    (TYPES.iter())
        .flat_map(|t| {
            (SCHEMAS.iter()).map(move |&(schema, on)| {
                vec![text(t), text(schema), text("%"), yes_no(on), yes_no(on)]
            })
        })
        .collect()
}

/// Fills `performance_schema.setup_objects`.
pub(super) fn fill(db: &mut EngineConn) -> Result<(), ServerError> {
    super::copy(db, TABLE, &COLUMNS, rows())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_defaults_are_mysqls_twenty_rows() {
        let rows = super::rows();
        assert_eq!(rows.len(), 20);
        assert!(rows.iter().all(|r| r.len() == super::COLUMNS.len()));
        let t = |s: &str| rusqlite::types::Value::Text(s.into());
        assert_eq!(rows[3], [t("EVENT"), t("%"), t("%"), t("YES"), t("YES")]);
        assert_eq!(rows[13][1], t("performance_schema"));
        assert_eq!(rows[13][3], t("NO"));
    }
}
