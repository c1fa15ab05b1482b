//! Which names a schema of this server can have.
//!
//! A schema is a SQLite file attached to every connection under the schema's name
//! (`engine.rs`), so its name must be one SQLite can attach beside the others: SQLite
//! reserves `main` and `temp` (each connection's own databases) and compares the names of
//! attached databases without regard to case, so `Test` cannot be attached beside `test`, nor
//! `SYS` beside each connection's `sys`. A name SQLite would refuse is refused here, before
//! any file exists: a file SQLite cannot attach would fail every connection's next statement.
//!
//! The errors are MySQL's for the closest case:
//! * a name that clashes with an existing schema, exactly or in another case: 1007
//!   (`ER_DB_CREATE_EXISTS`), as MySQL says of an existing one; the message names the
//!   schema it clashes with when the case differs;
//! * `main`, `temp` (any case): 1102 (`ER_WRONG_DB_NAME`), MySQL's error for a name its
//!   storage cannot represent (a directory name the file system refuses), which is what they
//!   are to SQLite;
//! * `information_schema` (any case): 1044 (`ER_DBACCESS_DENIED_ERROR`), as MySQL refuses to
//!   create or drop it; `performance_schema` and `sys`, this server's views, cannot be dropped
//!   for the same reason.
//! * an empty name, one ending in a space, starting with `.` or holding `/`, `\` or NUL (not
//!   a file name in the data directory): 1102; one over 64 characters: 1059
//!   (`ER_TOO_LONG_IDENT`), as in MySQL.

use crate::engine::VIEW_SCHEMAS;
use crate::error::ServerError;

/// The names SQLite gives each connection's own databases.
const SQLITE_RESERVED: [&str; 2] = ["main", "temp"];

/// MySQL's catalog (here views of SQLite's, `info_schema.rs`), which no one may create or drop.
const INFORMATION_SCHEMA: &str = "information_schema";

/// MySQL's longest schema name (`NAME_CHAR_LEN`).
const MAX_LEN: usize = 64;

/// Why `name` cannot be a new schema beside the schemas `existing` (and the view schemas).
///
/// # Errors
/// See the module docs.
pub fn check_new<'a>(
    name: &str,
    existing: impl IntoIterator<Item = &'a str>,
) -> Result<(), ServerError> {
    if name.eq_ignore_ascii_case(INFORMATION_SCHEMA) {
        return Err(access_denied(name));
    }
    if name.chars().count() > MAX_LEN {
        return Err(ServerError::new(
            1059,
            "42000",
            format!("Identifier name '{name}' is too long"),
        ));
    }
    if name.is_empty()
        || name.ends_with(' ')
        || name.starts_with('.')
        || name.contains(['/', '\\', '\0'])
        || SQLITE_RESERVED.iter().any(|r| name.eq_ignore_ascii_case(r))
    {
        return Err(ServerError::new(
            1102,
            "42000",
            format!("Incorrect database name '{name}'"),
        ));
    }
    let clash = VIEW_SCHEMAS
        .iter()
        .copied()
        .chain(existing)
        .find(|s| s.eq_ignore_ascii_case(name));
    match clash {
        None => Ok(()),
        Some(s) => {
            let mut message = format!("Can't create database '{name}'; database exists");
            if s != name {
                message.push_str(&format!(
                    " (as '{s}': names that differ only in case are one name here)"
                ));
            }
            Err(ServerError::new(1007, "HY000", message))
        }
    }
}

/// Why schema `name` cannot be dropped, if it cannot (a view schema, `information_schema`).
///
/// # Errors
/// 1044.
pub fn check_drop(name: &str) -> Result<(), ServerError> {
    if VIEW_SCHEMAS.contains(&name) || name.eq_ignore_ascii_case(INFORMATION_SCHEMA) {
        return Err(access_denied(name));
    }
    Ok(())
}

/// `ER_DBACCESS_DENIED_ERROR` (1044) for schema `name`.
pub(crate) fn access_denied(name: &str) -> ServerError {
    ServerError::new(
        1044,
        "42000",
        format!("Access denied for user 'root'@'localhost' to database '{name}'"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(name: &str, existing: &[&str]) -> Option<u16> {
        check_new(name, existing.iter().copied())
            .err()
            .map(|e| e.code)
    }

    #[test]
    fn names_sqlite_cannot_attach_are_refused() {
        assert_eq!(code("main", &[]), Some(1102));
        assert_eq!(code("Temp", &[]), Some(1102));
        assert_eq!(code("Test", &["test"]), Some(1007));
        assert_eq!(code("SYS", &[]), Some(1007));
        assert_eq!(code("performance_schema", &[]), Some(1007));
        assert_eq!(code("INFORMATION_SCHEMA", &[]), Some(1044));
        assert_eq!(code("", &[]), Some(1102));
        assert_eq!(code("a ", &[]), Some(1102));
        assert_eq!(code(&"x".repeat(65), &[]), Some(1059));
        assert_eq!(code(&"é".repeat(64), &[]), None);
        assert_eq!(code("mysql", &["test"]), None);
        assert_eq!(code("maintenance", &["test"]), None);
        let e = check_new("Test", ["test"]).unwrap_err();
        assert!(e.message.contains("as 'test'"), "{}", e.message);
    }

    #[test]
    fn view_schemas_cannot_be_dropped() {
        assert_eq!(check_drop("sys").unwrap_err().code, 1044);
        assert_eq!(check_drop("information_schema").unwrap_err().code, 1044);
        assert!(check_drop("test").is_ok());
    }
}
