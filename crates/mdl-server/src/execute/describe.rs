//! A prepared statement's description at `COM_STMT_PREPARE`: its parameter count, and the
//! columns of a statement that returns rows, read from the engine's own preparation (of
//! all but an INSERT or UPDATE with a `DEFAULT` value, whose `?` are counted in its text).

use sqlparser::ast::Statement;

use mdl_sql::Parsed;

use crate::connection::Connection;
use crate::error::ServerError;

impl Connection {
    /// A prepared statement's parameter count and column names.
    pub(crate) fn describe(&mut self, p: &Parsed) -> Result<(usize, Vec<String>), ServerError> {
        let mdl_sql::Statement::Sql { statement, .. } = &p.statement else {
            return Ok((0, Vec::new()));
        };
        let rw = self.rewrite_with(statement, p)?;
        if !matches!(
            **statement,
            Statement::Query(_)
                | Statement::Insert(_)
                | Statement::Update(_)
                | Statement::Delete(_)
        ) {
            return Ok((placeholders(statement), Vec::new()));
        }
        // A `DEFAULT` value is spelt for SQLite only under the statement's locks, with its
        // table read (`default_values.rs`): such an INSERT or UPDATE returns no rows, and its
        // `?` are the statement's own.
        if !matches!(**statement, Statement::Query(_)) && super::default_values::mentioned(&p.text)
        {
            return Ok((placeholders(statement), Vec::new()));
        }
        self.db.refresh();
        self.refresh_views(&rw.tables)?;
        let sql = rw.sql.first().cloned().unwrap_or_default();
        let stmt = self
            .db
            .db()
            .prepare_cached(&sql)
            .map_err(|e| ServerError::from_engine(&e, None))?;
        let cols = stmt.column_names().iter().map(|c| c.to_string()).collect();
        Ok((stmt.parameter_count(), cols))
    }
}

fn placeholders(s: &Statement) -> usize {
    use sqlparser::ast::{Value as V, Visit, Visitor};
    struct Count(usize);
    impl Visitor for Count {
        type Break = ();
        fn pre_visit_value(
            &mut self,
            v: &sqlparser::ast::ValueWithSpan,
        ) -> std::ops::ControlFlow<()> {
            if matches!(v.value, V::Placeholder(_)) {
                self.0 += 1;
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut c = Count(0);
    let _ = s.visit(&mut c);
    c.0
}
