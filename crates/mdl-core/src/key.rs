//! Lock names: namespace + schema + name (+ column), stored in MySQL's byte layout.
//!
//! `MdlKey` keeps the exact bytes MySQL hashes (`<namespace byte><schema>\0<name>\0`, and
//! `<column>\0` for COLUMN_STATISTICS) so partition hashes match MySQL's, plus a cached
//! MurmurHash3 of them used by the lock map and the ticket index.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use crate::error::{MdlError, Result};
use crate::hash::{murmur3_32, mysql_hash_sort_bin};
use crate::types::{Namespace, Strategy};

/// Longest schema, object or column name, in characters (MySQL's `NAME_CHAR_LEN`).
pub const NAME_CHAR_LEN: usize = 64;

/// The name of a metadata lock.
#[derive(Clone)]
pub struct MdlKey {
    bytes: Box<[u8]>,
    hash: u32,
    bin_hash: u32,
    schema_len: u16,
    name_len: u16,
    /// `bytes[0]`, decoded once, and its strategy.
    namespace: Namespace,
    strategy: Strategy,
}

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
        Self::build(namespace, schema, name, None)
    }

    /// The key of a pre-allocated singleton lock (GLOBAL, COMMIT, BACKUP_LOCK, ACL_CACHE).
    ///
    /// # Errors
    /// [`MdlError::InvalidKey`] if `namespace` is not a singleton namespace.
    pub fn singleton(namespace: Namespace) -> Result<MdlKey> {
        if !namespace.is_singleton() {
            return Err(MdlError::InvalidKey(
                "namespace is not a singleton namespace",
            ));
        }
        Self::build(namespace, "", "", None)
    }

    /// A COLUMN_STATISTICS key for `schema.table.column`.
    ///
    /// # Errors
    /// As [`MdlKey::new`].
    pub fn column_statistics(schema: &str, table: &str, column: &str) -> Result<MdlKey> {
        Self::build(Namespace::ColumnStatistics, schema, table, Some(column))
    }

    fn build(ns: Namespace, schema: &str, name: &str, column: Option<&str>) -> Result<MdlKey> {
        check_name("schema", schema)?;
        check_name("name", name)?;
        if let Some(c) = column {
            check_name("column", c)?;
        }
        if ns.is_singleton() && !(schema.is_empty() && name.is_empty()) {
            return Err(MdlError::InvalidKey(
                "singleton namespaces (GLOBAL, COMMIT, BACKUP_LOCK, ACL_CACHE) take no name",
            ));
        }
        let mut bytes = Vec::with_capacity(3 + schema.len() + name.len());
        bytes.push(ns.id());
        bytes.extend_from_slice(schema.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(0);
        if let Some(c) = column {
            bytes.extend_from_slice(c.as_bytes());
            bytes.push(0);
        }
        let hash = murmur3_32(&bytes, 0);
        let bin_hash = mysql_hash_sort_bin(&bytes);
        Ok(MdlKey {
            bytes: bytes.into_boxed_slice(),
            hash,
            bin_hash,
            schema_len: schema.len() as u16,
            name_len: name.len() as u16,
            namespace: ns,
            strategy: ns.strategy(),
        })
    }

    /// The namespace.
    #[inline]
    pub fn namespace(&self) -> Namespace {
        self.namespace
    }

    /// The namespace's strategy (scoped or object).
    #[inline]
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The schema (database) name; empty for namespaces without one.
    pub fn schema(&self) -> &str {
        self.str_at(1, self.schema_len)
    }

    /// The object name.
    pub fn name(&self) -> &str {
        self.str_at(2 + self.schema_len as usize, self.name_len)
    }

    /// The column name of a COLUMN_STATISTICS key.
    pub fn column(&self) -> Option<&str> {
        let start = 3 + self.schema_len as usize + self.name_len as usize;
        if start >= self.bytes.len() {
            return None;
        }
        let len = self.bytes.len() - start - 1;
        Some(self.str_at(start, len as u16))
    }

    fn str_at(&self, start: usize, len: u16) -> &str {
        // Built from `&str` parts separated by NULs; the slice boundaries are the parts'.
        std::str::from_utf8(&self.bytes[start..start + len as usize]).unwrap_or("")
    }

    /// The key bytes in MySQL's layout.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// MurmurHash3 (seed 0) of the key bytes, as MySQL 8.0 computes it.
    pub fn murmur3(&self) -> u32 {
        self.hash
    }

    /// MySQL 5.6.14's `my_hash_sort_bin` of the key bytes (the old partition hash).
    pub fn mysql_bin_hash(&self) -> u32 {
        self.bin_hash
    }

    /// MySQL's `MDL_key::cmp`: bytes over the shorter length, then the length.
    pub fn mysql_cmp(&self, other: &MdlKey) -> Ordering {
        let n = self.bytes.len().min(other.bytes.len());
        self.bytes[..n]
            .cmp(&other.bytes[..n])
            .then(self.bytes.len().cmp(&other.bytes.len()))
    }
}

fn check_name(part: &'static str, s: &str) -> Result<()> {
    if s.len() > NAME_CHAR_LEN {
        let chars = s.chars().count();
        if chars > NAME_CHAR_LEN {
            return Err(MdlError::NameTooLong { part, chars });
        }
    }
    if s.as_bytes().contains(&0) {
        return Err(MdlError::InvalidKey("names cannot contain NUL bytes"));
    }
    Ok(())
}

impl PartialEq for MdlKey {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && bytes_eq(&self.bytes, &other.bytes)
    }
}

/// Byte equality without a call for keys of 8 bytes or more (every table key): 8-byte words,
/// the last one overlapping. Keys are compared on every statement (the lock-object cache).
#[inline]
fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a == b;
    }
    let word = |s: &[u8], i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[i..i + 8]);
        u64::from_ne_bytes(w)
    };
    if n <= 16 {
        return word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8);
    }
    let mut i = 0;
    while i + 8 < n {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

impl Eq for MdlKey {}

impl Hash for MdlKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u32(self.hash);
    }
}

impl fmt::Debug for MdlKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MdlKey({:?}, {:?}, {:?}",
            self.namespace(),
            self.schema(),
            self.name()
        )?;
        if let Some(c) = self.column() {
            write!(f, ", {c:?}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for MdlKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.namespace().object_type_name())?;
        match (self.schema(), self.name()) {
            ("", "") => Ok(()),
            ("", n) => write!(f, "`{n}`"),
            (s, n) => write!(f, "`{s}`.`{n}`"),
        }?;
        if let Some(c) = self.column() {
            write!(f, ".`{c}`")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_parts() {
        let k = MdlKey::column_statistics("db", "t", "c").unwrap();
        assert_eq!(k.as_bytes(), b"\x0edb\0t\0c\0");
        assert_eq!((k.schema(), k.name(), k.column()), ("db", "t", Some("c")));
        let g = MdlKey::singleton(Namespace::Global).unwrap();
        assert_eq!(g.as_bytes(), b"\0\0\0");
        assert_eq!(g.column(), None);
        // 64 multi-byte characters are fine, 65 are not.
        assert!(MdlKey::new(Namespace::Table, "d", &"é".repeat(64)).is_ok());
        assert_eq!(
            MdlKey::new(Namespace::Table, "d", &"é".repeat(65)).unwrap_err(),
            MdlError::NameTooLong {
                part: "name",
                chars: 65
            }
        );
        assert!(MdlKey::new(Namespace::Global, "", "x").is_err());
        assert!(MdlKey::new(Namespace::Table, "a\0b", "x").is_err());
    }
}
