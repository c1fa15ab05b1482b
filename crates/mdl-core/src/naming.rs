//! What a lock name may be, checked where keys are made: [`MdlKey`]'s public constructors.
//!
//! A schema, object or column name is at most [`NAME_CHAR_LEN`] characters and has no NUL byte
//! (the key's byte layout separates the names with NULs); a singleton namespace takes no name.
//! The key type itself (`key.rs`) sits below [`MdlError`], whose payloads name keys; these
//! constructors sit above it, so the two modules do not depend on each other.

use crate::error::{KeyPart, MdlError, Result};
use crate::key::MdlKey;
use crate::types::Namespace;

/// Longest schema, object or column name, in characters (MySQL's `NAME_CHAR_LEN`).
pub const NAME_CHAR_LEN: usize = 64;

impl MdlKey {
    /// A key for `name` in `schema` within `namespace`.
    ///
    /// Singleton namespaces (GLOBAL, COMMIT, BACKUP_LOCK, ACL_CACHE) take empty names; see
    /// [`MdlKey::singleton`].
    ///
    /// # Errors
    /// [`MdlError::NameTooLong`] if a name exceeds 64 characters, [`MdlError::InvalidKey`] if a
    /// name contains a NUL byte or a singleton namespace is given a name.
    ///
    /// ```
    /// use mdl_core::{MdlKey, Namespace};
    /// let key = MdlKey::new(Namespace::Table, "test", "sbtest1").unwrap();
    /// assert_eq!(key.as_bytes(), b"\x04test\0sbtest1\0");
    /// assert!(MdlKey::new(Namespace::Table, "test", &"x".repeat(65)).is_err());
    /// ```
    pub fn new(namespace: Namespace, schema: &str, name: &str) -> Result<MdlKey> {
        Self::checked(namespace, schema, name, None)
    }

    /// The key of a pre-allocated singleton lock (GLOBAL, COMMIT, BACKUP_LOCK, ACL_CACHE).
    ///
    /// # Errors
    /// [`MdlError::InvalidKey`] if `namespace` is not a singleton namespace.
    pub fn singleton(namespace: Namespace) -> Result<MdlKey> {
        if !namespace.is_singleton() {
            return Err(MdlError::InvalidKey(
                "only GLOBAL, COMMIT, BACKUP_LOCK and ACL_CACHE are singleton namespaces",
            ));
        }
        Self::checked(namespace, "", "", None)
    }

    /// A COLUMN_STATISTICS key for `schema.table.column`.
    ///
    /// # Errors
    /// As [`MdlKey::new`].
    pub fn column_statistics(schema: &str, table: &str, column: &str) -> Result<MdlKey> {
        Self::checked(Namespace::ColumnStatistics, schema, table, Some(column))
    }

    fn checked(ns: Namespace, schema: &str, name: &str, column: Option<&str>) -> Result<MdlKey> {
        check_name(KeyPart::Schema, schema)?;
        check_name(KeyPart::Name, name)?;
        if let Some(c) = column {
            check_name(KeyPart::Column, c)?;
        }
        if ns.is_singleton() && !(schema.is_empty() && name.is_empty()) {
            return Err(MdlError::InvalidKey(
                "singleton namespaces (GLOBAL, COMMIT, BACKUP_LOCK, ACL_CACHE) take no name",
            ));
        }
        Ok(MdlKey::from_checked_parts(ns, schema, name, column))
    }
}

fn check_name(part: KeyPart, s: &str) -> Result<()> {
    if s.len() > NAME_CHAR_LEN {
        let chars = s.chars().count();
        if chars > NAME_CHAR_LEN {
            return Err(MdlError::NameTooLong {
                part,
                name: s.into(),
                chars,
            });
        }
    }
    if s.as_bytes().contains(&0) {
        return Err(MdlError::InvalidKey(match part {
            KeyPart::Schema => "the schema name contains a NUL byte",
            KeyPart::Name => "the object name contains a NUL byte",
            KeyPart::Column => "the column name contains a NUL byte",
        }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks() {
        let k = MdlKey::column_statistics("db", "t", "c").unwrap();
        assert_eq!(k.as_bytes(), b"\x0edb\0t\0c\0");
        assert_eq!(
            MdlKey::singleton(Namespace::Global).unwrap().as_bytes(),
            b"\0\0\0"
        );
        // 64 multi-byte characters are fine, 65 are not.
        assert!(MdlKey::new(Namespace::Table, "d", &"é".repeat(64)).is_ok());
        assert_eq!(
            MdlKey::new(Namespace::Table, "d", &"é".repeat(65)).unwrap_err(),
            MdlError::NameTooLong {
                part: KeyPart::Name,
                name: "é".repeat(65).into(),
                chars: 65
            }
        );
        assert!(MdlKey::new(Namespace::Global, "", "x").is_err());
        assert!(MdlKey::new(Namespace::Table, "a\0b", "x").is_err());
    }
}
