//! Table names: qualification with the current schema, the schemas that take no locks, and the
//! lock keys.
//!
//! * An unqualified name uses the session's current schema; with none, MySQL fails with
//!   `ER_NO_DB_ERROR` (1046) (`sql/sql_parse.cc`, `Query_block::add_table_to_list`, through
//!   `LEX::copy_db_to` and `THD::copy_db_to` in `sql/sql_class.h`).
//! * A table name, then its schema's name, is checked as `Query_block::add_table_to_list`
//!   does with `check_table_name` and `check_and_convert_db_name` (`sql/table.cc`): an empty
//!   name, one over `NAME_LEN` (192) bytes or one ending in a space is wrong,
//!   `ER_WRONG_TABLE_NAME` (1103) or `ER_WRONG_DB_NAME` (1102); one over 64 characters is
//!   `ER_TOO_LONG_IDENT` (1059). CREATE / DROP DATABASE and USE check schema names the same way
//!   (`USE` of an empty name is 1046 first: `mysql_change_db`, `sql/sql_db.cc`). A NUL byte
//!   ends a quoted identifier in MySQL's lexer (`sql/sql_lex.cc`, `ABORT_SYM`): a syntax error,
//!   1064, near the identifier's text up to the NUL.
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
    /// `schema.name`, checked as MySQL checks names (see the module docs): the table name,
    /// then the schema's.
    ///
    /// # Errors
    /// `ER_WRONG_TABLE_NAME` (1103), `ER_WRONG_DB_NAME` (1102), `ER_TOO_LONG_IDENT` (1059),
    /// `ER_PARSE_ERROR` (1064) for a NUL byte.
    pub fn new(schema: &str, name: &str) -> Result<TableName, SqlError> {
        match check_name(name)? {
            NameCheck::Ok => {}
            NameCheck::Wrong => return Err(SqlError::wrong_table_name(name)),
            NameCheck::TooLong => return Err(SqlError::too_long_ident(name)),
        }
        check_schema_name(schema)?;
        Ok(TableName {
            schema: schema.to_string(),
            name: name.to_string(),
        })
    }

    /// `name` in `schema`, or in `current` when unqualified.
    ///
    /// # Errors
    /// `ER_NO_DB_ERROR` (1046) for an unqualified name with no current schema; those of
    /// [`TableName::new`].
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
    /// Those of [`MdlKey::new`] (none for a name [`TableName::new`] accepted).
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

/// What `check_table_name` (`sql/table.cc`) says of a table or schema name.
enum NameCheck {
    Ok,
    /// `Ident_name_check::WRONG`: empty, over `NAME_LEN` bytes, or ending in a space.
    Wrong,
    /// `Ident_name_check::TOO_LONG`: over `NAME_CHAR_LEN` characters.
    TooLong,
}

/// MySQL's `NAME_LEN`: `NAME_CHAR_LEN` characters of at most three bytes (`utf8mb3`).
const NAME_LEN: usize = NAME_CHAR_LEN * 3;

/// `check_table_name`'s verdict on `name`; a NUL byte, which never reaches it in MySQL, is the
/// lexer's syntax error.
fn check_name(name: &str) -> Result<NameCheck, SqlError> {
    if let Some(nul) = name.find('\0') {
        return Err(SqlError::parse(&format!("`{}", &name[..nul]), 1));
    }
    // `my_isspace` of the last character: the ASCII white space.
    let ends_in_space = name
        .as_bytes()
        .last()
        .is_some_and(|&b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'));
    Ok(
        if name.is_empty() || name.len() > NAME_LEN || ends_in_space {
            NameCheck::Wrong
        } else if name.chars().count() > NAME_CHAR_LEN {
            NameCheck::TooLong
        } else {
            NameCheck::Ok
        },
    )
}

/// A schema name, checked as `check_and_convert_db_name` (`sql/table.cc`) does.
///
/// # Errors
/// `ER_WRONG_DB_NAME` (1102), `ER_TOO_LONG_IDENT` (1059), `ER_PARSE_ERROR` (1064) for a NUL
/// byte.
pub(crate) fn check_schema_name(schema: &str) -> Result<(), SqlError> {
    match check_name(schema)? {
        NameCheck::Ok => Ok(()),
        NameCheck::Wrong => Err(SqlError::wrong_db_name(schema)),
        NameCheck::TooLong => Err(SqlError::too_long_ident(schema)),
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

/// A schema name from the AST (CREATE / DROP DATABASE, USE), checked, as the session compares
/// names.
pub(crate) fn schema_name(name: &ObjectName, state: &SessionState) -> Result<String, SqlError> {
    match parts(name)?.as_slice() {
        [s] => check_schema_name(&s.value).map(|()| fold(&s.value, state).into_owned()),
        _ => Err(SqlError::parse(&name.to_string(), 1)),
    }
}

/// USE's schema name: as [`schema_name`], but an empty one is `ER_NO_DB_ERROR` (1046) before
/// it is a wrong one (`mysql_change_db`, `sql/sql_db.cc`).
pub(crate) fn schema_to_use(name: &ObjectName, state: &SessionState) -> Result<String, SqlError> {
    match parts(name)?.as_slice() {
        [s] if s.value.is_empty() => Err(SqlError::no_db()),
        _ => schema_name(name, state),
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

    /// The verdict of each rule on a name, as an error code (`None`: accepted).
    fn codes(check: impl Fn(&str) -> Result<(), SqlError>, cases: &[(String, Option<u16>)]) {
        for (name, code) in cases {
            let got = check(name).err().map(|e| e.code());
            assert_eq!(got, *code, "{name:?}");
        }
    }

    /// The rules of `check_table_name` (sql/table.cc) that `Query_block::add_table_to_list`
    /// (sql/sql_parse.cc) applies to a table name, and to a schema name through
    /// `check_and_convert_db_name` (sql/table.cc), in that order, each with its code.
    fn name_rules(wrong: u16) -> Vec<(String, Option<u16>)> {
        vec![
            ("t".into(), None),
            ("t t".into(), None),
            (" t".into(), None),
            // `!length`: ER_WRONG_TABLE_NAME / ER_WRONG_DB_NAME.
            ("".into(), Some(wrong)),
            // `last_char_is_space` (`my_isspace`): the same.
            ("t ".into(), Some(wrong)),
            ("t\t".into(), Some(wrong)),
            ("t\n".into(), Some(wrong)),
            // 64 characters are fine; 65 are ER_TOO_LONG_IDENT.
            ("x".repeat(64), None),
            ("é".repeat(64), None),
            ("x".repeat(65), Some(1059)),
            // `length > NAME_LEN` (64 three-byte characters, 192 bytes) is checked first: wrong.
            ("x".repeat(193), Some(wrong)),
            ("€".repeat(65), Some(wrong)),
            // The lexer ends a quoted identifier at a NUL byte (sql/sql_lex.cc,
            // MY_LEX_USER_VARIABLE_DELIMITER: ABORT_SYM): ER_PARSE_ERROR.
            ("a\0b".into(), Some(1064)),
        ]
    }

    #[test]
    fn table_names_mysql_rejects() {
        codes(|n| TableName::new("test", n).map(|_| ()), &name_rules(1103));
        let e = TableName::new("test", "t ").unwrap_err();
        assert_eq!(
            (e.sqlstate(), e.message()),
            ("42000", "Incorrect table name 't '")
        );
        let nul = TableName::new("test", "a\0b").unwrap_err();
        assert!(nul.message().ends_with("near '`a' at line 1"), "{nul}");
    }

    #[test]
    fn schema_names_mysql_rejects() {
        codes(check_schema_name, &name_rules(1102));
        codes(|n| TableName::new(n, "t").map(|_| ()), &name_rules(1102));
        let e = check_schema_name("").unwrap_err();
        assert_eq!(
            (e.sqlstate(), e.message()),
            ("42000", "Incorrect database name ''")
        );
        // The table name is checked first.
        assert_eq!(TableName::new("", "").unwrap_err().code(), 1103);
    }
}
