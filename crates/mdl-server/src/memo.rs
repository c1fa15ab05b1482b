//! What a prepared statement keeps between executions.
//!
//! A statement's lock plan (`mdl_sql::plan`) is a pure function of the statement and the
//! session's state, and its SQLite rewrite (`rewrite.rs`) one of the statement and the current
//! schema unless it read more of the session (`Rewritten::read_session`: a variable,
//! `CONNECTION_ID()`, a user-level lock's value). Each is kept with the input it was computed
//! from and reused while that input is unchanged, so an execution of sysbench's prepared point
//! select neither plans nor rewrites (nor deep-clones sqlparser's AST) again. Errors are not
//! kept: a statement that failed to plan or rewrite tries again, as a text query would.

use std::sync::Arc;

use mdl_sql::{Parsed, Plan, SessionState, SqlError};

use crate::rewrite::Rewritten;

/// What an INSERT's values were read against: its schema's SQLite schema version (an INSERT
/// ... SELECT's: the server's DDL epoch, `execute/insert_select.rs`), the session's `sql_mode`.
pub(crate) type ResolvedKey = (i64, crate::sql_mode::SqlMode);

/// The last plan and rewrite of one prepared statement, with what they were computed from.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    plan: Option<(SessionState, Arc<Plan>)>,
    rewrite: Option<(Option<String>, Arc<Rewritten>)>,
    /// An INSERT's rewrite with its values read against its table (`execute/insert_values.rs`;
    /// `None`: the same as the rewrite), made from that rewrite at that SQLite schema version
    /// of the table's schema (which any change of a table there moves) and `sql_mode`.
    resolved: Option<(Arc<Rewritten>, ResolvedKey, Option<Arc<Rewritten>>)>,
}

impl Memo {
    /// The plan of `p` in `state`: the kept one if it was made in an equal state.
    pub fn plan(&mut self, p: &Parsed, state: &SessionState) -> Result<Arc<Plan>, SqlError> {
        if let Some((s, plan)) = &self.plan {
            if s == state {
                return Ok(plan.clone());
            }
        }
        let plan = Arc::new(mdl_sql::plan(p, state)?);
        self.plan = Some((state.clone(), plan.clone()));
        Ok(plan)
    }

    /// The kept rewrite, if it was made in `schema`.
    pub fn rewrite_in(&self, schema: Option<&str>) -> Option<Arc<Rewritten>> {
        let (s, rw) = self.rewrite.as_ref()?;
        (s.as_deref() == schema).then(|| rw.clone())
    }

    /// Keeps `rw`, made in `schema`, unless it read more of the session than the schema.
    pub fn keep_rewrite(&mut self, schema: Option<&str>, rw: &Arc<Rewritten>) {
        if !rw.read_session {
            rw.scans.keep(); // its executions may skip SQLite's counters (`plan_scans.rs`)
        }
        self.rewrite = (!rw.read_session).then(|| (schema.map(str::to_string), rw.clone()));
    }

    /// The kept INSERT rewrite made from `base` at `version`, if any.
    pub fn resolved(
        &self,
        base: &Arc<Rewritten>,
        version: ResolvedKey,
    ) -> Option<Option<Arc<Rewritten>>> {
        let (b, v, r) = self.resolved.as_ref()?;
        (Arc::ptr_eq(b, base) && *v == version).then(|| r.clone())
    }

    /// Keeps `resolved`, made from `base` at `version`.
    pub fn keep_resolved(
        &mut self,
        base: &Arc<Rewritten>,
        version: ResolvedKey,
        resolved: Option<Arc<Rewritten>>,
    ) {
        self.resolved = Some((base.clone(), version, resolved));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(sql: &str) -> Parsed {
        mdl_sql::parse_prepared(sql).unwrap().remove(0)
    }

    #[test]
    fn a_plan_is_reused_in_an_equal_state_and_remade_in_another() {
        let p = parsed("SELECT c FROM t1 WHERE id = ?");
        let mut m = Memo::default();
        let a = m.plan(&p, &SessionState::in_schema("s1")).unwrap();
        let b = m.plan(&p, &SessionState::in_schema("s1")).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let c = m.plan(&p, &SessionState::in_schema("s2")).unwrap();
        assert_eq!(c.describe(), ["TABLE s2.t1 SR TRANSACTION"]);
        let mut autocommit_off = SessionState::in_schema("s2");
        autocommit_off.autocommit = false;
        let d = m.plan(&p, &autocommit_off).unwrap();
        assert!(!Arc::ptr_eq(&c, &d));
    }

    #[test]
    fn a_rewrite_that_read_the_session_is_not_kept() {
        let mut m = Memo::default();
        let pure = Arc::new(Rewritten {
            sql: vec!["SELECT 1".into()],
            ..Rewritten::default()
        });
        m.keep_rewrite(Some("s"), &pure);
        assert!(Arc::ptr_eq(&m.rewrite_in(Some("s")).unwrap(), &pure));
        assert!(m.rewrite_in(None).is_none());
        let read = Arc::new(Rewritten {
            read_session: true,
            ..Rewritten::default()
        });
        m.keep_rewrite(None, &read);
        assert!(m.rewrite_in(None).is_none());
        assert!(m.rewrite_in(Some("s")).is_none());
    }

    #[test]
    fn an_insert_read_against_its_table_is_kept_for_its_rewrite_and_schema_version() {
        let mut m = Memo::default();
        let (base, other) = (
            Arc::new(Rewritten::default()),
            Arc::new(Rewritten::default()),
        );
        let resolved = Arc::new(Rewritten::default());
        let at = |v| (v, crate::sql_mode::SqlMode::default());
        m.keep_resolved(&base, at(7), Some(resolved.clone()));
        let kept = m.resolved(&base, at(7)).unwrap().unwrap();
        assert!(Arc::ptr_eq(&kept, &resolved));
        assert!(m.resolved(&base, at(8)).is_none());
        assert!(m.resolved(&other, at(7)).is_none());
        let zero_kept = crate::sql_mode::SqlMode {
            no_auto_value_on_zero: true,
        };
        assert!(m.resolved(&base, (7, zero_kept)).is_none());
        m.keep_resolved(&base, at(8), None);
        assert_eq!(m.resolved(&base, at(8)).map(|r| r.is_none()), Some(true));
    }
}
