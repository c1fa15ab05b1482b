//! Table names: qualification with the current schema, the schemas that take no locks, and the
//! lock keys.
//!
//! * An unqualified name uses the session's current schema; with none, MySQL fails with
//!   `ER_NO_DB_ERROR` (1046) (`sql/sql_parse.cc`, `Query_block::add_table_to_list`, through
//!   `LEX::copy_db_to` and `THD::copy_db_to` in `sql/sql_class.h`).
//! * A schema or table name over 64 characters is `ER_TOO_LONG_IDENT` (1059)
//!   (`Query_block::add_table_to_list`, `check_and_convert_db_name`).
//! * Names are compared as written (MySQL on Linux with `lower_case_table_names=0`), or folded
//!   to lowercase with [`SessionState::lower_case_table_names`] (`=1`: MySQL folds the names
//!   of schemas and tables, `sql/sql_parse.cc` `Query_block::add_table_to_list` and
//!   `sql/sql_db.cc`; we fold ASCII letters, as SQLite compares them).
//! * `performance_schema`, `information_schema` and `sys` take no metadata locks in our server:
//!   their tables are views over the lock manager's and the instrumentation's state, which
//!   protect themselves. (In MySQL the first two are served without table locks as well:
//!   `open_table` skips the LOCK TABLES check for them, `belongs_to_p_s` and system views; `sys`
//!   is ordinary tables and views in MySQL.)

use std::borrow::Cow;
use std::fmt;

use mdl_core::{LockDuration, LockType, MdlKey, MdlRequest, Namespace, NAME_CHAR_LEN};
use sqlparser::ast::{Ident, ObjectName, ObjectNamePart};

use crate::error::SqlError;
use crate::plan::SessionState;

/// A table's schema-qualified name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableName {
    /// The schema (database).
    pub schema: String,
    /// The table.
    pub name: String,
}

impl TableName {
    /// `schema.name`, checked as MySQL checks names (64 characters each).
    ///
    /// # Errors
    /// `ER_TOO_LONG_IDENT` (1059).
    pub fn new(schema: &str, name: &str) -> Result<TableName, SqlError> {
        for part in [schema, name] {
            if part.chars().count() > NAME_CHAR_LEN {
                return Err(SqlError::too_long_ident(part));
            }
        }
        Ok(TableName {
            schema: schema.to_string(),
            name: name.to_string(),
        })
    }

    /// `name` in `schema`, or in `current` when unqualified.
    ///
    /// # Errors
    /// `ER_NO_DB_ERROR` (1046) for an unqualified name with no current schema, 1059.
    pub fn resolve(
        schema: Option<&str>,
        name: &str,
        current: Option<&str>,
    ) -> Result<TableName, SqlError> {
        let schema = schema.or(current).ok_or_else(SqlError::no_db)?;
        TableName::new(schema, name)
    }

    /// Whether the table is in a schema that takes no locks (`performance_schema`,
    /// `information_schema`, `sys`).
    pub fn is_lock_free(&self) -> bool {
        is_lock_free_schema(&self.schema)
    }

    /// The TABLE namespace key of this table.
    ///
    /// # Errors
    /// Those of [`MdlKey::new`] (a NUL byte in a name).
    pub fn key(&self) -> Result<MdlKey, SqlError> {
        Ok(MdlKey::new(Namespace::Table, &self.schema, &self.name)?)
    }

    /// A request for this table.
    pub(crate) fn request(
        &self,
        lock_type: LockType,
        duration: LockDuration,
    ) -> Result<MdlRequest, SqlError> {
        Ok(MdlRequest::new(self.key()?, lock_type, duration))
    }
}

impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.schema, self.name)
    }
}

/// Whether a schema's tables take no locks in our server.
pub fn is_lock_free_schema(schema: &str) -> bool {
    ["performance_schema", "information_schema", "sys"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(schema))
}

/// The identifiers of an object name (`db.t` -> `["db", "t"]`).
fn parts(name: &ObjectName) -> Result<Vec<&Ident>, SqlError> {
    name.0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => Ok(i),
            ObjectNamePart::Function(_) => Err(SqlError::not_supported(&name.to_string())),
        })
        .collect()
}

/// The (schema, table) of a one- or two-part object name.
pub(crate) fn split_name(name: &ObjectName) -> Result<(Option<String>, String), SqlError> {
    match parts(name)?.as_slice() {
        [t] => Ok((None, t.value.clone())),
        [s, t] => Ok((Some(s.value.clone()), t.value.clone())),
        _ => Err(SqlError::parse(&name.to_string(), 1)),
    }
}

/// A schema or table name as the session compares it: folded to lowercase (ASCII) under
/// `lower_case_table_names`, as written otherwise.
pub(crate) fn fold<'a>(name: &'a str, state: &SessionState) -> Cow<'a, str> {
    if state.lower_case_table_names && name.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(name.to_ascii_lowercase())
    } else {
        Cow::Borrowed(name)
    }
}

/// `table` in `schema`, or in the current schema, as the session compares names.
pub(crate) fn resolve_in(
    schema: Option<&str>,
    table: &str,
    state: &SessionState,
) -> Result<TableName, SqlError> {
    let schema = schema.map(|s| fold(s, state));
    let current = state.current_schema.as_deref().map(|s| fold(s, state));
    TableName::resolve(schema.as_deref(), &fold(table, state), current.as_deref())
}

/// A table named in the AST, resolved against the current schema.
pub(crate) fn resolve_object(
    name: &ObjectName,
    state: &SessionState,
) -> Result<TableName, SqlError> {
    let (schema, table) = split_name(name)?;
    resolve_in(schema.as_deref(), &table, state)
}

/// A schema name from the AST (CREATE / DROP DATABASE, USE), as the session compares names.
pub(crate) fn schema_name(name: &ObjectName, state: &SessionState) -> Result<String, SqlError> {
    match parts(name)?.as_slice() {
        [s] if s.value.chars().count() <= NAME_CHAR_LEN => Ok(fold(&s.value, state).into_owned()),
        [s] => Err(SqlError::too_long_ident(&s.value)),
        _ => Err(SqlError::parse(&name.to_string(), 1)),
    }
}

/// A request on a scoped singleton (GLOBAL, BACKUP_LOCK, COMMIT).
pub(crate) fn scoped(ns: Namespace, lock_type: LockType, duration: LockDuration) -> MdlRequest {
    let key = MdlKey::singleton(ns).expect("GLOBAL, BACKUP_LOCK and COMMIT are singletons");
    MdlRequest::new(key, lock_type, duration)
}

/// A request on a schema.
pub(crate) fn schema_request(
    schema: &str,
    lock_type: LockType,
    duration: LockDuration,
) -> Result<MdlRequest, SqlError> {
    Ok(MdlRequest::new(
        MdlKey::new(Namespace::Schema, schema, "")?,
        lock_type,
        duration,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Query_block::add_table_to_list` + `THD::copy_db_to`: 1046 without a current schema.
    #[test]
    fn resolution() {
        assert_eq!(
            TableName::resolve(None, "t", Some("test")).unwrap(),
            TableName::new("test", "t").unwrap()
        );
        assert_eq!(
            TableName::resolve(Some("d"), "t", None).unwrap().schema,
            "d"
        );
        assert_eq!(
            TableName::resolve(None, "t", None).unwrap_err().code(),
            1046
        );
        let long = "x".repeat(65);
        assert_eq!(TableName::new("d", &long).unwrap_err().code(), 1059);
        assert!(TableName::new("Performance_Schema", "x")
            .unwrap()
            .is_lock_free());
        assert!(!TableName::new("test", "sys").unwrap().is_lock_free());
    }
}
