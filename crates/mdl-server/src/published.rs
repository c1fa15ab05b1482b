//! What a connection shows other connections of its session state: its session variables
//! (`performance_schema.variables_by_thread`) and its `@` variables
//! (`user_variables_by_thread`, `pfs_views/by_thread.rs`).
//!
//! The values live in the connection's task (`mdl_sql::Session`, `SessionValues`), which no
//! other connection can read. So the task publishes a copy into its `ConnInfo` when they
//! change, and only then: after a `SET` (`Com_set_option`, whichever variables it names), after
//! a statement that assigned an `@` variable (`SELECT ... INTO @x`), at the connection's start
//! and at `COM_RESET_CONNECTION` / `COM_CHANGE_USER`. A statement that changes nothing of them
//! (a point select) publishes nothing: one test of a flag.
//!
//! `warning_count` and `error_count` change with every statement, so they are not published
//! (their rows are left out of `variables_by_thread`, see there).

use std::sync::Mutex;

use crate::admin::SessionVars;
use crate::connection::Connection;

/// A connection's published values (see the module docs).
#[derive(Debug, Default)]
pub struct Published {
    vars: Mutex<Option<SessionVars>>,
    /// `@name` (lowercased) and its value as text (`None`: NULL), by name.
    user_vars: Mutex<Vec<(String, Option<String>)>>,
}

impl Published {
    /// The session variables as last published (`None` before the connection's session
    /// exists: during its handshake).
    pub fn vars(&self) -> Option<SessionVars> {
        *self.vars.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The `@` variables as last published, by name.
    pub fn user_vars(&self) -> Vec<(String, Option<String>)> {
        (self.user_vars.lock().unwrap_or_else(|e| e.into_inner())).clone()
    }
}

impl Connection {
    /// Publishes the session's variables and `@` variables (see the module docs).
    pub(crate) fn publish(&mut self) {
        let p = &self.info.published;
        *p.vars.lock().unwrap_or_else(|e| e.into_inner()) = Some(self.vars());
        let mut user: Vec<(String, Option<String>)> = (self.values.user_vars.iter())
            .map(|(n, v)| (n.clone(), v.text()))
            .collect();
        user.sort();
        *p.user_vars.lock().unwrap_or_else(|e| e.into_inner()) = user;
        self.values.user_vars_changed = false;
    }
}
