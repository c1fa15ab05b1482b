//! Lock names: namespace + schema + name (+ column), stored in MySQL's byte layout.
//!
//! `MdlKey` keeps the exact bytes MySQL hashes (`<namespace byte><schema>\0<name>\0`, and
//! `<column>\0` for COLUMN_STATISTICS) so partition hashes match MySQL's, plus a cached
//! MurmurHash3 of them used by the lock map and the ticket index.
//!
//! The public constructors, which check the names and return [`MdlError`](crate::MdlError),
//! are in `naming.rs`, above `error`; this module only lays out names already checked, so the
//! error type (whose payloads name keys) and the key type do not depend on each other.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use crate::hash::{murmur3_32, mysql_hash_sort_bin};
use crate::types::{Namespace, Strategy};

/// The name of a metadata lock.
#[derive(Clone)]
pub struct MdlKey {
    bytes: Box<[u8]>,
    hash: u32,
    schema_len: u16,
    name_len: u16,
    /// `bytes[0]`, decoded once, and its strategy.
    namespace: Namespace,
    strategy: Strategy,
}

impl MdlKey {
    /// The key of `name` in `schema` (and `column`) within `ns`, laid out as MySQL lays it out.
    /// The names are checked by the public constructors (`naming.rs`).
    pub(crate) fn from_checked_parts(
        ns: Namespace,
        schema: &str,
        name: &str,
        column: Option<&str>,
    ) -> MdlKey {
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
        MdlKey {
            bytes: bytes.into_boxed_slice(),
            hash,
            schema_len: schema.len() as u16,
            name_len: name.len() as u16,
            namespace: ns,
            strategy: ns.strategy(),
        }
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

    /// MySQL 5.6.14's `my_hash_sort_bin` of the key bytes (the old partition hash). Computed
    /// at each call, as MySQL 5.6's `MDL_key::hash_value` did: only a manager configured with
    /// `PartitionHash::MySqlBin` and several partitions asks for it, so keys do not pay for it
    /// (it was about 100 instructions of every statement's key in `mdl-server`).
    pub fn mysql_bin_hash(&self) -> u32 {
        mysql_hash_sort_bin(&self.bytes)
    }

    /// MySQL's `MDL_key::cmp`: bytes over the shorter length, then the length.
    pub fn mysql_cmp(&self, other: &MdlKey) -> Ordering {
        let n = self.bytes.len().min(other.bytes.len());
        self.bytes[..n]
            .cmp(&other.bytes[..n])
            .then(self.bytes.len().cmp(&other.bytes.len()))
    }
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

/// MySQL's order of keys ([`MdlKey::mysql_cmp`]: namespace, then schema, then name, bytewise),
/// the order in which MySQL's `acquire_locks` takes a statement's locks.
impl Ord for MdlKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.mysql_cmp(other)
    }
}

impl PartialOrd for MdlKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

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
    /// The namespace and the names the key has: ``GLOBAL``, ``SCHEMA `test` ``,
    /// ``TABLE `test`.`t1` ``, ``USER LEVEL LOCK `app` ``,
    /// ``COLUMN STATISTICS `db`.`t`.`c` ``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.namespace().object_type_name())?;
        match (self.schema(), self.name()) {
            ("", "") => Ok(()),
            ("", n) => write!(f, " `{n}`"),
            (s, "") => write!(f, " `{s}`"),
            (s, n) => write!(f, " `{s}`.`{n}`"),
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
        let k = MdlKey::from_checked_parts(Namespace::ColumnStatistics, "db", "t", Some("c"));
        assert_eq!(k.as_bytes(), b"\x0edb\0t\0c\0");
        assert_eq!((k.schema(), k.name(), k.column()), ("db", "t", Some("c")));
        let g = MdlKey::from_checked_parts(Namespace::Global, "", "", None);
        assert_eq!(g.as_bytes(), b"\0\0\0");
        assert_eq!(g.column(), None);
    }

    #[test]
    fn keys_order_as_mysql_sorts_requests() {
        let t = |s, n| MdlKey::from_checked_parts(Namespace::Table, s, n, None);
        let mut keys = vec![
            t("b", "a"),
            MdlKey::from_checked_parts(Namespace::Global, "", "", None),
            t("a", "bb"),
            t("a", "b"),
        ];
        keys.sort();
        let names: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        assert_eq!(
            names,
            ["GLOBAL", "TABLE `a`.`b`", "TABLE `a`.`bb`", "TABLE `b`.`a`"]
        );
        for a in &keys {
            for b in &keys {
                assert_eq!(a.cmp(b) == Ordering::Equal, a == b, "Ord agrees with Eq");
            }
        }
    }

    #[test]
    fn display_names_only_the_parts_a_key_has() {
        let key = |ns, s, n, c| MdlKey::from_checked_parts(ns, s, n, c).to_string();
        assert_eq!(key(Namespace::Global, "", "", None), "GLOBAL");
        assert_eq!(key(Namespace::Schema, "test", "", None), "SCHEMA `test`");
        assert_eq!(
            key(Namespace::Table, "test", "t1", None),
            "TABLE `test`.`t1`"
        );
        assert_eq!(
            key(Namespace::UserLevelLock, "", "app", None),
            "USER LEVEL LOCK `app`"
        );
        assert_eq!(
            key(Namespace::ColumnStatistics, "db", "t", Some("c")),
            "COLUMN STATISTICS `db`.`t`.`c`"
        );
    }
}
