//! `sys.version` and `sys.metrics`: MySQL 8.0 sys schema's views of the server itself
//! (`scripts/sys_schema/views/version.sql`, `views/p_s/metrics.sql`), computed by SQLite when
//! a statement reads them, so `WHERE`, `ORDER BY` and `LIMIT` work as on any snapshot.
//!
//! * `sys.version`: one row, `sys_version` the sys schema version MySQL 8.0 ships (`2.1.2`),
//!   `mysql_version` the server's `@@version` (`admin::VERSION`).
//! * `sys.metrics`: MySQL's union, ordered as its by `Type`, then `Variable_name`:
//!   - every row of `performance_schema.global_status` (the server's `SHOW GLOBAL STATUS`),
//!     the name lower-cased, `Type` `Global Status`, `Enabled` `YES`;
//!   - no `InnoDB Metrics - ...` rows: they come from `information_schema.INNODB_METRICS`,
//!     and this server has no InnoDB (nor that table);
//!   - `memory_current_allocated` and `memory_total_allocated`, `Type` `Performance Schema`:
//!     MySQL sums `memory_summary_global_by_event_name` and says `YES`, `PARTIAL` or `NO` by
//!     how many `memory/%` instruments are enabled. This server instruments no memory (no
//!     `memory/%` instrument, no memory summary), so the value is NULL and `Enabled` `NO`:
//!     what MySQL's SQL gives over an empty summary and no enabled memory instrument;
//!   - `NOW()` and `UNIX_TIMESTAMP()`, `Type` `System Time`: the statement's start as
//!     `NOW(3)` (session time zone) and `ROUND(UNIX_TIMESTAMP(NOW(3)), 3)`.
//!
//!   Its column types are those MySQL 8.0's `DESC sys.metrics` shows (the sys schema's
//!   README): `varchar(193)`, `text`, `varchar(210)`, `varchar(7) NOT NULL`.

use super::columns::Def;
use super::Sources;
use crate::engine::EngineConn;
use crate::error::ServerError;

/// The views, as `sys` names them.
pub(super) const VIEWS: [&str; 2] = ["metrics", "version"];

/// The sys schema version of MySQL 8.0 (`views/version.sql`).
const SYS_VERSION: &str = "2.1.2";

/// `sys.version`'s columns: two literals, as MySQL types them (`VERSION()` is as long as the
/// server's version).
const VERSION: [Def; 2] = [
    ("sys_version", "varchar(5) NOT NULL"),
    ("mysql_version", "varchar(10) NOT NULL"),
];

/// `sys.metrics`' columns (see the module docs).
const METRICS: [Def; 4] = [
    ("Variable_name", "varchar(193)"),
    ("Variable_value", "text"),
    ("Type", "varchar(210)"),
    ("Enabled", "varchar(7) NOT NULL"),
];

/// `sys.metrics`' rows over a fresh `global_status` (see the module docs).
const METRICS_ROWS: &str = "
INSERT INTO sys.metrics
SELECT * FROM (
  SELECT lower(VARIABLE_NAME) AS n, VARIABLE_VALUE AS v, 'Global Status' AS t, 'YES' AS e
  FROM performance_schema.global_status
  UNION ALL SELECT 'memory_current_allocated', NULL, 'Performance Schema', 'NO'
  UNION ALL SELECT 'memory_total_allocated', NULL, 'Performance Schema', 'NO'
  UNION ALL SELECT 'NOW()', NOW(3), 'System Time', 'YES'
  UNION ALL SELECT 'UNIX_TIMESTAMP()', round(UNIX_TIMESTAMP(NOW(3)), 3), 'System Time', 'YES'
) ORDER BY t, n;";

/// The columns of `view`, one of [`VIEWS`].
pub(super) fn defs(view: &str) -> Vec<Def> {
    match view {
        "version" => VERSION.to_vec(),
        _ => METRICS.to_vec(),
    }
}

/// Fills `sys.<view>`, one of [`VIEWS`] (`metrics` from a fresh `global_status`).
pub(super) fn refresh(
    db: &mut EngineConn,
    view: &str,
    src: &Sources<'_>,
) -> Result<(), ServerError> {
    let cols = (defs(view).iter())
        .map(|(name, ty)| format!("`{name}` {ty}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut sql = format!("DROP TABLE IF EXISTS sys.`{view}`; CREATE TABLE sys.`{view}` ({cols});");
    if view == "version" {
        let v = crate::admin::VERSION.replace('\'', "''");
        sql.push_str(&format!(
            "INSERT INTO sys.version VALUES ('{SYS_VERSION}', '{v}');"
        ));
    } else {
        super::fill(db, "global_status", src)?;
        sql.push_str(METRICS_ROWS);
    }
    super::wrap(db, &sql)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_columns_are_mysqls() {
        assert_eq!(super::defs("version")[1].0, "mysql_version");
        let width = format!("varchar({})", crate::admin::VERSION.len());
        assert_eq!(super::VERSION[1].1, format!("{width} NOT NULL"));
        let names: Vec<&str> = super::defs("metrics").iter().map(|d| d.0).collect();
        assert_eq!(
            names,
            ["Variable_name", "Variable_value", "Type", "Enabled"]
        );
    }
}
