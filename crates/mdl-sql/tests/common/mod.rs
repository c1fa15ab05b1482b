//! Helpers of the rule tests (`rules_dml.rs`, `rules_ddl.rs`).
#![allow(dead_code)]

use mdl_sql::{
    parse_prepared, plan, LockedTable, Plan, SessionState, SqlError, TableLockMode, TableName,
};

/// The plan of `sql` in `state`.
/// The plan of `sql`, parsed as text to prepare: sysbench's statements have `?` markers.
pub fn plan_of(sql: &str, state: &SessionState) -> Result<Plan, SqlError> {
    let parsed = parse_prepared(sql)?;
    assert_eq!(parsed.len(), 1, "{sql}");
    plan(&parsed[0], state)
}

pub fn test_schema() -> SessionState {
    SessionState::in_schema("test")
}

/// Checks `sql`'s requests in the `test` schema.
#[track_caller]
pub fn locks(sql: &str, expected: &[&str]) -> Plan {
    locks_in(sql, &test_schema(), expected)
}

#[track_caller]
pub fn locks_in(sql: &str, state: &SessionState, expected: &[&str]) -> Plan {
    let p = plan_of(sql, state).unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(p.describe(), expected, "{sql}");
    p
}

#[track_caller]
pub fn error_in(sql: &str, state: &SessionState, code: u16) {
    match plan_of(sql, state) {
        Ok(p) => panic!("{sql}: expected error {code}, got {p}"),
        Err(e) => assert_eq!(e.code(), code, "{sql}: {e}"),
    }
}

pub fn locked(tables: &[(&str, &str, TableLockMode)]) -> SessionState {
    let mut s = test_schema();
    s.locked_tables = Some(
        tables
            .iter()
            .map(|&(name, alias, mode)| LockedTable {
                table: TableName::new("test", name).unwrap(),
                alias: alias.to_string(),
                mode,
            })
            .collect(),
    );
    s
}
